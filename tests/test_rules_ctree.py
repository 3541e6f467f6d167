"""C-Tree (De Rosa & Cesa-Bianchi, IJCNN 2015): the radii of eqs. (4)-(8) by hand,
on the paper's scales and on treelab's merits, Algorithm 1's non-strict test,
the two runner-ups on a hand-built leaf, and the two-class restriction."""
import math

import numpy as np
import pandas as pd
import pytest
from numba import njit

from treelab import HoeffdingTreeClassifier, SGTClassifier
from treelab._engine.signatures import RULE_SIG
from treelab._engine.streaming import (
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MAX_BRANCHES, EV_MERIT, EV_N, EV_SECOND,
    EV_SECOND_ANY, EV_SIZE, EV_T,
)
from treelab.split_criteria import Criterion
from treelab.split_criteria.impurity import entropy, gini, kearns_mansour
from treelab.split_criteria.rules import (
    CTreeRule, as_engine_rule, ctree_delta_schedule, ctree_entropy_radius, ctree_gini_radius,
    ctree_km_radius, ctree_practical_entropy_radius, ctree_practical_radius, ctree_rule,
    paper_scale,
)

L = math.log


# --------------------------------------------------------------------------
# eqs. (4)-(6) on the paper's scales, by hand
# --------------------------------------------------------------------------
def test_eq4_entropy_by_hand():
    # m=1000, delta=0.05: ln(1000) sqrt((2/1000) ln(4/0.05)) + 2/1000
    #   = 6.9077553 * sqrt(0.002 * 4.3820266) + 0.002 = 6.9077553 * 0.0936165 + 0.002 = 0.6486800
    assert ctree_entropy_radius(0.05, 1000) == pytest.approx(
        L(1000) * math.sqrt((2 / 1000) * L(4 / 0.05)) + 2 / 1000, rel=1e-12)
    assert ctree_entropy_radius(0.05, 1000) == pytest.approx(0.648680026922111, rel=1e-12)
    # m=500, delta=1e-3: ln(500) sqrt((2/500) ln(4000)) + 2/500 = 1.1359495
    assert ctree_entropy_radius(1e-3, 500) == pytest.approx(
        L(500) * math.sqrt((2 / 500) * L(4 / 1e-3)) + 2 / 500, rel=1e-12)
    assert ctree_entropy_radius(1e-3, 500) == pytest.approx(1.135949514291043, rel=1e-12)
    # m=1: ln 1 = 0 leaves the bias 2/1
    assert ctree_entropy_radius(0.1, 1) == pytest.approx(2.0, rel=1e-12)


def test_eq5_gini_by_hand():
    # m=1000, delta=0.05: sqrt((8/1000) ln(40)) + 4 sqrt(1/1000)
    #   = sqrt(0.008 * 3.6888795) + 4 * 0.0316228 = 0.1717878 + 0.1264911 = 0.2982789
    assert ctree_gini_radius(0.05, 1000) == pytest.approx(
        math.sqrt((8 / 1000) * L(2 / 0.05)) + 4 * math.sqrt(1 / 1000), rel=1e-12)
    assert ctree_gini_radius(0.05, 1000) == pytest.approx(0.29827886974543016, rel=1e-12)
    # m=500, delta=1e-3: sqrt((8/500) ln(2000)) + 4 sqrt(1/500) = 0.3487326 + 0.1788854
    assert ctree_gini_radius(1e-3, 500) == pytest.approx(0.5276180569104694, rel=1e-12)


def test_eq6_km_by_hand():
    # m=1000, delta=0.05: 4 sqrt((1/1000) ln(8/0.05)) = 4 sqrt(0.0050752) = 4 * 0.0712403
    assert ctree_km_radius(0.05, 1000) == pytest.approx(
        4 * math.sqrt((1 / 1000) * L(8 / 0.05)), rel=1e-12)
    assert ctree_km_radius(0.05, 1000) == pytest.approx(0.28496101670884955, rel=1e-12)
    # m=500, delta=1e-3: 4 sqrt(ln(8000)/500) = 4 * 0.1340686 = 0.5362745
    assert ctree_km_radius(1e-3, 500) == pytest.approx(0.5362744616902647, rel=1e-12)


