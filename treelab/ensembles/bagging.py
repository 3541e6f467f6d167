"""Bagging (Breiman 1996) on any base estimator.

Course slides, section 6.7 "Bagging": sampling with replacement, one
classifier built on each bootstrap sample, every sample with equal probability
of being selected; the ensemble predicts by (majority) vote -- here, as in
scikit-learn, the mean of the members' class probabilities (a vote when the
base estimator has no ``predict_proba``) or the mean prediction for
regression.  Options as scikit-learn's ``Bagging*``: ``max_samples`` rows per
member (with replacement when ``bootstrap``, else without), ``max_features``
columns per member (with replacement when ``bootstrap_features``), and the
out-of-bag (OOB) estimate of the slides' "Some comments on ensemble
learning": each training row is predicted only by the members whose sample
missed it.

Randomness: one seed per member is drawn from ``random_state`` before any fit,
and a member's rows, columns and own ``random_state`` come from that seed
alone, so the fitted ensemble is the same whatever ``n_jobs`` or joblib
backend (Dask included).  treelab trees (nogil kernels) are fitted in threads,
other estimators with joblib's default backend.  When the base estimator is a
treelab tree, the fitted trees (their feature indices mapped back to the full
column set) are joined into one multi-root tree, so prediction is one kernel
call (:func:`treelab._engine.tree.forest_sum`).
"""
from __future__ import annotations

import warnings

import numpy as np
from joblib import delayed

