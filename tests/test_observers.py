"""Numeric split-candidate observers (:mod:`treelab._engine.observers`) against
slow pure-Python references.

The references extend the Hoeffding-tree reference of
``test_hoeffding_reference.py`` and are written from the documentation of the
observers module (and, for the Gaussian observer, MOA's
``GaussianNumericAttributeClassObserver`` / ``GaussianEstimator``), not from
the kernels:

* Gaussian: a leaf keeps every (value, class) it saw; per class the mean and
  sample variance (two-pass, ``statistics``), min and max; candidates
  ``min + (max - min)(i + 1)/11``, i = 0..9, strictly inside the overall
  (min, max); left weight of a class: all if s >= its max, none if s < its
  min, else W * Phi((s - mean)/std) (``statistics.NormalDist``); thresholds
  are values, ``x <= s`` goes left; naive Bayes with normal densities;
* adaptive range: a leaf keeps every (value, class) and its (lo, width) per
  feature, grown by the doubling rule; its bin counts are recomputed from
  scratch on the current range (right-closed bins), which is what the
  kernels' exact merging must equal; children inherit the ranges.

treelab must grow the same tree (thresholds, class distributions) and give the
same probabilities.  A stream that drifts outside the first range is learned by
the adaptive observer and not by the clipping one.
"""
import math
import statistics

import numpy as np
import pytest

from _stream_reference import assert_same_model
from test_hoeffding_reference import (
    IS_NOMINAL, N_CATS, NOMINAL_DECL, ReferenceHT, make_stream, raw_rows,
)
from treelab import HoeffdingTreeClassifier, SGTClassifier, SGTRegressor
from treelab._engine.observers import ar_include, ar_bin
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC

NEG_INF = -math.inf


class _ValueRef(ReferenceHT):
    """Common part: rows are values (nominal: codes), numeric leaves keep raw values."""

    def code(self, row):
        return [None if math.isnan(x) else self.nominal_code(f, x) if self.is_nominal[f] else x
                for f, x in enumerate(row)]

    def goes_left(self, node, x):
        return x <= node.thr

    def learn(self, codes, c):
        lf = self.leaf(codes)
        if not hasattr(lf, "vals"):
            self.init_leaf(lf)
        super().learn(codes, c)

    def observe(self, lf, f, x, c):
        if self.is_nominal[f]:
            super().observe(lf, f, x, c)
        else:
            self.add_value(lf, f, x, c)

    def init_leaf(self, lf):
        lf.vals = {f: [] for f in range(self.d) if not self.is_nominal[f]}

    def add_value(self, lf, f, x, c):
        lf.vals[f].append((x, c))

    def feature_total(self, lf, f, c):
        if self.is_nominal[f]:
            return sum(cell[c] for cell in lf.cells[f])
        return float(sum(1 for _, cc in lf.vals[f] if cc == c))

    def attempt(self, lf):
        nodes_before = len(self.nodes)
        self._chosen = None
        super().attempt(lf)
        if len(self.nodes) > nodes_before and lf.kind == "numeric":
            lf.thr = self.threshold(lf, lf.feature, lf.bin)
        for ch in lf.children:
            self.init_child(lf, ch)

    def init_child(self, parent, child):
        self.init_leaf(child)

    def nb_scores(self, lf, codes):
        if not hasattr(lf, "vals"):
            self.init_leaf(lf)
        return super().nb_scores(lf, codes)


