"""The cascade's own path for treelab's forests (used by :mod:`.cascade`).

A generic cascade hands every (forest, fold) model its training rows as a new
``X`` and asks it for ``predict_proba``: each fold fit copies the rows, the
forest re-bins (or presorts) them, and every level copies the raw features
again.  For treelab's random / extra / completely-random forests the cascade
instead grows the trees itself on the engine
(:func:`~treelab._engine.column_builder.grow_codes`), on data prepared once:

* the raw features are quantile-binned **once** (uint8 codes, ``max_bins`` bins,
  as deep-forest 0.1.x) and written once into the ``[raw | class vectors]``
  code matrix of a phase, stored column-major (a tree reads one feature of
  many rows at a time); every level overwrites only the class-vector columns,
  which are binned per level (255 quantile bins of the training vectors, the
  edges kept for prediction, as deep-forest bins its augmented features);
* a fold model is a list of row ids into that matrix (the builder's ``rows``),
  never a copy; a bootstrap sample is integer weights on those rows;
* trees split bin codes as the forest's ``splitter="hist"`` does (for the raw
  columns the same partitions of the training rows as the exact splitter,
  thresholds at bin boundaries), but only the drawn features are read: a
  random forest's node histograms (or sorts) its sqrt(d) drawn features, a
  completely-random tree's node reads the [min, max] code range of its one
  feature -- no histogram over all d columns, no histogram pool (on MNIST's
  824 columns this was most of the fit's time and memory); the trees equal
  the histogram builder's (tested in ``tests/test_column_builder.py``);
* the k fold forests of a slot are stored as **one** multi-root tree (only
  what prediction reads, :func:`~treelab.ensembles.forest._compact`); the
  class vector of a training row is one :func:`~treelab._engine.tree.forest_sum`
  call over the roots of the fold that did not see it, the out-of-bag vectors
  one :func:`~treelab._engine.tree.forest_oob_sum`; new rows are averaged over
  all k x T roots (= the mean of the k fold forests' means, all of size T);
* the trees of a slot grow on joblib threads over the engine's ``nogil``
  kernels; every tree's seeds are drawn beforehand (same model whatever
  ``n_jobs``).

A fold model with seed ``s`` is exactly ``Forest(random_state=s,
splitter="hist").fit(codes[rows], y[rows])`` whenever every code of a column
occurs in the fold's rows (the forest would otherwise place its bin edges
between the codes present, which moves thresholds but not the partition of
the training rows); the tests check this equality.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._compile import announce
from .._engine.binning import BinnedData, bin_matrix, quantile_bin_edges
from .._engine.bootstrap import bootstrap_row_weights
from .._engine.builder import make_params
from .._engine.column_builder import get_codes_kernel
from .._engine.merit import MERIT_GAIN_RATIO, TASK_CLASSIFICATION, TASK_DENSE
from .._engine.signatures import IMPURITY_SIG, MERIT_SIG, function_pointer
from .._engine.tree import CODE_MISSING, concat_trees, forest_oob_sum, pack_walk
from ..split_criteria import get_criterion
from .forest import _MAX_SEED, _BaseForest, _compact, forest_weighted_sum

#: the bin code of a missing value in every code matrix of the cascade
MISSING = CODE_MISSING
#: store the fitted trees compactly (:func:`narrow`); False only in tests
NARROW = True


def supported(forests, max_bin):
    """True when every forest is a treelab forest the fast path reproduces
    (no class weights, nominal features, ``max_samples``,
    ``min_weight_fraction_leaf`` or gain ratio; those go through the generic path)."""
    if max_bin is None:
        return False
    for f in forests:
        if not isinstance(f, _BaseForest):
            return False
        p = f.get_params(deep=False)
        if (p.get("class_weight") is not None or p.get("nominal_features") is not None
                or p.get("max_samples") is not None
                or float(p.get("min_weight_fraction_leaf", 0.0)) != 0.0):
            return False
        try:
            if get_criterion(p.get("criterion"), f._task).merit_code == MERIT_GAIN_RATIO:
                return False            # C4.5's choice rule: the builder's generic search
        except (TypeError, ValueError):
            return False                # a bad criterion: the forest itself says so
    return True


def identity_edges(n_value_bins):
    """Bin edges ``k + 0.5`` for columns whose values are already bin codes
    ``0 .. n_value_bins[c] - 1``: a histogram split "bins <= b" is the threshold
    ``code <= b + 0.5`` on the codes themselves."""
    n_value_bins = np.asarray(n_value_bins, np.int64)
    offsets = np.zeros(n_value_bins.shape[0] + 1, np.int64)
    offsets[1:] = np.cumsum(np.maximum(n_value_bins - 1, 0))
    edges = np.concatenate([np.arange(max(b - 1, 0)) + 0.5 for b in n_value_bins]) \
        if n_value_bins.shape[0] else np.zeros(0)
    return np.ascontiguousarray(edges, np.float64), offsets


def identity_values(n_value_bins):
    """The bins' values of code columns: ``0 .. n_value_bins[c] - 1`` per column
    (the ``BinnedData.bin_values`` layout)."""
    vals = [np.arange(max(int(b), 1), dtype=np.float64) for b in n_value_bins]
    return np.ascontiguousarray(np.concatenate(vals) if vals else np.zeros(0), np.float64)


#: the data the trees of a level grow on: ``D`` (:data:`BinnedData`: edges, bins,
#: missing code; its ``X`` only carries the shape and its ``Xb`` is a placeholder)
#: and ``XT``, the codes column-major (``d x n`` uint8, read by
#: :func:`~treelab._engine.column_builder.grow_codes`)
CodeData = namedtuple("CodeData", ["D", "XT"])


def binned_data(Xb, n_value_bins, has_missing):
    """:data:`CodeData` over the code matrix ``Xb`` (``n x d`` uint8, missing = 255;
    best a transposed C-contiguous ``d x n`` array, which is used without a copy).
    ``D.X`` only carries the shape (``np.empty`` maps no memory until written; a
    test checks that the trees do not depend on it).  The histograms have as many
    bins as :func:`~treelab._engine.binning.bin_data` would give (most value bins
    + 1 for missing values; 256 when a value is missing, so that code 255 is the
    missing bin).  The bins' values (``D.bin_values``, on which random cut-points
    are drawn, :func:`~treelab._engine.splitter.draw_cut_bin`) are the codes
    themselves, as a forest fitted on the codes would have them."""
    n, d = Xb.shape
    edges, offsets = identity_edges(n_value_bins)
    B = MISSING + 1 if has_missing else int(np.max(n_value_bins, initial=1)) + 1
    D = BinnedData(np.empty((n, d)), np.zeros((1, d), np.uint8), np.zeros((d, 0), np.int64),
                   np.zeros((d, 0)), np.zeros(d, np.bool_), np.zeros(d, np.int64), edges,
                   offsets, True, B - 1, B, identity_values(n_value_bins))
    return CodeData(D, np.ascontiguousarray(Xb.T))


def codes_to_float(Xb):
    """Codes as float64 for the traversal kernels (thresholds are ``k + 0.5``),
    missing as NaN; C order (rows of the column-major code matrix would otherwise
    stay column-major, and the traversal copy them once more)."""
    X = Xb.astype(np.float64, order="C")
    X[Xb == MISSING] = np.nan
    return X


def bin_vectors(vec, max_bin, edges=None, seed=None):
    """Class vectors -> uint8 codes (255 quantile bins of the training vectors).
    Returns ``(codes, (edges, offsets), n_value_bins)``."""
    vec = np.ascontiguousarray(vec, np.float64)
    isnom = np.zeros(vec.shape[1], np.bool_)
    if edges is None:
        edges = quantile_bin_edges(vec, isnom, int(max_bin), random_state=seed)
    e, off = edges
    codes = bin_matrix(vec, e, off, isnom, MISSING)
    return codes, edges, np.diff(off) + 1


class PackedSlot:
    """One slot (forest) of a level: its ``n_models`` fold forests (or one
    out-of-bag forest) of ``n_trees`` trees each, stored as one multi-root tree
    (``forest``, ``roots``; model ``j`` owns roots ``j * n_trees ..``, and its
    nodes are one contiguous block)."""

    def __init__(self, forest, roots, n_trees, n_models, kind):
        self.forest = forest
        self.roots = roots
        self.n_trees = n_trees
        self.n_models = n_models
        self.kind = kind                     # name of the prototype's class

    def __len__(self):
        return self.n_models

    def __repr__(self):
        return (f"PackedSlot({self.kind}, {self.n_models} model(s) x {self.n_trees} trees, "
                f"{int(self.forest.sizes[0])} nodes)")

    @property
    def nbytes(self):
        return int(sum(a.nbytes for a in self.forest))

    def model(self, j):
        """Model ``j`` alone as ``(forest, roots)``: views of its block of nodes
        (child ids renumbered in a copy), so that a traversal of one fold model
        packs (:func:`~treelab._engine.tree.pack_forest`, O(nodes) per call) and
        walks its own nodes only, not all ``k`` models'."""
        T = self.n_trees
        t = self.forest
        a = int(self.roots[j * T])
        b = int(self.roots[(j + 1) * T]) if j + 1 < self.n_models else int(t.sizes[0])
        if a == 0 and b == int(t.sizes[0]):
            return t, self.roots
        fields = {name: getattr(t, name)[a:b] for name in _NODE_FIELDS + ("value",)
                  if getattr(t, name).shape[0] == t.sizes[0]}
        fc = t.first_child[a:b] - t.first_child.dtype.type(a)
        fc[t.first_child[a:b] < 0] = -1
        fields.update(first_child=fc, sizes=np.array([b - a, t.sizes[1]], np.int64))
        return t._replace(**fields), self.roots[j * T:(j + 1) * T] - a

    def mean(self, X, model=None, n_jobs=None):
        """Mean leaf value over the trees of ``model`` (None: of all models, summed
        in root order), through the forests' :func:`.forest.forest_weighted_sum`.
        One thread (``n_jobs`` = 1, or little work): the serial
        traversal, tree by tree over all rows (a deep tree stays in cache while
        every row walks it); otherwise one chunk of rows per thread.  ``X``: float
        codes (:func:`codes_to_float`) or the uint8 codes themselves, walked as
        they are (one byte a feature instead of eight: MNIST's 6,400 training
        rows x 824 columns are 5 MB instead of 42 MB, which stay in cache)."""
        forest, roots = (self.forest, self.roots) if model is None else self.model(model)
        w = np.full(roots.shape[0], 1.0 / roots.shape[0])
        ok, rec = pack_walk(forest)
        if X.dtype == np.uint8 and not ok:
            X = codes_to_float(X)          # (nominal nodes: the general walk reads floats)
        X = np.ascontiguousarray(X, None if X.dtype == np.uint8 else np.float64)
        return forest_weighted_sum(forest, roots, w, X, n_jobs, walk=rec if ok else None)


