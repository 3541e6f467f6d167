"""Post-pruning: C4.5 pessimistic pruning, reduced-error pruning, cost complexity.

C4.5 numbers are computed by hand from C4.5 release 8's ``AddErrs``
(prune.c) and checked against the worked example of Quinlan's book
(C4.5: Programs for Machine Learning, 1993, ch. 4: the congressional voting
subtree with leaves of 6, 9 and 1 cases).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from treelab import (
    C45Classifier, DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier,
)
from treelab._engine import pruning
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC, add_children, new_tree

CF = 0.25
# C4.5 interpolates the normal deviate in its table: CF = 0.25 lies between
# Val = 0.20 (Dev 0.84) and Val = 0.40 (Dev 0.25):
#   0.84 + (0.25 - 0.84) * (0.25 - 0.20) / (0.40 - 0.20) = 0.84 - 0.1475 = 0.6925
COEFF = 0.6925 ** 2


@pytest.fixture(autouse=True, scope="module")
def _one_numba_thread():
    """Tiny inputs: run the prange kernels on one thread (thread wake-ups on a
    busy machine would otherwise dominate)."""
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


# ============================================================================ C4.5 AddErrs
def test_c45_coefficient_interpolates_the_normal_deviate_table():
    assert pruning.c45_coefficient(0.25) == pytest.approx(0.6925 ** 2, rel=1e-12)
    # values in the table are hit exactly
    assert pruning.c45_coefficient(0.10) == pytest.approx(1.28 ** 2, rel=1e-12)
    assert pruning.c45_coefficient(0.05) == pytest.approx(1.65 ** 2, rel=1e-12)
    assert pruning.c45_coefficient(0.40) == pytest.approx(0.25 ** 2, rel=1e-12)
    # CF = 0.5: between 0.40 (0.25) and 1.00 (0.00): 0.25 - 0.25 * 0.1 / 0.6
    assert pruning.c45_coefficient(0.5) == pytest.approx((0.25 - 0.25 * 0.1 / 0.6) ** 2, rel=1e-12)
    # CF = 0.01: table value 2.33;  CF = 0.003: between 0.001 (3.09) and 0.005 (2.58)
    assert pruning.c45_coefficient(0.01) == pytest.approx(2.33 ** 2, rel=1e-12)
    assert pruning.c45_coefficient(0.003) == pytest.approx(
        (3.09 + (2.58 - 3.09) * (0.003 - 0.001) / (0.005 - 0.001)) ** 2, rel=1e-12)
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError):
            pruning.c45_coefficient(bad)


def test_add_errs_no_error_branch():
    # e = 0: exact binomial upper limit, N * (1 - CF^(1/N))
    assert pruning.add_errs(6.0, 0.0, CF, COEFF) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)), rel=1e-12)
    assert pruning.add_errs(1.0, 0.0, CF, COEFF) == pytest.approx(0.75, rel=1e-12)
    assert pruning.add_errs(9.0, 0.0, CF, COEFF) == pytest.approx(9 * (1 - 0.25 ** (1 / 9)), rel=1e-12)
    # Quinlan's book: U25%(0, 6) = 0.206, U25%(0, 9) = 0.143, U25%(0, 1) = 0.750
    assert pruning.add_errs(6.0, 0.0, CF, COEFF) / 6 == pytest.approx(0.206, abs=5e-4)
    assert pruning.add_errs(9.0, 0.0, CF, COEFF) / 9 == pytest.approx(0.143, abs=5e-4)
    assert pruning.add_errs(0.0, 0.0, CF, COEFF) == 0.0


def test_add_errs_normal_approximation_branch():
    # AddErrs(16, 1): e + 0.5 = 1.5 < 16, so
    # Pr = (e + 0.5 + C/2 + sqrt(C ((e + 0.5)(1 - (e + 0.5)/N) + C/4))) / (N + C)
    C = 0.6925 ** 2                                    # 0.47955625
    inner = 1.5 * (1 - 1.5 / 16) + C / 4               # 1.359375 + 0.1198890625
    pr = (1.5 + C / 2 + math.sqrt(C * inner)) / (16 + C)
    expected = 16 * pr - 1                             # ~ 1.5069
    assert expected == pytest.approx(1.5069, abs=1e-4)
    assert pruning.add_errs(16.0, 1.0, CF, COEFF) == pytest.approx(expected, rel=1e-12)
    # the book's U25%(1, 16) = 0.157 (exact binomial; the normal approximation is close)
    assert (1 + expected) / 16 == pytest.approx(0.157, abs=2e-3)
    # AddErrs(100, 10)
    inner = 10.5 * (1 - 10.5 / 100) + C / 4
    pr = (10.5 + C / 2 + math.sqrt(C * inner)) / (100 + C)
    assert pruning.add_errs(100.0, 10.0, CF, COEFF) == pytest.approx(100 * pr - 10, rel=1e-12)
    # fractional (weighted) counts: AddErrs(12.5, 3.25)
    inner = 3.75 * (1 - 3.75 / 12.5) + C / 4
    pr = (3.75 + C / 2 + math.sqrt(C * inner)) / (12.5 + C)
    assert pruning.add_errs(12.5, 3.25, CF, COEFF) == pytest.approx(12.5 * pr - 3.25, rel=1e-12)


def test_add_errs_nearly_all_wrong_branch():
    # e + 0.5 >= N: 0.67 * (N - e)
    assert pruning.add_errs(6.0, 5.8, CF, COEFF) == pytest.approx(0.67 * 0.2, rel=1e-12)
    assert pruning.add_errs(4.0, 3.5, CF, COEFF) == pytest.approx(0.67 * 0.5, rel=1e-12)
    assert pruning.add_errs(2.0, 2.0, CF, COEFF) == pytest.approx(0.0, abs=1e-15)


def test_add_errs_interpolation_between_zero_and_one_error():
    # 0 < e < 1: Val0 + e * (AddErrs(N, 1) - Val0), Val0 = N (1 - CF^(1/N))
    N, e = 9.0, 0.4
    val0 = 9 * (1 - 0.25 ** (1 / 9))
    C = COEFF
    inner = 1.5 * (1 - 1.5 / 9) + C / 4
    one = 9 * (1.5 + C / 2 + math.sqrt(C * inner)) / (9 + C) - 1
    assert pruning.add_errs(N, e, CF, COEFF) == pytest.approx(val0 + e * (one - val0), rel=1e-12)


def test_add_errs_monotone_in_errors_at_fixed_n():
    """The upper limit E + AddErrs(N, E) grows with E below N - 0.5 (C4.5's
    switch to 0.67 (N - E) at E + 0.5 >= N is itself not monotone)."""
    N = 20.0
    es = np.linspace(0, N - 0.5, 79, endpoint=False)
    upper = [e + pruning.add_errs(N, e, CF, COEFF) for e in es]
    assert np.all(np.diff(upper) > -1e-9)


# ============================================================================ C4.5 on trees
def _ae(N, e):
    """AddErrs for e = 0 (exact) -- the only case the hand-built trees need besides the
    explicit normal-approximation numbers below."""
    assert e == 0
    return N * (1 - 0.25 ** (1 / N))


def _ae_normal(N, e):
    C = 0.6925 ** 2
    return N * (e + 0.5 + C / 2 + math.sqrt(C * ((e + 0.5) * (1 - (e + 0.5) / N) + C / 4))) \
        / (N + C) - e


def _voting_data(n_rep_educ_u):
    """Quinlan's book example, embedded in a larger tree.

    fee freeze = y: republican (100)
    fee freeze = n:
    |  budget = y: democrat (151)
    |  budget = u: democrat (1)
    |  budget = n:
    |  |  education = n: democrat (6)
    |  |  education = y: democrat (9)
    |  |  education = u: republican (n_rep_educ_u)
    """
    rows = [("y", "n", "n", "dem")] * 100 + [("y", "y", "n", "dem")] * 31 \
        + [("y", "u", "n", "dem")] * 20 + [("u", "y", "n", "dem")] \
        + [("n", "n", "n", "dem")] * 6 + [("n", "y", "n", "dem")] * 9 \
        + [("n", "u", "n", "rep")] * n_rep_educ_u
    for i in range(100):
        rows.append(("yun"[i % 3], "nyu"[(i // 3) % 3], "y", "rep"))
    df = pd.DataFrame(rows, columns=["budget", "educ", "fee", "party"])
    return df[["budget", "educ", "fee"]].astype("category"), df["party"].to_numpy()


def _leaf_counts(est):
    t = est.tree_
    return sorted(tuple(t.stats[i]) for i in range(t.node_count) if t.kind[i] == LEAF)


@pytest.mark.parametrize("make", [
    lambda **kw: DecisionTreeClassifier(criterion="entropy", nominal_split="multiway", **kw),
    lambda **kw: C45Classifier(min_samples_leaf=1, **kw),
], ids=["entropy-multiway", "C45Classifier"])
def test_pessimistic_pruning_collapses_quinlans_subtree(make):
    X, y = _voting_data(n_rep_educ_u=1)
    full = make(pruning=None).fit(X, y)
    # the unpruned tree is the book's: 6 leaves, the education subtree holds 6/0, 9/0, 1/0
    assert full.get_n_leaves() == 6
    assert _leaf_counts(full) == sorted([(0.0, 100.0), (151.0, 0.0), (1.0, 0.0), (6.0, 0.0),
                                         (9.0, 0.0), (0.0, 1.0)])

    # estimated errors, by hand
    educ_subtree = _ae(6, 0) + _ae(9, 0) + _ae(1, 0)          # 1.238 + 1.285 + 0.750
    educ_leaf = 1 + _ae_normal(16, 1)                        # democrat (16/1)
    assert educ_subtree == pytest.approx(3.273, abs=1e-3)     # the book's 3.273
    assert educ_leaf == pytest.approx(2.507, abs=1e-3)        # (book, exact binomial: 2.512)
    assert educ_leaf <= educ_subtree + 0.1                    # -> collapse
    budget_subtree = _ae(151, 0) + _ae(1, 0) + educ_leaf      # 1.380 + 0.750 + 2.507
    budget_leaf = 1 + _ae_normal(168, 1)                     # democrat (168/1): the book's 2.6
    assert budget_leaf == pytest.approx(2.61, abs=1e-2)
    assert budget_leaf <= budget_subtree + 0.1                # -> collapse as well
    root_subtree = budget_leaf + _ae(100, 0)
    root_leaf = 101 + _ae_normal(268, 101)
    assert root_leaf > root_subtree + 0.1                     # the root stays

    coeff = pruning.c45_coefficient(CF)
    make_leaf, est = pruning.pessimistic(full.tree_.arrays, full.tree_.stats, CF, coeff)
    t = full.tree_
    by_counts = {tuple(t.stats[i]): i for i in range(t.node_count)}
    educ, budget = by_counts[(15.0, 1.0)], by_counts[(167.0, 1.0)]
    assert make_leaf[educ] and make_leaf[budget] and not make_leaf[0]
    assert est[educ] == pytest.approx(educ_leaf, rel=1e-9)
    assert est[budget] == pytest.approx(budget_leaf, rel=1e-9)
    assert est[0] == pytest.approx(root_subtree, rel=1e-9)

    pruned = make(pruning="pessimistic").fit(X, y)
    assert pruned.get_n_leaves() == 2
    assert _leaf_counts(pruned) == [(0.0, 100.0), (167.0, 1.0)]
    assert set(pruned.predict(X)) == {"dem", "rep"}
    assert (pruned.predict(X)[y == "rep"] == "rep").sum() == 100


def test_pessimistic_pruning_keeps_a_subtree_that_pays_for_itself():
    # education = u now holds 6 republicans: the subtree has leaves 6/0, 9/0, 6/0
    X, y = _voting_data(n_rep_educ_u=6)
    full = DecisionTreeClassifier(criterion="entropy", nominal_split="multiway").fit(X, y)
    assert full.get_n_leaves() == 6
    educ_subtree = _ae(6, 0) + _ae(9, 0) + _ae(6, 0)            # 3.761
    educ_leaf = 6 + _ae_normal(21, 6)                          # democrat (21/6)
    assert educ_leaf > educ_subtree + 0.1                      # -> keep
    budget_subtree = _ae(151, 0) + _ae(1, 0) + educ_subtree
    budget_leaf = 6 + _ae_normal(173, 6)
    assert budget_leaf > budget_subtree + 0.1                  # -> keep
    pruned = DecisionTreeClassifier(criterion="entropy", nominal_split="multiway",
                                    pruning="pessimistic").fit(X, y)
    assert pruned.get_n_leaves() == 6
    assert_array_equal(pruned.predict(X), full.predict(X))
    _, est = pruning.pessimistic(full.tree_.arrays, full.tree_.stats, CF,
                                 pruning.c45_coefficient(CF))
    by_counts = {tuple(full.tree_.stats[i]): i for i in range(full.tree_.node_count)}
    assert est[by_counts[(15.0, 6.0)]] == pytest.approx(educ_subtree, rel=1e-9)
    assert est[by_counts[(167.0, 6.0)]] == pytest.approx(budget_subtree, rel=1e-9)


def _stump(left_counts, right_counts):
    """A root with two leaves, built directly in the engine's arrays."""
    t = new_tree(3, 2, 1)
    t.sizes[0] = 1
    add_children(t, 0, 2)
    t.kind[0] = NUMERIC
    t.feature[0] = 0
    counts = np.array([np.add(left_counts, right_counts), left_counts, right_counts], float)
    return t, counts


