"""Unit tests of the engine kernels, called directly on NumPy arrays.

* binning: ``quantile_bin_edges`` / ``bin_matrix`` (the threshold <-> bin
  equivalence that lets one traversal serve both splitters, missing values,
  few distinct values, nominal codes, degenerate columns);
* tree storage: a tree built by hand with ``new_tree`` / ``ensure_capacity`` /
  ``add_children`` / ``add_cat_map`` (numeric root, nominal multiway child with
  a category unseen at the node) read back by ``apply``, ``apply_serial``,
  ``predict_value`` and ``decision_path``;
* ``extract_subtree`` (pruning): contiguous children, breadth-first ids,
  predictions of the unpruned part kept; ``node_depths_ok``; ``trim``.
"""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treelab import DecisionTreeClassifier, DecisionTreeRegressor
from treelab._engine import tree as T
from treelab._engine.binning import MAX_BINS, bin_matrix, quantile_bin_edges

MISSING = 255


def _bins(X, is_nominal, max_bins):
    X = np.ascontiguousarray(X, dtype=np.float64)
    is_nominal = np.asarray(is_nominal, dtype=np.bool_)
    edges, offsets = quantile_bin_edges(X, is_nominal, max_bins)
    Xb = bin_matrix(X, edges, offsets, is_nominal, MISSING)
    return edges, offsets, Xb


def _check_threshold_equivalence(X, edges, offsets, Xb, is_nominal):
    """x <= edges[b]  <=>  bin(x) <= b, for every numeric value and every edge."""
    for f in range(X.shape[1]):
        if is_nominal[f]:
            continue
        e = edges[offsets[f]:offsets[f + 1]]
        assert np.all(np.diff(e) > 0), "edges must be strictly increasing"
        col, b = X[:, f], Xb[:, f].astype(np.int64)
        nan = np.isnan(col)
        assert np.all(b[nan] == MISSING)
        x, bx = col[~nan], b[~nan]
        assert np.all(bx <= len(e))
        for k, ek in enumerate(e):
            np.testing.assert_array_equal(x <= ek, bx <= k)


# ----------------------------------------------------------------- binning
@pytest.mark.parametrize("max_bins", [2, 3, 16, MAX_BINS])
def test_bins_match_thresholds_random(max_bins):
    rng = np.random.RandomState(max_bins)
    n = 600
    X = np.column_stack([
        rng.randn(n),                                 # continuous: quantile edges
        rng.randint(0, 6, n).astype(float),           # 6 distinct values
        np.round(rng.exponential(size=n), 1),         # skewed, many ties
    ])
    X[rng.rand(n) < 0.15, 0] = np.nan
    X[rng.rand(n) < 0.3, 2] = np.nan
    nominal = np.zeros(3, bool)
    edges, offsets, Xb = _bins(X, nominal, max_bins)
    assert offsets[0] == 0 and offsets[-1] == len(edges)
    assert np.all(np.diff(offsets) <= max_bins - 1)
    _check_threshold_equivalence(X, edges, offsets, Xb, nominal)


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.one_of(finite, st.just(np.nan), st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2**-52])),
                       min_size=1, max_size=60),
       max_bins=st.integers(2, 12))
def test_bins_match_thresholds_property(values, max_bins):
    X = np.array(values, dtype=np.float64)[:, None]
    edges, offsets, Xb = _bins(X, [False], max_bins)
    _check_threshold_equivalence(X, edges, offsets, Xb, [False])
    distinct = np.unique(X[~np.isnan(X)])
    assert len(edges) <= max(len(distinct) - 1, 0)
    if len(distinct) <= max_bins:
        # one bin per distinct value
        assert len(edges) == max(len(distinct) - 1, 0)
        b = Xb[~np.isnan(X[:, 0]), 0]
        assert len(np.unique(b)) == len(distinct)


def _codes_by_search(X, edges, offsets, nominal, missing):
    out = np.empty(X.shape, np.int64)
    for f in range(X.shape[1]):
        col = X[:, f]
        if nominal[f]:
            out[:, f] = np.nan_to_num(col, nan=0).astype(np.int64)
        else:
            out[:, f] = np.searchsorted(edges[offsets[f]:offsets[f + 1]], col, side="left")
        out[np.isnan(col), f] = missing
    return out


