"""Each factor's messages against values computed by hand or with scipy.stats; the compiled loop against them."""
import math

import numpy as np
import pytest
from scipy import stats

from plyground.plugins.bayes import engine
from plyground.plugins.bayes.factors import (GaussianMeanFactor, GreaterThanFactor, PriorFactor, Variable,
                                             WeightedSumFactor, rank_update)
from plyground.plugins.bayes.gaussian import Gaussian


def N(mean, var):
    return Gaussian.from_mean_variance(mean, var)


# ------------------------------------------------------------------ Gaussian

def test_gaussians_multiply_and_divide_in_natural_parameters():
    a, b = N(1.0, 2.0), N(-3.0, 0.5)               # tau = mean / var, rho = 1 / var
    assert (a.tau, a.rho) == (0.5, 0.5) and (b.tau, b.rho) == (-6.0, 2.0)
    product = a * b
    assert product.rho == pytest.approx(2.5) and product.mean == pytest.approx((0.5 - 6.0) / 2.5)
    assert (product / b).mean == pytest.approx(1.0) and (product / b).variance == pytest.approx(2.0)
    assert Gaussian.uniform().is_uniform and Gaussian.uniform().variance == math.inf
    assert (a / a).is_uniform


def test_invalid_gaussians_are_refused():
    with pytest.raises(ValueError):
        Gaussian(0.0, -1.0)
    with pytest.raises(ValueError):
        Gaussian(float("nan"), 1.0)
    with pytest.raises(ValueError):
        N(0.0, 0.0)
    with pytest.raises(ValueError):
        N(0.0, 1.0) / N(0.0, 0.5)                   # would give a negative precision


# ------------------------------------------------------------------- factors

def test_prior_factor_sends_its_gaussian():
    x = Variable("x")
    PriorFactor(x, N(2.0, 3.0)).update()
    assert x.marginal.mean == pytest.approx(2.0) and x.marginal.variance == pytest.approx(3.0)


def test_gaussian_mean_factor_adds_beta_squared_both_ways():
    x, y = Variable("x"), Variable("y")
    PriorFactor(x, N(1.0, 4.0)).update()
    g = GaussianMeanFactor(x, y, beta=1.5)
    g.update_to_y()
    assert y.marginal.mean == pytest.approx(1.0) and y.marginal.variance == pytest.approx(4.0 + 2.25)
    # evidence on y flows back with the same added noise: x's new marginal = prior * N(5, 1 + 2.25)
    PriorFactor(y, N(5.0, 1.0)).update()
    g.update_to_x()
    assert g.x.message_from(g).mean == pytest.approx(5.0)
    assert g.x.message_from(g).variance == pytest.approx(3.25)
    expected_var = 1 / (1 / 4.0 + 1 / 3.25)
    assert x.marginal.variance == pytest.approx(expected_var)
    assert x.marginal.mean == pytest.approx(expected_var * (1.0 / 4.0 + 5.0 / 3.25))


def test_gaussian_mean_factor_passes_a_uniform_message_through():
    x, y = Variable("x"), Variable("y")
    GaussianMeanFactor(x, y, beta=2.0).update_to_y()
    assert y.marginal.is_uniform


def test_weighted_sum_factor_messages():
    x1, x2, y = Variable("x1"), Variable("x2"), Variable("y")
    PriorFactor(x1, N(1.0, 1.0)).update()
    PriorFactor(x2, N(2.0, 4.0)).update()
    s = WeightedSumFactor(y, [x1, x2], [2.0, -1.0])          # y = 2 x1 - x2
    s.update_to_sum()
    assert y.marginal.mean == pytest.approx(0.0) and y.marginal.variance == pytest.approx(4 * 1 + 1 * 4)
    PriorFactor(y, N(3.0, 0.5)).update()                      # now y is observed near 3
    to_x1, to_x2 = s.summand_messages()
    # x1 = (y + x2) / 2: mean (3 + 2) / 2, variance (0.5 + 4) / 4
    assert to_x1.mean == pytest.approx(2.5) and to_x1.variance == pytest.approx(1.125)
    # x2 = 2 x1 - y: mean 2 - 3, variance 4 * 1 + 0.5
    assert to_x2.mean == pytest.approx(-1.0) and to_x2.variance == pytest.approx(4.5)


