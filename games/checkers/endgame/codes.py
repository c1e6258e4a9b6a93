"""What every endgame solver and prober shares: the result codes and the lookup of a position's entry.

Results are kept as int8 (:data:`WIN`, :data:`LOSS`, :data:`DRAW`, :data:`HOLE`
for an index that is no position) and distances as int16, in one flat array
over the slices held: slice s, side to move c, index i is entry
``offsets[s] + c * sizes[s] + i`` (``offsets[s]`` is -1 for a slice not held).
A *packed* database (6 pieces: 22 GB that way) keeps every entry's result in
2 bits and the distances of its smaller slices only (:func:`packed_lookup`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import popcount
from ..kernels import SIDE
from .index import position_index

UNKNOWN, WIN, LOSS, DRAW, HOLE = 0, 1, 2, 3, 4
RESULT_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
#: The result of each 2-bit code of a slice file and of a packed database (a hole is 0).
CODE_RESULT = np.array([HOLE, WIN, LOSS, DRAW], dtype=np.int8)
#: The distance a packed database gives for a win or loss of its largest slices, whose distances it does not
#: hold: longer than any held (so a search prefers a win whose distance it knows), short of a search's
#: "forced result" bound.
DISTANCE_NOT_HELD = 1000


@njit(cache=True)
def entry_of(pos, offsets, sizes):
    """The index entry of the position ``pos`` (kernel layout) for its side to move; -1 when that side has no
    piece (it has lost)."""
    bm, bk = popcount(pos[0]), popcount(pos[1])
    wm, wk = popcount(pos[2]), popcount(pos[3])
    side = pos[SIDE]
    if (bm + bk == 0 and side == 0) or (wm + wk == 0 and side == 1):
        return -1
    return offsets[bm, bk, wm, wk] + side * sizes[bm, bk, wm, wk] + position_index(pos[0], pos[1], pos[2], pos[3],
                                                                                   bk, wm, wk)


@njit(cache=True)
def lookup(pos, offsets, sizes, result, dist):
    """(result, distance) of the position ``pos`` (kernel layout) for its side to move.

    A side to move without a piece has lost (distance 0); ``offsets[bm, bk, wm, wk]`` is -1 for a
    slice that is not held (the caller's bug: the build order rules it out).
    """
    entry = entry_of(pos, offsets, sizes)
    if entry < 0:
        return LOSS, 0
    return result[entry], dist[entry]


@njit(cache=True)
def packed_lookup(pos, offsets, sizes, codes, dist):
    """:func:`lookup` in a packed database: ``codes`` holds every slice's 2-bit results, four entries a
    byte (a slice file's ``wld`` array, as int8), ``dist`` the distances of the entries below its length
    (the smaller slices'); a win or loss beyond it is :data:`DISTANCE_NOT_HELD` plies away."""
    entry = entry_of(pos, offsets, sizes)
    if entry < 0:
        return LOSS, 0
    r = CODE_RESULT[(codes[entry >> 2] >> (2 * (entry & 3))) & 3]
    if r != WIN and r != LOSS:
        return r, 0
    return r, (dist[entry] if entry < dist.shape[0] else DISTANCE_NOT_HELD)
