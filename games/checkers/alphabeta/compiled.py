"""Alpha-beta search compiled with numba over the checkers kernels (docs/kernels.md).

Negamax with alpha-beta pruning (fail-soft), a capture quiescence search, a
transposition table, move ordering (TT move, captures by size, two killer
moves per ply, the history heuristic), repetition detection along the path
and the game's history, and a node limit the Python side uses to stop a
search on time.  The evaluation is the linear one of :mod:`.features`, with
its weights passed in, so the material and the learned evaluations run the
same code.  Below the root, a position the endgame database holds (``egp``
.. ``egd``: :mod:`plyground.games.checkers.endgame.oracle`) is not searched:
its exact result is its value, a win or loss in so many plies scored like a
mate that far away.

Every function is compiled with ``cache=True``, so a new process pays no
compile time; that is why the search is a loop over an explicit stack of
frames rather than a recursive function (numba cannot load a cached recursive
function: the next process crashes).

Design choices that keep the search a pure function of (position, depth)
when repetition and the 40-move counter play no part:

* a transposition-table entry cuts the search off only when it was stored for
  the *same* remaining depth; entries from other depths still order moves;
* the root never takes a cutoff, so it always has a principal variation;
* the quiescence search has no "stand pat": in checkers a capture is compulsory,
  so a position with a capture to make is searched until it is quiet.

So the value does not depend on the table or the move order; the tests check
this against a plain minimax.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from plyground.negamax.bounds import INF, MATE, MATE_BOUND
from plyground.negamax.tables import SearchTables, extend_pv, next_best, remember_cutoff, tt_probe, tt_store

from ..bits import popcount
from ..endgame.oracle import known_outcome, no_tables
from ..kernels import (MAX_MOVES, NO_PROGRESS, POS_SIZE, apply_move, apply_move_hashed, gen_moves, hash_position,
                       outcome_with)
from .features import evaluate, evaluate_boards

MAX_PLY = 192


# Parameter array P (int64)
P_NO_PROGRESS, P_PLY_CAP, P_USE_TT, P_ORDERING, P_QUIESCENCE, P_REPETITION, P_NODE_LIMIT, P_KEY_BASE = range(8)
N_PARAMS = 8
# Counter array C (int64)
C_NODES, C_STOPPED, C_SELDEPTH, C_TT_CUTS, C_DB_HITS = range(5)
N_COUNTERS = 5


_ENTER, _NEXT, _LEAVE = 0, 1, 2


@njit(cache=True, nogil=True)
def negamax(depth, w, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
            ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd):
    """Value of ``stack[0]`` for its side to move, searched ``depth`` plies plus quiescence.

    Written as a loop over an explicit stack of frames, because numba's
    on-disk cache cannot load recursive functions (a cached recursive search
    crashes the next process).  ``keys[P[P_KEY_BASE]]`` must hold the
    position's Zobrist key and the entries before it the keys of the game so
    far (for repetition).  ``pv[0, :pvlen[0]]`` receives the principal variation.

    Frames: ``F[ply]`` (int64) = depth, move count, next move index, captures?,
    table slot + 1 (0: none), best move; ``FV[ply]`` (float64) = alpha, beta,
    best value, alpha at entry.
    """
    base = P[P_KEY_BASE]
    ordering = P[P_ORDERING] != 0
    ply = 0
    F[0, 0] = depth
    FV[0, 0] = -INF
    FV[0, 1] = INF
    phase = _ENTER
    ret = 0.0
    while True:
        if phase == _ENTER:
            phase = _LEAVE                    # unless the node needs searching (below)
            pvlen[ply] = ply
            C[C_NODES] += 1
            if ply > C[C_SELDEPTH]:
                C[C_SELDEPTH] = ply
            d = F[ply, 0]
            alpha = FV[ply, 0]
            beta = FV[ply, 1]
            pos = stack[ply]
            mv = moves[ply]
            key = keys[base + ply]
            if C[C_NODES] > P[P_NODE_LIMIT] or S[0] != 0:
                C[C_STOPPED] = 1
                ret = 0.0
                continue
            n = gen_moves(pos, mv)
            result = outcome_with(pos, n, P[P_NO_PROGRESS], P[P_PLY_CAP])
            if result >= 0:
                ret = 0.0 if result == 2 else -MATE + ply
                continue
            if ply > 0 and P[P_REPETITION] != 0:
                # Positions since the last capture or man move, same side to move: a repeat is a draw.
                oldest = base + ply - pos[NO_PROGRESS]
                j = base + ply - 4
                repeated = False
                while j >= oldest and j >= 0:
                    if keys[j] == key:
                        repeated = True
                        break
                    j -= 2
                if repeated:
                    ret = 0.0
                    continue
            if ply > 0 and egp[0] > 0:
                # The endgame database knows this position: its exact value, the distance as a mate's.
                o, plies = known_outcome(pos, egp, ego, egs, egr, egd)
                if o >= 0:
                    C[C_DB_HITS] += 1
                    if o == 2:
                        # A draw whatever the play; a hundredth of the evaluation still tells the drawn
                        # positions apart (where the opponent may yet go wrong) and keeps them near 0.
                        ret = 0.01 * evaluate(pos, w)
                    else:
                        ret = MATE - ply - plies if o == pos[4] else -MATE + ply + plies
                    continue
            captures = (mv[0] >> 10) != 0
            if ply >= MAX_PLY - 1 or (d <= 0 and (not captures or P[P_QUIESCENCE] == 0)):
                ret = evaluate(pos, w)
                continue
            slot = -1
            tt_move = -1
            if P[P_USE_TT] != 0 and d > 0:
                slot = key & (ttk.shape[0] - 1)
                tt_move, settled, v = tt_probe(ply, d, alpha, beta, key, slot, True, ttk, ttm, ttv, ttd, ttf)
                if settled:
                    C[C_TT_CUTS] += 1
                    ret = v
                    continue
            if ordering:
                sc = order[ply]
                k1 = killers[ply, 0]
                k2 = killers[ply, 1]
                opp_kings = pos[3] if pos[4] == 0 else pos[1]
                for i in range(n):
                    m = mv[i]
                    if m == tt_move:
                        s = 1 << 50
                    elif captures:
                        taken = m >> 10
                        s = (popcount(taken) << 20) + (popcount(taken & opp_kings) << 10)
                    elif m == k1:
                        s = 1 << 40
                    elif m == k2:
                        s = (1 << 40) - 1
                    else:
                        s = hist[m & 31, (m >> 5) & 31]
                    sc[i] = s
            F[ply, 1] = n
            F[ply, 2] = 0
            F[ply, 3] = 1 if captures else 0
            F[ply, 4] = slot + 1
            F[ply, 5] = -1
            FV[ply, 2] = -INF
            FV[ply, 3] = alpha
            phase = _NEXT

        elif phase == _NEXT:
            i = F[ply, 2]
            n = F[ply, 1]
            if i >= n:
                best = FV[ply, 2]
                if F[ply, 4] > 0:
                    tt_store(ply, F[ply, 0], best, F[ply, 5], FV[ply, 3], FV[ply, 1], keys[base + ply],
                             F[ply, 4] - 1, ttk, ttm, ttv, ttd, ttf)
                ret = best
                phase = _LEAVE
                continue
            mv = moves[ply]
            if ordering:
                next_best(mv, order[ply], i, n)
            F[ply, 2] = i + 1
            pos = stack[ply]
            child = stack[ply + 1]
            for k in range(POS_SIZE):
                child[k] = pos[k]
            keys[base + ply + 1] = apply_move_hashed(child, mv[i], keys[base + ply])
            F[ply + 1, 0] = F[ply, 0] - 1
            FV[ply + 1, 0] = -FV[ply, 1]
            FV[ply + 1, 1] = -FV[ply, 0]
            ply += 1
            phase = _ENTER

        else:  # _LEAVE: ``ret`` is the value of the node at ``ply``; hand it to the parent
            if ply == 0:
                return ret
            ply -= 1
            if C[C_STOPPED] != 0:
                continue                      # unwind without touching anything
            v = -ret
            m = moves[ply, F[ply, 2] - 1]
            phase = _NEXT
            if v > FV[ply, 2]:
                FV[ply, 2] = v
                F[ply, 5] = m
                if v > FV[ply, 0]:
                    FV[ply, 0] = v
                    extend_pv(pv, pvlen, ply, m)
                    if v >= FV[ply, 1]:
                        d = F[ply, 0]
                        if ordering and F[ply, 3] == 0 and d > 0:
                            remember_cutoff(killers, hist, ply, m, m & 31, (m >> 5) & 31, d)
                        if F[ply, 4] > 0:
                            tt_store(ply, d, v, m, FV[ply, 3], FV[ply, 1], keys[base + ply], F[ply, 4] - 1,
                                     ttk, ttm, ttv, ttd, ttf)
                        ret = v
                        phase = _LEAVE


class Workspace(SearchTables):
    """The arrays one search needs, allocated once and reused from move to move."""

    def __init__(self, tt_entries: int = 1 << 16, history: int = 256) -> None:
        super().__init__(tt_entries, np.int64, MAX_PLY, (32, 32), params=N_PARAMS, counters=N_COUNTERS, frame=6,
                         pos_size=POS_SIZE, pos_dtype=np.int64, max_moves=MAX_MOVES, history=history)
        #: The endgame database's tables (:mod:`plyground.games.checkers.endgame.oracle`); none by default.
        self.endgame = no_tables()

    def attach_endgame(self, oracle) -> None:
        """Score the positions ``oracle``'s database holds exactly (None: no database)."""
        self.endgame = no_tables() if oracle is None else oracle.tables

    def arrays(self):
        return (self.P, self.C, self.stop, self.F, self.FV, self.stack, self.keys, self.moves, self.order, self.pv, self.pvlen,
                self.killers, self.hist, self.ttk, self.ttm, self.ttv, self.ttd, self.ttf, *self.endgame)


