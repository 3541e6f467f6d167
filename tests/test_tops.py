"""Trees of Predictors (Yoon, Zame & van der Schaar, Section III) against a slow
literal reference (tests/_tops_reference.py), plus determinism, pickling, bad
input, the path-weight solver against an exact one, and the constant-learner /
error-rate ToPs against a validation-pruned classification tree."""
import itertools
import pickle

import numpy as np
import pytest

from treelab import DecisionTreeClassifier, ToPsClassifier, ToPsRegressor, export_tops_text
from treelab.learners.tops import _make_loss, fit_path_weights
from treelab.node_models import ConstantModel, LinearModel, LogisticModel, scores_to_proba

from _tops_reference import literal_tops, literal_weights

sk_metrics = pytest.importorskip("sklearn.metrics")


def _sets(n, rng):
    s = np.zeros(n, dtype=int)
    perm = rng.permutation(n)
    s[perm[:int(0.15 * n)]] = 1
    s[perm[int(0.15 * n):int(0.25 * n)]] = 2
    return s


def _mse(y, S):
    return float(np.mean((S[:, 0] - y) ** 2))


def _logloss(y, S):
    P = scores_to_proba(S)
    return float(-np.mean(np.log(np.clip(P[np.arange(len(y)), y], 1e-15, 1))))


def _one_minus_auc(y, S):
    # Mann-Whitney with average ranks (what roc_auc_score computes), written out: the
    # literal reference calls it for every pair of side predictors
    from scipy.stats import rankdata
    P, N = int((y == 1).sum()), int((y == 0).sum())
    if P == 0 or N == 0:
        return 0.5
    r = rankdata(S[:, 1])
    return 1.0 - (r[y == 1].sum() - P * (P + 1) / 2) / (P * N)


CASES = {
    "squared_error": (ToPsRegressor, [ConstantModel(), LinearModel(alpha=0.1)], _mse),
    "log_loss": (ToPsClassifier, [LogisticModel(C=1.0), LinearModel(alpha=1.0), ConstantModel()],
                 _logloss),
    "auc": (ToPsClassifier, [LogisticModel(C=1.0), LinearModel(alpha=1.0)], _one_minus_auc),
}


def _data(kind, seed):
    rng = np.random.RandomState(seed)
    n = 160
    X = rng.rand(n, 3)
    X[:, 2] = (X[:, 2] > 0.5)                      # a binary feature: threshold 0.5
    if kind == "squared_error":
        y = np.where(X[:, 0] > 0.4, 2 * X[:, 1], -X[:, 1]) + X[:, 2] + 0.2 * rng.randn(n)
    else:
        z = np.where(X[:, 0] > 0.5, 4 * (X[:, 1] - 0.5), -3 * (X[:, 1] - 0.4)) + 0.8 * X[:, 2]
        y = (z + 0.7 * rng.randn(n) > 0).astype(int)
    return X, y, _sets(n, rng)


@pytest.mark.parametrize("loss, seed", [("squared_error", 0), ("squared_error", 1),
                                        ("log_loss", 0), ("auc", 0), ("auc", 1)])
def test_same_tree_and_weights_as_literal_reference(loss, seed):
    cls, learners, loss_fn = CASES[loss]
    X, y, sets = _data(loss, seed)
    est = cls(base_learners=learners, loss=loss, random_state=0).fit(X, y, sets=sets)
    task = "regression" if cls is ToPsRegressor else "classification"
    K = 1 if task == "regression" else 2
    T, V1, V2 = (sets == k for k in (0, 1, 2))
    ref = literal_tops(X[T], y[T], X[V1], y[V1], X[V2], y[V2], learners, loss_fn, task, K)
    assert len(ref) == len(est.nodes_)
    assert len(ref) > 1, "the test data should grow a tree"
    for r, nd in zip(ref, est.nodes_):
        assert (r["feature"], r["left"], r["right"]) == (nd.feature, nd.left, nd.right)
        if r["feature"] >= 0:
            assert r["threshold"] == pytest.approx(nd.threshold, rel=1e-12)
        assert (r["learner"], r["source"]) == (nd.learner, nd.source)
    W = literal_weights(ref, X[T], y[T], X[V2], y[V2], learners, task, K,
                        _make_loss(loss, task, K), fit_path_weights)
    for nd in est.nodes_:
        if nd.is_leaf:
            np.testing.assert_allclose(nd.weights, W[nd.id], atol=1e-6)
    # the paper's loss of each node's own predictor on its V1 rows
    nd0 = est.nodes_[0]
    root_model = learners[nd0.learner]._fresh()._fit_task(X[T], y[T], np.ones(T.sum()), task, K)
    assert nd0.loss == pytest.approx(loss_fn(y[V1], root_model._scores(X[V1])), rel=1e-9)


