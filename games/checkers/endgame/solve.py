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
step d + 1, so one array serves all steps.  Steps stop when one resolves
nothing and no position of an earlier slice is as far from the end as the
step; what is left is a draw (neither side can force a result).  The draw
rules of play (repetition, the 40-move rule) are not part of the database,
as in Chinook's.

Results are kept as int8 (:data:`WIN`, :data:`LOSS`, :data:`DRAW`,
:data:`HOLE` for an index that is no position) and distances as int16, in
one flat array over all slices: slice s, side to move c, index i is entry
``offsets[s] + c * sizes[s] + i``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..bits import popcount
from ..kernels import MAX_MOVES, POS_SIZE, SIDE, apply_move, gen_moves
from .index import position_at, position_index, slice_size, slices

UNKNOWN, WIN, LOSS, DRAW, HOLE = 0, 1, 2, 3, 4
RESULT_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}


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
def solve_slice(bm, bk, wm, wk, offsets, sizes, result, dist, farthest_before):
    """Solve one slice in place (see the module docstring); returns (steps, farthest distance)."""
    size = sizes[bm, bk, wm, wk]
    start = offsets[bm, bk, wm, wk]
    boards = np.zeros(4, dtype=np.int64)
    pos = np.zeros(POS_SIZE, dtype=np.int64)
    after = np.zeros(POS_SIZE, dtype=np.int64)
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    for i in range(size):
        valid = position_at(i, bm, bk, wm, wk, boards)
        for side in range(2):
            result[start + side * size + i] = UNKNOWN if valid else HOLE
    farthest = 0
    step = 0
    while True:
        resolved = 0
        for side in range(2):
            base = start + side * size
            for i in range(size):
                if result[base + i] != UNKNOWN:
                    continue
                position_at(i, bm, bk, wm, wk, boards)
                pos[:4] = boards
                pos[SIDE] = side
                n = gen_moves(pos, moves)
                if n == 0:
                    if step == 0:
                        result[base + i] = LOSS
                        dist[base + i] = 0
                        resolved += 1
                    continue
                wins_now = False
                all_won = True
                longest = -1
                for m in range(n):
                    after[:] = pos
                    apply_move(after, moves[m])
                    r, d = lookup(after, offsets, sizes, result, dist)
                    if r == LOSS and d == step - 1:
                        wins_now = True
                        break
                    if r == WIN:
                        if d > longest:
                            longest = d
                    else:
                        all_won = False
                if wins_now or (all_won and longest == step - 1):
                    result[base + i] = WIN if wins_now else LOSS
                    dist[base + i] = step
                    resolved += 1
                    farthest = step
        if resolved == 0 and step > farthest_before:
            break
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
    build_seconds: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, pieces: int) -> "Database":
        """Every slice of up to ``pieces`` pieces laid out (see the module docstring), nothing solved yet."""
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

    def counts(self, s: tuple[int, int, int, int] | None = None) -> dict[str, int]:
        """Wins, losses and draws for the side to move, over slice ``s`` or the whole database."""
        results = self.result if s is None else self.result[self.part(s)]
        return {name: int(np.count_nonzero(results == code)) for code, name in RESULT_NAMES.items()}


def build(pieces: int, log=None) -> Database:
    """Solve every slice of 2..``pieces`` pieces in memory."""
    db = Database.empty(pieces)
    farthest = 0
    for s in slices(pieces):
        started = time.perf_counter()
        steps, far = solve_slice(*s, db.offsets, db.sizes, db.result, db.dist, farthest)
        farthest = max(farthest, far)
        db.build_seconds[s] = time.perf_counter() - started
        if log is not None:
            log(f"slice {s}: {db.sizes[s]:,} entries, {steps} steps, farthest {far} plies, "
                f"{db.build_seconds[s]:.2f} s")
    return db
