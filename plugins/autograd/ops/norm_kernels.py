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
def _channel_sums(weights, rows, shift, scale):
    """Per channel: the sum of ``weights`` and the sum of ``weights * (rows - shift) * scale``, in float64."""
    count, channels = rows.shape
    sum_weights = np.zeros(channels)
    sum_products = np.zeros(channels)
    for i in range(count):
        for c in range(channels):
            w = np.float64(weights[i, c])
            sum_weights[c] += w
            sum_products[c] += w * (rows[i, c] - shift[c]) * scale[c]
    return sum_weights, sum_products


@njit(cache=True, nogil=True)
def channel_moments(rows):
    """Per-channel mean and (biased) variance."""
    count, channels = rows.shape
    total, total_sq = _channel_sums(rows, rows, np.zeros(channels), np.ones(channels))
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
    return _channel_sums(grad, rows, mean, inv_std)


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