def test_splits_strictly_improve_and_prediction_is_path_weighted_sum():
    X, y, sets = _data("squared_error", 3)
    est = ToPsRegressor(base_learners=["constant", "linear"], random_state=0).fit(X, y, sets=sets)
    for nd in est.nodes_:
        if not nd.is_leaf:
            assert nd.split_loss < nd.loss
        else:
            assert np.all(nd.weights >= 0) and nd.weights.sum() == pytest.approx(1.0)
    leaf = est.apply(X)
    manual = np.zeros(len(X))
    for i in range(len(X)):
        nd = est.nodes_[leaf[i]]
        for w, p in zip(nd.weights, nd.path):
            q = est.nodes_[p]
            manual[i] += w * est.predictors_[(q.learner, q.source)]._scores(X[i:i + 1])[0, 0]
    np.testing.assert_allclose(est.predict(X), manual, rtol=1e-10)


# ------------------------------------------------------------------ path weights
def _simplex_ls_exact(A, t):
    """Least squares on the simplex by enumerating supports (KKT)."""
    K = A.shape[1]
    best = (np.inf, None)
    for r in range(1, K + 1):
        for sup in itertools.combinations(range(K), r):
            B = A[:, sup]
            # min ||B v - t||^2 s.t. sum v = 1 (KKT system)
            M = np.zeros((r + 1, r + 1))
            M[:r, :r] = 2 * B.T @ B
            M[:r, r] = 1
            M[r, :r] = 1
            rhs = np.concatenate([2 * B.T @ t, [1.0]])
            try:
                sol = np.linalg.solve(M, rhs)[:r]
            except np.linalg.LinAlgError:
                continue
            if (sol < -1e-12).any():
                continue
            w = np.zeros(K)
            w[list(sup)] = sol
            val = float(np.sum((A @ w - t) ** 2))
            if val < best[0]:
                best = (val, w)
    return best[1]


def test_path_weights_squared_error_match_exact_simplex_least_squares():
    rng = np.random.RandomState(0)
    y = rng.randn(40)
    S_list = [(y + rng.randn(40) * s + b).reshape(-1, 1) for s, b in ((0.5, 0.3), (1.0, -0.2),
                                                                      (0.3, 1.0), (2.0, 0.0))]
    w = fit_path_weights(S_list, y, _make_loss("squared_error", "regression", 1))
    A = np.column_stack([s[:, 0] for s in S_list])
    np.testing.assert_allclose(w, _simplex_ls_exact(A, y), atol=1e-6)
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0)


def test_path_weights_error_rate_never_worse_than_a_single_node():
    rng = np.random.RandomState(1)
    y = rng.randint(0, 2, 50)
    S_list = []
    for q in (0.6, 0.8, 0.55):
        p = np.where(rng.rand(50) < q, y, 1 - y) * 0.6 + 0.2
        S_list.append(np.column_stack([1 - p, p]))
    loss = _make_loss("error_rate", "classification", 2)
    w = fit_path_weights(S_list, y, loss)
    best_single = min(loss(y, S) for S in S_list)
    assert loss(y, np.tensordot(w, np.stack(S_list), axes=1)) <= best_single


# --------------------------------------------------------- constant / error rate
def _cells(counts, n_irrelevant=1):
    """Rows of binary (x0, x1, irrelevant...) with the given label counts per cell."""
    X, y = [], []
    for (x0, x1), labs in counts.items():
        for lab, c in labs.items():
            for k in range(c):
                irr = [(k >> j) & 1 for j in range(n_irrelevant)]
                X.append([x0, x1] + irr)
                y.append(lab)
    return np.array(X, float), np.array(y)


