"""Bit helpers over 32-square checkers bitboards (bit s = square s + 1), compiled with numba.

The one set the move generator (:mod:`.kernels`), the alpha-beta search and
its evaluation features share.  Every helper is ``inline="always"``, so
calling it costs nothing in compiled code.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .board import SHIFT_MASKS

# Masked shifts moving every bit one step in a direction; the deltas depend on
# the row's parity (see board.SHIFT_MASKS, asserted here so a change cannot go unnoticed).
assert [d for _, d in SHIFT_MASKS] == [-4, -5, -3, -4, 3, 4, 4, 5]
_UL4, _UL5, _UR3, _UR4, _DL3, _DL4, _DR4, _DR5 = (m for m, _ in SHIFT_MASKS)
_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)


@njit(cache=True, inline="always")
def up_left(b):
    return ((b & _UL4) >> 4) | ((b & _UL5) >> 5)


@njit(cache=True, inline="always")
def up_right(b):
    return ((b & _UR3) >> 3) | ((b & _UR4) >> 4)


@njit(cache=True, inline="always")
def down_left(b):
    return ((b & _DL3) << 3) | ((b & _DL4) << 4)


@njit(cache=True, inline="always")
def down_right(b):
    return ((b & _DR4) << 4) | ((b & _DR5) << 5)


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a 32-bit board."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(cache=True, inline="always")
def lowest_square(b):
    """Index of the lowest set bit of a non-zero 32-bit board (de Bruijn multiplication)."""
    return _DEBRUIJN[(((b & -b) * 0x077CB531) >> 27) & 31]


@njit(cache=True, inline="always")
def reverse_board(b):
    """A 32-square board turned half a turn: square s becomes square 31 - s (the other side's frame)."""
    b = ((b >> 1) & 0x55555555) | ((b & 0x55555555) << 1)
    b = ((b >> 2) & 0x33333333) | ((b & 0x33333333) << 2)
    b = ((b >> 4) & 0x0F0F0F0F) | ((b & 0x0F0F0F0F) << 4)
    b = ((b >> 8) & 0x00FF00FF) | ((b & 0x00FF00FF) << 8)
    return ((b >> 16) & 0xFFFF) | ((b & 0xFFFF) << 16)


@njit(cache=True, inline="always")
def quiet_moves(men, kings, empty, side):
    """Non-capturing moves of one side's pieces (side 0 moves down the board, side 1 up), counted with shifts."""
    down = (men if side == 0 else 0) | kings
    up = (men if side == 1 else 0) | kings
    return (popcount(down_left(down) & empty) + popcount(down_right(down) & empty)
            + popcount(up_left(up) & empty) + popcount(up_right(up) & empty))
