"""gcForest: cascade forests and multi-grained scanning (issue 12).

The forests of the tests are scikit-learn's (RandomForestClassifier and
ExtraTreesClassifier(max_features=1) as a completely-random stand-in) or small
spies written here; the cascade takes any forest list.  Tests of the default
(treelab) forests skip while ``treelab.ensembles.forest`` does not exist.
"""
import pickle
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor  # noqa: E402

from treelab import (  # noqa: E402
    CascadeForestClassifier, CascadeForestRegressor, GcForestClassifier, MultiGrainedScanning,
)
from treelab._sklearn_compat import BaseEstimator, ClassifierMixin  # noqa: E402
from treelab.ensembles import scanning as scanning_mod  # noqa: E402

def _forests(n=8):
    return [RandomForestClassifier(n, n_jobs=1), ExtraTreesClassifier(n, max_features=1,
                                                                       n_jobs=1)]


def _data(n=240, d=6, k=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int) * (k > 2)
    return X, y


class Memoriser(ClassifierMixin, BaseEstimator):
    """A 'forest' that remembers the id (column 0) of every training row and
    answers a seen id with that row's label (certainty), an unseen id with the
    uniform vector.  It fails loudly if it is ever asked about a row it saw
    unless ``allow_seen``: the k-fold class vectors must never ask it."""

    def __init__(self, allow_seen=False, random_state=None):
        self.allow_seen = allow_seen
        self.random_state = random_state

    def fit(self, X, y):
        X = np.asarray(X)
        self.classes_ = np.unique(y)
        self.seen_ = dict(zip(X[:, 0].tolist(), np.asarray(y).tolist()))
        return self

    def predict_proba(self, X):
        X = np.asarray(X)
        out = np.full((X.shape[0], self.classes_.shape[0]), 1.0 / self.classes_.shape[0])
        for i, v in enumerate(X[:, 0].tolist()):
            if v in self.seen_:
                if not self.allow_seen:
                    raise AssertionError(f"leak: row id {v} was in this model's training set")
                out[i] = (self.classes_ == self.seen_[v]).astype(float)
        return out

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(1)]


# ------------------------------------------------------------------ cascade
def test_one_level_one_forest_equals_that_forest():
    X, y = _data()
    Xt, _ = _data(seed=1)
    c = CascadeForestClassifier(forests=[RandomForestClassifier(10, n_jobs=1)],
                                class_vectors="oob", validation="kfold", max_levels=1,
                                max_bins=None, random_state=0).fit(X, y)
    assert c.n_levels_ == 1 and len(c.levels_[0].estimators) == 1
    seed = c.levels_[0].estimators[0][0].random_state
    ref = RandomForestClassifier(10, n_jobs=1, random_state=seed).fit(X, y)
    np.testing.assert_allclose(c.predict_proba(Xt), ref.predict_proba(Xt))
    np.testing.assert_array_equal(c.predict(Xt), ref.predict(Xt))
    Xr, yr = X, X[:, 0] * 2 + X[:, 1]
    r = CascadeForestRegressor(forests=[RandomForestRegressor(10, n_jobs=1)],
                               class_vectors="oob", validation="kfold", max_levels=1,
                               max_bins=None, random_state=0).fit(Xr, yr)
    seed = r.levels_[0].estimators[0][0].random_state
    ref = RandomForestRegressor(10, n_jobs=1, random_state=seed).fit(Xr, yr)
    np.testing.assert_allclose(r.predict(Xt), ref.predict(Xt))


def test_kfold_prediction_averages_the_fold_models():
    X, y = _data()
    c = CascadeForestClassifier(forests=_forests(), validation="kfold", max_levels=1,
                                random_state=0).fit(X, y)
    level = c.levels_[0]
    assert [len(m) for m in level.estimators] == [3, 3]
    Xb = c._raw_block(np.asarray(X, float), False).astype(np.float32)
    ref = np.mean([e.predict_proba(Xb) for ests in level.estimators for e in ests], axis=0)
    np.testing.assert_allclose(c.predict_proba(X), ref, atol=1e-12)


