"""Model files: bit-identical reload, atomic writes, clear refusals, no pickle."""
import io
import json
import os
import zipfile

import numpy as np
import pytest

from plyground.errors import ModelFileError
from plyground.plugins.autograd.networks import AutogradNetwork, MLPNetwork, ResNetNetwork, load_network
from plyground.plugins.autograd.serialization import FORMAT_VERSION, METADATA_KEY, load_arrays, save_arrays


def small_resnet(**extra):
    return ResNetNetwork.build((3, 4, 4), 10, {"channels": 8, "blocks": 1, **extra})


def data(size=8, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(size, 3, 4, 4)).astype(np.float32),
            rng.dirichlet(np.ones(10), size=size).astype(np.float32),
            rng.uniform(-1, 1, size).astype(np.float32))


def test_reload_gives_bit_identical_predictions_and_training(tmp_path):
    net = small_resnet(optimizer="adam", lr=0.01)
    x, pi, z = data()
    for _ in range(3):
        net.train_step(x, pi, z)
    path = tmp_path / "model.npz"
    net.save(path, metadata={"iteration": 3})
    again = ResNetNetwork.load(path)
    for a, b in zip(net.predict(x), again.predict(x)):
        np.testing.assert_array_equal(a, b)
    assert again.metadata == {"iteration": 3}
    assert again.train_steps == 3
    # Optimiser state travels too: the next step is identical.
    assert net.train_step(x, pi, z) == again.train_step(x, pi, z)
    np.testing.assert_array_equal(net.predict(x)[0], again.predict(x)[0])


def test_generic_load_dispatches_on_family(tmp_path):
    path = tmp_path / "mlp.npz"
    MLPNetwork.build((6,), 4, {"hidden": 8}).save(path)
    assert isinstance(load_network(path), MLPNetwork)
    assert isinstance(AutogradNetwork.load(path), MLPNetwork)


def test_file_is_npz_with_json_metadata_and_loads_without_pickle(tmp_path):
    path = tmp_path / "m.npz"
    small_resnet().save(path)
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(archive[METADATA_KEY].tobytes().decode())
        assert archive[METADATA_KEY].dtype == np.uint8
        assert "model/stem.0.weight" in archive.files
    assert meta["format_version"] == FORMAT_VERSION
    assert meta["architecture"]["family"] == "resnet"
    assert meta["architecture"]["model"]["channels"] == 8


def test_atomic_write_leaves_no_temp_files_and_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "m.npz"
    net = small_resnet()
    net.save(path)
    original = path.read_bytes()

    def crash_midway(stream, **arrays):
        stream.write(b"PK half an archive")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", crash_midway)
    with pytest.raises(OSError, match="disk full"):
        net.save(path)
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]


def test_only_numeric_arrays_are_written(tmp_path):
    with pytest.raises(TypeError, match="only numbers"):
        save_arrays(tmp_path / "m.npz", {"bad": np.array([object()])}, {})
    assert not list(tmp_path.iterdir())


def test_missing_file(tmp_path):
    with pytest.raises(ModelFileError, match="does not exist"):
        ResNetNetwork.load(tmp_path / "nope.npz")


def test_corrupt_and_foreign_files(tmp_path):
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"this is not a zip archive")
    with pytest.raises(ModelFileError, match="corrupt"):
        ResNetNetwork.load(garbage)

    truncated = tmp_path / "truncated.npz"
    small_resnet().save(truncated)
    truncated.write_bytes(truncated.read_bytes()[:300])
    with pytest.raises(ModelFileError, match=str(truncated.name)):
        ResNetNetwork.load(truncated)

    plain = tmp_path / "plain.npz"
    np.savez(plain, weights=np.zeros(3))
    with pytest.raises(ModelFileError, match="not a plyground autograd model"):
        ResNetNetwork.load(plain)


