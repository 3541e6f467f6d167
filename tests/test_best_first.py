"""The best-first driver (``_engine/best_first.py``, ``grow_policy="lossguide"``):
without a leaf limit it grows the depth-first driver's tree (every node that can
split is split, whatever the order), node for node up to numbering; with one,
the same tree on one thread and on two (deferred partitions in chunks, the two
new leaves decided on two threads), every row reported in the leaf it reaches."""
import numpy as np
import pytest
from test_level_wise import _leaf_weights, _nodes, _problem, _tree

from treelab._engine.level_wise import MIN_CHUNK
from treelab._engine.tree import LEAF, apply_serial


def _check_leaves(t, X, leaves):
    """Every row's reported leaf is a leaf, and the one the row reaches."""
    assert np.all(leaves >= 0) and np.all(t.kind[leaves] == LEAF)
    np.testing.assert_array_equal(leaves, apply_serial(t, np.ascontiguousarray(X)))


@pytest.mark.parametrize("n,depth,nominal", [(400, 4, False), (3000, 6, True),
                                             (6 * MIN_CHUNK, 5, False)])
def test_best_first_without_a_leaf_limit_grows_the_depth_first_tree(n, depth, nominal):
    X, data, g, h = _problem(n + 1, n, nominal=nominal)
    a, la = _tree(data, g, h, "depthwise", 1, depth)
    assert a.sizes[0] > 15
    for nt in (1, 2):
        b, lb = _tree(data, g, h, "lossguide", nt, depth)
        assert _nodes(b) == _nodes(a)
        np.testing.assert_array_equal(_leaf_weights(b, X), _leaf_weights(a, X))
        _check_leaves(b, X, lb)


@pytest.mark.parametrize("max_features", [None, 3])
@pytest.mark.parametrize("nominal", [False, True])
def test_best_first_is_the_same_tree_whatever_the_threads(max_features, nominal):
    X, data, g, h = _problem(11, 6 * MIN_CHUNK, d=8, nominal=nominal)
    a, la = _tree(data, g, h, "lossguide", 1, 20, max_features=max_features, max_leaves=19)
    b, lb = _tree(data, g, h, "lossguide", 2, 20, max_features=max_features, max_leaves=19)
    assert np.sum(a.kind[:a.sizes[0]] == LEAF) == 19
    for f in a._fields:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    np.testing.assert_array_equal(la, lb)
    _check_leaves(a, X, la)
    if nominal:
        assert np.any(a.feature[:a.sizes[0]] == X.shape[1] - 1)


def test_a_two_leaf_tree_is_the_root_split_of_a_larger_one():
    X, data, g, h = _problem(5, 4000, d=6)
    small, _ = _tree(data, g, h, "lossguide", 2, 20, max_leaves=2)
    big, _ = _tree(data, g, h, "lossguide", 2, 20, max_leaves=12)
    # the first split is the root's in both; the 2-leaf tree stops there
    assert small.sizes[0] == 3
    assert small.feature[0] == big.feature[0] and small.threshold[0] == big.threshold[0]
    np.testing.assert_array_equal(small.value[1:3], big.value[1:3])
