"""Cascade forests: the level-by-level part of gcForest (deep forest).

Course slides, chapter 5, section 6.10 "Deep Forest" (Zhou & Feng, IJCAI 2017),
"Cascade Forest structure" and "Generation of class vectors": every level of the
cascade holds several forests -- random forests (sqrt(d) candidate features,
Gini) and completely-random tree forests (one random feature per node, grown
to pure leaves), two of each in the slides' figure -- and passes each forest's
*class vector* (its class-probability estimate) on to the next level, which
sees the original features concatenated with those class vectors ("passing the
output of one level as input to another level", a form of stacking).

* Class vectors of the training rows come from k-fold cross-validation (k = 3 as
  in the paper): the vector of a row is predicted by the fold model that did
  not see it, so the next level is not trained on over-confident estimates
  (``class_vectors="kfold"``).  The k fold models of a forest also predict new
  data, averaged (as the original gcForest code does), so no extra refit is
  needed.  ``class_vectors="oob"`` is deep-forest 0.1.x's shortcut: one
  bootstrap forest per slot, out-of-bag estimates for the training rows.
* The number of levels is chosen automatically ("adaptive model complexity"):
  levels are added while the estimated accuracy improves by more than
  ``tol``, tolerating ``n_iter_no_change`` levels without improvement; the
  levels after the best one are dropped.  The estimate is either the paper's
  held-out part (``validation="holdout"``: 20 % of the training rows, after
  which the cascade is re-trained on all rows with the chosen number of levels)
  or the out-of-fold / out-of-bag estimate of the class vectors themselves
  (``validation="kfold"``, deep-forest's rule, no refit).
* The final prediction averages the last level's class vectors
  (``final_estimator=None``) or comes from any estimator trained on the
  original features plus the last level's class vectors.

Memory and speed: the raw features are quantile-binned once (``max_bins``, as
deep-forest does with 255 bins; the forests then split bin codes, the same
order as the values, and the random cut-points of extra / completely-random
trees are drawn uniformly over the codes, i.e. in rank; ``max_bins=None``
keeps the raw values and the paper's draw uniform in [min, max]).  With treelab's own forests (the default) the cascade
grows the trees itself (:mod:`._cascade_fast`): one uint8 code matrix
``[raw | binned class vectors]`` per phase whose class-vector columns every
level overwrites, fold models as lists of row ids into it (no copies), trees
that read only their drawn features' codes (``_engine/column_builder.py``)
grown on threads, and the k fold forests
of a slot kept as one compact multi-root tree (int32 / float32 nodes, float32
leaf values: about a third of scikit-learn's node size); the out-of-fold class
vectors are one prediction call per fold.  Any other estimator goes through
the generic path: one preallocated array ``[raw | class vectors]`` (raw
written once, class-vector columns overwritten in place), each fold fit
receiving its training rows as a new ``X`` (:func:`_fit_slot`,
:func:`_slot_vectors`).
"""
from __future__ import annotations

import copy
import os
import resource
import time

import numpy as np

from .._engine.node_values import target_shift
from .._params import check_int, check_n_jobs, check_real
from .._progress import progress_bar
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from . import _cascade_fast as _fast
from ..data import (
    check_classification_targets, check_random_state, check_regression_targets,
    encode_X, fit_encode_X, set_fitted_encoding,
)

__all__ = ["CascadeForestClassifier", "CascadeForestRegressor", "CascadeLevel"]

_SEED_MAX = np.iinfo(np.int32).max


# ---------------------------------------------------------------- defaults
def _default_forests(task, n_estimators, random_state=None, n_random=2, n_completely_random=2,
                     n_jobs=1, min_samples_leaf=1):
    """The paper's level: ``n_random`` random forests (sqrt(d) candidate features,
    Gini / squared error) and ``n_completely_random`` completely-random tree
    forests, ``n_estimators`` trees each (treelab's own forests).

    ``random_state`` seeds the prototypes; the cascade re-seeds every clone it fits.
    ``min_samples_leaf`` > 1 is for the scanning forests (see ``scanning``).
    """
    if task == "classification":
        from .forest import CompletelyRandomForestClassifier as CRF
        from .forest import RandomForestClassifier as RF
        rf_kw = {"criterion": "gini"}
    else:
        from .forest import CompletelyRandomForestRegressor as CRF
        from .forest import RandomForestRegressor as RF
        rf_kw = {}
    rs = check_random_state(random_state)
    out = []
    for _ in range(n_random):
        out.append(RF(n_estimators=n_estimators, max_features="sqrt", n_jobs=n_jobs,
                      min_samples_leaf=min_samples_leaf,
                      random_state=int(rs.randint(_SEED_MAX)), **rf_kw))
    for _ in range(n_completely_random):
        out.append(CRF(n_estimators=n_estimators, n_jobs=n_jobs, min_samples_leaf=min_samples_leaf,
                       random_state=int(rs.randint(_SEED_MAX))))
    return out


