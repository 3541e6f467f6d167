"""Stochastic Gradient Trees against a slow pure-Python reference.

The reference below is written from the paper (Gouk, Pfahringer & Frank,
"Stochastic Gradient Trees", ACML 2019) with treelab's documented choices
(module docstring of :mod:`treelab._engine.sgt`):

* equal-width bins whose range is the (min, max) of the first
  ``n_range_samples`` instances; those instances are buffered and then learned
  in order; values outside the range are clipped to the end bins;
* per leaf, the moments (mean g, mean h, M2_g, M2_h, co-moment) of the gradient
  and Hessian of every instance, in total and per (feature, bin / category),
  kept with Welford's update and merged with the pairwise formulas of Chan et
  al. (1979) / Bennett et al. (2009); missing values add to no bin;
* every ``grace_period`` instances of a leaf: candidates "update the leaf value
  by v", every numeric split "bins 0..b left" with both sides non-empty, every
  nominal split (one child per declared category, at least two non-empty);
  with S_g, S_h the plain sums of g, h over a child's n_c instances (kept
  beside the moments) and G, H their means:

  - ``leaf_value="paper"``: v_c = -S_g / (lambda + S_h) (eq. 13) and
    L = [sum_c (S_g v_c + S_h v_c^2 / 2 + lambda / 2 v_c^2) + gamma * (new
    leaves)] / n (eqs. 10, 11 and 5);
  - ``leaf_value="mean"`` (the authors' Java code, river): v_c = -G_c / (H_c +
    lambda) and L = sum_c n_c / n (G_c v_c + H_c v_c^2 / 2) + gamma * (new
    leaves) / n;

  every child is a new leaf (2 per numeric split, k per nominal one, none for
  an update), and the variance is that of the per-instance loss change
  g_i v + h_i v^2 / 2 (eq. 18 in each child, pooled across children with the
  exact pooled-variance formula);
* the lowest L wins (first one on ties: update, then features in order, bins in
  order); split / update when L < 0 and the two-sided one-sample t-test
  (n - 1 df, ``scipy.stats.t``) gives p < delta; children start at the parent
  value plus their own v_c, with fresh statistics; missing values go to child 0;
* regression: squared error (or a user loss: pseudo-Huber); binary: logistic
  loss on the score of ``classes_[1]``; k classes: softmax with k - 1 trees,
  the last class at 0; multi-instance: the bag's score is the maximum instance
  score and only the (first) arg-max instance's leaf learns, bags shuffled
  each epoch by ``RandomState(random_state)``.

treelab must make the same splits at the same instants and the same
predictions, whether the stream is fed in one chunk, in many small chunks or
one instance at a time (``learn_one``), in both leaf-value forms.
"""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from _stream_reference import EqualWidthBinning
from treelab import SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor
from treelab.losses import Loss
from treelab._engine.sgt import DEAD
from treelab._engine.tree import LEAF, NOMINAL, NUMERIC

INF = math.inf


# =============================================================================
# reference implementation (plain Python)
# =============================================================================
class Moments:
    """Running moments of (g, h) pairs: Welford (1962) update, Chan et al. merge."""

    __slots__ = ("n", "g", "h", "m2g", "m2h", "cgh", "sg", "sh")

    def __init__(self):
        self.n = 0
        self.sg = 0.0     # sum of gradients (eq. 13 uses the sums)
        self.sh = 0.0     # sum of Hessians
        self.g = 0.0      # mean gradient
        self.h = 0.0      # mean Hessian
        self.m2g = 0.0    # sum (g_i - mean g)^2
        self.m2h = 0.0    # sum (h_i - mean h)^2
        self.cgh = 0.0    # sum (g_i - mean g)(h_i - mean h)

    def add(self, g, h):
        self.n += 1
        self.sg += g
        self.sh += h
        dg = g - self.g
        dh = h - self.h
        self.g += dg / self.n
        self.h += dh / self.n
        self.m2g += dg * (g - self.g)
        self.m2h += dh * (h - self.h)
        self.cgh += dg * (h - self.h)

    def copy(self):
        out = Moments()
        out.n, out.g, out.h = self.n, self.g, self.h
        out.m2g, out.m2h, out.cgh = self.m2g, self.m2h, self.cgh
        out.sg, out.sh = self.sg, self.sh
        return out

    def union(self, other):
        """Moments of the union of two disjoint sets (a new object)."""
        if other.n == 0:
            return self.copy()
        if self.n == 0:
            return other.copy()
        out = Moments()
        n1, n2 = self.n, other.n
        n = n1 + n2
        dg = other.g - self.g
        dh = other.h - self.h
        out.n = n
        out.g = self.g + dg * n2 / n
        out.h = self.h + dh * n2 / n
        out.m2g = self.m2g + other.m2g + dg * dg * n1 * n2 / n
        out.m2h = self.m2h + other.m2h + dh * dh * n1 * n2 / n
        out.cgh = self.cgh + other.cgh + dg * dh * n1 * n2 / n
        out.sg = self.sg + other.sg
        out.sh = self.sh + other.sh
        return out


