"""Hoeffding trees: behaviour of treelab.HoeffdingTreeClassifier.

Exactness against the documented algorithm is checked in
``test_hoeffding_reference.py``; here: every merit with every decision rule
(and the combinations that must be refused), the evidence a rule is shown
(including the jackknife variance the t-test uses), recovery of the generating
root split of a RandCBT stream by VFDT and C-Tree, the same rules on SGT,
pickling mid-stream, determinism, learn_one / partial_fit equivalence and the
river API, classes, input validation, model-size attributes, accuracy on a
clear concept and scikit-learn conventions.
"""
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from numba import njit
from sklearn.base import clone

from _stream_reference import assert_same_model, chunks, feed
from treelab import HoeffdingTreeClassifier, SGTClassifier
from treelab._engine.signatures import RULE_SIG
from treelab._engine.streaming import (
    EV_BRANCHES, EV_D, EV_K, EV_MERIT, EV_N, EV_SECOND, EV_T, EV_VAR,
)
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC
from treelab.split_criteria import Criterion
from treelab.split_criteria.rules import CTreeRule, DecisionRule, HoeffdingRule
from treelab.streaming.generators import RandCBT

CATS = ["a", "b", "c", "d"]          # "d" is declared but never occurs


# ------------------------------------------------------------------------ data
def make_stream(n, seed, n_classes=2, nan=True):
    """Numeric features (x1 with missing values), a nominal one declared as a pandas
    category, and a label that depends on x0, x1 and the category."""
    rng = np.random.RandomState(seed)
    x0 = rng.rand(n)
    x1 = rng.randn(n)
    c = rng.choice(CATS[:3], n)
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": rng.randn(n),
                      "c": pd.Categorical(c, categories=CATS)})
    if nan:
        X.loc[rng.rand(n) < 0.05, "x1"] = np.nan
        X.loc[rng.rand(n) < 0.05, "c"] = np.nan
    isb = (c == "b").astype(float)
    if n_classes == 2:
        logit = 4.0 * (x0 > 0.5) - 2.0 + 2.0 * isb - 1.5 * (x1 > 0.6)
        y = np.where(rng.rand(n) < 1 / (1 + np.exp(-2.0 * logit)), "pos", "neg")
    else:
        s = np.stack([3.0 * (x0 > 0.5) + 1.5 * isb, 2.0 * x1, np.zeros(n)], axis=1)
        s += rng.gumbel(size=s.shape) * 0.5
        y = np.array(["u", "v", "w"])[s.argmax(axis=1)]
    return X, y


PARAMS = dict(grace_period=50, max_bins=16, n_range_samples=200, delta=1e-3, tau=0.1)


def make_model(**kw):
    return HoeffdingTreeClassifier(**dict(PARAMS, **kw))


def rows_of(X):
    """River-style dicts: NaN for a missing number, None for a missing category."""
    cols = list(X.columns)
    out = []
    vals = [X[c].tolist() for c in cols]
    for i in range(len(X)):
        row = {}
        for c, v in zip(cols, vals):
            x = v[i]
            if c == "c" and isinstance(x, float) and math.isnan(x):
                x = None
            row[c] = x
        out.append(row)
    return out


def assert_same_predictions(a, b, X):
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def assert_valid_proba(model, X):
    p = model.predict_proba(X)
    assert p.shape == (len(X), len(model.classes_))
    assert np.isfinite(p).all() and (p >= 0).all() and (p <= 1).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert set(model.predict(X)) <= set(model.classes_)
    return p


# ------------------------------------------------ user criterion and user rules
def tsallis3(counts):
    """Tsallis entropy with q = 3, (1 - sum p^3) / 2: a concave impurity treelab
    does not ship."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p * p
    return (1.0 - s) / 2.0


TSALLIS3 = Criterion("tsallis3", tsallis3, task="classification")


def sqrt_radius(params, n, ctx):
    """A user's radius: params[0] / sqrt(n) (plain Python, compiled by treelab)."""
    return params[0] / math.sqrt(n)


def gap_rule(evidence, params):
    """A user's engine rule (plain Python): split when the gap exceeds params[0]."""
    return evidence[0] - evidence[1] > params[0]


class GapRule:
    """Any object with ``rule_fn`` and ``params`` is a rule."""

    rule_fn = staticmethod(gap_rule)

    def __init__(self, gap=0.02):
        self.params = np.array([gap])


MERITS = ["entropy", "gini", "kearns_mansour", "classification_error", "gain_ratio", "user"]
RULES = ["hoeffding", "mcdiarmid", "ctree", "ttest", "ctree_c", "hoeffding_R", "user_radius",
         "user_fn"]


def merit_of(name):
    return TSALLIS3 if name == "user" else name


def rule_of(name):
    return {"ctree_c": lambda: CTreeRule(c=0.05),
            "hoeffding_R": lambda: HoeffdingRule(value_range=1.0, delta=1e-3, tau=0.1),
            "user_radius": lambda: DecisionRule(sqrt_radius, [0.5], tau=0.05, name="sqrt"),
            "user_fn": lambda: GapRule(0.02)}.get(name, lambda: name)()


def refusal(merit, rule):
    """The message of the ValueError a merit / rule-name combination must raise, or None."""
    if rule == "mcdiarmid" and merit not in ("entropy", "gini"):
        return "McDiarmidRule supports criterion 'gini' or 'entropy'"
    if rule == "ctree" and merit not in ("entropy", "gini", "kearns_mansour"):
        return "CTreeRule supports criterion"
    if rule in ("ctree", "ctree_c") and merit in ("entropy", "gini", "kearns_mansour"):
        # the C-Tree paper analyses two classes only (issue 9: refused for k > 2)
        return "needs two classes"
    if rule == "hoeffding" and merit == "user":
        return "value_range"
    return None


