"""Bad input to the ensembles, ToPs and the trees' extras gets a clear error
(or, where the input is valid, a sound result) instead of a crash in a kernel
or garbage.  Regression tests for an input audit of 2026-12-05."""
import warnings

import numpy as np
import pandas as pd
import pytest

from treelab import (
    AdaBoostClassifier, BaggingClassifier, CascadeForestClassifier, CascadeForestRegressor,
    DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, ToPsClassifier, ToPsRegressor,
)


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(60, 4)
    return X, (X[:, 0] > 0.5).astype(int), X[:, 0] * 3


@pytest.mark.parametrize("make", [DecisionTreeClassifier, lambda: RandomForestClassifier(
    n_estimators=2), lambda: GradientBoostingClassifier(n_estimators=2)])
def test_duplicate_column_names(data, make):
    X, y, _ = data
    frame = pd.DataFrame(X[:, :3], columns=["a", "a", "b"])
    with pytest.raises(ValueError, match="duplicate column names.*'a'"):
        make().fit(frame, y)
    est = make().fit(pd.DataFrame(X[:, :3], columns=["a", "c", "b"]), y)
    with pytest.raises(ValueError, match="duplicate column names"):
        est.predict(frame)


@pytest.mark.parametrize("cw", [{0: np.inf, 1: 1.0}, {0: -1.0, 1: 1.0}, {0: np.nan, 1: 1.0},
                                {0: "x", 1: 1.0}])
def test_class_weight_values_checked(data, cw):
    X, y, _ = data
    with pytest.raises(ValueError, match="class_weight of class 0 must be a finite number"):
        DecisionTreeClassifier(class_weight=cw).fit(X, y)
    with pytest.raises(ValueError, match="class_weight of class 0"):
        RandomForestClassifier(n_estimators=2, class_weight=cw).fit(X, y)


def test_class_weight_zero_still_allowed(data):
    X, y, _ = data
    est = DecisionTreeClassifier(class_weight={0: 0.0, 1: 1.0}).fit(X, y)
    assert np.isfinite(est.predict_proba(X)).all()


@pytest.mark.parametrize("name", ["ccp_alpha", "min_impurity_decrease"])
def test_nan_pruning_parameters(data, name):
    X, y, _ = data
    with pytest.raises(ValueError, match=f"{name} must be a float >= 0, got nan"):
        DecisionTreeClassifier(**{name: np.nan}).fit(X, y)


def test_sample_weight_whose_sum_overflows(data):
    X, y, yr = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no numpy overflow warning either
        with pytest.raises(ValueError, match="sample_weight is too large"):
            DecisionTreeClassifier().fit(X, y, sample_weight=np.full(60, 1e307))
        with pytest.raises(ValueError, match="sample_weight is too large"):
            GradientBoostingRegressor(n_estimators=2).fit(X, yr, sample_weight=np.full(60, 1e307))


def test_huge_features_no_overflow_warning(data):
    X, y, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = DecisionTreeClassifier().fit(X * 1e308, y)
    np.testing.assert_array_equal(est.predict(X * 1e308), DecisionTreeClassifier().fit(
        X, y).predict(X))


@pytest.mark.parametrize("kw", [dict(learning_rate=np.inf), dict(base_score=np.nan),
                                dict(base_score=np.inf), dict(base_score="0.5")])
def test_boosting_parameters_must_be_finite(data, kw):
    X, y, yr = data
    name = next(iter(kw))
    with pytest.raises(ValueError, match=f"{name} must be"):
        GradientBoostingRegressor(n_estimators=2, **kw).fit(X, yr)
    with pytest.raises(ValueError, match=f"{name} must be"):
        GradientBoostingClassifier(n_estimators=2, **kw).fit(X, y)


def test_adaboost_learning_rate_must_be_finite(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="learning_rate must be a finite float > 0"):
        AdaBoostClassifier(n_estimators=2, learning_rate=np.inf).fit(X, y)


@pytest.mark.parametrize("make", [lambda e: BaggingClassifier(estimator=e, n_estimators=2),
                                  lambda e: AdaBoostClassifier(estimator=e, n_estimators=2)])