def test_pessimistic_tolerance_of_one_tenth_error():
    """C4.5 collapses a subtree when the leaf's estimate is at most 0.1 above the
    subtree's (prune.c: ``LeafErrors <= TreeErrors + 0.1``)."""
    C = COEFF
    # children 3/2 and 1/4 (class counts), as one leaf 4/6
    sub = (2 + _ae_normal(5, 2)) + (1 + _ae_normal(5, 1))
    leaf = 4 + _ae_normal(10, 4)
    assert 0.0 < leaf - sub <= 0.1                            # ~0.077: worse, but tolerated
    t, counts = _stump([3, 2], [1, 4])
    make_leaf, est = pruning.pessimistic(t, counts, CF, C)
    assert make_leaf[0] and est[0] == pytest.approx(leaf, rel=1e-12)
    assert est[1] == pytest.approx(2 + _ae_normal(5, 2), rel=1e-12)

    # children 2/1 and 1/3, as one leaf 3/4
    sub = (1 + _ae_normal(3, 1)) + (1 + _ae_normal(4, 1))
    leaf = 3 + _ae_normal(7, 3)
    assert leaf - sub > 0.1                                    # ~0.14: kept
    t, counts = _stump([2, 1], [1, 3])
    make_leaf, est = pruning.pessimistic(t, counts, CF, C)
    assert not make_leaf[0] and est[0] == pytest.approx(sub, rel=1e-12)