# ------------------------------------------------------------ merits x rules
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("merit", MERITS)
def test_every_merit_with_every_rule(merit, rule):
    X, y = make_stream(1500, 0, n_classes=3)
    model = make_model(criterion=merit_of(merit), rule=rule_of(rule))
    msg = refusal(merit, rule)
    if msg is not None:
        with pytest.raises(ValueError, match=msg):
            model.partial_fit(X, y)
        with pytest.raises(ValueError, match=msg):   # classes declared: refused at once
            make_model(criterion=merit_of(merit), rule=rule_of(rule), classes=["u", "v", "w"],
                       nominal_features={"c": CATS}).learn_one(rows_of(X)[0], y[0])
        return
    model.partial_fit(X, y)
    assert_valid_proba(model, X.iloc[:200])
    pr = model.predict_proba_one(rows_of(X.iloc[:1])[0])
    assert sorted(pr) == ["u", "v", "w"] and sum(pr.values()) == pytest.approx(1.0)
    if rule not in ("mcdiarmid", "ctree", "ctree_c"):
        # every rule but the (very conservative) confidence bounds splits this stream
        assert model.n_splits >= 1, (merit, rule)
    elif rule != "ctree_c":
        assert model.n_splits == 0


def test_merit_changes_the_tree():
    X, y = make_stream(3000, 1, n_classes=3)
    shapes = set()
    for merit in MERITS:
        m = make_model(criterion=merit_of(merit), rule="ttest").partial_fit(X, y)
        n = m.n_nodes
        t = m._forest
        shapes.add((n, tuple(t.feature[:n]), tuple(t.threshold[:n])))
    assert len(shapes) >= 3


def test_rule_object_is_used():
    """A rule given as an object replaces the named rule entirely: a radius that
    never falls below the gap never splits, one that is always 0 splits at the
    first attempt with a real candidate."""
    X, y = make_stream(1500, 2)
    never = make_model(rule=HoeffdingRule(value_range=1e6, tau=0.0)).partial_fit(X, y)
    assert never.n_splits == 0 and never.n_nodes == 1
    never_c = make_model(rule=CTreeRule(c=1e6)).partial_fit(X, y)
    assert never_c.n_splits == 0
    eager = make_model(rule=GapRule(0.0)).partial_fit(X, y)
    assert eager.n_splits > make_model().partial_fit(X, y).n_splits >= 1
    # first attempt at 50 instances of the root (the first 200 are learned at once)
    assert eager._forest.n_samples[0] == 50


def test_unknown_rule_and_merit_messages():
    X, y = make_stream(300, 3)
    with pytest.raises(ValueError, match="unknown rule 'vfdt2'"):
        make_model(rule="vfdt2").partial_fit(X, y)
    with pytest.raises(ValueError, match="unknown classification criterion 'entorpy'"):
        make_model(criterion="entorpy").partial_fit(X, y)
    with pytest.raises(TypeError, match="rule must be a name or a decision rule"):
        make_model(rule=0.5).partial_fit(X, y)
    with pytest.raises(TypeError, match="criterion must be a string"):
        make_model(criterion=1).partial_fit(X, y)
    reg = Criterion("var", lambda s: 0.0, task="regression")
    with pytest.raises(ValueError, match="regression"):
        make_model(criterion=reg).partial_fit(X, y)
    # names are case-insensitive aliases
    a = make_model(rule="VFDT").partial_fit(X, y)
    b = make_model(rule="hoeffding").partial_fit(X, y)
    assert_same_model(a, b)


# --------------------------------------------------------- evidence of a rule
@njit(RULE_SIG, cache=True)
def spy_rule(evidence, params):
    """Never splits; records what it is shown in ``params``."""
    params[0] += 1.0
    if params[0] == 1.0:                 # the first call
        params[1] = evidence[EV_MERIT]
        params[2] = evidence[EV_SECOND]
        params[3] = evidence[EV_VAR]
        params[4] = evidence[EV_N]
        params[5] = evidence[EV_BRANCHES]
    if evidence[EV_N] % 50.0 != 0.0:
        params[6] += 1.0
    params[7] = max(params[7], evidence[EV_N])
    params[8] = evidence[EV_T]
    params[9] = evidence[EV_D]
    params[10] = evidence[EV_K]
    if evidence[EV_SECOND] < 0.0 or evidence[EV_MERIT] <= evidence[EV_SECOND]:
        params[11] += 1.0
    return False


class SpyRule:
    rule_fn = spy_rule

    def __init__(self):
        self.params = np.zeros(12)


def _entropy(counts):
    counts = np.asarray(counts, float)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def _gain(left, right):
    """Information gain of a (left, right) split of class-count vectors."""
    parent = left + right
    n = parent.sum()
    return _entropy(parent) - sum(c.sum() / n * _entropy(c) for c in (left, right) if c.sum())


