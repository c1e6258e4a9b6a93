"""Modules, layers, batch norm, initialisation."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, manual_seed, nn, no_grad
from plyground.plugins.autograd.gradcheck import gradcheck


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(3, 4)
        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 2)])
        self.scale = nn.Parameter(np.ones(1, np.float32))
        self.note = "plain attribute"

    def forward(self, x):
        x = nn.ReLU()(self.first(x))
        for block in self.blocks:
            x = block(x)
        return x * self.scale


def test_registration_and_names():
    model = TwoLayer()
    names = [name for name, _ in model.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias", "blocks.0.weight", "blocks.0.bias",
                     "blocks.1.weight", "blocks.1.bias"]
    assert model.num_parameters() == 1 + 3 * 4 + 4 + 16 + 4 + 8 + 2
    assert model.note == "plain attribute"
    assert len(list(model.modules())) == 5


def test_shared_parameter_listed_once():
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2


def test_state_dict_round_trip_and_mismatch_messages():
    manual_seed(0)
    a, b = TwoLayer(), TwoLayer()
    b.load_state_dict(a.state_dict())
    for (_, pa), (_, pb) in zip(a.named_parameters(), b.named_parameters()):
        np.testing.assert_array_equal(pa.data, pb.data)
    state = a.state_dict()
    state["first.weight"] = np.zeros((5, 3))
    with pytest.raises(ValueError, match=r"first.weight.*\(5, 3\).*\(4, 3\)"):
        b.load_state_dict(state)
    del state["first.weight"]
    with pytest.raises(KeyError, match="missing first.weight"):
        b.load_state_dict(state)


def test_state_dict_is_a_copy():
    layer = nn.Linear(2, 2)
    state = layer.state_dict()
    state["weight"][...] = 99
    assert not (layer.weight.data == 99).any()


def test_train_eval_and_zero_grad():
    model = TwoLayer()
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    model(Tensor(np.ones((2, 3)))).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_to_float64_for_checking():
    model = TwoLayer().double()
    assert all(p.dtype == np.float64 for p in model.parameters())
    assert model(Tensor(np.ones((2, 3)))).dtype == np.float64


def test_layer_gradients():
    manual_seed(1)
    rng = np.random.default_rng(1)
    x = Tensor(rng.normal(size=(4, 3, 5, 5)), requires_grad=True)
    for layer in [nn.Conv2d(3, 2, 3, stride=2, padding=1), nn.Sequential(nn.Conv2d(3, 4, 1), nn.Flatten(),
                                                                      nn.Linear(100, 3)),
                  nn.BatchNorm2d(3), nn.ResidualBlock(3), nn.Sequential(nn.Reshape(75), nn.Sigmoid()),
                  nn.Sequential(nn.Flatten(), nn.Linear(75, 6), nn.Tanh(), nn.Softmax(axis=1))]:
        layer.double()
        gradcheck(lambda: layer(x), [x, *layer.parameters()])


def test_batchnorm1d_train_and_eval_gradients():
    rng = np.random.default_rng(2)
    x = Tensor(rng.normal(size=(6, 4)), requires_grad=True)
    norm = nn.BatchNorm1d(4).double()
    norm.weight.data[...] = rng.normal(size=4)
    gradcheck(lambda: norm(x), [x, norm.weight, norm.bias])
    norm.eval()
    gradcheck(lambda: norm(x), [x, norm.weight, norm.bias])


def test_batchnorm_statistics_train_vs_eval():
    rng = np.random.default_rng(3)
    data = rng.normal(2.0, 3.0, size=(8, 2, 4, 4))
    norm = nn.BatchNorm2d(2, momentum=0.1).double()
    out = norm(Tensor(data)).data
    # Train mode: normalised by the batch's own (biased) statistics.
    np.testing.assert_allclose(out.mean(axis=(0, 2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=(0, 2, 3)), 1, atol=1e-4)
    # Running statistics move 10% towards the batch's mean and unbiased variance.
    np.testing.assert_allclose(norm.running_mean, 0.1 * data.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(norm.running_var, 0.9 + 0.1 * data.var(axis=(0, 2, 3), ddof=1))
    # Eval mode uses the running statistics and leaves them alone.
    norm.eval()
    before = norm.running_mean.copy()
    out = norm(Tensor(data)).data
    expected = (data - norm.running_mean[None, :, None, None]) / np.sqrt(norm.running_var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(out, expected)
    np.testing.assert_array_equal(norm.running_mean, before)


def test_residual_skip_carries_gradient():
    """With the branch zeroed, the block is relu(x): the input gradient must come through the skip."""
    block = nn.ResidualBlock(2).double()
    block.bn2.weight.data[...] = 0  # branch output is then the constant bn2.bias = 0
    x = Tensor(np.abs(np.random.default_rng(4).normal(size=(2, 2, 3, 3))) + 0.1, requires_grad=True)
    block(x).sum().backward()
    np.testing.assert_allclose(x.grad, 1.0)


@pytest.mark.parametrize("init, std", [("he", lambda fi, fo: np.sqrt(2 / fi)),
                                       ("xavier", lambda fi, fo: np.sqrt(2 / (fi + fo)))])
def test_initialisation_scale(init, std):
    manual_seed(5)
    conv = nn.Conv2d(64, 32, 3, init=init)
    fan_in, fan_out = 64 * 9, 32 * 9
    assert conv.weight.data.std() == pytest.approx(std(fan_in, fan_out), rel=0.05)
    assert abs(conv.weight.data.mean()) < 0.01
    np.testing.assert_array_equal(conv.bias.data, 0)


def test_he_init_keeps_activation_scale_through_depth():
    manual_seed(6)
    layers = []
    for _ in range(10):
        layers += [nn.Linear(256, 256), nn.ReLU()]
    model = nn.Sequential(*layers)
    x = np.random.default_rng(6).normal(size=(512, 256)).astype(np.float32)
    with no_grad():
        out = model(Tensor(x)).data
    assert 0.3 < np.sqrt((out ** 2).mean()) < 3.0


def test_manual_seed_reproducible():
    manual_seed(7)
    a = nn.Linear(3, 3).weight.data.copy()
    manual_seed(7)
    np.testing.assert_array_equal(a, nn.Linear(3, 3).weight.data)


def test_dense_alias_and_repr():
    assert nn.Dense is nn.Linear
    text = repr(nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU()))
    assert "Conv2d(1, 2, kernel_size=(3, 3)" in text and "ReLU()" in text


def test_batchnorm_rejects_wrong_input():
    with pytest.raises(ValueError, match="BatchNorm2d"):
        nn.BatchNorm2d(3)(Tensor(np.zeros((2, 4, 2, 2))))
