"""Hoeffding trees (VFDT) against a slow pure-Python reference.

The reference below is written from the documentation of
:mod:`treelab._engine.hoeffding` and :mod:`treelab.learners.hoeffding`
(not from the kernels):

* equal-width bins whose range is the (min, max) of the non-missing values of
  the first ``n_range_samples`` instances; those instances are buffered and
  then learned in order; values outside the range are clipped to the end bins;
  nominal features are category codes (unseen categories count as missing);
* every leaf keeps fresh class counts per (feature, bin / category) and in
  total; missing values add to no bin;
* every ``grace_period`` instances of the leaf's own count, a leaf that is not
  pure (by the classes it saw itself) evaluates, per feature, every numeric
  split "bins 0..b left" (skipping empty bins b, first best threshold wins)
  and the multiway split of a nominal feature, each only when at least two
  branches hold strictly more than ``min_branch_fraction`` of the feature's
  non-missing instances; merit = impurity decrease (entropy in bits / Gini)
  on the feature's non-missing counts; "no split" has merit 0;
* best / second-best over the features with "no split" as a candidate; the
  Hoeffding rule eps = R sqrt(ln(1/delta) / (2 n)) with R = log2(k) (entropy)
  or 1 (Gini), split iff the best is a real split and (best - second > eps
  or eps < tau);
* a split gives each child its branch's class counts as its distribution (a
  nominal branch without instances: the parent's distribution scaled to one
  instance) and
  fresh statistics; missing values (and unseen categories) go to the heaviest
  child (the first on ties);
* predictions: majority class (the leaf's distribution, inherited counts
  included), naive Bayes (prior = that distribution, Laplace-smoothed
  likelihoods (count + 1) / (class total of the feature's non-missing values
  + bins or categories)), or the adaptive choice (MOA's NBAdaptive: counters of
  MC and NB correctness updated before each instance is learned; NB unless
  MC's counter is larger).
* ``nb_form="moa"`` (written from MOA's ``NaiveBayes.doNaiveBayesPrediction``
  and ``NominalAttributeClassObserver``, GitHub master): naive-Bayes votes are
  prior x the product of the likelihoods; a category's likelihood is
  (count + 1) / (class total + the highest category index seen with the class
  at the leaf + 1), 0 for a class not seen there; votes that are all zero
  predict the first class with probability 1.

treelab must grow the same tree (nodes, features, threshold codes, class
counts, missing-value children) at the same instants and give the same
``predict_proba``, whether the stream comes in one chunk, many chunks of
different sizes, or one instance at a time.
"""
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mutual_info_score

from _stream_reference import EqualWidthBinning
from treelab import HoeffdingTreeClassifier
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC

NEG_INF = -math.inf


