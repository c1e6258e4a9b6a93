"""Operations that move values without changing them: reshape, permute, index, join, pad."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..backend import array_module
from ..tensor import Tensor
from ._util import on_device_of, plain_index, scatter_add, unbroadcast


def reshape(a: Tensor, shape: Sequence[int]) -> Tensor:
    return Tensor._from_op(a.data.reshape(shape), (a,), lambda g: (g.reshape(a.shape),), "reshape")


def flatten(a: Tensor, start_dim: int = 0) -> Tensor:
    start = start_dim % a.ndim if a.ndim else 0
    return reshape(a, a.shape[:start] + (-1,))


def squeeze(a: Tensor, axis: Any = None) -> Tensor:
    return reshape(a, a.data.squeeze(axis=axis).shape)


def unsqueeze(a: Tensor, axis: int) -> Tensor:
    return reshape(a, array_module(a.data).expand_dims(a.data, axis).shape)


def permute(a: Tensor, axes: Sequence[int]) -> Tensor:
    axes = tuple(int(x) % a.ndim for x in axes)
    inverse = tuple(np.argsort(axes))
    return Tensor._from_op(a.data.transpose(axes), (a,), lambda g: (g.transpose(inverse),), "permute")


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    axes = list(range(a.ndim))
    axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
    return permute(a, axes)


def _is_basic(index: Any) -> bool:
    """Basic indexing (ints, slices, None, ...) never selects an element twice."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(p, (int, np.integer, slice)) or p is None or p is Ellipsis
               for p in parts) and not any(isinstance(p, bool) for p in parts)


def getitem(a: Tensor, index: Any) -> Tensor:
    """numpy indexing; with integer-array indexing a repeated element receives every gradient aimed at it."""
    index = plain_index(index)
    basic = _is_basic(index)
    if not basic:
        index = on_device_of(index, a.data)
    xp = array_module(a.data)

    def backward(g):
        grad = xp.zeros(a.shape, dtype=g.dtype)
        if basic:
            grad[index] = g
        else:
            scatter_add(grad, index, g)
        return (grad,)
    return Tensor._from_op(xp.asarray(a.data[index]), (a,), backward, "getitem")


def gather(a: Tensor, axis: int, index: Any) -> Tensor:
    """``out[..., i, ...] = a[..., index[..., i, ...], ...]`` along ``axis`` (PyTorch's gather)."""
    index = plain_index(index)
    if not hasattr(index, "dtype"):     # a nested list; arrays stay on their device
        index = np.asarray(index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"gather needs an integer index array, got dtype {index.dtype}")
    if index.ndim != a.ndim:
        raise ValueError(f"gather index has {index.ndim} dimensions; the tensor has {a.ndim}")
    axis = axis % a.ndim
    xp = array_module(a.data)
    index = on_device_of(index, a.data)
    out = xp.take_along_axis(a.data, index, axis=axis)

    def backward(g):
        grad = xp.zeros(a.shape, dtype=g.dtype)
        # Open grids for the other axes, the index itself along ``axis``; add.at sums repeats.
        grids = list(xp.ix_(*[xp.arange(n) for n in out.shape]))
        grids[axis] = index
        scatter_add(grad, tuple(grids), g)
        return (grad,)
    return Tensor._from_op(out, (a,), backward, "gather")


def cat(tensors: Sequence[Tensor], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join tensors along an existing axis (``concatenate``)."""
    axis = axis if dim is None else dim
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("cat needs at least one tensor")
    axis = axis % tensors[0].ndim
    xp = array_module(tensors[0].data)
    out = xp.concatenate([t.data for t in tensors], axis=axis)
    splits = np.cumsum([t.shape[axis] for t in tensors])[:-1].tolist()
    return Tensor._from_op(out, tensors, lambda g: tuple(xp.split(g, splits, axis=axis)), "cat")


concatenate = cat


def stack(tensors: Sequence[Tensor], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join equally shaped tensors along a new axis."""
    axis = axis if dim is None else dim
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    xp = array_module(tensors[0].data)
    out = xp.stack([t.data for t in tensors], axis=axis)
    axis = axis % out.ndim

    def backward(g):
        return tuple(xp.take(g, i, axis=axis) for i in range(len(tensors)))
    return Tensor._from_op(out, tensors, backward, "stack")


def pad(a: Tensor, pad_width: Any, value: float = 0.0) -> Tensor:
    """Constant padding with numpy's ``pad_width``: an int, ``(before, after)`` or one pair per axis."""
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (a.ndim, 2))
    if (widths < 0).any():
        raise ValueError(f"pad widths must be non-negative, got {pad_width!r}")
    out = array_module(a.data).pad(a.data, widths.tolist(), mode="constant", constant_values=value)
    inner = tuple(slice(int(before), int(before) + n) for (before, _), n in zip(widths, a.shape))
    return Tensor._from_op(out, (a,), lambda g: (g[inner],), "pad")


def broadcast_to(a: Tensor, shape: Sequence[int]) -> Tensor:
    shape = tuple(shape)
    out = array_module(a.data).broadcast_to(a.data, shape)
    return Tensor._from_op(out, (a,), lambda g: (unbroadcast(g, a.shape),), "broadcast_to")


__all__ = ["reshape", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "getitem", "gather",
           "cat", "concatenate", "stack", "pad", "broadcast_to"]