def _tops_constant_vs_rep(counts):
    X, y = _cells(counts)
    # the same rows serve as T, V1 and V2 (copies), for both methods
    Xa = np.vstack([X, X, X])
    ya = np.concatenate([y, y, y])
    sets = np.repeat([0, 1, 2], len(y))
    tops = ToPsClassifier(base_learners=[ConstantModel()], loss="error_rate").fit(Xa, ya, sets=sets)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).prune_reduced_error(X, y)
    grid = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)
    return tops, tree, grid


def test_constant_error_rate_tops_equals_validation_pruned_tree_when_greedy_suffices():
    """ToPs with a constant learner and the error rate is a classification tree
    whose splits are chosen by, and pre-pruned on, the V1 error; where every
    useful split lowers the V1 error by itself (here y = x0 AND x1 with
    unbalanced cells) it finds the tree that reduced-error pruning keeps."""
    counts = {(0, 0): {0: 4}, (0, 1): {0: 4}, (1, 0): {0: 2}, (1, 1): {1: 6}}
    tops, tree, grid = _tops_constant_vs_rep(counts)
    np.testing.assert_array_equal(tops.predict(grid), tree.predict(grid))
    assert len(tops.nodes_) == 5 and tops.nodes_[0].feature == 0


def test_constant_error_rate_tops_differs_from_post_pruning_by_not_looking_ahead():
    """How it differs: (1) growth is greedy pre-pruning on V1 -- a split is kept
    only if it lowers the V1 error by itself, while reduced-error pruning prunes
    a fully grown tree bottom-up and so keeps splits that only pay off deeper
    (XOR: no single split changes the error, so ToPs stays a root while the
    pruned tree is exact); (2) splits are chosen by the V1 error, not by the
    training impurity, among 9 percentile thresholds; (3) a side may keep an
    ancestor's class proportions; (4) the prediction mixes the proportions
    along the path with the V2 weights."""
    counts = {(0, 0): {0: 4}, (1, 1): {0: 4}, (0, 1): {1: 4}, (1, 0): {1: 4}}
    tops, tree, grid = _tops_constant_vs_rep(counts)
    assert len(tops.nodes_) == 1
    truth = (grid[:, 0] != grid[:, 1]).astype(int)
    np.testing.assert_array_equal(tree.predict(grid), truth)
    assert (tops.predict(grid) != truth).sum() == 4


# ------------------------------------------------------------ sklearn conventions
def test_same_random_state_same_model_and_pickle():
    X, y, _ = _data("log_loss", 4)
    a = ToPsClassifier(base_learners=["linear", "constant"], random_state=7).fit(X, y)
    b = ToPsClassifier(base_learners=["linear", "constant"], random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.sets_, b.sets_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict_proba(X), a.predict_proba(X))
    assert export_tops_text(c) == export_tops_text(a)


def test_default_split_is_75_15_10_and_stratified():
    rng = np.random.RandomState(0)
    X = rng.rand(400, 2)
    y = (rng.rand(400) < 0.3).astype(int)
    est = ToPsClassifier(random_state=0, max_depth=0).fit(X, y)
    counts = np.bincount(est.sets_)
    assert counts.tolist() == [300, 60, 40]
    for s in (0, 1, 2):
        assert abs(y[est.sets_ == s].mean() - y.mean()) < 0.02


def test_sklearn_estimator_learners_and_user_loss():
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.tree import DecisionTreeClassifier as SkTree
    X, y, sets = _data("auc", 5)
    X, y, sets = X[:100], y[:100], sets[:100]
    user = ToPsClassifier(base_learners=[LogisticRegression(), SkTree(max_depth=2), LinearRegression()],
                          loss=lambda yt, S: 1 - sk_metrics.roc_auc_score(yt, S[:, 1]),
                          random_state=0).fit(X, y, sets=sets)
    builtin = ToPsClassifier(base_learners=[LogisticRegression(), SkTree(max_depth=2),
                                            LinearRegression()], loss="auc",
                             random_state=0).fit(X, y, sets=sets)
    assert len(builtin.nodes_) > 1
    assert [(n.feature, n.learner, n.source) for n in user.nodes_] == \
        [(n.feature, n.learner, n.source) for n in builtin.nodes_]
    np.testing.assert_allclose(user.predict_proba(X), builtin.predict_proba(X))


