"""The Deep Pepper network families: the paper's sizes, the parts split, save/load, learning."""
import numpy as np
import pytest

from plyground.errors import ModelFileError, OptionError
from plyground.games.chess.encoding import PIECES_START, SQUARES_START
from plyground.games.chess.game import ChessGame
from plyground.plugins.autograd.networks import load_network
from plyground.plugins.autograd.tensor import Tensor
from plyground.plugins.trainers.expert_iteration.networks import DeepPepperFullNetwork, DeepPepperPartsNetwork
from plyground.registry import get_registry

from float_bounds import forward_rtol, gamma
from move_helpers import random_play

SMALL_PARTS = {"h1a": 16, "h1b": 16, "h1c": 12, "h2p": 32, "h2e": 8}
SMALL_FULL = {"h1": 24, "h2p": 32, "h2e": 8}
#: Float32 bounds of these networks (tests/float_bounds.py): the feature scale, one trunk layer and two head layers,
#: the longest product the full trunk's 353 terms; the loss adds the softmax's and the cross-entropy's sums over
#: 4,672 moves.
PREDICT_RTOL = forward_rtol(353, 4)
LOSS_RTOL = PREDICT_RTOL + 2 * 2 * gamma(4672)


def observations(n=6, seed=0):
    game = ChessGame(encoding="deep_pepper")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        out.append(random_play(game.new_initial_state(), int(rng.integers(0, 12)), rng).observation())
    return np.stack(out).astype(np.float32)


def linear_shapes(module):
    return [p.data.shape for name, p in module.named_parameters() if name.endswith("weight")]


def test_parts_defaults_are_the_papers_layer_sizes():
    net = DeepPepperPartsNetwork.build((353,), 4672)
    first = net.model.trunk
    assert first.bounds == (17, 225, 353) == (PIECES_START, SQUARES_START, 353)
    assert first.global_layer[0].weight.data.shape == (32, 17)        # h1a on the global features
    assert first.piece_layer[0].weight.data.shape == (512, 208)       # h1b on the piece-centric ones
    assert first.square_layer[0].weight.data.shape == (480, 128)      # h1c on the square-centric ones
    assert linear_shapes(net.model.policy_head) == [(2048, 1024), (4672, 2048)]   # h2p, then the actions
    assert linear_shapes(net.model.value_head) == [(512, 1024), (1, 512)]         # h2e, then one value
    assert net.model.critic_trunk is None


def test_full_defaults_and_separate_first_layers():
    net = DeepPepperFullNetwork.build((353,), 4672, {"h2p": 64, "h2e": 16})
    assert linear_shapes(net.model.trunk) == [(1024, 353)]
    separate = DeepPepperFullNetwork.build((353,), 4672, {"separate": True, "h1": 16, "h2p": 8, "h2e": 8})
    assert separate.model.critic_trunk is not None
    assert linear_shapes(separate.model.critic_trunk) == [(16, 353)]
    parts = DeepPepperPartsNetwork.build((353,), 10, {"separate": True, **SMALL_PARTS})
    assert parts.model.critic_trunk.piece_layer[0].weight.data.shape == (16, 208)


@pytest.mark.parametrize("cls,config", [(DeepPepperPartsNetwork, SMALL_PARTS), (DeepPepperFullNetwork, SMALL_FULL)])
@pytest.mark.parametrize("separate", [False, True])
def test_fast_inference_matches_the_graph(cls, config, separate):
    net = cls.build((353,), 4672, {**config, "separate": separate})
    x = observations()
    logits, values = net.predict(x)
    assert logits.shape == (6, 4672) and values.shape == (6,)
    assert np.all(np.abs(values) <= 1)
    net.model.eval()
    graph_logits, graph_values = net.model(Tensor(x))
    for fast, graph in ((logits, graph_logits.data), (values, graph_values.data)):
        np.testing.assert_allclose(fast, graph, rtol=0, atol=PREDICT_RTOL * np.abs(graph).max())