def test_max_bin_codes_are_the_quantile_bins_of_the_raw_features():
    X, y = _data()
    c = CascadeForestClassifier(forests=_forests(), max_levels=1, max_bins=4,
                                validation="kfold", random_state=0).fit(X, y)
    codes = c._raw_block(np.asarray(X, float), False)
    for j in range(X.shape[1]):
        assert set(np.unique(codes[:, j])) <= {0, 1, 2, 3}
        # monotone: a larger value never gets a smaller code
        o = np.argsort(X[:, j])
        assert (np.diff(codes[o, j]) >= 0).all()


@pytest.mark.parametrize("validation", ["kfold", "holdout"])
@pytest.mark.parametrize("max_bins", [None, 255])
def test_kfold_class_vectors_never_come_from_a_model_that_saw_the_row(validation, max_bins):
    rng = np.random.RandomState(0)
    n = 200                                  # <= 255: every id keeps its own bin
    X = np.column_stack([np.arange(n, dtype=float), rng.normal(size=(n, 2))])
    y = rng.randint(0, 2, n)                 # pure noise: only memorising can fit it
    c = CascadeForestClassifier(forests=[Memoriser(), Memoriser()], max_levels=3,
                                n_iter_no_change=3, validation=validation, max_bins=max_bins,
                                random_state=0)
    c.fit(X, y)                              # a leak raises inside Memoriser
    for rec in c.history_:
        assert rec["train_score"] < 0.75     # a leak would give 1.0
    # the spy does catch a leak: in-sample vectors raise / are perfect
    with pytest.raises(AssertionError, match="leak"):
        Memoriser().fit(X, y).predict_proba(X)
    assert Memoriser(allow_seen=True).fit(X, y).score(X, y) == 1.0


def test_oob_class_vectors_do_not_leak():
    rng = np.random.RandomState(0)
    n = 300
    X = np.column_stack([np.arange(n, dtype=float), rng.normal(size=(n, 2))])
    y = rng.randint(0, 2, n)
    rf = RandomForestClassifier(30, n_jobs=1, random_state=0)
    assert rf.fit(X, y).score(X, y) > 0.95                  # in-sample memorises the noise
    c = CascadeForestClassifier(forests=[rf], class_vectors="oob", validation="kfold",
                                max_levels=2, n_iter_no_change=2, random_state=0).fit(X, y)
    for rec in c.history_:
        assert rec["train_score"] < 0.7


def _reference_levels(scores, delta, tol, max_levels):
    best, best_s, bad, grown = 0, -np.inf, 0, 0
    for i, s in enumerate(scores[:max_levels]):
        grown += 1
        if s > best_s + delta:
            best, best_s, bad = i + 1, s, 0
        else:
            bad += 1
            if bad >= tol:
                break
    return best, grown


@pytest.mark.parametrize("tol,delta", [(1, 0.0), (2, 0.0), (3, 0.01)])
def test_growth_rule_and_history(tol, delta):
    X, y = _data(n=300, seed=3)
    c = CascadeForestClassifier(forests=_forests(4), max_levels=5, n_iter_no_change=tol,
                                tol=delta, validation="holdout", random_state=1).fit(X, y)
    grow = [r for r in c.history_ if r["phase"] == "grow"]
    refit = [r for r in c.history_ if r["phase"] == "refit"]
    best, grown = _reference_levels([r["val_score"] for r in grow], delta, tol, 5)
    assert len(grow) == grown and c.n_levels_ == best == len(c.levels_) == len(refit)
    for r in c.history_:
        assert r["fit_time"] >= 0 and r["rss_mb"] > 0 and r["peak_rss_mb"] > 0
    assert grow[0]["n_features_in"] == X.shape[1]
    if len(grow) > 1:
        assert grow[1]["n_features_in"] == X.shape[1] + 2 * 3
    import matplotlib
    matplotlib.use("Agg")
    fig = c.plot()
    assert fig.axes and fig.axes[0].get_xlabel() == "level"


