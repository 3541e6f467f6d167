"""Confidence radii and split-decision rules (treelab.split_criteria.bounds)."""
import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treelab.split_criteria import GINI, ENTROPY
from treelab.split_criteria.bounds import (
    CTX_SIZE, CTreeRule, DecisionRule, HoeffdingRule, McDiarmidRule, RADIUS_SIG,
    compile_radius, criterion_code, ctree_delta_schedule, ctree_entropy_radius,
    ctree_gini_radius, ctree_km_radius, ctree_practical_radius, ctree_radius_kernel,
    decide_split, get_rule, hoeffding_bound, hoeffding_n_required, hoeffding_range,
    make_context, mcdiarmid_entropy_bound, mcdiarmid_entropy_constant, mcdiarmid_gini_bound,
)

LN_1E7 = 16.11809565095832  # ln(1/1e-7) = 7 ln 10


# --------------------------------------------------------------------------
# hand-computed values
# --------------------------------------------------------------------------
def test_hoeffding_hand_values():
    # R=1, delta=1e-7, n=200: ln(1e7)/(2*200) = 16.1180957/400 = 0.0402952391; sqrt = 0.2007367
    assert hoeffding_bound(1.0, 1e-7, 200) == pytest.approx(0.20073674085078647, rel=1e-12)
    # R = log2(4) = 2 doubles it
    assert hoeffding_bound(2.0, 1e-7, 200) == pytest.approx(0.40147348170157293, rel=1e-12)
    # R=1, delta=1e-6, n=1000: ln(1e6)=13.8155106, /2000 = 0.00690776; sqrt = 0.0831129
    assert hoeffding_bound(1.0, 1e-6, 1000) == pytest.approx(0.0831129068134555, rel=1e-12)
    # inverse: n = R^2 ln(1/delta) / (2 eps^2) = 16.1180957 / 0.005 = 3223.619
    assert hoeffding_n_required(1.0, 1e-7, 0.05) == pytest.approx(3223.619130191664, rel=1e-12)
    assert LN_1E7 == pytest.approx(math.log(1e7))


def test_hoeffding_edge_cases():
    assert hoeffding_bound(1.0, 1e-7, 0) == math.inf
    assert hoeffding_bound(1.0, 0.0, 100) == math.inf
    assert hoeffding_bound(1.0, 1.0, 100) == 0.0


def test_hoeffding_ranges():
    e, g, km, err, gr = (criterion_code(c) for c in
                         ("entropy", "gini", "kearns_mansour", "classification_error", "gain_ratio"))
    assert hoeffding_range(e, 2) == 1.0
    assert hoeffding_range(e, 8) == pytest.approx(3.0)
    assert hoeffding_range(g, 2) == 1.0 and hoeffding_range(g, 5) == 1.0
    assert hoeffding_range(km, 2) == 1.0
    assert hoeffding_range(km, 5) == pytest.approx(2.0)  # sqrt(k - 1)
    assert hoeffding_range(err, 2) == 0.5
    assert hoeffding_range(err, 4) == 0.75  # 1 - 1/k
    assert hoeffding_range(gr, 3) == 1.0
    assert math.isnan(hoeffding_range(criterion_code("squared_error"), 2))
    # criterion objects resolve by name
    assert criterion_code(GINI) == g and criterion_code(ENTROPY) == e


def test_mcdiarmid_hand_values():
    # Formulas as recalled (the paper's theorems could not be retrieved; see bounds.py).
    # Gini (Rutkowski et al. 2013, Thm 2): 8 sqrt(ln(1e7)/400) = 8 * 0.2007367 = 1.6058939
    assert mcdiarmid_gini_bound(1e-7, 200) == pytest.approx(1.6058939268062917, rel=1e-12)
    # information gain (Thm 1), K=2, n=1000:
    # C = 6 (2 log2(1000 e) + log2(2000)) + 2 log2 2
    #   = 6 (2 * 11.408524 + 10.965784) + 2 = 6 * 33.782833 + 2 = 204.696458
    assert mcdiarmid_entropy_constant(2, 1000) == pytest.approx(204.69645761458514, rel=1e-12)
    # eps = 204.696458 * sqrt(ln(1e7)/2000) = 204.696458 * 0.0897722 = 18.376051
    assert mcdiarmid_entropy_bound(2, 1e-7, 1000) == pytest.approx(18.37605125547076, rel=1e-12)
    # K=3, n=500, delta=0.01: C = 6 (3 log2(500 e) + log2(1000)) + 2 log2 3 = 250.317259
    assert mcdiarmid_entropy_constant(3, 500) == pytest.approx(250.31725856933377, rel=1e-12)
    assert mcdiarmid_entropy_bound(3, 0.01, 500) == pytest.approx(16.986880673061258, rel=1e-12)