def narrow(t):
    """A compact tree holds only what the traversal reads, in the narrowest exact
    types: features and child ids int32, thresholds float32 (they are ``k + 0.5``
    with ``k < 255``: exact), missing-value slots int8, leaf values float32
    (class proportions / means to 7 significant digits; the sums over trees run
    in float64).  Every node is numeric (the cascade's codes), so the category
    tables are never read and shrink to one entry; arrays already narrow are
    not copied again.  The engine's traversal
    kernels run on it unchanged (numba compiles them once for these types)."""
    one = np.zeros(1, np.int64)
    return t._replace(feature=t.feature.astype(np.int32, copy=False), threshold=t.threshold.astype(
        np.float32, copy=False), first_child=t.first_child.astype(np.int32, copy=False),
        missing_child=t.missing_child.astype(np.int8, copy=False), cat_offset=one, cat_count=one,
        cat_map=np.full(1, -1, np.int64), value=t.value.astype(np.float32, copy=False))


def _cp(crit):
    cp = crit.params
    return np.zeros(1) if cp is None else np.ascontiguousarray(cp, np.float64)


def _shrink(t, value_fn):
    """The grown tree reduced to what prediction reads (``trim`` + ``_compact`` +
    :func:`narrow` in one step: each kept field copied once, from the nodes in
    use only), its node values through ``value_fn`` (class proportions)."""
    n = int(t.sizes[0])
    t = t._replace(**{name: getattr(t, name)[:n] for name in _NODE_FIELDS},
                   value=np.ascontiguousarray(value_fn(t.value[:n])),
                   cat_map=t.cat_map[:max(int(t.sizes[1]), 1)], sizes=t.sizes.copy())
    t = _compact(t)
    if NARROW:
        return narrow(t._replace(kind=t.kind.copy()))
    return t._replace(**{name: getattr(t, name).copy() for name in _NODE_FIELDS + (
        "cat_map", "value")})