def _noisy_classification(n, seed, noise=0.25):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(n, 5))
    y = ((X[:, 0] + 0.5 * X[:, 1] > 0) ^ (rng.rand(n) < noise)).astype(int)
    return X, y


@pytest.fixture(scope="module")
def noisy_split():
    X, y = _noisy_classification(1000, 0)
    return X[:600], y[:600], X[600:], y[600:]


def test_c45_prunes_noisy_data(noisy_split):
    X, y, Xt, yt = noisy_split
    pruned = C45Classifier().fit(X, y)
    full = C45Classifier(pruning=None).fit(X, y)
    # (C4.5 keeps pure leaves of a few cases, so on label noise it prunes moderately)
    assert pruned.get_n_leaves() < 0.85 * full.get_n_leaves()
    assert pruned.score(Xt, yt) >= full.score(Xt, yt) - 0.02
    # pruning removes whole subtrees: every leaf of the pruned tree is a node of the full one
    rows_full = {frozenset(np.flatnonzero(full.decision_path(X)[:, j].toarray().ravel()))
                 for j in range(full.tree_.node_count)}
    leaves = pruned.apply(X)
    for v in np.unique(leaves):
        assert frozenset(np.flatnonzero(leaves == v)) in rows_full
    # a lower confidence factor prunes at least as hard
    harder = C45Classifier(confidence=0.05).fit(X, y)
    assert harder.get_n_leaves() <= pruned.get_n_leaves()


