"""Random forests, extremely randomized trees and completely-random tree forests.

Course slides, chapter 5 ("Random Forests"): an ensemble of unpruned trees with
two sources of randomness -- "Bagging" (each tree grown on a bootstrap sample of
the training data, sampling with replacement) and "Random input vectors" (at
each node the best split is chosen among a random sample of m_try variables);
the forest votes (here, as in scikit-learn, it averages the trees' class
proportions).  The out-of-bag (OOB) error is the slides' "Some comments on
ensemble learning" item: each row is predicted by the trees whose bootstrap
sample missed it (Breiman 2001, section 3.1).

* :class:`RandomForestClassifier` / :class:`RandomForestRegressor`: Breiman
  (2001): bootstrap + best split among ``max_features`` features per node;
* :class:`ExtraTreesClassifier` / :class:`ExtraTreesRegressor`: Geurts, Ernst
  & Wehenkel (2006), Algorithm 2: one cut-point drawn uniformly in the node's
  [min, max] of each of ``max_features`` drawn features, the best of those
  random splits kept; no bootstrap by default;
* :class:`CompletelyRandomForestClassifier` / :class:`CompletelyRandomForestRegressor`:
  gcForest's completely-random tree forests (Zhou & Feng 2017, section 2.1:
  "each completely-random tree ... randomly selecting a feature for split at
  each node of the tree, and growing tree until each leaf node contains only
  the same class of instances"): one random (non-constant) feature and one
  random cut-point per node, grown until pure.

All of them grow treelab trees on the batch engine: the data are binned
(``splitter="hist"``) or presorted (``splitter="best"``) **once** and shared by
every tree (:func:`treelab._engine.binning.bin_data`); a bootstrap sample
enters a tree as integer weights (a row drawn k times has weight k, the others
are left out of the tree); trees grow on threads through joblib
(``Parallel(prefer="threads")`` over the engine's ``nogil`` kernels), so
``joblib.parallel_config(backend="dask")`` sends them to a Dask cluster.  Per
tree seeds are drawn up front: the same ``random_state`` gives the same forest
whatever ``n_jobs`` or backend.  The fitted trees are kept as one multi-root
tree (:func:`treelab._engine.tree.concat_trees`), so ``predict`` is one kernel
call, parallel over rows.
"""
from __future__ import annotations

import inspect
import numbers
import os
import warnings
from contextlib import contextmanager

import numpy as np

from .._compile import announce
from .._engine.binning import MAX_BINS, BinnedData, bin_data, exact_bins, rank_columns
from .._engine.bootstrap import bootstrap_counts, bootstrap_indices
from .._engine.builder import LAYOUT_PRESORT, LAYOUT_SAMPLES, make_params
from .._engine.build import build_tree
from .._engine.column_builder import build_tree_codes
from .._engine.impurity import BUILTIN_ENTROPY, BUILTIN_GINI
from .._engine.merit import (
    MERIT_GAIN_RATIO, MERIT_IMPURITY_DECREASE, TASK_CLASSIFICATION, TASK_DENSE,
)
from .._engine.splitter import FEATURE_THRESHOLD, SPLIT_BEST, SPLIT_RANDOM
from .._engine.tree import (
    LEAF, concat_trees, forest_apply, forest_decision_path, forest_oob_sum, forest_sum,
    forest_sum_serial, forest_sum_walk, forest_sum_walk_serial, pack_walk, trim,
)
from .._params import check_bool, check_int, check_n_jobs, check_splitter
from .._progress import parallel_with_progress
from .._sklearn_compat import (
    BaseEstimator, ClassifierMixin, ProbaArgmaxMixin, RegressorMixin, check_is_fitted,
)
from ..data import check_random_state, encode_X, fit_encode_X, set_fitted_encoding
from ..learners.decision_tree import DecisionTreeClassifier, DecisionTreeRegressor
from ..split_criteria import get_criterion
from ._base import KeptWalkLayout

__all__ = [
    "RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
    "ExtraTreesRegressor", "CompletelyRandomForestClassifier",
    "CompletelyRandomForestRegressor",
]

_MAX_SEED = np.iinfo(np.int32).max
#: per-node arrays not needed once a tree is fitted (prediction, apply and
#: decision paths read only the split description and the values); a fitted
#: forest keeps them empty to hold less memory than scikit-learn's
_DROPPED = ("n_children", "parent", "depth", "n_samples", "weighted_n_samples", "impurity")
#: a forest predicts with threads above this many (rows x trees)
_PARALLEL_MIN_WORK = 50_000


