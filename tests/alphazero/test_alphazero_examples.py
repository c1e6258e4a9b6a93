"""Value and policy targets of training examples, on hand-built games."""
import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.examples import Examples, make_step, visit_policy
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings, play_selfplay_game

from aztestgames import UniformEvaluator

# X wins along the top row: X a3, O a1, X b3, O b1, X c3.
X_WINS = ["a3", "a1", "b3", "b1", "c3"]


def hand_built_game(moves):
    """Steps of a game with made-up visit counts: the played move gets 5 visits, every other legal move 1."""
    game = TicTacToe()
    state = game.new_initial_state()
    steps, expected = [], []
    for text in moves:
        move = state.parse_move(text)
        legal = state.legal_moves()
        visits = [5 if m == move else 1 for m in legal]
        steps.append(make_step(state, legal, visits))
        policy = np.zeros(9, np.float32)
        for m, n in zip(legal, visits):
            policy[state.action_index(m)] = n / sum(visits)
        expected.append((state.observation().copy(), policy, state.current_player()))
        state.apply(move)
    assert state.is_terminal()
    return game, state, steps, expected


def test_values_alternate_with_the_side_to_move_and_policies_are_the_visits():
    game, final, steps, expected = hand_built_game(X_WINS)
    assert final.returns() == (1.0, -1.0)
    examples = Examples.from_steps(steps, final.returns(), game.observation_shape)
    assert len(examples) == 5
    # X moved at plies 0, 2, 4 and won; O moved at plies 1, 3 and lost.
    assert examples.values.tolist() == [1.0, -1.0, 1.0, -1.0, 1.0]
    assert examples.players.tolist() == [0, 1, 0, 1, 0]
    dense = examples.dense_policies(np.arange(5), game.num_actions)
    for i, (observation, policy, player) in enumerate(expected):
        assert dense[i] == pytest.approx(policy)
        assert dense[i].sum() == pytest.approx(1.0)
        np.testing.assert_array_equal(examples.observations[i], observation)


def test_o_win_and_draw_values():
    # O wins along the b column: X a1, O b2, X c1, O b1, X a3, O b3.
    game, final, steps, _ = hand_built_game(["a1", "b2", "c1", "b1", "a3", "b3"])
    assert final.returns() == (-1.0, 1.0)
    examples = Examples.from_steps(steps, final.returns(), game.observation_shape)
    assert examples.values.tolist() == [-1.0, 1.0] * 3
    game, final, steps, _ = hand_built_game(["b2", "a1", "a3", "c1", "b1", "b3", "c2", "a2", "c3"])
    assert final.returns() == (0.0, 0.0) and final.outcome_reason() == "board full"
    assert Examples.from_steps(steps, final.returns(), game.observation_shape).values.tolist() == [0.0] * 9


def test_observations_are_independent_copies_of_each_position():
    game, final, steps, expected = hand_built_game(X_WINS)
    examples = Examples.from_steps(steps, final.returns(), game.observation_shape)
    # Every position differs (no aliasing of one board into every example) ...
    assert len({examples.observations[i].tobytes() for i in range(len(examples))}) == len(examples)
    # ... the first is the empty board, seen by X ...
    assert examples.observations[0].sum() == 0
    # ... and no step shares memory with another or with the examples.
    for i, step in enumerate(steps):
        for other in steps[i + 1:]:
            assert not np.shares_memory(step.observation, other.observation)
        assert not np.shares_memory(step.observation, examples.observations)
    steps[0].observation[:] = 7.0                       # scribbling on a step changes nothing else
    assert examples.observations[0].sum() == 0 and steps[1].observation.max() <= 1.0


def test_observations_are_from_the_side_to_move():
    # After X a3, O sees X's mark in its "opponent" plane.
    game, final, steps, _ = hand_built_game(X_WINS)
    o_view = steps[1].observation
    assert o_view[0].sum() == 0 and o_view[1].sum() == 1


def test_shared_action_indices_add_their_visits():
    game = CheckersGame()
    state = game.new_state("B:W6,7,14,15:B2")
    moves = state.legal_moves()
    actions, probs = visit_policy(state, moves, [3, 1])
    assert actions.tolist() == [state.action_index(moves[0])] and probs.tolist() == [1.0]


def test_self_play_examples_match_the_game_record():
    game = TicTacToe()
    search = PUCTSearch(UniformEvaluator(9), SearchSettings(dirichlet_epsilon=0.25), rng=np.random.default_rng(3))
    examples, record = play_selfplay_game(game, search, np.random.default_rng(3),
                                          SelfPlaySettings(simulations=24, temperature_plies=9))
    assert record.finished and len(examples) == len(record.moves)
    state = game.new_initial_state()
    for i, text in enumerate(record.moves):
        np.testing.assert_array_equal(examples.observations[i], state.observation())
        assert examples.players[i] == state.current_player()
        assert examples.values[i] == record.returns[state.current_player()]
        a, b = examples.policy_offsets[i], examples.policy_offsets[i + 1]
        legal = {state.action_index(m) for m in state.legal_moves()}
        assert set(examples.policy_actions[a:b].tolist()) <= legal
        assert examples.policy_probs[a:b].sum() == pytest.approx(1.0)
        state.apply(state.parse_move(text))
    assert tuple(state.returns()) == record.returns


def test_examples_round_trip_through_arrays():
    game, final, steps, _ = hand_built_game(X_WINS)
    examples = Examples.from_steps(steps, final.returns(), game.observation_shape)
    both = Examples.concatenate([examples, Examples.from_arrays(examples.arrays())], game.observation_shape)
    assert len(both) == 10
    np.testing.assert_array_equal(both.dense_policies(np.arange(5, 10), 9), examples.dense_policies(np.arange(5), 9))
    assert both.values[5:].tolist() == examples.values.tolist()
