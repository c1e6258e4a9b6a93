"""The fast slice solver: one forward pass, then retrograde propagation with move counters, on every core.

It computes exactly what :func:`solve.solve_slice` (the reference) computes --
the same results and distances, so the same slice files byte for byte -- by
the standard retrograde recurrence: a position is won in 1 + the shortest
loss among its moves' results, lost in 1 + the longest win when every move
reaches a win, a draw when neither can be forced.

* **Forward pass** (every entry once, in parallel chunks): a hole is marked;
  a position's moves are generated; a capture or a crowning leaves the slice
  (a solved one) and is looked up; a quiet move stays in it and is only
  counted.  A position whose moves all leave the slice (every capture
  position: captures are compulsory) is decided here.  One that can win
  through a move leaving the slice waits, *pending*, for that step; the
  others keep a counter of their moves inside the slice that have not yet
  reached a win (plus one that never goes, when a move leaving the slice
  reaches a draw or a loss), and in ``dist`` the longest win among their moves
  leaving it.
* **Propagation** by distance steps: step d starts from the positions settled
  at d - 1 and unmakes their quiet moves (exactly: a predecessor with a capture
  had no quiet move, and it was decided by the forward pass, so it is skipped).
  A predecessor of a loss is won in d; a predecessor of a win loses one from
  its counter, and at zero it is lost in d -- or later, when a move leaving
  the slice reaches a longer win (then it waits for that step).  Positions
  decided by the forward pass join at the step of their distance.

A predecessor has the other side to move, so the positions settled for one
side at step d come only from those settled for the other side at d - 1: the
two sides are propagated at the same time by two threads that never write
the same entry.  Compiled with ``nogil``, every function here runs on its own
core from a Python thread.

Memory beyond the results and distances: one byte per entry of the slice
(the counters) and four per position decided by the forward pass (the lists
of entries by step).
"""
from __future__ import annotations

import os
import signal
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
from numba import njit

from ..bits import down_left, down_right, lowest_square, popcount, quiet_moves, reverse_board, up_left, up_right
from ..board import FULL, KING_ROW, STEP
from ..kernels import MAX_MOVES, POS_SIZE, SIDE, _jumpers, apply_move, generate
from .index import BINOMIAL, KING_PLACE, MAN_PLACE, MEN_PLACES, PLACE_SQUARE, SQUARES, _rank, _unrank, position_index
from .codes import DRAW, HOLE, LOSS, UNKNOWN, WIN, lookup

#: Result codes used while a slice is being solved (never stored): won at the step in ``dist`` unless
#: won sooner; lost at the step in ``dist`` (its counter is at zero, a longer win leaves the slice).
PENDING_WIN, PENDING_LOSS = 5, 6
#: The counter of an entry that no predecessor step may change: a hole, a position settled or decided by
#: the forward pass (or waiting to be lost); WAITING: pending a win (a predecessor of a loss wins sooner).
SETTLED, WAITING = 255, 254
#: Entries given to one call of the forward pass (a chunk; the threads take chunks in turn).
CHUNK = 1 << 20


def _ignore_ctrl_c() -> None:
    """In a worker thread: Ctrl-C goes to the main thread only (which ends the build, or holds it while a
    slice file is written: ``stopping.ctrl_c_held`` blocks it in that thread alone)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


@contextmanager
def workers(threads: int | None = None):
    """A pool of ``threads`` threads (default: :func:`threads_default`) for the solvers, or None for one."""
    threads = threads or threads_default()
    if threads <= 1:
        yield None
        return
    with ThreadPoolExecutor(threads, initializer=_ignore_ctrl_c) as pool:
        yield pool


def threads_default() -> int:
    """Threads a build uses unless told: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                      # not Linux
        return max(1, os.cpu_count() or 1)


@njit(cache=True)
def placements(k, n, colour):
    """Bitboards of every k-subset of n places, in colex rank order (the index's order): men of
    ``colour`` over their 28 squares when n is 28, kings over the 32 squares when n is 32."""
    out = np.empty(BINOMIAL[n, k], dtype=np.int64)
    for r in range(out.shape[0]):
        board = 0
        for place in _unrank(r, k, n):
            board |= 1 << (PLACE_SQUARE[colour, place] if n == MEN_PLACES else place)
        out[r] = board
    return out