# ============================================================================ reduced error
def _route(a, x):
    """Nodes visited by row ``x`` (root first), following the documented node layout."""
    node = 0
    path = [0]
    while a.kind[node] != LEAF:
        v = x[a.feature[node]]
        if np.isnan(v):
            slot = a.missing_child[node]
        elif a.kind[node] == NUMERIC:
            slot = 0 if v <= a.threshold[node] else 1
        else:
            assert a.kind[node] == NOMINAL
            code = int(v)
            slot = -1
            if 0 <= code < a.cat_count[node] and code == v:
                slot = a.cat_map[a.cat_offset[node] + code]
            if slot < 0:
                slot = a.missing_child[node]
        node = a.first_child[node] + slot
        path.append(node)
    return path


def reference_reduced_error(est, X_val, y_val):
    """Slow reference: Quinlan's reduced-error pruning, bottom-up over the fitted
    tree.  Returns the set of nodes turned into leaves (kept reachable) and a
    ``predict`` function for the pruned tree."""
    tree = est.tree_
    a = tree.arrays
    classifier = hasattr(est, "classes_")
    value = tree.value
    X_val = np.asarray(X_val, dtype=np.float64)
    paths = [_route(a, x) for x in X_val]
    rows_at = {i: [] for i in range(tree.node_count)}
    for r, p in enumerate(paths):
        for node in p:
            rows_at[node].append(r)

    def leaf_error(node):
        rows = rows_at[node]
        if classifier:
            pred = est.classes_[int(np.argmax(value[node]))]
            return float(sum(1 for r in rows if y_val[r] != pred))
        return float(sum((y_val[r] - value[node, 0]) ** 2 for r in rows))

    pruned = set()

    def visit(node):
        """Validation error of the (pruned) subtree under ``node``."""
        kids = tree.children(node)
        if len(kids) == 0:
            return leaf_error(node)
        sub = sum(visit(int(c)) for c in kids)
        as_leaf = leaf_error(node)
        if as_leaf <= sub:
            pruned.add(node)
            return as_leaf
        return sub

    visit(0)

    def predict(Xq):
        out = []
        for x in np.asarray(Xq, dtype=np.float64):
            node = 0
            for node in _route(a, x):
                if node in pruned:
                    break
            out.append(value[node])
        out = np.array(out)
        if classifier:
            return est.classes_[np.argmax(out, axis=1)]
        return out[:, 0]

    def n_leaves():
        count = 0
        stack = [0]
        while stack:
            node = stack.pop()
            kids = tree.children(node)
            if node in pruned or len(kids) == 0:
                count += 1
            else:
                stack.extend(int(c) for c in kids)
        return count

    return pruned, predict, n_leaves()


