"""Runs in chunks (`plyground train --minutes`, `plyground alphazero pack|unpack`, issue #55): a run that
stops at its time limit, travels as a pack to a fresh folder and goes on there is the run that never stopped."""
import json
from pathlib import Path

import numpy as np
import pytest

from plyground.cli import main
from plyground.plugins.trainers.alphazero import travel
from plyground.files.recordio import record_from_json
from plyground.files.storage import read_json_lines

# Nothing passes from game to game (no evaluation cache, one game at a time), so a stop between games
# changes nothing that follows (as for workers: tests/alphazero/test_workers.py).
TINY = {"network": "mlp:hidden=8,layers=1", "iterations": 1, "selfplay_games": 4, "simulations": 12,
        "comparison_games": 2, "epochs": 2, "batch_size": 8, "save_every": 2, "cache_size": 0,
        "parallel_games": 1, "plots": False, "workers": 1}
#: so small that every chunk does its first unit of work (a game, an epoch) and stops at the next check
TINY_LIMIT = "0.0001"


def command(*args):
    try:
        main(list(args))
    except SystemExit as exc:
        return exc.code
    return 0


def train(run_dir, *extra, **options):
    args = ["train", "alphazero", "--game", "tictactoe", "--run", str(run_dir), "--quiet", *extra]
    for key, value in {**TINY, **options}.items():
        args += ["--set", f"{key}={value}"]
    return command(*args)


def state(run_dir):
    return json.loads((Path(run_dir) / "state.json").read_text())


def examples(run_dir):
    """The iteration's self-play examples, concatenated in game order (chunk boundaries do not matter)."""
    parts = []
    for path in sorted((Path(run_dir) / "replay" / "iter-0001").glob("games-*.npz")):
        with np.load(path) as archive:
            parts.append({name: archive[name] for name in archive.files if name != "records_json"})
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def network(path):
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files if not name.startswith("__")}


def moves(path):
    return [(r.moves, r.returns) for r in (record_from_json(g["record"]) for g in read_json_lines(path))]


def test_a_run_in_chunks_that_travel_is_the_run_that_never_stopped(tmp_path, capsys):
    assert train(tmp_path / "whole") == 0

    # chunk 0 in a fresh run; then each chunk packed, unpacked into a fresh folder and resumed there
    assert train(tmp_path / "run-0", "--minutes", TINY_LIMIT) == 0
    assert "stopped at the time limit" in capsys.readouterr().out
    assert state(tmp_path / "run-0") == {**state(tmp_path / "run-0"), "iteration": 1, "phase": "selfplay"}
    seen, spent = [], 0.0
    for chunk in range(1, 20):
        before, after = tmp_path / f"run-{chunk - 1}", tmp_path / f"run-{chunk}"
        assert command("alphazero", "pack", "--run", str(before), "--to", str(tmp_path / f"pack-{chunk}")) == 0
        assert len(list((tmp_path / f"pack-{chunk}").iterdir())) <= travel.MAX_FILES
        assert command("alphazero", "unpack", "--from", str(tmp_path / f"pack-{chunk}"), "--run", str(after)) == 0
        assert train(after, "--minutes", TINY_LIMIT) == 0
        seen.append(state(before)["phase"])
        spent = max(spent, state(after).get("spent", 0.0))
        if state(after)["iteration"] == 2:
            break
    else:
        pytest.fail(f"the run never finished in chunks: {seen}")
    # it stopped in self-play, between epochs and between comparison games, not only between phases
    assert {"selfplay", "train", "compare"} <= set(seen), seen
    final = after
    sessions = read_json_lines(final / "sessions.jsonl")
    assert len(sessions) == chunk + 1 and [s["outcome"] for s in sessions] == ["time limit"] * chunk + ["finished"]
    assert sum(s["selfplay_games"] for s in sessions) == TINY["selfplay_games"]

    # the same games, the same network, the same verdict as the run that never stopped
    whole, chunked = examples(tmp_path / "whole"), examples(final)
    assert whole.keys() == chunked.keys()
    for name in whole:
        np.testing.assert_array_equal(whole[name], chunked[name], err_msg=name)
    a, b = network(tmp_path / "whole" / "checkpoints" / "iter-0001.npz"), network(final / "checkpoints" / "iter-0001.npz")
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert moves(tmp_path / "whole" / "comparison" / "iter-0001.jsonl") == moves(final / "comparison" / "iter-0001.jsonl")
    rows = [read_json_lines(run / "metrics.jsonl")[0] for run in (tmp_path / "whole", final)]
    for key in ("examples", "loss", "epoch_losses", "gate", "accepted", "best_iteration"):
        assert rows[0][key] == rows[1][key], key
    # the iteration's time is that of every chunk it took, not only the last one's
    assert spent > 0 and rows[1]["seconds"] >= spent and "spent" not in state(final)


