"""NNUE for checkers: a small network whose first layer is updated as moves are made, inside the compiled search.

An "efficiently updatable neural network" (Nasu 2018; Stockfish since 2020).
The inputs are sparse: each piece on the board is one of 128 features, seen
from one side ("perspective"): its kind (the perspective's own men, own kings,
the other side's men, the other side's kings) times its square in that side's
own frame (square ``s`` for Black, ``31 - s`` for White, as in
:mod:`.features`, so one set of weights serves both colours).  The network:

    a_P = clip(b1 + sum of W1's rows of P's active features)        for P = Black, White  (H each)
    h   = clip(W2 . [a_mover, a_other] + b2)                         (K)
    out = W3 . h + b3                                                 (men; x 100: the search's unit)

with ``clip`` the clipped ReLU, min(max(x, 0), 1).  The first layer is the
expensive part done cheaply: its two sums (the "accumulators", one per
perspective) change by a few rows per move: the squares a move empties and
fills, captured pieces included.  They are kept per ply of the search
(:class:`plyground.negamax.core.Evaluation`'s ``push``: the child's
accumulators are its parent's plus and minus those rows), so unmaking a move
costs nothing: the ply below still holds its own.

The accumulators are integers (int16, ``QA = 127`` units per 1.0), so an
incrementally updated accumulator is *exactly* the one a full recomputation
gives, however long the line; the weights are quantized once
(:func:`quantize`), and the two dense layers run in float32.  A float64
reference of the same arithmetic (:func:`reference_value`) and of the
unquantized network (:func:`float_value`) serve training and the tests.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from plyground.negamax import core

from ..bits import lowest_square
from ..kernels import BLACK_KINGS, BLACK_MEN, SIDE, WHITE_KINGS, WHITE_MEN
from .compiled import MAX_PLY
from .features import MAN_MATERIAL

SQUARES = 32
#: Inputs per perspective: own men, own kings, the other side's men, the other side's kings, by square.
INPUTS = 4 * SQUARES
#: Accumulator units per 1.0 of the first layer's output (the clipped ReLU's top).
QA = 127
#: The most pieces a checkers position has: with the bias, 25 rows at most add up in one accumulator.
MAX_PIECES = 24
#: The largest first-layer weight or bias (in 1.0 units) whose sums cannot overflow int16.
W1_LIMIT = np.iinfo(np.int16).max / ((MAX_PIECES + 1) * QA)
#: The search's score of an output of 1.0 (one man).
OUTPUT_SCALE = MAN_MATERIAL


class Network(NamedTuple):
    """The float weights (what training changes): W1 (INPUTS, H), b1 (H), W2 (2H, K), b2 (K), W3 (K), b3 ()."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def dense(self) -> int:
        return int(self.w2.shape[1])


def initial(hidden: int = 32, dense: int = 16, seed: int = 0) -> Network:
    """A network of random weights (He-style scales), small enough that its first layer quantizes."""
    rng = np.random.default_rng(seed)
    return Network(
        w1=rng.normal(0.0, 0.5 / np.sqrt(MAX_PIECES), (INPUTS, hidden)).clip(-W1_LIMIT, W1_LIMIT),
        b1=np.full(hidden, 0.25),
        w2=rng.normal(0.0, np.sqrt(2.0 / (2 * hidden)), (2 * hidden, dense)),
        b2=np.zeros(dense),
        w3=rng.normal(0.0, np.sqrt(1.0 / dense), dense),
        b3=np.zeros(()),
    )


