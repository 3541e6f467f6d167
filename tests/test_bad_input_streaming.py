"""Bad input to the streaming learners (SGT, Hoeffding trees) gets a clear error
that names the problem, and values far outside the fitted bin range are
binned as the largest / smallest ones (never wrapped by an int overflow).
Companion of ``test_bad_input.py``; every case here is a regression test.
"""
import numpy as np
import pytest

from _stream_reference import assert_same_model
from treelab import HoeffdingTreeClassifier, SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor
from treelab._engine.streaming import equal_width_code, equal_width_codes
from treelab.losses import AbsoluteError, Huber, Logistic, Loss, Quantile, Softmax, SquaredError


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(60, 4)
    return X, (X[:, 0] > 0.5).astype(int), X[:, 0] * 3


def fitted(kind, X, y, yr):
    Xt = np.tile(X, (5, 1))
    if kind == "sgt_reg":
        return SGTRegressor(grace_period=20).fit(Xt, np.tile(yr, 5))
    cls = SGTClassifier if kind == "sgt_clf" else HoeffdingTreeClassifier
    return cls(grace_period=20).fit(Xt, np.tile(y, 5))


KINDS = ["sgt_clf", "sgt_reg", "ht"]
HUGE = [1e308, -1e308, 1e18, -1e18]


def out_of(m, X):
    return m.predict(X) if isinstance(m, SGTRegressor) else m.predict_proba(X)


# ------------------------------------------------------------------ binning
def test_equal_width_codes_clip_huge_values_in_floating_point():
    X = np.array([[1e18], [-1e18], [1e308], [-1e308], [0.5], [1.0], [0.0]])
    codes = equal_width_codes(X, np.zeros(1), np.ones(1), 8, np.zeros(1, bool),
                              np.zeros(1, np.int64))
    np.testing.assert_array_equal(codes[:, 0], [7, 0, 7, 0, 4, 7, 0])
    # a range wider than the largest float
    X = np.array([[0.0], [1e308], [-1e308], [5e307]])
    codes = equal_width_codes(X, np.array([-1e308]), np.array([1e308]), 4, np.zeros(1, bool),
                              np.zeros(1, np.int64))
    np.testing.assert_array_equal(codes[:, 0], [2, 3, 0, 3])
    for x, c in zip(X[:, 0], codes[:, 0]):
        assert equal_width_code(float(x), -1e308, 1e308, 4, False, 0) == c


@pytest.mark.parametrize("kind", KINDS)
def test_huge_values_predict_as_the_end_bins(kind, data):
    m = fitted(kind, *data)
    assert m.n_nodes > 1
    for v, edge in [(1e18, 2.0), (1e308, 2.0), (-1e18, -1.0), (-1e308, -1.0)]:
        row = np.array([[v, v, 0.5, 0.5]])
        np.testing.assert_array_equal(out_of(m, row), out_of(m, np.array([[edge, edge, .5, .5]])))
    pred = m.predict([[0.99, 0.99, .5, .5], [1e18, 1e18, .5, .5]])
    assert pred[0] == pred[1]


@pytest.mark.parametrize("kind", KINDS)
def test_huge_values_are_learned_in_the_end_bins(kind, data):
    X, y, yr = data
    Xt, target = np.tile(X, (5, 1)), np.tile(yr if kind == "sgt_reg" else y, 5)
    big, edge = Xt.copy(), Xt.copy()
    big[100::7, 0], edge[100::7, 0] = 1e18, 2.0
    big[101::7, 1], edge[101::7, 1] = -1e300, -1.0
    cls = {"sgt_clf": SGTClassifier, "sgt_reg": SGTRegressor,
           "ht": HoeffdingTreeClassifier}[kind]
    a = cls(grace_period=20, n_range_samples=100).partial_fit(big, target)
    b = cls(grace_period=20, n_range_samples=100).partial_fit(edge, target)
    assert_same_model(a, b)


@pytest.mark.parametrize("kind", ["sgt_clf", "sgt_reg"])    # the tree's predict_one: a batch call
def test_predict_one_of_huge_values_equals_predict(kind, data):
    m = fitted(kind, *data)
    for v in HUGE:
        row = [v, 0.5, v, 0.5]
        one = {i: x for i, x in enumerate(row)}
        if kind == "sgt_reg":
            assert m.predict_one(one) == m.predict(np.array([row]))[0]
        else:
            np.testing.assert_array_equal(list(m.predict_proba_one(one).values()),
                                          m.predict_proba(np.array([row]))[0])
            assert m.predict_one(one) == m.predict(np.array([row]))[0]


# --------------------------------------------------------------- SGT losses
@pytest.mark.parametrize("name, cls", [("squared_error", SquaredError),
                                       ("absolute_error", AbsoluteError), ("huber", Huber),
                                       ("quantile", Quantile)])