def test_the_limit_is_for_trainers_that_keep_it(tmp_path, capsys):
    assert command("train", "bonanza", "--game", "tictactoe", "--run", str(tmp_path / "r"), "--minutes", "1") == 2
    err = capsys.readouterr().err
    assert "trainer 'bonanza' cannot stop at a time limit" in err and "alphazero" in err
    assert command("train", "alphazero", "--game", "tictactoe", "--run", str(tmp_path / "r"), "--minutes", "0") == 2
    assert "--minutes" in capsys.readouterr().err


@pytest.fixture
def finished_run(tmp_path):
    assert train(tmp_path / "run", iterations=2) == 0
    return tmp_path / "run"


def test_a_pack_damaged_in_transit_is_refused_before_anything_is_written(tmp_path, finished_run, capsys):
    pack = tmp_path / "pack"
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(pack)) == 0
    part = pack / "run-01.tar.xz"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "new")) == 2
    assert "does not match its SHA-256" in capsys.readouterr().err
    assert not (tmp_path / "new" / "state.json").exists()
    part.write_bytes(bytes(data[:100]))
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "new")) == 2
    assert "cut short or altered" in capsys.readouterr().err
    part.unlink()
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "new")) == 2
    assert "run-01.tar.xz is missing" in capsys.readouterr().err
    assert command("alphazero", "unpack", "--from", str(tmp_path), "--run", str(tmp_path / "new")) == 2
    assert "holds no pack" in capsys.readouterr().err


def test_a_pack_never_overwrites_work_it_does_not_hold(tmp_path, finished_run, capsys):
    pack = tmp_path / "pack"
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(pack)) == 0
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(finished_run)) == 0   # the same run
    # the run goes on after the pack was made: unpacking the older pack over it is refused
    assert train(finished_run, iterations=3) == 0
    newer = (finished_run / "state.json").read_bytes()
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(finished_run)) == 2
    assert "is further on (iteration 4, selfplay) than the pack (iteration 3" in capsys.readouterr().err
    assert (finished_run / "state.json").read_bytes() == newer
    # ... also where it left no session line (killed): its state is ahead; and where it is not ahead but
    # has sessions the pack lacks
    lines = (finished_run / "sessions.jsonl").read_text().splitlines(keepends=True)
    (finished_run / "sessions.jsonl").write_text("".join(lines[:-1]))
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(finished_run)) == 2
    assert "is further on" in capsys.readouterr().err
    # another run of the same game (its own run id)
    assert train(tmp_path / "other", iterations=2, seed=5) == 0
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "other")) == 2
    assert "holds another run than the pack's" in capsys.readouterr().err
    # a folder that is no run, and a run of another game
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "mine")) == 2
    assert "did not write" in capsys.readouterr().err
    assert command("alphazero", "pack", "--run", str(tmp_path / "mine"), "--to", str(tmp_path / "p2")) == 2
    assert "holds no AlphaZero run" in capsys.readouterr().err
    # --to a folder of someone else's files
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(tmp_path / "mine")) == 2
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_a_run_too_large_for_a_pack_says_what_to_do(tmp_path, finished_run, capsys, monkeypatch):
    monkeypatch.setattr(travel, "MAX_PART_BYTES", 4096)
    monkeypatch.setattr(travel, "MAX_TOTAL_BYTES", 8192)
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(tmp_path / "pack")) == 2
    err = capsys.readouterr().err
    assert "does not fit in a pack" in err and "--no-replay" in err
    assert not list((tmp_path / "pack").iterdir())          # no part left behind
    # parts of 4 KiB: the pack is cut into several, and unpacks the same
    monkeypatch.setattr(travel, "MAX_TOTAL_BYTES", 64 * 2**20)
    monkeypatch.setattr(travel, "MAX_FILES", 100)
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(tmp_path / "pack")) == 0
    manifest = json.loads((tmp_path / "pack" / "pack.json").read_text())
    assert len(manifest["parts"]) > 2 and all(p["bytes"] <= 4096 for p in manifest["parts"])
    assert command("alphazero", "unpack", "--from", str(tmp_path / "pack"), "--run", str(tmp_path / "copy")) == 0
    for name in ("best.npz", "state.json", "metrics.jsonl", "checkpoints/iter-0002.npz"):
        assert (tmp_path / "copy" / name).read_bytes() == (finished_run / name).read_bytes(), name
    np.testing.assert_array_equal(examples(tmp_path / "copy")["observations"],
                                  examples(finished_run)["observations"])


