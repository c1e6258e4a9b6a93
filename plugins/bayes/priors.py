"""Move priors from the beliefs, for search (MCTS / AlphaZero-style PUCT).

Two ways to turn the candidates' Gaussian values N(m_j, s_j) into a
probability distribution over the legal moves:

* ``softmax``: p_j proportional to exp(m_j / temperature).  Cheap and smooth;
  ignores the uncertainty.
* ``best``: p_j = P(x_j is the largest), x_j ~ N(m_j, s_j + beta^2)
  independently (the latent values the expert is modelled to compare).
  Moves the model knows little about keep some probability.  Computed by
  integrating p_j = int N(x; m_j, v_j) prod_{i != j} Phi((x - m_i) / sqrt(v_i)) dx
  on a grid in log space.

Both return float64 arrays that sum to 1, in the order of the moves given.
Board values of one position share features, so they are not independent;
``best`` treats them as independent (an approximation worth knowing).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .vw import vw_scalar

METHODS = ("softmax", "best")
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def softmax_priors(means: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, not {temperature!r}")
    z = np.asarray(means, dtype=np.float64) / temperature
    z = np.exp(z - z.max())
    return z / z.sum()


@njit(cache=True)
def log_ndtr(t):
    """log Phi(t), accurate for every finite t (log N(t) - log v(t) below -3)."""
    if t < -3.0:
        v, _, _ = vw_scalar(t)
        return -0.5 * t * t - _LOG_SQRT_2PI - math.log(v)
    return math.log(0.5 * math.erfc(-t / math.sqrt(2.0)))


@njit(cache=True)
def _best_probabilities(means, variances, grid):
    n = means.shape[0]
    g = grid.shape[0]
    sd = np.sqrt(variances)
    logcdf = np.empty((n, g))
    total = np.zeros(g)
    for i in range(n):
        for k in range(g):
            logcdf[i, k] = log_ndtr((grid[k] - means[i]) / sd[i])
            total[k] += logcdf[i, k]
    out = np.zeros(n)
    step = grid[1] - grid[0]
    for j in range(n):
        acc = 0.0
        for k in range(g):
            z = (grid[k] - means[j]) / sd[j]
            logpdf = -0.5 * z * z - _LOG_SQRT_2PI - math.log(sd[j])
            acc += math.exp(logpdf + total[k] - logcdf[j, k])
        out[j] = acc * step
    return out


def best_probabilities(means: np.ndarray, variances: np.ndarray, points: int = 801) -> np.ndarray:
    """P(candidate j has the highest value) for independent N(means, variances), normalised."""
    m = np.asarray(means, dtype=np.float64)
    v = np.asarray(variances, dtype=np.float64)
    if len(m) == 1:
        return np.ones(1)
    sd = np.sqrt(v)
    lo, hi = float(np.max(m - 8 * sd)), float(np.max(m + 8 * sd))   # below the best's lower tail nothing wins
    lo = min(lo, float(np.max(m)) - 8 * float(sd.max()))
    grid = np.linspace(lo, hi, points)
    p = _best_probabilities(m, v, grid)
    s = p.sum()
    return p / s if s > 0 else np.full(len(m), 1.0 / len(m))


def move_priors(means: np.ndarray, variances: np.ndarray, method: str = "softmax",
                temperature: float = 1.0) -> np.ndarray:
    if method == "softmax":
        return softmax_priors(means, temperature)
    if method == "best":
        return best_probabilities(means, variances)
    raise ValueError(f"unknown prior method {method!r}; valid: {', '.join(METHODS)}")
