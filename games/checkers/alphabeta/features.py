"""The checkers evaluation features and the compiled linear evaluation over them.

Feature set ``checkers-psq`` version 1.  Every feature is counted for each
side *in that side's own frame* (square ``s`` for Black, ``31 - s`` for White:
the board turned half a turn, so a side's back rank is always squares 1-4 and
it always advances towards 29-32), and the evaluation from the point of view
of side P is

    f_P(position) = w . (phi(P) - phi(opponent))

so ``f_Black = -f_White`` (a zero-sum evaluation, as negamax wants) and one
table serves both colours.  phi(X) holds:

=====================  =====  =================================================
block                  index  value for side X
=====================  =====  =================================================
men, opening           0-31   p for each man of X on that square (own frame)
men, endgame           32-63  1 - p for each man of X on that square
kings                  64-95  1 for each king of X on that square
man material           96     number of men of X (weight fixed at 100: the scale)
king material          97     number of kings of X
mobility               98     quiet moves X would have if it were to move
=====================  =====  =================================================

``p`` is the game phase, (pieces on the board) / 24: a man's square is worth
``p * open[s] + (1 - p) * end[s]``, which lets the learned values change from
the opening (keep the back rank) to the endgame (run for the king row).  The
*material* evaluation is the same function with only the two material
weights set (man 100, king 130), so learned and material evaluations are
searched by the very same compiled code.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import lowest_square, popcount, quiet_moves

FEATURE_SET = "checkers-psq"
FEATURE_VERSION = 1
GAME = "checkers"
#: The position arrays the features read: a game declaring this layout (plyground.capabilities.PositionLayout)
#: is evaluated and searched by the compiled code here.
LAYOUT = "checkers-bitboard"

SQUARES = 32
MEN_OPEN, MEN_END, KINGS = 0, 32, 64
MAN_VALUE, KING_VALUE, MOBILITY = 96, 97, 98
NUM_FEATURES = 99
#: The man's material weight is fixed: it sets the scale (1 man = 100) of every evaluation.
FROZEN = (MAN_VALUE,)

MAN_MATERIAL = 100.0
KING_MATERIAL = 130.0
#: Most entries a sparse feature list can have: 3 per man or 2 per king (24 pieces), plus mobility.
MAX_ENTRIES = 24 * 3 + 1


def material_weights() -> np.ndarray:
    """Weights of the material-only evaluation: man 100, king 130, nothing else."""
    w = np.zeros(NUM_FEATURES, dtype=np.float64)
    w[MAN_VALUE] = MAN_MATERIAL
    w[KING_VALUE] = KING_MATERIAL
    return w


def feature_names() -> list[str]:
    """Readable names, squares numbered 1-32 in the side's own frame."""
    names = [f"men_open[{s + 1}]" for s in range(SQUARES)]
    names += [f"men_end[{s + 1}]" for s in range(SQUARES)]
    names += [f"kings[{s + 1}]" for s in range(SQUARES)]
    return names + ["man_material", "king_material", "mobility"]


def metadata() -> dict:
    """What a weights file for this feature set must say about itself."""
    return {"game": GAME, "feature_set": FEATURE_SET, "feature_set_version": FEATURE_VERSION,
            "feature_count": NUM_FEATURES}


@njit(cache=True, inline="always")
def _side_value(men, kings, side, phase, w):
    v = 0.0
    flip = 31 if side == 1 else 0
    man_value = w[MAN_VALUE]
    while men:
        s = lowest_square(men)
        men &= men - 1
        sq = s ^ flip if flip else s
        v += man_value + phase * w[MEN_OPEN + sq] + (1.0 - phase) * w[MEN_END + sq]
    king_value = w[KING_VALUE]
    while kings:
        s = lowest_square(kings)
        kings &= kings - 1
        sq = s ^ flip if flip else s
        v += king_value + w[KINGS + sq]
    return v


@njit(cache=True, inline="always")
def _phase(total):
    return min(total, 24) / 24.0


# ----------------------------------------------------------------- evaluation

@njit(cache=True)
def evaluate_boards(bm, bk, wm, wk, perspective, w):
    """f from ``perspective``'s point of view (0 Black, 1 White) of the four bitboards."""
    occupied = bm | bk | wm | wk
    empty = ~occupied & 0xFFFFFFFF
    phase = _phase(popcount(occupied))
    black = _side_value(bm, bk, 0, phase, w) - _side_value(wm, wk, 1, phase, w)
    black += w[MOBILITY] * (quiet_moves(bm, bk, empty, 0) - quiet_moves(wm, wk, empty, 1))
    return black if perspective == 0 else -black


@njit(cache=True)
def evaluate(pos, w):
    """f of a kernels position array from the side to move's point of view."""
    return evaluate_boards(pos[0], pos[1], pos[2], pos[3], pos[4], w)


@njit(cache=True)
def sparse_features(bm, bk, wm, wk, perspective, idx, val):
    """phi(perspective) - phi(opponent) as a sparse list in ``idx[:n]``, ``val[:n]``; returns n.

    An index may occur more than once (its values add up); ``w . phi`` equals
    :func:`evaluate_boards` up to rounding.
    """
    occupied = bm | bk | wm | wk
    empty = ~occupied & 0xFFFFFFFF
    phase = _phase(popcount(occupied))
    n = 0
    for side in range(2):
        sign = 1.0 if side == perspective else -1.0
        men = bm if side == 0 else wm
        kings = bk if side == 0 else wk
        flip = 31 if side == 1 else 0
        while men:
            s = lowest_square(men)
            men &= men - 1
            sq = s ^ flip if flip else s
            idx[n] = MEN_OPEN + sq
            val[n] = sign * phase
            idx[n + 1] = MEN_END + sq
            val[n + 1] = sign * (1.0 - phase)
            idx[n + 2] = MAN_VALUE
            val[n + 2] = sign
            n += 3
        while kings:
            s = lowest_square(kings)
            kings &= kings - 1
            sq = s ^ flip if flip else s
            idx[n] = KINGS + sq
            val[n] = sign
            idx[n + 1] = KING_VALUE
            val[n + 1] = sign
            n += 2
    mob = quiet_moves(bm, bk, empty, 0) - quiet_moves(wm, wk, empty, 1)
    if mob != 0:
        idx[n] = MOBILITY
        val[n] = mob if perspective == 0 else -mob
        n += 1
    return n


def dense_features(pos: np.ndarray, perspective: int | None = None) -> np.ndarray:
    """phi(perspective) - phi(opponent) as a dense vector (for tests and inspection)."""
    perspective = int(pos[4]) if perspective is None else perspective
    idx = np.empty(MAX_ENTRIES, dtype=np.int64)
    val = np.empty(MAX_ENTRIES, dtype=np.float64)
    n = sparse_features(pos[0], pos[1], pos[2], pos[3], perspective, idx, val)
    out = np.zeros(NUM_FEATURES)
    np.add.at(out, idx[:n], val[:n])
    return out
