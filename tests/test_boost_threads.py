"""Threaded histograms and the packed forest traversal give exactly the serial
results: histograms are split by features (each bin still sums its rows in
order), the packed traversal reaches the same leaves as ``leaf_from``."""
import numpy as np
import pandas as pd
import pytest

from treelab import (DecisionTreeClassifier, GradientBoostingClassifier,
                     GradientBoostingRegressor)
from treelab._engine.binning import bin_data
from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.histogram import (
    COUNT_ALL_STATS, COUNT_NONE, COUNT_STATS_0_2, PARALLEL_HIST_MIN_WORK, hist_build,
    count_stat, unit_count_column,
)
from treelab._engine.merit import TASK_CLASSIFICATION, TASK_DENSE
from treelab._engine.tree import (
    concat_trees, forest_predict, forest_raw_serial, forest_sum, forest_sum_serial, pack_forest,
    predict_value_serial, trim,
)
from treelab.split_criteria import GINI

from _newton_trees import newton_trees_on_threads

N, D = 251_000, 8           # N * D above PARALLEL_HIST_MIN_WORK: the root is built on threads


def _data(seed=0, n=N, d=D):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2) > 0.8).astype(np.int64)
    return X, y


def test_work_threshold_is_reached():
    assert N * D >= PARALLEL_HIST_MIN_WORK


@pytest.mark.parametrize("task", [TASK_CLASSIFICATION, TASK_DENSE])
def test_hist_build_on_threads_equals_serial(task):
    X, y = _data(1)
    data = bin_data(X, np.zeros(D, bool), np.zeros(D, np.int64), True)
    rng = np.random.default_rng(2)
    samples = np.sort(rng.choice(N, N - 1000, replace=False)).astype(np.int64)
    S = 2 if task == TASK_CLASSIFICATION else 3
    sst = np.ascontiguousarray(rng.normal(size=(N, S)))
    w = rng.random(N)
    out = {}
    for nt in (1, 2, 3):
        hist = np.full((D, data.n_bins, S), 7.0)        # garbage: zeroed by hist_build
        cnt = np.full((D, data.n_bins), 7, np.int64)
        hist_build(data.Xb, samples, 0, samples.shape[0], y, sst, w, task, hist, cnt, nt)
        out[nt] = hist, cnt
    # an independent reference: per-bin sums in row order
    ref = np.zeros((D, data.n_bins, S))
    rcnt = np.zeros((D, data.n_bins), np.int64)
    # (np.add.at is unbuffered: it adds the rows one by one, in order)
    for f in range(D):
        b = data.Xb[samples, f]
        if task == TASK_CLASSIFICATION:
            np.add.at(ref[f], (b, y[samples]), w[samples])
        else:
            for s in range(S):
                np.add.at(ref[f, :, s], b, sst[samples, s])
        np.add.at(rcnt[f], b, 1)
    for nt in (1, 2, 3):
        np.testing.assert_array_equal(out[nt][0], ref)
        np.testing.assert_array_equal(out[nt][1], rcnt)