def test_ctree_hand_values():
    # reconstructed radii (bounds.py: the paper's eqs. 4-6 could not be retrieved)
    m, d = 1000, 0.05
    # entropy: [3 ln(1000) sqrt(2 ln(40)/1000) + ln(1 + 3/1000)] / ln 2
    #        = [3 * 6.907755 * 0.0858903 + 0.0029955] / 0.693147 = 2.572321 bits
    assert ctree_entropy_radius(d, m) == pytest.approx(2.5723212942171187, rel=1e-12)
    # Gini: 2 sqrt(2 ln(40)/1000) + 2 (1 - 1/2)/1000 = 0.1717878 + 0.001 = 0.1727878
    assert ctree_gini_radius(d, m) == pytest.approx(0.17278776333869503, rel=1e-12)
    # KM (2 classes, binary split): (4 + 2 sqrt 2) sqrt(ln(12/0.05)/1000)
    #    = 6.828427 * sqrt(5.480639/1000) = 6.828427 * 0.0740314 = 0.5055176
    assert ctree_km_radius(d, m) == pytest.approx(0.5055175926651512, rel=1e-12)
    # KM, 3 classes: (1 + sqrt 2) sqrt 3 (1 + sqrt 2) sqrt(ln(2*18/0.05)/1000)
    assert ctree_km_radius(d, m, 3, 2) == pytest.approx(0.8188422304734594, rel=1e-12)
    # Theorem 4 schedule: 0.05 / ((2+1)(2+2) * 1000 * 10 * 100) = 0.05 / 1.2e7
    assert ctree_delta_schedule(0.05, 2, 1000, 10, 100) == pytest.approx(4.166666666666667e-09,
                                                                         rel=1e-12)
    # eq. 8: 0.5 sqrt(ln(100^2 * 2^2 * 1000 * 10)/100) = 0.5 sqrt(19.806975/100) = 0.2225251
    assert ctree_practical_radius(0.5, 100, 2, 1000, 10) == pytest.approx(0.22252513961950598,
                                                                          rel=1e-12)
    # root (h = 0) is treated as h = 1: 0.5 sqrt(ln(100^2 * 1000 * 10)/100)
    assert ctree_practical_radius(0.5, 100, 0, 1000, 10) == pytest.approx(0.21459660262893474,
                                                                          rel=1e-12)
    assert ctree_practical_radius(0.5, 100, 0, 1000, 10) == ctree_practical_radius(0.5, 100, 1, 1000, 10)