# --------------------------------------------------------------------- helpers
def _tree_importances(t, d):
    """MDI of one trimmed tree: the normalised total weighted impurity decrease
    per feature (as :attr:`DecisionTreeClassifier.feature_importances_`)."""
    n = int(t.sizes[0])
    imp = np.zeros(d)
    if n <= 1:
        return imp, False
    wi = t.weighted_n_samples[:n] * t.impurity[:n]
    par = t.parent[:n]
    has = par >= 0
    # (np.bincount: the sums of np.add.at, in the same order, without its slow path)
    child = np.bincount(par[has], weights=wi[has], minlength=n)
    internal = t.kind[:n] != LEAF
    imp += np.bincount(t.feature[:n][internal],
                       weights=(wi - child)[internal] / t.weighted_n_samples[0], minlength=d)
    s = imp.sum()
    return (imp / s if s > 0 else imp), True


#: narrower dtypes for a fitted forest's split description (the builders' int64):
#: node ids, features and category offsets as int32, missing-value slots as int8
#: -- 42 instead of 65 bytes a node with two classes; :func:`concat_trees` widens
#: a field whose forest-wide offsets would not fit
_NARROW = (("feature", np.int32), ("first_child", np.int32), ("missing_child", np.int8),
           ("cat_offset", np.int32), ("cat_count", np.int32))


def _compact(t):
    """The forest's arrays without the per-node training statistics (see ``_DROPPED``)."""
    return t._replace(**{name: np.zeros(0, getattr(t, name).dtype) for name in _DROPPED})


def _narrow(t):
    """``t`` in the dtypes of ``_NARROW`` (the same values)."""
    return t._replace(**{name: getattr(t, name).astype(dt) for name, dt in _NARROW})


def _bootstrap_indices(seed, n, n_boot):
    """``n_boot`` rows drawn with replacement from ``n`` (the slides' "Bagging:
    sampling with replacement"), from the tree's own seed
    (:func:`~treelab._engine.bootstrap.bootstrap_indices`)."""
    return bootstrap_indices(int(seed), int(n), int(n_boot))


def _bootstrap_counts(seed, n, n_boot):
    """How often each of the ``n`` rows is drawn (the draws of :func:`_bootstrap_indices`)."""
    return bootstrap_counts(int(seed), int(n), int(n_boot))


def _grow_tree(data, targets, params, crit, seeds, n_boot, mwfl, subsample_cw, classes_k,
               want_in_bag, template, codes=None):
    """Grow one tree (runs on a joblib worker thread, or on a Dask worker).

    ``data`` (BinnedData) and ``targets`` (``(yc, sstats, w)``) are tuples on purpose:
    joblib's Dask backend scatters large *arrays* passed as arguments to a single
    worker, where they are lost (and the fit with them) if that worker dies; a tuple
    travels inside each task, so Dask can re-run a lost tree on any worker.

    ``codes``: ``(XT, exact_cut)``, the column-major bin codes of numeric-only
    binned data and whether the bins are exact values (:func:`_column_codes`), or
    None: the tree is grown by the column builder, which reads only the drawn
    features (the histogram builder's tree, or with ``exact_cut`` the exact
    splitter's).

    Returns ``(tree, (MDI importances, whether it split), in-bag mask or None)``: the
    tree trimmed to its nodes, with ``template``'s predictions as values and
    without the per-node training statistics (:func:`_compact`), so that the fit
    holds only what the fitted forest keeps."""
    yc, sstats, w = targets
    n = data.X.shape[0]
    in_bag = None
    rows = None
    if n_boot is not None:
        counts = _bootstrap_counts(int(seeds[0]), n, n_boot)
        in_bag = counts > 0
        rows = np.flatnonzero(in_bag).astype(np.int64)
        w = w * counts
        if subsample_cw:
            # class_weight="balanced_subsample": balanced weights of the bootstrap sample
            per = np.bincount(yc, weights=counts, minlength=classes_k).astype(np.float64)
            k_in = max(1, int((per > 0).sum()))
            cw = np.where(per > 0, n_boot / (k_in * np.where(per > 0, per, 1.0)), 0.0)
            w = w * cw[yc]
        w = np.ascontiguousarray(w, dtype=np.float64)
        sstats = np.ascontiguousarray(sstats * counts[:, None]) if sstats.shape[0] else sstats
    elif subsample_cw:
        per = np.bincount(yc, minlength=classes_k).astype(np.float64)
        cw = np.where(per > 0, n / (classes_k * np.where(per > 0, per, 1.0)), 0.0)
        w = np.ascontiguousarray(w * cw[yc])
    if mwfl > 0:
        # min_weight_fraction_leaf is a fraction of this tree's total weight
        params = params._replace(min_weight_leaf=float(
            mwfl * (w[rows].sum() if rows is not None else w.sum())))
    params = params._replace(seed=int(seeds[1]))
    if codes is not None:
        t = build_tree_codes(data, codes[0], yc, sstats, w, params, crit.impurity, crit.merit,
                             cp=crit.params, rows=rows, exact_cut=codes[1])
    else:
        t = build_tree(data, yc, sstats, w, params, crit.impurity, crit.merit, cp=crit.params,
                       rows=rows)
    t = trim(t)
    importances = _tree_importances(t, data.X.shape[1])
    t = _narrow(_compact(t._replace(
        value=np.ascontiguousarray(template._value_from_stats(t.value)))))
    return t, importances, (in_bag if want_in_bag else None)


