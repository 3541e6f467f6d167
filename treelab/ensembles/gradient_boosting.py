"""Gradient boosting on the batch engine: XGBoost's second-order trees and the
course's two first-order variants.

Course slides, chapter 5 (``papers/004``), three algorithms selected by ``method``:

* ``"newton"`` (default), section 6.9 "XGBoost" (Chen & Guestrin 2016): every
  round computes each instance's gradient g_i and Hessian h_i of the loss at the
  current raw score, grows a tree greedily with the gain
  1/2 [G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) - G^2/(H+lambda)] - gamma
  (:class:`~treelab.split_criteria.NewtonCriterion`), gives each leaf the weight
  w* = -G/(H+lambda) and adds the tree shrunk by eta: y^(t) = y^(t-1) + eta f_t(x).
* ``"gradient"``, section 6.8 "GBDT" (Friedman 2001): f_0 = argmin_c sum L(y_i, c);
  each round fits a regression tree by squared error to the negative gradient
  r_mi (steps (a), (b)), then sets every leaf by the line search
  c_mj = argmin_c sum_{x_i in R_mj} L(y_i, f_{m-1}(x_i) + c) (step (c),
  :meth:`treelab.losses.Loss.leaf_values`: closed form for squared / absolute /
  quantile, a root search for Huber, one Newton step for the logistic losses and
  user losses, as Friedman's Algorithms 5 and 6); f_m = f_{m-1} + eta sum_j c_mj I(x in R_mj).
* ``"residual"``, section 6.8 "Boosting Tree" (squared loss only): f_0 = 0, each
  round fits a regression tree to the residuals r_mi = y_i - f_{m-1}(x_i) and adds
  it, f_m = f_{m-1} + T(x; Theta_m) (times eta).

The first-order trees are grown by plain squared error (the Newton criterion
with h = 1 and lambda = alpha = gamma = 0, so ``reg_lambda``, ``reg_alpha`` and
``gamma`` apply to ``method="newton"`` only; ``min_child_weight`` is then a least
weighted row count per child).

The losses are the objects of :mod:`treelab.losses`, the same ones SGT uses
(squared / absolute / Huber / quantile error, logistic, softmax with one tree per
class per round (:class:`~treelab.losses.MultinomialSoftmax`), or any user
:class:`~treelab.losses.Loss`).  For the losses whose true Hessian is zero the
kernels report a surrogate Hessian 1 and every tree's leaves are then set by the
exact line search (absolute: weighted median of the residuals, quantile: weighted
quantile, Huber: exact argmin), in the Newton method too -- LightGBM's and
scikit-learn's HistGradientBoosting's leaf renewal.

The data are binned once (:func:`treelab._engine.binning.bin_data`) and every tree
reuses them; a whole ensemble predicts in one multi-root traversal
(:func:`treelab._engine.tree.forest_predict`).  Missing values go to a learned
default side, pandas ``category`` columns are nominal attributes.

Randomness: every round ``m`` draws its rows (``subsample``), features
(``colsample_by*``) and tree seeds from its own generator seeded by
``(seed, m)``, the seed drawn once from ``random_state`` at the first fit; so a
``warm_start`` fit that adds rounds grows exactly the trees a single fit with as
many rounds grows.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from .._compile import announce
from .._engine.binning import MAX_BINS, bin_data, with_column_codes
from .._engine.builder import add_leaf_values, make_params
from .._engine.build import build_tree, pool_for
from .._engine.level_wise import level_wise_fits
from .._engine.loss_kernels import newton_round_stats
from .._engine.merit import TASK_DENSE
from .._engine.signatures import GRAD_HESS_SIG, function_pointer
from .._engine.tree import LEAF, concat_trees, forest_predict, pack_raw, trim
from .._params import check_bool, check_fraction, check_int, check_n_jobs, check_real, n_threads
from .._progress import progress_bar
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from ..data import (
    fit_class_codes, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ..losses import (
    REGRESSION_LOSSES, Logistic, Loss, MultinomialSoftmax, Softmax, SquaredError,
)
from ..split_criteria.gradient import NewtonCriterion
from ._base import KeptWalkLayout

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor", "XGBOOST_REGULARISATION"]

#: XGBoost's default regularisation under its own names, for runs that reproduce
#: XGBoost (or results recorded with it): ``GradientBoosting*(**XGBOOST_REGULARISATION)``.
#: treelab's defaults are HistGradientBoosting's / LightGBM's (``reg_lambda=0``,
#: ``min_child_weight=1e-3``; see the estimators' docstrings)
XGBOOST_REGULARISATION = {"reg_lambda": 1.0, "min_child_weight": 1.0}

_NO_LIMIT = np.iinfo(np.int64).max
_METHODS = ("newton", "gradient", "residual")
#: feature-mask levels drawn for ``colsample_bylevel`` at most (deeper levels share the last)
_MAX_MASK_LEVELS = 64


def _n_threads(n_jobs):
    """The threads of ``n_jobs``, as every treelab estimator reads it
    (:func:`treelab._params.n_threads`: None -> 1, -1 -> every core)."""
    return n_threads(n_jobs)


@contextmanager
def _numba_threads(n_jobs):
    """Run the engine's parallel kernels (binning, histograms, prediction) on
    ``n_jobs`` threads (None: one, as in scikit-learn; -1: every core)."""
    import numba
    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(_n_threads(n_jobs), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def _prior(loss, y, w, K):
    """Initial raw score f_0: the weighted loss minimiser over a constant for the
    built-in losses (mean, median, quantile, Huber argmin, log-odds, class
    log-ratios), else the loss's own ``init_raw`` (zero for a user loss)."""
    if getattr(loss, "exact_line_search", False):
        return np.asarray(loss.leaf_values(y, np.zeros((y.shape[0], 1)), w,
                                           np.zeros(y.shape[0], np.int64), 1), np.float64)
    if type(loss) is Logistic:
        return loss.link(np.full(1, float(np.average(y, weights=w))))
    if type(loss) in (Softmax, MultinomialSoftmax):
        k = K + 1 if type(loss) is Softmax else K
        p = np.bincount(y.astype(np.int64), weights=w, minlength=k)
        return loss.link((p / p.sum())[None, :])[0]
    return np.asarray(loss.init_raw(y, None, "zero"), dtype=np.float64).reshape(K)


