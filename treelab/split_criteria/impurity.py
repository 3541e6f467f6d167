"""Built-in impurity criteria as interchangeable :class:`Criterion` objects.

The kernels themselves live in :mod:`treelab._engine.impurity`; each criterion
below pairs one with a merit rule (impurity decrease or gain ratio).
Classification statistics are weighted class counts; regression statistics
are ``[w, sum w*y, sum w*y**2]``.
"""
from __future__ import annotations

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


class _BuiltinCriterion(Criterion):
    """Built-in criteria pickle by name so a loaded model reuses the cached kernels,
    and carry the code by which the engine inlines their impurity."""

    def __init__(self, name, impurity, task, merit_kind="impurity_decrease", builtin=0):
        super().__init__(name, impurity, task, merit_kind)
        self.builtin_code = builtin

    def __reduce__(self):
        return (get_criterion, (self.name, self.task))


ENTROPY = _BuiltinCriterion("entropy", entropy, "classification", builtin=BUILTIN_ENTROPY)
GAIN_RATIO = _BuiltinCriterion("gain_ratio", entropy, "classification", merit_kind="gain_ratio",
                               builtin=BUILTIN_ENTROPY)
GINI = _BuiltinCriterion("gini", gini, "classification", builtin=BUILTIN_GINI)
KEARNS_MANSOUR = _BuiltinCriterion("kearns_mansour", kearns_mansour, "classification",
                                   builtin=BUILTIN_KEARNS_MANSOUR)
CLASSIFICATION_ERROR = _BuiltinCriterion("classification_error", classification_error,
                                         "classification", builtin=BUILTIN_CLASSIFICATION_ERROR)
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