class ReferenceGaussianHT(_ValueRef):
    n_points = 10

    def class_stats(self, lf, f):
        out = []
        for c in range(self.k):
            xs = [x for x, cc in lf.vals[f] if cc == c]
            if not xs:
                out.append(None)
                continue
            var = statistics.variance(xs) if len(xs) > 1 else 0.0
            out.append((float(len(xs)), statistics.fmean(xs), var, min(xs), max(xs)))
        return out

    def points(self, lf, f):
        cs = [s for s in self.class_stats(lf, f) if s is not None]
        if not cs:
            return []
        mn = min(s[3] for s in cs)
        mx = max(s[4] for s in cs)
        pts = []
        for i in range(self.n_points):
            s = (mx - mn) / (self.n_points + 1.0) * (i + 1) + mn
            if mn < s < mx and s not in pts:
                pts.append(s)
        return sorted(pts)

    def branches_at(self, lf, f, s):
        left, right = [0.0] * self.k, [0.0] * self.k
        for c, st in enumerate(self.class_stats(lf, f)):
            if st is None:
                continue
            W, mean, var, mn, mx = st
            if s < mn:
                right[c] = W
            elif s >= mx:
                left[c] = W
            else:
                std = math.sqrt(var) if var > 0 else 0.0
                lw = (statistics.NormalDist(mean, std).cdf(s) * W if std > 0
                      else (W if s >= mean else 0.0))
                left[c] = lw
                right[c] = max(W - lw, 0.0)
        return [left, right]

    def numeric_splits(self, lf, f, parent):
        for b, s in enumerate(self.points(lf, f)):
            yield b, self.branches_at(lf, f, s)

    def threshold(self, lf, f, b):
        return self.points(lf, f)[b]

    def log_likelihoods(self, lf, f, x):
        if self.is_nominal[f]:
            return super().log_likelihoods(lf, f, x)
        out = []
        for st in self.class_stats(lf, f):
            if st is None:
                out.append(NEG_INF)
            elif st[2] > 0:     # log of the normal density (the pdf may underflow)
                out.append(-0.5 * math.log(2 * math.pi * st[2]) - (x - st[1]) ** 2 / (2 * st[2]))
            else:
                out.append(0.0 if x == st[1] else NEG_INF)
        return out

    def likelihoods(self, lf, f, x):
        """MOA's ``GaussianEstimator.probabilityDensity`` (``nb_form="moa"``)."""
        if self.is_nominal[f]:
            return super().likelihoods(lf, f, x)
        out = []
        for st in self.class_stats(lf, f):
            if st is None:
                out.append(0.0)
            elif st[2] > 0:
                out.append(statistics.NormalDist(st[1], math.sqrt(st[2])).pdf(x))
            else:
                out.append(1.0 if x == st[1] else 0.0)
        return out


class ReferenceAdaptiveHT(_ValueRef):
    """Adaptive range: bins recomputed from all raw values on the current range."""

    def fit_range(self, rows):
        super().fit_range(rows)
        self.root_ranges = {f: (self.lo[f], self.hi[f] - self.lo[f])
                            for f in range(self.d) if not self.is_nominal[f]}

    def init_leaf(self, lf):
        super().init_leaf(lf)
        if not hasattr(lf, "ranges"):
            lf.ranges = dict(self.root_ranges)

    def init_child(self, parent, child):
        child.ranges = dict(parent.ranges)
        self.init_leaf(child)

    def add_value(self, lf, f, x, c):
        lo, w = lf.ranges[f]
        if w > 0:
            while x > lo + w:
                w *= 2
            while x < lo:
                lo, w = lo - w, 2 * w
        elif x > lo:
            w = x - lo
        elif x < lo:
            lo, w = x, lo - x
        lf.ranges[f] = (lo, w)
        lf.vals[f].append((x, c))

    def bin_of(self, x, lo, w):
        if not w > 0:
            return 0
        return min(max(math.ceil(self.n_bins * ((x - lo) / w)) - 1, 0), self.n_bins - 1)

    def bins(self, lf, f):
        lo, w = lf.ranges[f]
        cells = [[0.0] * self.k for _ in range(self.n_bins)]
        for x, c in lf.vals[f]:
            cells[self.bin_of(x, lo, w)][c] += 1.0
        return cells

    def candidates(self, lf):
        for f in range(self.d):
            if not self.is_nominal[f]:
                lf.cells[f] = self.bins(lf, f)
        yield from super().candidates(lf)

    def threshold(self, lf, f, b):
        lo, w = lf.ranges[f]
        return lo + (b + 1) * w / self.n_bins

    def log_likelihoods(self, lf, f, x):
        if self.is_nominal[f]:
            return super().log_likelihoods(lf, f, x)
        lo, w = lf.ranges[f]
        lf.cells[f] = self.bins(lf, f)          # the bins on the current range
        return super().log_likelihoods(lf, f, self.bin_of(x, lo, w))


N = 2000
BASE = dict(grace_period=50, max_bins=8, n_range_samples=300, delta=0.05, tau=0.08,
            nominal_features=NOMINAL_DECL)
