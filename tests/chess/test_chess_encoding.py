"""Learner encodings: the board planes, the 4672 action indices, the 353 Deep Pepper features."""
from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from plyground.errors import MoveError
from plyground.games.chess import ChessGame
from plyground.games.chess import encoding as enc

from move_helpers import play


# ------------------------------------------------------------------ planes

def test_planes_shape_and_pieces_from_whites_side(game):
    state = game.new_initial_state()
    obs = state.observation()
    assert obs.shape == game.observation_shape == (21, 8, 8) and obs.dtype == np.float32
    assert game.supports_learning and game.num_actions == 4672
    assert obs[0, 1].tolist() == [1] * 8 and obs[0].sum() == 8          # own pawns on row 1 (rank 2)
    assert obs[5, 0, 4] == 1 and obs[5].sum() == 1                      # own king e1
    assert obs[6, 6].tolist() == [1] * 8                                # opponent pawns on rank 7
    assert obs[11, 7, 4] == 1                                           # opponent king e8
    assert obs[12:14].sum() == 0 and obs[14].min() == 1                 # no repetition; White to move
    assert obs[15:19].min() == 1 and obs[19].sum() == 0 and obs[20].max() == 0


def test_planes_are_mirrored_for_black(game):
    state = play(game.new_initial_state(), "e4")
    obs = state.observation()
    assert obs[0, 1].tolist() == [1] * 8            # Black's own pawns: rank 7 becomes row 1
    assert obs[5, 0, 4] == 1                        # Black's king e8 -> row 0, file e (mirrored, not rotated)
    assert obs[6, 4, 4] == 1 and obs[6, 1, 4] == 0  # White's e-pawn on e4 -> row 7 - 3 = 4
    assert obs[14].max() == 0                       # Black to move
    # Colour-symmetric positions look the same to the side to move (but for the colour plane).
    white = game.new_state("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1").observation()
    black = game.new_state("4k3/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1").observation()
    assert np.array_equal(white[:14], black[:14]) and np.array_equal(white[15:], black[15:])


def test_castling_en_passant_repetition_and_no_progress_planes():
    game = ChessGame()
    state = game.new_state("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 30 40")
    obs = state.observation()
    assert obs[15].min() == 1 and obs[16].max() == 0   # White: king side only
    assert obs[17].max() == 0 and obs[18].min() == 1   # Black: queen side only
    assert obs[20, 0, 0] == pytest.approx(0.3)
    ep = play(game.new_state("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"), "e4").observation()
    assert ep[19].sum() == 1 and ep[19, 7 - 2, 4] == 1  # e3, seen from Black: rank 3 -> row 5
    no_ep = play(game.new_initial_state(), "e4").observation()
    assert no_ep[19].sum() == 0                          # no pawn can take en passant
    rep = play(game.new_initial_state(), "Nf3", "Nf6", "Ng1", "Ng8")
    assert rep.observation()[12].min() == 1 and rep.observation()[13].max() == 0
    half = ChessGame(no_progress_plies=0).new_state("4k3/8/8/8/8/8/8/R3K3 w - - 75 60")
    assert half.observation()[20, 0, 0] == pytest.approx(0.5)   # over the 75-move rule's 150 plies


# ------------------------------------------------------------------ actions