# ---------------------------------------------------------------- helpers
def _clone(est):
    """An unfitted copy with the same parameters (scikit-learn's ``clone`` rule,
    without importing scikit-learn)."""
    if hasattr(est, "get_params") and not isinstance(est, type):
        params = {k: copy.deepcopy(v) for k, v in est.get_params(deep=False).items()}
        return type(est)(**params)
    return copy.deepcopy(est)


def _params(est):
    try:
        return est.get_params(deep=False)
    except Exception:  # noqa: BLE001 - not an estimator with parameters
        return {}


def _reseed(est, seed):
    if "random_state" in _params(est):
        est.set_params(random_state=int(seed))
    return est


def _is_sklearn(est):
    return type(est).__module__.split(".")[0] == "sklearn"


def _memory_mb():
    """(current resident set, peak resident set so far) of this process in MiB."""
    cur = float("nan")
    try:
        with open("/proc/self/statm") as fh:
            cur = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return cur, peak


def _fold_ids(y_codes, n_folds, rng, stratified):
    """Fold number of every row: a random permutation dealt round-robin, per class
    when ``stratified`` (so every fold holds about 1/k of every class)."""
    n = y_codes.shape[0]
    fold = np.empty(n, np.int64)
    if stratified:
        start = 0
        for c in np.unique(y_codes):
            idx = np.flatnonzero(y_codes == c)
            idx = idx[rng.permutation(idx.shape[0])]
            fold[idx] = (start + np.arange(idx.shape[0])) % n_folds
            start = (start + idx.shape[0]) % n_folds
    else:
        perm = rng.permutation(n)
        fold[perm] = np.arange(n) % n_folds
    return fold


def _holdout_mask(y_codes, fraction, rng, stratified):
    """Boolean mask of the held-out rows (``fraction`` of each class when stratified)."""
    n = y_codes.shape[0]
    mask = np.zeros(n, bool)
    groups = [np.flatnonzero(y_codes == c) for c in np.unique(y_codes)] if stratified else [
        np.arange(n)]
    for idx in groups:
        m = int(np.floor(fraction * idx.shape[0] + 0.5))
        if m:
            mask[idx[rng.permutation(idx.shape[0])[:m]]] = True
    return mask


class _LevelStopper:
    """The cascade's growth rule (slides 6.10; Zhou & Feng 2017, Sec. 3.1): add
    levels while the estimated accuracy (validation score, else training
    score) improves by more than ``delta``, tolerating ``n_tolerant`` levels
    without improvement (the first level is always kept, whatever its score);
    with ``fixed`` levels every level is kept.  Tracks the
    best level and, when ``keep_vectors``, its class vectors (a final
    estimator's input)."""

    def __init__(self, delta, n_tolerant, fixed, keep_vectors):
        self.delta, self.n_tolerant = float(delta), int(n_tolerant)
        self.fixed, self.keep_vectors = fixed is not None, keep_vectors
        self.best, self.best_score, self.bad, self.best_vec = 0, -np.inf, 0, None

    def add(self, lev, train_score, val_score, vec):
        """Record level ``lev`` (0-based); True when growth stops."""
        score = train_score if val_score is None else val_score
        if self.fixed or self.best == 0 or score > self.best_score + self.delta:
            if not self.fixed:
                self.best_score, self.bad = score, 0
            self.best = lev + 1
            self.best_vec = vec if self.keep_vectors else None
            return False
        self.bad += 1
        return self.bad >= self.n_tolerant


def _show_level(bar, train_score, val_score):
    """Advance the progress bar by one level, showing its scores."""
    if bar is not None:         # (None: the refit phase shows no progress)
        bar.update(1)
        bar.set_postfix(train=f"{train_score:.4f}", val=(
            "-" if val_score is None else f"{val_score:.4f}"))


class CascadeLevel:
    """One fitted level: ``estimators[f]`` lists forest ``f``'s fitted models (the
    k fold models, or the one out-of-bag forest); ``record`` is its history entry."""

    def __init__(self, estimators, record):
        self.estimators = estimators
        self.record = record

    def __repr__(self):
        return (f"CascadeLevel(level={self.record.get('level')}, forests={len(self.estimators)}, "
                f"models per forest={len(self.estimators[0]) if self.estimators else 0})")


