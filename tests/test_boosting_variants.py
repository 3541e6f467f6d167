"""Gradient boosting, issue 10 items 3-4: the first-order variants, the robust losses,
softmax with one tree per class, column sampling, validation_fraction, n_jobs and
warm_start.

References: a brute-force least-squares stump booster and Li Hang's worked example
(the slides' boosting-tree algorithm), the slow pure-Python tree grower of
test_newton.py (same splits, same leaf values), scipy / numpy for the line
searches, a user loss defined outside the package (tests/user_loss/my_loss.py)."""
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from treelab import GradientBoostingClassifier, GradientBoostingRegressor, SGTRegressor
from treelab._engine.binning import bin_data
from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.merit import TASK_DENSE
from treelab._engine.tree import LEAF, trim
from treelab.losses import (
    AbsoluteError, Huber, MultinomialSoftmax, Quantile, Softmax, get_loss, weighted_quantile,
)
from treelab.split_criteria import NewtonCriterion, newton_stats

from test_newton import _ref_predict, _ref_tree

sys.path.insert(0, str(Path(__file__).resolve().parent / "user_loss"))
import my_loss  # noqa: E402


# ------------------------------------------------------ the slides' boosting tree
# Li Hang, Statistical Learning Methods (统计学习方法), Example 8.2: the course
# slides' "Boosting Tree" algorithm (f_0 = 0, fit a regression tree to the
# residuals, add it) with stumps on ten points.  The book prints (rounding its
# intermediate results): splits 6.5, 3.5, 6.5, 4.5, 6.5, 2.5; T_1 = 6.24 | 8.91,
# L(y, f_1) = 1.93, ..., L(y, f_6) = 0.17.
LH_X = np.arange(1.0, 11.0).reshape(-1, 1)
LH_Y = np.array([5.56, 5.70, 5.91, 6.40, 6.80, 7.05, 8.90, 8.70, 9.00, 9.05])


def _stump_booster(x, y, rounds):
    """Least-squares stumps on residuals, every threshold tried (pure Python)."""
    f = np.zeros_like(y)
    out = []
    for _ in range(rounds):
        r = y - f
        best = None
        for s in (x[:-1] + x[1:]) / 2:
            L, R = r[x <= s], r[x > s]
            e = ((L - L.mean()) ** 2).sum() + ((R - R.mean()) ** 2).sum()
            if best is None or e < best[0] - 1e-12:
                best = (e, s, L.mean(), R.mean())
        _, s, c1, c2 = best
        f = f + np.where(x <= s, c1, c2)
        out.append((s, c1, c2, f.copy()))
    return out


def test_residual_method_reproduces_the_boosting_tree_example():
    gb = GradientBoostingRegressor(method="residual", n_estimators=6, learning_rate=1.0,
                                   max_depth=1).fit(LH_X, LH_Y)
    ref = _stump_booster(LH_X[:, 0], LH_Y, 6)
    staged = list(gb.staged_predict(LH_X))
    assert gb.base_score_[0] == 0.0                       # f_0(x) = 0
    for (s, c1, c2, f), pred, (t, _) in zip(ref, staged, gb._trees):
        assert t.threshold[0] == s
        np.testing.assert_allclose(pred, f, rtol=1e-12, atol=1e-12)
    assert [r[0] for r in ref] == [6.5, 3.5, 6.5, 4.5, 6.5, 2.5]
    assert (round(ref[0][1], 2), round(ref[0][2], 2)) == (6.24, 8.91)
    loss = [((LH_Y - p) ** 2).sum() for p in staged]
    assert round(loss[0], 2) == 1.93 and round(loss[5], 2) == 0.17
    assert all(a > b for a, b in zip(loss, loss[1:]))


