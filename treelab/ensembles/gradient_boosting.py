"""Second-order gradient boosting on the batch engine (XGBoost-style).

Course slides, chapter 5, section 6.9 "XGBoost" (Chen & Guestrin 2016): every
round computes each instance's gradient g_i and Hessian h_i of the loss at
the current raw score, grows a tree greedily with the gain
1/2 [G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) - G^2/(H+lambda)] - gamma
(:class:`~treelab.split_criteria.NewtonCriterion`), gives each leaf the weight
w* = -G/(H+lambda) and adds the tree shrunk by the step size eta:
y^(t) = y^(t-1) + eta f_t(x).

The losses are the objects of :mod:`treelab.losses`, the same ones SGT uses
(squared error, logistic, softmax with k - 1 outputs -- the last class's score
fixed at 0 as in the SGT paper -- or any user :class:`~treelab.losses.Loss`);
one tree per output per round.  The data are binned once
(:func:`treelab._engine.binning.bin_data`) and every tree reuses them; a whole
ensemble predicts in one multi-root traversal
(:func:`treelab._engine.tree.forest_raw`).  Missing values go to a learned
default side, pandas ``category`` columns are nominal attributes (binary
subset splits ordered by the gradient statistics).
"""
from __future__ import annotations

import numbers

import numpy as np

from .._compile import announce
from .._engine.binning import MAX_BINS, bin_data
from .._engine.builder import build_tree, make_params
from .._engine.merit import TASK_DENSE
from .._engine.tree import LEAF, concat_trees, forest_predict, trim
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from ..data import (
    check_classification_targets, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ..losses import Logistic, Loss, Softmax, SquaredError
from ..split_criteria.gradient import NewtonCriterion

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]

_NO_LIMIT = np.iinfo(np.int64).max


def _nonneg(name, v, strict=False):
    if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.floating)) or not (
            v > 0 if strict else v >= 0):
        raise ValueError(f"{name} must be a float {'>' if strict else '>='} 0, got {v!r}")
    return float(v)


def _fraction(name, v):
    if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.floating)) or not 0 < v <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {v!r}")
    return float(v)


def _int_at_least(name, v, lo, allow_none=False):
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an int >= {lo}{' or None' if allow_none else ''}, "
                         f"got {v!r}")
    return int(v)


def _prior(loss, y, w, K):
    """Initial raw score: the weighted loss minimiser over a constant for the
    built-in losses (mean, log-odds, class log-ratios), else the loss's own
    ``init_raw`` (zero for a user loss)."""
    if type(loss) is SquaredError:
        return np.full(1, float(np.average(y, weights=w)))
    if type(loss) is Logistic:
        return loss.link(np.full(1, float(np.average(y, weights=w))))
    if type(loss) is Softmax:
        p = np.bincount(y.astype(np.int64), weights=w, minlength=K + 1)
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