def test_a_pack_without_examples_plays_the_missing_self_play_again(tmp_path, capsys):
    run = tmp_path / "run"
    assert train(run, "--minutes", TINY_LIMIT, selfplay_games=2) == 0
    assert train(run, "--minutes", TINY_LIMIT, selfplay_games=2) == 0       # self-play done: stops before training
    assert state(run)["phase"] == "train"
    assert command("alphazero", "pack", "--run", str(run), "--to", str(tmp_path / "small"), "--no-replay") == 0
    assert command("alphazero", "unpack", "--from", str(tmp_path / "small"), "--run", str(tmp_path / "new")) == 0
    assert "self-play plays the games the run lacks before training" in capsys.readouterr().err
    assert state(tmp_path / "new")["phase"] == "selfplay"
    assert train(tmp_path / "new", selfplay_games=2) == 0
    assert state(tmp_path / "new")["iteration"] == 2
    np.testing.assert_array_equal(examples(tmp_path / "new")["values"], examples(run)["values"])


def test_sigterm_ends_a_chunk_as_ctrl_c_does_and_its_units_are_remembered(tmp_path):
    """`timeout` ends a chunk that overruns with SIGTERM: the trainer stops its workers and writes its
    session's line, whose unit durations the next chunk on this machine expects."""
    import os
    import signal
    import subprocess
    import sys
    import time
    run = tmp_path / "run"
    args = [sys.executable, "-m", "plyground", "train", "alphazero", "--game", "tictactoe", "--run", str(run),
            "--minutes", "30"]
    for key, value in {**TINY, "epochs": 100000, "workers": 2}.items():
        args += ["--set", f"{key}={value}"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    try:
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            checkpoint = run / "checkpoints" / "iter-0001.npz"
            if checkpoint.exists():          # an epoch is done: the trainer is training
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.decode().splitlines()[-1] == (f"stopped (SIGTERM); the run is kept in {run}: rerun "
                                             f"`plyground train alphazero --run {run} --minutes 30` to resume"), err
    sessions = read_json_lines(run / "sessions.jsonl")
    assert [s["outcome"] for s in sessions] == ["interrupted"], err
    assert sessions[0]["units"]["epoch"] > 0 and sessions[0]["to"]["phase"] == "train"
    assert sessions[0]["selfplay_games"] == TINY["selfplay_games"] and sessions[0]["cores"] >= 1


def test_the_curve_of_a_run_in_chunks(tmp_path):
    """benchmarks/alphazero_gpu_curve.py: a row per chunk and per rated network, the minutes each network
    had cost when it was trained (here on a CPU: no GPU minutes)."""
    import subprocess
    import sys
    run = tmp_path / "run"
    ladder = {"ladder": "random", "ladder_games": 2, "ladder_openings": "none", "iterations": 2}
    assert train(run, "--minutes", TINY_LIMIT, **ladder) == 0
    for _ in range(30):
        if state(run)["iteration"] == 3:
            break
        assert train(run, "--minutes", TINY_LIMIT, **ladder) == 0
    assert state(run)["iteration"] == 3
    # a mistakes row as the probe writes it (tic-tac-toe has no solved set): its classes and their total
    (run / "mistakes.jsonl").write_text(json.dumps({
        "iteration": 2, "network": "iter-0002", "set": "dev", "per_class": 5, "simulations": 100,
        "classes": {"Begin-Easy": {"positions": 5, "mistakes": 1, "percent": 20.0},
                    "End-Easy": {"positions": 5, "mistakes": 2, "percent": 40.0},
                    "all": {"positions": 10, "mistakes": 3, "percent": 30.0}}}) + "\n")
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "alphazero_gpu_curve.py"
    done = subprocess.run([sys.executable, str(script), str(run), "--out", str(tmp_path / "curve")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = read_json_lines(tmp_path / "curve.jsonl")
    chunks = [r for r in rows if r["kind"] == "chunk"]
    networks = [r for r in rows if r["kind"] == "network"]
    sessions = read_json_lines(run / "sessions.jsonl")
    assert len(chunks) == len(sessions) > 3 and sum(c["selfplay_games"] for c in chunks) == 2 * TINY["selfplay_games"]
    assert [n["iteration"] for n in networks] == [0, 1, 2]
    assert all(n["gpu_minutes"] == 0 and set(n["ladder"]["scores"]) == {"random"} for n in networks)
    minutes = [n["cpu_minutes"] for n in networks]
    total = sum(s["seconds"] for s in sessions) / 60
    assert minutes[0] == 0 < minutes[1] < minutes[2] <= total + 0.02
    assert networks[2]["mistakes"]["percent"] == 30.0 and networks[2]["mistakes"]["positions"] == 10
    assert networks[2]["mistakes"]["classes"] == {"Begin-Easy": 20.0, "End-Easy": 40.0}
    assert (tmp_path / "curve.png").stat().st_size > 1000



def test_a_crafted_pack_writes_nothing_outside_its_run(tmp_path, finished_run, capsys):
    pack = tmp_path / "pack"
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(pack)) == 0
    manifest_path = pack / "pack.json"
    original = json.loads(manifest_path.read_text())
    for evil, problem in [
            ({"path": "../escaped.txt", "bytes": 1, "sha256": "0" * 64, "copy_of": "config.toml"}, "no file of a run"),
            ({"path": str(tmp_path / "abs.txt"), "bytes": 1, "sha256": "0" * 64, "copy_of": "state.json"},
             "no file of a run"),
            ({"path": "metrics.jsonl", "bytes": 1, "sha256": "0" * 64, "copy_of": "nothing.jsonl"}, "listed twice"),
            ({"path": "checkpoints/iter-0099.npz", "bytes": 1, "sha256": "0" * 64, "copy_of": "later.npz"},
             "does not hold before it"),
            ("a string", "no file of a run"),
            ({"path": "best.npz"}, "listed twice"),
            ({"path": "extra.jsonl", "bytes": 2**40, "sha256": "0" * 64}, "no size or SHA-256")]:
        manifest_path.write_text(json.dumps({**original, "members": original["members"] + [evil]}))
        assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "victim")) == 2
        err = capsys.readouterr().err
        assert problem in err and "Traceback" not in err, (evil, err)
    for broken in ({**original, "members": "x"}, {**original, "parts": [{"name": "run-01.tar.xz"}]},
                   {**original, "members": [m for m in original["members"] if m["path"] != "state.json"]}):
        manifest_path.write_text(json.dumps(broken))
        assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "victim")) == 2
        assert "damaged" in capsys.readouterr().err
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "abs.txt").exists()
    assert not (tmp_path / "victim" / "config.toml").exists()