def leaf_value(m, lam, form):
    """The prediction change of a leaf: eq. (13) with sums ("paper") or the
    authors' code's means ("mean"); 0 without a positive denominator."""
    if form == "paper":
        den = lam + m.sh
        return -m.sg / den if den > 0 else 0.0
    den = m.h + lam
    return -m.g / den if den > 0 else 0.0


def loss_change(m, lam, form="mean"):
    """(v, mean, unbiased variance, omega) of the per-instance approximate loss
    change dL_i = g_i v + h_i v^2 / 2 when the prediction moves by v; omega is the
    leaf's lambda / 2 v^2 of eq. (5) in the paper's form, 0 in the code's."""
    v = leaf_value(m, lam, form)
    omega = 0.5 * lam * v * v if form == "paper" else 0.0
    mean = m.g * v + 0.5 * m.h * v * v
    if m.n < 2:
        return v, mean, INF, omega
    var = (v ** 2 * m.m2g + 0.25 * v ** 4 * m.m2h + v ** 3 * m.cgh) / (m.n - 1)
    return v, mean, max(var, 0.0), omega


def pooled(parts):
    """(n, mean, var) of the union of samples given as (n_i, mean_i, var_i), n_i > 0.
    var = [sum (n_i - 1) var_i + sum n_i (mean_i - mean)^2] / (n - 1)."""
    n = sum(p[0] for p in parts)
    mean = sum(p[0] * p[1] for p in parts) / n
    m2 = 0.0
    for ni, mi, vi in parts:
        if ni >= 2:
            m2 += (ni - 1) * vi
        m2 += ni * (mi - mean) ** 2
    return n, mean, (m2 / (n - 1) if n >= 2 else INF)


def t_test_p(mean, var, n):
    """Two-sided p-value of H0: E[dL] = 0 (one-sample t-test, n - 1 df)."""
    if n < 2 or var == INF or math.isnan(var):
        return 1.0
    if var <= 0:
        return 0.0 if mean != 0 else 1.0
    t = mean / math.sqrt(var / n)
    return float(2.0 * stats.t.sf(abs(t), n - 1))


# ----- losses: (y, raw scores of the K trees) -> [(g_j, h_j) for each tree]
def squared_error(y, raw):
    return [(raw[0] - y, 1.0)]


def logistic(y, raw):
    p = 1.0 / (1.0 + math.exp(-raw[0]))
    return [(p - y, p * (1.0 - p))]


def softmax(y, raw):
    scores = list(raw) + [0.0]          # the last class is hard-wired to 0
    mx = max(scores)
    e = [math.exp(s - mx) for s in scores]
    tot = sum(e)
    p = [x / tot for x in e]
    return [(p[j] - (1.0 if y == j else 0.0), p[j] * (1.0 - p[j])) for j in range(len(raw))]


class Node:
    def __init__(self, nid, value, parent, depth, n_features, n_slots):
        self.id = nid
        self.value = value
        self.parent = parent
        self.depth = depth
        self.kind = "leaf"          # "leaf" | "numeric" | "nominal"
        self.feature = -1
        self.bin = -1               # numeric: bins 0..bin go to child 0
        self.children = []
        self.n_at_split = 0
        self.reset(n_features, n_slots)

    def reset(self, n_features, n_slots):
        self.n = 0
        self.total = Moments()
        self.cells = [[Moments() for _ in range(n_slots[f])] for f in range(n_features)]


