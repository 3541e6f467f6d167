"""Stochastic Gradient Trees: behaviour of the learners (treelab.learners.sgt).

Exactness against the paper is checked in ``test_sgt_reference.py``; here:
pickling mid-stream, determinism, the multi-instance learner, input
validation (NaN allowed as missing, inf / NaN targets / unseen labels / wrong
shapes rejected) without corrupting the stream, the model-size attributes,
a user-defined loss and a user-defined split decision rule.
"""
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from numba import njit

from _stream_reference import assert_same_model, chunks, feed
from treelab import SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor
from treelab._engine.signatures import RULE_SIG
from treelab._engine.streaming import EV_D, EV_K, EV_MERIT, EV_N, EV_T
from treelab._engine.tree import LEAF
from treelab.losses import Loss

CATS = ["a", "b", "c", "d"]


# ------------------------------------------------------------------------ data
def make_stream(task, n, seed):
    """Numeric features (one with missing values), a nominal one declared as a pandas
    category, and a target that depends on both."""
    rng = np.random.RandomState(seed)
    x0 = rng.randn(n)
    x1 = rng.rand(n)
    c = rng.choice(CATS[:3], n)
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": rng.randn(n),
                      "c": pd.Categorical(c, categories=CATS)})
    X.loc[rng.rand(n) < 0.05, "x1"] = np.nan
    isb = (c == "b").astype(float)
    if task == "regression":
        y = 3.0 * np.sin(2 * x0) + 2.0 * isb - 2.0 * (x1 > 0.6) + rng.randn(n) * 0.5
    elif task == "binary":
        logit = 2.5 * x0 + 2.0 * isb - 2.5 * (x1 > 0.6)
        y = np.where(rng.rand(n) < 1 / (1 + np.exp(-logit)), "pos", "neg")
    else:
        s = np.stack([2.0 * x0 + 1.5 * isb, -2.0 * x0 + 2.0 * (x1 > 0.5), np.zeros(n)], axis=1)
        s += rng.gumbel(size=s.shape) * 0.7
        y = np.array(["u", "v", "w"])[s.argmax(axis=1)]
    return X, y


PARAMS = dict(grace_period=50, delta=1e-3, gamma=0.1, max_bins=32, n_range_samples=200)


def make_model(task, **kw):
    cls = SGTRegressor if task == "regression" else SGTClassifier
    return cls(**dict(PARAMS, **kw))


def rows_of(X):
    cols = list(X.columns)
    vals = [X[c].tolist() for c in cols]
    return [{c: v[i] for c, v in zip(cols, vals)} for i in range(len(X))]


def assert_same_predictions(a, b, X):
    if isinstance(a, SGTClassifier):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


TASKS = ["regression", "binary", "multiclass"]


# ------------------------------------------------------------------- pickling
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("at", [3, 12])     # while buffering the range / mid-stream
def test_pickle_mid_stream(task, at):
    X, y = make_stream(task, 2000, 1)
    bounds = chunks(2000, 60)
    a = feed(make_model(task), X, y, bounds[:at])
    b = pickle.loads(pickle.dumps(a))
    if at == 12:
        assert a.n_seen == 720 and a.n_splits > 0
    feed(a, X, y, bounds[at:])
    feed(b, X, y, bounds[at:])
    assert a.n_splits > 3
    assert_same_model(a, b)
    assert_same_predictions(a, b, X.iloc[:300])


def test_pickle_with_queued_learn_one_rows():
    X, y = make_stream("binary", 1500, 2)
    rows = rows_of(X)
    a = make_model("binary").partial_fit(X.iloc[:500], y[:500])
    for i in range(500, 650):              # rows queued by learn_one, not yet learned
        a.learn_one(rows[i], y[i])
    b = pickle.loads(pickle.dumps(a))
    ref = make_model("binary").partial_fit(X.iloc[:650], y[:650])
    assert_same_model(b, ref)
    for i in range(650, 1500):
        a.learn_one(rows[i], y[i])
        b.learn_one(rows[i], y[i])
    assert_same_model(a, b)
    assert_same_predictions(a, b, X.iloc[:200])


