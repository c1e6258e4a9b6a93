"""The CUDA kernels (ops/cuda_kernels.py) against the portable implementations, on the CPU.

Each kernel's CUDA C is compiled by the system's C++ compiler and its grid run
one thread after another (cuda_emulation.py), through the same Python wrappers
that launch it on a GPU: index arithmetic, argument order and types, the
launch shapes.  Skipped without a C++ compiler.  test_cuda.py runs them on a
GPU where there is one.
"""
import numpy as np
import pytest

from plyground.plugins.autograd.ops import cuda_kernels, portable_kernels

from cuda_emulation import COMPILER, EmulatedCupy

pytestmark = pytest.mark.skipif(COMPILER is None, reason="no C++ compiler to run the CUDA sources on the CPU")

CONVOLUTIONS = [  # (N, H, W, C), kernel, stride, padding
    ((2, 5, 7, 3), (3, 3), (1, 1), (1, 1)),
    ((1, 8, 8, 64), (3, 3), (1, 1), (1, 1)),
    ((3, 6, 5, 300), (3, 3), (1, 1), (1, 1)),        # a row of 2,700 columns: threads loop over it
    ((2, 9, 7, 4), (5, 3), (2, 1), (2, 1)),
    ((2, 8, 8, 5), (3, 3), (2, 2), (0, 0)),
    ((1, 7, 7, 2), (4, 4), (3, 2), (1, 3)),
    ((2, 4, 4, 6), (1, 3), (1, 2), (0, 1)),
]


@pytest.fixture
def gpu(monkeypatch):
    """The kernels' wrappers with the emulated CuPy as their array module."""
    emulated = EmulatedCupy()
    monkeypatch.setattr(cuda_kernels, "_module", lambda array: emulated)
    monkeypatch.setattr(cuda_kernels, "ENABLED", True)
    monkeypatch.setattr(cuda_kernels, "_compiled", {})
    return emulated


def _out_size(shape, kernel, stride, padding):
    return tuple((shape[1 + i] + 2 * padding[i] - kernel[i]) // stride[i] + 1 for i in range(2))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CONVOLUTIONS)))
def test_im2col_copies_what_the_portable_one_copies(gpu, case, dtype):
    shape, kernel, stride, padding = CONVOLUTIONS[case]
    x = np.random.default_rng(case).normal(size=shape).astype(dtype)
    size = _out_size(shape, kernel, stride, padding)
    ours = cuda_kernels.im2col(x, kernel, stride, padding, size)
    assert gpu.launches == ["plyground_im2col"]
    np.testing.assert_array_equal(ours, portable_kernels.im2col(x, kernel, stride, padding, size))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CONVOLUTIONS)))
def test_col2im_adds_back_what_the_portable_one_adds(gpu, case, dtype):
    shape, kernel, stride, padding = CONVOLUTIONS[case]
    size = _out_size(shape, kernel, stride, padding)
    cols = np.random.default_rng(case).normal(
        size=(shape[0] * size[0] * size[1], kernel[0] * kernel[1] * shape[3])).astype(dtype)
    ours = cuda_kernels.col2im(cols, shape, kernel, stride, padding, size)
    assert gpu.launches == ["plyground_col2im"]
    # the same additions in the same order (kernel offsets ascending, from zero): the same sums
    np.testing.assert_array_equal(ours, portable_kernels.col2im(cols, shape, kernel, stride, padding, size))