def test_levels_see_raw_features_plus_previous_class_vectors():
    X, y = _data()
    c = CascadeForestClassifier(forests=_forests(), max_levels=2, n_iter_no_change=2,
                                validation="kfold", random_state=0).fit(X, y)
    assert c.n_levels_ >= 1
    for lev, level in enumerate(c.levels_):
        for ests in level.estimators:
            assert ests[0].n_features_in_ == X.shape[1] + (0 if lev == 0 else 2 * 3)


def test_final_estimator_is_trained_on_raw_plus_class_vectors():
    X, y = _data()
    c = CascadeForestClassifier(forests=_forests(), max_levels=2, validation="kfold",
                                final_estimator=RandomForestClassifier(5, n_jobs=1),
                                random_state=0).fit(X, y)
    assert c.final_estimator_.n_features_in_ == X.shape[1] + 2 * 3
    _, Z = c._vectors_of(X)
    np.testing.assert_allclose(c.predict_proba(X), c.final_estimator_.predict_proba(Z))


@pytest.mark.parametrize("cv", ["kfold", "oob"])
def test_same_model_whatever_n_jobs(cv):
    X, y = _data()
    a = CascadeForestClassifier(forests=_forests(), max_levels=3, class_vectors=cv,
                                random_state=0, n_jobs=1).fit(X, y)
    b = CascadeForestClassifier(forests=_forests(), max_levels=3, class_vectors=cv,
                                random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert [r["train_score"] for r in a.history_] == [r["train_score"] for r in b.history_]


def test_string_labels_pandas_and_pickle():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    labels = np.array(["a", "b", "c"])[y]
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    c = CascadeForestClassifier(forests=_forests(), max_levels=2, random_state=0).fit(df, labels)
    assert set(c.predict(df)) <= {"a", "b", "c"} and c.score(df, labels) > 0.8
    c2 = pickle.loads(pickle.dumps(c))
    np.testing.assert_array_equal(c.predict_proba(df), c2.predict_proba(df))
    r = CascadeForestRegressor(forests=[RandomForestRegressor(5, n_jobs=1),
                                        ExtraTreesRegressor(5, max_features=1, n_jobs=1)],
                               max_levels=2, random_state=0).fit(X, X[:, 0] * 3 + X[:, 1])
    r2 = pickle.loads(pickle.dumps(r))
    np.testing.assert_array_equal(r.predict(X), r2.predict(X))
    assert r.score(X, X[:, 0] * 3 + X[:, 1]) > 0.7


def test_bad_input():
    X, y = _data(n=60)
    C = CascadeForestClassifier
    f = _forests(2)
    for kw, exc in [({"forests": RandomForestClassifier()}, TypeError),
                    ({"forests": []}, TypeError),
                    ({"forests": [RandomForestClassifier]}, TypeError),
                    ({"forests": f, "n_folds": 1}, ValueError),
                    ({"forests": f, "n_estimators": 0}, ValueError),
                    ({"forests": f, "class_vectors": "loo"}, ValueError),
                    ({"forests": f, "validation": "test"}, ValueError),
                    ({"forests": f, "validation_fraction": 1.0}, ValueError),
                    ({"forests": f, "max_levels": 0}, ValueError),
                    ({"forests": f, "tol": -1}, ValueError),
                    ({"forests": f, "n_iter_no_change": 0}, ValueError),
                    ({"forests": f, "max_bins": 256}, ValueError),
                    ({"forests": f, "n_jobs": 0}, ValueError),
                    ({"forests": [Memoriser()], "class_vectors": "oob"}, ValueError),
                    ({"forests": f, "final_estimator": "gb"}, TypeError)]:
        with pytest.raises(exc):
            C(**kw).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        C(forests=f).fit(X, np.zeros(60))
    with pytest.raises(ValueError):
        C(forests=f).fit(X, np.full(60, np.nan))
    with pytest.raises(ValueError):
        C(forests=f).fit(X[:2], y[:2])
    with pytest.raises(ValueError):
        C(forests=f).fit(X, y[:-1])
    with pytest.raises((ValueError, TypeError)):
        C(forests=f).fit(np.array([["a"] * 6] * 60), y)
    with pytest.raises(ValueError, match="not fitted"):
        C(forests=f).predict(X)
    c = C(forests=f, max_levels=1).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        c.predict(X[:, :3])
    with pytest.raises(ValueError):
        CascadeForestRegressor(forests=[RandomForestRegressor(2)]).fit(X, ["x"] * 60)


def test_default_forests_are_the_papers_level():
    from treelab.ensembles.cascade import _default_forests
    from treelab.ensembles.forest import (
        CompletelyRandomForestClassifier, RandomForestClassifier as TRF,
    )
    fs = _default_forests("classification", 7, 0)
    assert [type(f) for f in fs] == [TRF, TRF, CompletelyRandomForestClassifier,
                                     CompletelyRandomForestClassifier]
    assert all(f.n_estimators == 7 for f in fs) and fs[0].max_features == "sqrt"
    X, y = _data()
    c = CascadeForestClassifier(n_estimators=5, max_levels=2, random_state=0).fit(X, y)
    assert c.score(X, y) > 0.8
    r = CascadeForestRegressor(n_estimators=5, max_levels=2, random_state=0).fit(X, X[:, 0])
    assert r.score(X, X[:, 0]) > 0.5


# ------------------------------------------------------------------ scanning
def test_window_geometry_matches_a_naive_loop():
    rng = np.random.RandomState(0)
    H, W, s, st = 6, 5, 3, 2
    X = rng.normal(size=(4, H * W))
    g = scanning_mod._Grain(s, (H, W), H * W, st, None)
    got = scanning_mod._extract_windows(X, np.arange(4), g.base, g.offs)
    ref = [X[i].reshape(H, W)[r:r + s, c:c + s].ravel()
           for i in range(4) for r in range(0, H - s + 1, st) for c in range(0, W - s + 1, st)]
    np.testing.assert_array_equal(got, np.array(ref))
    assert g.grid == (2, 2)
    gs = scanning_mod._Grain(4, None, 10, 3, None)
    got = scanning_mod._extract_windows(X[:, :10], np.arange(4), gs.base, gs.offs)
    ref = [X[i, p:p + 4] for i in range(4) for p in (0, 3, 6)]
    np.testing.assert_array_equal(got, np.array(ref))
    m = MultiGrainedScanning(forests=_forests(2))
    assert m._check(64)["sizes"] == [4, 8, 16]              # floor(d/16), floor(d/8), floor(d/4)
    assert MultiGrainedScanning(image_shape=(28, 28), forests=_forests(2))._check(784)[
        "sizes"] == [7, 10, 13]


def _digits(n=300):
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    return X[:n], y[:n]


def test_chunk_bound_is_respected(monkeypatch):
    X, y = _digits(120)
    seen = []
    orig = scanning_mod._extract_windows

    def spy(X, rows, base, offs):
        out = orig(X, rows, base, offs)
        seen.append(out.shape[0])
        return out
    monkeypatch.setattr(scanning_mod, "_extract_windows", spy)
    m = MultiGrainedScanning(image_shape=(8, 8), window_sizes=[3, 5], stride=1,
                             forests=_forests(2), chunk_size=100, max_train_windows=500,
                             random_state=0)
    Z = m.fit_transform(X, y)
    assert seen and max(seen) <= 100                # 36 and 16 positions: 2 and 6 images
    assert Z.shape == (120, (36 + 16) * 2 * 10)
    seen.clear()
    m.transform(X[:50])
    assert seen and max(seen) <= 100


class _Cheap(ClassifierMixin, BaseEstimator):
    """A 'forest' whose predictions cost nothing, so the windows dominate memory."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        out = np.empty((X.shape[0], self.classes_.shape[0]))
        out[:] = X[:, :1] > 0
        return out


def test_windows_are_never_all_materialised():
    rng = np.random.RandomState(0)
    n, side, s = 300, 16, 4
    X = rng.normal(size=(n, side * side))
    y = rng.randint(0, 2, n)
    m = MultiGrainedScanning(image_shape=(side, side), window_sizes=[s], stride=1,
                             forests=[_Cheap()], n_folds=None, chunk_size=400,
                             max_train_windows=1000, random_state=0).fit(X, y)
    P = (side - s + 1) ** 2
    full = n * P * s * s * 8                            # all windows at once: 6.5 MB
    tracemalloc.start()
    Z = m.transform(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert Z.shape == (n, P * 2)
    assert peak < Z.nbytes + full / 5, (peak, full)


def test_scanning_cross_fitting_does_not_leak():
    # every window of example i is (i, i, ..., i): a memoriser would recognise it
    n, d = 90, 16
    X = np.repeat(np.arange(n, dtype=float)[:, None], d, axis=1)
    y = np.random.RandomState(0).randint(0, 3, n)
    m = MultiGrainedScanning(forests=[Memoriser()], random_state=0)
    Z = m.fit_transform(X, y)                           # a leak raises inside Memoriser
    np.testing.assert_allclose(Z, 1.0 / 3)
    with pytest.raises(AssertionError, match="leak"):
        MultiGrainedScanning(forests=[Memoriser()], n_folds=None).fit_transform(X, y)


def test_pooling_averages_blocks_of_positions():
    X, y = _digits(150)
    kw = dict(image_shape=(8, 8), window_sizes=[3], stride=1, forests=_forests(3),
              random_state=0, max_train_windows=800)
    full = MultiGrainedScanning(**kw).fit(X, y).transform(X[:20])           # 6x6 grid
    for how in ("mean", "max"):
        pooled = MultiGrainedScanning(pooling=how, pool_size=4, **kw).fit(X, y).transform(X[:20])
        f = full.reshape(20, 2, 6, 6, 10)
        ref = np.empty((20, 2, 2, 2, 10))
        agg = np.mean if how == "mean" else np.max
        for a in range(2):
            for b in range(2):
                ref[:, :, a, b] = agg(f[:, :, 4 * a:4 * a + 4, 4 * b:4 * b + 4], axis=(2, 3))
        np.testing.assert_allclose(pooled, ref.reshape(20, -1))


def test_gcforest_digits_pickle_and_determinism():
    X, y = _digits(300)
    kw = dict(image_shape=(8, 8), window_sizes=[3, 5], stride=1, scan_forests=_forests(5),
              forests=_forests(5), max_levels=2, max_train_windows=2000, pooling="mean",
              random_state=0)
    g = GcForestClassifier(n_jobs=1, **kw).fit(X[:200], y[:200])
    assert g.score(X[200:], y[200:]) > 0.7
    g2 = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(g.predict_proba(X[200:]), g2.predict_proba(X[200:]))
    g3 = GcForestClassifier(n_jobs=2, **kw).fit(X[:200], y[:200])
    np.testing.assert_array_equal(g.predict_proba(X[200:]), g3.predict_proba(X[200:]))
    # the input errors name the estimator called, not its scanning part
    with pytest.raises(ValueError, match="GcForestClassifier is expecting 64 features"):
        g.predict(X[200:, :10])


def test_scanning_bad_input():
    X, y = _digits(40)
    M = MultiGrainedScanning
    f = _forests(2)
    for kw in [{"image_shape": (7, 8)}, {"image_shape": 64}, {"window_sizes": [9],
                                                               "image_shape": (8, 8)},
               {"window_sizes": []}, {"window_sizes": [0]}, {"stride": 0},
               {"pooling": "median"}, {"n_folds": 1}, {"chunk_size": 0},
               {"max_train_windows": -1}]:
        with pytest.raises(ValueError):
            M(forests=f, **kw).fit(X, y)
    with pytest.raises(TypeError):
        M(forests=[object()]).fit(X, y)
    with pytest.raises(ValueError):
        M(forests=f).fit(X[:, :3], y)            # d = 3: no default window size >= 1
    with pytest.raises(ValueError, match="not fitted"):
        M(forests=f).transform(X)


def test_holdout_without_refit_keeps_the_growth_levels():
    X, y = _data(n=200)
    c = CascadeForestClassifier(forests=_forests(3), max_levels=2, n_iter_no_change=2,
                                refit=False, random_state=0).fit(X, y)
    assert all(r["phase"] == "grow" for r in c.history_)
    assert len(c.levels_) == c.n_levels_ and all(lv.estimators for lv in c.levels_)
    # trained on the 80 % growing part only: the first level's fold models saw 2/3 of it
    assert c.levels_[0].estimators[0][0].n_features_in_ == X.shape[1]
    assert c.predict_proba(X).shape == (200, 3)


def test_verbose_progress_bar(capsys):
    X, y = _data(n=120)
    CascadeForestClassifier(forests=_forests(2), max_levels=2, n_iter_no_change=2,
                            validation="kfold", verbose=1, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    assert "CascadeForestClassifier" in err and "level" in err


# ------------------------------------------------------- treelab forests (fast path)
def _treelab_forests(n=5):
    from treelab.ensembles.forest import (
        CompletelyRandomForestClassifier as CRF, RandomForestClassifier as TRF,
    )
    return [TRF(n, random_state=0), CRF(n, random_state=0)]


def _int_data(n=300, d=5, seed=0):
    """Few distinct values per column: every fold sees every code."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 6, size=(n, d)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.randint(0, 3, n) > 6).astype(int) + (X[:, 2] > 3)
    return X, y


def test_fast_path_fold_models_are_the_forests_fitted_on_their_rows():
    """The cascade grows treelab's forests itself on shared codes: each fold model
    must equal ``Forest(random_state=seed, splitter="hist").fit(codes[rows], y[rows])``
    and the out-of-fold class vectors must come from the fold model that did not
    see the row (reference recomputed here with the public forests)."""
    from treelab.ensembles.cascade import _SEED_MAX, _fold_ids
    from treelab.ensembles.forest import (
        CompletelyRandomForestClassifier as CRF, RandomForestClassifier as TRF,
    )
    X, y = _int_data()
    Xt, _ = _int_data(seed=1)
    c = CascadeForestClassifier(forests=_treelab_forests(), validation="kfold", max_levels=1,
                                random_state=0, n_jobs=1).fit(X, y)
    assert c._fast and c.n_levels_ == 1
    codes = c._raw_codes(X, False).astype(float)
    codes_t = c._raw_codes(Xt, False).astype(float)
    # the cascade's draws, replayed: binning seed, model seeds, fold ids
    rng = np.random.RandomState(0)
    rng.randint(_SEED_MAX)
    seeds = rng.randint(_SEED_MAX, size=(2, 3))
    fold = _fold_ids(y, 3, rng, True)
    oof = np.zeros((X.shape[0], 3))
    new = np.zeros((Xt.shape[0], 3))
    for f, cls in enumerate([TRF, CRF]):
        for j in range(3):
            tr = fold != j
            assert all(np.unique(codes[tr, col]).size == np.unique(codes[:, col]).size
                       for col in range(X.shape[1]))
            ref = cls(5, splitter="hist", random_state=int(seeds[f, j])).fit(codes[tr], y[tr])
            oof[~tr] += ref.predict_proba(codes[~tr]) / 2
            new += ref.predict_proba(codes_t) / 6
    np.testing.assert_allclose(c.predict_proba(Xt), new, rtol=1e-6, atol=1e-7)
    assert c.history_[0]["train_score"] == pytest.approx(np.mean(oof.argmax(1) == y))


def test_fast_path_compact_trees_predict_as_the_full_trees(monkeypatch):
    from treelab.ensembles import _cascade_fast as fast
    X, y = _data(n=300, seed=2)
    kw = dict(forests=_treelab_forests(), max_levels=2, n_iter_no_change=2, random_state=0)
    a = CascadeForestClassifier(**kw).fit(X, y)
    monkeypatch.setattr(fast, "NARROW", False)
    b = CascadeForestClassifier(**kw).fit(X, y)
    assert a.levels_[0].estimators[0].forest.value.dtype == np.float32
    assert b.levels_[0].estimators[0].forest.value.dtype == np.float64
    assert a.levels_[0].estimators[0].nbytes < 0.5 * b.levels_[0].estimators[0].nbytes
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-5, atol=1e-6)
    assert [r["train_score"] for r in a.history_] == [r["train_score"] for r in b.history_]


