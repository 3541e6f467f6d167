"""Gradient/Hessian moments (treelab._engine.moments) against NumPy references."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from treelab._engine import moments as mo
from treelab._engine.moments import (
    C_GH, M2_G, M2_H, MEAN_G, MEAN_H, N, N_MOMENTS,
    combine_mean_var, moments_covariance, moments_from_arrays, moments_merge, moments_new,
    moments_reset, moments_subtract, moments_update, moments_update_weighted,
    moments_variance_g, moments_variance_h, sgt_delta_prediction, sgt_leaf_loss_stats,
    sgt_leaf_split_stats, sgt_leaf_value, sgt_loss_mean, sgt_loss_variance,
)


def _ref(g, h):
    """Independent reference: (n, mean_g, mean_h, var_g, var_h, cov) with ddof=1."""
    return (len(g), np.mean(g), np.mean(h), np.var(g, ddof=1), np.var(h, ddof=1),
            np.cov(g, h, ddof=1)[0, 1])


def _check(m, g, h, rtol=1e-10, atol=1e-10):
    n, mg, mh, vg, vh, c = _ref(g, h)
    assert m[N] == n
    np.testing.assert_allclose(
        [m[MEAN_G], m[MEAN_H], moments_variance_g(m), moments_variance_h(m), moments_covariance(m)],
        [mg, mh, vg, vh, c], rtol=rtol, atol=atol)


def test_layout_constants():
    assert (N, MEAN_G, MEAN_H, M2_G, M2_H, C_GH) == tuple(range(6))
    assert N_MOMENTS == 6
    assert moments_new(3, 2).shape == (3, 2, N_MOMENTS)
    assert not moments_new(4).any()


def test_welford_update_matches_numpy():
    rng = np.random.default_rng(0)
    g = rng.normal(3.0, 2.0, 257)
    h = 0.5 * g + rng.uniform(0.0, 1.0, 257)
    m = np.zeros(N_MOMENTS)
    for gi, hi in zip(g, h):
        moments_update(m, gi, hi)
    _check(m, g, h)
    _check(moments_from_arrays(g, h), g, h)


def test_update_is_stable_with_large_offset():
    # naive sum-of-squares would lose all digits here; the deviations themselves
    # carry ~1e9 * eps absolute error, hence the absolute tolerance
    rng = np.random.default_rng(1)
    g = 1e9 + rng.normal(0, 1, 500)
    h = -1e9 + rng.normal(0, 1, 500)
    _check(moments_from_arrays(g, h), g, h, rtol=1e-7, atol=1e-6)


def test_weighted_update_equals_repeated_observations():
    rng = np.random.default_rng(2)
    g = rng.normal(size=40)
    h = rng.normal(size=40)
    w = rng.integers(1, 5, size=40)
    m = np.zeros(N_MOMENTS)
    for gi, hi, wi in zip(g, h, w):
        moments_update_weighted(m, gi, hi, float(wi))
    gr, hr = np.repeat(g, w), np.repeat(h, w)
    _check(m, gr, hr)
    # numpy's frequency-weighted covariance as a second reference
    np.testing.assert_allclose(moments_covariance(m), np.cov(g, h, fweights=w)[0, 1], rtol=1e-10)
    before = m.copy()
    moments_update_weighted(m, 5.0, 5.0, 0.0)  # zero weight: ignored
    np.testing.assert_array_equal(m, before)


def test_update_on_a_row_of_a_big_array_in_place():
    stats = moments_new(3, 4, 8)  # [leaf, feature, bin, 6]
    rng = np.random.default_rng(3)
    g = rng.normal(size=30)
    h = rng.uniform(size=30)
    for gi, hi in zip(g, h):
        moments_update(stats[1, 2, 5], gi, hi)
    _check(stats[1, 2, 5], g, h)
    stats[1, 2, 5] = 0.0
    assert not stats.any()  # nothing else was touched


def test_small_counts_and_reset():
    m = np.zeros(N_MOMENTS)
    assert moments_variance_g(m) == math.inf
    moments_update(m, 2.0, 3.0)
    assert m[MEAN_G] == 2.0 and m[MEAN_H] == 3.0
    assert moments_variance_g(m) == math.inf and moments_covariance(m) == math.inf
    assert moments_variance_g(m, 0.0) == 0.0  # ddof=0: population variance
    moments_update(m, 4.0, 1.0)
    assert moments_variance_g(m) == pytest.approx(2.0)
    assert moments_variance_h(m, 0.0) == pytest.approx(np.var([3.0, 1.0]))
    assert moments_covariance(m) == pytest.approx(np.cov([2, 4], [3, 1])[0, 1])
    moments_reset(m)
    assert not m.any()


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(2, 40), elements=finite),
       arrays(np.float64, 40, elements=finite), st.data())
def test_merge_equals_single_pass_for_any_split(g, h_all, data):
    h = h_all[:len(g)]
    k = data.draw(st.integers(0, len(g)))
    a = moments_from_arrays(g[:k], h[:k])
    b = moments_from_arrays(g[k:], h[k:])
    out = np.empty(N_MOMENTS)
    moments_merge(a, b, out)
    whole = moments_from_arrays(g, h)
    scale = 1.0 + np.abs(whole).max()
    np.testing.assert_allclose(out, whole, rtol=1e-9, atol=1e-9 * scale)
    # independent reference
    _check(out, g, h, rtol=1e-8, atol=1e-8 * scale ** 2)
    # in-place accumulation into the first operand
    moments_merge(a, b, a)
    np.testing.assert_array_equal(a, out)
    # subtraction recovers the other part
    rest = np.empty(N_MOMENTS)
    moments_subtract(whole, moments_from_arrays(g[:k], h[:k]), rest)
    np.testing.assert_allclose(rest, b, rtol=1e-6, atol=1e-6 * scale ** 2)


def test_merge_many_chunks_and_empty_operands():
    rng = np.random.default_rng(4)
    g = rng.normal(size=300)
    h = rng.exponential(size=300)
    acc = np.zeros(N_MOMENTS)
    for chunk in np.array_split(np.arange(300), 7):
        moments_merge(acc, moments_from_arrays(g[chunk], h[chunk]), acc)
    _check(acc, g, h)
    empty = np.zeros(N_MOMENTS)
    out = np.empty(N_MOMENTS)
    moments_merge(empty, acc, out)
    np.testing.assert_array_equal(out, acc)
    moments_merge(acc, empty, out)
    np.testing.assert_array_equal(out, acc)
    moments_subtract(acc, acc, out)
    assert not out.any()
    moments_subtract(acc, empty, out)
    np.testing.assert_array_equal(out, acc)


# ---------------------------------------------------------------- SGT statistics

def test_loss_change_statistics_match_per_instance_loss_changes():
    """mean/var of dL_i = g_i v + h_i v^2 / 2 computed directly (v a constant)."""
    rng = np.random.default_rng(5)
    g = rng.normal(0.7, 1.0, 200)
    h = 0.3 * g ** 2 + rng.uniform(0.1, 1.0, 200)  # correlated with g
    m = moments_from_arrays(g, h)
    lam = 0.1
    v = sgt_delta_prediction(m, lam)
    assert v == pytest.approx(-np.mean(g) / (np.mean(h) + lam))
    dl = g * v + 0.5 * h * v * v
    assert sgt_loss_mean(m, v) == pytest.approx(dl.mean(), rel=1e-12)
    assert sgt_loss_variance(m, v) == pytest.approx(np.var(dl, ddof=1), rel=1e-10)
    v2, mean, var = sgt_leaf_loss_stats(m, lam)
    assert (v2, mean, var) == (v, sgt_loss_mean(m, v), sgt_loss_variance(m, v))
    # the paper's eq. 18 written out from NumPy's estimates
    eq18 = v ** 2 * np.var(g, ddof=1) + v ** 4 / 4 * np.var(h, ddof=1) + v ** 3 * np.cov(g, h)[0, 1]
    assert var == pytest.approx(eq18, rel=1e-10)
    # with lambda = 0 the Newton step minimises the quadratic: mean = -G^2 / (2H)
    v0, mean0, _ = sgt_leaf_loss_stats(m, 0.0)
    assert mean0 == pytest.approx(-np.mean(g) ** 2 / (2 * np.mean(h)))
    assert mean0 < 0.0


def test_loss_change_known_values():
    # g = (0.5, 1, 1.5), h = 1, v = -1: mean = -1 + 0.5 = -0.5, var = Var(g) = 0.25
    m = moments_from_arrays(np.array([0.5, 1.0, 1.5]), np.ones(3))
    assert sgt_loss_mean(m, -1.0) == pytest.approx(-0.5)
    assert sgt_loss_variance(m, -1.0) == pytest.approx(0.25)


def test_leaf_value_forms_known_values():
    # g = -(1, 2, 3, 4), h = 1, lambda = 1.  Paper (eq. 13, sums): v = 10 / (1 + 4) = 2,
    # eq. (11) at v: -10 * 2 + 4 / 2 * 4 + 1 / 2 * 4 = -10 = -S_g^2 / (2 (lambda + S_h)).
    # Means (the authors' code): v = 2.5 / (1 + 1) = 1.25, no lambda / 2 v^2 term.
    g = -np.array([1.0, 2.0, 3.0, 4.0])
    m = moments_from_arrays(g, np.ones(4))
    assert sgt_leaf_value(m, 1.0, True) == pytest.approx(2.0, rel=1e-15)
    assert sgt_leaf_value(m, 1.0, False) == pytest.approx(1.25, rel=1e-15)
    v, mean, var, om = sgt_leaf_split_stats(m, 1.0, True)
    assert (v, mean, om) == pytest.approx((2.0, -3.0, 2.0), rel=1e-15)
    assert 4 * mean + om == pytest.approx(-10.0, rel=1e-15)
    assert var == pytest.approx(4.0 * np.var(g, ddof=1), rel=1e-12)      # v^2 Var(g)
    v, mean, var, om = sgt_leaf_split_stats(m, 1.0, False)
    assert (v, mean, om) == pytest.approx((1.25, -2.5 * 1.25 + 1.25 ** 2 / 2, 0.0), rel=1e-15)
    assert (v, mean, var) == sgt_leaf_loss_stats(m, 1.0)
    # lambda acts once per leaf in the paper's form: the same means over 10x the
    # instances move the leaf further (towards -G/H = 2.5), the means' form does not
    m10 = moments_from_arrays(np.tile(g, 10), np.ones(40))
    assert sgt_leaf_value(m10, 1.0, True) == pytest.approx(100.0 / 41.0, rel=1e-14)
    assert sgt_leaf_value(m10, 1.0, False) == pytest.approx(1.25, rel=1e-14)
    # empty set: no change in either form
    assert sgt_leaf_value(np.zeros(N_MOMENTS), 0.0, True) == 0.0
    assert sgt_leaf_value(np.zeros(N_MOMENTS), 0.1, True) == 0.0


def test_loss_change_edge_cases():
    m = np.zeros(N_MOMENTS)
    assert sgt_delta_prediction(m, 0.0) == 0.0          # empty, H + lambda = 0
    assert sgt_loss_variance(m, 0.5) == math.inf
    moments_update(m, 1.0, -2.0)                         # non-convex: no Newton step
    assert sgt_delta_prediction(m, 0.5) == 0.0
    assert sgt_loss_variance(m, 1.0) == math.inf         # n < 2
    moments_update(m, 1.0, -2.0)
    assert sgt_loss_variance(m, 0.0) == 0.0              # v = 0: no change, no variance


@pytest.mark.parametrize("n1,n2", [(1, 5), (5, 1), (2, 2), (30, 70), (1, 1), (0, 4)])
def test_combine_mean_var_pools_children(n1, n2):
    rng = np.random.default_rng(n1 * 100 + n2)
    x1 = rng.normal(1.0, 2.0, n1)
    x2 = rng.normal(-1.0, 0.5, n2)
    v1 = np.var(x1, ddof=1) if n1 > 1 else math.inf
    v2 = np.var(x2, ddof=1) if n2 > 1 else math.inf
    m1 = x1.mean() if n1 else 0.0
    n, mean, var = combine_mean_var(float(n1), m1, v1, float(n2), x2.mean(), v2)
    both = np.concatenate([x1, x2])
    assert n == len(both)
    assert mean == pytest.approx(both.mean())
    if len(both) > 1:
        assert var == pytest.approx(np.var(both, ddof=1))
    else:
        assert var == math.inf


def test_module_exports():
    for name in mo.__all__:
        assert hasattr(mo, name)