def test_string_labels_multiclass_and_nominal_columns():
    import pandas as pd
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"a": rng.rand(150), "c": pd.Categorical(rng.choice(["u", "v", "w"], 150))})
    y = np.where(df["c"] == "u", "x", np.where(df["a"] > 0.5, "y", "z"))
    est = ToPsClassifier(base_learners=["logistic", "constant"], loss="log_loss",
                         random_state=0).fit(df, y)
    assert set(est.predict(df)) <= {"x", "y", "z"}
    assert est.score(df, y) > 0.8
    assert est.predict_proba(df).shape == (150, 3)
    assert "c = u" in est.feature_names_expanded_


@pytest.mark.parametrize("kw, exc, msg", [
    (dict(loss="hinge"), ValueError, "unknown loss"),
    (dict(loss=3), TypeError, "loss must be"),
    (dict(base_learners=[]), ValueError, "empty"),
    (dict(base_learners="linear"), TypeError, "list"),
    (dict(base_learners=[42]), TypeError, "node model"),
    (dict(base_learners=["quadratic"]), ValueError, "unknown node model"),
    (dict(validation_fraction=(0.5, 0.6)), ValueError, "validation_fraction"),
    (dict(max_depth=-1), ValueError, "max_depth"),
    (dict(min_samples_leaf=0), ValueError, "min_samples_leaf"),
    (dict(screen_candidates=0), ValueError, "screen_candidates"),
])
def test_bad_parameters(kw, exc, msg):
    X, y, _ = _data("log_loss", 0)
    with pytest.raises(exc, match=msg):
        ToPsClassifier(**kw).fit(X, y)


def test_bad_input():
    X, y, sets = _data("log_loss", 0)
    with pytest.raises(ValueError, match="two classes"):
        ToPsClassifier(loss="auc").fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="sets"):
        ToPsClassifier().fit(X, y, sets=sets[:-1])
    with pytest.raises(ValueError, match="sets must hold"):
        ToPsClassifier().fit(X, y, sets=sets + 5)
    with pytest.raises(ValueError, match="validation-2 set is empty"):
        ToPsClassifier().fit(X, y, sets=np.minimum(sets, 1))
    with pytest.raises(ValueError, match="NaN"):
        ToPsRegressor().fit(np.where(X > 0.9, np.nan, X), y)
    with pytest.raises(ValueError, match="LogisticModel is a classifier"):
        ToPsRegressor(base_learners=["logistic"]).fit(X, y.astype(float))
    est = ToPsClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


def test_literal_auc_helper_matches_sklearn():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 50)
    s = np.round(rng.rand(50), 1)                  # ties
    S = np.column_stack([1 - s, s])
    assert _one_minus_auc(y, S) == pytest.approx(1 - sk_metrics.roc_auc_score(y, s))


def test_plot_tops_draws_the_paper_figure():
    import matplotlib
    matplotlib.use("Agg")
    from treelab import plot_tops
    X, y, sets = _data("squared_error", 0)
    est = ToPsRegressor(base_learners=["constant", "linear"], random_state=0).fit(X, y, sets=sets)
    ax = plot_tops(est)
    texts = [t.get_text() for t in ax.texts]
    assert any("w=" in t for t in texts) and any("Δ=" in t for t in texts)
    leaf = next(nd for nd in est.nodes_ if nd.is_leaf)
    assert np.isfinite(leaf.terminal_gain)


def test_percentile_thresholds_are_numpys():
    from treelab.learners.tops import _sorted_percentiles
    rng = np.random.RandomState(0)
    for n in (1, 2, 3, 7, 10, 11, 100, 1234):
        for _ in range(20):
            x = np.sort(rng.randn(n) * rng.choice([1, 1e-3, 1e5]))
            if rng.rand() < 0.3:
                x = np.sort(np.round(x))
            np.testing.assert_array_equal(_sorted_percentiles(x),
                                          np.percentile(x, np.arange(10, 100, 10)))