def _reg_data(seed=0, n=160, d=3, missing=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(1)
    y = 2 * X[:, 0] + np.sin(2 * X[:, 1]) + rng.standard_t(3, size=n) * 0.5
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X, y


def test_gradient_with_squared_loss_equals_residual():
    X, y = _reg_data(1, missing=True)
    kw = dict(n_estimators=8, learning_rate=0.5, max_depth=3, base_score=0.0)
    a = GradientBoostingRegressor(method="gradient", **kw).fit(X, y)
    b = GradientBoostingRegressor(method="residual", **kw).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12, atol=1e-12)
    # defaults differ as the slides write them: GBDT starts at argmin_c sum L = mean(y)
    g = GradientBoostingRegressor(method="gradient", n_estimators=1).fit(X, y)
    r = GradientBoostingRegressor(method="residual", n_estimators=1).fit(X, y)
    assert g.base_score_[0] == pytest.approx(y.mean()) and r.base_score_[0] == 0.0


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
@pytest.mark.parametrize("missing", [False, True])
def test_gbdt_absolute_loss_equals_a_slow_python_booster(policy, missing):
    """GBDT with |y - f|: trees fit sign(y - f) by squared error, each leaf set to
    the median of its residuals (Friedman's LAD_TreeBoost)."""
    X, y = _reg_data(2, missing=missing)
    rounds, lr, max_leaves = 4, 0.5, (6 if policy == "lossguide" else None)
    gb = GradientBoostingRegressor(loss="absolute_error", method="gradient", n_estimators=rounds,
                                   learning_rate=lr, max_depth=3, grow_policy=policy,
                                   max_leaves=max_leaves or 0, min_child_weight=1.0,
                                   min_samples_leaf=5).fit(X, y)
    f = np.full(len(y), np.median(y))
    assert gb.base_score_[0] == np.median(y)
    for _ in range(rounds):
        g = np.sign(f - y)
        tree = _ref_tree(X, g, np.ones(len(y)), 0.0, 0.0, 0.0, 1.0, 3, max_leaves, msl=5)
        leaf_of = [id(_ref_leaf(tree, x)) for x in X]
        for leaf in _leaves(tree):
            sel = np.array([lid == id(leaf) for lid in leaf_of])
            leaf["w"] = np.median((y - f)[sel])
        f = f + lr * np.array([_ref_predict(tree, x) for x in X])
    np.testing.assert_allclose(gb.predict(X), f, rtol=1e-10, atol=1e-12)


def _ref_leaf(node, x):
    while "split" in node:
        f, thr, mslot = node["split"]
        left = (mslot == 0) if np.isnan(x[f]) else x[f] <= thr
        node = node["kids"][0 if left else 1]
    return node


def _leaves(node):
    return [node] if "split" not in node else [lf for k in node["kids"] for lf in _leaves(k)]


def _softmax(raw):
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("missing", [False, True])
def test_softmax_grows_one_tree_per_class_as_a_slow_python_booster(missing):
    rng = np.random.default_rng(3)
    n, d, k = 150, 3, 3
    X = rng.normal(size=(n, d)).round(1)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) * 0.4, [-0.5, 0.5])
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    lam, mcw, lr, rounds = 1.0, 0.2, 0.4, 3
    gb = GradientBoostingClassifier(n_estimators=rounds, learning_rate=lr, max_depth=3,
                                    reg_lambda=lam, min_child_weight=mcw,
                                    min_samples_leaf=4).fit(X, y)
    assert len(gb._trees) == k * rounds and gb.n_outputs_raw_ == k
    assert isinstance(gb.loss_, MultinomialSoftmax)
    prior = np.bincount(y) / n
    raw = np.tile(np.log(prior) - np.log(prior).mean(), (n, 1))
    for _ in range(rounds):
        p = _softmax(raw)
        step = np.zeros_like(raw)
        for j in range(k):
            g, h = p[:, j] - (y == j), p[:, j] * (1 - p[:, j])
            tree = _ref_tree(X, g, h, lam, 0.0, 0.0, mcw, 3, msl=4)
            step[:, j] = lr * np.array([_ref_predict(tree, x) for x in X])
        raw = raw + step                      # every class tree sees the same p
    np.testing.assert_allclose(gb.predict_proba(X), _softmax(raw), rtol=1e-9, atol=1e-12)
    # SGT's k - 1 form is still available
    sg = GradientBoostingClassifier(loss=Softmax(), n_estimators=2).fit(X, y)
    assert len(sg._trees) == 2 * (k - 1) and sg.predict_proba(X).shape == (n, k)