# =============================================================================
# reference implementation (plain Python)
# =============================================================================
def entropy(counts):
    """Shannon entropy in bits (0 for an empty node)."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0.0:
            p = c / total
            h -= p * math.log2(p)
    return h


def gini(counts):
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p
    return 1.0 - s


IMPURITY = {"entropy": entropy, "gini": gini}


def impurity_decrease(imp, parent, children):
    """imp(parent) - sum_j w_j / w imp(child_j) (empty children skipped)."""
    w = sum(parent)
    if w <= 0.0:
        return 0.0
    s = 0.0
    for ch in children:
        wc = sum(ch)
        if wc > 0.0:
            s += wc / w * imp(ch)
    return imp(parent) - s


def argmax_first(v):
    best = 0
    for j in range(1, len(v)):
        if v[j] > v[best]:
            best = j
    return best


class Node:
    def __init__(self, nid, value, parent, depth, slots, k):
        self.id = nid
        self.value = list(value)       # class distribution (inherited + own)
        self.parent = parent
        self.depth = depth
        self.kind = "leaf"             # "leaf" | "numeric" | "nominal"
        self.feature = -1
        self.bin = -1                  # numeric: bins 0..bin go to child 0
        self.children = []
        self.missing_child = 0
        self.n_at_split = 0
        self.n = 0
        self.totals = [0.0] * k
        self.cells = [[[0.0] * k for _ in range(s)] for s in slots]
        self.mc_hits = 0.0
        self.nb_hits = 0.0


class ReferenceHT(EqualWidthBinning):
    """The VFDT algorithm over a stream, one instance at a time, in plain Python."""

    def __init__(self, n_classes, is_nominal, n_cats, n_bins=64, grace=200, delta=1e-7,
                 tau=0.05, merit="entropy", leaf_prediction="nba", min_frac=0.01,
                 n_range=1000, inherited=False, nb_form="treelab"):
        self.k = n_classes
        self.nb_form = nb_form
        self.inherited = inherited
        self.is_nominal = list(is_nominal)
        self.d = len(is_nominal)
        self.n_cats = list(n_cats)
        self.slots = [n_cats[f] if is_nominal[f] else n_bins for f in range(self.d)]
        self.n_bins = n_bins
        self.grace, self.delta, self.tau = grace, delta, tau
        self.merit = merit
        self.imp = IMPURITY[merit]
        self.R = math.log2(max(n_classes, 2)) if merit == "entropy" else 1.0
        self.mode = leaf_prediction
        self.min_frac = min_frac
        self.n_range = n_range
        self.nodes = [Node(0, [0.0] * n_classes, -1, 0, self.slots, n_classes)]
        self.buffer = []
        self.lo = self.hi = None
        self.learned = 0
        self.events = []          # (instances learned, "gap" | "tie") of every split
        self.attempts = 0

    # ----- tree
    def leaf(self, codes):
        node = self.nodes[0]
        while node.kind != "leaf":
            c = codes[node.feature]
            if c is None:
                node = node.children[node.missing_child]
            elif node.kind == "numeric":
                node = node.children[0 if self.goes_left(node, c) else 1]
            else:
                node = node.children[c]
        return node

    def goes_left(self, node, c):
        """A numeric split sends code ``c`` to its first child (bins 0..bin)."""
        return c <= node.bin

    # ----- learning
    def feed(self, row, y):
        """Feed one raw instance (floats, nominal as category codes, NaN missing)."""
        if self.lo is None:
            self.buffer.append((row, y))
            if len(self.buffer) < self.n_range:
                return
            self.fit_range([r for r, _ in self.buffer[:self.n_range]])
            todo, self.buffer = self.buffer, []
        else:
            todo = [(row, y)]
        for r, yy in todo:
            self.learn(self.code(r), int(yy))

    def learn(self, codes, c):
        lf = self.leaf(codes)
        if self.mode == "nba":
            if argmax_first(lf.value) == c:
                lf.mc_hits += 1.0
            if argmax_first(self.nb_scores(lf, codes)) == c:
                lf.nb_hits += 1.0
        lf.value[c] += 1.0
        lf.totals[c] += 1.0
        for f in range(self.d):
            if codes[f] is not None:
                self.observe(lf, f, codes[f], c)
        lf.n += 1
        self.learned += 1
        if lf.n % self.grace == 0:
            self.attempt(lf)

    def observe(self, lf, f, code, c):
        """Count one instance of class c with bin / category ``code`` of feature f."""
        lf.cells[f][code][c] += 1.0

    def feature_total(self, lf, f, c):
        """Instances of class c at the leaf whose feature f was not missing."""
        return sum(cell[c] for cell in lf.cells[f])

    def candidates(self, lf):
        """Yield (merit, feature, bin, branch counts) of every admissible split."""
        for f in range(self.d):
            parent = [self.feature_total(lf, f, c) for c in range(self.k)]
            w = sum(parent)
            if w <= 0.0:
                continue
            splits = ([(-1, [list(cell) for cell in lf.cells[f]])] if self.is_nominal[f]
                      else self.numeric_splits(lf, f, parent))
            for b, branches in splits:
                if self.branches_ok(branches, w):
                    yield impurity_decrease(self.imp, parent, branches), f, b, branches

    def numeric_splits(self, lf, f, parent):
        """(bin, [left, right]) of every threshold after a non-empty bin (bins 0..b left)."""
        left = [0.0] * self.k
        for b in range(self.n_bins - 1):
            cell = lf.cells[f][b]
            left = [a + v for a, v in zip(left, cell)]
            if sum(cell) > 0.0:
                yield b, [left, [p - a for p, a in zip(parent, left)]]

    def branches_ok(self, branches, w):
        return sum(1 for br in branches if sum(br) > self.min_frac * w and sum(br) > 0) >= 2

    def attempt(self, lf):
        if sum(1 for v in lf.totals if v > 0) < 2:
            return
        self.attempts += 1
        # best split of every feature (the first best threshold)
        per_feature = {}
        for m, f, b, br in self.candidates(lf):
            if f not in per_feature or m > per_feature[f][0]:
                per_feature[f] = (m, b, br)
        null = 0.0
        best, best_f, second = null, -1, NEG_INF
        for f in sorted(per_feature):
            m = per_feature[f][0]
            if m > best:
                second = max(second, best)
                best, best_f = m, f
            elif m > second:
                second = m
        if best_f < 0:
            return
        # inherited_counts: n is the leaf's distribution, inherited counts included
        n = sum(lf.value) if self.inherited else lf.n
        eps = self.R * math.sqrt(math.log(1.0 / self.delta) / (2.0 * n))
        if best - second > eps:
            reason = "gap"
        elif eps < self.tau:
            reason = "tie"
        else:
            return
        _, b, branches = per_feature[best_f]
        lf.kind = "nominal" if self.is_nominal[best_f] else "numeric"
        lf.feature = best_f
        lf.bin = b
        lf.n_at_split = lf.n
        weights = [sum(br) for br in branches]
        lf.missing_child = argmax_first(weights)
        ptot = sum(lf.value)
        for br in branches:
            init = br if sum(br) > 0 or ptot <= 0 else [v / ptot for v in lf.value]
            ch = Node(len(self.nodes), init, lf.id, lf.depth + 1, self.slots, self.k)
            self.nodes.append(ch)
            lf.children.append(ch)
        lf.cells = lf.totals = None
        self.events.append((self.learned, reason))

    # ----- predictions
    def nb_scores(self, lf, codes):
        """log P(c) + sum_f log P(x_f | c), the prior being the leaf's distribution;
        ``nb_form="moa"``: MOA's votes P(c) prod_f P(x_f | c) (not logs)."""
        tot = sum(lf.value)
        if self.nb_form == "moa":
            out = [v / tot if tot > 0 else 0.0 for v in lf.value]
            for f in range(self.d):
                if codes[f] is not None:
                    for c, p in enumerate(self.likelihoods(lf, f, codes[f])):
                        out[c] *= p
            return out
        out = [math.log(v / tot) if v > 0.0 else NEG_INF for v in lf.value]
        for f in range(self.d):
            if codes[f] is not None:
                for c, lp in enumerate(self.log_likelihoods(lf, f, codes[f])):
                    out[c] += lp
        return out

    def log_likelihoods(self, lf, f, b):
        """log P(x_f | c) per class: Laplace-smoothed counts of bin / category b."""
        nb = float(self.n_cats[f] if self.is_nominal[f] else self.n_bins)
        return [math.log((lf.cells[f][b][c] + 1.0) / (self.feature_total(lf, f, c) + nb))
                for c in range(self.k)]

    def likelihoods(self, lf, f, b):
        """MOA's P(x_f | c) per class (``nb_form="moa"``): for a category
        ``NominalAttributeClassObserver.probabilityOfAttributeValueGivenClass``,
        whose denominator adds the length of the class's value vector (highest
        index seen + 1); otherwise the likelihoods of treelab's form."""
        if not self.is_nominal[f]:
            return [math.exp(v) for v in self.log_likelihoods(lf, f, b)]
        out = []
        for c in range(self.k):
            seen = [j for j, cell in enumerate(lf.cells[f]) if cell[c] > 0]
            out.append((lf.cells[f][b][c] + 1.0) / (self.feature_total(lf, f, c) + max(seen) + 1)
                       if seen else 0.0)
        return out

    def proba(self, codes, mode):
        lf = self.leaf(codes)
        use_nb = mode == "nb" or (mode == "nba" and not lf.mc_hits > lf.nb_hits)
        if use_nb and self.nb_form == "moa":
            s = self.nb_scores(lf, codes)
            tot = sum(s)
            return [v / tot for v in s] if tot > 0 else [1.0] + [0.0] * (self.k - 1)
        if use_nb:
            s = self.nb_scores(lf, codes)
            m = max(s)
            if m > NEG_INF:
                e = [math.exp(v - m) for v in s]
                tot = sum(e)
                return [v / tot for v in e]
        tot = sum(lf.value)
        return [v / tot if tot > 0 else 1.0 / self.k for v in lf.value]

    def snapshot(self, test_rows, modes):
        out = dict(n_seen=self.learned + len(self.buffer), nodes=len(self.nodes),
                   splits=len(self.events), proba=None)
        if self.lo is not None:
            codes = [self.code(r) for r in test_rows]
            out["proba"] = {m: np.array([self.proba(c, m) for c in codes]) for m in modes}
        return out


