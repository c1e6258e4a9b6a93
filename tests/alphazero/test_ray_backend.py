"""`--backend ray`: the trainer's actors as Ray actors on a local Ray instance started here."""
import json
import sys

import numpy as np
from plyground.files.storage import read_json_lines
import pytest
from ray_helpers import local_ray, needs_ray  # noqa: F401 - local_ray is a fixture

from plyground.games.tictactoe import TicTacToe
from plyground.engines.workers_ray import MISSING
from plyground.plugins.trainers.alphazero.rundir import RunDirectory

TINY = ("--set", "network=mlp:hidden=8,layers=1", "--set", "iterations=1", "--set", "selfplay_games=6",
        "--set", "simulations=12", "--set", "parallel_games=2", "--set", "comparison_games=4",
        "--set", "evaluation_games=2", "--set", "epochs=1", "--set", "batch_size=8", "--set", "save_every=2",
        "--set", "plots=false")



def chunk_arrays(run_dir):
    out = {}
    for path in sorted((run_dir / "replay").rglob("*.npz")):
        with np.load(path) as archive:
            out[path.name] = {name: archive[name] for name in archive.files}
    return out


def match_games(path):
    games = read_json_lines(path)
    return [(g["record"]["moves"], g["record"]["returns"], g["new_first"]) for g in games]


@needs_ray
def test_a_training_iteration_through_ray_actors(tmp_path, cli, local_ray):
    code, out, err = cli("train", "alphazero", "--game", "tictactoe", "--run", tmp_path / "ray", *TINY,
                         "--workers", "2", "--backend", "ray")
    assert code == 0, err
    assert "workers: 2 ray (pids " in err
    assert "[iter 1/1] self-play on 2 ray workers: mean batch " in err
    run = tmp_path / "ray"
    records = [r for _, chunk in RunDirectory(run, TicTacToe()).iter_chunks(range(1, 2)) for r in chunk]
    assert [int(r.tags["Round"]) for r in records] == [1, 2, 3, 4, 5, 6]
    assert all(r.finished for r in records)
    assert sorted(p.name for p in (run / "replay" / "iter-0001").iterdir()) == [
        "games-00000-00001.npz", "games-00002-00003.npz", "games-00004-00005.npz"]
    metrics = json.loads((run / "metrics.jsonl").read_text())
    gate = metrics["gate"]
    assert metrics["selfplay_games"] == 6 and gate["wins"] + gate["draws"] + gate["losses"] == 4
    comparison = match_games(run / "comparison" / "iter-0001.jsonl")
    assert [new_first for _, _, new_first in comparison] == [True, False, True, False]
    if metrics["accepted"]:
        assert len(match_games(run / "evaluation" / "iter-0001.jsonl")) == 2

    # The same run on local worker processes: the same groups of games, so the same games.
    code, _, err = cli("train", "alphazero", "--game", "tictactoe", "--run", tmp_path / "local", *TINY,
                       "--workers", "2", "--backend", "local")
    assert code == 0, err
    ray_chunks, local_chunks = chunk_arrays(run), chunk_arrays(tmp_path / "local")
    assert ray_chunks.keys() == local_chunks.keys()
    for name, arrays in ray_chunks.items():
        for key, array in arrays.items():
            np.testing.assert_array_equal(array, local_chunks[name][key], err_msg=f"{name}: {key}")
    assert comparison == match_games(tmp_path / "local" / "comparison" / "iter-0001.jsonl")


def test_without_ray_the_backend_names_the_extra(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)          # what `import ray` meets without the extra
    code, _, err = cli("train", "alphazero", "--game", "tictactoe", "--run", tmp_path / "run", *TINY,
                       "--backend", "ray")
    assert code == 2
    assert err == f"plyground: error: {MISSING}\n"
    assert MISSING == "the ray backend needs the optional extra: pip install 'plyground[distributed]'"
