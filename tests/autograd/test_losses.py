"""Losses: MSE, soft-target cross-entropy, the AlphaZero loss and L2."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, nn, optim
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.gradcheck import gradcheck


def test_mse(param):
    p, t = param(5), np.arange(5.0)
    assert F.mse_loss(Tensor([1.0, 2.0]), [0.0, 4.0]).item() == pytest.approx(2.5)
    gradcheck(lambda: F.mse_loss(p, t), [p])
    gradcheck(lambda: F.mse_loss(p, t, reduction="sum"), [p])


def test_cross_entropy_soft_targets_is_row_wise(rng):
    logits = rng.normal(size=(4, 6))
    target = rng.dirichlet(np.ones(6), size=4)
    expected = -(target * (logits - np.log(np.exp(logits).sum(1, keepdims=True)))).sum(1).mean()
    assert F.cross_entropy(Tensor(logits), target).item() == pytest.approx(expected)
    per_row = F.cross_entropy(Tensor(logits), target, reduction="none")
    assert per_row.shape == (4,)


def test_cross_entropy_class_indices_equal_one_hot(rng):
    logits = rng.normal(size=(5, 3))
    labels = np.array([0, 2, 1, 1, 0])
    one_hot = np.eye(3)[labels]
    assert F.cross_entropy(Tensor(logits), labels).item() == pytest.approx(
        F.cross_entropy(Tensor(logits), one_hot).item())
    assert nn.CrossEntropyLoss()(Tensor(logits), labels).item() == pytest.approx(
        F.cross_entropy(Tensor(logits), labels).item())


def test_cross_entropy_gradients(param, rng):
    logits = param(4, 6)
    target = rng.dirichlet(np.ones(6), size=4)
    gradcheck(lambda: F.cross_entropy(logits, target), [logits])
    gradcheck(lambda: F.cross_entropy(logits, np.array([1, 5, 0, 2])), [logits])


def test_alphazero_loss_value_and_gradients(param, rng):
    logits, values = param(5, 7), param(5, low=-0.9, high=0.9)
    pi = rng.dirichlet(np.ones(7), size=5)
    z = rng.choice([-1.0, 0.0, 1.0], size=5)
    loss = F.alphazero_loss(logits, values, pi, z)
    assert loss.value_loss.item() == pytest.approx(((z - values.data) ** 2).mean())
    assert loss.policy_loss.item() == pytest.approx(F.cross_entropy(Tensor(logits.data), pi).item())
    assert loss.total.item() == pytest.approx(loss.value_loss.item() + loss.policy_loss.item())
    gradcheck(lambda: F.alphazero_loss(logits, values, pi, z).total, [logits, values])
    gradcheck(lambda: F.alphazero_loss(logits, values.reshape(5, 1), pi, z, value_weight=0.25).total,
              [logits, values])


def test_l2_penalty_matches_sgd_weight_decay(rng):
    """c*||w||^2 has gradient 2c*w: weight_decay=2c in SGD gives the same step as the explicit penalty."""
    w0 = rng.normal(size=(3, 4))
    c, lr = 0.05, 0.1
    explicit = nn.Parameter(w0.copy())
    F.l2_penalty([explicit], c).backward()
    np.testing.assert_allclose(explicit.grad, 2 * c * w0)
    gradcheck(lambda: F.l2_penalty([explicit], c), [explicit])
    decayed = nn.Parameter(w0.copy())
    decayed.grad = np.zeros_like(w0)
    optim.SGD([decayed], lr=lr, weight_decay=2 * c).step()
    np.testing.assert_allclose(decayed.data, w0 - lr * 2 * c * w0)