def _error(est_or_pred, X, y, classifier):
    pred = est_or_pred(X) if callable(est_or_pred) else est_or_pred.predict(X)
    return float(np.sum(pred != y)) if classifier else float(np.sum((pred - y) ** 2))


def _regression(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-2, 2, size=(n, 4))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.5 * rng.randn(n)
    return X, y


REP_CASES = [
    ("clf-full", lambda: DecisionTreeClassifier(random_state=0), "clf"),
    ("clf-entropy-msl3", lambda: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=3), "clf"),
    ("clf-hist-depth6", lambda: DecisionTreeClassifier(splitter="hist", max_depth=6), "clf"),
    ("c45-unpruned", lambda: C45Classifier(pruning=None), "clf"),
    ("reg-full", lambda: DecisionTreeRegressor(), "reg"),
    ("reg-msl4", lambda: DecisionTreeRegressor(min_samples_leaf=4), "reg"),
]


@pytest.mark.parametrize("name,make,kind", REP_CASES, ids=[c[0] for c in REP_CASES])
@pytest.mark.parametrize("seed", [0, 1])
def test_reduced_error_pruning_matches_reference(name, make, kind, seed):
    if kind == "clf":
        X, y = _noisy_classification(500, 10 + seed)
    else:
        X, y = _regression(500, 10 + seed)
    Xtr, ytr, Xv, yv, Xte = X[:250], y[:250], X[250:400], y[250:400], X[400:]
    est = make().fit(Xtr, ytr)
    n_before = est.get_n_leaves()
    err_before = _error(est, Xv, yv, kind == "clf")
    ref_pruned, ref_predict, ref_leaves = reference_reduced_error(est, Xv, yv)
    assert ref_pruned, "the case should prune something"

    assert est.prune_reduced_error(Xv, yv) is est
    assert est.get_n_leaves() == ref_leaves < n_before
    for Z in (Xtr, Xv, Xte):
        if kind == "clf":
            assert_array_equal(est.predict(Z), ref_predict(Z))
        else:
            assert_allclose(est.predict(Z), ref_predict(Z), rtol=1e-12, atol=1e-12)
    # validation error never increases
    err_after = _error(est, Xv, yv, kind == "clf")
    assert err_after <= err_before * (1 + 1e-12) + 1e-12
    # pruning twice with the same validation set changes nothing more
    n_once = est.get_n_leaves()
    est.prune_reduced_error(Xv, yv)
    assert est.get_n_leaves() == n_once