@njit(cache=True, nogil=True)
def search_root(pos, depth, w, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
                ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd):
    """One full-window search of ``pos`` (the root key must already be at ``keys[P[P_KEY_BASE]]``)."""
    for k in range(POS_SIZE):
        stack[0, k] = pos[k]
    C[:] = 0
    return negamax(depth, w, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
                   ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd)


# --------------------------------------------------------------- training leaves

@njit(cache=True)
def _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, keys, moves, order, pv,
                     pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd, out_value, record,
                     out_boards, out_terminal):
    """compute_leaves (``record`` true) and move_values (false: ``out_boards``, ``out_terminal`` unused)."""
    leaf = np.empty(POS_SIZE, dtype=np.int64)
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    nodes = 0
    for r in range(first, last):
        for j in range(offsets[r], offsets[r + 1]):
            for k in range(POS_SIZE):
                stack[0, k] = roots[r, k]
            apply_move(stack[0], codes[j])
            if record:
                for k in range(POS_SIZE):
                    leaf[k] = stack[0, k]
            keys[P[P_KEY_BASE]] = 0
            C[:] = 0
            v = negamax(depth, w, P, C, S, F, FV, stack, keys, moves, order, pv, pvlen, killers, hist,
                        ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd)
            nodes += C[C_NODES]
            out_value[j] = -v
            if record:
                for k in range(pvlen[0]):
                    apply_move(leaf, pv[0, k])
                for k in range(4):
                    out_boards[j, k] = leaf[k]
                n = gen_moves(leaf, buf)
                out_terminal[j] = 1 if outcome_with(leaf, n, P[P_NO_PROGRESS], P[P_PLY_CAP]) >= 0 else 0
    return nodes