def test_bucket_table_codes_equal_the_binary_search():
    # bin_matrix finds a value's code through a bucket table and a short scan:
    # the count of edges below the value, as a binary search (np.searchsorted,
    # side="left") gives it, for values on, between and beyond the edges, +-inf,
    # and edge sets that are dense in one place, span the float range, span
    # one ulp, or hold one edge
    from treelab._engine.binning import _bin_matrix_parallel, _bin_matrix_serial
    rng = np.random.RandomState(0)
    feats = [
        np.unique(np.concatenate([rng.randn(200) * 1e-3, rng.randn(54) * 100])),
        np.unique(rng.randn(254)),
        np.array([-1e308, -1.0, 0.0, 1e-300, 1e308]),
        np.array([1.0, 1.0 + 2 ** -52]),
        np.array([5e-324, 1e-323]),
        np.array([3.5]),
        np.array([]),
    ]
    offsets = np.concatenate([[0], np.cumsum([len(e) for e in feats])]).astype(np.int64)
    edges = np.concatenate(feats).astype(np.float64)
    nominal = np.zeros(len(feats) + 1, bool)
    nominal[-1] = True
    offsets = np.append(offsets, offsets[-1])
    n = 3000
    cols = []
    for e in feats:
        pool = np.concatenate([e, np.nextafter(e, np.inf), np.nextafter(e, -np.inf),
                               [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308, -1e308]])
        x = np.where(rng.rand(n) < 0.5, rng.choice(pool, n), rng.randn(n) * 10.0 ** rng.randint(
            -5, 6, n))
        cols.append(x)
    cols.append(rng.randint(0, 7, n).astype(float))            # a nominal column
    X = np.ascontiguousarray(np.column_stack(cols))
    ref = _codes_by_search(X, edges, offsets, nominal, MISSING)
    for kern in (_bin_matrix_serial, _bin_matrix_parallel):
        np.testing.assert_array_equal(kern(X, edges, offsets, nominal, MISSING), ref)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edges=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                      max_size=40, unique=True),
       values=st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64)),
                       min_size=1, max_size=40))
def test_bucket_table_codes_property(edges, values):
    e = np.unique(np.array(edges, np.float64) + 0.0)        # (-0.0 and 0.0: one edge)
    X = np.array(values, np.float64)[:, None]
    offsets = np.array([0, len(e)], np.int64)
    got = bin_matrix(X, e, offsets, np.zeros(1, bool), MISSING)
    np.testing.assert_array_equal(got, _codes_by_search(X, e, offsets, [False], MISSING))


def test_few_distinct_values_one_bin_each_with_midpoint_edges():
    X = np.array([[3.0], [0.0], [10.0], [1.5], [3.0], [np.nan], [0.0], [10.0]])
    edges, offsets, Xb = _bins(X, [False], 255)
    np.testing.assert_allclose(edges, [0.75, 2.25, 6.5])
    np.testing.assert_array_equal(Xb[:, 0], [2, 0, 3, 1, 2, MISSING, 0, 3])


def test_edges_of_adjacent_and_huge_values():
    # midpoint of neighbouring doubles rounds to the upper one: the edge must
    # fall back to the lower value to keep them apart
    a = 1.0
    b = np.nextafter(1.0, 2.0)
    X = np.array([[a], [b], [a]])
    edges, offsets, Xb = _bins(X, [False], 255)
    assert len(edges) == 1 and a <= edges[0] < b
    np.testing.assert_array_equal(Xb[:, 0], [0, 1, 0])
    # no overflow for values near the float range
    X = np.array([[-1e308], [1e308], [1.7e308]])
    edges, offsets, Xb = _bins(X, [False], 255)
    assert np.all(np.isfinite(edges)) and len(edges) == 2
    np.testing.assert_array_equal(Xb[:, 0], [0, 1, 2])


def test_quantile_edges_are_balanced():
    rng = np.random.RandomState(0)
    X = rng.rand(2000, 1)
    edges, offsets, Xb = _bins(X, [False], 10)
    assert len(edges) == 9
    counts = np.bincount(Xb[:, 0], minlength=10)
    assert counts.min() >= 150 and counts.max() <= 250