# =============================================================================
# streams
# =============================================================================
CATS = ["a", "b", "c", "d"]             # "d" is declared but never occurs
SIZES = ["small", "medium", "large", "huge"]   # declared through nominal_features


def make_stream(n, seed, n_classes):
    """Four numeric features (x1 with missing values; x2 drifts outside the range
    fitted on the first instances), a pandas category column ``c`` and a string
    column ``s`` declared nominal through ``nominal_features``, both with
    missing values."""
    rng = np.random.RandomState(seed)
    t = np.arange(n) / n
    x0 = rng.rand(n)
    x1 = rng.randn(n)
    x2 = rng.randn(n) * (1.0 + 2.0 * t)
    x3 = rng.rand(n)
    c = rng.choice(CATS[:3], n, p=[0.5, 0.3, 0.2])
    s = rng.choice(SIZES, n, p=[0.4, 0.3, 0.2, 0.1]).astype(object)
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": x2, "x3": x3,
                      "c": pd.Categorical(c, categories=CATS), "s": s})
    X.loc[rng.rand(n) < 0.08, "x1"] = np.nan
    X.loc[rng.rand(n) < 0.05, "c"] = np.nan
    X.loc[rng.rand(n) < 0.05, "s"] = None
    x1f = np.nan_to_num(x1)
    isb = (c == "b").astype(float)
    big = np.isin(s, ["large", "huge"]).astype(float)
    if n_classes == 2:
        logit = 3.0 * (x0 > 0.4) - 1.5 + 1.5 * isb + 1.0 * x1f - 1.2 * big + 0.3 * x2
        y = np.where(rng.rand(n) < 1 / (1 + np.exp(-2.0 * logit)), "pos", "neg")
    else:
        sc = np.stack([3.0 * (x0 > 0.6) + 3.0 * isb, 2.0 * x1f + 2.5 * big,
                       0.5 * x2 + 2.0 * (x3 < 0.3)], axis=1)
        sc += rng.gumbel(size=sc.shape) * 0.6
        y = np.array(["u", "v", "w"])[sc.argmax(axis=1)]
    return X, y


