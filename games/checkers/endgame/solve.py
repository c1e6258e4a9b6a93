"""Retrograde analysis of checkers endgames, slice by slice, in compiled code.

Every position of every slice (``index.py``), with either side to move,
gets a result -- win, loss or draw for the side to move -- and for wins
and losses the distance in plies to the end with best play: the winner
takes the shortest way, the loser the longest (a loss in 0 is a position
where the side to move has no move, or no piece).

A slice is solved after every slice a move can lead to (fewer pieces after
a capture, one man fewer after a crowning: ``index.slices`` gives that
order), by distance steps: at step d a position is

* won in d when one of its moves leads to a position lost in d - 1;
* lost in d when every move leads to a won position and the longest of
  those wins is d - 1.

Positions of the slice resolved at step d only satisfy these conditions for
step d + 1, so one array serves all steps.  A first pass looks at every
position once: it settles those with no move (lost in 0) and notes, for each
capture or crowning into a solved slice, the step one after that move's
distance.  After it, step d looks only at positions that step d can settle:
the predecessors (by quiet moves unmade) of the positions settled at step
d - 1, and the positions noted for step d.  Steps stop when one settles
nothing and no note is left; what is left is a draw (neither side can force
a result).  So a position is looked at about once per move that reaches a
result, not once per step: the 4-piece build takes 14 s instead of 145 s
with a rescan of the slice at every step.  The draw rules of play
(repetition, the 40-move rule) are not part of the database, as in
Chinook's.

Results are kept as int8 (:data:`WIN`, :data:`LOSS`, :data:`DRAW`,
:data:`HOLE` for an index that is no position) and distances as int16, in
one flat array over all slices: slice s, side to move c, index i is entry
``offsets[s] + c * sizes[s] + i``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from plyground.errors import UsageError
from plyground.memory import available_memory, format_bytes

from ..bits import lowest_square, popcount
from ..board import FULL, STEP
from ..kernels import MAX_MOVES, POS_SIZE, SIDE, apply_move, generate
from .index import position_at, position_index, slice_size, slices

UNKNOWN, WIN, LOSS, DRAW, HOLE = 0, 1, 2, 3, 4
RESULT_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
#: Bytes of memory per index entry: its result (int8) and its distance (int16).
ENTRY_BYTES = 3


def entries(pieces: int) -> int:
    """Index entries (both sides to move) of every slice of up to ``pieces`` pieces; nothing allocated."""
    return sum(2 * slice_size(*s) for s in slices(pieces))


def check_fits_in_memory(pieces: int) -> None:
    """UsageError when the ``pieces``-piece database cannot be held in this machine's memory, naming what it
    needs and the largest that fits -- asked before any array is allocated (7 pieces: 375 GB)."""
    available = available_memory()
    needed = entries(pieces) * ENTRY_BYTES
    if available is None or needed <= available:
        return
    fits = [p for p in range(2, pieces) if entries(p) * ENTRY_BYTES <= available]
    largest = f"; the largest that fits is {fits[-1]} pieces" if fits else ""
    raise UsageError(f"a {pieces}-piece endgame database needs {format_bytes(needed)} of memory "
                     f"({entries(pieces):,} entries); this machine has {format_bytes(available)} available{largest}")


@njit(cache=True)
def lookup(pos, offsets, sizes, result, dist):
    """(result, distance) of the position ``pos`` (kernel layout) for its side to move.

    A side to move without a piece has lost (distance 0); ``offsets[bm, bk, wm, wk]`` is -1 for a
    slice that is not built (the caller's bug: the build order rules it out).
    """
    bm, bk = popcount(pos[0]), popcount(pos[1])
    wm, wk = popcount(pos[2]), popcount(pos[3])
    side = pos[SIDE]
    if (bm + bk == 0 and side == 0) or (wm + wk == 0 and side == 1):
        return LOSS, 0
    start = offsets[bm, bk, wm, wk]
    entry = start + side * sizes[bm, bk, wm, wk] + position_index(pos[0], pos[1], pos[2], pos[3], bk, wm, wk)
    return result[entry], dist[entry]


@njit(cache=True)
def _push(buffer, n, value):
    """Append ``value`` at ``buffer[n]``, doubling the buffer when full; returns (buffer, n + 1)."""
    if n == buffer.shape[0]:
        grown = np.empty(2 * buffer.shape[0], dtype=buffer.dtype)
        grown[:n] = buffer[:n]
        buffer = grown
    buffer[n] = value
    return buffer, n + 1


@njit(cache=True)
def _settle(entry, step, bm, bk, wm, wk, start, size, offsets, sizes, result, dist, scratch):
    """Resolve the slice's unknown ``entry`` at ``step`` if its moves allow it (module docstring); True if so."""
    boards, pos, after, moves, stack = scratch
    side, i = entry // size, entry % size
    position_at(i, bm, bk, wm, wk, boards)
    pos[:4] = boards
    pos[SIDE] = side
    n = generate(pos, moves, True, stack)
    if n == 0:
        return False  # lost in 0: settled by the first pass
    all_won = True
    longest = -1
    for m in range(n):
        after[:] = pos
        apply_move(after, moves[m])
        r, d = lookup(after, offsets, sizes, result, dist)
        if r == LOSS and d == step - 1:
            result[start + entry] = WIN
            dist[start + entry] = step
            return True
        if r == WIN:
            longest = max(longest, d)
        else:
            all_won = False
    if all_won and longest == step - 1:
        result[start + entry] = LOSS
        dist[start + entry] = step
        return True
    return False


@njit(cache=True)
def _first_pass(bm, bk, wm, wk, start, size, offsets, sizes, result, dist, scratch):
    """Mark holes and the positions lost in 0 (no move); list, for every other position, the steps at which
    a move leaving the slice (a capture or a crowning, into a solved slice) can settle it: one after each
    such move's distance.  Returns (positions lost in 0, their count, trigger steps, trigger entries,
    trigger count)."""
    boards, pos, after, moves, stack = scratch
    lost = np.empty(1024, dtype=np.int64)
    n_lost = 0
    trigger_step = np.empty(1024, dtype=np.int32)
    trigger_entry = np.empty(1024, dtype=np.int64)
    n_triggers = 0
    seen = np.empty(MAX_MOVES, dtype=np.int64)
    for entry in range(2 * size):
        side, i = entry // size, entry % size
        if not position_at(i, bm, bk, wm, wk, boards):
            result[start + entry] = HOLE
            continue
        result[start + entry] = UNKNOWN
        pos[:4] = boards
        pos[SIDE] = side
        n = generate(pos, moves, True, stack)
        if n == 0:
            result[start + entry] = LOSS
            dist[start + entry] = 0
            lost, n_lost = _push(lost, n_lost, entry)
            continue
        n_seen = 0
        for m in range(n):
            after[:] = pos
            apply_move(after, moves[m])
            if (popcount(after[0]) == bm and popcount(after[1]) == bk and popcount(after[2]) == wm
                    and popcount(after[3]) == wk):
                continue  # stays in the slice: its turn comes through the predecessors
            r, d = lookup(after, offsets, sizes, result, dist)
            if r != WIN and r != LOSS:
                continue
            fresh = True
            for k in range(n_seen):
                if seen[k] == d:
                    fresh = False
            if fresh:
                seen[n_seen] = d
                n_seen += 1
                trigger_step, _ = _push(trigger_step, n_triggers, d + 1)
                trigger_entry, n_triggers = _push(trigger_entry, n_triggers, entry)
    return lost, n_lost, trigger_step, trigger_entry, n_triggers


@njit(cache=True)
def _predecessors(entry, bm, bk, wm, wk, size, out, boards):
    """Entries of the slice from which a quiet move (no capture, no crowning) reaches ``entry``: the side
    that just moved takes a king back to any empty neighbour, a man back against its direction.  A
    superset (a move is only legal without a capture on the board): :func:`_settle` checks each one."""
    mover = 1 - entry // size
    position_at(entry % size, bm, bk, wm, wk, boards)
    empty = FULL & ~(boards[0] | boards[1] | boards[2] | boards[3])
    n = 0
    for kind in range(2):  # 0: men, 1: kings
        board = 2 * mover + kind
        pieces = boards[board]
        while pieces:
            s = lowest_square(pieces)
            pieces &= pieces - 1
            for d in range(4):
                if kind == 0 and (d >= 2) == (mover == 0):
                    continue  # a black man came from above (it moves down), a white one from below
                t = STEP[d, s]
                if t < 0 or not (empty >> t) & 1:
                    continue
                saved = boards[board]
                boards[board] = (saved & ~(1 << s)) | (1 << t)
                out[n] = mover * size + position_index(boards[0], boards[1], boards[2], boards[3], bk, wm, wk)
                n += 1
                boards[board] = saved
    return n


@njit(cache=True)
def solve_slice(bm, bk, wm, wk, offsets, sizes, result, dist, farthest_before):
    """Solve one slice in place (see the module docstring); returns (steps, farthest distance).

    Each position is looked at once by a first pass, then only when one of its moves has just reached a
    result that can settle it: a position of the slice settled at the step before (found by unmaking
    quiet moves), or a capture or crowning into a solved slice whose distance is one less than the step.
    """
    size = sizes[bm, bk, wm, wk]
    start = offsets[bm, bk, wm, wk]
    scratch = (np.zeros(4, dtype=np.int64), np.zeros(POS_SIZE, dtype=np.int64),
               np.zeros(POS_SIZE, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
               np.empty((16, 4), dtype=np.int64))
    previous, n_previous, trigger_step, trigger_entry, n_triggers = _first_pass(
        bm, bk, wm, wk, start, size, offsets, sizes, result, dist, scratch)
    # Triggers by step (a counting sort: steps are at most farthest_before + 1).
    per_step = np.zeros(farthest_before + 3, dtype=np.int64)
    for k in range(n_triggers):
        per_step[trigger_step[k] + 1] += 1
    first = np.cumsum(per_step)
    by_step = np.empty(n_triggers, dtype=np.int64)
    filled = first.copy()
    for k in range(n_triggers):
        by_step[filled[trigger_step[k]]] = trigger_entry[k]
        filled[trigger_step[k]] += 1
    boards = np.zeros(4, dtype=np.int64)
    parents = np.empty(4 * 12, dtype=np.int64)
    current = np.empty(1024, dtype=np.int64)
    farthest = 0
    step = 1
    while n_previous > 0 or step <= farthest_before + 1:
        n_current = 0
        if step < first.shape[0] - 1:
            for k in range(first[step], first[step + 1]):
                entry = by_step[k]
                if result[start + entry] == UNKNOWN and _settle(entry, step, bm, bk, wm, wk, start, size, offsets,
                                                              sizes, result, dist, scratch):
                    current, n_current = _push(current, n_current, entry)
        for k in range(n_previous):
            n_parents = _predecessors(previous[k], bm, bk, wm, wk, size, parents, boards)
            for p in range(n_parents):
                entry = parents[p]
                if result[start + entry] == UNKNOWN and _settle(entry, step, bm, bk, wm, wk, start, size, offsets,
                                                              sizes, result, dist, scratch):
                    current, n_current = _push(current, n_current, entry)
        if n_current:
            farthest = step
        previous, current = current, previous
        n_previous = n_current
        step += 1
    for e in range(start, start + 2 * size):
        if result[e] == UNKNOWN:
            result[e] = DRAW
    return step, farthest


@dataclass
class Database:
    """The solved slices of up to ``pieces`` pieces, in memory (see the module docstring for the layout)."""

    pieces: int
    offsets: np.ndarray
    sizes: np.ndarray
    result: np.ndarray
    dist: np.ndarray

    @classmethod
    def empty(cls, pieces: int) -> "Database":
        """Every slice of up to ``pieces`` pieces laid out (see the module docstring), nothing solved yet;
        a UsageError, before any allocation, when it cannot fit in memory."""
        check_fits_in_memory(pieces)
        dim = pieces + 1
        offsets = np.full((dim,) * 4, -1, dtype=np.int64)
        sizes = np.zeros((dim,) * 4, dtype=np.int64)
        total = 0
        for s in slices(pieces):
            offsets[s] = total
            sizes[s] = slice_size(*s)
            total += 2 * sizes[s]
        return cls(pieces, offsets, sizes, np.full(total, HOLE, dtype=np.int8), np.zeros(total, dtype=np.int16))

    def part(self, s: tuple[int, int, int, int]) -> slice:
        """The entries of slice ``s`` (both sides to move) in ``result`` and ``dist``."""
        return slice(int(self.offsets[s]), int(self.offsets[s] + 2 * self.sizes[s]))

    def probe(self, pos: np.ndarray) -> tuple[str, int]:
        """("win" | "loss" | "draw", distance in plies) for the side to move of a kernel position."""
        r, d = lookup(np.asarray(pos, dtype=np.int64), self.offsets, self.sizes, self.result, self.dist)
        if r == HOLE or r == UNKNOWN:
            raise ValueError("not a position of this database")
        return RESULT_NAMES[int(r)], int(d) if r != DRAW else 0

    def solve(self, s: tuple[int, int, int, int], farthest_before: int) -> tuple[int, int, float]:
        """Solve slice ``s`` in place (every slice it leads to is solved, and ``farthest_before`` is the
        longest distance among them); (steps, its longest distance, seconds taken)."""
        started = time.perf_counter()
        steps, far = solve_slice(*s, self.offsets, self.sizes, self.result, self.dist, farthest_before)
        return steps, far, time.perf_counter() - started

    def counts(self, s: tuple[int, int, int, int] | None = None) -> dict[str, int]:
        """Wins, losses and draws for the side to move, over slice ``s`` or the whole database."""
        results = self.result if s is None else self.result[self.part(s)]
        return {name: int(np.count_nonzero(results == code)) for code, name in RESULT_NAMES.items()}


def build(pieces: int, log=None) -> Database:
    """Solve every slice of 2..``pieces`` pieces in memory."""
    db = Database.empty(pieces)
    farthest = 0
    for s in slices(pieces):
        steps, far, seconds = db.solve(s, farthest)
        farthest = max(farthest, far)
        if log is not None:
            log(f"slice {s}: {db.sizes[s]:,} entries, {steps} steps, farthest {far} plies, {seconds:.2f} s")
    return db
