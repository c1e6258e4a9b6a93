"""Worker processes (`--workers N`): the same games as in this process, kill-safe, resumable, failures named."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from plyground.files.storage import read_json_lines
import pytest

from plyground import plugin_manager, registry
from plyground.cli import main
from plyground.games.tictactoe import TicTacToe
from plyground.hookspecs import hookimpl
from plyground.plugins.trainers.alphazero.actors import selfplay_groups, selfplay_spec
from plyground.plugins.trainers.alphazero.batched import play_selfplay_games
from plyground.players.alphazero.networks import load_model, network_evaluator
from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from plyground.files.recordio import record_from_json

from plugin_helpers import registered
from process_table import HAS_PROC, ctrl_c_as_at_a_terminal, running, wait_until

TINY = {"network": "mlp:hidden=8,layers=1", "iterations": 1, "selfplay_games": 6, "simulations": 12,
        "comparison_games": 4, "evaluation_games": 2, "epochs": 1, "batch_size": 8, "save_every": 2,
        "plots": False}


def train(run_dir, trainer="alphazero", game="tictactoe", **options):
    args = ["train", trainer, "--game", game, "--run", str(run_dir), "--quiet"]
    for key, value in {**TINY, **options}.items():
        args += ["--set", f"{key}={value}"]
    try:
        main(args)
    except SystemExit as exc:
        return exc.code
    return 0


def chunks(run_dir):
    """Every replay chunk's arrays, by file name."""
    out = {}
    for path in sorted((Path(run_dir) / "replay").rglob("*.npz")):
        with np.load(path) as archive:
            out[path.name] = {name: archive[name] for name in archive.files}
    return out


def games(path):
    """A comparison or evaluation file's games without their timing tags."""
    out = []
    for game in read_json_lines(Path(path)):
        record = record_from_json(game["record"])
        record.tags.pop("Seconds", None)
        out.append((record.moves, record.returns, record.players, record.tags, game["new_first"]))
    return out


def assert_same_chunks(a, b):
    assert a.keys() == b.keys() and a
    for name in a:
        assert a[name].keys() == b[name].keys()
        for key in a[name]:
            np.testing.assert_array_equal(a[name][key], b[name][key], err_msg=f"{name}: {key}")


def test_groups_cover_every_game_once_and_share_the_tail_evenly():
    assert selfplay_groups(0, 50, 16, 2) == [tuple(range(0, 16)), tuple(range(16, 32)), tuple(range(32, 41)),
                                             tuple(range(41, 50))]
    assert selfplay_groups(4, 7, 16, 2) == [(4, 5), (6,)]
    assert selfplay_groups(0, 4, 2, 2) == [(0, 1), (2, 3)]
    assert selfplay_groups(0, 10, 2, 3) == [(0, 1), (2, 3), (4, 5), (6, 7), (8,), (9,)]
    assert selfplay_groups(0, 3, 1, 8) == [(0,), (1,), (2,)]
    for first, target, parallel, workers in [(0, 100, 16, 3), (7, 61, 5, 4), (0, 1, 4, 2), (9, 9, 4, 2)]:
        groups = selfplay_groups(first, target, parallel, workers)
        assert [g for group in groups for g in group] == list(range(first, target))
        assert all(0 < len(group) <= parallel for group in groups)


def test_two_workers_play_the_run_of_one(tmp_path):
    """Without a cache and with one game at a time, nothing passes from game to game in this process
    either: then a run on two workers is the run on one, game for game and network for network."""
    # a threshold of 0 accepts the new network, so the evaluation games are played (and compared) too
    same = {"cache_size": 0, "parallel_games": 1, "replace_threshold": 0.0}
    assert train(tmp_path / "one", workers=1, **same) == 0
    assert train(tmp_path / "two", workers=2, **same) == 0
    assert_same_chunks(chunks(tmp_path / "one"), chunks(tmp_path / "two"))
    for kind in ("comparison", "evaluation"):
        one, two = (games(tmp_path / run / kind / "iter-0001.jsonl") for run in ("one", "two"))
        assert one == two and len(one) == TINY[f"{kind}_games"]
    metrics = [json.loads((tmp_path / run / "metrics.jsonl").read_text()) for run in ("one", "two")]
    assert metrics[0]["gate"] == metrics[1]["gate"] and metrics[0]["loss"] == metrics[1]["loss"]