# The one place where a slot (a forest of a level) is fitted / asked for its
# class vector: a forest that takes pre-binned data can be special-cased here.
def _fit_slot(proto, seed, Z, cols, y, rows, oob, task):
    est = _reseed(_clone(proto), seed)
    if oob:
        est.set_params(bootstrap=True, oob_score=True)
    X = Z[:, :cols] if rows is None else Z[rows, :cols]
    est.fit(X, y if rows is None else y[rows])
    return est


def _slot_vectors(est, X, task, n_classes):
    """Class vector (classification: probabilities over all ``n_classes`` codes,
    whatever subset of classes the model saw) or prediction (regression)."""
    if task == "regression":
        return np.asarray(est.predict(X), dtype=np.float64).reshape(-1, 1)
    p = np.asarray(est.predict_proba(X), dtype=np.float64)
    cls = np.asarray(est.classes_)
    if cls.shape[0] == n_classes and np.array_equal(cls, np.arange(n_classes)):
        return p
    out = np.zeros((X.shape[0], n_classes))
    out[:, cls.astype(np.int64)] = p
    return out


def _oob_vectors(est, task, y, n_classes):
    """Out-of-bag class vectors of the training rows (rows never out of bag get the
    class prior / the mean target: no model that saw them may speak for them)."""
    if task == "regression":
        v = np.asarray(est.oob_prediction_, dtype=np.float64).reshape(-1, 1)
        fill = float(np.mean(y))
    else:
        raw = np.asarray(est.oob_decision_function_, dtype=np.float64)
        cls = np.asarray(est.classes_).astype(np.int64)
        v = np.zeros((raw.shape[0], n_classes))
        v[:, cls] = raw
        fill = np.bincount(y, minlength=n_classes) / y.shape[0]
    bad = ~np.isfinite(v).all(axis=1)
    if task == "classification":
        bad |= v.sum(axis=1) <= 0
    v[bad] = fill
    return v


