"""Device cuda itself (CuPy on a GPU); skipped without CuPy or a GPU.

The op-by-op and whole-network comparisons with the CPU, the gradient checks
and the model-file round trips run on cuda too, from test_portable.py,
test_ops_gradcheck.py and test_devices.py (their ``cuda`` parameters).
"""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from plyground.plugins.autograd import Tensor  # noqa: E402
from plyground.plugins.autograd.backend import DeviceError, array_module, device_of, get_device, to_numpy  # noqa: E402
from plyground.plugins.autograd.networks import ResNetNetwork  # noqa: E402

from device_params import cuda_unavailable  # noqa: E402

if cuda_unavailable() is not None:
    pytest.skip(f"no GPU to test on: {cuda_unavailable()}", allow_module_level=True)


def test_cuda_tensors_hold_cupy_arrays():
    x = Tensor(np.arange(6.0).reshape(2, 3), device="cuda")
    assert isinstance(x.data, cupy.ndarray) and array_module(x.data) is cupy
    assert device_of(x.data) is get_device("cuda:0") is x.device
    assert type(to_numpy((x * 2).sum(axis=0).data)) is np.ndarray


def test_a_gpu_beyond_the_machine_is_refused_with_the_count():
    count = cupy.cuda.runtime.getDeviceCount()
    with pytest.raises(DeviceError, match=rf"device 'cuda:{count}': this machine has {count} CUDA GPU"):
        get_device(f"cuda:{count}")


def test_network_computes_on_the_gpu_and_returns_host_arrays():
    network = ResNetNetwork.build((5, 8, 8), 32, {"channels": 32, "blocks": 2, "device": "cuda"})
    assert all(isinstance(p.data, cupy.ndarray) for p in network.model.parameters())
    x = np.random.default_rng(0).normal(size=(1024, 5, 8, 8)).astype(np.float32)
    logits, values = network.predict(x)
    network.device.synchronize()
    assert type(logits) is np.ndarray and logits.shape == (1024, 32) and values.shape == (1024,)


def test_the_cuda_kernels_compute_what_the_portable_ones_do():
    """ops/cuda_kernels.py on the GPU (test_cuda_kernels.py runs the same sources on the CPU, emulated)."""
    from plyground.plugins.autograd.ops import cuda_kernels, portable_kernels
    from test_cuda_kernels import CONVOLUTIONS, _out_size
    assert cuda_kernels.ENABLED
    rng = np.random.default_rng(0)
    for shape, kernel, stride, padding in CONVOLUTIONS:
        size = _out_size(shape, kernel, stride, padding)
        for dtype in (np.float16, np.float32, np.float64):
            x = rng.normal(size=shape).astype(dtype)
            ours = cuda_kernels.im2col(cupy.asarray(x), kernel, stride, padding, size).get()
            np.testing.assert_array_equal(ours, portable_kernels.im2col(x, kernel, stride, padding, size))
        cols = rng.normal(size=(shape[0] * size[0] * size[1], kernel[0] * kernel[1] * shape[3]))
        ours = cuda_kernels.col2im(cupy.asarray(cols), shape, kernel, stride, padding, size).get()
        np.testing.assert_allclose(ours, portable_kernels.col2im(cols, shape, kernel, stride, padding, size),
                                   rtol=1e-14, atol=1e-14)
    rows = 5.0 + rng.normal(size=(65_536, 64))
    mean, var = cuda_kernels.channel_moments(cupy.asarray(rows))
    np.testing.assert_allclose(mean.get(), rows.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(var.get(), rows.var(axis=0), rtol=1e-11)
    nhwc = cupy.asarray(rng.normal(size=(4, 8, 8, 64)).astype(np.float32))
    out = cuda_kernels.relu(nhwc.transpose(0, 3, 1, 2))
    assert out.strides == nhwc.transpose(0, 3, 1, 2).strides          # channels-last kept
    np.testing.assert_array_equal(out.get(), np.maximum(nhwc.get(), 0).transpose(0, 3, 1, 2))


def _batches(count: int, size: int = 256, actions: int = 32):
    rng = np.random.default_rng(3)
    for _ in range(count):
        logits = rng.normal(size=(size, actions))
        policies = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        yield (rng.normal(size=(size, 5, 8, 8)).astype(np.float32), policies.astype(np.float32),
               rng.uniform(-1, 1, size).astype(np.float32))


def test_the_training_step_replayed_as_a_cuda_graph_trains_as_the_step_run_op_by_op(monkeypatch):
    """Two copies of a network on the same batches, one replaying its step as a CUDA graph (captured on the
    third step), one op by op: the same losses, weights and batch-norm statistics; a new learning rate is
    a new graph, and still the same training."""
    from plyground.plugins.autograd import cuda_graph
    config = {"channels": 32, "blocks": 2, "device": "cuda", "optimizer": "sgd", "lr": 0.02, "momentum": 0.9}
    graphed, eager = (ResNetNetwork.build((5, 8, 8), 32, config) for _ in range(2))
    for step, batch in enumerate(_batches(9)):
        if step == 5:
            graphed.set_learning_rate(0.005)
            eager.set_learning_rate(0.005)
        ours = graphed.train_step(*batch)
        monkeypatch.setattr(cuda_graph, "ENABLED", False)
        reference = eager.train_step(*batch)
        monkeypatch.setattr(cuda_graph, "ENABLED", True)
        for name in ("loss", "value_loss", "policy_loss"):
            assert ours[name] == pytest.approx(reference[name], rel=1e-4), (step, name)
    graph = graphed._step_graph
    assert graph.failure is None and graph.captures == 2 and graph.replays == 6, graph.describe()
    assert eager._step_graph is None
    for (name, a), (_, b) in zip(graphed.model.state_dict().items(), eager.model.state_dict().items()):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-3, atol=1e-5, err_msg=name)
