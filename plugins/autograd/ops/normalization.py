"""Batch normalisation as one fused node (forward and backward in closed form)."""
from __future__ import annotations

import numpy as np

from ..backend import array_module
from ..tensor import Tensor
from .conv import to_nhwc
from .kernels import kernels_for


def _as_rows(x: np.ndarray) -> np.ndarray:
    """(samples, channels) C-contiguous matrix: channels are axis 1 of (N, C) or (N, C, H, W) input."""
    if x.ndim == 2:
        return array_module(x).ascontiguousarray(x)
    if x.ndim == 4:
        return to_nhwc(x).reshape(-1, x.shape[1])  # no copy for channels-last conv output
    raise ValueError(f"batch norm needs (N, C) or (N, C, H, W) input, got shape {x.shape}")


def _from_rows(rows: np.ndarray, like_shape: tuple[int, ...]) -> np.ndarray:
    if len(like_shape) == 2:
        return rows
    n, c, h, w = like_shape
    return rows.reshape(n, h, w, c).transpose(0, 3, 1, 2)


def batch_norm(x: Tensor, running_mean: np.ndarray, running_var: np.ndarray,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel by the batch's statistics (training; running ones updated in place)
    or by the running statistics (evaluation), then scale by ``weight`` and shift by ``bias``."""
    rows = _as_rows(x.data)
    xp, kernels = array_module(rows), kernels_for(rows)
    count, channels = rows.shape
    dtype = rows.dtype
    fused = None
    if training:
        if count < 2:
            raise ValueError("batch norm in training mode needs more than one value per channel")
        fused = kernels.norm_statistics(rows, running_mean, running_var, None if weight is None else weight.data,
                                        None if bias is None else bias.data, momentum, eps)
    if fused is not None:            # on a GPU: the statistics and the running ones in two kernels
        mean_t, inv_std_t, scale, shift = fused
    else:
        if training:
            mean, var = kernels.channel_moments(rows)
            # Running variance is the unbiased estimate, as in PyTorch.
            running_mean *= 1 - momentum
            running_mean += momentum * mean
            running_var *= 1 - momentum
            running_var += (momentum * count / (count - 1)) * var
        else:
            mean, var = running_mean.astype(np.float64), running_var.astype(np.float64)
        inv_std = 1.0 / xp.sqrt(var + eps)
        gamma = xp.ones(channels) if weight is None else weight.data.astype(np.float64)
        beta = xp.zeros(channels) if bias is None else bias.data.astype(np.float64)
        scale = (gamma * inv_std).astype(dtype)
        shift = (beta - mean * gamma * inv_std).astype(dtype)
        mean_t, inv_std_t = mean.astype(dtype), inv_std.astype(dtype)
    out = xp.empty_like(rows)
    kernels.scale_shift(rows, scale, shift, out)

    def backward(g):
        g_rows = _as_rows(g)
        sum_grad, sum_grad_norm = kernels.backward_sums(g_rows, rows, mean_t, inv_std_t)
        grad_rows = None
        if x.requires_grad:
            if training:
                grad_rows = xp.empty_like(rows)
                kernels.train_input_gradient(g_rows, rows, mean_t, inv_std_t, scale, sum_grad.astype(dtype, copy=False),
                                             sum_grad_norm.astype(dtype, copy=False), grad_rows)
            else:
                grad_rows = g_rows * scale
        grads = [None if grad_rows is None else _from_rows(grad_rows, x.shape)]
        if weight is not None:
            grads.append(sum_grad_norm.astype(dtype, copy=False) if weight.requires_grad else None)
        if bias is not None:
            grads.append(sum_grad.astype(dtype, copy=False) if bias.requires_grad else None)
        return grads

    parents = tuple(t for t in (x, weight, bias) if t is not None)
    return Tensor._from_op(_from_rows(out, x.shape), parents, backward, "batch_norm")
