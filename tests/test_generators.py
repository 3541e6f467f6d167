"""RandCBT stream generator (Algorithm 2 of De Rosa & Cesa-Bianchi, IJCNN 2015).

The generator is checked against a slow pure-Python reference of Algorithm 2
written here (its own random numbers, Python's ``random``): the distributions of
the tree depth and of the fraction of informative splits must agree.

Behaviour changed by issue 9 (the old generator built a balanced heap-layout
tree): nodes are now in depth-first pre-order, leaf budgets are split at
random, and the defaults are the paper's (50 leaves, d = 5, q = 0.7, 10,000
examples per leaf).
"""
import math
import pickle
import random

import numpy as np
import pytest
from scipy import stats

from treelab.streaming import RandCBT
from treelab.streaming.generators import RandCBT as RandCBT2


# ------------------------------------------------------------ the reference
def reference_randcbt(n_leaves, d, q, rnd, is_left=None, depth=0, cell=None):
    """Algorithm 2, literally and recursively, with Python's ``random.Random``.

    Returns a nested dict: leaves ``{"p": P(y=1), "depth", "left": bool}``,
    internal nodes ``{"j", "v", "l", "r", "depth"}``.
    """
    cell = [(0.0, 1.0)] * d if cell is None else cell
    if n_leaves == 1:                                     # lines 2-7
        return {"p": q if is_left else 1 - q, "depth": depth, "left": is_left, "n": 1,
                "a": 1 if is_left else 0}
    x = rnd.random()                                      # line 9, [0, 1)
    left = max(1, math.floor(n_leaves * x))               # line 10
    right = n_leaves - left                               # line 11
    j = rnd.randrange(d)                                  # line 12
    lo, hi = cell[j]
    v = rnd.uniform(lo, hi)                               # line 13
    lcell, rcell = list(cell), list(cell)
    lcell[j], rcell[j] = (lo, v), (v, hi)
    lnode = reference_randcbt(left, d, q, rnd, True, depth + 1, lcell)     # line 15
    rnode = reference_randcbt(right, d, q, rnd, False, depth + 1, rcell)   # line 16
    return {"j": j, "v": v, "l": lnode, "r": rnode, "depth": depth,
            "n": lnode["n"] + rnode["n"], "a": lnode["a"] + rnode["a"]}


def reference_stats(tree):
    """(maximum leaf depth, number of splits, number of informative splits):
    a split is informative when its children's P(y=1), with equal mass per
    leaf, differ: a_L / n_L != a_R / n_R (a = number of left-leaves)."""
    if "p" in tree:
        return tree["depth"], 0, 0
    dl, sl, il = reference_stats(tree["l"])
    dr, sr, ir = reference_stats(tree["r"])
    informative = tree["l"]["a"] * tree["r"]["n"] != tree["r"]["a"] * tree["l"]["n"]
    return max(dl, dr), sl + sr + 1, il + ir + int(informative)


N_TREES = 1500


@pytest.fixture(scope="module")
def samples_50():
    rnd = random.Random(12345)
    ref = [reference_stats(reference_randcbt(50, 5, 0.7, rnd)) for _ in range(N_TREES)]
    ours = [RandCBT(n_leaves=50, m_per_leaf=1, random_state=10_000 + s) for s in range(N_TREES)]
    return ref, ours


# ---------------------------------------------------------------- the basics
def test_reexport_and_paper_defaults():
    assert RandCBT is RandCBT2
    g = RandCBT(random_state=0)
    assert (g.n_leaves, g.n_features, g.q, g.m_per_leaf) == (50, 5, 0.7, 10_000)
    assert g.threshold_margin == 0.0
    assert len(g) == 500_000


