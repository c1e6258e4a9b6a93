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


def winograd_magnitude(x: np.ndarray, w: np.ndarray, tiling) -> np.ndarray:
    """Winograd's 3x3, stride-1, padding-1 convolution of ``x`` (N, C, H, W) by ``w`` (O, C, 3, 3) computed on
    absolute values with absolute transform matrices, in float64:
    |Aᵀ| [sum over c of (|G| |g| |Gᵀ|) ⊙ (|Bᵀ| |d| |B|)] |A|.  The float32 result of the same chain of products
    is within gamma_K times this, elementwise, K being the chain's length (:func:`winograd_chain`)."""
    m, alpha = tiling.m, tiling.m + 2
    bt, g, at = np.abs(tiling.bt), np.abs(tiling.g), np.abs(tiling.at)
    n, c, h, width = x.shape
    th, tw = -(-h // m), -(-width // m)
    padded = np.zeros((n, c, th * m + 2, tw * m + 2))
    padded[:, :, 1:h + 1, 1:width + 1] = np.abs(x)
    patches = np.stack([np.stack([padded[:, :, i * m:i * m + alpha, j * m:j * m + alpha] for j in range(tw)], 2)
                        for i in range(th)], 2)                                # (n, c, th, tw, alpha, alpha)
    v = np.einsum("ia,ncxyab,jb->ncxyij", bt, patches, bt)
    u = np.einsum("ik,ockl,jl->ocij", g, np.abs(w).astype(np.float64), g)
    y = np.einsum("pi,noxyij,qj->noxypq", at, np.einsum("ncxyij,ocij->noxyij", v, u), at)
    return y.transpose(0, 1, 2, 4, 3, 5).reshape(n, -1, th * m, tw * m)[:, :, :h, :width]


def winograd_chain(channels: int, tiling) -> int:
    """The longest chain of roundings in Winograd's float32 path: the input transform (two products of alpha
    terms), the filter's (two of 3), the elementwise product, the sum over channels, the output transform (two of
    alpha), and one rounding of each of the three inexact transform constants on the way (1/6, 1/12, 1/24)."""
    alpha = tiling.m + 2
    return 2 * alpha + 2 * 3 + 1 + channels + 2 * alpha + 3
