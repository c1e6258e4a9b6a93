"""Adam (L2 penalty added to the gradient) and AdamW (decoupled weight decay)."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..backend import array_module
from ..ops import cuda_kernels
from .optimizer import Optimizer


class Adam(Optimizer):
    """Adaptive moments: w <- w - lr * m_hat / (sqrt(v_hat) + eps), bias-corrected."""

    decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError(f"bad Adam hyperparameters lr={lr}, betas={betas}, eps={eps}, weight_decay={weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay))

    def _update(self, param, grad, state, group) -> None:
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        xp = array_module(param.data)
        if not state:
            state["step"] = 0
            state["exp_avg"] = xp.zeros_like(param.data)
            state["exp_avg_sq"] = xp.zeros_like(param.data)
        state["step"] += 1
        step, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
        if not isinstance(param.data, np.ndarray) and cuda_kernels.adam_update(
                param.data, grad, m, v, step, lr, (beta1, beta2), eps, weight_decay, self.decoupled):
            return                                        # on a GPU: one kernel instead of a dozen passes
        if weight_decay:
            if self.decoupled:
                # AdamW: shrink the weights directly, not through the adaptive scaling.
                param.data *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param.data
        m *= beta1
        m += (1 - beta1) * grad
        v *= beta2
        v += (1 - beta2) * grad * grad
        step_size = lr / (1 - beta1 ** step)
        denominator = xp.sqrt(v / (1 - beta2 ** step))
        denominator += eps
        param.data -= step_size * (m / denominator)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): w <- w*(1 - lr*wd) before the Adam step."""

    decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)
