"""Stochastic gradient descent with momentum, Nesterov momentum and weight decay (PyTorch's update rule)."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..backend import array_module
from ..ops import cuda_kernels
from .optimizer import Optimizer


class SGD(Optimizer):
    """v <- momentum*v + (1-dampening)*(g + weight_decay*w);  w <- w - lr*v  (Nesterov: w - lr*(g' + momentum*v)).

    ``weight_decay`` adds weight_decay*w to the gradient: the gradient of the
    penalty (weight_decay/2)*||w||^2.
    """

    def __init__(self, params: Iterable[Any], lr: float = 0.01, momentum: float = 0.0, dampening: float = 0.0,
                 nesterov: bool = False, weight_decay: float = 0.0) -> None:
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD needs lr, momentum and weight_decay >= 0 (got {lr}, {momentum}, {weight_decay})")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and no dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
                                      weight_decay=weight_decay))

    def _update(self, param, grad, state, group) -> None:
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        if not isinstance(param.data, np.ndarray) and cuda_kernels.sgd_update(
                param.data, grad, state, lr, momentum, group["dampening"], weight_decay, group["nesterov"]):
            return                                        # on a GPU: one kernel instead of seven passes
        if weight_decay:
            grad = grad + weight_decay * param.data
        if momentum:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = array_module(param.data).array(grad, dtype=param.dtype)
            else:
                buffer *= momentum
                buffer += (1 - group["dampening"]) * grad
            grad = grad + momentum * buffer if group["nesterov"] else buffer
        param.data -= lr * grad
