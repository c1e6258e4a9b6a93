"""2-D convolution: the hand-worked example, a direct reference, gradient checks."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.gradcheck import gradcheck
from plyground.plugins.autograd.ops import conv as conv_module
from plyground.plugins.autograd.ops import workspace
from plyground.plugins.autograd.ops.winograd import choose_tiling

from float_bounds import gamma, winograd_chain, winograd_magnitude


@pytest.fixture(params=["im2col", "winograd"])
def algorithm(request, monkeypatch):
    """Run a test with 3x3 stride-1 convolutions on each algorithm (Winograd normally needs >= 16 channels)."""
    monkeypatch.setattr(conv_module, "WINOGRAD_MIN_CHANNELS", 10**9 if request.param == "im2col" else 1)
    return request.param



def float32_bound(x, w, algorithm: str) -> np.ndarray:
    """Elementwise float32 error bound of a 3x3, stride-1, padding-1 convolution (tests/float_bounds.py):
    im2col - gamma_n of the convolution of |x| by |w| (n = 9 C terms a sum); winograd - gamma_K of the same
    chain of products on absolute values, K its length (the tiling the code picks for the output size)."""
    if algorithm == "im2col":
        magnitude = reference_conv2d(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), None, (1, 1), (1, 1))
        return gamma(9 * x.shape[1]) * magnitude
    tiling = choose_tiling(*x.shape[2:])
    return gamma(winograd_chain(x.shape[1], tiling)) * winograd_magnitude(x, w, tiling)


def reference_conv2d(x, w, b, stride, padding):
    """Straightforward loops: out[n,o,i,j] = b[o] + sum over c, kh, kw (every input channel summed)."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - kh) // stride[0] + 1
    ow = (wd + 2 * padding[1] - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + (0 if b is None else b[None, :, None, None])


def test_hand_worked_example_from_the_source_document(algorithm):
    x = Tensor([[1, 6, 2], [5, 3, 1], [7, 0, 4]], requires_grad=True, dtype=np.float64)
    k = Tensor([[1, 2], [-1, 0]], requires_grad=True, dtype=np.float64)
    out = F.conv2d(x.reshape(1, 1, 3, 3), k.reshape(1, 1, 2, 2))
    np.testing.assert_allclose(out.data[0, 0], [[8, 7], [4, 5]])
    out.sum().backward()
    np.testing.assert_allclose(x.grad, [[1, 3, 2], [0, 2, 2], [-1, -1, 0]])
    np.testing.assert_allclose(k.grad, [[15, 12], [15, 8]])


CASES = [  # kernel, stride, padding, input (n, c, h, w), out channels
    ((3, 3), (1, 1), (1, 1), (2, 3, 5, 6), 4),
    ((3, 3), (1, 1), (0, 0), (2, 3, 5, 6), 4),
    ((3, 3), (2, 2), (1, 1), (2, 3, 7, 6), 2),
    ((2, 3), (1, 2), (1, 0), (1, 2, 5, 7), 3),
    ((1, 1), (1, 1), (0, 0), (2, 4, 3, 3), 5),
    ((1, 1), (2, 1), (0, 0), (2, 4, 5, 3), 2),
    ((5, 5), (1, 1), (2, 2), (1, 2, 4, 4), 2),
    ((3, 3), (1, 1), (2, 2), (1, 2, 3, 3), 2),
    ((3, 3), (1, 1), (1, 1), (2, 3, 4, 5), 3),  # odd output width: a partial Winograd tile
    ((3, 3), (1, 1), (0, 0), (1, 2, 7, 4), 2),
]


def test_winograd_is_used_for_the_tower_and_matches_im2col(rng, monkeypatch):
    x = rng.normal(size=(3, 32, 8, 8)).astype(np.float32)
    w = (rng.normal(size=(32, 32, 3, 3)) * 0.05).astype(np.float32)
    assert conv_module.use_winograd((3, 3), (1, 1), 32, 32)
    fast = F.conv2d(Tensor(x), Tensor(w), padding=1).data
    monkeypatch.setattr(conv_module, "WINOGRAD_MIN_CHANNELS", 10**9)
    slow = F.conv2d(Tensor(x), Tensor(w), padding=1).data
    # each within its float32 bound of the exact result (tests/float_bounds.py), so within their sum of each other
    assert np.all(np.abs(fast - slow) <= float32_bound(x, w, "winograd") + float32_bound(x, w, "im2col"))
    assert not np.array_equal(fast, slow)                           # two algorithms did run


@pytest.mark.parametrize("kernel, stride, padding, in_shape, out_channels", CASES)
def test_matches_reference_and_gradients(algorithm, rng, kernel, stride, padding, in_shape, out_channels):
    x = Tensor(rng.normal(size=in_shape), requires_grad=True)
    w = Tensor(rng.normal(size=(out_channels, in_shape[1], *kernel)), requires_grad=True)
    b = Tensor(rng.normal(size=out_channels), requires_grad=True)
    out = F.conv2d(x, w, b, stride=stride, padding=padding)
    np.testing.assert_allclose(out.data, reference_conv2d(x.data, w.data, b.data, stride, padding), atol=1e-12)
    gradcheck(lambda: F.conv2d(x, w, b, stride=stride, padding=padding), [x, w, b])
    gradcheck(lambda: F.conv2d(x, w, stride=stride, padding=padding), [x, w])


def test_sums_over_input_channels():
    x = Tensor(np.ones((1, 3, 2, 2)))
    w = Tensor(np.ones((1, 3, 1, 1)))
    np.testing.assert_allclose(F.conv2d(x, w).data, 3.0)


def test_float32_batch_matches_reference(algorithm, rng):
    x = rng.normal(size=(16, 8, 8, 8)).astype(np.float32)
    w = (rng.normal(size=(12, 8, 3, 3)) * 0.1).astype(np.float32)
    out = F.conv2d(Tensor(x), Tensor(w), padding=1)
    assert out.dtype == np.float32
    exact = reference_conv2d(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1))
    assert np.all(np.abs(out.data - exact) <= float32_bound(x, w, algorithm))


