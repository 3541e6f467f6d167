"""Split-decision rules (treelab.split_criteria.rules): the shared base, the
Hoeffding bound (eq. (1) of the C-Tree paper), the McDiarmid bound (eq. (2)),
the t-test, and the one registry of names.  C-Tree: test_rules_ctree.py."""
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treelab import HoeffdingTreeClassifier, SGTClassifier
from treelab.experiment import RULES as RUNNER_RULES
from treelab.experiment import make_rule as runner_make_rule
from treelab.learners.hoeffding import RULE_NAMES as HT_RULE_NAMES
from treelab.split_criteria import ENTROPY, GINI, Criterion
from treelab.split_criteria.rules import (
    CTX_SIZE, RADIUS_SIG, CTreeRule, DecisionRule, HoeffdingRule, McDiarmidRule, TTestRule,
    as_engine_rule, compile_radius, decide_split, get_rule, hoeffding_bound,
    hoeffding_n_required, learner_rule, make_context, make_rule, mcdiarmid_entropy_bound,
    mcdiarmid_entropy_constant, mcdiarmid_gini_bound, rule_aliases, rule_names,
)

LN_1E7 = 16.11809565095832  # ln(1/1e-7) = 7 ln 10


# --------------------------------------------------------------------------
# eq. (1): Hoeffding, by hand
# --------------------------------------------------------------------------
def test_hoeffding_hand_values():
    # R=1, delta=1e-7, m=200: ln(1e7)/(2*200) = 16.1180957/400 = 0.0402952391; sqrt = 0.2007367
    assert hoeffding_bound(1.0, 1e-7, 200) == pytest.approx(0.20073674085078647, rel=1e-12)
    assert hoeffding_bound(1.0, 1e-7, 200) == pytest.approx(
        1.0 * math.sqrt(1 / (2 * 200) * math.log(1 / 1e-7)), rel=1e-12)
    # R = log2(4) = 2 doubles it
    assert hoeffding_bound(2.0, 1e-7, 200) == pytest.approx(0.40147348170157293, rel=1e-12)
    # R=1, delta=1e-6, m=1000: ln(1e6)=13.8155106, /2000 = 0.00690776; sqrt = 0.0831129
    assert hoeffding_bound(1.0, 1e-6, 1000) == pytest.approx(0.0831129068134555, rel=1e-12)
    # R=0.5 (classification error, two classes), delta=0.01, m=50:
    # 0.5 sqrt(ln(100)/100) = 0.5 * sqrt(0.0460517) = 0.5 * 0.2145966 = 0.1072983
    assert hoeffding_bound(0.5, 0.01, 50) == pytest.approx(
        0.5 * math.sqrt(math.log(100) / 100), rel=1e-12)
    # inverse: n = R^2 ln(1/delta) / (2 eps^2) = 16.1180957 / 0.005 = 3223.619
    assert hoeffding_n_required(1.0, 1e-7, 0.05) == pytest.approx(3223.619130191664, rel=1e-12)
    assert LN_1E7 == pytest.approx(math.log(1e7))


def test_hoeffding_edge_cases():
    assert hoeffding_bound(1.0, 1e-7, 0) == math.inf
    assert hoeffding_bound(1.0, 0.0, 100) == math.inf
    assert hoeffding_bound(1.0, 1.0, 100) == 0.0


def test_each_merit_carries_its_range():
    from treelab.split_criteria import (CLASSIFICATION_ERROR, GAIN_RATIO, KEARNS_MANSOUR,
                                        VARIANCE)
    assert ENTROPY.range_of_merit(2) == 1.0
    assert ENTROPY.range_of_merit(8) == pytest.approx(3.0)          # log2 k
    assert GINI.range_of_merit(2) == 1.0 and GINI.range_of_merit(5) == 1.0
    assert KEARNS_MANSOUR.range_of_merit(2) == 1.0
    assert KEARNS_MANSOUR.range_of_merit(5) == pytest.approx(2.0)   # sqrt(k - 1)
    assert CLASSIFICATION_ERROR.range_of_merit(2) == 0.5
    assert CLASSIFICATION_ERROR.range_of_merit(4) == 0.75           # 1 - 1/k
    assert GAIN_RATIO.range_of_merit(3) == 1.0
    assert VARIANCE.range_of_merit(2) is None
    user = Criterion("u", _user_impurity, merit_range=lambda k: 2.0 * k)
    assert user.range_of_merit(3) == 6.0
    assert Criterion("u", _user_impurity, merit_range=0.5).range_of_merit(7) == 0.5
    assert Criterion("u", _user_impurity).range_of_merit(2) is None
    assert pickle.loads(pickle.dumps(Criterion("u", _user_impurity, merit_range=0.5))) \
        .range_of_merit(2) == 0.5
    with pytest.raises(ValueError, match="merit_range"):
        Criterion("u", _user_impurity, merit_range=-1.0)
    # the Hoeffding rule reads R from the merit, per number of classes
    rule = HoeffdingRule(criterion="entropy")
    assert rule.value_range_for(4) == 2.0
    assert HoeffdingRule(criterion=user).radius(200, n_classes=3) == pytest.approx(
        6.0 * 0.20073674085078647)