def slice_tables(s) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The placements of the slice's four piece sets (black men, black kings, white men, white kings)."""
    bm, bk, wm, wk = s
    return (placements(bm, MEN_PLACES, 0), placements(bk, SQUARES, 0),
            placements(wm, MEN_PLACES, 1), placements(wk, SQUARES, 1))


@njit(cache=True, inline="always")
def _boards(i, sets0, sets1, sets2, sets3, boards):
    """The four bitboards of slice index ``i`` into ``boards``; False for a hole."""
    n1, n2, n3 = sets1.shape[0], sets2.shape[0], sets3.shape[0]
    r3 = i % n3
    i //= n3
    r2 = i % n2
    i //= n2
    b0, b1, b2, b3 = sets0[i // n1], sets1[i % n1], sets2[r2], sets3[r3]
    boards[0], boards[1], boards[2], boards[3] = b0, b1, b2, b3
    return (b0 & b1) == 0 and ((b0 | b1) & b2) == 0 and ((b0 | b1 | b2) & b3) == 0


@njit(cache=True, inline="always")
def _entry_boards(e, size, start, sets0, sets1, sets2, sets3, boards, result, dist):
    """The four bitboards of the slice's entry ``e`` (side * size + index) into ``boards``; False for a hole,
    marked as one (HOLE, distance 0)."""
    side = e // size
    if _boards(e - side * size, sets0, sets1, sets2, sets3, boards):
        return True
    result[start + e] = HOLE
    dist[start + e] = 0
    return False


@njit(cache=True, inline="always")
def _crownings(men, empty, side):
    """Quiet crowning moves of ``side``'s men (a man next to its king row, an empty square beyond)."""
    if side == 0:
        return popcount(down_left(men) & empty & KING_ROW[0]) + popcount(down_right(men) & empty & KING_ROW[0])
    return popcount(up_left(men) & empty & KING_ROW[1]) + popcount(up_right(men) & empty & KING_ROW[1])


@njit(cache=True, nogil=True)
def forward_pass(lo, hi, s, sets0, sets1, sets2, sets3, start, size, offsets, sizes, result, dist, count):
    """The forward pass (module docstring) over the slice's entries ``lo:hi`` (side * size + index)."""
    bm, bk, wm, wk = s
    boards = np.zeros(4, dtype=np.int64)
    pos = np.zeros(POS_SIZE, dtype=np.int64)
    after = np.zeros(POS_SIZE, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    stack = np.empty((16, 4), dtype=np.int64)
    for e in range(lo, hi):
        if not _entry_boards(e, size, start, sets0, sets1, sets2, sets3, boards, result, dist):
            count[e] = SETTLED
            continue
        side = e // size
        at = start + e
        men, kings = boards[2 * side], boards[2 * side + 1]
        opp = boards[2 - 2 * side] | boards[3 - 2 * side]
        empty = FULL & ~(men | kings | opp)
        inside = 0
        shortest_win, longest_loss, held = 1 << 30, 0, False
        crowning = _crownings(men, empty, side)
        if _jumpers(men, kings, opp, empty, side) == 0:
            inside = quiet_moves(men, kings, empty, side) - crowning
        if inside == 0 or crowning != 0:       # a capture, a crowning or no move: moves leave the slice
            pos[:4] = boards
            pos[SIDE] = side
            n = generate(pos, moves, True, stack)
            king_row = KING_ROW[side]
            for m in range(n):
                code = moves[m]
                if (code >> 10) == 0 and not (((men >> (code & 31)) & 1) != 0
                                              and ((king_row >> ((code >> 5) & 31)) & 1) != 0):
                    continue                    # a quiet move, no crowning: it stays in the slice (counted)
                after[:] = pos
                apply_move(after, code)
                r, d = lookup(after, offsets, sizes, result, dist)
                if r == LOSS:
                    shortest_win = min(shortest_win, d + 1)
                elif r == WIN:
                    longest_loss = max(longest_loss, d + 1)
                else:
                    held = True                 # a draw: this position is not lost
        if inside == 0:                         # every move leaves the slice (or there is none)
            if shortest_win < 1 << 30:
                result[at], dist[at] = WIN, shortest_win
            elif held:
                result[at], dist[at] = DRAW, 0
            else:
                result[at], dist[at] = LOSS, longest_loss
            count[e] = SETTLED
        elif shortest_win < 1 << 30:
            result[at], dist[at] = PENDING_WIN, shortest_win
            count[e] = WAITING
        else:
            result[at], dist[at] = UNKNOWN, longest_loss
            count[e] = inside + (1 if held else 0)


@njit(cache=True, nogil=True)
def by_step(side, size, start, result, dist, steps):
    """The entries of one side decided by the forward pass or pending, grouped by their step:
    (entries as uint32, first[step] .. first[step + 1] the range of each step)."""
    per_step = np.zeros(steps + 1, dtype=np.int64)
    lo, hi = start + side * size, start + (side + 1) * size
    for at in range(lo, hi):
        r = result[at]
        if r == WIN or r == LOSS or r == PENDING_WIN:
            per_step[dist[at] + 1] += 1
    first = np.cumsum(per_step)
    out = np.empty(first[-1], dtype=np.uint32)
    filled = first[:-1].copy()
    for at in range(lo, hi):
        r = result[at]
        if r == WIN or r == LOSS or r == PENDING_WIN:
            d = dist[at]
            out[filled[d]] = at - start
            filled[d] += 1
    return out, first


#: Predecessors one position can have (a side's five kings, four each), so buffers are grown before.
MOST_PREDECESSORS = 32


@njit(cache=True)
def _unmake(x, step, sets0, sets1, sets2, sets3, start, size, result, dist, count, settled, k, n_settled,
            out, n_out, late_head, late_next, late_entry, n_late):
    """The predecessors of ``settled[k:n_settled]`` (the other side's positions settled at ``step - 1``):
    won now when the position is lost, one counter less when it is won (lost now at zero, or later).
    Stops early when ``out`` or the waiting list could overflow; returns (next k, n_out, n_late).
    (No array is reassigned in here: numba would count references at every turn of the loop.)"""
    n1, n2, n3 = sets1.shape[0], sets2.shape[0], sets3.shape[0]
    mover = x                      # the side that made the move being unmade is the one to move before it
    boards = np.zeros(4, dtype=np.int64)
    while k < n_settled and n_out + MOST_PREDECESSORS <= out.shape[0] \
            and n_late + MOST_PREDECESSORS <= late_entry.shape[0]:
        q = np.int64(settled[k])
        k += 1
        i = q - (1 - x) * size
        lost = result[start + q] == LOSS
        r3 = i % n3
        rest = i // n3
        r2 = rest % n2
        rest //= n2
        r1 = rest % n1
        r0 = rest // n1
        boards[0], boards[1], boards[2], boards[3] = sets0[r0], sets1[r1], sets2[r2], sets3[r3]
        empty = FULL & ~(boards[0] | boards[1] | boards[2] | boards[3])
        for kind in range(2):                              # 0: men, 1: kings
            c = 2 * mover + kind
            pieces = boards[c]
            if c == 0:
                rank, scale = r0, n1 * n2 * n3
            elif c == 1:
                rank, scale = r1, n2 * n3
            elif c == 2:
                rank, scale = r2, n3
            else:
                rank, scale = r3, 1
            base = x * size + i - rank * scale
            while pieces:
                sq = lowest_square(pieces)
                pieces &= pieces - 1
                for d in range(4):
                    if kind == 0 and (d >= 2) == (mover == 0):
                        continue        # a black man came from above (it moves down), a white one from below
                    t = STEP[d, sq]
                    if t < 0 or not (empty >> t) & 1:
                        continue
                    moved = (boards[c] & ~(1 << sq)) | (1 << t)
                    if kind == 0:
                        p = base + _rank(moved, MAN_PLACE[mover]) * scale
                    else:
                        p = base + _rank(moved, KING_PLACE) * scale
                    left = count[p]
                    if lost:
                        if left != SETTLED:                   # unknown or pending a win: won now
                            result[start + p] = WIN
                            dist[start + p] = step
                            count[p] = SETTLED
                            out[n_out] = p
                            n_out += 1
                    elif left < WAITING:
                        left -= 1
                        count[p] = left
                        if left == 0:
                            at = start + p
                            count[p] = SETTLED
                            if dist[at] <= step:
                                result[at] = LOSS
                                dist[at] = step
                                out[n_out] = p
                                n_out += 1
                            else:                  # a longer win leaves the slice: lost then
                                result[at] = PENDING_LOSS
                                late_next[n_late] = late_head[dist[at]]
                                late_entry[n_late] = p
                                late_head[dist[at]] = n_late
                                n_late += 1
    return k, n_out, n_late


def _grown(buffer, n):
    """``buffer`` twice as large, its first ``n`` items kept."""
    grown = np.empty(2 * buffer.shape[0], dtype=buffer.dtype)
    grown[:n] = buffer[:n]
    return grown


_grown = njit(cache=True)(_grown)


@njit(cache=True, nogil=True)
def step_side(x, step, sets0, sets1, sets2, sets3, start, size, result, dist, count,
              decided, first, settled, n_settled, late_head, late_next, late_entry, n_late):
    """Step ``step`` for the positions with side ``x`` to move: those of the forward pass's lists due
    now, those waiting to be lost now, and the predecessors of the other side's positions settled at
    ``step - 1`` (``settled[:n_settled]``, slice entries).  Returns (side x's positions settled now,
    their count, the waiting list's next links, entries and size)."""
    due = first[step + 1] - first[step] if step < first.shape[0] - 1 else 0
    waiting = 0
    if step < late_head.shape[0]:
        k = late_head[step]
        while k >= 0:
            waiting += 1
            k = late_next[k]
    out = np.empty(due + waiting + 1024, dtype=np.uint32)
    n_out = 0
    for k in range(first[step], first[step] + due):
        e = np.int64(decided[k])
        at = start + e
        if result[at] == PENDING_WIN:
            result[at] = WIN
            count[e] = SETTLED
            out[n_out] = e
            n_out += 1
        elif dist[at] == step and (result[at] == WIN or result[at] == LOSS):
            out[n_out] = e                               # decided by the forward pass
            n_out += 1
    if waiting:
        k = late_head[step]
        while k >= 0:
            e = late_entry[k]
            result[start + e] = LOSS
            out[n_out] = e
            n_out += 1
            k = late_next[k]
    k = 0
    while k < n_settled:
        if n_out + MOST_PREDECESSORS > out.shape[0]:
            out = _grown(out, n_out)
        if n_late + MOST_PREDECESSORS > late_entry.shape[0]:
            late_next = _grown(late_next, n_late)
            late_entry = _grown(late_entry, n_late)
        k, n_out, n_late = _unmake(x, step, sets0, sets1, sets2, sets3, start, size, result, dist, count,
                                   settled, k, n_settled, out, n_out, late_head, late_next, late_entry, n_late)
    return out, n_out, late_next, late_entry, n_late


@njit(cache=True, nogil=True)
def finish(lo, hi, result, dist):
    """What no step settled is a draw (distance 0)."""
    farthest = 0
    for at in range(lo, hi):
        r = result[at]
        if r == UNKNOWN:
            result[at] = DRAW
            dist[at] = 0
        elif r == WIN or r == LOSS:
            farthest = max(farthest, dist[at])
    return farthest


def _map(pool, function, items):
    """``function`` over ``items`` on the pool's threads, or in this thread when there is no pool."""
    return list(pool.map(function, items)) if pool is not None else [function(item) for item in items]


def solve_slice(s, offsets, sizes, result, dist, farthest_before, pool=None):
    """Solve slice ``s`` in place, as :func:`solve.solve_slice` does (same arguments, same results);
    (steps, farthest distance).  ``pool``: a ThreadPoolExecutor to run on (a small slice runs in this thread).
    Every slice it leads to must be in ``offsets``; ``farthest_before`` bounds their distances."""
    s = tuple(int(v) for v in s)
    size, start = int(sizes[s]), int(offsets[s])
    if 2 * size <= CHUNK:
        pool = None                       # a small slice: threads would cost more than they save
    sets = slice_tables(s)
    count = np.empty(2 * size, dtype=np.uint8)
    chunks = [(lo, min(2 * size, lo + CHUNK // 4)) for lo in range(0, 2 * size, CHUNK // 4)]
    _map(pool, lambda c: forward_pass(c[0], c[1], s, *sets, start, size, offsets, sizes, result, dist, count), chunks)
    steps = farthest_before + 2       # every step a move leaving the slice can set, and one more
    lists = _map(pool, lambda x: by_step(x, size, start, result, dist, steps), (0, 1))
    last_due = max(int(np.searchsorted(first, first[-1])) - 1 for _, first in lists)
    late = [[np.full(steps + 1, -1, dtype=np.int64), np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64), 0]
            for _ in (0, 1)]
    settled = [(np.empty(0, dtype=np.uint32), 0), (np.empty(0, dtype=np.uint32), 0)]
    step = 0

    def run(x):
        head, nxt, ent, n = late[x]
        out, n_out, nxt, ent, n = step_side(x, step, *sets, start, size, result, dist, count,
                                            lists[x][0], lists[x][1], *settled[1 - x], head, nxt, ent, n)
        late[x][1:] = nxt, ent, n
        return out, n_out

    def waiting() -> bool:
        return any(n and (head[step:] >= 0).any() for head, _, _, n in late)

    while settled[0][1] or settled[1][1] or step <= last_due or waiting():
        settled = _map(pool, run, (0, 1))
        step += 1
    halves = [(start, start + size), (start + size, start + 2 * size)]
    farthest = max(_map(pool, lambda h: finish(h[0], h[1], result, dist), halves))
    return max(farthest, farthest_before) + 2, farthest


@njit(cache=True, nogil=True)
def mirror_pass(lo, hi, sets0, sets1, sets2, sets3, start, size, counts, source_start, source_size,
                result, dist):
    """Entries ``lo:hi`` of a slice copied from its mirror slice (``counts``: the mirror's black kings,
    white men, white kings): each position is the mirror's position turned half a turn with the colours
    and the side to move swapped, which the rules treat alike.  Returns the longest distance copied."""
    boards = np.zeros(4, dtype=np.int64)
    farthest = 0
    for e in range(lo, hi):
        if not _entry_boards(e, size, start, sets0, sets1, sets2, sets3, boards, result, dist):
            continue
        side = e // size
        at = start + e
        j = position_index(reverse_board(boards[2]), reverse_board(boards[3]), reverse_board(boards[0]),
                           reverse_board(boards[1]), counts[0], counts[1], counts[2])
        source = source_start + (1 - side) * source_size + j
        result[at] = result[source]
        dist[at] = dist[source]
        if result[at] == WIN or result[at] == LOSS:
            farthest = max(farthest, dist[at])
    return farthest


def mirror(s):
    """The slice whose positions are slice ``s``'s turned half a turn, colours swapped."""
    bm, bk, wm, wk = s
    return (wm, wk, bm, bk)


def mirror_slice(s, offsets, sizes, result, dist, farthest_before, pool=None):
    """Fill slice ``s`` from its solved mirror slice (:func:`mirror`; it must be in ``offsets``); the same
    results as :func:`solve_slice` gives, by one copy per entry.  (steps, farthest distance) as there."""
    s = tuple(int(v) for v in s)
    source = mirror(s)
    size, start = int(sizes[s]), int(offsets[s])
    if 2 * size <= CHUNK:
        pool = None
    sets = slice_tables(s)
    counts = np.array(source[1:], dtype=np.int64)
    chunks = [(lo, min(2 * size, lo + CHUNK)) for lo in range(0, 2 * size, CHUNK)]
    farthest = max(_map(pool, lambda c: mirror_pass(c[0], c[1], *sets, start, size, counts, int(offsets[source]),
                                                    int(sizes[source]), result, dist), chunks))
    return max(farthest, farthest_before) + 2, farthest
