"""Property tests (hypothesis) of the batch decision trees on small random data.

The data mix numeric columns (with ties and NaN) and pandas ``category``
columns (nominal; with and without missing values, sometimes with a declared
category that never occurs), for classification and regression, with the
exact ("best") and histogram ("hist") splitters and binary / multiway nominal
splits.  Checked:

* predictions are a deterministic function of the fitted arrays: a slow
  pure-Python traversal of ``est.tree_.arrays`` written here from the rules in
  :mod:`treelab._engine.tree` (NaN -> ``missing_child``; a category code outside
  ``cat_count`` or mapped to -1 -> ``missing_child``) reaches the same leaf as
  ``est.apply`` for every row, on the training set and on new rows with unseen
  categories, and ``predict`` / ``predict_proba`` are the leaf values;
* pickle / joblib round trips predict identically; the same ``random_state``
  (with ``max_features < n_features``) gives identical trees; refitting gives
  identical arrays; a NumPy array fits the same tree as the equal DataFrame;
* training-set invariants: children's ``n_samples`` (and statistics) sum to
  the parent's, leaf statistics sum to the class totals and equal the counts of
  the training rows that ``apply`` sends there, ``min_samples_leaf`` and
  ``max_depth`` hold, missing values go to the larger child at nodes that saw
  none; without a depth limit and without duplicate rows the exact splitter
  fits the training set perfectly;
* an integer sample weight k is the same as k copies of the row;
* unseen categories (and declared-but-never-seen ones) at predict time go
  where missing values go, and NaN goes to ``missing_child``.
"""
import io
import math
import os
import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from treelab import DecisionTreeClassifier, DecisionTreeRegressor
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC

