"""The v and w functions of the greater-than factor, computed stably for every finite t.

A Gaussian N(d; mu, sigma^2) truncated to d > 0 has, with t = mu / sigma,

    mean      mu + sigma * v(t)           v(t) = N(t) / Phi(t)
    variance  sigma^2 * (1 - w(t))        w(t) = v(t) * (v(t) + t)

(N, Phi: the standard normal density and distribution function).  Written
that way the formulas break down exactly where training needs them: when the
expert's move was rated far below another, t is very negative, Phi(t)
underflows (0/0 = NaN from t < -38), and even before that v(t) + t and
1 - w(t) lose every digit to cancellation.  The thesis this plugin follows
(seeds/004) reports those NaNs.

Here, for t < -3 we never form Phi(t).  With x = -t, Laplace's continued
fraction for the Mills ratio gives v(t) = x + K with

    K = 1 / (x + T),   T = 2 / (x + 3 / (x + 4 / (x + ...)))

so v(t) + t = K, w(t) = (x + K) K and, since x K = 1 - T K,
1 - w(t) = K (T - K): no subtraction of nearly equal numbers anywhere.  60
terms give full double precision for x >= 3 (checked against 60-digit
mpmath in the tests).  For t >= -3 the direct formula with ``math.erfc`` is
accurate to about 1e-13; for t > 38 it gives v = w = 0 exactly, the correct
limit.  Asymptotically (t -> -inf) v(t) ~ -t - 1/t and 1 - w(t) ~ 1/t^2.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
#: Below this t the continued fraction is used.
CF_THRESHOLD = -3.0
#: Terms of the continued fraction (enough for full precision at x = 3).
CF_TERMS = 60


@njit(cache=True, inline="always")
def vw_scalar(t):
    """(v(t), w(t), 1 - w(t)) for a finite t; NaN in gives NaN out."""
    if t < CF_THRESHOLD:
        x = -t
        tail = 0.0
        for n in range(CF_TERMS, 1, -1):
            tail = n / (x + tail)
        k = 1.0 / (x + tail)
        v = x + k
        return v, v * k, k * (tail - k)
    cdf = 0.5 * math.erfc(-t / _SQRT2)
    pdf = math.exp(-0.5 * t * t) * _INV_SQRT_2PI
    v = pdf / cdf
    w = v * (v + t)
    return v, w, 1.0 - w


@njit(cache=True)
def _vw_array(t, v, w, one_minus_w):
    for i in range(t.shape[0]):
        v[i], w[i], one_minus_w[i] = vw_scalar(t[i])


def vw(t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised :func:`vw_scalar`: arrays (or scalars) v, w and 1 - w of the same shape as ``t``."""
    arr = np.asarray(t, dtype=np.float64)
    flat = np.ascontiguousarray(arr.reshape(-1))
    v, w, omw = np.empty_like(flat), np.empty_like(flat), np.empty_like(flat)
    _vw_array(flat, v, w, omw)
    if arr.ndim == 0:
        return float(v[0]), float(w[0]), float(omw[0])
    return v.reshape(arr.shape), w.reshape(arr.shape), omw.reshape(arr.shape)


def v(t):
    """v(t) = N(t) / Phi(t), the mean shift of a standard normal truncated to x > -t."""
    return vw(t)[0]


def w(t):
    """w(t) = v(t) (v(t) + t); 1 - w(t) is the variance factor of the truncation."""
    return vw(t)[1]


@njit(cache=True, inline="always")
def truncate_positive(mean, variance):
    """Mean and variance of the Gaussian that matches N(mean, variance) truncated to x > 0."""
    sigma = math.sqrt(variance)
    v, _, one_minus_w = vw_scalar(mean / sigma)
    return mean + sigma * v, variance * one_minus_w
