"""The portable implementations (the GPU's code path) agree with the numba path, op by op and for a whole network.

Every case runs on device cpu (numba kernels, Winograd) and on each portable
device (cpu-portable always; cuda where CuPy finds a GPU) from the same
float64 inputs and upstream gradient; outputs and input gradients must agree
to rounding.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, cat, manual_seed, optim, stack
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.backend import get_device, to_numpy
from plyground.plugins.autograd.policy_value import PolicyValueResNet
from plyground.plugins.autograd.networks import ResNetNetwork
from plyground.plugins.autograd.ops import conv_kernels, portable_kernels
from plyground.plugins.autograd.ops.kernels import NUMBA, PORTABLE, kernels_for

from device_params import PORTABLE_DEVICES
from float_bounds import U16, U32, forward_rtol

# name -> (function of the input tensors, input shapes, input range or None for normal values)
CASES: dict[str, tuple[Callable, list[tuple[int, ...]], tuple[float, float] | None]] = {
    "add broadcast": (lambda a, b: a + b, [(3, 4), (4,)], None),
    "sub broadcast": (lambda a, b: a - b, [(2, 3, 4), (3, 1)], None),
    "mul and a number": (lambda a, b: a * b * 2.5 - 1.0, [(3, 1), (1, 4)], None),
    "div": (lambda a, b: a / b, [(3, 4), (3, 4)], (0.5, 2.0)),
    "pow tensor exponent": (lambda a, b: a ** b, [(3, 4), (3, 4)], (0.5, 2.0)),
    "matmul batched": (lambda a, b: a @ b, [(2, 1, 3, 4), (5, 4, 2)], None),
    "linear": (lambda x, w, b: F.linear(x, w, b), [(5, 3), (4, 3), (4,)], None),
    "exp log sqrt": (lambda a: F.exp(a) + F.log(a) + F.sqrt(a), [(4, 5)], (0.2, 3.0)),
    "abs clip": (lambda a: F.abs(a) + F.clip(a, -0.5, 0.5), [(4, 5)], None),
    "sum mean var": (lambda a: a.sum(axis=1) * a.mean(axis=1) + a.var(axis=1) + a.mean(axis=(0, 2)).sum(),
                     [(3, 4, 5)], None),
    "max min": (lambda a: a.max(axis=2) - a.min(axis=0, keepdims=True).sum(axis=2), [(3, 4, 5)], None),
    "reshape permute transpose": (lambda a: a.reshape(4, 6).T.permute(1, 0).transpose(0, 1), [(2, 3, 4)], None),
    "basic indexing": (lambda a: a[1, :, ::2] + a[..., 0:1], [(2, 3, 4)], None),
    "fancy indexing repeats": (lambda a: a[np.array([0, 1, 1, 0]), np.array([2, 2, 0, 2])], [(3, 4)], None),
    "gather": (lambda a: a.gather(1, np.array([[0, 4, 4], [1, 1, 2], [3, 0, 3]])), [(3, 5)], None),
    "cat stack": (lambda a, b: stack([cat([a, b], axis=0)[:2], a], axis=1), [(2, 3), (4, 3)], None),
    "pad": (lambda a: F.pad(a, ((0, 0), (1, 2), (2, 0)), value=1.5), [(2, 3, 4)], None),
    "broadcast_to": (lambda a: F.broadcast_to(a, (2, 3, 4)), [(3, 1)], None),
    "activations": (lambda a: F.relu(a) + F.sigmoid(a) * F.tanh(a), [(4, 5)], None),
    "softmax log_softmax": (lambda a: F.softmax(a, 1) + F.log_softmax(a, -1), [(3, 4, 5)], None),
    "cross_entropy soft": (lambda a, t: F.cross_entropy(a, F.softmax(t, 1).detach()), [(4, 6), (4, 6)], None),
    "cross_entropy indices": (lambda a: F.cross_entropy(a, np.array([0, 5, 2, 2])), [(4, 6)], None),
    "mse alphazero_loss": (lambda p, v: F.alphazero_loss(p, F.tanh(v), np.full((3, 4), 0.25), [1.0, -1.0, 0.0])[0]
                           + F.mse_loss(v, np.zeros(3)), [(3, 4), (3,)], None),
    "to and back": (lambda a: (a.to("cpu") * 2).to(a.device), [(3, 4)], None),
}

# kernel, stride, padding, input (n, c, h, w), out channels
CONVOLUTIONS = [
    ((3, 3), (1, 1), (1, 1), (2, 3, 5, 6), 4),
    ((3, 3), (1, 1), (1, 1), (2, 16, 6, 5), 16),   # the CPU takes Winograd here, the portable path im2col
    ((3, 3), (1, 1), (1, 1), (1, 16, 3, 3), 16),   # Winograd F(2x2) on the CPU
    ((3, 3), (2, 2), (1, 1), (2, 3, 7, 6), 2),     # strided: col2im in the input gradient
    ((2, 3), (1, 2), (1, 0), (1, 2, 5, 7), 3),
    ((1, 1), (1, 1), (0, 0), (2, 4, 3, 3), 5),
    ((1, 1), (2, 1), (0, 0), (2, 4, 5, 3), 2),
    ((5, 5), (1, 1), (2, 2), (1, 2, 4, 4), 2),
    ((3, 3), (1, 1), (2, 2), (1, 2, 3, 3), 2),     # padding wider than the kernel's reach
]


def run(fn: Callable, shapes, bounds, device: str, seed: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """``fn`` on float64 inputs on ``device``, backward from a fixed random upstream gradient:
    the output and the input gradients, as host arrays."""
    rng = np.random.default_rng(seed)
    values = [rng.normal(size=s) if bounds is None else rng.uniform(*bounds, size=s) for s in shapes]
    inputs = [Tensor(v, requires_grad=True, device=device) for v in values]
    out = fn(*inputs)
    assert out.device.name == get_device(device).name, "the result left the inputs' device"
    out.backward(rng.normal(size=out.shape))
    return to_numpy(out.data), [None if t.grad is None else to_numpy(t.grad) for t in inputs]


def assert_same_results(fn, shapes, bounds, device, atol=1e-10):
    expected_out, expected_grads = run(fn, shapes, bounds, "cpu")
    out, grads = run(fn, shapes, bounds, device)
    np.testing.assert_allclose(out, expected_out, rtol=1e-10, atol=atol)
    for k, (grad, expected) in enumerate(zip(grads, expected_grads)):
        assert (grad is None) == (expected is None), f"gradient of input {k}"
        if expected is not None:
            np.testing.assert_allclose(grad, expected, rtol=1e-10, atol=atol, err_msg=f"gradient of input {k}")


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
@pytest.mark.parametrize("case", CASES)
def test_op_matches_the_cpu(device, case):
    assert_same_results(*CASES[case], device)


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
@pytest.mark.parametrize("kernel, stride, padding, in_shape, out_channels", CONVOLUTIONS)
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv2d_matches_the_cpu(device, kernel, stride, padding, in_shape, out_channels, with_bias):
    shapes = [in_shape, (out_channels, in_shape[1], *kernel)] + ([(out_channels,)] if with_bias else [])

    def conv(x, w, b=None):
        return F.conv2d(x, w, b, stride=stride, padding=padding)
    # Winograd rounds differently from a direct sum (about 1e-15 relative in float64)
    assert_same_results(conv, shapes, None, device, atol=1e-9)


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_the_cpu_with_its_running_statistics(device, shape, training):
    channels = shape[1]
    rng = np.random.default_rng(3)
    start_mean, start_var = rng.normal(size=channels), rng.uniform(0.5, 2.0, channels)
    running: dict[str, tuple] = {}

    def run_on(place: str):
        mean, var = (get_device(place).asarray(a.copy()) for a in (start_mean, start_var))
        running[place] = (mean, var)
        return run(lambda x, w, b: F.batch_norm(x * 3 + 1, mean, var, w, b, training=training), [shape, (channels,),
                   (channels,)], None, place)

    expected_out, expected_grads = run_on("cpu")
    out, grads = run_on(device)
    np.testing.assert_allclose(out, expected_out, rtol=1e-10, atol=1e-10)
    for grad, expected in zip(grads, expected_grads):
        np.testing.assert_allclose(grad, expected, rtol=1e-9, atol=1e-10)
    for ours, theirs in zip(running[device], running["cpu"]):
        np.testing.assert_allclose(to_numpy(ours), theirs, rtol=1e-12)


@pytest.mark.parametrize("kernel, stride, padding, in_shape, out_channels", CONVOLUTIONS)
def test_portable_im2col_and_col2im_are_numba_s(kernel, stride, padding, in_shape, out_channels):
    rng = np.random.default_rng(5)
    n, c, h, w = in_shape
    out_size = ((h + 2 * padding[0] - kernel[0]) // stride[0] + 1, (w + 2 * padding[1] - kernel[1]) // stride[1] + 1)
    x = rng.normal(size=(n, h, w, c))
    cols = conv_kernels.im2col(x, kernel, stride, padding, out_size)
    np.testing.assert_array_equal(portable_kernels.im2col(x, kernel, stride, padding, out_size), cols)  # copies
    grad_cols = rng.normal(size=cols.shape)
    np.testing.assert_allclose(portable_kernels.col2im(grad_cols, x.shape, kernel, stride, padding, out_size),
                               conv_kernels.col2im(grad_cols, x.shape, kernel, stride, padding, out_size),
                               rtol=1e-12, atol=1e-12)


def test_kernels_follow_the_arrays():
    x = np.zeros((2, 2))
    assert kernels_for(x) is NUMBA and NUMBA.winograd
    assert kernels_for(get_device("cpu-portable").asarray(x)) is PORTABLE and not PORTABLE.winograd


def batch(size=16, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(size, 5, 8, 8)).astype(np.float32),
            rng.dirichlet(np.ones(32), size=size).astype(np.float32),
            rng.uniform(-1, 1, size).astype(np.float32))


def train_step_float64(device: str) -> tuple[float, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """One SGD step of a residual policy/value network in float64 on ``device``: the loss, the gradients and
    the updated weights and batch-norm statistics, as host arrays."""
    manual_seed(11)
    model = PolicyValueResNet((5, 8, 8), 32, channels=16, blocks=2).double().to(device)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
    x, pi, z = batch()
    logits, values = model(Tensor(x, dtype=np.float64, device=device))
    loss = F.alphazero_loss(logits, values, pi, z).total
    loss.backward()
    grads = {name: to_numpy(p.grad) for name, p in model.named_parameters()}
    optimizer.step()
    return loss.item(), grads, {name: to_numpy(a) for name, a in model.state_dict().items()}


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
def test_residual_network_train_step_matches_the_cpu(device):
    expected_loss, expected_grads, expected_state = train_step_float64("cpu")
    loss, grads, state = train_step_float64(device)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    for name, grad in expected_grads.items():
        np.testing.assert_allclose(grads[name], grad, rtol=1e-8, atol=1e-11, err_msg=name)
    for name, value in expected_state.items():      # weights and the running statistics batch norm updated
        np.testing.assert_allclose(state[name], value, rtol=1e-10, atol=1e-12, err_msg=name)


#: The test network's float32 bound (tests/float_bounds.py): its longest dot product is a 3x3 convolution over
#: 16 channels (n = 144); the value path chains 8 products (stem, 2 blocks x 2, the 1x1 head convolution, two
#: linear layers of fewer terms) and the loss two sums more.  2 * 10 * gamma_144 = 1.7e-4.
FORWARD_RTOL = forward_rtol(144, 10)


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_network_plugin_trains_and_predicts_on_the_device(device, optimizer, tmp_path):
    """The resnet plugin with device=...: each float32 training step and the inference plan follow the CPU's.

    Each step starts both networks from the same state (the CPU network's file: weights, batch-norm
    statistics, optimiser moments), so what is compared is one step's float32 arithmetic, bounded by
    FORWARD_RTOL.  Comparing trajectories instead is not bounded at all: Adam's first steps move each weight by
    lr * sign(gradient), and a gradient within rounding of 0 takes either sign on either path, so after two
    steps the losses of two correct float32 paths differ by whatever that does (6e-4 relative on an AMD EPYC).
    """
    config = {"channels": 16, "blocks": 2, "seed": 5, "optimizer": optimizer, "lr": 0.01, "grad_clip": 5.0}
    cpu = ResNetNetwork.build((5, 8, 8), 32, config)
    x, pi, z = batch()
    for step in range(3):
        cpu.save(tmp_path / "state.npz")
        other = ResNetNetwork.load(tmp_path / "state.npz", device=device)
        before = {name: a.data.copy() for name, a in cpu.model.named_parameters()}
        expected, got = cpu.train_step(x, pi, z), other.train_step(x, pi, z)
        for key in expected:
            assert got[key] == pytest.approx(expected[key], rel=FORWARD_RTOL), f"{key} at step {step}"
    device_array_type = type(get_device(device).asarray(np.zeros(1)))
    for (name, a), b in zip(cpu.model.named_parameters(), other.model.parameters()):
        assert type(b.data) is device_array_type, f"{name} left the device"
        assert all(type(v) is device_array_type for v in other.optimizer.state[id(b)].values() if hasattr(v, "shape"))
        # One SGD step from the same weights moves them by lr times gradients that agree to float32 rounding
        # (the backward pass's dot products: the same gamma_n bound, of the gradient's size); Adam moves a weight
        # by about lr whatever its gradient, with either sign for a gradient within rounding of 0, so only SGD's
        # weights are compared one by one.
        if optimizer == "sgd":
            step_size = np.abs(a.data - before[name]).max()
            np.testing.assert_allclose(to_numpy(b.data), a.data, rtol=0, atol=FORWARD_RTOL * step_size + 4 * U32
                                       * np.abs(a.data).max(), err_msg=name)
    for ours, theirs in zip(other.predict(x), cpu.predict(x)):   # the inference plans: im2col vs Winograd
        assert ours.dtype == np.float32 and type(ours) is np.ndarray
        scale = np.abs(theirs).max()
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=FORWARD_RTOL * scale, err_msg="prediction")


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
def test_half_precision_predicts_close_to_float32(device):
    full, half = (ResNetNetwork.build((5, 8, 8), 32, {"channels": 16, "blocks": 2, "seed": 5, "device": device,
                                                        "precision": precision})
                  for precision in ("float32", "float16"))
    x, pi, z = batch()
    logits, values = half.predict(x)
    assert logits.dtype == np.float32 and values.dtype == np.float32     # the caller sees float32 either way
    expected_logits, expected_values = full.predict(x)
    # Each of the value path's 8 products rounds its input, its weights and its output to float16 (3 roundings of
    # U16 = 2^-11 each); the float32 accumulation adds less than float32's bound.  Relative to the outputs' size.
    half_rtol = 3 * 8 * U16
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=half_rtol * np.abs(expected_values).max())
    np.testing.assert_allclose(logits, expected_logits, rtol=0, atol=half_rtol * np.abs(expected_logits).max())
    assert not np.array_equal(values, expected_values)                   # it did compute in float16