#: the per-node fields a compact tree keeps (``forest._DROPPED`` are emptied)
_NODE_FIELDS = ("feature", "kind", "threshold", "first_child", "missing_child", "cat_offset",
                "cat_count")


def _grow_one(data, yc, sstats, bp, crit, seeds, rows, bootstrap, value_fn, w_rows=None):
    """One tree on ``rows`` of ``data`` (bootstrap: integer weights drawn over
    the positions of ``rows``, as the forest's ``_bootstrap_counts``; otherwise
    unit weights on ``rows``, ``w_rows`` when given: the trees only read it).
    Returns (compact tree, in-bag mask over ``rows`` or None)."""
    in_bag = None
    s = sstats
    if bootstrap:
        w, counts = bootstrap_row_weights(int(seeds[0]), rows, data.XT.shape[1])
        in_bag = counts > 0
        trows = rows[in_bag]
        if sstats.shape[0]:
            s = np.zeros_like(sstats)
            s[trows] = sstats[trows] * counts[in_bag][:, None]
    else:
        trows = rows
        w = _unit_weights(data.XT.shape[1], rows) if w_rows is None else w_rows
    t = get_codes_kernel()(data.D, data.XT, yc, s, w, np.ascontiguousarray(trows, np.int64),
                           bp._replace(seed=int(seeds[1])), _cp(crit),
                           function_pointer(crit.impurity, IMPURITY_SIG),
                           function_pointer(crit.merit, MERIT_SIG), False)
    return _shrink(t, value_fn), in_bag


