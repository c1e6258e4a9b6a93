"""Which implementation of the hand-written kernels an array gets: numba's on the CPU, CUDA's on a GPU.

numba compiles loops over numpy arrays for the CPU: im2col/col2im, the
Winograd transforms, batch norm's passes, ReLU's backward pass.  CuPy arrays
get the CUDA kernels of :mod:`.cuda_kernels` (one pass each; they hand what
they do not compile for to the portable ones), cpu-portable's GPU-like arrays
the portable implementations of :mod:`.portable_kernels`, written with the
array module's operations.  Off the CPU convolutions always take the im2col
route (a GPU has the FLOPs; Winograd saves them at the cost of transform
passes).  This is the one place that choice is made.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from . import conv_kernels, cuda_kernels, elementwise_kernels, norm_kernels, portable_kernels


class Kernels(NamedTuple):
    im2col: Callable
    col2im: Callable
    #: x + y of two arrays (a tensor's add)
    add: Callable
    relu: Callable
    relu_backward: Callable
    channel_moments: Callable
    scale_shift: Callable
    backward_sums: Callable
    train_input_gradient: Callable
    #: batch norm's training statistics in one go, or None where normalization.py computes them itself
    norm_statistics: Callable
    #: a convolution's ending in inference: out = relu?(out + bias + skip), in place
    bias_skip_relu: Callable
    #: a @ b of two matrices (or a vector and a matrix)
    matmul: Callable
    #: whether 3x3 stride-1 convolutions may use Winograd (numba transforms)
    winograd: bool


NUMBA = Kernels(conv_kernels.im2col, conv_kernels.col2im, portable_kernels.add, portable_kernels.relu,
                elementwise_kernels.relu_backward, norm_kernels.channel_moments, norm_kernels.scale_shift,
                norm_kernels.backward_sums, norm_kernels.train_input_gradient, portable_kernels.norm_statistics,
                portable_kernels.bias_skip_relu, operator.matmul, winograd=True)
PORTABLE = Kernels(portable_kernels.im2col, portable_kernels.col2im, portable_kernels.add, portable_kernels.relu,
                   portable_kernels.relu_backward, portable_kernels.channel_moments, portable_kernels.scale_shift,
                   portable_kernels.backward_sums, portable_kernels.train_input_gradient,
                   portable_kernels.norm_statistics, portable_kernels.bias_skip_relu, operator.matmul,
                   winograd=False)
CUDA = Kernels(cuda_kernels.im2col, cuda_kernels.col2im, cuda_kernels.add, cuda_kernels.relu,
               cuda_kernels.relu_backward, cuda_kernels.channel_moments, cuda_kernels.scale_shift,
               cuda_kernels.backward_sums, cuda_kernels.train_input_gradient, cuda_kernels.norm_statistics,
               cuda_kernels.bias_skip_relu, cuda_kernels.matmul, winograd=False)


def kernels_for(array: Any) -> Kernels:
    """numba's kernels for a numpy array (device cpu), the portable ones for cpu-portable, CUDA's for CuPy."""
    if type(array) is np.ndarray:
        return NUMBA
    # numpy's subclasses (cpu-portable's PortableArray among them) compute with array operations
    return PORTABLE if isinstance(array, np.ndarray) else CUDA
