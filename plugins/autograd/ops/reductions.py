"""Reductions over any set of axes, with or without keeping the reduced axes."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import array_module
from ..tensor import Tensor
from ._util import expand_reduced, normalize_axes


def sum(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    xp = array_module(a.data)
    axes = normalize_axes(axis, a.ndim)
    out = xp.sum(a.data, axis=axes, keepdims=keepdims)

    def backward(g):
        return (xp.broadcast_to(expand_reduced(g, axes, keepdims), a.shape),)
    return Tensor._from_op(xp.asarray(out), (a,), backward, "sum")


def mean(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    xp = array_module(a.data)
    axes = normalize_axes(axis, a.ndim)
    count = int(np.prod([a.shape[i] for i in axes]))
    out = xp.mean(a.data, axis=axes, keepdims=keepdims)

    def backward(g):
        return (xp.broadcast_to(expand_reduced(g, axes, keepdims) / count, a.shape),)
    return Tensor._from_op(xp.asarray(out), (a,), backward, "mean")


def var(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Population variance (divides by n), as batch norm uses it."""
    axes = normalize_axes(axis, a.ndim)
    count = int(np.prod([a.shape[i] for i in axes]))
    centred = a.data - a.data.mean(axis=axes, keepdims=True)
    out = array_module(a.data).mean(centred * centred, axis=axes, keepdims=keepdims)

    def backward(g):
        return (expand_reduced(g, axes, keepdims) * (2.0 / count) * centred,)
    return Tensor._from_op(array_module(out).asarray(out), (a,), backward, "var")


def _extremum(a: Tensor, axis: Any, keepdims: bool, pick, name: str) -> Tensor:
    axes = normalize_axes(axis, a.ndim)
    kept = pick(a.data, axis=axes, keepdims=True)
    out = kept if keepdims else kept.squeeze(axis=axes)

    def backward(g):
        # Ties share the gradient equally, so the result does not depend on element order.
        winners = a.data == kept
        share = expand_reduced(g, axes, keepdims) / winners.sum(axis=axes, keepdims=True)
        return (winners * share,)
    return Tensor._from_op(array_module(out).asarray(out), (a,), backward, name)


def max(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    return _extremum(a, axis, keepdims, lambda x, **kw: x.max(**kw), "max")


def min(a: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    return _extremum(a, axis, keepdims, lambda x, **kw: x.min(**kw), "min")
