"""The column-major code builder (treelab/_engine/column_builder.py) against the
histogram builder it replaces in the cascade: the same BuildParams and seed must
give the same tree, node for node, while it does only the drawn features' work."""
import numpy as np
import pytest

from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.column_builder import build_tree_codes
from treelab._engine.merit import TASK_CLASSIFICATION, TASK_DENSE
from treelab._engine.splitter import SPLIT_BEST, SPLIT_RANDOM
from treelab.ensembles import _cascade_fast as fast
from treelab.split_criteria import get_criterion


def _codes(n, d, n_codes, seed, missing):
    rng = np.random.RandomState(seed)
    Xb = rng.randint(0, n_codes, size=(n, d)).astype(np.uint8)
    Xb[:, 0] = 0                                   # a constant feature
    if missing:
        Xb[rng.rand(n, d) < 0.1] = fast.MISSING
    return Xb


def _both(Xb, n_value_bins, yc, sstats, w, rows, bp, crit):
    cd = fast.binned_data(Xb, n_value_bins, bool((Xb == fast.MISSING).any()))
    D = cd.D._replace(Xb=np.ascontiguousarray(Xb))        # the builder reads row-major codes
    cp = np.zeros(1) if crit.params is None else crit.params
    t1 = build_tree(D, yc, sstats, w, bp, crit.impurity, crit.merit, cp=cp, rows=rows)
    t2 = build_tree_codes(cd.D, cd.XT, yc, sstats, w, bp, crit.impurity, crit.merit, cp=cp,
                          rows=rows)
    return t1, t2


def _same(t1, t2):
    n = int(t1.sizes[0])
    assert int(t2.sizes[0]) == n and n > 3
    for name in ("feature", "threshold", "first_child", "missing_child", "n_samples",
                 "value", "impurity", "depth"):
        a = getattr(t1, name)[:n]
        b = getattr(t2, name)[:n]
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("mode,max_features,criterion,missing,msl,boot", [
    (SPLIT_BEST, 5, "gini", False, 1, False),        # random forest: sqrt(d) features
    (SPLIT_BEST, 5, "entropy", True, 3, True),       # missing codes, bootstrap weights
    (SPLIT_BEST, 30, "gini", True, 1, False),        # every feature
    (SPLIT_RANDOM, 1, "gini", False, 1, False),      # completely-random trees
    (SPLIT_RANDOM, 1, "gini", True, 2, True),
    (SPLIT_RANDOM, 5, "entropy", True, 1, False),    # extra trees: best of 5 random cuts
])
def test_classification_trees_equal_the_histogram_builder(mode, max_features, criterion,
                                                          missing, msl, boot):
    n, d, k = 700, 30, 3
    Xb = _codes(n, d, 40, 0, missing)
    rng = np.random.RandomState(1)
    y = ((Xb[:, 1] % 7) + (Xb[:, 2] % 5) + rng.randint(0, 4, n)) % k
    rows = np.sort(rng.choice(n, 500, replace=False)).astype(np.int64)
    w = np.zeros(n)
    w[rows] = rng.randint(1, 4, rows.shape[0]) if boot else 1.0
    crit = get_criterion(criterion, "classification")
    bp = make_params(TASK_CLASSIFICATION, k, max_depth=np.iinfo(np.int64).max,
                     min_samples_split=2, min_samples_leaf=msl, min_weight_leaf=0.0,
                     min_impurity_decrease=0.0, max_features=max_features, multiway=0,
                     merit_code=crit.merit_code, builtin=crit.builtin_code, seed=123,
                     split_mode=mode)
    t1, t2 = _both(Xb, np.full(d, 40), y.astype(np.int64), np.zeros((0, k)), w, rows, bp, crit)
    _same(t1, t2)


