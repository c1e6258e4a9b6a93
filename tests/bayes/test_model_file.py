"""Model files are data (npz + JSON), written atomically, and refused when they are for something else."""
import json

import numpy as np
import pytest

from plyground.errors import ModelFileError
from plyground.games.checkers.bayes_keys import CheckersAdapter
from plyground.plugins.bayes.model import BayesModel


def _model(kind="urgency", game="checkers", id_set="hybrid", size=8192, version=None):
    m = BayesModel.empty(kind, game, version or CheckersAdapter.version, id_set, size, beta=1.0, prior_variance=1.0)
    m.tau[3], m.rho[3], m.count[3] = 0.5, 2.0, 7
    return m


def test_round_trip_without_pickle(tmp_path):
    path = _model().save(tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as archive:           # plain numbers only
        assert set(archive.files) == {"tau", "rho", "count", "__metadata__"}
        meta = json.loads(archive["__metadata__"].tobytes().decode())
    assert meta["format"] == "plyground-bayes" and meta["kind"] == "urgency" and meta["id_set"] == "hybrid"
    loaded = BayesModel.load(path, game="checkers", adapter=CheckersAdapter())
    assert loaded.means()[3] == pytest.approx(0.25) and loaded.count[3] == 7 and loaded.params["beta"] == 1.0
    assert list(tmp_path.iterdir()) == [path]                    # no temporary file left behind


def test_a_model_for_another_game_is_refused(tmp_path):
    path = _model(game="chess").save(tmp_path / "chess.npz")
    with pytest.raises(ModelFileError, match="urgency model for chess .*not for checkers"):
        BayesModel.load(path, game="checkers")


def test_a_model_for_another_key_or_feature_set_is_refused(tmp_path):
    path = _model().save(tmp_path / "m.npz")
    with pytest.raises(ModelFileError, match="not for key set 'piece'"):
        BayesModel.load(path, id_set="piece")
    with pytest.raises(ModelFileError, match="not a boardval model"):
        BayesModel.load(path, kind="boardval")
    unknown = _model(id_set="lines", size=100).save(tmp_path / "u.npz")
    with pytest.raises(ModelFileError, match="key set 'lines', which the checkers adapter does not have"):
        BayesModel.load(unknown, adapter=CheckersAdapter())
    wrong_size = _model(id_set="hybrid", size=100).save(tmp_path / "s.npz")
    with pytest.raises(ModelFileError, match="100 ids for 'hybrid'.*8192"):
        BayesModel.load(wrong_size, adapter=CheckersAdapter())
    old_layout = _model(version="checkers-0").save(tmp_path / "o.npz")
    with pytest.raises(ModelFileError, match="adapter version 'checkers-0'.*retrain"):
        BayesModel.load(old_layout, adapter=CheckersAdapter())


def test_broken_files_are_refused_with_a_reason(tmp_path):
    with pytest.raises(ModelFileError, match="does not exist"):
        BayesModel.load(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match="corrupt or not an .npz"):
        BayesModel.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(ModelFileError, match="not a bayes model"):
        BayesModel.load(other)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, tau=np.array([object()], dtype=object))
    with pytest.raises(ModelFileError, match="cannot be loaded safely"):
        BayesModel.load(pickled)
    bad = _model()
    bad.rho[0] = np.nan
    with pytest.raises(ModelFileError, match="non-finite"):
        BayesModel.load(bad.save(tmp_path / "nan.npz"))


@pytest.mark.parametrize("params, message", [
    ({"beta": 1.0, "prior_variance": "x"}, "its prior_variance is 'x', not a positive finite number"),
    ({"beta": float("nan")}, "its beta is nan"),
    ({"beta": 1.0, "threshold": -1}, "its threshold is -1"),
])
def test_a_model_with_parameters_no_game_can_use_is_refused_at_load_naming_the_file(tmp_path, params, message):
    # Such a model once loaded and then failed every game it played, naming no file.
    m = BayesModel.empty("urgency", "checkers", CheckersAdapter.version, "hybrid", 8192, **params)
    path = m.save(tmp_path / "crafted.npz")
    with pytest.raises(ModelFileError, match=f"^model file {path}: {message}"):
        BayesModel.load(path, game="checkers", adapter=CheckersAdapter())