def test_an_interrupted_unpack_is_finished_before_training(tmp_path, finished_run, capsys):
    pack = tmp_path / "pack"
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(pack)) == 0
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "copy")) == 0
    (tmp_path / "copy" / ".unpacking").write_text("unpacking somewhere\n")       # as a kill mid-unpack leaves it
    assert train(tmp_path / "copy", iterations=3) == 2
    assert "an unpack into" in capsys.readouterr().err
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(tmp_path / "copy")) == 0
    assert not (tmp_path / "copy" / ".unpacking").exists() and train(tmp_path / "copy", iterations=3) == 0


def test_a_folder_of_another_trainer_is_not_unpacked_into(tmp_path, finished_run, capsys):
    pack = tmp_path / "pack"
    assert command("alphazero", "pack", "--run", str(finished_run), "--to", str(pack)) == 0
    other = tmp_path / "bonanza-run"
    other.mkdir()
    (other / "config.toml").write_text('trainer = "bonanza"\ngame = "tictactoe"\n')
    (other / "metrics.jsonl").write_text('{"epoch": 1}\n')
    assert command("alphazero", "unpack", "--from", str(pack), "--run", str(other)) == 2
    assert "holds a bonanza run" in capsys.readouterr().err
    assert (other / "metrics.jsonl").read_text() == '{"epoch": 1}\n'


