"""Kill -9 the real `plyground train alphazero` mid-run, rerun it: nothing finished is lost or replayed."""
import json
import os
import re
import subprocess
import sys
import time

from plyground.files.storage import read_json_lines
from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.rundir import RunDirectory

GAMES = 30


def command(run_dir):
    return [sys.executable, "-m", "plyground", "train", "alphazero", "--game", "tictactoe",
            "--run", str(run_dir), "--set", "network=mlp:hidden=16,layers=1", "--set", "iterations=2",
            "--set", f"selfplay_games={GAMES}", "--set", "simulations=48", "--set", "save_every=3",
            "--set", "comparison_games=6", "--set", "epochs=2", "--set", "batch_size=16",
            # one game at a time in one process: chunks appear every 3 games, so the test can kill
            # mid-self-play (16 games advanced together finish in one burst, after the kill was due)
            "--set", "parallel_games=1", "--workers", "1"]


def environment():
    return {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def wait_for(condition, process, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.02)
    return False


def stamps(folder):
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_ino) for p in folder.glob("games-*.npz")}


def phase(run_dir):
    try:
        return json.loads((run_dir / "state.json").read_text())["phase"]
    except (OSError, ValueError, KeyError):
        return None


def test_kill_during_self_play_and_comparison_then_resume(tmp_path):
    run_dir = tmp_path / "run"
    replay = run_dir / "replay" / "iter-0001"

    # 1. Kill during self-play, after some chunks are on disk.
    proc = subprocess.Popen(command(run_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment())
    assert wait_for(lambda: len(stamps(replay)) >= 2, proc), proc.communicate()
    proc.kill()
    proc.wait()
    before = stamps(replay)
    finished = RunDirectory(run_dir, TicTacToe()).games_done(1)
    assert 6 <= finished < GAMES, "the kill came too late: make self-play slower"
    assert phase(run_dir) == "selfplay"

    # 2. Rerun; kill it again once the comparison games have started.
    comparison = run_dir / "comparison" / "iter-0001.jsonl"
    proc = subprocess.Popen(command(run_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(),
                            text=True)
    assert wait_for(comparison.exists, proc), proc.communicate()
    proc.kill()
    _, err = proc.communicate()
    assert f"self-play resumes after {finished} finished games" in err
    after = stamps(replay)
    assert {name: after[name] for name in before} == before       # finished chunks untouched
    played_before_kill = len(read_json_lines(comparison))

    # 3. Rerun to the end.
    done = subprocess.run(command(run_dir), capture_output=True, text=True, env=environment(), timeout=600)
    assert done.returncode == 0, done.stderr
    assert "resuming" in done.stderr and "iter 1/2] self-play" not in done.stderr
    assert stamps(replay) == after                                  # self-play of iteration 1 not replayed
    rundir = RunDirectory(run_dir, TicTacToe())
    for iteration in (1, 2):
        assert rundir.games_done(iteration) == GAMES
        records = [r for _, chunk in rundir.iter_chunks(range(iteration, iteration + 1)) for r in chunk]
        assert [r.tags["Round"] for r in records] == [str(i + 1) for i in range(GAMES)]   # each game once
    games = read_json_lines(comparison)
    assert len(games) == 6 and [g["new_first"] for g in games] == [True, False] * 3
    if played_before_kill < 6:
        assert re.search(r"iter 1/2\] comparison \d+/6", done.stderr)
    state = json.loads((run_dir / "state.json").read_text())
    assert state["iteration"] == 3
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [m["iteration"] for m in metrics] == [1, 2]
    assert not list(run_dir.rglob("*.tmp"))
