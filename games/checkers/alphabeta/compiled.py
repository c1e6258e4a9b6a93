"""Checkers' alpha-beta: the rules the one compiled search (:mod:`plyground.negamax.core`) asks of a
checkers position, and the linear evaluation of :mod:`.features` it searches with.

What checkers adds to the shared search: the quiescence search has no "stand
pat" (a capture is compulsory, so a position with a capture to make is
searched until it is quiet); below the root, a position the endgame database
holds (:mod:`plyground.games.checkers.endgame.oracle`, the workspace's game
arrays) is not searched: its exact result is its value, a win or loss in so
many plies scored like a mate that far away.  There is no null move (zugzwang
is common in checkers).

Two ways to search (the ``alphabeta`` player's ``search`` option,
plyground.negamax.deepening's SEARCH_MODES):

- **exact** (a workspace's default here; self-play and training searches): the
  search is a pure function of (position, depth) when repetition and the
  40-move counter play no part.  No principal-variation search, no reductions,
  and a table entry cuts the search off only when it was stored for the *same*
  remaining depth (entries from other depths still order moves); the root
  never takes a cutoff, so it always has a principal variation.  So the value
  does not depend on the table or the move order; the tests check this against
  a plain minimax.
- **reduced** (the player's default on checkers, as matches at equal time
  showed: docs/nnue.md): principal-variation search, late quiet moves searched
  less deep, table cutoffs from deeper searches, aspiration windows.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.negamax import core
from plyground.negamax.bounds import INF, MATE, MATE_BOUND
from plyground.negamax.core import (C_KNOWN, C_NODES, C_SELDEPTH, C_STOPPED, KNOWN_DRAW, KNOWN_LOSS, KNOWN_WIN,
                                    P_GAME, P_KEY_BASE, P_NO_PROGRESS, P_NODE_LIMIT, P_ORACLE, P_ORDERING,
                                    P_QUIESCENCE, P_REPETITION, P_TT_SAME_DEPTH, P_USE_TT, UNKNOWN)
from plyground.negamax.tables import SearchTables

from ..bits import popcount
from ..endgame.oracle import known_outcome, no_tables
from ..kernels import (MAX_MOVES, NO_PROGRESS, POS_SIZE, apply_move, apply_move_hashed, gen_moves, hash_position,
                       outcome_with)
from .features import evaluate, evaluate_boards

MAX_PLY = 192
#: The game's own parameter: the ply cap (a draw when the game reaches it; 0: none).  The shared P_ORACLE holds
#: the most pieces of the positions the endgame database holds (0: no database, never probed).
P_PLY_CAP = P_GAME
N_PARAMS = P_GAME + 1
#: Endgame-database positions scored exactly (the shared search's count of an oracle's answers).
C_DB_HITS = C_KNOWN


@njit(cache=True, inline="always")
def _generate(pos, moves, G):
    return gen_moves(pos, moves)


@njit(cache=True, inline="always")
def _status(pos, n, ply, P, G):
    result = outcome_with(pos, n, P[P_NO_PROGRESS], P[P_PLY_CAP])
    if result < 0:
        return False, 0.0
    return True, (0.0 if result == 2 else -MATE + ply)


@njit(cache=True, inline="always")
def _no_progress(pos):
    return pos[NO_PROGRESS]


@njit(cache=True, inline="always")
def _known(pos, P, G):
    o, plies = known_outcome(pos, G[0], G[1], G[2], G[3], G[4])
    if o < 0:
        return UNKNOWN, 0
    if o == 2:
        return KNOWN_DRAW, plies
    return (KNOWN_WIN if o == pos[4] else KNOWN_LOSS), plies


@njit(cache=True, inline="always")
def _capture(pos, m):
    return (m >> 10) != 0


@njit(cache=True, inline="always")
def _capture_score(pos, m):
    """Captures by the pieces they take, kings counting again."""
    taken = m >> 10
    opp_kings = pos[3] if pos[4] == 0 else pos[1]
    return (popcount(taken) << 20) + (popcount(taken & opp_kings) << 10)


@njit(cache=True, inline="always")
def _history_index(m):
    return m & 31, (m >> 5) & 31


@njit(cache=True, inline="always")
def _play(pos, m, key, ply, G):
    return apply_move_hashed(pos, m, key)


#: No check and no null move (zugzwang is common).  Principal-variation search and late-move reductions are
#: compiled in but off unless asked for (P_PVS, P_REDUCTIONS: the player's ``search`` option): a full window
#: for every move keeps the value a function of position and depth.
RULES = core.Rules(generate=_generate, status=_status, no_progress=_no_progress, known=_known, tactical=_capture,
                   quiescence_move=_capture, tactical_score=_capture_score, history_index=_history_index,
                   play=_play, stand_pat=False, pvs=True)


@njit(cache=True, inline="always")
def _linear_value(pos, ply, E):
    return evaluate(pos, E[0])


#: The linear evaluation of :mod:`.features`; its arrays are :func:`linear_arrays`.
LINEAR = core.stateless(_linear_value)


def linear_arrays(weights) -> tuple:
    """The linear evaluation's arrays: the weights."""
    return (np.ascontiguousarray(weights, dtype=np.float64),)


def search(evaluation: core.Evaluation = LINEAR) -> core.Search:
    """The compiled search of checkers with ``evaluation``."""
    return core.compile_search(RULES, evaluation)


class Workspace(SearchTables):
    """The arrays one search needs, allocated once and reused from move to move; its game arrays are the
    endgame database's tables (:mod:`plyground.games.checkers.endgame.oracle`), none by default."""

    def __init__(self, tt_entries: int = 1 << 16, history: int = 256) -> None:
        super().__init__(tt_entries, np.int64, MAX_PLY, (32, 32), params=N_PARAMS, counters=core.N_COUNTERS,
                         frame=core.N_FRAME, pos_size=POS_SIZE, pos_dtype=np.int64, max_moves=MAX_MOVES,
                         history=history, game_arrays=no_tables())
        self.P[P_TT_SAME_DEPTH] = 1

    def attach_endgame(self, oracle) -> None:
        """Score the positions ``oracle``'s database holds exactly (None: no database)."""
        self.game_arrays = no_tables() if oracle is None else oracle.tables
        self.P[P_ORACLE] = self.game_arrays[0][0]


def leaf_params(workspace: Workspace, quiescence: bool = True, no_progress_limit: int = 80) -> None:
    """Set a workspace up for training searches: no table, no repetition, no node limit."""
    P = workspace.P
    P[:] = 0
    P[P_NO_PROGRESS] = no_progress_limit
    P[P_ORDERING] = 1
    P[P_QUIESCENCE] = int(quiescence)
    P[P_NODE_LIMIT] = np.iinfo(np.int64).max
    P[P_KEY_BASE] = 0
    P[P_TT_SAME_DEPTH] = 1


__all__ = ["MATE", "MATE_BOUND", "INF", "MAX_PLY", "RULES", "LINEAR", "linear_arrays", "search", "Workspace",
           "leaf_params", "hash_position", "evaluate", "evaluate_boards", "P_PLY_CAP", "C_DB_HITS", "P_USE_TT", "P_ORDERING",
           "P_QUIESCENCE", "P_REPETITION", "P_NO_PROGRESS", "P_KEY_BASE", "P_NODE_LIMIT", "C_NODES", "C_STOPPED",
           "C_SELDEPTH", "apply_move"]