@pytest.mark.parametrize("task", [TASK_CLASSIFICATION, TASK_DENSE])
def test_unit_weight_counts_read_off_the_histogram(task):
    """With unit weights the counts come from a statistic (no count in the loop):
    the same histogram and counts as counting, serial and on threads, for a
    node of a subset of the rows; non-unit weights are detected."""
    X, y = _data(6)
    data = bin_data(X, np.zeros(D, bool), np.zeros(D, np.int64), True)
    rng = np.random.default_rng(3)
    samples = rng.permutation(N).astype(np.int64)
    S = 3
    w = np.ones(N)
    sst = np.ascontiguousarray(np.stack([rng.random(N), rng.normal(size=N), w], axis=1))
    col = unit_count_column(samples, 0, N, y, sst, w, task)
    assert col == (COUNT_ALL_STATS if task == TASK_CLASSIFICATION else 2)
    w2 = w.copy()
    w2[samples[N // 2]] = 2.0
    sst2 = sst.copy()
    sst2[samples[N - 1], 2] = 0.5
    assert unit_count_column(samples, 0, N, y, sst2, w2, task) == COUNT_NONE
    # ... but a node without the odd row still qualifies
    assert unit_count_column(samples, 0, N // 2, y, sst2, w2, task) == col
    for start, end in ((0, N), (100, 4100)):
        ref = np.empty((D, data.n_bins, S)), np.empty((D, data.n_bins), np.int64)
        hist_build(data.Xb, samples, start, end, y, sst, w, task, ref[0], ref[1], 1, COUNT_NONE)
        assert ref[1].sum() == D * (end - start)
        for nt in (1, 2):
            hist = np.full((D, data.n_bins, S), 7.0)
            cnt = np.full((D, data.n_bins), 7, np.int64)
            hist_build(data.Xb, samples, start, end, y, sst, w, task, hist, cnt, nt, col)
            np.testing.assert_array_equal(hist, ref[0])
            if col == COUNT_ALL_STATS:
                np.testing.assert_array_equal(cnt, ref[1])
            else:
                # the counts are statistic 2's sums: cnt is neither zeroed nor filled
                assert count_stat(col) == 2
                np.testing.assert_array_equal(hist[..., 2], ref[1])
                assert (cnt == 7).all()


def test_squared_error_stats_sum_one_column_fewer():
    """Squared-error boosting's ``[1, g, 1]``: statistics 0 and 2 are both 1, the
    loop sums only statistic 0 and 1 and copies 0 into 2 -- the same histogram
    as counting everything, serial and on threads; the counts are statistic 0
    (``cnt`` is not kept)."""
    X, y = _data(7)
    data = bin_data(X, np.zeros(D, bool), np.zeros(D, np.int64), True)
    rng = np.random.default_rng(8)
    samples = np.sort(rng.choice(N, N - 500, replace=False)).astype(np.int64)
    one = np.ones(N)
    sst = np.ascontiguousarray(np.stack([one, rng.normal(size=N), one], axis=1))
    col = unit_count_column(samples, 0, samples.shape[0], y, sst, one, TASK_DENSE)
    assert col == COUNT_STATS_0_2
    sst_b = sst.copy()
    sst_b[samples[5], 2] = 2.0                 # only statistic 0 is unit now
    assert unit_count_column(samples, 0, samples.shape[0], y, sst_b, one, TASK_DENSE) == 0
    for start, end in ((0, samples.shape[0]), (10, 3010)):
        ref = np.empty((D, data.n_bins, 3)), np.empty((D, data.n_bins), np.int64)
        hist_build(data.Xb, samples, start, end, y, sst, one, TASK_DENSE, ref[0], ref[1], 1,
                   COUNT_NONE)
        for nt in (1, 2):
            hist = np.full((D, data.n_bins, 3), 7.0)
            cnt = np.full((D, data.n_bins), 7, np.int64)
            hist_build(data.Xb, samples, start, end, y, sst, one, TASK_DENSE, hist, cnt, nt, col)
            np.testing.assert_array_equal(hist, ref[0])
            assert count_stat(col) == 0
            np.testing.assert_array_equal(hist[..., 0], ref[1])
            assert (cnt == 7).all()


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_newton_trees_do_not_depend_on_threads(policy):
    X, y = _data(3)
    data = bin_data(X, np.zeros(D, bool), np.zeros(D, np.int64), True)
    p = 0.3
    sst = np.ascontiguousarray(np.stack([np.full(N, p * (1 - p)), p - y, np.ones(N)], axis=1))
    trees = newton_trees_on_threads(data, sst, np.ones(N), policy, D)
    assert trees[0].sizes[0] > 20
    for name in trees[0]._fields:
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


def test_gini_tree_does_not_depend_on_threads():
    X, y = _data(4)
    data = bin_data(X, np.zeros(D, bool), np.zeros(D, np.int64), True)
    trees = []
    for nt in (1, 2):
        P = make_params(TASK_CLASSIFICATION, 2, 8, 2, 1, 0.0, 0.0, D, False, GINI.merit_code,
                        GINI.builtin_code, n_threads=nt)
        trees.append(trim(build_tree(data, y, np.zeros((0, 2)), np.ones(N), P, GINI.impurity,
                                     GINI.merit)))
    for name in trees[0]._fields:
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


def test_boosting_model_does_not_depend_on_n_jobs():
    X, y = _data(5, n=12_000, d=20)
    kw = dict(n_estimators=4, max_depth=4, learning_rate=0.3, random_state=0)
    a = GradientBoostingClassifier(n_jobs=1, **kw).fit(X, y)
    b = GradientBoostingClassifier(n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    for (ta, _), (tb, _) in zip(a._trees, b._trees):
        np.testing.assert_array_equal(ta.threshold, tb.threshold)
        np.testing.assert_array_equal(ta.value, tb.value)


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_small_regression_boosting_does_not_depend_on_n_jobs(policy):
    """Squared error on 600 rows with missing values and a constant column: most
    nodes are small (sorted per feature, :func:`.splitter.newton_sorted_sweep`),
    the others are searched from histograms (:func:`.splitter.newton_hist_sweep`),
    level-wise on two threads with ``n_jobs=2`` -- where an inlined sweep once
    gave other splits than the serial search."""
    rng = np.random.RandomState(0)
    X = rng.rand(600, 6)
    X[:, 2] = np.round(X[:, 2] * 4)
    X[rng.rand(600, 6) < 0.1] = np.nan
    X[:, 5] = 1.0
    y = np.nan_to_num(X[:, 0]) * 3 + rng.randn(600)
    kw = dict(n_estimators=3, max_depth=4, grow_policy=policy, random_state=0)
    if policy == "lossguide":
        kw.update(max_depth=0, max_leaves=12)
    a = GradientBoostingRegressor(n_jobs=1, **kw).fit(X, y)
    b = GradientBoostingRegressor(n_jobs=2, **kw).fit(X, y)
    assert a._trees[0][0].feature.shape[0] >= 9
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    for (ta, _), (tb, _) in zip(a._trees, b._trees):
        np.testing.assert_array_equal(ta.feature, tb.feature)
        np.testing.assert_array_equal(ta.threshold, tb.threshold)


def _walk(t, root, x):
    """A slow reference traversal in plain Python (numeric and nominal nodes, NaN)."""
    node = root
    while t.kind[node] != 0:
        v = x[t.feature[node]]
        first = t.first_child[node]
        if np.isnan(v):
            node = first + t.missing_child[node]
        elif t.kind[node] == 1:
            node = first if v <= t.threshold[node] else first + 1
        else:
            c = int(v)
            slot = -1
            if 0 <= c < t.cat_count[node] and c == v:
                slot = t.cat_map[t.cat_offset[node] + c]
            node = first + (t.missing_child[node] if slot < 0 else slot)
    return node


def test_walk_records_reach_the_walked_leaves():
    # numeric trees with missing values sent both ways: the 16-byte records of
    # pack_walk (feature, missing bit, first child; threshold) walk to the leaves
    # of the slow reference, and a forest that keeps them sums as one that packs
    from treelab._engine.tree import forest_sum_walk, forest_sum_walk_serial, pack_walk
    rng = np.random.default_rng(11)
    n = 4000
    X = rng.normal(size=(n, 4))
    X[rng.random((n, 4)) < 0.15] = np.nan
    y = ((np.nan_to_num(X[:, 0], nan=0.7) > 0) ^ (np.nan_to_num(X[:, 1], nan=-0.3) > 0.2))
    ms = [DecisionTreeClassifier(max_depth=dp, random_state=s).fit(X, y.astype(int))
          for s, dp in enumerate([2, 6, None])]
    forest, roots = concat_trees([m.tree_.arrays for m in ms])
    ok, rec = pack_walk(forest)
    assert ok and rec.shape == (forest.sizes[0], 2)
    kinds = forest.kind[:forest.sizes[0]]
    missing_right = (kinds == 1) & (forest.missing_child[:forest.sizes[0]] == 1)
    assert missing_right.any() and ((kinds == 1) & ~missing_right).any()
    Xf = np.ascontiguousarray(ms[0]._encode(X))
    leaves = np.array([[_walk(forest, r, x) for r in roots] for x in Xf[:400]])
    wts = np.array([0.5, 0.25, 2.0])
    ref = sum(wts[j] * forest.value[leaves[:, j]] for j in range(3))
    got = forest_sum_walk_serial(rec, forest.value, roots, wts, Xf)
    np.testing.assert_allclose(got[:400], ref, rtol=1e-15, atol=1e-12)
    np.testing.assert_array_equal(got, forest_sum_serial(forest, roots, wts, Xf))
    for n_chunks in (1, 3, 100):
        np.testing.assert_array_equal(forest_sum_walk(rec, forest.value, roots, wts, Xf,
                                                      n_chunks), got)
    # a nominal node: no records (the general walk)
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 3, n)), "b": X[:, 0]})
    t = DecisionTreeClassifier(max_depth=3).fit(df, (df["a"].cat.codes == 1).astype(int))
    assert not pack_walk(concat_trees([t.tree_.arrays])[0])[0]