def test_channels_last_output_feeds_next_layer(algorithm, rng):
    """The result is an NCHW view of channels-last memory; chained ops must still be right."""
    x = Tensor(rng.normal(size=(2, 3, 5, 5)), requires_grad=True)
    w1 = Tensor(rng.normal(size=(4, 3, 3, 3)), requires_grad=True)
    w2 = Tensor(rng.normal(size=(2, 4, 3, 3)), requires_grad=True)
    gradcheck(lambda: F.conv2d(F.relu(F.conv2d(x, w1, padding=1)) * 2 + 1, w2, stride=2), [x, w1, w2])


def test_shape_errors():
    with pytest.raises(ValueError, match="channels"):
        F.conv2d(Tensor(np.zeros((1, 3, 4, 4))), Tensor(np.zeros((2, 4, 3, 3))))
    with pytest.raises(ValueError, match="no output"):
        F.conv2d(Tensor(np.zeros((1, 1, 2, 2))), Tensor(np.zeros((1, 1, 3, 3))))


def test_workspace_never_hands_out_a_buffer_in_use(algorithm, rng, monkeypatch):
    monkeypatch.setattr(workspace, "MIN_POOLED_BYTES", 0)
    x = Tensor(rng.normal(size=(8, 4, 8, 8)), requires_grad=True)
    w = Tensor(rng.normal(size=(4, 4, 3, 3)), requires_grad=True)
    first = F.conv2d(x, w, padding=1)   # keeps its im2col / transformed input for backward
    second = F.conv2d(x * 2, w, padding=1)
    (first * 3 + second).sum().backward()
    np.testing.assert_allclose(first.data, reference_conv2d(x.data, w.data, None, (1, 1), (1, 1)), atol=1e-10)
    # d/d(x, w) of 3 conv(x, w) + conv(2x, w) = 5 d/d(x, w) of conv(x, w), from a fresh graph.
    x2, w2 = Tensor(x.data.copy(), requires_grad=True), Tensor(w.data.copy(), requires_grad=True)
    (F.conv2d(x2, w2, padding=1) * 5).sum().backward()
    np.testing.assert_allclose(x.grad, x2.grad, atol=1e-10)
    np.testing.assert_allclose(w.grad, w2.grad, atol=1e-10)
    assert workspace.pooled_bytes() > 0
    workspace.release()
    assert workspace.pooled_bytes() == 0


def test_kernels_split_across_threads_give_the_same_result(algorithm, rng, monkeypatch):
    from plyground.plugins.autograd.ops import threads
    x = rng.normal(size=(5, 3, 6, 6))
    w = rng.normal(size=(4, 3, 3, 3))

    def run():
        xt, wt = Tensor(x, requires_grad=True), Tensor(w, requires_grad=True)
        out = F.conv2d(xt, wt, padding=1)
        (out * out).sum().backward()
        return out.data, xt.grad, wt.grad

    single = run()
    monkeypatch.setattr(threads, "MIN_PARALLEL_WORK", 0)
    previous = threads.get_num_threads()
    threads.set_num_threads(3)
    try:
        split = run()
    finally:
        threads.set_num_threads(previous)
    for a, b in zip(single, split):
        np.testing.assert_allclose(a, b, atol=1e-12)
