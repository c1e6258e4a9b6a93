"""Devices: names and their errors, tensors and modules moving between devices, device-independent model files."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from plyground.errors import OptionError
from plyground.plugins.autograd import Tensor, nn
from plyground.plugins.autograd.backend import (CPU, CPU_PORTABLE, DeviceError, array_module, device_name, device_of,
                                                get_device, to_numpy)
from plyground.plugins.autograd.networks import MLPNetwork, ResNetNetwork, load_network
from plyground.plugins.autograd.portable_array import PortableArray, portable_numpy
from plyground.plugins.autograd.serialization import METADATA_KEY

from device_params import ALL_DEVICES, PORTABLE_DEVICES
from float_bounds import forward_rtol

NO_CUPY = importlib.util.find_spec("cupy") is None


@pytest.mark.parametrize("spec, name", [(None, "cpu"), ("cpu", "cpu"), (" CPU ", "cpu"), ("cuda", "cuda:0"),
                                        ("cuda:0", "cuda:0"), ("cuda:12", "cuda:12"), ("cpu-portable", "cpu-portable")])
def test_device_names(spec, name):
    assert device_name(spec) == name


@pytest.mark.parametrize("spec", ["gpu", "cuda:", "cuda:-1", "cuda:x", "cuda1", "tpu", "", "cpu:0"])
def test_a_bad_device_name_is_refused_naming_it_and_the_valid_ones(spec):
    with pytest.raises(DeviceError) as info:
        get_device(spec, owner="player alphazero")
    message = str(info.value)
    assert message.startswith(f"player alphazero: unknown device {spec!r}; valid devices: cpu, cuda, cuda:N")
    assert "cpu-portable" in message
    assert isinstance(info.value, OptionError)        # the CLI prints it as one line


@pytest.mark.skipif(not NO_CUPY, reason="CuPy is installed here")
@pytest.mark.parametrize("spec", ["cuda", "cuda:1"])
def test_cuda_without_cupy_says_what_to_install(spec):
    with pytest.raises(DeviceError, match=rf"device '{spec}' needs CuPy, which is not installed .*"
                                          r"pip install 'plyground\[gpu\]', or use device=cpu"):
        get_device(spec)


def test_devices_are_shared_and_found_from_arrays():
    assert get_device("cpu") is get_device(None) is CPU
    assert get_device("cpu-portable") is get_device(CPU_PORTABLE) is CPU_PORTABLE
    host = np.arange(3.0)
    moved = CPU_PORTABLE.asarray(host)
    assert type(moved) is PortableArray and device_of(moved) is CPU_PORTABLE and device_of(host) is CPU
    assert array_module(moved) is portable_numpy and array_module(host) is np
    assert device_of(2.5) is CPU and device_of([1, 2]) is CPU


def test_portable_arrays_refuse_what_a_gpu_refuses():
    xp = portable_numpy
    a = CPU_PORTABLE.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match=r"numpy.pad was called on a cpu-portable array.*xp.pad"):
        np.pad(a, 1)
    with pytest.raises(TypeError, match="host .numpy. array of shape .2, 3. was mixed"):
        a + np.ones((2, 3))
    with pytest.raises(TypeError, match="host"):
        xp.concatenate([a, np.ones((2, 3))])
    # what works on a GPU works here, and stays on the device
    for result in (a + 1.5, a * np.float32(2), xp.pad(a, 1), a.sum(axis=0), a.T @ a, xp.maximum(a, 0), a.mean()):
        assert type(result) is PortableArray
    assert a.sum().ndim == 0                     # a 0-d array, as CuPy gives, not a numpy scalar
    host = to_numpy(a)
    assert type(host) is np.ndarray
    host[0, 0] = 99                              # a copy, as from a GPU
    assert a[0, 0] == 0


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
def test_one_element_taken_by_index_is_a_view_as_on_a_gpu(device):
    # CuPy's a[i] is a 0-d array sharing a's memory; cpu-portable behaves the same, so code that keeps an
    # element across a write to it (the finite differences of gradcheck did) fails on the CPU too
    a = get_device(device).asarray(np.arange(6.0))
    element, row_element = a[2], a.reshape(2, 3)[1, 0]
    a[2], a[3] = 7.5, -1.0
    assert element.ndim == 0 and float(element) == 7.5 and float(row_element) == -1.0
    assert float(a[2] + 1) == 8.5 and a[1:3].shape == (2,)


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
def test_tensors_move_and_gradients_come_back(device):
    x = Tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.to(device)
    assert y.device is get_device(device) and x.device is CPU
    assert y.to(device) is y
    (y * y).sum().to("cpu").backward()
    assert type(x.grad) is np.ndarray
    np.testing.assert_array_equal(x.grad, [2.0, -4.0, 6.0])
    assert type(y.numpy()) is np.ndarray and f"device='{get_device(device)}'" in repr(y)
    np.testing.assert_array_equal(np.asarray(y), [1.0, -2.0, 3.0])


@pytest.mark.parametrize("device", PORTABLE_DEVICES)
def test_module_to_moves_parameters_and_buffers(device):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())
    model.to(device)
    placed = get_device(device)
    assert all(p.device is placed for p in model.parameters())
    assert all(device_of(b) is placed for _, b in model.named_buffers())
    model.to(dtype=np.float64).to("cpu")
    assert all(type(p.data) is np.ndarray and p.dtype == np.float64 for p in model.parameters())
    model.to("float32")                          # a positional dtype still works
    assert all(p.dtype == np.float32 for p in model.parameters())


#: The float32 bound of each test network (tests/float_bounds.py): resnet - a 3x3 convolution over 8 channels
#: (n = 72) is the longest product, the value path chains 6 (stem, 2 block convolutions, the 1x1 head, two
#: linear layers) and the loss 2 sums; mlp - 3 linear layers of at most 16 terms, and the loss.
FORWARD_RTOL = {"resnet": forward_rtol(72, 8), "mlp": forward_rtol(16, 5)}


def net_and_batch(family: str, **options):
    rng = np.random.default_rng(0)
    if family == "resnet":
        shape, config = (3, 4, 4), {"channels": 8, "blocks": 1, "optimizer": "adam", "lr": 0.01}
    else:
        shape, config = (6,), {"hidden": 16, "optimizer": "sgd", "lr": 0.05}
    network = (ResNetNetwork if family == "resnet" else MLPNetwork).build(shape, 10, {**config, **options})
    batch = (rng.normal(size=(8, *shape)).astype(np.float32), rng.dirichlet(np.ones(10), size=8).astype(np.float32),
             rng.uniform(-1, 1, 8).astype(np.float32))
    return network, batch


@pytest.mark.parametrize("family", ["resnet", "mlp"])
@pytest.mark.parametrize("trained_on, played_on", [("cpu-portable", "cpu"), ("cpu", "cpu-portable"),
                                                   pytest.param("cuda", "cpu", marks=PORTABLE_DEVICES[1].marks),
                                                   pytest.param("cpu", "cuda", marks=PORTABLE_DEVICES[1].marks)])
def test_a_model_saved_on_one_device_loads_and_trains_on_another(tmp_path, family, trained_on, played_on):
    network, (x, pi, z) = net_and_batch(family, device=trained_on)
    for _ in range(2):
        network.train_step(x, pi, z)
    path = tmp_path / "model.npz"
    network.save(path, metadata={"iteration": 2})
    with np.load(path, allow_pickle=False) as archive:      # plain numpy arrays and JSON, no device in them
        meta = json.loads(archive[METADATA_KEY].tobytes().decode())
        assert all(archive[name].dtype == np.float32 for name in archive.files if name != METADATA_KEY)
    assert "device" not in meta["config"] and "precision" not in meta["config"]

    again = load_network(path, device=played_on)
    assert again.device is get_device(played_on) and again.metadata == {"iteration": 2}
    for (name, before), after in zip(network.model.state_dict().items(), again.model.state_dict().values()):
        assert device_of(after) is get_device(played_on)
        np.testing.assert_array_equal(to_numpy(after), to_numpy(before), err_msg=name)   # weights bit for bit
    # The two devices run different float32 code (numba and Winograd, numpy's im2col, CuPy): they agree to the
    # bound the arithmetic gives (tests/float_bounds.py), not bit for bit.
    rtol = FORWARD_RTOL[family]
    for ours, theirs in zip(again.predict(x), network.predict(x)):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=rtol * np.abs(theirs).max())
    # the optimiser state came along, bit for bit
    saved, loaded = network.optimizer.state_dict()["state"], again.optimizer.state_dict()["state"]
    assert saved.keys() == loaded.keys() and saved
    host = lambda value: to_numpy(value) if hasattr(value, "shape") else value   # noqa: E731
    for index, entry in saved.items():
        for key, value in entry.items():
            np.testing.assert_array_equal(host(loaded[index][key]), host(value), err_msg=f"{index}/{key}")
    # so the next step follows the original's: from the same weights, the loss within the float32 bound; with
    # SGD (mlp) the step after too (one SGD step moves the weights by lr times gradients equal to rounding).
    # Not Adam's second step: a gradient within rounding of 0 gives its update either sign on either path.
    for _ in range(2 if family == "mlp" else 1):
        assert again.train_step(x, pi, z)["loss"] == pytest.approx(network.train_step(x, pi, z)["loss"], rel=rtol)
    assert load_network(path).device is CPU                   # the default: the CPU, whatever trained it


@pytest.mark.parametrize("device", ALL_DEVICES)
def test_a_reload_on_the_same_device_is_bit_identical(tmp_path, device):
    network, (x, pi, z) = net_and_batch("resnet", device=device)
    network.train_step(x, pi, z)
    path = tmp_path / "model.npz"
    network.save(path)
    again = load_network(path, device=device)
    for ours, theirs in zip(again.predict(x), network.predict(x)):
        np.testing.assert_array_equal(ours, theirs)
    assert again.train_step(x, pi, z) == network.train_step(x, pi, z)


@pytest.mark.parametrize("options, message", [
    ({"device": "gpu"}, r"network resnet: unknown device 'gpu'; valid devices: cpu, cuda, cuda:N"),
    ({"precision": "float16"}, r"network resnet: precision=float16 needs device=cuda \(or cpu-portable, for tests\)"),
    ({"precision": "half"}, r"bad value 'half' for option 'precision': expected one of float32, float16"),
])
def test_bad_device_options_are_refused_in_one_line(tmp_path, options, message):
    with pytest.raises(OptionError, match=message):
        ResNetNetwork.build((3, 4, 4), 10, {"channels": 4, "blocks": 1, **options})
    path = tmp_path / "model.npz"
    ResNetNetwork.build((3, 4, 4), 10, {"channels": 4, "blocks": 1}).save(path)
    with pytest.raises(OptionError, match=message):
        load_network(path, **options)


def test_half_precision_is_offered_where_it_computes(tmp_path):
    network, (x, _, _) = net_and_batch("resnet", device="cpu-portable", precision="float16")
    assert network.precision == np.float16
    logits, values = network.predict(x)
    assert logits.dtype == np.float32 and np.all(np.abs(values) <= 1)


def test_cupy_is_an_optional_extra_that_the_dev_setup_does_not_need():
    from pathlib import Path

    from plyground.learning.train_command import read_toml
    project = read_toml(Path(__file__).resolve().parents[2] / "pyproject.toml")["project"]
    extras = project["optional-dependencies"]
    assert any(requirement.startswith("cupy") for requirement in extras["gpu"])
    assert not any("cupy" in requirement for requirement in project["dependencies"] + extras["dev"])
