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