def test_gbdt_multiclass_leaf_is_friedmans_newton_step():
    """Algorithm 6 of Friedman (2001): gamma = (K-1)/K sum r / sum |r| (1 - |r|)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 2)).round(1)
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    gb = GradientBoostingClassifier(method="gradient", n_estimators=1, learning_rate=1.0,
                                    max_depth=2).fit(X, y)
    p0 = np.bincount(y) / len(y)
    for j in range(3):
        t = gb._trees[j][0]
        leaf = np.array([_leaf_id(t, x) for x in X])
        r = (y == j) - p0[j]
        for lf in np.flatnonzero(t.kind == LEAF):
            sel = leaf == lf
            expect = 2 / 3 * r[sel].sum() / (np.abs(r[sel]) * (1 - np.abs(r[sel]))).sum()
            assert t.value[lf, 0] == pytest.approx(expect, rel=1e-10)


def _leaf_id(t, x):
    node = 0
    while t.kind[node] != LEAF:
        left = x[t.feature[node]] <= t.threshold[node]
        node = t.first_child[node] + (0 if left else 1)
    return node


# ------------------------------------------------------------- robust losses
def test_line_searches_are_argmins():
    rng = np.random.default_rng(5)
    y = rng.standard_t(2, size=41) * 3
    raw = rng.normal(size=(41, 1))
    w = rng.uniform(0.2, 2.0, size=41)
    leaf = rng.integers(0, 3, size=41)
    # the user's pseudo-Huber loss: the default damped Newton line search
    for loss in (AbsoluteError(), Quantile(0.2), Quantile(0.9), Huber(0.7),
                 my_loss.PSEUDO_HUBER):
        c = loss.leaf_values(y, raw, w, leaf, 3)
        for j in range(3):
            sel = leaf == j

            def obj(v, sel=sel):
                return float(np.dot(w[sel], loss.value(y[sel], raw[sel] + v)))
            ref = minimize_scalar(obj, bounds=(-30, 30), method="bounded",
                                  options=dict(xatol=1e-10))
            assert obj(c[j]) <= obj(ref.x) + 1e-9, (loss, j)
    # unweighted median and quantiles of a single leaf
    r = np.array([3.0, -1.0, 7.0, 2.0])
    assert weighted_quantile(r, np.ones(4), 0.5) == np.median(r)
    assert weighted_quantile(r, np.ones(4), 0.9) == 7.0
    assert weighted_quantile(r, np.array([1.0, 1.0, 5.0, 1.0]), 0.5) == 7.0


def test_robust_loss_gradients_and_values_by_hand():
    y = np.array([0.0, 0.0, 0.0, 0.0])
    raw = np.array([[-3.0], [-0.5], [0.0], [2.0]])
    g, h = Huber(1.0).gradients(y, raw)
    np.testing.assert_array_equal(g[:, 0], [-1.0, -0.5, 0.0, 1.0])
    np.testing.assert_array_equal(h[:, 0], 1.0)                    # surrogate Hessian
    np.testing.assert_allclose(Huber(1.0).value(y, raw), [2.5, 0.125, 0.0, 1.5])
    g, _ = AbsoluteError().gradients(y, raw)
    np.testing.assert_array_equal(g[:, 0], [-1.0, -1.0, 0.0, 1.0])
    g, _ = Quantile(0.8).gradients(y, raw)
    np.testing.assert_allclose(g[:, 0], [-0.8, -0.8, 0.0, 0.2])    # y > raw: -alpha
    g, _ = Quantile(0.8).gradients(np.ones(4), raw)
    np.testing.assert_allclose(g[:, 0], [-0.8, -0.8, -0.8, 0.2])
    np.testing.assert_allclose(Quantile(0.8).value(np.ones(4), raw), [3.2, 1.2, 0.8, 0.2])
    assert get_loss("huber") == Huber(1.0) and get_loss("l1") == AbsoluteError()
    assert pickle.loads(pickle.dumps(Quantile(0.3))) == Quantile(0.3) != Quantile(0.4)
    with pytest.raises(ValueError, match="alpha"):
        Quantile(1.0)
    with pytest.raises(ValueError, match="delta"):
        Huber(0.0)


@pytest.mark.parametrize("method", ["newton", "gradient"])
def test_quantile_and_robust_regression(method):
    rng = np.random.default_rng(6)
    X = rng.uniform(-2, 2, size=(600, 2))
    y = X[:, 0] + rng.normal(size=600) * (0.5 + 0.5 * np.abs(X[:, 1]))
    q = GradientBoostingRegressor(loss=Quantile(0.9), method=method, n_estimators=40,
                                  learning_rate=0.3, max_depth=3, random_state=0).fit(X, y)
    cover = np.mean(y <= q.predict(X))
    assert 0.85 <= cover <= 0.95
    y_out = y.copy()
    y_out[:30] += 50.0                                           # gross outliers
    sq = GradientBoostingRegressor(n_estimators=40, max_depth=3, method=method).fit(X, y_out)
    for loss in ("absolute_error", "huber"):
        rb = GradientBoostingRegressor(loss=loss, method=method, n_estimators=40,
                                       max_depth=3).fit(X, y_out)
        err_rb = np.mean(np.abs(rb.predict(X[30:]) - X[30:, 0]))
        err_sq = np.mean(np.abs(sq.predict(X[30:]) - X[30:, 0]))
        assert err_rb < err_sq, loss
    with pytest.raises(ValueError, match="residual"):
        GradientBoostingRegressor(loss="huber", method="residual").fit(X, y)


def test_sgt_takes_the_robust_losses():
    """SGT uses the kernels as they are: a first-order step (unit Hessian)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 2))
    y = 3 * X[:, 0] + rng.standard_t(2, size=3000)
    for loss in (AbsoluteError(), Huber(1.0), Quantile(0.5)):
        m = SGTRegressor(loss=loss, grace_period=100).fit(X, y)
        pred = m.predict(X)
        assert np.isfinite(pred).all()
        assert np.mean(np.abs(pred - y)) < np.mean(np.abs(y - np.median(y)))