def feature_index(perspective: int, board: int, square: int) -> int:
    """The input of a piece on ``board`` (BLACK_MEN, BLACK_KINGS, WHITE_MEN, WHITE_KINGS) at ``square``,
    seen from ``perspective`` (0 Black, 1 White)."""
    kind = (0 if board // 2 == perspective else 2) + board % 2
    return kind * SQUARES + (square ^ (31 if perspective == 1 else 0))


def active_features(pos: np.ndarray, perspective: int) -> list[int]:
    """The inputs that are on in ``pos`` (a kernels position array), seen from ``perspective``."""
    return [feature_index(perspective, board, s) for board in (BLACK_MEN, BLACK_KINGS, WHITE_MEN, WHITE_KINGS)
            for s in range(SQUARES) if (int(pos[board]) >> s) & 1]


def quantize(net: Network) -> tuple:
    """The evaluation's arrays ``E`` for the compiled search: the first layer in int16 accumulator units, the
    dense layers in float32 (W2 divided by QA, so that it takes the accumulators as they are), scratch space,
    and the accumulators of every ply.  ValueError if a first-layer weight could overflow."""
    largest = max(float(np.abs(net.w1).max()), float(np.abs(net.b1).max()))
    if largest > W1_LIMIT:
        raise ValueError(f"NNUE first-layer weight {largest:.3f} beyond {W1_LIMIT:.3f}: 25 such rows could "
                         f"overflow the int16 accumulators (clip the weights while training)")
    hidden, dense = net.hidden, net.dense
    if net.w1.shape != (INPUTS, hidden) or net.w2.shape != (2 * hidden, dense) or net.w3.shape != (dense,):
        raise ValueError(f"NNUE shapes W1 {net.w1.shape}, W2 {net.w2.shape}, W3 {net.w3.shape} do not fit "
                         f"{INPUTS} inputs, {hidden} hidden, {dense} dense")
    w1 = np.round(np.asarray(net.w1, np.float64) * QA).astype(np.int16)
    b1 = np.round(np.asarray(net.b1, np.float64) * QA).astype(np.int16)
    w2 = np.ascontiguousarray(np.asarray(net.w2, np.float64) / QA, dtype=np.float32)
    b2 = np.ascontiguousarray(net.b2, dtype=np.float32)
    w3 = np.ascontiguousarray(net.w3, dtype=np.float32)
    b3 = np.array([float(net.b3)], dtype=np.float32)
    scratch = np.zeros(dense, np.float32)
    accumulators = np.zeros((MAX_PLY + 1, 2, hidden), np.int16)
    return (w1, b1, w2, b2, w3, b3, scratch, accumulators)


# ------------------------------------------------------------------ compiled

@njit(cache=True, inline="always")
def _index(perspective, board, square):
    kind = (0 if board // 2 == perspective else 2) + board % 2
    return kind * 32 + (square ^ (31 if perspective == 1 else 0))


@njit(cache=True, inline="always")
def _add_row(acc, w1, f):
    for k in range(acc.shape[0]):
        acc[k] += w1[f, k]


@njit(cache=True, inline="always")
def _sub_row(acc, w1, f):
    for k in range(acc.shape[0]):
        acc[k] -= w1[f, k]


@njit(cache=True)
def refresh(pos, w1, b1, acc):
    """``acc`` (2, H): both perspectives' accumulators of ``pos`` computed from scratch."""
    for p in range(2):
        for k in range(acc.shape[1]):
            acc[p, k] = b1[k]
    for board in range(4):
        bits = pos[board]
        while bits:
            s = lowest_square(bits)
            bits &= bits - 1
            _add_row(acc[0], w1, _index(0, board, s))
            _add_row(acc[1], w1, _index(1, board, s))


@njit(cache=True)
def update(parent, child, w1, source, target):
    """``target`` (2, H): the accumulators of ``child`` from those of ``parent`` (``source``): the rows of the
    pieces the move took away subtracted, those it put down added."""
    for p in range(2):
        for k in range(target.shape[1]):
            target[p, k] = source[p, k]
    for board in range(4):
        gone = parent[board] & ~child[board]
        while gone:
            s = lowest_square(gone)
            gone &= gone - 1
            _sub_row(target[0], w1, _index(0, board, s))
            _sub_row(target[1], w1, _index(1, board, s))
        put = child[board] & ~parent[board]
        while put:
            s = lowest_square(put)
            put &= put - 1
            _add_row(target[0], w1, _index(0, board, s))
            _add_row(target[1], w1, _index(1, board, s))


@njit(cache=True, inline="always")
def _dense_in(h, acc, w2, offset):
    for i in range(acc.shape[0]):
        a = acc[i]
        if a > 0:
            x = np.float32(min(a, 127))
            for j in range(h.shape[0]):
                h[j] += x * w2[offset + i, j]


@njit(cache=True)
def output(acc, mover, w2, b2, w3, b3, h):
    """The network's output (men) from the accumulators ``acc`` (2, H) of a position whose side to move is
    ``mover``; ``h`` is scratch of the dense layer's size."""
    for j in range(h.shape[0]):
        h[j] = b2[j]
    _dense_in(h, acc[mover], w2, 0)
    _dense_in(h, acc[1 - mover], w2, acc.shape[1])
    out = b3[0]
    for j in range(h.shape[0]):
        x = h[j]
        if x > 0.0:
            out += (x if x < 1.0 else np.float32(1.0)) * w3[j]
    return out


@njit(cache=True, inline="always")
def _root(pos, E):
    refresh(pos, E[0], E[1], E[7][0])


@njit(cache=True, inline="always")
def _push(parent, child, move, ply, E):
    accumulators = E[7]
    update(parent, child, E[0], accumulators[ply - 1], accumulators[ply])


@njit(cache=True, inline="always")
def _value(pos, ply, E):
    return OUTPUT_SCALE * output(E[7][ply], pos[SIDE], E[2], E[3], E[4], E[5], E[6])


#: The NNUE evaluation of the compiled search; its arrays are :func:`quantize`'s.
NNUE = core.Evaluation(root=_root, push=_push, value=_value)


# ------------------------------------------------------------------ float64 references

def reference_value(E: tuple, pos: np.ndarray) -> float:
    """What the compiled evaluation computes for ``pos`` (search units), in float64 numpy from scratch."""
    w1, b1, w2, b2, w3, b3 = (np.asarray(a, np.float64) for a in E[:6])
    mover = int(pos[SIDE])
    acc = [b1 + w1[active_features(pos, p)].sum(axis=0) for p in (0, 1)]
    x = np.concatenate([np.clip(acc[mover], 0, QA), np.clip(acc[1 - mover], 0, QA)])
    h = np.clip(x @ w2 + b2, 0.0, 1.0)
    return OUTPUT_SCALE * float(h @ w3 + b3[0])


def float_value(net: Network, pos: np.ndarray) -> float:
    """The unquantized network's value of ``pos`` (search units), in float64."""
    mover = int(pos[SIDE])
    acc = [net.b1 + net.w1[active_features(pos, p)].sum(axis=0) for p in (0, 1)]
    x = np.concatenate([np.clip(acc[mover], 0.0, 1.0), np.clip(acc[1 - mover], 0.0, 1.0)])
    h = np.clip(x @ net.w2 + net.b2, 0.0, 1.0)
    return OUTPUT_SCALE * float(h @ net.w3 + net.b3)


__all__ = ["Network", "NNUE", "INPUTS", "QA", "W1_LIMIT", "OUTPUT_SCALE", "initial", "feature_index",
           "active_features", "quantize", "refresh", "update", "output", "reference_value", "float_value"]