def _column_codes(data, params, exact_cut=False):
    """``(XT, exact_cut)``: the bin codes column-major, when the column builder
    (:mod:`treelab._engine.column_builder`) grows the same trees as the histogram
    builder -- binned, numeric features only, no per-level feature mask, not the
    gain ratio -- else None.  It does only the drawn features' work at a node
    (O(n_node x features visited) instead of the histogram builder's
    O(n_node x d) per node), which is what a random forest's sqrt(d) and an
    extra-trees forest's random cut-points need."""
    if (not data.use_hist or np.any(data.is_nominal) or params.feature_mask.shape[0] != 0
            or params.merit_code == MERIT_GAIN_RATIO):
        return None
    return (np.ascontiguousarray(data.Xb.T), bool(exact_cut))


def _thread_count(n_jobs):
    """Prediction threads for ``n_jobs``: joblib's reading of it (numba's current
    count if joblib cannot read it), at most numba's thread pool."""
    import numba
    from joblib import effective_n_jobs
    try:
        k = effective_n_jobs(n_jobs)
    except Exception:
        k = numba.get_num_threads()
    return max(1, min(int(k), numba.config.NUMBA_NUM_THREADS))


@contextmanager
def _numba_threads(n_jobs):
    """numba's thread count limited to joblib's reading of ``n_jobs`` (prediction)."""
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(_thread_count(n_jobs))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def forest_weighted_sum(forest, roots, root_weight, Xf, n_jobs, walk=None):
    """``forest_sum`` (the weighted sum of the leaf values the rows of ``Xf`` reach
    in the trees rooted at ``roots``) with the calling pattern every treelab forest
    shares: the serial kernel below ``_PARALLEL_MIN_WORK`` rows x trees (starting
    numba's threads costs more than such a traversal) or for one thread,
    otherwise numba threads limited to ``n_jobs``.  ``walk``: the forest's
    :func:`~treelab._engine.tree.pack_walk` records when it keeps them (else
    packed by the call).  ``Xf``: float rows, or uint8 bin codes with ``walk``
    (:func:`~treelab._engine.tree.forest_sum_walk`)."""
    serial = (Xf.shape[0] * roots.shape[0] < _PARALLEL_MIN_WORK
              or _thread_count(n_jobs) == 1)
    if walk is not None:
        if serial:
            return forest_sum_walk_serial(walk, forest.value, roots, root_weight, Xf)
        import numba
        with _numba_threads(n_jobs):
            return forest_sum_walk(walk, forest.value, roots, root_weight, Xf,
                                   numba.get_num_threads())
    if serial:
        return forest_sum_serial(forest, roots, root_weight, Xf)
    import numba
    with _numba_threads(n_jobs):
        return forest_sum(forest, roots, root_weight, Xf, numba.get_num_threads())


