"""Synthetic data streams.

:class:`RandCBT` -- the random binary-tree stream of De Rosa & Cesa-Bianchi,
"Splitting with Confidence in Decision Trees with Application to Stream
Mining" (IJCNN 2015), Section VI-A and Algorithm 2 (RandCBT).
"""
from __future__ import annotations

import numbers

import numpy as np

from .._params import check_int, check_real

__all__ = ["RandCBT"]


class RandCBT:
    """Random binary-tree stream, Algorithm 2 (RandCBT) of the C-Tree paper.

    Algorithm 2 of De Rosa & Cesa-Bianchi (IJCNN 2015), applied recursively
    from the root with a budget of ``n = n_leaves`` leaves:

    * ``n == 1``: the node is a leaf; P(y = 1 | leaf) = ``q`` if it is a *left*
      child, ``1 - q`` if it is a right child (lines 2-7);
    * otherwise draw ``x ~ U[0, 1]``, give the left subtree
      ``left = max{1, floor(n x)}`` leaves and the right one ``n - left``
      (lines 9-11), test a uniformly random attribute ``j`` of ``0 .. d-1``
      against a random threshold ``v`` inside the node's sub-region
      (lines 12-13: ``v ~ U(lo_j, hi_j)``, the node's cell side on ``j``), and
      recurse on both children.

    The stream (Section VI-A): ``m_per_leaf`` examples drawn uniformly from each
    leaf's sub-region of ``[0, 1]^d`` (the paper: 10,000 per leaf, 50 leaves,
    d = 5, q = 0.7, i.e. 500,000 examples), labels Bernoulli of the leaf's
    P(y = 1); the ``n_leaves * m_per_leaf`` rows are then shuffled.

    Choices where the text leaves room (each one documented and tested):

    * **The right budget.**  The prose of Section VI-A says ``floor(nX)`` and
      ``n - 1 - floor(nX)`` leaves, which would lose a leaf at each split;
      Algorithm 2 says ``n - left``, which keeps exactly ``n`` leaves (the
      "50 leaves" of the experiment).  Algorithm 2 is followed.
    * **left = n cannot happen.**  ``x`` is drawn from ``[0, 1)`` (NumPy's
      ``Generator.random``), so ``floor(n x) <= n - 1`` and both subtrees get
      at least one leaf (also in floating point: ``n (1 - 2^-53)`` rounds
      below ``n``).  The closed-interval endpoint ``x = 1`` (probability zero)
      would give ``left = n`` and an empty right subtree; it is never drawn,
      and were it drawn, ``left`` would be clamped to ``n - 1``.  Hence ``P(left = 1) = 2/n`` (``x < 2/n``) and ``P(left = k) =
      1/n`` for ``k = 2 .. n-1``: the trees are deep and irregular (mean
      maximum depth about 11.3 for 50 leaves, against 6 for a balanced tree).
    * **Thresholds.**  ``v`` is uniform on the open side ``(lo_j, hi_j)`` of the
      node's cell (redrawn in the measure-zero event of hitting an end), so
      every leaf's cell has positive volume; attributes may repeat along a
      path.  ``threshold_margin`` (default 0, the paper's setting) optionally
      keeps ``v`` away from the ends by that fraction of the side.  Rows with
      ``x[j] <= v`` go left; leaf examples are drawn on ``(lo, hi]`` per side,
      consistent with that routing.
    * **The root.**  ``n_leaves >= 2`` is required: with one leaf the root is
      neither a left nor a right child and the stream carries no split.
    * **Random numbers.**  One ``numpy.random.Generator`` seeded by
      ``random_state`` draws, node by node in depth-first (pre-)order, ``x``,
      then ``j``, then ``v``; a second seed drawn from it after the tree fixes
      the data, so :meth:`generate` returns the same rows at every call.

    Informative splits.  Every leaf carries the same mass (``m_per_leaf``
    examples), so a node holding ``a`` left-leaves among its ``n`` leaves has
    P(y = 1) = ``(a q + (n - a)(1 - q)) / n``.  A split separates the classes
    (has positive impurity gain in the population) iff its two children's
    P(y = 1) differ, i.e. ``a_L n_R != a_R n_L`` (for ``q != 1/2``).  Every
    split whose children are both leaves is informative; a split above two
    subtrees holding the same fraction of left-leaves is not.
    :attr:`informative_` marks them.

    Parameters
    ----------
    n_leaves : int >= 2, default 50
        The leaf budget ``num-leaves`` of Algorithm 2 (the paper: 50).
    n_features : int >= 1, default 5
        ``d``, the number of attributes, each on ``[0, 1]`` (the paper: 5).
    q : float in [0, 1], default 0.7
        P(y = 1) on left leaves (``1 - q`` on right leaves); the paper's 0.7.
    m_per_leaf : int >= 1, default 10,000
        Examples per leaf (the paper: 10,000).
    random_state : None, int, SeedSequence or numpy.random.Generator
        Seed of everything (tree and data).  With an int (or ``None`` fixed at
        construction) ``generate()`` returns the same data at every call.
    threshold_margin : float in [0, 0.5), default 0
        Fraction of the cell side excluded at each end when drawing a
        threshold (0 = uniform over the whole side, Algorithm 2).

    Attributes
    ----------
    n_nodes_ : int
        ``2 n_leaves - 1``.  Nodes are numbered in depth-first pre-order (root
        0, a node's left subtree before its right subtree).
    feature_, threshold_ : arrays (n_nodes,)
        Split attribute and threshold (``-1`` / ``nan`` at leaves).
    children_left_, children_right_, parent_ : int arrays (n_nodes,)
        ``-1`` where absent.
    depth_ : int array (n_nodes,)
        Root at depth 0.
    n_leaves_below_ : int array (n_nodes,)
        The leaf budget each node received (1 at leaves).
    is_left_child_ : bool array (n_nodes,)
    lower_, upper_ : float arrays (n_nodes, n_features)
        The node's cell ``(lower, upper]`` per attribute.
    leaf_nodes_ : int array (n_leaves,)
        Leaf node indices, increasing (left to right).
    leaf_proba_ : float array (n_nodes,)
        P(y = 1) at leaves, ``nan`` at internal nodes.
    node_proba_ : float array (n_nodes,)
        P(y = 1) of the examples reaching each node (equal mass per leaf).
    informative_ : bool array (n_nodes,)
        Internal nodes whose two children have different P(y = 1).
    root_feature_, root_threshold_, max_depth_ : the root's test, the tree's
        maximum depth.
    """

    def __init__(self, n_leaves=50, n_features=5, q=0.7, m_per_leaf=10_000, random_state=None,
                 threshold_margin=0.0):
        self.n_leaves = check_int("n_leaves", n_leaves, 2)
        self.n_features = check_int("n_features", n_features, 1)
        self.m_per_leaf = check_int("m_per_leaf", m_per_leaf, 1)
        self.q = check_real("q", q, 0, 1)
        self.threshold_margin = check_real("threshold_margin", threshold_margin, 0, 0.5,
                                           hi_open=True)
        if not (random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator))
                or isinstance(random_state, np.random.SeedSequence)) or isinstance(random_state, bool):
            raise TypeError("random_state must be None, an int, a SeedSequence or a numpy Generator")
        self.random_state = random_state
        rng = np.random.default_rng(random_state)
        self._build_tree(rng)
        # a fixed seed for the data, so generate() is repeatable
        self._data_seed = int(rng.integers(0, 2**63 - 1))

    # ------------------------------------------------------------------ tree
    def _draw_threshold(self, rng, lo, hi):
        """``v`` uniform inside the node's cell side ``(lo, hi)`` (Algorithm 2, line 13)."""
        a = lo + self.threshold_margin * (hi - lo)
        b = hi - self.threshold_margin * (hi - lo)
        v = a + rng.random() * (b - a)
        while not lo < v < hi:  # measure zero; keeps both children's cells non-empty
            v = a + rng.random() * (b - a)
        return v

    def _build_tree(self, rng):
        """Algorithm 2, iteratively (explicit stack, depth-first pre-order)."""
        n, d, q = self.n_leaves, self.n_features, self.q
        n_nodes = 2 * n - 1
        feature = np.full(n_nodes, -1, dtype=np.int64)
        threshold = np.full(n_nodes, np.nan, dtype=np.float64)
        left = np.full(n_nodes, -1, dtype=np.int64)
        right = np.full(n_nodes, -1, dtype=np.int64)
        parent = np.full(n_nodes, -1, dtype=np.int64)
        depth = np.zeros(n_nodes, dtype=np.int64)
        budget = np.zeros(n_nodes, dtype=np.int64)
        is_left = np.zeros(n_nodes, dtype=bool)
        lower = np.zeros((n_nodes, d), dtype=np.float64)
        upper = np.ones((n_nodes, d), dtype=np.float64)
        budget[0] = n
        stack = [0]
        while stack:
            i = stack.pop()
            b = int(budget[i])
            if b == 1:  # lines 2-7: a leaf
                continue
            x = rng.random()                              # line 9, x in [0, 1)
            n_left = max(1, int(np.floor(b * x)))         # line 10
            # x < 1 gives floor(b x) <= b - 1 (also in floating point); the
            # guard only matters for an x = 1 endpoint (see the class docstring)
            n_left = min(n_left, b - 1)
            n_right = b - n_left                          # line 11, >= 1
            j = int(rng.integers(0, d))                   # line 12
            v = self._draw_threshold(rng, lower[i, j], upper[i, j])  # line 13
            feature[i], threshold[i] = j, v
            # pre-order ids: the right child follows the left subtree's 2 n_left - 1 nodes
            lc, rc = i + 1, i + 2 * n_left
            left[i], right[i] = lc, rc
            for c, nb in ((lc, n_left), (rc, n_right)):
                parent[c] = i
                depth[c] = depth[i] + 1
                budget[c] = nb
                lower[c] = lower[i]
                upper[c] = upper[i]
            is_left[lc] = True
            upper[lc, j] = v
            lower[rc, j] = v
            stack.append(rc)
            stack.append(lc)

        leaf_nodes = np.nonzero(budget == 1)[0].astype(np.int64)
        leaf_proba = np.full(n_nodes, np.nan, dtype=np.float64)
        leaf_proba[leaf_nodes] = np.where(is_left[leaf_nodes], q, 1.0 - q)  # lines 4-7
        # a = number of left-leaves below each node (post-order: children have larger ids)
        n_left_leaves = np.zeros(n_nodes, dtype=np.int64)
        n_left_leaves[leaf_nodes] = is_left[leaf_nodes]
        for i in range(n_nodes - 1, -1, -1):
            if left[i] >= 0:
                n_left_leaves[i] = n_left_leaves[left[i]] + n_left_leaves[right[i]]
        node_proba = (n_left_leaves * q + (budget - n_left_leaves) * (1.0 - q)) / budget
        informative = np.zeros(n_nodes, dtype=bool)
        internal = left >= 0
        lc_, rc_ = left[internal], right[internal]
        informative[internal] = (n_left_leaves[lc_] * budget[rc_]
                                 != n_left_leaves[rc_] * budget[lc_]) & (q != 0.5)

        self.n_nodes_ = n_nodes
        self.feature_ = feature
        self.threshold_ = threshold
        self.children_left_ = left
        self.children_right_ = right
        self.parent_ = parent
        self.depth_ = depth
        self.n_leaves_below_ = budget
        self.is_left_child_ = is_left
        self.lower_ = lower
        self.upper_ = upper
        self.leaf_nodes_ = leaf_nodes
        self.leaf_proba_ = leaf_proba
        self.node_proba_ = node_proba
        self.informative_ = informative
        self.root_feature_ = int(feature[0])
        self.root_threshold_ = float(threshold[0])
        self.max_depth_ = int(depth.max())

    @property
    def informative_fraction_(self):
        """Fraction of the ``n_leaves - 1`` splits that are informative."""
        return float(self.informative_.sum()) / (self.n_leaves - 1)

    # ------------------------------------------------------------------ data
    @property
    def n_samples(self):
        """Total number of examples, ``n_leaves * m_per_leaf``."""
        return self.n_leaves * self.m_per_leaf

    def __len__(self):
        return self.n_samples

    def generate(self, return_leaf=False):
        """The whole shuffled data set.

        Returns
        -------
        X : float64 array (n_leaves * m_per_leaf, n_features)
        y : int64 array (n_leaves * m_per_leaf,), values in {0, 1}
        leaf : int64 array, only with ``return_leaf=True``: the generating leaf
            (node index) of each row.
        """
        rng = np.random.default_rng(self._data_seed)
        m, d = self.m_per_leaf, self.n_features
        n_rows = self.n_samples
        X = np.empty((n_rows, d), dtype=np.float64)
        y = np.empty(n_rows, dtype=np.int64)
        leaf = np.repeat(self.leaf_nodes_, m)
        for r, node in enumerate(self.leaf_nodes_):
            lo, hi = self.lower_[node], self.upper_[node]
            u = rng.random((m, d))  # [0, 1)
            X[r * m:(r + 1) * m] = hi - u * (hi - lo)  # (lo, hi]
            y[r * m:(r + 1) * m] = rng.random(m) < self.leaf_proba_[node]
        perm = rng.permutation(n_rows)
        X, y, leaf = X[perm], y[perm], leaf[perm]
        if return_leaf:
            return X, y, leaf
        return X, y

    def iter_chunks(self, chunk_size=1000):
        """Yield ``(X_chunk, y_chunk)`` over the shuffled data set, in order.

        The last chunk may be shorter.  Deterministic like :meth:`generate`.
        """
        chunk_size = check_int("chunk_size", chunk_size, 1)
        X, y = self.generate()
        for start in range(0, X.shape[0], chunk_size):
            yield X[start:start + chunk_size], y[start:start + chunk_size]

    def __iter__(self):
        """Yield single examples ``(x, y)`` (x a float64 vector, y an int)."""
        X, y = self.generate()
        for i in range(X.shape[0]):
            yield X[i], int(y[i])

    # ------------------------------------------------------------ the model
    def apply(self, X):
        """Index of the generating tree's leaf reached by each row of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (n, {self.n_features}), got {X.shape}")
        node = np.zeros(X.shape[0], dtype=np.int64)
        for _ in range(self.max_depth_):
            internal = self.feature_[node] >= 0
            if not internal.any():
                break
            idx = np.nonzero(internal)[0]
            nd = node[idx]
            go_left = X[idx, self.feature_[nd]] <= self.threshold_[nd]
            node[idx] = np.where(go_left, self.children_left_[nd], self.children_right_[nd])
        return node

    def predict_proba(self, X):
        """Bayes class probabilities ``[P(y=0|x), P(y=1|x)]`` under the generating model."""
        p1 = self.leaf_proba_[self.apply(X)]
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """Bayes-optimal labels (ties, q = 0.5, go to class 1)."""
        return (self.leaf_proba_[self.apply(X)] >= 0.5).astype(np.int64)

    @property
    def bayes_error(self):
        """Error of the Bayes classifier, ``min(q, 1 - q)``."""
        return min(self.q, 1.0 - self.q)

    def __repr__(self):
        return (f"RandCBT(n_leaves={self.n_leaves}, n_features={self.n_features}, q={self.q}, "
                f"m_per_leaf={self.m_per_leaf}, random_state={self.random_state!r})")
