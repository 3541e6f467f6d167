"""Random forests, extra trees and completely-random tree forests (issue 11).

* one tree, no bootstrap, all features: a forest IS the single decision tree
  (same nodes, same predictions), for both splitters, nominal attributes,
  missing values, sample weights and a user criterion;
* a bootstrap tree is the single tree grown with the bootstrap counts as
  sample weights (the integer-weight bootstrap);
* the completely-random tree's splits are uniformly random: chi-square on the
  root feature over many trees, Kolmogorov-Smirnov on the root cut-point, a
  chi-square over the bin boundaries of the histogram splitter; every tree is
  grown until its leaves are pure;
* extra-trees cut-points lie in the node's [min, max) of the feature; with
  random cut-points, a row of weight k grows the trees of that row repeated k
  times (every splitter; node blocks, the column loop, nominal, missing);
* OOB score / decision function / prediction against a slow pure-Python
  reference (its own traversal of the stored trees);
* same random_state -> same forest whatever n_jobs; pickling; bad input.
"""
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from treelab import (
    CompletelyRandomForestClassifier, CompletelyRandomForestRegressor, DecisionTreeClassifier,
    DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
    RandomForestRegressor,
)
from treelab._engine.tree import LEAF, NOMINAL

UC_DIR = Path(__file__).resolve().parent / "user_criterion"
sys.path.insert(0, str(UC_DIR))
import my_criterion as mc  # noqa: E402

ALL = [RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
       CompletelyRandomForestClassifier, CompletelyRandomForestRegressor]
STRUCT = ["kind", "feature", "threshold", "first_child", "missing_child", "cat_offset",
          "cat_count"]


def mixed(seed=0, n=300, regression=False):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({
        "a": rng.randn(n),
        "b": np.round(rng.rand(n), 2),
        "c": pd.Categorical(rng.choice(list("pqrst"), n)),
        "d": rng.randint(0, 4, n).astype(float),
    })
    X.loc[rng.rand(n) < 0.1, "a"] = np.nan
    X.loc[rng.rand(n) < 0.1, "c"] = np.nan
    score = X["a"].fillna(0) + (X["c"] == "q") * 1.5 - X["b"] + 0.3 * rng.randn(n)
    if regression:
        return X, score.to_numpy()
    y = np.digitize(score, [-0.7, 0.4])
    return X, y


def numeric(seed=0, n=200, d=5, regression=False):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    s = X[:, 0] - X[:, 1] + 0.5 * rng.randn(n)
    return X, (s if regression else (s > 0).astype(int))


def _tree_vs_forest(tree, forest):
    f = forest._forest
    t = tree.tree_.arrays
    n = tree.tree_.node_count
    assert forest._roots.tolist() == [0] and f.sizes[0] == n
    for name in STRUCT:
        np.testing.assert_array_equal(getattr(f, name)[:n], getattr(t, name)[:n], err_msg=name)
    np.testing.assert_array_equal(f.cat_map[:t.sizes[1]], t.cat_map[:t.sizes[1]])
    np.testing.assert_array_equal(f.value, t.value[:n])


