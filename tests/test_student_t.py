"""Student-t distribution in jitted code (treelab._engine.student_t) against SciPy."""
import math

import numpy as np
import pytest
from scipy import special, stats

from treelab._engine.student_t import (
    betainc_regularized, betainc_regularized_pair, one_sample_t_test, student_t_cdf,
    student_t_sf, student_t_two_sided_p,
)

T_GRID = np.concatenate([np.linspace(-50.0, 50.0, 201), [-0.01, 0.003, 1.3, 1.7, 2.2]])
DF_GRID = np.concatenate([np.geomspace(1.0, 1e6, 19), [1.5, 2.5, 3.7, 9.99, 123.4, 7.5e5]])


def _sf_grid():
    got = np.array([[student_t_sf(t, df) for t in T_GRID] for df in DF_GRID])
    ref = stats.t.sf(T_GRID[None, :], DF_GRID[:, None])
    return got, ref


def test_sf_matches_scipy_absolute_and_relative():
    got, ref = _sf_grid()
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10)
    # relative accuracy in the far tail (scipy loses it only among subnormal numbers)
    tail = ref > 1e-290
    rel = np.abs(got[tail] - ref[tail]) / ref[tail]
    assert rel.max() < 1e-9, rel.max()
    assert (got[tail] > 0).all()


def test_sf_closed_forms_in_the_far_tail():
    """df = 1 (Cauchy) and df = 2 have closed forms, accurate to the last digit."""
    t = np.geomspace(1e-6, 1e6, 60)
    cauchy = np.arctan2(1.0, t) / np.pi                           # P(T > t), df = 1
    s = np.sqrt(t * t + 2.0)
    df2 = 1.0 / (s * (s + t))                                      # 0.5 (1 - t / s), df = 2
    for tt, c, d in zip(t, cauchy, df2):
        assert student_t_sf(tt, 1.0) == pytest.approx(c, rel=1e-13)
        assert student_t_sf(tt, 2.0) == pytest.approx(d, rel=1e-13)
        assert student_t_sf(-tt, 1.0) == pytest.approx(1.0 - c, rel=1e-13)


def test_symmetry_cdf_and_two_sided():
    for df in (1.0, 3.3, 40.0, 1e5):
        for t in (-30.0, -2.0, -0.1, 0.0, 0.7, 4.0, 45.0):
            sf = student_t_sf(t, df)
            assert sf + student_t_sf(-t, df) == pytest.approx(1.0, abs=1e-15)
            assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-12)
            p2 = student_t_two_sided_p(t, df)
            assert p2 == pytest.approx(min(1.0, 2 * student_t_sf(abs(t), df)), rel=1e-14)
            assert p2 == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-9, abs=1e-300)
    assert student_t_sf(0.0, 7.0) == 0.5
    assert student_t_two_sided_p(0.0, 7.0) == 1.0


def test_huge_and_infinite_df():
    for df in (1e8, 1e10, 1e12):
        for t in (-3.0, 0.5, 1.6, 2.0, 5.0):
            assert student_t_sf(t, df) == pytest.approx(stats.t.sf(t, df), rel=1e-10, abs=1e-14)
    for t in (-4.0, 0.0, 1.0, 8.0, 30.0):
        # erfc's far tail amplifies the rounding of t / sqrt(2) ~ t^2 times
        assert student_t_sf(t, math.inf) == pytest.approx(stats.norm.sf(t), rel=1e-11, abs=1e-300)
        assert student_t_two_sided_p(t, math.inf) == pytest.approx(2 * stats.norm.sf(abs(t)), rel=1e-11)


def test_invalid_and_infinite_arguments():
    assert math.isnan(student_t_sf(1.0, 0.0))
    assert math.isnan(student_t_sf(1.0, -2.0))
    assert math.isnan(student_t_sf(math.nan, 3.0))
    assert math.isnan(student_t_sf(1.0, math.nan))
    assert math.isnan(student_t_two_sided_p(1.0, 0.0))
    assert student_t_sf(math.inf, 3.0) == 0.0
    assert student_t_sf(-math.inf, 3.0) == 1.0
    assert student_t_two_sided_p(-math.inf, 3.0) == 0.0
    assert student_t_sf(1e300, 5.0) == 0.0  # no overflow in t^2
    assert student_t_sf(-1e300, 5.0) == 1.0


def test_betainc_matches_scipy():
    rng = np.random.default_rng(0)
    a = 10 ** rng.uniform(-2, 4, 400)
    b = 10 ** rng.uniform(-2, 4, 400)
    x = rng.uniform(size=400)
    got = np.array([betainc_regularized(*abx) for abx in zip(a, b, x)])
    ref = special.betainc(a, b, x)
    # scipy itself loses relative accuracy just above underflow (mpmath agrees with us there)
    big = ref > 1e-250
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-10, atol=0)
    np.testing.assert_allclose(got[~big], ref[~big], rtol=1e-6, atol=1e-300)
    comp = np.array([betainc_regularized_pair(*abx)[1] for abx in zip(a, b, x)])
    np.testing.assert_allclose(comp, special.betaincc(a, b, x), rtol=1e-9, atol=1e-14)


def test_betainc_special_values():
    assert betainc_regularized(2.0, 3.0, 0.0) == 0.0
    assert betainc_regularized(2.0, 3.0, 1.0) == 1.0
    # I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b
    for x in (1e-12, 0.1, 0.5, 0.9):
        assert betainc_regularized(1.0, 1.0, x) == pytest.approx(x, rel=1e-14)
        assert betainc_regularized(3.5, 1.0, x) == pytest.approx(x ** 3.5, rel=1e-13)
        assert betainc_regularized(1.0, 2.5, x) == pytest.approx(-np.expm1(2.5 * np.log1p(-x)),
                                                                 rel=1e-13)
    for bad in ((0.0, 1.0, 0.5), (1.0, -1.0, 0.5), (1.0, 1.0, 1.5), (1.0, 1.0, math.nan)):
        assert math.isnan(betainc_regularized(*bad))


def test_one_sample_t_test_matches_scipy():
    rng = np.random.default_rng(1)
    for n, loc in ((2, 0.3), (5, 0.0), (30, 0.4), (200, -0.05), (1000, 0.1)):
        x = rng.normal(loc, 1.0, n)
        p = one_sample_t_test(x.mean(), x.var(ddof=1), float(n))
        assert p == pytest.approx(stats.ttest_1samp(x, 0.0).pvalue, rel=1e-9, abs=1e-300)


def test_one_sample_t_test_degenerate_cases():
    assert one_sample_t_test(1.0, 2.0, 1.0) == 1.0        # n < 2: no variance estimate
    assert one_sample_t_test(1.0, 2.0, 0.0) == 1.0
    assert one_sample_t_test(0.5, 0.0, 10.0) == 0.0       # constant non-zero sample
    assert one_sample_t_test(0.5, -1e-18, 10.0) == 0.0    # rounding below zero
    assert one_sample_t_test(0.0, 0.0, 10.0) == 1.0       # constant zero sample
    assert one_sample_t_test(0.5, math.inf, 10.0) == 1.0
    assert one_sample_t_test(math.nan, 1.0, 10.0) == 1.0
    assert one_sample_t_test(0.5, math.nan, 10.0) == 1.0
    assert one_sample_t_test(0.0, 1.0, 10.0) == 1.0
    # equals the F(1, n - 1) test of the reference SGT implementation
    mean, var, n = 0.02, 0.5, 400.0
    f = n * mean ** 2 / var
    assert one_sample_t_test(mean, var, n) == pytest.approx(stats.f.sf(f, 1, n - 1), rel=1e-10)