def test_multiway_extension_reduces_to_the_paper_at_two_branches():
    for d, m in ((0.05, 1000), (1e-3, 500), (0.3, 7)):
        assert ctree_entropy_radius(d, m, 2.0) == ctree_entropy_radius(d, m)
        assert ctree_gini_radius(d, m, 2.0) == ctree_gini_radius(d, m)
        assert ctree_km_radius(d, m, 2.0) == ctree_km_radius(d, m)
    # v = 3 branches (module docstring): bias (3v-2)/(2m), 2v/sqrt(m), 2v sqrt(ln(4v/delta)/m)
    assert ctree_entropy_radius(0.05, 1000, 3.0) == pytest.approx(
        L(1000) * math.sqrt((2 / 1000) * L(80)) + 7 / 2000, rel=1e-12)
    assert ctree_gini_radius(0.05, 1000, 3.0) == pytest.approx(
        math.sqrt((8 / 1000) * L(40)) + 6 / math.sqrt(1000), rel=1e-12)
    assert ctree_km_radius(0.05, 1000, 3.0) == pytest.approx(
        6 * math.sqrt(L(12 / 0.05) / 1000), rel=1e-12)


def test_edge_cases():
    for f in (ctree_entropy_radius, ctree_gini_radius, ctree_km_radius):
        assert f(0.05, 0) == math.inf
        assert f(0.0, 100) == math.inf
        assert math.isfinite(f(0.05, 1))
    assert ctree_practical_radius(1.0, 0, 1, 1, 1) == math.inf
    assert ctree_practical_radius(1.0, 1, 1, 1, 1) == 0.0  # ln(1) = 0


# --------------------------------------------------------------------------
# eq. (7) and eq. (8), by hand
# --------------------------------------------------------------------------
def test_eq7_schedule_by_hand():
    # 0.05 / ((2+1)(2+2) * 1000 * 10 * 100) = 0.05 / 1.2e7
    assert ctree_delta_schedule(0.05, 2, 1000, 10, 100) == pytest.approx(4.166666666666667e-09,
                                                                         rel=1e-12)
    # delta=1e-7, h=5, t=1e6, d=50, m=2000: 1e-7 / (6 * 7 * 1e6 * 50 * 2000) = 2.3809524e-20
    assert ctree_delta_schedule(1e-7, 5, 1e6, 50, 2000) == pytest.approx(2.380952380952381e-20,
                                                                          rel=1e-12)
    # root, single attribute, first example: delta / (1 * 2 * 1 * 1 * 1)
    assert ctree_delta_schedule(1e-7, 0, 1, 1, 1) == pytest.approx(5e-8, rel=1e-12)
    # sum over depths of 1/((h+1)(h+2)) telescopes to 1
    assert sum(ctree_delta_schedule(1.0, h, 1, 1, 1) for h in range(100000)) == pytest.approx(
        1.0, abs=1e-4)


def test_eq8_practical_by_hand():
    # 0.5 sqrt(ln(100^2 * 2^2 * 1000 * 10) / 100) = 0.5 sqrt(19.806975 / 100) = 0.2225251
    assert ctree_practical_radius(0.5, 100, 2, 1000, 10) == pytest.approx(
        0.5 * math.sqrt(L(100 ** 2 * 2 ** 2 * 1000 * 10) / 100), rel=1e-12)
    assert ctree_practical_radius(0.5, 100, 2, 1000, 10) == pytest.approx(0.22252513961950598,
                                                                          rel=1e-12)
    # the documented choice at the root: h = 0 counts as h = 1
    assert ctree_practical_radius(0.5, 100, 0, 1000, 10) == pytest.approx(
        0.5 * math.sqrt(L(100 ** 2 * 1000 * 10) / 100), rel=1e-12)
    assert ctree_practical_radius(0.5, 100, 0, 1000, 10) == pytest.approx(0.21459660262893474,
                                                                          rel=1e-12)
    assert ctree_practical_radius(0.5, 100, 0, 1000, 10) == \
        ctree_practical_radius(0.5, 100, 1, 1000, 10)
    # c=0.1, m=2000, h=5, t=1e6, d=50: ln(2000^2 * 25 * 1e6 * 50) = ln(5e15) = 36.1482143
    assert ctree_practical_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(
        0.1 * math.sqrt(L(5e15) / 2000), rel=1e-12)
    assert ctree_practical_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(0.013443997602525968,
                                                                         rel=1e-12)
    # entropy: the extra ln m factor (Sec. VI): 0.1 ln(2000) sqrt(ln(5e15)/2000) = 0.1021865
    assert ctree_practical_entropy_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(
        0.1 * L(2000) * math.sqrt(L(5e15) / 2000), rel=1e-12)
    assert ctree_practical_entropy_radius(0.1, 2000, 5, 1e6, 50) == pytest.approx(
        0.1021865144431175, rel=1e-12)
    r = ctree_practical_radius(1.0, 500, 2, 1000, 5)
    assert ctree_practical_radius(1.0, 500, 4, 1000, 5) > r
    assert ctree_practical_radius(1.0, 500, 2, 10 ** 6, 5) > r
    assert ctree_practical_radius(1.0, 500, 2, 1000, 50) > r
    assert ctree_practical_radius(2.0, 500, 2, 1000, 5) == pytest.approx(2 * r)