def test_pickled_objects_are_refused_without_running_code(tmp_path):
    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    path = tmp_path / "evil.npz"
    buffer = io.BytesIO()
    np.save(buffer, np.array([Boom()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/stem.0.weight.npy", buffer.getvalue())
        archive.writestr(METADATA_KEY + ".npy", _metadata_npy({"format": "plyground-autograd", "format_version": 1}))
    with pytest.raises(ModelFileError, match="cannot be loaded safely"):
        ResNetNetwork.load(path)
    assert not (tmp_path / "pwned").exists()


def _metadata_npy(meta):
    buffer = io.BytesIO()
    np.save(buffer, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    return buffer.getvalue()


def test_format_version_mismatch(tmp_path):
    path = tmp_path / "future.npz"
    save_arrays(path, {}, {})
    arrays, meta = load_arrays(path)
    meta["format_version"] = 99
    np.savez(path, **{METADATA_KEY: np.frombuffer(json.dumps(meta).encode(), np.uint8)})
    with pytest.raises(ModelFileError, match="format version 99 is not supported.*version 1"):
        ResNetNetwork.load(path)


def test_different_architecture_is_refused_with_expected_and_found(tmp_path):
    path = tmp_path / "m.npz"
    small_resnet().save(path)
    with pytest.raises(ModelFileError, match=r"holds a 'resnet' network; expected 'mlp'"):
        MLPNetwork.load(path)
    with pytest.raises(ModelFileError, match=r"observations of shape \(3, 4, 4\); expected \(5, 8, 8\)"):
        ResNetNetwork.load(path, observation_shape=(5, 8, 8))
    with pytest.raises(ModelFileError, match="for 10 actions; expected 256"):
        ResNetNetwork.load(path, num_actions=256)


def test_weights_that_do_not_fit_the_stated_architecture(tmp_path):
    """Metadata says 8 channels but the arrays are from a 16-channel net: name the array and both shapes."""
    small, big = tmp_path / "small.npz", tmp_path / "big.npz"
    small_resnet().save(small)
    small_resnet(channels=16).save(big)
    arrays, _ = load_arrays(big)
    _, meta = load_arrays(small)
    meta.pop("format"), meta.pop("format_version")
    save_arrays(small, arrays, meta)
    with pytest.raises(ModelFileError, match=r"'stem.0.weight' has shape \(16, 3, 3, 3\), "
                                             r"the architecture expects \(8, 3, 3, 3\)"):
        ResNetNetwork.load(small)


def test_a_small_file_declaring_a_huge_array_is_refused_before_it_is_decompressed(tmp_path):
    """A model file of a few hundred KB whose array declares 256 MiB of zeros (they compress well): refused
    from its header, with no more than a few MB allocated (issue #57: 1.42 GB for 10 s before the refusal)."""
    import tracemalloc
    path = tmp_path / "huge.npz"
    small_resnet().save(path)
    arrays, meta = load_arrays(path)
    meta.pop("format"), meta.pop("format_version")
    arrays["model/stem.0.weight"] = np.zeros(2**26, dtype=np.float32)
    np.savez_compressed(path, **arrays, **{METADATA_KEY: np.frombuffer(json.dumps(
        {"format": "plyground-autograd", "format_version": FORMAT_VERSION, **meta}).encode(), dtype=np.uint8)})
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=r"'stem.0.weight' has shape \(67108864,\), "
                                                 r"the architecture expects \(8, 3, 3, 3\)"):
            ResNetNetwork.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20, f"{peak / 2**20:.0f} MiB allocated before the refusal"


def _poison(path, name, values):
    """Rewrite the model file at ``path`` with ``values`` in the first cells of array ``name``."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    arrays[name].flat[:len(values)] = values
    np.savez(path, **arrays)


@pytest.mark.parametrize("values", [[np.nan, np.nan, np.nan], [np.inf, -np.inf, np.nan]], ids=["nan", "inf"])
def test_weights_holding_nan_or_inf_are_refused_naming_the_file_and_array(tmp_path, values):
    path = tmp_path / "diverged.npz"
    small_resnet().save(path)
    _poison(path, "model/tower.0.conv1.weight", values)
    with pytest.raises(ModelFileError) as info:
        load_network(path)
    message = str(info.value)
    assert "diverged.npz" in message and "'model/tower.0.conv1.weight' holds 3 NaN/inf value(s)" in message
    assert "retrain or use another checkpoint" in message


def test_optimizer_state_holding_nan_is_refused_too(tmp_path):
    """Resuming from it would turn the weights into NaN at the first step."""
    net = small_resnet(optimizer="adam")
    net.train_step(*data())
    path = tmp_path / "m.npz"
    net.save(path)
    moment = next(name for name in load_arrays(path)[0] if name.startswith("optimizer/"))
    _poison(path, moment, [np.nan])
    with pytest.raises(ModelFileError, match=f"'{moment}' holds 1 NaN/inf value"):
        ResNetNetwork.load(path)


def test_finite_weights_load(tmp_path):
    """The check refuses only non-finite values: huge but finite weights still load."""
    path = tmp_path / "m.npz"
    small_resnet().save(path)
    _poison(path, "model/tower.0.conv1.weight", [np.finfo(np.float32).max, -1e30])
    assert isinstance(load_network(path), ResNetNetwork)


def test_a_network_whose_weights_went_to_nan_is_never_written(tmp_path):
    path = tmp_path / "kept.npz"
    net = small_resnet(optimizer="sgd", lr=1e30)
    net.save(path)
    before = path.read_bytes()
    with np.errstate(all="ignore"):
        for _ in range(3):              # steps of 1e30 send the weights to NaN or infinity
            net.train_step(*data())
    with pytest.raises(ModelFileError, match=r"not writing model file .*kept.npz: array "
                                             r"'model/stem.0.weight' holds \d+ NaN/inf .*lower the learning rate"):
        net.save(path)
    assert path.read_bytes() == before and list(tmp_path.iterdir()) == [path]


def _crafted(path, change):
    """Rewrite the metadata of the model file at ``path`` with ``change(metadata)``, as a hand edit would."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    metadata = json.loads(arrays[METADATA_KEY].tobytes())
    change(metadata)
    arrays[METADATA_KEY] = np.frombuffer(json.dumps(metadata).encode(), np.uint8)
    np.savez(path, **arrays)


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(config="notadict"), "its metadata's 'config' is 'notadict', not a JSON object"),
    (lambda m: m.update(user=[1]), "its metadata's 'user' is \\[1\\], not a JSON object"),
    (lambda m: m["architecture"].update(observation_shape=["x", None]),
     r"its observation shape is \['x', None\], not a list of positive whole numbers"),
    (lambda m: m["architecture"].update(num_actions=-3), "its number of actions is -3"),
    (lambda m: m["config"].update(channels="wide"), "has an architecture this version cannot build: .*'wide'"),
    (lambda m: m.update(train_steps="many"), "its train_steps is 'many'"),
])
def test_crafted_metadata_is_refused_with_one_message_naming_the_file(tmp_path, change, message):
    path = tmp_path / "crafted.npz"
    small_resnet().save(path)
    _crafted(path, change)
    with pytest.raises(ModelFileError, match=f"model file {path}:? {message}"):
        ResNetNetwork.load(path)
