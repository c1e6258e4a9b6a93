"""Hand-written CUDA kernels for CuPy arrays: what the portable array operations do in several passes, in one.

On a GPU the portable implementations (:mod:`.portable_kernels`) spend most
of a training step in passes that each launch a kernel and sweep an
activation: im2col as a zeroed matrix and nine window copies, batch norm's
statistics through float64 copies and matrix-vector products, its input
gradient through five temporaries.  The kernels here do each of those in one
pass (two for the per-channel sums: per-block partial sums, then their sum),
with the same signatures and results (to rounding) as the portable and numba
kernels; :mod:`.kernels` hands them to CuPy arrays.

The sources are plain CUDA C compiled by CuPy (NVRTC) once per dtype on first
use; float16 arrays are copied as 16-bit words (im2col needs no arithmetic)
and otherwise take the portable path.  ``PLYGROUND_CUDA_KERNELS=0`` (or
:func:`enable` (False)) turns them off, so the two paths can be compared on
one GPU (``benchmarks/gpu_autograd_vs_torch.py``).
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

import numpy as np

from ..backend import array_module
from . import portable_kernels

#: Whether CuPy arrays get these kernels (else the portable ones); see :func:`enable`.
ENABLED = os.environ.get("PLYGROUND_CUDA_KERNELS", "1").strip().lower() not in ("0", "false", "no", "off")

_THREADS = 256
#: The C type each kernel is compiled for, per dtype (float16 only where a kernel only moves words).
_ARITHMETIC = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
_WORDS = {np.dtype(np.float16): "unsigned short", np.dtype(np.float32): "float", np.dtype(np.float64): "double"}

_IM2COL = r"""
extern "C" __global__ void plyground_im2col(
        const T* x, T* cols, int rows, int height, int width, int channels, int kernel_h, int kernel_w,
        int stride_h, int stride_w, int pad_h, int pad_w, int out_h, int out_w) {
    // one block per output position (row of cols); its threads copy each kernel offset's run of channels
    // (no division per element: the row's indices once, then additions)
    long long row_width = (long long)kernel_h * kernel_w * channels;
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        int ox = row % out_w, t = row / out_w;
        int oy = t % out_h, n = t / out_h;
        int y0 = oy * stride_h - pad_h, x0 = ox * stride_w - pad_w;
        T* out = cols + (long long)row * row_width;
        for (int kh = 0; kh < kernel_h; ++kh) {
            int y = y0 + kh;
            for (int kw = 0; kw < kernel_w; ++kw, out += channels) {
                int xx = x0 + kw;
                if (y >= 0 && y < height && xx >= 0 && xx < width) {
                    const T* in = x + (((long long)n * height + y) * width + xx) * channels;
                    for (int c = threadIdx.x; c < channels; c += blockDim.x) out[c] = in[c];
                } else {
                    for (int c = threadIdx.x; c < channels; c += blockDim.x) out[c] = (T)0;
                }
            }
        }
    }
}
"""

_COL2IM = r"""
extern "C" __global__ void plyground_col2im(
        const T* cols, T* x, long long total, int height, int width, int channels, int kernel_h, int kernel_w,
        int stride_h, int stride_w, int pad_h, int pad_w, int out_h, int out_w) {
    // one thread per input element: the sum of the columns it was copied to, kernel offsets in order
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        int c = (int)(i % channels);
        long long r = i / channels;
        int xx = (int)(r % width); r /= width;
        int y = (int)(r % height);
        long long n = r / height;
        T sum = 0;
        for (int kh = 0; kh < kernel_h; ++kh) {
            int ty = y + pad_h - kh;
            if (ty < 0 || ty % stride_h != 0 || ty / stride_h >= out_h) continue;
            int oy = ty / stride_h;
            for (int kw = 0; kw < kernel_w; ++kw) {
                int tx = xx + pad_w - kw;
                if (tx < 0 || tx % stride_w != 0 || tx / stride_w >= out_w) continue;
                int ox = tx / stride_w;
                sum += cols[((((n * out_h + oy) * out_w + ox) * kernel_h + kh) * kernel_w + kw) * channels + c];
            }
        }
        x[i] = sum;
    }
}
"""

_CHANNEL_SUMS = r"""
extern "C" __global__ void plyground_channel_sums(
        const T* a, const T* b, const double* shift, double* partial, long long rows, int channels,
        int rows_per_block, int product) {
    // block k sums rows [k * rows_per_block, ...) per channel, in float64, into partial[k, 0:2, :]:
    //   product 0:  sum (a - shift),  sum (a - shift)^2          (a's moments about shift)
    //   product 1:  sum a,            sum a * (b - shift)        (batch norm's backward sums)
    long long start = (long long)blockIdx.x * rows_per_block;
    long long stop = start + rows_per_block < rows ? start + rows_per_block : rows;
    for (int c = threadIdx.x; c < channels; c += blockDim.x) {
        double k = shift[c], first = 0.0, second = 0.0;
        for (long long r = start; r < stop; ++r) {
            double v = (double)a[r * channels + c];
            if (product) {
                first += v;
                second += v * ((double)b[r * channels + c] - k);
            } else {
                double d = v - k;
                first += d;
                second += d * d;
            }
        }
        partial[(2LL * blockIdx.x) * channels + c] = first;
        partial[(2LL * blockIdx.x + 1) * channels + c] = second;
    }
}
"""

_SCALE_SHIFT = r"""
extern "C" __global__ void plyground_scale_shift(
        const T* rows, const T* scale, const T* shift, T* out, long long total, int channels) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        int c = (int)(i % channels);
        out[i] = rows[i] * scale[c] + shift[c];
    }
}
"""

_TRAIN_INPUT_GRADIENT = r"""
extern "C" __global__ void plyground_train_input_gradient(
        const T* grad, const T* rows, const T* mean, const T* inv_std, const T* scale, const T* sum_grad,
        const T* sum_grad_norm, T* out, long long total, int channels, T inv_count) {
    // dx = scale * (g - mean(g) - x_hat * mean(g * x_hat))
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        int c = (int)(i % channels);
        T normalized = (rows[i] - mean[c]) * inv_std[c];
        out[i] = scale[c] * (grad[i] - sum_grad[c] * inv_count - normalized * (sum_grad_norm[c] * inv_count));
    }
}
"""

_BIAS_SKIP_RELU = r"""
extern "C" __global__ void plyground_bias_skip_relu(
        T* out, const T* bias, const T* skip, long long total, int channels, int has_skip, int relu) {
    // a convolution's ending in inference: out = relu?(out + bias + skip?), per channel bias, in place
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        T v = out[i] + bias[(int)(i % channels)];
        if (has_skip) v += skip[i];
        out[i] = (relu && v < (T)0) ? (T)0 : v;
    }
}
"""

_SGD = r"""
extern "C" __global__ void plyground_sgd(
        T* w, const T* g, T* buffer, long long total, T lr, T momentum, T dampening, T weight_decay,
        int nesterov, int first) {
    // PyTorch's SGD for one parameter: the gradient (+ weight decay), the momentum buffer, the step
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        T d = g[i];
        if (weight_decay != (T)0) d += weight_decay * w[i];
        if (momentum != (T)0) {
            T b = first ? d : momentum * buffer[i] + ((T)1 - dampening) * d;
            buffer[i] = b;
            d = nesterov ? d + momentum * b : b;
        }
        w[i] -= lr * d;
    }
}
"""

_ADAM = r"""
extern "C" __global__ void plyground_adam(
        T* w, const T* g, T* m, T* v, long long total, T step_size, T beta1, T beta2, T bias2, T eps,
        T weight_decay, int decoupled) {
    // Adam (coupled: the L2 penalty's gradient added) or AdamW (decoupled: the weights shrunk first)
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)blockDim.x * gridDim.x) {
        T d = g[i], wi = w[i];
        if (decoupled) wi *= weight_decay;       // here weight_decay is 1 - lr * weight_decay
        else d += weight_decay * wi;
        T mi = beta1 * m[i] + ((T)1 - beta1) * d;
        T vi = beta2 * v[i] + ((T)1 - beta2) * d * d;
        m[i] = mi;
        v[i] = vi;
        w[i] = wi - step_size * (mi / (sqrt(vi / bias2) + eps));
    }
}
"""

_NORM_STATISTICS = r"""
extern "C" __global__ void plyground_norm_statistics(
        const double* sums, const double* shift, int channels, long long count,
        T* running_mean, T* running_var, const T* weight, const T* bias, int has_weight, int has_bias,
        double momentum, double eps, T* mean_out, T* inv_std_out, T* scale_out, T* shift_out) {
    // one thread per channel: the moments from channel_sums' sums (about shift), the running
    // statistics (unbiased variance, as PyTorch), and the affine map out = rows * scale + shift
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    double first = sums[c], second = sums[channels + c];
    double offset = first / count, mean = shift[c] + offset;
    double var = second / count - offset * offset;
    if (var < 0.0) var = 0.0;
    running_mean[c] = (T)((1.0 - momentum) * (double)running_mean[c] + momentum * mean);
    running_var[c] = (T)((1.0 - momentum) * (double)running_var[c] + momentum * count / (count - 1) * var);
    double inv_std = 1.0 / sqrt(var + eps);
    double gamma = has_weight ? (double)weight[c] : 1.0, beta = has_bias ? (double)bias[c] : 0.0;
    scale_out[c] = (T)(gamma * inv_std);
    shift_out[c] = (T)(beta - mean * gamma * inv_std);
    mean_out[c] = (T)mean;
    inv_std_out[c] = (T)inv_std;
}
"""

_NORM_BACKWARD_SUMS = r"""
extern "C" __global__ void plyground_norm_backward_sums(
        const double* sums, int channels, const T* inv_std, T* sum_grad, T* sum_grad_norm) {
    // one thread per channel: channel_sums' sums in the rows' dtype, sum g * (x - mean) scaled by 1 / std
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    sum_grad[c] = (T)sums[c];
    sum_grad_norm[c] = (T)(sums[channels + c] * (double)inv_std[c]);
}
"""

#: (source, kernel name, the dtypes it is compiled for)
_SOURCES = {
    "im2col": (_IM2COL, "plyground_im2col", _WORDS),
    "col2im": (_COL2IM, "plyground_col2im", _ARITHMETIC),
    "channel_sums": (_CHANNEL_SUMS, "plyground_channel_sums", _ARITHMETIC),
    "scale_shift": (_SCALE_SHIFT, "plyground_scale_shift", _ARITHMETIC),
    "train_input_gradient": (_TRAIN_INPUT_GRADIENT, "plyground_train_input_gradient", _ARITHMETIC),
    "bias_skip_relu": (_BIAS_SKIP_RELU, "plyground_bias_skip_relu", _ARITHMETIC),
    "sgd": (_SGD, "plyground_sgd", _ARITHMETIC),
    "norm_statistics": (_NORM_STATISTICS, "plyground_norm_statistics", _ARITHMETIC),
    "norm_backward_sums": (_NORM_BACKWARD_SUMS, "plyground_norm_backward_sums", _ARITHMETIC),
    "adam": (_ADAM, "plyground_adam", _ARITHMETIC),
}
_compiled: dict[tuple, Any] = {}      # (kernel, dtype, array module, GPU) -> compiled kernel; and _sums' ones


def source(kernel: str, ctype: str) -> str:
    """The CUDA C source of ``kernel`` for the C type ``ctype`` (what CuPy compiles; tests compile it too)."""
    return f"typedef {ctype} T;\n" + _SOURCES[kernel][0]


def _kernel(xp: Any, kernel: str, dtype: Any) -> Any:
    """The compiled kernel for ``dtype`` on the current GPU (compiled on first use)."""
    key = (kernel, np.dtype(dtype), id(xp), xp.cuda.Device().id)
    if key not in _compiled:
        text, name, ctypes = _SOURCES[kernel]
        _compiled[key] = xp.RawKernel(source(kernel, ctypes[np.dtype(dtype)]), name)
    return _compiled[key]


def _blocks(total: int) -> int:
    return max(1, min((total + _THREADS - 1) // _THREADS, 65536))


def enable(on: bool = True) -> None:
    """Give CuPy arrays these kernels (True) or the portable ones (False), from now on."""
    global ENABLED
    ENABLED = bool(on)


def handles(array: Any, arithmetic: bool = True) -> bool:
    """Whether these kernels take ``array`` (a CuPy array of a dtype they are compiled for)."""
    return ENABLED and np.dtype(array.dtype) in (_ARITHMETIC if arithmetic else _WORDS)


def im2col(x_nhwc: Any, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int],
           out_size: tuple[int, int]) -> Any:
    """(N*OH*OW, KH*KW*C) matrix of receptive fields, as :func:`.portable_kernels.im2col` makes it."""
    if not handles(x_nhwc, arithmetic=False):
        return portable_kernels.im2col(x_nhwc, kernel, stride, padding, out_size)
    xp = _module(x_nhwc)
    x = xp.ascontiguousarray(x_nhwc)
    n, height, width, channels = x.shape
    rows, row_width = n * out_size[0] * out_size[1], kernel[0] * kernel[1] * channels
    cols = xp.empty((rows, row_width), dtype=x.dtype)
    if rows == 0 or row_width == 0:
        return cols
    i32 = np.int32
    _kernel(xp, "im2col", x.dtype)(
        (min(rows, 1 << 20),), (min(_THREADS, _round_up(channels, 32)),),
        (x, cols, i32(rows), i32(height), i32(width), i32(channels), i32(kernel[0]), i32(kernel[1]),
         i32(stride[0]), i32(stride[1]), i32(padding[0]), i32(padding[1]), i32(out_size[0]), i32(out_size[1])))
    return cols


def col2im(cols: Any, input_shape_nhwc: tuple[int, int, int, int], kernel: tuple[int, int],
           stride: tuple[int, int], padding: tuple[int, int], out_size: tuple[int, int]) -> Any:
    """The adjoint of :func:`im2col`, as :func:`.portable_kernels.col2im` computes it."""
    if not handles(cols):
        return portable_kernels.col2im(cols, input_shape_nhwc, kernel, stride, padding, out_size)
    xp = _module(cols)
    cols = xp.ascontiguousarray(cols)
    n, height, width, channels = input_shape_nhwc
    x = xp.empty(input_shape_nhwc, dtype=cols.dtype)
    total = x.size
    if total:
        i32 = np.int32
        _kernel(xp, "col2im", cols.dtype)(
            (_blocks(total),), (_THREADS,),
            (cols, x, np.int64(total), i32(height), i32(width), i32(channels), i32(kernel[0]), i32(kernel[1]),
             i32(stride[0]), i32(stride[1]), i32(padding[0]), i32(padding[1]), i32(out_size[0]),
             i32(out_size[1])))
    return x


def dense_order(array: Any) -> tuple[int, ...] | None:
    """The axis order in which ``array``'s memory is C-contiguous (an NCHW view of NHWC memory: (0, 2, 3, 1)),
    or None when it has gaps.  CuPy's element-wise operations walk an array in its index order and return
    C-contiguous results, so on such a view they read memory out of order and hand back NCHW, which the next
    convolution must transpose again; computed on the permuted (contiguous) view, neither happens."""
    order = tuple(sorted(range(array.ndim), key=lambda axis: -array.strides[axis]))
    return order if array.transpose(order).flags.c_contiguous else None


def _inverse(order: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(range(len(order)), key=lambda axis: order[axis]))


def _in_memory_order(function: Any, *arrays: Any) -> Any:
    """``function(*arrays)`` computed on the arrays permuted into their memory order when they share one that
    is not their index order (an NCHW view of NHWC memory), the result permuted back; else as they are."""
    first = arrays[0]
    order = dense_order(first) if ENABLED and getattr(first, "ndim", 0) > 1 else None
    if (order is None or order == tuple(range(first.ndim))
            or any(getattr(a, "shape", None) != first.shape or getattr(a, "strides", None) != first.strides
                   for a in arrays[1:])):
        return function(*arrays)
    return function(*(a.transpose(order) for a in arrays)).transpose(_inverse(order))


def relu(x: Any) -> Any:
    """max(x, 0), in x's memory layout."""
    return _in_memory_order(lambda a: _module(a).maximum(a, 0), x)


