"""Optimisers, schedules and clipping against hand-computed updates."""
import math

import numpy as np
import pytest

from plyground.plugins.autograd import nn, optim
from plyground.plugins.autograd.optim import lr_scheduler


def make(value, grad):
    p = nn.Parameter(np.array(value, dtype=np.float64))
    p.grad = np.array(grad, dtype=np.float64)
    return p


def test_sgd_momentum_and_weight_decay():
    p = make([1.0, -2.0], [0.5, 0.5])
    opt = optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01)
    opt.step()
    g1 = np.array([0.5, 0.5]) + 0.01 * np.array([1.0, -2.0])
    w1 = np.array([1.0, -2.0]) - 0.1 * g1
    np.testing.assert_allclose(p.data, w1)
    opt.step()
    g2 = np.array([0.5, 0.5]) + 0.01 * w1
    v2 = 0.9 * g1 + g2
    np.testing.assert_allclose(p.data, w1 - 0.1 * v2)


def test_sgd_nesterov():
    p = make([1.0], [2.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.5, nesterov=True)
    opt.step()
    np.testing.assert_allclose(p.data, [1.0 - 0.1 * (2.0 + 0.5 * 2.0)])
    opt.step()
    v = 0.5 * 2.0 + 2.0
    np.testing.assert_allclose(p.data, [1.0 - 0.1 * 3.0 - 0.1 * (2.0 + 0.5 * v)])
    with pytest.raises(ValueError):
        optim.SGD([p], momentum=0.0, nesterov=True)


def test_adam_first_steps():
    p = make([1.0], [0.5])
    opt = optim.Adam([p], lr=0.01)
    opt.step()
    np.testing.assert_allclose(p.data, [1.0 - 0.01 * 0.5 / (0.5 + 1e-8)])  # first step moves lr*sign(g)
    p.grad = np.array([-1.0])
    opt.step()
    m = 0.9 * 0.05 + 0.1 * -1.0
    v = 0.999 * 0.00025 + 0.001 * 1.0
    step = 0.01 * (m / (1 - 0.9 ** 2)) / (math.sqrt(v / (1 - 0.999 ** 2)) + 1e-8)
    np.testing.assert_allclose(p.data, [1.0 - 0.01 - step])


def test_adamw_decouples_weight_decay():
    p, q = make([2.0], [0.0]), make([2.0], [0.0])
    optim.AdamW([p], lr=0.1, weight_decay=0.5).step()
    np.testing.assert_allclose(p.data, [2.0 * (1 - 0.1 * 0.5)])  # zero gradient: only the decay acts
    optim.Adam([q], lr=0.1, weight_decay=0.5).step()
    np.testing.assert_allclose(q.data, [2.0 - 0.1])  # coupled: decay enters the adaptive step


def test_param_groups_and_zero_grad():
    a, b = make([1.0], [1.0]), make([1.0], [1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    opt.step()
    np.testing.assert_allclose([a.data[0], b.data[0]], [0.9, 0.5])
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_skips_parameters_without_gradient():
    p = make([1.0], [0.0])
    p.grad = None
    optim.SGD([p], lr=1.0, weight_decay=1.0).step()
    np.testing.assert_allclose(p.data, [1.0])


def test_state_dict_round_trip():
    p = make([1.0, 2.0], [0.1, 0.2])
    opt = optim.Adam([p], lr=0.01)
    opt.step()
    q = make([1.0, 2.0], [0.1, 0.2])
    q.data[...] = p.data
    other = optim.Adam([q], lr=0.01)
    other.load_state_dict(opt.state_dict())
    opt.step()
    other.step()
    np.testing.assert_array_equal(p.data, q.data)


def rates_of(make_scheduler, lr, steps):
    """The learning rate a scheduler gives an SGD optimiser (initial rate ``lr``) at each of ``steps`` steps."""
    scheduler = make_scheduler(optim.SGD([make([1.0], [0.0])], lr=lr))
    rates = []
    for _ in range(steps):
        rates.append(scheduler.get_last_lr()[0])
        scheduler.step()
    return rates


@pytest.mark.parametrize("make_scheduler, lr, expected", [
    (lambda opt: lr_scheduler.StepLR(opt, step_size=2, gamma=0.5), 1.0, [1.0, 1.0, 0.5, 0.5, 0.25]),
    (lambda opt: lr_scheduler.CosineAnnealingLR(opt, t_max=4, eta_min=0.0), 2.0,
     [2.0, 1 + math.cos(math.pi / 4), 1.0, 1 - math.cos(math.pi / 4), 0, 0]),
    (lambda opt: lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1), 1.0, [1.0, 0.1, 0.1, 0.01]),
], ids=["step", "cosine", "multistep"])
def test_schedules(make_scheduler, lr, expected):
    np.testing.assert_allclose(rates_of(make_scheduler, lr, len(expected)), expected, atol=1e-12)


def test_clip_grad_norm_and_value():
    a, b = make([0.0], [3.0]), make([0.0], [4.0])
    norm = optim.clip_grad_norm_([a, b], max_norm=1.0)
    assert norm == pytest.approx(5.0)
    assert math.hypot(a.grad[0], b.grad[0]) == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(a.grad / b.grad, 0.75)
    c = make([0.0, 0.0], [-3.0, 0.5])
    optim.clip_grad_value_([c], 1.0)
    np.testing.assert_allclose(c.grad, [-1.0, 0.5])


def test_rejects_empty_or_bad_arguments():
    with pytest.raises(ValueError, match="empty"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError):
        optim.SGD([make([1.0], [1.0])], lr=-1)
