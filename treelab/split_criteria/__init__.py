"""Interchangeable split criteria: merits (how good a split is) and, for streams, decision rules."""
from .base import Criterion, IMPURITY_SIG, MERIT_SIG, compile_impurity, compile_merit
from .gradient import NewtonCriterion, newton_stats
from .impurity import (
    CLASSIFICATION_ERROR, ENTROPY, GAIN_RATIO, GINI, KEARNS_MANSOUR, VARIANCE,
    classification_error, entropy, get_criterion, gini, kearns_mansour, variance,
)

__all__ = [
    "Criterion", "IMPURITY_SIG", "MERIT_SIG", "compile_impurity", "compile_merit",
    "entropy", "gini", "kearns_mansour", "classification_error", "variance",
    "ENTROPY", "GAIN_RATIO", "GINI", "KEARNS_MANSOUR", "CLASSIFICATION_ERROR", "VARIANCE",
    "get_criterion", "NewtonCriterion", "newton_stats",
]