NOMINAL_DECL = {"s": SIZES}


def raw_rows(X):
    """Rows as lists of floats: numeric values, category codes, NaN for missing."""
    cols = []
    for col in X.columns:
        v = X[col]
        if isinstance(v.dtype, pd.CategoricalDtype):
            codes = v.cat.codes.to_numpy().astype(float)
            codes[codes < 0] = np.nan
            cols.append(codes)
        elif col == "s":
            cols.append(np.array([SIZES.index(a) if isinstance(a, str) else np.nan
                                  for a in v], dtype=float))
        else:
            cols.append(v.to_numpy(dtype=float))
    return np.column_stack(cols).tolist()


IS_NOMINAL = [False, False, False, False, True, True]
N_CATS = [0, 0, 0, 0, len(CATS), len(SIZES)]
MODES = ["mc", "nb", "nba"]
N = 3000
N_TEST = 300

BASE = dict(grace_period=50, max_bins=8, n_range_samples=300, delta=0.05, tau=0.08,
            nominal_features=NOMINAL_DECL)
CASES = {
    "entropy_2": dict(k=2, seed=1, params=dict(BASE, criterion="entropy")),
    "gini_2": dict(k=2, seed=2, params=dict(BASE, criterion="gini")),
    "entropy_3": dict(k=3, seed=3, params=dict(BASE, criterion="entropy")),
    "gini_3": dict(k=3, seed=4, params=dict(BASE, criterion="gini", min_branch_fraction=0.1)),
    "entropy_2_inherited": dict(k=2, seed=1, params=dict(BASE, criterion="entropy",
                                                         inherited_counts=True)),
    # MOA's naive-Bayes form (the nominal "c" declares "d", which never occurs)
    "entropy_3_moa_nb": dict(k=3, seed=3, params=dict(BASE, criterion="entropy",
                                                      inherited_counts=True, nb_form="moa")),
}