# ---------------------------------------------------------------- determinism
@pytest.mark.parametrize("task", TASKS)
def test_same_stream_same_model(task):
    X, y = make_stream(task, 2000, 3)
    a = make_model(task).partial_fit(X, y)
    b = make_model(task).partial_fit(X, y)
    c = feed(make_model(task), X, y, chunks(2000, 37))
    assert a.n_splits > 3
    assert_same_model(a, b)
    assert_same_model(a, c)
    assert_same_predictions(a, c, X)


# ------------------------------------------------------------- multi-instance
def mil_data(n_bags, seed):
    """Bags of 3-8 instances in [0, 1]^3; a bag is positive iff one of its instances
    has x0 > 0.8 (about half the bags are forced negative)."""
    rng = np.random.RandomState(seed)
    X, bags, y = [], [], []
    for b in range(n_bags):
        k = rng.randint(3, 9)
        Xi = rng.rand(k, 3)
        if rng.rand() < 0.5:
            Xi[:, 0] = rng.rand(k) * 0.8
        X.append(Xi)
        bags += [b] * k
        y += [int((Xi[:, 0] > 0.8).any())] * k
    return np.vstack(X), np.array(y), np.array(bags)


MIL_PARAMS = dict(grace_period=50, delta=1e-3, gamma=0.1, n_range_samples=200, n_epochs=10)


def test_multi_instance_learns_and_is_reproducible():
    X, y, bags = mil_data(500, 0)
    Xt, yt, bt = mil_data(300, 1)
    a = SGTMultiInstanceClassifier(random_state=0, **MIL_PARAMS).fit(X, y, bags)
    b = SGTMultiInstanceClassifier(random_state=0, **MIL_PARAMS).fit(X, y, bags)
    assert_same_model(a, b)
    np.testing.assert_array_equal(a.decision_function(Xt, bt), b.decision_function(Xt, bt))
    assert a.n_splits >= 1
    # the tree learns the concept "x0 > 0.8": root split on feature 0 near 0.8
    assert a._forest.feature[0] == 0
    assert a.score(Xt, yt, bt) >= 0.95
    # one label per bag (in order of first appearance) gives the same model
    yb = y[np.unique(bags, return_index=True)[1]]
    c = SGTMultiInstanceClassifier(random_state=0, **MIL_PARAMS).fit(X, yb, bags)
    assert_same_model(a, c)
    # bag scores are the maxima of the instance scores
    proba = a.predict_proba(Xt, bt)
    assert proba.shape == (300, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="different labels"):
        SGTMultiInstanceClassifier(**MIL_PARAMS).fit(X, np.r_[1 - y[:1], y[1:]], bags)


def test_multi_instance_random_state_matters():
    X, y, bags = mil_data(200, 4)
    params = dict(MIL_PARAMS, n_epochs=3)
    a = SGTMultiInstanceClassifier(random_state=0, **params).fit(X, y, bags)
    b = SGTMultiInstanceClassifier(random_state=1, **params).fit(X, y, bags)
    Xt, _, bt = mil_data(100, 5)
    assert not np.array_equal(a.decision_function(Xt, bt), b.decision_function(Xt, bt))


# ------------------------------------------------------------ input checking
def test_nan_in_X_is_missing():
    X, y = make_stream("regression", 1500, 5)
    X.loc[X.index[::7], "x0"] = np.nan
    X.loc[X.index[::11], "c"] = np.nan
    m = make_model("regression").partial_fit(X, y)
    assert m.n_splits > 0
    # a row missing every value goes to child 0 at every split
    t = m._forest
    node = 0
    while t.kind[node] != LEAF:
        node = t.first_child[node] + t.missing_child[node]
        assert t.missing_child[t.parent[node]] == 0
    empty = pd.DataFrame({"x0": [np.nan], "x1": [np.nan], "x2": [np.nan],
                          "c": pd.Categorical([np.nan], categories=CATS)})
    assert m.predict(empty)[0] == t.value[node, 0]
    assert m.predict_one({"x0": None, "x1": math.nan, "x2": None, "c": None}) == t.value[node, 0]