def test_nominal_columns_keep_codes_and_degenerate_columns():
    X = np.array([
        [0.0, 2.0, np.nan, 5.0],
        [1.0, np.nan, np.nan, 5.0],
        [2.0, 0.0, np.nan, 5.0],
        [0.5, 4.0, np.nan, np.nan],
    ])
    nominal = np.array([False, True, False, False])
    edges, offsets, Xb = _bins(X, nominal, 255)
    np.testing.assert_array_equal(np.diff(offsets), [3, 0, 0, 0])  # nominal, all-NaN, constant
    np.testing.assert_array_equal(Xb[:, 1], [2, MISSING, 0, 4])     # codes as they are
    np.testing.assert_array_equal(Xb[:, 2], [MISSING] * 4)
    np.testing.assert_array_equal(Xb[:, 3], [0, 0, 0, MISSING])
    np.testing.assert_array_equal(Xb[:, 0], [0, 2, 3, 1])


@pytest.mark.parametrize("max_bins", [0, 1, 256])
def test_quantile_bin_edges_rejects_bad_max_bins(max_bins):
    with pytest.raises(ValueError, match="max_bins"):
        quantile_bin_edges(np.zeros((3, 1)), np.zeros(1, bool), max_bins)


# ----------------------------------------------------------- hand-made tree
def _hand_tree():
    """root (node 0): x0 <= 0.5 -> node 1 (leaf), x0 > 0.5 or NaN -> node 2;
    node 2: nominal multiway on x1 with cat_map [0, -1, 2, 1]: code 0 -> node 3,
    code 1 (unseen at the node) and missing -> slot 1 = node 4, code 2 -> node 5,
    code 3 -> node 4."""
    t = T.new_tree(1, 2, 1)                      # tiny capacity: forces growth
    assert t.feature.shape[0] == 1 and t.cat_map.shape[0] == 1
    T.add_root(t)
    t = T.ensure_capacity(t, 2, 0)
    assert t.feature.shape[0] >= 3
    first = T.add_children(t, 0, 2)
    assert first == 1
    t.feature[0], t.kind[0], t.threshold[0], t.missing_child[0] = 0, T.NUMERIC, 0.5, 1
    cap_before = t.feature.shape[0]
    t = T.ensure_capacity(t, 3, 4)
    assert t.feature.shape[0] >= 6 and t.feature.shape[0] > cap_before
    assert t.cat_map.shape[0] >= 4
    # the earlier nodes survived the growth
    assert (t.feature[0], t.kind[0], t.threshold[0], t.first_child[0]) == (0, T.NUMERIC, 0.5, 1)
    first = T.add_children(t, 2, 3)
    assert first == 3
    T.add_cat_map(t, 2, np.array([0, -1, 2, 1], np.int64))
    t.feature[2], t.kind[2], t.missing_child[2] = 1, T.NOMINAL, 1
    for i in range(6):
        t.value[i] = [i, 10.0 * i]
    assert t.sizes[0] == 6 and t.sizes[1] == 4
    return t


ROWS = np.array([
    [0.2, 0.0],      # left leaf
    [0.5, 2.0],      # boundary: x <= threshold goes left
    [np.nan, 0.0],   # missing at the root -> slot 1 -> node 2 -> code 0
    [0.7, 0.0],      # code 0 -> node 3
    [0.7, 1.0],      # code 1 unseen at the node -> missing slot -> node 4
    [0.7, 2.0],      # code 2 -> node 5
    [0.7, 3.0],      # code 3 -> slot 1 -> node 4
    [0.7, 4.0],      # code outside cat_count -> missing slot
    [0.7, -1.0],     # negative code -> missing slot
    [0.7, np.nan],   # missing -> missing slot
    [0.7, 2.5],      # not an integer code -> missing slot
    [np.inf, 2.0],   # +inf is a number: right branch
])
LEAVES = np.array([1, 1, 3, 3, 4, 5, 4, 4, 4, 4, 4, 5])
PATHS = [[0, 1], [0, 1], [0, 2, 3], [0, 2, 3], [0, 2, 4], [0, 2, 5], [0, 2, 4],
         [0, 2, 4], [0, 2, 4], [0, 2, 4], [0, 2, 4], [0, 2, 5]]