def _nominal_noisy(n, seed):
    """Nominal attributes (pandas categories) with label noise, and their category codes."""
    rng = np.random.RandomState(seed)
    a = rng.randint(0, 4, n)
    b = rng.randint(0, 3, n)
    c = rng.randint(0, 5, n)
    y = (((a >= 2) & (b != 1)) | (c == 4)) ^ (rng.rand(n) < 0.2)
    df = pd.DataFrame({"a": pd.Categorical(np.array(list("pqrs"))[a], categories=list("pqrs")),
                       "b": pd.Categorical(np.array(list("xyz"))[b], categories=list("xyz")),
                       "c": pd.Categorical(c, categories=range(5))})
    return df, np.stack([a, b, c], axis=1).astype(float), y.astype(int)


@pytest.mark.parametrize("make", [
    lambda: ID3Classifier(),
    lambda: DecisionTreeClassifier(nominal_split="binary"),
], ids=["id3-multiway", "cart-subsets"])
def test_reduced_error_pruning_matches_reference_on_nominal_data(make):
    df, codes, y = _nominal_noisy(600, 7)
    tr, va = slice(0, 300), slice(300, 450)
    est = make().fit(df.iloc[tr], y[tr])
    n_before = est.get_n_leaves()
    _, ref_predict, ref_leaves = reference_reduced_error(est, codes[va], y[va])
    est.prune_reduced_error(df.iloc[va], y[va])
    assert est.get_n_leaves() == ref_leaves < n_before
    assert_array_equal(est.predict(df), ref_predict(codes))


def test_reduced_error_pruning_matches_reference_with_missing_values():
    X, y = _noisy_classification(500, 21)
    rng = np.random.RandomState(0)
    X[rng.rand(*X.shape) < 0.1] = np.nan
    est = DecisionTreeClassifier(min_samples_leaf=2).fit(X[:250], y[:250])
    _, ref_predict, ref_leaves = reference_reduced_error(est, X[250:400], y[250:400])
    est.prune_reduced_error(X[250:400], y[250:400])
    assert est.get_n_leaves() == ref_leaves
    assert_array_equal(est.predict(X), ref_predict(X))


def _subtree_training_error(tree, node, counts_of):
    """Training misclassifications of the subtree under ``node`` (leaves predict their majority)."""
    kids = tree.children(node)
    if len(kids) == 0:
        c = counts_of(node)
        return c.sum() - c.max()
    return sum(_subtree_training_error(tree, int(k), counts_of) for k in kids)


@pytest.mark.parametrize("params", [dict(min_samples_leaf=5), dict(max_depth=5),
                                    dict(min_samples_leaf=2, criterion="entropy")])
def test_reduced_error_on_the_training_set_keeps_every_helpful_node(params):
    """With the training set as validation set, exactly the nodes whose subtree
    lowers the training error stay internal, so the training error is unchanged."""
    X, y = _noisy_classification(400, 3)
    est = DecisionTreeClassifier(**params).fit(X, y)
    tree = est.tree_
    stats = tree.stats.copy()
    node_rows_before = {}
    dp = est.decision_path(X).tocsc()
    for j in range(tree.node_count):
        node_rows_before[j] = frozenset(dp[:, j].nonzero()[0].tolist())
    helpful = set()
    for j in range(tree.node_count):
        if tree.kind[j] == LEAF:
            continue
        as_leaf = stats[j].sum() - stats[j].max()
        if _subtree_training_error(tree, j, lambda i: stats[i]) < as_leaf:
            helpful.add(node_rows_before[j])
    assert 0 < len(helpful) < sum(tree.kind != LEAF), "the case should have both kinds of node"
    err_before = np.sum(est.predict(X) != y)

    est.prune_reduced_error(X, y)
    t2 = est.tree_
    dp2 = est.decision_path(X).tocsc()
    internal_after = {frozenset(dp2[:, j].nonzero()[0].tolist())
                      for j in range(t2.node_count) if t2.kind[j] != LEAF}
    assert internal_after == helpful
    assert np.sum(est.predict(X) != y) == err_before


def test_reduced_error_regression_on_training_set_prunes_nothing():
    # a split always lowers the training squared error (children means differ)
    X, y = _regression(300, 4)
    est = DecisionTreeRegressor(min_samples_leaf=3).fit(X, y)
    n, pred = est.get_n_leaves(), est.predict(X)
    est.prune_reduced_error(X, y)
    assert est.get_n_leaves() == n
    assert_allclose(est.predict(X), pred)


