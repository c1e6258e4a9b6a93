"""The compiled-kernel contract of docs/kernels.md, checked against the Python State."""
import random

import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.checkers import kernels as K
from plyground.players.search.kernel_playout import seed_compiled

CONTRACT = ("gen_moves", "apply_move", "outcome", "playout", "current_player", "pos_size",
            "max_moves", "state_to_pos", "code_to_move", "move_to_code")


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def random_states(game, games=6, plies=120, seed=7):
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        for _ in range(plies):
            yield state
            moves = state.legal_moves()
            if not moves:
                break
            state.apply(rng.choice(moves))


def test_kernels_object_has_the_contract(game):
    kernels = game.kernels()
    assert all(hasattr(kernels, name) for name in CONTRACT)
    assert kernels.pos_size == 7 and kernels.max_moves >= 48
    assert game.kernels() is CheckersGame().kernels()          # one object per parameter set
    assert CheckersGame(no_progress_plies=10).kernels() is not kernels
    pos = kernels.state_to_pos(game.new_initial_state())
    assert pos.dtype == np.int64 and list(pos) == [0xFFF, 0, 0xFFF00000, 0, 0, 0, 0]


def test_gen_moves_and_apply_move_agree_with_the_state(game):
    kernels = game.kernels()
    out = np.empty(kernels.max_moves, dtype=np.int64)
    for state in random_states(game):
        pos = kernels.state_to_pos(state)
        n = kernels.gen_moves(pos, out)
        assert [kernels.code_to_move(state, c) for c in out[:n]] == state.legal_moves()
        assert kernels.current_player(pos) == state.current_player()
        for move in state.legal_moves():
            child = pos.copy()
            kernels.apply_move(child, kernels.move_to_code(state, move))
            state.apply(move)
            assert np.array_equal(child, kernels.state_to_pos(state))
            assert K.hash_position(child) & (2**64 - 1) == state.key()   # incremental == from scratch
            state.undo()


def test_outcome_codes():
    kernels = CheckersGame(no_progress_plies=2, max_plies=5).kernels()
    assert kernels.outcome(np.array([1, 0, 1 << 31, 0, 0, 0, 0], np.int64), 2) == -1
    assert kernels.outcome(np.array([1, 0, 1 << 31, 0, 0, 0, 0], np.int64), 0) == 1    # Black cannot move
    assert kernels.outcome(np.array([1, 0, 1 << 31, 0, 1, 0, 0], np.int64), 0) == 0    # White cannot move
    assert kernels.outcome(np.array([0, 1, 0, 1 << 31, 0, 2, 0], np.int64), 3) == 2    # no-progress rule
    assert kernels.outcome(np.array([0, 1, 0, 1 << 31, 0, 0, 5], np.int64), 3) == 2    # ply cap
    assert CheckersGame().kernels().outcome(np.array([0, 1, 0, 1 << 31, 0, 79, 0], np.int64), 3) == -1


def test_playout_is_seeded_and_ends(game):
    kernels = game.kernels()
    start = kernels.state_to_pos(game.new_initial_state())
    results = []
    for _ in range(2):
        seed_compiled(123)
        pos = start.copy()
        results.append((kernels.playout(pos, 1000), pos.tolist()))
    assert results[0] == results[1]
    result, final = results[0]
    assert result in (0, 1, 2)
    assert kernels.playout(start.copy(), 0) == 2                           # ply limit at once
    state = game.new_state("B:W21:B")
    assert kernels.playout(kernels.state_to_pos(state), 10) == 1


def test_no_position_in_random_play_needs_more_moves_than_the_buffer(game):
    # Many kings, many captures: the most move-rich positions random play reaches.
    kernels = game.kernels()
    out = np.empty(kernels.max_moves, dtype=np.int64)
    most = 0
    for state in random_states(game, games=20, plies=300, seed=3):
        most = max(most, kernels.gen_moves(kernels.state_to_pos(state), out))
    assert most < kernels.max_moves // 2