# ------------------------------------------------------------------------ base
class _BaseForest(KeptWalkLayout, BaseEstimator):
    """Shared fit / predict logic (not for direct use)."""

    _layout_attr = "_walk"      # (KeptWalkLayout: the pack_walk records)

    _task = None                 # "classification" | "regression"
    _split_mode = SPLIT_BEST
    #: binned numeric data: grow with the column builder (see :func:`_column_codes`;
    #: the same trees; False: the histogram builder, for A/B comparisons)
    _use_column_builder = True
    #: ``splitter="best"`` on data that bins without loss: the column builder with
    #: the exact splitter's thresholds (see :meth:`_exact_as_bins`; the same trees;
    #: False: the exact builder, for A/B comparisons and tests)
    _exact_on_bins = True

    # ------------------------------------------------------------ params
    def _template(self, class_weight=None):
        """A single tree with the forest's tree parameters: it validates them and
        encodes the targets exactly as :class:`DecisionTreeClassifier` /
        :class:`DecisionTreeRegressor` do."""
        kw = dict(criterion=self.criterion, splitter=check_splitter(self.splitter),
                  max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                  min_samples_leaf=self.min_samples_leaf,
                  min_weight_fraction_leaf=self.min_weight_fraction_leaf,
                  max_features=self.max_features,
                  min_impurity_decrease=self.min_impurity_decrease, max_bins=self.max_bins,
                  nominal_features=self.nominal_features, nominal_split=self.nominal_split,
                  multiway_min_leaf=self.multiway_min_leaf,
                  constant_draws=getattr(self, "constant_draws", "count"))
        if self._task == "classification":
            return DecisionTreeClassifier(class_weight=class_weight, **kw)
        return DecisionTreeRegressor(**kw)

    def _check_forest_params(self):
        ne = check_int("n_estimators", self.n_estimators)
        check_bool("bootstrap", self.bootstrap)
        oob = self.oob_score
        if not (isinstance(oob, (bool, np.bool_)) or callable(oob)):
            raise ValueError(f"oob_score must be a bool or a callable, got {oob!r}")
        if oob is not False and not self.bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        if self.max_samples is not None and not self.bootstrap:
            raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch "
                             "to `bootstrap=True` or set `max_sample=None`.")
        check_n_jobs(self.n_jobs)
        check_int("max_bins", self.max_bins, 2, MAX_BINS)
        rc = getattr(self, "random_cut", "value")
        if not (isinstance(rc, str) and rc in ("value", "bin")):
            raise ValueError(f"random_cut must be 'value' or 'bin', got {rc!r}")
        return ne

    def _draws_on_bin_values(self):
        """Whether the trees draw random cut-points on the bins' values
        (``random_cut="value"``); otherwise none, or uniformly among the bin
        boundaries, and the binned data need no ``bin_values``."""
        return self._split_mode == SPLIT_RANDOM and getattr(self, "random_cut", "value") == "value"

    def _exact_as_bins(self, Xf, enc, crit, w, subsample_cw):
        """The exact splitter's data as lossless bins (:func:`~treelab._engine.binning.
        exact_bins`), or None.  On such data the column builder grows the exact
        splitter's trees -- the same features, partitions, values and (node-local
        midpoint or drawn) thresholds -- at the histogram forests' speed, when the
        class sums are integers (unit, integral or bootstrap-count weights: sums
        in any order are exact, so bins and sorted rows give the same merits) and
        the merit does not depend on how the sweep is written: any built-in
        impurity for random cuts (each cut's merit is computed once, from its
        sums), Gini for best splits (the histogram and the sorted-rows sweeps
        compute its proxy in two ways that agree exactly on integers; not the
        entropy's logarithms).  Classification on numeric features only."""
        if not (self._exact_on_bins and self._use_column_builder
                and self._task == "classification" and not subsample_cw
                and not np.any(enc.is_nominal)
                and crit.merit_code == MERIT_IMPURITY_DECREASE):
            return None
        if crit.builtin_code != BUILTIN_GINI and not (
                self._split_mode == SPLIT_RANDOM and crit.builtin_code == BUILTIN_ENTROPY):
            return None
        if not (np.all(w == np.floor(w)) and float(w.sum()) < 2.0 ** 50):
            return None
        return exact_bins(Xf, FEATURE_THRESHOLD)

    def _n_bootstrap(self, n):
        ms = self.max_samples
        if not self.bootstrap:
            return None
        if ms is None:
            return n
        if isinstance(ms, (numbers.Integral, np.integer)) and not isinstance(ms, bool):
            if not 1 <= ms <= n:
                raise ValueError(f"max_samples must be in [1, n_samples={n}], got {ms}")
            return int(ms)
        if isinstance(ms, (numbers.Real, np.floating)) and not isinstance(ms, bool):
            if not 0.0 < ms <= 1.0:
                raise ValueError(f"max_samples as a float must be in (0, 1], got {ms}")
            return max(1, int(round(n * ms)))
        raise ValueError(f"max_samples must be None, an int or a float, got {ms!r}")

    # --------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Grow ``n_estimators`` trees on ``(X, y)`` (optionally weighted)."""
        from joblib import delayed, effective_n_jobs

        n_trees = self._check_forest_params()
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, self.nominal_features, allow_nan=True)
        n_all, d = Xf.shape
        cw = getattr(self, "class_weight", None)
        subsample_cw = cw == "balanced_subsample"
        if subsample_cw and not self.bootstrap:
            cw = "balanced"          # as scikit-learn: without bootstrap the sample is the data
            subsample_cw = False
        template = self._template(None if subsample_cw else cw)
        yc, sstats, w, n_stats, fitted = template._targets(y, n_all, sample_weight)
        w_total = float(w.sum())
        if not w_total > 0:
            raise ValueError("Sum of sample weights is zero: nothing to learn from")
        keep = w > 0
        kept = np.flatnonzero(keep)
        X_all = Xf
        if kept.shape[0] < n_all:
            # rows of weight zero take no part in the fit (not even in the bins or the
            # bootstrap), as in the single trees: a weight of k is k copies of a row
            Xf = np.ascontiguousarray(Xf[keep])
            w = np.ascontiguousarray(w[keep])
            yc = np.ascontiguousarray(yc[keep]) if yc.shape[0] else yc
            sstats = np.ascontiguousarray(sstats[keep]) if sstats.shape[0] else sstats
        n = Xf.shape[0]
        params = template._resolve_params(n, d, w_total)
        n_boot = self._n_bootstrap(n)
        crit = get_criterion(self.criterion, self._task)
        rng = check_random_state(self.random_state)
        bin_seed = int(rng.randint(0, _MAX_SEED))
        # every tree's seeds drawn up front: the forest does not depend on n_jobs
        seeds = rng.randint(0, _MAX_SEED, size=(n_trees, 2))
        use_hist = self.splitter == "hist"
        exact_data = None if use_hist else self._exact_as_bins(Xf, enc, crit, w, subsample_cw)
        # one line if the kernels about to run must compile: the column builder's
        # (histogram forests on numeric features, see _column_codes) or the trees'
        announce("forests" if (self._use_column_builder and not np.any(enc.is_nominal)
                               and (use_hist or exact_data is not None)) else template)
        # exact data: trees that draw features per node (or cut at random) keep one
        # sample array and sort only the drawn features' values at each node
        # (scikit-learn's layout); with every feature evaluated, the presorted layout
        layout = (LAYOUT_SAMPLES if not use_hist and (self._split_mode == SPLIT_RANDOM
                                                      or params["max_features"] < d)
                  else LAYOUT_PRESORT)
        if exact_data is not None:
            data = exact_data
        elif use_hist or layout == LAYOUT_PRESORT:
            data = bin_data(Xf, enc.is_nominal, enc.n_cats, use_hist, self.max_bins,
                            random_state=bin_seed, with_values=self._draws_on_bin_values())
        else:
            # the sample layout reads raw values, neither bins nor a presort; best
            # splits sort a node's values through their ranks (rank_columns)
            if self._split_mode == SPLIT_BEST:
                ranks, uniq, offs = rank_columns(Xf, enc.is_nominal)
            else:
                ranks, uniq, offs = (np.zeros((d, 0), np.int64), np.zeros(0),
                                     np.zeros(d + 1, np.int64))
            data = BinnedData(np.ascontiguousarray(Xf, dtype=np.float64),
                              np.zeros((0, d), np.uint8), ranks, np.zeros((d, 0), np.float64),
                              np.ascontiguousarray(enc.is_nominal, dtype=np.bool_),
                              np.ascontiguousarray(enc.n_cats, dtype=np.int64), uniq, offs,
                              False, 0, 1)
        task = TASK_CLASSIFICATION if self._task == "classification" else TASK_DENSE
        bp = make_params(task, n_stats, multiway=template._nominal_mode(), seed=0,
                         merit_code=crit.merit_code, builtin=crit.builtin_code,
                         split_mode=self._split_mode, layout=layout, **params)
        mwfl = float(self.min_weight_fraction_leaf)
        k = fitted.get("n_classes_", 1)
        targets = (yc, sstats, w)
        codes = (_column_codes(data, bp, exact_data is not None)
                 if self._use_column_builder else None)

        def grow(i, codes=codes):
            return delayed(_grow_tree)(data, targets, bp, crit, tuple(seeds[i]), n_boot, mwfl,
                                       subsample_cw, k, self.oob_score is not False, template,
                                       codes)
        # (getattr: a forest unpickled from before ``verbose`` existed can be refitted)
        out = parallel_with_progress(grow, n_trees, self.n_jobs, "threads",
                                     bool(getattr(self, "verbose", 0)), name, "tree")
        del grow, codes
        importances = [imp for _, (imp, split), _ in out if split]
        in_bags = [b for _, _, b in out]
        trees = [t for t, _, _ in out]
        del out
        # (frees the trees field by field; a large forest is copied on n_jobs threads)
        forest, roots = concat_trees(trees, release=True,
                                     n_threads=min(effective_n_jobs(self.n_jobs), os.cpu_count() or 1))
        del trees
        for key, value in fitted.items():
            setattr(self, key, value)
        set_fitted_encoding(self, enc, d)
        self.max_features_ = params["max_features"]
        self.n_estimators_ = n_trees
        self._forest = forest
        self._keep_layout()
        self._roots = roots
        self._n_nodes = np.append(roots, forest.sizes[0]).astype(np.int64)
        self._seeds = seeds
        self._n_boot = n_boot
        self._n_fit = n
        self._kept = None if kept.shape[0] == n_all else kept
        if importances:
            mean = np.mean(importances, axis=0)
            self._importances = mean / mean.sum() if mean.sum() > 0 else mean
        else:
            self._importances = np.zeros(d)
        for attr in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
            if hasattr(self, attr):
                delattr(self, attr)
        if self.oob_score is not False:
            in_bag = np.stack(in_bags).astype(np.uint8)
            self._set_oob(Xf, X_all, kept, in_bag, y)
        return self

    def _set_oob(self, Xf, X_all, kept, in_bag, y):
        """Out-of-bag estimates (Breiman 2001, section 3.1): each row predicted by the
        trees whose bootstrap sample missed it; rows missed by none get 0 (with a
        warning), as in scikit-learn.  Zero-weight rows, in no bootstrap sample,
        are out of bag for every tree."""
        n_all = X_all.shape[0]
        sums, cnt = forest_oob_sum(self._forest, self._roots, Xf, in_bag)
        K = sums.shape[1]
        full = np.zeros((n_all, K))
        full_cnt = np.zeros(n_all, np.int64)
        full[kept] = sums
        full_cnt[kept] = cnt
        rest = np.setdiff1d(np.arange(n_all), kept)
        if rest.size:
            Xr = np.ascontiguousarray(X_all[rest])
            full[rest] = forest_sum_serial(self._forest, self._roots,
                                           np.ones(self._roots.shape[0]), Xr)
            full_cnt[rest] = self._roots.shape[0]
        if (full_cnt == 0).any():
            warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                          "trees were used to compute any reliable OOB estimates.",
                          UserWarning)
        full /= np.maximum(full_cnt, 1)[:, None]
        self._store_oob(full, y)

    # ----------------------------------------------------------- predict
    def _encode(self, X):
        check_is_fitted(self, "_forest")
        return np.ascontiguousarray(encode_X(X, self._encoding, type(self).__name__,
                                             allow_nan=True))

    def _mean_value(self, X):
        Xf = self._encode(X)
        T = self._roots.shape[0]
        return forest_weighted_sum(self._forest, self._roots, np.ones(T), Xf, self.n_jobs,
                                   walk=self._walk_records()) / T

    def _pack_layout(self):
        return pack_walk(self._forest)

    def _walk_records(self):
        """The forest's walking records (:func:`~treelab._engine.tree.pack_walk`:
        16 bytes a node, kept as :class:`._base.KeptWalkLayout` says; a 100-tree
        regression forest on 160,000 rows predicted in about half the time of
        packing them per call), or None (a nominal node)."""
        ok, rec = self._kept_layout()
        return rec if ok else None

    def apply(self, X):
        """Leaf index of every sample in every tree, ``(n_samples, n_estimators)``
        (node ids local to each tree, as scikit-learn)."""
        Xf = self._encode(X)
        with _numba_threads(self.n_jobs):
            return forest_apply(self._forest, self._roots, Xf)

    def decision_path(self, X):
        """Nodes every sample visits in every tree: a ``scipy.sparse.csr_matrix``
        indicator of shape (n_samples, total nodes) and ``n_nodes_ptr`` (tree ``j``'s
        nodes are columns ``n_nodes_ptr[j]:n_nodes_ptr[j + 1]``), as scikit-learn."""
        from scipy.sparse import csr_matrix
        Xf = self._encode(X)
        indptr, indices = forest_decision_path(self._forest, self._roots, Xf)
        data = np.ones(indices.shape[0], dtype=np.int8)
        ind = csr_matrix((data, indices, indptr), shape=(Xf.shape[0], int(self._n_nodes[-1])))
        return ind, self._n_nodes.copy()

    @property
    def feature_importances_(self):
        """Mean decrease in impurity: every tree's normalised MDI averaged over the
        trees that split at least once, normalised (as scikit-learn)."""
        check_is_fitted(self, "_forest")
        return self._importances.copy()

    @property
    def estimators_samples_(self):
        """The rows (indices into the training data, with repetitions) drawn for each
        tree's bootstrap sample, regenerated from the tree's seed; all the rows of
        positive weight when ``bootstrap=False``."""
        check_is_fitted(self, "_forest")
        out = []
        for i in range(self._seeds.shape[0]):
            if self._n_boot is None:
                idx = np.arange(self._n_fit)
            else:
                idx = _bootstrap_indices(int(self._seeds[i, 0]), self._n_fit, self._n_boot)
            out.append(idx if self._kept is None else self._kept[idx])
        return out

    @property
    def node_counts_(self):
        """Number of nodes of each tree."""
        check_is_fitted(self, "_forest")
        return np.diff(self._n_nodes)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_forest")


