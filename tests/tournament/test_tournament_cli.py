"""``plyground tournament`` and ``plyground match`` on the command line, and killing a real run half-way."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from process_table import ctrl_c_as_at_a_terminal

HERE = Path(__file__).resolve().parent




def test_tournament_prints_ratings_and_writes_summary_plot_and_games(cli, tmp_path):
    args = ("tournament", "--game", "tictactoe", "random", "--player", "seeded=random:seed=3", "-p", "r3=random",
            "-n", "4", "--openings", "1-ply", "--workers", "1", "--out", str(tmp_path), "--seed", "5")
    code, out, err = cli(*args)
    assert code == 0, err
    assert "12 games (3 pairings x 4) in" in err and "0 stored, 12 to play on 1 worker(s)" in err
    assert err.count("ETA") == 12 and "[12/12]" in err
    assert "tictactoe: 12 of 12 games" in out
    assert "rank  player" in out and "95% interval" in out and "anchor" in out
    # --player entrants come first; the first plain random is the anchor.
    assert "Elo anchored at r3 = 0" in out and "total" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == {"scheduled": 12, "stored": 12, "unfinished": 0}
    assert summary["ratings"]["anchor"] == "r3"
    assert {p["name"]: p["spec"] for p in summary["ratings"]["players"]} == \
           {"random": "random", "seeded": "random:seed=3", "r3": "random"}
    assert summary["crosstable"]["random"]["seeded"]["games"] == 4
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 12
    if (tmp_path / "ratings.png").exists():
        assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "plot: skipped" in out

    # The same command again: nothing to play, the same table.
    code, out2, err2 = cli(*args)
    assert code == 0 and "12 stored, 0 to play" in err2 and "ETA" not in err2
    assert out2 == out
    # A different anchor re-rates the stored games without playing any.
    code, out3, err3 = cli(*args, "--anchor", "random", "--intervals", "bootstrap")
    assert code == 0 and "Elo anchored at random = 0; 95% intervals (bootstrap) relative to the pool" in out3


@pytest.mark.parametrize("args, message", [
    (("random", "random"), "player name 'random' is given twice; name each entrant"),
    (("random",), "a tournament needs at least two players"),
    (("random", "alphago"), "unknown player 'alphago'; valid players: "),
    (("random", "random:speed=2"), "player random: unknown option 'speed'"),
    (("a=random", "b=random", "--openings", "9-plies"), "--openings '9-plies' is neither 'none', 'N-ply'"),
    (("a=random", "b=random", "--openings", "1-ply", "-n", "3"), "games per pairing must be even"),
    (("a=random", "b=random", "--anchor", "c"), "unknown player 'c'; players in this tournament: a, b"),
    (("a=random", "human"), "player 'human' needs a person at a renderer"),
])
def test_tournament_misuse_exits_2_with_one_line(cli, tmp_path, args, message):
    code, out, err = cli("tournament", "--game", "tictactoe", "--out", str(tmp_path), "--workers", "1",
                         *args)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line.lower()]) == 1, err


def test_a_different_tournament_in_the_same_out_directory_is_refused(cli, tmp_path):
    base = ("tournament", "--game", "tictactoe", "a=random", "b=random", "--out", str(tmp_path), "--workers", "1")
    assert cli(*base, "-n", "2")[0] == 0
    code, out, err = cli(*base, "-n", "2", "--seed", "7")
    assert code == 2
    assert "holds a different tournament (seed (stored: 0; now: 7))" in err


def test_match_is_a_two_player_tournament(cli, tmp_path):
    code, out, err = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random:seed=1",
                         "-n", "6", "--openings", "1-ply", "--out", str(tmp_path / "m"), "--workers", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "random vs random:seed=1: 6 games"
    assert lines[1].startswith("  random: ") and "wins" in lines[1] and "losses" in lines[1]
    assert lines[2].startswith("  score ") and "(95% interval " in lines[2]
    assert lines[3].startswith("  Elo of random minus random:seed=1: ")
    assert err.count("game ") == 6
    assert len((tmp_path / "m" / "results.jsonl").read_text().splitlines()) == 6
    code, again, err = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random:seed=1",
                           "-n", "6", "--openings", "1-ply", "--out", str(tmp_path / "m"), "--workers", "1")
    assert again == out and "game " not in err                   # resumed: nothing replayed


# ------------------------------------------------------------------ killing a real run

def _command(out_dir, workers):
    return [sys.executable, str(HERE / "slow_cli.py"), "tournament", "--game", "tictactoe",
            "slow", "random", "fast=random:seed=1", "-n", "8", "--openings", "1-ply",
            "--workers", str(workers), "--out", str(out_dir), "--seed", "3"]


def _stored_lines(out_dir):
    path = out_dir / "results.jsonl"
    if not path.exists():
        return []
    return [line for line in path.read_text().split("\n")[:-1] if line.strip()]   # complete lines only


def _start_and_kill(out_dir, workers, at_least, sig):
    """Start the tournament in its own session, wait for ``at_least`` stored games, then signal the session."""
    proc = subprocess.Popen(_command(out_dir, workers), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=ctrl_c_as_at_a_terminal)
    deadline = time.monotonic() + 120
    try:
        while len(_stored_lines(out_dir)) < at_least:
            assert proc.poll() is None, "the tournament finished before it could be killed: " + proc.stderr.read()
            assert time.monotonic() < deadline, "no games were stored in time"
            time.sleep(0.05)
        os.killpg(proc.pid, sig)                  # the run and its worker processes, as Ctrl-C or kill -9 would
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, err


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups and signals")
def test_killing_a_tournament_half_way_and_rerunning_finishes_it_without_replaying(tmp_path):
    total = 3 * 8

    # Ctrl-C: the run stops cleanly and says how to resume.
    code, err = _start_and_kill(tmp_path, 2, 3, signal.SIGINT)
    assert code == 130 and "rerun the same command to resume" in err, err
    after_interrupt = _stored_lines(tmp_path)
    assert 3 <= len(after_interrupt) < total

    # kill -9 of the whole process group during the second run.
    code, err = _start_and_kill(tmp_path, 2, len(after_interrupt) + 3, signal.SIGKILL)
    assert code == -signal.SIGKILL
    after_kill = _stored_lines(tmp_path)
    assert after_kill[:len(after_interrupt)] == after_interrupt and len(after_kill) < total

    # The same command once more finishes the tournament, playing only what was missing.
    finish = subprocess.run(_command(tmp_path, 2), capture_output=True, text=True, timeout=300)
    assert finish.returncode == 0, finish.stderr
    assert f"{len(after_kill)} stored, {total - len(after_kill)} to play" in finish.stderr
    assert finish.stderr.count("ETA") == total - len(after_kill)
    final = _stored_lines(tmp_path)
    assert len(final) == total and final[:len(after_kill)] == after_kill
    keys = [(d["a"], d["b"], d["index"]) for d in map(json.loads, final)]
    assert len(set(keys)) == total
    assert f"tictactoe: {total} of {total} games" in finish.stdout
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == total

    # And the results are those of an uninterrupted run with one worker.
    fresh = tmp_path / "fresh"
    whole = subprocess.run(_command(fresh, 1), capture_output=True, text=True, timeout=300)
    assert whole.returncode == 0, whole.stderr
    moves = lambda lines: sorted(((d["a"], d["b"], d["index"]), d["record"]["moves"]) for d in map(json.loads, lines))
    assert moves(final) == moves(_stored_lines(fresh))