def test_walk_records_on_uint8_codes_sum_as_on_float_codes():
    # the cascade walks its uint8 code rows as they are: code 255 (CODE_MISSING)
    # goes where NaN goes, every other code compares as its float value
    from treelab._engine.tree import (CODE_MISSING, forest_sum_walk, forest_sum_walk_serial,
                                      pack_walk)
    rng = np.random.default_rng(5)
    n = 3000
    codes = rng.integers(0, 41, size=(n, 5)).astype(np.uint8)
    codes[rng.random((n, 5)) < 0.15] = CODE_MISSING
    Xf = codes.astype(np.float64)
    Xf[codes == CODE_MISSING] = np.nan
    y = ((np.nan_to_num(Xf[:, 0], nan=30) > 20) ^ (np.nan_to_num(Xf[:, 1], nan=3) > 10))
    ms = [DecisionTreeClassifier(max_depth=dp, random_state=s).fit(Xf, y.astype(int))
          for s, dp in enumerate([3, None])]
    forest, roots = concat_trees([m.tree_.arrays for m in ms])
    kinds = forest.kind[:forest.sizes[0]]
    mc = forest.missing_child[:forest.sizes[0]]
    assert ((kinds == 1) & (mc == 1)).any() and ((kinds == 1) & (mc == 0)).any()
    ok, rec = pack_walk(forest)
    wts = np.array([0.5, 2.0])
    ref = forest_sum_walk_serial(rec, forest.value, roots, wts, Xf)
    np.testing.assert_array_equal(forest_sum_walk_serial(rec, forest.value, roots, wts, codes),
                                  ref)
    for n_chunks in (1, 7):
        np.testing.assert_array_equal(
            forest_sum_walk(rec, forest.value, roots, wts, codes, n_chunks), ref)
    # 255 as a value would go right of every threshold: not what the trees do
    as_value = np.where(codes == CODE_MISSING, 1e9, Xf)
    assert not np.array_equal(forest_sum_walk_serial(rec, forest.value, roots, wts, as_value),
                              ref)


