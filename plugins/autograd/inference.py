"""Inference fast path: a module's eval-mode forward compiled to plain numpy.

``compile_inference(model)`` returns a function from arrays to arrays that
builds no graph and allocates no Tensors.  Batch norm is folded into the
convolution (or linear layer) before it:  w' = w * gamma/sqrt(var+eps),
b' = beta + (b - mean) * gamma/sqrt(var+eps);  a following ReLU is applied in
place.  The plan is a snapshot: compile again after the weights change.

A module type not known here is compiled through its ``_inference_plan``
hook when it has one, else run through its ordinary forward under
``no_grad`` (correct, only slower).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .grad_mode import no_grad
from .nn import layers
from .nn.module import Module, Sequential
from .ops import winograd
from .ops.conv import conv2d_nhwc, output_size, to_nhwc, use_winograd, weight_matrix
from .tensor import Tensor

Step = Callable[[np.ndarray], Any]


def compile_inference(module: Module) -> Step:
    """A numpy-only function computing ``module``'s eval-mode output (call ``module.eval()`` first)."""
    if any(m.training for m in module.modules()):
        raise RuntimeError("compile_inference needs the model in eval mode: call model.eval() first")
    return _compile(module)


def _compile(module: Module) -> Step:
    if isinstance(module, Sequential):
        return _compile_sequence(list(module))
    builder = _BUILDERS.get(type(module))
    if builder is not None:
        return builder(module)
    hook = getattr(module, "_inference_plan", None)
    if hook is not None:
        return hook(_compile)
    return _through_forward(module)


def _through_forward(module: Module) -> Step:
    def run(x: np.ndarray) -> Any:
        with no_grad():
            out = module(Tensor(x))
        return tuple(t.data for t in out) if isinstance(out, tuple) else out.data
    return run


def _compile_sequence(modules: list[Module]) -> Step:
    steps: list[Step] = []
    i = 0
    while i < len(modules):
        module = modules[i]
        if isinstance(module, (layers.Conv2d, layers.Linear)):
            # Peephole fusion: layer [+ batch norm] [+ ReLU] becomes one step.
            norm = modules[i + 1] if i + 1 < len(modules) and isinstance(modules[i + 1], layers._BatchNorm) else None
            j = i + 1 + (norm is not None)
            relu = j < len(modules) and isinstance(modules[j], layers.ReLU)
            steps.append(_affine_step(module, norm, relu))
            i = j + relu
        else:
            steps.append(_compile(module))
            i += 1
    if len(steps) == 1:
        return steps[0]

    def run(x: np.ndarray) -> Any:
        for step in steps:
            x = step(x)
        return x
    return run


def fold_batchnorm(weight: np.ndarray, bias: np.ndarray | None, norm: Any) -> tuple[np.ndarray, np.ndarray]:
    """Weights and bias of layer-then-batch-norm as one layer (computed in float64, returned in weight's dtype)."""
    dtype = weight.dtype
    out_features = weight.shape[0]
    bias64 = np.zeros(out_features) if bias is None else bias.astype(np.float64)
    if norm is None:
        return weight, bias64.astype(dtype)
    scale = 1.0 / np.sqrt(norm.running_var.astype(np.float64) + norm.eps)
    if norm.weight is not None:
        scale = scale * norm.weight.data
    shift = (bias64 - norm.running_mean) * scale
    if norm.bias is not None:
        shift = shift + norm.bias.data
    folded = weight.astype(np.float64) * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
    return folded.astype(dtype), shift.astype(dtype)


def _folded(layer: Any, norm: Any) -> tuple[np.ndarray, np.ndarray]:
    return fold_batchnorm(layer.weight.data, None if layer.bias is None else layer.bias.data, norm)


def _affine_step(layer: Any, norm: Any, relu: bool) -> Step:
    weight, bias = _folded(layer, norm)
    if isinstance(layer, layers.Linear):
        weight_t = np.ascontiguousarray(weight.T)

        def run_linear(x: np.ndarray) -> np.ndarray:
            out = x @ weight_t
            out += bias
            return np.maximum(out, 0, out=out) if relu else out
        return run_linear

    conv = _conv_nhwc(layer, weight, bias, relu)
    # NCHW view of channels-last memory, as the graph path returns.
    return lambda x: conv(to_nhwc(x)).transpose(0, 3, 1, 2)


