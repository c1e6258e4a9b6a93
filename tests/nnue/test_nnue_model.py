"""The NNUE trainer's autograd model (plugins/trainers/nnue/model.py): the same function as the game's float
reference, its weights handed to the compiled evaluation and back, and a training path that ends in the
compiled search's evaluation: taught the linear evaluation's values, it learns them, and the quantized network
the search runs gives what the trained model gives."""
import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.alphabeta import features, nnue
from plyground.plugins.autograd import no_grad
from plyground.plugins.autograd.optim import Adam
from plyground.plugins.trainers.nnue.model import NnueModel
from plyground.players.alphabeta.evalfile import read_weights


def _positions(count: int, seed: int) -> np.ndarray:
    """Positions of random games, a few from each game at random plies."""
    game = CheckersGame()
    to_pos = game.kernels().state_to_pos
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 80))):
            if state.is_terminal():
                break
            moves = state.legal_moves()
            state.apply(moves[int(rng.integers(len(moves)))])
            if rng.random() < 0.1:
                out.append(to_pos(state))
    return np.array(out[:count])


@pytest.mark.parametrize("buckets", [1, 3])
def test_the_model_is_the_games_float_network_and_hands_its_weights_both_ways(buckets):
    net = nnue.initial(hidden=16, dense=8, seed=5, buckets=buckets)
    rng = np.random.default_rng(5)                      # buckets that differ, so that a wrong one shows
    net = net._replace(w2=net.w2 * rng.uniform(0.5, 1.5, net.w2.shape), b3=rng.normal(0, 0.5, net.b3.shape))
    model = NnueModel(net, nnue.W1_LIMIT, nnue.MAX_PIECES, dtype=np.float64)
    positions = _positions(80, seed=1)
    with no_grad():
        values = model(*nnue.batch_features(positions)).numpy()
    expected = [nnue.float_value(net, pos) / nnue.OUTPUT_SCALE for pos in positions]
    assert np.allclose(values, expected, rtol=1e-12, atol=1e-12)
    back = model.network()
    assert all(np.array_equal(a, b) for a, b in zip(back, net))
    assert [a.shape for a in back] == [a.shape for a in net]
    pieces = [sum(bin(int(pos[b])).count("1") for b in range(4)) for pos in positions]
    assert len({int(nnue.bucket(p, buckets, nnue.MAX_PIECES)) for p in pieces}) == buckets


def test_a_model_file_round_trips_and_a_wrong_one_is_refused(tmp_path):
    from plyground.errors import ModelFileError
    net = nnue.initial(hidden=8, dense=4, seed=6)
    path = tmp_path / "nnue.npz"
    nnue.save(path, net, {"generation": 3})
    loaded, meta = nnue.load(path)
    assert all(np.array_equal(a, b) for a, b in zip(loaded, net)) and meta["generation"] == 3
    assert meta["hidden"] == 8 and meta["dense"] == 4
    weights = CheckersGame().bundled_models()["alphabeta"]          # the linear evaluation's file
    with pytest.raises(ModelFileError, match="is not a checkers NNUE file .*; give a checkers NNUE file"):
        nnue.load(weights)
    with pytest.raises(ModelFileError, match="does not exist"):
        nnue.load(tmp_path / "missing.npz")
    from plyground.negamax import nnue as shared
    shared.save(tmp_path / "other.npz", net, {**nnue.FEATURES, "game": "othello"})
    with pytest.raises(ModelFileError, match="for game 'othello', not 'checkers'"):
        nnue.load(tmp_path / "other.npz")
    big = net._replace(w1=net.w1 * 0 + nnue.W1_LIMIT * 2)
    nnue.save(tmp_path / "big.npz", big)
    with pytest.raises(ModelFileError, match="overflow"):
        nnue.load(tmp_path / "big.npz")
    nnue.save(tmp_path / "meta.npz", net, {"format": "mine", "game": "chess", "note": "kept"})
    assert nnue.load(tmp_path / "meta.npz")[1]["note"] == "kept"        # metadata cannot unname the file


