"""Finite-difference checks (float64) of every operation's backward pass, on every device.

The tests that take ``param`` run once per device: cpu (numpy and the numba
kernels), cpu-portable (the portable implementations, the GPU's code path)
and cuda where CuPy finds a GPU.
"""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, cat, stack
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.backend import get_device
from plyground.plugins.autograd.gradcheck import gradcheck

from device_params import ALL_DEVICES


@pytest.fixture(params=ALL_DEVICES)
def device(request):
    return request.param


@pytest.fixture
def param(rng, device):
    """A float64 leaf tensor with random values on the device under test."""
    def make(*shape, low=None, high=None):
        data = rng.normal(size=shape) if low is None else rng.uniform(low, high, size=shape)
        return Tensor(data, requires_grad=True, device=device)
    return make


@pytest.mark.parametrize("shape_a, shape_b", [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)),
                                              ((2, 3, 4), (3, 1)), ((), (2, 2))])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_ops_with_broadcasting(param, op, shape_a, shape_b):
    a = param(*shape_a)
    b = param(*shape_b, low=0.5, high=2.0) if op == "div" else param(*shape_b)
    fn = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b}[op]
    gradcheck(lambda: fn(), [a, b])


def test_scalar_operands_on_either_side(param):
    a = param(3, 2, low=0.5, high=2.0)
    gradcheck(lambda: 2.0 - a * 3.0 + 1.5 / a - a / 4.0 + (-a), [a])


@pytest.mark.parametrize("shape_a, shape_b", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)),
                                              ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                                              ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul_batched_and_broadcast(param, shape_a, shape_b):
    a, b = param(*shape_a), param(*shape_b)
    gradcheck(lambda: a @ b, [a, b])


def test_power_with_scalar_and_tensor_exponents(param):
    base = param(3, 4, low=0.5, high=2.0)
    exponent = param(3, 4)
    gradcheck(lambda: base ** 3, [base])
    gradcheck(lambda: base ** 0.5, [base])
    gradcheck(lambda: base ** -2, [base])
    gradcheck(lambda: base ** exponent, [base, exponent])
    gradcheck(lambda: 2.0 ** exponent, [exponent])


def test_power_backward_value():
    # d/dx x^3 at x=2 is 3*2^2 = 12 (a classic bug computes x^(n-1) without the factor n, or n*x^n).
    x = Tensor([2.0], requires_grad=True, dtype=np.float64)
    (x ** 3).sum().backward()
    np.testing.assert_allclose(x.grad, [12.0])


@pytest.mark.parametrize("fn", [F.exp, F.tanh, F.sigmoid, F.relu, F.abs])
def test_unary(param, fn):
    x = param(4, 5)
    x.data[np.abs(x.data) < 1e-3] = 0.5  # keep away from relu/abs kinks
    gradcheck(lambda: fn(x), [x])


def test_log_and_sqrt(param):
    x = param(4, 5, low=0.2, high=3.0)
    gradcheck(lambda: F.log(x) + F.sqrt(x), [x])


def test_clip(param):
    x = param(5, 6)
    x.data[np.abs(np.abs(x.data) - 0.5) < 1e-3] = 0.0
    gradcheck(lambda: F.clip(x, -0.5, 0.5), [x])
    gradcheck(lambda: x.clamp(min=0.0), [x])


def test_relu_multiplies_the_upstream_gradient():
    x = Tensor([-1.0, 2.0, 3.0], requires_grad=True)
    F.relu(x).backward(np.array([5.0, 7.0, -2.0]))
    np.testing.assert_allclose(x.grad, [0.0, 7.0, -2.0])


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("reduction", ["sum", "mean", "max", "min", "var"])
def test_reductions(param, reduction, axis, keepdims):
    x = param(3, 4, 5)
    gradcheck(lambda: getattr(F, reduction)(x, axis=axis, keepdims=keepdims), [x])


def test_max_splits_gradient_between_ties():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]], requires_grad=True)
    x.max(axis=1).sum().backward()
    np.testing.assert_allclose(x.grad, [[0, 0.5, 0.5], [1, 0, 0]])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_and_log_softmax(param, axis):
    x = param(3, 4, 5)
    gradcheck(lambda: F.softmax(x, axis), [x])
    gradcheck(lambda: F.log_softmax(x, axis), [x])


def test_softmax_is_stable_and_normalised_over_the_given_axis():
    x = Tensor(np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -1000.0]]))
    p = F.softmax(x, axis=1).data
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[1], 1 / 3)
    logp = F.log_softmax(x, axis=1).data
    np.testing.assert_allclose(np.exp(logp), p, rtol=1e-12)
    # One distribution over all 64 entries of each row, not 8 distributions of 8.
    board = Tensor(np.random.default_rng(0).normal(size=(2, 64)))
    np.testing.assert_allclose(F.softmax(board, axis=-1).data.sum(axis=1), 1.0)


def test_shape_ops(param):
    x = param(2, 3, 4)
    gradcheck(lambda: x.reshape(4, 6), [x])
    gradcheck(lambda: x.permute(2, 0, 1), [x])
    gradcheck(lambda: x.transpose(0, 2), [x])
    gradcheck(lambda: x.T, [x])
    gradcheck(lambda: x.flatten(1), [x])
    gradcheck(lambda: x.unsqueeze(1).squeeze(1), [x])
    gradcheck(lambda: F.broadcast_to(x[:, :1], (2, 3, 4)), [x])


@pytest.mark.parametrize("index", [1, (0, slice(1, 3)), (Ellipsis, 2), (slice(None), None, 1),
                                   np.array([0, 1, 1, 0]), (np.array([0, 1, 1]), np.array([2, 2, 0])),
                                   np.array([[True, False, True, False]] * 3)])