def test_packed_traversal_reaches_the_walked_leaves():
    rng = np.random.default_rng(7)
    n = 6000
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 6, n)), "b": rng.normal(size=n),
                       "c": rng.normal(size=n)})
    df.loc[rng.random(n) < 0.1, "b"] = np.nan
    y = ((df["a"].cat.codes.to_numpy() % 3 == 0) ^ (df["b"].fillna(0) > 0).to_numpy()).astype(int)
    ms = [DecisionTreeClassifier(nominal_split=ns, max_depth=dp, random_state=s).fit(df, y)
          for s, (ns, dp) in enumerate([("multiway", 3), ("binary", 5), ("binary", 8)])]
    forest, roots = concat_trees([m.tree_.arrays for m in ms])
    Xf = np.ascontiguousarray(ms[0]._encode(df))
    Xf[:5, 0] = [7.0, -1.0, 2.5, np.nan, 3.0]        # unseen / fractional codes, missing
    nodes, thr = pack_forest(forest)
    assert nodes.shape == (forest.sizes[0], 4) and thr.shape == (forest.sizes[0],)
    leaves = np.array([[_walk(forest, r, x) for r in roots] for x in Xf[:300]])
    raw_ref = forest.value[leaves, 0].sum(axis=1)
    for fn in (forest_predict, forest_raw_serial):
        got = fn(forest, roots, np.zeros(3, np.int64), Xf, 1)[:300, 0]
        np.testing.assert_allclose(got, raw_ref, rtol=0, atol=1e-12)
    wts = np.array([0.5, 0.25, 2.0])
    ref = sum(wts[j] * forest.value[leaves[:, j]] for j in range(3))
    np.testing.assert_allclose(forest_sum_serial(forest, roots, wts, Xf)[:300], ref,
                               rtol=1e-15, atol=1e-12)
    np.testing.assert_array_equal(forest_sum(forest, roots, wts, Xf),
                                  forest_sum_serial(forest, roots, wts, Xf))
    # one tree alone: the single-tree traversal's values
    np.testing.assert_array_equal(
        forest_predict(forest, roots[1:2], [0], Xf, 1)[:, 0],
        predict_value_serial(trim(ms[1].tree_.arrays), Xf)[:, 0])