def make_model(case, mode):
    return HoeffdingTreeClassifier(leaf_prediction=mode, **case["params"])


def chunk_bounds(n, how):
    if how == "one":
        return [0, n]
    if how == "fixed":
        return list(range(0, n, 1000)) + [n]
    rng = np.random.RandomState(n + len(how))
    b = [0]
    while b[-1] < n:
        b.append(min(n, b[-1] + int(rng.randint(1, 160))))
    return b


_REF_CACHE = {}
LEARN_ONE_CHECKS = (299, 300, 1000, 2000)


def reference_run(name):
    """Run the reference once per case (the tree does not depend on the leaf
    predictor, only the NBA counters do, which the reference keeps anyway);
    snapshots after every instance count that some chunking below stops at."""
    if name in _REF_CACHE:
        return _REF_CACHE[name]
    case = CASES[name]
    X, y = make_stream(N + N_TEST, case["seed"], case["k"])
    X, X_test = X.iloc[:N].reset_index(drop=True), X.iloc[N:].reset_index(drop=True)
    y = y[:N]
    classes = np.unique(y)
    ycode = np.searchsorted(classes, y)
    p = dict(HoeffdingTreeClassifier().get_params(), **case["params"])
    ref = ReferenceHT(len(classes), IS_NOMINAL, N_CATS, n_bins=p["max_bins"],
                      grace=p["grace_period"], delta=p["delta"], tau=p["tau"],
                      merit=p["criterion"], leaf_prediction="nba",
                      min_frac=p["min_branch_fraction"], n_range=p["n_range_samples"],
                      inherited=p["inherited_counts"], nb_form=p["nb_form"])
    rows = raw_rows(X)
    test_rows = raw_rows(X_test)
    checkpoints = set(LEARN_ONE_CHECKS)
    for how in ("small", "fixed"):
        checkpoints |= set(chunk_bounds(N, how))
    snaps = {}
    for i, (r, yy) in enumerate(zip(rows, ycode)):
        ref.feed(r, yy)
        if i + 1 in checkpoints:
            modes = MODES if (i + 1) % 1000 == 0 or i + 1 == N else ["nba"]
            snaps[i + 1] = ref.snapshot(test_rows, modes)
    out = dict(X=X, y=y, X_test=X_test, ref=ref, snaps=snaps)
    _REF_CACHE[name] = out
    return out


# =============================================================================
# comparisons
# =============================================================================
def check_structure(model, ref, mode):
    model.n_nodes                      # flushes rows queued by learn_one
    t, st = model._forest, model._state
    assert int(t.sizes[0]) == len(ref.nodes)
    assert model.n_splits == len(ref.events)
    for nd in ref.nodes:
        i = nd.id
        assert t.parent[i] == nd.parent, i
        assert t.depth[i] == nd.depth, i
        np.testing.assert_array_equal(t.value[i], nd.value, err_msg=f"node {i} value")
        if nd.kind == "leaf":
            assert t.kind[i] == LEAF and t.feature[i] == -1 and t.n_children[i] == 0, i
            s = st.slot_of[i]
            assert s >= 0, i
            assert st.counts[s] == nd.n, i
            np.testing.assert_array_equal(st.totals[s], nd.totals, err_msg=f"leaf {i} totals")
            for f in range(ref.d):
                np.testing.assert_array_equal(st.stats[s, f, :ref.slots[f]], nd.cells[f],
                                              err_msg=f"leaf {i} feature {f}")
            if mode == "nba":
                assert (st.aux[s, 0], st.aux[s, 1]) == (nd.mc_hits, nd.nb_hits), i
            continue
        assert st.slot_of[i] == -1, i
        assert t.feature[i] == nd.feature, i
        assert t.first_child[i] == nd.children[0].id, i
        assert t.n_children[i] == len(nd.children), i
        assert t.missing_child[i] == nd.missing_child, i
        assert t.n_samples[i] == nd.n_at_split, i
        if nd.kind == "numeric":
            assert t.kind[i] == NUMERIC, i
            assert t.threshold[i] == nd.bin + 0.5, i
        else:
            assert t.kind[i] == NOMINAL, i
            off, cnt = t.cat_offset[i], t.cat_count[i]
            np.testing.assert_array_equal(t.cat_map[off:off + cnt], np.arange(len(nd.children)))


