"""The pattern evaluation's weights fitted by logistic regression (docs/patterns.md, "Training").

Each example is a position and a target in [0, 1], its side to move's expected score (the ``nnue``
trainer's targets: a blend of the search's score and the game's result, exact where the endgame
database knows).  The evaluation :mod:`.patterns` is linear in its weights, ``v = w . x`` with ``x`` the
position's sparse features (each split into its opening and endgame share by the phase), and the model
is ``sigmoid(slope * v)`` with the game's winning-chances slope, so fitting it is logistic regression:

    minimise  mean( softplus(slope * v) - target * slope * v )  +  l2 / 2 * |w|^2

(the cross-entropy of the prediction against the target, convex in ``w``).
Adam on mini-batches of a seeded shuffle, the step size on a cosine to zero over the epochs; the
features are computed from the positions as each batch needs them (a few million positions' features
would take gigabytes).  The held-out loss is reported as the cross-entropy and as the ``nnue`` trainer's
squared error ``(sigmoid(slope * v) - target)^2``, so the two evaluations' figures compare.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
from numba import njit

from plyground.util.closure_cache import cache_on_disk

from .patterns import FEATURE_COUNT, MAX_ENTRIES, PHASES, PatternWeights, initial, sparse_features


@njit(cache=True, inline="always")
def _softplus(z):
    return z + np.log1p(np.exp(-z)) if z > 0 else np.log1p(np.exp(z))


@njit(cache=True, inline="always")
def _value(pos, W, idx, val):
    """(value, n, phase): the value of ``pos`` with its features left in ``idx[:n]``, ``val[:n]``."""
    n, phase = sparse_features(pos, idx, val)
    v = 0.0
    for k in range(n):
        v += val[k] * (phase * W[idx[k], 0] + (1.0 - phase) * W[idx[k], 1])
    return v, n, phase


def _losses(positions, targets, rows, W, slope):
    """(cross-entropy, squared error) of ``W`` on ``positions[rows]``, each averaged."""
    idx = np.empty(MAX_ENTRIES, np.int64)
    val = np.empty(MAX_ENTRIES, np.float64)
    cross = squared = 0.0
    for r in rows:
        v, _, _ = _value(positions[r], W, idx, val)
        z = slope * v
        t = targets[r]
        cross += _softplus(z) - t * z
        s = 1.0 / (1.0 + np.exp(-z))
        squared += (s - t) * (s - t)
    count = max(1, rows.shape[0])
    return cross / count, squared / count


def _adam_epoch(positions, targets, order, batch, W, M, V, step, lr0, total_steps, l2, slope, grad):
    """One pass of Adam over ``positions[order]`` in batches of ``batch``, the step size going from ``lr0`` on a
    cosine to 0 at ``total_steps``; returns (the mean training cross-entropy, the steps taken so far)."""
    idx = np.empty(MAX_ENTRIES, np.int64)
    val = np.empty(MAX_ENTRIES, np.float64)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    total = 0.0
    for start in range(0, order.shape[0], batch):
        stop = min(start + batch, order.shape[0])
        scale = 1.0 / (stop - start)
        for f in range(W.shape[0]):
            for c in range(PHASES):
                grad[f, c] = l2 * W[f, c]
        for r in order[start:stop]:
            v, n, phase = _value(positions[r], W, idx, val)
            z = slope * v
            t = targets[r]
            total += _softplus(z) - t * z
            g = slope * (1.0 / (1.0 + np.exp(-z)) - t) * scale
            for k in range(n):
                grad[idx[k], 0] += g * val[k] * phase
                grad[idx[k], 1] += g * val[k] * (1.0 - phase)
        step += 1
        lr = lr0 * 0.5 * (1.0 + np.cos(np.pi * min(step - 1, total_steps) / total_steps))
        correction1 = 1.0 - beta1 ** step
        correction2 = 1.0 - beta2 ** step
        for f in range(W.shape[0]):
            for c in range(PHASES):
                g = grad[f, c]
                M[f, c] = beta1 * M[f, c] + (1.0 - beta1) * g
                V[f, c] = beta2 * V[f, c] + (1.0 - beta2) * g * g
                W[f, c] -= lr * (M[f, c] / correction1) / (np.sqrt(V[f, c] / correction2) + eps)
    return total / max(1, order.shape[0]), step


# Cached on disk by what they call (plyground.util.closure_cache): numba's own cache keys a function by its own file,
# so an edited patterns.py would leave these loops reading the old features.
losses = cache_on_disk(njit(_losses))
_epoch = cache_on_disk(njit(_adam_epoch))


def held_out_games(groups: np.ndarray, seed: int, share: float = 0.05) -> np.ndarray:
    """A bool per example: whether its game is held out (``share`` of the games, drawn as the ``nnue``
    trainer's learner draws generation 0's: the same games for the same seed)."""
    if not len(groups):
        return np.zeros(0, bool)
    held = np.random.default_rng([seed, 0]).random(int(groups.max()) + 1) < share
    return held[groups]


def fit(positions: np.ndarray, targets: np.ndarray, train: np.ndarray, test: np.ndarray, *, slope: float,
        epochs: int = 8, batch: int = 8192, lr: float = 0.01, l2: float = 1e-7, seed: int = 0,
        start: PatternWeights | None = None, log: Callable[[str], None] = print) -> tuple[PatternWeights, list[dict]]:
    """The weights fitted to ``targets`` on the rows ``train`` of ``positions`` (kernels position arrays),
    and a line per epoch (training cross-entropy, held-out cross-entropy and squared error on ``test``)."""
    positions = np.ascontiguousarray(positions, np.int64)
    targets = np.ascontiguousarray(targets, np.float64)
    train, test = np.asarray(train, np.int64), np.asarray(test, np.int64)
    W = np.array((start or initial()).weights, np.float64)
    if W.shape != (FEATURE_COUNT, PHASES):
        raise ValueError(f"starting weights of shape {W.shape}; expected ({FEATURE_COUNT}, {PHASES})")
    M, V, grad = np.zeros_like(W), np.zeros_like(W), np.zeros_like(W)
    steps_per_epoch = max(1, -(-len(train) // batch))
    total_steps = epochs * steps_per_epoch
    step = 0
    cross, squared = losses(positions, targets, test, W, slope)
    history = [{"epoch": 0, "test_cross_entropy": cross, "test_squared": squared}]
    log(f"patterns: {len(train):,} positions, {len(test):,} held out; before training: held out "
        f"cross-entropy {cross:.5f}, squared error {squared:.5f}")
    for epoch in range(1, epochs + 1):
        started = time.perf_counter()
        order = np.random.default_rng([seed, epoch]).permutation(train)
        train_loss, step = _epoch(positions, targets, order, batch, W, M, V, step, lr, total_steps, l2,
                                  slope, grad)
        cross, squared = losses(positions, targets, test, W, slope)
        seconds = time.perf_counter() - started
        history.append({"epoch": epoch, "train_cross_entropy": train_loss, "test_cross_entropy": cross,
                        "test_squared": squared, "seconds": round(seconds, 2)})
        log(f"patterns: epoch {epoch}/{epochs}: training cross-entropy {train_loss:.5f}; held out {cross:.5f}, "
            f"squared error {squared:.5f} ({seconds:.1f} s)")
    return PatternWeights(W), history


__all__ = ["fit", "losses", "held_out_games"]