@pytest.mark.parametrize("loss", ["log_loss", "auc"])
def test_screen_candidates_exact_when_wide_and_never_better_than_exact(loss):
    """``screen_candidates``: a screen wider than the candidate list, or only
    cheap learners, is the exact search; a narrow screen searches only the
    splits the cheap learners rank first, so its root split is never better
    (on V1) than the exact one's."""
    cls, learners, _ = CASES[loss]                  # logistic (costly) + linear (+ constant)
    X, y, sets = _data(loss, 0)
    exact = cls(base_learners=learners, loss=loss).fit(X, y, sets=sets)
    wide = cls(base_learners=learners, loss=loss, screen_candidates=10_000).fit(X, y, sets=sets)
    _same_fit(exact, wide)
    cheap = [m for m in learners if not isinstance(m, LogisticModel)]
    _same_fit(cls(base_learners=cheap, loss=loss).fit(X, y, sets=sets),
              cls(base_learners=cheap, loss=loss, screen_candidates=1).fit(X, y, sets=sets))
    for k in (1, 3):
        one = cls(base_learners=learners, loss=loss, screen_candidates=k).fit(X, y, sets=sets)
        assert not one.nodes_[0].is_leaf
        assert one.nodes_[0].split_loss >= exact.nodes_[0].split_loss - 1e-12
        for nd in one.nodes_:
            if not nd.is_leaf:
                assert nd.split_loss < nd.loss


# ------------------------------------------------------------------ sample weights
def _same_fit(a, b):
    assert len(a.nodes_) == len(b.nodes_)
    for p, q in zip(a.nodes_, b.nodes_):
        assert (p.feature, p.left, p.right, p.learner, p.source) == \
            (q.feature, q.left, q.right, q.learner, q.source)
        if p.feature >= 0:
            assert p.threshold == pytest.approx(q.threshold, rel=1e-12)
        assert p.loss == pytest.approx(q.loss, rel=1e-9, abs=1e-12)
        if p.is_leaf:
            np.testing.assert_allclose(p.weights, q.weights, atol=1e-6)


@pytest.mark.parametrize("loss", ["squared_error", "auc", "error_rate", "log_loss"])
def test_integer_sample_weight_equals_row_duplication(loss):
    kind = "squared_error" if loss == "squared_error" else "auc"
    cls = ToPsRegressor if loss == "squared_error" else ToPsClassifier
    X, y, sets = _data(kind, 2)
    w = np.random.RandomState(5).randint(1, 4, X.shape[0])
    learners = [ConstantModel(), LinearModel(alpha=0.1)]
    a = cls(base_learners=learners, loss=loss).fit(X, y, sample_weight=w, sets=sets)
    b = cls(base_learners=learners, loss=loss).fit(np.repeat(X, w, axis=0), np.repeat(y, w),
                                                   sets=np.repeat(sets, w))
    assert len(a.nodes_) > 1
    _same_fit(a, b)
    np.testing.assert_allclose(a._scores(X), b._scores(X), rtol=1e-7, atol=1e-9)
    # and the weights matter: unweighted grows another tree or other path weights
    c = cls(base_learners=learners, loss=loss).fit(X, y, sets=sets)
    assert [n.feature for n in c.nodes_] != [n.feature for n in a.nodes_] or not np.allclose(
        c._scores(X), a._scores(X))


def test_zero_sample_weight_removes_rows_and_unit_weight_changes_nothing():
    X, y, sets = _data("squared_error", 1)
    w = np.ones(X.shape[0])
    w[::7] = 0.0
    lrn = [ConstantModel(), LinearModel(alpha=0.1)]
    a = ToPsRegressor(base_learners=lrn).fit(X, y, sample_weight=w, sets=sets)
    keep = w > 0
    b = ToPsRegressor(base_learners=lrn).fit(X[keep], y[keep], sets=sets[keep])
    _same_fit(a, b)
    c = ToPsRegressor(base_learners=lrn).fit(X, y, sample_weight=np.ones(len(y)), sets=sets)
    d = ToPsRegressor(base_learners=lrn).fit(X, y, sets=sets)
    assert export_tops_text(c) == export_tops_text(d)


def test_weighted_percentiles_are_those_of_the_repeated_values():
    from treelab.learners.tops import _sorted_percentiles
    rng = np.random.RandomState(0)
    for n in (1, 2, 5, 30):
        x = np.sort(rng.randn(n))
        w = rng.randint(0, 4, n).astype(float)
        w[rng.randint(n)] = 1.0
        np.testing.assert_allclose(_sorted_percentiles(x, w),
                                   np.percentile(np.repeat(x, w.astype(int)),
                                                 np.arange(10, 100, 10)), rtol=1e-12)


