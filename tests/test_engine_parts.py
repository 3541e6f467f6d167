"""Engine parts for ensembles: parameters tuple, binned data reused across trees
(row subsets), the best-first driver, nogil kernels in threads, the multi-root
forest traversal."""
import heapq
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from treelab import DecisionTreeClassifier, DecisionTreeRegressor
from treelab._engine.binning import bin_data, rank_columns
from treelab._engine.builder import BuildParams, make_params
from treelab._engine.build import build_tree, get_build_kernel
from treelab._engine.merit import TASK_CLASSIFICATION, TASK_DENSE
from treelab._engine.splitter import NOMINAL_MULTIWAY
from treelab._engine.tree import (
    LEAF, concat_trees, forest_predict, forest_raw, forest_raw_serial, predict_value_serial, trim,
)
from treelab.split_criteria import GINI, VARIANCE

FIELDS = [f for f in BuildParams._fields]


def _data(seed, n=300, d=5, missing=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n) * 0.5 > 0.7).astype(np.int64)
    yr = X[:, 0] * 2 + np.sin(X[:, 2]) + rng.normal(size=n) * 0.2
    if missing:
        X[rng.random((n, d)) < 0.08] = np.nan
    return X, y, yr


def _clf_tree(X, y, use_hist, policy="depthwise", rows=None, max_leaves=None, max_depth=50,
              data=None):
    n, d = X.shape
    data = data if data is not None else bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64),
                                                  use_hist)
    P = make_params(TASK_CLASSIFICATION, 2, max_depth, 2, 1, 0.0, 0.0, d, False,
                    GINI.merit_code, GINI.builtin_code,
                    max_leaves=max_leaves or np.iinfo(np.int64).max)
    return trim(build_tree(data, y, np.zeros((0, 2)), np.ones(n), P, GINI.impurity, GINI.merit,
                           rows=rows, grow_policy=policy))


def _pred(t, X):
    v = t.value / np.maximum(t.value.sum(axis=1, keepdims=True), 1e-300)
    return predict_value_serial(t._replace(value=np.ascontiguousarray(v)),
                                np.ascontiguousarray(X))


def test_params_tuple_types():
    P = make_params(1, 3, 5, 2, 1, 0, 0, 4, 1, 0)
    assert isinstance(P, BuildParams) and P._fields == tuple(FIELDS)
    # multiway is a splitter.NOMINAL_* code (binary / multiway / C4.5's rule)
    assert isinstance(P.min_weight_leaf, float) and type(P.multiway) is int
    assert P.multiway == NOMINAL_MULTIWAY
    assert P.max_leaves == np.iinfo(np.int64).max
    with pytest.raises(ValueError, match="grow_policy"):
        get_build_kernel("sideways")


@pytest.mark.parametrize("use_hist", [False, True])
def test_best_first_without_limit_grows_the_depth_first_tree(use_hist):
    X, y, _ = _data(0)
    a = _clf_tree(X, y, use_hist)
    b = _clf_tree(X, y, use_hist, policy="lossguide")
    # same leaves (node numbering differs): same partition of any data and same values
    Xt = np.vstack([X, _data(9)[0]])
    np.testing.assert_array_equal(_pred(a, Xt), _pred(b, Xt))
    assert a.sizes[0] == b.sizes[0]
    assert sorted(a.threshold[a.kind != LEAF]) == sorted(b.threshold[b.kind != LEAF])