# ------------------------------------------------------------- user loss
def test_one_user_loss_object_drives_sgt_and_boosting_identically():
    """The user's squared error (defined outside the package, from gradient and
    Hessian functions) grows the same models as the built-in one, in SGT and in
    boosting; the same object pickles with the models."""
    X, y = _reg_data(8, n=400)
    a = GradientBoostingRegressor(loss=my_loss.USER_SQUARED, n_estimators=5, max_depth=3,
                                  base_score=0.0).fit(X, y)
    b = GradientBoostingRegressor(n_estimators=5, max_depth=3, base_score=0.0).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    s1 = SGTRegressor(loss=my_loss.USER_SQUARED, grace_period=50).fit(X, y)
    s2 = SGTRegressor(grace_period=50).fit(X, y)
    np.testing.assert_array_equal(s1.predict(X), s2.predict(X))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict(X), a.predict(X))
    # the pseudo-Huber user loss in both, and GBDT's default Newton-step line search
    for method in ("newton", "gradient"):
        m = GradientBoostingRegressor(loss=my_loss.PSEUDO_HUBER, method=method,
                                      n_estimators=30, max_depth=3, reg_lambda=1.0).fit(X, y)
        assert np.mean(np.abs(m.predict(X) - y)) < 0.6 * np.mean(np.abs(y - np.median(y)))
        assert len(m.evals_result_) == 0
    assert np.isfinite(SGTRegressor(loss=my_loss.PSEUDO_HUBER).fit(X, y).predict(X)).all()