def test_bucketed_files_round_trip_and_version_1_files_read_as_one_bucket(tmp_path):
    from plyground.errors import ModelFileError
    from plyground.files.storage import load_npz, save_npz
    net = nnue.initial(hidden=8, dense=4, seed=6, buckets=4)
    nnue.save(tmp_path / "stacks.npz", net)
    loaded, meta = nnue.load(tmp_path / "stacks.npz")
    assert meta["buckets"] == 4 and meta["format_version"] == 2
    assert all(np.array_equal(a, b) for a, b in zip(loaded, net))
    # the shipped network was written before buckets: version 1, its dense layers without the bucket axis
    shipped = CheckersGame().bundled_models()["alphabeta-nnue"]
    arrays = load_npz(shipped, "shipped", "")
    old, meta = nnue.load(shipped)
    assert meta["format_version"] == 1 and old.buckets == 1 and arrays["w2"].ndim == 2
    for name in ("w2", "b2", "w3", "b3"):
        assert np.array_equal(getattr(old, name)[0], arrays[name])
    # a bucket count out of range, or arrays that do not have it, are refused by name
    stacked = {name: np.asarray(a) for name, a in net._asdict().items()}
    meta = {"format": "plyground-nnue", "format_version": 2, **nnue.FEATURES, "hidden": 8, "dense": 4}
    for buckets, message in ((9, "buckets 9 are not a number from 1 to 8"), ("4", "buckets '4' are not a number"),
                             (3, r"do not fit 8 hidden and 4 dense units in 3 buckets")):
        save_npz(tmp_path / "bad.npz", stacked, {**meta, "buckets": buckets})
        with pytest.raises(ModelFileError, match=message):
            nnue.load(tmp_path / "bad.npz")


def test_taught_the_linear_evaluation_it_learns_it_and_the_search_evaluates_as_the_model():
    weights, _ = read_weights(CheckersGame().bundled_models()["alphabeta"])
    train, test = _positions(6000, seed=2), _positions(500, seed=3)

    def targets(positions):
        return np.array([features.evaluate(pos, weights) for pos in positions]) / nnue.OUTPUT_SCALE

    y_train, y_test = targets(train), targets(test)
    model = NnueModel(nnue.initial(hidden=32, dense=16, seed=7), nnue.W1_LIMIT, nnue.MAX_PIECES)
    optimiser = Adam(model.parameters(), lr=3e-3)
    x_train, x_test = nnue.batch_features(train), nnue.batch_features(test)
    rng = np.random.default_rng(0)

    def test_loss():
        with no_grad():
            return float(np.mean((model(*x_test).numpy() - y_test) ** 2))

    before = test_loss()
    for epoch in range(12):
        order = rng.permutation(len(train))
        for start in range(0, len(train), 128):
            batch = order[start:start + 128]
            prediction = model(x_train[0][batch], x_train[1][batch])
            loss = ((prediction - y_train[batch].astype(np.float32)) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            model.clip_first_layer()
    after = test_loss()
    with no_grad():
        predicted = model(*x_test).numpy().astype(np.float64)
    assert after < 0.2 * before                      # here: 6.2 to 0.05 (men squared)
    assert np.corrcoef(predicted, y_test)[0, 1] > 0.9    # here: 0.996
    # What the compiled search computes from the quantized network is what the model predicts, to within the
    # first layer's rounding (up to 1/254 of a weight, over at most 25 rows): 0.017 men on average here, where
    # the values spread over 2.4 men; far from the 0.05 allowed.
    E = nnue.quantize(model.network())
    searched = np.array([nnue.reference_value(E, pos) for pos in test]) / nnue.OUTPUT_SCALE
    assert np.mean(np.abs(searched - predicted)) < 0.05