def add(x: Any, y: Any) -> Any:
    """x + y, in their memory layout when they share one (a residual block's skip addition)."""
    return _in_memory_order(lambda a, b: a + b, x, y)


def relu_backward(grad: Any, out: Any) -> Any:
    """grad where out > 0, else 0, in one element-wise pass (in out's memory layout when grad shares it)."""
    if not handles(out) or grad.dtype != out.dtype:
        return portable_kernels.relu_backward(grad, out)
    xp = _module(out)
    key = ("relu_backward", id(xp))
    if key not in _compiled:
        _compiled[key] = xp.ElementwiseKernel("T g, T y", "T z", "z = y > (T)0 ? g : (T)0", "plyground_relu_backward")
    return _in_memory_order(_compiled[key], grad, out)


def _partial_sums(a: Any, b: Any, shift: Any, product: bool) -> Any:
    """channel_sums' (blocks, 2 * channels) float64 partial sums; a, b are (rows, channels) C-contiguous."""
    xp = _module(a)
    rows, channels = a.shape
    # about 64 rows per block at batch 1,024 on 8x8 (1,024 blocks), at most 4,096 blocks
    per_block = max(64, -(-rows // 4096))
    blocks = max(1, -(-rows // per_block))
    partial = xp.empty((blocks, 2 * channels), dtype=xp.float64)
    _kernel(xp, "channel_sums", a.dtype)(
        (blocks,), (min(_THREADS, _round_up(channels, 32)),),
        (a, a if b is None else b, xp.ascontiguousarray(shift, dtype=xp.float64), partial, np.int64(rows),
         np.int32(channels), np.int32(per_block), np.int32(1 if product else 0)))
    return partial


def _sums(a: Any, b: Any, shift: Any, product: bool) -> Any:
    """channel_sums' two sums per channel, (2 * channels,) float64: the partial sums added up by one
    matrix-vector product (cuBLAS's reduction is parallel; one thread per channel looping over a thousand
    partial sums took longer than the pass over the activations)."""
    xp = _module(a)
    partial = _partial_sums(a, b, shift, product)
    key = ("ones", partial.shape[0], id(xp), xp.cuda.Device().id)
    if key not in _compiled:
        _compiled[key] = xp.ones(partial.shape[0], dtype=xp.float64)
    return matmul(_compiled[key], partial)


def _channel_sums(a: Any, b: Any, shift: Any, product: bool) -> tuple[Any, Any]:
    """Per channel, in float64: see the kernel's comment."""
    channels = a.shape[1]
    sums = _sums(a, b, shift, product)
    return sums[:channels], sums[channels:]


def channel_moments(rows: Any) -> tuple[Any, Any]:
    """Per-channel mean and (biased) variance in float64, about the first row (shifted data: no cancellation
    unless the spread is tiny against the distance from the first row)."""
    if not handles(rows) or rows.shape[0] == 0:
        return portable_kernels.channel_moments(rows)
    xp = _module(rows)
    rows = xp.ascontiguousarray(rows)
    count = rows.shape[0]
    shift = rows[0].astype(xp.float64)
    total, total_sq = _channel_sums(rows, None, shift, product=False)
    offset = total / count
    return shift + offset, xp.maximum(total_sq / count - offset * offset, 0.0)


def scale_shift(rows: Any, scale: Any, shift: Any, out: Any) -> None:
    """out = rows * scale + shift, per channel, in one pass."""
    if not (handles(rows) and rows.flags.c_contiguous and out.flags.c_contiguous and rows.ndim == 2):
        return portable_kernels.scale_shift(rows, scale, shift, out)
    xp = _module(rows)
    total = rows.size
    if total:
        _kernel(xp, "scale_shift", rows.dtype)(
            (_blocks(total),), (_THREADS,),
            (rows, _vector(xp, scale, rows.dtype), _vector(xp, shift, rows.dtype), out, np.int64(total),
             np.int32(rows.shape[1])))


def backward_sums(grad: Any, rows: Any, mean: Any, inv_std: Any) -> tuple[Any, Any]:
    """Per channel: sum of the gradient and sum of gradient * normalised input, accumulated in float64 and
    returned in the rows' dtype (one pass over the arrays, one small kernel to finish)."""
    if not handles(rows) or grad.dtype != rows.dtype or rows.shape[0] == 0 or rows.ndim != 2:
        return portable_kernels.backward_sums(grad, rows, mean, inv_std)
    xp = _module(rows)
    channels, dtype = rows.shape[1], rows.dtype
    sums = _sums(xp.ascontiguousarray(grad), xp.ascontiguousarray(rows), mean, product=True)
    sum_grad, sum_grad_norm = xp.empty(channels, dtype), xp.empty(channels, dtype)
    _kernel(xp, "norm_backward_sums", dtype)(
        (-(-channels // 64),), (64,),
        (sums, np.int32(channels), _vector(xp, inv_std, dtype), sum_grad, sum_grad_norm))
    return sum_grad, sum_grad_norm


def norm_statistics(rows: Any, running_mean: Any, running_var: Any, weight: Any, bias: Any, momentum: float,
                    eps: float) -> tuple[Any, Any, Any, Any] | None:
    """Batch norm's training statistics in two kernels: per channel (in the rows' dtype) the mean, 1 / std,
    and the affine map's scale and shift (``weight``, ``bias``: arrays or None); the running statistics
    updated in place.  None for arrays these kernels do not take (the caller computes them its own way)."""
    if not (handles(rows) and rows.ndim == 2 and rows.shape[0] > 1 and rows.flags.c_contiguous
            and running_mean.dtype == running_var.dtype == rows.dtype
            and running_mean.flags.c_contiguous and running_var.flags.c_contiguous
            and all(v is None or v.dtype == rows.dtype for v in (weight, bias))):
        return None
    xp = _module(rows)
    count, channels = rows.shape
    dtype = rows.dtype
    shift = rows[0].astype(xp.float64)
    sums = _sums(rows, None, shift, product=False)
    mean, inv_std, scale, shift_out = (xp.empty(channels, dtype) for _ in range(4))
    _kernel(xp, "norm_statistics", dtype)(
        (-(-channels // 64),), (64,),
        (sums, shift, np.int32(channels), np.int64(count), running_mean,
         running_var, rows if weight is None else _vector(xp, weight, dtype),
         rows if bias is None else _vector(xp, bias, dtype), np.int32(weight is not None),
         np.int32(bias is not None), np.float64(momentum), np.float64(eps), mean, inv_std, scale, shift_out))
    return mean, inv_std, scale, shift_out


def train_input_gradient(grad: Any, rows: Any, mean: Any, inv_std: Any, scale: Any, sum_grad: Any,
                         sum_grad_norm: Any, out: Any) -> None:
    """dx = scale * (g - mean(g) - x_hat * mean(g * x_hat)), in one pass."""
    if not (handles(rows) and grad.dtype == rows.dtype and out.flags.c_contiguous and rows.ndim == 2):
        return portable_kernels.train_input_gradient(grad, rows, mean, inv_std, scale, sum_grad, sum_grad_norm,
                                                     out)
    xp = _module(rows)
    total, dtype = rows.size, rows.dtype
    if total:
        vectors = [_vector(xp, v, dtype) for v in (mean, inv_std, scale, sum_grad, sum_grad_norm)]
        _kernel(xp, "train_input_gradient", dtype)(
            (_blocks(total),), (_THREADS,),
            (xp.ascontiguousarray(grad), xp.ascontiguousarray(rows), *vectors, out, np.int64(total),
             np.int32(rows.shape[1]), dtype.type(1.0 / rows.shape[0])))


def bias_skip_relu(out: Any, bias: Any, skip: Any, relu: bool) -> Any:
    """out = relu?(out + bias + skip) in place and in one pass, on a (rows, channels) matrix."""
    if not (handles(out) and out.flags.c_contiguous and out.ndim == 2 and bias.dtype == out.dtype
            and (skip is None or skip.dtype == out.dtype)):
        return portable_kernels.bias_skip_relu(out, bias, skip, relu)
    xp = _module(out)
    total = out.size
    if total:
        skip = out if skip is None else xp.ascontiguousarray(skip).reshape(out.shape)
        _kernel(xp, "bias_skip_relu", out.dtype)(
            (_blocks(total),), (_THREADS,),
            (out, _vector(xp, bias, out.dtype), skip, np.int64(total), np.int32(out.shape[1]),
             np.int32(skip is not out), np.int32(bool(relu))))
    return out


def sgd_update(weights: Any, grad: Any, state: dict, lr: float, momentum: float, dampening: float,
               weight_decay: float, nesterov: bool) -> bool:
    """One SGD step of one parameter in one pass, in place; with momentum, ``state["momentum_buffer"]`` is the
    buffer (made and set to the gradient on the first step).  False, doing nothing, for arrays these kernels
    do not take."""
    buffer = state.get("momentum_buffer")
    if not (handles(weights) and weights.flags.c_contiguous and grad.dtype == weights.dtype
            and (buffer is None or buffer.flags.c_contiguous)):
        return False
    xp, scalar = _module(weights), weights.dtype.type
    first = bool(momentum) and buffer is None
    if first:
        buffer = state["momentum_buffer"] = xp.empty_like(weights)
    if weights.size:
        _kernel(xp, "sgd", weights.dtype)(
            (_blocks(weights.size),), (_THREADS,),
            (weights, xp.ascontiguousarray(grad), buffer if momentum else weights, np.int64(weights.size),
             scalar(lr), scalar(momentum), scalar(dampening), scalar(weight_decay), np.int32(bool(nesterov)),
             np.int32(first)))
    return True


def adam_update(weights: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, step: int, lr: float, betas: tuple,
                eps: float, weight_decay: float, decoupled: bool) -> bool:
    """One Adam/AdamW step of one parameter in one pass, in place (``step`` counts from 1); False, doing
    nothing, for arrays these kernels do not take."""
    if not (handles(weights) and grad.dtype == weights.dtype
            and all(a.flags.c_contiguous for a in (weights, exp_avg, exp_avg_sq))):
        return False
    xp, scalar = _module(weights), weights.dtype.type
    beta1, beta2 = betas
    if weights.size:
        _kernel(xp, "adam", weights.dtype)(
            (_blocks(weights.size),), (_THREADS,),
            (weights, xp.ascontiguousarray(grad), exp_avg, exp_avg_sq, np.int64(weights.size),
             scalar(lr / (1 - beta1 ** step)), scalar(beta1), scalar(beta2), scalar(1 - beta2 ** step),
             scalar(eps), scalar(1 - lr * weight_decay if decoupled else weight_decay), np.int32(bool(decoupled))))
    return True


def _vector(xp: Any, values: Any, dtype: Any) -> Any:
    return xp.ascontiguousarray(values.reshape(-1), dtype=dtype)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


#: The cuBLAS handle products go through while a CUDA graph is captured (see :func:`capturing_with`), else None.
_CAPTURE_BLAS = None


def matmul(a: Any, b: Any) -> Any:
    """``a @ b``; while a step is captured as a CUDA graph, through the capture's own cuBLAS handle (CuPy's
    products refuse to run then; see cublas.py)."""
    if _CAPTURE_BLAS is not None:
        out = _CAPTURE_BLAS.matmul(a, b)
        if out is not None:
            return out
    return a @ b


@contextlib.contextmanager
def capturing_with(handle: Any) -> Iterator[None]:
    """Products go through ``handle`` (a :class:`.cublas.Handle`) inside the block."""
    global _CAPTURE_BLAS
    _CAPTURE_BLAS = handle
    try:
        yield
    finally:
        _CAPTURE_BLAS = None


def _module(array: Any) -> Any:
    """The array module of ``array`` (tests put an emulated CuPy here)."""
    return array_module(array)