@pytest.mark.parametrize("n_leaves", [2, 3, 5, 8, 13, 50])
def test_shapes_and_tree_structure(n_leaves):
    g = RandCBT(n_leaves=n_leaves, n_features=4, q=0.8, m_per_leaf=50, random_state=1)
    X, y = g.generate()
    assert X.shape == (n_leaves * 50, 4) and X.dtype == np.float64
    assert y.shape == (n_leaves * 50,) and y.dtype == np.int64
    assert set(np.unique(y)) <= {0, 1}
    assert len(g) == g.n_samples == n_leaves * 50
    assert np.all((X >= 0.0) & (X <= 1.0))
    # a full binary tree: n - 1 internal nodes, n leaves, 2n - 1 nodes
    assert g.n_nodes_ == 2 * n_leaves - 1
    internal = g.feature_ >= 0
    assert internal.sum() == n_leaves - 1
    assert len(g.leaf_nodes_) == n_leaves
    assert np.array_equal(g.leaf_nodes_, np.nonzero(~internal)[0])
    assert np.all(np.isnan(g.threshold_[~internal]))
    assert np.all(g.n_leaves_below_[g.leaf_nodes_] == 1) and g.n_leaves_below_[0] == n_leaves
    assert g.parent_[0] == -1 and g.depth_[0] == 0
    for i in np.nonzero(internal)[0]:
        j, th = g.feature_[i], g.threshold_[i]
        lc, rc = g.children_left_[i], g.children_right_[i]
        # pre-order layout: the left child follows its parent, the right child
        # follows the left subtree
        assert lc == i + 1 and rc == i + 2 * g.n_leaves_below_[lc]
        assert g.n_leaves_below_[lc] + g.n_leaves_below_[rc] == g.n_leaves_below_[i]
        assert g.parent_[lc] == g.parent_[rc] == i
        assert g.depth_[lc] == g.depth_[rc] == g.depth_[i] + 1
        # the threshold lies strictly inside the node's sub-region; the
        # children split the cell on attribute j and inherit the rest
        assert 0 <= j < 4
        assert g.lower_[i, j] < th < g.upper_[i, j]
        assert g.upper_[lc, j] == th and g.lower_[rc, j] == th
        others = np.arange(4) != j
        assert np.array_equal(g.lower_[lc, others], g.lower_[i, others])
        assert np.array_equal(g.upper_[rc, others], g.upper_[i, others])
        assert g.is_left_child_[lc] and not g.is_left_child_[rc]
    assert g.root_feature_ == g.feature_[0] and g.root_threshold_ == g.threshold_[0]
    assert g.max_depth_ == g.depth_.max()
    # the leaves' cells tile the unit cube
    vol = np.prod(g.upper_[g.leaf_nodes_] - g.lower_[g.leaf_nodes_], axis=1)
    assert math.isclose(vol.sum(), 1.0, rel_tol=1e-9)


def test_replays_algorithm_2_draw_by_draw():
    """Documented draw order: per internal node in pre-order, x, then j, then v."""
    seed, n, d = 77, 40, 3
    g = RandCBT(n_leaves=n, n_features=d, m_per_leaf=1, random_state=seed)
    rng = np.random.default_rng(seed)
    for i in range(g.n_nodes_):
        if g.feature_[i] < 0:
            continue
        b = g.n_leaves_below_[i]
        x = rng.random()
        assert g.n_leaves_below_[g.children_left_[i]] == max(1, math.floor(b * x))
        j = int(rng.integers(0, d))
        assert g.feature_[i] == j
        lo, hi = g.lower_[i, j], g.upper_[i, j]
        assert g.threshold_[i] == lo + rng.random() * (hi - lo)


def test_left_budget_distribution():
    """left = max{1, floor(n x)}: P(1) = 2/n, P(k) = 1/n for k = 2..n-1, never n."""
    n, trials = 10, 4000
    lefts = np.array([RandCBT(n_leaves=n, n_features=1, m_per_leaf=1, random_state=s)
                      .n_leaves_below_[1] for s in range(trials)])
    assert lefts.min() >= 1 and lefts.max() <= n - 1
    counts = np.bincount(lefts, minlength=n)[1:n]
    expected = trials * np.array([2 / n] + [1 / n] * (n - 2))
    assert stats.chisquare(counts, expected).pvalue > 1e-3