def _ref_best_first(t, W, max_leaves):
    """Leaf-wise selection replayed on the full depth-first tree: the frontier
    node with the largest weighted impurity decrease is split next."""
    def gain(i):
        dec = t.weighted_n_samples[i] * t.impurity[i]
        for j in range(t.n_children[i]):
            c = t.first_child[i] + j
            dec -= t.weighted_n_samples[c] * t.impurity[c]
        return dec / W
    leaf_set, heap, n_leaves, order = {0}, [], 1, 0
    if t.kind[0] != LEAF:
        heap.append((-gain(0), order, 0))
    while heap and n_leaves < max_leaves:
        _, _, i = heapq.heappop(heap)
        leaf_set.discard(i)
        n_leaves += t.n_children[i] - 1
        for j in range(t.n_children[i]):
            c = t.first_child[i] + j
            leaf_set.add(c)
            order += 1
            if t.kind[c] != LEAF:
                heapq.heappush(heap, (-gain(c), order, c))
    return leaf_set


@pytest.mark.parametrize("use_hist", [False, True])
@pytest.mark.parametrize("max_leaves", [2, 5, 12])
def test_best_first_max_leaves_matches_leafwise_replay(use_hist, max_leaves):
    X, y, _ = _data(1)
    full = _clf_tree(X, y, use_hist)
    b = _clf_tree(X, y, use_hist, policy="lossguide", max_leaves=max_leaves)
    assert int((b.kind == LEAF).sum()) == max_leaves
    leaves = _ref_best_first(full, full.weighted_n_samples[0], max_leaves)
    # predicted class distribution of every row = that of its frontier node in the full tree
    from treelab._engine.tree import decision_path
    Xt = np.ascontiguousarray(X)
    indptr, idx = decision_path(full, Xt)
    expect = np.empty((X.shape[0], 2))
    v = full.value / full.value.sum(axis=1, keepdims=True)
    for i in range(X.shape[0]):
        node = [k for k in idx[indptr[i]:indptr[i + 1]] if k in leaves][0]
        expect[i] = v[node]
    np.testing.assert_allclose(_pred(b, Xt), expect, rtol=0, atol=1e-15)


def test_best_first_respects_max_depth_and_nominal_multiway():
    rng = np.random.default_rng(4)
    n = 400
    X = np.column_stack([rng.integers(0, 4, n), rng.normal(size=n)]).astype(float)
    y = ((X[:, 0] == 2) ^ (X[:, 1] > 0.3)).astype(np.int64)
    data = bin_data(X, np.array([True, False]), np.array([4, 0]), False)

    def grow(policy, max_leaves):
        P = make_params(TASK_CLASSIFICATION, 2, 2, 2, 1, 0.0, 0.0, 2, True, GINI.merit_code,
                        GINI.builtin_code, max_leaves=max_leaves)
        return trim(build_tree(data, y, np.zeros((0, 2)), np.ones(n), P, GINI.impurity,
                               GINI.merit, grow_policy=policy))
    depth = grow("depthwise", 10**6)
    best = grow("lossguide", 10**6)
    assert (depth.n_children == 4).any()          # the multiway split is used
    assert best.depth.max() <= 2
    np.testing.assert_array_equal(_pred(depth, X), _pred(best, X))
    small = grow("lossguide", 3)
    assert int((small.kind == LEAF).sum()) <= 3 and not (small.n_children == 4).any()


