import numpy as np
import pytest

from plyground.games.tictactoe import TicTacToe


@pytest.fixture
def game():
    return TicTacToe()


def test_rules_win_draw_and_notation(game):
    s = game.new_initial_state()
    for text in ["b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1"]:
        assert s.current_player() == s.ply % 2
        s.apply(s.parse_move(text))
    assert s.is_terminal() and s.returns() == (0.0, 0.0) and s.outcome_reason() == "board full"
    s.undo()
    assert not s.is_terminal() and s.legal_moves() == [s.parse_move("c1")]
    w = game.new_state("XX./OO./... X")
    w.apply(w.parse_move("c3"))
    assert w.returns() == (1.0, -1.0) and w.legal_moves() == []


def test_position_text_round_trips_and_keys_distinguish(game):
    s = game.new_initial_state()
    keys = {s.key()}
    for text in ["b2", "a1", "c3"]:
        s.apply(s.parse_move(text))
        assert game.new_state(s.to_text()).to_text() == s.to_text()
        keys.add(s.key())
    assert len(keys) == 4
    assert game.new_state(s.to_text()).key() == s.key()


def test_encodings_and_symmetries(game):
    s = game.new_state("X../.O./... X")
    obs = s.observation()
    assert obs.shape == game.observation_shape and obs.dtype == np.float32
    assert obs[0, 0, 0] == 1 and obs[1, 1, 1] == 1  # own marks first (X to move)
    mask = s.legal_mask()
    assert mask.sum() == 7 and not mask[0] and not mask[4]
    policy = np.arange(9, dtype=np.float32)
    copies = game.augment(obs, policy)
    assert len(copies) == 8
    for o, p in copies:  # a symmetry moves marks and move probabilities together
        cell = int(np.argmax(o[0].reshape(-1)))
        assert p[cell] in (0.0, 2.0, 6.0, 8.0)  # corners stay corners
        assert np.isclose(p.sum(), policy.sum())


def test_kernels_agree_with_the_python_rules(game):
    k = game.kernels()
    rng = np.random.default_rng(0)
    out = np.empty(k.max_moves, dtype=np.int64)
    for _ in range(200):
        s = game.new_initial_state()
        while True:
            pos = k.state_to_pos(s)
            n = k.gen_moves(pos, out)
            assert [k.code_to_move(s, c) for c in out[:n]] == s.legal_moves()
            code = k.outcome(pos, n)
            if s.is_terminal():
                expected = {(1.0, -1.0): 0, (-1.0, 1.0): 1, (0.0, 0.0): 2}[s.returns()]
                assert code == expected
                break
            assert code == -1
            s.apply(s.legal_moves()[rng.integers(n)])


def _negamax(state) -> int:
    """The exact result for the side to move, by the State API alone (independent of perfect.py)."""
    if state.is_terminal():
        return int(state.returns()[state.current_player()])
    best = -1
    for move in state.legal_moves():
        state.apply(move)
        best = max(best, -_negamax(state))
        state.undo()
        if best == 1:
            break
    return best


def test_the_solved_positions_agree_with_a_search_of_the_rules_themselves():
    from plyground.capabilities import solved_positions
    from plyground.games.tictactoe.perfect import move_values, value
    game = TicTacToe()
    assert value((-1,) * 9, 0) == 0                      # tic-tac-toe is a draw
    by_class = solved_positions(game, "all")
    assert list(by_class) == ["Opening", "Middle", "End"]
    assert [p.name for p in by_class["Opening"][:1]] == [".../.../..X"]
    assert by_class["Opening"][0].best == {4}            # against a corner only the centre holds the draw
    rows = [p for group in by_class.values() for p in group]
    for position in rows[::7]:
        state = position.state.clone()
        results = {}
        for move in state.legal_moves():
            state.apply(move)
            results[move] = -_negamax(state)
            state.undo()
        assert position.best == {m for m, r in results.items() if r == max(results.values())}
        assert position.best != set(results)             # only positions where a move can be a mistake
        assert move_values(tuple(position.state.board), position.state.to_move) == results