@pytest.mark.parametrize("depths,layout,bitvector", [
    ([1, 4, 11, None], 1, True), ([1, 4, 6, 3], 2, False), ([1, 4, 6, 3, "deep"], 3, True)])
def test_lockstep_traversal_equals_the_walk(depths, layout, bitvector):
    """Numeric binary forests take a branch-free block walk -- bitvectors when no
    tree has more than 64 leaves (layout 3; a tree of exactly 64 and a deep tree
    of few leaves among them), complete heaps when the trees are shallow (2), the
    level-by-level walk on the flat node layout otherwise (1): same leaves and the
    same sums in tree order as a row-by-row walk, with missing values going
    either way, trees of uneven depth, roots given out of order, a leaf-only
    tree, blocks cut short and on one or two threads."""
    from treelab import DecisionTreeRegressor
    from treelab._engine.tree import (_forest_raw_packed, _forest_raw_serial_packed,
                                      _pack_raw, _raw_kernel, n_leaves)
    rng = np.random.default_rng(3)
    n = 7000
    X = rng.normal(size=(n, 6))
    X[rng.random((n, 6)) < 0.08] = np.nan
    X[:, 5] = 0.0                        # a constant feature: no tree splits on it
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n)
    y[np.isnan(X[:, 1])] += 3.0          # missing values of feature 1 matter (either side)
    ms = [DecisionTreeRegressor(max_depth=dp, random_state=s).fit(X, y) if dp != "deep" else
          DecisionTreeRegressor(min_samples_leaf=200, random_state=s).fit(X, y)
          for s, dp in enumerate(depths)]
    ms.append(DecisionTreeRegressor(max_depth=3).fit(X, np.ones(n)))      # a single leaf
    if layout == 3:                      # a complete tree of depth 6: 64 leaves
        ms.insert(3, DecisionTreeRegressor(max_depth=6).fit(
            X, np.nan_to_num(X[:, 2]) + np.nan_to_num(X[:, 3])))
    trees = [m.tree_.arrays for m in ms]
    if layout == 3:
        assert 64 in [n_leaves(a) for a in trees]
        assert max(int(a.depth.max()) for a in trees) > 6
    forest, roots = concat_trees(trees)
    k = roots.shape[0]
    roots = roots[[k - 2, 0, k - 1] + list(range(1, k - 2))]
    cols = np.arange(k, dtype=np.int64) % 2
    packed = _pack_raw(forest, roots, bitvector)
    assert packed[0] == layout
    assert 5 not in forest.feature[forest.kind == 1]
    missing = forest.missing_child[forest.kind == 1]
    assert 0 < missing.sum() < missing.size                  # both directions occur
    # row blocks with NaN everywhere, in one row of a block (the NaN-free step
    # would send it left), only in the unsplit feature 5 (NaN-free step), none
    dense = np.ascontiguousarray(X)
    dense[:3, 0] = [np.inf, -np.inf, np.nan]
    sparse = np.where(np.isnan(X), rng.normal(size=X.shape), X)
    sparse[:3, 0] = [np.inf, -np.inf, 0.0]
    sparse[100, 1] = sparse[5001, 4] = sparse[6999, 0] = np.nan
    sparse[2000:2200, 5] = np.nan
    for Xf in (dense, sparse, np.where(np.isnan(X), 1.0, X), dense[:77], dense[5:6]):
        Xf = np.ascontiguousarray(Xf)
        leaves = np.array([[_walk(forest, r, x) for r in roots] for x in Xf])
        ref = np.zeros((Xf.shape[0], 2))
        for j in range(roots.shape[0]):                       # tree order, as the kernels add
            ref[:, cols[j]] += forest.value[leaves[:, j], 0]
        np.testing.assert_array_equal(_forest_raw_serial_packed(forest, packed, roots, cols,
                                                                Xf, 2), ref)
        for threads in (1, 2):
            np.testing.assert_array_equal(
                _forest_raw_packed(forest, packed, roots, cols, Xf, 2, threads), ref)
        # the copies compiled for this layout only (what forest_predict runs)
        np.testing.assert_array_equal(_raw_kernel(packed, False)(forest, packed, roots, cols,
                                                                 Xf, 2), ref)
        np.testing.assert_array_equal(_raw_kernel(packed, True)(forest, packed, roots, cols,
                                                                Xf, 2, 2), ref)
        if bitvector:
            np.testing.assert_array_equal(forest_raw_serial(forest, roots, cols, Xf, 2), ref)
            np.testing.assert_array_equal(forest_predict(forest, roots, cols, Xf, 2), ref)


