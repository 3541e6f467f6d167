"""AdaBoost: SAMME for classification, AdaBoost.R2 for regression.

Course slides, section 6.7 "Adaboost": all tuple weights start at 1/d; at
round i a model M_i is derived from the weighted data (``boosting="reweight"``:
the weights are handed to the base estimator's ``sample_weight``;
``boosting="resample"``: as the slides describe, d tuples are drawn with
replacement, each with probability equal to its weight, and M_i is fitted on
that sample); its error is the sum of the weights of the misclassified tuples

    error(M_i) = sum_j w_j err(X_j),

its vote weighs log((1 - error(M_i)) / error(M_i)), the weights of the
misclassified tuples are increased (multiplied by exp(vote weight)) and all are
renormalised.  For K > 2 classes this is SAMME (Zhu, Zou, Rosset & Hastie
2009): the vote weight gains log(K - 1) and a round stops the boosting when
error >= 1 - 1/K (worse than chance); with K = 2 it is exactly the slides'
formula.  The ensemble predicts the class with the largest sum of vote weights.
``learning_rate`` multiplies every vote weight; a perfect member (error 0)
ends the boosting with weight 1.  Same conventions as scikit-learn's
``AdaBoostClassifier`` (``estimator_weights_``, ``estimator_errors_``,
``decision_function``, ``predict_proba`` = softmax of decision / (K - 1)).

:class:`AdaBoostRegressor` is Drucker's AdaBoost.R2 (ICML 1997): each round
fits on a weighted bootstrap sample, the per-row loss L_i is the absolute error
scaled by its maximum (``"linear"``), its square (``"square"``) or
1 - exp(-L_i) (``"exponential"``); mean loss Lbar = sum_i w_i L_i (stop when
>= 0.5), beta = Lbar / (1 - Lbar), weights w_i *= beta^(1 - L_i), vote weight
log(1/beta); prediction is the weighted median of the members' predictions.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._engine.tree import concat_trees, forest_predict
from .._params import check_int, check_real
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from ..data import (
    fit_class_codes, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ._base import (
    MAX_SEED, RebuiltForestState, accepts_sample_weight, base_allows_nan, check_member_kind,
    clone_estimator, is_treelab_tree, prepare_shared, share_member_arrays, subset_shared,
)

__all__ = ["AdaBoostClassifier", "AdaBoostRegressor"]


def _seed_estimator(est, rng):
    """scikit-learn's ``_set_random_states``: every ``random_state`` parameter
    (nested ones included, in sorted order) gets ``rng.randint(2**31 - 1)``."""
    if not hasattr(est, "get_params"):
        return est
    to_set = {}
    for key in sorted(est.get_params(deep=True)):
        if key == "random_state" or key.endswith("__random_state"):
            to_set[key] = int(rng.randint(MAX_SEED))
    if to_set:
        est.set_params(**to_set)
    return est


class _BaseAdaBoost(RebuiltForestState, BaseEstimator):
    """Shared weight loop and prediction plumbing (not for direct use)."""

    #: the training data shared by the members while fitting
    _not_pickled = ("_shared",)

    def _check_common(self):
        M = check_int("n_estimators", self.n_estimators)
        lr = check_real("learning_rate", self.learning_rate, 0, lo_open=True)
        base = self._default_estimator() if self.estimator is None else self.estimator
        if not hasattr(base, "fit") or not hasattr(base, "predict"):
            raise TypeError(f"estimator must have fit and predict methods, got {base!r}")
        check_member_kind(self, base)
        return M, float(lr), base

    def fit(self, X, y, sample_weight=None):
        """Boost ``n_estimators`` rounds (fewer if a member is perfect or too weak)."""
        try:
            return self._fit(X, y, sample_weight)
        finally:
            self._shared = None

    def _prepared_layout(self):
        """``(use_hist, max_bins)`` of the data a treelab-tree base learner grows on
        (what :meth:`_fit_prepared` takes); None for other base learners."""
        base = self._default_estimator() if self.estimator is None else self.estimator
        if not is_treelab_tree(base) or base.nominal_features is not None:
            return None
        return base.splitter == "hist", int(base.max_bins)

    def _fit_prepared(self, X, y, sample_weight, data):
        """:meth:`fit` on numeric ``X`` that the caller has already prepared as
        ``data`` (``bin_data(X, ...)`` with :meth:`_prepared_layout`; ToPs fits the
        sides of many cuts of one node without presorting / binning each again)."""
        try:
            return self._fit(X, y, sample_weight, data)
        finally:
            self._shared = None

    def _fit(self, X, y, sample_weight, data=None):
        M, lr, base = self._check_common()
        resample = self._resampling()
        if not resample and not accepts_sample_weight(base):
            raise ValueError(f"{type(base).__name__} does not take sample_weight: use "
                             "boosting='resample'")
        name = type(self).__name__
        tree_base = is_treelab_tree(base)
        Xf, enc = fit_encode_X(X, name, base.nominal_features if tree_base else None,
                               allow_nan=base_allows_nan(base))
        n, d = Xf.shape
        yf = self._fit_targets(y, n)
        w = check_sample_weight(sample_weight, n)
        if not w.sum() > 0:
            raise ValueError("Sum of sample weights is zero: nothing to learn from")
        w = w / w.sum()
        set_fitted_encoding(self, enc, d)
        rng = check_random_state(self.random_state)
        if tree_base and (data is None or data.X.shape[0] != n):
            data = prepare_shared(base, Xf, enc, 0)
        self._shared = subset_shared(data, enc, None) if tree_base else None
        self.estimators_ = []
        self.estimator_weights_ = np.zeros(M)
        self.estimator_errors_ = np.ones(M)
        eps = np.finfo(np.float64).eps
        zero = w == 0.0
        for it in range(M):
            w = np.clip(w, eps, None)       # avoid vanishing weights (as scikit-learn)
            w[zero] = 0.0
            w, alpha, err = self._boost(it, M, base, Xf, yf, w, lr, rng, resample)
            if w is None:
                break
            self.estimator_weights_[it] = alpha
            self.estimator_errors_[it] = err
            if err == 0:
                break
            total = float(np.sum(w))
            if not np.isfinite(total):
                warnings.warn(f"Sample weights have reached infinite values at iteration {it}, "
                              "causing overflow. Iterations stopped. Try lowering the "
                              "learning rate.", UserWarning)
                break
            if total <= 0:
                break
            if it < M - 1:
                w = w / total
        share_member_arrays(self.estimators_)
        self._forest = self._make_forest()
        return self

    def _fit_member(self, base, X, y, w, rng, resample):
        """Fit one member: on the weights, or on a weighted resample of size n
        (the slides' "sampled with replacement, chance based on weight").  A
        treelab tree grows on the data presorted / binned once for all rounds
        (a resample enters as draw counts, a weight of k being k copies)."""
        est = _seed_estimator(clone_estimator(base), rng)
        if resample:
            s = w.sum()
            p = w if abs(s - 1.0) < 1e-8 else w / s   # as given: same draws as scikit-learn
            rows = rng.choice(X.shape[0], X.shape[0], replace=True, p=p)
            if self._shared is not None:
                counts = np.bincount(rows, minlength=X.shape[0]).astype(np.float64)
                return est._fit_encoded(X, self._shared[1], y, counts, data=self._shared[0])
            est.fit(X[rows], y[rows])
        elif self._shared is not None:
            est._fit_encoded(X, self._shared[1], y, w, data=self._shared[0])
        else:
            est.fit(X, y, sample_weight=w)
        return est

    # --------------------------------------------------------- prediction
    def _make_forest(self):
        """Multi-root tree of treelab members whose leaf value is the member's
        prediction (class index or value): one call gives every member's output."""
        if not self.estimators_ or not all(is_treelab_tree(e) for e in self.estimators_):
            return None
        trees = []
        for est in self.estimators_:
            a = est.tree_.arrays
            trees.append(a._replace(value=np.ascontiguousarray(
                self._leaf_output(est, a.value[:int(a.sizes[0])]).reshape(-1, 1))))
        return concat_trees(trees)

    def _encode(self, X):
        """``X`` encoded as at fit time: what every member is fitted on and predicts."""
        check_is_fitted(self, "estimators_")
        return encode_X(X, self._encoding, type(self).__name__,
                        allow_nan=base_allows_nan(self.estimators_[0]))

    def _member_outputs(self, X):
        """(n_samples, n_members) matrix of member predictions (encoded classes for
        the classifier)."""
        Xf = self._encode(X)
        m = len(self.estimators_)
        if self._forest is not None:
            forest, roots = self._forest
            return forest_predict(forest, roots, np.arange(m), Xf, m)
        return np.stack([np.asarray(e.predict(Xf), np.float64).reshape(-1)
                         for e in self.estimators_], axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = self._default_estimator() if self.estimator is None else self.estimator
        tags.input_tags.allow_nan = base_allows_nan(base)
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimators_")


class AdaBoostClassifier(ClassifierMixin, _BaseAdaBoost):
    """AdaBoost (SAMME) classifier (slides, section 6.7; Zhu et al. 2009).

    Parameters
    ----------
    estimator : classifier or None
        Base learner; None: a treelab ``DecisionTreeClassifier(max_depth=1)`` (a stump).
        With ``boosting="reweight"`` it must take ``sample_weight``.
    n_estimators : int, default=50
    learning_rate : float, default=1.0
        Multiplies every vote weight.
    boosting : {"reweight", "resample"}, default="reweight"
        Hand the weights to the base learner, or fit it on n tuples drawn with
        replacement with probabilities equal to the weights (the slides' variant;
        the error is still error(M_i) = sum_j w_j err(X_j) on the training set).
    random_state : int, RandomState or None
        Seeds the members (as scikit-learn) and the resampling.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    classes_ : ndarray
        The class labels.
    n_classes_ : int
        The number of classes.
    estimator_errors_ : ndarray
        error(M_i) of each round (1 for rounds not run).
    estimator_weights_ : ndarray
        ``learning_rate * (log((1 - error)/error) + log(K - 1))`` of each round
        (0 for rounds not run).
    """

    def __init__(self, estimator=None, *, n_estimators=50, learning_rate=1.0,
                 boosting="reweight", random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.boosting = boosting
        self.random_state = random_state

    def _default_estimator(self):
        from ..learners.decision_tree import DecisionTreeClassifier
        return DecisionTreeClassifier(max_depth=1)

    def _resampling(self):
        if self.boosting not in ("reweight", "resample"):
            raise ValueError(f"boosting must be 'reweight' or 'resample', got {self.boosting!r}")
        return self.boosting == "resample"

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(fit_class_codes(self, y, n), dtype=np.int64)

    def _boost(self, it, M, base, X, y, w, lr, rng, resample):
        """One SAMME round; returns (new weights, vote weight, error) or Nones
        when the member is no better than chance (it is dropped)."""
        est = self._fit_member(base, X, y, w, rng, resample)
        self.estimators_.append(est)
        incorrect = np.asarray(est.predict(X)) != y
        err = float(np.average(incorrect, weights=w))        # error(M_i) = sum_j w_j err(X_j)
        if err <= 0:
            return w, 1.0, 0.0
        K = self.n_classes_
        if err >= 1.0 - 1.0 / K:
            self.estimators_.pop()
            if not self.estimators_:
                raise ValueError("BaseClassifier in AdaBoostClassifier ensemble is worse than "
                                 "random, ensemble can not be fit.")
            return None, None, None
        alpha = lr * (np.log((1.0 - err) / err) + np.log(K - 1.0))
        if it != M - 1:
            w = np.exp(np.log(w) + alpha * incorrect * (w > 0))
        return w, float(alpha), err

    @staticmethod
    def _leaf_output(est, value):
        return np.asarray(est.classes_, np.float64)[np.argmax(value, axis=1)]

    def _votes(self, P, upto):
        """Summed vote weights per class from member predictions ``P[:, :upto]``."""
        w = self.estimator_weights_[:upto]
        V = np.empty((P.shape[0], self.n_classes_))
        for k in range(self.n_classes_):
            V[:, k] = (P[:, :upto] == k) @ w
        return V

    def _decision(self, V, norm):
        """SAMME's symmetric class codes (Zhu et al. 2009): a member adds its vote
        weight to the class it predicts and -weight/(K - 1) to every other one;
        divided by the total vote weight.  Two classes: column 1 minus column 0."""
        K = self.n_classes_
        W = V.sum(axis=1, keepdims=True)
        F = (V - (W - V) / (K - 1.0)) / norm
        if K == 2:
            return F[:, 1] - F[:, 0]
        return F

    def decision_function(self, X):
        """Per class: the vote weights for it minus 1/(K - 1) of those against it,
        over the total vote weight (two classes: one column, > 0 for class 1)."""
        P = self._member_outputs(X)
        m = P.shape[1]
        return self._decision(self._votes(P, m), self.estimator_weights_[:m].sum())

    def staged_decision_function(self, X):
        P = self._member_outputs(X)
        for m in range(1, P.shape[1] + 1):
            yield self._decision(self._votes(P, m), self.estimator_weights_[:m].sum())

    def _label(self, dec):
        if self.n_classes_ == 2:
            return self.classes_[(dec > 0).astype(np.int64)]
        return self.classes_[np.argmax(dec, axis=1)]

    def _proba(self, dec):
        K = self.n_classes_
        if K == 2:
            dec = np.vstack([-dec, dec]).T / 2
        else:
            dec = dec / (K - 1)
        dec = dec - dec.max(axis=1, keepdims=True)
        e = np.exp(dec)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class with the largest sum of vote weights."""
        return self._label(self.decision_function(X))

    def staged_predict(self, X):
        """Predictions after each round."""
        for dec in self.staged_decision_function(X):
            yield self._label(dec)

    def predict_proba(self, X):
        """softmax(decision / (K - 1)) as scikit-learn's SAMME."""
        return self._proba(self.decision_function(X))

    def staged_predict_proba(self, X):
        for dec in self.staged_decision_function(X):
            yield self._proba(dec)

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class AdaBoostRegressor(RegressorMixin, _BaseAdaBoost):
    """AdaBoost.R2 regressor (Drucker 1997).

    Parameters
    ----------
    estimator : regressor or None
        Base learner; None: a treelab ``DecisionTreeRegressor(max_depth=3)``.
        It is fitted on weighted bootstrap samples, so it needs no ``sample_weight``.
    n_estimators : int, default=50
    learning_rate : float, default=1.0
        Weights: ``w_i *= beta^((1 - L_i) lr)``; vote weight ``lr * log(1/beta)``.
    loss : {"linear", "square", "exponential"}, default="linear"
    random_state : int, RandomState or None
        With a scikit-learn base estimator, the same seed draws the same samples as
        scikit-learn's ``AdaBoostRegressor``.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    estimator_errors_ : ndarray
        Mean loss Lbar of each round.
    estimator_weights_ : ndarray
        Vote weight of each round, ``lr * log(1/beta)``.
    """

    def __init__(self, estimator=None, *, n_estimators=50, learning_rate=1.0, loss="linear",
                 random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.loss = loss
        self.random_state = random_state

    def _default_estimator(self):
        from ..learners.decision_tree import DecisionTreeRegressor
        return DecisionTreeRegressor(max_depth=3)

    def _resampling(self):
        if self.loss not in ("linear", "square", "exponential"):
            raise ValueError(f"loss must be 'linear', 'square' or 'exponential', got {self.loss!r}")
        return True

    def _fit_targets(self, y, n):
        return np.ascontiguousarray(check_regression_targets(y, n))

    def _boost(self, it, M, base, X, y, w, lr, rng, resample):
        """One AdaBoost.R2 round (Drucker 1997, steps 1-7)."""
        est = self._fit_member(base, X, y, w, rng, True)
        self.estimators_.append(est)
        err_vec = np.abs(np.asarray(est.predict(X), np.float64).reshape(-1) - y)
        mask = w > 0
        L = err_vec[mask]
        L_max = L.max()
        if L_max != 0:
            L = L / L_max
        if self.loss == "square":
            L = L ** 2
        elif self.loss == "exponential":
            L = 1.0 - np.exp(-L)
        err = float((w[mask] * L).sum())                     # Lbar = sum_i w_i L_i
        if err <= 0:
            return w, 1.0, 0.0
        if err >= 0.5:
            if len(self.estimators_) > 1:
                self.estimators_.pop()
            return None, None, None
        beta = err / (1.0 - err)
        alpha = lr * np.log(1.0 / beta)
        if it != M - 1:
            w = w.copy()
            w[mask] *= np.power(beta, (1.0 - L) * lr)
        return w, float(alpha), err

    @staticmethod
    def _leaf_output(est, value):
        return value[:, 0]

    def _median(self, P, upto):
        """Weighted median of the first ``upto`` members' predictions (Drucker's
        "weighted median": the smallest prediction whose cumulative vote weight
        reaches half of the total)."""
        P = P[:, :upto]
        order = np.argsort(P, axis=1)
        cdf = np.cumsum(self.estimator_weights_[:upto][order], axis=1)
        idx = (cdf >= 0.5 * cdf[:, -1:]).argmax(axis=1)
        rows = np.arange(P.shape[0])
        return P[rows, order[rows, idx]]

    def predict(self, X):
        """Weighted median of the members' predictions."""
        P = self._member_outputs(X)
        return self._median(P, P.shape[1])

    def staged_predict(self, X):
        """Predictions after each round."""
        P = self._member_outputs(X)
        for m in range(1, P.shape[1] + 1):
            yield self._median(P, m)