_COMMON_DOC = """
    Missing values (NaN) go to the side chosen at fit time, as in the single trees.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : str or Criterion
        Any treelab criterion of the task ("gini", "entropy", "gain_ratio",
        "kearns_mansour", "classification_error" / "squared_error"), or a user
        :class:`~treelab.split_criteria.Criterion`.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf
        As the single trees (:class:`~treelab.DecisionTreeClassifier`).
    min_impurity_decrease : float, default=0.0
        As the single trees.
    max_features : {"sqrt", "log2"}, int, float or None
        Features drawn at each node (None: all).
    constant_draws : {"count", "skip"}, default="count"
        Whether a drawn feature constant at the node is one of its
        ``max_features`` candidates ("count": the course slides' "random
        sample of m_try variables", Breiman 2001, Zhou & Feng 2017,
        scikit-learn) or is passed over ("skip": ``max_features`` non-constant
        features examined; more work deep in sparse data).  See
        :class:`~treelab.DecisionTreeClassifier`.
    bootstrap : bool
        Grow each tree on a bootstrap sample (as integer row weights).
    oob_score : bool or callable, default=False
        Out-of-bag estimate of the score (accuracy / R^2, or ``callable(y, pred)``).
    max_samples : None, int or float
        Size of each bootstrap sample (None: n_samples).
    splitter : {"best", "hist"}, default="best"
        Exact thresholds over presorted values ("best", as the single trees and
        scikit-learn), or quantile histograms with ``max_bins`` bins.
    max_bins : int, default=255
    nominal_features, nominal_split, multiway_min_leaf
        Nominal attributes as the single trees handle them (pandas ``category``
        columns are nominal too).
    n_jobs : int or None
        Trees grown in parallel threads (joblib's convention: None = 1 unless in a
        ``joblib.parallel_config`` context, -1 = all cores); also the threads of
        ``predict``.
    random_state : int, RandomState or None
    verbose : int, default=0
        A tqdm progress bar over the trees when > 0 (and tqdm is installed); the
        trees are then grown in batches of four per thread (the same forest).
"""

