"""Learner encodings: the observation from the mover's side, and the 1024 action indices."""
import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.encoding import encode_batch
from plyground.games.checkers.notation import INITIAL_FEN


@pytest.fixture(scope="module")
def game():
    return CheckersGame()


def test_class_attributes(game):
    assert game.observation_shape == (5, 8, 8) and game.num_actions == 1024 and game.supports_learning


def test_observation_planes_from_the_mover_side(game):
    obs = game.new_initial_state().observation()
    assert obs.shape == (5, 8, 8) and obs.dtype == np.float32
    assert obs[0].sum() == 12 and obs[0][:3].sum() == 12     # own men on the mover's first three rows
    assert obs[2].sum() == 12 and obs[2][5:].sum() == 12     # opponent men at the far side
    assert obs[1].sum() == obs[3].sum() == obs[4].sum() == 0
    # The initial position looks the same to White as to Black: the board is turned for White.
    white = game.new_state("W" + INITIAL_FEN[1:]).observation()
    assert np.array_equal(obs, white)


def test_board_is_turned_half_a_turn_for_white(game):
    black = game.new_state("B:WK30:B1").observation()
    assert black[0, 0, 1] == 1 and black[3, 7, 2] == 1      # square 1 is b8 (row 0), 30 is c1 (row 7)
    white = game.new_state("W:WK30:B1").observation()
    assert white[1, 0, 5] == 1 and white[2, 7, 6] == 1      # 30 -> row 0 col 5, 1 -> row 7 col 6


def test_no_progress_plane(game):
    state = game.new_state("B:WK32:BK1")
    for text in ("1-6", "32-27", "6-1"):
        state.apply(state.parse_move(text))
    assert np.all(state.observation()[4] == np.float32(3 / 80))
    off = CheckersGame(no_progress_plies=0).new_state("B:WK32:BK1")
    assert np.all(off.observation()[4] == 0)


def test_action_index_is_from_times_32_plus_to_in_the_mover_frame(game):
    state = game.new_initial_state()
    move = state.parse_move("11-15")
    assert state.action_index(move) == 10 * 32 + 14
    state.apply(move)
    # White's 22-18 is the mirror image of Black's 11-15: the same index.
    assert state.action_index(state.parse_move("22-18")) == 10 * 32 + 14


def test_legal_mask_has_one_index_per_legal_move(game):
    state = game.new_initial_state()
    mask = state.legal_mask()
    assert mask.dtype == bool and mask.shape == (1024,) and mask.sum() == 7
    assert [state.moves_for_action(i) for i in np.flatnonzero(mask)] == [[m] for m in state.legal_moves()]


def test_captures_sharing_their_ends_share_an_index(game):
    # 2x9x18 and 2x11x18: different moves, same start and end, hence one index.
    state = game.new_state("B:W6,7,14,15:B2")
    a, b = state.legal_moves()
    assert a != b and state.action_index(a) == state.action_index(b) == 1 * 32 + 17
    assert state.legal_mask().sum() == 1
    assert state.moves_for_action(1 * 32 + 17) == [a, b]
    assert state.moves_for_action(0) == []


def test_augment_adds_no_symmetries(game):
    obs, policy = np.zeros((5, 8, 8), np.float32), np.zeros(1024, np.float32)
    assert len(game.augment(obs, policy)) == 1


def test_batch_encoding_matches_the_state(game):
    states = [game.new_initial_state(), game.new_state("W:WK30,21:B1,K14")]
    positions = np.stack([s._pos for s in states])
    out = np.empty((2, 5, 8, 8), np.float32)
    encode_batch(positions, 80, out)
    assert all(np.array_equal(out[i], s.observation()) for i, s in enumerate(states))
