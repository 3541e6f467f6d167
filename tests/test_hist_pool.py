"""The histogram pool grows on demand (``builder.pool_take`` doubles it).

``builder.new_pool`` sizes the pool for depth-first growth (``max_depth + 1``
slots for shallow trees); best-first growth keeps one histogram per frontier
leaf, more than that, and relies on ``pool_take`` doubling the pool without
losing the histograms already in it.
"""
import numpy as np
import pytest

from treelab._engine.binning import bin_data
from treelab._engine.builder import make_params, new_pool, pool_release, pool_take
from treelab._engine.build import build_tree
from treelab._engine.merit import TASK_CLASSIFICATION, TASK_DENSE
from treelab._engine.tree import LEAF, predict_value_serial, trim
from treelab.split_criteria import GINI, VARIANCE


def _data(seed, n=600, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (X[:, 2] > -0.2)).astype(np.int64)
    yr = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + X[:, 2] * X[:, 3]
    return X, y, yr


def test_pool_take_doubles_and_keeps_the_histograms():
    X, y, _ = _data(0)
    D = bin_data(X, np.zeros(4, bool), np.zeros(4, np.int64), True)
    P = make_params(TASK_CLASSIFICATION, 2, 1, 2, 1, 0.0, 0.0, 4, False, GINI.merit_code,
                    GINI.builtin_code)
    hp = new_pool(D, P)
    n0 = hp.hist.shape[0]
    assert n0 == 2                                  # max_depth + 1 slots for depth 1
    taken = []
    for k in range(2 * n0 + 1):                     # two doublings
        hp, slot = pool_take(hp)
        hp.hist[slot] = k + 1.0                     # mark each slot's contents
        hp.cnt[slot] = k + 1
        taken.append(slot)
    assert hp.hist.shape[0] == 4 * n0 and hp.cnt.shape[0] == 4 * n0
    assert len(set(taken)) == len(taken)            # never the same slot twice
    for k, slot in enumerate(taken):                # nothing lost in the copies
        assert np.all(hp.hist[slot] == k + 1.0) and np.all(hp.cnt[slot] == k + 1)
    pool_release(hp, taken[0])
    hp, again = pool_take(hp)
    assert again == taken[0] and hp.hist.shape[0] == 4 * n0   # a released slot is reused


def _tree(X, target, policy, max_depth, task):
    n, d = X.shape
    D = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    if task == "clf":
        P = make_params(TASK_CLASSIFICATION, 2, max_depth, 2, 1, 0.0, 0.0, d, False,
                        GINI.merit_code, GINI.builtin_code)
        t = build_tree(D, target, np.zeros((0, 2)), np.ones(n), P, GINI.impurity, GINI.merit,
                       grow_policy=policy)
    else:
        st = np.column_stack([np.ones(n), target, target ** 2])
        P = make_params(TASK_DENSE, 3, max_depth, 2, 1, 0.0, 0.0, d, False,
                        VARIANCE.merit_code, VARIANCE.builtin_code)
        t = build_tree(D, np.zeros(n, np.int64), np.ascontiguousarray(st), np.ones(n), P,
                       VARIANCE.impurity, VARIANCE.merit, grow_policy=policy)
    return trim(t)


