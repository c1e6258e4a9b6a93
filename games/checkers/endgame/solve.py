"""Retrograde analysis of checkers endgames, slice by slice: the database in memory, and the reference solver.

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

What no step settles is a draw (neither side can force a result).  The draw
rules of play (repetition, the 40-move rule) are not part of the database,
as in Chinook's.

:meth:`Database.solve` runs the fast solver of ``retrograde.py`` (counters,
every core, a slice copied from its mirror slice when that one is solved).
:func:`solve_slice` here is the first compiled solver, kept as the
reference the fast one is checked against (byte for byte: tests and
``benchmarks/endgame_build.py``): a first pass looks at every position once,
settling those with no move (lost in 0) and noting, for each capture or
crowning into a solved slice, the step one after that move's distance; then
step d looks only at positions that step d can settle -- the predecessors (by
quiet moves unmade) of the positions settled at step d - 1, each checked
forward with its moves, and the positions noted for step d.

Results are kept as int8 and distances as int16 (``codes.py``), in one flat
array over the slices held: slice s, side to move c, index i is entry
``offsets[s] + c * sizes[s] + i``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from plyground.errors import UsageError
from plyground.util.memory import available_memory, format_bytes

from ..bits import lowest_square, popcount
from ..board import FULL, STEP
from ..kernels import MAX_MOVES, POS_SIZE, SIDE, apply_move, generate
from . import retrograde
from .codes import DISTANCE_NOT_HELD  # noqa: F401 - solve.DISTANCE_NOT_HELD, as solve.WIN etc.
from .codes import DRAW, HOLE, LOSS, RESULT_NAMES, UNKNOWN, WIN, lookup, packed_lookup
from .index import position_at, position_index, slice_size, slices

#: Bytes of memory per index entry: its result (int8) and its distance (int16).
ENTRY_BYTES = 3


def entries(pieces: int) -> int:
    """Index entries (both sides to move) of every slice of up to ``pieces`` pieces; nothing allocated."""
    return sum(2 * slice_size(*s) for s in slices(pieces))


def check_fits_in_memory(pieces: int, windowed: bool = False, needed: int | None = None) -> None:
    """UsageError when the ``pieces``-piece database cannot be held in this machine's memory (``windowed``:
    built slice by slice, :func:`windowed_bytes`; ``needed``: held in that many bytes), naming what it needs
    and the largest that fits -- asked before any array is allocated (7 pieces: 375 GB whole, 98 GB slice by
    slice)."""
    available = available_memory()
    if needed is None:
        needed = windowed_bytes(pieces) if windowed else entries(pieces) * ENTRY_BYTES
    if available is None or needed <= available:
        return
    if windowed:
        raise UsageError(f"building the {pieces}-piece endgame database slice by slice needs {format_bytes(needed)} "
                         f"of memory (every smaller slice, and the {window_entries(pieces):,} entries of the "
                         f"largest slice and what it reads); this machine has {format_bytes(available)} available")
    fits = [p for p in range(2, pieces) if entries(p) * ENTRY_BYTES <= available]
    largest = f"; the largest that fits is {fits[-1]} pieces" if fits else ""
    raise UsageError(f"a {pieces}-piece endgame database needs {format_bytes(needed)} of memory "
                     f"({entries(pieces):,} entries); this machine has {format_bytes(available)} available{largest}")


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


def layer(pieces: int) -> list[tuple[int, int, int, int]]:
    """The slices of exactly ``pieces`` pieces, in build order."""
    return [s for s in slices(pieces) if sum(s) == pieces]


def needs(s: tuple[int, int, int, int], order: list) -> list[tuple[int, int, int, int]]:
    """The slices of ``s``'s own layer that solving it reads, in build ``order``: its mirror slice when that
    one comes first (``s`` is copied from it), else the slices a crowning leads to (captures lead to
    smaller layers)."""
    mirrored = retrograde.mirror(s)
    if mirrored != s and order.index(mirrored) < order.index(s):
        return [mirrored]
    bm, bk, wm, wk = s
    return [c for c in ((bm - 1, bk + 1, wm, wk), (bm, bk, wm - 1, wk + 1)) if min(c) >= 0]


def window_entries(pieces: int) -> int:
    """Entries a windowed build of ``pieces`` pieces holds at once for its top layer: the most that one
    slice and what it reads take (:func:`needs`)."""
    order = slices(pieces)
    return max(2 * (slice_size(*s) + sum(slice_size(*n) for n in needs(s, order))) for s in layer(pieces))


def windowed_bytes(pieces: int) -> int:
    """Memory a windowed build of ``pieces`` pieces needs: every smaller slice, the window, and the largest
    slice's counters, lists of entries by step and packed copy (at most 7 bytes an entry)."""
    largest = max(2 * slice_size(*s) for s in layer(pieces))
    return (entries(pieces - 1) + window_entries(pieces)) * ENTRY_BYTES + 7 * largest


