"""The level-wise driver (``_engine/level_wise.py``) grows the depth-first
driver's tree, node for node up to numbering, on one thread and on several:
its chunked partition is the stable partition, its level histograms are the
per-node ones, and the boosting classifier that uses it predicts as with the
depth-first driver."""
import numpy as np
import pytest

from treelab import GradientBoostingClassifier, GradientBoostingRegressor
from treelab._engine import level_wise
from treelab._engine.binning import bin_data
from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.histogram import hist_build, hist_build_nodes
from treelab._engine.level_wise import MIN_CHUNK, level_wise_fits, max_slots, partition_chunks
from treelab._engine.merit import TASK_DENSE
from treelab._engine.tree import LEAF, predict_value_serial, trim
from treelab.split_criteria import NewtonCriterion, newton_stats

CRIT = NewtonCriterion(reg_lambda=1.0, min_child_weight=1.0)


def _tree(data, g, h, policy, n_threads, depth, crit=CRIT, max_features=None,
          max_leaves=np.iinfo(np.int64).max):
    n, d = data.X.shape
    p = make_params(TASK_DENSE, 3, depth, 2, 1, crit.min_child_weight, 0.0,
                    max_features or d, False, crit.merit_code, crit.builtin_code,
                    n_threads=n_threads, seed=5, max_leaves=max_leaves)
    leaves = np.full(n, -1, np.int64)
    t = build_tree(data, np.zeros(0, np.int64), newton_stats(g, h), np.ones(n), p, crit.impurity,
                   crit.merit, cp=crit.params, grow_policy=policy, leaf_of_row=leaves)
    return trim(t), leaves


def _nodes(t):
    """The tree's nodes as a sorted list (numbering-free): depth, feature, kind,
    threshold, missing side, size, statistics."""
    m = t.sizes[0]
    return sorted(zip(t.depth[:m].tolist(), t.feature[:m].tolist(), t.kind[:m].tolist(),
                      t.threshold[:m].tolist(), t.missing_child[:m].tolist(),
                      t.n_samples[:m].tolist(), map(tuple, t.value[:m].tolist())))


def _leaf_weights(t, X):
    w = CRIT.leaf_weight(t.value)
    return predict_value_serial(t._replace(value=np.ascontiguousarray(w.reshape(-1, 1))),
                                np.ascontiguousarray(X))[:, 0]