def _user_impurity(counts):
    return 0.0


# --------------------------------------------------------------------------
# eq. (2): McDiarmid, by hand
# --------------------------------------------------------------------------
def test_mcdiarmid_hand_values():
    # C(K, m) = 6 (K log2 e + log2 2m) + 2 log2 K   (C-Tree paper, eq. 2)
    # K=2, m=1000: 6 (2 * 1.4426950 + log2 2000 = 10.9657843) + 2 log2 2
    #            = 6 * 13.8511744 + 2 = 85.1070462
    assert mcdiarmid_entropy_constant(2, 1000) == pytest.approx(85.10704619864008, rel=1e-12)
    assert mcdiarmid_entropy_constant(2, 1000) == pytest.approx(
        6 * (2 * math.log2(math.e) + math.log2(2 * 1000)) + 2 * math.log2(2), rel=1e-12)
    # eps = 85.1070462 * sqrt(ln(1e7) / 2000) = 85.1070462 * 0.0897722 = 7.6402467
    assert mcdiarmid_entropy_bound(2, 1e-7, 1000) == pytest.approx(7.640246740823392, rel=1e-12)
    # K=3, m=500, delta=0.01: C = 6 (3 * 1.4426950 + log2 1000 = 9.9657843) + 2 log2 3
    #   = 6 * 14.2938693 + 3.1699250 = 88.9331414; eps = C sqrt(ln(100)/1000) = 6.0351279
    assert mcdiarmid_entropy_constant(3, 500) == pytest.approx(88.93314144541617, rel=1e-12)
    assert mcdiarmid_entropy_bound(3, 0.01, 500) == pytest.approx(6.035127862329657, rel=1e-12)
    assert mcdiarmid_entropy_bound(3, 0.01, 500) == pytest.approx(
        (6 * (3 * math.log2(math.e) + math.log2(1000)) + 2 * math.log2(3))
        * math.sqrt(math.log(1 / 0.01) / (2 * 500)), rel=1e-12)
    # Gini (Rutkowski et al. Thm 2): 8 sqrt(ln(1e7)/400) = 8 * 0.2007367 = 1.6058939
    assert mcdiarmid_gini_bound(1e-7, 200) == pytest.approx(1.6058939268062917, rel=1e-12)
    assert mcdiarmid_entropy_bound(2, 1e-7, 0) == math.inf


def test_mcdiarmid_rule():
    rule = McDiarmidRule(criterion="gini")   # no tie-break
    assert rule.tau is None
    split, eps = rule.should_split(0.9, 0.0, 200)
    assert eps == pytest.approx(1.6058939268062917) and not split
    assert rule.should_split(0.9, 0.0, 100000)[0]  # 8 sqrt(16.118/200000) = 0.0718
    ent = McDiarmidRule(criterion=ENTROPY, delta=1e-7)
    assert ent.radius(1000) == pytest.approx(7.640246740823392)
    assert ent.radius(1000, n_classes=3) > ent.radius(1000)
    with pytest.raises(ValueError, match="McDiarmidRule supports criterion"):
        McDiarmidRule(criterion="kearns_mansour")
    with pytest.raises(ValueError, match="McDiarmidRule supports criterion"):
        McDiarmidRule().radius(100)          # no merit to bound


# --------------------------------------------------------------------------
# monotonicity
# --------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=20, max_value=10**7),
       delta=st.floats(min_value=1e-12, max_value=0.5))
def test_radii_decrease_with_n_and_increase_as_delta_decreases(n, delta):
    for f in (lambda n, d: hoeffding_bound(1.0, d, n), lambda n, d: mcdiarmid_gini_bound(d, n),
              lambda n, d: mcdiarmid_entropy_bound(2, d, n)):
        assert f(2 * n, delta) < f(n, delta)
        assert f(n, delta / 10) > f(n, delta)