def test_ctree_hand_values_second_point():
    """A second (m, delta, k, v, h, t, d) point for every C-Tree formula, computed by hand.

    The radii are the reconstructions documented in bounds.py (the paper's
    eqs. 4-6 could not be retrieved); eq. 8 and the Theorem 4 schedule are
    the expressions of the project design.
    """
    m, d = 500, 1e-3
    # entropy, k=3 classes, v=4 branches:
    #   [3 ln(500) sqrt(2 ln(2/0.001)/500) + ln(1 + (3*4 - 1)/500)] / ln 2
    #   3 ln 500 = 18.6438243, sqrt(2 * 7.6009025 / 500) = 0.1743663, ln(1.022) = 0.0217615
    #   -> (3.2508547 + 0.0217615) / 0.6931472 = 4.7213873 bits
    assert ctree_entropy_radius(d, m, 3, 4) == pytest.approx(
        (3 * math.log(500) * math.sqrt(2 * math.log(2000) / 500) + math.log(1.022)) / math.log(2),
        rel=1e-12)
    assert ctree_entropy_radius(d, m, 3, 4) == pytest.approx(4.721387344850833, rel=1e-12)
    # Gini, k=3, v=4: 2 sqrt(2 ln(2000)/500) + 4 (1 - 1/3)/500 = 0.3487326 + 0.0053333 = 0.3540660
    assert ctree_gini_radius(d, m, 3, 4) == pytest.approx(
        2 * math.sqrt(2 * math.log(2000) / 500) + 4 * (2 / 3) / 500, rel=1e-12)
    assert ctree_gini_radius(d, m, 3, 4) == pytest.approx(0.3540659520438195, rel=1e-12)
    # Kearns-Mansour, k=2, v=3: N = 2 (1 + 3) = 8 frequencies,
    #   (1 + sqrt 1) sqrt 2 (1 + sqrt 3) sqrt(ln(2*8/0.001)/500)
    #   = 7.7274066 * sqrt(9.6803440/500) = 7.7274066 * 0.1391427 = 1.0752121
    assert ctree_km_radius(d, m, 2, 3) == pytest.approx(
        2 * math.sqrt(2) * (1 + math.sqrt(3)) * math.sqrt(math.log(16000) / 500), rel=1e-12)
    assert ctree_km_radius(d, m, 2, 3) == pytest.approx(1.0752121375401942, rel=1e-12)
    # Theorem 4 schedule, delta=1e-7, h=5, t=1e6, d=50, m=2000:
    #   1e-7 / (6 * 7 * 1e6 * 50 * 2000) = 1e-7 / 4.2e12 = 2.3809524e-20
    assert ctree_delta_schedule(1e-7, 5, 1e6, 50, 2000) == pytest.approx(2.380952380952381e-20,
                                                                          rel=1e-12)
    # root, single attribute, first example: delta / (1 * 2 * 1 * 1 * 1)
    assert ctree_delta_schedule(1e-7, 0, 1, 1, 1) == pytest.approx(5e-8, rel=1e-12)
    # eq. 8, c=0.1, m=2000, h=5, t=1e6, d=50:
    #   ln(2000^2 * 5^2 * 1e6 * 50) = ln(5e15) = 36.1482143
    #   0.1 sqrt(36.1482143 / 2000) = 0.1 * 0.1344400 = 0.0134440
    assert ctree_practical_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(
        0.1 * math.sqrt(math.log(5e15) / 2000), rel=1e-12)
    assert ctree_practical_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(0.013443997602525968,
                                                                         rel=1e-12)
    # the kernel with the schedule, Gini, delta=0.01, h=3, t=5000, d=7, n=400 (k=2, v=2):
    #   delta' = 0.01 / (4 * 5 * 5000 * 7 * 400) = 3.5714286e-11, ln(2/delta') = 24.7486175
    #   eps = 2 sqrt(2 * 24.7486175 / 400) + 2 (1 - 1/2)/400 = 0.7035427 + 0.0025 = 0.7060427
    ctx = make_context(depth=3, t=5000, n_features=7)
    eps = ctree_radius_kernel(CTreeRule(criterion="gini", delta=0.01).radius_params, 400.0, ctx)
    assert eps == pytest.approx(0.7060427140932035, rel=1e-12)
    assert eps == pytest.approx(
        2 * math.sqrt(2 * math.log(2 / (0.01 / 2.8e8)) / 400) + 1 / 400, rel=1e-12)


def test_ctree_edge_cases():
    for f in (ctree_entropy_radius, ctree_gini_radius, ctree_km_radius):
        assert f(0.05, 0) == math.inf
        assert f(0.0, 100) == math.inf
        assert math.isfinite(f(0.05, 1))
    assert ctree_practical_radius(1.0, 0, 1, 1, 1) == math.inf
    assert ctree_practical_radius(1.0, 1, 1, 1, 1) == 0.0  # ln(1) = 0


# --------------------------------------------------------------------------
# monotonicity
# --------------------------------------------------------------------------
ns = st.integers(min_value=2, max_value=10**7)
deltas = st.floats(min_value=1e-12, max_value=0.5)


@settings(max_examples=200, deadline=None)
@given(n=ns, delta=deltas)
def test_radii_decrease_with_n_and_increase_as_delta_decreases(n, delta):
    radii = [
        lambda n, d: hoeffding_bound(1.0, d, n),
        lambda n, d: mcdiarmid_gini_bound(d, n),
        lambda n, d: ctree_gini_radius(d, n),
        lambda n, d: ctree_km_radius(d, n),
        lambda n, d: ctree_practical_radius(1.0, n, 3, 10**6, 10),
    ]
    for f in radii:
        assert f(2 * n, delta) < f(n, delta)
        assert f(n, delta / 10) >= f(n, delta)
    for f in radii[:4]:
        assert f(n, delta / 10) > f(n, delta)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=20, max_value=10**7), delta=deltas)