# ---------------------------------------------------------------- estimator
class _BaseCascade(BaseEstimator):
    _task = None

    def __init__(self, *, forests=None, n_estimators=100, n_folds=3, class_vectors="kfold",
                 validation="holdout", validation_fraction=0.2, refit=True, max_levels=10,
                 tol=0.0, n_iter_no_change=1, final_estimator=None, max_bins=255,
                 n_jobs=None, random_state=None, verbose=0):
        self.forests = forests
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.class_vectors = class_vectors
        self.validation = validation
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.max_levels = max_levels
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.final_estimator = final_estimator
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ---------------------------------------------------------- validation
    def _check_params(self):
        def int_ge(name, lo):
            return check_int(name, getattr(self, name), lo)
        p = {"n_estimators": int_ge("n_estimators", 1), "n_folds": int_ge("n_folds", 2),
             "max_levels": int_ge("max_levels", 1),
             "n_iter_no_change": int_ge("n_iter_no_change", 1)}
        if self.class_vectors not in ("kfold", "oob"):
            raise ValueError(f"class_vectors must be 'kfold' or 'oob', got {self.class_vectors!r}")
        if self.validation not in ("holdout", "kfold"):
            raise ValueError(f"validation must be 'holdout' or 'kfold', got {self.validation!r}")
        check_real("validation_fraction", self.validation_fraction, 0, 1, lo_open=True,
                   hi_open=True)
        check_real("tol", self.tol, 0)
        check_int("max_bins", self.max_bins, 2, 255, allow_none=True)
        check_n_jobs(self.n_jobs)
        if self.forests is None:
            forests = _default_forests(self._task, p["n_estimators"], None)
        else:
            if not isinstance(self.forests, (list, tuple)) or len(self.forests) == 0:
                raise TypeError("forests must be a non-empty list of estimators (unfitted "
                                f"prototypes), got {type(self.forests).__name__}")
            forests = list(self.forests)
        need = "predict_proba" if self._task == "classification" else "predict"
        for est in forests:
            if isinstance(est, type) or not hasattr(est, "fit") or not hasattr(est, need):
                raise TypeError(f"every forest must be an estimator instance with fit and {need}, "
                                f"got {est!r}")
            if self.class_vectors == "oob" and not {"bootstrap", "oob_score"} <= set(
                    _params(est)):
                raise ValueError("class_vectors='oob' needs forests with 'bootstrap' and "
                                 f"'oob_score' parameters; {type(est).__name__} has none")
        fe = self.final_estimator
        if fe is not None and (isinstance(fe, type) or not hasattr(fe, "fit")
                               or not hasattr(fe, need)):
            raise TypeError(f"final_estimator must be None or an estimator with fit and {need}, "
                            f"got {fe!r}")
        p["forests"] = forests
        return p

    # ---------------------------------------------------------- input
    def _raw_codes(self, Xf, fitting, seed=None):
        """uint8 bin codes of the raw features (missing = 255), for the fast path."""
        from .._engine.binning import bin_matrix, quantile_bin_edges
        isnom = np.ascontiguousarray(self._encoding.is_nominal, dtype=np.bool_)
        if fitting:
            self._bin_edges = quantile_bin_edges(Xf, isnom, int(self.max_bins),
                                                 random_state=seed)
        edges, offsets = self._bin_edges
        return bin_matrix(np.ascontiguousarray(Xf, np.float64), edges, offsets, isnom,
                          _fast.MISSING)

    def _raw_block(self, Xf, fitting, seed=None):
        """The raw-feature columns of the cascade's input: bin codes (NaN kept) or values."""
        if self.max_bins is None:
            return Xf
        from .._engine.binning import bin_matrix, quantile_bin_edges
        isnom = np.ascontiguousarray(self._encoding.is_nominal, dtype=np.bool_)
        if fitting:
            self._bin_edges = quantile_bin_edges(Xf, isnom, int(self.max_bins),
                                                 random_state=seed)
        edges, offsets = self._bin_edges
        codes = bin_matrix(Xf, edges, offsets, isnom, 255).astype(np.float64)
        nan = np.isnan(Xf)
        if nan.any():
            codes[nan] = np.nan
        return codes

    def _alloc(self, raw, n_vec, dtype):
        """One array [raw | class vectors]: raw features written once, class-vector
        columns overwritten by every level.  ``raw`` may be ``(array, rows)``: the
        rows are copied straight into place."""
        rows = None
        if isinstance(raw, tuple):
            raw, rows = raw
        n = raw.shape[0] if rows is None else rows.shape[0]
        d = raw.shape[1]
        Z = np.empty((n, d + n_vec), dtype=dtype)
        if rows is None:
            Z[:, :d] = raw
        else:
            for start in range(0, n, 4096):          # no full-size temporary
                r = rows[start:start + 4096]
                Z[start:start + r.shape[0], :d] = raw[r]
        Z[:, d:] = 0.0
        return Z

    # ---------------------------------------------------------- fit
    def fit(self, X, y):
        """Grow the cascade level by level (see the module docstring)."""
        p = self._check_params()
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, None, allow_nan=True)
        n, d = Xf.shape
        y_fit, strat = self._fit_targets(y, n)
        rng = check_random_state(self.random_state)
        set_fitted_encoding(self, enc, d)
        forests = p["forests"]
        self.n_forests_ = len(forests)
        self._vec_width = self.n_classes_ if self._task == "classification" else 1
        n_vec = self.n_forests_ * self._vec_width
        self._dtype = np.float32 if all(_is_sklearn(e) for e in forests) else np.float64
        self._fast = _fast.supported(forests, self.max_bins) and not bool(
            np.any(enc.is_nominal))
        if self._fast:
            # treelab's forests: uint8 codes, binned once, grown on by the engine
            raw = self._raw_codes(Xf, True, int(rng.randint(_SEED_MAX)))
        else:
            raw = self._raw_block(Xf, True, int(rng.randint(_SEED_MAX)))
        del Xf                                  # the levels read only the (binned) block
        self.forests_ = forests

        if n < p["n_folds"] and self.class_vectors == "kfold":
            raise ValueError(f"{name} needs at least n_folds={p['n_folds']} samples, got "
                             f"n_samples = {n}")
        bar = progress_bar(bool(self.verbose), p["max_levels"], name, unit="level")
        self.history_ = []
        try:
            if self.validation == "holdout":
                val = _holdout_mask(strat, self.validation_fraction, rng, self._task ==
                                    "classification")
                grow = ~val
                if val.sum() == 0 or grow.sum() < max(p["n_folds"], 2):
                    raise ValueError(
                        f"validation='holdout' with validation_fraction={self.validation_fraction}"
                        f" leaves {int(grow.sum())} growing and {int(val.sum())} held-out rows "
                        f"of {n}; use more data or validation='kfold'")
                levels, n_best, Zg = self._grow(
                    (raw, np.flatnonzero(grow)), y_fit[grow], strat[grow],
                    (raw, np.flatnonzero(val)), y_fit[val], p, rng, bar, n_vec, "grow", None)
                if self.refit:
                    del Zg, levels
                    levels, _, Zg = self._grow(raw, y_fit, strat, None, None, p, rng, None,
                                               n_vec, "refit", n_best)
                    final_y = y_fit
                else:
                    final_y = y_fit[grow]
            else:
                levels, n_best, Zg = self._grow(raw, y_fit, strat, None, None, p, rng, bar,
                                                n_vec, "grow", None)
                final_y = y_fit
        finally:
            bar.close()
        self.levels_ = levels[:n_best]
        self.n_levels_ = n_best
        self.final_estimator_ = None
        if self.final_estimator is not None:
            est = _reseed(_clone(self.final_estimator), int(rng.randint(_SEED_MAX)))
            est.fit(Zg, final_y)
            self.final_estimator_ = est
        return self

    def _grow(self, raw, y, strat, raw_val, y_val, p, rng, bar, n_vec, phase, fixed_levels):
        if self._fast:
            return self._grow_fast(raw, y, strat, raw_val, y_val, p, rng, bar, n_vec, phase,
                                   fixed_levels)
        return self._grow_generic(raw, y, strat, raw_val, y_val, p, rng, bar, n_vec, phase,
                                  fixed_levels)

    # -- the parts both level loops (generic and fast) share
    def _level_plan(self, p, fixed_levels):
        """The growth rule of a phase and its largest number of levels."""
        stop = _LevelStopper(self.tol, p["n_iter_no_change"], fixed_levels,
                             self.final_estimator is not None)
        return stop, (p["max_levels"] if fixed_levels is None else fixed_levels)

    def _draw_level(self, rng, strat, p, n):
        """A level's random draws, in one order for both loops: the seeds of its
        models (forest x fold), the fold of every row (None: out-of-bag, one model
        per forest on all rows) and the training rows of each fold model."""
        F = self.n_forests_
        if self.class_vectors == "oob":
            return rng.randint(_SEED_MAX, size=(F, 1)), None, [np.arange(n)]
        k = p["n_folds"]
        seeds = rng.randint(_SEED_MAX, size=(F, k))
        fold = _fold_ids(strat, k, rng, self._task == "classification")
        return seeds, fold, [np.flatnonzero(fold != j) for j in range(k)]

    def _end_level(self, levels, models, stop, bar, lev, phase, t0, cols, train_score,
                   val_score, vec, held_out, **extra):
        """Record a grown level (history, progress bar) and apply the growth rule:
        returns ``(level, stop growing?)``.  A growth run that will be refitted only
        needs its models until the held-out vectors are computed: they are not
        kept (peak memory)."""
        cur, peak = _memory_mb()
        record = {"level": lev + 1, "phase": phase, "train_score": train_score,
                  "val_score": val_score, "fit_time": time.perf_counter() - t0,
                  "rss_mb": cur, "peak_rss_mb": peak, "n_features_in": cols, **extra}
        self.history_.append(record)
        throwaway = phase == "grow" and held_out and self.refit
        level = CascadeLevel(None if throwaway else models, record)
        levels.append(level)
        _show_level(bar, train_score, val_score)
        return level, stop.add(lev, train_score, val_score, vec)

    def _grow_generic(self, raw, y, strat, raw_val, y_val, p, rng, bar, n_vec, phase,
                      fixed_levels):
        """Grow levels on ``raw`` (optionally scoring each on ``raw_val``); with
        ``fixed_levels`` grow exactly that many.  Returns (levels, n_best, Z)
        where ``Z`` holds the raw block and the class vectors of level ``n_best``
        (the input of a final estimator)."""
        from joblib import Parallel, delayed
        Z = self._alloc(raw, n_vec, self._dtype)
        Zv = None if raw_val is None else self._alloc(raw_val, n_vec, self._dtype)
        n, d = Z.shape[0], Z.shape[1] - n_vec
        K = self._vec_width
        F = self.n_forests_
        k = p["n_folds"]
        oob = self.class_vectors == "oob"
        levels = []
        stop, max_levels = self._level_plan(p, fixed_levels)
        for lev in range(max_levels):
            t0 = time.perf_counter()
            cols = d if lev == 0 else d + n_vec
            seeds, fold, folds = self._draw_level(rng, strat, p, n)
            jobs = [(f, j, None if oob else rows) for f in range(F)
                    for j, rows in enumerate(folds)]
            fitted = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(_fit_slot)(self.forests_[f], seeds[f, j], Z, cols, y, rows, oob,
                                   self._task) for f, j, rows in jobs)
            models = [[None] * (1 if oob else k) for _ in range(F)]
            for (f, j, _), est in zip(jobs, fitted):
                models[f][j] = est
            # class vectors of the training rows: never from a model that saw the row
            vec = np.empty((n, n_vec))
            for f in range(F):
                sl = slice(f * K, (f + 1) * K)
                if oob:
                    vec[:, sl] = _oob_vectors(models[f][0], self._task, y, self._n_codes())
                else:
                    for j in range(k):
                        rows = np.flatnonzero(fold == j)
                        vec[rows, sl] = _slot_vectors(models[f][j], Z[rows, :cols], self._task,
                                                      self._n_codes())
            train_score = self._vector_score(vec, y)
            val_score = None
            if Zv is not None:
                vval = self._level_vectors(models, Zv, cols)
                val_score = self._vector_score(vval, y_val)
            # the next level's input: overwrite the class-vector columns in place
            Z[:, d:] = vec
            if Zv is not None:
                Zv[:, d:] = vval
            done = self._end_level(levels, models, stop, bar, lev, phase, t0, cols,
                                   train_score, val_score, vec, Zv is not None)[1]
            del models, fitted
            if done:
                break
        best = stop.best
        if self.final_estimator is not None and fixed_levels is None and best < len(levels):
            Z[:, d:] = stop.best_vec
        if fixed_levels is None:
            self.best_score_ = stop.best_score
        return levels, best, Z

    def _grow_fast(self, raw, y, strat, raw_val, y_val, p, rng, bar, n_vec, phase,
                   fixed_levels):
        """:meth:`_grow_generic` for treelab's forests (see :mod:`._cascade_fast`):
        ``raw`` are uint8 codes (or ``(codes, rows)``); the trees grow on one code
        matrix ``[raw | binned class vectors]`` per phase."""
        def take(r):
            if isinstance(r, tuple):
                return np.ascontiguousarray(r[0][r[1]])
            return np.ascontiguousarray(r)
        codes = take(raw)
        n, d = codes.shape
        K = self._vec_width
        F = self.n_forests_
        k = p["n_folds"]
        oob = self.class_vectors == "oob"
        n_codes = self._n_codes()
        raw_bins = np.diff(self._bin_edges[1]) + 1
        has_missing = bool((codes == _fast.MISSING).any())
        Zv = None
        if raw_val is not None:
            Zv = np.zeros((raw_val[1].shape[0], d + n_vec), np.uint8)
            Zv[:, :d] = take(raw_val)
        # [raw | class vectors] codes, column-major (the trees read one feature of
        # many rows at a time): raw rows written once, class-vector rows per level;
        # Xw / X0 are its (n, cols) views of levels >= 2 / of level 1
        XTw = np.empty((d + n_vec, n), np.uint8)
        XTw[:d] = codes.T
        del codes
        Xw = XTw.T
        X0 = XTw[:d].T
        vec_bins = None
        levels = []
        stop, max_levels = self._level_plan(p, fixed_levels)
        for lev in range(max_levels):
            t0 = time.perf_counter()
            cols = d if lev == 0 else d + n_vec
            Xl = X0 if lev == 0 else Xw
            data = _fast.binned_data(X0, raw_bins, has_missing) if lev == 0 else \
                _fast.binned_data(Xw, np.concatenate([raw_bins, vec_bins]), has_missing)
            seeds, fold, folds = self._draw_level(rng, strat, p, n)
            fitted = [_fast.fit_slot(self.forests_[f], self._task, seeds[f], data, y, n_codes,
                                     folds, oob, self.n_jobs) for f in range(F)]
            del data
            slots = [slot for slot, _ in fitted]
            vec = np.empty((n, n_vec))
            # the rows of fold j only by the model that did not see them (out of bag:
            # by the trees whose bootstrap missed them); a fold's rows as row-major
            # codes once (out of bag: as floats)
            for j in range(1 if oob else k):
                rows = None if oob else np.flatnonzero(fold == j)
                Xj = _fast.codes_to_float(Xl) if oob else np.ascontiguousarray(Xl[rows])
                for f, (slot, in_bag) in enumerate(fitted):
                    sl = slice(f * K, (f + 1) * K)
                    if oob:
                        vec[:, sl] = _fast.oob_vectors(slot, Xj, in_bag, self._task, y, n_codes)
                    else:
                        vec[rows, sl] = slot.mean(Xj, model=j, n_jobs=self.n_jobs)
                del Xj
            del fitted
            train_score = self._vector_score(vec, y)
            val_score = None
            vval = None
            if Zv is not None:
                vval = self._fast_level_vectors(slots, Zv)
                val_score = self._vector_score(vval, y_val)
            # the next level's input: the class-vector columns, binned, overwritten in place
            vcodes, vedges, vec_bins = _fast.bin_vectors(vec, self.max_bins)
            XTw[d:] = vcodes.T
            del vcodes
            if Zv is not None:
                Zv[:, d:] = _fast.bin_vectors(vval, self.max_bins, edges=vedges)[0]
            level, done = self._end_level(levels, slots, stop, bar, lev, phase, t0, cols,
                                          train_score, val_score, vec, Zv is not None,
                                          model_mb=sum(s.nbytes for s in slots) / 2 ** 20)
            level.out_edges = vedges
            del slots
            if done:
                break
        if fixed_levels is None:
            self.best_score_ = stop.best_score
        Z = None
        if self.final_estimator is not None:
            Z = np.hstack([_fast.codes_to_float(X0), stop.best_vec])
        return levels, stop.best, Z

    def _fast_level_vectors(self, slots, Z):
        """Class vectors of (new) rows ``Z`` (uint8 codes) from one fast-path level."""
        K = self._vec_width
        out = np.empty((Z.shape[0], len(slots) * K))
        for f, slot in enumerate(slots):
            out[:, f * K:(f + 1) * K] = slot.mean(Z, n_jobs=self.n_jobs)
        return out

    def _level_vectors(self, models, Z, cols):
        """Class vectors of (new) rows from one level: each forest's fold models averaged."""
        K = self._vec_width
        out = np.empty((Z.shape[0], len(models) * K))
        Xc = Z[:, :cols]
        for f, ests in enumerate(models):
            acc = 0.0
            for est in ests:
                acc = acc + _slot_vectors(est, Xc, self._task, self._n_codes())
            out[:, f * K:(f + 1) * K] = acc / len(ests)
        return out

    def _vectors_of(self, X, upto=None):
        """The class vectors (n, n_forests * width) of the last used level for ``X``,
        and the cascade input array after that level."""
        check_is_fitted(self, "levels_")
        Xf = encode_X(X, self._encoding, type(self).__name__, allow_nan=True)
        if getattr(self, "_fast", False):
            return self._vectors_of_fast(Xf, upto)
        raw = self._raw_block(Xf, False)
        d = raw.shape[1]
        n_vec = self.n_forests_ * self._vec_width
        Z = self._alloc(raw, n_vec, self._dtype)
        levels = self.levels_ if upto is None else self.levels_[:upto]
        vec = None
        for lev, level in enumerate(levels):
            vec = self._level_vectors(level.estimators, Z, d if lev == 0 else d + n_vec)
            Z[:, d:] = vec
        return vec, Z

    def _vectors_of_fast(self, Xf, upto):
        codes = self._raw_codes(Xf, False)
        n, d = codes.shape
        n_vec = self.n_forests_ * self._vec_width
        Z = np.zeros((n, d + n_vec), np.uint8)
        Z[:, :d] = codes
        del codes
        levels = self.levels_ if upto is None else self.levels_[:upto]
        vec = None
        for lev, level in enumerate(levels):
            vec = self._fast_level_vectors(level.estimators, Z)
            if lev + 1 < len(levels):
                Z[:, d:] = _fast.bin_vectors(vec, self.max_bins, edges=level.out_edges)[0]
        if self.final_estimator_ is not None:
            Z = np.hstack([_fast.codes_to_float(Z[:, :d]), vec])
        return vec, Z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True    # kept as NaN; the forests decide (sklearn's do)
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "levels_")

    # ---------------------------------------------------------- plotting
    def plot(self, ax=None):
        """Per-level training (out-of-fold) and validation scores and fit times of
        the growth run; returns the matplotlib figure."""
        check_is_fitted(self, "levels_")
        import matplotlib.pyplot as plt
        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4))
        else:
            fig = ax.figure
        grow = [r for r in self.history_ if r["phase"] == "grow"]
        lv = [r["level"] for r in grow]
        ax.plot(lv, [r["train_score"] for r in grow], "o-", label="train (out-of-fold)")
        if any(r["val_score"] is not None for r in grow):
            ax.plot(lv, [r["val_score"] for r in grow], "s-", label="validation (held out)")
        ax.axvline(self.n_levels_, color="grey", ls=":", label=f"kept: {self.n_levels_} levels")
        ax.set_xlabel("level")
        ax.set_ylabel("accuracy" if self._task == "classification" else "R^2")
        ax2 = ax.twinx()
        ax2.bar(lv, [r["fit_time"] for r in grow], alpha=0.2, color="k")
        ax2.set_ylabel("fit time per level (s)")
        ax.legend(loc="lower right")
        ax.set_title(type(self).__name__)
        return fig


