"""The Ray backend for the work that is not AlphaZero's (issue #74 point 3): the NNUE trainer's self-play and
matches, and ``plyground tournament``'s games (SPRT included), on Ray actors of a local Ray instance; and the
self-play worker that gets its network as bytes (what lets a worker on another machine play without the run's
files).  AlphaZero's own Ray tests: tests/alphazero/test_ray_backend.py."""
from __future__ import annotations

import json

import numpy as np
import pytest
from ray_helpers import local_ray, needs_ray  # noqa: F401 - local_ray is a fixture

from plyground.errors import UsageError
from plyground.players.alphabeta.player import load_evaluation
from plyground.plugins.trainers.nnue.selfplay import SelfPlaySetup
from plyground.registry import get_registry
from plyground.engines.workers import actor_pool



def _setup(**changes) -> SelfPlaySetup:
    base = dict(game="checkers", evaluation="nnue", depth=2, nodes=None, endgame="off", random_plies=(2, 6),
                max_plies=400)
    return SelfPlaySetup(**{**base, **changes})


def test_a_self_play_worker_given_the_network_as_bytes_plays_as_one_given_the_file(tmp_path):
    game = get_registry().make_game("checkers")
    shipped = load_evaluation(game, "nnue")[1]["path"]
    copy = tmp_path / "net.npz"
    copy.write_bytes(open(shipped, "rb").read())
    by_file = _setup(evaluation=str(copy)).build().play(seed=3)
    copy.unlink()                  # the worker with the bytes needs no file
    by_bytes = _setup(evaluation=str(copy), network=open(shipped, "rb").read()).build().play(seed=3)
    assert np.array_equal(by_file[0], by_bytes[0]) and np.array_equal(by_file[1], by_bytes[1], equal_nan=True)


def test_a_bad_backend_or_an_address_without_ray_is_one_clear_error():
    with pytest.raises(UsageError, match="unknown backend 'slurm'; valid backends: local, ray"):
        actor_pool("slurm", 2, None, _setup())
    with pytest.raises(UsageError, match="address=10.0.0.5:6379 is for the ray backend"):
        actor_pool("local", 2, "10.0.0.5:6379", _setup())


@needs_ray
def test_a_tournament_with_an_sprt_plays_on_ray_actors(cli, tmp_path, local_ray):
    out = tmp_path / "t"
    code, out_text, err = cli("tournament", "--game", "tictactoe", "strong=mcts:simulations=100", "weak=random",
                       "--sprt", "elo0=0,elo1=100", "-n", "200", "--seed", "1", "--backend", "ray", "--workers", "2",
                       "--out", out)
    assert code == 0, err
    assert "12 pairs: H1 accepted" in err and "H1 accepted after 24 games" in out_text   # as without Ray
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert 0 < len(results) < 200


@needs_ray
def test_nnue_self_play_and_matches_on_ray_actors(cli, tmp_path, local_ray):
    run = tmp_path / "run"
    code, out, err = cli("train", "nnue", "--game", "checkers", "--run", run, "--workers", "2",
                         "--set", "games=4", "--set", "depth=2", "--set", "epochs=1", "--set", "batch=512",
                         "--set", "match_games=2", "--set", "match_seconds=0.01", "--set", "expert_games=none",
                         "--set", "endgame=off", "--set", "generations=1", "--set", "backend=ray")
    assert code == 0, err
    assert "workers: 2 ray (pids " in err
    assert (run / "games" / "gen-000.npz").exists() and (run / "nets" / "gen-000.npz").exists()