def packed_bytes(pieces: int) -> int:
    """Memory a packed database of ``pieces`` pieces takes (:meth:`Database.packed`): 2 bits an entry (each
    slice padded to whole bytes), and 2 bytes an entry of the smaller slices for their distances."""
    padded = [4 * -(-2 * slice_size(*s) // 4) for s in slices(pieces)]
    smaller = sum(n for s, n in zip(slices(pieces), padded) if sum(s) < pieces)
    return sum(padded) // 4 + 2 * smaller


@dataclass
class Database:
    """Solved slices in memory (see the module docstring for the layout): every slice of up to ``pieces``
    pieces, or -- a *windowed* database, for a build too large to hold -- every slice of fewer pieces and,
    from entry ``window`` on, the few slices of ``pieces`` pieces that one solve needs (:meth:`place`)."""

    pieces: int
    offsets: np.ndarray
    sizes: np.ndarray
    result: np.ndarray
    dist: np.ndarray
    #: The slices whose results are held.
    solved: set = field(default_factory=set)
    #: Where the window starts (-1: the database is whole).
    window: int = -1
    #: A packed database (:meth:`packed`): the slices of this many pieces hold results without distances.
    packed_from: int = 0

    @classmethod
    def empty(cls, pieces: int, windowed: bool = False) -> "Database":
        """Every slice of up to ``pieces`` pieces laid out (see the module docstring), nothing solved yet --
        ``windowed``: those of fewer pieces, then room for :func:`window_entries`; a UsageError, before any
        allocation, when it cannot fit in memory."""
        check_fits_in_memory(pieces, windowed)
        dim = pieces + 1
        offsets = np.full((dim,) * 4, -1, dtype=np.int64)
        sizes = np.zeros((dim,) * 4, dtype=np.int64)
        total = 0
        for s in slices(pieces):
            sizes[s] = slice_size(*s)
            if not windowed or sum(s) < pieces:
                offsets[s] = total
                total += 2 * sizes[s]
        window = total if windowed else -1
        if windowed:
            total += window_entries(pieces)
        return cls(pieces, offsets, sizes, np.full(total, HOLE, dtype=np.int8), np.zeros(total, dtype=np.int16),
                   window=window)

    @classmethod
    def packed(cls, pieces: int, result: np.ndarray | None = None, dist: np.ndarray | None = None) -> "Database":
        """Every slice of up to ``pieces`` pieces laid out packed (``codes.packed_lookup``): ``result`` the
        2-bit codes of every entry, slice after slice as the slice files hold them (each padded to a whole
        byte), ``dist`` the distances of the slices of fewer pieces -- zeros, or the arrays given (a
        ValueError when they do not fit the layout); a UsageError, before any allocation, when it cannot fit
        in memory."""
        dim = pieces + 1
        offsets = np.full((dim,) * 4, -1, dtype=np.int64)
        sizes = np.zeros((dim,) * 4, dtype=np.int64)
        total = 0
        for s in slices(pieces):
            offsets[s], sizes[s] = total, slice_size(*s)
            total += 4 * -(-2 * int(sizes[s]) // 4)
        distances = int(offsets[layer(pieces)[0]])
        if result is None or dist is None:
            check_fits_in_memory(pieces, needed=packed_bytes(pieces))
            result, dist = np.zeros(total // 4, dtype=np.int8), np.zeros(distances, dtype=np.int16)
        elif result.shape != (total // 4,) or result.dtype != np.int8 or dist.shape != (distances,) \
                or dist.dtype != np.int16:
            raise ValueError(f"arrays of {result.shape} {result.dtype} and {dist.shape} {dist.dtype} are not a packed "
                             f"{pieces}-piece database ({total // 4,} int8 and {distances,} int16)")
        return cls(pieces, offsets, sizes, result, dist, solved=set(slices(pieces)), packed_from=pieces)

    def place(self, held: list) -> None:
        """Lay out the top-layer slices ``held`` in the window, in order; no other top-layer slice is held."""
        at = self.window
        for s in layer(self.pieces):
            self.offsets[s] = -1
            self.solved.discard(s)
        for s in held:
            self.offsets[s] = at
            at += 2 * int(self.sizes[s])
        assert at <= len(self.result), "the window is too small for these slices"

    def part(self, s: tuple[int, int, int, int]) -> slice:
        """The entries of slice ``s`` (both sides to move) in ``result`` and ``dist``."""
        return slice(int(self.offsets[s]), int(self.offsets[s] + 2 * self.sizes[s]))

    def probe(self, pos: np.ndarray) -> tuple[str, int]:
        """("win" | "loss" | "draw", distance in plies) for the side to move of a kernel position (a packed
        database's largest slices: :data:`DISTANCE_NOT_HELD`)."""
        find = packed_lookup if self.packed_from else lookup
        r, d = find(np.asarray(pos, dtype=np.int64), self.offsets, self.sizes, self.result, self.dist)
        if r == HOLE or r == UNKNOWN:
            raise ValueError("not a position of this database")
        return RESULT_NAMES[int(r)], int(d) if r != DRAW else 0

    def solve(self, s: tuple[int, int, int, int], farthest_before: int, pool=None,
              reference: bool = False) -> tuple[int, int, float]:
        """Solve slice ``s`` in place (every slice it leads to is solved, and ``farthest_before`` is the
        longest distance among them); (steps, its longest distance, seconds taken).  The fast solver on
        ``pool``'s threads (:func:`retrograde.workers`; None: this thread), or a copy of the mirror slice
        when that one is solved; ``reference``: the reference solver (one thread)."""
        started = time.perf_counter()
        if reference:
            steps, far = solve_slice(*s, self.offsets, self.sizes, self.result, self.dist, farthest_before)
        elif retrograde.mirror(s) in self.solved:
            steps, far = retrograde.mirror_slice(s, self.offsets, self.sizes, self.result, self.dist,
                                                 farthest_before, pool)
        else:
            steps, far = retrograde.solve_slice(s, self.offsets, self.sizes, self.result, self.dist,
                                                farthest_before, pool)
        self.solved.add(tuple(s))
        return steps, far, time.perf_counter() - started

    def counts(self, s: tuple[int, int, int, int] | None = None) -> dict[str, int]:
        """Wins, losses and draws for the side to move, over slice ``s`` or the whole database."""
        results = self.result if s is None else self.result[self.part(s)]
        return {name: int(np.count_nonzero(results == code)) for code, name in RESULT_NAMES.items()}


def build(pieces: int, log=None, threads: int | None = None, reference: bool = False) -> Database:
    """Solve every slice of 2..``pieces`` pieces in memory (``threads``: default one per core;
    ``reference``: with the reference solver)."""
    db = Database.empty(pieces)
    farthest = 0
    with retrograde.workers(threads) as pool:
        for s in slices(pieces):
            steps, far, seconds = db.solve(s, farthest, pool, reference)
            farthest = max(farthest, far)
            if log is not None:
                log(f"slice {s}: {db.sizes[s]:,} entries, {steps} steps, farthest {far} plies, {seconds:.2f} s")
    return db