from .._engine.tree import LEAF, concat_trees
from .._params import check_bool, check_int
from .._progress import parallel_with_progress
from .._sklearn_compat import (
    BaseEstimator, ClassifierMixin, ProbaArgmaxMixin, RegressorMixin, check_is_fitted,
)
from ..data import (
    fit_class_codes, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ._base import (
    MAX_SEED, RebuiltForestState, accepts_sample_weight, base_allows_nan, check_member_kind,
    clone_estimator, has_param, is_treelab_tree, prepare_shared, resolve_count,
    share_member_arrays, subset_shared,
)
from .forest import _compact, forest_weighted_sum

__all__ = ["BaggingClassifier", "BaggingRegressor"]


def _draw(seed, n, d, n_rows, n_feats, bootstrap, bootstrap_features):
    """The columns and per-row draw counts of one member, from its seed alone:
    columns first, then rows (``None`` columns = all of them, in order)."""
    rs = np.random.RandomState(seed)
    if bootstrap_features:
        feats = np.sort(rs.randint(0, d, n_feats))
    elif n_feats < d:
        feats = np.sort(rs.choice(d, n_feats, replace=False))
    else:
        feats = None
    if bootstrap:
        rows = rs.randint(0, n, n_rows)
    elif n_rows < n:
        rows = rs.choice(n, n_rows, replace=False)
    else:
        rows = np.arange(n)
    return feats, rows


def _fit_member(base, X, y, w, seed, draw_args, use_weight, shared):
    """Fit one member (module level so that joblib / Dask can ship it).  A
    treelab tree (``shared`` = (prepared data, encoding)) grows on the columns
    of the data presorted / binned once, drawn rows weighted by their counts;
    another estimator gets the counts as ``sample_weight`` when it takes one,
    else a copy of the drawn rows."""
    feats, rows = _draw(seed, *draw_args)
    est = clone_estimator(base)
    if has_param(est, "random_state"):
        est.set_params(random_state=int(seed))
    counts = np.bincount(rows, minlength=X.shape[0]).astype(np.float64)
    sw = counts if w is None else counts * w
    if shared is not None:
        data, enc = subset_shared(shared[0], shared[1], feats)
        return est._fit_encoded(data.X, enc, y, sw, data=data)
    Xs = X if feats is None else X[:, feats]
    if use_weight:
        est.fit(Xs, y, sample_weight=sw)
    else:
        take = np.sort(rows)
        est.fit(Xs[take], y[take])
    return est


class _BaseBagging(RebuiltForestState, BaseEstimator):
    """Shared fit / draw / OOB logic (not for direct use)."""

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=1.0, max_features=1.0,
                 bootstrap=True, bootstrap_features=False, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fit
    def _base(self):
        if self.estimator is None:
            return self._default_estimator()
        if not hasattr(self.estimator, "fit"):
            raise TypeError(f"estimator must have a fit method, got {self.estimator!r}")
        check_member_kind(self, self.estimator)
        return self.estimator

    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` members on random row (and column) samples of ``(X, y)``."""
        M = check_int("n_estimators", self.n_estimators)
        bootstrap = check_bool("bootstrap", self.bootstrap)
        bootstrap_features = check_bool("bootstrap_features", self.bootstrap_features)
        oob = check_bool("oob_score", self.oob_score)
        if oob and not bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        base = self._base()
        tree_base = is_treelab_tree(base)
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, base.nominal_features if tree_base else None,
                               allow_nan=base_allows_nan(base))
        n, d = Xf.shape
        n_rows = resolve_count("max_samples", self.max_samples, n)
        n_feats = resolve_count("max_features", self.max_features, d)
        yf = self._fit_targets(y, n)
        w = None if sample_weight is None else check_sample_weight(sample_weight, n)
        use_weight = accepts_sample_weight(base)
        if w is not None and not use_weight:
            raise ValueError(f"The base estimator {type(base).__name__} does not support "
                             "sample_weight")
        rng = check_random_state(self.random_state)
        seeds = rng.randint(MAX_SEED, size=M)
        draw_args = (n, d, n_rows, n_feats, bootstrap, bootstrap_features)
        shared = (prepare_shared(base, Xf, enc, seeds[0]), enc) if tree_base else None
        prefer = "threads" if tree_base else None
        self.estimators_ = parallel_with_progress(
            lambda i: delayed(_fit_member)(base, Xf, yf, w, int(seeds[i]), draw_args, use_weight,
                                           shared),
            M, self.n_jobs, prefer, bool(self.verbose), name, "member")
        share_member_arrays(self.estimators_)
        set_fitted_encoding(self, enc, d)
        self._seeds = seeds
        self._draw_args = draw_args
        self.estimators_features_ = [
            np.arange(d) if f is None else f
            for f, _ in (_draw(int(s), *draw_args) for s in seeds)]
        self._forest = self._make_forest() if tree_base else None
        if oob:
            self._set_oob(Xf, yf)
        else:
            for a in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
                if hasattr(self, a):
                    delattr(self, a)
        return self

    @property
    def estimators_samples_(self):
        """The rows drawn for each member (with repeats under ``bootstrap``)."""
        check_is_fitted(self, "estimators_")
        return [_draw(int(s), *self._draw_args)[1] for s in self._seeds]

    def _make_forest(self):
        """One multi-root tree of the members, feature ids mapped to full ``X`` columns,
        without the per-node training statistics (the members keep theirs)."""
        trees = []
        for est, feats in zip(self.estimators_, self.estimators_features_):
            a = est.tree_.arrays
            f = a.feature.copy()
            inner = a.kind != LEAF
            f[inner] = feats[f[inner]]
            trees.append(a._replace(feature=f))
        if len({t.value.shape[1] for t in trees}) != 1:
            return None
        forest, roots = concat_trees(trees)
        # prediction reads only the split description and the values (as the forests)
        return _compact(forest), roots

    def _encode(self, X):
        check_is_fitted(self, "estimators_")
        return encode_X(X, self._encoding, type(self).__name__,
                        allow_nan=base_allows_nan(self._base()))

    def _oob_masks(self):
        n = self._draw_args[0]
        for s in self._seeds:
            m = np.ones(n, bool)
            m[_draw(int(s), *self._draw_args)[1]] = False
            yield m

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = base_allows_nan(self._base())
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimators_")


_DOC = """
    The parameters are those of scikit-learn's ``Bagging*``.

    Parameters
    ----------
    estimator : estimator or None
        Base estimator; None: a treelab ``{tree}()``.  Any estimator with
        ``fit`` / ``predict`` works; ``sample_weight`` is used to give drawn rows
        their draw counts when ``fit`` accepts it, else the drawn rows are copied.
    n_estimators : int, default=10
    max_samples : int or float, default=1.0
        Rows drawn per member (a float: fraction of the rows).
    max_features : int or float, default=1.0
        Columns drawn per member.
    bootstrap : bool, default=True
        Draw rows with replacement (False: without).
    bootstrap_features : bool, default=False
        Draw columns with replacement.
    oob_score : bool, default=False
        Out-of-bag estimate (needs ``bootstrap``).
    n_jobs : int or None
        joblib workers (threads for treelab trees).
    random_state : int, RandomState or None
    verbose : int, default=0
        A tqdm progress bar over the members when > 0 (and tqdm is installed);
        they are then fitted in batches of four per worker (the same ensemble).
"""

#: the Attributes section's rows both bagging estimators share
_MEMBER_ATTRIBUTES = """

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    estimators_features_ : list of arrays
        The columns each member was fitted on.
    estimators_samples_ : list of arrays
        The rows drawn for each member (with repeats under ``bootstrap``).
"""


class BaggingClassifier(ProbaArgmaxMixin, ClassifierMixin, _BaseBagging):
    __doc__ = ("Bagging classifier: the mean class probabilities of members fitted on "
               "bootstrap samples (slides, section 6.7).\n" +
               _DOC.format(tree="DecisionTreeClassifier") + _MEMBER_ATTRIBUTES + """    classes_ : ndarray
        The class labels.
    n_classes_ : int
        The number of classes.
    oob_score_ : float
        Out-of-bag accuracy (with ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities (with ``oob_score=True``).
""")

    def _default_estimator(self):
        from ..learners.decision_tree import DecisionTreeClassifier
        return DecisionTreeClassifier()

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(fit_class_codes(self, y, n), dtype=np.int64)

    def _member_proba(self, est, Xs):
        """One member's class probabilities over all ``classes_`` (votes when it has
        no ``predict_proba``)."""
        K = self.n_classes_
        out = np.zeros((Xs.shape[0], K))
        cols = np.asarray(est.classes_, dtype=np.int64)
        if hasattr(est, "predict_proba"):
            out[:, cols] = est.predict_proba(Xs)
        else:
            out[np.arange(Xs.shape[0]), np.asarray(est.predict(Xs), np.int64)] = 1.0
        return out

    def _proba_sum(self, Xf, rows=None):
        if self._forest is not None and rows is None:
            forest, roots = self._forest
            return forest_weighted_sum(forest, roots, np.ones(roots.shape[0]), Xf, self.n_jobs)
        S = np.zeros((Xf.shape[0], self.n_classes_))
        for est, feats in zip(self.estimators_, self.estimators_features_):
            S += self._member_proba(est, Xf[:, feats])
        return S

    def predict_proba(self, X):
        """Mean of the members' class probabilities."""
        Xf = self._encode(X)
        return self._proba_sum(Xf) / len(self.estimators_)

    def _set_oob(self, Xf, yc):
        S = np.zeros((Xf.shape[0], self.n_classes_))
        for est, feats, mask in zip(self.estimators_, self.estimators_features_,
                                    self._oob_masks()):
            if mask.any():
                S[mask] += self._member_proba(est, Xf[mask][:, feats])
        tot = S.sum(axis=1, keepdims=True)
        if (tot == 0).any():
            warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                          "estimators were used to compute any reliable oob estimates.",
                          UserWarning)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.oob_decision_function_ = S / tot
        self.oob_score_ = float(np.mean(np.argmax(S, axis=1) == yc))


class BaggingRegressor(RegressorMixin, _BaseBagging):
    __doc__ = ("Bagging regressor: the mean prediction of members fitted on bootstrap "
               "samples (slides, section 6.7).\n" +
               _DOC.format(tree="DecisionTreeRegressor") + _MEMBER_ATTRIBUTES + """    oob_score_ : float
        Out-of-bag R^2 (with ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions (with ``oob_score=True``).
""")

    def _default_estimator(self):
        from ..learners.decision_tree import DecisionTreeRegressor
        return DecisionTreeRegressor()

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(check_regression_targets(y, n))

    def predict(self, X):
        """Mean of the members' predictions."""
        Xf = self._encode(X)
        M = len(self.estimators_)
        if self._forest is not None:
            forest, roots = self._forest
            return forest_weighted_sum(forest, roots, np.full(roots.shape[0], 1.0 / M), Xf,
                                       self.n_jobs)[:, 0]
        out = np.zeros(Xf.shape[0])
        for est, feats in zip(self.estimators_, self.estimators_features_):
            out += np.asarray(est.predict(Xf[:, feats]), dtype=np.float64).reshape(-1)
        return out / M

    def _set_oob(self, Xf, y):
        S = np.zeros(Xf.shape[0])
        cnt = np.zeros(Xf.shape[0])
        for est, feats, mask in zip(self.estimators_, self.estimators_features_,
                                    self._oob_masks()):
            if mask.any():
                S[mask] += np.asarray(est.predict(Xf[mask][:, feats]), np.float64).reshape(-1)
                cnt[mask] += 1
        if (cnt == 0).any():
            warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                          "estimators were used to compute any reliable oob estimates.",
                          UserWarning)
            cnt[cnt == 0] = 1
        self.oob_prediction_ = S / cnt
        ss_res = float(np.sum((y - self.oob_prediction_) ** 2))
        ss_tot = float(np.sum((y - y.mean()) ** 2))
        self.oob_score_ = 1.0 - ss_res / ss_tot if ss_tot > 0 else 0.0
