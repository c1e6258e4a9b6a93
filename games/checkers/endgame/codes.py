"""What every endgame solver and prober shares: the result codes and the lookup of a position's entry.

Results are kept as int8 (:data:`WIN`, :data:`LOSS`, :data:`DRAW`, :data:`HOLE`
for an index that is no position) and distances as int16, in one flat array
over the slices held: slice s, side to move c, index i is entry
``offsets[s] + c * sizes[s] + i`` (``offsets[s]`` is -1 for a slice not held).
"""
from __future__ import annotations

from numba import njit

from ..bits import popcount
from ..kernels import SIDE
from .index import position_index

UNKNOWN, WIN, LOSS, DRAW, HOLE = 0, 1, 2, 3, 4
RESULT_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}


@njit(cache=True)
def lookup(pos, offsets, sizes, result, dist):
    """(result, distance) of the position ``pos`` (kernel layout) for its side to move.

    A side to move without a piece has lost (distance 0); ``offsets[bm, bk, wm, wk]`` is -1 for a
    slice that is not held (the caller's bug: the build order rules it out).
    """
    bm, bk = popcount(pos[0]), popcount(pos[1])
    wm, wk = popcount(pos[2]), popcount(pos[3])
    side = pos[SIDE]
    if (bm + bk == 0 and side == 0) or (wm + wk == 0 and side == 1):
        return LOSS, 0
    start = offsets[bm, bk, wm, wk]
    entry = start + side * sizes[bm, bk, wm, wk] + position_index(pos[0], pos[1], pos[2], pos[3], bk, wm, wk)
    return result[entry], dist[entry]