def test_rule_sees_the_evidence():
    """The evidence of the first attempt (50 instances at the root) against a brute-
    force computation: the best information gain, the runner-up and the jackknife
    variance n * Var_jack of the best split's merit, each instance removed in turn."""
    rng = np.random.RandomState(4)
    n = 1000
    X = pd.DataFrame({"x0": rng.rand(n), "x1": rng.rand(n), "x2": rng.rand(n)})
    y = np.where(X.x0 + 0.3 * rng.randn(n) > 0.5, 1, 0) + (X.x1 > 0.8)
    spy = SpyRule()
    m = HoeffdingTreeClassifier(grace_period=50, max_bins=8, n_range_samples=50, rule=spy,
                                criterion="entropy").partial_fit(X, y)
    rec = m._rule_params
    assert m.n_splits == 0 and m.n_nodes == 1
    assert rec[0] == n // 50                  # every attempt of the (impure) root
    assert rec[6] == 0 and rec[7] == n and rec[8] == n     # n multiple of grace; t = n
    assert (rec[9], rec[10]) == (3, 3)        # features, classes
    assert rec[11] == 0                       # 0 <= second < best
    # brute force on the first 50 instances (the range is theirs)
    X50 = X.to_numpy()[:50]
    lo, hi = X50.min(axis=0), X50.max(axis=0)
    codes = np.clip(np.floor(8 * (X50 - lo) / (hi - lo)), 0, 7).astype(int)
    y50 = y[:50]
    onehot = np.eye(3)[y50]
    feats = []
    for f in range(3):
        best = (-1.0, None)
        for b in range(7):
            left = onehot[codes[:, f] <= b].sum(axis=0)
            right = onehot[codes[:, f] > b].sum(axis=0)
            if left.sum() > 0.5 and right.sum() > 0.5:      # min branch fraction 1%
                g = _gain(left, right)
                if g > best[0] + 1e-12:
                    best = (g, b)
        feats.append(best)
    order = sorted(range(3), key=lambda f: -feats[f][0])
    f_best, b_best = order[0], feats[order[0]][1]
    assert rec[1] == pytest.approx(feats[f_best][0], rel=1e-12)
    assert rec[2] == pytest.approx(max(feats[order[1]][0], 0.0), rel=1e-12)
    assert rec[4] == 50 and rec[5] == 2
    goes_left = codes[:, f_best] <= b_best
    thetas = []
    for i in range(50):
        keep = np.arange(50) != i
        left = onehot[keep & goes_left].sum(axis=0)
        right = onehot[keep & ~goes_left].sum(axis=0)
        thetas.append(_gain(left, right))
    thetas = np.array(thetas)
    var_jack = 49.0 / 50.0 * ((thetas - thetas.mean()) ** 2).sum()
    assert rec[3] == pytest.approx(50 * var_jack, rel=1e-9)


def test_rule_sees_nominal_branches():
    rng = np.random.RandomState(5)
    n = 400
    c = rng.choice(CATS[:3], n)
    X = pd.DataFrame({"c": pd.Categorical(c, categories=CATS), "x": rng.rand(n) * 0.0})
    y = np.where((c == "b") ^ (rng.rand(n) < 0.1), 1, 0)
    spy = SpyRule()
    m = HoeffdingTreeClassifier(grace_period=50, n_range_samples=50, rule=spy).partial_fit(X, y)
    # the multiway split has one branch per declared category (4), "d" included
    assert m._rule_params[5] == 4
    m2 = HoeffdingTreeClassifier(grace_period=50, n_range_samples=50,
                                 leaf_prediction="mc").partial_fit(X, y)
    t = m2._forest
    assert t.kind[0] == NOMINAL and t.feature[0] == 0 and t.n_children[0] == 4
    # never seen "d": the parent's distribution scaled to one pseudo-instance
    np.testing.assert_allclose(t.value[t.first_child[0] + 3], t.value[0] / t.value[0].sum())
    d_row = pd.DataFrame({"c": pd.Categorical(["d"], categories=CATS), "x": [0.0]})
    np.testing.assert_allclose(m2.predict_proba(d_row)[0], t.value[0] / t.value[0].sum())
    # missing values and categories unknown to the encoding go to the heaviest child
    heavy = int(np.argmax(t.value[t.first_child[0]:t.first_child[0] + 4].sum(axis=1)))
    assert t.missing_child[0] == heavy
    want = m2.predict_proba(
        pd.DataFrame({"c": pd.Categorical([CATS[heavy]], categories=CATS), "x": [0.0]}))
    unknown = pd.DataFrame({"c": pd.Categorical(["zz"], categories=CATS + ["zz"]), "x": [0.0]})
    missing = pd.DataFrame({"c": pd.Categorical([np.nan], categories=CATS), "x": [0.0]})
    np.testing.assert_array_equal(m2.predict_proba(unknown), want)
    np.testing.assert_array_equal(m2.predict_proba(missing), want)
    pr = m2.predict_proba_one({"c": "zz", "x": 0.0})
    np.testing.assert_array_equal([pr[c] for c in m2.classes_], want[0])
    # a declared category never seen has its own (empty) child
    # naive Bayes skips an unknown category like a missing value
    m3 = HoeffdingTreeClassifier(grace_period=50, n_range_samples=50,
                                 leaf_prediction="nb").partial_fit(X, y)
    np.testing.assert_array_equal(m3.predict_proba(unknown), m3.predict_proba(missing))
    assert t.cat_map[t.cat_offset[0] + 3] == 3
    assert m2._codes(np.array([[3.0, 0.0]]))[0, 0] == 3.0


# -------------------------------------------------------- RandCBT: root split
@pytest.mark.parametrize("seed", [0, 1, 3])
@pytest.mark.parametrize("rule", ["vfdt", "ctree"])
def test_randcbt_root_split_is_recovered(rule, seed):
    gen = RandCBT(n_leaves=2, n_features=4, q=0.9, m_per_leaf=4000, random_state=seed,
                  threshold_margin=0.2)
    X, y = gen.generate()
    n_bins = 16
    kw = dict(grace_period=300, max_bins=n_bins, leaf_prediction="mc")
    if rule == "ctree":
        # Algorithm 1's runner-up (any other split) is a neighbouring threshold of the
        # same feature here, nearly as good: compare with another feature, as MOA does
        kw["rule"] = CTreeRule(c=0.05, runner_up="other_feature")
    m = HoeffdingTreeClassifier(**kw).partial_fit(X, y)
    t = m._forest
    f = gen.root_feature_
    assert t.kind[0] == NUMERIC and t.feature[0] == f
    # threshold "bins 0..b left" is the upper edge of bin b
    width = (m._hi[f] - m._lo[f]) / n_bins
    b = t.threshold[0] - 0.5
    thr = m._lo[f] + (b + 1) * width
    assert abs(thr - gen.root_threshold_) <= 1.5 * width
    # near-Bayes accuracy on fresh data from the same tree
    Xt = np.random.default_rng(seed + 100).random((4000, 4))
    yt = (np.random.default_rng(seed + 200).random(4000)
          < gen.predict_proba(Xt)[:, 1]).astype(int)
    assert (m.predict(Xt) == yt).mean() >= 1 - gen.bayes_error - 0.03


