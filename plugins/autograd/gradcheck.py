"""Finite-difference gradient checking (run in float64), on any device."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .backend import array_module, device_of, to_numpy
from .tensor import Tensor


def numerical_gradient(func: Callable[[], float], tensor: Tensor, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the number ``func()`` with respect to every element of ``tensor``
    (an array on the tensor's device)."""
    grad = array_module(tensor.data).zeros_like(tensor.data)
    flat = tensor.data.reshape(-1)  # a view: editing it perturbs the tensor in place
    out = grad.reshape(-1)
    for i in range(flat.size):
        saved = float(flat[i])     # a copy: on a GPU flat[i] is a view that the next line would change
        flat[i] = saved + eps
        plus = func()
        flat[i] = saved - eps
        minus = func()
        flat[i] = saved
        out[i] = (plus - minus) / (2 * eps)
    return grad


def gradcheck(func: Callable[[], Tensor], inputs: Sequence[Tensor], eps: float = 1e-6,
              atol: float = 1e-6, rtol: float = 1e-4, seed: int = 0) -> None:
    """Raise AssertionError if backward's gradients of ``func()`` differ from central differences.

    ``func`` is called with no arguments and must read the ``inputs`` (float64
    tensors with ``requires_grad``) anew on every call.  The output is reduced
    to ``sum(out * w)`` with fixed random ``w``, so each output element sends a
    different upstream gradient: a backward that ignores or misplaces the
    incoming gradient cannot pass by luck.
    """
    for t in inputs:
        if t.dtype != np.float64:
            raise TypeError(f"gradcheck needs float64 inputs (finite differences in float32 are noise), got {t.dtype}")
        t.grad = None
    out = func()
    weights = device_of(out.data).asarray(np.random.default_rng(seed).normal(size=out.shape))
    (out * Tensor(weights)).sum().backward()

    def scalar() -> float:
        return float((func().data * weights).sum())

    for k, t in enumerate(inputs):
        analytic = to_numpy(t.grad) if t.grad is not None else np.zeros(t.shape)
        numeric = to_numpy(numerical_gradient(scalar, t, eps))
        if not np.allclose(analytic, numeric, atol=atol, rtol=rtol):
            worst = np.unravel_index(np.argmax(np.abs(analytic - numeric)), t.shape)
            raise AssertionError(f"gradient of input {k} (shape {t.shape}) is wrong: at index {worst} "
                                 f"analytic {analytic[worst]:.8g} vs numeric {numeric[worst]:.8g}")