@njit(cache=True)
def compute_leaves(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, keys, moves, order, pv,
                   pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd, out_boards, out_value,
                   out_terminal):
    """For each move ``codes[j]`` of the roots ``first..last-1``: search the child ``depth`` plies
    (plus quiescence) and record the end of its principal variation.

    ``out_boards[j]`` gets the leaf's four bitboards, ``out_value[j]`` the value of the
    move for the root's side to move, ``out_terminal[j]`` 1 when the leaf is a finished
    game (its value is then a constant, not ``w . features``).  Repetition must be off
    (``P[P_REPETITION] = 0``), the table is not used, so each search depends only on the
    child position.
    """
    return _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, keys, moves, order,
                            pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd, out_value, True,
                            out_boards, out_terminal)


@njit(cache=True)
def move_values(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, keys, moves, order, pv,
                pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd, out_value):
    """Value of every move of the roots ``first..last-1`` for the root's side (a ``depth``-ply
    search from each child plus quiescence), without recording leaves."""
    return _search_children(roots, offsets, codes, first, last, depth, w, P, C, S, F, FV, stack, keys, moves, order,
                            pv, pvlen, killers, hist, ttk, ttm, ttv, ttd, ttf, egp, ego, egs, egr, egd, out_value,
                            False,
                            np.empty((0, 4), np.int64), np.empty(0, np.int8))


def leaf_params(workspace: Workspace, quiescence: bool = True, no_progress_limit: int = 80) -> None:
    """Set a workspace up for training searches: no table, no repetition, no node limit."""
    P = workspace.P
    P[:] = 0
    P[P_NO_PROGRESS] = no_progress_limit
    P[P_ORDERING] = 1
    P[P_QUIESCENCE] = int(quiescence)
    P[P_NODE_LIMIT] = np.iinfo(np.int64).max
    P[P_KEY_BASE] = 0


__all__ = ["MATE", "MATE_BOUND", "INF", "MAX_PLY", "Workspace", "negamax", "search_root", "compute_leaves",
           "move_values", "leaf_params", "hash_position", "evaluate", "evaluate_boards"]