def test_left_equals_n_cannot_happen():
    """x is drawn in [0, 1): even the largest double below 1 leaves one leaf on the right."""
    x_max = np.nextafter(1.0, 0.0)
    for n in list(range(2, 300)) + [2**20, 10**6 + 3]:
        assert max(1, math.floor(n * x_max)) == n - 1


@pytest.mark.parametrize("x", [np.nextafter(1.0, 0.0), 1.0])
def test_x_at_one_gives_a_comb(monkeypatch, x):
    """x = 1 (the closed end of U[0, 1], never drawn) would give left = n; it is
    clamped to n - 1 so the right subtree keeps one leaf."""
    x_max = x

    class AlmostOne:
        def __init__(self, inner):
            self.inner = inner

        def random(self, *a, **k):
            return x_max if not a and not k else self.inner.random(*a, **k)

        def integers(self, *a, **k):
            return self.inner.integers(*a, **k)

    g = RandCBT.__new__(RandCBT)
    g.n_leaves, g.n_features, g.q, g.m_per_leaf, g.threshold_margin = 7, 2, 0.7, 1, 0.0
    # thresholds at the cell's middle, so every rng.random() call is an x draw
    monkeypatch.setattr(RandCBT, "_draw_threshold",
                        lambda self, rng, lo, hi: lo + 0.5 * (hi - lo))
    g._build_tree(AlmostOne(np.random.default_rng(0)))
    # every split gives n - 1 leaves to the left and 1 to the right: a comb
    assert g.max_depth_ == 6
    internal = np.nonzero(g.feature_ >= 0)[0]
    assert all(g.n_leaves_below_[g.children_right_[i]] == 1 for i in internal)


# ---------------------------------------------- against the slow reference
def test_depth_distribution_matches_reference(samples_50):
    ref, ours = samples_50
    d_ref = np.array([r[0] for r in ref])
    d_our = np.array([g.max_depth_ for g in ours])
    # chi-square two-sample test on the depth histogram (tails pooled)
    lo, hi = 8, 15
    bins = lambda d: np.bincount(np.clip(d, lo, hi) - lo, minlength=hi - lo + 1)
    table = np.vstack([bins(d_ref), bins(d_our)])
    assert stats.chi2_contingency(table).pvalue > 1e-3
    # "depth around 11 for 50 leaves" (a balanced tree would have 6)
    assert 10.8 < d_our.mean() < 11.8 and 10.8 < d_ref.mean() < 11.8
    assert np.median(d_our) == 11


def test_leaf_depth_profile_matches_reference(samples_50):
    """Mean leaf depth per tree (one number per independent tree): KS test."""
    _, ours = samples_50
    rnd = random.Random(999)

    def leaf_depths(t):
        return [t["depth"]] if "p" in t else leaf_depths(t["l"]) + leaf_depths(t["r"])

    ref_mean = [np.mean(leaf_depths(reference_randcbt(50, 5, 0.7, rnd))) for _ in range(N_TREES)]
    our_mean = [g.depth_[g.leaf_nodes_].mean() for g in ours]
    assert stats.ks_2samp(ref_mean, our_mean).pvalue > 1e-3


def test_informative_fraction_matches_reference(samples_50):
    ref, ours = samples_50
    f_ref = np.array([r[2] / r[1] for r in ref])
    f_our = np.array([g.informative_fraction_ for g in ours])
    assert stats.ks_2samp(f_ref, f_our).pvalue > 1e-3
    assert abs(f_ref.mean() - f_our.mean()) < 0.01
    # the paper's trees: most splits carry information (a balanced tree of
    # 64 leaves would have only its 32 lowest splits informative)
    assert 0.9 < f_our.mean() < 0.98


