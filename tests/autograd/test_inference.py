"""The numpy inference fast path agrees with the graph forward."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, manual_seed, nn, no_grad
from plyground.plugins.autograd.inference import compile_inference
from plyground.plugins.autograd.policy_value import PolicyValueMLP, PolicyValueResNet

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


# ------------------------------------------------- the fused F(4x4) plan against a float64 reference
def checkers_shaped_nets():
    """The bundled checkers network (64 channels, 4 blocks) and a seeded untrained 32x3 of the same shapes."""
    from plyground.players.alphazero.networks import load_model, resolve_model_path
    from plyground.registry import get_registry
    game = get_registry().make_game("checkers")
    bundled = load_model(resolve_model_path(None, game), game, device="cpu", precision="float32").model.eval()
    manual_seed(0)
    small = PolicyValueResNet(tuple(game.observation_shape), int(game.num_actions), channels=32, blocks=3).eval()
    return {"bundled 64x4": (bundled, 64, 4), "seeded 32x3": (small, 32, 3)}


@pytest.fixture(scope="module")
def nets():
    return checkers_shaped_nets()


@pytest.mark.parametrize("name", ["bundled 64x4", "seeded 32x3"])
@pytest.mark.parametrize("batch", [1, 8, 37])   # 37: more than one chunk (CPU_CHUNK = 16), the last one short
def test_fused_plan_matches_float64_reference(nets, name, batch):
    import copy
    from float_bounds import winograd_chain
    from plyground.plugins.autograd.inference import CPU_CHUNK
    from plyground.plugins.autograd.ops.winograd import F4
    model, channels, blocks = nets[name]
    assert batch != 37 or batch > 2 * CPU_CHUNK   # three chunks
    reference = copy.deepcopy(model).double().eval()
    x = np.random.default_rng(batch).integers(0, 2, size=(batch, 5, 8, 8)).astype(np.float32)  # 0/1 planes
    with no_grad():
        logits64, values64 = (t.data for t in reference(Tensor(x.astype(np.float64))))
    logits, values = compile_inference(model)(x)
    assert logits.dtype == values.dtype == np.float32
    assert logits.shape == (batch, 1024) and values.shape == (batch,)
    # Higham's bound for F(4x4)'s longest chain of roundings (winograd_chain: the transforms' additions and the
    # sum over channels) over the value path's products (stem, 2 per block, 1x1 head, two linear layers). F(4x4)'s
    # constants can amplify a term's rounding error up to 114x in the worst case, which would make the bound
    # useless; measured, F(4x4) loses 15x more than F(2x2) per 3x3 layer (5e-6 against 3e-7 of the largest
    # output) and this bound (8e-5 .. 1.4e-4) is still 15x above the whole network's largest error.
    rtol = forward_rtol(winograd_chain(channels, F4), 2 * blocks + 4)
    np.testing.assert_allclose(logits, logits64, rtol=0, atol=rtol * np.abs(logits64).max())
    np.testing.assert_allclose(values, values64, rtol=0, atol=rtol * np.abs(values64).max())


def test_fused_plan_reuses_its_scratch(nets):
    """After the first call at a batch size, a call allocates its outputs only: the Winograd scratch (36 tile
    positions x tiles x channels, input and products) is reused, where the earlier plan made it anew per layer."""
    import tracemalloc
    model, channels, _ = nets["bundled 64x4"]
    plan = compile_inference(model)
    x = np.random.default_rng(3).integers(0, 2, size=(8, 5, 8, 8)).astype(np.float32)
    plan(x)
    tracemalloc.start()
    try:
        plan(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A layer's two scratch arrays, which the earlier plan held at once (float32); the fused plan's peak is the
    # residual block's three activations (input kept for the skip, two outputs: 3 x 131 kB) and the heads.
    scratch = 2 * 36 * (8 * 4) * channels * 4
    assert peak < scratch, f"peak {peak} bytes during a call, a layer's scratch is {scratch}"