def _unit_weights(N, rows):
    w = np.zeros(N)
    w[rows] = 1.0
    return w


def fit_slot(proto, task, seeds, data, y, n_classes, folds, oob, n_jobs):
    """Grow the fold forests (``folds``: list of training row arrays) of one slot,
    or its out-of-bag forest (``oob``: one bootstrap forest on ``folds[0]``).
    ``seeds[j]``: the seed of model ``j`` (a forest's ``random_state``); ``y``: class
    codes ``0 .. n_classes - 1`` or regression targets of all rows of ``data``.
    Returns ``(PackedSlot, in_bag (T, n) uint8 or None)``."""
    from joblib import Parallel, delayed
    announce("forests")       # the column builder's kernel: one line if it must compile
    n_trees = proto._check_forest_params()
    template = proto._template(None)
    d, n = data.XT.shape
    if task == "classification":
        yc, sstats, n_stats = np.ascontiguousarray(y, np.int64), np.zeros((0, n_classes)), \
            n_classes
    else:
        yf = np.asarray(y, np.float64)
        yc, sstats, n_stats = np.zeros(0, np.int64), np.ascontiguousarray(
            np.stack([np.ones_like(yf), yf, yf * yf], axis=1)), 3
    crit = get_criterion(proto.criterion, task)
    bootstrap = bool(proto.bootstrap) or oob
    if not proto._draws_on_bin_values():
        # random cut-points uniform among the bin boundaries (or no random cuts)
        data = data._replace(D=data.D._replace(bin_values=np.zeros(0)))
    jobs = []
    for j, rows in enumerate(folds):
        m = rows.shape[0]
        params = template._resolve_params(m, d, float(m))
        bp = make_params(TASK_CLASSIFICATION if task == "classification" else TASK_DENSE,
                         n_stats, multiway=template._nominal_mode(), seed=0,
                         merit_code=crit.merit_code, builtin=crit.builtin_code,
                         split_mode=proto._split_mode, **params)
        rs = np.random.RandomState(int(seeds[j]))
        rs.randint(0, _MAX_SEED)                 # the forest's bin seed (unused here)
        tree_seeds = rs.randint(0, _MAX_SEED, size=(n_trees, 2))
        # without bootstrap every tree of the model reads the same unit weights
        w_rows = None if bootstrap else _unit_weights(n, rows)
        jobs += [(bp, tuple(tree_seeds[i]), rows, w_rows) for i in range(n_trees)]
    out = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_grow_one)(data, yc, sstats, bp, crit, sd, rows, bootstrap,
                           template._value_from_stats, w_rows) for bp, sd, rows, w_rows in jobs)
    del jobs
    forest, roots = concat_trees([t for t, _ in out])
    if NARROW:
        forest = narrow(forest)
    in_bag = None
    if oob:
        in_bag = np.zeros((n_trees, n), np.uint8)
        rows = folds[0]
        for i, (_, b) in enumerate(out):
            in_bag[i, rows[b]] = 1
    del out
    return PackedSlot(forest, roots, n_trees, len(folds), type(proto).__name__), in_bag


def oob_vectors(slot, X, in_bag, task, y, n_classes):
    """Out-of-bag class vectors of the training rows ``X`` (rows never out of bag
    get the class prior / the mean target, as the generic path)."""
    sums, cnt = forest_oob_sum(slot.forest, slot.roots, np.ascontiguousarray(X), in_bag)
    v = sums / np.maximum(cnt, 1)[:, None]
    bad = cnt == 0
    if task == "classification":
        fill = np.bincount(y, minlength=n_classes) / y.shape[0]
    else:
        fill = float(np.mean(y))
    v[bad] = fill
    return v