@pytest.mark.parametrize("d,max_features,msl,missing,k", [
    (30, 5, 4, False, 3),   # node blocks; draws that leave a child under min_samples_leaf
    (30, 30, 1, True, 3),   # node blocks, every feature (two-row nodes: first cut wins)
    (24, 4, 1, True, 3),    # whole words of codes: the class takes a word of its own
    (24, 24, 2, False, 3),
    (30, 5, 1, False, 7),   # more than four classes: int32 lanes (fewer: packed counts)
    (24, 24, 1, False, 6),
    (20, 4, 1, False, 2),   # rows of three words (the benchmark's 20 features)
    (20, 4, 2, True, 4),
    (12, 3, 1, False, 5),   # two words
    (5, 2, 1, True, 3),     # one word
    (5, 5, 1, False, 2),
    (40, 6, 1, False, 3),   # six words: the generic row move
    (80, 9, 1, True, 3),    # wider than BLOCK_MAX_FEATURES: one column at a time
    (80, 9, 3, False, 3),
])
@pytest.mark.parametrize("count", [True, False])
def test_extra_trees_equal_the_histogram_builder_with_and_without_node_blocks(d, max_features,
                                                                           msl, missing, k,
                                                                           count):
    from treelab._engine.column_builder import BLOCK_MAX_FEATURES
    assert (d <= BLOCK_MAX_FEATURES) == (d != 80)
    n = 600
    Xb = _codes(n, d, 30, 4, missing)
    rng = np.random.RandomState(5)
    y = ((Xb[:, 1] % 5) + (Xb[:, 2] % 3) + rng.randint(0, 3, n)) % k
    crit = get_criterion("gini", "classification")
    bp = make_params(TASK_CLASSIFICATION, k, max_depth=np.iinfo(np.int64).max,
                     min_samples_split=2, min_samples_leaf=msl, min_weight_leaf=0.0,
                     min_impurity_decrease=0.0, max_features=max_features, multiway=0,
                     merit_code=crit.merit_code, builtin=crit.builtin_code, seed=11,
                     split_mode=SPLIT_RANDOM, count_constant=count)
    t1, t2 = _both(Xb, np.full(d, 30), y.astype(np.int64), np.zeros((0, k)), np.ones(n),
                   np.arange(n, dtype=np.int64), bp, crit)
    _same(t1, t2)


def test_extra_trees_on_a_node_of_more_than_65535_rows():
    # a cut's class counts are packed 16 bits a class and taken out every
    # 65,535 rows: a root of 140,000 rows (one class holding most of them)
    n, d, k = 140_000, 5, 3
    Xb = _codes(n, d, 30, 8, False)
    rng = np.random.RandomState(9)
    y = np.where(rng.rand(n) < 0.9, 0, 1 + (Xb[:, 1] % 2)).astype(np.int64)
    crit = get_criterion("gini", "classification")
    bp = make_params(TASK_CLASSIFICATION, k, max_depth=3, min_samples_split=2,
                     min_samples_leaf=1, min_weight_leaf=0.0, min_impurity_decrease=0.0,
                     max_features=2, multiway=0, merit_code=crit.merit_code,
                     builtin=crit.builtin_code, seed=3, split_mode=SPLIT_RANDOM)
    t1, t2 = _both(Xb, np.full(d, 30), y, np.zeros((0, k)), np.ones(n),
                   np.arange(n, dtype=np.int64), bp, crit)
    _same(t1, t2)
    assert t2.value[0, 0] > 65535 and t2.value[1].sum() + t2.value[2].sum() == n


