"""The resnet and mlp Network plugins: build, predict, train, register."""
import numpy as np
import pluggy
import pytest

from plyground.errors import OptionError
from plyground.plugins.autograd import plugin
from plyground.plugins.autograd.networks import AutogradNetwork, MLPNetwork, ResNetNetwork
from plyground.protocols import Network


def batch(shape, actions, size=16, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(size, *shape)).astype(np.float32)
    pi = rng.dirichlet(np.ones(actions), size=size).astype(np.float32)
    z = rng.choice([-1.0, 0.0, 1.0], size=size).astype(np.float32)
    return x, pi, z


def test_plugin_registers_both_families():
    from plyground import hookspecs
    manager = pluggy.PluginManager("plyground")
    manager.add_hookspecs(hookspecs)
    manager.register(plugin)
    classes = [cls for group in manager.hook.register_networks() for cls in group]
    assert {cls.name for cls in classes} == {"resnet", "mlp"}
    for cls in classes:
        assert issubclass(cls, Network) and cls.description and cls.options


def test_build_by_family_and_defaults():
    net = AutogradNetwork.build((5, 8, 8), 256, {"family": "resnet", "channels": 16, "blocks": 2})
    assert isinstance(net, ResNetNetwork)
    assert net.config["channels"] == 16 and net.config["lr"] == 0.02
    assert isinstance(AutogradNetwork.build((9,), 9, {"family": "mlp"}), MLPNetwork)
    assert isinstance(ResNetNetwork.build((3, 3), 9, {}), ResNetNetwork)  # (H, W) boards get a channel axis


@pytest.mark.parametrize("config, message", [
    ({"family": "transformer"}, "unknown network family"),
    ({"family": "mlp", "channels": 3}, "unknown option 'channels'"),
    ({"family": "resnet", "blocks": -1}, "blocks"),
    ({"family": "resnet", "optimizer": "rmsprop"}, "optimizer"),
    ({}, "needs a 'family'"),
])
def test_bad_configs_are_refused(config, message):
    with pytest.raises(OptionError, match=message):
        AutogradNetwork.build((2, 3, 3), 9, config)


def test_resnet_refuses_flat_observations():
    with pytest.raises(OptionError, match="mlp"):
        ResNetNetwork.build((10,), 4, {})


def test_same_seed_same_weights():
    a = ResNetNetwork.build((2, 3, 3), 9, {"channels": 4, "blocks": 1, "seed": 3})
    b = ResNetNetwork.build((2, 3, 3), 9, {"channels": 4, "blocks": 1, "seed": 3})
    x, _, _ = batch((2, 3, 3), 9)
    np.testing.assert_array_equal(a.predict(x)[0], b.predict(x)[0])


@pytest.mark.parametrize("family, shape, extra", [("resnet", (3, 4, 4), {"channels": 8, "blocks": 1}),
                                                  ("mlp", (10,), {"hidden": 32}),
                                                  ("mlp", (2, 3, 3), {"hidden": 32, "optimizer": "adam",
                                                                      "lr": 0.01})])
def test_train_step_lowers_loss_and_predict_shapes(family, shape, extra):
    net = AutogradNetwork.build(shape, 12, {"family": family, **extra})
    x, pi, z = batch(shape, 12)
    first = net.train_step(x, pi, z)
    assert set(first) == {"loss", "value_loss", "policy_loss"}
    assert first["loss"] == pytest.approx(first["value_loss"] + first["policy_loss"])
    for _ in range(30):
        last = net.train_step(x, pi, z)
    assert last["loss"] < first["loss"] * 0.8
    logits, values = net.predict(x)
    assert logits.shape == (16, 12) and values.shape == (16,)
    assert logits.dtype == np.float32 and values.dtype == np.float32
    assert np.all(np.abs(values) <= 1)


def test_predict_sees_the_latest_weights():
    net = MLPNetwork.build((4,), 3, {"hidden": 8})
    x, pi, z = batch((4,), 3)
    before = net.predict(x)[0].copy()
    net.train_step(x, pi, z)
    assert not np.array_equal(before, net.predict(x)[0])


def test_shape_errors_name_the_expected_shape():
    net = MLPNetwork.build((4,), 3, {"hidden": 8})
    with pytest.raises(ValueError, match=r"\(4,\)"):
        net.predict(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match="policies"):
        net.train_step(np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32), np.zeros(2))


def test_gradient_clipping_and_schedules_run():
    net = MLPNetwork.build((4,), 3, {"hidden": 8, "grad_clip": 0.1, "lr_schedule": "cosine", "lr_steps": 10,
                                     "nesterov": True})
    x, pi, z = batch((4,), 3)
    net.train_step(x, pi, z)
    assert net.optimizer.param_groups[0]["lr"] < 0.02
