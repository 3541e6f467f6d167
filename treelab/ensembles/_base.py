"""Helpers shared by the meta-ensembles (bagging, AdaBoost): base-estimator
handling without a hard scikit-learn dependency, and parameter checks."""
from __future__ import annotations

import copy
import inspect
import numbers

import numpy as np

MAX_SEED = np.iinfo(np.int32).max


def clone_estimator(est):
    """``sklearn.base.clone`` when scikit-learn is importable, else a fresh
    instance built from ``get_params(deep=False)``."""
    try:
        from sklearn.base import clone
    except ImportError:  # pragma: no cover - scikit-learn is optional
        if hasattr(est, "get_params"):
            return type(est)(**copy.deepcopy(est.get_params(deep=False)))
        return copy.deepcopy(est)
    return clone(est)


def accepts_sample_weight(est):
    """Whether ``est.fit`` takes a ``sample_weight`` argument."""
    try:
        return "sample_weight" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def has_param(est, name):
    return hasattr(est, "get_params") and name in est.get_params(deep=False)


def is_treelab_tree(est):
    """A treelab batch tree without leaf models: its fitted arrays can join a
    multi-root forest (:func:`treelab._engine.tree.concat_trees`)."""
    from ..learners.decision_tree import BaseDecisionTree
    return isinstance(est, BaseDecisionTree) and getattr(est, "leaf_model", None) is None


def check_n_estimators(v):
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) or v < 1:
        raise ValueError(f"n_estimators must be an int >= 1, got {v!r}")
    return int(v)


def resolve_count(name, value, total):
    """scikit-learn's rule for ``max_samples`` / ``max_features``: an int in
    [1, total] or a float fraction in (0, 1] of ``total`` (floor, at least 1)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        if not 1 <= value <= total:
            raise ValueError(f"{name} as an int must be in [1, {total}], got {value}")
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name} as a float must be in (0, 1], got {value}")
        return max(1, int(value * total))
    raise TypeError(f"{name} must be an int or a float, got {type(value).__name__}")


def check_bool(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(v).__name__}")
    return bool(v)


def base_allows_nan(est):
    """The base estimator's ``allow_nan`` tag (False when it cannot tell)."""
    if is_treelab_tree(est):
        return True
    try:
        from sklearn.utils import get_tags
        return bool(get_tags(est).input_tags.allow_nan)
    except Exception:  # noqa: BLE001 - no scikit-learn, or a foreign object without tags
        return False
