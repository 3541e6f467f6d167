"""Second-order gradient boosting (item 3 of issue 10; the first-order variants and the
newer parameters are tested in test_boosting_variants.py).

References: DecisionTreeRegressor(splitter="hist") for one squared-loss round,
a slow pure-Python booster built on the reference grower of test_newton.py,
scikit-learn's estimator checks."""
import math
import pickle

import numpy as np
import pandas as pd
import pytest

from treelab import (
    DecisionTreeRegressor, GradientBoostingClassifier, GradientBoostingRegressor, SGTRegressor,
)
from treelab.losses import Loss

from test_newton import _ref_predict, _ref_tree


def test_one_round_squared_loss_is_the_hist_regression_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(size=300) * 0.3
    X[rng.random(X.shape) < 0.05] = np.nan
    gb = GradientBoostingRegressor(n_estimators=1, learning_rate=1.0, reg_lambda=0.0,
                                   min_child_weight=0.0, min_samples_leaf=1, max_depth=5,
                                   base_score=0.0).fit(X, y)
    dt = DecisionTreeRegressor(splitter="hist", max_depth=5).fit(X, y)
    np.testing.assert_allclose(gb.predict(X), dt.predict(X), rtol=1e-10, atol=1e-12)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("msl", [1, 6])
@pytest.mark.parametrize("missing", [True, False])
@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_logistic_boosting_equals_a_slow_python_booster(policy, missing, msl):
    """``msl``: ``min_samples_leaf`` (rows at least in a child)."""
    rng = np.random.default_rng(1)
    n, d = 150, 3
    X = rng.normal(size=(n, d)).round(1)          # < 255 distinct values: bins = exact
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) * 0.5 > 0.8).astype(int)
    nan_at = rng.random(X.shape) < 0.1
    if missing:
        X[nan_at] = np.nan
    lam, gamma, mcw, lr, rounds = 1.0, 0.1, 0.5, 0.3, 4
    max_leaves = 6 if policy == "lossguide" else None
    gb = GradientBoostingClassifier(n_estimators=rounds, learning_rate=lr, max_depth=3,
                                    reg_lambda=lam, gamma=gamma, min_child_weight=mcw,
                                    grow_policy=policy, max_leaves=max_leaves or 0,
                                    min_samples_leaf=msl).fit(X, y)
    p = y.mean()
    raw = np.full(n, math.log(p / (1 - p)))
    Xt = np.vstack([X, rng.normal(size=(40, d)).round(2)])
    raw_t = np.full(Xt.shape[0], raw[0])
    for _ in range(rounds):
        q = _sigmoid(raw)
        g, h = q - y, q * (1 - q)
        tree = _ref_tree(X, g, h, lam, 0.0, gamma, mcw, 3, max_leaves, msl=msl)
        raw += lr * np.array([_ref_predict(tree, x) for x in X])
        raw_t += lr * np.array([_ref_predict(tree, x) for x in Xt])
    np.testing.assert_allclose(gb.predict_proba(Xt)[:, 1], _sigmoid(raw_t), rtol=1e-9,
                               atol=1e-12)
    if msl > 1:             # the bound binds on these data
        gb1 = GradientBoostingClassifier(**{**gb.get_params(), "min_samples_leaf": 1})
        assert not np.allclose(gb1.fit(X, y).predict_proba(Xt), gb.predict_proba(Xt))


def _clf_data(n=600, k=2, seed=0):
    from sklearn.datasets import make_classification
    return make_classification(n, 8, n_informative=5, n_classes=k, n_clusters_per_class=1,
                               random_state=seed)


@pytest.mark.parametrize("k", [2, 3])
def test_classifier_learns_and_stages(k):
    X, y = _clf_data(k=k)
    gb = GradientBoostingClassifier(n_estimators=30, learning_rate=0.3, max_depth=3,
                                    random_state=0).fit(X[:400], y[:400])
    assert gb.score(X[400:], y[400:]) > 0.8
    staged = list(gb.staged_predict_proba(X[400:]))
    assert len(staged) == 30
    np.testing.assert_allclose(staged[-1], gb.predict_proba(X[400:]), rtol=1e-12)
    # more rounds, lower training log-loss
    from sklearn.metrics import log_loss
    first = list(gb.staged_predict_proba(X[:400]))[0]
    assert log_loss(y[:400], first) > log_loss(y[:400], gb.predict_proba(X[:400]))
    assert gb.feature_importances_.shape == (8,) and gb.split_count_.sum() > 0
    assert gb.predict_proba(X).shape == (600, k)


def test_same_random_state_same_model_and_pickling():
    X, y = _clf_data(seed=2)
    kw = dict(n_estimators=10, subsample=0.7, colsample_bynode=0.5, random_state=3)
    a = GradientBoostingClassifier(**kw).fit(X, y)
    b = GradientBoostingClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), c.predict_proba(X))
    # the packed walking layout kept for predict is rebuilt on load, never pickled
    assert "_packed" not in a.__getstate__() and c._packed[0] is c._forest
    assert a._packed[0] is a._forest             # (and the pickled model keeps its own)
    # and it predicts as a fresh packing of the same forest
    from treelab._engine.tree import forest_predict
    K = a.n_outputs_raw_
    cols = a._cols[:a._roots.shape[0]]
    Xf = np.ascontiguousarray(X, dtype=np.float64)
    np.testing.assert_array_equal(
        forest_predict(a._forest, a._roots, cols, Xf, K, packed=a._packed[1]),
        forest_predict(a._forest, a._roots, cols, Xf, K))