class ReferenceSGT(EqualWidthBinning):
    """The SGT algorithm over a stream, one instance at a time, in plain Python."""

    def __init__(self, n_trees, loss, is_nominal, n_cats, n_bins=64, lam=0.1, gamma=1.0,
                 grace=200, delta=1e-7, n_range=1000, form="paper", resplit=False):
        self.K = n_trees
        self.resplit = resplit
        self.z = stats.norm.isf(delta)     # resplit: MOA's confidence bound
        self.resplits = 0
        self.form = form
        self.loss = loss
        self.is_nominal = list(is_nominal)
        self.d = len(is_nominal)
        self.n_cats = list(n_cats)
        self.n_slots = [n_cats[f] if is_nominal[f] else n_bins for f in range(self.d)]
        self.n_bins = n_bins
        self.lam, self.gamma, self.grace, self.delta = lam, gamma, grace, delta
        self.n_range = n_range
        self.nodes = [Node(j, 0.0, -1, 0, self.d, self.n_slots) for j in range(n_trees)]
        self.buffer = []
        self.lo = self.hi = None
        self.splits = 0
        self.updates = 0
        self.learned = 0
        self.events = []            # (instances learned, "split" | "update")

    # ----- trees
    def child(self, node, c):
        """The child of an internal node taken by code c (None = missing -> child 0)."""
        if c is None:
            return node.children[0]
        if node.kind == "numeric":
            return node.children[0] if c <= node.bin else node.children[1]
        return node.children[c]

    def leaf(self, root, codes):
        node = self.nodes[root]
        while node.kind != "leaf":
            node = self.child(node, codes[node.feature])
        return node

    def raw(self, codes):
        return [self.leaf(j, codes).value for j in range(self.K)]

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
            self.learn(self.code(r), yy)

    def learn(self, codes, y):
        leaves = [self.leaf(j, codes) for j in range(self.K)]
        raw = [lf.value for lf in leaves]
        gh = self.loss(y, raw)
        self.learned += 1
        if not self.resplit:
            for lf, (g, h) in zip(leaves, gh):
                self.observe(lf, codes, g, h)
            return
        for j in range(self.K):
            self.learn_path(j, codes, y, raw)

    def learn_path(self, j, codes, y, raw):
        """resplit (MOA's current SGT): every node of tree j's path learns, with
        (g, h) at its own value; at most one split / re-split per instance."""
        node = self.nodes[j]
        changed = False
        while True:
            r = list(raw)
            r[j] = node.value
            g, h = self.loss(y, r)[j]
            if node.kind == "leaf":
                self.add(node, codes, g, h)
                if not changed and node.n % self.grace == 0:
                    self.attempt(node)
                break
            self.add(node, codes, g, h)
            if not changed and node.n % self.grace == 0:
                changed = self.try_resplit(node)
            node = self.child(node, codes[node.feature])

    def add(self, node, codes, g, h):
        node.total.add(g, h)
        for f in range(self.d):
            if codes[f] is not None:
                node.cells[f][codes[f]].add(g, h)
        node.n += 1

    def observe(self, lf, codes, g, h):
        self.add(lf, codes, g, h)
        if lf.n % self.grace == 0:
            self.attempt(lf)

    def try_resplit(self, node):
        """The best split replaces the current one (and its subtree) when its upper
        bound mean + z sqrt(var/n) is below the current split's lower bound."""
        best = cur = None
        for cand in self.candidates(node):
            mean, var, f, b, _ = cand
            if f < 0:
                continue
            if f == node.feature and (node.kind == "nominal" or b == node.bin):
                cur = cand
            if best is None or mean < best[0]:
                best = cand
        if best is None or cur is None or best is cur:
            return False
        n = node.n
        if not best[0] + self.z * math.sqrt(best[1] / n) < cur[0] - self.z * math.sqrt(cur[1] / n):
            return False
        stack = list(node.children)
        while stack:
            u = stack.pop()
            stack.extend(u.children)
            u.kind, u.children = "dead", []
        node.children = []
        self.resplits += 1
        self.split(node, best[2], best[3], best[4])
        return True

    def learn_bag(self, bag_codes, y):
        """Multi-instance learning (single tree): the bag's score is the maximum of
        its instances' scores; the logistic loss's gradient / Hessian at that score
        goes to the leaf of the (first) arg-max instance only."""
        best = None
        for codes in bag_codes:
            lf = self.leaf(0, codes)
            if best is None or lf.value > best[0].value:
                best = (lf, codes)
        self.learned += 1
        if self.resplit:
            self.learn_path(0, best[1], y, [best[0].value])
            return
        (g, h), = logistic(y, [best[0].value])
        self.observe(best[0], best[1], g, h)

    def candidates(self, node):
        """Yield (mean, var, feature, bin, child deltas) of every candidate, in order."""
        n = node.n
        form = self.form
        v, mean, var, om = loss_change(node.total, self.lam, form)
        yield mean + om / n, var, -1, -1, [v]
        for f in range(self.d):
            cells = node.cells[f]
            if self.is_nominal[f]:
                stats_c = [loss_change(m, self.lam, form) for m in cells]
                parts = [(m.n, s[1], s[2]) for m, s in zip(cells, stats_c) if m.n > 0]
                if len(parts) < 2:
                    continue
                _, pm, pv = pooled(parts)
                k = len(cells)
                omega = sum(s[3] for s in stats_c)
                yield pm + (omega + self.gamma * k) / n, pv, f, -1, [s[0] for s in stats_c]
            else:
                B = len(cells)
                right = [None] * B          # right[b] = moments of bins b+1 .. B-1
                acc = Moments()
                right[B - 1] = acc
                for b in range(B - 2, -1, -1):
                    acc = acc.union(cells[b + 1])
                    right[b] = acc
                left = Moments()
                for b in range(B - 1):
                    left = left.union(cells[b])
                    if left.n == 0 or right[b].n == 0:
                        continue
                    vl, ml, sl, ol = loss_change(left, self.lam, form)
                    vr, mr, sr, orr = loss_change(right[b], self.lam, form)
                    _, pm, pv = pooled([(left.n, ml, sl), (right[b].n, mr, sr)])
                    yield pm + (ol + orr + 2 * self.gamma) / n, pv, f, b, [vl, vr]

    def attempt(self, node):
        best = None
        for cand in self.candidates(node):
            if best is None or cand[0] < best[0]:
                best = cand
        mean, var, f, b, deltas = best
        if not (mean < 0 and t_test_p(-mean, var, node.n) < self.delta):
            return
        if f < 0:
            node.value += deltas[0]
            self.updates += 1
            self.events.append((self.learned, "update"))
            node.reset(self.d, self.n_slots)
            return
        self.split(node, f, b, deltas)

    def split(self, node, f, b, deltas):
        node.kind = "nominal" if self.is_nominal[f] else "numeric"
        node.feature = f
        node.bin = b
        node.n_at_split = node.n
        for dv in deltas:
            c = Node(len(self.nodes), node.value + dv, node.id, node.depth + 1, self.d,
                     self.n_slots)
            self.nodes.append(c)
            node.children.append(c)
        if not self.resplit:        # resplit: a split node keeps its statistics
            node.cells = node.total = None
        self.splits += 1
        self.events.append((self.learned, "split"))

    # ----- summaries
    def snapshot(self, X_test_rows):
        raws = None
        if self.lo is not None:
            raws = np.array([self.raw(self.code(r)) for r in X_test_rows])
        return dict(n_seen=self.learned + len(self.buffer), splits=self.splits,
                    updates=self.updates, nodes=sum(nd.kind != "dead" for nd in self.nodes),
                    raw=raws)


