"""Bagging and AdaBoost (issue 11): references are scikit-learn's AdaBoost (SAMME and
R2, same data and seeds), independent single-tree fits for bagging members, and
slow per-member loops for the one-call forest predictions."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from treelab import (
    AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier, BaggingRegressor,
    DecisionTreeClassifier, DecisionTreeRegressor,
)
from treelab.ensembles.bagging import _draw

sk = pytest.importorskip("sklearn")
from sklearn.ensemble import AdaBoostClassifier as SkAda  # noqa: E402
from sklearn.ensemble import AdaBoostRegressor as SkAdaR  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkTree  # noqa: E402
from sklearn.tree import DecisionTreeRegressor as SkTreeR  # noqa: E402


def _clf_data(n=240, k=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    s = X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] ** 2 + 0.5 * rng.normal(size=n)
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, k + 1)[1:-1]))
    return X, y


def _reg_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, X[:, 0] * 3 + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=n)


# ----------------------------------------------------------------- AdaBoost (SAMME)
@pytest.mark.parametrize("k", [2, 3])
def test_adaboost_stumps_equal_sklearn_samme(k):
    X, y = _clf_data(k=k)
    labels = np.array(["a", "b", "c"])[:k][y]
    ours = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=25,
                              learning_rate=0.7, random_state=0).fit(X, labels)
    ref = SkAda(SkTree(max_depth=1), n_estimators=25, learning_rate=0.7,
                random_state=0).fit(X, labels)
    assert len(ours.estimators_) == len(ref.estimators_) == 25
    np.testing.assert_allclose(ours.estimator_weights_, ref.estimator_weights_, rtol=1e-10)
    np.testing.assert_allclose(ours.estimator_errors_, ref.estimator_errors_, rtol=1e-10)
    Xt = np.random.default_rng(5).normal(size=(100, 5))
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt),
                               atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-12)
    for a, b in zip(ours.staged_predict_proba(Xt), ref.staged_predict_proba(Xt)):
        np.testing.assert_allclose(a, b, atol=1e-12)
    for a, b in zip(ours.staged_predict(Xt), ref.staged_predict(Xt)):
        np.testing.assert_array_equal(a, b)


def test_adaboost_with_the_same_sklearn_base_equals_sklearn():
    X, y = _clf_data(k=3, seed=4)
    base = SkTree(max_depth=2, max_features=2)     # random: the seeding must match
    ours = AdaBoostClassifier(base, n_estimators=15, random_state=3).fit(X, y)
    ref = SkAda(base, n_estimators=15, random_state=3).fit(X, y)
    np.testing.assert_allclose(ours.estimator_weights_, ref.estimator_weights_, rtol=1e-12)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-12)


def test_adaboost_weights_follow_the_slides_formula():
    """error(M_i) = sum_j w_j err(X_j), vote weight log((1 - error)/error) (K = 2),
    misclassified weights multiplied by exp(vote weight), renormalised."""
    X, y = _clf_data(k=2, seed=2)
    ada = AdaBoostClassifier(n_estimators=6, random_state=0).fit(X, y)
    w = np.full(len(y), 1 / len(y))
    for i, est in enumerate(ada.estimators_):
        wrong = est.predict(X) != y
        err = w[wrong].sum()
        assert ada.estimator_errors_[i] == pytest.approx(err, rel=1e-12)
        alpha = np.log((1 - err) / err)
        assert ada.estimator_weights_[i] == pytest.approx(alpha, rel=1e-12)
        w = w * np.exp(alpha * wrong)
        w /= w.sum()


def test_adaboost_resample_draws_by_weight_and_scores_on_training_set():
    X, y = _clf_data(k=3, seed=3)
    ada = AdaBoostClassifier(n_estimators=10, boosting="resample", random_state=0).fit(X, y)
    # reference loop: the same seeds, fits on explicit resamples
    rng = np.random.RandomState(0)
    w = np.full(len(y), 1 / len(y))
    for i in range(len(ada.estimators_)):
        seed = rng.randint(np.iinfo(np.int32).max)
        rows = rng.choice(len(y), len(y), replace=True, p=w)
        est = DecisionTreeClassifier(max_depth=1, random_state=seed).fit(X[rows], y[rows])
        np.testing.assert_array_equal(est.predict(X), ada.estimators_[i].predict(X))
        wrong = est.predict(X) != y
        err = np.average(wrong, weights=w)
        assert ada.estimator_errors_[i] == pytest.approx(err, rel=1e-12)
        alpha = np.log((1 - err) / err) + np.log(2)
        w = np.clip(w * np.exp(alpha * wrong) / np.sum(w * np.exp(alpha * wrong)),
                    np.finfo(float).eps, None)
    assert ada.score(X, y) > 0.6


def test_adaboost_any_base_and_errors():
    X, y = _clf_data(k=2)
    ada = AdaBoostClassifier(LogisticRegression(), n_estimators=5, random_state=0).fit(X, y)
    assert ada.score(X, y) > 0.7
    with pytest.raises(ValueError, match="resample"):
        AdaBoostClassifier(KNeighborsClassifier()).fit(X, y)
    knn = AdaBoostClassifier(KNeighborsClassifier(), n_estimators=3, boosting="resample",
                             random_state=0).fit(X, y)
    assert knn.predict(X).shape == y.shape
    with pytest.raises(ValueError, match="boosting"):
        AdaBoostClassifier(boosting="sample").fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        AdaBoostClassifier(learning_rate=0).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        AdaBoostClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(TypeError, match="fit"):
        AdaBoostClassifier(estimator="tree").fit(X, y)


def test_adaboost_perfect_member_stops():
    X = np.arange(20.0).reshape(-1, 1)
    y = (X[:, 0] > 9).astype(int)
    ada = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(ada.estimators_) == 1 and ada.estimator_weights_[0] == 1.0
    assert ada.estimator_errors_[0] == 0.0
    np.testing.assert_array_equal(ada.predict(X), y)


# ---------------------------------------------------------------- AdaBoost.R2
@pytest.mark.parametrize("loss", ["linear", "square", "exponential"])
def test_adaboost_r2_equals_sklearn(loss):
    X, y = _reg_data()
    ours = AdaBoostRegressor(SkTreeR(max_depth=3), n_estimators=12, loss=loss,
                             learning_rate=0.8, random_state=1).fit(X, y)
    ref = SkAdaR(SkTreeR(max_depth=3), n_estimators=12, loss=loss, learning_rate=0.8,
                 random_state=1).fit(X, y)
    np.testing.assert_allclose(ours.estimator_weights_, ref.estimator_weights_, rtol=1e-10)
    np.testing.assert_allclose(ours.estimator_errors_, ref.estimator_errors_, rtol=1e-10)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)
    for a, b in zip(ours.staged_predict(X[:30]), ref.staged_predict(X[:30])):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_adaboost_r2_treelab_trees_match_a_slow_reference():
    """Treelab trees (one-call prediction through the multi-root tree) against a
    loop over members and a direct weighted median."""
    X, y = _reg_data(seed=3)
    ada = AdaBoostRegressor(n_estimators=8, random_state=0).fit(X, y)
    assert ada._forest is not None
    P = np.stack([e.predict(X) for e in ada.estimators_], axis=1)
    w = ada.estimator_weights_[:P.shape[1]]
    ref = []
    for row in P:
        o = np.argsort(row, kind="stable")
        c = np.cumsum(w[o])
        ref.append(row[o][np.searchsorted(c, 0.5 * c[-1])])
    np.testing.assert_allclose(ada.predict(X), ref)
    assert ada.score(X, y) > 0.8
    with pytest.raises(ValueError, match="loss"):
        AdaBoostRegressor(loss="huber").fit(X, y)


# ------------------------------------------------------------------------ Bagging
def test_bagging_members_are_independent_tree_fits():
    X, y = _clf_data()
    bag = BaggingClassifier(n_estimators=5, max_features=3, random_state=7).fit(X, y)
    for est, seed, feats in zip(bag.estimators_, bag._seeds, bag.estimators_features_):
        f, rows = _draw(int(seed), *bag._draw_args)
        np.testing.assert_array_equal(f, feats)
        counts = np.bincount(rows, minlength=len(y))
        ref = DecisionTreeClassifier(random_state=int(seed)).fit(X[:, f], y,
                                                                  sample_weight=counts)
        np.testing.assert_array_equal(ref.predict_proba(X[:, f]), est.predict_proba(X[:, f]))
    # one-call forest prediction = mean of the members' probabilities
    slow = np.mean([e.predict_proba(X[:, f]) for e, f in
                    zip(bag.estimators_, bag.estimators_features_)], axis=0)
    np.testing.assert_allclose(bag.predict_proba(X), slow, atol=1e-12)


def test_bagging_draws():
    X, y = _reg_data(n=100)
    bag = BaggingRegressor(n_estimators=3, max_samples=0.5, max_features=2, bootstrap=False,
                           bootstrap_features=True, random_state=0).fit(X, y)
    for rows, feats in zip(bag.estimators_samples_, bag.estimators_features_):
        assert len(rows) == 50 and len(np.unique(rows)) == 50      # without replacement
        assert len(feats) == 2
    boot = BaggingRegressor(n_estimators=30, random_state=0).fit(X, y)
    uniq = np.mean([len(np.unique(r)) / 100 for r in boot.estimators_samples_])
    assert 0.58 < uniq < 0.68             # 1 - (1 - 1/n)^n ~ 0.634 distinct rows


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_bagging_same_seed_same_model_whatever_n_jobs(n_jobs):
    X, y = _clf_data()
    ref = BaggingClassifier(n_estimators=6, max_features=0.8, random_state=1).fit(X, y)
    other = BaggingClassifier(n_estimators=6, max_features=0.8, random_state=1,
                              n_jobs=n_jobs).fit(X, y)
    np.testing.assert_array_equal(ref.predict_proba(X), other.predict_proba(X))
    lr = BaggingClassifier(LogisticRegression(), n_estimators=4, random_state=1,
                           n_jobs=n_jobs).fit(X, y)
    lr1 = BaggingClassifier(LogisticRegression(), n_estimators=4, random_state=1).fit(X, y)
    np.testing.assert_array_equal(lr.predict_proba(X), lr1.predict_proba(X))


def test_bagging_oob_against_a_slow_loop():
    X, y = _clf_data(n=150)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bag = BaggingClassifier(n_estimators=15, oob_score=True, random_state=0).fit(X, y)
    S = np.zeros((len(y), 3))
    for est, rows in zip(bag.estimators_, bag.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(y)), rows)
        S[oob] += est.predict_proba(X[oob])
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(bag.oob_decision_function_, S / S.sum(1, keepdims=True))
    assert bag.oob_score_ == pytest.approx(np.mean(S.argmax(1) == y))
    Xr, yr = _reg_data()
    reg = BaggingRegressor(Ridge(), n_estimators=20, oob_score=True, random_state=0).fit(Xr, yr)
    s, c = np.zeros(len(yr)), np.zeros(len(yr))
    for est, rows in zip(reg.estimators_, reg.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(yr)), rows)
        s[oob] += est.predict(Xr[oob])
        c[oob] += 1
    np.testing.assert_allclose(reg.oob_prediction_, s / np.maximum(c, 1))
    assert 0.8 < reg.oob_score_ < 1
    with pytest.raises(ValueError, match="bootstrap"):
        BaggingRegressor(bootstrap=False, oob_score=True).fit(Xr, yr)


def test_bagging_foreign_without_proba_and_without_sample_weight():
    X, y = _clf_data()
    from sklearn.svm import LinearSVC
    bag = BaggingClassifier(LinearSVC(), n_estimators=5, random_state=0).fit(X, y)
    assert bag.predict_proba(X).sum(axis=1) == pytest.approx(1.0)
    knn = BaggingClassifier(KNeighborsClassifier(3), n_estimators=3, random_state=0).fit(X, y)
    assert knn.score(X, y) > 0.6
    with pytest.raises(ValueError, match="sample_weight"):
        knn.fit(X, y, sample_weight=np.ones(len(y)))


def test_bagging_nominal_and_missing_values():
    rng = np.random.default_rng(0)
    n = 300
    c = rng.integers(0, 4, n)
    x = rng.normal(size=n)
    y = ((c == 2) | (x > 1)).astype(int)
    df = pd.DataFrame({"c": pd.Categorical(np.array(list("pqrs"))[c]), "x": x})
    df.loc[rng.random(n) < 0.1, "x"] = np.nan
    bag = BaggingClassifier(n_estimators=8, random_state=0).fit(df, y)
    assert bag.score(df, y) > 0.95
    Xf = bag._encode(df)          # members see the ensemble's encoded X (category codes)
    slow = np.mean([e.predict_proba(Xf[:, f]) for e, f in
                    zip(bag.estimators_, bag.estimators_features_)], axis=0)
    np.testing.assert_allclose(bag.predict_proba(df), slow)
    ada = AdaBoostClassifier(n_estimators=5, random_state=0).fit(df, y)
    slow = np.stack([e.predict(Xf) for e in ada.estimators_], axis=1)
    np.testing.assert_array_equal(ada._member_outputs(df), slow)


def test_bagging_regressor_tree_forest_and_bad_input():
    X, y = _reg_data()
    bag = BaggingRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=5,
                           max_features=3, random_state=0).fit(X, y)
    slow = np.mean([e.predict(X[:, f]) for e, f in zip(bag.estimators_,
                                                       bag.estimators_features_)], axis=0)
    np.testing.assert_allclose(bag.predict(X), slow)
    for kw, err in [({"max_samples": 0}, ValueError), ({"max_samples": 1.5}, ValueError),
                    ({"max_features": 9}, ValueError), ({"max_features": "sqrt"}, TypeError),
                    ({"n_estimators": 0}, ValueError), ({"bootstrap": "yes"}, TypeError),
                    ({"estimator": 3}, TypeError)]:
        with pytest.raises(err):
            BaggingRegressor(**kw).fit(X, y)
    with pytest.raises(ValueError):
        bag.predict(X[:, :3])
    with pytest.raises(ValueError, match="one class"):
        BaggingClassifier().fit(X, np.zeros(len(y)))


@pytest.mark.parametrize("make", [
    lambda: BaggingClassifier(n_estimators=3, max_features=0.6, random_state=0),
    lambda: BaggingRegressor(n_estimators=3, random_state=0),
    lambda: AdaBoostClassifier(n_estimators=4, random_state=0),
    lambda: AdaBoostRegressor(n_estimators=4, random_state=0),
])
def test_pickle_round_trip(make):
    est = make()
    X, y = _clf_data() if hasattr(est, "predict_proba") or "Classifier" in type(est).__name__ \
        else _reg_data()
    est.fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est.predict(X), again.predict(X))


def test_bagging_pickle_leaves_out_the_combined_tree():
    """The combined multi-root tree is derived from the members: it is not pickled
    (smaller model file) and is rebuilt, node for node, on loading."""
    X, y = _clf_data()
    bag = BaggingClassifier(n_estimators=4, max_features=0.7, random_state=0).fit(X, y)
    blob = pickle.dumps(bag)
    with_forest = pickle.dumps(bag.__dict__)
    assert len(blob) < len(with_forest)
    again = pickle.loads(blob)
    for a, b in zip(bag._forest[0], again._forest[0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(bag._forest[1], again._forest[1])
    np.testing.assert_array_equal(bag.predict_proba(X), again.predict_proba(X))


def test_adaboost_pickle_leaves_out_the_combined_tree():
    """AdaBoost's combined multi-root tree is rebuilt on loading, node for node."""
    X, y = _clf_data()
    ada = AdaBoostClassifier(n_estimators=5, random_state=0).fit(X, y)
    blob = pickle.dumps(ada)
    assert len(blob) < len(pickle.dumps(ada.__dict__))
    again = pickle.loads(blob)
    for a, b in zip(ada._forest[0], again._forest[0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ada._forest[1], again._forest[1])
    np.testing.assert_array_equal(ada.decision_function(X), again.decision_function(X))
