"""NNUE for checkers: its inputs, and its evaluation updated as moves are made inside the compiled search.

The network, its quantization and files are every game's
(:mod:`plyground.negamax.nnue`); this module says what checkers' inputs are
and how a move changes them.  The inputs are sparse: each piece on the board is one of 128 features, seen
from one side ("perspective"): its kind (the perspective's own men, own kings,
the other side's men, the other side's kings) times its square in that side's
own frame (square ``s`` for Black, ``31 - s`` for White, as in
:mod:`.features`, so one set of weights serves both colours).  The network:

    a_P = clip(b1 + sum of W1's rows of P's active features)        for P = Black, White  (H each)
    h   = clip(W2[b] . [a_mover, a_other] + b2[b])                   (K)
    out = W3[b] . h + b3[b]                                           (men; x 100: the search's unit)

with ``clip`` the clipped ReLU, min(max(x, 0), 1), and ``b`` the bucket of the
number of pieces on the board.  The first layer is the
expensive part done cheaply: its two sums (the "accumulators", one per
perspective) change by a few rows per move: the squares a move empties and
fills, captured pieces included.  They are kept per ply of the search
(:class:`plyground.negamax.core.Evaluation`'s ``push``: the child's
accumulators are its parent's plus and minus those rows), so unmaking a move
costs nothing: the ply below still holds its own.

The accumulators are integers, so an incrementally updated accumulator is
*exactly* the one a full recomputation gives, however long the line.  A
float64 reference of the same arithmetic (:func:`reference_value`) and of the
unquantized network (:func:`float_value`) serve training and the tests.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from plyground.negamax import core
from plyground.negamax import nnue as shared
from plyground.negamax.nnue import Network, add_row, bucket, output, sub_row

from ..bits import lowest_square, popcount
from ..kernels import BLACK_KINGS, BLACK_MEN, SIDE, WHITE_KINGS, WHITE_MEN
from .compiled import MAX_PLY
from .features import MAN_MATERIAL

SQUARES = 32
#: Inputs per perspective: own men, own kings, the other side's men, the other side's kings, by square.
INPUTS = 4 * SQUARES
#: The most pieces a checkers position has: the most active inputs of a perspective.
MAX_PIECES = 24
#: The largest first-layer weight or bias (1.0 units) the int16 accumulators hold 25 of.
W1_LIMIT = shared.w1_limit(MAX_PIECES)
#: The search's score of an output of 1.0 (one man).
OUTPUT_SCALE = MAN_MATERIAL
#: What a model file must say it was made for.
FEATURES = {"game": "checkers", "feature_set": "checkers-nnue-psq", "feature_set_version": 1, "inputs": INPUTS}
ADVICE = "give a checkers NNUE file, as nnue.save writes"


def initial(hidden: int = 32, dense: int = 16, seed: int = 0, buckets: int = 1) -> Network:
    """A checkers network of random weights."""
    return shared.initial(INPUTS, hidden, dense, MAX_PIECES, seed, buckets)


def quantize(net: Network) -> tuple:
    """The evaluation's arrays ``E`` for the compiled search (ValueError if the network does not fit)."""
    if net.inputs != INPUTS:
        raise ValueError(f"NNUE shapes: W1 {net.w1.shape} does not have checkers' {INPUTS} inputs")
    return shared.quantize(net, MAX_PIECES, MAX_PLY + 1)


def save(path: Path, net: Network, metadata: dict | None = None) -> None:
    shared.save(path, net, FEATURES, metadata)


def load(path: Path) -> tuple[Network, dict]:
    return shared.load(path, FEATURES, MAX_PIECES, ADVICE)


def feature_index(perspective: int, board: int, square: int) -> int:
    """The input of a piece on ``board`` (BLACK_MEN, BLACK_KINGS, WHITE_MEN, WHITE_KINGS) at ``square``,
    seen from ``perspective`` (0 Black, 1 White)."""
    return int(_index(perspective, board, square))


def active_features(pos: np.ndarray, perspective: int) -> list[int]:
    """The inputs that are on in ``pos`` (a kernels position array), seen from ``perspective``."""
    return [feature_index(perspective, board, s) for board in (BLACK_MEN, BLACK_KINGS, WHITE_MEN, WHITE_KINGS)
            for s in range(SQUARES) if (int(pos[board]) >> s) & 1]


# ------------------------------------------------------------------ compiled

