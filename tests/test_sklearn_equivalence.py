"""Differential tests: treelab's exact splitter against scikit-learn's trees.

Data are continuous and without ties, and pass through float32 (scikit-learn
stores features as float32), so both libraries see exactly the same values and
the same candidate thresholds.

When is "the same tree" well defined?  scikit-learn breaks ties between
features of equal improvement through a random permutation of the features,
so every case first fits scikit-learn with ``random_state`` 0..4 and requires
those five trees to agree.  That alone is not enough: two splits with equal
weighted child statistics (exactly equal counts, or the very same partition of
a node by two features) differ only by the rounding of sums taken in
different orders, and that rounding picks the winner -- the same way for every
``random_state`` but not necessarily as treelab does.  So each split of the
reference tree is also checked against all other candidate splits of its node
(:func:`split_ambiguity`):

* ``"full"``: no other candidate comes within a relative 1e-9 of the chosen
  split -- the whole tree, thresholds, predictions on fresh points and feature
  importances must be equal;
* ``"train"``: the only near-ties are other features inducing the *same
  partition* of a node -- the tree is equal as a hierarchy of training-row sets
  (so are its impurities, training predictions and pruning path) but not on
  fresh points;
* ``None``: the case is skipped.

``test_most_*_are_well_defined`` make sure that the large majority of cases is
compared, so that nothing passes by being skipped.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

sklearn_tree = pytest.importorskip("sklearn.tree")

from treelab import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

SkClassifier = sklearn_tree.DecisionTreeClassifier
SkRegressor = sklearn_tree.DecisionTreeRegressor

N_TRAIN = 160
N_TEST = 300
N_FEATURES = 4
SK_SEEDS = range(5)
TIE_RTOL = 1e-9
CLASS_DICT_WEIGHT = {"a": 1.0, "b": 2.5, "c": 4.0}


@pytest.fixture(autouse=True, scope="module")
def _one_numba_thread():
    """These inputs are tiny: run treelab's prange kernels on one thread.  On a
    busy 2-core machine every parallel ``predict``/``apply`` call on a few
    hundred rows otherwise costs milliseconds of thread wake-up."""
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


# ----------------------------------------------------------------------------- data
def _f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


@functools.lru_cache(maxsize=None)
def make_data(task, seed, imbalanced=False):
    """``(X, y, X_test)``, float32-representable and without ties in any feature column."""
    rng = np.random.RandomState(1000 + seed)
    X = _f32(rng.randn(N_TRAIN, N_FEATURES))
    X_test = _f32(rng.randn(N_TEST, N_FEATURES))
    for j in range(N_FEATURES):
        assert np.unique(X[:, j]).size == N_TRAIN, "tie in the training data"
    if task == "classification":
        score = X[:, 0] + 0.8 * X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + 0.6 * rng.randn(N_TRAIN)
        qs = [0.6, 0.85] if imbalanced else [1 / 3, 2 / 3]
        y = np.digitize(score, np.quantile(score, qs))
        y = np.array(["a", "b", "c"])[y]          # string labels: classes_ must map back
    else:
        y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.randn(N_TRAIN)
    for arr in (X, X_test, y):
        arr.setflags(write=False)
    return X, y, X_test


def _sample_weight(kind, seed):
    if kind is None:
        return None
    rng = np.random.RandomState(77 + seed)
    if kind == "int":
        return rng.randint(1, 4, N_TRAIN).astype(np.float64)
    # strictly positive: treelab drops zero-weight samples (they are not even
    # thresholds), scikit-learn keeps them, so zero weights are not comparable
    return rng.uniform(0.2, 3.0, N_TRAIN)


def _class_weight(cw):
    return {"balanced": "balanced", "dict": CLASS_DICT_WEIGHT, None: None}[cw]


# ----------------------------------------------------------------------------- helpers
def partition(leaves):
    """The partition of row indices induced by leaf ids (leaf ids themselves differ)."""
    leaves = np.asarray(leaves)
    return frozenset(frozenset(np.flatnonzero(leaves == v).tolist()) for v in np.unique(leaves))


def node_row_sets(est, X):
    """The training rows of every node, as a set of sets (the tree as a hierarchy)."""
    paths = est.decision_path(X).tocsc()
    return frozenset(frozenset(paths[:, j].nonzero()[0].tolist()) for j in range(paths.shape[1]))


def _outputs(est, X):
    return est.predict_proba(X) if hasattr(est, "predict_proba") else est.predict(X)


def _total_weights(y, sample_weight, class_weight):
    """The weights scikit-learn grows its tree with (sample_weight x class_weight)."""
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float).copy()
    if class_weight is not None:
        classes, yi = np.unique(y, return_inverse=True)
        if class_weight == "balanced":
            per = len(y) / (len(classes) * np.bincount(yi))
        else:
            per = np.array([class_weight[c] for c in classes])
        w = w * per[yi]
    return w


def _impurity(stats, criterion):
    """Impurity of statistics rows: weighted class counts, or (w, sum wy, sum wy^2)."""
    if criterion == "squared_error":
        w = stats[:, 0]
        return stats[:, 2] / w - (stats[:, 1] / w) ** 2
    tot = stats.sum(axis=1, keepdims=True)
    p = stats / tot
    if criterion == "gini":
        return 1.0 - (p * p).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)


def split_ambiguity(sk, X, y, w):
    """``"full"``, ``"train"`` or ``None`` for scikit-learn's fitted ``sk`` (see
    the module docstring): every internal node's chosen split is compared with
    every admissible candidate split (all features, all thresholds) of the node."""
    crit = sk.criterion if sk.criterion != "log_loss" else "entropy"
    paths = sk.decision_path(X).tocsc()
    X = np.asarray(X, dtype=np.float64)
    if crit == "squared_error":
        s = np.stack([w, w * y, w * y * y], axis=1)
    else:
        yi = np.searchsorted(sk.classes_, y)
        s = np.zeros((len(y), len(sk.classes_)))
        s[np.arange(len(y)), yi] = w
    msl = sk.min_samples_leaf
    min_w = sk.min_weight_fraction_leaf * w.sum()
    t = sk.tree_
    level = "full"
    for node in range(t.node_count):
        if t.children_left[node] == -1:
            continue
        rows = paths[:, node].nonzero()[0]
        in_left = np.zeros(X.shape[0], bool)
        in_left[paths[:, t.children_left[node]].nonzero()[0]] = True
        chosen_left = frozenset(rows[in_left[rows]].tolist())
        total = s[rows].sum(axis=0)
        wt = total[0] if crit == "squared_error" else total.sum()
        parent = wt * _impurity(total[None, :], crit)[0]
        cands = []   # (feature, sorted rows, improvement per position; -inf where inadmissible)
        for f in range(X.shape[1]):
            order = rows[np.argsort(X[rows, f], kind="stable")]
            left = np.cumsum(s[order], axis=0)[:-1]
            right = total[None, :] - left
            wl = left[:, 0] if crit == "squared_error" else left.sum(axis=1)
            wr = wt - wl
            n_left = np.arange(1, len(rows))
            ok = (n_left >= msl) & (len(rows) - n_left >= msl) & (wl >= min_w) & (wr >= min_w)
            with np.errstate(divide="ignore", invalid="ignore"):
                imp = parent - wl * _impurity(left, crit) - wr * _impurity(right, crit)
            cands.append((f, order, np.where(ok, imp, -np.inf)))
        best = max(c[2].max() for c in cands)
        tol = TIE_RTOL * max(abs(best), 1e-12 * wt)
        for f, order, imp in cands:
            for p in np.flatnonzero(imp >= best - tol):
                left_set = frozenset(order[:p + 1].tolist())
                if f == t.feature[node] and left_set == chosen_left:
                    continue  # the chosen split itself
                right_set = frozenset(order[p + 1:].tolist())
                if left_set == chosen_left or right_set == chosen_left:
                    level = "train"  # the same partition through another feature
                else:
                    return None   # a near-tie with a different partition
    return level


def sklearn_reference(sk_cls, params, X, y, X_test, sample_weight=None):
    """``(tree, level)``: scikit-learn's tree fitted with random_state 0, and
    how far it is well defined (``"full"``, ``"train"`` or ``None``)."""
    fit_kw = {} if sample_weight is None else dict(sample_weight=sample_weight)
    fits = [sk_cls(random_state=r, **params).fit(X, y, **fit_kw) for r in SK_SEEDS]
    ref = fits[0]
    rows0 = node_row_sets(ref, X)
    o_tr, o_te = _outputs(ref, X), _outputs(ref, X_test)
    for other in fits[1:]:
        if node_row_sets(other, X) != rows0:
            return ref, None
        # regression means are sums in a partition-dependent order: compare closely
        if not np.allclose(_outputs(other, X), o_tr, rtol=1e-12, atol=1e-14):
            return ref, None
    w = _total_weights(y, sample_weight, params.get("class_weight"))
    level = split_ambiguity(ref, X, np.asarray(y), w)
    if level == "full":
        for other in fits[1:]:
            assert np.allclose(_outputs(other, X_test), o_te, rtol=1e-12, atol=1e-14)
    return ref, level


def _split_set(feature, threshold, is_leaf):
    """Sorted (feature, threshold) pairs of the internal nodes."""
    pairs = sorted((int(f), float(t)) for f, t, leaf in zip(feature, threshold, is_leaf)
                   if not leaf)
    return np.array(pairs, dtype=np.float64).reshape(-1, 2)


def assert_same_tree(tl, sk, X, X_test, level):
    """treelab's fitted ``tl`` equals scikit-learn's ``sk``: as a hierarchy of
    training rows (``level="train"``) and also as a function (``"full"``)."""
    assert level in ("train", "full")
    assert tl.get_n_leaves() == sk.get_n_leaves()
    assert tl.get_depth() == sk.get_depth()
    assert tl.tree_.node_count == sk.tree_.node_count
    assert partition(tl.apply(X)) == partition(sk.apply(X))
    assert node_row_sets(tl, X) == node_row_sets(sk, X)
    assert_allclose(np.sort(tl.tree_.impurity), np.sort(sk.tree_.impurity), rtol=1e-9, atol=1e-12)
    assert_allclose(np.sort(tl.tree_.weighted_n_node_samples),
                    np.sort(sk.tree_.weighted_n_node_samples), rtol=1e-12)
    sets = [X, X_test] if level == "full" else [X]
    for Z in sets:
        if hasattr(sk, "predict_proba"):
            assert_array_equal(tl.classes_, sk.classes_)
            assert_allclose(tl.predict_proba(Z), sk.predict_proba(Z), rtol=1e-10, atol=1e-12)
            assert_array_equal(tl.predict(Z), sk.predict(Z))
        else:
            assert_allclose(tl.predict(Z), sk.predict(Z), rtol=1e-9, atol=1e-12)
    if level == "full":
        # the same split tests: thresholds are midpoints of the same float32 values
        s_tl = _split_set(tl.tree_.feature, tl.tree_.threshold, tl.tree_.is_leaf())
        s_sk = _split_set(sk.tree_.feature, sk.tree_.threshold, sk.tree_.children_left == -1)
        assert_array_equal(s_tl[:, 0], s_sk[:, 0])
        assert_allclose(s_tl[:, 1], s_sk[:, 1], rtol=1e-12, atol=0)
        # impurity-based feature importances (MDI) of equal trees
        assert_allclose(tl.feature_importances_, sk.feature_importances_, rtol=1e-9, atol=1e-12)


def _classes(task):
    if task == "classification":
        return DecisionTreeClassifier, SkClassifier
    return DecisionTreeRegressor, SkRegressor


# ----------------------------------------------------------------------------- growth
CLASSIFICATION_PARAMS = [
    dict(max_depth=1),
    dict(max_depth=2),
    dict(max_depth=3),
    dict(min_samples_leaf=25),
    dict(min_samples_leaf=15),
    dict(min_samples_leaf=12, max_depth=5),
    dict(min_samples_split=40),
    dict(min_samples_split=60, max_depth=5),
    dict(min_weight_fraction_leaf=0.08),
    dict(min_impurity_decrease=0.02, max_depth=6),
]
# continuous targets make ties rare, so regression trees can be grown fully
REGRESSION_PARAMS = [
    dict(max_depth=1),
    dict(max_depth=3),
    dict(max_depth=6),
    dict(),
    dict(min_samples_leaf=8),
    dict(min_samples_leaf=4, max_depth=6),
    dict(min_samples_split=30),
    dict(min_weight_fraction_leaf=0.05),
    dict(min_impurity_decrease=0.005),
]
CRITERIA = [("classification", "gini"), ("classification", "entropy"),
            ("regression", "squared_error")]


def growth_params(task, i):
    return (CLASSIFICATION_PARAMS if task == "classification" else REGRESSION_PARAMS)[i]


GROWTH_CASES = [(task, crit, i, seed) for task, crit in CRITERIA
                for i in range(len(CLASSIFICATION_PARAMS if task == "classification"
                                   else REGRESSION_PARAMS))
                for seed in (0, 1, 2)]


def _growth_id(case):
    task, crit, i, seed = case
    p = ",".join(f"{k}={v}" for k, v in growth_params(task, i).items()) or "full-depth"
    return f"{crit}-{p}-seed{seed}"


@functools.lru_cache(maxsize=None)
def growth_reference(case):
    task, crit, i, seed = case
    X, y, X_test = make_data(task, seed)
    return sklearn_reference(_classes(task)[1], dict(criterion=crit, **growth_params(task, i)),
                             X, y, X_test)


def _levels(refs):
    return [r[1] for r in refs]


def test_most_growth_cases_are_well_defined():
    """The equality tests are not vacuous: most cases are compared in full."""
    levels = _levels(growth_reference(c) for c in GROWTH_CASES)
    assert np.mean([lv == "full" for lv in levels]) >= 0.6, levels
    assert np.mean([lv is not None for lv in levels]) >= 0.85, levels
    for _, crit in CRITERIA:
        per = _levels(growth_reference(c) for c in GROWTH_CASES if c[1] == crit)
        assert np.mean([lv == "full" for lv in per]) >= 0.5, (crit, per)


@pytest.mark.parametrize("case", GROWTH_CASES, ids=[_growth_id(c) for c in GROWTH_CASES])
def test_same_tree_as_sklearn(case):
    task, crit, i, seed = case
    ref, level = growth_reference(case)
    if level is None:
        pytest.skip("scikit-learn's tree is not well defined here (tied splits)")
    X, y, X_test = make_data(task, seed)
    tl = _classes(task)[0](criterion=crit, splitter="best", **growth_params(task, i)).fit(X, y)
    assert_same_tree(tl, ref, X, X_test, level)


def test_log_loss_alias_matches_entropy():
    X, y, X_test = make_data("classification", 0)
    ref, level = sklearn_reference(SkClassifier, dict(criterion="log_loss", max_depth=3),
                                   X, y, X_test)
    assert level == "full"
    tl = DecisionTreeClassifier(criterion="log_loss", max_depth=3).fit(X, y)
    assert_same_tree(tl, ref, X, X_test, level)


def test_pandas_input_gives_the_same_tree():
    pd = pytest.importorskip("pandas")
    X, y, X_test = make_data("classification", 1)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(N_FEATURES)])
    dft = pd.DataFrame(X_test, columns=df.columns)
    ref, level = sklearn_reference(SkClassifier, dict(max_depth=3), df, y, dft)
    assert level == "full"
    tl = DecisionTreeClassifier(max_depth=3).fit(df, y)
    assert_array_equal(tl.feature_names_in_, df.columns)
    assert_same_tree(tl, ref, df, dft, level)


# ----------------------------------------------------------------------------- weights
WEIGHT_PARAMS = [dict(max_depth=3), dict(min_samples_leaf=15), dict(min_weight_fraction_leaf=0.08),
                 dict(min_samples_split=40, min_impurity_decrease=0.002)]
WEIGHT_CASES = [(task, crit, i, kind, seed) for task, crit in CRITERIA
                for i in range(len(WEIGHT_PARAMS)) for kind in ("int", "float")
                for seed in (0, 1)]


@functools.lru_cache(maxsize=None)
def weight_reference(case):
    task, crit, i, kind, seed = case
    X, y, X_test = make_data(task, seed)
    return sklearn_reference(_classes(task)[1], dict(criterion=crit, **WEIGHT_PARAMS[i]),
                             X, y, X_test, _sample_weight(kind, seed))


def test_most_weighted_cases_are_well_defined():
    levels = _levels(weight_reference(c) for c in WEIGHT_CASES)
    assert np.mean([lv == "full" for lv in levels]) >= 0.7, levels


@pytest.mark.parametrize("case", WEIGHT_CASES,
                         ids=[f"{c[1]}-{c[2]}-{c[3]}-seed{c[4]}" for c in WEIGHT_CASES])
def test_sample_weight_same_tree_as_sklearn(case):
    task, crit, i, kind, seed = case
    ref, level = weight_reference(case)
    if level is None:
        pytest.skip("scikit-learn's tree is not well defined here (tied splits)")
    X, y, X_test = make_data(task, seed)
    sw = _sample_weight(kind, seed)
    tl = _classes(task)[0](criterion=crit, **WEIGHT_PARAMS[i]).fit(X, y, sample_weight=sw)
    assert_same_tree(tl, ref, X, X_test, level)
    assert_allclose(tl.tree_.weighted_n_node_samples[0], sw.sum(), rtol=1e-12)


CW_CASES = [(crit, i, cw, sw, seed)
            for crit in ("gini", "entropy")
            for i in range(3)
            for cw in ("balanced", "dict")
            for sw in (None, "float")
            for seed in (0, 1)]


@functools.lru_cache(maxsize=None)
def class_weight_reference(case):
    crit, i, cw, sw, seed = case
    X, y, X_test = make_data("classification", seed, imbalanced=True)
    return sklearn_reference(
        SkClassifier, dict(criterion=crit, class_weight=_class_weight(cw), **WEIGHT_PARAMS[i]),
        X, y, X_test, _sample_weight(sw, seed))


def test_most_class_weight_cases_are_well_defined():
    levels = _levels(class_weight_reference(c) for c in CW_CASES)
    assert np.mean([lv == "full" for lv in levels]) >= 0.7, levels


@pytest.mark.parametrize("case", CW_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-sw_{c[3]}-seed{c[4]}" for c in CW_CASES])
def test_class_weight_same_tree_as_sklearn(case):
    crit, i, cw, sw, seed = case
    ref, level = class_weight_reference(case)
    if level is None:
        pytest.skip("scikit-learn's tree is not well defined here (tied splits)")
    X, y, X_test = make_data("classification", seed, imbalanced=True)
    tl = DecisionTreeClassifier(criterion=crit, class_weight=_class_weight(cw),
                                **WEIGHT_PARAMS[i]).fit(X, y, sample_weight=_sample_weight(sw, seed))
    assert_same_tree(tl, ref, X, X_test, level)


def test_balanced_class_weight_equalises_class_mass():
    X, y, _ = make_data("classification", 0, imbalanced=True)
    tl = DecisionTreeClassifier(class_weight="balanced", max_depth=2).fit(X, y)
    assert_allclose(tl.tree_.stats[0], np.full(3, N_TRAIN / 3), rtol=1e-12)


# ----------------------------------------------------------------------------- pruning
# fully grown classification trees almost always contain tied splits, so the
# classification paths are those of regularised trees
PATH_PARAMS = {
    "classification": [dict(min_samples_leaf=15), dict(min_samples_leaf=10),
                       dict(min_samples_split=40), dict(min_samples_leaf=12, max_depth=5)],
    "regression": [dict(), dict(min_samples_leaf=3), dict(max_depth=6),
                   dict(min_samples_split=10)],
}
PATH_CASES = [(task, crit, i, sw, seed) for task, crit in CRITERIA
              for i in range(len(PATH_PARAMS[task])) for sw in (None, "float") for seed in (0, 1)]


def _path_id(c):
    p = ",".join(f"{k}={v}" for k, v in PATH_PARAMS[c[0]][c[2]].items()) or "full-depth"
    return f"{c[1]}-{p}-sw_{c[3]}-seed{c[4]}"


@functools.lru_cache(maxsize=None)
def path_reference(case):
    """scikit-learn's unpruned tree, its level, and its pruning path."""
    task, crit, i, sw, seed = case
    X, y, X_test = make_data(task, seed)
    sk_cls = _classes(task)[1]
    ref, level = sklearn_reference(sk_cls, dict(criterion=crit, **PATH_PARAMS[task][i]), X, y, X_test,
                                   _sample_weight(sw, seed))
    path = ref.cost_complexity_pruning_path(X, y, sample_weight=_sample_weight(sw, seed))
    return ref, level, path