# ============================================================================ cost complexity
def _leaf_impurity_total(est):
    t = est.tree_
    w = t.weighted_n_node_samples
    leaf = t.kind == LEAF
    return float(np.sum(w[leaf] * t.impurity[leaf]) / w[0])


COST_CASES = [
    ("gini", lambda **kw: DecisionTreeClassifier(**kw), "clf"),
    ("entropy-msl2", lambda **kw: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, **kw), "clf"),
    ("gini-hist", lambda **kw: DecisionTreeClassifier(splitter="hist", **kw), "clf"),
    ("squared_error", lambda **kw: DecisionTreeRegressor(**kw), "reg"),
    ("squared_error-msl3", lambda **kw: DecisionTreeRegressor(min_samples_leaf=3, **kw), "reg"),
]


@pytest.fixture(scope="module")
def cost_data():
    Xc, yc = _noisy_classification(300, 5)
    Xr, yr = _regression(300, 5)
    return {"clf": (Xc, yc), "reg": (Xr, yr)}


@pytest.mark.parametrize("name,make,kind", COST_CASES, ids=[c[0] for c in COST_CASES])
def test_cost_complexity_path_is_consistent_with_pruned_trees(name, make, kind, cost_data):
    X, y = cost_data[kind]
    path = make().cost_complexity_pruning_path(X, y)
    alphas = np.asarray(path["ccp_alphas"])
    imps = np.asarray(path["impurities"])
    # a Bunch, as scikit-learn's: attribute and key access agree
    assert_array_equal(path.ccp_alphas, alphas)
    assert_array_equal(path.impurities, imps)
    assert len(alphas) >= 5
    assert alphas[0] == 0.0
    assert np.all(np.diff(alphas) >= -1e-15)     # weakest links come in increasing order
    assert np.all(np.diff(imps) >= -1e-12)       # pruning never lowers the training impurity
    full = make().fit(X, y)
    assert imps[0] == pytest.approx(_leaf_impurity_total(full), rel=1e-9, abs=1e-12)
    # the last step leaves the root alone
    assert imps[-1] == pytest.approx(full.tree_.impurity[0], rel=1e-9)

    # the tree pruned with alpha = path alpha k has the path's impurity; when several
    # nodes share that alpha they are all pruned, so compare at the group's last step
    last_of_group = {}
    for k, a in enumerate(alphas):
        last_of_group[a] = k
    n_prev = None
    for k in range(len(alphas)):
        est = make(ccp_alpha=float(alphas[k])).fit(X, y)
        k_last = last_of_group[alphas[k]]
        assert _leaf_impurity_total(est) == pytest.approx(imps[k_last], rel=1e-9, abs=1e-12)
        if n_prev is not None:
            assert est.get_n_leaves() <= n_prev
        n_prev = est.get_n_leaves()
    assert n_prev == 1


@pytest.mark.parametrize("name,make,kind", COST_CASES, ids=[c[0] for c in COST_CASES])
def test_larger_ccp_alpha_gives_fewer_leaves(name, make, kind, cost_data):
    X, y = cost_data[kind]
    path = make().cost_complexity_pruning_path(X, y)
    top = float(np.max(path["ccp_alphas"]))
    grid = np.concatenate([[0.0], np.geomspace(top * 1e-4, top * 1.5, 25)])
    leaves = [make(ccp_alpha=float(a)).fit(X, y).get_n_leaves() for a in grid]
    assert all(b <= a for a, b in zip(leaves, leaves[1:])), leaves
    assert leaves[0] == make().fit(X, y).get_n_leaves()
    assert leaves[-1] == 1
    assert len(set(leaves)) >= 4


def test_cost_complexity_pruning_keyword_alone_prunes_nothing():
    """pruning="cost_complexity" with ccp_alpha = 0 only removes splits that do not
    lower the impurity (none on this data), exactly as scikit-learn's ccp_alpha=0."""
    X, y = _regression(200, 6)
    a = DecisionTreeRegressor(pruning="cost_complexity").fit(X, y)
    b = DecisionTreeRegressor().fit(X, y)
    assert a.get_n_leaves() == b.get_n_leaves()
    assert_allclose(a.predict(X), b.predict(X))
