"""scikit-learn conventions without importing scikit-learn.

treelab's estimators follow scikit-learn's API (``get_params`` /
``set_params``, ``score``, ``__sklearn_tags__``) and pass its
``check_estimator``, but scikit-learn is only an optional dependency and
importing it costs about a second of start-up.  The base classes below
implement the conventions themselves; scikit-learn objects (tags, ``Bunch``)
are imported lazily, only when scikit-learn itself asks for them.
"""
from __future__ import annotations

import copy
import inspect

import numpy as np

from ._params import RENAMED_PARAMETERS, check_renamed

#: new parameter name -> its former names
_RENAMED_TO = {}
for _old, _new in RENAMED_PARAMETERS.items():
    _RENAMED_TO.setdefault(_new, []).append(_old)

__all__ = ["BaseEstimator", "ClassifierMixin", "ProbaArgmaxMixin", "RegressorMixin",
           "NotFittedError", "check_is_fitted"]


class BaseEstimator:
    """Parameter handling as in ``sklearn.base.BaseEstimator``.

    A former name of a parameter (:data:`treelab._params.RENAMED_PARAMETERS`)
    given to the constructor or to ``set_params`` raises ``TypeError`` naming
    the new one; the constructors' signatures hold the new names only.  A model
    pickled under the former names still loads: its value is read as the new
    name's."""

    def __new__(cls, *args, **kwargs):
        if kwargs:
            check_renamed(cls, kwargs)
        return super().__new__(cls)

    def __getattr__(self, name):
        # only for attributes not found: an estimator pickled before a parameter
        # was renamed holds its value under the former name
        if name in _RENAMED_TO and name in type(self)._get_param_names():
            state = self.__dict__
            for old in _RENAMED_TO[name]:
                if old in state:
                    return state[old]
        prop = getattr(type(self), name, None)
        if isinstance(prop, property):
            # a property that raised AttributeError (NotFittedError is one): its error
            return prop.__get__(self, type(self))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def _get_param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        sig = inspect.signature(init)
        for p in sig.parameters.values():
            if p.kind == p.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__} should not take *args in __init__")
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        """Parameters of this estimator (and of nested estimators if ``deep``)."""
        out = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for k, v in value.get_params().items():
                    out[f"{key}__{k}"] = v
            out[key] = value
        return out

    def set_params(self, **params):
        """Set parameters (``name`` or ``component__name``); returns ``self``."""
        if not params:
            return self
        check_renamed(type(self), [key.partition("__")[0] for key in params])
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            head, sep, sub = key.partition("__")
            if head not in valid:
                raise ValueError(
                    f"Invalid parameter {head!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(self._get_param_names())!r}.")
            if sep:
                nested.setdefault(head, {})[sub] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for head, sub in nested.items():
            valid[head].set_params(**sub)
        return self

    def __repr__(self):
        defaults = {p.name: p.default
                    for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = []
        for k, v in self.get_params(deep=False).items():
            d = defaults.get(k, inspect.Parameter.empty)
            same = False
            try:
                same = d is v or (type(d) is type(v) and bool(d == v))
            except Exception:  # noqa: BLE001 - array-like defaults
                same = False
            if not same:
                changed.append(f"{k}={v!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_clone__(self):
        params = {k: copy.deepcopy(v) for k, v in self.get_params(deep=False).items()}
        return type(self)(**params)

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags
        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    transformer_tags=None, regressor_tags=None, classifier_tags=None)


class ClassifierMixin:
    """``score`` = accuracy; tags of a classifier."""

    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``)."""
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        pred = self.predict(X)
        return float(np.average(pred == y, weights=sample_weight))


class ProbaArgmaxMixin:
    """``predict`` = the class of highest ``predict_proba``; ``predict_log_proba``."""

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` for probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class with the highest probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class RegressorMixin:
    """``score`` = coefficient of determination R^2; tags of a regressor."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None):
        """R^2 of ``predict(X)`` against ``y`` (weighted by ``sample_weight``)."""
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        pred = self.predict(X)
        w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, np.float64)
        ybar = np.average(y, weights=w)
        ss_res = float(np.sum(w * (y - pred) ** 2))
        ss_tot = float(np.sum(w * (y - ybar) ** 2))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot


try:  # reuse scikit-learn's exception class when it is importable, without importing sklearn
    import importlib.util as _ilu
    _HAVE = _ilu.find_spec("sklearn") is not None
except Exception:  # noqa: BLE001
    _HAVE = False


class NotFittedError(ValueError, AttributeError):
    """Raised when an estimator is used before ``fit``.

    When scikit-learn is installed this class is also registered as a subclass
    of ``sklearn.exceptions.NotFittedError`` lazily (see :func:`check_is_fitted`).
    """


def _not_fitted_error_class():
    if _HAVE:
        try:
            from sklearn.exceptions import NotFittedError as SkNotFitted
            return SkNotFitted
        except ImportError:  # pragma: no cover
            pass
    return NotFittedError


def check_is_fitted(est, attribute="tree_"):
    """Raise ``NotFittedError`` (scikit-learn's class when available) if ``est`` is not fitted."""
    if not hasattr(est, attribute):
        cls = _not_fitted_error_class()
        raise cls(f"This {type(est).__name__} instance is not fitted yet. Call 'fit' with "
                  "appropriate arguments before using this estimator.")