@pytest.mark.parametrize("use_hist", [False, True])
def test_binned_data_reused_on_row_subsets(use_hist):
    """A tree on rows R of shared binned data equals a tree on data holding only R
    (exact: the presort restricted to R; hist: the same bins)."""
    X, y, _ = _data(2)
    n, d = X.shape
    rows = np.sort(np.random.default_rng(0).choice(n, 180, replace=False))
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), use_hist)
    a = _clf_tree(X, y, use_hist, rows=rows, data=data)
    if use_hist:
        sub = data._replace(X=np.ascontiguousarray(X[rows]), Xb=np.ascontiguousarray(data.Xb[rows]))
    else:
        sub = bin_data(X[rows], np.zeros(d, bool), np.zeros(d, np.int64), False)
    b = _clf_tree(X[rows], y[rows], use_hist, data=sub)
    for name in ("feature", "threshold", "n_samples", "value", "missing_child"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # the shared data is untouched: a second tree on all rows equals a fresh fit
    np.testing.assert_array_equal(_clf_tree(X, y, use_hist, data=data).threshold,
                                  _clf_tree(X, y, use_hist).threshold)


def test_trees_grow_in_threads_identically():
    X, y, yr = _data(3, n=2000, d=6)
    n, d = X.shape
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    sst = np.ascontiguousarray(np.stack([np.ones(n), yr, yr * yr], axis=1))

    def grow(seed):
        P = make_params(TASK_DENSE, 3, 8, 2, 1, 0.0, 0.0, 3, False, VARIANCE.merit_code,
                        VARIANCE.builtin_code, seed=seed)
        return trim(build_tree(data, np.zeros(0, np.int64), sst, np.ones(n), P,
                               VARIANCE.impurity, VARIANCE.merit))
    serial = [grow(s) for s in range(6)]
    with ThreadPoolExecutor(3) as pool:
        threaded = list(pool.map(grow, range(6)))
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_array_equal(a.value, b.value)


def test_forest_traversal_sums_trees_per_column():
    X, y, yr = _data(5, n=400)
    trees, cols = [], []
    for j, seed in enumerate(range(5)):
        m = DecisionTreeRegressor(max_depth=4, max_features=2, random_state=seed).fit(X, yr)
        trees.append(m)
        cols.append(j % 2)
    forest, roots = concat_trees([m.tree_.arrays for m in trees])
    Xc = np.ascontiguousarray(X)
    expect = np.zeros((X.shape[0], 2))
    for m, c in zip(trees, cols):
        expect[:, c] += m.predict(X)
    got = forest_raw_serial(forest, roots, np.array(cols, np.int64), Xc, 2)
    np.testing.assert_allclose(got, expect, rtol=1e-14, atol=1e-14)
    par = forest_raw(forest, roots, np.array(cols, np.int64), Xc, 2)
    np.testing.assert_array_equal(par, got)
    np.testing.assert_array_equal(forest_predict(forest, roots, cols, Xc, 2), got)


def test_concatenation_on_threads_gives_the_serial_forest(monkeypatch):
    # trees with nominal splits (category ids shifted too), several dtypes;
    # the threaded copy must give the serial concatenation's arrays exactly
    import treelab._engine.tree as tree_mod
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 6, 400)), "b": rng.normal(size=400)})
    y = (df["a"].cat.codes.to_numpy() % 3 == 0).astype(int) ^ (df["b"] > 0.2).to_numpy()
    ms = [DecisionTreeClassifier(nominal_split="multiway", max_depth=dd, random_state=s).fit(df, y)
          for s, dd in enumerate((1, 2, 3, 4, 5))]
    arrays = [m.tree_.arrays for m in ms]
    serial, r1 = concat_trees(list(arrays))
    monkeypatch.setattr(tree_mod, "CONCAT_PARALLEL_MIN_NODES", 0)
    for k in (2, 3, 8):
        threaded, r2 = concat_trees(list(arrays), release=True, n_threads=k)
        np.testing.assert_array_equal(r1, r2)
        for name in serial._fields:
            a, b = getattr(serial, name), getattr(threaded, name)
            assert a.dtype == b.dtype, name
            np.testing.assert_array_equal(a, b, err_msg=name)