# --------------------------------------------------------------------------
# the comparison
# --------------------------------------------------------------------------
def test_decide_split_plain_floats():
    # VFDT: gap 0.2 > eps 0.1
    assert decide_split(0.5, 0.3, 0.1, 0.0, 1.0, True)
    # 2 eps: gap 0.2 is not > 2 * 0.1
    assert not decide_split(0.5, 0.3, 0.1, 0.0, 2.0, True)
    assert decide_split(0.5, 0.29, 0.1, 0.0, 2.0, True)
    # gap exactly the threshold (0.75 - 0.25 = 0.5 = 2 * 0.25, all exact in binary):
    # strict (VFDT) waits, non-strict (C-Tree, Algorithm 1) splits
    assert not decide_split(0.75, 0.25, 0.25, 0.0, 2.0, True)
    assert decide_split(0.75, 0.25, 0.25, 0.0, 2.0, False)
    assert not decide_split(0.5, 0.25, 0.25, 0.0, 1.0, True)
    assert decide_split(0.5, 0.25, 0.25, 0.0, 1.0, False)
    # tie-break exactly at tau: eps < tau (VFDT) no, eps <= tau (C-Tree) yes
    assert not decide_split(0.5, 0.5, 0.25, 0.25, 1.0, True)
    assert decide_split(0.5, 0.5, 0.25, 0.25, 2.0, False)
    # tie-break: tiny gap, eps below tau -> split; eps above tau -> wait
    assert decide_split(0.5, 0.5, 0.04, 0.05, 1.0, True)
    assert not decide_split(0.5, 0.5, 0.06, 0.05, 1.0, True)
    # tau = 0 disables the tie-break, even non-strict with eps = 0 ... unless the gap decides
    assert not decide_split(0.5, 0.5, 1e-9, 0.0, 1.0, True)
    assert not decide_split(0.5, 0.6, 0.0, 0.0, 2.0, False)
    # no split on undefined quantities
    assert not decide_split(0.5, 0.1, math.inf, 0.05, 1.0, True)
    assert not decide_split(math.nan, 0.1, 0.01, 0.0, 1.0, True)


def _quarter(params, n, ctx):
    return 0.25


def test_rule_objects_at_exact_equality():
    """should_split at gap == 2 eps and eps == tau, on rule objects."""
    vfdt_like = DecisionRule(_quarter, two_eps=True, strict=True)
    ctree_like = DecisionRule(_quarter, two_eps=True, strict=False)
    assert vfdt_like.should_split(0.75, 0.25, 100) == (False, 0.25)
    assert ctree_like.should_split(0.75, 0.25, 100) == (True, 0.25)
    assert DecisionRule(_quarter, tau=0.25, strict=False).should_split(0.5, 0.5, 9)[0]
    assert not DecisionRule(_quarter, tau=0.25, strict=True).should_split(0.5, 0.5, 9)[0]
    # "no tie-break" is expressible both ways
    for tau in (None, 0, 0.0):
        assert not DecisionRule(_quarter, tau=tau, strict=False).should_split(0.5, 0.5, 9)[0]


def test_hoeffding_rule():
    rule = HoeffdingRule(criterion="entropy")  # delta=1e-7, tau=0.05, 2 classes -> R = 1
    assert (rule.strict, rule.two_eps, rule.runner_up) == (True, False, "other_feature")
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
    with pytest.raises(ValueError, match="tau must be >= 0"):
        HoeffdingRule(tau=-1)
    with pytest.raises(ValueError, match="runner_up"):
        HoeffdingRule(runner_up="next")
    with pytest.raises(ValueError, match="value_range"):
        HoeffdingRule(criterion="squared_error").radius(200)
    with pytest.raises(ValueError, match="unknown classification criterion"):
        HoeffdingRule(criterion="ginny")
    with pytest.raises(ValueError, match="value_range"):
        HoeffdingRule().radius(200)          # standalone without a merit
    assert HoeffdingRule(value_range=4.0).radius(200) == pytest.approx(4 * 0.20073674085078647)
    with pytest.raises(TypeError, match="unknown context"):
        HoeffdingRule(criterion="gini").should_split(0.3, 0.1, 100, dept=3)
    # a rule built for one merit refuses another
    with pytest.raises(ValueError, match="built for the merit 'gini'"):
        as_engine_rule(HoeffdingRule(criterion="gini"), merit="entropy", n_classes=2)


def test_kernels_match_rules_and_signature():
    ctx = make_context(depth=3, t=5000, n_features=7, n_classes=2, n_branches=2)
    assert ctx.shape == (CTX_SIZE,)
    for r in (HoeffdingRule(criterion="gini"), McDiarmidRule(criterion="gini"), CTreeRule(c=1.0),
              CTreeRule(criterion="gini")):
        assert tuple(RADIUS_SIG.args) in [tuple(s) for s in r.radius_func.signatures]
        p = np.ascontiguousarray(r.radius_params_for(None, 2))
        assert r.radius_func(p, 400.0, ctx) == pytest.approx(
            r.radius(400, depth=3, t=5000, n_features=7))


