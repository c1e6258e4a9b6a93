"""Tolerances for float32 (and float16) results, derived from the arithmetic instead of tuned on one machine.

A dot product of n terms computed in floating point with unit roundoff u is
off by at most gamma_n = n u / (1 - n u) times the sum of its terms' sizes
(Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., 3.1),
whatever the order of the summation: so whatever CPU, SIMD width, BLAS or
GPU runs it.  A network's forward pass chains such products; each layer adds
at most its gamma_n (the next layer's weights scale it no more than they
scale the signal), so ``layers * gamma_n`` of the longest product, doubled
for the transforms some paths add (Winograd's constants of 1/2 and 1/4 and
its four additions a side), bounds the relative error of two float32 paths
against each other.  Typical errors are far smaller (about sqrt(n) u): these
bounds never fail on a correct path and still catch a wrong one (a wrong
weight, a missed bias, a dropped term is off by whole percents).
"""
from __future__ import annotations

import numpy as np

#: Unit roundoff (half the machine epsilon) of float32 and float16.
U32 = float(np.finfo(np.float32).eps) / 2
U16 = float(np.finfo(np.float16).eps) / 2


def gamma(n: int, u: float = U32) -> float:
    """Higham's gamma_n: the relative error bound of an n-term dot product, of the sum of its terms' sizes."""
    assert n * u < 1
    return n * u / (1 - n * u)


def forward_rtol(longest_dot: int, layers: int, u: float = U32) -> float:
    """Two paths' relative difference bound for a forward pass of ``layers`` products of at most
    ``longest_dot`` terms (each path within ``layers * gamma``; doubled for the two paths' transforms)."""
    return 2 * layers * gamma(longest_dot, u)
