"""RandCBT stream generator (Algorithm 2 of De Rosa & Cesa-Bianchi, IJCNN 2015)."""
import numpy as np
import pytest

from treelab.streaming import RandCBT
from treelab.streaming.generators import RandCBT as RandCBT2


def test_reexport():
    assert RandCBT is RandCBT2


@pytest.mark.parametrize("n_leaves", [2, 3, 5, 8, 13])
def test_shapes_and_tree_structure(n_leaves):
    g = RandCBT(n_leaves=n_leaves, n_features=4, q=0.8, m_per_leaf=50, random_state=1)
    X, y = g.generate()
    assert X.shape == (n_leaves * 50, 4) and X.dtype == np.float64
    assert y.shape == (n_leaves * 50,) and y.dtype == np.int64
    assert set(np.unique(y)) <= {0, 1}
    assert len(g) == g.n_samples == n_leaves * 50
    assert np.all((X >= 0.0) & (X <= 1.0))
    # complete binary tree in heap layout: n - 1 internal nodes, n leaves
    assert g.n_nodes_ == 2 * n_leaves - 1
    internal = g.feature_ >= 0
    assert internal.sum() == n_leaves - 1
    assert np.all(internal[: n_leaves - 1]) and not internal[n_leaves - 1:].any()
    assert np.array_equal(g.leaf_nodes_, np.arange(n_leaves - 1, 2 * n_leaves - 1))
    assert np.all(np.isnan(g.threshold_[~internal]))
    # depths differ by at most one across leaves (complete tree)
    leaf_depths = g.depth_[g.leaf_nodes_]
    assert leaf_depths.max() - leaf_depths.min() <= 1
    assert g.max_depth_ == int(np.ceil(np.log2(n_leaves)))
    # thresholds strictly inside the node's cell; children's cells split it
    for i in np.nonzero(internal)[0]:
        j, th = g.feature_[i], g.threshold_[i]
        assert 0 <= j < 4
        assert g.lower_[i, j] < th < g.upper_[i, j]
        lc, rc = g.children_left_[i], g.children_right_[i]
        assert g.upper_[lc, j] == th and g.lower_[rc, j] == th
        assert g.is_left_child_[lc] and not g.is_left_child_[rc]
    assert g.root_feature_ == g.feature_[0] and g.root_threshold_ == g.threshold_[0]


def test_every_leaf_gets_m_examples_in_its_cell():
    g = RandCBT(n_leaves=16, n_features=3, q=0.9, m_per_leaf=200, random_state=7)
    X, y, leaf = g.generate(return_leaf=True)
    counts = np.bincount(leaf, minlength=g.n_nodes_)
    assert np.all(counts[g.leaf_nodes_] == 200)
    assert counts[: g.n_leaves - 1].sum() == 0
    # routing through the generating tree reaches the generating leaf
    assert np.array_equal(g.apply(X), leaf)
    for node in g.leaf_nodes_:
        rows = X[leaf == node]
        assert np.all(rows > g.lower_[node]) and np.all(rows <= g.upper_[node])


def test_label_proportions_per_leaf():
    q, m = 0.8, 4000
    g = RandCBT(n_leaves=8, n_features=5, q=q, m_per_leaf=m, random_state=3)
    X, y, leaf = g.generate(return_leaf=True)
    tol = 4 * np.sqrt(q * (1 - q) / m)  # 4 standard errors
    for node in g.leaf_nodes_:
        frac = y[leaf == node].mean()
        expected = q if g.is_left_child_[node] else 1 - q
        assert g.leaf_proba_[node] == expected
        assert abs(frac - expected) < tol
    # left leaves are the odd heap indices
    assert np.all(g.is_left_child_[g.leaf_nodes_] == (g.leaf_nodes_ % 2 == 1))
    assert abs(y.mean() - 0.5) < 0.02


def test_extreme_q():
    g = RandCBT(n_leaves=4, n_features=2, q=1.0, m_per_leaf=30, random_state=0)
    X, y, leaf = g.generate(return_leaf=True)
    assert np.array_equal(y, (leaf % 2 == 1).astype(np.int64))
    assert np.array_equal(g.predict(X), y)
    assert g.bayes_error == 0.0
    p = g.predict_proba(X)
    assert p.shape == (120, 2) and np.allclose(p.sum(1), 1.0)


def test_determinism():
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
    g = RandCBT(n_leaves=4, random_state=np.random.default_rng(5))
    assert np.array_equal(g.generate()[0], g.generate()[0])
    n = RandCBT(n_leaves=4, random_state=None)
    assert np.array_equal(n.generate()[1], n.generate()[1])


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


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_root_split_recoverable(seed):
    """With two leaves the root split is the Bayes split and a stump recovers it."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    g = RandCBT(n_leaves=2, n_features=4, q=0.9, m_per_leaf=5000, random_state=seed)
    X, y = g.generate()
    stump = sklearn_tree.DecisionTreeClassifier(max_depth=1, criterion="entropy").fit(X, y)
    assert stump.tree_.feature[0] == g.root_feature_
    assert abs(stump.tree_.threshold[0] - g.root_threshold_) < 0.02


def test_upper_splits_carry_no_label_information():
    """Perfect tree, equal mass per leaf: each root child holds a 50/50 class mixture."""
    g = RandCBT(n_leaves=8, n_features=3, q=0.9, m_per_leaf=5000, random_state=4)
    X, y = g.generate()
    left = X[:, g.root_feature_] <= g.root_threshold_
    assert abs(y[left].mean() - 0.5) < 0.02 and abs(y[~left].mean() - 0.5) < 0.02


def test_validation():
    with pytest.raises(ValueError):
        RandCBT(n_leaves=1)
    with pytest.raises(TypeError):
        RandCBT(n_leaves=2.5)
    with pytest.raises(ValueError):
        RandCBT(n_features=0)
    with pytest.raises(ValueError):
        RandCBT(q=1.5)
    with pytest.raises(ValueError):
        RandCBT(m_per_leaf=0)
    with pytest.raises(ValueError):
        RandCBT(threshold_margin=0.5)
    with pytest.raises(TypeError):
        RandCBT(random_state="seed")
    with pytest.raises(ValueError):
        list(RandCBT(n_leaves=2, m_per_leaf=3).iter_chunks(0))
    with pytest.raises(ValueError):
        RandCBT(n_leaves=2, n_features=3).apply(np.zeros((2, 2)))


def test_threshold_margin():
    g = RandCBT(n_leaves=32, n_features=2, q=0.9, m_per_leaf=1, random_state=0,
                threshold_margin=0.25)
    for i in range(g.n_leaves - 1):
        j = g.feature_[i]
        lo, hi = g.lower_[i, j], g.upper_[i, j]
        assert lo + 0.25 * (hi - lo) - 1e-12 <= g.threshold_[i] <= hi - 0.25 * (hi - lo) + 1e-12
