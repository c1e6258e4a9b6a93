"""numba kernels for batch norm over a (rows, channels) matrix: two passes each way.

numpy needs about ten full passes over the activations for the same forward
and backward (temporaries for x - mean, its square, the normalised values,
...); these read each array at most twice and write it once.  Statistics
are accumulated in float64, so E[x^2] - E[x]^2 does not cancel badly in float32.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def channel_moments(rows):
    """Per-channel mean and (biased) variance."""
    count, channels = rows.shape
    total = np.zeros(channels)
    total_sq = np.zeros(channels)
    for i in range(count):
        for c in range(channels):
            v = np.float64(rows[i, c])
            total[c] += v
            total_sq[c] += v * v
    mean = total / count
    var = np.maximum(total_sq / count - mean * mean, 0.0)
    return mean, var


@njit(cache=True, nogil=True)
def scale_shift(rows, scale, shift, out):
    """out = rows * scale + shift, per channel."""
    count, channels = rows.shape
    for i in range(count):
        for c in range(channels):
            out[i, c] = rows[i, c] * scale[c] + shift[c]


@njit(cache=True, nogil=True)
def backward_sums(grad, rows, mean, inv_std):
    """Per channel: sum of the gradient and sum of gradient * normalised input."""
    count, channels = rows.shape
    sum_grad = np.zeros(channels)
    sum_grad_norm = np.zeros(channels)
    for i in range(count):
        for c in range(channels):
            g = np.float64(grad[i, c])
            sum_grad[c] += g
            sum_grad_norm[c] += g * (rows[i, c] - mean[c]) * inv_std[c]
    return sum_grad, sum_grad_norm


@njit(cache=True, nogil=True)
def train_input_gradient(grad, rows, mean, inv_std, scale, sum_grad, sum_grad_norm, out):
    """dx = scale * (g - mean(g) - x_hat * mean(g * x_hat)): the mean and the variance depend on x too."""
    count, channels = rows.shape
    inv_count = 1.0 / count
    for i in range(count):
        for c in range(channels):
            normalized = (rows[i, c] - mean[c]) * inv_std[c]
            out[i, c] = scale[c] * (grad[i, c] - sum_grad[c] * inv_count
                                    - normalized * sum_grad_norm[c] * inv_count)
