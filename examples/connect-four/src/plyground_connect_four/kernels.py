"""Compiled Connect Four kernels (docs/kernels.md): what makes the compiled players search this game.

Position: ``[own, every, side_to_move, ply]``, where ``own`` holds the discs of
the side to move and ``every`` all discs, as bitboards in the layout of
:mod:`.game` (cell (row, column) is bit ``column * 7 + row``; the seventh bit
of each column stays empty, so shifted lines never wrap into the next column).
A move code is the column, 0-6: the State's move and its action index.

Playing a disc is two operations: the opponent's discs (``own ^ every``)
become ``own``, and adding the column's bottom bit to ``every`` carries up to
the first empty cell of that column.
"""
from types import SimpleNamespace

import numpy as np
from numba import njit

from plyground.capabilities import move_is_code

from .game import BOTTOM, COLUMN_BITS, COLUMNS, ROWS, bitboards

POS_SIZE = 4
MAX_MOVES = COLUMNS
_SHIFTS = (1, COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1)   # up, across, the two diagonals


@njit(cache=True)
def _has_four(discs):
    for shift in _SHIFTS:
        pairs = discs & (discs >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True)
def current_player(pos):
    return pos[2]


@njit(cache=True)
def gen_moves(pos, out):
    """The columns that are not full, left to right; none once the side that just moved has four."""
    if _has_four(pos[0] ^ pos[1]):
        return 0
    n = 0
    for column in range(COLUMNS):
        if not (pos[1] >> (column * COLUMN_BITS + ROWS - 1)) & 1:
            out[n] = column
            n += 1
    return n


@njit(cache=True)
def apply_move(pos, code):
    pos[0] ^= pos[1]
    pos[1] |= pos[1] + (np.int64(1) << (code * COLUMN_BITS))
    pos[2] = 1 - pos[2]
    pos[3] += 1


@njit(cache=True)
def outcome(pos, n_legal):
    if _has_four(pos[0] ^ pos[1]):
        return 1 - pos[2]            # the side that moved last made the line
    return 2 if n_legal == 0 else -1


# ------------------------------------------------------------ the learner kernels (docs/kernels.md)

@njit(cache=True)
def encode(pos, out):
    """State.observation(): planes (2, 6, 7), the side to move's discs, then the other side's."""
    other = pos[0] ^ pos[1]
    for column in range(COLUMNS):
        for row in range(ROWS):
            bit = column * COLUMN_BITS + row
            out[0, row, column] = (pos[0] >> bit) & 1
            out[1, row, column] = (other >> bit) & 1


@njit(cache=True)
def action_of(pos, code):
    return code


@njit(cache=True)
def position_key(pos):
    """State.key(): the unique bitboard key of :func:`.game.bitboard_key`."""
    return pos[0] + pos[1] + BOTTOM


# ------------------------------------------------------------ between States and positions

def state_to_pos(state) -> np.ndarray:
    own, every = bitboards(state.cells, state.to_move)
    return np.array([own, every, state.to_move, state.ply], dtype=np.int64)


KERNELS = SimpleNamespace(
    pos_size=POS_SIZE, max_moves=MAX_MOVES, gen_moves=gen_moves, apply_move=apply_move,
    outcome=outcome, current_player=current_player,
    state_to_pos=state_to_pos, code_to_move=move_is_code, move_to_code=move_is_code,
    encode=encode, action_of=action_of, position_key=position_key,
)