# ------------------------------------------------------- forest of one = a tree
@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio", mc.TSALLIS3])
def test_one_tree_forest_is_the_decision_tree_classifier(splitter, criterion):
    X, y = mixed(1)
    w = np.random.RandomState(3).randint(1, 4, len(y)).astype(float)
    kw = dict(criterion=criterion, min_samples_leaf=2, max_depth=8)
    rf = RandomForestClassifier(1, bootstrap=False, max_features=None, splitter=splitter,
                                random_state=5, **kw).fit(X, y, sample_weight=w)
    dt = DecisionTreeClassifier(splitter=splitter,
                                **kw).fit(X, y, sample_weight=w)
    _tree_vs_forest(dt, rf)
    np.testing.assert_array_equal(rf.predict_proba(X), dt.predict_proba(X))
    np.testing.assert_array_equal(rf.predict(X), dt.predict(X))
    np.testing.assert_array_equal(rf.apply(X)[:, 0], dt.apply(X))
    np.testing.assert_array_equal(rf.decision_path(X)[0].toarray(), dt.decision_path(X).toarray())
    np.testing.assert_allclose(rf.feature_importances_, dt.feature_importances_, rtol=1e-12,
                               atol=1e-15)
    assert (X["c"].cat.categories.size and (rf._forest.kind == NOMINAL).any()) or True


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("nominal_split", ["binary", "multiway"])
def test_one_tree_forest_is_the_decision_tree_regressor(splitter, nominal_split):
    X, y = mixed(2, regression=True)
    rf = RandomForestRegressor(1, bootstrap=False, max_features=None, splitter=splitter,
                               nominal_split=nominal_split, max_depth=6).fit(X, y)
    dt = DecisionTreeRegressor(splitter=splitter,
                               nominal_split=nominal_split, max_depth=6).fit(X, y)
    _tree_vs_forest(dt, rf)
    assert (rf._forest.kind == NOMINAL).any()
    np.testing.assert_array_equal(rf.predict(X), dt.predict(X))


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_one_tree_forest_on_numeric_hist_data_is_the_decision_tree(task, monkeypatch):
    # numeric-only binned data: the forest grows with the column builder (only the
    # drawn features' work), the single tree with the histogram builder (subtracted
    # histograms); float targets / weights and tie-prone columns (rounded values,
    # a negated and a monotone copy) must still give the same tree, node for node
    from treelab._engine import column_builder
    from treelab.ensembles import forest as forest_mod
    calls = []
    real = column_builder.build_tree_codes
    monkeypatch.setattr(forest_mod, "build_tree_codes",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    for seed in range(4):
        rng = np.random.RandomState(seed)
        n = [400, 3000][seed % 2]
        X = np.round(rng.randn(n, 6), 1)
        X[:, 5] = -X[:, 4]
        X[:, 3] = X[:, 2] ** 3
        s = X[:, 0] - X[:, 1] + 0.3 * rng.randn(n) + np.abs(X[:, 4])
        w = rng.rand(n) * 2 if seed % 2 else None
        kw = dict(min_samples_leaf=1 + 2 * (seed % 2), splitter="hist")
        if task == "regression":
            rf = RandomForestRegressor(1, bootstrap=False, max_features=None, **kw)
            dt = DecisionTreeRegressor(**kw)
            y = s
        else:
            rf = RandomForestClassifier(1, bootstrap=False, max_features=None, **kw)
            dt = DecisionTreeClassifier(**kw)
            y = np.digitize(s, [-0.5, 0.5])
        rf.fit(X, y, sample_weight=w)
        dt.fit(X, y, sample_weight=w)
        _tree_vs_forest(dt, rf)
        np.testing.assert_array_equal(rf.predict(X), dt.predict(X))
    assert len(calls) == 4


def test_identical_trees_average_to_the_tree():
    X, y = mixed(4)
    rf = RandomForestClassifier(3, bootstrap=False, max_features=None).fit(X, y)
    dt = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_allclose(rf.predict_proba(X), dt.predict_proba(X), rtol=1e-14)
    assert rf.node_counts_.tolist() == [dt.tree_.node_count] * 3
    np.testing.assert_allclose(rf.feature_importances_, dt.feature_importances_, rtol=1e-12)


def test_bootstrap_tree_is_the_tree_weighted_by_bootstrap_counts():
    X, y = numeric(5, n=150)
    rf = RandomForestClassifier(2, max_features=None, random_state=7).fit(X, y)
    samples = rf.estimators_samples_
    assert all(s.shape == (150,) for s in samples)
    assert not np.array_equal(samples[0], samples[1])
    counts = np.bincount(samples[0], minlength=150).astype(float)
    dt = DecisionTreeClassifier().fit(X, y, sample_weight=counts)
    one = RandomForestClassifier(1, max_features=None, bootstrap=False).fit(
        X, y, sample_weight=counts)
    _tree_vs_forest(dt, one)
    # the forest's first tree is this tree
    n0 = rf.node_counts_[0]
    for name in STRUCT:
        np.testing.assert_array_equal(getattr(rf._forest, name)[:n0],
                                      getattr(dt.tree_.arrays, name), err_msg=name)
    np.testing.assert_array_equal(rf.apply(X)[:, 0], dt.apply(X))


# --------------------------------------------------------- completely random
def test_completely_random_root_is_uniform():
    """Root of 3000 depth-1 trees: the feature is uniform over the non-constant
    features (chi-square) and never the constant one; the cut-point, rescaled to
    [0, 1] by the feature's range, is uniform (Kolmogorov-Smirnov)."""
    rng = np.random.RandomState(0)
    n = 60
    X = np.column_stack([rng.rand(n) * 10, rng.randn(n), np.full(n, 3.0), rng.exponential(size=n),
                         rng.randint(0, 50, n).astype(float)])
    y = rng.randint(0, 2, n)
    T = 3000
    crf = CompletelyRandomForestClassifier(T, max_depth=1, random_state=1).fit(X, y)
    f = crf._forest
    roots = crf._roots
    feats = f.feature[roots]
    assert (f.kind[roots] != LEAF).all()
    counts = np.bincount(feats, minlength=5)
    assert counts[2] == 0
    chi = stats.chisquare(counts[[0, 1, 3, 4]])
    assert chi.pvalue > 1e-3, counts
    lo, hi = X.min(axis=0), X.max(axis=0)
    u = (f.threshold[roots] - lo[feats]) / (hi[feats] - lo[feats])
    assert ((u >= 0) & (u < 1)).all()
    for j in (0, 1, 3, 4):
        ks = stats.kstest(u[feats == j], "uniform")
        assert ks.pvalue > 1e-3, (j, ks)
    # and they are not all the same (a broken RNG would pass the range checks)
    assert np.unique(f.threshold[roots]).size > T * 0.9


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_constant_draws_count_toward_max_features(splitter):
    """max_features=2 of d=12 features, ten of them constant, x0 the better split,
    x1 a worse one.  "count" (Breiman; scikit-learn): the root's candidates are
    the first two draws, constant or not, and drawing goes on one feature at a
    time only while none is admissible, so the root splits on x0 with
    probability 2/d + (d-2)(d-3) / (2d(d-1)) = 0.5076 (x0 among the first two,
    or neither and x0 drawn before x1).  "skip": both non-constant features are
    always examined, so the root is always x0."""
    rng = np.random.RandomState(0)
    n, d = 200, 12
    X = np.zeros((n, d))
    X[:, 0] = rng.rand(n)
    X[:, 1] = rng.rand(n)
    X[:, 2:] = 7.0
    y = ((X[:, 0] > 0.5) ^ (rng.rand(n) < 0.05)).astype(int)
    X[:, 1] = np.where(rng.rand(n) < 0.7, y, 1 - y) + 0.5 * X[:, 1]
    T = 2000
    kw = dict(max_depth=1, max_features=2, bootstrap=False, splitter=splitter)
    count = RandomForestClassifier(T, random_state=3, **kw).fit(X, y)
    roots = count._roots
    feats = count._forest.feature[roots]
    assert set(np.unique(feats)) == {0, 1}
    p0 = 2 / d + (d - 2) * (d - 3) / (2 * d * (d - 1))
    test = stats.binomtest(int((feats == 0).sum()), T, p0)
    assert test.pvalue > 1e-3, ((feats == 0).mean(), p0)
    skip = RandomForestClassifier(T, random_state=3, constant_draws="skip", **kw).fit(X, y)
    assert (skip._forest.feature[skip._roots] == 0).all()
    with pytest.raises(ValueError, match="constant_draws"):
        RandomForestClassifier(2, constant_draws="sometimes").fit(X, y)
    # every tree class takes the parameter (the presets pass it on)
    from treelab import C45Classifier, ID3Classifier
    for cls in (DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier, C45Classifier):
        est = cls(constant_draws="skip")
        assert est.get_params()["constant_draws"] == "skip"
    roots = [ID3Classifier(max_features=2, max_depth=1, random_state=s,
                           constant_draws=cd).fit(X, y).tree_.feature[0]
             for cd in ("count", "skip") for s in range(40)]
    assert 0 < sum(r == 1 for r in roots[:40]) and all(r == 0 for r in roots[40:])


@pytest.mark.parametrize("random_cut", ["value", "bin"])
def test_completely_random_hist_cut_distribution(random_cut):
    """Six unequally spaced values (0, 1, 2, 3, 4, 10) -> five boundaries.  "value"
    (the paper's U[min, max]): a boundary's probability is the gap it cuts over
    the range, 1/10 each and 6/10 for the last; "bin": 1/5 each (chi-square)."""
    rng = np.random.RandomState(1)
    n = 80
    values = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 10.0])
    X = values[rng.randint(0, 6, n)].reshape(-1, 1)
    X[:6, 0] = values
    y = rng.rand(n)
    T = 2000
    crf = CompletelyRandomForestRegressor(T, max_depth=1, splitter="hist", random_cut=random_cut,
                                          random_state=2).fit(X, y)
    thr = crf._forest.threshold[crf._roots]
    vals, counts = np.unique(thr, return_counts=True)
    np.testing.assert_allclose(vals, [0.5, 1.5, 2.5, 3.5, 7.0])
    p = np.diff(values) / 10.0 if random_cut == "value" else np.full(5, 0.2)
    assert stats.chisquare(counts, T * p).pvalue > 1e-3, counts
    other = np.full(5, 0.2) if random_cut == "value" else np.diff(values) / 10.0
    assert stats.chisquare(counts, T * other).pvalue < 1e-6, counts