# =============================================================================
# streams
# =============================================================================
CATS = ["a", "b", "c", "d"]          # "d" is declared but never occurs


def make_stream(task, n, seed, heavy_noise=False):
    rng = np.random.RandomState(seed)
    t = np.arange(n) / n
    x0 = rng.randn(n)
    x1 = rng.rand(n)
    x2 = rng.randn(n) * (1.0 + 2.0 * t)          # drifts outside the fitted range
    c = rng.choice(CATS[:3], n, p=[0.5, 0.3, 0.2])
    X = pd.DataFrame({"x0": x0, "x1": x1, "x2": x2,
                      "c": pd.Categorical(c, categories=CATS)})
    X.loc[rng.rand(n) < 0.05, "x1"] = np.nan
    X.loc[rng.rand(n) < 0.05, "c"] = np.nan
    x1f = np.nan_to_num(x1, nan=0.5)
    isb = (c == "b").astype(float)
    if task == "regression":
        noise = rng.standard_t(1.5, n) if heavy_noise else rng.randn(n) * 0.5
        y = 3.0 * np.sin(2 * x0) + 2.0 * isb - 2.0 * (x1f > 0.6) + 0.5 * x2 + noise
    elif task == "binary":
        logit = 2.5 * x0 + 2.0 * isb - 2.5 * (x1f > 0.6) + 0.5 * x2
        y = np.where(rng.rand(n) < 1 / (1 + np.exp(-logit)), "pos", "neg")
    else:
        s = np.stack([2.0 * x0 + 1.5 * isb, -2.0 * x0 + 2.0 * (x1f > 0.5), 0.5 * x2], axis=1)
        s += rng.gumbel(size=s.shape) * 0.7
        y = np.array(["u", "v", "w"])[s.argmax(axis=1)]
    return X, y