def bad_chunks(task, X, y, classes_known=True):
    """(description, X, y, message) of chunks that must be rejected with a ValueError."""
    Xinf = X.copy()
    Xinf.iloc[3, 0] = np.inf
    Xwide = X.assign(extra=1.0)
    out = [("inf in X", Xinf, y, "infinity"),
           ("wrong feature count", Xwide, y, "feature"),
           ("numpy with wrong feature count", np.zeros((len(X), 5)), y, "feature"),
           ("y too short", X, y[:-1], None)]
    if task == "regression":
        ynan = y.astype(float).copy()
        ynan[2] = np.nan
        out.append(("NaN in y", X, ynan, "NaN"))
    else:
        yo = y.astype(object).copy()
        yo[2] = np.nan
        out.append(("NaN label", X, yo, "NaN"))
        if not classes_known:     # while the classes are being collected, any label is new
            return out
        yz = y.astype(object).copy()
        yz[4] = "zebra"
        out.append(("unseen label", X, yz, "zebra"))
    return out


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("task", TASKS)
def test_rejected_chunks_leave_no_trace(task):
    X, y = make_stream(task, 1600, 6)
    bounds = chunks(1600, 100)
    clean = feed(make_model(task), X, y, bounds)
    model = make_model(task)
    for k, (lo, hi) in enumerate(bounds):
        if k in (1, 5, 9):        # while buffering the range, just after, mid-stream
            for what, Xb, yb, match in bad_chunks(task, X.iloc[lo:hi], y[lo:hi], k > 1):
                with pytest.raises(ValueError, match=match):
                    model.partial_fit(Xb, yb)
        model.partial_fit(X.iloc[lo:hi], y[lo:hi])
    assert_same_model(model, clean)
    assert_same_predictions(model, clean, X.iloc[:300])


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_rejected_learn_one_leaves_no_trace(task):
    X, y = make_stream(task, 1200, 7)
    rows = rows_of(X)
    clean = make_model(task).partial_fit(X, y)
    model = make_model(task).partial_fit(X.iloc[:1], y[:1])
    for i in range(1, 1200):
        if i in (150, 700, 701):
            bad = dict(rows[i], x2=math.inf)
            with pytest.raises(ValueError, match="infinite"):
                model.learn_one(bad, y[i])
            missing_key = {k: v for k, v in rows[i].items() if k != "x2"}
            with pytest.raises(ValueError, match="x2"):
                model.learn_one(missing_key, y[i])
            if task == "regression":
                with pytest.raises(ValueError):
                    model.learn_one(rows[i], math.nan)
            elif i > 200:
                with pytest.raises(ValueError, match="zebra"):
                    model.learn_one(rows[i], "zebra")
                with pytest.raises(ValueError, match="NaN"):
                    model.learn_one(rows[i], math.nan)
        model.learn_one(rows[i], y[i])
    assert_same_model(model, clean)