def test_fast_path_trees_do_not_read_the_placeholder_values():
    """binned_data's X only carries the shape: a tree grown with it filled with NaN
    equals one grown with the codes as values."""
    from treelab.ensembles import _cascade_fast as fast
    from treelab.split_criteria import get_criterion
    from treelab._engine.builder import make_params
    from treelab._engine.merit import TASK_CLASSIFICATION
    from treelab.ensembles.forest import CompletelyRandomForestClassifier as CRF
    from treelab.ensembles.forest import RandomForestClassifier as TRF
    X, y = _int_data()
    Xb = X.astype(np.uint8)
    for proto in (TRF(), CRF()):
        data = fast.binned_data(Xb, np.full(X.shape[1], 6), False)
        crit = get_criterion("gini", "classification")
        tpl = proto._template(None)
        bp = make_params(TASK_CLASSIFICATION, 3, multiway=0, seed=0,
                         merit_code=crit.merit_code, builtin=crit.builtin_code,
                         split_mode=proto._split_mode, **tpl._resolve_params(300, 5, 300.0))
        rows = np.arange(300)
        args = (y.astype(np.int64), np.zeros((0, 3)), bp, crit, (1, 2), rows, True,
                tpl._value_from_stats)
        t1, _ = fast._grow_one(data._replace(D=data.D._replace(X=np.full(X.shape, np.nan))),
                               *args)
        t2, _ = fast._grow_one(data._replace(D=data.D._replace(X=X.copy())), *args)
        for a, b in zip(t1, t2):
            np.testing.assert_array_equal(a, b)