class _BaseGradientBoosting(BaseEstimator):
    """Shared fit / predict logic (not for direct use)."""

    def _check_params(self):
        p = {}
        p["n_estimators"] = _int_at_least("n_estimators", self.n_estimators, 1)
        p["learning_rate"] = _nonneg("learning_rate", self.learning_rate, strict=True)
        md = self.max_depth
        p["max_depth"] = _NO_LIMIT if md in (None, 0) else _int_at_least("max_depth", md, 1)
        ml = self.max_leaves
        p["max_leaves"] = _NO_LIMIT if ml in (None, 0) else _int_at_least("max_leaves", ml, 2)
        if self.grow_policy not in ("depthwise", "lossguide"):
            raise ValueError(f"grow_policy must be 'depthwise' or 'lossguide', "
                             f"got {self.grow_policy!r}")
        if self.grow_policy == "depthwise" and p["max_depth"] == _NO_LIMIT:
            raise ValueError("grow_policy='depthwise' needs a max_depth")
        p["subsample"] = _fraction("subsample", self.subsample)
        p["colsample_bynode"] = _fraction("colsample_bynode", self.colsample_bynode)
        mb = self.max_bin
        if isinstance(mb, bool) or not isinstance(mb, (numbers.Integral, np.integer)) or not (
                2 <= mb <= MAX_BINS):
            raise ValueError(f"max_bin must be an int in [2, {MAX_BINS}], got {mb!r}")
        p["early_stopping_rounds"] = _int_at_least("early_stopping_rounds",
                                                   self.early_stopping_rounds, 1, True)
        p["criterion"] = NewtonCriterion(self.reg_lambda, self.reg_alpha, self.gamma,
                                         self.min_child_weight)
        return p

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Boost ``n_estimators`` rounds on ``(X, y)``; ``eval_set=[(X_val, y_val)]``
        (the last pair) drives ``early_stopping_rounds``."""
        p = self._check_params()
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, self.nominal_features, allow_nan=True)
        n, d = Xf.shape
        yf = self._fit_targets(y, n)
        w = check_sample_weight(sample_weight, n)
        if not w.sum() > 0:
            raise ValueError("Sum of sample weights is zero: nothing to learn from")
        keep = w > 0
        if not keep.all():
            # rows of weight zero take no part (not even in the bins): a weight of k
            # is k copies of a row
            Xf, yf, w = (np.ascontiguousarray(a[keep]) for a in (Xf, yf, w))
            n = Xf.shape[0]
        loss = self._resolve_loss()
        K = loss.n_outputs(getattr(self, "n_classes_", None))
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(0, np.iinfo(np.int32).max))
        set_fitted_encoding(self, enc, d)
        announce(self)          # one line on stderr if the kernels are about to compile
        data = bin_data(Xf, enc.is_nominal, enc.n_cats, True, self.max_bin, random_state=seed)
        if self.base_score is None:
            base = _prior(loss, yf, w, K)
        else:
            base = np.full(K, float(self.base_score))
        val = None
        if eval_set is not None:
            if not isinstance(eval_set, (list, tuple)) or not eval_set:
                raise ValueError("eval_set must be a non-empty list of (X, y) pairs")
            Xv, yv = eval_set[-1]
            Xvf = np.ascontiguousarray(encode_X(Xv, enc, name, allow_nan=True))
            yvf = self._eval_targets(yv, Xvf.shape[0])
            val = (Xvf, yvf, np.tile(base, (Xvf.shape[0], 1)))
        if p["early_stopping_rounds"] is not None and val is None:
            raise ValueError("early_stopping_rounds needs an eval_set")
        crit = p["criterion"]
        max_features = max(1, int(p["colsample_bynode"] * d))
        params = make_params(TASK_DENSE, 3, p["max_depth"], 2, 1, crit.min_child_weight, 0.0,
                             max_features, False, crit.merit_code, crit.builtin_code,
                             max_leaves=p["max_leaves"], seed=seed)
        raw = np.tile(base, (n, 1))
        G = np.empty((n, K))
        H = np.empty((n, K))
        lr = p["learning_rate"]
        trees, cols = [], []
        self.evals_result_ = []
        best, best_it, since = np.inf, -1, 0
        empty_y = np.zeros(0, np.int64)
        Xc = np.ascontiguousarray(Xf)
        w = np.ascontiguousarray(w, dtype=np.float64)
        leaves = np.zeros(n, np.int64)
        for it in range(p["n_estimators"]):
            loss.grad_hess(yf, raw, G, H)
            rows = None
            if p["subsample"] < 1.0:
                m = max(1, int(round(p["subsample"] * n)))
                rows = np.sort(rng.choice(n, m, replace=False)).astype(np.int64)
            for j in range(K):
                sst = np.ascontiguousarray(np.stack([w * H[:, j], w * G[:, j], w], axis=1))
                params = params._replace(seed=int(rng.randint(0, np.iinfo(np.int32).max)))
                t = trim(build_tree(data, empty_y, sst, w, params, crit.impurity, crit.merit,
                                    cp=crit.params, rows=rows, grow_policy=self.grow_policy,
                                    leaf_of_row=leaves))
                leaf_w = lr * crit.leaf_weight(t.value)
                stats = t.value
                t = t._replace(value=np.ascontiguousarray(leaf_w.reshape(-1, 1)))
                trees.append((t, stats))
                cols.append(j)
                raw[:, j] += _train_scores(t, leaves, rows, Xc)
                if val is not None:
                    f1, r1 = concat_trees([t])
                    val[2][:, j] += forest_predict(f1, r1, [0], val[0], 1)[:, 0]
            if val is not None:
                score = float(np.mean(loss.value(val[1], val[2])))
                self.evals_result_.append(score)
                if score < best - 1e-12:
                    best, best_it, since = score, it, 0
                else:
                    since += 1
                    if p["early_stopping_rounds"] is not None and since >= p["early_stopping_rounds"]:
                        break
        self._trees = trees
        self._cols = np.asarray(cols, np.int64)
        self.n_outputs_raw_ = K
        self.base_score_ = base
        self.loss_ = loss
        self.n_iter_ = len(trees) // K
        self.best_iteration_ = best_it if (val is not None and
                                           p["early_stopping_rounds"] is not None) else self.n_iter_ - 1
        # the forest used by predict: the trees up to the best iteration
        self._forest, self._roots = concat_trees(
            [t for t, _ in trees[:(self.best_iteration_ + 1) * K]])
        return self

    # ------------------------------------------------------------ predict
    def _raw(self, X):
        check_is_fitted(self, "_trees")
        Xf = np.ascontiguousarray(encode_X(X, self._encoding, type(self).__name__,
                                           allow_nan=True))
        K = self.n_outputs_raw_
        cols = self._cols[:self._roots.shape[0]]
        return forest_predict(self._forest, self._roots, cols, Xf, K) + self.base_score_

    def _staged_raw(self, X):
        check_is_fitted(self, "_trees")
        Xf = np.ascontiguousarray(encode_X(X, self._encoding, type(self).__name__,
                                           allow_nan=True))
        K = self.n_outputs_raw_
        raw = np.tile(self.base_score_, (Xf.shape[0], 1))
        for it in range(self.n_iter_):
            trees = [t for t, _ in self._trees[it * K:(it + 1) * K]]
            forest, roots = concat_trees(trees)
            raw = raw + forest_predict(forest, roots, np.arange(K), Xf, K)
            yield raw

    @property
    def feature_importances_(self):
        """Total gain of the splits on each feature (normalised), over the trees used
        for prediction; ``split_count_`` counts the splits."""
        check_is_fitted(self, "_trees")
        crit = NewtonCriterion(self.reg_lambda, self.reg_alpha, self.gamma,
                               self.min_child_weight)
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
    Parameters (named as XGBoost's scikit-learn wrapper)
    ----------
    n_estimators : int, default=100
        Boosting rounds.
    learning_rate : float, default=0.3
        Shrinkage eta (slides: y^(t) = y^(t-1) + eta f_t(x)).
    max_depth : int, default=6
    max_leaves : int, default=0 (no limit)
    grow_policy : {"depthwise", "lossguide"}, default="depthwise"
        Depth-wise or best-first (leaf-wise, up to ``max_leaves``) growth.
    min_child_weight, reg_lambda, reg_alpha, gamma : float
        Defaults 1, 1, 0, 0: the Newton criterion's parameters.
    subsample : float, default=1
        Fraction of rows drawn (without replacement) for each round.
    colsample_bynode : float, default=1
        Fraction of features drawn at each node.
    max_bin : int, default=255
        Quantile bins per numeric feature (plus one for missing values).
    early_stopping_rounds : int or None
        Stop when the mean loss on ``eval_set`` did not improve for so many rounds;
        prediction then uses the best iteration.
    base_score : float or None
        Initial raw score; None: the loss's prior (mean, log-odds, class log-ratios).
    nominal_features : columns treated as nominal besides pandas ``category`` ones.
    random_state : int, RandomState or None
"""


