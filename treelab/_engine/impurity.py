"""Impurity kernels shared by every tree learner (batch and streaming).

Each function maps a node's statistics vector to its impurity and is compiled
with :data:`treelab.split_criteria.base.IMPURITY_SIG` so the engine's cached
kernels can call it as a first-class function.

Classification statistics are weighted class counts ``n_1..n_k`` with
``p_j = n_j / sum(n)``; regression statistics are ``[w, sum w*y, sum w*y**2]``.
An empty node (total weight 0) has impurity 0.
"""
from __future__ import annotations

import math


from .jit import njit
from .signatures import IMPURITY_SIG

__all__ = ["entropy", "gini", "kearns_mansour", "classification_error", "variance",
           "BUILTIN_NONE", "BUILTIN_GINI", "BUILTIN_ENTROPY", "BUILTIN_VARIANCE",
           "BUILTIN_KEARNS_MANSOUR", "BUILTIN_CLASSIFICATION_ERROR"]

#: codes by which the engine calls a built-in impurity directly (inlined) instead
#: of through a first-class function pointer; 0 = call the criterion's function
BUILTIN_NONE = 0
BUILTIN_GINI = 1
BUILTIN_ENTROPY = 2
BUILTIN_VARIANCE = 3
BUILTIN_KEARNS_MANSOUR = 4
BUILTIN_CLASSIFICATION_ERROR = 5


@njit(IMPURITY_SIG, cache=True, inline="always")
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


@njit(IMPURITY_SIG, cache=True, inline="always")
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


@njit(IMPURITY_SIG, cache=True, inline="always")
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


@njit(IMPURITY_SIG, cache=True, inline="always")
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


@njit(IMPURITY_SIG, cache=True, inline="always")
def variance(stats):
    """Weighted variance of the target, sum w y^2 / w - (sum w y / w)^2 (CART regression, MSE)."""
    w = stats[0]
    if w <= 0.0:
        return 0.0
    m = stats[1] / w
    v = stats[2] / w - m * m
    return v if v > 0.0 else 0.0


