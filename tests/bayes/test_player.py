"""The bayes player: best-mean or sampled moves, explanations, move priors for search, plugin registration."""
import numpy as np
import pytest

from plyground import registry
from plyground.errors import ModelFileError, UsageError
from plyground.plugins.bayes import boardval, training, urgency
from plyground.games.checkers.bayes_keys import CheckersAdapter
from plyground.plugins.bayes.model import BayesModel
from plyground.plugins.bayes.player import BayesPlayer
from plyground.plugins.bayes.priors import best_probabilities, softmax_priors
from plyground.protocols import Budget
from plyground.play.session import run_match


@pytest.fixture(scope="module", params=["urgency", "boardval"])
def model_path(request, random_games, tmp_path_factory):
    """A model trained on the random games (no data file needed)."""
    adapter = CheckersAdapter()
    kind = urgency if request.param == "urgency" else boardval
    id_set = "hybrid-reply" if request.param == "urgency" else "hybrid"
    model = BayesModel.empty(request.param, "checkers", adapter.version, id_set, kind.id_space(adapter, id_set),
                             beta=1.0, prior_variance=1.0)
    encoded = adapter.encode_games(random_games, "hybrid-reply" if kind is urgency else "hybrid",
                                   None if kind is urgency else "hybrid")
    training.train_encoded(model, kind, encoded, training.Settings(relative=kind is boardval))
    return model.save(tmp_path_factory.mktemp("models") / f"{request.param}.npz")


def test_plays_the_best_mean_and_explains_it(checkers, model_path):
    player = BayesPlayer(checkers, model=model_path)
    state = checkers.new_initial_state()
    move = player.choose_move(state.clone(), Budget())
    moves, means, variances = player.beliefs(state)
    assert move == moves[int(np.argmax(means))] and np.all(variances > 0)
    info = player.analysis()
    assert info["chosen"] == state.move_to_text(move)
    assert [m["mean"] for m in info["moves"]] == sorted(means, reverse=True)
    assert info["why"] and all(":" in line for line in info["why"])
    second = info["moves"][1]["move"]
    reasons = player.explain(state, move, versus=state.parse_move(second))
    assert sum(r["contribution"] for r in reasons) == pytest.approx(info["moves"][0]["mean"] - info["moves"][1]["mean"])


def test_sampling_is_legal_and_reproducible(checkers, model_path):
    state = checkers.new_initial_state()
    picks = []
    for _ in range(2):
        player = BayesPlayer(checkers, model=model_path, sample=True, seed=5)
        picks.append([player.choose_move(state.clone(), Budget()) for _ in range(12)])
    assert picks[0] == picks[1] and set(picks[0]) <= set(state.legal_moves())
    assert len(set(picks[0])) > 1                     # with the expert's noise, not always the same move


def test_move_priors_for_search(checkers, model_path):
    player = BayesPlayer(checkers, model=model_path)
    state = checkers.new_initial_state()
    for method in ("softmax", "best"):
        moves, p = player.move_priors(state, method=method)
        assert moves == state.legal_moves() and p.shape == (len(moves),)
        assert p.sum() == pytest.approx(1.0) and np.all(p > 0)
    _, means, _ = player.beliefs(state)
    moves, p = player.move_priors(state, method="softmax", temperature=0.5)
    assert int(np.argmax(p)) == int(np.argmax(means))


def test_best_probabilities_match_monte_carlo():
    means, variances = np.array([0.0, 0.5, -1.0, 0.4]), np.array([1.0, 0.3, 2.0, 0.1])
    p = best_probabilities(means, variances)
    draws = np.random.default_rng(0).normal(means, np.sqrt(variances), size=(200_000, 4))
    freq = np.bincount(draws.argmax(axis=1), minlength=4) / len(draws)
    assert p == pytest.approx(freq, abs=0.005)
    assert best_probabilities(np.zeros(3), np.ones(3)) == pytest.approx(np.full(3, 1 / 3), abs=1e-6)
    assert softmax_priors(np.array([0.0, np.log(3.0)])) == pytest.approx([0.25, 0.75])
    far = best_probabilities(np.array([0.0, 100.0]), np.array([1e-4, 1e-4]))
    assert np.all(np.isfinite(far)) and far[1] == pytest.approx(1.0)


def test_a_model_for_another_game_is_refused(checkers, tmp_path):
    path = BayesModel.empty("urgency", "chess", "chess-1", "hybrid", 10).save(tmp_path / "chess.npz")
    with pytest.raises(ModelFileError, match="urgency model for chess"):
        BayesPlayer(checkers, model=path)
    with pytest.raises(UsageError, match="needs option model=PATH"):
        BayesPlayer(checkers)


def test_registered_as_plugins_and_plays_a_match(checkers, model_path):
    reg = registry.get_registry()
    assert "bayes" in reg.names("trainers") and "bayes" in reg.names("players")
    bayes = reg.make_player(f"bayes:model={model_path}", checkers)
    result = run_match(checkers, bayes, reg.make_player("random", checkers), 2, max_plies=60, seed=1)
    assert len(result.records) == 2


def test_its_explanation_is_what_the_analysis_view_shows(checkers, model_path):
    from plyground.analysis import analysis_lines
    player = BayesPlayer(checkers, model=model_path)
    state = checkers.new_initial_state()
    move = player.choose_move(state.clone(), Budget())
    info = player.analysis()
    lines = analysis_lines(info, "Black")
    assert lines[0] == f"best move {state.move_to_text(move)}"
    top = next(line for line in lines if line.startswith("top moves: "))
    assert top.startswith(f"top moves: {info['moves'][0]['move']} {info['moves'][0]['mean']:+.2f}±")
    assert [line for line in lines if line.startswith("because ")] == [f"because {why}" for why in info["why"][:4]]


def test_its_priors_mix_into_the_alphazero_search(checkers, model_path):
    from plyground.players.alphazero.player import AlphaZeroPlayer
    state = checkers.new_initial_state()
    plain = AlphaZeroPlayer(checkers, simulations=16, seed=1)
    mixed = AlphaZeroPlayer(checkers, simulations=16, seed=1, prior=f"bayes:model={model_path}", prior_weight=0.75)
    for player in (plain, mixed):
        player.choose_move(state, Budget(simulations=16))
    network = {c.move: c.prior for c in plain.search.root_children()}
    moves, bayes = BayesPlayer(checkers, model=model_path).move_priors(state)
    got = {c.move: c.prior for c in mixed.search.root_children()}
    for move, p in zip(moves, bayes):
        assert got[move] == pytest.approx(0.25 * network[move] + 0.75 * p, abs=1e-6)
    assert not np.allclose(list(got.values()), list(network.values()))


def test_a_prior_player_without_priors_is_refused(checkers):
    from plyground.players.alphazero.player import AlphaZeroPlayer
    with pytest.raises(UsageError, match="prior=random has no move priors to give"):
        AlphaZeroPlayer(checkers, prior="random")