_DOC = """
    Parameters
    ----------
    forests : list of estimators or None
        Unfitted prototypes of the forests of every level (cloned and re-seeded for
        every level and fold).  None: the paper's level -- 2 random forests
        (sqrt(d) features) + 2 completely-random tree forests of treelab.
    n_estimators : int, default=100
        Trees per default forest.  The paper used 500; 100 is deep-forest 0.1.x's
        default and fits 2 cores: a level then grows 4 forests x 3 folds x 100 =
        1,200 trees (6,000 with 500), and a class-probability estimate from 100
        trees already has a standard error below 0.05.
    n_folds : int, default=3
        k of the k-fold class vectors (the paper's k = 3).
    class_vectors : {"kfold", "oob"}, default="kfold"
    validation : {"holdout", "kfold"}, default="holdout"
        Estimate that drives growth: the paper's held-out ``validation_fraction`` of
        the rows, or the out-of-fold (out-of-bag) estimate of the class vectors.
    validation_fraction : float, default=0.2
    refit : bool, default=True
        With a holdout: re-train the chosen number of levels on all rows (the paper).
    max_levels : int, default=10
    tol : float, default=0.0
        A level counts as an improvement when its score exceeds the best so far by
        more than ``tol``.
    n_iter_no_change : int, default=1
        Levels without improvement tolerated before growth stops (the paper stops
        at the first; deep-forest uses 2).  The levels after the best are dropped.
    final_estimator : estimator or None
        Trained on [original features | last level's class vectors]; None: average
        of the last level's class vectors.
    max_bins : int or None, default=255
        Quantile bins of the raw features (computed once, shared by all levels;
        random cut-points are then drawn uniformly over the bin codes); None
        keeps the raw values.
    n_jobs : int or None
        Threads fitting the (forest, fold) models of a level in parallel (treelab's
        forests: the trees of a forest's fold models); the model is the same
        whatever ``n_jobs`` (every seed is drawn beforehand).
    random_state : int, RandomState or None
    verbose : int, default=0
        A tqdm progress bar over the levels when > 0 (and tqdm is installed).

    Attributes
    ----------
    levels_ : list of CascadeLevel
        The kept levels.
    n_levels_ : int
        The number of kept levels.
    history_ : list of dict
        One dict per grown level (phase "grow" or "refit"): train_score
        (out-of-fold / out-of-bag), val_score (held out), fit_time (s), rss_mb and
        peak_rss_mb (process memory after the level), n_features_in, and with
        treelab's forests model_mb (size of the level's stored trees).
"""