def test_informative_by_hand():
    # n = 2: both children are leaves (q vs 1 - q): informative
    g = RandCBT(n_leaves=2, m_per_leaf=1, random_state=0)
    assert g.informative_[0] and g.informative_fraction_ == 1.0
    assert g.node_proba_[0] == pytest.approx(0.5)
    # q = 1/2: nothing is informative
    g = RandCBT(n_leaves=20, q=0.5, m_per_leaf=1, random_state=0)
    assert not g.informative_.any()
    # n = 4 split 2 / 2: each child holds one left and one right leaf -> not informative
    seed = next(s for s in range(100)
                if RandCBT(n_leaves=4, m_per_leaf=1, random_state=s).n_leaves_below_[1] == 2)
    g = RandCBT(n_leaves=4, q=0.7, m_per_leaf=1, random_state=seed)
    assert not g.informative_[0]
    assert g.informative_[1] and g.informative_[g.children_right_[0]]
    assert g.node_proba_[1] == g.node_proba_[g.children_right_[0]] == pytest.approx(0.5)
    # n = 3 split 1 / 2: left leaf q = 0.7 vs right subtree (0.7 + 0.3) / 2
    seed = next(s for s in range(100)
                if RandCBT(n_leaves=3, m_per_leaf=1, random_state=s).n_leaves_below_[1] == 1)
    g = RandCBT(n_leaves=3, q=0.7, m_per_leaf=1, random_state=seed)
    assert g.informative_[0]
    assert g.node_proba_[1] == pytest.approx(0.7) and g.node_proba_[2] == pytest.approx(0.5)
    assert g.node_proba_[0] == pytest.approx(1.7 / 3)


def test_informative_flags_match_the_data():
    """The class proportions of the generated rows in each child agree with
    node_proba_; uninformative splits have equal child proportions."""
    g = RandCBT(n_leaves=12, n_features=3, q=0.7, m_per_leaf=3000, random_state=5)
    X, y, leaf = g.generate(return_leaf=True)
    # ancestors of every row's leaf
    for i in np.nonzero(g.feature_ >= 0)[0]:
        for c in (g.children_left_[i], g.children_right_[i]):
            inside = np.all((X > g.lower_[c]) & (X <= g.upper_[c]), axis=1)
            n_c = g.n_leaves_below_[c] * 3000
            assert inside.sum() == n_c
            se = math.sqrt(0.25 / n_c)
            assert abs(y[inside].mean() - g.node_proba_[c]) < 5 * se
        pl = g.node_proba_[g.children_left_[i]]
        pr = g.node_proba_[g.children_right_[i]]
        assert g.informative_[i] == (not math.isclose(pl, pr))


# ------------------------------------------------------------------- the data
def test_every_leaf_gets_m_examples_in_its_cell():
    g = RandCBT(n_leaves=16, n_features=3, q=0.9, m_per_leaf=200, random_state=7)
    X, y, leaf = g.generate(return_leaf=True)
    counts = np.bincount(leaf, minlength=g.n_nodes_)
    assert np.all(counts[g.leaf_nodes_] == 200)
    assert counts.sum() == 16 * 200
    # routing through the generating tree reaches the generating leaf
    assert np.array_equal(g.apply(X), leaf)
    for node in g.leaf_nodes_:
        rows = X[leaf == node]
        assert np.all(rows > g.lower_[node]) and np.all(rows <= g.upper_[node])
        # uniform in the cell: mean near the cell's centre on every attribute
        centre = (g.lower_[node] + g.upper_[node]) / 2
        side = g.upper_[node] - g.lower_[node]
        assert np.all(np.abs(rows.mean(0) - centre) < 5 * side * math.sqrt(1 / 12 / 200))


def test_label_probabilities_q_left_one_minus_q_right():
    q, m = 0.7, 4000
    g = RandCBT(n_leaves=10, n_features=5, q=q, m_per_leaf=m, random_state=3)
    X, y, leaf = g.generate(return_leaf=True)
    tol = 4 * np.sqrt(q * (1 - q) / m)  # 4 standard errors
    lefts = rights = 0
    for node in g.leaf_nodes_:
        frac = y[leaf == node].mean()
        expected = q if g.is_left_child_[node] else 1 - q
        lefts += g.is_left_child_[node]
        rights += not g.is_left_child_[node]
        assert g.leaf_proba_[node] == expected
        assert abs(frac - expected) < tol
    assert lefts > 0 and rights > 0
    assert np.all(np.isnan(g.leaf_proba_[g.feature_ >= 0]))
    # all left-leaf rows pooled: q within 4 standard errors
    is_l = g.is_left_child_[leaf]
    assert abs(y[is_l].mean() - q) < 4 * math.sqrt(q * (1 - q) / is_l.sum())
    assert abs(y[~is_l].mean() - (1 - q)) < 4 * math.sqrt(q * (1 - q) / (~is_l).sum())


