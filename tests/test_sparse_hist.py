"""Histograms from sparse rows (``binning.sparse_codes``, LightGBM's most
frequent bin): a node's histogram accumulates only each row's codes other than
its features' most frequent ones and derives the default bins from the node's
totals.  The counts are exact and the statistics equal the dense sums up to
rounding, whatever the node, the count column, the extents or the threads;
class counts with unit weights are exact, so the trees are the same."""
import itertools

import numpy as np
import pytest

from treelab._engine import binning
from treelab._engine.binning import bin_data, no_sparse_codes, sparse_codes
from treelab._engine.builder import make_params, new_pool
from treelab._engine.histogram import (
    COUNT_NONE, count_stat, hist_build, hist_build_nodes, unit_count_column, use_sparse_rows,
)
from treelab._engine.merit import TASK_CLASSIFICATION, TASK_DENSE


def _entries(data, samples, start, end, small):
    """``builder.small_node_entries`` with scratch for a node of ``end - start``
    rows: its ``(ptr, pos, code, mark)``."""
    from treelab._engine.builder import entries_of, small_node_entries, sparse_entry_scratch
    ent, aux = sparse_entry_scratch(data, max(end - start, 1))
    nnz = small_node_entries(data, samples, start, end, small, ent, aux)
    return entries_of(ent, aux, nnz, data.sp_dflt.shape[0], data.n_bins, end - start)