class CascadeForestClassifier(ClassifierMixin, _BaseCascade):
    __doc__ = ("Cascade forest classifier (gcForest's cascade; slides 6.10, Zhou & Feng "
               "2017).\n" + _DOC)
    _task = "classification"

    def _fit_targets(self, y, n):
        classes, codes = check_classification_targets(y, n)
        if classes.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes in "
                             f"the data, but the data contain only one class: {classes[0]!r}")
        self.classes_ = classes
        self.n_classes_ = classes.shape[0]
        return codes, codes

    def _n_codes(self):
        return self.n_classes_

    def _vector_score(self, vec, y):
        """Accuracy of the averaged class vectors."""
        if vec.shape[0] == 0:
            return float("nan")
        return float(np.mean(_average(vec, self.n_forests_).argmax(axis=1) == y))

    def predict_proba(self, X):
        """Average of the last level's class vectors (or the final estimator's)."""
        vec, Z = self._vectors_of(X)
        if self.final_estimator_ is not None:
            return _slot_vectors(self.final_estimator_, Z, "classification", self.n_classes_)
        return _average(vec, self.n_forests_)

    def predict(self, X):
        check_is_fitted(self, "levels_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _average(vec, n_forests):
    """Mean over forests of (n, n_forests * K) class vectors: (n, K)."""
    n = vec.shape[0]
    return vec.reshape(n, n_forests, vec.shape[1] // n_forests).mean(axis=1)


_F32_MAX = float(np.finfo(np.float32).max)


class CascadeForestRegressor(RegressorMixin, _BaseCascade):
    __doc__ = ("Cascade forest regressor (gcForest's cascade for a numeric target; each "
               "forest's 'class vector' is its prediction; the growth score is R^2).\n" + _DOC)
    _task = "regression"

    def _fit_targets(self, y, n):
        yf = check_regression_targets(y, n)
        # the levels learn y less the midpoint of its range where the offset
        # dominates (the trees' variance and float32 leaves keep their digits);
        # predict adds it back
        self._y_shift = target_shift(yf, np.ones(n))
        if self._y_shift:
            yf = yf - self._y_shift
        if np.abs(yf).max() > _F32_MAX:
            raise ValueError(f"y spreads beyond +-{_F32_MAX:.3g} around its centre, which the "
                             "cascade's float32 leaves cannot hold; rescale y")
        return yf, np.zeros(n, np.int64)

    def _n_codes(self):
        return 1

    def _vector_score(self, vec, y):
        """R^2 of the averaged predictions."""
        if vec.shape[0] == 0:
            return float("nan")
        pred = vec.mean(axis=1)
        ss_tot = float(np.sum((y - y.mean()) ** 2))
        ss_res = float(np.sum((y - pred) ** 2))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot

    def predict(self, X):
        vec, Z = self._vectors_of(X)
        if self.final_estimator_ is not None:
            pred = np.asarray(self.final_estimator_.predict(Z), dtype=np.float64)
        else:
            pred = vec.mean(axis=1)
        shift = getattr(self, "_y_shift", 0.0)
        return pred + shift if shift else pred