@pytest.mark.parametrize("task", ["clf", "reg"])
@pytest.mark.parametrize("max_depth", [2, 3, 4])
def test_best_first_beyond_the_initial_pool_grows_the_depth_first_tree(task, max_depth):
    # A shallow pool (max_depth + 1 slots) but up to 2**max_depth frontier leaves
    # held at once by best-first growth: the pool must double, and the tree must
    # be the depth-first one (same leaves, same values).
    X, y, yr = _data(1)
    target = y if task == "clf" else yr
    a = _tree(X, target, "depthwise", max_depth, task)
    b = _tree(X, target, "lossguide", max_depth, task)
    n_leaves = int((b.kind == LEAF).sum())
    assert n_leaves > max_depth + 1                 # more frontier leaves than initial slots
    assert a.sizes[0] == b.sizes[0]
    Xt = np.ascontiguousarray(np.vstack([X, _data(7)[0]]))
    np.testing.assert_array_equal(predict_value_serial(a, Xt), predict_value_serial(b, Xt))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_histogram_extents_touch_only_the_features_bins(n_threads):
    """Features with 3, 40 and 255 value bins plus missing values: a pool's
    extents are each feature's value bins; building and subtracting within
    them gives, on those bins and the missing bin, the histograms of the full
    kernels, and leaves every other bin as it was (garbage stays garbage:
    nothing reads it)."""
    from treelab._engine.histogram import hist_build, hist_build_nodes, hist_subtract
    rng = np.random.default_rng(0)
    n = 3000
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 40, n), rng.normal(size=n),
                         rng.integers(0, 7, n)]).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    data = bin_data(X, np.array([False, False, False, True]), np.array([0, 0, 0, 7]), True)
    B = data.n_bins
    P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P).ext
    np.testing.assert_array_equal(ext, [3, 40, 255, 7])
    assert B == 256
    sst = rng.normal(size=(n, 3))
    w = np.ones(n)
    samples = rng.permutation(n).astype(np.int64)
    live = np.zeros((4, B), bool)
    for f, e in enumerate(ext):
        live[f, :e] = True
        live[f, B - 1] = True
    y0 = np.zeros(0, np.int64)

    def build(start, end, use_ext):
        h = np.full((4, B, 3), 5.0)
        c = np.full((4, B), 5, np.int64)
        hist_build(data.Xb, samples, start, end, y0, sst, w, TASK_DENSE, h, c, n_threads, -1,
                   ext if use_ext else None)
        return h, c

    hf, cf = build(0, n, False)
    he, ce = build(0, n, True)
    np.testing.assert_array_equal(he[live], hf[live])
    np.testing.assert_array_equal(ce[live], cf[live])
    assert (he[~live] == 5.0).all() and (ce[~live] == 5).all()
    assert (cf[~live] == 0).all()            # the full kernel: nothing lands there
    # a node's histogram minus its first 1000 rows' = the last 2000 rows'
    kf, kc = build(0, 1000, False)
    ke, kcc = build(0, 1000, True)
    hist_subtract(hf, cf, kf, kc)
    hist_subtract(he, ce, ke, kcc, ext)
    rf, rc = build(1000, n, False)
    np.testing.assert_array_equal(ce[live], rc[live])
    np.testing.assert_allclose(he[live], rf[live], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(he[live], hf[live])
    assert (he[~live] == 5.0).all()
    # a level at once: the same histograms within the extents
    hist = np.full((2, 4, B, 3), 5.0)
    cnt = np.full((2, 4, B), 5, np.int64)
    hist_build_nodes(data.Xb, samples, np.array([0, 1000]), np.array([1000, n]),
                     np.array([1, 0]), 2, y0, sst, w, TASK_DENSE, hist, cnt, n_threads, -1, ext)
    np.testing.assert_array_equal(hist[1][live], kf[live])
    np.testing.assert_array_equal(cnt[0][live], rc[live])
    assert (hist[0][~live] == 5.0).all()


@pytest.mark.parametrize("policy", ["depthwise", "lossguide", "levelwise"])
def test_a_reused_pool_grows_the_same_trees(policy):
    """A pool kept from tree to tree (``build.pool_for``, as boosting keeps one
    per thread) holds the previous tree's histograms: every tree grown on it
    equals the tree grown on a fresh pool.  A pool of another shape is not
    used (the builder makes its own)."""
    from treelab._engine.build import pool_for
    rng = np.random.default_rng(3)
    n, d = 1500, 5
    X = rng.normal(size=(n, d)).round(2)
    X[rng.random(X.shape) < 0.05] = np.nan
    D = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    P = make_params(TASK_DENSE, 3, 5, 2, 1, 0.0, 0.0, d, False, VARIANCE.merit_code,
                    VARIANCE.builtin_code, max_leaves=12)
    pool = pool_for(D, P, policy)
    other = pool_for(bin_data(X[:, :3], np.zeros(3, bool), np.zeros(3, np.int64), True), P,
                     policy)
    before = pool.hist.copy()
    for k in range(4):
        yr = np.nan_to_num(X[:, k]) + rng.normal(size=n)
        st = np.column_stack([np.ones(n), yr, yr ** 2])
        rows = np.sort(rng.choice(n, 1200, replace=False)) if k % 2 else None
        grown = [trim(build_tree(D, np.zeros(0, np.int64), st, np.ones(n), P,
                                 VARIANCE.impurity, VARIANCE.merit, rows=rows,
                                 grow_policy=policy, pool=p))
                 for p in (None, pool, other)]
        for t in grown[1:]:
            for name in ("feature", "threshold", "n_samples", "value"):
                np.testing.assert_array_equal(getattr(t, name), getattr(grown[0], name))
    assert not np.array_equal(pool.hist, before)         # the pool was used
    assert pool_for(bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), False), P) is None


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("cnt_col", [-1, 2, -3])
def test_column_codes_give_the_row_major_histogram(n_threads, cnt_col):
    """A node is accumulated from the codes stored column by column
    (``BinnedData.Xt``) when its rows are one ascending run (a root, or a run
    inside the data) or when it holds at least 1 / ``COLUMN_MIN_SHARE`` of the
    rows (read through its samples): the same bits as the row-major loop, counts
    included, within the extents, for 1..10 features (passes of four, three, two
    and one feature), whether the counts are summed or read off a statistic, node by node
    (``hist_build``) and a level at once (``hist_build_nodes``); smaller nodes
    take the row-major loop."""
    from treelab._engine.binning import with_column_codes
    from treelab._engine.histogram import (COLUMN_MIN_SHARE, COUNT_STATS_0_2, ascending_run,
                                           hist_build, hist_build_nodes, no_extents)
    rng = np.random.default_rng(1)
    n = 2500
    for d in (1, 3, 4, 5, 7, 10):
        X = rng.normal(size=(n, d)).round(1)
        X[rng.random(X.shape) < 0.03] = np.nan
        data = with_column_codes(bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True))
        assert data.Xt.shape == (d, n)
        np.testing.assert_array_equal(data.Xt.T, data.Xb)
        B = data.n_bins
        P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
        ext = new_pool(data, P).ext
        sst = rng.normal(size=(n, 3))
        if cnt_col == 2:
            sst[:, 2] = 1.0
        elif cnt_col == COUNT_STATS_0_2:
            sst[:, 0] = 1.0
            sst[:, 2] = 1.0
        w = np.ones(n)
        y0 = np.zeros(0, np.int64)

        def build(samples, start, end, xt, e):
            h = np.full((d, B, 3), 5.0)
            c = np.full((d, B), 5, np.int64)
            hist_build(data.Xb, samples, start, end, y0, sst, w, TASK_DENSE, h, c, n_threads,
                       cnt_col, e, None, xt)
            return h, c

        rows = np.arange(n, dtype=np.int64)
        small = np.sort(rng.choice(n, n // COLUMN_MIN_SHARE - 1, replace=False))
        large = np.sort(rng.choice(n, n // COLUMN_MIN_SHARE + 1, replace=False))
        for samples, start, end in ((rows, 0, n), (rows, 700, 1900),
                                    (rng.permutation(n).astype(np.int64), 0, n),
                                    (np.delete(rows, 1000), 0, n - 1),
                                    (small, 0, small.shape[0]), (large, 0, large.shape[0]),
                                    (rows, 3, 20)):
            for e in (None, ext):
                hr, cr = build(samples, start, end, None, e)
                hc, cc = build(samples, start, end, data.Xt, e)
                np.testing.assert_array_equal(hc, hr)
                if e is None:
                    # and both are the sums written out (np.add.at adds in the rows'
                    # order: the same bits; [1, g, 1] counts in statistics 0 and 2)
                    rows_n = samples[start:end]
                    for f in range(d):
                        ref = np.zeros((B, 3))
                        np.add.at(ref, data.Xb[rows_n, f], sst[rows_n])
                        np.testing.assert_array_equal(hc[f], ref)
                np.testing.assert_array_equal(cc, cr)
                # which codes were read: column codes of all zeros change the
                # histogram of a run or of a node of at least n / COLUMN_MIN_SHARE
                hz, _ = build(samples, start, end, np.zeros_like(data.Xt), e)
                reads = (ascending_run(samples, start, end) >= 0
                         or (end - start) * COLUMN_MIN_SHARE >= n)
                assert np.array_equal(hz, hr) != reads
        # a level at once: a large node, a small one and a run, each the row-major
        # histogram whatever the codes it read
        order = np.concatenate([large, small, rows[100:400]]).astype(np.int64)
        starts = np.array([0, large.shape[0], large.shape[0] + small.shape[0]])
        ends = np.array([large.shape[0], large.shape[0] + small.shape[0], order.shape[0]])
        slots = np.array([2, 0, 1])
        for e in (None, ext):
            hl = np.full((3, d, B, 3), 5.0)
            cl = np.full((3, d, B), 5, np.int64)
            hist_build_nodes(data.Xb, order, starts, ends, slots, 3, y0, sst, w, TASK_DENSE, hl,
                             cl, n_threads, cnt_col, e, None, data.Xt)
            for q in range(3):
                hr, cr = build(order, starts[q], ends[q], None, e)
                np.testing.assert_array_equal(hl[slots[q]], hr)
                np.testing.assert_array_equal(cl[slots[q]], cr)
        assert ascending_run(rows, 700, 1900) == 700
        assert ascending_run(np.delete(rows, 1000), 0, n - 1) == -1
        assert ascending_run(rows, 5, 5) == -1
        assert no_extents().shape == (0,)
    # sparse rows or no bins: no column copy
    Xs = np.zeros((200, 40))
    Xs[::9, :] = 1.0
    sp = with_column_codes(bin_data(Xs, np.zeros(40, bool), np.zeros(40, np.int64), True))
    assert sp.sp_dflt.shape[0] > 0 and sp.Xt.shape[0] == 0
    ex = with_column_codes(bin_data(Xs, np.zeros(40, bool), np.zeros(40, np.int64), False))
    assert ex.Xt.shape[0] == 0


def test_feature_groups_are_the_fewest_passes_as_even_as_can_be():
    """The column-code loops fill at most ``HIST_GROUP`` features a pass over the
    node's rows: ceil(r / 4) passes, their sizes differing by at most one
    (a thread's 10 of 20 features: 4 + 3 + 3, not 4 + 4 + 1 + 1)."""
    from treelab._engine.histogram import HIST_GROUP, feature_group
    assert HIST_GROUP == 4
    for r in range(1, 41):
        sizes = []
        left = r
        while left > 0:
            g = feature_group(left)
            assert 1 <= g <= HIST_GROUP
            sizes.append(g)
            left -= g
        assert len(sizes) == -(-r // HIST_GROUP)
        assert max(sizes) - min(sizes) <= 1
    assert [feature_group(x) for x in (10, 6, 3)] == [4, 3, 3]


@pytest.mark.parametrize("cnt_col", [2, -3])
def test_root_histogram_from_counted_bins(cnt_col):
    """A root on every row in order whose unit statistics are the weights (2) or
    the Hessians and weights (-3, squared error) accumulates only the others and
    takes the unit ones (the counts: no ``cnt`` is kept) from the data's bin
    counts (``BinnedData.Xt_cnt``): the same bits as the row-major histogram,
    within the extents and without, on one thread and on feature blocks; any
    other node or statistics keep the general build."""
    from treelab._engine.binning import with_column_codes
    from treelab._engine.histogram import (
        TASK_CLASSIFICATION, _root_counted_features, hist_build, root_counts_usable,
        root_hist_counted)
    rng = np.random.default_rng(5)
    n = 3000
    for d in (1, 3, 4, 5, 7, 10):
        X = rng.normal(size=(n, d)).round(1)
        X[rng.random(X.shape) < 0.03] = np.nan
        data = with_column_codes(bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True))
        B = data.n_bins
        np.testing.assert_array_equal(
            data.Xt_cnt, [np.bincount(data.Xb[:, f], minlength=B) for f in range(d)])
        P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
        ext = new_pool(data, P).ext
        sst = rng.normal(size=(n, 3))
        sst[:, 2] = 1.0
        if cnt_col == -3:
            sst[:, 0] = 1.0
        rows = np.arange(n, dtype=np.int64)
        for e in (np.zeros(0, np.int64), ext):
            hr = np.full((d, B, 3), 5.0)
            cr = np.full((d, B), 5, np.int64)
            hist_build(data.Xb, rows, 0, n, np.zeros(0, np.int64), sst, np.ones(n), TASK_DENSE,
                       hr, cr, 1, cnt_col, e)
            assert (cr == 5).all()                   # (counts: statistics 2 and 0)
            if e.shape[0] == 0:
                np.testing.assert_array_equal(hr[..., 2], data.Xt_cnt)
            for blocks in (0, 1, 2, 3):
                h = np.full((d, B, 3), 5.0)          # (bins outside the extents: untouched)
                if blocks == 0:
                    root_hist_counted(data.Xt, data.Xt_cnt, sst, h, cnt_col, e, 2)
                else:
                    _root_counted_features(data.Xt, data.Xt_cnt, sst, h, cnt_col, e,
                                           min(blocks, d))
                np.testing.assert_array_equal(h, hr)
        assert root_counts_usable(data.Xt, data.Xt_cnt, rows, n, sst, TASK_DENSE, cnt_col, B)
        for args in ((rows[1:], n - 1, sst, TASK_DENSE, cnt_col),      # not every row
                     (rng.permutation(n).astype(np.int64), n, sst, TASK_DENSE, cnt_col),
                     (rows, n, sst, TASK_DENSE, -1), (rows, n, sst, TASK_DENSE, 0),
                     (rows, n, sst[:, :2].copy(), TASK_DENSE, cnt_col),
                     (rows, n, sst, TASK_CLASSIFICATION, cnt_col)):
            assert not root_counts_usable(data.Xt, data.Xt_cnt, *args, B)
        assert not root_counts_usable(data.Xt, np.zeros((0, 0), np.int64), rows, n, sst,
                                      TASK_DENSE, cnt_col, B)


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_segmented_level_histograms_equal_node_by_node(n_threads):
    """``hist_build_segments`` cuts a level's (node, feature) pairs into equal
    runs of rows x features, one a thread (a node may be shared by two threads):
    every histogram and every parent-minus-smaller-child subtraction has the
    bits of ``hist_build`` / ``hist_subtract`` node by node, whatever the
    threads; the cuts fall on whole passes of four features and are even to
    within four features of one node's rows."""
    from treelab._engine.binning import with_column_codes
    from treelab._engine.histogram import (hist_build, hist_build_segments, hist_subtract,
                                           segment_cuts)
    rng = np.random.default_rng(11)
    n, d = 3000, 7
    X = rng.normal(size=(n, d)).round(1)
    X[rng.random(X.shape) < 0.03] = np.nan
    data = with_column_codes(bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True))
    B = data.n_bins
    P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P).ext
    sst = rng.normal(size=(n, 3))
    sst[:, 2] = 1.0
    w = np.ones(n)
    y0 = np.zeros(0, np.int64)
    order = rng.permutation(n).astype(np.int64)
    bounds = np.array([0, 1700, 1900, 2600, 2610, n])     # unequal nodes
    starts, ends = bounds[:-1].copy(), bounds[1:].copy()
    m = starts.shape[0]
    slots = np.arange(m, dtype=np.int64)
    # parents in slots m.., three of the nodes subtracted from one each
    parents = rng.normal(size=(m, d, B, 3))
    pcnt = rng.integers(1000, 2000, size=(m, d, B))
    parents[..., 2] = pcnt           # (unit weights: the counts are statistic 2)
    subs_of = np.array([m, -1, m + 2, -1, m + 4], np.int64)
    for e in (None, ext):
        ee = np.zeros(0, np.int64) if e is None else e
        hist = np.full((2 * m, d, B, 3), 5.0)
        cnt = np.full((2 * m, d, B), 5, np.int64)
        hist[m:] = parents
        cnt[m:] = pcnt
        ref_h, ref_c = hist.copy(), cnt.copy()
        for q in range(m):
            hist_build(data.Xb, order, starts[q], ends[q], y0, sst, w, TASK_DENSE, ref_h[q],
                       ref_c[q], 1, 2, e, None, data.Xt)
            if subs_of[q] >= 0:
                hist_subtract(ref_h[subs_of[q]], ref_c[subs_of[q]], ref_h[q], ref_c[q], e, 2)
        hist_build_segments(data.Xb, order, starts, ends, slots, m, y0, sst, w, TASK_DENSE,
                            hist, cnt, n_threads, 2, ee, data.Xt, subs_of)
        np.testing.assert_array_equal(hist, ref_h)
        np.testing.assert_array_equal(cnt, ref_c)
    from treelab._engine.histogram import HIST_GROUP
    for d_cut in (d, 20):
        cuts = segment_cuts(starts, ends, m, d_cut, n_threads)
        assert cuts[0] == 0 and cuts[-1] == m * d_cut and np.all(np.diff(cuts) >= 0)
        assert np.all((cuts % d_cut) % HIST_GROUP == 0)        # whole passes each side
        rows_of_unit = np.repeat(ends - starts, d_cut)
        loads = [rows_of_unit[cuts[k]:cuts[k + 1]].sum() for k in range(n_threads)]
        assert abs(max(loads) - rows_of_unit.sum() / n_threads) <= \
            HIST_GROUP * (ends - starts).max()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("cnt_col", [2, 0, -3])
def test_rows_subtracted_without_their_histogram(cnt_col, sparse):
    """``histogram.subtract_rows``: a parent's histogram minus a child's rows,
    without building the child's histogram, has the bits of building it then
    subtracting it (``hist_build`` + ``hist_subtract``: bins the child empties
    set to 0, the rest untouched) -- with the counts in statistic 2 (boosting's
    ``[H, G, 1]``), 0 (regression's ``[1, y, y^2]``) and 0 and 2 (squared
    error's ``[1, g, 1]``), missing codes and extents, from the dense codes and
    from the sparse rows (default bins summed directly, as the dense build) --
    and leaves its scratch all zeros.  ``rows_subtraction_pays`` allows it only
    where the child's histogram would be built densely from three statistics
    whose counts are one of them.  Such a histogram, built from the sparse rows
    (``_hist_add_sparse_direct``), has the dense loop's bits."""
    from treelab._engine.histogram import (
        COUNT_NONE, TASK_CLASSIFICATION, hist_build, hist_subtract, no_sparse,
        rows_subtraction_pays, subtract_rows)
    rng = np.random.default_rng(11)
    n, d = 900, 40
    X = rng.normal(size=(n, d)).round(1)
    X[:, 1] = rng.integers(0, 4, n)                   # few bins: wide extents unused
    if sparse:
        X[rng.random(X.shape) < 0.8] = 0.0            # MNIST-like: mostly one code
    X[rng.random(X.shape) < 0.03] = np.nan
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    sp = (data.sp_ptr, data.sp_bin, data.sp_dflt)
    assert (sp[2].shape[0] > 0) == sparse
    B = data.n_bins
    P = make_params(TASK_DENSE, 3, 1, 2, 1, 0.0, 0.0, 1, False, 0)
    ext = new_pool(data, P).ext
    assert ext.shape[0] == d
    sst = rng.normal(size=(n, 3))
    cc = 0 if cnt_col == -3 else cnt_col
    sst[:, cc] = 1.0
    if cnt_col == -3:
        sst[:, 2] = 1.0
    w = np.ones(n)
    none = np.zeros(0, np.int64)
    zero = np.zeros((d, B, 3))
    n_emptied = 0
    for trial in range(6):
        samples = rng.permutation(n).astype(np.int64)
        m = int(rng.integers(1, 60))
        start = int(rng.integers(0, n - m))
        parent = np.full((d, B, 3), 9.0)              # (outside the extents: untouched)
        pcnt = np.zeros((d, B), np.int64)
        hist_build(data.Xb, samples, 0, n, none, sst, w, TASK_DENSE, parent, pcnt, 1, cnt_col,
                   ext, sp)
        want = parent.copy()
        child = np.full((d, B, 3), 7.0)
        ccnt = np.zeros((d, B), np.int64)
        # (the child's histogram as the builder makes it: densely, at this size)
        hist_build(data.Xb, samples, start, start + m, none, sst, w, TASK_DENSE, child, ccnt, 1,
                   cnt_col, ext, sp)
        if sparse:
            # (from the sparse rows, ``_hist_add_sparse_direct``: the dense loop's bits)
            dense = np.full((d, B, 3), 7.0)
            hist_build(data.Xb, samples, start, start + m, none, sst, w, TASK_DENSE, dense,
                       ccnt, 1, cnt_col, ext)
            np.testing.assert_array_equal(child, dense)
        hist_subtract(want, pcnt, child, ccnt, ext, cnt_col)
        got = parent.copy()
        assert rows_subtraction_pays(data.Xb, sp, m, TASK_DENSE, got, cnt_col, ext, zero)
        subtract_rows(data.Xb, sp, samples, start, start + m, none, sst, w, TASK_DENSE, got, zero,
                      cc)
        np.testing.assert_array_equal(got, want)
        assert not zero.any()
        # the bins the child emptied are exactly 0
        emptied = (want[..., cc] == 0) & (parent[..., cc] > 0)
        assert (got[emptied] == 0.0).all()
        n_emptied += int(emptied.sum())
        if sparse:
            # from the dense codes: the same bits again
            got2 = parent.copy()
            subtract_rows(data.Xb, no_sparse(), samples, start, start + m, none, sst, w,
                          TASK_DENSE, got2, zero, cc)
            np.testing.assert_array_equal(got2, want)
            assert not zero.any()
    assert n_emptied > 0
    assert not rows_subtraction_pays(data.Xb, sp, 10, TASK_DENSE, zero, cnt_col, ext,
                                     np.zeros((0, 1, 1)))                  # no scratch
    assert not rows_subtraction_pays(data.Xb, sp, 10, TASK_DENSE, zero, COUNT_NONE, ext, zero)
    assert not rows_subtraction_pays(data.Xb, sp, 10, TASK_CLASSIFICATION, zero, cnt_col, ext,
                                     zero)
    assert not rows_subtraction_pays(data.Xb, sp, 10, TASK_DENSE, zero[..., :2].copy(),
                                     cnt_col, ext, zero)
    if sparse:                 # a node the builder would fill from the sparse rows
        assert not rows_subtraction_pays(data.Xb, sp, n, TASK_DENSE, zero, cnt_col, ext, zero)


@pytest.mark.parametrize("policy", ["depthwise", "lossguide", "levelwise"])
@pytest.mark.parametrize("unit_hessian", [False, True])
def test_boosted_trees_equal_with_and_without_the_subtraction_scratch(policy, unit_hessian):
    """Boosted trees (Newton statistics ``[h, g, 1]``, or ``[1, g, 1]``) grown on a
    pool with the scratch of ``subtract_rows`` (``pool_for`` gives one: the small
    children that will not split are subtracted from their parents without their
    own histogram) equal the trees grown on a pool without it, bit for bit; the
    scratch is left all zeros."""
    from treelab._engine.build import pool_for
    from treelab.split_criteria.gradient import NewtonCriterion
    rng = np.random.default_rng(4)
    n, d = 2500, 6
    X = rng.normal(size=(n, d)).round(2)
    X[rng.random(X.shape) < 0.05] = np.nan
    D = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    crit = NewtonCriterion()
    P = make_params(TASK_DENSE, 3, 6, 2, 1, crit.min_child_weight, 0.0, d, False,
                    crit.merit_code, crit.builtin_code, max_leaves=31)
    pool = pool_for(D, P, policy)
    assert pool.zero.shape == pool.hist.shape[1:] and not pool.zero.any()
    bare = pool_for(D, P, policy)._replace(zero=np.zeros((0, 1, 1)))
    used = 0
    for k in range(3):
        g = np.nan_to_num(X[:, k]) + rng.normal(size=n)
        h = np.ones(n) if unit_hessian else rng.uniform(0.1, 1.0, n)
        st = np.column_stack([h, g, np.ones(n)])
        trees = [trim(build_tree(D, np.zeros(0, np.int64), st, np.ones(n), P, crit.impurity,
                                 crit.merit, cp=crit.params, grow_policy=policy, pool=p))
                 for p in (pool, bare)]
        for name in ("feature", "threshold", "n_samples", "value", "impurity"):
            np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))
        # splits whose smaller child (under the small-node size: it will not split)
        # was subtracted from a parent whose larger child may split
        t = trees[0]
        for node in np.flatnonzero(t.feature >= 0):
            a, b = t.n_samples[t.first_child[node]], t.n_samples[t.first_child[node] + 1]
            used += int(min(a, b) < 128 <= max(a, b) and t.depth[node] + 1 < 6)
        assert not pool.zero.any()
    assert used > 0
