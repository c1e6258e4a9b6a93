"""The Bonanza objective, its sparse gradient and the move-agreement measure (compiled).

For the positions r of the training games, with the expert's move e(r) and
each other legal move m, let v_m = w . psi_m be the value of m for the side to
move: the evaluation of the leaf that ends the principal variation of a
shallow search from the child, seen from the root's side to move (a finished
game at the leaf gives a constant instead).  The objective is

    J(w) = (1/N) sum_r sum_{m != e(r)} T(v_m - v_e) + lambda * R(w - w0)

with T(x) = 1 / (1 + exp(-a x)) (``a`` = slope), R the L1 or L2 norm and w0
the material weights the training starts from; the man's material weight is
fixed (it sets the scale).  The gradient of one term is

    T'(v_m - v_e) * (psi_m - psi_e)

and psi_m - psi_e is non-zero only on the features where the two leaves
differ (after a quiet move: the moved piece's two squares and mobility), so
each term touches a handful of weights.  The features are the game's own
(its EvaluationLearning's ``leaf_features``); the loop is compiled once per
feature function and cached on disk.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from plyground.util.closure_cache import cache_on_disk


@njit(cache=True, inline="always")
def _sigmoid(x):
    if x >= 0:
        z = math.exp(-x)
        return 1.0 / (1.0 + z)
    z = math.exp(x)
    return z / (1.0 + z)


_TERMS: dict = {}


def objective_terms_for(learning):
    """The compiled :func:`objective_terms` over ``learning``'s leaf features (once a process, then from disk)."""
    key = (learning.leaf_features, int(learning.features.MAX_ENTRIES), int(learning.features.NUM_FEATURES))
    terms = _TERMS.get(key)
    if terms is None:
        terms = _TERMS[key] = _build_terms(*key)
    return terms


def _build_terms(leaf_features, max_entries, num_features):
    @njit(inline="always")
    def leaf_value(leaves, values, terminal, j, side, w, idx, val):
        if terminal[j]:
            return values[j]
        n = leaf_features(leaves[j], side, idx, val)
        v = 0.0
        for k in range(n):
            v += w[idx[k]] * val[k]
        return v

    @njit
    def objective_terms(w, slope, sides, offsets, expert, leaves, values, terminal, grad, want_grad):
        """Sum over positions of sum over non-expert moves of T(v_m - v_e); adds its gradient to ``grad``.

        Returns (sum of T, pairs, top-1 agreement, top-3 agreement) where the agreements
        (summed over positions) count the expert's move ranked first / in the first three by
        these leaf values, ties broken at random (in expectation).
        """
        idx_e = np.empty(max_entries, dtype=np.int64)
        val_e = np.empty(max_entries, dtype=np.float64)
        idx_m = np.empty(max_entries, dtype=np.int64)
        val_m = np.empty(max_entries, dtype=np.float64)
        acc = np.zeros(num_features, dtype=np.float64)
        total = 0.0
        pairs = 0
        top1 = 0.0
        top3 = 0.0
        for r in range(len(sides)):
            side = sides[r]
            a = offsets[r]
            b = offsets[r + 1]
            e = a + expert[r]
            ve = leaf_value(leaves, values, terminal, e, side, w, idx_e, val_e)
            ne = -1                       # expert features, extracted when first needed
            greater = 0
            equal = 0
            for j in range(a, b):
                if j == e:
                    continue
                vm = leaf_value(leaves, values, terminal, j, side, w, idx_m, val_m)
                if vm > ve:
                    greater += 1
                elif vm == ve:
                    equal += 1
                t = _sigmoid(slope * (vm - ve))
                total += t
                pairs += 1
                if not want_grad:
                    continue
                g = slope * t * (1.0 - t)
                if g == 0.0:
                    continue
                if ne < 0:
                    ne = 0 if terminal[e] else leaf_features(leaves[e], side, idx_e, val_e)
                nm = 0 if terminal[j] else leaf_features(leaves[j], side, idx_m, val_m)
                # psi_m - psi_e, accumulated by feature; only the features that differ survive.
                for k in range(nm):
                    acc[idx_m[k]] += val_m[k]
                for k in range(ne):
                    acc[idx_e[k]] -= val_e[k]
                for k in range(nm):
                    i = idx_m[k]
                    if acc[i] != 0.0:
                        grad[i] += g * acc[i]
                        acc[i] = 0.0
                for k in range(ne):
                    i = idx_e[k]
                    if acc[i] != 0.0:
                        grad[i] += g * acc[i]
                        acc[i] = 0.0
            top1 += min(1.0, max(0.0, (1.0 - greater) / (equal + 1.0)))
            top3 += min(1.0, max(0.0, (3.0 - greater) / (equal + 1.0)))
        return total, pairs, top1, top3

    return cache_on_disk(objective_terms)


@njit(cache=True)
def agreement(values, offsets, expert):
    """Summed (top-1, top-3) agreement of move values with the expert's moves, ties at random."""
    top1 = 0.0
    top3 = 0.0
    for r in range(len(expert)):
        a = offsets[r]
        b = offsets[r + 1]
        ve = values[a + expert[r]]
        greater = 0
        equal = 0
        for j in range(a, b):
            if j != a + expert[r]:
                if values[j] > ve:
                    greater += 1
                elif values[j] == ve:
                    equal += 1
        top1 += min(1.0, max(0.0, (1.0 - greater) / (equal + 1.0)))
        top3 += min(1.0, max(0.0, (3.0 - greater) / (equal + 1.0)))
    return top1, top3


def random_agreement(offsets: np.ndarray) -> tuple[float, float]:
    """Expected (top-1, top-3) agreement of a uniformly random ranking."""
    n = np.diff(offsets).astype(np.float64)
    return float(np.mean(1.0 / n)), float(np.mean(np.minimum(3.0, n) / n))


def penalty(w: np.ndarray, w0: np.ndarray, kind: str, strength: float, trainable: np.ndarray) -> tuple[float, np.ndarray]:
    """(lambda * R(w - w0), its gradient) over the trainable weights."""
    d = np.where(trainable, w - w0, 0.0)
    if kind == "l2":
        return strength * float(d @ d), 2.0 * strength * d
    if kind == "l1":
        return strength * float(np.abs(d).sum()), strength * np.sign(d)
    return 0.0, np.zeros_like(w)


class Objective:
    """J(w) and its gradient for fixed leaves (what one training iteration evaluates), over the leaf features
    of ``learning`` (the game's EvaluationLearning)."""

    def __init__(self, learning, positions, leaves, slope: float, penalty_kind: str, strength: float,
                 w0: np.ndarray, trainable: np.ndarray) -> None:
        self.terms = objective_terms_for(learning)
        self.positions = positions
        self.leaves = leaves
        self.slope = slope
        self.penalty_kind = penalty_kind
        self.strength = strength
        self.w0 = w0
        self.trainable = trainable

    def __call__(self, w: np.ndarray, want_grad: bool = True) -> tuple[float, np.ndarray, dict]:
        p, lv = self.positions, self.leaves
        grad = np.zeros_like(w)
        total, pairs, top1, top3 = self.terms(w, self.slope, p.sides, p.offsets, p.expert, lv.rows, lv.values,
                                              lv.terminal, grad, want_grad)
        n = max(p.size, 1)
        reg, reg_grad = penalty(w, self.w0, self.penalty_kind, self.strength, self.trainable)
        value = total / n + reg
        grad = np.where(self.trainable, grad / n + reg_grad, 0.0)
        return value, grad, {"data_term": total / n, "penalty": reg, "pairs": int(pairs),
                             "train_top1": top1 / n, "train_top3": top3 / n}