def raw_rows(X):
    """Rows as lists of floats: numeric values, category codes, NaN for missing."""
    cols = []
    for col in X.columns:
        s = X[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy().astype(float)
            codes[codes < 0] = np.nan
            cols.append(codes)
        else:
            cols.append(s.to_numpy(dtype=float))
    return np.column_stack(cols).tolist()


CASES = {
    "regression": dict(task="regression", n=3000, seed=11,
                       params=dict(grace_period=60, delta=1e-3, gamma=0.5, reg_lambda=0.1,
                                   max_bins=32, n_range_samples=300)),
    "binary": dict(task="binary", n=4000, seed=7,
                   params=dict(grace_period=50, delta=1e-3, gamma=0.1, reg_lambda=0.1,
                               max_bins=64, n_range_samples=400)),
    "multiclass": dict(task="multiclass", n=4000, seed=3,
                       params=dict(grace_period=50, delta=1e-3, gamma=0.1, reg_lambda=0.5,
                                   max_bins=16, n_range_samples=250)),
    # a user-defined loss (pseudo-Huber) on a stream with heavy-tailed noise
    "pseudo_huber": dict(task="regression", n=3000, seed=13, loss="pseudo_huber",
                         params=dict(grace_period=60, delta=1e-3, gamma=0.2, reg_lambda=0.1,
                                     max_bins=32, n_range_samples=300)),
    # the paper's defaults except grace period / delta: few, large trees
    "binary_defaults": dict(task="binary", n=5000, seed=5,
                            params=dict(grace_period=100, delta=1e-4)),
    # MOA's re-splitting of internal nodes (resplit=True)
    "binary_resplit": dict(task="binary", n=4000, seed=7,
                           params=dict(grace_period=50, delta=0.1, gamma=0.1, reg_lambda=0.1,
                                       max_bins=64, n_range_samples=400, resplit=True)),
    "multiclass_resplit": dict(task="multiclass", n=3000, seed=8,
                               params=dict(grace_period=50, delta=0.02, gamma=0.1,
                                           reg_lambda=0.5, max_bins=16, n_range_samples=250,
                                           resplit=True)),
}

N_TEST = 300


def pseudo_huber_grad(y, f):
    r = f - y
    return r / math.sqrt(1.0 + r * r)


def pseudo_huber_hess(y, f):
    r = f - y
    return (1.0 + r * r) ** -1.5


def pseudo_huber(y, raw):
    return [(pseudo_huber_grad(y, raw[0]), pseudo_huber_hess(y, raw[0]))]


FORMS = ["paper", "mean"]


def make_model(case, form):
    if case["task"] != "regression":
        return SGTClassifier(leaf_value=form, **case["params"])
    if case.get("loss") == "pseudo_huber":
        loss = Loss.from_functions(pseudo_huber_grad, pseudo_huber_hess, name="pseudo_huber")
        return SGTRegressor(loss=loss, leaf_value=form, **case["params"])
    return SGTRegressor(leaf_value=form, **case["params"])


def make_reference(case, y, form):
    p = dict(SGTRegressor().get_params(), **case["params"])
    if case["task"] == "regression":
        K, ycode = 1, np.asarray(y, float)
        loss = pseudo_huber if case.get("loss") == "pseudo_huber" else squared_error
    else:
        classes = np.unique(y)
        ycode = np.searchsorted(classes, y).astype(float)
        if len(classes) == 2:
            K, loss = 1, logistic
        else:
            K, loss = len(classes) - 1, softmax
    ref = ReferenceSGT(K, loss, is_nominal=[False, False, False, True], n_cats=[0, 0, 0, 4],
                       n_bins=p["max_bins"], lam=p["reg_lambda"], gamma=p["gamma"],
                       grace=p["grace_period"], delta=p["delta"], n_range=p["n_range_samples"],
                       form=form, resplit=p["resplit"])
    return ref, ycode


_REF_CACHE = {}


def reference_run(name, form):
    """Run the reference once per case and leaf-value form; snapshots after every
    instance count that some chunking below stops at."""
    if (name, form) in _REF_CACHE:
        return _REF_CACHE[name, form]
    case = CASES[name]
    X, y = make_stream(case["task"], case["n"] + N_TEST, case["seed"],
                       heavy_noise="loss" in case)
    X, X_test = X.iloc[:case["n"]].reset_index(drop=True), X.iloc[case["n"]:]
    y = y[:case["n"]]
    ref, ycode = make_reference(case, y, form)
    rows = raw_rows(X)
    test_rows = raw_rows(X_test)
    checkpoints = set(chunk_bounds(case["n"], "small")) | set(chunk_bounds(case["n"], "one"))
    checkpoints |= set(range(0, case["n"] + 1, LEARN_ONE_EVERY))
    snaps = {0: ref.snapshot(test_rows)}
    for i, (r, yy) in enumerate(zip(rows, ycode)):
        ref.feed(r, yy)
        if i + 1 in checkpoints:
            snaps[i + 1] = ref.snapshot(test_rows)
    out = dict(X=X, y=y, X_test=X_test, ref=ref, snaps=snaps)
    _REF_CACHE[name, form] = out
    return out


LEARN_ONE_EVERY = 250


def chunk_bounds(n, how):
    if how == "one":
        return [0, n]
    rng = np.random.RandomState(n)
    b = [0]
    while b[-1] < n:
        b.append(min(n, b[-1] + int(rng.randint(1, 160))))
    return b


# =============================================================================
# comparisons
# =============================================================================
def forest(model):
    model.n_nodes          # reading a size flushes any rows queued by learn_one
    return model._forest


def ref_proba(task, raw):
    if task == "regression":
        return raw[:, 0]
    if raw.shape[1] == 1:
        p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
        return np.column_stack([1 - p, p])
    s = np.column_stack([raw, np.zeros(len(raw))])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def check_snapshot(model, snap, task, X_test, where):
    assert model.n_splits == snap["splits"], f"{where}: splits"
    assert model.n_leaf_updates == snap["updates"], f"{where}: leaf updates"
    assert model.n_nodes == snap["nodes"], f"{where}: nodes"
    if snap["raw"] is not None:
        got = model.predict(X_test) if task == "regression" else model.predict_proba(X_test)
        np.testing.assert_allclose(got, ref_proba(task, snap["raw"]), rtol=1e-9, atol=1e-9,
                                   err_msg=where)


def check_structure(model, ref):
    t = forest(model)
    nodes = ref.nodes
    assert int(t.sizes[0]) == len(nodes)
    np.testing.assert_array_equal(model._roots, np.arange(ref.K))
    for nd in nodes:
        i = nd.id
        if nd.kind == "dead":           # cut off by a re-split: unreachable, no statistics
            assert t.kind[i] == DEAD and model._state.slot_of[i] == -1, i
            continue
        assert t.parent[i] == nd.parent, i
        assert t.depth[i] == nd.depth, i
        assert abs(t.value[i, 0] - nd.value) <= 1e-9 * (1 + abs(nd.value)), i
        if nd.kind == "leaf":
            assert t.kind[i] == LEAF and t.feature[i] == -1 and t.n_children[i] == 0, i
            continue
        assert t.feature[i] == nd.feature, i
        assert t.first_child[i] == nd.children[0].id, i
        assert t.n_children[i] == len(nd.children), i
        assert t.missing_child[i] == 0, i
        assert t.n_samples[i] == nd.n_at_split, i
        if nd.kind == "numeric":
            assert t.kind[i] == NUMERIC, i
            assert t.threshold[i] == nd.bin + 0.5, i
        else:
            assert t.kind[i] == NOMINAL, i
            off, cnt = t.cat_offset[i], t.cat_count[i]
            np.testing.assert_array_equal(t.cat_map[off:off + cnt], np.arange(len(nd.children)))


# =============================================================================
# tests
# =============================================================================
def test_reference_moments_and_pooling_against_numpy():
    """The reference's own ingredients against direct per-instance computation."""
    rng = np.random.RandomState(0)
    g = rng.randn(500) * 2 + 0.3
    h = rng.rand(500) * 0.25 + 0.01 * g
    side = rng.randint(0, 3, 500)
    parts_m = [Moments() for _ in range(3)]
    for gi, hi, s in zip(g, h, side):
        parts_m[s].add(gi, hi)
    whole = parts_m[0].union(parts_m[1]).union(parts_m[2])
    assert whole.n == 500
    np.testing.assert_allclose([whole.g, whole.h], [g.mean(), h.mean()], rtol=1e-12)
    np.testing.assert_allclose(whole.m2g, ((g - g.mean()) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(whole.m2h, ((h - h.mean()) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(whole.cgh, ((g - g.mean()) * (h - h.mean())).sum(), rtol=1e-12)
    np.testing.assert_allclose([whole.sg, whole.sh], [g.sum(), h.sum()], rtol=1e-12)
    # per-instance loss changes of a 3-way split: mean and (pooled) variance
    lam = 0.1
    for form in FORMS:
        dl = np.empty(500)
        parts = []
        for s in range(3):
            v, mean, var, om = loss_change(parts_m[s], lam, form)
            sel = side == s
            if form == "paper":       # eq. (13) and Omega's lambda term (eq. 5)
                assert v == pytest.approx(-g[sel].sum() / (lam + h[sel].sum()), rel=1e-12)
                assert om == pytest.approx(lam / 2 * v * v, rel=1e-12)
                # eq. (11) at its minimiser: -S_g^2 / (2 (lambda + S_h))
                assert sel.sum() * mean + om == pytest.approx(
                    -g[sel].sum() ** 2 / (2 * (lam + h[sel].sum())), rel=1e-10)
            else:
                assert v == pytest.approx(-g[sel].mean() / (h[sel].mean() + lam), rel=1e-12)
                assert om == 0.0
            dl[sel] = g[sel] * v + h[sel] * v * v / 2
            assert mean == pytest.approx(dl[sel].mean(), rel=1e-10)
            assert var == pytest.approx(dl[sel].var(ddof=1), rel=1e-9)
            parts.append((sel.sum(), mean, var))
        n, mean, var = pooled(parts)
        assert mean == pytest.approx(dl.mean(), rel=1e-10)
        assert var == pytest.approx(dl.var(ddof=1), rel=1e-9)
        # the t-test
        p = t_test_p(dl.mean(), dl.var(ddof=1), 500)
        assert p == pytest.approx(stats.ttest_1samp(dl, 0.0).pvalue, rel=1e-9)


# four instances, one numeric feature (two bins: x = 0 and x = 1), squared error
# from the initial prediction 0, so g_i = -y_i and h_i = 1; lambda = 1, gamma = 0.5
HAND_X = np.array([[0.0], [0.0], [1.0], [1.0]])
HAND_Y = np.array([1.0, 2.0, 3.0, 4.0])
HAND_PARAMS = dict(reg_lambda=1.0, gamma=0.5, max_bins=2, n_range_samples=4, grace_period=4,
                   delta=0.5)
# worked by hand (L = objective per instance of the leaf's n = 4 instances):
# paper (eq. 13 with sums, eqs. 5 and 11):
#   update: v = 10 / (1 + 4) = 2, L = (-10 * 2 + (4 + 1) / 2 * 2^2) / 4 = -10 / 4 = -2.5
#   split:  v_left = 3 / (1 + 2) = 1, v_right = 7 / (1 + 2) = 7/3,
#           L = [(-3 * 1 + 3/2 * 1) + (-7 * 7/3 + 3/2 * 49/9) + 2 * 0.5] / 4 = -13/6
#   -> the update wins: every prediction becomes 2
# mean (the authors' code: v = -mean g / (mean h + lambda), no lambda / 2 v^2 term):
#   update: v = 2.5 / 2 = 1.25, L = -2.5 * 1.25 + 1.25^2 / 2 = -2.34375
#   split:  v_left = 1.5 / 2 = 0.75, v_right = 3.5 / 2 = 1.75,
#           L = [(-1.5 * 0.75 + 0.75^2 / 2) + (-3.5 * 1.75 + 1.75^2 / 2)] / 2 + 2 * 0.5 / 4
#             = -2.46875
#   -> the split wins: predictions 0.75 (x = 0) and 1.75 (x = 1)
HAND = {"paper": dict(update=-2.5, split=-13 / 6, splits=0, updates=1, pred=[2, 2, 2, 2]),
        "mean": dict(update=-2.34375, split=-2.46875, splits=1, updates=0,
                     pred=[0.75, 0.75, 1.75, 1.75])}


@pytest.mark.parametrize("form", FORMS)
def test_leaf_value_forms_by_hand(form):
    """Eq. (13) with sums against the authors' means on a tiny example computed by hand:
    the two forms even choose different candidates."""
    want = HAND[form]
    ref = ReferenceSGT(1, squared_error, [False], [0], n_bins=2, lam=1.0, gamma=0.5,
                       grace=10 ** 9, delta=0.5, n_range=4, form=form)
    for r, yy in zip(HAND_X.tolist(), HAND_Y):
        ref.feed(r, yy)
    cands = list(ref.candidates(ref.nodes[0]))
    assert [c[2:4] for c in cands] == [(-1, -1), (0, 0)]
    assert cands[0][0] == pytest.approx(want["update"], rel=1e-12)
    assert cands[1][0] == pytest.approx(want["split"], rel=1e-12)
    model = SGTRegressor(leaf_value=form, **HAND_PARAMS).fit(HAND_X, HAND_Y)
    assert (model.n_splits, model.n_leaf_updates) == (want["splits"], want["updates"])
    np.testing.assert_allclose(model.predict(HAND_X), want["pred"], rtol=1e-12)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(CASES))
def test_reference_makes_splits(name, form):
    """The streams are hard enough that the trees grow (else the comparison is void)."""
    run = reference_run(name, form)
    ref = run["ref"]
    assert ref.splits >= 4
    assert any(nd.kind == "nominal" for nd in ref.nodes) or name == "binary_defaults"
    assert any(nd.kind == "numeric" for nd in ref.nodes)
    assert max(nd.depth for nd in ref.nodes) >= 2
    if CASES[name]["params"].get("resplit"):
        assert ref.resplits >= 1        # the re-split path is exercised


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("how", ["one", "small"])
@pytest.mark.parametrize("name", list(CASES))
def test_partial_fit_matches_reference(name, how, form):
    case = CASES[name]
    run = reference_run(name, form)
    X, y, X_test = run["X"], run["y"], run["X_test"]
    model = make_model(case, form)
    bounds = chunk_bounds(case["n"], how)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        model.partial_fit(X.iloc[lo:hi], y[lo:hi])
        snap = run["snaps"][hi]
        if hasattr(model, "classes_") or case["task"] == "regression":
            check_snapshot(model, snap, case["task"], X_test,
                           f"{name}/{how}/{form} after {hi}")
    check_structure(model, run["ref"])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(CASES))
def test_learn_one_matches_reference(name, form):
    case = CASES[name]
    run = reference_run(name, form)
    X, y, X_test = run["X"], run["y"], run["X_test"]
    model = make_model(case, form)
    # the first row as a frame fixes the encoding (the declared categories)
    model.partial_fit(X.iloc[:1], y[:1])
    cols = list(X.columns)
    values = [X[c].tolist() for c in cols]
    for i in range(1, case["n"]):
        model.learn_one({c: v[i] for c, v in zip(cols, values)}, y[i])
        if (i + 1) % LEARN_ONE_EVERY == 0 and (i + 1) >= case["params"].get(
                "n_range_samples", 1000):
            check_snapshot(model, run["snaps"][i + 1], case["task"], X_test,
                           f"{name}/{form}/learn_one after {i + 1}")
    check_structure(model, run["ref"])
    # predict_one / predict_proba_one agree with the batch predictions
    first = {c: X_test[c].iloc[0] for c in cols}
    if case["task"] == "regression":
        assert model.predict_one(first) == pytest.approx(model.predict(X_test.iloc[:1])[0],
                                                         abs=1e-12)
    else:
        pr = model.predict_proba_one(first)
        np.testing.assert_allclose([pr[c] for c in model.classes_],
                                   model.predict_proba(X_test.iloc[:1])[0], atol=1e-12)


@pytest.mark.parametrize("form", FORMS)
def test_fit_equals_one_chunk(form):
    case = CASES["multiclass"]
    run = reference_run("multiclass", form)
    a = make_model(case, form).fit(run["X"], run["y"])
    check_structure(a, run["ref"])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", ["regression", "binary", "multiclass", "pseudo_huber",
                                  "binary_resplit"])
def test_split_instants(name, form):
    """Chunks that stop one instance before and at every split / update of the
    reference: treelab's counts change at exactly the same instance."""
    case = CASES[name]
    run = reference_run(name, form)
    ref = run["ref"]
    n, n_range = case["n"], case["params"]["n_range_samples"]
    times = sorted({t for t, _ in ref.events if t > n_range})
    bounds = sorted({0, n_range, n} | {t - 1 for t in times} | set(times))
    model = make_model(case, form)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        model.partial_fit(run["X"].iloc[lo:hi], run["y"][lo:hi])
        if hi >= n_range:
            assert model.n_splits == sum(1 for t, k in ref.events if k == "split" and t <= hi)
            assert model.n_leaf_updates == sum(1 for t, k in ref.events
                                               if k == "update" and t <= hi)
    check_structure(model, ref)


# ----------------------------------------------------------------- multi-instance
def mil_data(n_bags, seed):
    """Bags of 3-8 instances in [0, 1]^3, positive iff some instance has x0 > 0.8."""
    rng = np.random.RandomState(seed)
    X, bags, y = [], [], []
    for b in range(n_bags):
        k = rng.randint(3, 9)
        Xi = rng.rand(k, 3)
        if rng.rand() < 0.5:
            Xi[:, 0] = rng.rand(k) * 0.8
        X.append(Xi)
        bags += [b] * k
        y += [int((Xi[:, 0] > 0.8).any())] * k
    bag_ids = np.array(bags) * 7 % n_bags          # ids not in order of appearance
    return np.vstack(X), np.array(y), bag_ids


@pytest.mark.parametrize("resplit", [False, True])
@pytest.mark.parametrize("form", FORMS)
def test_multi_instance_matches_reference(form, resplit):
    X, y, bags = mil_data(300, 0)
    params = dict(grace_period=40, delta=1e-3, gamma=0.2, max_bins=16, n_range_samples=200,
                  n_epochs=4, random_state=3, leaf_value=form, resplit=resplit)
    model = SGTMultiInstanceClassifier(**params).fit(X, y, bags)
    # reference: bags in order of first appearance, instances in stream order
    order = list(dict.fromkeys(bags.tolist()))
    rows = {b: [] for b in order}
    label = {}
    for x, yy, b in zip(X.tolist(), y, bags):
        rows[b].append(x)
        label[b] = float(yy)
    ref = ReferenceSGT(1, logistic, [False] * 3, [0] * 3, n_bins=16, lam=0.1, gamma=0.2,
                       grace=40, delta=1e-3, form=form, resplit=resplit)
    ref.fit_range([r for b in order for r in rows[b]][:200])
    codes = {b: [ref.code(r) for r in rows[b]] for b in order}
    rng = np.random.RandomState(3)
    for _ in range(4):
        for i in rng.permutation(len(order)):
            ref.learn_bag(codes[order[i]], label[order[i]])
    assert ref.splits >= 2
    assert model.n_splits == ref.splits
    assert model.n_leaf_updates == ref.updates
    check_structure(model, ref)
    Xt, yt, bt = mil_data(100, 1)
    order_t = list(dict.fromkeys(bt.tolist()))
    want = [max(ref.raw(ref.code(x))[0] for x, b in zip(Xt.tolist(), bt) if b == bb)
            for bb in order_t]
    np.testing.assert_allclose(model.decision_function(Xt, bt), want, rtol=1e-9, atol=1e-9)