# ----------------------------------------------------------- the rules on SGT
def test_sgt_takes_the_same_rules():
    """t-test vs Hoeffding vs C-Tree on the same SGT is one parameter."""
    rng = np.random.RandomState(6)
    n = 3000
    X = pd.DataFrame({"x0": rng.rand(n), "x1": rng.rand(n)})
    y = np.where((X.x0 > 0.5) ^ (rng.rand(n) < 0.1), 1, 0)
    base = dict(grace_period=100, n_range_samples=200)
    models = {"ttest": SGTClassifier(**base),
              "hoeffding": SGTClassifier(rule=HoeffdingRule(value_range=0.5), **base),
              "ctree": SGTClassifier(rule=CTreeRule(c=0.05, runner_up="other_feature"),
                                     **base)}
    for name, m in models.items():
        m.partial_fit(X, y)
        assert m.n_splits >= 1, name
        assert m._forest.feature[0] == 0, name
        assert (m.predict(X) == y).mean() > 0.85, name
        assert_valid_proba(m, X.iloc[:100])
    # the rule decides: radii that never shrink below the gap never split
    for rule in (HoeffdingRule(value_range=1e6, tau=0.0),
                 CTreeRule(c=1e6, runner_up="other_feature")):
        m = SGTClassifier(rule=rule, **base).partial_fit(X, y)
        assert m.n_splits == 0 and m.n_leaf_updates == 0
    # pickles with a rule object and continues identically
    a = models["ctree"]
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X.iloc[:500], y[:500])
    b.partial_fit(X.iloc[:500], y[:500])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


# ------------------------------------------------------------------- pickling
PICKLE_KW = {"default": {},
             # three classes: C-Tree's practical radius on a merit the paper does not
             # analyse (its radii on entropy / Gini / Kearns-Mansour are binary only)
             "ctree_c": dict(rule=CTreeRule(c=0.05, runner_up="other_feature"), criterion=TSALLIS3),
             "user_radius": dict(rule=DecisionRule(sqrt_radius, [0.5], tau=0.05)),
             "user_merit_nb": dict(criterion=TSALLIS3, rule="ttest", leaf_prediction="nb"),
             "gini_mc": dict(criterion="gini", leaf_prediction="mc")}


@pytest.mark.parametrize("kind", list(PICKLE_KW))
@pytest.mark.parametrize("at", [1, 12])     # while buffering the range / mid-stream
def test_pickle_mid_stream(kind, at):
    X, y = make_stream(2500, 7, n_classes=3)
    bounds = chunks(2500, 100)
    a = feed(make_model(**PICKLE_KW[kind]), X, y, bounds[:at])
    b = pickle.loads(pickle.dumps(a))
    if at == 12:
        assert a.n_seen == 1200 and a.n_splits > 0
    else:
        assert a.n_seen == 100 and not hasattr(a, "_forest")
    feed(a, X, y, bounds[at:])
    feed(b, X, y, bounds[at:])
    assert a.n_splits >= 2
    assert_same_model(a, b)
    assert_same_predictions(a, b, X.iloc[:300])


def test_pickle_with_queued_learn_one_rows():
    X, y = make_stream(1500, 8)
    rows = rows_of(X)
    a = make_model().partial_fit(X.iloc[:500], y[:500])
    for i in range(500, 650):              # rows queued by learn_one, not yet learned
        a.learn_one(rows[i], y[i])
    b = pickle.loads(pickle.dumps(a))
    ref = make_model().partial_fit(X.iloc[:650], y[:650])
    assert_same_model(b, ref)
    for i in range(650, 1500):
        a.learn_one(rows[i], y[i])
        b.learn_one(rows[i], y[i])
    assert_same_model(a, b)
    assert_same_predictions(a, b, X.iloc[:200])


# ---------------------------------------------------------------- determinism
@pytest.mark.parametrize("n_classes", [2, 3])
def test_same_stream_same_model(n_classes):
    X, y = make_stream(3000, 9, n_classes)
    a = make_model().partial_fit(X, y)
    b = make_model().partial_fit(X, y)
    c = feed(make_model(), X, y, chunks(3000, 37))
    assert a.n_splits >= 3
    assert_same_model(a, b)
    assert_same_model(a, c)
    assert_same_predictions(a, c, X)
    # a different stream gives a different model (the comparison can fail)
    d = make_model().partial_fit(*make_stream(3000, 10, n_classes))
    assert not np.array_equal(a.predict_proba(X), d.predict_proba(X))


@pytest.mark.parametrize("mode", ["mc", "nb", "nba"])
def test_learn_one_equals_partial_fit(mode):
    X, y = make_stream(2000, 11, n_classes=3)
    rows = rows_of(X)
    a = make_model(leaf_prediction=mode, nominal_features={"c": CATS})
    for r, yy in zip(rows, y):
        a.learn_one(r, yy)
    b = make_model(leaf_prediction=mode).partial_fit(X, y)
    assert a.n_splits >= 2
    assert_same_model(a, b)
    assert_same_predictions(a, b, X.iloc[:300])
    assert list(a.feature_names_in_) == ["x0", "x1", "x2", "c"]
    for r in rows[:20]:
        pr = a.predict_proba_one(r)
        want = a.predict_proba(pd.DataFrame({k: [v] for k, v in r.items()}).astype(
            {"c": pd.CategoricalDtype(CATS)}))[0]
        np.testing.assert_allclose([pr[c] for c in a.classes_], want, rtol=1e-12)
        assert a.predict_one(r) == a.classes_[np.argmax(want)]