def test_greater_than_factor_matches_the_moments_of_scipy_truncnorm():
    for mean, var in [(0.5, 2.0), (-2.0, 1.0), (-3.0, 0.25), (4.0, 9.0)]:   # t = 0.35, -2, -6, 1.3
        d = Variable("d")
        PriorFactor(d, N(mean, var)).update()
        gt = GreaterThanFactor(d)
        gt.update()
        sd = math.sqrt(var)
        truth = stats.truncnorm(a=(0 - mean) / sd, b=np.inf, loc=mean, scale=sd)
        assert d.marginal.mean == pytest.approx(truth.mean(), rel=1e-7)   # scipy loses digits at t = -60
        assert d.marginal.variance == pytest.approx(truth.var(), rel=1e-6)
        message = d.message_from(gt)                          # marginal / what d sent
        assert message.rho == pytest.approx(1 / truth.var() - 1 / var, rel=1e-6)


def test_two_candidate_update_is_the_closed_form_trueskill_update():
    # u0, u1 ~ N(0, 1), beta = 1: c^2 = 2 beta^2 + 1 + 1 = 4, t = 0,
    # mu0' = 1/c v(0), var0' = 1 - 1/c^2 w(0), v(0) = sqrt(2/pi), w(0) = 2/pi
    v0 = math.sqrt(2 / math.pi)
    posterior, sweeps = rank_update({"a": N(0, 1), "b": N(0, 1)}, [["a"], ["b"]], beta=1.0, threshold=1e-12)
    assert posterior["a"].mean == pytest.approx(v0 / 2)
    assert posterior["b"].mean == pytest.approx(-v0 / 2)
    assert posterior["a"].variance == pytest.approx(1 - (2 / math.pi) / 4)
    assert posterior["b"].variance == pytest.approx(1 - (2 / math.pi) / 4)
    assert sweeps == 2                                       # one difference: exact after one sweep


def _engine_update(priors, boards, beta, threshold, relative=False):
    n_ids = len(priors)
    tau = np.array([priors[f].tau for f in range(n_ids)])
    rho = np.array([priors[f].rho for f in range(n_ids)])
    feat_start = np.cumsum([0] + [len(b) for b in boards]).astype(np.int64)
    feat_id = np.array([f for b in boards for f in b], dtype=np.int64)
    ps, kept, rs, rid, rw, _ = engine.build_rows(np.array([0, len(boards)]), feat_start, feat_id, n_ids,
                                                 relative, False)
    ranks, sweeps = np.zeros(1, np.int64), np.zeros(1, np.int64)
    bad = engine.train_chunk(tau, rho, np.zeros(n_ids, np.int64), ps, rs, rid, rw, np.ones(1),
                             beta * beta, 1.0, threshold, 100, ranks, sweeps)
    assert bad == 0
    return tau, rho, int(sweeps[0]), [{int(rid[e]): rw[e] for e in range(rs[c], rs[c + 1])} for c in range(len(kept))]


@pytest.mark.parametrize("relative", [False, True])
def test_compiled_loop_equals_the_factor_objects(relative):
    rng = np.random.default_rng(7)
    priors = {f: Gaussian(float(t), float(r)) for f, (t, r) in
              enumerate(zip(rng.normal(size=12) * 0.5, rng.uniform(0.5, 3.0, size=12)))}
    boards = [[0, 1, 2], [0, 3], [4, 5, 1, 1], [6], [7, 8, 9, 0], [2, 10, 11]]
    tau, rho, sweeps, rows = _engine_update(priors, boards, beta=0.7, threshold=1e-9, relative=relative)
    posterior, ref_sweeps = rank_update(priors, rows, beta=0.7, threshold=1e-9)
    assert sweeps == ref_sweeps
    for f in range(12):
        g = posterior.get(f, priors[f])
        assert tau[f] == pytest.approx(g.tau, abs=1e-12) and rho[f] == pytest.approx(g.rho, abs=1e-12)


def test_the_expert_move_gains_and_the_others_lose():
    priors = {f: N(0.0, 1.0) for f in range(4)}
    tau, rho, _, _ = _engine_update(priors, [[0], [1], [2], [3]], beta=1.0, threshold=1e-6)
    means = tau / rho
    assert means[0] > 0 and np.all(means[1:] < 0)
    assert np.all(1 / rho < 1.0)                             # every belief got narrower