def test_classifier_ensembles_refuse_a_regressor(data, make):
    X, y, _ = data
    with pytest.raises(TypeError, match="needs a classifier as its estimator.*Regressor"):
        make(DecisionTreeRegressor()).fit(X, y)
    from sklearn.tree import DecisionTreeRegressor as SkRegressor
    with pytest.raises(TypeError, match="needs a classifier"):
        make(SkRegressor()).fit(X, y)


def test_prune_reduced_error_checks_labels(data):
    X, y, _ = data
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    n_leaves = est.get_n_leaves()
    with pytest.raises(ValueError, match="y_val has labels the tree was not fitted on: (5, 6|6, 5)$"):
        est.prune_reduced_error(X, y + 5)
    with pytest.raises(ValueError, match="not fitted on: 'a'"):
        est.prune_reduced_error(X, np.where(y, "a", "b"))
    with pytest.raises(ValueError, match="y_val contains NaN"):
        est.prune_reduced_error(X, np.where(np.arange(60) == 3, np.nan, y))
    with pytest.raises(ValueError, match="y_val must be 1-D"):
        est.prune_reduced_error(X, y[:, None])
    assert est.get_n_leaves() == n_leaves            # nothing pruned by the refused calls


def test_nominal_features_on_a_mixed_object_array():
    X = np.array([[1.0, "a"], [2.0, "b"], [3.0, "a"], [4.0, "b"]] * 15, dtype=object)
    y = np.array([0, 1, 1, 0] * 15)
    est = DecisionTreeClassifier(nominal_features=[1]).fit(X, y)
    assert est.score(X, y) == 1.0
    frame = pd.DataFrame({0: X[:, 0].astype(float), 1: pd.Categorical(X[:, 1])})
    ref = DecisionTreeClassifier().fit(frame, y)
    np.testing.assert_array_equal(est.predict(X), ref.predict(frame))
    bad = X.copy()
    bad[0, 0] = "zz"
    with pytest.raises(ValueError, match="non-numeric values.*nominal_features"):
        DecisionTreeClassifier(nominal_features=[1]).fit(bad, y)


@pytest.mark.parametrize("scale", [1e9, 1e18, 1e100])
def test_tops_features_of_very_different_scales(data, scale):
    X, y, yr = data
    Xs = np.c_[X[:, :1], scale * (1.7 + np.arange(60) / 60)]
    reg = ToPsRegressor(random_state=0).fit(Xs, yr)
    assert np.isfinite(reg.predict(Xs)).all()
    clf = ToPsClassifier(random_state=0).fit(Xs, y)
    assert np.isfinite(clf.predict_proba(Xs)).all()


def test_tops_features_whose_squares_overflow(data):
    X, y, yr = data
    with pytest.raises(ValueError, match="too large for a linear node model"):
        ToPsRegressor(random_state=0).fit(X * 1e308, yr)


def test_cascade_keeps_its_first_level_and_refuses_huge_targets(data):
    X, y, yr = data
    with pytest.raises(ValueError, match="tol must be a finite float"):
        CascadeForestClassifier(n_estimators=4, tol=np.inf).fit(X, y)
    with pytest.raises(ValueError, match="float32 leaves"):
        CascadeForestRegressor(n_estimators=4, max_levels=2, random_state=0).fit(X, yr * 1e39)


def test_cascade_level_stopper_keeps_a_nan_scored_first_level():
    from treelab.ensembles.cascade import _LevelStopper
    stop = _LevelStopper(0.0, 1, None, False)
    assert not stop.add(0, np.nan, None, None)
    assert stop.add(1, 0.9, None, None)
    assert stop.best == 1