def test_most_path_cases_are_well_defined():
    """Pruning paths depend on the training hierarchy only ("train" level suffices)."""
    levels = [path_reference(c)[1] for c in PATH_CASES]
    assert np.mean([lv is not None for lv in levels]) >= 0.6, levels
    for task in ("classification", "regression"):
        per = [path_reference(c)[1] for c in PATH_CASES if c[0] == task]
        assert np.mean([lv is not None for lv in per]) >= 0.5, (task, per)


def _distinct_steps(alphas):
    """Indices k after which the path moves on to a larger alpha (or ends): the
    order in which nodes of *equal* effective alpha are pruned is arbitrary, so
    intermediate impurities within such a group are not comparable."""
    a = np.asarray(alphas)
    nxt = np.append(a[1:], np.inf)
    return np.flatnonzero(nxt - a > 1e-9 * np.maximum(np.abs(a), 1e-300))


@pytest.mark.parametrize("case", PATH_CASES, ids=[_path_id(c) for c in PATH_CASES])
def test_cost_complexity_path_and_pruned_trees_match_sklearn(case):
    task, crit, i, sw_kind, seed = case
    ref, level, sk_path = path_reference(case)
    if level is None:
        pytest.skip("scikit-learn's tree is not well defined here (tied splits)")
    X, y, X_test = make_data(task, seed)
    sw = _sample_weight(sw_kind, seed)
    tl_cls, sk_cls = _classes(task)
    params = dict(criterion=crit, **PATH_PARAMS[task][i])
    tl_path = tl_cls(**params).cost_complexity_pruning_path(X, y, sample_weight=sw)
    sk_a, sk_i = sk_path.ccp_alphas, sk_path.impurities
    tl_a, tl_i = np.asarray(tl_path["ccp_alphas"]), np.asarray(tl_path["impurities"])
    assert len(sk_a) >= 4, "the case should have a non-trivial pruning path"
    assert tl_a.shape == sk_a.shape
    assert_allclose(tl_a, sk_a, rtol=1e-9, atol=1e-14)
    steps = _distinct_steps(sk_a)
    assert_allclose(tl_i[steps], sk_i[steps], rtol=1e-9, atol=1e-14)
    assert tl_i[0] == pytest.approx(sk_i[0], rel=1e-9, abs=1e-14)

    n = len(sk_a)
    for k in sorted({1, n // 3, n // 2, n - 2, n - 1}):
        # each library with its own path alpha: both prune through step k
        tl = tl_cls(ccp_alpha=float(tl_a[k]), **params).fit(X, y, sample_weight=sw)
        sk = sk_cls(ccp_alpha=float(sk_a[k]), random_state=0, **params).fit(X, y, sample_weight=sw)
        assert_same_tree(tl, sk, X, X_test, level)
        # an alpha strictly between two path values (no rounding question at all)
        if k + 1 < n and sk_a[k + 1] - sk_a[k] > 1e-9 * sk_a[k + 1]:
            mid = float(0.5 * (sk_a[k] + sk_a[k + 1]))
            tl = tl_cls(ccp_alpha=mid, **params).fit(X, y, sample_weight=sw)
            sk = sk_cls(ccp_alpha=mid, random_state=0, **params).fit(X, y, sample_weight=sw)
            assert_same_tree(tl, sk, X, X_test, level)
