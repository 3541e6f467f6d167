"""Synthetic data streams.

:class:`RandCBT` -- the random complete-binary-tree stream of De Rosa &
Cesa-Bianchi, "Splitting with confidence in decision trees with application to
stream mining" (IJCNN 2015), Algorithm 2.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["RandCBT"]


def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


class RandCBT:
    """Random complete binary tree stream (RandCBT, Algorithm 2 of the C-Tree paper).

    The generating model, as described by De Rosa & Cesa-Bianchi (IJCNN 2015):

    1. a complete binary tree with ``n_leaves`` leaves;
    2. ``n_features`` attributes, each uniform on ``[0, 1]``;
    3. every internal node tests a random attribute against a random threshold;
    4. a leaf that is a *left* child labels its examples 1 with probability
       ``q``, a leaf that is a *right* child with probability ``1 - q``;
    5. ``m_per_leaf`` examples per leaf, the whole set shuffled.

    Implementation choices (the paper's pseudo-code was not available to
    re-read, so these are documented here):

    * **Shape.**  The complete binary tree with ``n`` leaves in heap layout:
      ``2n - 1`` nodes, node ``i`` has children ``2i + 1`` (left) and ``2i + 2``
      (right); nodes ``0 .. n-2`` are internal, ``n-1 .. 2n-2`` are leaves.  All
      levels are full except possibly the last, filled from the left; with
      ``n`` a power of two it is the perfect tree of depth ``log2 n``.
    * **Cells and thresholds.**  Each node owns a box ("cell") of ``[0, 1]^d``;
      the root's is the unit cube.  An internal node draws its attribute ``j``
      uniformly from ``0 .. d-1`` (attributes may repeat along a path) and its
      threshold uniformly *inside its own cell's side* ``(lo_j, hi_j)``
      (optionally shrunk by ``threshold_margin`` on each side), so both
      children's cells have positive volume and every leaf can receive
      examples.  Rows with ``x[j] <= threshold`` go left.
    * **Examples.**  Each leaf receives exactly ``m_per_leaf`` examples drawn
      uniformly in its own cell (every cell side is treated as ``(lo, hi]``,
      consistent with the ``<=`` routing), with labels Bernoulli(``q``) on left
      leaves and Bernoulli(``1 - q``) on right leaves.  The ``n * m`` rows are
      then shuffled.

    Note: with equal mass per leaf, every internal node whose two subtrees hold
    as many left leaves as right leaves (e.g. every node above the last level of
    a perfect tree) sees a 50/50 class mixture in each child, so its split has
    zero impurity gain: only splits just above the leaves are visible to a
    greedy learner.  The root split is label-informative only when the root
    has a leaf child (``n_leaves`` = 2 or 3); with ``n_leaves = 2`` it is the
    Bayes split itself.

    Parameters
    ----------
    n_leaves : int >= 2
    n_features : int >= 1
    q : float in [0, 1]
    m_per_leaf : int >= 1
    random_state : None, int, or numpy.random.Generator
        Seed of everything (tree and data).  With an int (or ``None`` fixed at
        construction) ``generate()`` returns the same data at every call.
    threshold_margin : float in [0, 0.5)
        Fraction of the cell side excluded at each end when drawing a threshold
        (0 = uniform over the whole side, the paper's setting as understood).

    Attributes
    ----------
    n_nodes_, feature_, threshold_, children_left_, children_right_, depth_,
    is_left_child_, lower_, upper_, leaf_nodes_, leaf_proba_, root_feature_,
    root_threshold_, max_depth_
        The generating tree (arrays indexed by node; ``feature_ = -1``,
        ``threshold_ = nan``, children ``-1`` at leaves; ``lower_``/``upper_``
        are the ``(n_nodes, d)`` cell bounds; ``leaf_proba_`` is P(y=1) at
        leaves and ``nan`` at internal nodes).
    """

    def __init__(self, n_leaves=8, n_features=5, q=0.9, m_per_leaf=500, random_state=None,
                 threshold_margin=0.0):
        self.n_leaves = _check_int(n_leaves, "n_leaves", 2)
        self.n_features = _check_int(n_features, "n_features", 1)
        self.m_per_leaf = _check_int(m_per_leaf, "m_per_leaf", 1)
        q = float(q)
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"q must be in [0, 1], got {q!r}")
        self.q = q
        margin = float(threshold_margin)
        if not 0.0 <= margin < 0.5:
            raise ValueError(f"threshold_margin must be in [0, 0.5), got {threshold_margin!r}")
        self.threshold_margin = margin
        if not (random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator))
                or isinstance(random_state, np.random.SeedSequence)):
            raise TypeError("random_state must be None, an int, a SeedSequence or a numpy Generator")
        self.random_state = random_state
        rng = np.random.default_rng(random_state)
        self._build_tree(rng)
        # a fixed seed for the data, so generate() is repeatable
        self._data_seed = int(rng.integers(0, 2**63 - 1))

    # ------------------------------------------------------------------ tree
    def _build_tree(self, rng):
        n, d = self.n_leaves, self.n_features
        n_nodes = 2 * n - 1
        n_internal = n - 1
        feature = np.full(n_nodes, -1, dtype=np.int64)
        threshold = np.full(n_nodes, np.nan, dtype=np.float64)
        left = np.full(n_nodes, -1, dtype=np.int64)
        right = np.full(n_nodes, -1, dtype=np.int64)
        depth = np.zeros(n_nodes, dtype=np.int64)
        lower = np.zeros((n_nodes, d), dtype=np.float64)
        upper = np.ones((n_nodes, d), dtype=np.float64)
        for i in range(n_internal):  # heap order: a parent's cell is set before its children
            j = int(rng.integers(0, d))
            lo, hi = lower[i, j], upper[i, j]
            a = lo + self.threshold_margin * (hi - lo)
            b = hi - self.threshold_margin * (hi - lo)
            theta = a + rng.random() * (b - a)
            # strictly inside the cell so both children have positive volume
            while not lo < theta < hi:
                theta = a + rng.random() * (b - a)
            feature[i] = j
            threshold[i] = theta
            lc, rc = 2 * i + 1, 2 * i + 2
            left[i], right[i] = lc, rc
            for c in (lc, rc):
                lower[c] = lower[i]
                upper[c] = upper[i]
                depth[c] = depth[i] + 1
            upper[lc, j] = theta
            lower[rc, j] = theta
        is_left = np.zeros(n_nodes, dtype=bool)
        is_left[1::2] = True  # odd heap indices are left children
        leaf_nodes = np.arange(n_internal, n_nodes, dtype=np.int64)
        leaf_proba = np.full(n_nodes, np.nan, dtype=np.float64)
        leaf_proba[leaf_nodes] = np.where(is_left[leaf_nodes], self.q, 1.0 - self.q)

        self.n_nodes_ = n_nodes
        self.feature_ = feature
        self.threshold_ = threshold
        self.children_left_ = left
        self.children_right_ = right
        self.depth_ = depth
        self.is_left_child_ = is_left
        self.lower_ = lower
        self.upper_ = upper
        self.leaf_nodes_ = leaf_nodes
        self.leaf_proba_ = leaf_proba
        self.root_feature_ = int(feature[0])
        self.root_threshold_ = float(threshold[0])
        self.max_depth_ = int(depth.max())

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
        chunk_size = _check_int(chunk_size, "chunk_size", 1)
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