CASES = {
    "gaussian_entropy_2": (ReferenceGaussianHT, dict(BASE, observer="gaussian"), 2, 11),
    "gaussian_gini_3": (ReferenceGaussianHT, dict(BASE, observer="gaussian", criterion="gini"), 3,
                        12),
    "adaptive_entropy_2": (ReferenceAdaptiveHT, dict(BASE, observer="adaptive_range"), 2, 13),
    "adaptive_gini_3": (ReferenceAdaptiveHT,
                        dict(BASE, observer="adaptive_range", criterion="gini"), 3, 14),
    # the tree from the first instance, as MOA's (the recommended settings):
    # the adaptive range then starts from one value (width 0) and grows
    "gaussian_entropy_2_r1": (ReferenceGaussianHT,
                              dict(BASE, observer="gaussian", inherited_counts=True,
                                   n_range_samples=1), 2, 15),
    # ... with MOA's naive-Bayes form (products of densities, MOA's nominal likelihood)
    "gaussian_entropy_2_r1_moa_nb": (ReferenceGaussianHT,
                                     dict(BASE, observer="gaussian", inherited_counts=True,
                                          n_range_samples=1, nb_form="moa"), 2, 15),
    "adaptive_entropy_2_r1": (ReferenceAdaptiveHT,
                              dict(BASE, observer="adaptive_range", inherited_counts=True,
                                   n_range_samples=1), 2, 16),
}


def _run(name, chunk):
    cls, params, k, seed = CASES[name]
    X, y = make_stream(N + 200, seed, k)
    Xl, Xt = X.iloc[:N].reset_index(drop=True), X.iloc[N:].reset_index(drop=True)
    yl = y[:N]
    classes = np.unique(yl)
    p = dict(HoeffdingTreeClassifier().get_params(), **params)
    ref = cls(len(classes), IS_NOMINAL, N_CATS, n_bins=p["max_bins"], grace=p["grace_period"],
              delta=p["delta"], tau=p["tau"], merit=p["criterion"], leaf_prediction="nba",
              min_frac=p["min_branch_fraction"], n_range=p["n_range_samples"],
              inherited=p["inherited_counts"], nb_form=p["nb_form"])
    for r, yy in zip(raw_rows(Xl), np.searchsorted(classes, yl)):
        ref.feed(r, yy)
    model = HoeffdingTreeClassifier(**params)
    for s in range(0, N, chunk):
        model.partial_fit(Xl.iloc[s:s + chunk], yl[s:s + chunk], classes=classes)
    return model, ref, Xt


@pytest.mark.parametrize("name", sorted(CASES))
def test_observer_matches_reference(name):
    model, ref, Xt = _run(name, 500)
    t = model._forest
    assert len(ref.events) >= 3, "the case must make splits"
    assert int(t.sizes[0]) == len(ref.nodes)
    for nd in ref.nodes:
        i = nd.id
        assert t.parent[i] == nd.parent, i
        np.testing.assert_allclose(t.value[i], nd.value, rtol=1e-9, atol=1e-9)
        if nd.kind == "leaf":
            assert t.kind[i] == LEAF
            continue
        assert t.feature[i] == nd.feature, i
        assert t.missing_child[i] == nd.missing_child, i
        if nd.kind == "numeric":
            assert t.kind[i] == NUMERIC
            assert t.threshold[i] == pytest.approx(nd.thr, rel=1e-12, abs=1e-12), i
        else:
            assert t.kind[i] == NOMINAL
    test_codes = [ref.code(r) for r in raw_rows(Xt)]
    for mode in ("nba",):
        want = np.array([ref.proba(c, mode) for c in test_codes])
        np.testing.assert_allclose(model.predict_proba(Xt), want, rtol=1e-7, atol=1e-9)
    # the value thresholds print as values
    assert "<=" in model.export_text()


def test_chunking_does_not_change_the_tree():
    a, _, Xt = _run("adaptive_entropy_2", 2000)
    b, _, _ = _run("adaptive_entropy_2", 37)
    assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict_proba(Xt), b.predict_proba(Xt))


def test_gaussian_tree_from_the_first_instance():
    """``n_range_samples=1`` with the Gaussian observer (which uses no range):
    the tree exists after one instance -- so predictions come from it, as
    MOA's do, not from the class prior -- and it learns exactly what a start
    buffered over all rows learns."""
    X, y = make_stream(700, 17, 2)
    classes = np.unique(y)
    kw = dict(observer="gaussian", grace_period=50, delta=0.05, nominal_features=NOMINAL_DECL)
    a = HoeffdingTreeClassifier(n_range_samples=1, **kw)
    a.partial_fit(X.iloc[:1], y[:1], classes=classes)
    assert hasattr(a, "_forest")
    lazy = HoeffdingTreeClassifier(**kw).partial_fit(X.iloc[:1], y[:1], classes=classes)
    assert not hasattr(lazy, "_forest")
    for s in range(1, 700, 37):
        a.partial_fit(X.iloc[s:s + 37], y[s:s + 37])
    b = HoeffdingTreeClassifier(**kw).fit(X, y, classes=classes)     # 700 < 1000: all at once
    assert a.n_leaves > 1
    assert_same_model(a, b)


