"""Layers: Linear, Conv2d, BatchNorm, shape adapters and activations."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import ops
from ..ops.conv import pair
from ..tensor import DEFAULT_DTYPE, Tensor
from .init import initialize, zeros_
from .module import Module, Parameter


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, init: str = "he",
                 rng: np.random.Generator | None = None, dtype: Any = DEFAULT_DTYPE) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(np.empty((out_features, in_features), dtype=dtype))
        initialize(self.weight, init, rng)
        self.bias = zeros_(Parameter(np.empty(out_features, dtype=dtype))) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return ops.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"{self.in_features}, {self.out_features}, bias={self.bias is not None}"


Dense = Linear


class Conv2d(Module):
    """2-D convolution over NCHW batches; weight (out_channels, in_channels, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 bias: bool = True, init: str = "he", rng: np.random.Generator | None = None,
                 dtype: Any = DEFAULT_DTYPE) -> None:
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = pair(kernel_size), pair(stride), pair(padding)
        self.weight = Parameter(np.empty((out_channels, in_channels, *self.kernel_size), dtype=dtype))
        initialize(self.weight, init, rng)
        self.bias = zeros_(Parameter(np.empty(out_channels, dtype=dtype))) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return ops.conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}, bias={self.bias is not None}")


class _BatchNorm(Module):
    """Per-channel normalisation; running statistics are buffers, used in eval mode."""

    expected_ndim = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 dtype: Any = DEFAULT_DTYPE) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.weight = Parameter(np.ones(num_features, dtype=dtype)) if affine else None
        self.bias = Parameter(np.zeros(num_features, dtype=dtype)) if affine else None
        self.register_buffer("running_mean", np.zeros(num_features, dtype=dtype))
        self.register_buffer("running_var", np.ones(num_features, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim != self.expected_ndim or x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}) got input of shape {x.shape}")
        return ops.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              training=self.training, momentum=self.momentum, eps=self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) input."""

    expected_ndim = 2


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input: one mean and variance per channel."""

    expected_ndim = 4


class Flatten(Module):
    """(N, d1, d2, ...) -> (N, d1*d2*...)."""

    def __init__(self, start_dim: int = 1) -> None:
        super().__init__()
        self.start_dim = start_dim

    def forward(self, x: Tensor) -> Tensor:
        return ops.flatten(x, self.start_dim)


class Reshape(Module):
    """Reshape every sample to ``shape`` (the batch axis is kept)."""

    def __init__(self, *shape: int) -> None:
        super().__init__()
        self.shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape

    def forward(self, x: Tensor) -> Tensor:
        return ops.reshape(x, (x.shape[0], *self.shape))

    def extra_repr(self) -> str:
        return ", ".join(map(str, self.shape))


class Identity(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.relu(x)


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.sigmoid(x)


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return ops.tanh(x)


class _AlongAxis(Module):
    """Applies ``function(x, axis)``: a normalisation along one axis (the last by default)."""

    function: Callable[[Tensor, int], Tensor]

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, x: Tensor) -> Tensor:
        return self.function(x, self.axis)


class Softmax(_AlongAxis):
    function = staticmethod(ops.softmax)


class LogSoftmax(_AlongAxis):
    function = staticmethod(ops.log_softmax)


class ResidualBlock(Module):
    """conv-BN-ReLU-conv-BN, plus the input, then ReLU (the AlphaZero tower block).

    The skip adds the input tensor itself, so the gradient flows through both
    the branch and the identity path.
    """

    def __init__(self, channels: int, kernel_size: int = 3, rng: np.random.Generator | None = None,
                 dtype: Any = DEFAULT_DTYPE) -> None:
        super().__init__()
        padding = kernel_size // 2
        self.conv1 = Conv2d(channels, channels, kernel_size, padding=padding, bias=False, rng=rng, dtype=dtype)
        self.bn1 = BatchNorm2d(channels, dtype=dtype)
        self.conv2 = Conv2d(channels, channels, kernel_size, padding=padding, bias=False, rng=rng, dtype=dtype)
        self.bn2 = BatchNorm2d(channels, dtype=dtype)

    def forward(self, x: Tensor) -> Tensor:
        branch = ops.relu(self.bn1(self.conv1(x)))
        branch = self.bn2(self.conv2(branch))
        return ops.relu(branch + x)