def test_weighted_auc_and_user_loss_with_sample_weight():
    from treelab.learners.tops import _make_loss
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 60)
    s = np.round(rng.rand(60), 1)
    w = rng.randint(1, 4, 60).astype(float)
    S = np.column_stack([1 - s, s])
    auc = _make_loss("auc", "classification", 2)
    assert auc(y, S, w=w) == pytest.approx(
        1 - sk_metrics.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    X, yy, sets = _data("auc", 0)
    wt = np.random.RandomState(1).randint(1, 3, len(yy))

    def user(yt, S, sample_weight=None):
        if np.unique(yt).shape[0] < 2:
            return 0.5
        return 1 - sk_metrics.roc_auc_score(yt, S[:, 1], sample_weight=sample_weight)
    lrn = [LinearModel(alpha=1.0), ConstantModel()]
    a = ToPsClassifier(base_learners=lrn, loss=user).fit(X, yy, sample_weight=wt, sets=sets)
    b = ToPsClassifier(base_learners=lrn, loss="auc").fit(X, yy, sample_weight=wt, sets=sets)
    assert [(n.feature, n.learner, n.source) for n in a.nodes_] == \
        [(n.feature, n.learner, n.source) for n in b.nodes_]
    with pytest.raises(ValueError, match="sample_weight keyword"):
        ToPsClassifier(loss=lambda yt, S: 0.0).fit(X, yy, sample_weight=wt, sets=sets)
    with pytest.raises(ValueError, match="Negative"):
        ToPsClassifier().fit(X, yy, sample_weight=-np.ones(len(yy)), sets=sets)
    with pytest.raises(ValueError, match="validation-1 set has only zero sample weights"):
        ToPsClassifier().fit(X, yy, sample_weight=(sets != 1).astype(float), sets=sets)
    with pytest.raises(ValueError, match="all sample weights are zero"):
        ToPsClassifier().fit(X, yy, sample_weight=np.zeros(len(yy)), sets=sets)


# ------------------------------------------------- shared node data for ensemble learners
def _tied_data(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.rand(n), rng.randint(0, 5, n) / 4.0, np.round(rng.rand(n), 1),
                         (rng.rand(n) > 0.5).astype(float)])
    y = ((X[:, 0] + X[:, 1] - X[:, 2] + 0.3 * rng.randn(n)) > 0.5).astype(int)
    return X, y


@pytest.mark.parametrize("max_bins", [255, 6])
def test_side_data_equals_binning_the_side(max_bins):
    """A side's bins derived from the node's distinct values are ``bin_data`` of the
    side's rows (max_bins=6: the continuous column has more values, binned as usual);
    the presort restricted to the rows is the side's presort (tie-free column)."""
    from treelab._engine.binning import bin_data, presort
    from treelab.node_models import _prepare_node, _side_data
    X, _ = _tied_data()
    rng = np.random.RandomState(1)
    hist_node, sort_node = _prepare_node(X, True), _prepare_node(X, False)
    for size in (1, 7, 60, 119):
        rows = np.sort(rng.choice(X.shape[0], size, replace=False))
        got = _side_data(hist_node, X, rows, True, max_bins)
        ref = bin_data(X[rows], np.zeros(4, bool), np.zeros(4, np.int64), True, max_bins)
        for name in ("X", "Xb", "edges", "edge_offsets", "is_nominal", "n_cats"):
            np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
            assert getattr(got, name).dtype == getattr(ref, name).dtype
        assert (got.use_hist, got.missing_bin, got.n_bins) == (ref.use_hist, ref.missing_bin,
                                                               ref.n_bins)
        got = _side_data(sort_node, X, rows, False, 255)
        order, vals = presort(X[rows], np.zeros(4, bool))
        np.testing.assert_array_equal(got.vals, vals)
        np.testing.assert_array_equal(got.order[0], order[0])      # column 0 has no ties
        for f in range(4):
            np.testing.assert_array_equal(X[rows][got.order[f], f], vals[f])