def test_early_stopping_predicts_at_the_best_iteration():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 5))
    y = X[:, 0] + rng.normal(size=400) * 2.0       # noisy: validation loss turns up
    gb = GradientBoostingRegressor(n_estimators=200, learning_rate=0.5, max_depth=6,
                                   n_iter_no_change=5).fit(
        X[:300], y[:300], eval_set=[(X[300:], y[300:])])
    assert gb.n_iter_ < 200 and gb.best_iteration_ == gb.n_iter_ - 6
    assert gb.best_iteration_ == int(np.argmin(gb.evals_result_))
    staged = list(gb.staged_predict(X[300:]))
    np.testing.assert_allclose(gb.predict(X[300:]), staged[gb.best_iteration_], rtol=1e-12)


def test_one_user_loss_object_drives_sgt_and_boosting():
    def grad(y, f):
        r = f - y
        return r / math.sqrt(1.0 + r * r)

    def hess(y, f):
        r = f - y
        return (1.0 + r * r) ** -1.5
    pseudo_huber = Loss.from_functions(grad, hess, name="pseudo_huber")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 3))
    y = 3 * X[:, 0] + rng.standard_t(2, size=500)
    # pseudo-Huber's Hessian vanishes far from the fit: a Newton step needs the L2
    # term there (XGBoost's default; treelab's default is HistGB's and LightGBM's 0)
    gb = GradientBoostingRegressor(loss=pseudo_huber, n_estimators=40, learning_rate=0.3,
                                   max_depth=3, reg_lambda=1.0).fit(X, y)
    sgt = SGTRegressor(loss=pseudo_huber).fit(X, y)
    base = np.mean(np.abs(y - np.median(y)))
    assert np.mean(np.abs(gb.predict(X) - y)) < 0.6 * base
    assert np.isfinite(sgt.predict(X)).all()


def test_categories_and_missing_values():
    rng = np.random.default_rng(6)
    n = 500
    cat = rng.integers(0, 6, n)
    x = rng.normal(size=n)
    y = np.where(np.isin(cat, [1, 4]), 2.0, -1.0) + x
    x[rng.random(n) < 0.2] = np.nan
    df = pd.DataFrame({"c": pd.Categorical(cat), "x": x})
    gb = GradientBoostingRegressor(n_estimators=30, max_depth=3).fit(df, y)
    resid = y - gb.predict(df)
    assert np.mean(resid[~np.isnan(x)] ** 2) < 0.1


def test_bad_input():
    X, y = _clf_data()
    yn = y.astype(float)
    yn[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingClassifier(n_estimators=2).fit(X, yn)
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingRegressor(n_estimators=2).fit(X, yn)
    with pytest.raises(ValueError, match="not seen"):
        GradientBoostingClassifier(n_estimators=2).fit(X, y, eval_set=[(X[:5], [0, 1, 7, 0, 1])])
    gb = GradientBoostingClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        gb.predict(X[:, :3])
    with pytest.raises(ValueError, match="[Nn]egative"):
        GradientBoostingClassifier(n_estimators=2).fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="grow_policy"):
        GradientBoostingRegressor(grow_policy="levelwise").fit(X, yn[:0] if False else y)
    with pytest.raises(ValueError, match="eval_set"):
        GradientBoostingRegressor(n_iter_no_change=3).fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        GradientBoostingRegressor(learning_rate=0).fit(X, y)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="min_samples_leaf"):
            GradientBoostingRegressor(min_samples_leaf=bad).fit(X, y)


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_integer_weights_equal_row_copies_at_lambda_zero(policy):
    """With the default reg_lambda = 0 a split of rows that share g and h gains
    exactly 0 and mirrored features tie exactly: rounding of the sums (a weight
    of k against k copies) must decide neither (builder.split_ok, merit.better_at).
    Duplicated columns (one mirrored) make every split a tie between features."""
    rng = np.random.RandomState(42)
    X = rng.rand(15, 6)
    X = np.hstack([X, X[:, ::-1], 1.0 - X])
    y = rng.randint(0, 3, size=15)
    sw = rng.randint(0, 5, size=15)
    kw = dict(n_estimators=10, grow_policy=policy, max_leaves=6 if policy == "lossguide" else 0,
              random_state=0)
    a = GradientBoostingClassifier(**kw).fit(X, y, sample_weight=sw)
    b = GradientBoostingClassifier(**kw).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    for (ta, _), (tb, _) in zip(a._trees, b._trees):
        n = ta.feature.shape[0]
        assert tb.feature.shape[0] == n
        np.testing.assert_array_equal(ta.feature[:n], tb.feature[:n])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9, atol=1e-12)



def test_xgboost_regularisation_constant_reproduces_xgboost_defaults():
    """``XGBOOST_REGULARISATION`` is XGBoost's reg_lambda=1, min_child_weight=1 (the
    experiments recorded with them pass it): a stump's leaves are the slides'
    -G / (H + 1) with it and -G / H with treelab's defaults.  Squared error around
    base_score = mean(y) = 1: g = [1, 1, 1, -3], h = 1."""
    from treelab.ensembles import XGBOOST_REGULARISATION
    assert XGBOOST_REGULARISATION == {"reg_lambda": 1.0, "min_child_weight": 1.0}
    X = np.arange(4.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 0.0, 4.0])
    kw = dict(n_estimators=1, learning_rate=1.0, max_depth=1)
    xgb = GradientBoostingRegressor(**kw, **XGBOOST_REGULARISATION).fit(X, y)
    np.testing.assert_allclose(xgb.predict(X), [1 - 3 / 4, 1 - 3 / 4, 1 - 3 / 4, 1 + 3 / 2])
    ours = GradientBoostingRegressor(**kw).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), [0.0, 0.0, 0.0, 4.0])
