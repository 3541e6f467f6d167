"""Node models against scikit-learn (Ridge, LogisticRegression with the same
regularisation, OneVsRestClassifier) and their sufficient-statistics / warm-start
cut paths against refitting each side from scratch."""
import pickle

import numpy as np
import pytest

from treelab.node_models import (
    ConstantModel, EstimatorModel, LinearModel, LogisticModel, as_node_model, scores_to_proba,
)

sklm = pytest.importorskip("sklearn.linear_model")


@pytest.fixture
def reg():
    rng = np.random.RandomState(0)
    X = rng.randn(120, 4)
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 3 + 0.3 * rng.randn(120)
    return X, y, rng.rand(120) + 0.1


@pytest.fixture
def clf():
    rng = np.random.RandomState(1)
    X = rng.randn(150, 3)
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.randn(150) > 0).astype(int)
    return X, y, rng.rand(150) + 0.1


@pytest.mark.parametrize("alpha", [0.0, 0.5, 10.0])
def test_linear_model_is_ridge(reg, alpha):
    X, y, w = reg
    m = LinearModel(alpha=alpha).fit(X, y, sample_weight=w)
    r = sklm.Ridge(alpha=alpha).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(m.coef_[0], r.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(m.intercept_[0], r.intercept_, rtol=1e-8)
    np.testing.assert_allclose(m.predict(X), r.predict(X), rtol=1e-8)


def test_linear_model_from_sufficient_statistics(reg):
    X, y, w = reg
    m = LinearModel(alpha=1.0)
    G1, C1 = m.sufficient_stats(X[:60], y[:60], w[:60])
    G2, C2 = m.sufficient_stats(X[60:], y[60:], w[60:])
    a = LinearModel(alpha=1.0).fit_stats(G1 + G2, C1 + C2)
    b = LinearModel(alpha=1.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-10)


@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
def test_logistic_model_is_sklearn_logistic_regression(clf, C):
    X, y, w = clf
    m = LogisticModel(C=C, tol=1e-10).fit(X, y, sample_weight=w)
    s = sklm.LogisticRegression(C=C, tol=1e-12, max_iter=10000).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(m.coef_, s.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.intercept_, s.intercept_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.predict_proba(X), s.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(m.predict(X), s.predict(X))


def test_logistic_multiclass_is_one_vs_rest():
    from sklearn.multiclass import OneVsRestClassifier
    rng = np.random.RandomState(2)
    X = rng.randn(200, 3)
    y = np.argmax(X @ rng.randn(3, 3) + rng.randn(200, 3), axis=1)
    m = LogisticModel(C=0.7, tol=1e-10).fit(X, y)
    s = OneVsRestClassifier(sklm.LogisticRegression(C=0.7, tol=1e-12, max_iter=10000)).fit(X, y)
    np.testing.assert_allclose(m.predict_proba(X), s.predict_proba(X), atol=1e-6)


def test_constant_model(reg, clf):
    X, y, w = reg
    assert ConstantModel().fit(X, y, sample_weight=w).predict(X[:3]) == pytest.approx(
        [np.average(y, weights=w)] * 3)
    m = ConstantModel()._fit_task(clf[0], clf[1], clf[2], "classification", 2)
    p1 = np.average(clf[1], weights=clf[2])
    np.testing.assert_allclose(m._scores(clf[0][:2]), [[1 - p1, p1]] * 2)


@pytest.mark.parametrize("model", [ConstantModel(), LinearModel(alpha=0.3), LogisticModel(C=2.0)])
@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("high", [False, True])
def test_cut_path_equals_refitting_each_side(model, task, high, reg, clf):
    """``high``: cuts near the end, so the linear path accumulates from the right."""
    if task == "regression" and isinstance(model, LogisticModel):
        pytest.skip("logistic is a classifier")
    X, y, w = reg if task == "regression" else clf
    K = 1 if task == "regression" else 2
    order = np.argsort(X[:, 1], kind="stable")
    cuts = np.array([5, 30, 30, 77, 140 if task == "classification" else 110])
    if high:
        cuts = np.array([70, 100, 100, 115])
    lefts, rights = model._fit_cuts(X, y, w, task, K, order, cuts)
    for p, lm, rm in zip(cuts, lefts, rights):
        for rows, got in ((order[:p], lm), (order[p:], rm)):
            ref = model._fresh()._fit_task(X[rows], y[rows], w[rows], task, K)
            np.testing.assert_allclose(got._scores(X), ref._scores(X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("task,K", [("regression", 1), ("classification", 2),
                                    ("classification", 3)])
def test_linear_cut_path_dual_sides_equal_refitting(task, K):
    """High dimension (40 features, 90 rows): sides with fewer rows than features
    are solved in the dual (kernel) system, the others in the primal; every side
    equals a from-scratch ridge fit (and sklearn's Ridge), zero weights included."""
    from treelab import node_models as nm
    rng = np.random.RandomState(3)
    n, d = 90, 40
    X = rng.rand(n, d)
    X[:, 5] = 0.0                                   # a constant column
    y = X @ rng.randn(d) + 0.1 * rng.randn(n)
    if task == "classification":
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, K + 1)[1:-1]))
    w = rng.rand(n) + 0.2
    w[::11] = 0.0
    order = np.argsort(X[:, 2], kind="stable")
    cuts = np.array([3, 9, 20, 39, 45, 52, 70, 85])
    assert (cuts < d).any() and (n - cuts < d).any() and ((cuts >= d) & (n - cuts >= d)).any()
    model = LinearModel(alpha=0.7)
    cache = {}
    lefts, rights = model._fit_cuts(X, y, w, task, K, order, cuts, cache=cache)
    assert ("linear-kernel",) in cache              # the dual path ran
    for p, lm, rm in zip(cuts, lefts, rights):
        for rows, got in ((order[:p], lm), (order[p:], rm)):
            ref = model._fresh()._fit_task(X[rows], y[rows], w[rows], task, K)
            np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
            np.testing.assert_allclose(got.intercept_, ref.intercept_, rtol=1e-7, atol=1e-9)
            if task == "regression":
                r = sklm.Ridge(alpha=0.7).fit(X[rows], y[rows], sample_weight=w[rows])
                np.testing.assert_allclose(got.coef_[0], r.coef_, rtol=1e-6, atol=1e-8)
    # one primal-needing cut (at row 39 of 90): accumulated from the left (39 rows)
    need = np.array([False] * 3 + [True] + [False] * 4)
    assert nm._accumulation_range(cuts, n, need) == (3, len(cuts))
    # all cuts: from the left up to cut 2 and from the right down to cut 3
    # (20 + 90 - 39 rows, fewer than either end alone: 85 or 87)
    assert nm._accumulation_range(cuts, n, np.ones(8, bool)) == (2, 3)


def test_linear_classification_is_linear_probability_model(clf):
    X, y, w = clf
    m = LinearModel(alpha=0.0)._fit_task(X, y, w, "classification", 2)
    r = sklm.LinearRegression().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(m._scores(X)[:, 1], r.predict(X), rtol=1e-8)
    np.testing.assert_allclose(m._scores(X).sum(axis=1), 1.0)
    P = scores_to_proba(m._scores(X))
    assert (P >= 0).all() and np.allclose(P.sum(axis=1), 1)


def test_estimator_model_wraps_any_estimator(clf):
    from sklearn.ensemble import RandomForestClassifier
    X, y, w = clf
    m = EstimatorModel(RandomForestClassifier(n_estimators=5, random_state=0))
    m._fit_task(X, y, np.ones(len(y)), "classification", 3)     # a class absent from y
    S = m._scores(X)
    assert S.shape == (150, 3) and np.all(S[:, 2] == 0)
    one = EstimatorModel(sklm.LogisticRegression())._fit_task(X, np.zeros(150, int),
                                                               np.ones(150), "classification", 2)
    np.testing.assert_array_equal(one._scores(X[:2]), [[1, 0], [1, 0]])
    lin = EstimatorModel(sklm.LinearRegression())._fit_task(X, y, w, "classification", 2)
    ref = LinearModel(alpha=0.0)._fit_task(X, y, w, "classification", 2)
    np.testing.assert_allclose(lin._scores(X), ref._scores(X), rtol=1e-8)
    assert EstimatorModel(sklm.LogisticRegression()).fit(X, y).predict_proba(X).shape == (150, 2)


def test_estimator_model_scores_no_rows(clf, reg):
    """A ToPs leaf can hold no validation-2 rows: scoring 0 rows gives an empty score
    matrix, even with treelab estimators, which reject 0-row input (a crash in
    Table III's diabetes run before)."""
    from treelab import DecisionTreeClassifier, DecisionTreeRegressor
    X, y, w = clf
    m = EstimatorModel(DecisionTreeClassifier(max_depth=2))._fit_task(X, y, w, "classification", 3)
    assert m._scores(X[:0]).shape == (0, 3)
    lin = EstimatorModel(DecisionTreeRegressor(max_depth=2))._fit_task(X, y, w, "classification", 3)
    assert lin._scores(X[:0]).shape == (0, 3)
    Xr, yr, wr = reg
    r = EstimatorModel(DecisionTreeRegressor(max_depth=2))._fit_task(Xr, yr, wr, "regression", 0)
    assert r._scores(Xr[:0]).shape == (0,) + r._scores(Xr[:1]).shape[1:]
    with pytest.raises(ValueError, match="0 sample"):
        DecisionTreeRegressor(max_depth=2).fit(Xr, yr).predict(Xr[:0])


def test_protocol_pickle_and_bad_input(reg):
    X, y, w = reg
    m = LinearModel().fit(X, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).predict(X), m.predict(X))
    with pytest.raises(ValueError, match="alpha"):
        LinearModel(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="C must be"):
        LogisticModel(C=0).fit(X, (y > 0).astype(int))
    with pytest.raises(ValueError, match="NaN"):
        LinearModel().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(TypeError, match="node model"):
        as_node_model(3.5)
    with pytest.raises(AttributeError, match="regression"):
        LinearModel().fit(X, y).predict_proba(X)


