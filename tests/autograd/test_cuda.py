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