def test_batched_self_play_in_chunks_moves_on_every_chunk(tmp_path):
    """With games finishing out of order (several at a time), a chunk still saves a game before it stops."""
    run = tmp_path / "run"
    options = {"parallel_games": 4, "selfplay_games": 8, "cache_size": 100}
    games = []
    for _ in range(12):
        assert train(run, "--minutes", TINY_LIMIT, **options) == 0
        done = sum(s["selfplay_games"] for s in read_json_lines(run / "sessions.jsonl"))
        games.append(done)
        if state(run)["phase"] != "selfplay":
            break
    assert state(run)["phase"] != "selfplay", games
    assert all(b > a for a, b in zip(games, games[1:])) and games[-1] == 8


def test_on_workers_no_group_of_games_begins_that_would_not_finish(tmp_path, capsys):
    """A group of self-play games begins on a worker only if it would finish in time; at the limit those
    under way finish and nothing played is lost.  An earlier chunk on this machine took "a million
    seconds" a group: the next chunk, with minutes left, begins no group after its first ones."""
    from plyground.plugins.trainers.alphazero.sessions import Session
    run = tmp_path / "run"
    options = {"workers": 2, "parallel_games": 2, "selfplay_games": 12}
    args = ["train", "alphazero", "--game", "tictactoe", "--run", str(run)]
    for key, value in {**TINY, **options}.items():
        args += ["--set", f"{key}={value}"]
    assert command(*args) == 0                        # iteration 1, whole
    slow = Session("cpu", state(run)).row(state(run))
    with open(run / "sessions.jsonl", "a") as handle:
        handle.write(json.dumps({**slow, "units": {"self-play group": 1e6}}) + "\n")
    capsys.readouterr()
    assert command(*args, "--set", "iterations=2", "--minutes", "30") == 0    # iteration 2's self-play
    out = capsys.readouterr()
    after = read_json_lines(run / "sessions.jsonl")[-1]
    assert after["outcome"] == "time limit" and state(run) == {**state(run), "iteration": 2, "phase": "selfplay"}, \
        out.err
    assert "no group of games begun that would not finish in time" in out.err and "not kept" not in out.err
    # the first round alone (a group of 2 games on each of the 2 workers): those groups are the first
    # games in order, so all they play is saved
    assert after["selfplay_games"] == 4


def test_a_worker_pool_begins_no_job_once_it_is_told_not_to():
    from plyground.engines.workers import InProcess
    ran = []

    class Actor:
        def run(self, job):
            ran.append(job)
            yield ("done", job)

        def close(self):
            pass

    pool = InProcess(Actor())
    told = iter([True, False])
    assert [job for job, _ in pool.run([1, 2, 3, 4], more=lambda: next(told))] == [1, 2]
    assert ran == [1, 2]