def check_snapshot(model, snap, X_test, mode, where):
    assert model.n_seen == snap["n_seen"], f"{where}: n_seen"
    if not hasattr(model, "_forest"):
        assert snap["proba"] is None, where
        return
    assert model.n_splits == snap["splits"], f"{where}: splits"
    assert model.n_nodes == snap["nodes"], f"{where}: nodes"
    if snap["proba"] is not None and mode in snap["proba"]:
        np.testing.assert_allclose(model.predict_proba(X_test), snap["proba"][mode],
                                   rtol=1e-9, atol=1e-12, err_msg=where)


# =============================================================================
# tests
# =============================================================================
def test_reference_merits_against_mutual_information():
    """The reference's information gain is the mutual information (bits) between
    branch and class; its Gini gain the textbook formula on probabilities."""
    rng = np.random.RandomState(0)
    branch = rng.randint(0, 3, 400)
    cls = (rng.rand(400) < 0.2 + 0.25 * branch).astype(int) + (rng.rand(400) < 0.1)
    table = np.zeros((3, 3))
    np.add.at(table, (branch, cls), 1.0)
    parent = table.sum(axis=0)
    ig = impurity_decrease(entropy, parent.tolist(), table.tolist())
    assert ig == pytest.approx(mutual_info_score(branch, cls) / math.log(2), rel=1e-12)
    pb = table.sum(axis=1) / 400
    pc = parent / 400
    gg = (1 - (pc ** 2).sum()) - sum(pb[j] * (1 - ((table[j] / table[j].sum()) ** 2).sum())
                                     for j in range(3))
    assert impurity_decrease(gini, parent.tolist(), table.tolist()) == pytest.approx(gg, rel=1e-12)
    # an empty branch changes nothing; no split has merit 0
    assert impurity_decrease(entropy, parent.tolist(), table.tolist() + [[0, 0, 0]]) == ig
    assert impurity_decrease(gini, parent.tolist(), [parent.tolist()]) == 0.0


def test_reference_binning_and_routing():
    ref = ReferenceHT(2, [False, True], [0, 3], n_bins=4, n_range=3)
    ref.fit_range([[0.0, 0.0], [2.0, 1.0], [np.nan, 2.0]])
    # width 2 / 4 bins = 0.5; clipping at both ends; unknown category -> missing
    assert ref.code([-1.0, 1.0]) == [0, 1]
    assert ref.code([0.49, 2.0]) == [0, 2]
    assert ref.code([0.5, 3.0]) == [1, None]
    assert ref.code([1.99, np.nan]) == [3, None]
    assert ref.code([7.0, 1.5]) == [3, None]


@pytest.mark.parametrize("name", list(CASES))
def test_reference_makes_splits(name):
    """The streams are hard enough that the trees grow (else the comparison is void),
    on numeric and nominal features."""
    ref = reference_run(name)["ref"]
    assert len(ref.events) >= 4
    assert any(nd.kind == "nominal" for nd in ref.nodes)
    assert any(nd.kind == "numeric" for nd in ref.nodes)
    assert max(nd.depth for nd in ref.nodes) >= 2
    # the NBA counters differ somewhere (else "nba" would not be tested)
    assert any(nd.mc_hits != nd.nb_hits for nd in ref.nodes if nd.kind == "leaf")


