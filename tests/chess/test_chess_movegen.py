"""The compiled chess move generator (games/chess/kernels.py) against the published perft counts and python-chess.

Perft counts are the Chess Programming Wiki's (chessprogramming.org/Perft_Results); everything else is
compared with python-chess on the positions of seeded random games.
"""
from __future__ import annotations

import chess
import numpy as np
import pytest

from plyground.games.chess import kernels
from plyground.games.chess.game import ChessGame

#: name: (FEN, perft counts from depth 1 up), as published.
PUBLISHED = {
    "initial": (chess.STARTING_FEN, [20, 400, 8902, 197281]),
    "kiwipete": ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862, 4085603]),
    "position 3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624]),
    "position 4": ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467, 422333]),
    "position 4 mirrored": ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
                            [6, 264, 9467, 422333]),
    "position 5": ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379, 2103487]),
    "position 6": ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                   [46, 2079, 89890, 3894594]),
}

GAMES = 100
#: python-chess's perft (ChessGame.perft): the reference for the special positions
GAME = ChessGame()
MAX_PLIES = 120


@pytest.mark.parametrize("name", PUBLISHED)
def test_perft_matches_the_published_counts(name):
    fen, counts = PUBLISHED[name]
    pos = kernels.position_from_fen(fen)
    before = pos.copy()
    assert [kernels.perft(pos, depth) for depth in range(len(counts) + 1)] == [1] + counts
    assert np.array_equal(pos, before)       # perft plays in place and takes every move back


def test_position_from_fen():
    pos = kernels.position_from_fen(PUBLISHED["position 5"][0])
    assert [int(pos[i]) for i in (kernels.SIDE, kernels.CASTLING, kernels.EP, kernels.HALFMOVE, kernels.FULLMOVE)] \
        == [0, kernels.WHITE_OO | kernels.WHITE_OOO, kernels.NO_SQUARE, 1, 8]
    assert pos[kernels.HASH] == kernels.hash_position(pos)
    # An en-passant square no pawn can capture on is dropped: the position and its hash are those without it.
    assert np.array_equal(kernels.position_from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"),
                          kernels.position_from_fen("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"))
    assert kernels.position_from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1")[kernels.EP] == chess.E3


def test_move_codes_in_uci():
    pos = kernels.position_from_fen("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2")
    moves = kernels.uci_moves(pos)
    assert {"e1g1", "e1c1", "e5d6", "b7a8q", "b7a8r", "b7a8b", "b7a8n", "b7b8q"} <= set(moves)
    assert len(moves) == len(set(moves))


#: Positions built around one rule each, compared with python-chess move for move and by perft.
SPECIAL = [
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",        # en passant would uncover a rook on the rank: illegal
    "8/1k6/8/8/3Pp3/8/8/4K2B b - d3 0 1",     # the capturing pawn is pinned on a diagonal
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",      # en passant takes the pawn that gives check
    "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1",      # O-O through an attacked square, O-O-O legal
    "1r2k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",   # O-O into check; O-O-O with only b1 attacked
    "4k3/8/8/8/8/8/8/R3K1rR w KQ - 0 1",      # castling out of check
    "4r1k1/8/8/8/8/3n4/8/3RK3 w - - 0 1",    # double check: only the king moves
    "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1",       # promotions, capturing and not, all four pieces
]


@pytest.mark.parametrize("fen", SPECIAL)
def test_special_positions_agree_with_python_chess(fen):
    board = chess.Board(fen)
    pos = kernels.position_from_fen(fen)
    assert sorted(kernels.uci_moves(pos)) == sorted(move.uci() for move in board.legal_moves)
    assert kernels.in_check(pos) == board.is_check()
    assert [kernels.perft(pos, depth) for depth in (2, 3)] == [GAME.perft(GAME.new_state(fen), depth) for depth in (2, 3)]


def test_random_games_agree_with_python_chess():
    """At every position of GAMES seeded random games: the same legal moves and check status as
    python-chess; every legal move's make keeps the hash equal to one computed from scratch and its
    unmake restores the array exactly; the move played gives the array that python-chess's board after
    it converts to (the position is carried along the game by make_move alone)."""
    rng = np.random.default_rng(2024)
    out = np.empty(kernels.MAX_MOVES, dtype=np.int64)
    undo = np.empty((1, kernels.UNDO_SIZE), dtype=np.uint64)
    seen = dict.fromkeys(["positions", "in check", "mate", "castling", "en passant", "under-promotion"], 0)
    for _ in range(GAMES):
        board = chess.Board()
        pos = kernels.position_from_board(board)
        for _ in range(MAX_PLIES):
            codes = out[:kernels.gen_legal(pos, out)].copy()
            by_uci = {kernels.move_to_uci(code): code for code in codes}
            legal = sorted(move.uci() for move in board.legal_moves)
            assert sorted(by_uci) == legal and len(by_uci) == len(codes), board.fen()
            assert kernels.in_check(pos) == board.is_check(), board.fen()
            before = pos.tobytes()
            for code in codes:
                kernels.make_move(pos, code, undo, 0)
                assert pos[kernels.HASH] == kernels.hash_position(pos), (board.fen(), kernels.move_to_uci(code))
                kernels.unmake_move(pos, code, undo, 0)
                assert pos.tobytes() == before, (board.fen(), kernels.move_to_uci(code))

            flags = codes >> 15
            promotions = (codes >> 12) & 7
            seen["positions"] += 1
            seen["in check"] += board.is_check()
            seen["mate"] += not legal and board.is_check()
            seen["castling"] += int(np.sum(flags == kernels.CASTLE))
            seen["en passant"] += int(np.sum(flags == kernels.EN_PASSANT))
            seen["under-promotion"] += int(np.sum((promotions != 0) & (promotions != kernels.QUEEN)))
            if not legal or board.halfmove_clock >= 100:
                break
            uci = legal[rng.integers(len(legal))]
            kernels.make_move(pos, by_uci[uci], undo, 0)
            board.push_uci(uci)
            assert np.array_equal(pos, kernels.position_from_board(board)), (board.fen(), uci)
    # The games reach every kind of special move, so the comparisons above covered them.
    assert all(count > 0 for count in seen.values()), seen