@pytest.mark.parametrize("cls", [ExtraTreesClassifier, ExtraTreesRegressor,
                                 CompletelyRandomForestClassifier,
                                 CompletelyRandomForestRegressor])
def test_hist_value_cut_is_the_exact_splitters_draw(cls):
    """With at most ``max_bins`` distinct values a bin is a value, and the hist
    splitter's "value" draw (t ~ U[v_lo, v_hi) over the bins' values) consumes the
    RNG as the exact splitter's t ~ U[min, max): the same trees, so the same
    predictions; "bin" (uniform over boundaries) grows other trees."""
    rng = np.random.RandomState(0)
    n = 1500
    X = rng.randint(0, 40, size=(n, 6)).astype(float)
    X[:, 2] = rng.randint(0, 3, n)
    X[:, 3] = rng.exponential(size=n).round(1)       # unequal gaps between values
    z = X[:, 0] + 0.5 * X[:, 1] + 3 * X[:, 3] + rng.normal(0, 5, n)
    reg = cls in (ExtraTreesRegressor, CompletelyRandomForestRegressor)
    y = z if reg else (z > np.median(z)).astype(int)
    Xt = np.column_stack([rng.randint(0, 40, 400), rng.randint(0, 40, 400),
                          rng.randint(0, 3, 400), rng.randint(0, 40, 400),
                          rng.exponential(size=400).round(1), rng.randint(0, 40, 400)])
    Xt = Xt[:, [0, 1, 2, 4, 3, 5]].astype(float)

    def out(m):
        return m.predict(Xt) if reg else m.predict_proba(Xt)

    exact = cls(4, splitter="best", random_state=0, n_jobs=1).fit(X, y)
    value = cls(4, splitter="hist", random_state=0, n_jobs=1).fit(X, y)
    binned = cls(4, splitter="hist", random_cut="bin", random_state=0, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(value._forest.feature, exact._forest.feature)
    np.testing.assert_allclose(out(value), out(exact), rtol=1e-12, atol=1e-12)
    assert not np.allclose(out(binned), out(exact))


@pytest.mark.parametrize("cls,splitter", [(CompletelyRandomForestClassifier, "best"),
                                          (CompletelyRandomForestClassifier, "hist"),
                                          (CompletelyRandomForestRegressor, "best")])
def test_completely_random_trees_grow_until_pure(cls, splitter):
    X, y = mixed(3, regression=cls is CompletelyRandomForestRegressor)
    # no duplicated rows with different targets
    X = X.drop(columns=["d"]).assign(b=np.random.RandomState(9).rand(len(X)))
    m = cls(5, splitter=splitter, random_state=0).fit(X, y)
    f = m._forest
    leaves = f.kind == LEAF
    if cls is CompletelyRandomForestClassifier:
        assert np.all(np.sort(f.value[leaves], axis=1)[:, -1] == 1.0)   # pure leaves
        assert (m.predict(X) == y).all()
    else:
        np.testing.assert_allclose(m.predict(X), y, rtol=1e-12)


def test_completely_random_nominal_binary_split_is_a_random_subset():
    rng = np.random.RandomState(2)
    n = 200
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abcd"), n))})
    y = rng.randint(0, 2, n)
    crf = CompletelyRandomForestClassifier(400, max_depth=1, random_state=3).fit(X, y)
    f = crf._forest
    subsets = set()
    for r in crf._roots:
        assert f.kind[r] == NOMINAL
        slots = f.cat_map[f.cat_offset[r]:f.cat_offset[r] + f.cat_count[r]]
        assert set(slots.tolist()) == {0, 1}
        subsets.add(tuple(slots.tolist()))
    assert len(subsets) == 14          # every non-trivial subset of 4 categories


def _node_rows(m, X):
    ind, ptr = m.decision_path(X)
    return ind.tocsc()


@pytest.mark.parametrize("cls", [ExtraTreesClassifier, ExtraTreesRegressor])
def test_extra_trees_cut_points_lie_in_the_node_range(cls):
    X, y = numeric(6, n=120, regression=cls is ExtraTreesRegressor)
    m = cls(4, max_features=2, random_state=0).fit(X, y)
    f = m._forest
    ind = _node_rows(m, X)
    n_internal = 0
    for node in np.flatnonzero(f.kind != LEAF):
        rows = ind[:, node].nonzero()[0]
        x = X[rows, f.feature[node]]
        assert x.min() <= f.threshold[node] < x.max()
        n_internal += 1
    assert n_internal > 20
    # extra trees are not the best splits: they differ from a random forest's
    rf = RandomForestClassifier if cls is ExtraTreesClassifier else RandomForestRegressor
    best = rf(4, max_features=2, bootstrap=False, random_state=0).fit(X, y)
    assert not np.array_equal(best._forest.threshold[best._roots], f.threshold[m._roots])


def _weighted_and_repeated(seed, data):
    """scikit-learn's sample-weight check data: 15 rows x 30 features (``"wide"``:
    70, more than the column builder's node blocks take; ``"missing"``: a fifth
    of the values missing; ``"nominal"``: the first a category), integer
    weights 0-4; the weighted rows shuffled, the repeated ones in order.
    Returns ``(rows to predict, weighted X, y, weights, repeated X, y)``."""
    rng = np.random.RandomState(seed)
    X = rng.rand(15, 70 if data == "wide" else 30)
    y = rng.randint(0, 3, size=15)
    sw = rng.randint(0, 5, size=15)
    if data == "missing":
        # a fifth of the values missing (the same in every copy of a row)
        X[np.random.RandomState(seed + 7).rand(*X.shape) < 0.2] = np.nan
    Xr, yr = X.repeat(sw, axis=0), y.repeat(sw)
    perm = np.random.RandomState(seed + 1).permutation(15)
    Xw, yw, sww = X[perm], y[perm], sw[perm]
    if data == "nominal":
        # a category column: the trees are grown by the general builder, not the
        # column builder of numeric binned data
        def frame(a):
            df = pd.DataFrame(a)
            df[0] = pd.Categorical((a[:, 0] * 3).astype(int), categories=[0, 1, 2])
            return df
        # predicted: the rows of positive weight only.  A category no training row
        # brought to a node goes to its child with more rows (scikit-learn's rule
        # for missing values: rows, not weights), so a row of weight 0 may not
        # follow the repeated fit's path; a training row's categories are seen at
        # every node on its path
        return frame(X)[sw > 0], frame(Xw), yw, sww, frame(Xr), yr
    if data == "missing":
        # (a missing value at a node that saw none goes to the child with more
        # rows, as a category it saw none of: rows of positive weight only)
        return X[sw > 0], Xw, yw, sww, Xr, yr
    return X, Xw, yw, sww, Xr, yr


@pytest.mark.parametrize("cls", [ExtraTreesRegressor, ExtraTreesClassifier])
@pytest.mark.parametrize("kw", [dict(splitter="hist", random_cut="bin"),
                                dict(splitter="hist", random_cut="value"),
                                dict(splitter="best")])
@pytest.mark.parametrize("data", ["numeric", "wide", "nominal", "missing"])
def test_random_cut_trees_weight_k_is_k_copies(cls, kw, data):
    """Random cut-points, every feature drawn: a row of weight k grows the trees
    of that row repeated k times (rows of weight 0: removed).  Each feature
    visited draws its cut, also in a node of two rows, one of them weighted 2,
    whose twin holds three rows (stopping there at the first admissible split,
    as best splits may, left the later nodes' draws out of step; 8 of the 18
    cases without missing values failed so)."""
    n_diff = 0
    for seed in range(40):
        X, Xw, yw, sww, Xr, yr = _weighted_and_repeated(seed, data)
        if cls is ExtraTreesRegressor:
            yw, yr = yw.astype(float), yr.astype(float)
        a = cls(1, max_features=1.0, random_state=seed, **kw).fit(Xr, yr)
        b = cls(1, max_features=1.0, random_state=seed, **kw).fit(Xw, yw, sample_weight=sww)
        if cls is ExtraTreesRegressor:
            pa, pb = a.predict(X), b.predict(X)
        else:
            # (a class whose rows all weigh 0 is one of the weighted fit's classes,
            # with probability 0, and none of the repeated fit's)
            pb = b.predict_proba(X)
            pa = np.zeros_like(pb)
            pa[:, np.searchsorted(b.classes_, a.classes_)] = a.predict_proba(X)
        n_diff += not np.allclose(pa, pb, rtol=1e-9, atol=1e-12)
    assert n_diff == 0


# ------------------------------------------------------------------------ OOB
def _leaf_value(f, root, x):
    """Slow pure-Python traversal (independent of the kernels)."""
    node = root
    while f.kind[node] != LEAF:
        v = x[f.feature[node]]
        fc = f.first_child[node]
        if np.isnan(v):
            node = fc + f.missing_child[node]
        elif f.kind[node] == NOMINAL:
            c = int(v)
            slot = f.cat_map[f.cat_offset[node] + c] if c < f.cat_count[node] else -1
            node = fc + (f.missing_child[node] if slot < 0 else slot)
        else:
            node = fc + (0 if v <= f.threshold[node] else 1)
    return f.value[node]


def _slow_oob(m, Xf):
    n = Xf.shape[0]
    K = m._forest.value.shape[1]
    tot = np.zeros((n, K))
    cnt = np.zeros(n)
    for j, s in enumerate(m.estimators_samples_):
        inbag = np.zeros(n, bool)
        inbag[s] = True
        for i in np.flatnonzero(~inbag):
            tot[i] += _leaf_value(m._forest, m._roots[j], Xf[i])
            cnt[i] += 1
    return tot / np.maximum(cnt, 1)[:, None], cnt


def test_oob_classifier_matches_slow_reference():
    X, y = mixed(7, n=150)
    m = RandomForestClassifier(12, oob_score=True, random_state=3, max_depth=5).fit(X, y)
    Xf = m._encode(X)
    ref, cnt = _slow_oob(m, Xf)
    assert (cnt > 0).all()
    np.testing.assert_allclose(m.oob_decision_function_, ref, rtol=1e-12)
    assert m.oob_score_ == pytest.approx(np.mean(np.argmax(ref, axis=1) == y))
    np.testing.assert_allclose(m.oob_decision_function_.sum(axis=1), 1.0)
    # the OOB estimate is honest: below the training accuracy of the forest
    assert m.oob_score_ < m.score(X, y)


def test_oob_regressor_matches_slow_reference_with_zero_weight_rows():
    X, y = mixed(8, n=160, regression=True)
    w = np.ones(len(y))
    w[:10] = 0.0
    m = RandomForestRegressor(10, oob_score=True, random_state=4, max_samples=0.7,
                              splitter="hist").fit(X, y, sample_weight=w)
    assert all(s.min() >= 10 and s.shape == (105,) for s in m.estimators_samples_)
    Xf = m._encode(X)
    ref, cnt = _slow_oob(m, Xf)
    np.testing.assert_allclose(m.oob_prediction_, ref[:, 0], rtol=1e-12)
    assert cnt[:10].tolist() == [10] * 10
    r2 = 1 - ((y - ref[:, 0]) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    assert m.oob_score_ == pytest.approx(r2)


def test_oob_callable_and_too_few_trees_warn():
    X, y = numeric(9, n=100)
    m = RandomForestClassifier(2, oob_score=lambda a, b: 0.25, random_state=0)
    with pytest.warns(UserWarning, match="do not have OOB scores"):
        m.fit(X, y)
    assert m.oob_score_ == 0.25
    assert (m.oob_decision_function_.sum(axis=1) == 0).any()


# ---------------------------------------------------------------- determinism
@pytest.mark.parametrize("cls", ALL)
def test_same_random_state_same_forest_whatever_n_jobs(cls):
    X, y = mixed(10, regression=cls._task == "regression")
    kw = dict(n_estimators=6, random_state=11, max_depth=6)
    if cls in (RandomForestClassifier, RandomForestRegressor):
        kw["max_features"] = 2
    ms = [cls(n_jobs=nj, **kw).fit(X, y) for nj in (1, 2, -1)]
    for m in ms[1:]:
        for name in ("feature", "threshold", "value", "cat_map"):
            np.testing.assert_array_equal(getattr(m._forest, name), getattr(ms[0]._forest, name))
    other = cls(n_jobs=1, **dict(kw, random_state=12)).fit(X, y)
    assert not np.array_equal(other._forest.threshold, ms[0]._forest.threshold)


@pytest.mark.parametrize("cls", ALL)
def test_pickle_round_trip(cls):
    X, y = mixed(12, n=120, regression=cls._task == "regression")
    m = cls(4, random_state=0).fit(X, y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict(X), m.predict(X))
    np.testing.assert_array_equal(m2.apply(X), m.apply(X))


def test_kept_walk_records_predict_as_packing_per_call():
    # fit packs the walking records once (not pickled: rebuilt on loading); the
    # same predictions as the per-call packing of forest_sum
    from treelab._engine.tree import forest_sum
    X, y = numeric(17, n=2500)
    X[::7, 1] = np.nan
    for m in (RandomForestClassifier(12, random_state=0, n_jobs=2).fit(X, y),
              ExtraTreesRegressor(6, random_state=0, n_jobs=2).fit(X, y * 2.0)):
        assert m._walk[0] is m._forest and m._walk[1][0]
        T = m._roots.shape[0]
        ref = forest_sum(m._forest, m._roots, np.ones(T), m._encode(X)) / T
        np.testing.assert_array_equal(m._mean_value(X), ref)
        state = m.__getstate__()
        assert "_walk" not in state and "_forest" in state
        # pickling leaves the fitted forest its records (the state is a copy)
        pickle.dumps(m)
        assert m._walk[0] is m._forest
        m2 = pickle.loads(pickle.dumps(m))
        assert m2._walk[0] is m2._forest
        np.testing.assert_array_equal(m2._mean_value(X), ref)
        del m2.__dict__["_walk"]                   # (a forest without them packs per call)
        np.testing.assert_array_equal(m2._mean_value(X), ref)


def test_predict_threads_equal_serial():
    X, y = numeric(13, n=3000)
    m = RandomForestClassifier(20, random_state=0, n_jobs=2).fit(X, y)
    from treelab._engine.tree import forest_sum, forest_sum_serial
    Xf = m._encode(X)
    ones = np.ones(m._roots.shape[0])
    serial = forest_sum_serial(m._forest, m._roots, ones, Xf)
    np.testing.assert_array_equal(forest_sum(m._forest, m._roots, ones, Xf), serial)
    # any number of row chunks (one per thread, more, more than 64-row blocks allow)
    for n_chunks in (1, 2, 3, 7, 100):
        np.testing.assert_array_equal(forest_sum(m._forest, m._roots, ones, Xf, n_chunks),
                                      serial)
    assert m.predict_proba(X).shape == (3000, 2)


def test_concat_trees_release_gives_the_same_forest():
    """``concat_trees(release=True)`` (the forests' fit) builds the same forest as the
    plain concatenation, node for node, and drops the trees' arrays."""
    from treelab._engine.tree import TreeArrays, concat_trees
    X, y = numeric(21, n=300)
    m = RandomForestClassifier(3, random_state=0).fit(X, y)
    f = m._forest
    bounds = list(m._n_nodes)
    trees = []
    for j in range(3):
        lo, hi = bounds[j], bounds[j + 1]
        fields = {}
        for name in TreeArrays._fields:
            a = getattr(f, name)
            if name == "sizes":
                fields[name] = np.array([hi - lo, 0], np.int64)
            elif name == "cat_map" or a.shape[0] == 0:
                fields[name] = a.copy()
            else:
                a = a[lo:hi].copy()
                if name == "first_child":
                    a[a >= 0] -= lo
                fields[name] = a
        trees.append(TreeArrays(**fields))
    kept = list(trees)
    a, ra = concat_trees(trees, release=True)
    b, rb = concat_trees(kept)
    assert all(t.feature is None and t.value is None for t in trees)   # released
    np.testing.assert_array_equal(ra, bounds[:3])
    np.testing.assert_array_equal(ra, rb)
    for name in TreeArrays._fields:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(getattr(a, name), getattr(f, name))


def test_feature_importances_and_max_features():
    X, y = numeric(14, n=300, d=6)
    m = RandomForestClassifier(30, random_state=0).fit(X, y)
    imp = m.feature_importances_
    assert imp.shape == (6,) and imp.sum() == pytest.approx(1.0)
    assert set(np.argsort(imp)[-2:]) == {0, 1}
    assert m.max_features_ == 2
    # per-node sampling: with one feature per node the roots use many features
    one = RandomForestClassifier(30, max_features=1, random_state=0).fit(X, y)
    assert len(set(one._forest.feature[one._roots].tolist())) >= 4


def test_compact_forest_is_smaller_than_full_trees():
    X, y = numeric(15, n=400)
    m = RandomForestClassifier(5, random_state=0).fit(X, y)
    assert m._forest.parent.size == 0 and m._forest.impurity.size == 0
    assert m.decision_path(X)[1].tolist() == np.append(m._roots, m._n_nodes[-1]).tolist()


def test_class_weight_balanced_subsample_runs_and_reweights():
    X, y = numeric(16, n=200)
    y[:170] = 0
    a = RandomForestClassifier(5, random_state=0, class_weight="balanced_subsample").fit(X, y)
    b = RandomForestClassifier(5, random_state=0).fit(X, y)
    assert not np.array_equal(a._forest.threshold, b._forest.threshold)
    assert a.predict_proba(X).shape == (200, 2)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kw,match", [
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_estimators=2.5), "n_estimators"),
    (dict(bootstrap="yes"), "bootstrap"),
    (dict(bootstrap=False, oob_score=True), "bootstrap=True"),
    (dict(bootstrap=False, max_samples=0.5), "max_sample"),
    (dict(max_samples=0), "max_samples"),
    (dict(max_samples=1.5), "max_samples"),
    (dict(splitter="random"), "splitter"),
    (dict(max_features=0), "max_features"),
    (dict(max_features="third"), "max_features"),
    (dict(criterion="bogus"), "criterion"),
    (dict(max_bins=1), "max_bins"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(class_weight="weird"), "class_weight"),
])
def test_bad_parameters(kw, match):
    X, y = numeric(17, n=50)
    with pytest.raises(ValueError, match=match):
        RandomForestClassifier(**dict(dict(n_estimators=3), **kw)).fit(X, y)


@pytest.mark.parametrize("value", ["uniform", None, 1])
def test_bad_random_cut(value):
    X, y = numeric(17, n=50)
    with pytest.raises(ValueError, match="random_cut"):
        ExtraTreesClassifier(3, random_cut=value).fit(X, y)
    assert "random_cut" not in RandomForestClassifier().get_params()


def test_bad_data():
    X, y = numeric(18, n=50)
    m = ExtraTreesRegressor(3)
    with pytest.raises(ValueError, match="not fitted"):
        m.predict(X)
    with pytest.raises(ValueError):
        m.fit(X, y[:-1])
    with pytest.raises(ValueError, match="inf|infinity|Inf"):
        m.fit(np.where(X > 2, np.inf, X), y)
    m.fit(X, y.astype(float))
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :3])
    with pytest.raises(ValueError, match="one class"):
        CompletelyRandomForestClassifier(2).fit(X, np.zeros(50))
    with pytest.raises(ValueError, match="regression|criterion"):
        RandomForestRegressor(2, criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="weight"):
        RandomForestRegressor(2).fit(X, y, sample_weight=np.zeros(50))