def _train_scores(t, leaves, rows, Xc):
    """The values of tree ``t`` (one output column) at every training row: read off
    ``leaves``, the leaf the builder's final partition put each grown-on row in
    (no traversal of the training rows); rows left out by subsampling are
    traversed.  Equal to ``forest_predict`` of the tree on ``Xc``: the builder
    partitions binned rows exactly as the thresholds route raw values."""
    if rows is None or rows.shape[0] == Xc.shape[0]:
        return t.value[leaves, 0]
    out = np.empty(Xc.shape[0])
    out[rows] = t.value[leaves[rows], 0]
    out_of_bag = np.ones(Xc.shape[0], np.bool_)
    out_of_bag[rows] = False
    f1, r1 = concat_trees([t])
    out[out_of_bag] = forest_predict(f1, r1, [0], np.ascontiguousarray(Xc[out_of_bag]), 1)[:, 0]
    return out


def _column_mask(rng, d, by_tree, by_level, levels):
    """XGBoost's column sampler: ``max(1, int(by_tree d))`` features per tree, of
    those ``max(1, int(by_level n_tree))`` per depth level (a (levels, d) mask, or
    None when nothing is sampled) and the number ``colsample_bynode`` then draws
    from at each node."""
    if by_tree >= 1.0 and by_level >= 1.0:
        return None, d
    tree_set = np.arange(d)
    if by_tree < 1.0:
        tree_set = np.sort(rng.choice(d, max(1, int(by_tree * d)), replace=False))
    n_level = tree_set.shape[0]
    if by_level < 1.0:
        n_level = max(1, int(by_level * tree_set.shape[0]))
        mask = np.zeros((levels, d), np.bool_)
        for lv in range(levels):
            mask[lv, rng.choice(tree_set, n_level, replace=False)] = True
    else:
        mask = np.zeros((1, d), np.bool_)
        mask[0, tree_set] = True
    return mask, n_level


