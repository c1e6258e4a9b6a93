"""numba kernels for element-wise backward passes that numpy needs several passes for."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _relu_backward(grad, out, result):
    for i in range(grad.size):
        result[i] = grad[i] if out[i] > 0 else 0


def dense_order(*arrays: np.ndarray) -> tuple[int, ...] | None:
    """An axis order in which all ``arrays`` (same shape and strides) are C-contiguous, or None.

    Activations are often NCHW views of channels-last memory; in the right
    axis order they are plain contiguous blocks that a flat loop can walk.
    """
    first = arrays[0]
    if any(a.shape != first.shape or a.strides != first.strides for a in arrays[1:]):
        return None
    order = tuple(sorted(range(first.ndim), key=lambda axis: -abs(first.strides[axis])))
    if not first.transpose(order).flags.c_contiguous:
        return None
    return order


def relu_backward(grad: np.ndarray, out: np.ndarray) -> np.ndarray:
    """grad where out > 0, else 0: one pass instead of numpy's mask-then-multiply."""
    order = dense_order(grad, out) if grad.dtype == out.dtype else None
    if order is None:
        return grad * (out > 0)
    inverse = tuple(np.argsort(order))
    result = np.empty(grad.transpose(order).shape, dtype=grad.dtype)
    _relu_backward(grad.transpose(order).reshape(-1), out.transpose(order).reshape(-1), result.reshape(-1))
    return result.transpose(inverse)
