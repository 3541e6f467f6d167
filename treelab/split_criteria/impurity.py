"""Built-in impurity criteria as interchangeable :class:`Criterion` objects.

The kernels themselves live in :mod:`treelab._engine.impurity`; each criterion
below pairs one with a merit rule (impurity decrease or gain ratio).
Classification statistics are weighted class counts; regression statistics
are ``[w, sum w*y, sum w*y**2]``.
"""
from __future__ import annotations

import math

from .._engine.impurity import (
    BUILTIN_CLASSIFICATION_ERROR, BUILTIN_ENTROPY, BUILTIN_GINI, BUILTIN_KEARNS_MANSOUR,
    BUILTIN_VARIANCE, classification_error, entropy, gini, kearns_mansour, variance,
)
from .base import Criterion

__all__ = [
    "entropy", "gini", "kearns_mansour", "classification_error", "variance",
    "ENTROPY", "GAIN_RATIO", "GINI", "KEARNS_MANSOUR", "CLASSIFICATION_ERROR",
    "VARIANCE", "get_criterion", "CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA",
]


def _k(n_classes):
    return max(float(n_classes), 2.0)


def _range_entropy(n_classes):
    """log2 k bits: information gain never exceeds H(Y) <= log2 k (VFDT; MOA's
    InfoGainSplitCriterion.getRangeOfMerit, river's ``range_of_merit``)."""
    return math.log2(_k(n_classes))


def _range_gini(n_classes):
    """1: the convention of MOA's GiniSplitCriterion and river (the exact maximum,
    1 - 1/k, is smaller, so this is conservative)."""
    return 1.0


def _range_km(n_classes):
    """sqrt(k - 1): the largest value of sum_j sqrt(p_j (1 - p_j)) (at the uniform
    distribution), hence the largest gain; 1 for two classes."""
    return math.sqrt(_k(n_classes) - 1.0)


def _range_error(n_classes):
    """1 - 1/k: the largest misclassification rate of the majority vote, hence the
    largest error reduction (0.5 for two classes)."""
    return 1.0 - 1.0 / _k(n_classes)


def _range_ratio(n_classes):
    """1: information gain never exceeds the split information."""
    return 1.0


class _BuiltinCriterion(Criterion):
    """Built-in criteria pickle by name so a loaded model reuses the cached kernels,
    carry the code by which the engine inlines their impurity, the range of their
    merit and the textbook index they are (``family``)."""

    def __init__(self, name, impurity, task, merit_kind="impurity_decrease", builtin=0,
                 merit_range=None, family=None):
        super().__init__(name, impurity, task, merit_kind, merit_range=merit_range)
        self.builtin_code = builtin
        self.family = family

    def __reduce__(self):
        return (get_criterion, (self.name, self.task))


ENTROPY = _BuiltinCriterion("entropy", entropy, "classification", builtin=BUILTIN_ENTROPY,
                            merit_range=_range_entropy, family="entropy")
GAIN_RATIO = _BuiltinCriterion("gain_ratio", entropy, "classification", merit_kind="gain_ratio",
                               builtin=BUILTIN_ENTROPY, merit_range=_range_ratio,
                               family="entropy")
GINI = _BuiltinCriterion("gini", gini, "classification", builtin=BUILTIN_GINI,
                         merit_range=_range_gini, family="gini")
KEARNS_MANSOUR = _BuiltinCriterion("kearns_mansour", kearns_mansour, "classification",
                                   builtin=BUILTIN_KEARNS_MANSOUR, merit_range=_range_km,
                                   family="kearns_mansour")
CLASSIFICATION_ERROR = _BuiltinCriterion("classification_error", classification_error,
                                         "classification", builtin=BUILTIN_CLASSIFICATION_ERROR,
                                         merit_range=_range_error,
                                         family="classification_error")
VARIANCE = _BuiltinCriterion("squared_error", variance, "regression", builtin=BUILTIN_VARIANCE)

CLASSIFICATION_CRITERIA = {
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "information_gain": ENTROPY,
    "gain_ratio": GAIN_RATIO,
    "gini": GINI,
    "kearns_mansour": KEARNS_MANSOUR,
    "classification_error": CLASSIFICATION_ERROR,
}
REGRESSION_CRITERIA = {
    "squared_error": VARIANCE,
    "variance": VARIANCE,
    "mse": VARIANCE,
}


def get_criterion(criterion, task):
    """Resolve a criterion given by name or object for ``task``; raise a clear error otherwise."""
    table = CLASSIFICATION_CRITERIA if task == "classification" else REGRESSION_CRITERIA
    if isinstance(criterion, Criterion):
        if criterion.task != task:
            raise ValueError(
                f"criterion {criterion.name!r} is for {criterion.task}, not {task}")
        return criterion
    if isinstance(criterion, str):
        try:
            return table[criterion]
        except KeyError:
            raise ValueError(
                f"unknown {task} criterion {criterion!r}; choose one of {sorted(table)} "
                "or pass a treelab.split_criteria.Criterion") from None
    raise TypeError(
        f"criterion must be a string or a treelab.split_criteria.Criterion, got {type(criterion).__name__}")
