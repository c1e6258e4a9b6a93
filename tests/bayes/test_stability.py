"""Training never produces NaN or infinities, even when the expert's move was rated far below the others."""
import math

import numpy as np
import pytest

from plyground.plugins.bayes import engine
from plyground.plugins.bayes.gaussian import Gaussian
from plyground.plugins.bayes.factors import rank_update


def _one_position(tau, rho, keys, beta, repeats=1):
    """Train ``repeats`` copies of one urgency position (expert = keys[0])."""
    n = len(keys)
    pos_start = np.arange(0, n * repeats + 1, n, dtype=np.int64)
    row_start = np.arange(n * repeats + 1, dtype=np.int64)
    row_id = np.tile(np.asarray(keys, dtype=np.int64), repeats)
    row_w = np.ones(n * repeats)
    ranks, sweeps = np.zeros(repeats, np.int64), np.zeros(repeats, np.int64)
    bad = engine.train_chunk(tau, rho, np.zeros(len(tau), np.int64), pos_start, row_start, row_id, row_w,
                             np.ones(repeats), beta * beta, 1.0, 1e-6, 200, ranks, sweeps)
    return bad, ranks, sweeps


def test_the_naive_formula_breaks_where_training_needs_it():
    from scipy import stats
    with np.errstate(invalid="ignore"):
        assert math.isnan(stats.norm.pdf(-40.0) / stats.norm.cdf(-40.0))     # 0 / 0


@pytest.mark.parametrize("gap", [40.0, 1e3])
def test_an_expert_move_believed_far_worse_gives_a_finite_update(gap):
    # expert's key at -gap/2, the other at +gap/2, both nearly certain; beta small: t is about -gap / 0.14
    tau = np.array([-gap / 2 * 1e4, gap / 2 * 1e4])
    rho = np.array([1e4, 1e4])
    bad, ranks, _ = _one_position(tau, rho, [0, 1], beta=0.1)
    assert bad == 0 and ranks[0] == 2
    assert np.all(np.isfinite(tau)) and np.all(np.isfinite(rho)) and np.all(rho > 0)
    means = tau / rho
    assert means[0] > -gap / 2 and means[1] < gap / 2       # moved the right way, by a finite amount
    # the same update from the reference factor objects
    posterior, _ = rank_update({0: Gaussian(-gap / 2 * 1e4, 1e4), 1: Gaussian(gap / 2 * 1e4, 1e4)},
                               [[0], [1]], beta=0.1, threshold=1e-6, max_iterations=200)
    assert posterior[0].mean == pytest.approx(means[0], rel=1e-9)
    assert posterior[1].variance == pytest.approx(1 / rho[1], rel=1e-9)


def test_thousands_of_blunders_against_a_learned_ranking_stay_finite():
    tau, rho = np.zeros(6), np.zeros(6)
    # learn firmly that key 1 beats everything, with a very small beta...
    _one_position(tau, rho, [1, 0, 2, 3, 4, 5], beta=0.01, repeats=3000)
    # ...then watch the expert prefer key 0 thousands of times
    bad, ranks, sweeps = _one_position(tau, rho, [0, 1, 2, 3, 4, 5], beta=0.01, repeats=3000)
    assert bad == 0
    assert np.all(np.isfinite(tau)) and np.all(np.isfinite(rho)) and np.all(rho > 0)
    assert ranks[0] > 1 and ranks[-1] == 1                   # it changes its mind in the end
    assert sweeps.max() < 200