def test_predict_input_checks():
    X, y = make_stream("binary", 600, 8)
    m = make_model("binary").partial_fit(X, y)
    Xinf = X.iloc[:5].copy()
    Xinf.iloc[0, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        m.predict(Xinf)
    with pytest.raises(ValueError, match="feature"):
        m.predict(X.iloc[:5].assign(extra=0.0))
    with pytest.raises(ValueError, match="zebra"):
        m.partial_fit(X.iloc[:5], ["pos", "neg", "zebra", "pos", "neg"])
    # an unknown category is routed like a missing value, not an error
    Xu = X.iloc[:3].copy()
    Xu["c"] = pd.Categorical(["d", "d", "d"], categories=CATS)
    assert m.predict_proba(Xu).shape == (3, 2)


def test_declared_classes_allow_late_labels():
    X, y = make_stream("binary", 600, 9)
    y = y.astype(object)
    y[500] = "late"
    m = make_model("binary", classes=["neg", "pos", "late"]).partial_fit(X, y)
    assert list(m.classes_) == ["late", "neg", "pos"]
    assert m.predict_proba(X.iloc[:4]).shape == (4, 3)
    # undeclared: the classes are those of the first n_range_samples = 200 labels
    with pytest.raises(ValueError, match="late"):
        feed(make_model("binary"), X, y, chunks(600, 100))


def test_classes_from_first_n_range_samples_in_one_chunk():
    X, y = make_stream("binary", 600, 9)
    y = y.astype(object)
    y[500] = "late"
    with pytest.raises(ValueError, match="late"):
        make_model("binary").partial_fit(X, y)


# ------------------------------------------------------------------ model size
@pytest.mark.parametrize("task", TASKS)
def test_size_attributes_match_forest(task):
    X, y = make_stream(task, 2500, 10)
    m = make_model(task).partial_fit(X, y)
    t = m._forest
    n = int(t.sizes[0])
    K = len(m._roots)
    internal = [i for i in range(n) if t.kind[i] != LEAF]
    assert m.n_nodes == n
    assert m.n_leaves == n - len(internal)
    assert m.n_leaves == K + sum(int(t.n_children[i]) - 1 for i in internal)
    assert m.n_splits == len(internal) > 0
    assert m.depth == int(t.depth[:n].max())
    assert m.n_seen == 2500
    # depth by walking the trees from their roots
    def walk(node):
        if t.kind[node] == LEAF:
            return 0
        return 1 + max(walk(t.first_child[node] + j) for j in range(t.n_children[node]))
    assert m.depth == max(walk(r) for r in m._roots)
    # every node is reachable from exactly one root
    seen = set()
    stack = list(m._roots)
    while stack:
        node = stack.pop()
        assert node not in seen
        seen.add(node)
        if t.kind[node] != LEAF:
            stack.extend(t.first_child[node] + j for j in range(t.n_children[node]))
    assert seen == set(range(n))


def test_size_attributes_before_the_range_is_known():
    X, y = make_stream("regression", 100, 11)
    m = make_model("regression").partial_fit(X, y)        # 100 < n_range_samples
    assert (m.n_nodes, m.n_leaves, m.depth, m.n_splits, m.n_seen) == (1, 1, 0, 0, 100)
    np.testing.assert_array_equal(m.predict(X.iloc[:3]), 0.0)


# ------------------------------------------------------------ user-defined loss
def pseudo_huber_grad(y, f):
    r = f - y
    return r / math.sqrt(1.0 + r * r)


def pseudo_huber_hess(y, f):
    r = f - y
    return (1.0 + r * r) ** -1.5


def pseudo_huber_value(y, f):
    r = f - y
    return math.sqrt(1.0 + r * r) - 1.0


@pytest.mark.parametrize("leaf_value, lam", [("paper", 10.0), ("mean", 1.0)])
def test_user_defined_loss(leaf_value, lam):
    loss = Loss.from_functions(pseudo_huber_grad, pseudo_huber_hess, name="pseudo_huber",
                               value=pseudo_huber_value)
    rng = np.random.RandomState(12)
    n = 4000
    X = pd.DataFrame({"x0": rng.rand(n), "x1": rng.rand(n)})
    clean = np.where(X.x0 > 0.5, 2.0, -2.0)
    y = clean + rng.randn(n) * 0.3 + 40.0 * (rng.rand(n) < 0.05)   # 5% gross outliers
    # lambda_ damps the Newton steps, which overshoot where the pseudo-Huber
    # Hessian vanishes (large residuals): with the paper's sums (eq. 13) it is
    # added to a Hessian sum over ~50-200 instances, so it must be larger than
    # with the authors' means (at lambda_ = 1 the paper's form overshoots to a
    # median error of 12.8)
    params = dict(PARAMS, gamma=0.05, reg_lambda=lam, leaf_value=leaf_value)
    huber = SGTRegressor(loss=loss, **params).partial_fit(X, y)
    sq = SGTRegressor(**params).partial_fit(X, y)
    assert huber.n_splits >= 1 and huber._forest.feature[0] == 0
    pred = huber.predict(X)
    assert np.isfinite(pred).all()
    # robust to the outliers: closer to the noise-free target than squared error
    err_huber = np.median(np.abs(pred - clean))
    err_sq = np.median(np.abs(sq.predict(X) - clean))
    assert err_huber < 0.5 < err_sq
    # a Loss object learns the same as the equivalent built-in one
    sq_user = SGTRegressor(loss=Loss.from_functions(lambda y, f: f - y, lambda y, f: 1.0),
                           **params).partial_fit(X, y)
    assert_same_model(sq_user, sq)
    # pickles (by reference to the module-level functions) and continues identically
    h2 = pickle.loads(pickle.dumps(huber))
    huber.partial_fit(X.iloc[:500], y[:500])
    h2.partial_fit(X.iloc[:500], y[:500])
    assert_same_model(huber, h2)
    assert huber.predict_one({"x0": 0.9, "x1": 0.1}) == huber.predict(
        pd.DataFrame({"x0": [0.9], "x1": [0.1]}))[0]


# ----------------------------------------------------- user-defined decision rule
@njit(RULE_SIG, cache=True)
def greedy_rule(evidence, params):
    """Split (or update) whenever the best candidate reduces the loss at all."""
    return evidence[EV_MERIT] > params[0]


class GreedyRule:
    rule_fn = greedy_rule

    @property
    def params(self):
        return np.array([0.0])


@njit(RULE_SIG, cache=True)
def spy_rule(evidence, params):
    """Never splits; records the evidence it is shown in ``params``."""
    params[0] += 1.0
    params[1] = max(params[1], evidence[EV_N])
    params[2] = evidence[EV_T]
    params[3] = evidence[EV_D]
    params[4] = evidence[EV_K]
    if evidence[EV_N] % 50.0 != 0.0:
        params[5] += 1.0
    return False


class SpyRule:
    def __init__(self):
        self.params = np.zeros(6)

    rule_fn = spy_rule


def test_user_defined_rule_splits_more():
    X, y = make_stream("regression", 2000, 13)
    ttest = make_model("regression").partial_fit(X, y)
    greedy = make_model("regression", rule=GreedyRule()).partial_fit(X, y)
    assert greedy.n_splits > ttest.n_splits > 0
    # pickles with the rule and continues identically
    g2 = pickle.loads(pickle.dumps(greedy))
    greedy.partial_fit(X.iloc[:300], y[:300])
    g2.partial_fit(X.iloc[:300], y[:300])
    assert_same_model(greedy, g2)


def test_rule_sees_the_evidence_vector():
    X, y = make_stream("multiclass", 1030, 14)
    spy = SpyRule()
    m = make_model("multiclass", rule=spy).partial_fit(X, y)
    rec = getattr(m, "_rule_params", spy.params)     # the array the kernel wrote into
    assert m.n_splits == 0 and m.n_leaf_updates == 0
    # K = 2 trees, each root evaluated at 50, 100, ..., 1000 instances
    assert rec[0] == 2 * 20
    assert rec[1] == 1000
    assert rec[2] == 1000
    assert (rec[3], rec[4]) == (4, 2)
    assert rec[5] == 0


# ------------------------------------------------------- regressions of fixed bugs
def test_learn_one_with_declared_categories():
    m = SGTRegressor(n_range_samples=10, nominal_features={"c": CATS})
    m.learn_one({"x0": 0.5, "c": "b"}, 1.0)
    assert list(m._encoding.categories[1]) == CATS


def test_rejected_first_chunk_leaves_no_trace():
    X, y = make_stream("regression", 300, 15)
    m = make_model("regression")
    ybad = y.copy()
    ybad[0] = np.nan
    with pytest.raises(ValueError):
        m.partial_fit(X.iloc[:10, :2], ybad[:10])
    m.partial_fit(X, y)
    assert_same_model(m, make_model("regression").partial_fit(X, y))


@pytest.mark.parametrize("bad", ["sum", "Paper", None, 1])
def test_bad_leaf_value_is_rejected_before_any_data(bad):
    X, y = make_stream("binary", 300, 17)
    for task in TASKS:
        with pytest.raises(ValueError, match="leaf_value must be 'paper'"):
            make_model(task, leaf_value=bad).partial_fit(X.iloc[:5], y[:5])
        m = make_model(task, leaf_value=bad)
        with pytest.raises(ValueError, match="leaf_value"):
            m.learn_one(rows_of(X)[0], y[0])
        assert m.n_seen == 0
        m.set_params(leaf_value="mean")          # fixing it makes the estimator usable
    Xb, yb, bags = mil_data(20, 0)
    with pytest.raises(ValueError, match="leaf_value"):
        SGTMultiInstanceClassifier(leaf_value=bad, **MIL_PARAMS).fit(Xb, yb, bags)


def test_leaf_value_default_is_the_papers():
    for cls in (SGTClassifier, SGTRegressor, SGTMultiInstanceClassifier):
        assert cls().get_params()["leaf_value"] == "paper"


def test_classifier_n_seen_while_buffering():
    X, y = make_stream("binary", 100, 16)
    assert make_model("binary").partial_fit(X, y).n_seen == 100


def test_chunk_then_learn_one_starts_on_time():
    X, y = make_stream("binary", 200, 17)
    m = make_model("binary").partial_fit(X.iloc[:10], y[:10])
    rows = rows_of(X)
    for i in range(10, 200):                 # 200 = n_range_samples
        m.learn_one(rows[i], y[i])
    assert hasattr(m, "_forest")


def test_classifier_predicts_the_prior_while_buffering():
    # classes not known yet (still buffering): predictions are the class prior of
    # the rows seen so far (issue 14: no NotFittedError once rows were seen); the
    # model size is 0 (no tree exists yet); a model that saw nothing is not fitted
    X, y = make_stream("binary", 50, 18)
    with pytest.raises(AttributeError) as info:
        make_model("binary").predict(X)
    assert type(info.value).__name__ == "NotFittedError"
    m = make_model("binary").partial_fit(X, y)
    labels, counts = np.unique(y, return_counts=True)
    np.testing.assert_allclose(m.predict_proba(X.iloc[:4]), np.tile(counts / 50, (4, 1)))
    assert (m.predict(X) == labels[np.argmax(counts)]).all()
    assert m.n_nodes == 0 and m.n_leaves == 0


def _exp_link(raw):
    return np.exp(raw)


def test_predict_one_applies_inverse_link():
    loss = Loss.from_functions(pseudo_huber_grad, pseudo_huber_hess, inverse_link=_exp_link)
    X, y = make_stream("regression", 400, 19)
    m = make_model("regression", loss=loss).partial_fit(X, y)
    row = rows_of(X.iloc[:1])[0]
    assert m.predict_one(row) == pytest.approx(m.predict(X.iloc[:1])[0])


@pytest.mark.parametrize("kind", ["sgt_clf", "sgt_reg", "ht"])
def test_fit_on_fewer_rows_than_the_range_sample_learns_them_all(kind):
    """A batch ``fit`` knows it has all the data: with fewer rows than
    ``n_range_samples`` the range comes from all of them and every row is
    learned (the same model as a stream whose range sample is exactly n);
    ``partial_fit`` keeps buffering as a stream must."""
    from sklearn.datasets import load_breast_cancer
    from treelab import HoeffdingTreeClassifier
    X, y = load_breast_cancer(return_X_y=True)
    n = X.shape[0]
    if kind == "sgt_reg":
        y = X[:, 0] * 3.0 + X[:, 1]
        make = lambda **kw: SGTRegressor(grace_period=50, delta=1e-2, **kw)  # noqa: E731
    elif kind == "sgt_clf":
        make = lambda **kw: SGTClassifier(grace_period=50, delta=1e-2, **kw)  # noqa: E731
    else:
        make = lambda **kw: HoeffdingTreeClassifier(grace_period=50, delta=1e-2,  # noqa: E731
                                                    tau=0.2, **kw)
    fitted = make().fit(X, y)
    assert fitted.n_seen == n and fitted.n_splits >= 1
    assert_same_model(fitted, make(n_range_samples=n).partial_fit(X, y))
    if kind != "sgt_reg":
        assert fitted.score(X, y) > 0.85
    streamed = make().partial_fit(X, y)                      # still buffering
    assert streamed.n_splits == 0 and streamed.n_nodes <= 1 and streamed.n_seen == n
    assert not hasattr(streamed, "_forest")