_RANDOM_CUT_DOC = """    random_cut : {"value", "bin"}, default="value"
        How ``splitter="hist"`` draws a node's cut-point on a feature.  "value":
        the paper's ``U[min, max]`` on the binned data -- uniform in value over the
        mean values of the node's bins (:func:`treelab._engine.binning.bin_means`;
        with at most ``max_bins`` distinct values, exactly the exact splitter's
        draw); "bin": uniform among the node's bin boundaries (LightGBM's
        ``extra_trees``: uniform in rank, not in value).  The exact splitter
        always draws uniformly in [min, max] of the raw values.
"""
_RANDOM_COMMON_DOC = _COMMON_DOC.replace("    random_state : int, RandomState or None\n",
                                         "    random_state : int, RandomState or None\n"
                                         + _RANDOM_CUT_DOC)


def _init_params(self, n_estimators, criterion, max_depth, min_samples_split, min_samples_leaf,
                 min_weight_fraction_leaf, max_features, min_impurity_decrease, bootstrap,
                 oob_score, max_samples, splitter, max_bins, nominal_features, nominal_split,
                 multiway_min_leaf, n_jobs, random_state):
    self.n_estimators = n_estimators
    self.criterion = criterion
    self.max_depth = max_depth
    self.min_samples_split = min_samples_split
    self.min_samples_leaf = min_samples_leaf
    self.min_weight_fraction_leaf = min_weight_fraction_leaf
    self.max_features = max_features
    self.min_impurity_decrease = min_impurity_decrease
    self.bootstrap = bootstrap
    self.oob_score = oob_score
    self.max_samples = max_samples
    self.splitter = splitter
    self.max_bins = max_bins
    self.nominal_features = nominal_features
    self.nominal_split = nominal_split
    self.multiway_min_leaf = multiway_min_leaf
    self.n_jobs = n_jobs
    self.random_state = random_state


