"""Exact-splitter forests on data that bins without loss (every feature at most 255
distinct values, no missing value): the column builder grows them on the bin
codes with the exact splitter's thresholds (``_BaseForest._exact_as_bins``).
They must be the exact builder's forests: the same features, partitions, values
and thresholds (node-local midpoints, drawn cut-points), hence the same
predictions on data the bins never saw."""
import numpy as np
import pytest
from sklearn.datasets import load_digits

from treelab import (CompletelyRandomForestClassifier, ExtraTreesClassifier,
                     RandomForestClassifier, RandomForestRegressor)
from treelab._engine.binning import BIN_SUBSAMPLE, exact_bins
from treelab._engine.column_builder import (_bin_values_are_codes, _cut_at_codes,
                                            _fill_cut_tables, _table_cut_at)
from treelab._engine.splitter import FEATURE_THRESHOLD, cut_at


def _digits(n=500):
    X, y = load_digits(return_X_y=True)
    return X[:n].astype(np.float64), y[:n]


def _floats(n=600, seed=0):
    # few distinct non-integer values (midpoints and drawn cuts are not integers)
    rng = np.random.RandomState(seed)
    X = np.round(rng.normal(size=(n, 7)), 1) * 0.3
    X[:, 3] = 2.5                                       # a constant feature
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.2)
    return X, y


def _arrays(m):
    F = m._forest
    return (F.feature, F.threshold, F.first_child, F.missing_child, F.value)


def _pair(cls, X, y, **kw):
    a = cls(random_state=5, n_jobs=1, **kw).fit(X, y)
    b = cls(random_state=5, n_jobs=1, **kw)
    b._exact_on_bins = False
    b.fit(X, y)
    return a, b


CASES = [
    (RandomForestClassifier, dict(n_estimators=4)),
    (RandomForestClassifier, dict(n_estimators=2, max_features=None, bootstrap=False)),
    (RandomForestClassifier, dict(n_estimators=3, min_samples_leaf=3, max_depth=7,
                                  oob_score=True)),
    (ExtraTreesClassifier, dict(n_estimators=4)),
    (ExtraTreesClassifier, dict(n_estimators=3, criterion="entropy", bootstrap=True)),
    (CompletelyRandomForestClassifier, dict(n_estimators=4)),
]


@pytest.mark.parametrize("data", ["digits", "floats"])
@pytest.mark.parametrize("cls,kw", CASES)
def test_exact_forests_on_lossless_bins_are_the_exact_builders(data, cls, kw):
    X, y = _digits() if data == "digits" else _floats()
    assert exact_bins(X, FEATURE_THRESHOLD) is not None
    a, b = _pair(cls, X, y, **kw)
    for u, v in zip(_arrays(a), _arrays(b)):
        assert u.shape == v.shape
        np.testing.assert_array_equal(u, v)
    # unseen values between and beyond the training values: thresholds decide
    rng = np.random.RandomState(1)
    Xq = X[::2] + (rng.rand(*X[::2].shape) - 0.5) * (1.0 if data == "digits" else 0.2)
    np.testing.assert_array_equal(a.predict_proba(Xq), b.predict_proba(Xq))
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)
    if kw.get("oob_score"):
        assert a.oob_score_ == b.oob_score_


def test_best_split_thresholds_are_node_local_midpoints():
    # feature 1 separates class 2 at the root; its left child holds feature 0's
    # values 0 and 10 only: the exact splitter cuts at their midpoint 5, where the
    # histogram splitter cuts at its bin edge 0.5 (to the data's next value, 1)
    a = np.repeat([0.0, 10.0, 1.0, 2.0], 3)
    X = np.column_stack([a, (a == 1.0) | (a == 2.0)]).astype(np.float64)
    y = np.repeat([0, 1, 2, 2], 3)
    kw = dict(bootstrap=False, max_features=None, random_state=0, n_jobs=1)
    ex = RandomForestClassifier(1, **kw).fit(X, y)
    hi = RandomForestClassifier(1, splitter="hist", **kw).fit(X, y)
    assert ex._forest.feature[0] == 1 and ex._forest.feature[1] == 0
    assert ex._forest.threshold[1] == 5.0 and hi._forest.threshold[1] == 0.5
    assert ex.predict([[0.7, 0.0]])[0] == 0 and hi.predict([[0.7, 0.0]])[0] == 1


