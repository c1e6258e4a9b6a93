"""2-D convolution (cross-correlation, as in every deep-learning library) on NCHW batches.

Two algorithms, both ending in BLAS matrix products:

* 3x3 stride-1 kernels between layers of at least ``WINOGRAD_MIN_CHANNELS``
  channels (the residual tower) use Winograd F(4x4, 3x3) (:mod:`.winograd`):
  4x fewer flops than im2col.  CPU only (numba transforms).
* everything else, and everything on other devices, uses im2col (numba's
  :mod:`.conv_kernels` or :mod:`.portable_kernels`, see :mod:`.kernels`):
  one product ``cols @ W`` over the matrix of receptive fields.

Results are returned as NCHW *views* of channels-last memory; element-wise
numpy operations keep that layout, so the next convolution, batch norm or
gradient finds its input already channels-last and copies nothing.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import array_module
from ..tensor import Tensor
from . import winograd
from .kernels import kernels_for

# Below this many channels the many small Winograd products cost more than one im2col product.
WINOGRAD_MIN_CHANNELS = 16


def use_winograd(kernel, stride, in_channels: int, out_channels: int) -> bool:
    return (kernel == (3, 3) and stride == (1, 1)
            and min(in_channels, out_channels) >= WINOGRAD_MIN_CHANNELS)


def pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"expected an int or a pair, got {value!r}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


def to_nhwc(x: np.ndarray) -> np.ndarray:
    """C-contiguous NHWC array of an NCHW array (no copy when it is already channels-last)."""
    return array_module(x).ascontiguousarray(x.transpose(0, 2, 3, 1))


def output_size(height: int, width: int, kernel: tuple[int, int], stride: tuple[int, int],
                padding: tuple[int, int]) -> tuple[int, int]:
    out_h = (height + 2 * padding[0] - kernel[0]) // stride[0] + 1
    out_w = (width + 2 * padding[1] - kernel[1]) // stride[1] + 1
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"convolution of a {height}x{width} input with kernel {kernel}, "
                         f"padding {padding} leaves no output")
    return out_h, out_w


def weight_matrix(weight: np.ndarray) -> np.ndarray:
    """(O, C, KH, KW) weights as the (O, KH*KW*C) matrix matching im2col's column order."""
    return weight.transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)


def receptive_fields(x_nhwc: np.ndarray, kernel, stride, padding, out_size) -> np.ndarray:
    if kernel == (1, 1) and stride == (1, 1) and padding == (0, 0):
        return x_nhwc.reshape(-1, x_nhwc.shape[3])  # a 1x1 convolution is a plain matrix product
    return kernels_for(x_nhwc).im2col(x_nhwc, kernel, stride, padding, out_size)


def conv2d_nhwc(x_nhwc: np.ndarray, weights: np.ndarray, bias: np.ndarray | None,
                kernel, stride, padding, skip: np.ndarray | None = None, relu: bool = False) -> np.ndarray:
    """Forward pass on raw arrays: NHWC in, NHWC out; ``weights`` from :func:`weight_matrix`.  ``skip`` (NHWC,
    the output's shape) is added and ``relu`` applied in the same pass as the bias (inference's fused ending)."""
    n, h, w, _ = x_nhwc.shape
    out_h, out_w = output_size(h, w, kernel, stride, padding)
    cols = receptive_fields(x_nhwc, kernel, stride, padding, (out_h, out_w))
    out = kernels_for(cols).matmul(cols, weights.T)
    if bias is not None or skip is not None or relu:
        if bias is None:
            bias = array_module(out).zeros(weights.shape[0], dtype=out.dtype)
        out = kernels_for(out).bias_skip_relu(out, bias, skip, relu)
    return out.reshape(n, out_h, out_w, weights.shape[0])


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0) -> Tensor:
    """x (N, C, H, W) ⋆ weight (O, C, KH, KW) [+ bias (O,)] -> (N, O, OH, OW)."""
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"conv2d needs a 4-D input and weight, got shapes {x.shape} and {weight.shape}")
    n, channels, height, width = x.shape
    out_channels, in_channels, kh, kw = weight.shape
    if channels != in_channels:
        raise ValueError(f"conv2d input has {channels} channels but the weight expects {in_channels}")
    kernel, stride, padding = (kh, kw), pair(stride), pair(padding)
    out_h, out_w = output_size(height, width, kernel, stride, padding)

    x_nhwc = to_nhwc(x.data)
    if use_winograd(kernel, stride, channels, out_channels) and kernels_for(x_nhwc).winograd:
        return _conv2d_winograd(x, weight, bias, x_nhwc, padding, (out_h, out_w))
    cols = receptive_fields(x_nhwc, kernel, stride, padding, (out_h, out_w))
    weights = weight_matrix(weight.data)
    matmul = kernels_for(cols).matmul
    out = matmul(cols, weights.T)
    if bias is not None:
        out += bias.data
    result = out.reshape(n, out_h, out_w, out_channels).transpose(0, 3, 1, 2)

    def backward(g):
        g_rows = to_nhwc(g).reshape(-1, out_channels)
        grad_x = grad_w = grad_b = None
        if weight.requires_grad:
            grad_w = array_module(cols).ascontiguousarray(
                matmul(g_rows.T, cols).reshape(out_channels, kh, kw, channels).transpose(0, 3, 1, 2))
        if bias is not None and bias.requires_grad:
            grad_b = g_rows.sum(axis=0)
        if x.requires_grad:
            grad_x = _input_gradient(g_rows, weight.data, x_nhwc.shape, kernel, stride, padding,
                                     (out_h, out_w)).transpose(0, 3, 1, 2)
        return (grad_x, grad_w) if bias is None else (grad_x, grad_w, grad_b)

    parents = (x, weight) if bias is None else (x, weight, bias)
    return Tensor._from_op(result, parents, backward, "conv2d")


