"""Impurity functions for batch and streaming trees.

Each function maps a node's statistics vector to its impurity and is compiled
with :data:`treelab.split_criteria.base.IMPURITY_SIG` so the engine's cached
kernels can call it as a first-class function.

Classification statistics are weighted class counts ``n_1..n_k`` with
``p_j = n_j / sum(n)``; regression statistics are ``[w, sum w*y, sum w*y**2]``.
An empty node (total weight 0) has impurity 0.
"""
from __future__ import annotations

import math

from numba import njit

from .base import IMPURITY_SIG, Criterion

__all__ = [
    "entropy", "gini", "kearns_mansour", "classification_error", "variance",
    "ENTROPY", "GAIN_RATIO", "GINI", "KEARNS_MANSOUR", "CLASSIFICATION_ERROR",
    "VARIANCE", "get_criterion", "CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA",
]


@njit(IMPURITY_SIG, cache=True)
def entropy(counts):
    """Shannon entropy in bits, H(D) = -sum_j p_j log2 p_j (Quinlan 1986, ID3)."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0.0:
            p = c / total
            h -= p * math.log2(p)
    return h


@njit(IMPURITY_SIG, cache=True)
def gini(counts):
    """Gini index, 1 - sum_j p_j^2 (Breiman et al. 1984, CART)."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p
    return 1.0 - s


@njit(IMPURITY_SIG, cache=True)
def kearns_mansour(counts):
    """Kearns-Mansour impurity, sum_j sqrt(p_j (1 - p_j)).

    For two classes this is 2 sqrt(p (1 - p)), the function G(q) of Kearns &
    Mansour (1996) and Dietterich, Kearns & Mansour (1996); for k classes the
    one-vs-rest terms are summed, which keeps it concave and zero exactly on
    pure nodes.
    """
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += math.sqrt(p * (1.0 - p))
    return s


@njit(IMPURITY_SIG, cache=True)
def classification_error(counts):
    """Misclassification rate of the majority vote, 1 - max_j p_j."""
    total = 0.0
    best = 0.0
    for c in counts:
        total += c
        if c > best:
            best = c
    if total <= 0.0:
        return 0.0
    return 1.0 - best / total


@njit(IMPURITY_SIG, cache=True)
def variance(stats):
    """Weighted variance of the target, sum w y^2 / w - (sum w y / w)^2 (CART regression, MSE)."""
    w = stats[0]
    if w <= 0.0:
        return 0.0
    m = stats[1] / w
    v = stats[2] / w - m * m
    return v if v > 0.0 else 0.0


class _BuiltinCriterion(Criterion):
    """Built-in criteria pickle by name so a loaded model reuses the cached kernels."""

    def __reduce__(self):
        return (get_criterion, (self.name, self.task))


ENTROPY = _BuiltinCriterion("entropy", entropy, "classification")
GAIN_RATIO = _BuiltinCriterion("gain_ratio", entropy, "classification", merit_kind="gain_ratio")
GINI = _BuiltinCriterion("gini", gini, "classification")
KEARNS_MANSOUR = _BuiltinCriterion("kearns_mansour", kearns_mansour, "classification")
CLASSIFICATION_ERROR = _BuiltinCriterion("classification_error", classification_error,
                                         "classification")
VARIANCE = _BuiltinCriterion("squared_error", variance, "regression")

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