def test_forest_traversal_with_nominal_trees():
    rng = np.random.default_rng(6)
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 5, 300)), "b": rng.normal(size=300)})
    y = (df["a"].cat.codes.to_numpy() % 2 == 0).astype(int) ^ (df["b"] > 0).to_numpy()
    ms = [DecisionTreeClassifier(nominal_split="multiway", max_depth=d).fit(df, y) for d in (1, 3)]
    forest, roots = concat_trees([m.tree_.arrays for m in ms])
    Xf = ms[0]._encode(df)
    got = forest_predict(forest, roots, [0, 1], Xf, 2)
    for j, m in enumerate(ms):
        np.testing.assert_array_equal(got[:, j], m.tree_.predict(Xf)[:, 0])


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
@pytest.mark.parametrize("use_hist", [True, False])
def test_leaf_of_row_is_the_traversed_leaf(policy, use_hist):
    """The leaf each grown-on row lands in, read off the builder's final partition
    (boosting adds leaf values with it), is the leaf a traversal of the raw row
    reaches: bins partition rows exactly as thresholds route values, missing
    values and a nominal feature included; rows left out are not touched."""
    X, y, yr = _data(11, n=700, d=5)
    X[:, 4] = np.where(np.isnan(X[:, 4]), np.nan, np.abs(np.round(X[:, 4] * 2)) % 4)
    n, d = X.shape
    is_nom = np.array([False, False, False, False, True])
    data = bin_data(X, is_nom, np.where(is_nom, 4, 0).astype(np.int64), use_hist)
    rows = np.sort(np.random.default_rng(0).choice(n, 500, replace=False)).astype(np.int64)
    P = make_params(TASK_CLASSIFICATION, 2, 7, 2, 1, 0.0, 0.0, d, False, GINI.merit_code,
                    GINI.builtin_code, max_leaves=25 if policy == "lossguide" else
                    np.iinfo(np.int64).max)
    leaves = np.full(n, -7, np.int64)
    t = trim(build_tree(data, y, np.zeros((0, 2)), np.ones(n), P, GINI.impurity, GINI.merit,
                        rows=rows, grow_policy=policy, leaf_of_row=leaves))
    assert int((t.kind == LEAF).sum()) > 5
    ids = t._replace(value=np.ascontiguousarray(np.arange(t.sizes[0], dtype=float)[:, None]))
    walked = predict_value_serial(ids, np.ascontiguousarray(X))[:, 0].astype(np.int64)
    np.testing.assert_array_equal(leaves[rows], walked[rows])
    out = np.setdiff1d(np.arange(n), rows)
    assert (leaves[out] == -7).all()
    with pytest.raises(ValueError, match="leaf_of_row"):
        build_tree(data, y, np.zeros((0, 2)), np.ones(n), P, GINI.impurity, GINI.merit,
                   leaf_of_row=np.zeros(n - 1, np.int64))


