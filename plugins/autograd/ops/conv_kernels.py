"""numba kernels that turn a convolution into one matrix product (im2col) and back (col2im).

Activations are handled channels-last (NHWC) in memory: a receptive field is
then KH*KW contiguous runs of C values, so im2col copies whole runs, and the
product ``cols @ W`` yields (N*OH*OW, O) rows that *are* the NHWC output.
Large batches are split over images across threads (:mod:`.threads`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import workspace
from .threads import split_images


@njit(cache=True, nogil=True)
def _patches(x, cols, kh_size, kw_size, stride_h, stride_w, pad_h, pad_w, out_h, out_w, to_cols, start, stop):
    """Images ``start:stop`` between their NHWC array and their rows of receptive fields.

    ``to_cols``: im2col, cols[(n, oh, ow), (kh, kw, c)] = x[n, oh*sh - ph + kh, ow*sw - pw + kw, c], zero
    outside.  Otherwise its adjoint, col2im: x[n, ih, iw, c] = the sum of every cols entry copied from it.
    """
    n_images, height, width, channels = x.shape
    for n in range(start, stop):
        if not to_cols:
            x[n] = 0
        for oh in range(out_h):
            for ow in range(out_w):
                row = (n * out_h + oh) * out_w + ow
                col = 0
                for kh in range(kh_size):
                    ih = oh * stride_h - pad_h + kh
                    for kw in range(kw_size):
                        iw = ow * stride_w - pad_w + kw
                        # Whole-run slice copies compile to vectorised memcpy-like loops (5x the scalar loop).
                        inside = 0 <= ih < height and 0 <= iw < width
                        if to_cols:
                            if inside:
                                cols[row, col:col + channels] = x[n, ih, iw, :]
                            else:
                                cols[row, col:col + channels] = 0
                        elif inside:
                            x[n, ih, iw, :] += cols[row, col:col + channels]
                        col += channels


def im2col(x_nhwc: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
           padding: tuple[int, int], out_size: tuple[int, int]) -> np.ndarray:
    """(N*OH*OW, KH*KW*C) matrix of receptive fields of a C-contiguous NHWC array."""
    n, _, _, c = x_nhwc.shape
    rows = n * out_size[0] * out_size[1]
    cols = workspace.empty((rows, kernel[0] * kernel[1] * c), x_nhwc.dtype)
    split_images(_patches, n, cols.size, x_nhwc, cols, kernel[0], kernel[1], stride[0], stride[1], padding[0],
                 padding[1], out_size[0], out_size[1], True)
    return cols


def col2im(cols: np.ndarray, input_shape_nhwc: tuple[int, int, int, int], kernel: tuple[int, int],
           stride: tuple[int, int], padding: tuple[int, int], out_size: tuple[int, int]) -> np.ndarray:
    """Sum the rows of ``cols`` back into an NHWC array of ``input_shape_nhwc``."""
    x = np.empty(input_shape_nhwc, dtype=cols.dtype)
    split_images(_patches, x.shape[0], cols.size, x, np.ascontiguousarray(cols), kernel[0], kernel[1], stride[0],
                 stride[1], padding[0], padding[1], out_size[0], out_size[1], False)
    return x