def test_sgt_regressor_takes_loss_names(name, cls, data):
    X, _, yr = data
    Xt, yt = np.tile(X, (5, 1)), np.tile(yr, 5)
    a = SGTRegressor(grace_period=20, loss=name).fit(Xt, yt)
    b = SGTRegressor(grace_period=20, loss=cls()).fit(Xt, yt)
    assert type(a._loss) is cls
    assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    a = SGTRegressor(loss=name).learn_one({0: 1.0, 1: 2.0}, 3.0)
    assert type(a._loss) is cls


def test_sgt_regressor_rejects_bad_losses(data):
    X, _, yr = data
    with pytest.raises(ValueError, match=r"loss must be one of .*'squared_error'.*got 'l2'"):
        SGTRegressor(loss="l2").fit(X, yr)
    with pytest.raises(TypeError, match=r"loss must be one of .*treelab.losses.Loss, got int"):
        SGTRegressor(loss=2).fit(X, yr)
    with pytest.raises(TypeError, match=r"treelab.losses.Loss, got int"):
        SGTRegressor(loss=2).learn_one({0: 1.0}, 1.0)
    for loss in (Softmax(), Logistic()):
        with pytest.raises(ValueError, match=r"regression loss.*classification loss"):
            SGTRegressor(loss=loss).fit(X, yr)
    two = Loss("two", SquaredError().grad_hess, n_outputs=2)
    with pytest.raises(ValueError, match=r"single-output loss.*2 outputs"):
        SGTRegressor(loss=two).partial_fit(X, yr)
    # a rejected loss leaves nothing behind
    m = SGTRegressor(loss="l2")
    with pytest.raises(ValueError):
        m.partial_fit(X, yr)
    m.set_params(loss="huber").partial_fit(X, yr)
    assert type(m._loss) is Huber


def test_sgt_regressor_learn_one_names_a_bad_target():
    with pytest.raises(TypeError, match=r"target y must be a real number, got None"):
        SGTRegressor().learn_one({0: 1.0, 1: 2.0}, None)
    with pytest.raises(ValueError, match=r"target y must be a real number, got 'a'"):
        SGTRegressor().learn_one({0: 1.0, 1: 2.0}, "a")


# ------------------------------------------------------------ multi-instance
@pytest.fixture
def mil(data):
    X, y, _ = data
    bags = np.arange(60) // 3
    return X, y[bags * 3], bags


def test_multi_instance_predict_checks_the_bags(mil):
    X, y, bags = mil
    m = SGTMultiInstanceClassifier(n_epochs=1).fit(X, y, bags)
    for meth in (m.predict, m.predict_proba, m.decision_function):
        with pytest.raises(ValueError, match=r"one bag id per instance: X has 60 rows, bags has 3"):
            meth(X, np.zeros(3, int))
        with pytest.raises(ValueError, match=r"one bag id per instance: X has 5 rows, bags has 60"):
            meth(X[:5], bags)
    with pytest.raises(ValueError, match=r"one bag id per instance"):
        m.score(X, y, np.zeros(3, int))
    with pytest.raises(ValueError, match=r"one label per instance or one per bag"):
        m.score(X, y[:7], bags)
    assert m.score(X, y, bags) == m.score(X, y[::3], bags)


def test_multi_instance_rejects_nan_bag_ids(mil):
    X, y, bags = mil
    nan_bags = np.where(np.arange(60) < 3, np.nan, bags)
    with pytest.raises(ValueError, match=r"bags contains NaN"):
        SGTMultiInstanceClassifier(n_epochs=1).fit(X, y, nan_bags)
    with pytest.raises(ValueError, match=r"bags contains NaN"):
        SGTMultiInstanceClassifier(n_epochs=1).fit(X, y, nan_bags.astype(object))
    m = SGTMultiInstanceClassifier(n_epochs=1).fit(X, y, bags)
    with pytest.raises(ValueError, match=r"bags contains NaN"):
        m.predict(X, nan_bags)


def test_multi_instance_nan_label(mil):
    X, y, bags = mil
    with pytest.raises(ValueError, match=r"y contains NaN"):
        SGTMultiInstanceClassifier(n_epochs=1).fit(X, np.where(np.arange(60) == 3, np.nan, y),
                                                   bags)
    with pytest.raises(ValueError, match=r"y contains NaN"):
        SGTMultiInstanceClassifier(n_epochs=1).fit(X, np.r_[np.nan, y[3::3]], bags)


# --------------------------------------------------------- streaming labels
CLASSIFIERS = [SGTClassifier, HoeffdingTreeClassifier]


@pytest.mark.parametrize("cls", CLASSIFIERS)
@pytest.mark.parametrize("bad, msg", [(np.inf, r"y contains infinity"),
                                      (0.5, r"Unknown label type: continuous")])