def test_fast_path_bins_raw_features_once_and_appends_vectors_in_place(monkeypatch):
    from treelab.ensembles import _cascade_fast as fast
    from treelab.ensembles import cascade as cmod
    calls = {"raw": 0, "Xb": []}
    real_codes = cmod._BaseCascade._raw_codes
    real_data = fast.binned_data

    def raw_codes(self, Xf, fitting, seed=None):
        calls["raw"] += bool(fitting)
        return real_codes(self, Xf, fitting, seed)

    def binned(Xb, nvb, miss):
        calls["Xb"].append(Xb)
        return real_data(Xb, nvb, miss)
    monkeypatch.setattr(cmod._BaseCascade, "_raw_codes", raw_codes)
    monkeypatch.setattr(fast, "binned_data", binned)
    X, y = _data(n=200)
    c = CascadeForestClassifier(forests=_treelab_forests(3), max_levels=3, n_iter_no_change=3,
                                validation="kfold", random_state=0).fit(X, y)
    assert calls["raw"] == 1 and len(calls["Xb"]) == 3
    # level 1 trains on the raw codes; levels 2 and 3 on one [raw | vectors] matrix
    assert calls["Xb"][0].shape == (200, 6) and calls["Xb"][1] is calls["Xb"][2]
    assert calls["Xb"][1].shape == (200, 6 + 2 * 3) and calls["Xb"][1].dtype == np.uint8
    np.testing.assert_array_equal(calls["Xb"][1][:, :6], calls["Xb"][0])
    assert [r["n_features_in"] for r in c.history_] == [6, 12, 12]