# ----------------------------------------------------------------- classifier
class _ForestClassifier(ProbaArgmaxMixin, ClassifierMixin, _BaseForest):
    _task = "classification"

    def _store_oob(self, dec, y):
        from ..data import check_classification_targets
        _, yc = check_classification_targets(y, dec.shape[0])
        self.oob_decision_function_ = dec
        pred = np.argmax(dec, axis=1)
        if callable(self.oob_score):
            self.oob_score_ = float(self.oob_score(np.asarray(y), self.classes_[pred]))
        else:
            self.oob_score_ = float(np.mean(pred == yc))

    def predict_proba(self, X):
        """Mean over the trees of the class proportions of the leaf each sample reaches."""
        return self._mean_value(X)


class _ForestRegressor(RegressorMixin, _BaseForest):
    _task = "regression"

    def _store_oob(self, pred, y):
        from ..data import check_regression_targets
        yt = check_regression_targets(y, pred.shape[0])
        self.oob_prediction_ = pred[:, 0]
        if callable(self.oob_score):
            self.oob_score_ = float(self.oob_score(yt, self.oob_prediction_))
        else:
            u = ((yt - self.oob_prediction_) ** 2).sum()
            v = ((yt - yt.mean()) ** 2).sum()
            self.oob_score_ = float(1.0 - u / v) if v > 0 else (1.0 if u == 0 else 0.0)

    def predict(self, X):
        """Mean over the trees of the leaf means."""
        return self._mean_value(X)[:, 0]


# ------------------------------------------------------------------ estimators
def _with_random_cut(init):
    """A forest's ``__init__`` with the keyword ``random_cut`` (default "value")
    after ``max_bins``: the random-split forests' parameter.  Its signature lists
    it, as scikit-learn's ``get_params`` reads parameters off the signature."""
    def __init__(self, *args, random_cut="value", **kwargs):
        init(self, *args, **kwargs)
        self.random_cut = random_cut
    sig = inspect.signature(init)
    params = []
    for p in sig.parameters.values():
        params.append(p)
        if p.name == "max_bins":
            params.append(inspect.Parameter("random_cut", inspect.Parameter.KEYWORD_ONLY,
                                            default="value"))
    __init__.__signature__ = sig.replace(parameters=params)
    return __init__


