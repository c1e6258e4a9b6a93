"""Helpers shared by the operations: operand conversion and gradient reduction."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import array_module
from ..tensor import Tensor, as_tensor


def operands(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands as tensors; a plain number takes the dtype of the tensor beside it."""
    if isinstance(a, Tensor):
        return a, as_tensor(b, like=a)
    b = as_tensor(b)
    return as_tensor(a, like=b), b


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched, giving an array of ``shape``."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence, negatives allowed) as sorted non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    axes = []
    for a in axis:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor with {ndim} dimensions")
        axes.append(int(a) % max(ndim, 1))
    return tuple(sorted(set(axes)))


def expand_reduced(grad: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """Re-insert the reduced axes (as size 1) so ``grad`` broadcasts against the input."""
    return grad if keepdims else array_module(grad).expand_dims(grad, axes)


def scatter_add(target: Any, index: Any, values: Any) -> None:
    """``target[index] += values`` where repeated indices add up (numpy's ``add.at``), on any device."""
    xp = array_module(target)
    at = getattr(xp.add, "at", None)
    if at is not None:          # numpy, cpu-portable, recent CuPy (ufunc.at)
        at(target, index, values)
    else:                       # older CuPy
        import cupyx
        cupyx.scatter_add(target, index, values)


def on_device_of(index: Any, array: Any) -> Any:
    """An index (int, slice, array or a tuple of them) with its arrays moved to ``array``'s device."""
    if type(array) is np.ndarray:
        return index
    xp = array_module(array)
    if isinstance(index, tuple):
        return tuple(on_device_of(i, array) for i in index)
    if isinstance(index, (np.ndarray, list)):
        return xp.asarray(index)
    return index


def plain_index(index: Any) -> Any:
    """An index with its tensors replaced by their arrays (tuples too)."""
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(plain_index(i) for i in index)
    return index