@pytest.mark.parametrize("rows, channels", [(2, 1), (65, 3), (1024, 64), (20_000, 7), (300, 300)])
def test_channel_moments_in_float64_about_the_first_row(gpu, rows, channels):
    rng = np.random.default_rng(rows)
    # far from zero and spread unevenly: E[x^2] - E[x]^2 would lose digits, moments about a shift do not
    x = (1000.0 + rng.normal(size=(rows, channels)) * rng.uniform(0.01, 3, channels)).astype(np.float32)
    mean, var = cuda_kernels.channel_moments(x)
    assert gpu.launches == ["plyground_channel_sums"] and mean.dtype == var.dtype == np.float64
    exact = x.astype(np.float64)
    np.testing.assert_allclose(mean, exact.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(var, exact.var(axis=0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_the_batch_norm_passes_match_the_portable_ones(gpu, dtype, rtol):
    rng = np.random.default_rng(5)
    rows_, channels = 3000, 64
    x = rng.normal(2.0, 1.5, size=(rows_, channels)).astype(dtype)
    g = rng.normal(size=(rows_, channels)).astype(dtype)
    mean, var = portable_kernels.channel_moments(x)
    mean_t, inv_std_t = mean.astype(dtype), (1 / np.sqrt(var + 1e-5)).astype(dtype)
    scale, shift = rng.uniform(0.5, 2, channels).astype(dtype), rng.normal(size=channels).astype(dtype)

    out, expected = np.empty_like(x), np.empty_like(x)
    cuda_kernels.scale_shift(x, scale, shift, out)
    portable_kernels.scale_shift(x, scale, shift, expected)
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=rtol)

    sums = cuda_kernels.backward_sums(g, x, mean_t, inv_std_t)
    reference = portable_kernels.backward_sums(g, x, mean_t, inv_std_t)
    for ours, theirs in zip(sums, reference):
        # sums of 3,000 products of unit size: the float32 inputs' rounding, not the order, bounds the difference
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * np.sqrt(rows_))

    sum_grad, sum_grad_norm = (s.astype(dtype) for s in reference)
    out, expected = np.empty_like(x), np.empty_like(x)
    cuda_kernels.train_input_gradient(g, x, mean_t, inv_std_t, scale, sum_grad, sum_grad_norm, out)
    portable_kernels.train_input_gradient(g, x, mean_t, inv_std_t, scale, sum_grad, sum_grad_norm, expected)
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=10 * rtol)
    assert gpu.launches == ["plyground_scale_shift", "plyground_channel_sums", "plyground_norm_backward_sums",
                            "plyground_train_input_gradient"]


def test_arrays_the_kernels_do_not_take_go_the_portable_way(gpu):
    x = np.random.default_rng(0).normal(size=(2, 5, 5, 3)).astype(np.int32)
    cuda_kernels.im2col(x, (3, 3), (1, 1), (1, 1), (5, 5))
    rows = np.ones((10, 4), np.float16)
    cuda_kernels.channel_moments(rows)
    cuda_kernels.enable(False)
    cuda_kernels.im2col(x.astype(np.float32), (3, 3), (1, 1), (1, 1), (5, 5))
    assert gpu.launches == []


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_skip, relu", [(False, False), (True, False), (False, True), (True, True)])
def test_a_convolutions_fused_ending_matches_the_portable_one(gpu, dtype, with_skip, relu):
    rng = np.random.default_rng(7)
    out = rng.normal(size=(2 * 5 * 5, 9)).astype(dtype)
    bias = rng.normal(size=9).astype(dtype)
    skip = rng.normal(size=(2, 5, 5, 9)).astype(dtype) if with_skip else None
    expected = portable_kernels.bias_skip_relu(out.copy(), bias, skip, relu)
    ours = cuda_kernels.bias_skip_relu(out, bias, skip, relu)
    assert ours is out and gpu.launches == ["plyground_bias_skip_relu"]
    np.testing.assert_array_equal(ours, expected)      # the same additions in the same order
    assert (ours >= 0).all() if relu else (ours < 0).any()


def _optimizer_reference(optimizer_class, options, weights, grads):
    """The optimizer's own array operations (device cpu) over the steps' gradients: the weights after each."""
    from plyground.plugins.autograd import Tensor
    param = Tensor(weights.copy(), requires_grad=True)
    optimizer = optimizer_class([param], **options)
    after = []
    for grad in grads:
        param.grad = grad
        optimizer.step()
        after.append(param.data.copy())
    return after


@pytest.mark.parametrize("options", [dict(lr=0.1), dict(lr=0.05, momentum=0.9, weight_decay=1e-2),
                                     dict(lr=0.05, momentum=0.9, nesterov=True),
                                     dict(lr=0.05, momentum=0.5, dampening=0.3)])
