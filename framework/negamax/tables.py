"""The transposition table, killer moves and history scores of the compiled alpha-beta search
(:mod:`.core`), and the workspace that holds them with the rest of its arrays.

A table entry is five parallel arrays indexed by ``key & (size - 1)``: the
position key, the best move, the value (mate values stored relative to the
node, so they mean the same at any ply), the remaining depth it was searched
to, and whether the value is exact or a lower or upper bound.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import EXACT, LOWER, MATE_BOUND, UPPER


@njit(cache=True, inline="always")
def tt_store(ply, depth, best, best_move, alpha0, beta, key, slot, ttk, ttm, ttv, ttd, ttf):
    """Store a node's result: ``best`` found with the window (``alpha0``, ``beta``) at ``depth``."""
    stored = best
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    ttk[slot] = key
    ttm[slot] = best_move
    ttv[slot] = stored
    ttd[slot] = depth
    ttf[slot] = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)


@njit(cache=True, inline="always")
def tt_probe(ply, depth, alpha, beta, key, slot, same_depth, ttk, ttm, ttv, ttd, ttf):
    """What the table says of a node: (its stored best move, -1 if none; whether the stored value settles the
    node; that value, mate distances made relative to this ``ply``).  A value settles a node below the root
    when it was searched to ``depth`` (exactly, with ``same_depth``: checkers keeps its search a function of
    position and depth; else at least as deep) and is exact or a bound outside the window (``alpha``, ``beta``)."""
    if ttk[slot] != key:
        return -1, False, 0.0
    move = ttm[slot]
    if ply == 0 or (ttd[slot] != depth if same_depth else ttd[slot] < depth):
        return move, False, 0.0
    v = ttv[slot]
    if v > MATE_BOUND:
        v -= ply
    elif v < -MATE_BOUND:
        v += ply
    flag = ttf[slot]
    if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
        return move, True, v
    return move, False, 0.0


@njit(cache=True, inline="always")
def next_best(moves, scores, i, n):
    """Bring the best-scored of ``moves[i:n]`` to ``i`` (its score with it): one step of selection sort, so a
    node that is cut off early never sorts the moves it does not search."""
    top = i
    for j in range(i + 1, n):
        if scores[j] > scores[top]:
            top = j
    if top != i:
        tmp = moves[i]
        moves[i] = moves[top]
        moves[top] = tmp
        tmp = scores[i]
        scores[i] = scores[top]
        scores[top] = tmp


@njit(cache=True, inline="always")
def extend_pv(pv, pvlen, ply, move):
    """The principal variation at ``ply`` becomes ``move`` followed by the child's."""
    pv[ply, ply] = move
    for k in range(ply + 1, pvlen[ply + 1]):
        pv[ply, k] = pv[ply + 1, k]
    pvlen[ply] = max(pvlen[ply + 1], ply + 1)


@njit(cache=True, inline="always")
def remember_cutoff(killers, hist, ply, move, frm, to, depth):
    """A quiet ``move`` (from ``frm`` to ``to``) refuted the node at ``ply``, ``depth`` plies deep: it becomes the
    ply's first killer and its history score grows by ``depth`` squared."""
    if killers[ply, 0] != move:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    hist[frm, to] += depth * depth


@njit(cache=True)
def age_history(hist, killers):
    """Between moves: halve the history scores and forget the killers."""
    flat = hist.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] //= 2
    killers[:, :] = -1


class SearchTables:
    """The arrays one compiled search needs, allocated once and reused from move to move: its table
    (``tt_entries``, a power of two, keys of ``key_dtype``), killers (two per ply up to ``max_ply``) and
    history scores (``history_shape``); and, per ply, the frames (``frame`` int64s and 4 float64s), the
    positions (``pos_size`` of ``pos_dtype``), the moves and their order scores (``max_moves``), the
    principal variations; the keys of the game's ``history`` positions and the line's; the parameters
    ``P`` and counters ``C``; the stop flag ``stop`` (``S[0]``, read at every node: an engine replaces
    it by its player's ``stop_signal.flags``, and the search runs without the GIL); and the game's own
    arrays ``game_arrays`` (a tuple), in the order :mod:`.core`'s functions take them (:meth:`arrays`)."""

    def __init__(self, tt_entries: int, key_dtype, max_ply: int, history_shape: tuple[int, int], *, params: int,
                 frame: int, pos_size: int, pos_dtype, max_moves: int, history: int, counters: int,
                 game_arrays: tuple = ()) -> None:
        if tt_entries & (tt_entries - 1):
            raise ValueError("the transposition table size must be a power of two")
        self.P = np.zeros(params, dtype=np.int64)
        self.C = np.zeros(counters, dtype=np.int64)
        self.stop = np.zeros(1, dtype=np.int64)
        self.F = np.zeros((max_ply + 1, frame), dtype=np.int64)
        self.FV = np.zeros((max_ply + 1, 4), dtype=np.float64)
        self.stack = np.zeros((max_ply + 1, pos_size), dtype=pos_dtype)
        self.keys = np.zeros(history + max_ply + 1, dtype=key_dtype)
        self.moves = np.zeros((max_ply + 1, max_moves), dtype=np.int64)
        self.order = np.zeros((max_ply + 1, max_moves), dtype=np.int64)
        self.pv = np.zeros((max_ply + 1, max_ply + 1), dtype=np.int64)
        self.pvlen = np.zeros(max_ply + 1, dtype=np.int64)
        self.history_capacity = history
        self.killers = np.full((max_ply + 1, 2), -1, dtype=np.int64)
        self.hist = np.zeros(history_shape, dtype=np.int64)
        self.ttk = np.zeros(tt_entries, dtype=key_dtype)
        self.ttm = np.full(tt_entries, -1, dtype=np.int64)
        self.ttv = np.zeros(tt_entries, dtype=np.float64)
        self.ttd = np.full(tt_entries, -1, dtype=np.int16)
        self.ttf = np.zeros(tt_entries, dtype=np.int8)
        self.game_arrays = game_arrays

    def arrays(self) -> tuple:
        """The workspace as the compiled search functions take it (after the evaluation's arrays)."""
        return (self.P, self.C, self.stop, self.F, self.FV, self.stack, self.keys, self.moves, self.order, self.pv,
                self.pvlen, self.killers, self.hist, self.ttk, self.ttm, self.ttv, self.ttd, self.ttf,
                self.game_arrays)

    def clear(self) -> None:
        """Forget the table, killers and history (a new game)."""
        self.ttk[:] = 0
        self.ttm[:] = -1
        self.ttd[:] = -1
        self.killers[:] = -1
        self.hist[:] = 0

    def age(self) -> None:
        """Between moves: halve the history, forget the killers (the table stays)."""
        age_history(self.hist, self.killers)


def table_entries(tt_mb: int) -> int:
    """Entries (a power of two, at least 1,024) of a table of about ``tt_mb`` MiB (27 bytes an entry)."""
    entry_bytes = 8 + 8 + 8 + 2 + 1
    return 1 << max(10, int(np.log2(tt_mb * (1 << 20) / entry_bytes)))


__all__ = ["tt_store", "age_history", "SearchTables", "table_entries"]