class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    __doc__ = ("Gradient-boosted regression trees with the second-order (Newton) "
               "criterion.\n" + _PARAM_DOC + """    loss : "squared_error" or a treelab.losses.Loss
        (any user loss built from gradient / Hessian functions).
""")

    def __init__(self, *, loss="squared_error", n_estimators=100, learning_rate=0.3,
                 max_depth=6, max_leaves=0, grow_policy="depthwise", min_child_weight=1.0,
                 reg_lambda=1.0, reg_alpha=0.0, gamma=0.0, subsample=1.0, colsample_bynode=1.0,
                 max_bin=255, early_stopping_rounds=None, base_score=None,
                 nominal_features=None, random_state=None):
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.subsample = subsample
        self.colsample_bynode = colsample_bynode
        self.max_bin = max_bin
        self.early_stopping_rounds = early_stopping_rounds
        self.base_score = base_score
        self.nominal_features = nominal_features
        self.random_state = random_state

    def _resolve_loss(self):
        if isinstance(self.loss, Loss):
            if self.loss.n_outputs() != 1:
                raise ValueError("GradientBoostingRegressor needs a single-output loss")
            return self.loss
        if self.loss == "squared_error":
            return SquaredError()
        raise ValueError(f"loss must be 'squared_error' or a treelab.losses.Loss, got {self.loss!r}")

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
    __doc__ = ("Gradient-boosted classification trees with the second-order (Newton) "
               "criterion: logistic loss for two classes, softmax (k - 1 trees per "
               "round, the last class's score fixed at 0) for more.\n" + _PARAM_DOC)

    def __init__(self, *, n_estimators=100, learning_rate=0.3, max_depth=6, max_leaves=0,
                 grow_policy="depthwise", min_child_weight=1.0, reg_lambda=1.0, reg_alpha=0.0,
                 gamma=0.0, subsample=1.0, colsample_bynode=1.0, max_bin=255,
                 early_stopping_rounds=None, base_score=None, nominal_features=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.grow_policy = grow_policy
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.subsample = subsample
        self.colsample_bynode = colsample_bynode
        self.max_bin = max_bin
        self.early_stopping_rounds = early_stopping_rounds
        self.base_score = base_score
        self.nominal_features = nominal_features
        self.random_state = random_state

    def _resolve_loss(self):
        return Logistic() if self.n_classes_ == 2 else Softmax()

    def _fit_targets(self, y, n):
        classes, yc = check_classification_targets(y, n)
        if classes.shape[0] < 2:
            raise ValueError(f"Classifier can't train when only one class is present: y has "
                             f"the single class {classes[0]!r}")
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        return np.ascontiguousarray(yc, dtype=np.float64)

    def _eval_targets(self, y, n):
        y = np.asarray(y)
        if y.shape[0] != n:
            raise ValueError("eval_set: X and y have different numbers of samples")
        idx = np.searchsorted(self.classes_, y)
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