def test_entropy_radii_monotone_for_large_n(n, delta):
    # the ln(n) factors make these decrease only once n is past a few units
    for f in (lambda n, d: ctree_entropy_radius(d, n),
              lambda n, d: mcdiarmid_entropy_bound(2, d, n)):
        assert f(2 * n, delta) < f(n, delta)
        assert f(n, delta / 10) > f(n, delta)


def test_schedule_properties():
    base = ctree_delta_schedule(0.1, 0, 1, 1, 1)
    assert base == pytest.approx(0.1 / 2)
    assert ctree_delta_schedule(0.1, 1, 1, 1, 1) < base
    assert ctree_delta_schedule(0.1, 0, 2, 1, 1) < base
    assert ctree_delta_schedule(0.1, 0, 1, 2, 1) < base
    assert ctree_delta_schedule(0.1, 0, 1, 1, 2) < base
    # sum over depths of 1/((h+1)(h+2)) telescopes to 1
    assert sum(ctree_delta_schedule(1.0, h, 1, 1, 1) for h in range(100000)) == pytest.approx(
        1.0, abs=1e-4)


def test_practical_radius_grows_with_depth_time_features():
    r = ctree_practical_radius(1.0, 500, 2, 1000, 5)
    assert ctree_practical_radius(1.0, 500, 4, 1000, 5) > r
    assert ctree_practical_radius(1.0, 500, 2, 10**6, 5) > r
    assert ctree_practical_radius(1.0, 500, 2, 1000, 50) > r
    assert ctree_practical_radius(2.0, 500, 2, 1000, 5) == pytest.approx(2 * r)


# --------------------------------------------------------------------------
# checks of the derivations behind the reconstructed C-Tree radii
# --------------------------------------------------------------------------
def _counts(x, y, v, k):
    c = np.zeros((v, k))
    np.add.at(c, (x, y), 1.0)
    return c


def _plugin_mi_nats(c):
    m = c.sum()

    def h(p):
        p = p[p > 0] / m
        return -(p * np.log(p)).sum()
    return h(c.sum(0)) + h(c.sum(1)) - h(c.ravel())


def _plugin_gini_gain(c):
    m = c.sum()
    g = -((c.sum(0) / m) ** 2).sum()
    nk = c.sum(1)
    for k in range(c.shape[0]):
        if nk[k] > 0:
            g += (c[k] ** 2).sum() / (m * nk[k])
    return g


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 13, 20])
def test_bounded_difference_constants(m):
    """Replacing one example moves the plug-in MI by <= 6 max(ln m, 1)/m and Gini gain by <= 4/m."""
    v, k = 2, 2
    cells = list(itertools.product(range(v), range(k)))
    worst_mi = worst_gini = 0.0
    for sample in itertools.combinations_with_replacement(cells, m):  # every count table
        c = np.zeros((v, k))
        for cell in sample:
            c[cell] += 1
        mi, gg = _plugin_mi_nats(c), _plugin_gini_gain(c)
        for a in cells:
            if c[a] == 0:
                continue
            for b in cells:
                c2 = c.copy()
                c2[a] -= 1
                c2[b] += 1
                worst_mi = max(worst_mi, abs(_plugin_mi_nats(c2) - mi))
                worst_gini = max(worst_gini, abs(_plugin_gini_gain(c2) - gg))
    assert worst_mi <= 6 * max(math.log(m), 1.0) / m + 1e-12
    assert worst_gini <= 4.0 / m + 1e-12