def test_random_cuts_keep_the_exact_splitters_rounding_rule():
    # splitter.cut_at: t = v_lo + (v_hi - v_lo) u; a draw that rounds onto the
    # node's largest value becomes its smallest (scikit-learn's RandomSplitter,
    # splitter.random_numeric on raw values), on every path that draws on codes
    bv = np.array([1.0, 2.0, 4.0])
    assert cut_at(0, 2, bv, 2.0 / 3.0) == (1, 3.0)
    assert cut_at(0, 2, bv, 0.0) == (0, 1.0)
    assert cut_at(0, 2, bv, 1.0) == (0, 1.0)
    assert cut_at(1, 2, bv, 1.0) == (1, 2.0)
    # the largest u below 1 rounds onto the largest value: 0.5 + 0.5 u == 1.0
    half = np.array([0.5, 1.0])
    u = np.nextafter(1.0, 0.0)
    assert 0.5 + 0.5 * u == 1.0 and cut_at(0, 1, half, u) == (0, 0.5)
    tab = np.zeros((1, 64), np.uint8)
    v0, scale = np.zeros(1), np.zeros(1)
    D = _one_feature_data(bv)
    _fill_cut_tables(D, 1, tab, v0, scale)
    for lo, hi, uu in ((0, 2, 2.0 / 3.0), (0, 2, 0.0), (0, 2, 1.0), (1, 2, 1.0), (0, 1, 0.99)):
        assert _table_cut_at(lo, hi, bv, tab[0], v0[0], scale[0], uu) == cut_at(lo, hi, bv, uu)[0]


def test_the_codes_shortcut_draws_the_searchs_cut():
    # bins whose values are their codes (the cascade's columns): floor(t) is the
    # binary search's answer, for any node range and any draw
    bv = np.arange(256, dtype=np.float64)
    rng = np.random.RandomState(0)
    us = np.concatenate([rng.rand(2000), [0.0, 0.5, np.nextafter(1.0, 0.0), 1.0]])
    for lo, hi in ((0, 1), (0, 255), (3, 4), (17, 200), (254, 255), (100, 101)):
        for u in us:
            assert _cut_at_codes(lo, hi, bv, u) == cut_at(lo, hi, bv, u)
    # the shortcut is taken only when every feature's bin values are its codes
    from treelab.ensembles import _cascade_fast as fast
    D = fast.binned_data(np.zeros((3, 2), np.uint8), [5, 3], False).D
    assert _bin_values_are_codes(D)
    for k in range(D.bin_values.shape[0]):
        bad = D.bin_values.copy()
        bad[k] += 0.5
        assert not _bin_values_are_codes(D._replace(bin_values=bad))
    assert not _bin_values_are_codes(D._replace(bin_values=np.zeros(0)))


def _one_feature_data(bv):
    from treelab.ensembles import _cascade_fast as fast
    D = fast.binned_data(np.zeros((2, 1), np.uint8), [bv.shape[0]], False).D
    return D._replace(bin_values=bv)


def test_exact_bins_refuses_data_that_binning_would_change():
    X, _ = _floats()
    data = exact_bins(X, FEATURE_THRESHOLD)
    eo = data.edge_offsets
    for f in range(X.shape[1]):
        vals = data.bin_values[eo[f] + f:eo[f + 1] + f + 1]
        np.testing.assert_array_equal(vals, np.unique(X[:, f]))
        np.testing.assert_array_equal(vals[data.Xb[:, f]], X[:, f])
    Xn = X.copy()
    Xn[7, 2] = np.nan
    assert exact_bins(Xn, FEATURE_THRESHOLD) is None
    Xw = X.copy()
    Xw[:, 1] = np.arange(X.shape[0]) * 0.5          # 600 distinct values
    assert exact_bins(Xw, FEATURE_THRESHOLD) is None
    Xl = np.zeros((1500, 2))
    Xl[1100:, 1] = np.arange(400)                   # > 256 values, none in the first rows
    assert exact_bins(Xl, FEATURE_THRESHOLD) is None
    # 256 distinct values fit: without missing values every uint8 code is a value
    X256 = np.column_stack([np.tile(np.arange(256.0), 3), np.zeros(768)])
    d256 = exact_bins(X256, FEATURE_THRESHOLD)
    assert d256.missing_bin == 256 and d256.Xb[:, 0].max() == 255
    np.testing.assert_array_equal(d256.Xb[:256, 0], np.arange(256))
    Xg = X.copy()
    Xg[::2, 4] = 1.0
    Xg[1::2, 4] = 1.0 + FEATURE_THRESHOLD / 2       # closer than the exact splitter sees
    assert exact_bins(Xg, FEATURE_THRESHOLD) is None
    assert BIN_SUBSAMPLE > X.shape[0]


@pytest.mark.parametrize("case", ["nan", "balanced", "entropy_best", "regression", "many"])
def test_forests_outside_the_lossless_case_keep_the_exact_builder(case, monkeypatch):
    X, y = _digits(300)
    kw = {}
    cls = RandomForestClassifier
    if case == "nan":
        X = X.copy()
        X[3, 20] = np.nan
    elif case == "balanced":
        kw["class_weight"] = "balanced"
    elif case == "entropy_best":
        kw["criterion"] = "entropy"
    elif case == "regression":
        cls = RandomForestRegressor
        y = y.astype(float)
    else:
        X = X.copy()
        X[:, 5] = np.linspace(0, 1, X.shape[0])
    routed = []
    orig = cls._exact_as_bins

    def spy(self, *a):
        out = orig(self, *a)
        routed.append(out is not None)
        return out

    monkeypatch.setattr(cls, "_exact_as_bins", spy)
    a = cls(3, random_state=0, n_jobs=1, **kw).fit(X, y)
    assert routed == [False]
    a.predict(X[:5])