def test_reference_cases_cover_the_rule():
    """Over the cases, each merit splits both by the gap (best - second > eps) and
    by the tie-break (eps < tau), and missing values go to a child other than the
    first somewhere."""
    for merit in ("entropy", "gini"):
        reasons = set()
        for name in CASES:
            if name.startswith(merit):
                reasons |= {r for _, r in reference_run(name)["ref"].events}
        assert reasons == {"gap", "tie"}, merit
    assert any(nd.missing_child != 0 for name in CASES
               for nd in reference_run(name)["ref"].nodes if nd.kind != "leaf")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_one_chunk_matches_reference(name, mode):
    run = reference_run(name)
    model = make_model(CASES[name], mode).partial_fit(run["X"], run["y"])
    check_structure(model, run["ref"], mode)
    check_snapshot(model, run["snaps"][N], run["X_test"], mode, f"{name}/{mode}")
    # the three leaf predictors really differ on this stream
    if mode == "nb":
        assert not np.allclose(run["snaps"][N]["proba"]["nb"], run["snaps"][N]["proba"]["mc"])
    if name == "entropy_3_moa_nb" and mode != "mc":
        # MOA's form really differs from treelab's on this stream
        other = make_model(CASES["entropy_3"], mode).set_params(inherited_counts=True)
        other.partial_fit(run["X"], run["y"])
        assert not np.allclose(other.predict_proba(run["X_test"]),
                               model.predict_proba(run["X_test"]))