@pytest.mark.parametrize("mode,max_features,weighted,missing", [
    (SPLIT_BEST, 30, False, True), (SPLIT_RANDOM, 1, False, True),
    (SPLIT_RANDOM, 30, False, True),
    (SPLIT_RANDOM, 30, False, False),  # node blocks, every cut summed as a lane
    (SPLIT_RANDOM, 30, True, False),   # the same with weights other than 1 (bootstrap)
])
def test_regression_trees_equal_the_histogram_builder_on_integer_targets(mode, max_features,
                                                                          weighted, missing):
    # integer targets: every sum is exact, so the two builders' sums agree bit for bit
    n, d = 600, 30
    Xb = _codes(n, d, 20, 2, missing)
    yf = (Xb[:, 1].astype(float) % 9) + (Xb[:, 3] % 4)
    wt = np.random.RandomState(3).randint(1, 4, n).astype(float) if weighted else np.ones(n)
    sstats = np.ascontiguousarray(np.stack([wt, wt * yf, wt * yf * yf], axis=1))
    crit = get_criterion("squared_error", "regression")
    bp = make_params(TASK_DENSE, 3, max_depth=8, min_samples_split=2, min_samples_leaf=2,
                     min_weight_leaf=0.0, min_impurity_decrease=0.0, max_features=max_features,
                     multiway=0, merit_code=crit.merit_code, builtin=crit.builtin_code, seed=7,
                     split_mode=mode)
    t1, t2 = _both(Xb, np.full(d, 20), np.zeros(0, np.int64), sstats, wt,
                   np.arange(n, dtype=np.int64), bp, crit)
    _same(t1, t2)


def test_bad_input():
    cd = fast.binned_data(np.zeros((10, 3), np.uint8), np.full(3, 2), False)
    crit = get_criterion("gini", "classification")
    bp = make_params(TASK_CLASSIFICATION, 2, 5, 2, 1, 0.0, 0.0, 3, 0, crit.merit_code)
    args = (np.zeros(10, np.int64), np.zeros((0, 2)), np.ones(10))
    with pytest.raises(ValueError, match="numeric features only"):
        build_tree_codes(cd.D, np.zeros((4, 10), np.uint8), *args, bp, crit.impurity,
                         crit.merit)
    gr = get_criterion("gain_ratio", "classification")
    with pytest.raises(ValueError, match="gain ratio"):
        build_tree_codes(cd.D, cd.XT, *args, bp._replace(merit_code=gr.merit_code),
                         gr.impurity, gr.merit)


@pytest.mark.parametrize("mode,max_features,missing", [
    (SPLIT_BEST, 6, False), (SPLIT_BEST, 6, True), (SPLIT_RANDOM, 1, False),
    (SPLIT_RANDOM, 1, True), (SPLIT_RANDOM, 6, True),
])
@pytest.mark.parametrize("count", [True, False])
def test_features_constant_at_an_ancestor_give_the_same_tree(mode, max_features, missing, count):
    # many features with two or three codes become constant in subtrees, some are
    # constant everywhere, one is all missing: the column builder skips the scan
    # of a feature constant at an ancestor but draws it as the builder does
    n, d, k = 800, 40, 2
    rng = np.random.RandomState(3)
    Xb = rng.randint(0, 2, size=(n, d)).astype(np.uint8)
    Xb[:, 10:20] = rng.randint(0, 3, size=(n, 10))
    Xb[:, 20:28] = 5                                   # constant everywhere
    Xb[:, 30:] = Xb[:, :10] * Xb[:, 10:20]             # equal to zero in many subtrees
    if missing:
        Xb[rng.rand(n, d) < 0.05] = fast.MISSING
        Xb[:, 28] = fast.MISSING                        # all missing
    y = (Xb[:, 0] ^ Xb[:, 1] ^ (Xb[:, 12] > 1) ^ (rng.rand(n) < 0.1)).astype(np.int64) % k
    rows = np.arange(n, dtype=np.int64)
    crit = get_criterion("gini", "classification")
    bp = make_params(TASK_CLASSIFICATION, k, max_depth=np.iinfo(np.int64).max,
                     min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                     min_impurity_decrease=0.0, max_features=max_features, multiway=0,
                     merit_code=crit.merit_code, builtin=crit.builtin_code, seed=7,
                     split_mode=mode, count_constant=count)
    t1, t2 = _both(Xb, np.full(d, 6), y, np.zeros((0, k)), np.ones(n), rows, bp, crit)
    _same(t1, t2)
    assert int(t1.depth[:int(t1.sizes[0])].max()) >= 6
