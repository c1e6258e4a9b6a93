"""Inference fast path: a module's eval-mode forward compiled to plain array operations.

``compile_inference(model)`` returns a function from arrays to arrays that
builds no graph and allocates no Tensors.  Batch norm is folded into the
convolution (or linear layer) before it:  w' = w * gamma/sqrt(var+eps),
b' = beta + (b - mean) * gamma/sqrt(var+eps);  a following ReLU is applied in
place.  The plan is a snapshot: compile again after the weights change.

The plan computes on the model's device, with its array module (on the CPU:
numpy and the numba kernels, the residual block's ending fused into the
Winograd output transform; elsewhere the portable im2col convolution).  It
may compute in another floating type than the model's (``dtype=float16``:
half precision on a GPU); its input is converted to that type, and so are
its outputs.

A module type not known here is compiled through its ``_inference_plan``
hook when it has one, else run through its ordinary forward under
``no_grad`` (correct, only slower).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .backend import Device, device_of, to_numpy
from .grad_mode import no_grad
from .nn import layers
from .nn.module import Module, Sequential
from .ops import winograd
from .ops.conv import conv2d_nhwc, output_size, to_nhwc, use_winograd, weight_matrix
from .tensor import Tensor

Step = Callable[[np.ndarray], Any]


@dataclass(frozen=True)
class _Target:
    """Where a plan computes and in which floating type; its weights are prepared on the host in float64."""

    device: Device
    dtype: np.dtype
    fused: bool = True  # False: the plan as it was before the fused F(4x4) convolution and batch chunks

    @property
    def xp(self) -> Any:
        return self.device.xp

    def put(self, host_array: np.ndarray) -> Any:
        """A host array as a plan constant: on the device, in the plan's type."""
        return self.device.asarray(np.asarray(host_array).astype(self.dtype, copy=False))


# On the CPU a large batch runs in chunks of this many images: one chunk's Winograd scratch (about 1.2 MB
# at 64 channels) stays in the L2/L3 caches, where a whole batch of 256 spilled to memory and ran 1.3x slower
# per position than a batch of 16 (benchmarks/inference_small_batch.py).
CPU_CHUNK = 16


def compile_inference(module: Module, dtype: Any = None, fused: bool = True) -> Step:
    """A graph-free function computing ``module``'s eval-mode output (call ``module.eval()`` first) on the
    module's device, in ``dtype`` (default: the type of the module's weights).  ``fused=False`` builds the
    earlier CPU plan (generic Winograd transforms, whole batches), kept for benchmarks to compare against."""
    if any(m.training for m in module.modules()):
        raise RuntimeError("compile_inference needs the model in eval mode: call model.eval() first")
    first = next(module.parameters(), None)
    weights = first.data if first is not None else np.zeros(0, np.float32)
    target = _Target(device_of(weights), np.dtype(weights.dtype if dtype is None else dtype), fused)
    step = _compile(module, target)
    if fused and not target.device.portable:
        step = _in_chunks(step, CPU_CHUNK)
    if target.dtype == weights.dtype:
        return step

    def run(x: Any) -> Any:  # another precision: the input converted in, the outputs as they come
        return step(x.astype(target.dtype, copy=False))
    return run


def _in_chunks(step: Step, chunk: int) -> Step:
    """``step`` run over ``chunk`` images at a time, the outputs (an array or a tuple of arrays) joined."""
    def run(x: np.ndarray) -> Any:
        if x.shape[0] <= chunk:
            return step(x)
        parts = [step(x[start:start + chunk]) for start in range(0, x.shape[0], chunk)]
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate(outputs) for outputs in zip(*parts))
        return np.concatenate(parts)
    return run


def _compile(module: Module, target: _Target) -> Step:
    if isinstance(module, Sequential):
        return _compile_sequence(list(module), target)
    builder = _BUILDERS.get(type(module))
    if builder is not None:
        return builder(module, target)
    hook = getattr(module, "_inference_plan", None)
    if hook is not None:
        return hook(lambda child: _compile(child, target))
    return _through_forward(module)


def _through_forward(module: Module) -> Step:
    def run(x: np.ndarray) -> Any:
        with no_grad():
            out = module(Tensor(x))
        return tuple(t.data for t in out) if isinstance(out, tuple) else out.data
    return run


def _compile_sequence(modules: list[Module], target: _Target) -> Step:
    steps: list[Step] = []
    i = 0
    while i < len(modules):
        module = modules[i]
        if isinstance(module, (layers.Conv2d, layers.Linear)):
            # Peephole fusion: layer [+ batch norm] [+ ReLU] becomes one step.
            norm = modules[i + 1] if i + 1 < len(modules) and isinstance(modules[i + 1], layers._BatchNorm) else None
            j = i + 1 + (norm is not None)
            relu = j < len(modules) and isinstance(modules[j], layers.ReLU)
            steps.append(_affine_step(module, norm, relu, target))
            i = j + relu
        else:
            steps.append(_compile(module, target))
            i += 1
    if len(steps) == 1:
        return steps[0]

    def run(x: np.ndarray) -> Any:
        for step in steps:
            x = step(x)
        return x
    return run


def fold_batchnorm(weight: Any, bias: Any, norm: Any) -> tuple[np.ndarray, np.ndarray]:
    """Weights and bias of layer-then-batch-norm as one layer: host arrays computed in float64, returned in
    weight's dtype (the inputs may live on any device)."""
    weight, bias = to_numpy(weight), None if bias is None else to_numpy(bias)
    dtype = weight.dtype
    out_features = weight.shape[0]
    bias64 = np.zeros(out_features) if bias is None else bias.astype(np.float64)
    if norm is None:
        return weight, bias64.astype(dtype)
    scale, shift = _norm_affine(norm)
    shift = shift + bias64 * scale
    folded = weight.astype(np.float64) * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
    return folded.astype(dtype), shift.astype(dtype)


