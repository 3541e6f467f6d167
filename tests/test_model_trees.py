"""Model trees: DecisionTreeRegressor(leaf_model="linear") and
DecisionTreeClassifier(leaf_model="logistic") grow the same tree as without a
leaf model and predict with one node model per leaf, fitted on that leaf's
training rows (checked against scikit-learn's Ridge / LogisticRegression fitted
leaf by leaf)."""
import pickle

import numpy as np
import pytest

from treelab import DecisionTreeClassifier, DecisionTreeRegressor, export_text

sklm = pytest.importorskip("sklearn.linear_model")


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 3)
    y = np.where(X[:, 0] > 0.5, 3 * X[:, 1], -2 * X[:, 2]) + 0.1 * rng.randn(300)
    return X, y


def test_linear_leaves_are_ridge_per_leaf(data):
    X, y = data
    plain = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    mt = DecisionTreeRegressor(max_depth=2, random_state=0, leaf_model="linear").fit(X, y)
    np.testing.assert_array_equal(plain.apply(X), mt.apply(X))
    leaves = mt.apply(X)
    expected = np.empty(len(y))
    for leaf in np.unique(leaves):
        r = leaves == leaf
        expected[r] = sklm.Ridge(alpha=1.0).fit(X[r], y[r]).predict(X[r])
    np.testing.assert_allclose(mt.predict(X), expected, rtol=1e-8, atol=1e-10)
    assert mt.score(X, y) > plain.score(X, y)


def test_logistic_leaves_are_logistic_regression_per_leaf(data):
    X, y = data
    yc = (y + 0.3 * np.random.RandomState(1).randn(len(y)) > 0.5).astype(int)
    mt = DecisionTreeClassifier(max_depth=1, random_state=0, leaf_model="logistic").fit(X, yc)
    leaves = mt.apply(X)
    for leaf in np.unique(leaves):
        r = leaves == leaf
        if len(np.unique(yc[r])) < 2:
            continue
        ref = sklm.LogisticRegression(tol=1e-12, max_iter=10000).fit(X[r], yc[r])
        np.testing.assert_allclose(mt.predict_proba(X[r]), ref.predict_proba(X[r]), atol=1e-6)


def test_model_tree_export_pickle_and_bad_input(data):
    X, y = data
    mt = DecisionTreeRegressor(max_depth=1, leaf_model="linear").fit(X, y)
    txt = export_text(mt)
    assert txt.count("model: Linear(") == 2
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(mt)).predict(X), mt.predict(X))
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor(leaf_model="linear").fit(np.where(X > 0.9, np.nan, X), y)
    with pytest.raises(ValueError, match="NaN"):
        mt.predict(np.where(X > 0.9, np.nan, X))
    with pytest.raises(ValueError, match="leaf models"):
        mt.prune_reduced_error(X, y)
    with pytest.raises(ValueError, match="classifier"):
        DecisionTreeRegressor(leaf_model="logistic").fit(X, y)
    with pytest.raises(ValueError, match="unknown node model"):
        DecisionTreeRegressor(leaf_model="cubic").fit(X, y)
    # refitting without a leaf model drops the leaf models
    mt.set_params(leaf_model=None).fit(X, y)
    assert not hasattr(mt, "leaf_models_")


def test_any_estimator_as_leaf_model(data):
    from sklearn.neighbors import KNeighborsRegressor
    X, y = data
    mt = DecisionTreeRegressor(max_depth=1, leaf_model=KNeighborsRegressor(3)).fit(X, y)
    assert mt.score(X, y) > 0.8
    assert "model: KNeighborsRegressor" in export_text(mt)