@njit(cache=True, inline="always")
def _index(perspective, board, square):
    kind = (0 if board // 2 == perspective else 2) + board % 2
    return kind * SQUARES + (square ^ (31 if perspective == 1 else 0))


@njit(cache=True, inline="always")
def _piece_rows(acc, w1, board, bits, add):
    """Add (``add``) or subtract the rows of the pieces ``bits`` on ``board`` to both perspectives' ``acc``."""
    while bits:
        s = lowest_square(bits)
        bits &= bits - 1
        if add:
            add_row(acc[0], w1, _index(0, board, s))
            add_row(acc[1], w1, _index(1, board, s))
        else:
            sub_row(acc[0], w1, _index(0, board, s))
            sub_row(acc[1], w1, _index(1, board, s))


@njit(cache=True)
def refresh(pos, w1, b1, acc):
    """``acc`` (2, H): both perspectives' accumulators of ``pos`` (row 0 Black's, row 1 White's) computed
    from scratch."""
    for p in range(2):
        for k in range(acc.shape[1]):
            acc[p, k] = b1[k]
    for board in range(4):
        _piece_rows(acc, w1, board, pos[board], True)


@njit(cache=True)
def update(parent, child, w1, source, target):
    """``target`` (2, H): the accumulators of ``child`` from those of ``parent`` (``source``): the rows of the
    pieces the move took away subtracted, those it put down added (captures and crowning included)."""
    for p in range(2):
        for k in range(target.shape[1]):
            target[p, k] = source[p, k]
    for board in range(4):
        _piece_rows(target, w1, board, parent[board] & ~child[board], False)
        _piece_rows(target, w1, board, child[board] & ~parent[board], True)


@njit(cache=True, inline="always")
def _root(pos, E):
    refresh(pos, E[0], E[1], E[7][0])


@njit(cache=True, inline="always")
def _push(parent, child, move, ply, E):
    accumulators = E[7]
    update(parent, child, E[0], accumulators[ply - 1], accumulators[ply])


@njit(cache=True, inline="always")
def dense_value(acc, pos, E):
    """The dense layers of ``pos``'s bucket (by its pieces) on its accumulators ``acc``, in search units."""
    pieces = popcount(pos[BLACK_MEN] | pos[BLACK_KINGS] | pos[WHITE_MEN] | pos[WHITE_KINGS])
    b = bucket(pieces, E[2].shape[0], MAX_PIECES)
    return OUTPUT_SCALE * output(acc, pos[SIDE], b, E[2], E[3], E[4], E[5], E[6])


@njit(cache=True, inline="always")
def _value(pos, ply, E):
    return dense_value(E[7][ply], pos, E)


#: The NNUE evaluation of the compiled search; its arrays are :func:`quantize`'s.
NNUE = core.Evaluation(root=_root, push=_push, value=_value)


@njit(cache=True)
def evaluate(pos, E):
    """The evaluation of one position from scratch (search units; the search without kernels): its
    accumulators computed into ply 0's, then the shared dense layers (:func:`plyground.negamax.nnue.output`,
    which takes ``E``'s transposed W2)."""
    acc = E[7][0]
    refresh(pos, E[0], E[1], acc)
    return dense_value(acc, pos, E)


# ------------------------------------------------------------------ training data

@njit(cache=True)
def _batch_features(positions, mover_out, other_out):
    """Fills both arrays; returns -1, or the first row with more pieces than they have room for (its entries
    and the ones after it are left unwritten)."""
    for r in range(positions.shape[0]):
        pos = positions[r]
        if popcount(pos[0]) + popcount(pos[1]) + popcount(pos[2]) + popcount(pos[3]) > mover_out.shape[1]:
            return r
        mover = pos[SIDE]
        n = 0
        for board in range(4):
            bits = pos[board]
            while bits:
                s = lowest_square(bits)
                bits &= bits - 1
                mover_out[r, n] = _index(mover, board, s)
                other_out[r, n] = _index(1 - mover, board, s)
                n += 1
        for k in range(n, mover_out.shape[1]):
            mover_out[r, k] = -1
            other_out[r, k] = -1
    return -1


def batch_features(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The active inputs of each position (rows of kernels position arrays), seen from its side to move and
    from the other side: two (N, 24) int64 arrays padded with -1, as a sparse first layer takes them."""
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    mover = np.empty((len(positions), MAX_PIECES), np.int64)
    other = np.empty((len(positions), MAX_PIECES), np.int64)
    crowded = _batch_features(positions, mover, other)
    if crowded >= 0:
        raise ValueError(f"position {crowded} has more than {MAX_PIECES} pieces: not a checkers position")
    return mover, other


# ------------------------------------------------------------------ float64 references

def reference_value(E: tuple, pos: np.ndarray) -> float:
    """What the compiled evaluation computes for ``pos`` (search units), in float64 numpy from scratch."""
    mover = int(pos[SIDE])
    return OUTPUT_SCALE * shared.reference_output(E, active_features(pos, mover), active_features(pos, 1 - mover),
                                                  MAX_PIECES)


def float_value(net: Network, pos: np.ndarray) -> float:
    """The unquantized network's value of ``pos`` (search units), in float64."""
    mover = int(pos[SIDE])
    return OUTPUT_SCALE * shared.float_output(net, active_features(pos, mover), active_features(pos, 1 - mover),
                                              MAX_PIECES)


__all__ = ["Network", "NNUE", "INPUTS", "MAX_PIECES", "W1_LIMIT", "OUTPUT_SCALE", "FEATURES", "initial",
           "quantize", "save", "load", "evaluate", "feature_index", "active_features", "batch_features", "refresh", "update",
           "dense_value", "bucket", "reference_value", "float_value"]