def test_full_depth6_trees_walk_as_heaps():
    """Trees that hold more than ``_HEAP_NODES_PER_LEVEL`` split nodes a level
    (full depth-6 trees: 63 split nodes, 6 levels) are walked as complete heaps
    (one node a level) rather than as bitvectors (every split node); depth-5
    trees keep the bitvectors.  Either way the sums of a row-by-row walk."""
    from treelab import DecisionTreeRegressor
    from treelab._engine.tree import (_HEAP_NODES_PER_LEVEL, _forest_raw_packed,
                                      _pack_raw, forest_predict)
    rng = np.random.default_rng(5)
    n = 5000
    X = rng.normal(size=(n, 5))
    X[rng.random((n, 5)) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.sin(np.nan_to_num(X[:, 1]) * 3) + rng.normal(size=n)
    for depth, layout in ((6, 2), (5, 3)):
        trees = [DecisionTreeRegressor(max_depth=depth, random_state=s).fit(
            X, y + s * np.nan_to_num(X[:, 2])).tree_.arrays for s in range(4)]
        forest, roots = concat_trees(trees)
        n_split = int((forest.kind[:forest.sizes[0]] != 0).sum())
        assert (n_split > _HEAP_NODES_PER_LEVEL * depth * 4) == (depth == 6)
        packed = _pack_raw(forest, roots, True)
        assert packed[0] == layout
        cols = np.zeros(4, np.int64)
        ref = np.zeros((n, 1))
        for r in roots:
            ref[:, 0] += forest.value[[_walk(forest, r, x) for x in X], 0]
        np.testing.assert_array_equal(_forest_raw_packed(forest, packed, roots, cols, X, 1, 2),
                                      ref)
        np.testing.assert_array_equal(forest_predict(forest, roots, cols, X, 1), ref)


def test_forest_raw_chunks_do_not_change_the_sums():
    """A few rows through a large forest go on threads in chunks smaller than
    ``_ROW_CHUNK`` (``n_threads``): the same sums as the serial walk whatever the
    chunks, on the three block layouts and on the general walk."""
    from treelab import DecisionTreeClassifier, DecisionTreeRegressor
    from treelab._engine.tree import (PARALLEL_MIN_FOREST_WORK, _forest_raw_packed,
                                      _forest_raw_serial_packed, _pack_raw, forest_raw)
    rng = np.random.default_rng(11)
    n = 700
    X = rng.normal(size=(n, 4))
    X[rng.random((n, 4)) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=n)
    shallow = [DecisionTreeRegressor(max_depth=d, random_state=d).fit(X, y).tree_.arrays
               for d in (2, 5)]
    deep = [DecisionTreeRegressor(random_state=0).fit(X, y).tree_.arrays]
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 4, n)), "b": X[:, 1]})
    nominal = [DecisionTreeClassifier(nominal_split="multiway", max_depth=3)
               .fit(df, (y > 0).astype(int)).tree_.arrays]
    Xn = np.ascontiguousarray(np.column_stack([rng.integers(0, 4, n), X[:, 1]]).astype(float))
    for trees, Xf, layout, bitvector in [(shallow, X, 3, True), (shallow, X, 2, False),
                                         (deep + shallow, X, 1, True), (nominal, Xn, 0, True)]:
        forest, roots = concat_trees(trees * -(-300 // len(trees)))
        packed = _pack_raw(forest, roots, bitvector)
        assert packed[0] == layout
        assert n * roots.shape[0] >= PARALLEL_MIN_FOREST_WORK
        cols = np.arange(roots.shape[0], dtype=np.int64) % 3
        Xf = np.ascontiguousarray(Xf)
        ref = _forest_raw_serial_packed(forest, packed, roots, cols, Xf, 3)
        for k in (0, 1, 2, 7, 64):
            np.testing.assert_array_equal(
                _forest_raw_packed(forest, packed, roots, cols, Xf, 3, k), ref)
        if bitvector:
            np.testing.assert_array_equal(forest_raw(forest, roots, cols, Xf, 3, 1), ref)
            np.testing.assert_array_equal(forest_predict(forest, roots, cols, Xf, 3), ref)


def _unit_count_column_reference(sstats):
    """The rule of ``unit_count_column`` for dense statistics, written out: the
    first column of ones; with three statistics, the first and the last being
    ones -> ``COUNT_STATS_0_2``."""
    ones = [bool(np.all(sstats[:, c] == 1.0)) for c in range(sstats.shape[1])]
    if sstats.shape[1] == 3 and ones[0] and ones[2]:
        return COUNT_STATS_0_2
    return next((c for c, o in enumerate(ones) if o), COUNT_NONE)


@pytest.mark.parametrize("n_stats", [2, 3, 4])
def test_unit_count_column_of_every_pattern(n_stats):
    """Every pattern of unit columns (one row breaking a column anywhere): the
    kernel's answer equals the written-out rule, and for three statistics the
    root's one-pass flags (``count_column_of_three``) give the same."""
    from itertools import product

    from treelab._engine.histogram import count_column_of_three
    rng = np.random.default_rng(3)
    n = 300
    samples = np.arange(n, dtype=np.int64)
    y = np.zeros(n, np.int64)
    for pattern in product([False, True], repeat=n_stats):
        sst = np.ones((n, n_stats))
        for c, unit in enumerate(pattern):
            if not unit:
                sst[rng.integers(n), c] = 0.5
        want = _unit_count_column_reference(sst)
        assert unit_count_column(samples, 0, n, y, sst, np.ones(n), TASK_DENSE) == want
        if n_stats == 3:
            assert count_column_of_three(*pattern) == want


def test_add_leaf_values_in_chunks_equals_the_row_loop():
    """Boosting's training-score update on the threads (row chunks, as many as
    given, the last one short) adds the same value to every row as one loop."""
    from treelab._engine.builder import add_leaf_values
    rng = np.random.default_rng(4)
    n = 1003
    value = rng.normal(size=(17, 1))
    leaf = rng.integers(0, 17, n).astype(np.int64)
    base = rng.normal(size=(n, 3))
    expect = base.copy()
    expect[:, 2] += value[leaf, 0]
    for n_chunks in (1, 2, 3, 8, 2000):
        out = base.copy()
        add_leaf_values(out, 2, value, leaf, n_chunks)
        np.testing.assert_array_equal(out, expect)