@pytest.mark.parametrize("cv", ["kfold", "oob"])
def test_fast_path_vectors_do_not_leak_and_do_not_depend_on_n_jobs(cv):
    rng = np.random.RandomState(0)
    n = 200
    X = np.column_stack([np.arange(n, dtype=float), rng.normal(size=(n, 2))])
    y = rng.randint(0, 2, n)                 # noise: only memorising the id column fits it
    from treelab.ensembles.forest import RandomForestClassifier as TRF
    assert TRF(20, random_state=0).fit(X, y).score(X, y) > 0.95
    kw = dict(forests=_treelab_forests(10), class_vectors=cv, validation="kfold", max_levels=2,
              n_iter_no_change=2, random_state=0)
    a = CascadeForestClassifier(n_jobs=1, **kw).fit(X, y)
    assert a._fast
    for rec in a.history_:
        assert rec["train_score"] < 0.7
    b = CascadeForestClassifier(n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert [r["train_score"] for r in a.history_] == [r["train_score"] for r in b.history_]


def test_fast_path_regression_missing_values_final_estimator_and_pickle():
    from treelab.ensembles.forest import (
        CompletelyRandomForestRegressor as CRR, RandomForestRegressor as TRR,
    )
    X, _ = _data(n=300, seed=4)
    yr = X[:, 0] * 3 + X[:, 1]
    Xn = X.copy()
    Xn[::7, 2] = np.nan
    r = CascadeForestRegressor(forests=[TRR(10), CRR(10)], max_levels=2, random_state=0).fit(
        Xn, yr)
    assert r._fast and r.score(Xn, yr) > 0.7
    r2 = pickle.loads(pickle.dumps(r))
    np.testing.assert_array_equal(r.predict(Xn), r2.predict(Xn))
    X, y = _data()
    c = CascadeForestClassifier(forests=_treelab_forests(), max_levels=2, validation="kfold",
                                final_estimator=RandomForestClassifier(5, n_jobs=1),
                                random_state=0).fit(X, y)
    assert c.final_estimator_.n_features_in_ == X.shape[1] + 2 * 3
    _, Z = c._vectors_of(X)
    np.testing.assert_allclose(c.predict_proba(X), c.final_estimator_.predict_proba(Z))


def test_fast_path_fold_model_view_is_that_models_trees():
    """Out-of-fold vectors traverse one fold model as a view of its node block
    (child ids renumbered): it must give exactly the sums of the whole slot's
    tree restricted to that model's roots, serial or threaded, and hold only
    that model's nodes."""
    from treelab._engine.tree import forest_sum_serial
    X, y = _data(n=400, seed=3)
    c = CascadeForestClassifier(forests=_treelab_forests(4), validation="kfold", max_levels=1,
                                random_state=0, n_jobs=1).fit(X, y)
    Xf = np.ascontiguousarray(np.tile(c._raw_codes(X, False).astype(float), (40, 1)))
    for slot in c.levels_[0].estimators:
        sizes = []
        for j in range(slot.n_models):
            forest, roots = slot.model(j)
            sizes.append(int(forest.sizes[0]))
            whole = slot.roots[j * slot.n_trees:(j + 1) * slot.n_trees]
            w = np.full(slot.n_trees, 1.0 / slot.n_trees)
            ref = forest_sum_serial(slot.forest, whole, w, Xf)
            np.testing.assert_array_equal(forest_sum_serial(forest, roots, w, Xf), ref)
            np.testing.assert_array_equal(slot.mean(Xf, model=j, n_jobs=1), ref)
            np.testing.assert_array_equal(slot.mean(Xf, model=j, n_jobs=2), ref)
        assert sum(sizes) == int(slot.forest.sizes[0]) and max(sizes) < int(slot.forest.sizes[0])