def _ensembles(task):
    from treelab import (AdaBoostClassifier, AdaBoostRegressor, GradientBoostingClassifier,
                         GradientBoostingRegressor, RandomForestClassifier)
    if task == "classification":
        return [AdaBoostClassifier(n_estimators=4, random_state=0),
                GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0),
                RandomForestClassifier(n_estimators=3, min_samples_leaf=3, random_state=0)]
    return [AdaBoostRegressor(n_estimators=3, random_state=0),
            GradientBoostingRegressor(n_estimators=4, max_depth=2, random_state=0)]


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_ensemble_cut_path_equals_fitting_each_side(task):
    """``EstimatorModel._fit_cuts`` on the node's prepared data gives, at every cut,
    the predictions of the ensemble fitted on the side's rows (in training-set
    order); the first column has no ties, so even the presorted fit is identical."""
    from treelab.node_models import EstimatorModel
    X, y = _tied_data(seed=2)
    yt = y if task == "classification" else X[:, 0] * 2 + X[:, 2] + y
    K = 2 if task == "classification" else 1
    w = np.ones(X.shape[0])
    order = np.argsort(X[:, 0], kind="stable")
    cut_pos = np.array([12, 40, 61, 100])
    for est in _ensembles(task):
        m = EstimatorModel(est)
        lefts, rights = m._fit_cuts(X, yt, w, task, K, order, cut_pos, cache={})
        for p, lm, rm in zip(cut_pos, lefts, rights):
            for rows, mdl in ((np.sort(order[:p]), lm), (np.sort(order[p:]), rm)):
                ref = EstimatorModel(est)._fit_task(X[rows], yt[rows], w[rows], task, K)
                np.testing.assert_array_equal(mdl._scores(X), ref._scores(X))


def test_tops_with_ensembles_same_tree_as_plain_refits(monkeypatch):
    """ToPs with treelab ensembles: the prepared-data cut path grows the same tree
    and weights as refitting the ensembles on every side from scratch."""
    from treelab.node_models import EstimatorModel, NodeModel
    X, y = _tied_data(n=150, seed=3)
    sets = _sets(150, np.random.RandomState(3))
    fast = ToPsClassifier(base_learners=_ensembles("classification"), loss="log_loss",
                          max_depth=2, random_state=0).fit(X, y, sets=sets)
    monkeypatch.setattr(EstimatorModel, "_fit_cuts", NodeModel._fit_cuts)
    plain = ToPsClassifier(base_learners=_ensembles("classification"), loss="log_loss",
                           max_depth=2, random_state=0).fit(X, y, sets=sets)
    assert len(fast.nodes_) > 1
    _same_fit(fast, plain)
    np.testing.assert_array_equal(fast.predict_proba(X), plain.predict_proba(X))


# ------------------------------------------------------ the bounded exact search
@pytest.mark.parametrize("loss", ["error_rate", "log_loss", "squared_error"])
def test_bounded_search_is_the_exact_search(loss, monkeypatch):
    """Additive losses with costly learners: the search that skips a cut's second
    side once its first side alone exceeds the best joint loss grows the same
    tree, thresholds, predictors and weights as fitting every side, and it does
    skip sides here (so the comparison tests the bound)."""
    import treelab.learners.tops as tops
    X, y = _tied_data(n=200, seed=4)
    X = np.column_stack([X, np.random.RandomState(5).rand(200, 2)])
    sets = _sets(200, np.random.RandomState(4))
    growers = []
    grow = tops._Grower.grow

    def spy(self):
        growers.append(self)
        return grow(self)
    monkeypatch.setattr(tops._Grower, "grow", spy)

    def fit(bounded):
        monkeypatch.setattr(tops._Grower, "bounded", bounded)
        if loss == "squared_error":
            return ToPsRegressor(base_learners=[LinearModel()] + _ensembles("regression"),
                                 max_depth=3, random_state=0).fit(X, X[:, 0] + y, sets=sets)
        return ToPsClassifier(base_learners=[LinearModel(), LogisticModel()]
                              + _ensembles("classification"), loss=loss, max_depth=3,
                              random_state=0).fit(X, y, sets=sets)
    plain, bounded = fit(False), fit(True)
    assert len(plain.nodes_) > 1
    _same_fit(plain, bounded)
    for p, q in zip(plain.nodes_, bounded.nodes_):
        assert p.split_loss == q.split_loss or np.isnan(p.split_loss) and np.isnan(q.split_loss)
    np.testing.assert_allclose(plain._scores(X), bounded._scores(X), rtol=1e-9, atol=1e-12)
    assert growers[0].bound_stats == [0, 0]                 # unbounded: nothing skipped
    seen, skipped = growers[1].bound_stats
    assert 0 < skipped < seen


