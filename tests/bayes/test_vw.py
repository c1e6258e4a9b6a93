"""The v/w functions of the greater-than factor: exact where scipy is exact, finite and asymptotically right far out."""
import math

import numpy as np
import pytest
from scipy import stats

from plyground.plugins.bayes.vw import CF_THRESHOLD, truncate_positive, v, vw, w


@pytest.mark.parametrize("t", [-2.9, -1.5, -0.3, 0.0, 0.4, 1.7, 3.0, 6.0])
def test_v_and_w_match_scipy_in_the_ordinary_range(t):
    pdf, cdf = stats.norm.pdf(t), stats.norm.cdf(t)
    assert v(t) == pytest.approx(pdf / cdf, rel=1e-12)
    assert w(t) == pytest.approx(pdf / cdf * (pdf / cdf + t), rel=1e-11)


@pytest.mark.parametrize("t", [-35.0, -8.0, -3.5, -1.0, 0.0, 2.0, 5.0])
def test_v_and_w_are_the_moments_of_a_truncated_normal(t):
    # N(0, 1) conditioned on x > -t has mean v(t) and variance 1 - w(t)
    truncated = stats.truncnorm(a=-t, b=np.inf)
    vv, ww, one_minus_w = vw(t)
    assert vv == pytest.approx(truncated.mean(), rel=1e-9)
    assert one_minus_w == pytest.approx(truncated.var(), rel=1e-6)
    assert ww == pytest.approx(1.0 - truncated.var(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("t", [-40.0, -100.0, -1e3, -1e6, -1e12])
def test_far_below_zero_v_and_w_are_finite_and_follow_the_asymptotics(t):
    vv, ww, one_minus_w = vw(t)
    assert all(math.isfinite(x) for x in (vv, ww, one_minus_w))
    if t >= -1e3:   # log-space reference v = exp(log N(t) - log Phi(t)); scipy's log Phi is exact this far
        assert vv == pytest.approx(math.exp(stats.norm.logpdf(t) - stats.norm.logcdf(t)), rel=1e-10)
    # v(t) ~ -t - 1/t + 2/t^3,  1 - w(t) ~ 1/t^2 - 6/t^4; the next terms are O(t^-4) relative
    assert vv == pytest.approx(-t - 1 / t + 2 / t ** 3, rel=max(1e-14, 20 / t ** 4))
    assert one_minus_w == pytest.approx(1 / t ** 2 - 6 / t ** 4, rel=max(1e-14, 100 / t ** 4))
    assert 0.0 < one_minus_w < 1.0 and ww <= 1.0


def test_far_below_zero_matches_high_precision_arithmetic():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    for t in (-40.0, -1e3):
        T = mpmath.mpf(t)
        ref_v = mpmath.npdf(T) / mpmath.ncdf(T)
        ref_omw = 1 - ref_v * (ref_v + T)
        vv, _, one_minus_w = vw(t)
        assert vv == pytest.approx(float(ref_v), rel=1e-14)
        assert one_minus_w == pytest.approx(float(ref_omw), rel=1e-12)


def test_the_two_methods_agree_at_the_switch():
    below, above = vw(np.nextafter(CF_THRESHOLD, -np.inf)), vw(CF_THRESHOLD)
    for a, b in zip(below, above):
        assert a == pytest.approx(b, rel=1e-12)


def test_no_nan_or_infinity_anywhere():
    t = np.concatenate([-np.logspace(-3, 12, 400), np.linspace(-10, 40, 500), np.logspace(-3, 6, 100)])
    vv, ww, one_minus_w = vw(t)
    assert vv.shape == t.shape
    assert np.all(np.isfinite(vv)) and np.all(np.isfinite(ww)) and np.all(np.isfinite(one_minus_w))
    assert np.all(vv >= 0) and np.all((ww >= 0) & (ww <= 1)) and np.all((one_minus_w > 0) & (one_minus_w <= 1))
    # v is decreasing in t, 1 - w increasing
    order = np.argsort(t)
    assert np.all(np.diff(vv[order]) <= 1e-12)
    assert np.all(np.diff(one_minus_w[order]) >= -1e-12)


def test_truncation_of_a_gaussian_far_on_the_wrong_side():
    mean, var = truncate_positive(-400.0, 100.0)       # t = -40
    assert math.isfinite(mean) and math.isfinite(var)
    assert 0 < mean < 0.3 and 0 < var < 0.07             # all the mass just above zero
    mean, var = truncate_positive(3.0, 1e-6)             # far on the right side: unchanged
    assert mean == pytest.approx(3.0) and var == pytest.approx(1e-6)