def _input_gradient(g_rows, weight, input_shape, kernel, stride, padding, out_size) -> np.ndarray:
    """d loss / d input (NHWC): each output position's gradient spread back over its receptive field."""
    n, height, width, channels = input_shape
    out_channels = weight.shape[0]
    if kernel == (1, 1) and stride == (1, 1) and padding == (0, 0):
        return kernels_for(g_rows).matmul(g_rows, weight_matrix(weight)).reshape(input_shape)
    if stride == (1, 1) and padding[0] < kernel[0] and padding[1] < kernel[1]:
        # A stride-1 convolution's input gradient is the convolution of the output gradient with the
        # kernel rotated 180 degrees, in and out channels swapped, padding K-1-p.  Measured faster than
        # the matrix product + col2im below: the big product then has the long (K*K*O) inner dimension.
        flipped = weight[:, :, ::-1, ::-1].transpose(2, 3, 0, 1).reshape(-1, channels)
        g_nhwc = g_rows.reshape(n, out_size[0], out_size[1], out_channels)
        full = (kernel[0] - 1 - padding[0], kernel[1] - 1 - padding[1])
        cols = kernels_for(g_nhwc).im2col(g_nhwc, kernel, (1, 1), full, (height, width))
        return kernels_for(cols).matmul(cols, flipped).reshape(input_shape)
    kernels = kernels_for(g_rows)
    return kernels.col2im(kernels.matmul(g_rows, weight_matrix(weight)), input_shape, kernel, stride, padding,
                          out_size)


def _conv2d_winograd(x: Tensor, weight: Tensor, bias: Tensor | None, x_nhwc: np.ndarray, padding, out_size) -> Tensor:
    out_channels = weight.shape[0]
    plan = winograd.Plan(x_nhwc.shape, padding, out_size, x_nhwc.dtype)
    u = winograd.transform_weights(weight.data, plan.tiling)
    v = plan.input_transform(x_nhwc)  # kept for the weight gradient
    out = plan.output_transform(plan.products(v, u), None if bias is None else bias.data)

    def backward(g):
        g_nhwc = to_nhwc(g)
        grad_x, grad_u = plan.backward(g_nhwc, v, u, x.requires_grad)
        grad_w = winograd.weight_gradient(grad_u, plan.tiling, weight.dtype) if weight.requires_grad else None
        grads = [None if grad_x is None else grad_x.transpose(0, 3, 1, 2), grad_w]
        if bias is not None:
            grads.append(g_nhwc.reshape(-1, out_channels).sum(axis=0) if bias.requires_grad else None)
        return grads

    parents = (x, weight) if bias is None else (x, weight, bias)
    return Tensor._from_op(out.transpose(0, 3, 1, 2), parents, backward, "conv2d")