def test_the_fused_sgd_step_follows_the_optimizer(gpu, options):
    from plyground.plugins.autograd.optim import SGD
    rng = np.random.default_rng(3)
    weights = rng.normal(size=(7, 5))
    grads = [rng.normal(size=(7, 5)) for _ in range(3)]
    expected = _optimizer_reference(SGD, options, weights, grads)
    momentum = options.get("momentum", 0.0)
    w, state = weights.copy(), {}
    for step, grad in enumerate(grads):
        assert cuda_kernels.sgd_update(w, grad, state, options["lr"], momentum, options.get("dampening", 0.0),
                                       options.get("weight_decay", 0.0), options.get("nesterov", False))
        assert ("momentum_buffer" in state) == bool(momentum)
        np.testing.assert_allclose(w, expected[step], rtol=1e-13, atol=1e-15)
    assert gpu.launches == ["plyground_sgd"] * 3


@pytest.mark.parametrize("decoupled", [False, True])
def test_the_fused_adam_step_follows_the_optimizer(gpu, decoupled):
    from plyground.plugins.autograd.optim import Adam, AdamW
    rng = np.random.default_rng(4)
    weights = rng.normal(size=(4, 6))
    grads = [rng.normal(size=(4, 6)) for _ in range(4)]
    options = dict(lr=0.01, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.05)
    expected = _optimizer_reference(AdamW if decoupled else Adam, options, weights, grads)
    w, m, v = weights.copy(), np.zeros_like(weights), np.zeros_like(weights)
    for step, grad in enumerate(grads, start=1):
        assert cuda_kernels.adam_update(w, grad, m, v, step, options["lr"], options["betas"], options["eps"],
                                        options["weight_decay"], decoupled)
        np.testing.assert_allclose(w, expected[step - 1], rtol=1e-13, atol=1e-15)
    assert gpu.launches == ["plyground_adam"] * 4


def test_relu_keeps_a_channels_last_layout_and_its_backward_too(gpu):
    nhwc = np.random.default_rng(8).normal(size=(2, 3, 4, 5))
    x = nhwc.transpose(0, 3, 1, 2)                       # NCHW view of NHWC memory, as convolutions return
    assert cuda_kernels.dense_order(x) == (0, 2, 3, 1) and cuda_kernels.dense_order(x[:, :2]) is None
    out = cuda_kernels.relu(x)
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    assert out.strides == x.strides
    grad = np.random.default_rng(9).normal(size=nhwc.shape).transpose(0, 3, 1, 2)
    back = cuda_kernels.relu_backward(grad, out)
    np.testing.assert_array_equal(back, grad * (out > 0))
    assert back.strides == x.strides and gpu.launches == ["plyground_relu_backward"]


def test_addition_keeps_a_shared_channels_last_layout(gpu):
    rng = np.random.default_rng(10)
    x, y = (rng.normal(size=(2, 3, 4, 5)).transpose(0, 3, 1, 2) for _ in range(2))
    total = cuda_kernels.add(x, y)
    np.testing.assert_array_equal(total, x + y)
    assert total.strides == x.strides
    assert cuda_kernels.add(x, np.ascontiguousarray(y)).flags.c_contiguous   # layouts differ: plain x + y


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norms_training_statistics_in_two_kernels(gpu, dtype, rtol, affine):
    rng = np.random.default_rng(11)
    rows_, channels, momentum, eps = 5000, 48, 0.1, 1e-5
    x = (3.0 + rng.normal(size=(rows_, channels)) * rng.uniform(0.1, 2, channels)).astype(dtype)
    running_mean, running_var = rng.normal(size=channels).astype(dtype), rng.uniform(0.5, 2, channels).astype(dtype)
    weight = rng.uniform(0.5, 2, channels).astype(dtype) if affine else None
    bias = rng.normal(size=channels).astype(dtype) if affine else None
    exact = x.astype(np.float64)
    mean, var = exact.mean(axis=0), exact.var(axis=0)
    expected_running = ((1 - momentum) * running_mean + momentum * mean,
                        (1 - momentum) * running_var + momentum * rows_ / (rows_ - 1) * var)
    inv_std = 1 / np.sqrt(var + eps)
    gamma = weight if affine else np.ones(channels)
    beta = bias if affine else np.zeros(channels)

    result = cuda_kernels.norm_statistics(x, running_mean, running_var, weight, bias, momentum, eps)
    assert gpu.launches == ["plyground_channel_sums", "plyground_norm_statistics"]
    assert all(r.dtype == dtype for r in result)
    for ours, theirs in zip(result, (mean, inv_std, gamma * inv_std, beta - mean * gamma * inv_std)):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(running_mean, expected_running[0], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(running_var, expected_running[1], rtol=rtol, atol=rtol)