class _BaseGradientBoosting(KeptWalkLayout, BaseEstimator):
    """Shared fit / predict logic (not for direct use)."""

    _layout_attr = "_packed"    # (KeptWalkLayout: the pack_raw layout)

    _is_classifier = False

    def _check_params(self):
        p = {}
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}")
        p["n_estimators"] = check_int("n_estimators", self.n_estimators, 1)
        p["learning_rate"] = check_real("learning_rate", self.learning_rate, 0, lo_open=True)
        md = self.max_depth
        p["max_depth"] = _NO_LIMIT if md in (None, 0) else check_int("max_depth", md, 1)
        ml = self.max_leaves
        p["max_leaves"] = _NO_LIMIT if ml in (None, 0) else check_int("max_leaves", ml, 2)
        if self.grow_policy not in ("depthwise", "lossguide"):
            raise ValueError(f"grow_policy must be 'depthwise' or 'lossguide', "
                             f"got {self.grow_policy!r}")
        if self.grow_policy == "depthwise" and p["max_depth"] == _NO_LIMIT:
            raise ValueError("grow_policy='depthwise' needs a max_depth")
        p["min_samples_leaf"] = check_int("min_samples_leaf", self.min_samples_leaf, 1)
        p["subsample"] = check_fraction("subsample", self.subsample)
        for name in ("colsample_bytree", "colsample_bylevel", "colsample_bynode"):
            p[name] = check_fraction(name, getattr(self, name))
        check_int("max_bins", self.max_bins, 2, MAX_BINS)
        p["n_iter_no_change"] = check_int("n_iter_no_change", self.n_iter_no_change,
                                               1, allow_none=True)
        check_real("validation_fraction", self.validation_fraction, 0, 1, lo_open=True,
                   hi_open=True, allow_none=True)
        check_n_jobs(self.n_jobs)
        check_bool("warm_start", self.warm_start)
        check_real("base_score", self.base_score, allow_none=True)
        if self.method == "newton":
            p["criterion"] = NewtonCriterion(self.reg_lambda, self.reg_alpha, self.gamma,
                                             self.min_child_weight)
        else:
            # the slides' trees fit the (pseudo-)residuals by plain squared error
            NewtonCriterion(self.reg_lambda, self.reg_alpha, self.gamma)   # validates
            p["criterion"] = NewtonCriterion(0.0, 0.0, 0.0, self.min_child_weight)
        return p

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost up to ``n_estimators`` rounds on ``(X, y)``.

        ``eval_set=[(X_val, y_val)]`` (the last pair) or ``validation_fraction``
        (a held-out part of the training data, stratified for classifiers) gives
        the validation loss of every round (``evals_result_``), which drives
        ``n_iter_no_change``.  With ``warm_start=True`` a fitted model keeps
        its trees and grows rounds ``n_iter_ .. n_estimators - 1``."""
        p = self._check_params()
        with _numba_threads(self.n_jobs):
            return self._fit(p, X, y, sample_weight, eval_set)

    def _prepared_layout(self):
        """``(use_hist, max_bins)`` of the data :meth:`_fit_prepared` takes; None when
        the fit bins a part of the rows itself (validation split, warm start,
        nominal features)."""
        if self.validation_fraction is not None or self.warm_start or \
                self.nominal_features is not None:
            return None
        return True, int(self.max_bins)

    def _fit_prepared(self, X, y, sample_weight, data):
        """:meth:`fit` on numeric ``X`` that the caller has already binned as ``data``
        (``bin_data(X, ..., use_hist=True, max_bins)``; ToPs fits the sides of many
        cuts of one node without binning each again)."""
        p = self._check_params()
        with _numba_threads(self.n_jobs):
            return self._fit(p, X, y, sample_weight, None, data)

    def _fit(self, p, X, y, sample_weight, eval_set, data=None):
        name = type(self).__name__
        warm = bool(self.warm_start) and hasattr(self, "_trees")
        if warm:
            Xf = np.ascontiguousarray(encode_X(X, self._encoding, name, allow_nan=True))
            if p["n_estimators"] < self.n_iter_:
                raise ValueError(f"warm_start: n_estimators={p['n_estimators']} must be at "
                                 f"least the {self.n_iter_} rounds already fitted")
            if self.method != self._method:
                raise ValueError(f"warm_start: method changed from {self._method!r} to "
                                 f"{self.method!r}")
            enc = self._encoding
        else:
            Xf, enc = fit_encode_X(X, name, self.nominal_features, allow_nan=True)
        n, d = Xf.shape
        old_classes = (self.classes_, self.n_classes_) if warm and self._is_classifier else None
        yf = self._fit_targets(y, n)
        if old_classes is not None and not np.array_equal(old_classes[0], self.classes_):
            new_classes = self.classes_
            self.classes_, self.n_classes_ = old_classes
            raise ValueError(f"warm_start: y has classes {new_classes!r}, the fitted model "
                             f"{self.classes_!r}")
        w = check_sample_weight(sample_weight, n)
        if not w.sum() > 0:
            raise ValueError("Sum of sample weights is zero: nothing to learn from")
        loss = self._resolve_loss()
        if self.method == "residual" and type(loss) is not SquaredError:
            raise ValueError("method='residual' (the slides' boosting tree on residuals) "
                             f"needs the squared error loss, got {loss!r}")
        K = loss.n_outputs(getattr(self, "n_classes_", None))
        if warm:
            seed = self._seed
        else:
            seed = int(check_random_state(self.random_state).randint(0, np.iinfo(np.int32).max))
        # ---- validation data -----------------------------------------------------
        val = None
        if eval_set is not None:
            if self.validation_fraction is not None:
                raise ValueError("give eval_set or validation_fraction, not both")
            if not isinstance(eval_set, (list, tuple)) or not eval_set:
                raise ValueError("eval_set must be a non-empty list of (X, y) pairs")
            pair = eval_set[-1]
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError("eval_set must be a list of (X, y) pairs")
            Xvf = np.ascontiguousarray(encode_X(pair[0], enc, name, allow_nan=True))
            yvf = self._eval_targets(pair[1], Xvf.shape[0])
            val = [Xvf, yvf, None, None]
        keep = w > 0
        if self.validation_fraction is not None:
            is_val = self._validation_rows(yf, keep, seed)
            val = [np.ascontiguousarray(Xf[is_val]), np.ascontiguousarray(yf[is_val]), None,
                   np.ascontiguousarray(w[is_val])]
            keep &= ~is_val
        if p["n_iter_no_change"] is not None and val is None:
            raise ValueError("n_iter_no_change needs an eval_set or a validation_fraction")
        if not keep.all():
            # rows of weight zero take no part (not even in the bins): a weight of k
            # is k copies of a row
            Xf, yf, w = (np.ascontiguousarray(a[keep]) for a in (Xf, yf, w))
            n = Xf.shape[0]
        if not warm:
            set_fitted_encoding(self, enc, d)
        announce(self)          # one line on stderr if the kernels are about to compile
        if data is None or data.X.shape[0] != n or not data.use_hist:
            data = bin_data(Xf, enc.is_nominal, enc.n_cats, True, self.max_bins, random_state=seed)
        # every tree's root histogram from the codes column by column
        data = with_column_codes(data)
        # ---- initial scores --------------------------------------------------------
        if warm:
            base = self.base_score_
        elif self.base_score is not None:
            base = np.full(K, float(self.base_score))
        elif self.method == "residual":
            base = np.zeros(K)          # the slides' boosting tree: f_0(x) = 0
        else:
            base = _prior(loss, yf, w, K)
        base = np.asarray(base, np.float64).reshape(K)
        Xc = np.ascontiguousarray(Xf)
        w = np.ascontiguousarray(w, dtype=np.float64)
        raw = np.tile(base, (n, 1))
        if val is not None:
            val[2] = np.tile(base, (val[0].shape[0], 1))
        trees, cols = ([], []) if not warm else (list(self._trees), list(self._cols))
        history = [] if not warm else list(self.evals_result_)
        if warm:
            # replay the fitted trees, in order, exactly as the fit added them
            for (t, _), j in zip(trees, cols):
                f1, r1 = concat_trees([t])
                raw[:, j] += forest_predict(f1, r1, [0], Xc, 1)[:, 0]
                if val is not None:
                    f1, r1 = concat_trees([t])
                    val[2][:, j] += forest_predict(f1, r1, [0], val[0], 1)[:, 0]
        crit = p["criterion"]
        levels = 1
        if p["colsample_bylevel"] < 1.0:
            levels = int(min(p["max_depth"], p["max_leaves"] - 1, n, _MAX_MASK_LEVELS))
        msl = p["min_samples_leaf"]
        params = make_params(TASK_DENSE, 3, p["max_depth"], 2 * msl, msl,
                             crit.min_child_weight, 0.0, d, False, crit.merit_code,
                             crit.builtin_code,
                             max_leaves=p["max_leaves"], seed=seed)
        G = np.empty((n, K))
        H = np.empty((n, K))
        sst_buf = np.empty((K, n, 3))
        sst_buf[:, :, 2] = w
        lr = p["learning_rate"]
        method = self.method
        first_order = method != "newton"
        # leaves set by the line search: always for GBDT; in the Newton method for the
        # losses with a surrogate Hessian (absolute, Huber, quantile); the residual
        # method keeps the tree's own values (the mean residual of each leaf)
        # the loss as a cached first-class value (no dispatcher lookup every round)
        grad_hess = function_pointer(loss.grad_hess, GRAD_HESS_SIG)
        renew = method == "gradient" or (
            method == "newton" and getattr(loss, "exact_line_search", False)
            and type(loss) is not SquaredError)
        empty_y = np.zeros(0, np.int64)
        # one tree a round (regression, binary): depthwise trees grow a level at a
        # time, the level's partitions and histograms on the threads (level_wise);
        # K trees a round grow in parallel threads instead.  Chosen by the task and
        # the histogram memory, never by n_jobs: the model does not depend on it
        driver = self.grow_policy
        if driver == "depthwise" and K == 1 and level_wise_fits(
                p["max_depth"], d, data.n_bins, 3):
            driver = "levelwise"
        # (the K trees of a round on the n_jobs threads rather than one after the
        # other: MNIST's 10 classes, 20 rounds, two threads, 3.0-3.8 s against
        # 4.2-5.3 s; the same model)
        import numba
        n_round = min(_n_threads(self.n_jobs), K)
        pool = ThreadPoolExecutor(n_round) if n_round > 1 else None
        # the threads left to each tree build its histograms on (split by features:
        # the trees are the same whatever their number)
        params = params._replace(n_threads=max(1, numba.get_num_threads() // n_round))
        n_chunks = 4 * numba.get_num_threads() if n >= 20_000 else 1
        best, best_it, since = np.inf, -1, 0
        for it, score in enumerate(history):
            if score < best - 1e-12:
                best, best_it, since = score, it, 0
            else:
                since += 1
        stop = (p["n_iter_no_change"] is not None and
                since >= p["n_iter_no_change"])
        start_it = len(trees) // K
        all_rows = np.arange(n, dtype=np.int64)     # (the builder only reads it)
        # each thread's histogram pool, reused by every tree it grows (fresh pools
        # cost their pages' first-write faults on every tree)
        pools = threading.local()
        took = [0.0] * K            # each class's last tree's growing time (seconds)

        def thread_pool():
            if not hasattr(pools, "pool"):
                pools.pool = pool_for(data, params, driver, n)
            return pools.pool
        bar = progress_bar(bool(self.verbose), p["n_estimators"] - start_it,
                           type(self).__name__, unit="round")
        try:
            for it in range(start_it, p["n_estimators"]):
                if stop:
                    break
                rng = np.random.default_rng([seed, it])
                # gradients, Hessians and every class's [w h, w g, w] rows, in blocks
                # of rows on the threads
                newton_round_stats(grad_hess, yf, raw, G, H, w, sst_buf, first_order,
                                   bool(loss.rowwise), n_chunks)
                rows = None
                if p["subsample"] < 1.0:
                    m = max(1, int(round(p["subsample"] * n)))
                    rows = np.sort(rng.choice(n, m, replace=False)).astype(np.int64)
                jobs = []
                for j in range(K):
                    mask, n_level = _column_mask(rng, d, p["colsample_bytree"],
                                                 p["colsample_bylevel"], levels)
                    tp = params._replace(
                        seed=int(rng.integers(0, np.iinfo(np.int32).max)),
                        # bynode 1: every allowed feature, in index order (no shuffle,
                        # so no draw depends on how many rows a node holds)
                        max_features=(d if p["colsample_bynode"] >= 1.0 else
                                      max(1, int(p["colsample_bynode"] * n_level))),
                        feature_mask=params.feature_mask if mask is None else mask)
                    # the class's per-row statistics [w h, w g, w] (first order: h = 1)
                    jobs.append((sst_buf[j], tp))

                def grow(j):
                    sst, tp = jobs[j]
                    t_start = time.perf_counter()
                    # the builder reports the leaf of every grown-on row: training
                    # scores are updated without traversing the tree
                    leaves = np.empty(n, np.int64)     # (every grown-on row is set)
                    t = trim(build_tree(data, empty_y, sst, w, tp, crit.impurity, crit.merit,
                                        cp=crit.params,
                                        rows=all_rows if rows is None else rows,
                                        grow_policy=driver, leaf_of_row=leaves,
                                        pool=thread_pool()))
                    took[j] = time.perf_counter() - t_start
                    return t, leaves
                if pool is None:
                    grown = [grow(j) for j in range(K)]
                else:
                    # the round's trees longest first by their class's last round
                    # (LPT: less idle time before the round's end; the trees do not
                    # depend on the order or the thread)
                    futures = {j: pool.submit(grow, j)
                               for j in sorted(range(K), key=lambda j: -took[j])}
                    grown = [futures[j].result() for j in range(K)]
                new = []
                for j, (t, leaves) in enumerate(grown):
                    stats = t.value
                    value = crit.leaf_weight(stats)
                    if renew:
                        value = self._line_search(t, value, loss, yf, raw, w, rows, j, leaves)
                    t = t._replace(value=np.ascontiguousarray((lr * value).reshape(-1, 1)))
                    new.append((t, stats, leaves))
                # all K trees of a round see the same raw scores (Friedman, Algorithm 6)
                for j, (t, stats, leaves) in enumerate(new):
                    trees.append((t, stats))
                    cols.append(j)
                    if rows is None:
                        # every row grew the tree: its leaf is known (no temporaries)
                        add_leaf_values(raw, j, t.value, leaves, n_chunks)
                    else:
                        raw[:, j] += _train_scores(t, leaves, rows, Xc)
                    if val is not None:
                        f1, r1 = concat_trees([t])
                        val[2][:, j] += forest_predict(f1, r1, [0], val[0], 1)[:, 0]
                if val is not None:
                    lv = loss.value(val[1], val[2])
                    score = float(np.average(lv, weights=val[3]))
                    history.append(score)
                    if score < best - 1e-12:
                        best, best_it, since = score, it, 0
                    else:
                        since += 1
                        if (p["n_iter_no_change"] is not None and
                                since >= p["n_iter_no_change"]):
                            stop = True
                    bar.set_postfix(val_loss=f"{score:.5g}", best_round=best_it + 1)
                bar.update(1)
        finally:
            bar.close()
            if pool is not None:
                pool.shutdown()
        self._trees = trees
        self._cols = np.asarray(cols, np.int64)
        self._seed = seed
        self._method = method
        self._gain_criterion = crit
        self.evals_result_ = history
        self.n_outputs_raw_ = K
        self.base_score_ = base
        self.loss_ = loss
        self.n_iter_ = len(trees) // K
        self.best_iteration_ = best_it if (val is not None and
                                           p["n_iter_no_change"] is not None) else self.n_iter_ - 1
        # the forest used by predict: the trees up to the best iteration
        self._forest, self._roots = concat_trees(
            [t for t, _ in trees[:(self.best_iteration_ + 1) * K]])
        self._keep_layout()
        return self

    @staticmethod
    def _line_search(t, value, loss, yf, raw, w, rows, j, leaf_of_row):
        """Leaf values by the loss's line search over the rows that grew the tree
        (slides' GBDT step (c)); nodes that are not leaves keep ``value``.
        ``leaf_of_row``: each grown-on row's leaf, as the builder reported it."""
        node = leaf_of_row if rows is None else leaf_of_row[rows]
        leaves = np.flatnonzero(t.kind == LEAF)
        ordinal = np.full(t.kind.shape[0], -1, np.int64)
        ordinal[leaves] = np.arange(leaves.shape[0])
        sel = slice(None) if rows is None else rows
        c = loss.leaf_values(yf[sel], raw[sel], w[sel], ordinal[node], leaves.shape[0], j)
        value = np.array(value, dtype=np.float64, copy=True)
        value[leaves] = c
        return value

    def _validation_rows(self, yf, keep, seed):
        """Held-out rows for ``validation_fraction`` (stratified by class for
        classifiers), drawn from the fit's seed."""
        rng = np.random.default_rng([seed, 2 ** 32 - 1])
        frac = float(self.validation_fraction)
        idx_all = np.flatnonzero(keep)
        groups = ([idx_all[yf[idx_all] == c] for c in np.unique(yf[idx_all])]
                  if self._is_classifier else [idx_all])
        is_val = np.zeros(yf.shape[0], np.bool_)
        for g in groups:
            g = rng.permutation(g)
            is_val[g[:int(round(frac * g.shape[0]))]] = True
        if not is_val.any() or not (keep & ~is_val).any():
            raise ValueError(f"validation_fraction={frac} leaves an empty training or "
                             f"validation set ({int(keep.sum())} rows)")
        return is_val

    # ------------------------------------------------------------ predict
    def _encode(self, X):
        check_is_fitted(self, "_trees")
        return np.ascontiguousarray(encode_X(X, self._encoding, type(self).__name__,
                                             allow_nan=True))

    def _raw(self, X):
        Xf = self._encode(X)
        K = self.n_outputs_raw_
        cols = self._cols[:self._roots.shape[0]]
        with _numba_threads(self.n_jobs):
            return forest_predict(self._forest, self._roots, cols, Xf, K,
                                  packed=self._kept_layout()) + self.base_score_

    def _pack_layout(self):
        """The prediction forest's walking layout (:func:`.tree.pack_raw`)."""
        return pack_raw(self._forest, self._roots)

    def _staged_raw(self, X):
        Xf = self._encode(X)
        K = self.n_outputs_raw_
        raw = np.tile(self.base_score_, (Xf.shape[0], 1))
        for it in range(self.n_iter_):
            trees = [t for t, _ in self._trees[it * K:(it + 1) * K]]
            forest, roots = concat_trees(trees)
            with _numba_threads(self.n_jobs):
                raw = raw + forest_predict(forest, roots, self._cols[it * K:(it + 1) * K],
                                           Xf, K)
            yield raw

    @property
    def feature_importances_(self):
        """Total gain of the splits on each feature (normalised), over the trees used
        for prediction, with the criterion that grew them; ``split_count_`` counts
        the splits."""
        check_is_fitted(self, "_trees")
        crit = self._gain_criterion
        imp = np.zeros(self.n_features_in_)
        for t, stats in self._trees[:(self.best_iteration_ + 1) * self.n_outputs_raw_]:
            for i in np.flatnonzero(t.kind != LEAF):
                kids = stats[t.first_child[i]:t.first_child[i] + t.n_children[i]]
                imp[t.feature[i]] += crit.gain(kids)
        s = imp.sum()
        return imp / s if s > 0 else imp

    @property
    def split_count_(self):
        check_is_fitted(self, "_trees")
        cnt = np.zeros(self.n_features_in_, np.int64)
        for t, _ in self._trees[:(self.best_iteration_ + 1) * self.n_outputs_raw_]:
            np.add.at(cnt, t.feature[t.kind != LEAF], 1)
        return cnt

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_trees")

_PARAM_DOC = """
    The parameters are named as in XGBoost's scikit-learn wrapper where it has them.

    Parameters
    ----------
    method : {"newton", "gradient", "residual"}, default="newton"
        Second-order trees (XGBoost), Friedman's GBDT (negative-gradient trees with a
        per-leaf line search) or the slides' boosting tree on residuals (squared
        loss only); see the module docstring.
    n_estimators : int, default=100
        Boosting rounds.
    learning_rate : float, default=0.3
        Shrinkage eta (slides: y^(t) = y^(t-1) + eta f_t(x)).
    max_depth : int, default=6
    max_leaves : int, default=0 (no limit)
    grow_policy : {"depthwise", "lossguide"}, default="depthwise"
        Depth-wise or best-first (leaf-wise, up to ``max_leaves``) growth.
        Depth-wise trees of one-tree rounds (regression, binary) grow a level at
        a time with the level's partitions and histograms on the threads
        (``_engine/level_wise``: the same splits as node by node), unless a
        level's histograms would exceed 256 MB.
    min_child_weight, reg_lambda, reg_alpha, gamma : float
        Defaults 1e-3, 0, 0, 0: the Newton criterion's parameters (``method="newton"``;
        the first-order methods use ``min_child_weight`` only).  The regularisation
        defaults are scikit-learn HistGradientBoosting's (``l2_regularization=0``,
        ``min_hessian_to_split=1e-3``) and LightGBM's scikit-learn wrapper's (same
        names), not XGBoost's (``reg_lambda=1, min_child_weight=1``, kept as
        :data:`XGBOOST_REGULARISATION`): softmax
        Hessians p(1 - p) are small once the classes separate, and XGBoost's
        values stop splits the others make -- on the 10 MNIST digits of
        ``benchmarks/bench_boosting.py`` (five 8,000 / 2,000 splits, 31 leaves)
        they cost 0.55-0.95 accuracy points against HistGB, these defaults 0.1-0.25
        (docs/guide/gradient_boosting.md).  A user loss whose Hessian vanishes where the fit is
        far off (pseudo-Huber) needs ``reg_lambda > 0``: its Newton steps -G/H are
        unbounded.
    min_samples_leaf : int, default=1
        Least number of training rows in a child (LightGBM's name, default 20 there;
        scikit-learn's ``min_samples_leaf``).  1 is XGBoost's (it has no such
        bound) and keeps the slides' small examples splitting; 20 with the
        defaults above gave -0.35 to +0.35 points against HistGB on those five
        MNIST splits (mean +0.06).
    subsample : float, default=1
        Fraction of rows drawn (without replacement) for each round.
    colsample_bytree, colsample_bylevel, colsample_bynode : float, default=1
        Fractions of features drawn per tree, per depth level of the tree (from the
        tree's) and per node (from the level's), multiplied as in XGBoost:
        ``max(1, int(fraction * n))`` at each stage.  At a node, the drawn
        features are tried first and, when none of them splits, further ones of
        the level's set (scikit-learn's ``max_features`` rule).
    max_bins : int, default=255
        Quantile bins per numeric feature (plus one for missing values).
    n_iter_no_change : int or None
        Stop when the mean validation loss did not improve for so many rounds
        (XGBoost's ``early_stopping_rounds``); prediction then uses the best iteration.
    validation_fraction : float in (0, 1) or None
        Hold this fraction of the training rows out as validation data (stratified
        by class for the classifier) instead of an ``eval_set``.
    base_score : float or None
        Initial raw score; None: the loss's minimiser over a constant (mean,
        median, log-odds, ...), or 0 for ``method="residual"`` (the slides' f_0 = 0).
    n_jobs : int or None
        Threads: the engine's parallel kernels (binning, histograms, prediction)
        and, for several outputs (one tree per class), the trees of a round grown
        at once; the threads left to each tree build its histograms (split by
        features: the model is the same whatever ``n_jobs``).  As in every
        treelab estimator and scikit-learn: None = 1 thread (unless inside a
        ``joblib.parallel_config`` context), -1 = all cores.
    warm_start : bool, default=False
        Keep the fitted trees and add rounds up to ``n_estimators``; the result
        equals a single fit with as many rounds (same ``random_state``).
    nominal_features : array-like or None
        Columns treated as nominal besides pandas ``category`` ones.
    random_state : int, RandomState or None
    verbose : int, default=0
        A tqdm progress bar over the rounds when > 0 (and tqdm is installed),
        showing the validation loss and the best round when there is validation
        data.
"""

class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    __doc__ = ("Gradient-boosted regression trees: XGBoost's second-order method or the "
               "course's first-order ones.\n" + _PARAM_DOC + """    loss : str or treelab.losses.Loss, default="squared_error"
        "squared_error", "absolute_error", "huber" (delta 1), "quantile" (alpha 0.5),
        a loss object (e.g. ``Huber(delta=2.0)``, ``Quantile(alpha=0.9)``) or any user
        single-output loss built from gradient / Hessian functions.
""")

    def __init__(self, *, loss="squared_error", method="newton", n_estimators=100,
                 learning_rate=0.3, max_depth=6, max_leaves=0, grow_policy="depthwise",
                 min_child_weight=1e-3, min_samples_leaf=1, reg_lambda=0.0, reg_alpha=0.0,
                 gamma=0.0,
                 subsample=1.0, colsample_bytree=1.0, colsample_bylevel=1.0,
                 colsample_bynode=1.0, max_bins=255, n_iter_no_change=None,
                 validation_fraction=None, base_score=None, n_jobs=None, warm_start=False,
                 nominal_features=None, random_state=None, verbose=0):
        self.loss = loss
        self.method = method
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.min_child_weight = min_child_weight
        self.min_samples_leaf = min_samples_leaf
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.max_bins = max_bins
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.base_score = base_score
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.verbose = verbose

    _LOSSES = REGRESSION_LOSSES

    def _resolve_loss(self):
        if isinstance(self.loss, Loss):
            if self.loss.n_outputs() != 1:
                raise ValueError("GradientBoostingRegressor needs a single-output loss")
            return self.loss
        if isinstance(self.loss, str) and self.loss in self._LOSSES:
            return self._LOSSES[self.loss]()
        raise ValueError(f"loss must be one of {sorted(self._LOSSES)} or a treelab.losses.Loss, "
                         f"got {self.loss!r}")

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(check_regression_targets(y, n))

    def _eval_targets(self, y, n):
        return np.ascontiguousarray(check_regression_targets(y, n))

    def predict(self, X):
        """Predicted values at the best iteration."""
        raw = self._raw(X)
        return self.loss_.inverse_link(raw)[:, 0]

    def staged_predict(self, X):
        """Predictions after each round."""
        check_is_fitted(self, "_trees")
        for raw in self._staged_raw(X):
            yield self.loss_.inverse_link(raw)[:, 0]


class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    __doc__ = ("Gradient-boosted classification trees: logistic loss for two classes, "
               "softmax with one tree per class per round for more (XGBoost's "
               "multi:softprob).\n" + _PARAM_DOC + """    loss : "log_loss" or a treelab.losses.Loss, default="log_loss"
        "log_loss": :class:`~treelab.losses.Logistic` (two classes) or
        :class:`~treelab.losses.MultinomialSoftmax` (k trees per round); a loss
        object with ``predict_proba``, e.g. SGT's :class:`~treelab.losses.Softmax`
        (k - 1 trees per round, the last class's score fixed at 0).
""")

    _is_classifier = True

    def __init__(self, *, loss="log_loss", method="newton", n_estimators=100, learning_rate=0.3,
                 max_depth=6, max_leaves=0, grow_policy="depthwise", min_child_weight=1e-3,
                 min_samples_leaf=1, reg_lambda=0.0, reg_alpha=0.0, gamma=0.0, subsample=1.0,
                 colsample_bytree=1.0, colsample_bylevel=1.0, colsample_bynode=1.0,
                 max_bins=255, n_iter_no_change=None, validation_fraction=None,
                 base_score=None, n_jobs=None, warm_start=False, nominal_features=None,
                 random_state=None, verbose=0):
        self.loss = loss
        self.method = method
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.min_child_weight = min_child_weight
        self.min_samples_leaf = min_samples_leaf
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.max_bins = max_bins
        self.n_iter_no_change = n_iter_no_change
        self.validation_fraction = validation_fraction
        self.base_score = base_score
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.nominal_features = nominal_features
        self.random_state = random_state
        self.verbose = verbose

    def _resolve_loss(self):
        if isinstance(self.loss, Loss):
            if not hasattr(self.loss, "predict_proba"):
                raise ValueError(f"GradientBoostingClassifier needs a loss with predict_proba "
                                 f"(Logistic, Softmax, MultinomialSoftmax), got {self.loss!r}")
            if type(self.loss) is Logistic and self.n_classes_ != 2:
                raise ValueError(f"the logistic loss is binary; y has {self.n_classes_} classes")
            return self.loss
        if self.loss == "log_loss":
            return Logistic() if self.n_classes_ == 2 else MultinomialSoftmax()
        raise ValueError(f"loss must be 'log_loss' or a treelab.losses.Loss, got {self.loss!r}")

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(fit_class_codes(self, y, n), dtype=np.float64)

    def _eval_targets(self, y, n):
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(f"eval_set: X has {n} rows but y has shape {y.shape}")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("eval_set: y contains NaN")
        try:
            idx = np.searchsorted(self.classes_, y)
        except TypeError as e:
            raise ValueError(f"eval_set has labels not comparable with the classes "
                             f"{self.classes_!r}") from e
        idx = np.clip(idx, 0, self.n_classes_ - 1)
        unseen = self.classes_[idx] != y
        if unseen.any():
            raise ValueError(f"eval_set has classes not seen in y: {np.unique(y[unseen])!r}")
        return np.ascontiguousarray(idx, dtype=np.float64)

    def predict_proba(self, X):
        """Class probabilities at the best iteration."""
        raw = self._raw(X)
        return self.loss_.predict_proba(raw)

    def predict(self, X):
        """Most probable class at the best iteration."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X):
        for raw in self._staged_raw(X):
            yield self.loss_.predict_proba(raw)

    def staged_predict(self, X):
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
