"""Compact pickling of fitted trees and input encodings (issue 11: a fitted
ensemble's model file at most scikit-learn's): lossless, same dtypes, same
predictions, and smaller than the plain form."""
import pickle

import numpy as np
import pandas as pd
import pytest

from treelab import (AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier,
                     DecisionTreeRegressor)
from treelab._engine.tree import (TreeArrays, pack_tree_state, parents_and_depths,
                                  unpack_tree_state)
from treelab.data import FeatureEncoding


def _data(n=300, d=6, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.4).astype(int)
    return X, y


def _same_arrays(a, b):
    for f in TreeArrays._fields:
        x, z = getattr(a, f), getattr(b, f)
        assert x.dtype == z.dtype, f
        assert x.shape == z.shape, f
        assert np.array_equal(x, z), f


def _plain_size(tree):
    return len(pickle.dumps((tuple(tree.arrays), tree.stats), protocol=5))


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(random_state=0),
    lambda: DecisionTreeClassifier(max_depth=1),
    lambda: DecisionTreeClassifier(criterion="entropy", splitter="hist", max_depth=4),
    lambda: DecisionTreeRegressor(min_samples_leaf=3),
])
def test_tree_roundtrip_is_lossless_and_smaller(make):
    X, y = _data()
    est = make()
    est.fit(X, y if est._estimator_type == "classifier" else X[:, 0] + y)
    state = pack_tree_state(est.tree_.arrays, est.tree_.stats)
    arrays, stats = unpack_tree_state(pickle.loads(pickle.dumps(state)))
    _same_arrays(est.tree_.arrays, arrays)
    assert np.array_equal(stats, est.tree_.stats)
    # parent and depth are recomputed, not stored
    assert [entry[1] for entry in state[2][8:10]] == [None, None]
    assert len(pickle.dumps(state, protocol=5)) < 0.75 * _plain_size(est.tree_)
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.predict(X), est.predict(X))
    if hasattr(est, "predict_proba"):
        np.testing.assert_array_equal(est2.predict_proba(X), est.predict_proba(X))
    _same_arrays(est.tree_.arrays, est2.tree_.arrays)


def test_nominal_tree_roundtrip():
    rng = np.random.RandomState(1)
    df = pd.DataFrame({"a": pd.Categorical(rng.choice(list("pqrst"), 400)),
                       "b": rng.normal(size=400)})
    y = ((df["a"].isin(["p", "q"])) ^ (df["b"] > 0.3)).astype(int)
    est = DecisionTreeClassifier(max_depth=4).fit(df, y)
    assert est.tree_.arrays.sizes[1] > 0          # the cat_map is used
    est2 = pickle.loads(pickle.dumps(est))
    _same_arrays(est.tree_.arrays, est2.tree_.arrays)
    np.testing.assert_array_equal(est2.predict_proba(df), est.predict_proba(df))
    assert est2._encoding.is_nominal.tolist() == [True, False]
    assert list(est2._encoding.categories[0]) == list("pqrst")


def test_untrimmed_and_inconsistent_trees_are_stored_raw():
    X, y = _data()
    a = DecisionTreeClassifier(max_depth=3).fit(X, y).tree_.arrays
    # spare capacity beyond the node count
    pad = 5
    grown = a._replace(**{f: np.concatenate([getattr(a, f), np.zeros((pad,) + getattr(a, f).shape[1:],
                                                                    getattr(a, f).dtype)])
                          for f in TreeArrays._fields if f not in ("cat_map", "sizes")})
    back, _ = unpack_tree_state(pack_tree_state(grown))
    _same_arrays(grown, back)
    # a depth array that is not what the child ranges say is kept as it is
    odd = a._replace(depth=a.depth + 1)
    state = pack_tree_state(odd)
    assert state[2][9][1] is not None
    _same_arrays(odd, unpack_tree_state(state)[0])


def test_parents_and_depths_against_a_walk():
    X, y = _data(500)
    a = DecisionTreeClassifier(random_state=0).fit(X, y).tree_.arrays
    parent, depth = parents_and_depths(a.kind, a.first_child, a.n_children)
    # slow reference: walk from the root
    ref_p = np.full(a.kind.shape[0], -1)
    ref_d = np.zeros(a.kind.shape[0], int)
    stack = [0]
    while stack:
        u = stack.pop()
        if a.kind[u] != 0:
            for c in range(a.first_child[u], a.first_child[u] + a.n_children[u]):
                ref_p[c], ref_d[c] = u, ref_d[u] + 1
                stack.append(c)
    np.testing.assert_array_equal(parent, ref_p)
    np.testing.assert_array_equal(depth, ref_d)


def test_numeric_encoding_roundtrip():
    enc = FeatureEncoding(4, np.zeros(4, bool), [None] * 4, None,
                          has_missing=np.array([False, True, False, True]))
    back = pickle.loads(pickle.dumps(enc))
    assert back.n_features == 4
    assert back.is_nominal.dtype == np.bool_ and not back.is_nominal.any()
    assert back.categories == [None] * 4
    assert back.n_cats.dtype == np.int64 and not back.n_cats.any()
    assert back.has_missing.dtype == np.bool_
    assert back.has_missing.tolist() == [False, True, False, True]
    assert len(pickle.dumps(enc)) < 0.6 * len(pickle.dumps(enc.__dict__))


def test_ensembles_of_trees_pickle_smaller_than_sklearn():
    sk = pytest.importorskip("sklearn.ensemble")
    from sklearn.tree import DecisionTreeClassifier as SkTree
    X, y = _data(2000, 10)
    pairs = [
        (AdaBoostClassifier(n_estimators=30, random_state=0),
         sk.AdaBoostClassifier(SkTree(max_depth=1), n_estimators=30, random_state=0)),
        (BaggingClassifier(DecisionTreeClassifier(), n_estimators=10, random_state=0),
         sk.BaggingClassifier(SkTree(), n_estimators=10, random_state=0)),
    ]
    for ours, theirs in pairs:
        ours.fit(X, y)
        theirs.fit(X, y)
        back = pickle.loads(pickle.dumps(ours))
        np.testing.assert_array_equal(back.predict_proba(X), ours.predict_proba(X))
        assert len(pickle.dumps(ours)) <= len(pickle.dumps(theirs)), type(ours).__name__
