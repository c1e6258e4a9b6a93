"""Non-linearities and (log-)softmax."""
from __future__ import annotations

from ..backend import array_module
from ..tensor import Tensor
from .kernels import kernels_for


def relu(a: Tensor) -> Tensor:
    kernels = kernels_for(a.data)
    out = kernels.relu(a.data)
    relu_backward = kernels.relu_backward
    # The upstream gradient is passed where the input was positive; it is not replaced by the mask.
    return Tensor._from_op(out, (a,), lambda g: (relu_backward(g, out),), "relu")


def sigmoid(a: Tensor) -> Tensor:
    # 1/(1+e^-x) written through tanh: no overflow for large |x|.
    out = 0.5 * (1 + array_module(a.data).tanh(0.5 * a.data))
    return Tensor._from_op(out, (a,), lambda g: (g * out * (1 - out),), "sigmoid")


def tanh(a: Tensor) -> Tensor:
    out = array_module(a.data).tanh(a.data)
    return Tensor._from_op(out, (a,), lambda g: (g * (1 - out * out),), "tanh")


def softmax(a: Tensor, axis: int = -1) -> Tensor:
    """exp normalised along ``axis`` (one distribution per slice along the other axes)."""
    shifted = a.data - a.data.max(axis=axis, keepdims=True)  # largest exponent is 0: no overflow
    e = array_module(a.data).exp(shifted)
    out = e / e.sum(axis=axis, keepdims=True)

    def backward(g):
        return (out * (g - (g * out).sum(axis=axis, keepdims=True)),)
    return Tensor._from_op(out, (a,), backward, "softmax")


def log_softmax(a: Tensor, axis: int = -1) -> Tensor:
    xp = array_module(a.data)
    shifted = a.data - a.data.max(axis=axis, keepdims=True)
    out = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(g):
        return (g - xp.exp(out) * g.sum(axis=axis, keepdims=True),)
    return Tensor._from_op(out, (a,), backward, "log_softmax")
