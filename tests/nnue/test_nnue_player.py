"""``alphabeta`` with a checkers NNUE network file (eval=PATH): the compiled search and the search without
kernels both evaluate with the network; files that are neither kind, and eval=nnue with no bundled network,
are refused with messages that say what to give."""
import numpy as np
import pytest

from plyground.errors import ModelFileError
from plyground.games.checkers.alphabeta import nnue
from plyground.protocols import Budget
from plyground.registry import get_registry


@pytest.fixture(scope="module")
def network_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("nnue") / "net.npz"
    nnue.save(path, nnue.initial(hidden=16, dense=8, seed=11))
    return path


@pytest.mark.parametrize("kernels", [True, False])
def test_a_one_ply_search_takes_the_child_the_network_likes_best(network_file, kernels):
    registry = get_registry()
    game = registry.make_game("checkers")
    player = registry.make_player(f"alphabeta:eval={network_file},depth=1,kernels={str(kernels).lower()},"
                                  f"book=none", game)
    state = game.new_initial_state()
    E = nnue.quantize(nnue.load(network_file)[0])
    to_pos = game.kernels().state_to_pos
    values = {}
    for move in state.legal_moves():         # no capture is possible in the reply: every child is quiet
        child = state.clone()
        child.apply(move)
        values[move] = -nnue.reference_value(E, to_pos(child))
    move = player.choose_move(state.clone(), Budget())
    assert player.analysis()["value"] == pytest.approx(max(values.values()), abs=1e-3)
    assert values[move] == pytest.approx(max(values.values()), abs=1e-3)
    assert len(set(np.round(list(values.values()), 3))) > 3          # the network tells the moves apart
    player.close()


def _without_bundled_network(game, monkeypatch, path):
    models = dict(game.bundled_models(), **{"alphabeta-nnue": path})
    monkeypatch.setattr(type(game), "bundled_models", lambda self: models)


def test_eval_auto_and_nnue_take_the_bundled_network_and_learned_without_one(tmp_path, monkeypatch, network_file):
    from plyground.players.alphabeta.player import load_evaluation
    game = get_registry().make_game("checkers")
    _without_bundled_network(game, monkeypatch, network_file)
    for spec in ("auto", "nnue"):
        weights, info = load_evaluation(game, spec)
        assert info["eval"] == "nnue" and np.array_equal(weights.w1, nnue.load(network_file)[0].w1)
    _without_bundled_network(game, monkeypatch, tmp_path / "absent.npz")
    weights, info = load_evaluation(game, "auto")
    assert info["eval"].endswith("checkers.npz") and isinstance(weights, np.ndarray)


def test_eval_nnue_without_a_bundled_network_and_files_of_neither_kind_are_refused(tmp_path, monkeypatch):
    registry = get_registry()
    game = registry.make_game("checkers")
    _without_bundled_network(game, monkeypatch, tmp_path / "absent.npz")
    with pytest.raises(ModelFileError, match="no NNUE network is bundled for checkers"):
        registry.make_player("alphabeta:eval=nnue", game)
    with pytest.raises(ModelFileError, match="chess has no NNUE evaluation"):
        registry.make_player("alphabeta:eval=nnue", registry.make_game("chess"))
    other = tmp_path / "other.npz"
    np.savez(other, numbers=np.arange(3))
    with pytest.raises(ModelFileError, match="neither a linear evaluation file .* nor an NNUE network file"):
        registry.make_player(f"alphabeta:eval={other}", game)
