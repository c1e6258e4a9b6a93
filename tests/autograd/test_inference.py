"""The numpy inference fast path agrees with the graph forward."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, manual_seed, nn, no_grad
from plyground.plugins.autograd.inference import compile_inference
from plyground.plugins.autograd.models import PolicyValueMLP, PolicyValueResNet

from float_bounds import forward_rtol


def trained_statistics(model, x):
    """A few train-mode passes so batch-norm running statistics are not the trivial 0/1."""
    model.train()
    for _ in range(3):
        model(Tensor(x))
    model.eval()


def test_resnet_plan_matches_graph_forward():
    manual_seed(0)
    model = PolicyValueResNet((3, 5, 5), 11, channels=8, blocks=2)
    x = np.random.default_rng(0).normal(size=(6, 3, 5, 5)).astype(np.float32)
    trained_statistics(model, x)
    with no_grad():
        logits, values = model(Tensor(x))
    fast_logits, fast_values = compile_inference(model)(x)
    # float32 bound (tests/float_bounds.py): 3x3 convolutions over 8 channels (n = 72), 8 products on the value
    # path (stem, 2 blocks x 2, the 1x1 head, two linear layers), batch norm folded into them
    rtol = forward_rtol(72, 8)
    np.testing.assert_allclose(fast_logits, logits.data, rtol=0, atol=rtol * np.abs(logits.data).max())
    np.testing.assert_allclose(fast_values, values.data, rtol=0, atol=rtol * np.abs(values.data).max())
    assert fast_logits.shape == (6, 11) and fast_values.shape == (6,)


def test_mlp_and_generic_modules():
    manual_seed(1)
    x = np.random.default_rng(1).normal(size=(4, 3, 2)).astype(np.float32)
    model = PolicyValueMLP((3, 2), 5, hidden=16, layers=2).eval()
    with no_grad():
        expected = model(Tensor(x))
    for fast, slow in zip(compile_inference(model)(x), expected):   # 3 linear layers of at most 16 terms
        np.testing.assert_allclose(fast, slow.data, rtol=0, atol=forward_rtol(16, 3) * np.abs(slow.data).max())

    seq = nn.Sequential(nn.Flatten(), nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4),
                        nn.Sigmoid(), nn.Reshape(2, 2), nn.LogSoftmax(axis=-1))
    trained_statistics(seq, x)
    with no_grad():
        expected = seq(Tensor(x)).data
    # two linear layers (batch norm folded in) and the log-softmax's sum of 2
    bound = forward_rtol(8, 3) * np.abs(expected).max()
    np.testing.assert_allclose(compile_inference(seq)(x), expected, rtol=0, atol=bound)


def test_unknown_module_falls_back_to_forward():
    class Doubler(nn.Module):
        def forward(self, x):
            return x * 2

    seq = nn.Sequential(nn.Linear(2, 2), Doubler()).eval()
    x = np.ones((1, 2), np.float32)
    with no_grad():
        expected = seq(Tensor(x)).data
    np.testing.assert_allclose(compile_inference(seq)(x), expected)


def test_needs_eval_mode():
    with pytest.raises(RuntimeError, match="eval"):
        compile_inference(nn.Linear(2, 2))


def test_batch_of_one():
    manual_seed(2)
    model = PolicyValueResNet((2, 4, 4), 7, channels=4, blocks=1).eval()
    x = np.random.default_rng(2).normal(size=(1, 2, 4, 4)).astype(np.float32)
    logits, values = compile_inference(model)(x)
    assert logits.shape == (1, 7) and values.shape == (1,)
    assert -1 <= values[0] <= 1