def test_best_first_leaf_marks_on_threads():
    """A best-first tree on enough rows marks its leaves' rows on the threads,
    each thread its share of the sample positions: the same marks as one
    thread, and each the leaf a traversal reaches."""
    from treelab._engine.best_first import PARALLEL_MARK_MIN_ROWS
    X, y, _ = _data(12, n=PARALLEL_MARK_MIN_ROWS + 3000, d=4)
    n, d = X.shape
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    rows = np.sort(np.random.default_rng(1).choice(n, n - 500, replace=False)).astype(np.int64)
    got = []
    for threads in (1, 2, 3):
        P = make_params(TASK_CLASSIFICATION, 2, 30, 2, 1, 0.0, 0.0, d, False, GINI.merit_code,
                        GINI.builtin_code, max_leaves=40)._replace(n_threads=threads)
        leaves = np.full(n, -7, np.int64)
        t = trim(build_tree(data, y, np.zeros((0, 2)), np.ones(n), P, GINI.impurity,
                            GINI.merit, rows=rows, grow_policy="lossguide", leaf_of_row=leaves))
        got.append(leaves)
    assert int((t.kind == LEAF).sum()) == 40
    ids = t._replace(value=np.ascontiguousarray(np.arange(t.sizes[0], dtype=float)[:, None]))
    walked = predict_value_serial(ids, np.ascontiguousarray(X))[:, 0].astype(np.int64)
    np.testing.assert_array_equal(got[0][rows], walked[rows])
    assert (np.delete(got[0], rows) == -7).all()
    for other in got[1:]:
        np.testing.assert_array_equal(other, got[0])


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("max_features", [2, 5])
@pytest.mark.parametrize("continuous", [False, True])
def test_sample_layout_grows_the_presort_layout_tree(task, max_features, continuous):
    """LAYOUT_SAMPLES (one sample array, the drawn features gathered and sorted per
    node) finds the same splits as the presorted segments, missing values and a
    bootstrap-like row subset with weights included; through value ranks (tied
    values: counting sorts; continuous ones: mostly the mergesort fallback) it
    grows the raw-value sample layout's tree bit for bit."""
    from treelab._engine.builder import LAYOUT_PRESORT, LAYOUT_SAMPLES
    from treelab._engine.tree import TreeArrays
    # (1,500 continuous rows: node rank ranges above 4 m + 256, the fallback)
    X, y, yr = _data(11, n=1500 if continuous else 400)
    n, d = X.shape
    if continuous:
        X = X + np.random.default_rng(4).normal(size=X.shape) * 1e-3
    rng = np.random.default_rng(3)
    rows = np.flatnonzero(rng.random(n) < 0.7).astype(np.int64)
    w = rng.integers(1, 4, n).astype(float)
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), False)
    # (every feature ranked, also the continuous ones: their nodes' rank ranges
    # exceed 4 m + 256, which exercises the mergesort fallback of the rank path)
    ranks, uniq, offs = rank_columns(X, np.zeros(d, bool), max_distinct=n)
    # the sample layout on raw values and through value ranks (counting sorts)
    ranked = data._replace(order=ranks, vals=np.zeros((d, 0)), edges=uniq, edge_offsets=offs)
    trees = []
    for layout, data in ((LAYOUT_PRESORT, data), (LAYOUT_SAMPLES, data),
                         (LAYOUT_SAMPLES, ranked)):
        if task == "classification":
            P = make_params(TASK_CLASSIFICATION, 2, 50, 2, 1, 0.0, 0.0, max_features, False,
                            GINI.merit_code, GINI.builtin_code, seed=5, layout=layout)
            t = build_tree(data, y, np.zeros((0, 2)), w, P, GINI.impurity, GINI.merit,
                           rows=rows)
        else:
            ss = np.ascontiguousarray(np.stack([w, w * yr, w * yr * yr], axis=1))
            P = make_params(TASK_DENSE, 3, 50, 2, 1, 0.0, 0.0, max_features, False,
                            VARIANCE.merit_code, VARIANCE.builtin_code, seed=5, layout=layout)
            t = build_tree(data, np.zeros(0, np.int64), ss, w, P, VARIANCE.impurity,
                           VARIANCE.merit, rows=rows)
        trees.append(trim(t))
    a, b, c = trees
    assert a.sizes[0] > 20
    for name in ("feature", "first_child", "missing_child", "n_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    # equal values of a feature may be summed in another order: last-bit differences
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-9)
    # the rank path sorts stably as the mergesort does: the same tree, bit for bit
    for name in TreeArrays._fields:
        np.testing.assert_array_equal(getattr(b, name), getattr(c, name), err_msg=name)