def test_river_api_before_and_while_buffering():
    m = make_model(classes=[0, 1], n_range_samples=100)
    assert m.predict_proba_one({"a": 0.1, "b": 2.0}) == {}
    assert m.predict_one({"a": 0.1, "b": 2.0}) is None
    rng = np.random.RandomState(12)
    for i in range(60):                    # still buffering the range
        a = float(rng.rand())
        m.learn_one({"a": a, "b": float(rng.randn())}, int(a > 0.5))
    # issue 14: the class prior of the 60 rows seen so far, not uniform
    n1 = sum(1 for lab in m._buf_y for v in lab if v == 1)
    assert m.predict_proba_one({"a": 0.9, "b": 0.0}) == pytest.approx({0: 1 - n1 / 60, 1: n1 / 60})
    assert (m.n_nodes, m.n_leaves, m.n_splits, m.n_seen) == (1, 1, 0, 60)
    for i in range(1000):
        a = float(rng.rand())
        m.learn_one({"a": a, "b": float(rng.randn())}, int(a > 0.5))
    assert m.n_splits >= 1 and m._forest.feature[0] == 0
    assert m.predict_one({"a": 0.95, "b": 0.0}) == 1
    assert m.predict_one({"a": 0.05, "b": 0.0}) == 0
    with pytest.raises(ValueError, match="expected the features"):
        m.learn_one({"a": 0.5}, 1)
    with pytest.raises(TypeError, match="dict"):
        m.learn_one([0.5, 0.5], 1)
    with pytest.raises(ValueError, match="infinite"):
        m.learn_one({"a": math.inf, "b": 0.0}, 1)
    with pytest.raises(ValueError, match="not one of the classes"):
        m.learn_one({"a": 0.5, "b": 0.0}, 7)
    with pytest.raises(ValueError, match="expected the features"):
        m.learn_one({"a": 0.5, "c": 0.0}, 1)            # right count, wrong name
    with pytest.raises(TypeError, match="'b' must be numeric"):
        m.learn_one({"a": 0.5, "b": "x"}, 1)
    with pytest.raises(ValueError, match="'b' is infinite"):
        m.predict_one({"a": 0.5, "b": -math.inf})
    seen = m.n_seen
    m.learn_one({"a": None, "b": 0.0}, 1)               # None later in the stream: missing
    m.learn_one({"b": np.float32(0.25), "a": True}, 1)  # any key order, numpy / bool values
    assert m.n_seen == seen + 2
    assert pickle.loads(pickle.dumps(m)).predict_one({"a": 0.95, "b": 0.0}) == 1


def test_first_learn_one_row_with_none_for_a_number():
    m = make_model(classes=[0, 1], n_range_samples=10)
    m.learn_one({"a": None, "b": 1.0}, 0)          # river's convention for missing
    m.learn_one({"a": 0.5, "b": None}, 1)
    assert m.n_seen == 2


# ------------------------------------------------------------------- classes
def test_declared_classes_allow_late_labels():
    X, y = make_stream(1200, 13)
    y = y.astype(object)
    y[900] = "late"
    m = make_model(classes=["neg", "pos", "late"]).partial_fit(X, y)
    assert list(m.classes_) == ["late", "neg", "pos"]
    assert m.predict_proba(X.iloc[:4]).shape == (4, 3)
    # classes= of the first partial_fit does the same
    m2 = make_model().partial_fit(X.iloc[:100], y[:100], classes=["neg", "pos", "late"])
    m2.partial_fit(X.iloc[100:], y[100:])
    assert_same_model(m, m2)
    # undeclared: the classes are those of the first n_range_samples = 200 labels
    m3 = feed(make_model(), X, y, chunks(900, 100))
    with pytest.raises(ValueError, match="'late', which is not one of the classes"):
        m3.partial_fit(X.iloc[900:1000], y[900:1000])
    before = m3.n_seen
    m3.partial_fit(X.iloc[901:1000], y[901:1000])      # the stream goes on
    assert m3.n_seen == before + 99


def test_rejected_chunk_that_would_fix_the_classes_leaves_no_trace():
    """The chunk that completes the first n_range_samples = 200 labels holds, after
    them, a label outside them: it is refused and the stream goes on unchanged."""
    X, y = make_stream(1000, 31)
    clean = feed(make_model(), X, y, chunks(1000, 100))
    model = make_model().partial_fit(X.iloc[:100], y[:100])
    bad = y[100:300].astype(object).copy()
    bad[150] = "late"                           # instance 250
    with pytest.raises(ValueError, match="late"):
        model.partial_fit(X.iloc[100:300], bad)
    assert not hasattr(model, "classes_") and model.n_seen == 100
    feed(model, X, y, chunks(1000, 100)[1:])
    assert_same_model(model, clean)


def test_single_class_in_first_instances_raises():
    X, y = make_stream(400, 14)
    y = np.where(np.arange(400) < 250, "neg", y)
    with pytest.raises(ValueError, match="single class"):
        make_model().partial_fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        feed(make_model(), X, y, chunks(400, 50))
    # declared classes: fine
    m = make_model(classes=["neg", "pos"]).partial_fit(X, y)
    assert m.n_seen == 400
    with pytest.raises(ValueError, match="only one class"):
        make_model().fit(X.iloc[:100], y[:100])
    with pytest.raises(ValueError, match="at least two classes"):
        make_model(classes=["neg"]).partial_fit(X, y)