@pytest.mark.parametrize("cls,config", [(DeepPepperPartsNetwork, SMALL_PARTS), (DeepPepperFullNetwork, SMALL_FULL)])
def test_the_gpu_code_path_trains_and_predicts_as_the_cpu(cls, config):
    """device=cpu-portable: the code a GPU runs (the feature scale and the parts' join on the device)."""
    cpu, portable = (cls.build((353,), 4672, {**config, "separate": True, "device": device})
                     for device in ("cpu", "cpu-portable"))
    x = observations()
    policies = np.full((6, 4672), 1 / 4672, np.float32)
    values = np.linspace(-1, 1, 6).astype(np.float32)
    assert portable.train_step(x, policies, values)["loss"] == pytest.approx(
        cpu.train_step(x, policies, values)["loss"], rel=LOSS_RTOL)
    for ours, theirs in zip(portable.predict(x), cpu.predict(x)):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=PREDICT_RTOL * np.abs(theirs).max())


def test_parts_really_are_separate():
    """Changing only square-centric inputs moves only the square layer's output."""
    net = DeepPepperPartsNetwork.build((353,), 10, SMALL_PARTS)
    x = observations(2)
    y = x.copy()
    y[:, 300] += 5.0
    trunk = net.model.trunk
    a, b = trunk(Tensor(x)).data, trunk(Tensor(y)).data
    np.testing.assert_array_equal(a[:, :16 + 16], b[:, :16 + 16])
    assert not np.allclose(a[:, 32:], b[:, 32:])


@pytest.mark.parametrize("cls,config", [(DeepPepperPartsNetwork, SMALL_PARTS), (DeepPepperFullNetwork, SMALL_FULL)])
def test_training_lowers_the_loss_and_survives_save_and_load(tmp_path, cls, config):
    net = cls.build((353,), 4672, {**config, "separate": True, "optimizer": "adam", "lr": 0.003, "seed": 1})
    x = observations(16, seed=1)
    rng = np.random.default_rng(2)
    policies = np.zeros((16, 4672), np.float32)
    policies[np.arange(16), rng.integers(0, 4672, 16)] = 1.0
    values = rng.uniform(-0.9, 0.9, 16).astype(np.float32)
    first = net.train_step(x, policies, values)["loss"]
    for name, p in net.model.named_parameters():   # every layer, both first layers included, got a gradient
        assert p.grad is not None and np.any(p.grad != 0), name
    for _ in range(60):
        last = net.train_step(x, policies, values)["loss"]
    assert last < 0.5 * first

    path = tmp_path / "net.npz"
    net.save(path, metadata={"note": "x"})
    for loaded in (load_network(path), cls.load(path)):
        assert type(loaded) is cls and loaded.metadata == {"note": "x"}
        assert loaded.config == net.config and loaded.train_steps == net.train_steps
        np.testing.assert_array_equal(loaded.predict(x)[0], net.predict(x)[0])
    # the optimiser state came back too: one more identical step gives identical weights
    again = cls.load(path)
    net.train_step(x, policies, values)
    again.train_step(x, policies, values)
    np.testing.assert_allclose(again.predict(x)[1], net.predict(x)[1], rtol=1e-5)


def test_a_file_of_another_family_is_refused(tmp_path):
    path = tmp_path / "full.npz"
    DeepPepperFullNetwork.build((353,), 10, SMALL_FULL).save(path)
    with pytest.raises(ModelFileError, match="deep-pepper-full"):
        DeepPepperPartsNetwork.load(path)


def test_bad_shapes_and_splits_are_refused():
    with pytest.raises(OptionError, match="flat feature vectors"):
        DeepPepperPartsNetwork.build((21, 8, 8), 4672)
    with pytest.raises(OptionError, match="no square-centric"):
        DeepPepperPartsNetwork.build((100,), 10, {"global_features": 17, "piece_features": 83})
    with pytest.raises(OptionError):
        DeepPepperPartsNetwork.build((353,), 10, {"h1a": 0})


def test_families_are_registered_as_networks():
    names = {entry.name for entry in get_registry().entries("networks")}
    assert {"deep-pepper-parts", "deep-pepper-full", "mlp"} <= names


@pytest.mark.parametrize("cls, config", [(DeepPepperPartsNetwork, SMALL_PARTS), (DeepPepperFullNetwork, SMALL_FULL)])
@pytest.mark.parametrize("separate", [False, True])
def test_parameter_count_without_building_matches_the_built_model(cls, config, separate):
    """The autograd plugin's memory check counts a network's parameters before building it."""
    from plyground.plugins.trainers.expert_iteration.networks import parameter_count
    net = cls.build((353,), 4672, {**config, "separate": separate})
    assert cls.parameter_count((353,), 4672, net.config) == parameter_count(net)