def _offset_data():
    rng = np.random.RandomState(0)
    X = rng.randn(300, 4)
    y = 2 * X[:, 0] + 0.3 * rng.randn(300)
    Xt = rng.randn(200, 4)
    return X, y, Xt


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeRegressor(min_samples_leaf=5),
    lambda: DecisionTreeRegressor(min_samples_leaf=5, splitter="hist"),
    lambda: __import__("treelab").RandomForestRegressor(n_estimators=5, random_state=0),
    lambda: __import__("treelab").ExtraTreesRegressor(n_estimators=5, random_state=0),
    lambda: CascadeForestRegressor(n_estimators=5, max_levels=2, random_state=0),
])
@pytest.mark.parametrize("offset", [1e6, 1e8, -1e10])
def test_regression_trees_equivariant_to_a_target_offset(make, offset):
    """The variance criterion is the same for y + c; computed as
    sum wy^2 / w - mean^2 it lost every digit once c dominated (R^2 0.06 at
    c = 1e8): the targets are now shifted by their mean first.  The shifted
    targets differ from y in their last bits, so a near-tie of two candidate
    splits may fall the other way (extra trees' random cuts: 1 test row of 200)."""
    X, y, Xt = _offset_data()
    base = make().fit(X, y).predict(Xt)
    shifted = make().fit(X, y + offset).predict(Xt) - offset
    off = np.abs(shifted - base) > abs(offset) * 1e-12 + 1e-9
    assert off.mean() <= 0.02
    assert np.abs(shifted - base).max() < 0.1
    r2 = 1 - np.mean((shifted - 2 * Xt[:, 0]) ** 2) / np.var(2 * Xt[:, 0])
    assert r2 > 0.9


def _user_variance(stats):
    if stats[0] <= 0.0:
        return 0.0
    m = stats[1] / stats[0]
    return stats[2] / stats[0] - m * m


def test_user_regression_criterion_sees_the_targets_unshifted():
    """Only the built-in squared error is known to be shift-invariant: a user
    criterion gets the targets as given."""
    from treelab import Criterion
    X, y, _ = _offset_data()
    crit = Criterion("user_variance", _user_variance, task="regression")
    est = DecisionTreeRegressor(criterion=crit, max_depth=1).fit(X, y + 1e3)
    assert est._y_shift == 0.0
    np.testing.assert_allclose(est.tree_.value[0, 0], np.mean(y + 1e3))
    yo = y + 1e3
    est = DecisionTreeRegressor(max_depth=1).fit(X, yo)
    assert est._y_shift == 0.5 * yo.min() + 0.5 * yo.max()
    # the public node sums are those of y itself
    np.testing.assert_allclose(est.tree_.stats[0], [300, yo.sum(), (yo * yo).sum()], rtol=1e-12)
    np.testing.assert_allclose(est.tree_.value[:, 0], est.tree_.stats[:, 1] / est.tree_.stats[:, 0],
                               rtol=1e-13)
    assert DecisionTreeRegressor(max_depth=1).fit(X, y)._y_shift == 0.0


def test_target_shift_is_exact_for_weights_and_copies():
    from treelab._engine.node_values import target_shift
    rng = np.random.RandomState(0)
    y = 1e6 + rng.rand(50)
    w = rng.randint(0, 4, 50).astype(float)
    assert target_shift(y, w) == target_shift(np.repeat(y, w.astype(int)), np.ones(int(w.sum())))
    assert target_shift(y - 1e6 - 0.5, np.ones(50)) == 0.0          # range reaches zero
    assert target_shift(np.full(5, -7.0), np.ones(5)) == -7.0       # constant: exact
    assert target_shift(y, np.zeros(50)) == 0.0


def test_boosting_eval_set_with_nan_labels(data):
    X, y, _ = data
    yv = np.where(np.arange(60) == 3, np.nan, y)
    with pytest.raises(ValueError, match="eval_set: y contains NaN"):
        GradientBoostingClassifier(n_estimators=2).fit(X, y, eval_set=[(X, yv)])


@pytest.mark.parametrize("n_folds", [None, 3])
def test_scanning_window_sample_of_one_class_is_named(n_folds):
    from treelab import MultiGrainedScanning
    rng = np.random.RandomState(0)
    X, y = rng.rand(30, 16), np.arange(30) % 3
    scan = MultiGrainedScanning(window_sizes=[4], n_estimators=3, n_folds=n_folds,
                                max_train_windows=1, random_state=0)
    with pytest.raises(ValueError, match=r"the 1 training window drawn for window size 4"
                                         r"(, fold 0)? comes from one class only.*"
                                         r"raise max_train_windows, now 1"):
        scan.fit_transform(X, y)
    # enough windows: every fold's sample holds two classes or more
    scan.set_params(max_train_windows=60).fit_transform(X, y)