# ---------------------------------------------------------- column sampling
def test_engine_feature_mask_restricts_each_level():
    rng = np.random.default_rng(9)
    n, d = 300, 4
    X = rng.normal(size=(n, d))
    g = -(X[:, 0] * 3 + X[:, 1] + X[:, 2] * 0.5 + rng.normal(size=n) * 0.1)
    crit = NewtonCriterion(reg_lambda=0.0, min_child_weight=0.0)
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)

    def grow(mask):
        P = make_params(TASK_DENSE, 3, 3, 2, 1, 0.0, 0.0, d, False, crit.merit_code,
                        crit.builtin_code, feature_mask=mask)
        return trim(build_tree(data, np.zeros(0, np.int64), newton_stats(g, np.ones(n)),
                               np.ones(n), P, crit.impurity, crit.merit, cp=crit.params))
    free = grow(None)
    same = grow(np.ones((1, d), bool))
    for f in ("feature", "threshold", "missing_child"):
        np.testing.assert_array_equal(getattr(free, f), getattr(same, f))
    assert free.feature[0] == 0
    mask = np.array([[False, True, True, True], [True, False, False, False],
                     [False, False, True, True]])
    t = grow(mask)
    for node in np.flatnonzero(t.kind != LEAF):
        assert mask[min(t.depth[node], 2), t.feature[node]]
    assert t.feature[0] == 1 and set(t.feature[t.depth == 1]) - {-1} == {0}


def test_colsample_by_tree_and_level_as_xgboost():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(400, 8))
    y = X @ rng.normal(size=8) + rng.normal(size=400) * 0.1
    gb = GradientBoostingRegressor(n_estimators=12, max_depth=4, colsample_bytree=0.5,
                                   random_state=0).fit(X, y)
    used = set()
    for t, _ in gb._trees:
        feats = set(t.feature[t.kind != LEAF])
        assert len(feats) <= 4
        used |= feats
    assert len(used) > 4
    gb = GradientBoostingRegressor(n_estimators=12, max_depth=4, colsample_bytree=0.5,
                                   colsample_bylevel=0.5, random_state=0).fit(X, y)
    for t, _ in gb._trees:
        assert len(set(t.feature[t.kind != LEAF])) <= 4
        for depth in range(4):
            assert len(set(t.feature[(t.kind != LEAF) & (t.depth == depth)])) <= 2


# ------------------------------------------------------------ warm start, RNG
@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_warm_start_continues_exactly(policy):
    X, y = _reg_data(11, n=300, d=5, missing=True)
    yc = np.digitize(y, [-1.0, 1.0])
    kw = dict(subsample=0.7, colsample_bytree=0.8, colsample_bylevel=0.8, colsample_bynode=0.7,
              max_depth=4, grow_policy=policy, max_leaves=7 if policy == "lossguide" else 0,
              random_state=12)
    for cls, target in ((GradientBoostingRegressor, y), (GradientBoostingClassifier, yc)):
        full = cls(n_estimators=10, **kw).fit(X, target)
        warm = cls(n_estimators=4, warm_start=True, **kw).fit(X, target)
        warm.set_params(n_estimators=10).fit(X, target)
        assert warm.n_iter_ == 10
        out = (lambda m: m.predict_proba(X)) if cls is GradientBoostingClassifier else \
            (lambda m: m.predict(X))
        np.testing.assert_array_equal(out(warm), out(full))
        with pytest.raises(ValueError, match="n_estimators"):
            warm.set_params(n_estimators=5).fit(X, target)
        # without warm_start a refit starts over
        cold = cls(n_estimators=10, **kw).fit(X, target)
        np.testing.assert_array_equal(out(cold), out(full))
    clf = GradientBoostingClassifier(n_estimators=2, warm_start=True).fit(X, yc)
    with pytest.raises(ValueError, match="classes"):
        clf.set_params(n_estimators=3).fit(X, np.where(yc == 2, 3, yc))