def test_gaussian_candidates_are_moas():
    """MOA's ten points over [min, max] of all classes, strictly inside."""
    ref = ReferenceGaussianHT(2, [False], [0])
    ref.init_leaf = lambda lf: None

    class L:
        vals = {0: [(0.0, 0), (1.0, 0), (2.0, 1), (11.0, 1)]}
    pts = ref.points(L, 0)
    assert pts == pytest.approx([1.0 * i for i in range(1, 11)])
    # one value: no candidate
    L.vals = {0: [(3.0, 0), (3.0, 1)]}
    assert ref.points(L, 0) == []


def test_adaptive_range_moves_statistics_exactly():
    """Doubling keeps old bin edges: the moved counts equal a fresh binning."""
    rng = np.random.RandomState(0)
    n = 8
    lo, w = 0.0, 1.0
    sf = np.zeros((n + 1, 2))
    seen = []
    for x in np.concatenate([rng.rand(50), [3.7, -2.2, 0.4, 9.9, -40.0], rng.randn(40) * 20]):
        c = int(rng.rand() < 0.5)
        lo, w = ar_include(sf, lo, w, x, n, False)
        assert lo <= x <= lo + w
        sf[ar_bin(x, lo, w, n), c] += 1
        seen.append((x, c))
        fresh = np.zeros((n, 2))
        for xx, cc in seen:
            fresh[min(max(math.ceil(n * (xx - lo) / w) - 1, 0), n - 1), cc] += 1
        np.testing.assert_array_equal(sf[:n], fresh)
    # a constant-so-far range (width 0) becomes [x, lo]: old values move to the top bin
    sf = np.zeros((n + 1, 1))
    sf[0, 0] = 5
    lo, w = ar_include(sf, 2.0, 0.0, 1.0, n, False)
    assert (lo, w) == (1.0, 1.0) and sf[n - 1, 0] == 5 and sf[0, 0] == 0


def _drift_stream(n, seed):
    """x0 in [0, 1] for the first quarter, then in [2, 4]; the label flips
    at the middle of the current range (clipping puts all later values in one bin)."""
    rng = np.random.RandomState(seed)
    x0 = np.where(np.arange(n) < n // 4, rng.rand(n), 2.0 + 2.0 * rng.rand(n))
    mid = np.where(np.arange(n) < n // 4, 0.5, 3.0)
    X = np.column_stack([x0, rng.rand(n)])
    y = ((x0 > mid) ^ (rng.rand(n) < 0.05)).astype(int)
    return X, y


@pytest.mark.parametrize("make", [
    lambda obs: HoeffdingTreeClassifier(observer=obs, grace_period=100, max_bins=16,
                                        classes=[0, 1], leaf_prediction="mc"),
    lambda obs: SGTClassifier(observer=obs, grace_period=100, max_bins=16, classes=[0, 1]),
])
def test_adaptive_range_learns_a_drifting_range(make):
    X, y = _drift_stream(12000, 0)
    acc = {}
    for obs in ("equal_width", "adaptive_range"):
        m = make(obs)
        pred = np.zeros(len(y), int)
        for s in range(0, len(y), 500):
            if s:
                pred[s:s + 500] = m.predict(X[s:s + 500])
            m.partial_fit(X[s:s + 500], y[s:s + 500])
        acc[obs] = float(np.mean(pred[-4000:] == y[-4000:]))
    assert acc["equal_width"] < 0.7        # every later value clipped into the last bin
    assert acc["adaptive_range"] > 0.85      # 5 % label noise: at most 0.95


def test_sgt_adaptive_thresholds_are_values_and_pickle():
    import pickle
    X, y = _drift_stream(6000, 1)
    m = SGTRegressor(observer="adaptive_range", grace_period=100, max_bins=16)
    m.partial_fit(X, y.astype(float))
    t = m._forest
    thr = t.threshold[:int(t.sizes[0])][t.kind[:int(t.sizes[0])] == NUMERIC]
    assert thr.size and (thr > 1.5).any()    # a split inside the drifted range
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict(X[:50]), m.predict(X[:50]))


def test_observer_validation():
    X, y = _drift_stream(1500, 2)
    with pytest.raises(ValueError, match="observer must be one of"):
        HoeffdingTreeClassifier(observer="quantile").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="observer must be one of"):
        SGTClassifier(observer="gaussian").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="even max_bins"):
        SGTRegressor(observer="adaptive_range", max_bins=7).partial_fit(X, y)
    with pytest.raises(ValueError, match="n_split_points"):
        HoeffdingTreeClassifier(observer="gaussian", n_split_points=0).partial_fit(
            X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="min_improvement"):
        SGTRegressor(min_improvement=-1.0).partial_fit(X, y)