# --------------------------------------------------------------------------
# the scales: paper index -> treelab merit
# --------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.5, 0.1, 0.37, 0.93])
def test_scale_factors_relate_the_indices(p):
    counts = np.array([100 * (1 - p), 100 * p])
    h_half = -(p / 2) * L(p) - ((1 - p) / 2) * L(1 - p)       # H_1/2, Sec. III
    j = 2 * p * (1 - p)                                      # Gini J
    q = math.sqrt(p * (1 - p))                               # Kearns-Mansour Q
    assert entropy(counts) == pytest.approx(paper_scale("entropy") * h_half, rel=1e-12)
    assert paper_scale("entropy") == pytest.approx(2 / L(2))
    assert gini(counts) == pytest.approx(paper_scale("gini") * j, rel=1e-12)
    assert kearns_mansour(counts) == pytest.approx(paper_scale("kearns_mansour") * q, rel=1e-12)


def test_radii_on_the_merit_scale_by_hand():
    ctx = dict(depth=2, t=1000, n_features=10)
    # without the schedule: the paper's radius times the factor
    ent = CTreeRule(criterion="entropy", delta=0.05, schedule=False)
    assert ent.radius(1000) == pytest.approx(
        2 / L(2) * (L(1000) * math.sqrt((2 / 1000) * L(80)) + 2 / 1000), rel=1e-12)
    assert ent.radius(1000) == pytest.approx(1.8716949159284977, rel=1e-12)     # bits
    assert CTreeRule(criterion="gini", delta=0.05, schedule=False).radius(1000) == \
        pytest.approx(0.29827886974543016, rel=1e-12)
    assert CTreeRule(criterion="kearns_mansour", delta=0.05, schedule=False).radius(1000) == \
        pytest.approx(2 * 0.28496101670884955, rel=1e-12)
    # with eq. (7): delta=0.01, h=3, t=5000, d=7, m=400:
    #   delta' = 0.01 / (4 * 5 * 5000 * 7 * 400) = 3.5714286e-11
    ctx = dict(depth=3, t=5000, n_features=7)
    d_eff = 0.01 / (4 * 5 * 5000 * 7 * 400)
    assert d_eff == pytest.approx(3.5714285714285714e-11)
    g = CTreeRule(criterion="gini", delta=0.01).radius(400, **ctx)
    assert g == pytest.approx(math.sqrt((8 / 400) * L(2 / d_eff)) + 4 / math.sqrt(400), rel=1e-12)
    assert g == pytest.approx(0.9035427140932035, rel=1e-12)
    e = CTreeRule(criterion="entropy", delta=0.01).radius(400, **ctx)
    assert e == pytest.approx(
        2 / L(2) * (L(400) * math.sqrt((2 / 400) * L(4 / d_eff)) + 2 / 400), rel=1e-12)
    assert e == pytest.approx(6.180322259355519, rel=1e-12)
    k = CTreeRule(criterion="kearns_mansour", delta=0.01).radius(400, **ctx)
    assert k == pytest.approx(2 * 4 * math.sqrt(L(8 / d_eff) / 400), rel=1e-12)
    assert k == pytest.approx(2.044892638308484, rel=1e-12)
    # Remark 1: delta = 1/t (delta=None): 1/5000 / (4 * 5 * 5000 * 7 * 400) = 7.1428571e-13
    r1 = CTreeRule(criterion="gini", delta=None).radius(400, **ctx)
    assert r1 == pytest.approx(
        math.sqrt((8 / 400) * L(2 / (1 / 5000 / 2.8e8))) + 4 / 20, rel=1e-12)
    assert r1 == pytest.approx(0.9571081895358113, rel=1e-12)
    # eq. (8) on the merit scale: Gini as is, Kearns-Mansour doubled, entropy with ln m
    # and the bits factor; on a merit the paper does not analyse, no conversion
    ctx = dict(depth=5, t=1e6, n_features=50)
    base = 0.1 * math.sqrt(L(5e15) / 2000)
    assert CTreeRule(criterion="gini", c=0.1).radius(2000, **ctx) == pytest.approx(base)
    assert CTreeRule(criterion="kearns_mansour", c=0.1).radius(2000, **ctx) == \
        pytest.approx(2 * base)
    assert CTreeRule(criterion="entropy", c=0.1).radius(2000, **ctx) == \
        pytest.approx(2 / L(2) * L(2000) * base)
    assert CTreeRule(criterion="classification_error", c=0.1).radius(2000, **ctx) == \
        pytest.approx(base)
    assert CTreeRule(c=0.1).radius(2000, **ctx) == pytest.approx(base)