@pytest.mark.parametrize("model", [LogisticModel(C=2.0), "ensemble", "tree"])
def test_cut_path_sides_fits_only_the_sides_asked_for(model, clf):
    """``_fit_cuts(sides=...)``: the sides asked for equal the full path's (and a
    refit of the side), the others are None; a wrong shape is a ValueError."""
    from treelab import AdaBoostClassifier, DecisionTreeClassifier
    if model == "ensemble":                     # prepared node data (presorted stumps)
        model = EstimatorModel(AdaBoostClassifier(n_estimators=3, random_state=0))
    elif model == "tree":                       # the default refit
        model = EstimatorModel(DecisionTreeClassifier(max_depth=2, random_state=0))
    X, y, _ = clf
    w = np.ones(X.shape[0])
    order = np.argsort(X[:, 0], kind="stable")
    cuts = np.array([20, 75, 120])
    sides = np.array([[True, False, True], [False, False, True]])
    full = model._fit_cuts(X, y, w, "classification", 2, order, cuts, cache={})
    part = model._fit_cuts(X, y, w, "classification", 2, order, cuts, cache={}, sides=sides)
    for s in (0, 1):
        for k, p in enumerate(cuts):
            if not sides[s, k]:
                assert part[s][k] is None
                continue
            rows = np.sort(order[:p] if s == 0 else order[p:])
            ref = model._fresh()._fit_task(X[rows], y[rows], w[rows], "classification", 2)
            for got in (part[s][k], full[s][k]):
                np.testing.assert_allclose(got._scores(X), ref._scores(X), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="sides must have shape"):
        model._fit_cuts(X, y, w, "classification", 2, order, cuts, sides=np.ones((2, 2), bool))