def test_sgt_min_improvement_blocks_small_changes():
    X, y = _drift_stream(6000, 3)
    free = SGTRegressor(grace_period=100).partial_fit(X, y.astype(float))
    blocked = SGTRegressor(grace_period=100, min_improvement=1e3).partial_fit(X, y.astype(float))
    assert free.n_splits + free.n_leaf_updates > 0
    assert blocked.n_splits == 0 and blocked.n_leaf_updates == 0


def test_fast_frame_encoding_matches_the_validator():
    """Small DataFrame chunks with the fitted columns and categories skip the
    general validator; what they give must be exactly its encoding, and any
    other frame must go through it."""
    import pandas as pd
    from treelab.data import encode_X
    X, y = make_stream(600, 5, 2)
    X["s"] = pd.Categorical(X["s"], categories=NOMINAL_DECL["s"])
    m = HoeffdingTreeClassifier(nominal_features=NOMINAL_DECL).partial_fit(X.iloc[:400], y[:400])
    enc = m._encoding
    chunk = X.iloc[400:]
    fast = m._encode_frame_fast(chunk, enc)
    assert fast is not None
    np.testing.assert_array_equal(fast, encode_X(chunk, enc, "t", allow_nan=True))
    assert np.isnan(fast[:, 4]).any() and np.isnan(fast[:, 1]).any()   # missing values kept
    other = chunk.copy()
    other["c"] = pd.Categorical(other["c"].astype(object), categories=["b", "a", "c", "d"])
    assert m._encode_frame_fast(other, enc) is None       # other category order
    assert m._encode_frame_fast(chunk[list(reversed(chunk.columns))], enc) is None
    inf = chunk.copy()
    inf.iloc[0, 0] = np.inf
    assert m._encode_frame_fast(inf, enc) is None
    with pytest.raises(ValueError, match="infinity"):
        m.predict(inf)
    np.testing.assert_array_equal(m.predict(other), m.predict(chunk))


def test_moa_options_validation():
    X, y = _drift_stream(300, 1)
    with pytest.raises(TypeError, match="inherited_counts"):
        HoeffdingTreeClassifier(inherited_counts=1).partial_fit(X, y)
    with pytest.raises(TypeError, match="resplit"):
        SGTClassifier(resplit="yes").partial_fit(X, y)
    with pytest.raises(ValueError, match="resplit=True needs observer='equal_width'"):
        SGTClassifier(resplit=True, observer="adaptive_range").partial_fit(X, y)


def test_sgt_resplit_cuts_subtrees_and_pickles():
    """A concept change makes resplit replace internal splits: the cut-off
    nodes leave the counts and predictions, the model pickles, and the
    default (the paper) never re-splits."""
    import pickle
    from treelab._engine.sgt import DEAD
    from treelab._engine.tree import node_depths_ok
    rng = np.random.default_rng(0)
    n = 8000
    X = rng.random((n, 3))
    y = np.where(np.arange(n) < n // 2, X[:, 0] > 0.5, X[:, 1] > 0.3).astype(int)
    kw = dict(grace_period=50, delta=0.1, n_range_samples=200)
    paper = SGTClassifier(**kw).partial_fit(X, y)
    m = SGTClassifier(resplit=True, **kw).partial_fit(X, y)
    t = m._forest
    dead = t.kind[:int(t.sizes[0])] == DEAD
    assert not (paper._forest.kind == DEAD).any()
    assert dead.any()
    assert m.n_nodes == int(t.sizes[0]) - int(dead.sum())
    assert (m._state.slot_of[np.flatnonzero(dead)] == -1).all()
    live = [i for i in range(int(t.sizes[0])) if not dead[i]]
    assert m.n_leaves == sum(t.kind[i] == LEAF for i in live)
    assert node_depths_ok(t)
    Xt = rng.random((500, 3))
    assert (m.predict(Xt) == (Xt[:, 1] > 0.3)).mean() > 0.9
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict_proba(Xt), m.predict_proba(Xt))