def _problem(seed, n, d=5, nominal=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    is_nom = np.zeros(d, bool)
    n_cats = np.zeros(d, np.int64)
    if nominal:
        X[:, d - 1] = rng.integers(0, 4, n)
        is_nom[d - 1] = True
        n_cats[d - 1] = 4
    X[:, :d - 1][rng.random((n, d - 1)) < 0.08] = np.nan
    g = rng.normal(size=n) + np.nan_to_num(X[:, 0]) + (X[:, d - 1] == 2)
    h = rng.uniform(0.5, 1.5, n)
    return X, bin_data(X, is_nom, n_cats, True), g, h


@pytest.mark.parametrize("n,depth,nominal", [(300, 4, False), (3000, 6, True),
                                             (3 * MIN_CHUNK, 3, False),
                                             (12 * MIN_CHUNK, 6, False)])
def test_level_wise_grows_the_depth_first_tree(n, depth, nominal):
    X, data, g, h = _problem(n, n, nominal=nominal)
    a, la = _tree(data, g, h, "depthwise", 1, depth)
    for nt in (1, 2):
        b, lb = _tree(data, g, h, "levelwise", nt, depth)
        assert _nodes(b) == _nodes(a)
        # breadth-first numbering: a node's children come after every shallower node
        m = b.sizes[0]
        assert np.all(np.diff(b.depth[:m]) >= 0)
        np.testing.assert_array_equal(_leaf_weights(b, X), _leaf_weights(a, X))
        # every row's reported leaf is the leaf it reaches
        assert np.all(lb >= 0) and np.all(b.kind[lb] == LEAF)
        np.testing.assert_array_equal(CRIT.leaf_weight(b.value)[lb],
                                      CRIT.leaf_weight(a.value)[la])
    if nominal:
        assert np.any(a.feature[:a.sizes[0]] == X.shape[1] - 1)


def test_level_wise_is_the_same_tree_whatever_the_threads_with_feature_draws():
    X, data, g, h = _problem(7, 6 * MIN_CHUNK, d=8)
    a, la = _tree(data, g, h, "levelwise", 1, 6, max_features=3)
    b, lb = _tree(data, g, h, "levelwise", 2, 6, max_features=3)
    for f in a._fields:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    np.testing.assert_array_equal(la, lb)


@pytest.mark.parametrize("columns", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_partition_chunks_is_the_stable_partition(n_threads, columns):
    """The chunked partition is the stable one, reading the row-major codes or
    the column codes (``BinnedData.Xt``, boosting's: the same partition)."""
    rng = np.random.default_rng(n_threads)
    n, d = 5 * MIN_CHUNK + 77, 3
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.1] = np.nan
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    samples = rng.permutation(n).astype(np.int64)
    cuts = [0, 10, 3 * MIN_CHUNK + 5, 3 * MIN_CHUNK + 900, n]    # nodes of 1 to 4 chunks
    tasks = np.zeros((len(cuts) - 1, 6), np.int64)
    expect = samples.copy()
    for q in range(len(cuts) - 1):
        s, e = cuts[q], cuts[q + 1]
        f, tb, ml = q % d, int(rng.integers(0, 200)), q % 2
        tasks[q, :5] = (s, e, f, tb, ml)
        codes = data.Xb[samples[s:e], f]
        left = np.where(codes == data.missing_bin, ml == 1, codes <= tb)
        expect[s:e] = np.concatenate([samples[s:e][left], samples[s:e][~left]])
        tasks[q, 5] = -1
    got = samples.copy()
    xt = np.ascontiguousarray(data.Xb.T) if columns else np.zeros((0, 0), np.uint8)
    partition_chunks(data.Xb, got, np.empty(n, np.int64), np.empty(n, np.int64),
                     data.missing_bin, tasks, tasks.shape[0], n_threads, xt)
    np.testing.assert_array_equal(got, expect)
    for q in range(len(cuts) - 1):
        s, e = cuts[q], cuts[q + 1]
        codes = data.Xb[samples[s:e], tasks[q, 2]]
        left = np.where(codes == data.missing_bin, tasks[q, 4] == 1, codes <= tasks[q, 3])
        assert tasks[q, 5] == left.sum()


@pytest.mark.parametrize("n_threads", [1, 2])
def test_hist_build_nodes_equals_node_by_node(n_threads):
    rng = np.random.default_rng(0)
    n, d = 40_000, 6
    X = rng.normal(size=(n, d))
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    samples = rng.permutation(n).astype(np.int64)
    sst = rng.normal(size=(n, 3))
    w = np.ones(n)
    starts = np.array([0, 5000, 5001, 30000])
    ends = np.array([5000, 5001, 30000, 40000])
    slots = np.array([3, 0, 2, 1])
    B = data.n_bins
    hist = np.full((4, d, B, 3), 9.0)       # garbage: each slot is zeroed when built
    cnt = np.full((4, d, B), 9, np.int64)
    hist_build_nodes(data.Xb, samples, starts, ends, slots, 4, np.zeros(0, np.int64), sst, w,
                     TASK_DENSE, hist, cnt, n_threads)
    for q in range(4):
        h1 = np.empty((d, B, 3))
        c1 = np.empty((d, B), np.int64)
        hist_build(data.Xb, samples, starts[q], ends[q], np.zeros(0, np.int64), sst, w,
                   TASK_DENSE, h1, c1)
        np.testing.assert_array_equal(hist[slots[q]], h1)
        np.testing.assert_array_equal(cnt[slots[q]], c1)


def test_histogram_memory_bound():
    assert max_slots(6, 10 ** 9) == 32 and max_slots(6, 3) == 8 and max_slots(1, 0) == 2
    assert level_wise_fits(6, 20, 256, 3)
    assert not level_wise_fits(12, 784, 256, 3)
    assert not level_wise_fits(50, 1, 2, 1)


def _record_drivers(monkeypatch):
    """The ``grow_policy`` of every tree the boosting estimators build, in a list."""
    from treelab.ensembles import gradient_boosting
    used = []
    real = gradient_boosting.build_tree

    def spy(*a, **k):
        used.append(k["grow_policy"])
        return real(*a, **k)
    monkeypatch.setattr(gradient_boosting, "build_tree", spy)
    return used


@pytest.mark.parametrize("Model", [GradientBoostingClassifier, GradientBoostingRegressor])
def test_boosting_predicts_as_with_the_depth_first_driver(Model, monkeypatch):
    from treelab.ensembles import gradient_boosting
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=3000) * 0.3
    if Model is GradientBoostingClassifier:
        y = (y > 1).astype(int)
    kw = dict(n_estimators=8, max_depth=5, subsample=0.8, colsample_bytree=0.8, random_state=0)
    used = _record_drivers(monkeypatch)
    lw = Model(n_jobs=2, **kw).fit(X, y)
    assert set(used) == {"levelwise"}
    lw1 = Model(n_jobs=1, **kw).fit(X, y)
    monkeypatch.setattr(gradient_boosting, "level_wise_fits", lambda *a: False)
    used.clear()
    df = Model(**kw).fit(X, y)
    assert set(used) == {"depthwise"}
    np.testing.assert_array_equal(lw.predict(X), df.predict(X))
    np.testing.assert_array_equal(lw1.predict(X), lw.predict(X))
    if Model is GradientBoostingClassifier:
        np.testing.assert_allclose(lw.predict_proba(X), df.predict_proba(X), rtol=0, atol=1e-15)