def _user_radius(params, n, ctx):
    return params[0] / math.sqrt(n)


def test_user_rule_and_pickle():
    rule = DecisionRule(_user_radius, [2.0], tau=0.05)
    split, eps = rule.should_split(0.3, 0.1, 400)
    assert eps == pytest.approx(0.1) and split
    assert DecisionRule(compile_radius(_user_radius), [2.0]).radius(100) == pytest.approx(0.2)
    for r in (rule, HoeffdingRule(delta=1e-5, tau=0.1, criterion="gini"),
              McDiarmidRule(criterion="entropy"), CTreeRule(c=0.3, two_eps=False),
              CTreeRule(criterion="kearns_mansour", runner_up="other_feature", tau=0.1)):
        r2 = pickle.loads(pickle.dumps(r))
        assert r2 == r
        assert r2.radius(321, depth=1, t=999) == r.radius(321, depth=1, t=999)
    assert "HoeffdingRule" in repr(HoeffdingRule())
    # scikit-learn's nested parameters
    r = CTreeRule(c=0.1)
    assert r.set_params(c=0.2) is r and r.c == 0.2 and r.get_params()["c"] == 0.2
    with pytest.raises(ValueError, match="invalid parameters"):
        r.set_params(cc=1)


def test_ttest_rule():
    t = TTestRule(0.01)
    assert t.params.tolist() == [0.01]
    with pytest.raises(ValueError, match="delta"):
        TTestRule(2.0).params
    assert TTestRule(0.01) == t and t.get_params() == {"delta": 0.01}


# --------------------------------------------------------------------------
# the one registry
# --------------------------------------------------------------------------
def test_registry_names_and_lookup():
    assert rule_names() == ("hoeffding", "mcdiarmid", "ctree", "corrh", "ttest")
    # the Hoeffding tree, SGT and the ablation runner use the same table
    assert tuple(HT_RULE_NAMES) == rule_names() == tuple(RUNNER_RULES)
    assert runner_make_rule is make_rule
    assert rule_aliases()["vfdt"] == "hoeffding" and rule_aliases()["c-tree"] == "ctree"
    assert isinstance(get_rule("hoeffding", delta=1e-5), HoeffdingRule)
    assert isinstance(get_rule("VFDT"), HoeffdingRule)
    assert isinstance(get_rule("mcdiarmid"), McDiarmidRule)
    assert isinstance(get_rule("ctree", c=1.0), CTreeRule)
    assert isinstance(get_rule("t-test"), TTestRule)
    r = CTreeRule()
    assert get_rule(r) is r
    with pytest.raises(ValueError, match="unknown rule 'nope'"):
        get_rule("nope")
    with pytest.raises(TypeError):
        get_rule(3)
    with pytest.raises(TypeError, match="only accepted with a rule name"):
        get_rule(r, c=1.0)
    rule, merit = make_rule("corrh", "gini", delta=0.01)
    assert isinstance(rule, HoeffdingRule) and merit == "classification_error"
    # a learner's own delta / tau go to the rules that take them
    rule, merit = learner_rule("hoeffding", "gini", "ttest", delta=0.01, tau=0.2)
    assert (rule.delta, rule.tau, merit) == (0.01, 0.2, "gini")
    rule, _ = learner_rule("ctree", "gini", "ttest", delta=0.01, tau=0.2)
    assert (rule.delta, rule.tau) == (0.01, None)      # C-Tree by name: no tie-break
    rule, _ = learner_rule(None, "gini", "ttest", delta=0.01, tau=0.2)
    assert isinstance(rule, TTestRule) and rule.delta == 0.01


def _binary_stream(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = ((X[:, 0] > 0.5) ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


@pytest.mark.parametrize("name", rule_names())
def test_every_registry_name_is_understood_by_every_learner(name):
    """Each name resolves on the Hoeffding tree and on SGT: it runs, or it raises
    the rule's own reason (never "unknown rule")."""
    X, y = _binary_stream()
    HoeffdingTreeClassifier(rule=name, criterion="gini", grace_period=100,
                            n_range_samples=200).fit(X, y)
    sgt = SGTClassifier(rule=name, grace_period=100, n_range_samples=200)
    if name == "ttest":
        sgt.fit(X, y)
        return
    with pytest.raises(ValueError) as err:
        sgt.fit(X, y)
    msg = str(err.value)
    assert "unknown rule" not in msg
    assert {"hoeffding": "value_range", "mcdiarmid": "McDiarmidRule supports",
            "ctree": "CTreeRule(c=...)", "corrh": "classification_error"}[name] in msg