# TREELAB_PROPERTY_EXAMPLES=500 for a longer bug hunt
SETTINGS = settings(max_examples=int(os.environ.get("TREELAB_PROPERTY_EXAMPLES", 30)),
                    deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CATS = ["a", "b", "c", "d"]
UNUSED = "zz"   # declared at fit time, never present in the training rows
UNSEEN = "new"  # never declared at fit time


# ------------------------------------------------------------------ data
@st.composite
def datasets(draw, task, cat_missing=True, num_missing=True, min_rows=2):
    """A small DataFrame of numeric + category columns and a target."""
    n = draw(st.integers(min_rows, 40))
    n_num = draw(st.integers(0, 3))
    n_cat = draw(st.integers(0 if n_num else 1, 2))
    rng = np.random.RandomState(draw(st.integers(0, 2**32 - 1)))
    cols = {}
    for j in range(n_num):
        if draw(st.booleans()):
            v = rng.randint(0, 5, n).astype(float)           # many ties
        else:
            v = np.round(rng.randn(n), 2) + 0.0              # +0.0: no negative zeros
        if num_missing:
            v[rng.rand(n) < draw(st.sampled_from([0.0, 0.1, 0.3]))] = np.nan
        cols[f"x{j}"] = v
    for j in range(n_cat):
        k = draw(st.integers(2, 4))
        declared = CATS[:k] + ([UNUSED] if draw(st.booleans()) else [])
        vals = rng.choice(CATS[:k], n).astype(object)
        if cat_missing:
            vals[rng.rand(n) < draw(st.sampled_from([0.0, 0.15, 0.4]))] = None
        cols[f"c{j}"] = pd.Categorical(vals, categories=declared)
    names = list(cols)
    order = draw(st.permutations(names))
    X = pd.DataFrame({c: cols[c] for c in order})
    if task == "classification":
        k = draw(st.integers(2, 3))
        codes = rng.randint(0, k, n)
        codes[0], codes[1] = 0, 1                            # at least two classes
        labels = draw(st.sampled_from([np.arange(k), np.array(["no", "yes", "maybe"])[:k]]))
        y = labels[codes]
    else:
        y = np.round(rng.randn(n) * 3, 1)
    return X, y


def params(task):
    crit = (st.sampled_from(["gini", "entropy", "gain_ratio"]) if task == "classification"
            else st.just("squared_error"))
    return st.fixed_dictionaries({
        "criterion": crit,
        "splitter": st.sampled_from(["best", "hist"]),
        "nominal_split": st.sampled_from(["binary", "multiway"]),
        "max_depth": st.sampled_from([None, None, 1, 2, 4]),
        "min_samples_leaf": st.sampled_from([1, 1, 2, 3]),
        "max_bins": st.sampled_from([255, 255, 2, 3]),
    })


def make(task, **kw):
    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    return cls(**kw)


def new_rows(X, rng, n=25):
    """Rows unlike the training ones: fresh numbers, NaN, and categories seen,
    declared-but-unused, and never declared."""
    cols = {}
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            pool = list(X[c].cat.categories) + [UNSEEN, None]
            vals = np.array([pool[i] for i in rng.randint(0, len(pool), n)], dtype=object)
            cols[c] = pd.Categorical(vals, categories=list(X[c].cat.categories) + [UNSEEN])
        else:
            v = np.round(rng.randn(n) * 2, 1) + 0.0
            v[rng.rand(n) < 0.2] = np.nan
            cols[c] = v
    return pd.DataFrame(cols)


# ------------------------------------------------------- reference traversal
def encode_ref(X, fit_X):
    """Encode ``X`` like the documented engine input, independently of treelab:
    numeric -> float (NaN missing), nominal -> index in the fit-time categories,
    NaN if missing, -1 if not a fit-time category."""
    out = np.empty(X.shape, dtype=np.float64)
    for j, c in enumerate(X.columns):
        if isinstance(fit_X[c].dtype, pd.CategoricalDtype):
            cats = list(fit_X[c].cat.categories)
            for i, v in enumerate(X[c].astype(object)):
                out[i, j] = math.nan if pd.isna(v) else (cats.index(v) if v in cats else -1)
        else:
            out[:, j] = X[c].to_numpy(dtype=np.float64)
    return out


def ref_leaf(a, row):
    """The leaf reached by one encoded row, following the docstring of tree.py."""
    node = 0
    while a.kind[node] != LEAF:
        x = row[a.feature[node]]
        first = a.first_child[node]
        if math.isnan(x):
            slot = a.missing_child[node]
        elif a.kind[node] == NUMERIC:
            slot = 0 if x <= a.threshold[node] else 1
        else:
            assert a.kind[node] == NOMINAL
            slot = -1
            if x == int(x) and 0 <= x < a.cat_count[node]:
                slot = a.cat_map[a.cat_offset[node] + int(x)]
            if slot < 0:
                slot = a.missing_child[node]
        assert 0 <= slot < a.n_children[node]
        node = first + slot
    return node


def ref_apply(est, X, fit_X):
    a = est.tree_.arrays
    return np.array([ref_leaf(a, row) for row in encode_ref(X, fit_X)], dtype=np.int64)


def assert_same_arrays(t1, t2):
    for name in t1.arrays._fields:
        np.testing.assert_array_equal(getattr(t1.arrays, name), getattr(t2.arrays, name),
                                      err_msg=name)
    np.testing.assert_array_equal(t1.stats, t2.stats)


def assert_predicts_alike(e1, e2, X):
    np.testing.assert_array_equal(e1.apply(X), e2.apply(X))
    np.testing.assert_array_equal(e1.predict(X), e2.predict(X))
    if hasattr(e1, "predict_proba"):
        np.testing.assert_array_equal(e1.predict_proba(X), e2.predict_proba(X))


TASKS = ["classification", "regression"]


# ----------------------------------------------------------------- properties
@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_predictions_follow_the_arrays(task, data):
    X, y = data.draw(datasets(task))
    kw = data.draw(params(task))
    est = make(task, **kw).fit(X, y)
    a = est.tree_.arrays
    rng = np.random.RandomState(0)
    for Z in (X, new_rows(X, rng)):
        leaves = ref_apply(est, Z, X)
        np.testing.assert_array_equal(est.apply(Z), leaves)
        assert np.all(a.kind[leaves] == LEAF)
        if task == "classification":
            proba = est.predict_proba(Z)
            np.testing.assert_array_equal(proba, a.value[leaves])
            np.testing.assert_array_equal(est.predict(Z),
                                          est.classes_[np.argmax(a.value[leaves], axis=1)])
            np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        else:
            np.testing.assert_array_equal(est.predict(Z), a.value[leaves, 0])
        # decision_path ends in the leaf and starts at the root
        path = est.decision_path(Z)
        for i in range(len(Z)):
            nodes = path.indices[path.indptr[i]:path.indptr[i + 1]]
            assert nodes[0] == 0 and nodes[-1] == leaves[i]
    # leaf values are the normalised leaf statistics
    leaf = a.kind == LEAF
    s = est.tree_.stats
    if task == "classification":
        np.testing.assert_allclose(a.value[leaf], s[leaf] / s[leaf].sum(axis=1, keepdims=True))
    else:
        np.testing.assert_allclose(a.value[leaf, 0], s[leaf, 1] / s[leaf, 0])


@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_training_set_invariants(task, data):
    X, y = data.draw(datasets(task))
    kw = data.draw(params(task))
    est = make(task, **kw).fit(X, y)
    a, s = est.tree_.arrays, est.tree_.stats
    n_nodes = est.tree_.node_count
    assert a.n_samples[0] == len(X)
    Xe = encode_ref(X, X)
    leaves = est.apply(X)
    path = est.decision_path(X)
    reach = path.toarray().astype(bool)                  # rows x nodes
    for i in range(n_nodes):
        assert reach[:, i].sum() == a.n_samples[i]
        if a.kind[i] == LEAF:
            continue
        kids = np.arange(a.first_child[i], a.first_child[i] + a.n_children[i])
        assert a.n_children[i] >= 2
        assert a.n_samples[kids].sum() == a.n_samples[i]
        np.testing.assert_allclose(s[kids].sum(axis=0), s[i], rtol=1e-12, atol=1e-9)
        # a node that saw no missing value of its feature sends NaN to its larger child
        f = a.feature[i]
        if not np.isnan(Xe[reach[:, i], f]).any():
            assert a.missing_child[i] == int(np.argmax(a.n_samples[kids])), i
    assert np.all(a.n_samples[1:n_nodes] >= kw["min_samples_leaf"])
    if kw["max_depth"] is not None:
        assert est.get_depth() <= kw["max_depth"]
    leaf = a.kind == LEAF
    if task == "classification":
        codes = np.searchsorted(est.classes_, y)
        totals = np.bincount(codes, minlength=len(est.classes_)).astype(float)
        np.testing.assert_array_equal(s[leaf].sum(axis=0), totals)
        # each leaf holds exactly the class counts of the training rows it receives
        for node in np.flatnonzero(leaf):
            rows = leaves == node
            np.testing.assert_array_equal(
                s[node], np.bincount(codes[rows], minlength=len(est.classes_)))
    else:
        np.testing.assert_allclose(s[leaf].sum(axis=0), [len(y), y.sum(), (y * y).sum()],
                                   rtol=1e-9, atol=1e-9)
        for node in np.flatnonzero(leaf):
            rows = leaves == node
            np.testing.assert_allclose(a.value[node, 0], y[rows].mean(), rtol=1e-9, atol=1e-9)


@SETTINGS
@given(data=st.data())
def test_exact_splitter_fits_distinct_rows_perfectly(data):
    # missing category values are left out: a node whose rows differ only by
    # "category c" vs "missing" has no category test that separates them (by design)
    X, y = data.draw(datasets("classification", cat_missing=False, min_rows=3))
    keep = ~X.duplicated().to_numpy()
    X, y = X[keep].reset_index(drop=True), y[keep]
    assume(len(np.unique(y)) >= 2)
    kw = data.draw(st.fixed_dictionaries({
        "criterion": st.sampled_from(["gini", "entropy", "gain_ratio"]),
        "nominal_split": st.sampled_from(["binary", "multiway"])}))
    est = DecisionTreeClassifier(splitter="best", **kw).fit(X, y)
    assert est.score(X, y) == 1.0
    a = est.tree_.arrays
    leaf = a.kind == LEAF
    assert np.all((est.tree_.stats[leaf] > 0).sum(axis=1) == 1), "every leaf is pure"


@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_pickle_joblib_refit_and_random_state(task, data):
    X, y = data.draw(datasets(task))
    kw = data.draw(params(task))
    est = make(task, **kw).fit(X, y)
    Z, Z2 = X, new_rows(X, np.random.RandomState(1))
    # pickle
    est2 = pickle.loads(pickle.dumps(est))
    assert_same_arrays(est.tree_, est2.tree_)
    assert_predicts_alike(est, est2, Z)
    assert_predicts_alike(est, est2, Z2)
    # joblib
    buf = io.BytesIO()
    joblib.dump(est, buf)
    buf.seek(0)
    est3 = joblib.load(buf)
    assert_predicts_alike(est, est3, Z)
    assert_predicts_alike(est, est3, Z2)
    # refit: identical arrays (no randomness involved without max_features)
    assert_same_arrays(est.tree_, make(task, **kw).fit(X, y).tree_)
    est.fit(X, y)  # refitting the same object
    assert_same_arrays(est.tree_, est2.tree_)
    # same random_state with feature subsampling: identical trees
    d = X.shape[1]
    if d >= 2:
        seed = data.draw(st.integers(0, 2**31 - 1))
        mf = data.draw(st.integers(1, d - 1))
        r1 = make(task, max_features=mf, random_state=seed, **kw).fit(X, y)
        r2 = make(task, max_features=mf, random_state=seed, **kw).fit(X, y)
        assert_same_arrays(r1.tree_, r2.tree_)
        r3 = make(task, max_features=mf, random_state=np.random.RandomState(seed), **kw).fit(X, y)
        assert_same_arrays(r1.tree_, r3.tree_)
        assert_predicts_alike(r1, pickle.loads(pickle.dumps(r1)), Z2)


@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_numpy_and_dataframe_give_the_same_tree(task, data):
    X, y = data.draw(datasets(task))
    X = X[[c for c in X.columns if c.startswith("x")]]
    assume(X.shape[1] > 0)
    kw = data.draw(params(task))
    e1 = make(task, **kw).fit(X, y)
    e2 = make(task, **kw).fit(X.to_numpy(), y)
    assert_same_arrays(e1.tree_, e2.tree_)
    np.testing.assert_array_equal(e1.predict(X), e2.predict(X.to_numpy()))


@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_integer_weight_equals_copies(task, data):
    X, y = data.draw(datasets(task))
    if task == "regression":
        y = np.round(y)      # integer targets: every sum is exact whatever the order
    kw = data.draw(params(task))
    kw.update(min_samples_leaf=1, max_bins=255)  # counts, not weights, enter these two
    w = data.draw(st.lists(st.integers(0, 3), min_size=len(X), max_size=len(X)))
    w = np.array(w)
    rep = np.repeat(np.arange(len(X)), w)
    assume(len(rep) >= 2)
    # a class whose rows all weigh 0 still counts in classes_; copies drop it
    assume(task == "regression" or np.array_equal(np.unique(y[rep]), np.unique(y)))
    ew = make(task, **kw).fit(X, y, sample_weight=w.astype(float))
    er = make(task, **kw).fit(X.iloc[rep].reset_index(drop=True), y[rep])
    aw, ar = ew.tree_.arrays, er.tree_.arrays
    # same splits and statistics; only the sample counts (and so the side that
    # gets missing values at nodes that saw none, and min_samples checks) differ
    for name in ["kind", "feature", "threshold", "first_child", "n_children", "cat_map",
                 "cat_count"]:
        np.testing.assert_array_equal(getattr(aw, name), getattr(ar, name), err_msg=name)
    np.testing.assert_allclose(aw.weighted_n_samples, ar.weighted_n_samples)
    np.testing.assert_allclose(ew.tree_.stats, er.tree_.stats, rtol=1e-12, atol=1e-9)
    Xk = X.iloc[w > 0]
    np.testing.assert_array_equal(ew.predict(Xk), er.predict(Xk))


@pytest.mark.parametrize("task", TASKS)
@SETTINGS
@given(data=st.data())
def test_unseen_categories_go_where_missing_values_go(task, data):
    X, y = data.draw(datasets(task))
    kw = data.draw(params(task))
    est = make(task, **kw).fit(X, y)
    a = est.tree_.arrays
    for c in X.columns:
        if not isinstance(X[c].dtype, pd.CategoricalDtype):
            continue
        cats = list(X[c].cat.categories) + [UNSEEN]
        as_nan = X.copy()
        as_nan[c] = pd.Categorical([None] * len(X), categories=cats)
        as_unseen = X.copy()
        as_unseen[c] = pd.Categorical([UNSEEN] * len(X), categories=cats)
        expected = est.apply(as_nan)
        np.testing.assert_array_equal(est.apply(as_unseen), expected)
        np.testing.assert_array_equal(est.predict(as_unseen), est.predict(as_nan))
        # a plain object column with a never-seen value is encoded the same way
        as_obj = X.copy()
        as_obj[c] = pd.Categorical(["never-seen"] * len(X))
        np.testing.assert_array_equal(est.apply(as_obj), expected)
        if UNUSED in X[c].cat.categories:       # declared at fit, never in a training row
            as_unused = X.copy()
            as_unused[c] = pd.Categorical([UNUSED] * len(X), categories=X[c].cat.categories)
            np.testing.assert_array_equal(est.apply(as_unused), expected)
    # NaN in feature f: every node testing f sends the row to its missing child
    for j, c in enumerate(X.columns):
        Z = X.copy()
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            Z[c] = pd.Categorical([None] * len(X), categories=X[c].cat.categories)
        else:
            Z[c] = np.nan
        path = est.decision_path(Z)
        for i in range(len(Z)):
            nodes = path.indices[path.indptr[i]:path.indptr[i + 1]]
            for parent, child in zip(nodes[:-1], nodes[1:]):
                if a.feature[parent] == j:
                    assert child == a.first_child[parent] + a.missing_child[parent]
