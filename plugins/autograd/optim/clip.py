"""Gradient clipping, applied between ``backward()`` and ``optimizer.step()``."""
from __future__ import annotations

import math
from typing import Iterable

from ..backend import array_module
from ..tensor import Tensor


def clip_grad_norm_(parameters: Iterable[Tensor], max_norm: float) -> float:
    """Scale all gradients together so their global L2 norm is at most ``max_norm``; return the norm before."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total = math.sqrt(sum(float(array_module(g).vdot(g.ravel(), g.ravel())) for g in grads))
    if total > max_norm:
        scale = max_norm / (total + 1e-6)
        for g in grads:
            g *= scale
    return total


def clip_grad_value_(parameters: Iterable[Tensor], clip_value: float) -> None:
    """Limit every gradient element to [-clip_value, clip_value]."""
    for p in parameters:
        if p.grad is not None:
            array_module(p.grad).clip(p.grad, -clip_value, clip_value, out=p.grad)
