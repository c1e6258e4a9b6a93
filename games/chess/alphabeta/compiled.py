"""Chess's alpha-beta: the rules the one compiled search (:mod:`plyground.negamax.core`) asks of a chess
position (the bitboard kernels of :mod:`..kernels`), and the linear evaluation of :mod:`.features`.

What chess adds to the shared search: a quiescence search of captures and
queen promotions with "stand pat" (the side to move may decline every
capture), every evasion when in check (the check extension), null-move
pruning (not without pieces: zugzwang), late-move reductions of quiet moves,
principal-variation search, cutoffs from table entries searched at least as
deep, captures ordered by most valuable victim and least valuable attacker,
and the draw rules: repetition, the fifty-move rule (as the game's options
set it) and insufficient material.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.negamax import core
from plyground.negamax.bounds import INF, MATE, MATE_BOUND
from plyground.negamax.core import (C_NODES, C_QNODES, C_SELDEPTH, C_STOPPED, P_KEY_BASE, P_NO_PROGRESS,
                                    P_NODE_LIMIT, P_NULL_MOVE, P_ORDERING, P_PVS, P_QUIESCENCE, P_REDUCTIONS,
                                    P_REPETITION, P_USE_TT, UNKNOWN)
from plyground.negamax.tables import SearchTables

from ..kernels import (BIT, BLACK_OCC, EN_PASSANT, EP, HALFMOVE, HASH, MAX_MOVES, NO_PIECE, NO_SQUARE, PAWN, POS_SIZE,
                       QUEEN, SIDE, UNDO_SIZE, ZOBRIST_BLACK, ZOBRIST_EP_FILE, gen_legal, in_check, make_move)
from .features import MAX_ENTRIES, evaluate_with

MAX_PLY = 128
N_PARAMS = core.P_GAME

#: Most valuable victim, least valuable attacker: victim and attacker values by piece type.
_VICTIM = np.array([100, 300, 310, 500, 900, 0], dtype=np.int64)


@njit(cache=True, inline="always")
def _piece_type(pos, first, bit):
    for t in range(6):
        if pos[first + t] & bit:
            return t
    return NO_PIECE


@njit(cache=True, inline="always")
def _insufficient(pos):
    """No pawn, rook or queen, and at most one minor piece on the board: no one can mate."""
    if pos[0] | pos[3] | pos[4] | pos[6] | pos[9] | pos[10]:
        return False
    minors = pos[1] | pos[2] | pos[7] | pos[8]
    return (minors & (minors - np.uint64(1))) == 0


@njit(cache=True, inline="always")
def _has_pieces(pos, side):
    """Whether ``side`` has a piece other than pawns and king (null moves are unsafe without: zugzwang)."""
    b = 6 * side
    return (pos[b + 1] | pos[b + 2] | pos[b + 3] | pos[b + 4]) != 0


@njit(cache=True, inline="always")
def _make_null(child):
    """Pass: the other side to move, no en-passant square."""
    h = child[HASH]
    ep = np.int64(child[EP])
    if ep != NO_SQUARE:
        h ^= ZOBRIST_EP_FILE[ep & 7]
        child[EP] = NO_SQUARE
    child[SIDE] = np.uint64(1) - child[SIDE]
    child[HALFMOVE] += np.uint64(1)
    child[HASH] = h ^ ZOBRIST_BLACK



@njit(cache=True, inline="always")
def _generate(pos, moves, G):
    return gen_legal(pos, moves)


@njit(cache=True, inline="always")
def _status(pos, n, ply, P, G):
    """No move is mate or stalemate -- first, as the rules have it: a mate given by the move that reaches the
    fifty-move limit wins (FIDE 9.3, and the game's own State); below the root, the fifty-move rule (as set) and
    insufficient material draw."""
    if n == 0:
        return True, (-MATE + ply if in_check(pos) else 0.0)
    if ply > 0 and (np.int64(pos[HALFMOVE]) >= P[P_NO_PROGRESS] or _insufficient(pos)):
        return True, 0.0
    return False, 0.0


@njit(cache=True, inline="always")
def _no_progress(pos):
    return np.int64(pos[HALFMOVE])


@njit(cache=True, inline="always")
def _known(pos, P, G):
    return UNKNOWN, 0


@njit(cache=True, inline="always")
def _tactical(pos, m):
    """A capture (en passant included) or a promotion."""
    them_occ = pos[BLACK_OCC - np.int64(pos[SIDE])]
    return (them_occ & BIT[(m >> 6) & 63]) != 0 or (m >> 15) == EN_PASSANT or ((m >> 12) & 7) != 0


@njit(cache=True, inline="always")
def _quiescence_move(pos, m):
    """Captures (en passant too) and queen promotions: under-promotions wait for the full search."""
    promotion = (m >> 12) & 7
    return promotion == QUEEN or (promotion == 0 and _tactical(pos, m))


@njit(cache=True, inline="always")
def _tactical_score(pos, m):
    """Most valuable victim first, then least valuable attacker; queen promotions with the captures,
    under-promotions last of all."""
    us = np.int64(pos[SIDE])
    b6 = 6 * us
    victim = PAWN if (m >> 15) == EN_PASSANT else _piece_type(pos, 6 - b6, BIT[(m >> 6) & 63])
    attacker = _piece_type(pos, b6, BIT[m & 63])
    s = (1 << 42) + (_VICTIM[victim] if victim != NO_PIECE else 0) * 16 - attacker
    if ((m >> 12) & 7) == QUEEN:
        s += 900 * 16
    elif ((m >> 12) & 7) != 0:
        s = -(1 << 20)
    return s


@njit(cache=True, inline="always")
def _history_index(m):
    return m & 63, (m >> 6) & 63


@njit(cache=True, inline="always")
def _play(pos, m, key, ply, G):
    make_move(pos, m, G[0], ply)
    return pos[HASH]


@njit(cache=True, inline="always")
def _null_ok(pos):
    return _has_pieces(pos, np.int64(pos[SIDE]))


@njit(cache=True, inline="always")
def _play_null(pos, key, G):
    _make_null(pos)
    return pos[HASH]


RULES = core.Rules(generate=_generate, status=_status, no_progress=_no_progress, known=_known, tactical=_tactical,
                   quiescence_move=_quiescence_move, tactical_score=_tactical_score, history_index=_history_index,
                   play=_play, stand_pat=True, in_check=in_check, pvs=True, null_move=True, null_ok=_null_ok,
                   play_null=_play_null)


@njit(cache=True, inline="always")
def _linear_value(pos, ply, E):
    return evaluate_with(pos, E[0], E[1], E[2])


#: The linear evaluation of :mod:`.features`; its arrays are :func:`linear_arrays`.
LINEAR = core.stateless(_linear_value)


def linear_arrays(weights) -> tuple:
    """The linear evaluation's arrays: the weights and its scratch space."""
    return (np.ascontiguousarray(weights, dtype=np.float64), np.zeros(MAX_ENTRIES, dtype=np.int64),
            np.zeros(MAX_ENTRIES, dtype=np.float64))


def search(evaluation: core.Evaluation = LINEAR) -> core.Search:
    """The compiled search of chess with ``evaluation``."""
    return core.compile_search(RULES, evaluation)


class Workspace(SearchTables):
    """The arrays one search needs, allocated once and reused from move to move; its game array is the
    undo stack of the kernels' ``make_move``."""

    def __init__(self, tt_entries: int = 1 << 16, history: int = 256) -> None:
        super().__init__(tt_entries, np.uint64, MAX_PLY, (64, 64), params=N_PARAMS, counters=core.N_COUNTERS,
                         frame=core.N_FRAME, pos_size=POS_SIZE, pos_dtype=np.uint64, max_moves=MAX_MOVES,
                         history=history, game_arrays=(np.zeros((MAX_PLY + 1, UNDO_SIZE), dtype=np.uint64),))
        P = self.P
        P[P_USE_TT] = P[P_ORDERING] = P[P_QUIESCENCE] = P[P_NULL_MOVE] = P[P_REDUCTIONS] = P[P_PVS] = 1
        P[P_NODE_LIMIT] = np.iinfo(np.int64).max
        P[P_NO_PROGRESS] = 100
        P[P_REPETITION] = 1


def leaf_params(workspace: Workspace) -> None:
    """Set a workspace up for training searches: no table, null move, reductions or repetition; no node
    limit.  Move ordering and principal-variation search stay (they change only the speed: the value is
    the minimax value)."""
    P = workspace.P
    P[:] = 0
    P[P_ORDERING] = 1
    P[P_QUIESCENCE] = 1
    P[P_PVS] = 1
    P[P_NO_PROGRESS] = 100
    P[P_NODE_LIMIT] = np.iinfo(np.int64).max
    P[P_KEY_BASE] = 0


__all__ = ["MATE", "MATE_BOUND", "INF", "MAX_PLY", "RULES", "LINEAR", "linear_arrays", "search", "Workspace",
           "leaf_params", "P_USE_TT", "P_ORDERING", "P_QUIESCENCE", "P_NULL_MOVE", "P_REDUCTIONS", "P_PVS",
           "P_NO_PROGRESS", "P_REPETITION", "P_KEY_BASE", "P_NODE_LIMIT", "C_NODES", "C_STOPPED", "C_SELDEPTH",
           "C_QNODES"]