def test_multiclass_boosting_keeps_the_depth_first_driver(monkeypatch):
    used = _record_drivers(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    GradientBoostingClassifier(n_estimators=2, max_depth=3).fit(X, rng.integers(0, 3, 300))
    assert set(used) == {"depthwise"}
    assert level_wise.LEVEL_HIST_BUDGET >= 2 ** 20


@pytest.mark.parametrize("sizes", [(30_000, 2_000, 1_500, 1_000),      # one node dominates
                                   (9_000, 8_000, 7_000, 6_000, 500)])  # balanced: whole nodes
def test_level_tasks_on_threads_equal_the_serial_level(sizes):
    """A level's partitions, marked leaves and smaller-child histograms on two
    threads (whole nodes per thread, largest first), with one dominant node and
    with balanced ones, equal the one-thread level: same sample order, same
    left counts, same histograms, same leaves.  Node 1 splits into two leaves:
    its rows are marked (``leaf_of_row``), not moved; every other node's larger
    child's histogram is its parent's minus the smaller one's, made with the
    node's task: equal to the histogram built on the larger child's rows."""
    from treelab._engine.histogram import hist_build
    rng = np.random.default_rng(len(sizes))
    n, d = sum(sizes), 5
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.05] = np.nan
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    sst = rng.normal(size=(n, 3))
    w = np.ones(n)
    samples0 = rng.permutation(n).astype(np.int64)
    m = len(sizes)
    parts = np.zeros((m, 7), np.int64)
    b_start = np.zeros(m, np.int64)
    b_end = np.zeros(m, np.int64)
    b_slot = np.arange(m, dtype=np.int64)[::-1].copy()
    tasks = np.full((m, 5), -1, np.int64)
    parent0 = np.zeros((m, d, data.n_bins, 3))
    pcnt0 = np.zeros((m, d, data.n_bins), np.int64)
    s = 0
    for q, size in enumerate(sizes):
        f, tb, ml = q % d, int(rng.integers(40, 200)), q % 2
        codes = data.Xb[samples0[s:s + size], f]
        nl = int(np.where(codes == data.missing_bin, ml == 1, codes <= tb).sum())
        parts[q] = (s, s + size, f, tb, ml, nl, 100 + 2 * q if q == 1 else -1)
        if q == 1:
            tasks[q] = (q, q, q, -1, -1)          # two leaves: no histogram
        else:
            # the smaller child's histogram, then the parent's (slot m + q) minus it
            b_start[q], b_end[q] = (s, s + nl) if nl <= size - nl else (s + nl, s + size)
            tasks[q] = (q, q, q + 1, m + q, b_slot[q])
            hist_build(data.Xb, samples0, s, s + size, np.zeros(0, np.int64), sst, w,
                       TASK_DENSE, parent0[q], pcnt0[q])
        s += size
    from treelab._engine.binning import with_column_codes
    xt_cols = with_column_codes(data).Xt
    assert xt_cols.shape == (d, n)
    out = []
    # (the histograms from the codes column by column: the same bits)
    for nt, xt in ((1, np.zeros((0, 0), np.uint8)), (2, np.zeros((0, 0), np.uint8)),
                   (1, xt_cols), (2, xt_cols)):
        samples = samples0.copy()
        p = parts.copy()
        hist = np.full((2 * m, d, data.n_bins, 3), 7.0)
        cnt = np.full((2 * m, d, data.n_bins), 7, np.int64)
        hist[m:] = parent0
        cnt[m:] = pcnt0
        leaf_of_row = np.full(n, -1, np.int64)
        level_wise.level_tasks(
            data.Xb, (data.sp_ptr, data.sp_bin, data.sp_dflt), samples, np.empty(n, np.int64),
            np.empty(n, np.int64), data.missing_bin,
            p, m, b_start, b_end, b_slot, m, tasks.copy(), m, nt, np.zeros(0, np.int64), sst,
            w, TASK_DENSE, hist, cnt, -1, np.zeros(0, np.int64), leaf_of_row, xt,
            np.zeros((0, 1, 1)))
        np.testing.assert_array_equal(p[:, 5], parts[:, 5])
        out.append((samples, hist, cnt, leaf_of_row))
    for other in out[1:]:
        for a, b in zip(out[0], other):
            np.testing.assert_array_equal(a, b)
    samples, hist, cnt, leaf_of_row = out[0]
    for q in range(m):
        s0, e0 = parts[q, 0], parts[q, 1]
        codes = data.Xb[samples0[s0:e0], parts[q, 2]]
        left = np.where(codes == data.missing_bin, parts[q, 4] == 1, codes <= parts[q, 3])
        if q == 1:
            # marked, not moved: the leaf of each row, the samples where they were
            np.testing.assert_array_equal(samples[s0:e0], samples0[s0:e0])
            np.testing.assert_array_equal(leaf_of_row[samples0[s0:e0]],
                                          np.where(left, 102, 103))
            continue
        # the partition is the stable one
        np.testing.assert_array_equal(samples[s0:e0], np.concatenate(
            [samples0[s0:e0][left], samples0[s0:e0][~left]]))
        # the larger child's histogram (parent minus the smaller child)
        nl = parts[q, 5]
        lo, hi = (s0 + nl, e0) if b_start[q] == s0 else (s0, s0 + nl)
        want = np.zeros((d, data.n_bins, 3))
        want_cnt = np.zeros((d, data.n_bins), np.int64)
        hist_build(data.Xb, samples, lo, hi, np.zeros(0, np.int64), sst, w, TASK_DENSE, want,
                   want_cnt)
        np.testing.assert_array_equal(cnt[m + q], want_cnt)
        np.testing.assert_allclose(hist[m + q], want, atol=1e-9)
    others = np.concatenate([samples0[parts[q, 0]:parts[q, 1]] for q in range(m) if q != 1])
    assert (leaf_of_row[others] == -1).all()


def test_level_wise_driver_compiled_first_in_an_empty_cache(request):
    """The level-wise driver compiled before any other driver, in an empty numba
    cache (a new install whose first job is binary boosting on two threads),
    grows the depth-first tree, and so does the best-first driver.  The parallel
    regions once inlined the node kernels (``inline="always"``): compiled in this
    order, numba 0.68 built a level-wise driver whose two-thread trees stopped
    early (27 nodes instead of 117 here); the other order, the one every other
    test compiles in, built a right one.  The regions now call plain kernels
    (``level_wise._decide_level_node``...).
    The empty-cache process is started by ``conftest.py`` after collection (it
    overlaps the rest of the suite); the reference trees are grown here, with
    this process's (cached) drivers."""
    import first_compile_levelwise as fc
    started = getattr(request.config, "_treelab_first_compile", None)
    if started is None:                          # selected some other way: run it now
        started = request.config._treelab_first_compile = fc.start()
    levelwise_first = fc.result(started)
    depthwise = fc.grow("depthwise", 1)
    assert len(depthwise) == 117
    assert levelwise_first == depthwise
    assert fc.grow("lossguide", 2) == depthwise
