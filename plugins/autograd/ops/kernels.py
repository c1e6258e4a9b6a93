"""Which implementation of the hand-written kernels an array gets: numba's on the CPU, the portable ones elsewhere.

numba compiles loops over numpy arrays for the CPU: im2col/col2im, the
Winograd transforms, batch norm's passes, ReLU's backward pass.  Arrays of any
other device (CuPy on a GPU, cpu-portable's GPU-like arrays) get the portable
implementations of :mod:`.portable_kernels`, written with the array module's
operations, and convolutions there always take the im2col route (a GPU has
the FLOPs; Winograd saves them at the cost of transform passes).  This is the
one place that choice is made.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from . import conv_kernels, elementwise_kernels, norm_kernels, portable_kernels


class Kernels(NamedTuple):
    im2col: Callable
    col2im: Callable
    relu_backward: Callable
    channel_moments: Callable
    scale_shift: Callable
    backward_sums: Callable
    train_input_gradient: Callable
    #: whether 3x3 stride-1 convolutions may use Winograd (numba transforms)
    winograd: bool


NUMBA = Kernels(conv_kernels.im2col, conv_kernels.col2im, elementwise_kernels.relu_backward,
                norm_kernels.channel_moments, norm_kernels.scale_shift, norm_kernels.backward_sums,
                norm_kernels.train_input_gradient, winograd=True)
PORTABLE = Kernels(portable_kernels.im2col, portable_kernels.col2im, portable_kernels.relu_backward,
                   portable_kernels.channel_moments, portable_kernels.scale_shift, portable_kernels.backward_sums,
                   portable_kernels.train_input_gradient, winograd=False)


def kernels_for(array: Any) -> Kernels:
    """numba's kernels for a numpy array (device cpu), the portable ones for any other."""
    return NUMBA if type(array) is np.ndarray else PORTABLE