def test_rank_columns_are_the_ranks_of_the_distinct_values():
    """binning.rank_columns: rank = index among the feature's distinct values
    (np.unique), -1 for missing values and nominal features; -0.0 ranks as 0.0."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, (300, 4)).astype(float)
    X[rng.random((300, 4)) < 0.2] = np.nan
    X[:, 3] = np.nan
    X[:5, 1] = -0.0
    nominal = np.array([False, False, True, False])
    ranks, uniq, offs = rank_columns(X, nominal)
    assert ranks.shape == (4, 300)
    for f in range(4):
        col = X[:, f]
        ok = ~np.isnan(col)
        if nominal[f] or not ok.any():
            assert (ranks[f] == -1).all() and offs[f + 1] == offs[f]
            continue
        u, inv = np.unique(col[ok], return_inverse=True)
        np.testing.assert_array_equal(uniq[offs[f]:offs[f + 1]], u)
        np.testing.assert_array_equal(ranks[f, ok], inv.ravel())
        assert (ranks[f, ~ok] == -1).all()
    # a feature with more distinct values than max(512, n // 8) is not ranked; with
    # none ranked, no rank matrix
    Xc = rng.normal(size=(2000, 3))
    Xc[:, 1] = np.round(Xc[:, 1])
    ranks, uniq, offs = rank_columns(Xc, np.zeros(3, bool))
    assert list(np.diff(offs)) == [0, len(np.unique(Xc[:, 1])), 0]
    assert (ranks[0] == -1).all() and (ranks[2] == -1).all()
    ranks, uniq, offs = rank_columns(Xc[:, [0, 2]], np.zeros(2, bool))
    assert ranks.shape == (2, 0) and offs.tolist() == [0, 0, 0]


# ------------------------------------------------------------ bin values
def test_bin_means_are_the_mean_values_of_the_bins():
    """``quantile_bin_edges(..., with_values=True)``: each bin's value is the mean of
    the (non-missing) values in it (a slow NumPy reference), strictly increasing
    and inside the bin; with few distinct values, the values themselves."""
    from treelab._engine.binning import bin_matrix, quantile_bin_edges
    rng = np.random.RandomState(0)
    n = 5000
    X = np.column_stack([rng.randn(n), rng.exponential(size=n), rng.randint(0, 7, n) * 1.5,
                         np.full(n, 2.0), rng.randint(0, 3, n)])
    X[rng.rand(n) < 0.1, 0] = np.nan
    isnom = np.array([False, False, False, False, True])
    edges, off, vals = quantile_bin_edges(X, isnom, 64, with_values=True)
    e2, off2 = quantile_bin_edges(X, isnom, 64)
    np.testing.assert_array_equal(edges, e2)
    np.testing.assert_array_equal(off, off2)
    codes = bin_matrix(X, edges, off, isnom, 255)
    for f in range(4):
        v = vals[off[f] + f:off[f + 1] + f + 1]
        assert v.shape[0] == off[f + 1] - off[f] + 1
        ok = ~np.isnan(X[:, f])
        ref = [X[ok & (codes[:, f] == b), f].mean() for b in range(v.shape[0])]
        np.testing.assert_allclose(v, ref, rtol=1e-9)
        assert (np.diff(v) > 0).all()
        ef = edges[off[f]:off[f + 1]]
        assert (v[:-1] <= ef).all() and (v[1:] > ef).all()
    np.testing.assert_array_equal(vals[off[2] + 2:off[3] + 3], np.arange(7) * 1.5)
    assert vals.shape[0] == off[-1] + X.shape[1]


def test_draw_cut_bin_is_uniform_in_value_or_over_boundaries():
    """``draw_cut_bin``: with bin values (0, 1, 2, 10) and the node's bins 0..3 the
    last bin going left is 0, 1, 2 with probabilities 0.1, 0.1, 0.8 (the cut
    t ~ U[0, 10)); inside bins 1..2 always 1; without values 1/3 each."""
    from numba import njit
    from scipy import stats

    from treelab._engine.splitter import draw_cut_bin

    @njit
    def draws(lo, hi, v, m, seed):
        np.random.seed(seed)
        out = np.empty(m, np.int64)
        for i in range(m):
            out[i] = draw_cut_bin(lo, hi, v)
        return out

    v = np.array([0.0, 1.0, 2.0, 10.0])
    m = 20000
    c = np.bincount(draws(0, 3, v, m, 0), minlength=3)
    assert c.sum() == m and stats.chisquare(c, m * np.array([0.1, 0.1, 0.8])).pvalue > 1e-3
    assert (draws(1, 2, v, 100, 1) == 1).all()
    c = np.bincount(draws(0, 3, np.zeros(0), m, 2), minlength=3)
    assert c.sum() == m and stats.chisquare(c).pvalue > 1e-3


# ------------------------------------------------------------ bootstrap, node values
def test_bootstrap_draws_are_uniform_and_consistent():
    """``bootstrap_counts`` is the ``bincount`` of ``bootstrap_indices`` (same
    draws), the draws are uniform over the rows (chi-square) and depend on the
    seed only; ``bootstrap_row_weights`` puts the counts at the given rows."""
    from scipy import stats

    from treelab._engine.bootstrap import (
        bootstrap_counts, bootstrap_indices, bootstrap_row_weights,
    )
    idx = bootstrap_indices(3, 50, 100_000)
    assert idx.min() >= 0 and idx.max() < 50
    c = bootstrap_counts(3, 50, 100_000)
    np.testing.assert_array_equal(np.bincount(idx, minlength=50), c)
    assert stats.chisquare(c).pvalue > 1e-3
    np.testing.assert_array_equal(bootstrap_indices(3, 50, 200), idx[:200])
    assert not np.array_equal(bootstrap_indices(4, 50, 200), idx[:200])
    # about 1 - 1/e of the rows are in the bag
    assert abs(np.mean(bootstrap_counts(0, 100_000, 100_000) > 0) - (1 - np.exp(-1))) < 0.01
    rows = np.arange(5, 2005, 2)
    w, cnt = bootstrap_row_weights(7, rows, 3000)
    np.testing.assert_array_equal(cnt, bootstrap_counts(7, 1000, 1000))
    np.testing.assert_array_equal(w[rows], cnt)
    assert w.sum() == 1000 and np.count_nonzero(w) == np.count_nonzero(cnt)


def test_node_values_equal_the_numpy_formulas():
    from treelab._engine.node_values import class_proportions, weighted_means
    rng = np.random.RandomState(0)
    S = rng.rand(50, 3) * rng.randint(0, 2, (50, 1))       # some all-zero rows
    tot = S.sum(axis=1, keepdims=True)
    ref = np.where(tot > 0, S / np.where(tot > 0, tot, 1.0), 1.0 / 3)
    np.testing.assert_array_equal(class_proportions(S), ref)
    R = np.column_stack([S[:, 0], S[:, 1], S[:, 2]])
    ref = np.where(R[:, 0] > 0, R[:, 1] / np.where(R[:, 0] > 0, R[:, 0], 1.0), 0.0)[:, None]
    np.testing.assert_array_equal(weighted_means(R), ref)


def test_prefetch_reads_nothing_and_types_its_arguments():
    """The prefetch intrinsic compiles for the arrays the gathering loops hand it
    (1-D targets, 2-D rows and items, any dtype), changes no value, and is
    refused at typing for a non-array."""
    from numba import njit
    from numba.core.errors import TypingError

    from treelab._engine.prefetch import prefetch, prefetch_at

    @njit
    def gather_sum(codes, stats, labels, rows, dist):
        s = 0.0
        for p in range(rows.shape[0]):
            if p + dist < rows.shape[0]:
                j = rows[p + dist]
                prefetch(stats, j)
                prefetch(labels, j)
                prefetch_at(codes, j, codes.shape[1] - 1)
            i = rows[p]
            s += codes[i, 0] + stats[i, 1] + labels[i]
        return s

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 255, (500, 7)).astype(np.uint8)
    stats = rng.random((500, 3))
    labels = rng.integers(0, 3, 500)
    rows = np.sort(rng.choice(500, 200, replace=False))
    want = float(codes[rows, 0].sum() + stats[rows, 1].sum() + labels[rows].sum())
    for dist in (0, 1, 16, 1000):
        assert gather_sum(codes, stats, labels, rows, dist) == pytest.approx(want, rel=1e-12)

    @njit
    def bad(x):
        prefetch(x, 0)

    with pytest.raises(TypingError):
        bad(3.0)