def _sparse_X(seed, n=2500, d=40, p_nonzero=0.15, missing=0.0):
    """Mostly zeros (a few features mostly 3 or mostly missing), the rest
    integers and reals."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < p_nonzero, rng.normal(size=(n, d)) + 2, 0.0)
    X[:, 1] = np.where(rng.random(n) < 0.9, 3.0, rng.integers(0, 6, n))
    if missing:
        X[:, 2] = np.where(rng.random(n) < missing, np.nan, X[:, 2])
    return X


def _data(X):
    d = X.shape[1]
    return bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)


def test_sparse_codes_hold_every_non_default_code():
    X = _sparse_X(0, missing=0.8)
    D = _data(X)
    n, d = X.shape
    assert D.sp_dflt.shape == (d,)
    counts = np.stack([np.bincount(D.Xb[:, f], minlength=256) for f in range(d)])
    np.testing.assert_array_equal(D.sp_dflt, counts.argmax(axis=1))
    assert D.sp_dflt[2] == D.missing_bin                  # mostly missing: the missing bin
    assert D.sp_dflt[1] == D.Xb[X[:, 1] == 3.0, 1][0]     # mostly 3: that value's bin
    # rebuild the codes from the sparse rows
    Xb = np.tile(D.sp_dflt, (n, 1))
    for i in range(n):
        fb = D.sp_bin[D.sp_ptr[i]:D.sp_ptr[i + 1]]
        assert np.all(np.diff(fb) > 0)                     # increasing features
        Xb[i, fb // D.n_bins] = fb % D.n_bins
        assert np.all(fb % D.n_bins != D.sp_dflt[fb // D.n_bins])
    np.testing.assert_array_equal(Xb, D.Xb)


def test_dense_or_narrow_data_keep_no_sparse_rows():
    rng = np.random.default_rng(1)
    dense = _data(rng.normal(size=(500, 40)))
    narrow = _data(_sparse_X(1, d=8))
    for D in (dense, narrow):
        assert D.sp_dflt.shape == (0,) and D.sp_bin.shape == (0,)
    X = _sparse_X(2)
    D = _data(X)
    assert sparse_codes(D.Xb, D.n_bins, min_default_fraction=0.99)[2].shape == (0,)
    assert sparse_codes(D.Xb, D.n_bins, min_features=41)[2].shape == (0,)
    ptr, fbin, dflt = sparse_codes(D.Xb, D.n_bins)
    assert dflt.shape == (40,) and ptr[-1] == fbin.shape[0] == (D.Xb != dflt).sum()
    # exact-splitter data have no bins, hence no sparse rows
    E = bin_data(X, np.zeros(40, bool), np.zeros(40, np.int64), False)
    assert E.sp_dflt.shape == (0,)
    assert [a.dtype for a in no_sparse_codes()] == [np.int64, np.int32, np.uint8]


def _live(data, ext):
    B = data.n_bins
    live = np.zeros((ext.shape[0], B), bool)
    for f, e in enumerate(ext):
        live[f, :e] = True
        live[f, B - 1] = True
    return live


@pytest.mark.parametrize("task", ["classification", "newton", "regression", "five"])
@pytest.mark.parametrize("unit", [True, False])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_sparse_histograms_equal_the_dense_ones(task, unit, n_threads):
    X = _sparse_X(3, n=6000, missing=0.3)
    data = _data(X)
    n, d = X.shape
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    assert sp[2].shape == (d,)
    rng = np.random.default_rng(4)
    w = np.ones(n) if unit or task != "classification" else rng.integers(1, 4, n) * 0.5
    yc = rng.integers(0, 3, n).astype(np.int64)
    if task == "classification":
        S, tk = 3, TASK_CLASSIFICATION
        sst = np.zeros((n, S))
    else:
        tk, yc = TASK_DENSE, np.zeros(0, np.int64)
        g = rng.normal(size=n)
        h = np.ones(n) if unit else rng.random(n) + 0.1
        sst = {"newton": np.column_stack([h, g, np.ones(n)]),
               "regression": np.column_stack([h, h * g, h * g * g]),
               "five": np.column_stack([h, g, g ** 2, np.ones(n), -g])}[task]
        S = sst.shape[1]
    P = make_params(tk, S, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P).ext
    live = _live(data, ext if ext.shape[0] else np.full(d, data.n_bins))
    samples = rng.permutation(n).astype(np.int64)
    for start, end in ((0, n), (100, 3100), (5000, 5600)):
        col = unit_count_column(samples, start, end, yc, sst, w, tk)
        assert use_sparse_rows(sp, end - start, 0, d, data.n_bins, ext)
        out = []
        for cnt_col in (COUNT_NONE, col):
            for use in (None, sp):
                hist = np.full((d, data.n_bins, S), 7.0)
                cnt = np.full((d, data.n_bins), 7, np.int64)
                hist_build(data.Xb, samples, start, end, yc, sst, w, tk, hist, cnt, n_threads,
                           cnt_col, ext, use)
                cs = count_stat(cnt_col)
                if cs >= 0:
                    # the counts are a statistic's sums: cnt is not kept
                    assert (cnt == 7).all()
                    cnt = hist[..., cs].astype(np.int64)
                out.append((hist, cnt))
        ref_h, ref_c = out[0]
        for hist, cnt in out[1:]:
            np.testing.assert_array_equal(cnt[live], ref_c[live])
            np.testing.assert_allclose(hist[live], ref_h[live], rtol=1e-12, atol=1e-9)
            assert (hist[~live] == 7.0).all()              # outside the extents: untouched
            empty = ref_c == 0
            assert (hist[empty & live] == 0.0).all()       # no residue in empty bins
        if task == "classification" and unit:
            for hist, _ in out[1:]:
                np.testing.assert_array_equal(hist[live], ref_h[live])
    # a level at once: the same histograms
    starts, ends = np.array([0, 2000]), np.array([2000, n])
    hist = np.zeros((2, d, data.n_bins, S))
    cnt = np.zeros((2, d, data.n_bins), np.int64)
    hist_build_nodes(data.Xb, samples, starts, ends, np.array([1, 0]), 2, yc, sst, w, tk, hist,
                     cnt, n_threads, COUNT_NONE, ext, sp)
    for q, slot in ((0, 1), (1, 0)):
        h = np.zeros((d, data.n_bins, S))
        c = np.zeros((d, data.n_bins), np.int64)
        hist_build(data.Xb, samples, starts[q], ends[q], yc, sst, w, tk, h, c, 1, COUNT_NONE,
                   ext)
        np.testing.assert_array_equal(cnt[slot][live], c[live])
        np.testing.assert_allclose(hist[slot][live], h[live], rtol=1e-12, atol=1e-9)


def test_small_nodes_use_the_dense_codes():
    data = _data(_sparse_X(5))
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    d = data.Xb.shape[1]
    ext = np.zeros(0, np.int64)
    assert use_sparse_rows(sp, 2000, 0, d, data.n_bins, ext)
    assert not use_sparse_rows(sp, 5, 0, d, data.n_bins, ext)
    assert not use_sparse_rows((np.zeros(1, np.int64), np.zeros(0, np.int32),
                                np.zeros(0, np.uint8)), 2000, 0, d, data.n_bins, ext)


def _dense_only(monkeypatch):
    monkeypatch.setattr(binning, "SPARSE_MIN_DEFAULT_FRACTION", 2.0)


def test_classification_trees_are_the_same(monkeypatch):
    from treelab import DecisionTreeClassifier, RandomForestClassifier
    X = _sparse_X(6, n=3000, missing=0.2)
    rng = np.random.default_rng(6)
    y = ((X[:, 0] > 0) ^ (X[:, 3] > 2) | (X[:, 1] == 3) & (X[:, 5] > 1)).astype(int)
    y[rng.random(y.shape[0]) < 0.1] ^= 1
    make = [lambda: DecisionTreeClassifier(splitter="hist", random_state=0),
            lambda: RandomForestClassifier(n_estimators=5, splitter="hist", random_state=0)]
    sparse = [m().fit(X, y) for m in make]
    _dense_only(monkeypatch)
    dense = [m().fit(X, y) for m in make]
    for a, b in zip(sparse, dense):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    t_a, t_b = sparse[0].tree_, dense[0].tree_
    np.testing.assert_array_equal(t_a.feature, t_b.feature)
    np.testing.assert_array_equal(t_a.threshold, t_b.threshold)


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_boosted_trees_match_the_dense_path(monkeypatch, policy):
    """Newton statistics: the default bins differ from the dense sums in the
    last bits only, so the same splits and leaf values to rounding."""
    from treelab import GradientBoostingClassifier, GradientBoostingRegressor
    X = _sparse_X(7, n=3000, missing=0.2)
    rng = np.random.default_rng(7)
    yr = X[:, 0] * 2 + (X[:, 1] == 3) + np.nan_to_num(X[:, 2]) - X[:, 4] + rng.normal(size=3000)
    yc = np.digitize(yr, np.quantile(yr, [0.3, 0.7]))
    kw = dict(n_estimators=8, max_depth=4, grow_policy=policy, random_state=0)
    make = [lambda: GradientBoostingClassifier(**kw).fit(X, yc),
            lambda: GradientBoostingRegressor(**kw).fit(X, yr)]
    sparse = [m() for m in make]
    _dense_only(monkeypatch)
    dense = [m() for m in make]
    np.testing.assert_allclose(sparse[0].predict_proba(X), dense[0].predict_proba(X),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sparse[1].predict(X), dense[1].predict(X), rtol=1e-9, atol=1e-9)


def test_fused_subtraction_only_for_a_parent_losing_one_child():
    from treelab._engine.histogram import fused_subtraction
    subs = np.array([[5, 2], [7, 3], [7, 4]], np.int64)
    assert fused_subtraction(subs, 2) == 5           # the only subtraction from 5
    assert fused_subtraction(subs, 3) == -1          # 7 loses two: kept in subs' order
    assert fused_subtraction(subs, 4) == -1
    assert fused_subtraction(subs, 9) == -1          # not subtracted at all
    assert fused_subtraction(np.zeros((0, 2), np.int64), 2) == -1


@pytest.mark.parametrize("n_threads", [1, 2])
def test_subtraction_made_with_the_sparse_build_is_the_separate_one(n_threads):
    """hist_build_nodes with ``subs``: a parent's minus its smaller child's
    histogram made group by group as the child's sparse histogram is built
    (``fused_subtraction``) equals the child's build followed by hist_subtract,
    bit for bit; a parent losing two siblings (not fused) too; and hist_build's
    ``sub`` for one node."""
    from treelab._engine.histogram import hist_subtract, unit_count_column
    X = _sparse_X(5, n=6000, d=300)
    data = _data(X)
    n, d = X.shape
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    rng = np.random.default_rng(6)
    g = rng.normal(size=n)
    sst = np.column_stack([rng.random(n) + 0.1, g, np.ones(n)])
    yc, w = np.zeros(0, np.int64), np.ones(n)
    P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P).ext
    samples = rng.permutation(n).astype(np.int64)
    B = data.n_bins
    # slots 0, 1: parents (all rows; rows 0..3999); 2: child of 0; 3, 4: children of 1
    starts, ends = np.array([0, 1000, 1500]), np.array([1500, 1800, 2300])
    col = unit_count_column(samples, 0, n, yc, sst, w, TASK_DENSE)

    def parents():
        h = np.zeros((5, d, B, 3))
        c = np.zeros((5, d, B), np.int64)
        hist_build(data.Xb, samples, 0, n, yc, sst, w, TASK_DENSE, h[0], c[0], 1, col, ext, sp)
        hist_build(data.Xb, samples, 0, 4000, yc, sst, w, TASK_DENSE, h[1], c[1], 1, col, ext,
                   sp)
        return h, c
    ref_h, ref_c = parents()
    for q, slot in enumerate((2, 3, 4)):
        assert use_sparse_rows(sp, ends[q] - starts[q], 0, d, B, ext)
        hist_build(data.Xb, samples, starts[q], ends[q], yc, sst, w, TASK_DENSE, ref_h[slot],
                   ref_c[slot], 1, col, ext, sp)
    for a, b in ((0, 2), (1, 3), (1, 4)):
        hist_subtract(ref_h[a], ref_c[a], ref_h[b], ref_c[b], ext, col)
    hist, cnt = parents()
    subs = np.array([[0, 2], [1, 3], [1, 4]], np.int64)
    hist_build_nodes(data.Xb, samples, starts, ends, np.array([2, 3, 4]), 3, yc, sst, w,
                     TASK_DENSE, hist, cnt, n_threads, col, ext, sp, None, subs)
    np.testing.assert_array_equal(cnt, ref_c)
    np.testing.assert_array_equal(hist, ref_h)
    # one node (hist_build's ``sub``, the best-first and depth-first drivers' form):
    # from the sparse rows and from the dense codes, counts kept or from a statistic,
    # a child large enough for the threads (PARALLEL_HIST_MIN_WORK) and a small one
    n = 8000
    data = _data(_sparse_X(7, n=n, d=d))
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    sst = np.column_stack([rng.random(n) + 0.1, rng.normal(size=n), np.ones(n)])
    w = np.ones(n)
    samples = rng.permutation(n).astype(np.int64)
    ext = new_pool(data, P).ext
    col = unit_count_column(samples, 0, n, yc, sst, w, TASK_DENSE)
    for (use_sp, cc), (c0, c1) in itertools.product(
            ((True, col), (False, col), (True, COUNT_NONE), (False, COUNT_NONE)),
            ((500, 7500), (1000, 1800))):
        h = np.zeros((3, d, B, 3))
        c = np.zeros((3, d, B), np.int64)
        for a in (0, 2):
            hist_build(data.Xb, samples, 0, n, yc, sst, w, TASK_DENSE, h[a], c[a], 1, cc,
                       ext, sp if use_sp else None)
        hist_build(data.Xb, samples, c0, c1, yc, sst, w, TASK_DENSE, h[1], c[1],
                   n_threads, cc, ext, sp if use_sp else None, None, (h[2], c[2]))
        hist_subtract(h[0], c[0], h[1], c[1], ext, cc)
        assert h[2].any() and (h[2] != h[1]).any()
        np.testing.assert_array_equal(c[2], c[0])
        np.testing.assert_array_equal(h[2], h[0])


def _mixed_extents_X(seed, n, d):
    """Sparse columns (70 % zeros): the first half with two other values (a
    few bins each), the second half with reals (every bin)."""
    rng = np.random.default_rng(seed)
    nz = rng.random((n, d)) < 0.3
    h = d // 2
    X = np.zeros((n, d))
    X[:, :h] = np.where(nz[:, :h], rng.integers(1, 3, (n, h)), 0.0)
    X[:, h:] = np.where(nz[:, h:], rng.normal(size=(n, d - h)) + 5.0, 0.0)
    return X


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_sparse_or_dense_is_chosen_for_the_whole_histogram(policy):
    """Split by features on two threads, each thread's half of a node's
    histogram once chose sparse rows or dense codes by its own features' bins:
    a node of a few hundred rows here had its few-bin half from the sparse rows
    (default bins = totals minus the others: other rounding) and its other half
    dense on two threads, all sparse on one -- so a boosted model depended on
    ``n_jobs`` in the last bits.  The choice is the whole histogram's now: the
    same histograms and the same trees, bit for bit, on one thread and two."""
    from _newton_trees import newton_trees_on_threads

    from treelab._engine.histogram import PARALLEL_LEVEL_MIN_WORK
    n, d = 3000, 240
    X = _mixed_extents_X(8, n, d)
    data = _data(X)
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    assert sp[2].shape == (d,)
    B = data.n_bins
    rng = np.random.default_rng(9)
    g = rng.normal(size=n) + X[:, d - 1] - X[:, 0]
    sst = np.ascontiguousarray(np.column_stack([rng.random(n) + 0.1, g, np.ones(n)]))
    yc, w = np.zeros(0, np.int64), np.ones(n)
    P0 = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P0).ext
    # node sizes where a half of the features alone would choose otherwise
    split = [m for m in range(2, n) if m * d >= PARALLEL_LEVEL_MIN_WORK and
             use_sparse_rows(sp, m, 0, d, B, ext) != use_sparse_rows(sp, m, d // 2, d, B, ext)]
    assert len(split) > 50
    samples = rng.permutation(n).astype(np.int64)
    for m in (split[0], split[len(split) // 2], split[-1]):
        out = []
        for nt in (1, 2):
            hist = np.zeros((1, d, B, 3))
            cnt = np.zeros((1, d, B), np.int64)
            hist_build_nodes(data.Xb, samples, np.array([0]), np.array([m]), np.array([0]), 1,
                             yc, sst, w, TASK_DENSE, hist, cnt, nt, COUNT_NONE, ext, sp)
            out.append((hist, cnt))
        np.testing.assert_array_equal(out[0][1], out[1][1])
        np.testing.assert_array_equal(out[0][0], out[1][0])
    trees = newton_trees_on_threads(data, sst, w, policy, d, yc)
    assert trees[0].sizes[0] > 20
    for name in trees[0]._fields:
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


def test_small_nodes_skip_the_features_constant_on_them(monkeypatch):
    """``builder.small_node_entries``: on a small node of sparse data a feature
    none of whose rows holds a code other than its default (not the missing
    bin) is constant on the node and is not read; the entries equal a direct
    look at the codes, and trees whose nodes are all small are the same with
    and without sparse rows."""
    from treelab import (
        DecisionTreeClassifier, GradientBoostingClassifier, GradientBoostingRegressor,
    )
    rng = np.random.default_rng(11)
    X = _sparse_X(11, n=3000)
    X[:, 2] = np.where(rng.random(3000) < 0.8, np.nan, X[:, 2])   # default: missing
    data = _data(X)
    n, d = X.shape
    assert data.sp_dflt.shape == (d,) and data.sp_dflt[2] == data.missing_bin
    samples = rng.permutation(n).astype(np.int64)
    n_constant = 0
    for start, m in ((0, 1), (5, 7), (100, 40), (2000, 120), (2900, 100)):
        ptr, pos, code, mark = _entries(data, samples, start, start + m, True)
        rows = samples[start:start + m]
        assert mark.shape == (m,) and (mark == -1).all()
        for f in range(d):
            sel = data.Xb[rows, f] != data.sp_dflt[f]
            # (each feature's entries sorted by code, then position)
            at = np.flatnonzero(sel)
            at = at[np.argsort(data.Xb[rows[at], f], kind="stable")]
            np.testing.assert_array_equal(pos[ptr[f]:ptr[f + 1]], at)
            np.testing.assert_array_equal(code[ptr[f]:ptr[f + 1]], data.Xb[rows[at], f])
            n_constant += int(not sel.any() and data.sp_dflt[f] != data.missing_bin)
    assert n_constant > 30
    assert all(a.shape == (0,) for a in _entries(data, samples, 0, 10, False))
    dense = bin_data(np.random.default_rng(0).normal(size=(50, 40)), np.zeros(40, bool),
                     np.zeros(40, np.int64), True)
    assert all(a.shape == (0,) for a in _entries(dense, samples, 0, 10, True))
    # 30 rows: every node sorts its own samples (fewer than 32 rows); class
    # counts are exact on histograms too (100 rows)
    Xs, ys = X[:100], (np.nan_to_num(X[:100, 0]) + X[:100, 1] > 3).astype(int)
    Xr = X[:30]
    yr = np.nan_to_num(Xr[:, 0]) * 2 - Xr[:, 4] + np.nan_to_num(Xr[:, 2])
    yr3 = np.digitize(yr, np.quantile(yr, [0.3, 0.7]))
    fitted = []
    for sparse in (True, False):
        if not sparse:
            _dense_only(monkeypatch)
        assert (_data(Xs).sp_dflt.shape[0] > 0) == sparse
        assert (_data(Xr).sp_dflt.shape[0] > 0) == sparse
        fitted.append((DecisionTreeClassifier(splitter="hist", random_state=0).fit(Xs, ys),
                       GradientBoostingRegressor(n_estimators=5, max_depth=4,
                                                 random_state=0).fit(Xr, yr),
                       GradientBoostingClassifier(n_estimators=3, max_depth=5,
                                                  random_state=0).fit(Xr, yr3)))
    (ta, ga, ca), (tb, gb, cb) = fitted
    # (the softmax trees: small nodes searched from their non-default codes,
    # builder.newton_sparse_small_split, against every code sorted)
    assert max(t.feature.shape[0] for t, _ in ca._trees[:3]) >= 5
    np.testing.assert_array_equal(ca.predict_proba(X), cb.predict_proba(X))
    assert ta.tree_.feature.shape[0] > 5
    np.testing.assert_array_equal(ta.tree_.feature, tb.tree_.feature)
    np.testing.assert_array_equal(ta.tree_.threshold, tb.tree_.threshold)
    np.testing.assert_array_equal(ta.predict_proba(X), tb.predict_proba(X))
    assert ga._trees[0][0].feature.shape[0] > 5
    np.testing.assert_array_equal(ga.predict(X), gb.predict(X))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_small_node_sweep_equals_the_sorted_one(seed):
    """``builder.newton_sparse_small_split`` (a small node's Newton search from
    its non-default codes, sorted once for every feature by
    ``small_node_entries``) gives the result of ``newton_small_split`` (every
    code of the node gathered and sorted) bit for bit: the same order of
    additions, candidates and thresholds -- defaults below, between and above
    the other codes, missing codes, nodes of 1 to 127 rows, counts from 0 to
    several rows a side."""
    from treelab._engine.builder import (
        newton_small_split, newton_sparse_small_split,
    )
    rng = np.random.default_rng(seed)
    n, d = 3000, 40
    X = _sparse_X(seed, n=n, d=d)
    X[:, 3] = np.where(rng.random(n) < 0.7, 1.5, rng.normal(size=n) * 2)   # default in the middle
    X[:, 4] = np.where(rng.random(n) < 0.8, 9.0, rng.integers(0, 5, n))    # default the largest
    X[:, 5] = np.where(rng.random(n) < 0.1, np.nan, X[:, 5])               # some missing
    X[:, 6] = np.where(rng.random(n) < 0.05, np.nan, np.where(rng.random(n) < 0.85, 0.0, 7.0))
    data = _data(X)
    assert data.sp_dflt.shape == (d,)
    B = data.n_bins
    sstats = np.column_stack([rng.uniform(0.05, 0.3, n), rng.normal(size=n), np.ones(n)])
    cp = np.array([0.5, 0.0, 0.0])
    size = max(B + 1, 128)          # (rows of a small node, codes)
    keys = np.zeros(size)
    ids = np.zeros(size, np.int64)
    scratch = np.zeros(size)
    bucket = np.zeros(size, np.int64)
    keys2, ids2, scratch2 = keys.copy(), ids.copy(), scratch.copy()
    sweep = np.full((5, B), np.nan)          # (find_best_split's Newton scratch)
    samples = rng.permutation(n).astype(np.int64)
    n_found = n_sparse = 0
    for start, m in ((0, 1), (3, 2), (10, 7), (40, 24), (100, 25), (300, 60), (900, 127)):
        end = start + m
        rows = samples[start:end]
        sloc = np.ascontiguousarray(sstats[rows])
        parent = sloc.sum(axis=0)
        ptr, pos, code, mark = _entries(data, samples, start, end, True)
        for f in range(d):
            e0, e1 = ptr[f], ptr[f + 1]
            sel = data.Xb[rows, f] != data.sp_dflt[f]
            # the feature's non-default codes sorted by code, equal codes by position
            order = np.flatnonzero(sel)
            order = order[np.argsort(data.Xb[rows[order], f], kind="stable")]
            np.testing.assert_array_equal(pos[e0:e1], order)
            np.testing.assert_array_equal(code[e0:e1], data.Xb[rows[order], f])
            lo, hi = data.edge_offsets[f], data.edge_offsets[f + 1]
            if e1 == e0 or data.sp_dflt[f] == data.missing_bin:
                continue
            for msl in (3, 1):
                ref = newton_small_split(data.Xb, data.missing_bin, f, samples, start, end,
                                         keys2, ids2, scratch2, bucket, data.edges, lo, hi,
                                         sloc, parent, cp, msl, 1e-3)
                got = newton_sparse_small_split(pos, code, e0, e1, f, data.sp_dflt[f],
                                                data.missing_bin, m, mark, data.edges, lo, hi,
                                                sloc, parent, cp, msl, 1e-3, sweep)
                assert got == ref, (start, m, f, msl)
            assert not bucket.any()
            n_sparse += 1
            n_found += ref[0] == 1
    assert n_sparse > 100 and n_found > 50
    empty = _entries(data, samples, 0, 10, False)
    assert all(a.shape == (0,) for a in empty)


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_histogram_nodes_skip_the_features_constant_on_them(monkeypatch, policy):
    """A histogram node whose default bin holds all its rows has the feature
    constant on it (``find_best_split`` then skips its search): half of the
    features here are non-zero only where feature 0 is, so the many large nodes
    without it have them constant.  Class-count trees are the same with and
    without sparse rows, bit for bit; boosted trees the same splits (their
    default bins differ from the dense sums in the last bits)."""
    from treelab import DecisionTreeClassifier, GradientBoostingRegressor
    X = _sparse_X(12, n=4000)
    X[X[:, 0] == 0, 20:] = 0.0
    assert (X[:, 0] == 0).sum() > 3000
    yc = ((X[:, 0] > 2) & (X[:, 25] > 2) | (X[:, 3] > 2) | (X[:, 1] == 3) & (X[:, 30] > 1.5)
          ).astype(int)
    yr = X[:, 0] - 2 * X[:, 25] + X[:, 3] + (X[:, 1] == 3) + X[:, 30]
    kw = dict(n_estimators=6, max_depth=5, grow_policy=policy, random_state=0)
    if policy == "lossguide":
        kw.update(max_depth=0, max_leaves=24)
    fitted = []
    for sparse in (True, False):
        if not sparse:
            _dense_only(monkeypatch)
        assert (_data(X).sp_dflt.shape[0] > 0) == sparse
        fitted.append((DecisionTreeClassifier(splitter="hist", random_state=0).fit(X, yc),
                       GradientBoostingRegressor(**kw).fit(X, yr)))
    (ta, ga), (tb, gb) = fitted
    assert (ta.tree_.feature >= 20).any()
    np.testing.assert_array_equal(ta.tree_.feature, tb.tree_.feature)
    np.testing.assert_array_equal(ta.tree_.threshold, tb.tree_.threshold)
    np.testing.assert_array_equal(ta.predict_proba(X), tb.predict_proba(X))
    assert any((t.feature >= 20).any() for t, _ in ga._trees)
    for (a, _), (b, _) in zip(ga._trees, gb._trees):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_allclose(ga.predict(X), gb.predict(X), rtol=1e-9, atol=1e-9)


def test_feature_groups_are_sized_by_the_bins_in_use():
    """``_group_features``: one pass over a node's rows fills about HIST_BLOCK_BYTES
    of the bins the features use -- their extents plus the missing bin, and the
    counts only where they are kept (session 39: the size assumed every bin and the
    counts, so a boosted MNIST histogram took seven passes instead of two)."""
    from treelab._engine.histogram import HIST_BLOCK_BYTES, _group_features, bins_in_use
    d, B = 784, 256
    ext = np.full(d, 140, np.int64)
    assert bins_in_use(ext, 0, d, B) == d * 141
    assert bins_in_use(np.zeros(0, np.int64), 10, 20, B) == 10 * B
    hist = np.zeros((d, B, 3))
    per_feature = 141 * 3 * 8                           # H, G and w; counts read off w
    assert _group_features(hist, ext, 0, d, False) == HIST_BLOCK_BYTES // per_feature
    assert _group_features(hist, ext, 0, d, True) == HIST_BLOCK_BYTES // (141 * 4 * 8)
    assert -(-d // _group_features(hist, ext, 0, d, False)) == 2    # two passes on MNIST
    # without extents every bin counts; never fewer than 8 features a pass
    assert _group_features(hist, np.zeros(0, np.int64), 0, d, True) == max(
        8, HIST_BLOCK_BYTES // (B * 4 * 8))
    wide = np.zeros((d, B, 400))
    assert _group_features(wide, np.zeros(0, np.int64), 0, d, True) == 8