def test_action_indices_of_known_moves(game):
    state = game.new_initial_state()
    e2e4 = state.parse_move("e4")
    assert state.action_index(e2e4) == 12 * 73 + 0 * 7 + 1                   # from e2, north, 2 squares
    assert state.action_index(state.parse_move("Nf3")) == 6 * 73 + 56 + 7    # knight step (-1, +2)
    black = play(game.new_initial_state(), "e4")
    assert black.action_index(black.parse_move("e5")) == 12 * 73 + 1         # mirrored: the same action
    promo = game.new_state("1r5k/P7/8/8/8/8/8/K7 w - - 0 1")
    assert promo.action_index(promo.parse_move("a8=Q")) == 48 * 73 + 0       # queen: plain move north
    assert promo.action_index(promo.parse_move("a8=N")) == 48 * 73 + 64 + 0 * 3 + 1
    assert promo.action_index(promo.parse_move("axb8=R")) == 48 * 73 + 64 + 2 * 3 + 2
    assert promo.action_index(promo.parse_move("axb8=Q")) == 48 * 73 + 1 * 7  # north-east, 1 square
    castle = game.new_state("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert castle.action_index(castle.parse_move("O-O")) == 4 * 73 + 2 * 7 + 1   # king e1 two squares east


def test_actions_are_distinct_in_range_and_round_trip_over_random_games():
    rng = random.Random(5)
    game = ChessGame()
    positions = 0
    for start in (chess.STARTING_FEN, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                  "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"):
        state = game.new_state(start)
        for _ in range(80):
            if state.is_terminal():
                break
            moves = state.legal_moves()
            indices = [state.action_index(m) for m in moves]
            assert len(set(indices)) == len(moves)
            assert all(0 <= i < game.num_actions for i in indices)
            mask = state.legal_mask()
            assert mask.dtype == bool and mask.sum() == len(moves) and mask[indices].all()
            for m, i in zip(moves, indices):
                assert state.move_for_action(i) == m
            positions += 1
            state.apply(rng.choice(moves))
    assert positions > 150
    with pytest.raises(MoveError, match="action 0 is not a legal move"):
        game.new_initial_state().move_for_action(0)


def test_augment_is_the_identity(game):
    obs, policy = np.zeros((21, 8, 8), np.float32), np.ones(4672, np.float32)
    assert len(game.augment(obs, policy)) == 1


# ------------------------------------------------------------------ Deep Pepper

def test_deep_pepper_encoding_option_selects_the_observation():
    game = ChessGame(encoding="deep_pepper")
    state = game.new_initial_state()
    assert game.observation_shape == (353,) and ChessGame.observation_shape == (21, 8, 8)
    obs = state.observation()
    assert obs.shape == (353,) and obs.dtype == np.float32
    assert np.array_equal(obs, state.deep_pepper_features())
    assert ChessGame().new_initial_state().deep_pepper_features().shape == (353,)


def test_deep_pepper_layout_adds_up_to_353():
    assert (enc.GLOBAL_START, enc.PIECES_START, enc.SLIDERS_START, enc.SQUARES_START) == (0, 17, 177, 225)
    assert sum(n for _, _, n in enc.PIECE_SLOTS) == 32
    assert sum(n * len(d) for _, _, n, d in enc.SLIDER_SLOTS) == 48
    assert enc.SQUARES_START + 2 * 64 == enc.DEEP_PEPPER_SIZE == 353


def piece_slot(features, slot):
    return features[17 + 5 * slot:17 + 5 * slot + 5].tolist()


def test_deep_pepper_features_of_a_hand_made_position(game):
    # White: Ke1, Rd2.  Black: Ke8, Qd5.  White to move.
    f = game.new_state("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1").deep_pepper_features()
    assert f[0] == 1 and f[1:5].tolist() == [0, 0, 0, 0]
    assert f[5:17].tolist() == [1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]
    # Piece slots: [present, x, y, lowest attacker, lowest defender].
    assert piece_slot(f, 0) == pytest.approx([1, 4 / 7, 0, 0, 0])         # White king e1
    assert piece_slot(f, 1) == pytest.approx([1, 4 / 7, 1, 0, 0])         # Black king e8
    assert piece_slot(f, 2) == [0] * 5                                    # no White queen
    assert piece_slot(f, 3) == pytest.approx([1, 3 / 7, 4 / 7, 5, 0])     # Black queen d5: attacked by the rook
    assert piece_slot(f, 4) == pytest.approx([1, 3 / 7, 1 / 7, 9, 10])   # White rook d2: queen attacks, king defends
    assert piece_slot(f, 5) == [0] * 5                                    # second White rook slot
    assert f[17 + 5 * 6:177].sum() == 0                                   # nothing else
    # Sliding reach: White queen (none), Black queen N NE E SE S SW W NW, then the rooks N E S W.
    assert f[177:185].tolist() == [0] * 8
    assert f[185:193].tolist() == [3, 3, 4, 4, 3, 3, 3, 3]     # S: d4, d3 and the rook on d2
    assert f[193:197].tolist() == [3, 4, 1, 3]                 # rook d2: N stops on the queen (taking it)
    assert f[197:225].sum() == 0
    # Squares: [lowest attacker of the side to move (White), lowest of the other side].
    square = lambda name: f[225 + 2 * chess.parse_square(name):227 + 2 * chess.parse_square(name)].tolist()
    assert square("d5") == [5, 0]
    assert square("e2") == [5, 0]       # Rd2 and Ke1 (the rook is cheaper)
    assert square("d1") == [5, 0]       # the queen's file is blocked by the rook
    assert square("a2") == [5, 9]       # the rook along the rank, the queen down the diagonal
    assert square("e7") == [0, 10]      # only the Black king
    assert square("h8") == [0, 0]


def test_deep_pepper_squares_follow_the_side_to_move(game):
    white = game.new_state("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1").deep_pepper_features()
    black = game.new_state("4k3/8/8/3q4/8/8/3R4/4K3 b - - 0 1").deep_pepper_features()
    assert black[0] == 0
    assert np.array_equal(white[1:225], black[1:225])
    assert np.array_equal(white[225::2], black[226::2]) and np.array_equal(white[226::2], black[225::2])


def test_deep_pepper_castling_counts_and_slot_filling(game):
    f = game.new_state("r3k2r/8/8/8/8/8/8/QQQ1K2R w Kq - 0 1").deep_pepper_features()
    assert f[1:5].tolist() == [0, 1, 1, 0]          # WQ, WK, BQ, BK
    assert f[6] == 3 and f[7] == 1 and f[13] == 2   # three White queens, one White rook, two Black rooks
    assert piece_slot(f, 2)[:3] == pytest.approx([1, 0, 0])   # the White queen slot holds a1 (square order)
    assert piece_slot(f, 6)[:3] == pytest.approx([1, 0, 1])   # first Black rook a8
    assert piece_slot(f, 7)[:3] == pytest.approx([1, 1, 1])   # second Black rook h8
    assert f[177:185].tolist() == [7, 7, 0, 0, 0, 0, 0, 0]     # Qa1: N a2-a7 and takes a8; NE b2-g7 and takes h8


def test_deep_pepper_initial_position(game):
    f = game.new_initial_state().deep_pepper_features()
    assert f[:5].tolist() == [1, 1, 1, 1, 1]
    assert f[5:17].tolist() == [1, 1, 2, 2, 2, 8, 1, 1, 2, 2, 2, 8]
    assert f[17:177:5].sum() == 32                  # every slot filled
    assert f[177:225].sum() == 0                    # no slider can move
    assert piece_slot(f, 0) == pytest.approx([1, 4 / 7, 0, 0, 9])   # Ke1 defended by the queen
    assert piece_slot(f, 16) == pytest.approx([1, 0, 1 / 7, 0, 5])  # Pa2 defended by the rook
    e3 = chess.E3
    assert f[225 + 2 * e3:227 + 2 * e3].tolist() == [1, 0]          # pawns d2/f2 cover e3
    e6 = chess.E6
    assert f[225 + 2 * e6:227 + 2 * e6].tolist() == [0, 1]