def test_hand_built_tree_traversals():
    t = _hand_tree()
    assert T.node_depths_ok(t)
    np.testing.assert_array_equal(t.parent[:6], [-1, 0, 0, 2, 2, 2])
    np.testing.assert_array_equal(t.depth[:6], [0, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(T.apply(t, ROWS), LEAVES)
    np.testing.assert_array_equal(T.apply_serial(t, ROWS), LEAVES)
    np.testing.assert_array_equal(T.predict_value(t, ROWS), np.column_stack([LEAVES, 10.0 * LEAVES]))
    indptr, indices = T.decision_path(t, ROWS)
    assert indptr[0] == 0 and len(indptr) == len(ROWS) + 1
    for i, path in enumerate(PATHS):
        assert indices[indptr[i]:indptr[i + 1]].tolist() == path
    assert T.leaf_of(t, ROWS[4]) == 4
    assert T.n_leaves(t) == 4 and T.max_depth(t) == 2


def test_trim_keeps_exactly_the_nodes_in_use():
    t = _hand_tree()
    assert t.feature.shape[0] > 6            # spare capacity
    tt = T.trim(t)
    for name in T.TreeArrays._fields:
        a = getattr(tt, name)
        if name == "cat_map":
            assert a.shape[0] == 4
        elif name != "sizes":
            assert a.shape[0] == 6, name
    np.testing.assert_array_equal(T.apply(tt, ROWS), LEAVES)
    np.testing.assert_array_equal(T.predict_value(tt, ROWS), T.predict_value(t, ROWS))
    # a copy: writing to it leaves the original alone
    tt.threshold[0] = 99.0
    assert t.threshold[0] == 0.5


def test_ensure_capacity_is_a_no_op_with_room():
    t = T.new_tree(8, 1, 8)
    T.add_root(t)
    t2 = T.ensure_capacity(t, 3, 4)
    assert t2.feature.shape[0] == 8 and t2.cat_map.shape[0] == 8
    t2.threshold[0] = 7.0
    assert t.threshold[0] == 7.0             # the same arrays, not a copy


def test_node_depths_ok_detects_corruption():
    t = T.trim(_hand_tree())
    assert T.node_depths_ok(t)
    bad_parent = t._replace(parent=t.parent.copy())
    bad_parent.parent[4] = 1
    assert not T.node_depths_ok(bad_parent)
    bad_depth = t._replace(depth=t.depth.copy())
    bad_depth.depth[5] = 3
    assert not T.node_depths_ok(bad_depth)


# ----------------------------------------------------------- extract_subtree
def _fitted_tree(seed=0):
    rng = np.random.RandomState(seed)
    n = 200
    X = pd.DataFrame({
        "x": rng.rand(n).round(2),
        "c": pd.Categorical(rng.choice(list("abcde"), n), categories=list("abcdef")),
        "z": rng.randint(0, 4, n).astype(float),
    })
    X.loc[rng.rand(n) < 0.1, "x"] = np.nan
    X.loc[rng.rand(n) < 0.1, "c"] = np.nan
    y = (X["x"].fillna(0.5) > 0.4).astype(int) + (X["c"] == "b").astype(int) + rng.randint(0, 2, n)
    est = DecisionTreeClassifier(nominal_split="multiway", max_depth=6, random_state=0).fit(X, y)
    return est, est._encode(X)


def _check_layout(t, breadth_first=True):
    n = int(t.sizes[0])
    assert T.node_depths_ok(t)
    seen = [0]
    prev_first = 0
    for i in range(n):
        if t.kind[i] == T.LEAF:
            assert t.first_child[i] == -1 and t.n_children[i] == 0
            continue
        k = int(t.n_children[i])
        fc = int(t.first_child[i])
        assert k >= 2 and fc + k <= n
        if breadth_first:                       # children of earlier nodes come first
            assert fc > prev_first
            prev_first = fc
        assert np.all(t.parent[fc:fc + k] == i)
        seen.extend(range(fc, fc + k))
    assert sorted(seen) == list(range(n))       # every node is the child of exactly one node


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_extract_subtree_keeps_unpruned_predictions(seed):
    est, Xf = _fitted_tree(seed)
    old = est.tree_.arrays
    n_old = int(old.sizes[0])
    internal = np.flatnonzero(old.kind[:n_old] != T.LEAF)
    assert (old.kind[:n_old] == T.NOMINAL).any(), "the fixture should contain nominal nodes"
    rng = np.random.RandomState(seed)
    make_leaf = np.zeros(n_old, np.bool_)
    make_leaf[rng.choice(internal, size=max(1, len(internal) // 4), replace=False)] = True
    make_leaf[0] = False
    new, old_of_new = T.extract_subtree(old, make_leaf)
    _check_layout(new)
    n_new = int(new.sizes[0])
    assert old_of_new.shape == (n_new,)
    # reachable old nodes = those whose ancestors are all kept internal
    reach = np.zeros(n_old, bool)
    reach[0] = True
    for i in range(n_old):  # parents have smaller ids than children
        if reach[i] and old.kind[i] != T.LEAF and not make_leaf[i]:
            reach[old.first_child[i]:old.first_child[i] + old.n_children[i]] = True
    assert sorted(old_of_new.tolist()) == np.flatnonzero(reach).tolist()
    for i, o in enumerate(old_of_new):
        assert new.n_samples[i] == old.n_samples[o]
        np.testing.assert_array_equal(new.value[i], old.value[o])
        if make_leaf[o] or old.kind[o] == T.LEAF:
            assert new.kind[i] == T.LEAF
            continue
        assert (new.kind[i], new.feature[i], new.threshold[i], new.missing_child[i],
                new.n_children[i]) == (old.kind[o], old.feature[o], old.threshold[o],
                                       old.missing_child[o], old.n_children[o])
        # children in the same slot order
        for j in range(new.n_children[i]):
            assert old_of_new[new.first_child[i] + j] == old.first_child[o] + j
        if old.kind[o] == T.NOMINAL:
            cc = old.cat_count[o]
            assert new.cat_count[i] == cc
            np.testing.assert_array_equal(new.cat_map[new.cat_offset[i]:new.cat_offset[i] + cc],
                                          old.cat_map[old.cat_offset[o]:old.cat_offset[o] + cc])
    # each row ends in the first pruned-or-leaf node of its old path
    indptr, indices = T.decision_path(old, Xf)
    expected = np.empty(Xf.shape[0], np.int64)
    for r in range(Xf.shape[0]):
        for node in indices[indptr[r]:indptr[r + 1]]:
            if make_leaf[node] or old.kind[node] == T.LEAF:
                expected[r] = node
                break
    leaves = T.apply(new, Xf)
    np.testing.assert_array_equal(old_of_new[leaves], expected)
    np.testing.assert_array_equal(T.predict_value(new, Xf), old.value[expected])


def test_extract_subtree_without_pruning_and_at_the_root():
    est, Xf = _fitted_tree(3)
    old = est.tree_.arrays
    n_old = int(old.sizes[0])
    new, old_of_new = T.extract_subtree(old, np.zeros(n_old, np.bool_))
    _check_layout(new)
    assert int(new.sizes[0]) == n_old
    np.testing.assert_array_equal(old_of_new[T.apply(new, Xf)], T.apply(old, Xf))
    np.testing.assert_array_equal(T.predict_value(new, Xf), T.predict_value(old, Xf))
    root_only = np.zeros(n_old, np.bool_)
    root_only[0] = True
    new, old_of_new = T.extract_subtree(old, root_only)
    assert int(new.sizes[0]) == 1 and new.kind[0] == T.LEAF and old_of_new.tolist() == [0]
    np.testing.assert_array_equal(T.apply(new, Xf), np.zeros(Xf.shape[0]))


def test_extract_subtree_of_hand_tree_collapses_nominal_node():
    t = _hand_tree()
    make_leaf = np.zeros(int(t.sizes[0]), np.bool_)
    make_leaf[2] = True
    new, old_of_new = T.extract_subtree(t, make_leaf)
    assert int(new.sizes[0]) == 3 and int(new.sizes[1]) == 0
    np.testing.assert_array_equal(old_of_new, [0, 1, 2])
    np.testing.assert_array_equal(T.apply(new, ROWS), np.where(LEAVES == 1, 1, 2))


def test_fitted_trees_have_consistent_layout():
    est, _ = _fitted_tree(4)
    _check_layout(est.tree_.arrays, breadth_first=False)   # the builder grows depth-first
    rng = np.random.RandomState(0)
    X = rng.rand(100, 3)
    reg = DecisionTreeRegressor(splitter="hist", max_depth=5).fit(X, X[:, 0] + rng.rand(100))
    assert T.node_depths_ok(reg.tree_.arrays)
    assert math.isclose(reg.tree_.value[0, 0], reg.tree_.stats[0, 1] / reg.tree_.stats[0, 0])


# ----------------------------------------------------------- streaming model room
def test_has_room_and_make_room_grow_every_array_at_once():
    from treelab._engine.streaming import M_FREE, has_room, make_room, new_state
    t = T.new_tree(4, 1, 2)
    T.add_root(t)
    st = new_state(1, 3, 5, 2, 4)
    assert has_room(t, st, 3, 2)
    assert not has_room(t, st, 4, 2)        # only 3 free nodes
    assert not has_room(t, st, 3, 3)        # only 2 category entries
    st.slot_of[0] = 0
    st.stats[0, 1, 2, 1] = 7.0
    t2, st2 = make_room(t, st, 40, 10)
    assert has_room(t2, st2, 40, 10)
    assert t2.feature.shape[0] >= 41 and t2.cat_map.shape[0] >= 10
    assert st2.slot_of.shape[0] >= t2.feature.shape[0]
    assert st2.meta[M_FREE] >= 40
    assert st2.stats[0, 1, 2, 1] == 7.0 and st2.slot_of[0] == 0      # contents kept
    free = sorted(st2.free[:st2.meta[M_FREE]].tolist())
    assert 0 not in free and len(set(free)) == len(free)              # slot 0 stays taken
    t3, st3 = make_room(t2, st2, 40, 10)                                # no-op with room
    assert t3.feature is t2.feature and st3.stats is st2.stats


@pytest.mark.parametrize("learner", ["sgt", "ht"])
def test_streaming_models_grow_identically_in_any_chunking(learner):
    """Trees far beyond the initial capacity (64 nodes, 8 slots), nominal splits
    included: learning row by row (a kernel call per row, room made between
    calls) and in one chunk give the same model."""
    from treelab import HoeffdingTreeClassifier, SGTClassifier
    from _stream_reference import assert_same_model
    rng = np.random.default_rng(3)
    n = 6000
    X = pd.DataFrame({f"x{j}": rng.random(n) for j in range(4)})
    X["c"] = pd.Categorical(rng.integers(0, 6, n).astype(str))
    score = X["x0"] + X["x1"] + 0.3 * X["c"].cat.codes
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    common = dict(grace_period=20, delta=1e-2, n_range_samples=200, classes=[0, 1, 2],
                  nominal_features={"c": [str(v) for v in range(6)]})
    make = (lambda: SGTClassifier(gamma=0.01, **common)) if learner == "sgt" else (
        lambda: HoeffdingTreeClassifier(tau=0.2, **common))
    whole = make().partial_fit(X, y)
    assert whole.n_nodes > 64 and (whole._forest.kind == 2).any()    # grown, nominal split
    one = make()
    for i in range(n):
        one.learn_one(X.iloc[i].to_dict(), int(y[i]))
        if i % 97 == 0:
            one.predict_one(X.iloc[i].to_dict())    # forces a kernel call now
    assert_same_model(whole, one)


@pytest.mark.parametrize("kind", ["normal", "integers", "specials", "wide", "constant"])
def test_sorted_non_missing_equals_numpy_sort(kind):
    """binning.sorted_non_missing (the radix sort behind the bin edges): the values
    of ``np.sort`` without the NaN, and the number of distinct values
    (``-0.0 == 0.0``), on normal values, integers, the special values (signed
    zeros, infinities, subnormals, NaN), values spread over the whole exponent
    range and a constant column."""
    from treelab._engine.binning import sorted_non_missing
    rng = np.random.default_rng(11)
    for n in (0, 1, 2, 7, 300, 5000):
        if kind == "normal":
            x = rng.normal(size=n)
        elif kind == "integers":
            x = rng.integers(-5, 300, n).astype(np.float64)
        elif kind == "specials":
            x = rng.choice([-0.0, 0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1.5, -2.0], n)
        elif kind == "wide":
            x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)
        else:
            x = np.full(n, -3.25)
        vals, n_distinct = sorted_non_missing(x)
        ref = np.sort(x[~np.isnan(x)])
        assert vals.dtype == np.float64
        np.testing.assert_array_equal(vals, ref)
        assert n_distinct == np.unique(ref).shape[0]