def _norm_affine(norm: Any) -> tuple[np.ndarray, np.ndarray]:
    """Eval-mode batch norm as y = x * scale + shift per channel (host, float64)."""
    scale = 1.0 / np.sqrt(to_numpy(norm.running_var).astype(np.float64) + norm.eps)
    if norm.weight is not None:
        scale = scale * to_numpy(norm.weight.data)
    shift = -to_numpy(norm.running_mean) * scale
    if norm.bias is not None:
        shift = shift + to_numpy(norm.bias.data)
    return scale, shift


def _folded(layer: Any, norm: Any) -> tuple[np.ndarray, np.ndarray]:
    return fold_batchnorm(layer.weight.data, None if layer.bias is None else layer.bias.data, norm)


def _affine_step(layer: Any, norm: Any, relu: bool, target: _Target) -> Step:
    weight, bias = _folded(layer, norm)
    xp = target.xp
    if isinstance(layer, layers.Linear):
        weight_t, bias = target.put(np.ascontiguousarray(weight.T)), target.put(bias)

        def run_linear(x: np.ndarray) -> np.ndarray:
            out = x @ weight_t
            out += bias
            return xp.maximum(out, 0, out=out) if relu else out
        return run_linear

    conv = _conv_nhwc(layer, weight, bias, relu, target)
    # NCHW view of channels-last memory, as the graph path returns.
    return lambda x: conv(to_nhwc(x)).transpose(0, 3, 1, 2)


def _conv_nhwc(layer: Any, weight: np.ndarray, bias: np.ndarray, relu: bool, target: _Target) -> Callable:
    """conv(x_nhwc, skip_nhwc=None) -> relu?(conv + bias + skip), all channels-last; host weights in."""
    kernel, stride, padding = layer.kernel_size, layer.stride, layer.padding
    if use_winograd(kernel, stride, layer.in_channels, layer.out_channels) and not target.device.portable:
        transformed: dict = {}  # per tiling, computed on first use (the tiling depends on the board size)
        weight, bias = weight.astype(target.dtype), bias.astype(target.dtype)
        fused = winograd.InferenceConv(weight, bias, padding) if target.fused else None

        def run_winograd(x: np.ndarray, skip: np.ndarray | None = None) -> np.ndarray:
            size = output_size(x.shape[1], x.shape[2], kernel, stride, padding)
            tiling = winograd.choose_tiling(*size)
            if fused is not None and tiling is winograd.F4:
                return fused(x, size, relu, skip)
            if tiling not in transformed:
                transformed[tiling] = winograd.transform_weights(weight, tiling)
            return winograd.inference_forward(x, transformed, bias, padding, size, relu, skip)
        return run_winograd

    matrix, bias = target.put(np.ascontiguousarray(weight_matrix(weight))), target.put(bias)

    def run_im2col(x: np.ndarray, skip: np.ndarray | None = None) -> np.ndarray:
        return conv2d_nhwc(x, matrix, bias, kernel, stride, padding, skip=skip, relu=relu)
    return run_im2col


def _residual_block(block: layers.ResidualBlock, target: _Target) -> Step:
    first = _conv_nhwc(block.conv1, *_folded(block.conv1, block.bn1), relu=True, target=target)
    second = _conv_nhwc(block.conv2, *_folded(block.conv2, block.bn2), relu=True, target=target)

    def run(x: np.ndarray) -> np.ndarray:
        x_nhwc = to_nhwc(x)
        return second(first(x_nhwc), skip=x_nhwc).transpose(0, 3, 1, 2)  # relu(branch + x), fused
    return run


def _batch_norm(norm: Any, target: _Target) -> Step:
    scale, shift = _norm_affine(norm)
    shape = (1, -1) if isinstance(norm, layers.BatchNorm1d) else (1, -1, 1, 1)
    scale, shift = target.put(scale.reshape(shape)), target.put(shift.reshape(shape))
    return lambda x: x * scale + shift


def _flatten(module: layers.Flatten, target: _Target) -> Step:
    return lambda x: x.reshape(x.shape[:module.start_dim] + (-1,))


def _softmax(module: layers.Softmax, target: _Target) -> Step:
    axis, xp = module.axis, target.xp

    def run(x: np.ndarray) -> np.ndarray:
        e = xp.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    return run


def _log_softmax(module: layers.LogSoftmax, target: _Target) -> Step:
    axis, xp = module.axis, target.xp

    def run(x: np.ndarray) -> np.ndarray:
        shifted = x - x.max(axis=axis, keepdims=True)
        return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return run


def _sigmoid(module: layers.Sigmoid, target: _Target) -> Step:
    xp = target.xp
    return lambda x: 0.5 * (1 + xp.tanh(0.5 * x))


_BUILDERS: dict[type, Callable[[Any, _Target], Step]] = {
    layers.Conv2d: lambda m, target: _affine_step(m, None, False, target),
    layers.Linear: lambda m, target: _affine_step(m, None, False, target),
    layers.BatchNorm1d: _batch_norm,
    layers.BatchNorm2d: _batch_norm,
    layers.ResidualBlock: _residual_block,
    layers.Flatten: _flatten,
    layers.Reshape: lambda m, target: (lambda x: x.reshape((x.shape[0], *m.shape))),
    layers.Identity: lambda m, target: (lambda x: x),
    layers.ReLU: lambda m, target: (lambda x: target.xp.maximum(x, 0)),
    layers.Tanh: lambda m, target: target.xp.tanh,
    layers.Sigmoid: _sigmoid,
    layers.Softmax: _softmax,
    layers.LogSoftmax: _log_softmax,
}