def test_radii_cover_the_estimation_error():
    """Monte Carlo on the paper's scales: |Phi_hat(Y|F) - Phi(Y|F)| > eps (Theorems
    1-3) happens at most about delta of the time."""
    rng = np.random.default_rng(0)
    p = np.array([[0.30, 0.10], [0.15, 0.45]])     # P(F = k, Y = y)
    m, delta, reps = 300, 0.2, 300

    def cond(c):
        c = np.asarray(c, float)
        w = c.sum(1) / c.sum()
        out = {"ent": 0.0, "gini": 0.0, "km": 0.0}
        for k in range(2):
            if c[k].sum() == 0:
                continue
            q = c[k, 1] / c[k].sum()
            h = -sum(x / 2 * L(x) for x in (q, 1 - q) if x > 0)
            out["ent"] += w[k] * h
            out["gini"] += w[k] * 2 * q * (1 - q)
            out["km"] += w[k] * math.sqrt(q * (1 - q))
        return out
    true = cond(p)
    eps = {"ent": ctree_entropy_radius(delta, m), "gini": ctree_gini_radius(delta, m),
           "km": ctree_km_radius(delta, m)}
    miss = {key: 0 for key in true}
    for _ in range(reps):
        cells = rng.choice(4, size=m, p=p.ravel())
        c = np.zeros((2, 2))
        np.add.at(c, (cells // 2, cells % 2), 1.0)
        est = cond(c)
        for key in true:
            miss[key] += abs(est[key] - true[key]) > eps[key]
    for key in true:
        assert miss[key] / reps <= delta


# --------------------------------------------------------------------------
# Algorithm 1's test
# --------------------------------------------------------------------------
def test_ctree_rule_defaults_are_algorithm_1():
    r = CTreeRule(c=0.5)
    assert (r.two_eps, r.strict, r.tau, r.runner_up) == (True, False, None, "any_split")
    ctx = dict(depth=2, t=1000, n_features=10)
    split, eps = r.should_split(0.5, 0.0, 100, **ctx)
    assert eps == pytest.approx(0.22252513961950598)
    assert split                                               # 0.5 >= 2 * 0.2225
    assert not r.should_split(0.4, 0.0, 100, **ctx)[0]         # 0.4 < 0.445
    assert CTreeRule(c=0.5, two_eps=False).should_split(0.4, 0.0, 100, **ctx)[0]
    # t defaults to n
    assert r.radius(100) == pytest.approx(ctree_practical_radius(0.5, 100, 0, 100, 1))


def _evidence(merit, second, second_any, n=400.0, k=2.0, v=2.0):
    ev = np.zeros(EV_SIZE)
    ev[EV_MERIT], ev[EV_SECOND], ev[EV_SECOND_ANY], ev[EV_N] = merit, second, second_any, n
    ev[EV_DEPTH], ev[EV_T], ev[EV_D], ev[EV_K] = 3.0, 5000.0, 7.0, k
    ev[EV_BRANCHES] = ev[EV_MAX_BRANCHES] = v
    return ev


def test_engine_rule_non_strict_at_equality_and_runner_ups():
    # practical radius, Gini, m=400, h=3, t=5000, d=7: eps = c sqrt(ln(400^2 9 5000 7)/400)
    c = 0.1
    eps = c * math.sqrt(L(400 ** 2 * 9 * 5000 * 7) / 400)
    for runner_up, fires in (("any_split", False), ("other_feature", True)):
        rule = CTreeRule(c=c, runner_up=runner_up)
        params = rule.engine_params(merit="gini", n_classes=2)
        ev = _evidence(0.5, 0.5 - 2 * eps - 0.01, 0.5 - eps)
        assert bool(ctree_rule(ev, params)) is fires
    # at exact equality (a radius of 0.25: user values chosen exact in binary) the
    # engine form splits non-strictly, VFDT's strict form does not
    from treelab.split_criteria.rules import DecisionRule
    for strict, fires in ((False, True), (True, False)):
        rule = as_engine_rule(DecisionRule(_quarter, two_eps=True, strict=strict,
                                           runner_up="any_split"))
        ev = _evidence(0.75, 0.0, 0.25)
        assert bool(rule.rule_fn(ev, rule.params)) is fires


def _quarter(params, n, ctx):
    return 0.25


# --------------------------------------------------------------------------
# the runner-up on a hand-built leaf
# --------------------------------------------------------------------------
@njit(RULE_SIG, cache=True)
def spy_rule(evidence, params):
    """Never splits; records the first evidence it is shown."""
    if params[0] == 0.0:
        params[0] = 1.0
        params[1] = evidence[EV_MERIT]
        params[2] = evidence[EV_SECOND]
        params[3] = evidence[EV_SECOND_ANY]
        params[4] = evidence[EV_MAX_BRANCHES]
        params[5] = evidence[EV_N]
    return False


class SpyRule:
    rule_fn = spy_rule

    def __init__(self):
        self.params = np.zeros(6)


def hand_leaf():
    """50 instances, two numeric features, 3 equal-width bins each.

    x0 in bins 0 / 1 / 2 with class counts [20, 5] / [0, 5] / [0, 20];
    x1 in bins 0 / 2 with [10, 15] each (no information).  Parent Gini
    1 - 0.4^2 - 0.6^2 = 0.48.  Gini gains:

    * x0 "bin 0 left": left [20, 5] Gini 1 - 0.8^2 - 0.2^2 = 0.32 at weight 1/2,
      right [0, 25] pure: 0.48 - 0.16 = 0.32 (the best split);
    * x0 "bins 0-1 left": left [20, 10] Gini 4/9 at weight 0.6, right pure:
      0.48 - 0.26667 = 0.21333 (the best *other split*);
    * x1: both sides [10, 15]: gain 0 (the best split of *another feature*).
    """
    x0 = [0.0] * 25 + [1.5] * 5 + [3.0] * 20
    y = [0] * 20 + [1] * 5 + [1] * 5 + [1] * 20
    # x1 = 3.0 for half of each class, so that each x1 bin holds [10, 15]
    order0 = [i for i in range(50) if y[i] == 0]
    order1 = [i for i in range(50) if y[i] == 1]
    x1 = np.zeros(50)
    x1[order0[10:]] = 3.0
    x1[order1[15:]] = 3.0
    X = np.column_stack([x0, x1])
    return X, np.array(y)


def test_runner_ups_on_a_hand_built_leaf():
    X, y = hand_leaf()
    spy = SpyRule()
    HoeffdingTreeClassifier(rule=spy, criterion="gini", grace_period=50, max_bins=3,
                            n_range_samples=50, min_branch_fraction=0.0).fit(X, y)
    seen, best, second, second_any, max_br, n = spy.params
    assert seen == 1.0 and n == 50
    assert best == pytest.approx(0.48 - 0.5 * 0.32, abs=1e-12)          # 0.32
    assert second == pytest.approx(0.0, abs=1e-12)                       # x1
    assert second_any == pytest.approx(0.48 - 0.6 * 4 / 9, abs=1e-12)    # 0.21333
    assert max_br == 2
    # C-Tree at c = 0.2: eps = 0.2 sqrt(ln(50^2 * 1 * 50 * 2) / 50) = 0.0997163 (h = 0 -> 1)
    eps = 0.2 * math.sqrt(L(50 ** 2 * 1 * 50 * 2) / 50)
    assert 0.32 - 0.21333 < 2 * eps < 0.32
    kw = dict(criterion="gini", grace_period=50, max_bins=3, n_range_samples=50,
              min_branch_fraction=0.0)
    other = HoeffdingTreeClassifier(rule=CTreeRule(c=0.2, runner_up="other_feature"), **kw)
    anys = HoeffdingTreeClassifier(rule=CTreeRule(c=0.2, runner_up="any_split"), **kw)
    assert other.fit(X, y).n_splits == 1 and other._forest.feature[0] == 0
    assert anys.fit(X, y).n_splits == 0


# --------------------------------------------------------------------------
# two classes only (the paper's analysis is binary)
# --------------------------------------------------------------------------
def _three_class_stream(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    y = (X[:, 0] * 3).astype(int)
    return X, y


@pytest.mark.parametrize("merit", ["entropy", "gini", "kearns_mansour"])
@pytest.mark.parametrize("rule", ["ctree", "ctree_c"])
def test_more_than_two_classes_are_refused(merit, rule):
    r = "ctree" if rule == "ctree" else CTreeRule(c=0.1)
    X, y = _three_class_stream()
    m = HoeffdingTreeClassifier(rule=r, criterion=merit, grace_period=50, n_range_samples=100)
    with pytest.raises(ValueError, match="needs two classes, got 3.*binary classification"):
        m.fit(X, y)
    assert not hasattr(m, "classes_")
    with pytest.raises(ValueError, match="needs two classes"):
        CTreeRule(criterion=merit, c=0.1).radius(100, n_classes=3)
    # learn_one with declared classes: refused at once
    m = HoeffdingTreeClassifier(rule=r, criterion=merit, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="needs two classes"):
        m.learn_one({0: 0.1, 1: 0.2}, 0)


def _tsallis(counts):
    s = counts.sum()
    r = 0.0
    for c in counts:
        p = c / s
        r += p * (1.0 - p) * (1.0 + p)
    return r


TSALLIS = Criterion("tsallis_like", _tsallis)


def test_practical_radius_on_other_merits_runs_for_any_k():
    """No paper constant in that case (c absorbs the scale): k = 3 is accepted."""
    X, y = _three_class_stream(1500)
    m = HoeffdingTreeClassifier(rule=CTreeRule(c=0.01, runner_up="other_feature"),
                                criterion=TSALLIS, grace_period=100,
                                n_range_samples=200).fit(X, y)
    assert m.n_splits >= 1
    with pytest.raises(ValueError, match="CTreeRule supports criterion"):
        HoeffdingTreeClassifier(rule="ctree", criterion=TSALLIS).fit(X, y)


def test_rule_for_another_merit_is_refused():
    X, y = _three_class_stream()
    y = (y > 0).astype(int)
    with pytest.raises(ValueError, match="built for the merit 'gini'"):
        HoeffdingTreeClassifier(rule=CTreeRule(criterion="gini", c=0.1), criterion="entropy").fit(X, y)


def test_sgt_takes_ctree_with_the_other_feature_runner_up():
    rng = np.random.RandomState(6)
    n = 3000
    X = pd.DataFrame({"x0": rng.rand(n), "x1": rng.rand(n)})
    y = np.where((X.x0 > 0.5) ^ (rng.rand(n) < 0.1), 1, 0)
    base = dict(grace_period=100, n_range_samples=200)
    with pytest.raises(ValueError, match="runner_up='other_feature'"):
        SGTClassifier(rule=CTreeRule(c=0.05), **base).fit(X, y)
    m = SGTClassifier(rule=CTreeRule(c=0.05, runner_up="other_feature"), **base).fit(X, y)
    assert m.n_splits >= 1 and m._forest.feature[0] == 0
