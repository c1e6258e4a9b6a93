"""Element-wise arithmetic (with numpy broadcasting) and matrix products."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import array_module, device_of, get_device
from ..tensor import Tensor
from ._util import on_device_of, operands, plain_index, scatter_add, unbroadcast
from .kernels import kernels_for


def add(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)

    def backward(g):
        return (unbroadcast(g, a.shape) if a.requires_grad else None,
                unbroadcast(g, b.shape) if b.requires_grad else None)
    return Tensor._from_op(kernels_for(a.data).add(a.data, b.data), (a, b), backward, "add")


def sub(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)

    def backward(g):
        return (unbroadcast(g, a.shape) if a.requires_grad else None,
                unbroadcast(-g, b.shape) if b.requires_grad else None)
    return Tensor._from_op(a.data - b.data, (a, b), backward, "sub")


def neg(a: Tensor) -> Tensor:
    return Tensor._from_op(-a.data, (a,), lambda g: (-g,), "neg")


def mul(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)

    def backward(g):
        return (unbroadcast(g * b.data, a.shape) if a.requires_grad else None,
                unbroadcast(g * a.data, b.shape) if b.requires_grad else None)
    return Tensor._from_op(a.data * b.data, (a, b), backward, "mul")


def div(a: Any, b: Any) -> Tensor:
    a, b = operands(a, b)
    out = a.data / b.data

    def backward(g):
        return (unbroadcast(g / b.data, a.shape) if a.requires_grad else None,
                unbroadcast(-g * out / b.data, b.shape) if b.requires_grad else None)
    return Tensor._from_op(out, (a, b), backward, "div")


def pow(base: Any, exponent: Any) -> Tensor:
    """``base ** exponent``; d/dbase = e·base^(e-1), d/dexponent = base^e·ln(base)."""
    base, exponent = operands(base, exponent)
    out = base.data ** exponent.data

    def backward(g):
        grad_base = grad_exp = None
        if base.requires_grad:
            grad_base = unbroadcast(g * exponent.data * base.data ** (exponent.data - 1), base.shape)
        if exponent.requires_grad:
            # ln(base) only exists for base > 0; elsewhere the result is constant in the exponent or undefined.
            xp = array_module(base.data)
            log_base = xp.log(xp.where(base.data > 0, base.data, 1))
            grad_exp = unbroadcast(g * out * log_base, exponent.shape)
        return grad_base, grad_exp
    return Tensor._from_op(out, (base, exponent), backward, "pow")


def exp(a: Tensor) -> Tensor:
    out = array_module(a.data).exp(a.data)
    return Tensor._from_op(out, (a,), lambda g: (g * out,), "exp")


def log(a: Tensor) -> Tensor:
    return Tensor._from_op(array_module(a.data).log(a.data), (a,), lambda g: (g / a.data,), "log")


def sqrt(a: Tensor) -> Tensor:
    out = array_module(a.data).sqrt(a.data)
    return Tensor._from_op(out, (a,), lambda g: (g / (2 * out),), "sqrt")


def abs(a: Tensor) -> Tensor:
    xp = array_module(a.data)
    return Tensor._from_op(xp.abs(a.data), (a,), lambda g: (g * xp.sign(a.data),), "abs")


def clip(a: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """Values limited to [min, max]; the gradient passes only where the value was inside (bounds included)."""
    xp = array_module(a.data)
    out = xp.clip(a.data, min, max)

    def backward(g):
        inside = xp.ones(a.shape, dtype=bool)
        if min is not None:
            inside &= a.data >= min
        if max is not None:
            inside &= a.data <= max
        return (g * inside,)
    return Tensor._from_op(out, (a,), backward, "clip")


def matmul(a: Any, b: Any) -> Tensor:
    """Matrix product with numpy's rules: batched over leading axes (broadcast), 1-D operands promoted."""
    a, b = operands(a, b)
    xp = array_module(a.data)
    out = xp.matmul(a.data, b.data)

    def backward(g):
        # Promote 1-D operands to matrices so one formula covers every case.
        a2 = a.data[None, :] if a.ndim == 1 else a.data
        b2 = b.data[:, None] if b.ndim == 1 else b.data
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        g2 = g.reshape(batch + (a2.shape[-2], b2.shape[-1]))
        grad_a = grad_b = None
        if a.requires_grad:
            grad_a = unbroadcast(xp.matmul(g2, xp.swapaxes(b2, -1, -2)), a2.shape).reshape(a.shape)
        if b.requires_grad:
            grad_b = unbroadcast(xp.matmul(xp.swapaxes(a2, -1, -2), g2), b2.shape).reshape(b.shape)
        return grad_a, grad_b
    return Tensor._from_op(out, (a, b), backward, "matmul")


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias`` as one node (weight is (out, in), as in PyTorch)."""
    matmul = kernels_for(x.data).matmul
    out = matmul(x.data, weight.data.T)
    if bias is not None:
        out += bias.data
    parents = (x, weight) if bias is None else (x, weight, bias)

    def backward(g):
        g2 = g.reshape(-1, g.shape[-1])
        x2 = x.data.reshape(-1, x.shape[-1])
        grads = [matmul(g2, weight.data).reshape(x.shape) if x.requires_grad else None,
                 matmul(g2.T, x2) if weight.requires_grad else None]
        if bias is not None:
            grads.append(g2.sum(axis=0) if bias.requires_grad else None)
        return grads
    return Tensor._from_op(out, parents, backward, "linear")


#: Largest batch x inputs for which :func:`sparse_linear` builds the dense counts (16 MiB of float32).
_DENSE_COUNTS = 1 << 22


def sparse_linear(indices: Any, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """The sums of ``weight``'s rows that ``indices`` names, as one node: ``out[b] = bias + sum of
    weight[indices[b, m]]`` over the entries ``>= 0`` (``-1`` pads a row).  ``indices`` (B, M) integers;
    ``weight`` (F, H), a row per input; out (B, H).  A linear layer over inputs that are 0 or 1 and mostly 0
    (NNUE's first layer), without the dense (B, F) input; an index that repeats counts each time."""
    xp = array_module(weight.data)
    indices = plain_index(indices)
    if not hasattr(indices, "dtype"):
        indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"sparse_linear needs an integer index array, got dtype {indices.dtype}")
    if indices.ndim != 2:
        raise ValueError(f"sparse_linear needs a 2-dimensional index array (batch, entries), got shape "
                         f"{tuple(indices.shape)}")
    if weight.ndim != 2:
        raise ValueError(f"sparse_linear needs a 2-dimensional weight (inputs, outputs), got shape {weight.shape}")
    if indices.size and int(indices.max()) >= weight.shape[0]:
        raise IndexError(f"sparse_linear index {int(indices.max())} beyond the weight's {weight.shape[0]} rows")
    if indices.size and int(indices.min()) < -1:
        raise IndexError(f"sparse_linear index {int(indices.min())}: entries are row numbers, or -1 for none")
    indices = on_device_of(indices, weight.data)
    valid = indices >= 0
    batch, inputs = indices.shape[0], weight.shape[0]
    if batch * inputs <= _DENSE_COUNTS:
        # Few inputs (checkers' 128): the (B, F) counts of each input make both directions one matrix product.
        flat = (xp.arange(batch)[:, None] * inputs + indices)[valid]
        counts = xp.bincount(flat, minlength=batch * inputs).reshape(batch, inputs).astype(weight.dtype)
        out = counts @ weight.data
    else:
        rows = xp.where(valid[..., None], weight.data[xp.where(valid, indices, 0)], 0).astype(weight.dtype, copy=False)
        out = rows.sum(axis=1)                                                       # (B, M, H) summed over M
        counts = None
    if bias is not None:
        out = out + bias.data
    parents = (weight,) if bias is None else (weight, bias)

    def backward(g):
        grad = None
        if weight.requires_grad:
            if counts is not None:
                grad = (counts.T @ g).astype(g.dtype, copy=False)
            else:
                grad = xp.zeros(weight.shape, dtype=g.dtype)
                scatter_add(grad, indices[valid], xp.broadcast_to(g[:, None, :], (batch,) + valid.shape[1:] +
                                                                  (weight.shape[1],))[valid])
        grads = [grad]
        if bias is not None:
            grads.append(g.sum(axis=0) if bias.requires_grad else None)
        return grads
    return Tensor._from_op(out, parents, backward, "sparse_linear")


def astype(a: Tensor, dtype: Any) -> Tensor:
    source = a.dtype
    return Tensor._from_op(a.data.astype(dtype), (a,), lambda g: (g.astype(source),), "astype")


def to_device(a: Tensor, device: Any) -> Tensor:
    """``a`` on ``device``; the gradient goes back to ``a``'s device."""
    target, source = get_device(device), device_of(a.data)
    if target is source:
        return a
    return Tensor._from_op(target.asarray(a.data), (a,), lambda g: (source.asarray(g),), "to")