def test_extreme_q():
    g = RandCBT(n_leaves=4, n_features=2, q=1.0, m_per_leaf=30, random_state=0)
    X, y, leaf = g.generate(return_leaf=True)
    assert np.array_equal(y, g.is_left_child_[leaf].astype(np.int64))
    assert np.array_equal(g.predict(X), y)
    assert g.bayes_error == 0.0
    p = g.predict_proba(X)
    assert p.shape == (120, 2) and np.allclose(p.sum(1), 1.0)


def test_determinism_and_pickle():
    a = RandCBT(n_leaves=8, n_features=3, q=0.7, m_per_leaf=100, random_state=42)
    b = RandCBT(n_leaves=8, n_features=3, q=0.7, m_per_leaf=100, random_state=42)
    Xa, ya = a.generate()
    Xb, yb = b.generate()
    assert np.array_equal(Xa, Xb) and np.array_equal(ya, yb)
    assert np.array_equal(a.threshold_, b.threshold_, equal_nan=True)
    # repeated calls give the same data
    Xa2, ya2 = a.generate()
    assert np.array_equal(Xa, Xa2) and np.array_equal(ya, ya2)
    # a different seed gives a different tree and data
    c = RandCBT(n_leaves=8, n_features=3, q=0.7, m_per_leaf=100, random_state=43)
    assert not np.array_equal(c.generate()[0], Xa)
    # a Generator is accepted; None still gives a repeatable instance
    g = RandCBT(n_leaves=4, m_per_leaf=10, random_state=np.random.default_rng(5))
    assert np.array_equal(g.generate()[0], g.generate()[0])
    n = RandCBT(n_leaves=4, m_per_leaf=10, random_state=None)
    assert np.array_equal(n.generate()[1], n.generate()[1])
    # pickling keeps the tree and the data
    p = pickle.loads(pickle.dumps(a))
    Xp, yp = p.generate()
    assert np.array_equal(Xp, Xa) and np.array_equal(yp, ya)
    assert np.array_equal(p.informative_, a.informative_)


def test_shuffled():
    g = RandCBT(n_leaves=4, n_features=2, q=0.9, m_per_leaf=500, random_state=0)
    _, _, leaf = g.generate(return_leaf=True)
    # not grouped by leaf: many changes of leaf along the stream
    assert (np.diff(leaf) != 0).sum() > 1000


@pytest.mark.parametrize("chunk", [1, 7, 100, 999, 5000])
def test_iter_chunks(chunk):
    g = RandCBT(n_leaves=4, n_features=3, q=0.9, m_per_leaf=250, random_state=11)
    X, y = g.generate()
    parts = list(g.iter_chunks(chunk))
    assert all(len(px) == len(py) <= chunk for px, py in parts)
    assert all(len(px) == chunk for px, _ in parts[:-1])
    assert np.array_equal(np.vstack([p[0] for p in parts]), X)
    assert np.array_equal(np.concatenate([p[1] for p in parts]), y)


def test_iter_examples():
    g = RandCBT(n_leaves=2, n_features=2, q=0.9, m_per_leaf=5, random_state=0)
    X, y = g.generate()
    rows = list(g)
    assert len(rows) == 10
    assert all(np.array_equal(x, X[i]) and yy == y[i] for i, (x, yy) in enumerate(rows))


