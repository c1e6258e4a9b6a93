"""Weight initialisation that keeps activations at unit scale through depth.

He (Kaiming) suits layers followed by ReLU: variance 2/fan_in.  Xavier (Glorot)
suits linear or tanh/sigmoid outputs: variance 2/(fan_in + fan_out).  A plain
N(0, 1) init makes a 64-channel 3x3 conv multiply the activation scale by ~24
per layer, so deep nets start saturated; that is why it is not offered.
"""
from __future__ import annotations

import math

import numpy as np

from ..backend import device_of
from ..rng import default_generator
from ..tensor import Tensor


def fan_in_and_fan_out(shape: tuple[int, ...]) -> tuple[int, int]:
    """Inputs and outputs feeding one unit: (in, out) for Linear (out, in), Conv (out, in, kh, kw)."""
    if len(shape) < 2:
        raise ValueError(f"fan-in/fan-out need at least 2 dimensions, got shape {shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    tensor.data[...] = device_of(tensor.data).asarray(values)   # drawn on the host, written on the tensor's device
    return tensor


def kaiming_normal_(tensor: Tensor, gain: float = math.sqrt(2.0), rng: np.random.Generator | None = None) -> Tensor:
    fan_in, _ = fan_in_and_fan_out(tensor.shape)
    rng = rng or default_generator()
    return _fill(tensor, rng.normal(0.0, gain / math.sqrt(fan_in), tensor.shape))


def kaiming_uniform_(tensor: Tensor, gain: float = math.sqrt(2.0), rng: np.random.Generator | None = None) -> Tensor:
    fan_in, _ = fan_in_and_fan_out(tensor.shape)
    bound = gain * math.sqrt(3.0 / fan_in)
    rng = rng or default_generator()
    return _fill(tensor, rng.uniform(-bound, bound, tensor.shape))


def xavier_normal_(tensor: Tensor, gain: float = 1.0, rng: np.random.Generator | None = None) -> Tensor:
    fan_in, fan_out = fan_in_and_fan_out(tensor.shape)
    rng = rng or default_generator()
    return _fill(tensor, rng.normal(0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), tensor.shape))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, rng: np.random.Generator | None = None) -> Tensor:
    fan_in, fan_out = fan_in_and_fan_out(tensor.shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    rng = rng or default_generator()
    return _fill(tensor, rng.uniform(-bound, bound, tensor.shape))


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1.0)


# Names accepted by the layers' ``init`` argument.
INITIALIZERS = {"he": kaiming_normal_, "he_uniform": kaiming_uniform_,
                "xavier": xavier_uniform_, "xavier_normal": xavier_normal_}


def initialize(tensor: Tensor, name: str, rng: np.random.Generator | None = None) -> Tensor:
    try:
        initializer = INITIALIZERS[name]
    except KeyError:
        raise ValueError(f"unknown init {name!r}; choose from {', '.join(INITIALIZERS)}") from None
    return initializer(tensor, rng=rng)