def test_moa_nb_form_hand_computed():
    """``nb_form="moa"`` on hand-computed cases: MOA's nominal likelihood
    (count + 1) / (class total + highest index seen + 1), and the first class
    where every vote is 0 (zero-variance Gaussian, an underflowing product),
    where treelab's form gives other values."""
    cats = pd.Categorical(["a", "c", "b"], categories=["a", "b", "c", "d"])
    X = pd.DataFrame({"c": cats})
    y = np.array([0, 0, 1])
    q = pd.DataFrame({"c": pd.Categorical(["b", "d"], categories=["a", "b", "c", "d"])})
    kw = dict(leaf_prediction="nb", n_range_samples=1, classes=[0, 1])
    moa = HoeffdingTreeClassifier(nb_form="moa", **kw).fit(X, y).predict_proba(q)[:, 0]
    own = HoeffdingTreeClassifier(**kw).fit(X, y).predict_proba(q)[:, 0]
    # "b": class 0: 2/3 * 1/(2 + 3); class 1: 1/3 * 2/(1 + 2)  ->  6/16
    # "d": class 0: 2/3 * 1/5;       class 1: 1/3 * 1/3        ->  6/11
    np.testing.assert_allclose(moa, [6 / 16, 6 / 11], rtol=1e-12)
    # treelab's form: / (class total + 4 declared categories)
    np.testing.assert_allclose(own, [5 / 11, 5 / 8], rtol=1e-12)
    # Gaussian, one value per class (variance 0): density 0 off the means
    Xg = np.array([[1.0], [2.0], [2.0]])
    yg = np.array([0, 1, 1])
    kw = dict(kw, observer="gaussian")
    qg = np.array([[1.5], [2.0]])
    moa = HoeffdingTreeClassifier(nb_form="moa", **kw).fit(Xg, yg).predict_proba(qg)
    own = HoeffdingTreeClassifier(**kw).fit(Xg, yg).predict_proba(qg)
    np.testing.assert_allclose(moa, [[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(own, [[1 / 3, 2 / 3], [0.0, 1.0]])
    # a product that underflows: MOA's votes are 0, treelab's logs still rank
    # (class 1's wider density is larger far away)
    Xu = np.array([[0.0], [1.0], [10.0], [20.0], [30.0]])
    yu = np.array([0, 0, 1, 1, 1])
    far = np.array([[1e4]])
    assert HoeffdingTreeClassifier(nb_form="moa", **kw).fit(Xu, yu).predict(far)[0] == 0
    assert HoeffdingTreeClassifier(**kw).fit(Xu, yu).predict(far)[0] == 1
    with pytest.raises(ValueError, match="nb_form"):
        HoeffdingTreeClassifier(nb_form="MOA").fit(Xu, yu)


@pytest.mark.parametrize("how", ["small", "fixed"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["entropy_2", "gini_3"])
def test_chunks_match_reference(name, mode, how):
    run = reference_run(name)
    model = make_model(CASES[name], mode)
    bounds = chunk_bounds(N, how)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        model.partial_fit(run["X"].iloc[lo:hi], run["y"][lo:hi])
        check_snapshot(model, run["snaps"][hi], run["X_test"], mode, f"{name}/{how} after {hi}")
    check_structure(model, run["ref"], mode)


@pytest.mark.parametrize("name", ["entropy_3", "gini_2"])
def test_learn_one_matches_reference(name):
    run = reference_run(name)
    X, y = run["X"], run["y"]
    # every nominal column declared with its categories: dicts need no first frame
    params = dict(CASES[name]["params"], nominal_features={"c": CATS, "s": SIZES})
    model = HoeffdingTreeClassifier(leaf_prediction="nba", **params)
    cols = list(X.columns)
    # missing: NaN for numeric features, None for nominal ones (see test_hoeffding.py
    # for None in a numeric feature of the first row)
    values = [X[c].tolist() if c.startswith("x") else
              [None if (isinstance(v, float) and math.isnan(v)) else v for v in X[c].tolist()]
              for c in cols]
    for i in range(N):
        model.learn_one({c: v[i] for c, v in zip(cols, values)}, y[i])
        if (i + 1) in LEARN_ONE_CHECKS:
            check_snapshot(model, run["snaps"][i + 1], run["X_test"], "nba",
                           f"{name}/learn_one after {i + 1}")
    check_structure(model, run["ref"], "nba")
    # predict_proba_one agrees with the batch predictions
    X_test = run["X_test"]
    for j in (0, 1, 2):
        row = {c: X_test[c].iloc[j] for c in cols}
        row = {c: (None if isinstance(v, float) and math.isnan(v) else v) for c, v in row.items()}
        pr = model.predict_proba_one(row)
        np.testing.assert_allclose([pr[c] for c in model.classes_],
                                   model.predict_proba(X_test.iloc[j:j + 1])[0], atol=1e-12)


def test_inherited_counts_change_the_split_instants():
    """``inherited_counts=True`` (MOA's n) makes children that inherited many
    counts split earlier than on their own instances (same stream as entropy_2)."""
    own, inh = reference_run("entropy_2")["ref"], reference_run("entropy_2_inherited")["ref"]
    assert [t for t, _ in own.events] != [t for t, _ in inh.events]
    assert own.events[0] == inh.events[0]        # the root has no inherited counts
    assert len(inh.events) >= len(own.events)


@pytest.mark.parametrize("name", ["entropy_2", "gini_3", "entropy_2_inherited"])
def test_split_instants(name):
    """Chunks that stop one instance before and at every split of the reference:
    treelab splits at exactly the same instance."""
    run = reference_run(name)
    ref = run["ref"]
    n_range = CASES[name]["params"]["n_range_samples"]
    # splits among the buffered first instances happen when the buffer is learned
    times = sorted({t for t, _ in ref.events if t > n_range})
    assert len(times) >= 4
    bounds = sorted({0, n_range, N} | {t - 1 for t in times} | set(times))
    model = make_model(CASES[name], "mc")
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        model.partial_fit(run["X"].iloc[lo:hi], run["y"][lo:hi])
        if hi >= n_range:
            assert model.n_splits == sum(1 for t, _ in ref.events if t <= hi), hi
    check_structure(model, ref, "mc")


def test_fit_equals_one_chunk_and_list_form_nominal_features():
    """``fit`` is one chunk from scratch; an integer column declared nominal by
    name gives the same tree as the same categories declared with their values."""
    run = reference_run("entropy_3")
    case = CASES["entropy_3"]
    model = make_model(case, "nb")
    model.partial_fit(run["X"].iloc[:500], run["y"][:500])
    model.fit(run["X"], run["y"])
    check_structure(model, run["ref"], "nb")
    # "s" as integer codes 0..3 (all occur in the first chunk), nominal by name
    Xi = run["X"].copy()
    Xi["s"] = [SIZES.index(a) if isinstance(a, str) else np.nan for a in Xi["s"]]
    params = dict(case["params"], nominal_features=["s"])
    m2 = HoeffdingTreeClassifier(leaf_prediction="nb", **params).partial_fit(Xi, run["y"])
    check_structure(m2, run["ref"], "nb")
