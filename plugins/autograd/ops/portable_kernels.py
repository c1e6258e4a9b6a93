"""The numba kernels' work written with array operations only, for any array module (numpy, CuPy).

numba compiles for the CPU and for numpy arrays; on a GPU (CuPy) and on the
``cpu-portable`` test device these run instead, with the same signatures and
results as :mod:`.conv_kernels`, :mod:`.norm_kernels` and
:mod:`.elementwise_kernels` (to rounding): im2col copies the KH*KW shifted
windows of the input into their places (a few large copies, which a GPU
does well, instead of numba's loop over receptive fields), col2im adds them
back, batch norm reduces over rows with the statistics accumulated in float64.
"""
from __future__ import annotations

from typing import Any

from ..backend import array_module


def _windows(kernel, stride, out_size):
    """(kh, kw, row slice, column slice) of every kernel offset, over the padded input."""
    (kh_size, kw_size), (stride_h, stride_w), (out_h, out_w) = kernel, stride, out_size
    for kh in range(kh_size):
        for kw in range(kw_size):
            yield (slice(kh, kh + stride_h * (out_h - 1) + 1, stride_h),
                   slice(kw, kw + stride_w * (out_w - 1) + 1, stride_w))


def _inside(offset: int, pad: int, stride: int, size: int, out: int) -> tuple[slice, slice] | None:
    """Along one axis, for the kernel offset ``offset``: the output positions whose input (``i * stride +
    offset - pad``) lies inside the unpadded input, and those input positions; None when none does."""
    first = max(0, -(-(pad - offset) // stride))                 # ceil((pad - offset) / stride), at least 0
    last = min(out - 1, (size - 1 + pad - offset) // stride)
    if first > last:
        return None
    start = first * stride + offset - pad
    return slice(first, last + 1), slice(start, start + (last - first) * stride + 1, stride)


def im2col(x_nhwc: Any, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int],
           out_size: tuple[int, int]) -> Any:
    """(N*OH*OW, KH*KW*C) matrix of receptive fields of an NHWC array, columns ordered (kh, kw, c).

    Each kernel offset's window is copied straight into its place, the padding left as zeros: no padded
    copy of the input and no stacking of nine temporaries (measured on an H200 for the 3x3 tower at
    batch 1,024: 0.22 ms against 0.52 ms for pad-then-stack, benchmarks/gpu_kernels.py)."""
    xp = array_module(x_nhwc)
    n, height, width, channels = x_nhwc.shape
    (kernel_h, kernel_w), (stride_h, stride_w), (pad_h, pad_w), (out_h, out_w) = kernel, stride, padding, out_size
    shape = (n, out_h, out_w, kernel_h * kernel_w, channels)
    cols = xp.zeros(shape, dtype=x_nhwc.dtype) if pad_h or pad_w else xp.empty(shape, dtype=x_nhwc.dtype)
    for kh in range(kernel_h):
        rows = _inside(kh, pad_h, stride_h, height, out_h)
        for kw in range(kernel_w):
            columns = _inside(kw, pad_w, stride_w, width, out_w)
            if rows is not None and columns is not None:
                cols[:, rows[0], columns[0], kh * kernel_w + kw, :] = x_nhwc[:, rows[1], columns[1], :]
    return cols.reshape(n * out_h * out_w, kernel_h * kernel_w * channels)


def col2im(cols: Any, input_shape_nhwc: tuple[int, int, int, int], kernel: tuple[int, int],
           stride: tuple[int, int], padding: tuple[int, int], out_size: tuple[int, int]) -> Any:
    """The adjoint of :func:`im2col`: every entry of ``cols`` added back to the input element it came from."""
    xp = array_module(cols)
    n, height, width, channels = input_shape_nhwc
    pad_h, pad_w = padding
    padded = xp.zeros((n, height + 2 * pad_h, width + 2 * pad_w, channels), dtype=cols.dtype)
    blocks = cols.reshape(n, out_size[0], out_size[1], kernel[0] * kernel[1], channels)
    # Within one window no element is hit twice, so a sliced += is exact; overlaps come from different windows.
    for k, (rows, columns) in enumerate(_windows(kernel, stride, out_size)):
        padded[:, rows, columns, :] += blocks[:, :, :, k, :]
    return xp.ascontiguousarray(padded[:, pad_h:pad_h + height, pad_w:pad_w + width, :])


def add(x: Any, y: Any) -> Any:
    """x + y (numpy keeps the operands' memory layout)."""
    return x + y


def relu(x: Any) -> Any:
    """max(x, 0)."""
    return array_module(x).maximum(x, 0)


def relu_backward(grad: Any, out: Any) -> Any:
    """grad where out > 0, else 0."""
    return grad * (out > 0)


def bias_skip_relu(out: Any, bias: Any, skip: Any, relu: bool) -> Any:
    """out = relu?(out + bias + skip) in place, on a (rows, channels) matrix; skip (optional) of out's size."""
    xp = array_module(out)
    out += bias
    if skip is not None:
        out += skip.reshape(out.shape)
    return xp.maximum(out, 0, out=out) if relu else out


def norm_statistics(rows: Any, running_mean: Any, running_var: Any, weight: Any, bias: Any, momentum: float,
                    eps: float) -> None:
    """None: batch norm computes its statistics with the array operations of ops/normalization.py (a GPU's
    kernels do it in two launches instead: cuda_kernels.norm_statistics)."""
    return None


def column_sums(rows: Any) -> Any:
    """The sum of each column of a (count, columns) matrix, in float64, as one matrix-vector product.

    On a GPU a reduction down the long axis of a tall matrix (batch norm's 65,536 x 64 at batch 1,024) is
    CuPy's slow case: measured on an H200, the batch norms took 71% of a training step with ``sum(axis=0)``.
    cuBLAS's product reads the matrix in its memory order."""
    xp = array_module(rows)
    return xp.ones(rows.shape[0], dtype=xp.float64) @ rows.astype(xp.float64, copy=False)


def channel_moments(rows: Any) -> tuple[Any, Any]:
    """Per-channel mean and (biased) variance of a (count, channels) matrix, in float64."""
    xp = array_module(rows)
    count = rows.shape[0]
    mean = column_sums(rows) / count
    centred = rows.astype(xp.float64) - mean        # two passes: no cancellation, whatever the mean
    return mean, column_sums(centred * centred) / count


def scale_shift(rows: Any, scale: Any, shift: Any, out: Any) -> None:
    """out = rows * scale + shift, per channel."""
    xp = array_module(rows)
    xp.multiply(rows, scale, out=out)
    out += shift


def backward_sums(grad: Any, rows: Any, mean: Any, inv_std: Any) -> tuple[Any, Any]:
    """Per channel, in float64: sum of the gradient and sum of gradient * normalised input."""
    normalized = (rows - mean) * inv_std
    return column_sums(grad), column_sums(grad * normalized)


def train_input_gradient(grad: Any, rows: Any, mean: Any, inv_std: Any, scale: Any, sum_grad: Any,
                         sum_grad_norm: Any, out: Any) -> None:
    """dx = scale * (g - mean(g) - x_hat * mean(g * x_hat)): the mean and the variance depend on x too."""
    count = rows.shape[0]
    normalized = (rows - mean) * inv_std
    normalized *= sum_grad_norm / count
    out[...] = scale * (grad - sum_grad / count - normalized)