def test_indexing(param, index):
    x = param(3, 4) if isinstance(index, np.ndarray) and index.dtype == bool else param(2, 3, 4)
    gradcheck(lambda: x[index], [x])


def test_fancy_index_repeats_accumulate():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[np.array([0, 0, 2, 0])].sum().backward()
    np.testing.assert_allclose(x.grad, [3.0, 0.0, 1.0])


def test_gather(param):
    x = param(3, 5)
    index = np.array([[0, 4, 4], [1, 1, 2], [3, 0, 3]])
    gradcheck(lambda: x.gather(1, index), [x])
    gradcheck(lambda: x.gather(0, np.array([[2, 0, 1, 1, 0]])), [x])
    np.testing.assert_allclose(x.gather(1, index).numpy(), np.take_along_axis(x.numpy(), index, 1))


def test_cat_and_stack(param):
    a, b, c = param(2, 3), param(4, 3), param(2, 3)
    gradcheck(lambda: cat([a, b], axis=0), [a, b])
    gradcheck(lambda: cat([a, c], dim=1), [a, c])
    gradcheck(lambda: stack([a, c], axis=1), [a, c])
    gradcheck(lambda: stack([a, c, a]), [a, c])  # a used twice


def test_pad(param):
    x = param(2, 3, 4)
    gradcheck(lambda: F.pad(x, ((0, 0), (1, 2), (2, 0)), value=1.5), [x])
    gradcheck(lambda: x.pad(1), [x])
    assert F.pad(x, ((0, 0), (1, 2), (2, 0))).shape == (2, 6, 6)


def test_linear(param):
    x, w, b = param(5, 3), param(4, 3), param(4)
    gradcheck(lambda: F.linear(x, w, b), [x, w, b])
    x3 = param(2, 5, 3)
    gradcheck(lambda: F.linear(x3, w), [x3, w])


@pytest.mark.parametrize("dense_counts", [True, False], ids=["counts", "gather"])
def test_sparse_linear_is_the_dense_linear_layer_of_its_one_hot_input(param, monkeypatch, dense_counts):
    # Both ways of computing it: the (B, F) counts times the weight (few inputs) and the gathered rows summed.
    import plyground.plugins.autograd.ops.arithmetic as arithmetic
    monkeypatch.setattr(arithmetic, "_DENSE_COUNTS", 1 << 22 if dense_counts else 0)
    w, b = param(7, 4), param(4)
    indices = np.array([[0, 3, 6, -1], [2, -1, -1, -1], [5, 5, 1, 4], [-1, -1, -1, -1]])   # 5 twice: counts twice
    gradcheck(lambda: F.sparse_linear(indices, w, b), [w, b])
    gradcheck(lambda: F.sparse_linear(indices, w) * F.sparse_linear(indices[::-1].copy(), w), [w])
    dense = np.zeros((4, 7))
    for row, entries in enumerate(indices):
        for i in entries[entries >= 0]:
            dense[row, i] += 1.0
    expected = dense @ w.numpy() + b.numpy()
    assert np.allclose(F.sparse_linear(indices, w, b).numpy(), expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(IndexError, match="beyond the weight's 7 rows"):
        F.sparse_linear(np.array([[7]]), w)
    with pytest.raises(TypeError, match="integer index array"):
        F.sparse_linear(np.array([[0.5]]), w)
    with pytest.raises(IndexError, match="index -2: entries are row numbers, or -1 for none"):
        F.sparse_linear(np.array([[3, -2]]), w)
    with pytest.raises(ValueError, match="2-dimensional index array"):
        F.sparse_linear(np.array([3, 1]), w)


def test_astype_round_trip(param):
    x = param(3)
    y = x.astype(np.float32)
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float64


def test_relu_backward_on_channels_last_and_strided_views(rng):
    from plyground.plugins.autograd.ops.elementwise_kernels import relu_backward
    base = rng.normal(size=(2, 4, 5, 3))
    nchw_view = base.transpose(0, 3, 1, 2)  # dense, channels-last memory
    grad = rng.normal(size=base.shape).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(relu_backward(grad, nchw_view), grad * (nchw_view > 0))
    strided = base[:, ::2]  # not dense: the numpy fallback
    g2 = rng.normal(size=strided.shape)
    np.testing.assert_array_equal(relu_backward(g2, strided), g2 * (strided > 0))


@pytest.mark.parametrize("kernel, stride, padding, in_shape, out_channels", [
    ((3, 3), (1, 1), (1, 1), (2, 3, 4, 5), 2),
    ((3, 3), (1, 1), (1, 1), (1, 16, 4, 4), 16),   # Winograd on the cpu, im2col elsewhere
    ((3, 3), (2, 2), (1, 1), (1, 2, 5, 6), 3),
    ((2, 3), (1, 2), (1, 0), (1, 2, 4, 5), 2),
    ((1, 1), (1, 1), (0, 0), (2, 3, 2, 3), 2),
])
def test_conv2d(param, kernel, stride, padding, in_shape, out_channels):
    x, w, b = param(*in_shape), param(out_channels, in_shape[1], *kernel), param(out_channels)
    gradcheck(lambda: F.conv2d(x, w, b, stride=stride, padding=padding), [x, w, b])


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 2, 3)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(param, device, shape, training):
    x, weight, bias = param(*shape), param(shape[1]), param(shape[1])
    on_device = get_device(device).asarray

    def normalise():
        # fresh running statistics per call: in training mode batch norm updates them
        mean, var = on_device(np.full(shape[1], 0.3)), on_device(np.full(shape[1], 1.7))
        return F.batch_norm(x, mean, var, weight, bias, training=training)
    gradcheck(normalise, [x, weight, bias])