def test_nan_label_raises():
    X, y = make_stream(300, 15)
    yo = y.astype(object)
    yo[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        make_model().partial_fit(X, yo)
    with pytest.raises(ValueError, match="NaN"):
        make_model(classes=["neg", "pos"]).partial_fit(X, yo)


# ------------------------------------------------------------ input checking
def test_nan_in_X_is_missing():
    X, y = make_stream(3000, 16)
    X.loc[X.index[::7], "x0"] = np.nan
    m = make_model(leaf_prediction="mc").partial_fit(X, y)
    assert m.n_splits >= 2
    # a row missing every value follows the heaviest child at every split
    t = m._forest
    node = 0
    while t.kind[node] != LEAF:
        first, k = t.first_child[node], t.n_children[node]
        weights = t.value[first:first + k].sum(axis=1)
        assert t.missing_child[node] == int(np.argmax(weights))
        node = first + t.missing_child[node]
    empty = pd.DataFrame({"x0": [np.nan], "x1": [np.nan], "x2": [np.nan],
                          "c": pd.Categorical([np.nan], categories=CATS)})
    np.testing.assert_allclose(m.predict_proba(empty)[0], t.value[node] / t.value[node].sum())
    pr = m.predict_proba_one({"x0": math.nan, "x1": None, "x2": None, "c": None})
    np.testing.assert_allclose([pr[c] for c in m.classes_], t.value[node] / t.value[node].sum())


def bad_chunks(X, y, classes_known=True):
    """(description, X, y, exception, message) of chunks that must be rejected."""
    Xinf = X.copy()
    Xinf.iloc[3, 0] = np.inf
    Xwide = X.assign(extra=1.0)
    Xstr = X.copy()
    Xstr["x2"] = "text"
    yo = y.astype(object).copy()
    yo[2] = np.nan
    out = [("inf in X", Xinf, y, ValueError, "infinity"),
           ("wrong feature count", Xwide, y, ValueError, "feature"),
           ("numpy with wrong feature count", np.zeros((len(X), 5)), y, ValueError, "feature"),
           ("y too short", X, y[:-1], ValueError, "rows"),
           ("string in a numeric column", Xstr, y, TypeError, "x2"),
           ("NaN label", X, yo, ValueError, "NaN")]
    if classes_known:     # while the classes are being collected, any label is new
        yz = y.astype(object).copy()
        yz[4] = "zebra"
        out.append(("unseen label", X, yz, ValueError, "zebra"))
    return out


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_rejected_chunks_leave_no_trace():
    X, y = make_stream(2000, 17)
    bounds = chunks(2000, 100)
    clean = feed(make_model(), X, y, bounds)
    model = make_model()
    for k, (lo, hi) in enumerate(bounds):
        if k == 0:               # a rejected first chunk fixes neither features nor classes
            Xb, yb = X.iloc[lo:hi, :2].copy(), y[lo:hi].astype(object)
            Xb.iloc[0, 0] = np.inf
            with pytest.raises(ValueError, match="infinity"):
                model.partial_fit(Xb, y[lo:hi])
            yb[0] = np.nan
            with pytest.raises(ValueError, match="NaN"):
                model.partial_fit(X.iloc[lo:hi, :2], yb)
        if k in (1, 5, 12):      # while buffering, just after, mid-stream
            for what, Xb, yb, exc, match in bad_chunks(X.iloc[lo:hi], y[lo:hi], k > 1):
                with pytest.raises(exc, match=match):
                    model.partial_fit(Xb, yb)
        model.partial_fit(X.iloc[lo:hi], y[lo:hi])
    assert clean.n_splits >= 2
    assert_same_model(model, clean)
    assert_same_predictions(model, clean, X.iloc[:300])


def test_non_numeric_without_categories_raises():
    X, y = make_stream(300, 18)
    Xs = X.assign(c=X["c"].astype(str))
    with pytest.raises(TypeError, match="neither numeric nor 'category'"):
        make_model().partial_fit(Xs, y)
    with pytest.raises(TypeError, match="nominal_features"):
        make_model().learn_one({"x0": 0.5, "c": "a"}, "pos")
    # declared by name it is nominal
    m = make_model(nominal_features=["c"]).partial_fit(Xs, y)
    assert m._encoding.is_nominal.tolist() == [False, False, False, True]


def test_predict_input_checks():
    X, y = make_stream(600, 19)
    m = make_model().partial_fit(X, y)
    Xinf = X.iloc[:5].copy()
    Xinf.iloc[0, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        m.predict(Xinf)
    with pytest.raises(ValueError, match="feature"):
        m.predict(X.iloc[:5].assign(extra=0.0))
    with pytest.raises(ValueError, match="feature names"):
        m.predict(X.iloc[:5].rename(columns={"x0": "z0"}))
    # an unknown category is routed like a missing value, not an error
    Xu = X.iloc[:3].copy()
    Xu["c"] = pd.Categorical(["d", "d", "d"], categories=CATS)
    assert_valid_proba(m, Xu)
    # before the classes are known: the majority label so far (issue 14), but a
    # model that saw nothing is not fitted
    fresh = make_model().partial_fit(X.iloc[:50], y[:50])
    labels, counts = np.unique(y[:50], return_counts=True)
    assert (fresh.predict(X) == labels[np.argmax(counts)]).all()
    with pytest.raises(AttributeError) as info:
        make_model().predict(X)
    assert type(info.value).__name__ == "NotFittedError"


BAD_PARAMS = [
    (dict(grace_period=0), ValueError, "grace_period must be an int >= 1"),
    (dict(grace_period=2.5), ValueError, "grace_period"),
    (dict(leaf_prediction="x"), ValueError, "leaf_prediction must be one of"),
    (dict(min_branch_fraction=0.7), ValueError, r"min_branch_fraction must be a float in \[0, 0.5\)"),
    (dict(min_branch_fraction=-0.1), ValueError, "min_branch_fraction"),
    (dict(rule="bogus"), ValueError, "unknown rule 'bogus'"),
    (dict(criterion="bogus"), ValueError, "unknown classification criterion 'bogus'"),
    (dict(rule=42), TypeError, "rule must be a name"),
    (dict(criterion=3), TypeError, "criterion must be a string"),
    (dict(max_bins=1), ValueError, "max_bins must be an int >= 2"),
    (dict(n_range_samples=0), ValueError, "n_range_samples"),
    (dict(delta=0.0), ValueError, r"delta must be a float in \(0, 1\)"),
    (dict(delta=1.5, rule="ttest"), ValueError, "delta"),
    (dict(tau=-1.0), ValueError, "tau must be >= 0"),
]


@pytest.mark.parametrize("kw,exc,match", BAD_PARAMS)
def test_bad_parameters(kw, exc, match):
    X, y = make_stream(300, 20)
    m = make_model(**kw)
    with pytest.raises(exc, match=match):
        m.partial_fit(X, y)
    with pytest.raises(exc, match=match):
        make_model(**kw).learn_one(rows_of(X)[0], y[0])
    with pytest.raises(exc, match=match):
        make_model(**kw).fit(X, y)
    # fixing the parameter makes the same estimator usable
    good = {k: HoeffdingTreeClassifier().get_params()[k] for k in kw}
    m.set_params(**good)
    m.fit(X, y)
    assert m.n_seen == 300


def test_sample_weight_is_not_a_parameter():
    """Instance weights are not supported: fit / partial_fit have no
    ``sample_weight`` (scikit-learn's convention), so passing one is a TypeError."""
    X, y = make_stream(300, 21)
    with pytest.raises(TypeError, match="sample_weight"):
        make_model().partial_fit(X, y, sample_weight=np.ones(300))
    with pytest.raises(TypeError, match="sample_weight"):
        make_model().fit(X, y, sample_weight=np.ones(300))


# ------------------------------------------------------------------ model size
@pytest.mark.parametrize("n_classes", [2, 3])
def test_size_attributes_match_forest(n_classes):
    X, y = make_stream(4000, 22, n_classes)
    m = make_model().partial_fit(X, y)
    t = m._forest
    n = int(t.sizes[0])
    internal = [i for i in range(n) if t.kind[i] != LEAF]
    assert m.n_nodes == n
    assert m.n_leaves == n - len(internal)
    assert m.n_leaves == 1 + sum(int(t.n_children[i]) - 1 for i in internal)
    assert m.n_splits == len(internal) >= 3
    assert m.depth == int(t.depth[:n].max()) >= 2
    assert m.n_seen == 4000

    def walk(node):
        if t.kind[node] == LEAF:
            return 0
        return 1 + max(walk(t.first_child[node] + j) for j in range(t.n_children[node]))
    assert m.depth == walk(0)
    # every node is reachable from the root exactly once; leaves own a slot
    seen = set()
    stack = [0]
    while stack:
        node = stack.pop()
        assert node not in seen
        seen.add(node)
        if t.kind[node] != LEAF:
            assert m._state.slot_of[node] == -1
            stack.extend(t.first_child[node] + j for j in range(t.n_children[node]))
        else:
            assert m._state.slot_of[node] >= 0
    assert seen == set(range(n))
    # splits happen at split attempts: every grace_period instances of a leaf
    for i in internal:
        assert t.n_samples[i] > 0 and t.n_samples[i] % m.grace_period == 0


def test_size_attributes_before_the_range_is_known():
    X, y = make_stream(100, 23)
    m = make_model(classes=["neg", "pos"]).partial_fit(X, y)     # 100 < n_range_samples
    assert (m.n_nodes, m.n_leaves, m.depth, m.n_splits, m.n_seen) == (1, 1, 0, 0, 100)
    # issue 14: the class prior of the 100 rows seen, not uniform
    prior = np.array([np.mean(y == "neg"), np.mean(y == "pos")])
    np.testing.assert_allclose(m.predict_proba(X.iloc[:3]), np.tile(prior, (3, 1)))
    # classes not known yet: still the one-leaf model; predicts the prior too
    u = make_model().partial_fit(X, y)
    assert (u.n_nodes, u.n_leaves, u.n_splits, u.n_seen) == (1, 1, 0, 100)
    np.testing.assert_allclose(u.predict_proba(X.iloc[:3]), np.tile(prior, (3, 1)))


# ---------------------------------------------------------------- accuracy
@pytest.mark.parametrize("mode", ["mc", "nba"])
def test_prequential_accuracy_on_a_clear_concept(mode):
    rng = np.random.RandomState(24)
    n = 20_000
    X = rng.rand(n, 4)
    y = (X[:, 0] > 0.5).astype(int)
    flip = rng.rand(n) < 0.05
    y[flip] = 1 - y[flip]
    m = HoeffdingTreeClassifier(leaf_prediction=mode, classes=[0, 1])
    correct = 0
    for lo, hi in chunks(n, 500):            # test, then train (the first chunk counts as wrong)
        if lo > 0:
            correct += int((m.predict(X[lo:hi]) == y[lo:hi]).sum())
        m.partial_fit(X[lo:hi], y[lo:hi])
    assert correct / n > 0.9
    # one chunk of 20,000 rows (bin codes computed in parallel) learns the same model
    one = HoeffdingTreeClassifier(leaf_prediction=mode, classes=[0, 1]).partial_fit(X, y)
    assert_same_model(one, m)
    assert m._forest.feature[0] == 0
    # the root threshold is the bin holding 0.5
    b = m._forest.threshold[0] - 0.5
    assert abs(m._lo[0] + (b + 1) * (m._hi[0] - m._lo[0]) / m.max_bins - 0.5) <= 2 / m.max_bins


def test_wide_nominal_feature_and_few_bins():
    """A nominal feature with more categories than numeric bins: a 12-way split and
    naive-Bayes leaves smoothed over the categories."""
    rng = np.random.RandomState(25)
    n = 3000
    cats = [f"k{j:02d}" for j in range(12)]
    c = rng.choice(cats, n)
    X = pd.DataFrame({"c": pd.Categorical(c, categories=cats), "x": rng.rand(n)})
    good = np.isin(c, cats[:5])
    y = np.where(good ^ (rng.rand(n) < 0.05), 1, 0)
    m = HoeffdingTreeClassifier(max_bins=4, grace_period=100, n_range_samples=200,
                                leaf_prediction="nb").partial_fit(X, y)
    t = m._forest
    assert t.kind[0] == NOMINAL and t.n_children[0] == 12
    assert (m.predict(X) == (good * 1)).mean() > 0.9
    assert_valid_proba(m, X.iloc[:50])


# ------------------------------------------------------------ sklearn conventions
def test_get_set_params_and_clone():
    rule = CTreeRule(c=0.1)
    m = HoeffdingTreeClassifier(grace_period=77, rule=rule, criterion="gini")
    p = m.get_params(deep=False)
    assert p["grace_period"] == 77 and p["rule"] is rule and p["criterion"] == "gini"
    # deep: the rule's own parameters too (scikit-learn's nested convention)
    assert m.get_params()["rule__c"] == 0.1
    assert set(p) == {"grace_period", "delta", "tau", "criterion", "rule", "leaf_prediction",
                      "max_bins", "n_range_samples", "min_branch_fraction",
                      "nominal_features", "classes", "observer", "n_split_points",
                      "inherited_counts", "nb_form"}
    assert m.set_params(grace_period=55, leaf_prediction="mc") is m
    assert m.grace_period == 55 and m.leaf_prediction == "mc"
    X, y = make_stream(1500, 26)
    m.fit(X, y)
    c = clone(m)
    assert not hasattr(c, "_forest") and not hasattr(c, "classes_")
    assert c.get_params()["grace_period"] == 55
    c.fit(X, y)
    assert_same_model(c, m)


def test_fit_resets():
    X1, y1 = make_stream(2000, 27)
    X2, y2 = make_stream(2000, 28, n_classes=3)
    m = make_model().partial_fit(X1, y1)
    m.fit(X2, y2)
    fresh = make_model().fit(X2, y2)
    assert list(m.classes_) == ["u", "v", "w"]
    assert m.n_seen == 2000
    assert_same_model(m, fresh)
    assert_same_predictions(m, fresh, X2.iloc[:200])
    # fit after learn_one rows still queued
    rows = rows_of(X2.iloc[:300])
    for r, yy in zip(rows, y2[:300]):
        m.learn_one(r, yy)
    m.fit(X2, y2)
    assert_same_model(m, fresh)


def test_refit_on_numpy_forgets_feature_names():
    X, y = make_stream(500, 30)
    m = make_model().fit(X, y)
    m.fit(X[["x0", "x1", "x2"]].to_numpy(), y)
    assert m.n_features_in_ == 3
    assert not hasattr(m, "feature_names_in_")


def test_set_params_mid_stream_changes_the_rule():
    """The engine rule is rebuilt when its parameters change: a rule that cannot
    split, set halfway, stops the growth; a rule set back resumes it."""
    X, y = make_stream(4000, 29, n_classes=3)
    m = make_model().partial_fit(X.iloc[:1500], y[:1500])
    k = m.n_splits
    assert k >= 1
    m.set_params(rule=HoeffdingRule(value_range=1e6, tau=0.0))
    m.partial_fit(X.iloc[1500:3000], y[1500:3000])
    assert m.n_splits == k
    m.set_params(rule=None, tau=1.0)              # tie-break at once
    m.partial_fit(X.iloc[3000:], y[3000:])
    assert m.n_splits > k


@pytest.mark.parametrize("learner", ["ht", "sgt"])
@pytest.mark.parametrize("declared", [True, False])
def test_reused_chunk_buffers_do_not_corrupt_the_buffered_start(learner, declared):
    """Streams are often fed from one preallocated chunk array refilled in place:
    the rows buffered until the bin range is known must not change with it."""
    from treelab import SGTClassifier
    rng = np.random.default_rng(0)
    X = rng.random((3000, 3))
    y = (X[:, 0] > 0.5).astype(int)
    kw = dict(classes=[0, 1]) if declared else {}
    make = (lambda: HoeffdingTreeClassifier(grace_period=50, **kw)) if learner == "ht" else (
        lambda: SGTClassifier(grace_period=50, delta=1e-3, **kw))
    fresh, reused = make(), make()
    xbuf, ybuf = np.empty((100, 3)), np.empty(100, dtype=int)
    for s in range(0, 3000, 100):
        fresh.partial_fit(X[s:s + 100].copy(), y[s:s + 100].copy())
        xbuf[:] = X[s:s + 100]
        ybuf[:] = y[s:s + 100]
        reused.partial_fit(xbuf, ybuf)
    np.testing.assert_array_equal(fresh._lo, reused._lo)
    np.testing.assert_array_equal(fresh._hi, reused._hi)
    assert_same_model(fresh, reused)


@pytest.mark.parametrize("learner", ["ht", "sgt"])
def test_plain_array_fast_paths_validate_like_the_general_path(learner):
    """Float64 arrays and integer labels 0..k-1 skip the general validators:
    infinity, labels outside the classes, other layouts and dtypes must still
    be handled exactly as the general path handles them."""
    from treelab import SGTClassifier
    rng = np.random.default_rng(1)
    X = rng.random((1500, 3))
    y = (X[:, 0] > 0.5).astype(np.int64)
    make = (lambda: HoeffdingTreeClassifier(grace_period=50, classes=[0, 1])) if learner == "ht" \
        else (lambda: SGTClassifier(grace_period=50, delta=1e-3, classes=[0, 1]))
    ref = make().partial_fit(X, y)
    m = make().partial_fit(X[:1200], y[:1200])
    bad = X[1200:1300].copy()
    bad[7, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        m.partial_fit(bad, y[1200:1300])
    with pytest.raises(ValueError, match="infinity"):
        m.predict(bad)
    for label in (2, -1):
        yb = y[1200:1300].copy()
        yb[5] = label
        with pytest.raises(ValueError, match="not one of the classes"):
            m.partial_fit(X[1200:1300], yb)
    m.partial_fit(np.asfortranarray(X[1200:1300]), y[1200:1300].astype(np.uint8))
    m.partial_fit(X[1300:].tolist(), y[1300:].tolist())          # the general path
    assert_same_model(ref, m)                     # the rejected chunks left no trace
    np.testing.assert_array_equal(m.predict(X), m.predict(pd.DataFrame(X)))
    np.testing.assert_array_equal(m.predict(X), m.predict(X.astype(np.float32)))
