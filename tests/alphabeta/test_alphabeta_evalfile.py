"""Weights files: written atomically as npz + JSON, read without pickle, refused when they are for
something else; the player's options and its registration as a plugin."""
import io
import json
import zipfile

import numpy as np
import pytest

from plyground.capabilities import bundled_model
from plyground.errors import ModelFileError, OptionError, UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.games.checkers.alphabeta import features
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.players.alphabeta.evalfile import load_weights, read_weights, save_weights
from plyground.registry import get_registry


def learned(seed=0):
    w = features.material_weights()
    w[: features.KINGS] += np.random.default_rng(seed).normal(0, 10, features.KINGS)
    return w


def test_round_trip(tmp_path):
    path = tmp_path / "eval.npz"
    w = learned()
    save_weights(path, w, {**features.metadata(), "trainer": "test"})
    loaded, meta = load_weights(path, features.metadata())
    assert np.array_equal(loaded, w) and meta["trainer"] == "test" and meta["feature_count"] == len(w)
    assert not [p for p in tmp_path.iterdir() if p.name != "eval.npz"]      # no temporary file left
    with np.load(path, allow_pickle=False) as data:                          # plain arrays: no pickle needed
        assert set(data.files) == {"weights", "metadata"}


def test_the_player_uses_a_weights_file(tmp_path):
    game = CheckersGame()
    path = tmp_path / "eval.npz"
    save_weights(path, learned(), features.metadata())
    player = AlphaBetaPlayer(game, eval=str(path), depth=3)
    assert np.array_equal(player.weights, learned())
    state = game.new_initial_state()
    assert player.choose_move(state.clone()) in state.legal_moves()


def write_raw(path, weights, metadata):
    buffer = io.BytesIO()
    arrays = {"weights": weights}
    if metadata is not None:
        arrays["metadata"] = np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8)
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


GOOD = {"format": "plyground-linear-eval", "format_version": 1, **features.metadata()}


@pytest.mark.parametrize("change, message", [
    ({"game": "tictactoe"}, "is an evaluation for the game 'tictactoe', not 'checkers'"),
    ({"feature_set": "checkers-other"}, "uses the feature set 'checkers-other' version 1; this player evaluates "
                                        "'checkers-psq' version 1"),
    ({"feature_set_version": 99}, "uses the feature set 'checkers-psq' version 99"),
    ({"feature_count": 50}, "metadata says 50"),
    ({"format_version": 7}, "format version 7 is not supported"),
    ({"format": "something"}, "is not a plyground evaluation file"),
])
def test_weights_for_something_else_are_refused(tmp_path, change, message):
    path = tmp_path / "other.npz"
    write_raw(path, learned(), {**GOOD, **change})
    with pytest.raises(ModelFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_weights(path, features.metadata())
    with pytest.raises(ModelFileError):
        AlphaBetaPlayer(CheckersGame(), eval=str(path))


def test_bad_files_are_refused_with_a_reason(tmp_path):
    cases = {}
    cases["missing"] = (tmp_path / "nope.npz", "^evaluation weights file .*nope.npz does not exist$")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"this is not a zip file")
    cases["garbage"] = (garbage, "garbage.npz is corrupt or not an .npz archive$")
    short = tmp_path / "short.npz"
    write_raw(short, learned()[:10], {**GOOD, "feature_count": 10})
    cases["short"] = (short, "has 10 weights")
    nometa = tmp_path / "nometa.npz"
    write_raw(nometa, learned(), None)
    cases["nometa"] = (nometa, "has no metadata array")
    nan = tmp_path / "nan.npz"
    w = learned()
    w[3] = np.nan
    write_raw(nan, w, GOOD)
    cases["nan"] = (nan, "NaN")
    badjson = tmp_path / "badjson.npz"
    np.savez(badjson, weights=learned(), metadata=np.frombuffer(b"{not json", dtype=np.uint8))
    cases["badjson"] = (badjson, "not valid JSON")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, weights=learned(), metadata=np.array([{"game": "checkers"}], dtype=object))
    cases["pickled"] = (pickled, "pickled.npz holds data that cannot be loaded safely \\(array 'metadata' holds "
                                  "Python objects, which only pickle could read\\)$")
    cases["directory"] = (tmp_path, "is a directory")
    for name, (path, message) in cases.items():
        with pytest.raises(ModelFileError, match=message):
            read_weights(path) if name != "short" else load_weights(path, features.metadata())


def test_a_checkers_file_is_refused_for_another_game(tmp_path):
    path = tmp_path / "eval.npz"
    save_weights(path, learned(), features.metadata())
    with pytest.raises(ModelFileError, match="is an evaluation for the game 'checkers', not 'tictactoe'"):
        AlphaBetaPlayer(TicTacToe(), eval=str(path))


def test_options():
    player = AlphaBetaPlayer(CheckersGame())
    cfg = player.config
    assert cfg["depth"] is None and cfg["seconds"] is None and cfg["eval"] == "auto" and cfg["tt"]
    # auto: the strongest evaluation the game has -- its bundled NNUE, else its learned one, else material
    assert player.eval_info == {"eval": "nnue", "path": str(bundled_model(CheckersGame(), "alphabeta-nnue"))}
    assert np.array_equal(player.weights.w1, AlphaBetaPlayer(CheckersGame(), eval="nnue").weights.w1)
    assert AlphaBetaPlayer(CheckersGame(), eval="learned").eval_info["eval"] == str(bundled_model(CheckersGame(),
                                                                                                "alphabeta"))
    assert AlphaBetaPlayer(TicTacToe()).eval_info["eval"].startswith("material")
    with pytest.raises(OptionError, match="option 'depth'"):
        AlphaBetaPlayer(CheckersGame(), depth=0)
    with pytest.raises(OptionError, match="unknown option 'simulations'"):
        AlphaBetaPlayer(CheckersGame(), simulations=5)


def test_registered_as_a_plugin(tmp_path):
    path = tmp_path / "eval.npz"
    save_weights(path, learned(), features.metadata())
    registry = get_registry()
    game = registry.make_game("checkers")
    player = registry.make_player(f"alphabeta:eval={path},depth=4", game)
    assert isinstance(player, AlphaBetaPlayer) and player.config["depth"] == 4
    with pytest.raises(UsageError, match="option 'depth'"):
        registry.make_player("alphabeta:depth=-1", game)


def test_crafted_weights_files_are_refused_naming_the_file(tmp_path):
    # A header declaring 10**14 weights made np.load ask for 800 TB; metadata nested 100,000 deep ended in a
    # RecursionError.
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 14,)})
    huge = tmp_path / "huge.npz"
    with zipfile.ZipFile(huge, "w") as archive:
        archive.writestr("weights.npy", header.getvalue() + bytes(8))
    with pytest.raises(ModelFileError, match=r"huge.npz is corrupt: its array 'weights' declares shape "
                                             r"\(100000000000000,\)"):
        read_weights(huge)
    deep = tmp_path / "deep.npz"
    np.savez(deep, weights=learned(), metadata=np.frombuffer(("[" * 100_000 + "]" * 100_000).encode(), np.uint8))
    with pytest.raises(ModelFileError, match="deep.npz: its metadata is not valid JSON: .*nested too deeply"):
        read_weights(deep)