def test_warm_start_with_validation_fraction_and_early_stopping():
    X, y = _reg_data(13, n=400)
    kw = dict(validation_fraction=0.25, learning_rate=0.5, max_depth=5, random_state=1,
              subsample=0.8)
    full = GradientBoostingRegressor(n_estimators=12, **kw).fit(X, y)
    warm = GradientBoostingRegressor(n_estimators=5, warm_start=True, **kw).fit(X, y)
    warm.set_params(n_estimators=12).fit(X, y)
    np.testing.assert_array_equal(warm.predict(X), full.predict(X))
    assert warm.evals_result_ == full.evals_result_ and len(full.evals_result_) == 12


def test_validation_fraction_early_stopping_is_stratified():
    from sklearn.datasets import make_classification
    X, y = make_classification(400, 6, n_informative=3, n_classes=3, n_clusters_per_class=1,
                               flip_y=0.2, random_state=0)
    gb = GradientBoostingClassifier(n_estimators=200, learning_rate=0.5, max_depth=6,
                                    n_iter_no_change=4, validation_fraction=0.2,
                                    random_state=0).fit(X, y)
    assert gb.n_iter_ < 200 and gb.best_iteration_ == gb.n_iter_ - 5
    assert gb.best_iteration_ == int(np.argmin(gb.evals_result_))
    is_val = gb._validation_rows(y.astype(float), np.ones(400, bool), gb._seed)
    np.testing.assert_array_equal(np.bincount(y[is_val]), np.round(0.2 * np.bincount(y)))
    with pytest.raises(ValueError, match="not both"):
        GradientBoostingClassifier(validation_fraction=0.2).fit(X, y, eval_set=[(X, y)])
    with pytest.raises(ValueError, match="validation_fraction"):
        GradientBoostingClassifier(validation_fraction=1.0).fit(X, y)
    with pytest.raises(ValueError, match="eval_set or a validation_fraction"):
        GradientBoostingClassifier(n_iter_no_change=2).fit(X, y)


def test_n_jobs_gives_the_same_model():
    from sklearn.datasets import make_classification
    X, y = make_classification(300, 6, n_informative=4, n_classes=4, n_clusters_per_class=1,
                               random_state=1)
    kw = dict(n_estimators=5, max_depth=3, subsample=0.8, colsample_bynode=0.5, random_state=2)
    a = GradientBoostingClassifier(n_jobs=1, **kw).fit(X, y)
    b = GradientBoostingClassifier(n_jobs=2, **kw).fit(X, y)
    c = GradientBoostingClassifier(n_jobs=-1, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict_proba(X), c.predict_proba(X))
    for bad in (0, 1.5, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            GradientBoostingClassifier(n_jobs=bad).fit(X, y)


def test_parameter_errors():
    X, y = _reg_data(14, n=50)
    for kw, msg in ((dict(method="adaboost"), "method"),
                    (dict(colsample_bytree=0.0), "colsample_bytree"),
                    (dict(colsample_bylevel=1.5), "colsample_bylevel"),
                    (dict(validation_fraction=0.0), "validation_fraction"),
                    (dict(warm_start="yes"), "warm_start"),
                    (dict(loss="poisson"), "loss")):
        with pytest.raises(ValueError, match=msg):
            GradientBoostingRegressor(n_estimators=2, **kw).fit(X, y)
    gb = GradientBoostingRegressor(n_estimators=2, warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        gb.set_params(method="gradient", n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        gb.set_params(method="newton", n_estimators=3).fit(X[:, :2], y)