def _classifier_init(criterion, max_features, bootstrap):
    def __init__(self, n_estimators=100, *, criterion=criterion, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=max_features, min_impurity_decrease=0.0, bootstrap=bootstrap,
                 oob_score=False, max_samples=None, class_weight=None, splitter="best",
                 max_bins=255, nominal_features=None, nominal_split="binary",
                 multiway_min_leaf="all", constant_draws="count", n_jobs=None,
                 random_state=None, verbose=0):
        _init_params(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, min_weight_fraction_leaf, max_features,
                     min_impurity_decrease, bootstrap, oob_score, max_samples, splitter,
                     max_bins, nominal_features, nominal_split, multiway_min_leaf, n_jobs,
                     random_state)
        self.constant_draws = constant_draws
        self.class_weight = class_weight
        self.verbose = verbose
    return __init__


def _regressor_init(criterion, max_features, bootstrap):
    def __init__(self, n_estimators=100, *, criterion=criterion, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=max_features, min_impurity_decrease=0.0, bootstrap=bootstrap,
                 oob_score=False, max_samples=None, splitter="best", max_bins=255,
                 nominal_features=None, nominal_split="binary", multiway_min_leaf="all",
                 constant_draws="count", n_jobs=None, random_state=None, verbose=0):
        _init_params(self, n_estimators, criterion, max_depth, min_samples_split,
                     min_samples_leaf, min_weight_fraction_leaf, max_features,
                     min_impurity_decrease, bootstrap, oob_score, max_samples, splitter,
                     max_bins, nominal_features, nominal_split, multiway_min_leaf, n_jobs,
                     random_state)
        self.constant_draws = constant_draws
        self.verbose = verbose
    return __init__


_CLS_DOC = """    class_weight : None, "balanced", "balanced_subsample" or dict
        As scikit-learn ("balanced_subsample": balanced on each bootstrap sample).

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    n_classes_ : int
        The number of classes.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances, averaged over the trees.
    oob_score_ : float
        Out-of-bag accuracy (with ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities (with ``oob_score=True``).
"""
_REG_DOC = """
    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances, averaged over the trees.
    oob_score_ : float
        Out-of-bag R^2 (with ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions (with ``oob_score=True``).
"""


class RandomForestClassifier(_ForestClassifier):
    __doc__ = ("Random forest classifier (Breiman 2001; the slides' \"Bagging\" + "
               "\"Random input vectors\"): bootstrap samples, best split among "
               "``max_features`` (default sqrt(d)) features per node, averaged class "
               "proportions.\n" + _COMMON_DOC + _CLS_DOC)
    __init__ = _classifier_init("gini", "sqrt", True)


class RandomForestRegressor(_ForestRegressor):
    __doc__ = ("Random forest regressor (Breiman 2001): bootstrap samples, best split "
               "among ``max_features`` (default all, as scikit-learn) features per node, "
               "averaged leaf means.\n" + _COMMON_DOC + _REG_DOC)
    __init__ = _regressor_init("squared_error", 1.0, True)


class ExtraTreesClassifier(_ForestClassifier):
    __doc__ = ("Extremely randomized trees (Geurts, Ernst & Wehenkel 2006, Algorithm 2): "
               "at each node one cut-point drawn uniformly in [min, max] of each of "
               "``max_features`` (default sqrt(d)) drawn features, the best of them kept; "
               "the whole sample by default (``bootstrap=False``).\n" + _RANDOM_COMMON_DOC
               + _CLS_DOC)
    __init__ = _with_random_cut(_classifier_init("gini", "sqrt", False))
    _split_mode = SPLIT_RANDOM


class ExtraTreesRegressor(_ForestRegressor):
    __doc__ = ("Extremely randomized regression trees (Geurts et al. 2006; "
               "``max_features`` default all, the paper's K = n for regression).\n"
               + _RANDOM_COMMON_DOC + _REG_DOC)
    __init__ = _with_random_cut(_regressor_init("squared_error", 1.0, False))
    _split_mode = SPLIT_RANDOM


class CompletelyRandomForestClassifier(_ForestClassifier):
    __doc__ = ("Completely-random tree forest (gcForest, Zhou & Feng 2017, section 2.1): "
               "each node splits on one feature drawn at random among those not "
               "constant at the node, at a cut-point drawn uniformly in its [min, max] "
               "(nominal: a random subset of the categories present), and trees grow "
               "until every leaf is pure (``max_features=1``, extra trees' random "
               "splits; no bootstrap).  The criterion only decides where missing values "
               "go.\n" + _RANDOM_COMMON_DOC + _CLS_DOC)
    __init__ = _with_random_cut(_classifier_init("gini", 1, False))
    _split_mode = SPLIT_RANDOM


class CompletelyRandomForestRegressor(_ForestRegressor):
    __doc__ = ("Completely-random tree forest for regression: one random feature and "
               "one random cut-point per node, grown until each leaf holds a single "
               "target value (see :class:`CompletelyRandomForestClassifier`).\n"
               + _RANDOM_COMMON_DOC + _REG_DOC)
    __init__ = _with_random_cut(_regressor_init("squared_error", 1, False))
    _split_mode = SPLIT_RANDOM
