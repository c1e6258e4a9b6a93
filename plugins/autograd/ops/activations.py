"""Non-linearities and (log-)softmax."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .elementwise_kernels import relu_backward


def relu(a: Tensor) -> Tensor:
    out = np.maximum(a.data, 0)
    # The upstream gradient is passed where the input was positive; it is not replaced by the mask.
    return Tensor._from_op(out, (a,), lambda g: (relu_backward(g, out),), "relu")


def sigmoid(a: Tensor) -> Tensor:
    # 1/(1+e^-x) written through tanh: no overflow for large |x|.
    out = 0.5 * (1 + np.tanh(0.5 * a.data))
    return Tensor._from_op(out, (a,), lambda g: (g * out * (1 - out),), "sigmoid")


def tanh(a: Tensor) -> Tensor:
    out = np.tanh(a.data)
    return Tensor._from_op(out, (a,), lambda g: (g * (1 - out * out),), "tanh")


def softmax(a: Tensor, axis: int = -1) -> Tensor:
    """exp normalised along ``axis`` (one distribution per slice along the other axes)."""
    shifted = a.data - a.data.max(axis=axis, keepdims=True)  # largest exponent is 0: no overflow
    e = np.exp(shifted)
    out = e / e.sum(axis=axis, keepdims=True)

    def backward(g):
        return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)
    return Tensor._from_op(out, (a,), backward, "softmax")


def log_softmax(a: Tensor, axis: int = -1) -> Tensor:
    shifted = a.data - a.data.max(axis=axis, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(g):
        return (g - np.exp(out) * g.sum(axis=axis, keepdims=True),)
    return Tensor._from_op(out, (a,), backward, "log_softmax")