def _conv_nhwc(layer: Any, weight: np.ndarray, bias: np.ndarray, relu: bool) -> Callable:
    """conv(x_nhwc, skip_nhwc=None) -> relu?(conv + bias + skip), all channels-last."""
    kernel, stride, padding = layer.kernel_size, layer.stride, layer.padding
    if use_winograd(kernel, stride, layer.in_channels, layer.out_channels):
        transformed: dict = {}  # per tiling, computed on first use (the tiling depends on the board size)

        def run_winograd(x: np.ndarray, skip: np.ndarray | None = None) -> np.ndarray:
            size = output_size(x.shape[1], x.shape[2], kernel, stride, padding)
            tiling = winograd.choose_tiling(*size)
            if tiling not in transformed:
                transformed[tiling] = winograd.transform_weights(weight, tiling)
            return winograd.inference_forward(x, transformed, bias, padding, size, relu, skip)
        return run_winograd

    matrix = np.ascontiguousarray(weight_matrix(weight))

    def run_im2col(x: np.ndarray, skip: np.ndarray | None = None) -> np.ndarray:
        out = conv2d_nhwc(x, matrix, bias, kernel, stride, padding)
        if skip is not None:
            out += skip
        return np.maximum(out, 0, out=out) if relu else out
    return run_im2col


def _residual_block(block: layers.ResidualBlock) -> Step:
    first = _conv_nhwc(block.conv1, *_folded(block.conv1, block.bn1), relu=True)
    second = _conv_nhwc(block.conv2, *_folded(block.conv2, block.bn2), relu=True)

    def run(x: np.ndarray) -> np.ndarray:
        x_nhwc = to_nhwc(x)
        return second(first(x_nhwc), skip=x_nhwc).transpose(0, 3, 1, 2)  # relu(branch + x), fused
    return run


def _batch_norm(norm: Any) -> Step:
    scale = 1.0 / np.sqrt(norm.running_var.astype(np.float64) + norm.eps)
    if norm.weight is not None:
        scale = scale * norm.weight.data
    shift = -norm.running_mean * scale
    if norm.bias is not None:
        shift = shift + norm.bias.data
    dtype = norm.running_var.dtype
    shape = (1, -1) if isinstance(norm, layers.BatchNorm1d) else (1, -1, 1, 1)
    scale, shift = scale.astype(dtype).reshape(shape), shift.astype(dtype).reshape(shape)
    return lambda x: x * scale + shift


def _flatten(module: layers.Flatten) -> Step:
    return lambda x: x.reshape(x.shape[:module.start_dim] + (-1,))


def _softmax(axis: int) -> Step:
    def run(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    return run


def _log_softmax(axis: int) -> Step:
    def run(x: np.ndarray) -> np.ndarray:
        shifted = x - x.max(axis=axis, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return run


_BUILDERS: dict[type, Callable[[Any], Step]] = {
    layers.Conv2d: lambda m: _affine_step(m, None, False),
    layers.Linear: lambda m: _affine_step(m, None, False),
    layers.BatchNorm1d: _batch_norm,
    layers.BatchNorm2d: _batch_norm,
    layers.ResidualBlock: _residual_block,
    layers.Flatten: _flatten,
    layers.Reshape: lambda m: (lambda x: x.reshape((x.shape[0], *m.shape))),
    layers.Identity: lambda m: (lambda x: x),
    layers.ReLU: lambda m: (lambda x: np.maximum(x, 0)),
    layers.Tanh: lambda m: np.tanh,
    layers.Sigmoid: lambda m: (lambda x: 0.5 * (1 + np.tanh(0.5 * x))),
    layers.Softmax: lambda m: _softmax(m.axis),
    layers.LogSoftmax: lambda m: _log_softmax(m.axis),
}
