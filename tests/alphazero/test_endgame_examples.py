"""Self-play that ends at an endgame database learns from perfect play on from there (endgame_examples)."""
from __future__ import annotations

import numpy as np
import pytest

from plyground.errors import UsageError
from plyground.options import resolve_options
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings, play_selfplay_game
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from aztestgames import UniformEvaluator
from testgames import SolvedOracle, SolvedTicTacToe


def walk_tail(game, oracle, examples, start, first: int) -> int:
    """Check examples ``first``.. as a line of perfect play from ``start``: each is the position the last one's
    perfect moves lead to (with a single legal move passed over), its policy spread evenly over the moves that
    keep its exact result, its value that result for the side to move.  Returns the examples checked."""
    state, checked = start.clone(), 0
    for i in range(first, len(examples)):
        while len(state.legal_moves()) == 1:
            state.apply(state.legal_moves()[0])
        np.testing.assert_array_equal(examples.observations[i], state.observation())
        perfect = oracle.perfect_moves(state)
        a, b = examples.policy_offsets[i], examples.policy_offsets[i + 1]
        assert sorted(examples.policy_actions[a:b].tolist()) == sorted(state.action_index(m) for m in perfect)
        np.testing.assert_allclose(examples.policy_probs[a:b], 1.0 / len(perfect), rtol=1e-6)
        assert examples.values[i] == oracle.value(state)
        checked += 1
        if i + 1 < len(examples):                       # the next example is one perfect move on
            children = []
            for move in perfect:
                child = state.clone()
                child.apply(move)
                while not child.is_terminal() and len(child.legal_moves()) == 1:
                    child.apply(child.legal_moves()[0])
                children.append(child)
            matches = [c for c in children if np.array_equal(c.observation(), examples.observations[i + 1])]
            assert matches, f"example {i + 1} is not one perfect move after example {i}"
            state = matches[0]
    return checked


def test_a_game_adjudicated_by_the_database_adds_perfect_play_from_there_as_examples():
    game, oracle = SolvedTicTacToe(), SolvedOracle()
    config = resolve_options(AlphaZeroTrainer.options, {"endgame": "auto", "endgame_examples": 9, "simulations": 8},
                             "trainer alphazero")
    playbook = Playbook(game, config)
    settings = playbook.selfplay_settings()
    assert settings.exact_plies == 9
    search = PUCTSearch(UniformEvaluator(9), rng=np.random.default_rng(0))
    examples, record = play_selfplay_game(game, search, np.random.default_rng(0), settings)
    # the database holds the empty board (a draw): the game is adjudicated before a move ...
    assert record.moves == [] and record.returns == (0.0, 0.0)
    assert record.reason == "endgame database (draw for the side to move)"
    # ... and a perfect game from there is learned from: 8 positions with a choice (the last square is forced)
    assert len(examples) == 8
    assert walk_tail(game, oracle, examples, game.new_initial_state(), 0) == 8


@pytest.mark.parametrize("seed", range(6))
def test_the_tail_follows_a_won_or_drawn_adjudication_with_its_exact_result(seed):
    """Adjudicated after three searched plies: the examples before are the game's, those after it the tail's,
    each valued by the exact result (wins too)."""
    game, oracle = SolvedTicTacToe(), SolvedOracle()

    def adjudicate(state, plies):
        return (oracle.returns(state), "database") if plies >= 3 else None

    settings = SelfPlaySettings(simulations=8, temperature_plies=9, adjudicator=adjudicate, exact_plies=3,
                                perfect_moves=oracle.perfect_moves)
    search = PUCTSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25), rng=np.random.default_rng(seed))
    examples, record = play_selfplay_game(game, search, np.random.default_rng(seed), settings)
    assert len(record.moves) == 3
    state = game.new_initial_state()
    for i, text in enumerate(record.moves):
        assert examples.values[i] == record.returns[state.current_player()]
        state.apply(state.parse_move(text))
    assert record.returns[state.current_player()] == oracle.value(state)
    tail = walk_tail(game, oracle, examples, state, len(record.moves))
    assert 1 <= tail <= 3 and len(examples) == 3 + tail


def test_endgame_examples_without_a_database_is_refused_in_one_line(tmp_path):
    from plyground.games.checkers import CheckersGame
    from plyground.games.tictactoe import TicTacToe
    with pytest.raises(UsageError, match="endgame_examples=4 needs an endgame database, but endgame=off gives "
                                         "none for tictactoe; set endgame to a number of pieces"):
        AlphaZeroTrainer(TicTacToe(), run_dir=tmp_path / "run", endgame_examples=4)
    # checkers has databases, but the tests' endgame folder holds none: auto finds nothing to use
    with pytest.raises(UsageError, match="endgame_examples=2 needs an endgame database, but endgame=auto gives "
                                         "none for checkers"):
        AlphaZeroTrainer(CheckersGame(), run_dir=tmp_path / "run", endgame_examples=2, endgame="auto")
