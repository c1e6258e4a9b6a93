"""Where a checkers endgame position lives in a database: its slice and its index in the slice.

A *slice* is the set of positions with given numbers of black men, black
kings, white men and white kings, ``(bm, bk, wm, wk)``.  Inside a slice a
position is four piece sets, each ranked in the colex order of k-subsets
(rank = sum of C(square_i, i + 1) over the sorted squares):

    index = ((rank(black men) * C(32, bk) + rank(black kings)) * C(28, wm) + rank(white men)) * C(32, wk)
            + rank(white kings)

Men are ranked over the 28 squares they can stand on (a black man never
stands on White's back rank: it would have been crowned), kings over all
32.  Pieces of different sets may collide on a square: such indices are
*holes*, marked invalid by the builder.  The holes cost space (the slices
of up to 4 pieces have 14.9 million entries for 12.8 million positions,
1.16x) and buy an index that is four colex ranks, computed the same way in
both directions.

Squares are the kernel's (bit s = square s + 1, see ``kernels.py``).
"""
from __future__ import annotations

from math import comb

import numpy as np
from numba import njit, prange

from ..bits import lowest_square
from ..board import FULL, KING_ROW

SQUARES = 32
#: Squares a man of each colour can stand on (not its own crowning row), as bit masks.
MEN_SQUARES = (FULL & ~KING_ROW[0], FULL & ~KING_ROW[1])
MEN_PLACES = 28

#: BINOMIAL[n, k] = C(n, k) for n <= 32, k <= 12.
BINOMIAL = np.array([[comb(n, k) for k in range(13)] for n in range(SQUARES + 1)], dtype=np.int64)


def _compact_tables():
    """(square -> place among a colour's men squares, place -> square) for black and white men."""
    to_place = np.full((2, SQUARES), -1, dtype=np.int64)
    to_square = np.zeros((2, MEN_PLACES), dtype=np.int64)
    for colour in range(2):
        place = 0
        for square in range(SQUARES):
            if MEN_SQUARES[colour] >> square & 1:
                to_place[colour, square] = place
                to_square[colour, place] = square
                place += 1
    return to_place, to_square


MAN_PLACE, PLACE_SQUARE = _compact_tables()


def slice_size(bm: int, bk: int, wm: int, wk: int) -> int:
    """Index entries of a slice (positions and holes), for one side to move."""
    return comb(MEN_PLACES, bm) * comb(SQUARES, bk) * comb(MEN_PLACES, wm) * comb(SQUARES, wk)


def slices(pieces: int):
    """Every slice with 1..``pieces`` pieces, each side at least one, in build order: fewer pieces
    first, then fewer men (a man's crowning moves a position to a slice with one man fewer)."""
    out = []
    for total in range(2, pieces + 1):
        for men in range(0, total + 1):
            for bm in range(men + 1):
                wm = men - bm
                for bk in range(total - men + 1):
                    wk = total - men - bk
                    if bm + bk >= 1 and wm + wk >= 1:
                        out.append((bm, bk, wm, wk))
    return out


#: KING_PLACE[square] = square: kings are ranked over all 32 squares.
KING_PLACE = np.arange(SQUARES, dtype=np.int64)


@njit(cache=True, inline="always")
def _rank(bits, place_of):
    """Colex rank of the piece set ``bits``, its squares numbered by ``place_of``."""
    rank, i = 0, 0
    while bits:
        i += 1
        rank += BINOMIAL[place_of[lowest_square(bits)], i]
        bits &= bits - 1
    return rank


@njit(cache=True)
def _unrank(rank, k, n):
    """The k-subset of range(n) with colex ``rank``, as a list of places in increasing order (array)."""
    out = np.zeros(k, dtype=np.int64)
    for i in range(k, 0, -1):
        x = i - 1
        while BINOMIAL[x + 1, i] <= rank:
            x += 1
        out[i - 1] = x
        rank -= BINOMIAL[x, i]
    return out


@njit(cache=True)
def position_index(bm_bits, bk_bits, wm_bits, wk_bits, bk, wm, wk):
    """Index of a position in its slice (the counts are the slice's)."""
    index = _rank(bm_bits, MAN_PLACE[0])
    index = index * BINOMIAL[SQUARES, bk] + _rank(bk_bits, KING_PLACE)
    index = index * BINOMIAL[MEN_PLACES, wm] + _rank(wm_bits, MAN_PLACE[1])
    return index * BINOMIAL[SQUARES, wk] + _rank(wk_bits, KING_PLACE)


@njit(cache=True)
def position_at(index, bm, bk, wm, wk, out):
    """Write the four bitboards of entry ``index`` of slice (bm, bk, wm, wk) into ``out[0:4]``; return
    False for a hole (two pieces on one square)."""
    r_wk = index % BINOMIAL[SQUARES, wk]
    index //= BINOMIAL[SQUARES, wk]
    r_wm = index % BINOMIAL[MEN_PLACES, wm]
    index //= BINOMIAL[MEN_PLACES, wm]
    r_bk = index % BINOMIAL[SQUARES, bk]
    r_bm = index // BINOMIAL[SQUARES, bk]
    boards = np.zeros(4, dtype=np.int64)
    for place in _unrank(r_bm, bm, MEN_PLACES):
        boards[0] |= 1 << PLACE_SQUARE[0, place]
    for square in _unrank(r_bk, bk, SQUARES):
        boards[1] |= 1 << square
    for place in _unrank(r_wm, wm, MEN_PLACES):
        boards[2] |= 1 << PLACE_SQUARE[1, place]
    for square in _unrank(r_wk, wk, SQUARES):
        boards[3] |= 1 << square
    used = 0
    for i in range(4):
        if boards[i] & used:
            return False
        used |= boards[i]
        out[i] = boards[i]
    return True


@njit(cache=True, parallel=True)
def _count_valid(bm, bk, wm, wk, size):
    chunks = 256                                   # spread over the cores, each chunk with its own board
    step = (size + chunks - 1) // chunks
    counts = np.zeros(chunks, dtype=np.int64)
    for chunk in prange(chunks):
        boards = np.zeros(4, dtype=np.int64)
        n = 0
        for i in range(chunk * step, min(size, (chunk + 1) * step)):
            if position_at(i, bm, bk, wm, wk, boards):
                n += 1
        counts[chunk] = n
    return counts.sum()


def count_placements(pieces: int) -> int:
    """Placements of exactly ``pieces`` pieces (any split between the sides, one side empty too; the
    side to move not counted), enumerated through this index: the figure Schaeffer et al. tabulate."""
    total = 0
    for men in range(pieces + 1):
        for bm in range(men + 1):
            for bk in range(pieces - men + 1):
                wm, wk = men - bm, pieces - men - bk
                total += _count_valid(bm, bk, wm, wk, slice_size(bm, bk, wm, wk))
    return total