def test_partial_fit_validates_labels_as_fit(cls, bad, msg, data):
    X, y, _ = data
    yb = np.where(np.arange(60) == 3, bad, y)
    for kw in ({}, {"classes": [0, 1]}):
        for n_range in (50, 1000):
            m = cls(n_range_samples=n_range)
            with pytest.raises(ValueError, match=msg):
                m.partial_fit(X, yb, **kw)
            assert m.n_seen == 0
    with pytest.raises(ValueError, match=msg):
        cls().fit(X, yb)
    m = cls(n_range_samples=50).partial_fit(X[:2], y[:2])
    with pytest.raises(ValueError, match=msg):
        m.partial_fit(X, yb)
    assert m.n_seen == 2


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_partial_fit_rejects_continuous_labels(cls, data):
    X, _, _ = data
    with pytest.raises(ValueError, match=r"Unknown label type: continuous"):
        cls(n_range_samples=50).partial_fit(X, X[:, 0])
    with pytest.raises(ValueError, match=r"Unknown label type: continuous"):
        cls().partial_fit(X, X[:, 0])


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_learn_one_validates_labels(cls):
    m = cls(n_range_samples=5)
    m.learn_one({0: 0.1, 1: 0.2}, 1)
    for bad, msg in [(0.5, r"Unknown label type: continuous"), (np.inf, r"y contains infinity"),
                     (float("nan"), r"y contains NaN"), (None, r"y contains NaN")]:
        with pytest.raises(ValueError, match=msg):
            m.learn_one({0: 0.1, 1: 0.2}, bad)
    assert m.n_seen == 1


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_learn_one_unhashable_label_once_classes_are_known(cls):
    m = cls(classes=[0, 1])
    m.learn_one({0: 0.1, 1: 0.2}, 1)
    with pytest.raises(TypeError, match=rf"{cls.__name__}.learn_one: the label must be a "
                                        r"scalar \(a class of classes_\), got list \[1\]"):
        m.learn_one({0: 0.1, 1: 0.2}, [1])
    assert m.n_seen == 1


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_partial_fit_classes_must_not_change(cls, data):
    X, y, _ = data
    m = cls(grace_period=20)
    m.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"`classes=\[0, 1, 2\]` is not the same as on last call "
                                         r"to partial_fit, was: \[0, 1\]"):
        m.partial_fit(X, y, classes=[0, 1, 2])
    m.partial_fit(X, y, classes=[1, 0])       # the same classes, in another order
    m.partial_fit(X, y)
    np.testing.assert_array_equal(m.classes_, [0, 1])
    # classes found from the labels are fixed as well
    m = cls(n_range_samples=20).partial_fit(X, y)
    with pytest.raises(ValueError, match=r"not the same as on last call to partial_fit"):
        m.partial_fit(X, y, classes=[0, 1, 2])


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_classes_declared_after_buffered_rows(cls, data):
    X, y, _ = data
    want = cls(grace_period=10, n_range_samples=30).partial_fit(X, y, classes=[0, 1])
    m = cls(grace_period=10, n_range_samples=30).partial_fit(X[:10], y[:10])
    m.partial_fit(X[10:], y[10:], classes=[0, 1])
    assert_same_model(m, want)
    np.testing.assert_array_equal(m.predict(X), want.predict(X))
    m = cls(grace_period=10, n_range_samples=30)
    for i in range(10):
        m.learn_one(dict(enumerate(X[i])), y[i])
    m.set_params(classes=[0, 1])
    for i in range(10, 60):
        m.learn_one(dict(enumerate(X[i])), y[i])
    assert_same_model(m, want)
    # a buffered label outside the declared classes: the declaration is undone
    m = cls(n_range_samples=30).partial_fit(X[:10], np.where(y[:10] == 1, 7, 0))
    with pytest.raises(ValueError, match=r"label 7.*not one of the classes"):
        m.partial_fit(X[10:], y[10:], classes=[0, 1])
    assert not hasattr(m, "classes_")


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_fit_without_rows_says_so(cls):
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 3\)\).*minimum of 1"):
        cls().fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match=r"X has 5 rows but y has shape \(0,\)"):
        cls().fit(np.ones((5, 3)), np.empty(0))


def test_adaptive_range_observer_bins_huge_values_at_the_end():
    from treelab._engine.observers import _vcode, ar_bin
    for x, b in [(-1e308, 0), (0.0, 0), (0.1, 0), (0.26, 1), (1.0, 3), (1e18, 3), (1e308, 3)]:
        assert ar_bin(x, 0.0, 1.0, 4) == b
    assert np.isnan(_vcode(1e300, True, 3)) and np.isnan(_vcode(-1.0, True, 3))
    assert _vcode(2.0, True, 3) == 2.0 and np.isnan(_vcode(2.5, True, 3))
    rng = np.random.RandomState(0)
    X = rng.rand(3000, 2)
    y = (X[:, 0] > 0.5).astype(int)
    m = HoeffdingTreeClassifier(grace_period=2000, observer="adaptive_range",
                                leaf_prediction="nb").fit(X, y)
    np.testing.assert_allclose(m.predict_proba(np.array([[1e18, 0.5]])),
                               m.predict_proba(np.array([[2.0, 0.5]])))