def test_bounded_search_with_sample_weights_and_auc_unbounded(monkeypatch):
    """Weighted error rate: the bound works on weighted side sums (same fit with
    and without it); 1 - AUC is not additive, so it never takes the bounded path."""
    import treelab.learners.tops as tops
    X, y = _tied_data(n=160, seed=6)
    sets = _sets(160, np.random.RandomState(6))
    wt = np.random.RandomState(7).randint(0, 4, 160).astype(float)
    lrn = [LinearModel(), LogisticModel()] + _ensembles("classification")[:1]
    fits = {}
    for b in (False, True):
        monkeypatch.setattr(tops._Grower, "bounded", b)
        fits[b] = ToPsClassifier(base_learners=lrn, loss="error_rate", max_depth=2,
                                 random_state=0).fit(X, y, sample_weight=wt, sets=sets)
    _same_fit(fits[False], fits[True])
    growers = []
    grow = tops._Grower.grow
    monkeypatch.setattr(tops._Grower, "grow", lambda self: growers.append(self) or grow(self))
    ToPsClassifier(base_learners=lrn, loss="auc", max_depth=1).fit(X, y, sets=sets)
    assert growers[0].bound_stats == [0, 0]


class _PickyClassifier:
    """A logistic regression that refuses (ValueError) to fit fewer than ``min_rows``
    rows, as AdaBoost refuses a side whose first stump is no better than chance."""

    _estimator_type = "classifier"

    def __init__(self, min_rows=60):
        self.min_rows = min_rows

    def get_params(self, deep=True):
        return {"min_rows": self.min_rows}

    def set_params(self, **p):
        self.min_rows = p.get("min_rows", self.min_rows)
        return self

    def __sklearn_tags__(self):
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression().__sklearn_tags__()

    def fit(self, X, y, sample_weight=None):
        from sklearn.linear_model import LogisticRegression
        if X.shape[0] < self.min_rows:
            raise ValueError(f"picky: {X.shape[0]} rows < {self.min_rows}")
        self.m_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.m_.classes_
        return self

    def predict_proba(self, X):
        return self.m_.predict_proba(X)

    def predict(self, X):
        return self.m_.predict(X)


@pytest.mark.parametrize("loss", ["auc", "error_rate"])
def test_a_learner_that_cannot_fit_a_side_is_never_selected_there(loss):
    """A base learner whose fit raises ValueError on some candidate side (AdaBoost's
    "worse than random" first stump crashed a Table III fit) does not stop ToPs:
    it predicts NaN on that side and is never chosen there; as a plain node model
    (on_error="raise") it still raises."""
    from treelab.node_models import EstimatorModel
    X, y, sets = _data(loss, 3)
    picky = _PickyClassifier(min_rows=60)
    tops = ToPsClassifier(base_learners=[picky, LinearModel()], loss=loss,
                          random_state=0).fit(X, y, sets=sets)
    assert len(tops.nodes_) > 1
    used = [nd for nd in tops.nodes_ if nd.learner == 0]
    assert used          # chosen where it could be fitted (trained on >= 60 rows) ...
    for nd in used:      # ... and nowhere else (source: the node it was trained on)
        assert tops.nodes_[nd.source].n_train >= 60, nd
    assert any(nd.n_train < 60 for nd in tops.nodes_)
    assert np.isfinite(tops.predict_proba(X)).all()
    with pytest.raises(ValueError, match="picky"):
        EstimatorModel(_PickyClassifier(10 ** 6))._fit_task(X, y, np.ones(len(y)), "classification", 2)
    with pytest.raises(ValueError, match="on_error"):
        EstimatorModel(picky, on_error="ignore")._fit_task(X, y, np.ones(len(y)), "classification", 2)
