"""plyground's own autograd engine and neural-network library (numpy + numba).

    from plyground.plugins.autograd import Tensor, no_grad, nn, optim, functional as F

PyTorch's names throughout: ``Tensor.backward()``, ``nn.Module``, ``nn.Conv2d``,
``optim.SGD``, ``no_grad()``, ``state_dict()``, ``tensor.to("cuda")``.  See docs/autograd.md.
"""
from . import functional, nn, optim
from .backend import Device, get_device
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .ops import cat, concatenate, stack
from .ops.threads import get_num_threads, set_num_threads
from .rng import manual_seed
from .tensor import Tensor, ones, zeros

__all__ = ["Device", "Tensor", "cat", "concatenate", "enable_grad", "functional", "get_device", "get_num_threads",
           "is_grad_enabled", "manual_seed", "nn", "no_grad", "ones", "optim", "set_grad_enabled", "set_num_threads",
           "stack", "zeros"]