def test_validation():
    with pytest.raises(ValueError, match="n_leaves"):
        RandCBT(n_leaves=1)
    with pytest.raises(TypeError, match="n_leaves"):
        RandCBT(n_leaves=2.5)
    with pytest.raises(ValueError, match="n_features"):
        RandCBT(n_features=0)
    with pytest.raises(ValueError, match="q"):
        RandCBT(q=1.5)
    with pytest.raises(TypeError, match="q"):
        RandCBT(q="0.7")
    with pytest.raises(ValueError, match="m_per_leaf"):
        RandCBT(m_per_leaf=0)
    with pytest.raises(ValueError, match="threshold_margin"):
        RandCBT(threshold_margin=0.5)
    with pytest.raises(TypeError, match="random_state"):
        RandCBT(random_state="seed")
    with pytest.raises(ValueError, match="chunk_size"):
        list(RandCBT(n_leaves=2, m_per_leaf=3).iter_chunks(0))
    with pytest.raises(ValueError, match="shape"):
        RandCBT(n_leaves=2, n_features=3, m_per_leaf=3).apply(np.zeros((2, 2)))


def test_threshold_margin():
    g = RandCBT(n_leaves=32, n_features=2, q=0.9, m_per_leaf=1, random_state=0,
                threshold_margin=0.25)
    for i in np.nonzero(g.feature_ >= 0)[0]:
        j = g.feature_[i]
        lo, hi = g.lower_[i, j], g.upper_[i, j]
        assert lo + 0.25 * (hi - lo) - 1e-12 <= g.threshold_[i] <= hi - 0.25 * (hi - lo) + 1e-12


# ------------------------------------------------- learners recover the tree
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_root_split_recoverable_by_a_stump(seed):
    """With two leaves the root split is the Bayes split and a stump recovers it."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    g = RandCBT(n_leaves=2, n_features=4, q=0.7, m_per_leaf=5000, random_state=seed,
                threshold_margin=0.1)
    X, y = g.generate()
    stump = sklearn_tree.DecisionTreeClassifier(max_depth=1, criterion="gini").fit(X, y)
    assert stump.tree_.feature[0] == g.root_feature_
    assert abs(stump.tree_.threshold[0] - g.root_threshold_) < 0.03


def _ctree_rule(**kw):
    from treelab.split_criteria.rules import CTreeRule
    return CTreeRule(**kw)


@pytest.mark.parametrize("seed", [0, 4])
@pytest.mark.parametrize("rule", ["vfdt", "ctree"])
def test_streaming_trees_recover_the_root_split(rule, seed):
    """A stream from a known tree (two leaves, the paper's q = 0.7): VFDT and
    C-Tree (Gini, grace period 100 as in Section VI) put the generating
    tree's root test at their root."""
    from treelab import HoeffdingTreeClassifier
    from treelab._engine.tree import NUMERIC
    gen = RandCBT(n_leaves=2, n_features=4, q=0.7, m_per_leaf=5000, random_state=seed,
                  threshold_margin=0.2)
    X, y = gen.generate()
    n_bins = 16
    kw = dict(grace_period=100, max_bins=n_bins, criterion="gini", leaf_prediction="mc")
    if rule == "ctree":
        kw["rule"] = _ctree_rule(criterion="gini", c=0.05)
    m = HoeffdingTreeClassifier(**kw).partial_fit(X, y)
    t = m._forest
    f = gen.root_feature_
    assert t.kind[0] == NUMERIC and t.feature[0] == f
    # the threshold "bins 0..b go left" is the upper edge of bin b
    width = (m._hi[f] - m._lo[f]) / n_bins
    thr = m._lo[f] + (t.threshold[0] - 0.5 + 1) * width
    assert abs(thr - gen.root_threshold_) <= 1.5 * width
    # near-Bayes accuracy on fresh data from the same tree
    Xt = np.random.default_rng(seed + 100).random((4000, 4))
    yt = (np.random.default_rng(seed + 200).random(4000)
          < gen.predict_proba(Xt)[:, 1]).astype(int)
    assert (m.predict(Xt) == yt).mean() >= 1 - gen.bayes_error - 0.03