def test_a_group_of_games_is_played_as_if_alone(tmp_path):
    """With batching, a game's leaves share network calls with its group, whose rounding can steer the
    search; each group of a two-worker run is exactly the group played alone with the same seeds."""
    options = {**TINY, "selfplay_games": 10, "parallel_games": 3, "comparison_games": 0, "evaluation_games": 0}
    assert train(tmp_path / "run", workers=2, **options) == 0
    game = TicTacToe()
    rundir = RunDirectory(tmp_path / "run", game)
    played = {}
    for examples, records in rundir.iter_chunks(range(1, 2)):
        offsets = np.cumsum([0] + [len(r.moves) for r in records])
        for i, record in enumerate(records):
            played[int(record.tags["Round"]) - 1] = (record, examples.values[offsets[i]:offsets[i + 1]])
    assert sorted(played) == list(range(10))

    config = AlphaZeroTrainer(game, tmp_path / "scratch", **options, workers=1).config
    playbook = Playbook(game, config)
    evaluate = network_evaluator(load_model(rundir.checkpoint_path(0), game))
    names = ("iter-0000", "iter-0000")
    groups = selfplay_groups(0, 10, 3, 2)
    assert groups == [(0, 1, 2), (3, 4, 5), (6, 7), (8, 9)]
    for group in groups:
        specs = [selfplay_spec(0, 1, g, names, "alphazero self-play, iteration 1") for g in group]
        for g, examples, record in play_selfplay_games(game, specs, lambda: playbook.selfplay_search(evaluate),
                                                       evaluate, playbook.selfplay_settings(),
                                                       parallel_games=len(group)):
            assert record.moves == played[g][0].moves and record.returns == played[g][0].returns
            np.testing.assert_array_equal(examples.values, played[g][1])


# ------------------------------------------------------------------ the real command in a subprocess
def command(run_dir, *extra):
    args = [sys.executable, "-m", "plyground", "train", "alphazero", "--game", "tictactoe", "--run", str(run_dir),
            "--workers", "2"]
    # enough simulations that the 40 games take seconds, not the blink that would end the run before Ctrl-C
    options = {**TINY, "selfplay_games": 40, "simulations": 400, "parallel_games": 2, "comparison_games": 2,
               "evaluation_games": 0}
    for key, value in options.items():
        args += ["--set", f"{key}={value}"]
    return args + list(extra)


class Trainer:
    """The command running in the background, its stderr in a file (for the workers' pids)."""

    def __init__(self, run_dir, log):
        self.log = log
        self.process = subprocess.Popen(command(run_dir), stdout=subprocess.DEVNULL, stderr=open(log, "w"),
                                        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                                        preexec_fn=ctrl_c_as_at_a_terminal)

    def wait_for(self, condition, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            if self.process.poll() is not None:
                raise AssertionError(f"the trainer ended early:\n{self.log.read_text()}")
            time.sleep(0.02)
        self.process.kill()
        raise AssertionError(f"timed out:\n{self.log.read_text()}")

    def worker_pids(self):
        for line in self.log.read_text().splitlines():
            if line.startswith("workers: 2 local (pids "):
                return [int(p) for p in line.rsplit("(pids ", 1)[1].rstrip(")").split(", ")]
        return None

    def finish(self, timeout=60.0):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise


def gone(pids, timeout=10.0):
    return wait_until(lambda: not any(running(p) for p in pids), timeout, interval=0.05)


def replay_files(run_dir):
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_ino) for p in (run_dir / "replay").rglob("*.npz")}


@pytest.mark.skipif(not HAS_PROC, reason="checks processes through /proc (Linux)")
def test_ctrl_c_and_kill_stop_the_workers_and_the_run_resumes(tmp_path):
    run_dir = tmp_path / "run"
    first = Trainer(run_dir, tmp_path / "first.log")
    first.wait_for(lambda: first.worker_pids() and len(replay_files(run_dir)) >= 2)
    first.process.send_signal(signal.SIGINT)
    assert first.finish() == 130
    assert first.log.read_text().splitlines()[-1].startswith("stopped (Ctrl-C); the run is kept in "), \
        first.log.read_text()
    assert gone(first.worker_pids()), "Ctrl-C left worker processes running"
    kept = replay_files(run_dir)
    assert 2 <= len(kept) < 20

    second = Trainer(run_dir, tmp_path / "second.log")
    second.wait_for(lambda: second.worker_pids() and len(replay_files(run_dir)) >= len(kept) + 2)
    second.process.kill()                                       # kill -9: no cleanup code runs
    second.finish()
    assert gone(second.worker_pids()), "kill -9 of the trainer left worker processes running"
    assert "self-play resumes after" in second.log.read_text()

    third = Trainer(run_dir, tmp_path / "third.log")
    assert third.finish(120) == 0, third.log.read_text()
    assert gone(third.worker_pids())
    after = replay_files(run_dir)
    assert {name: after[name] for name in kept} == kept          # chunks on disk are never rewritten
    rounds = [int(r.tags["Round"]) for _, records in RunDirectory(run_dir, TicTacToe()).iter_chunks(range(1, 2))
              for r in records]
    assert rounds == list(range(1, 41))