def test_ctree_radii_cover_the_estimation_error():
    """Monte Carlo: |G_hat - G| > eps happens at most about delta of the time."""
    rng = np.random.default_rng(0)
    # joint law of (branch, class): a clearly informative split
    p = np.array([[0.30, 0.10], [0.15, 0.45]])
    m, delta, reps = 300, 0.2, 400

    def km(c):
        m_ = c.sum()
        f = lambda r: np.sqrt((r / r.sum()) * (1 - r / r.sum())).sum() if r.sum() > 0 else 0.0
        return f(c.sum(0)) - sum(c[k].sum() / m_ * f(c[k]) for k in range(c.shape[0]))

    true = {"ent": _plugin_mi_nats(p * 1e6) / math.log(2), "gini": _plugin_gini_gain(p * 1e6),
            "km": km(p * 1e6)}
    eps = {"ent": ctree_entropy_radius(delta, m), "gini": ctree_gini_radius(delta, m),
           "km": ctree_km_radius(delta, m)}
    miss = {key: 0 for key in true}
    for _ in range(reps):
        cells = rng.choice(4, size=m, p=p.ravel())
        c = _counts(cells // 2, cells % 2, 2, 2)
        est = {"ent": _plugin_mi_nats(c) / math.log(2), "gini": _plugin_gini_gain(c), "km": km(c)}
        for key in true:
            miss[key] += abs(est[key] - true[key]) > eps[key]
    for key in true:
        assert miss[key] / reps <= delta


# --------------------------------------------------------------------------
# decision logic
# --------------------------------------------------------------------------
def test_decide_split_plain_floats():
    # VFDT: gap 0.2 > eps 0.1
    assert decide_split(0.5, 0.3, 0.1, 0.0, False)
    # C-Tree: gap 0.2 is not > 2 * 0.1
    assert not decide_split(0.5, 0.3, 0.1, 0.0, True)
    assert decide_split(0.5, 0.29, 0.1, 0.0, True)
    # gap equal to the radius: no split (strict inequality)
    assert not decide_split(0.5, 0.25, 0.25, 0.0, False)
    # tie-break: tiny gap, eps below tau -> split; eps above tau -> wait
    assert decide_split(0.5, 0.5, 0.04, 0.05, False)
    assert not decide_split(0.5, 0.5, 0.06, 0.05, False)
    # tau = 0 disables the tie-break
    assert not decide_split(0.5, 0.5, 1e-9, 0.0, False)
    # no split on undefined quantities
    assert not decide_split(0.5, 0.1, math.inf, 0.05, False)
    assert not decide_split(math.nan, 0.1, 0.01, 0.0, False)


def test_hoeffding_rule():
    rule = HoeffdingRule()  # delta=1e-7, tau=0.05, entropy, 2 classes -> R = 1
    split, eps = rule.should_split(0.30, 0.05, 200)
    assert eps == pytest.approx(0.20073674085078647)
    assert split  # gap 0.25 > 0.2007
    split, eps = rule.should_split(0.30, 0.15, 200)
    assert not split  # gap 0.15 < 0.2007 and eps > tau
    # tie-break: after n = 3224 examples eps < 0.05 (n_required = 3223.6) -> split on a tie
    assert rule.should_split(0.3, 0.3, 3223)[0] is False
    assert rule.should_split(0.3, 0.3, 3224)[0] is True
    # R = log2(k) grows with the number of classes
    assert rule.radius(200, n_classes=4) == pytest.approx(0.40147348170157293)
    assert rule.value_range_for(4) == 2.0
    # explicit range and two_eps
    r2 = HoeffdingRule(value_range=3.0, two_eps=True, tau=0.0)
    assert r2.radius(200) == pytest.approx(3 * 0.20073674085078647)
    assert not r2.should_split(1.0, 0.0, 200)[0]  # 1.0 < 2 * 0.602
    assert r2.n_required(1.0) == math.ceil(4 * 9 * LN_1E7 / 2)


def test_rule_validation():
    with pytest.raises(ValueError):
        HoeffdingRule(delta=0.0)
    with pytest.raises(ValueError):
        HoeffdingRule(delta=1.5)
    with pytest.raises(ValueError):
        HoeffdingRule(tau=-1)
    with pytest.raises(ValueError, match="value_range"):
        HoeffdingRule(criterion="squared_error")
    assert HoeffdingRule(criterion="squared_error", value_range=4.0).radius(200) == pytest.approx(
        4 * 0.20073674085078647)
    with pytest.raises(ValueError):
        McDiarmidRule(criterion="kearns_mansour")
    with pytest.raises(ValueError):
        CTreeRule(criterion="squared_error")
    CTreeRule(criterion="squared_error", c=1.0)  # the practical radius fits any merit
    with pytest.raises(ValueError):
        CTreeRule(c=-1.0)
    with pytest.raises(TypeError, match="unknown context"):
        HoeffdingRule().should_split(0.3, 0.1, 100, dept=3)


def test_mcdiarmid_rule():
    rule = McDiarmidRule()  # Gini, no tie-break
    assert rule.tau == 0.0
    split, eps = rule.should_split(0.9, 0.0, 200)
    assert eps == pytest.approx(1.6058939268062917) and not split
    assert rule.should_split(0.9, 0.0, 100000)[0]  # 8 sqrt(16.118/200000) = 0.0718
    ent = McDiarmidRule(criterion=ENTROPY, delta=1e-7)
    assert ent.radius(1000) == pytest.approx(18.37605125547076)
    assert ent.radius(1000, n_classes=3) > ent.radius(1000)


def test_ctree_rule_practical_and_theoretical():
    rule = CTreeRule(c=0.5)  # entropy, two_eps, no tie-break
    ctx = dict(depth=2, t=1000, n_features=10)
    split, eps = rule.should_split(0.5, 0.0, 100, **ctx)
    assert eps == pytest.approx(0.22252513961950598)
    assert split  # 0.5 > 2 * 0.2225
    assert not rule.should_split(0.4, 0.0, 100, **ctx)[0]  # 0.4 < 0.445
    assert CTreeRule(c=0.5, two_eps=False).should_split(0.4, 0.0, 100, **ctx)[0]
    # t defaults to n
    assert rule.radius(100) == pytest.approx(ctree_practical_radius(0.5, 100, 0, 100, 1))
    # theoretical mode with the union-bound schedule of Theorem 4
    th = CTreeRule(criterion="gini", delta=0.05)
    d_eff = ctree_delta_schedule(0.05, 2, 1000, 10, 100)
    assert th.radius(100, **ctx) == pytest.approx(ctree_gini_radius(d_eff, 100))
    assert CTreeRule(criterion="gini", delta=0.05, schedule=False).radius(100, **ctx) == \
        pytest.approx(ctree_gini_radius(0.05, 100))
    assert CTreeRule(criterion="kearns_mansour", delta=0.05).radius(100, **ctx) == \
        pytest.approx(ctree_km_radius(d_eff, 100))
    assert CTreeRule(criterion="entropy", delta=0.05).radius(100, n_classes=3, n_branches=4,
                                                              **ctx) == \
        pytest.approx(ctree_entropy_radius(d_eff, 100, 3, 4))


def test_kernels_match_rules_and_signature():
    ctx = make_context(depth=3, t=5000, n_features=7, n_classes=2, n_branches=2)
    assert ctx.shape == (CTX_SIZE,)
    rule = CTreeRule(criterion="gini", delta=0.01)
    assert ctree_radius_kernel(rule.radius_params, 400.0, ctx) == pytest.approx(
        rule.radius(400, depth=3, t=5000, n_features=7))
    for r in (HoeffdingRule(), McDiarmidRule(), CTreeRule(c=1.0), CTreeRule()):
        assert tuple(RADIUS_SIG.args) in [tuple(s) for s in r.radius_func.signatures]
        assert r.radius_params.dtype == np.float64 and r.radius_params.flags.c_contiguous


def _user_radius(params, n, ctx):
    return params[0] / math.sqrt(n)


def test_user_rule_and_pickle():
    rule = DecisionRule(_user_radius, [2.0], tau=0.05)
    split, eps = rule.should_split(0.3, 0.1, 400)
    assert eps == pytest.approx(0.1) and split
    assert DecisionRule(compile_radius(_user_radius), [2.0]).radius(100) == pytest.approx(0.2)
    for r in (rule, HoeffdingRule(delta=1e-5, tau=0.1), McDiarmidRule(criterion="entropy"),
              CTreeRule(c=0.3, two_eps=False), CTreeRule(criterion="kearns_mansour")):
        r2 = pickle.loads(pickle.dumps(r))
        assert r2 == r
        assert r2.radius(321, depth=1, t=999) == r.radius(321, depth=1, t=999)
    assert "HoeffdingRule" in repr(HoeffdingRule())


def test_get_rule():
    assert isinstance(get_rule("hoeffding", delta=1e-5), HoeffdingRule)
    assert isinstance(get_rule("mcdiarmid"), McDiarmidRule)
    assert isinstance(get_rule("ctree", c=1.0), CTreeRule)
    r = CTreeRule()
    assert get_rule(r) is r
    with pytest.raises(ValueError):
        get_rule("nope")
    with pytest.raises(TypeError):
        get_rule(3)
