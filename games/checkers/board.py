"""Board geometry of English checkers, computed once at import in plain Python.

Squares are numbered 1-32 as in every checkers book: the board is drawn with
Black at the top, square 1 is b8 and square 32 is g1, four squares per row:

    row 0 (rank 8):    1   2   3   4      on columns b d f h
    row 1 (rank 7):  5   6   7   8        on columns a c e g
    ...
    row 7 (rank 1): 29  30  31  32        on columns a c e g

Inside the engine a square is its number minus one (0-31) and bit ``s`` of a
bitboard is square ``s + 1``.  Black starts on 1-12 and moves "down" (towards
higher numbers); White starts on 21-32 and moves "up".

Everything else (the kernels, notation, encodings) derives from the tables
here, so the geometry is written down exactly once.
"""
from __future__ import annotations

import numpy as np

SQUARES = 32
FULL = (1 << SQUARES) - 1

# Directions: "up" is towards row 0 (White's forward), "down" towards row 7 (Black's forward).
UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT = 0, 1, 2, 3
DIRECTION_NAMES = ("up-left", "up-right", "down-left", "down-right")
_DELTAS = ((-1, -1), (-1, 1), (1, -1), (1, 1))

#: Directions a man of each side may move in (player 0 = Black moves down).
MAN_DIRECTIONS = ((DOWN_LEFT, DOWN_RIGHT), (UP_LEFT, UP_RIGHT))

#: King rows: where a man of each side is crowned (Black on 29-32, White on 1-4).
KING_ROW = (0xF << 28, 0xF)


def square_to_rowcol(s: int) -> tuple[int, int]:
    """Row (0 = top = rank 8) and column (0 = a) of 0-based square ``s``."""
    row, k = divmod(s, 4)
    return row, 2 * k + (1 if row % 2 == 0 else 0)


def rowcol_to_square(row: int, col: int) -> int:
    """0-based square at (row, col), or -1 for a light square or off the board."""
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2 == 0:
        return -1
    return row * 4 + col // 2


def square_name(s: int) -> str:
    """Algebraic name (``b8`` for square 1) of 0-based square ``s``."""
    row, col = square_to_rowcol(s)
    return "abcdefgh"[col] + str(8 - row)


def _tables() -> tuple[np.ndarray, np.ndarray]:
    step = np.full((4, SQUARES), -1, dtype=np.int64)
    jump = np.full((4, SQUARES), -1, dtype=np.int64)
    for s in range(SQUARES):
        row, col = square_to_rowcol(s)
        for d, (dr, dc) in enumerate(_DELTAS):
            step[d, s] = rowcol_to_square(row + dr, col + dc)
            if step[d, s] >= 0:
                jump[d, s] = rowcol_to_square(row + 2 * dr, col + 2 * dc)
    return step, jump


#: STEP[d, s]: the neighbour of s in direction d; JUMP[d, s]: the square behind it (-1: none).
STEP, JUMP = _tables()


def _shift_masks() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each direction, (mask, delta) pairs: squares in ``mask`` reach ``s + delta``.

    The delta depends on the row's parity (3/4/5), which is why a bitboard
    "move everything one step" is two masked shifts rather than one.
    """
    out = []
    for d in range(4):
        by_delta: dict[int, int] = {}
        for s in range(SQUARES):
            t = int(STEP[d, s])
            if t >= 0:
                by_delta[t - s] = by_delta.get(t - s, 0) | (1 << s)
        assert len(by_delta) == 2
        out.append(tuple(sorted(by_delta.items(), key=lambda kv: abs(kv[0]))))
    return tuple((mask, delta) for pair in out for delta, mask in pair)


# Flattened: direction d uses entries 2d and 2d+1, each (mask, delta).
SHIFT_MASKS = _shift_masks()

#: Zobrist keys: [black man, black king, white man, white king] x square, and the side key.
_rng = np.random.default_rng(0x0C4EC7E5)
ZOBRIST = _rng.integers(0, 2**63 - 1, size=(4, SQUARES), dtype=np.int64)
ZOBRIST_SIDE = int(_rng.integers(0, 2**63 - 1, dtype=np.int64))
del _rng
