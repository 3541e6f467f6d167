"""scikit-learn conventions without a hard dependency on scikit-learn.

When scikit-learn is installed the estimators inherit its ``BaseEstimator``
and mixins (so they work with pipelines, ``clone``, grid search and
``check_estimator``); otherwise minimal stand-ins give the same
``get_params`` / ``set_params`` / ``score`` behaviour.
"""
from __future__ import annotations

import inspect

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    HAVE_SKLEARN = False

    class BaseEstimator:
        """Minimal scikit-learn-style parameter handling."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(f"Invalid parameter {k!r} for estimator {type(self).__name__}")
                setattr(self, k, v)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None):
            y = np.asarray(y)
            pred = self.predict(X)
            return float(np.average(pred == y, weights=sample_weight))

    class RegressorMixin:
        _estimator_type = "regressor"

        def score(self, X, y, sample_weight=None):
            y = np.asarray(y, dtype=float)
            pred = self.predict(X)
            w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
            ybar = np.average(y, weights=w)
            ss_res = np.sum(w * (y - pred) ** 2)
            ss_tot = np.sum(w * (y - ybar) ** 2)
            return float(1.0 - ss_res / ss_tot) if ss_tot > 0 else 0.0


class NotFittedError(ValueError, AttributeError):
    """Raised when an estimator is used before ``fit``."""


if HAVE_SKLEARN:
    from sklearn.exceptions import NotFittedError  # noqa: F811


def check_is_fitted(est, attribute="tree_"):
    if not hasattr(est, attribute):
        raise NotFittedError(
            f"This {type(est).__name__} instance is not fitted yet. Call 'fit' with appropriate "
            "arguments before using this estimator.")


__all__ = ["BaseEstimator", "ClassifierMixin", "RegressorMixin", "NotFittedError",
           "check_is_fitted", "HAVE_SKLEARN"]