@pytest.mark.skipif(not HAS_PROC, reason="checks processes through /proc (Linux)")
def test_a_worker_that_dies_is_named_with_its_games(tmp_path):
    run = Trainer(tmp_path / "run", tmp_path / "run.log")
    run.wait_for(lambda: run.worker_pids() and replay_files(tmp_path / "run"))
    victim, other = run.worker_pids()
    os.kill(victim, signal.SIGKILL)
    assert run.finish() == 2
    last = run.log.read_text().strip().splitlines()[-1]
    assert last.startswith(f"plyground: error: local worker 1 (pid {victim}) died (killed by SIGKILL) while "
                           f"playing self-play games "), last
    assert last.endswith("of iteration 1; rerun the command to resume")
    assert gone([other])


# ------------------------------------------------------------------ failures inside a worker
class _InProcessOnly:
    """A plugin registered in this process only, as a test or notebook may do: workers cannot see it."""

    @hookimpl
    def register_games(self):
        from aztestgames import LearnableDoubleTake
        return [LearnableDoubleTake]


def test_a_game_workers_cannot_build_is_one_clear_error(tmp_path, cli):
    with registered(_InProcessOnly(), "in-process-only"):
        code, _, err = cli("train", "alphazero", "--game", "doubletake-learn", "--run", tmp_path / "run", "--quiet",
                           "--workers", "2", "--set", "network=mlp:hidden=8,layers=1", "--set", "selfplay_games=2",
                           "--set", "simulations=4", "--set", "plots=false")
    assert code == 2
    assert err.startswith("plyground: error: local worker 1 could not build its actor: unknown game "
                          "'doubletake-learn'; valid games: ")
    assert err.rstrip().endswith("needs workers=1") and err.count("\n") == 1


def test_a_failure_inside_a_worker_names_the_worker_and_the_games(tmp_path, cli):
    """Expert iteration's workers start their own Stockfish judge; a missing engine fails in the worker."""
    from plyground.plugins.trainers.expert_iteration import plugin
    plugin_manager.load_plugins()
    added = "expert-iteration" not in plugin_manager.plugin_infos()
    if added:
        plugin_manager.register(plugin, plugin_manager.PluginInfo("expert-iteration", plugin.__name__, "x", "0"))
        registry.reset_registry()
    try:
        code, _, err = cli("train", "expert-iteration", "--game", "chess", "--run", tmp_path / "run", "--quiet",
                           "--workers", "2", "--set", "network=deep-pepper-parts:h1a=8,h1b=16,h1c=16,h2p=32,h2e=8",
                           "--set", "selfplay_games=4", "--set", "simulations=4", "--set", "parallel_games=2",
                           "--set", "stockfish=/nonexistent/stockfish", "--set", "plots=false")
    finally:
        if added:
            plugin_manager.unregister("expert-iteration")
            registry.reset_registry()
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("plyground: error: local worker ")
    assert "failed while playing self-play games 0-1 of iteration 1: " in err or \
        "failed while playing self-play games 2-3 of iteration 1: " in err
    assert "/nonexistent/stockfish" in err


# ------------------------------------------------------------------ the command's flags
def test_worker_flags_are_checked(tmp_path, cli):
    def error(*args):
        code, _, err = cli("train", *args, "--run", tmp_path / "x", "--quiet")
        assert code == 2 and err.startswith("plyground: error: ")
        return err.strip()[len("plyground: error: "):]

    assert error("alphazero", "--game", "tictactoe", "--backend", "spark") == (
        "trainer alphazero: bad value 'spark' for option 'backend': expected one of local, ray")
    assert "option 'workers'" in error("alphazero", "--game", "tictactoe", "--workers", "many")
    assert error("alphazero", "--game", "tictactoe", "--address", "10.0.0.5:6379").endswith(
        "is for backend=ray; set backend=ray or leave address out")
    message = error("bonanza", "--game", "checkers", "--workers", "2")
    assert message.startswith("trainer 'bonanza' has no option 'workers', so --workers does not apply to it; "
                              "trainers with worker processes: ")
    assert "alphazero" in message.rsplit(": ", 1)[1]
