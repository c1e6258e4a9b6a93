"""Networks too large for the machine are refused from their options, before any array is allocated."""
import re
import resource

import pytest

from plyground.errors import OptionError
from plyground.util.memory import available_memory, format_bytes
from plyground.plugins.autograd.memory import NotEnoughMemoryError
from plyground.plugins.autograd.networks import AutogradNetwork, MLPNetwork, ResNetNetwork
from plyground.plugins.autograd.serialization import load_arrays, save_arrays

needs_meminfo = pytest.mark.skipif(available_memory() is None,
                                   reason="this system does not report its available memory: the check is off")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # Linux reports kB


@pytest.mark.parametrize("cls, shape, config", [
    (ResNetNetwork, (5, 8, 8), {"channels": 8, "blocks": 2}),
    (ResNetNetwork, (3, 3), {"channels": 4, "blocks": 0, "policy_channels": 3, "value_channels": 2,
                             "value_hidden": 5}),
    (MLPNetwork, (2, 3, 3), {"hidden": 7, "layers": 3}),
    (MLPNetwork, (2, 3, 3), {"hidden": 7, "layers": 0}),
], ids=["resnet", "resnet-2d-heads", "mlp", "mlp-no-hidden"])
def test_counted_parameters_match_the_built_network(cls, shape, config):
    """The estimate the check relies on is exact, not a guess."""
    net = cls.build(shape, 17, config)
    built = sum(p.data.size for p in net.model.parameters())
    assert cls.parameter_count(shape, 17, net.config) == built


@needs_meminfo
@pytest.mark.parametrize("cls, config, hint", [
    (ResNetNetwork, {"channels": 100_000, "blocks": 50}, "use fewer channels/blocks"),
    (MLPNetwork, {"hidden": 10_000_000, "layers": 4}, "use fewer hidden units/layers"),
])
def test_a_network_too_large_is_refused_before_allocating(cls, config, hint):
    rss = peak_rss_bytes()
    with pytest.raises(OptionError) as info:
        cls.build((5, 8, 8), 1024, config)
    spec = f"{cls.name}:" + ",".join(f"{k}={v}" for k, v in config.items())
    assert re.fullmatch(rf"network {spec} needs about [\d.]+ [TP]B for its weights and training state "
                        rf"\([\d,]+ parameters\); this machine has [\d.]+ [kMGT]?B available; {hint}",
                        str(info.value)), str(info.value)
    assert peak_rss_bytes() - rss < 100 * 2**20          # refused before allocating: the memory never grew


def test_ordinary_networks_pass_the_check():
    assert isinstance(ResNetNetwork.build((5, 8, 8), 1024, {}), ResNetNetwork)   # the defaults, for checkers
    assert isinstance(AutogradNetwork.build((2, 3, 3), 9, {"family": "mlp"}), MLPNetwork)


@needs_meminfo
def test_a_model_file_of_a_network_too_large_names_the_file(tmp_path):
    """A file whose stated architecture would not fit (trained elsewhere, or edited) is refused the same way."""
    path = tmp_path / "huge.npz"
    ResNetNetwork.build((3, 4, 4), 10, {"channels": 8, "blocks": 1}).save(path)
    arrays, meta = load_arrays(path)
    meta.pop("format"), meta.pop("format_version")
    meta["config"]["channels"] = meta["architecture"]["model"]["channels"] = 100_000
    meta["config"]["blocks"] = meta["architecture"]["model"]["blocks"] = 50
    save_arrays(path, arrays, meta)
    with pytest.raises(NotEnoughMemoryError, match=r"model file .*huge\.npz: network resnet:blocks=50,"
                                                   r"channels=100000,.* needs about [\d.]+ TB"):
        AutogradNetwork.load(path)


def test_available_memory_is_what_the_kernel_reports():
    available = available_memory()
    if available is None:
        pytest.skip("this system does not report its available memory")
    with open("/proc/meminfo") as handle:
        total = next(int(line.split()[1]) * 1024 for line in handle if line.startswith("MemTotal:"))
    assert 0 < available <= total


@pytest.mark.parametrize("count, text", [(512, "512 B"), (22_100_000_000, "22.1 GB"), (1.2e12, "1.2 TB"),
                                         (3.5e15, "3.5 PB"), (999_999, "1.0 MB")])
def test_sizes_are_written_in_decimal_units(count, text):
    assert format_bytes(count) == text
