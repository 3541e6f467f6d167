"""The merit protocol: what a candidate split is worth, from statistics vectors.

One home for the contract between split criteria and every splitter (batch
builders, Hoeffding trees).  A *statistics vector* describes a node:

* ``task == TASK_CLASSIFICATION``: weighted class counts;
* ``task == TASK_DENSE``: dense sums whose first entry is the node's weight,
  e.g. ``[w, sum w y, sum w y^2]`` for regression or ``[H, G, w]`` (Hessian
  sum, gradient sum, weight) for the second-order criterion.

A criterion arrives as first-class jitted functions (``imp_fn``,
``merit_fn``, :mod:`.signatures`), a built-in code that lets the compiler
inline a known impurity, a merit code, and a parameter vector ``cp``:

* ``MERIT_IMPURITY_DECREASE``: imp(parent) - sum_c (w_c / w) imp(child_c);
* ``MERIT_GAIN_RATIO``: the same gain divided by the split information (Quinlan 1993);
* ``MERIT_CUSTOM``: ``merit_fn(parent, children)``;
* ``MERIT_NEWTON``: the second-order (XGBoost) gain of the course slides
  (Chen & Guestrin 2016), ``cp = [lambda, alpha, gamma]``:
  Gain = 1/2 [sum_c T(G_c)^2 / (H_c + lambda) - T(G)^2 / (H + lambda)] - gamma (k - 1),
  T the L1 soft-threshold T(G) = sign(G) max(|G| - alpha, 0) (alpha = 0: the
  slides' formula); k - 1 new leaves are charged gamma each.
"""
from __future__ import annotations

import math


from .impurity import (
    BUILTIN_CLASSIFICATION_ERROR, BUILTIN_ENTROPY, BUILTIN_GINI, BUILTIN_KEARNS_MANSOUR,
    BUILTIN_VARIANCE, classification_error, entropy, gini, kearns_mansour, variance,
)
from .jit import njit

__all__ = [
    "TASK_CLASSIFICATION", "TASK_DENSE", "MERIT_IMPURITY_DECREASE", "MERIT_GAIN_RATIO",
    "MERIT_CUSTOM", "MERIT_NEWTON", "TIE_RTOL", "better", "better_bar", "stats_weight", "node_impurity",
    "split_merit", "impurity_of", "soft_threshold", "newton_impurity", "newton_leaf_weight",
    "NEWTON_LAMBDA", "NEWTON_ALPHA", "NEWTON_GAMMA", "NEWTON_H", "NEWTON_G", "NEWTON_W",
]

TASK_CLASSIFICATION = 0
TASK_DENSE = 1
MERIT_IMPURITY_DECREASE = 0
MERIT_GAIN_RATIO = 1
MERIT_CUSTOM = 2
MERIT_NEWTON = 3
#: layout of the Newton criterion's parameter vector ``cp``
NEWTON_LAMBDA, NEWTON_ALPHA, NEWTON_GAMMA = 0, 1, 2
#: layout of a Newton statistics vector: Hessian sum first, so that the node
#: "weight" (``stats_weight``) is the Hessian sum and ``min_weight_leaf`` is
#: XGBoost's ``min_child_weight``
NEWTON_H, NEWTON_G, NEWTON_W = 0, 1, 2

#: relative margin by which a candidate must beat the best so far: candidates whose
#: merits agree to rounding are ties, and ties go to the first candidate (lowest
#: threshold, first feature), whichever code path (sorted rows or histogram bins)
#: computed them -- so a weight of k and k copies of a row grow the same tree
TIE_RTOL = 1e-12


@njit(cache=True, inline="always", nogil=True)
def better_bar(best):
    """The value a merit must exceed to beat ``best`` (see :data:`TIE_RTOL`): a
    sweep keeps it beside its running best and compares each candidate once."""
    return best if math.isinf(best) else best + TIE_RTOL * abs(best)


@njit(cache=True, inline="always", nogil=True)
def better(v, best):
    """``v`` beats ``best`` by more than rounding (see :data:`TIE_RTOL`)."""
    return v > better_bar(best)


@njit(cache=True, inline="always", nogil=True)
def better_at(v, best, scale):
    """:func:`better` with the rounding measured against ``scale`` too: ``v``
    beats ``best`` by more than ``TIE_RTOL * (|best| + scale)``.  For merits
    that are a small difference of large terms (the Newton gain
    ``imp(parent) - imp(left) - imp(right)``, scale ``|imp(parent)|``): two
    features that cut the node into the same two sets (in the same or mirrored
    order, their right sums taken as parent minus left) differ by rounding of
    those terms, not of the gain.  ``scale`` 0: :func:`better`."""
    return v > (best if math.isinf(best) else best + TIE_RTOL * (abs(best) + scale))


@njit(cache=True, inline="always", nogil=True)
def stats_weight(s, task):
    """Total weight held by a statistics vector."""
    if task == TASK_CLASSIFICATION:
        t = 0.0
        for v in s:
            t += v
        return t
    return s[0]


@njit(cache=True, inline="always", nogil=True)
def node_impurity(stats, builtin, imp_fn):
    """Impurity of one statistics vector: a built-in kernel called directly
    (``builtin`` != 0, so the compiler can inline it) or the criterion's function."""
    if builtin == BUILTIN_GINI:
        return gini(stats)
    if builtin == BUILTIN_ENTROPY:
        return entropy(stats)
    if builtin == BUILTIN_VARIANCE:
        return variance(stats)
    if builtin == BUILTIN_KEARNS_MANSOUR:
        return kearns_mansour(stats)
    if builtin == BUILTIN_CLASSIFICATION_ERROR:
        return classification_error(stats)
    return imp_fn(stats)


@njit(cache=True, inline="always", nogil=True)
def soft_threshold(g, alpha):
    """T(G) = sign(G) max(|G| - alpha, 0): the L1-regularised gradient sum."""
    if g > alpha:
        return g - alpha
    if g < -alpha:
        return g + alpha
    return 0.0


@njit(cache=True, inline="always", nogil=True)
def newton_impurity(stats, cp):
    """A leaf's share of the structure score (slides, "The Structure Score"):
    -1/2 T(G)^2 / (H + lambda), the objective reached by its optimal weight."""
    den = stats[NEWTON_H] + cp[NEWTON_LAMBDA]
    if den <= 0.0:
        return 0.0
    g = soft_threshold(stats[NEWTON_G], cp[NEWTON_ALPHA])
    return -0.5 * g * g / den


@njit(cache=True, inline="always", nogil=True)
def newton_leaf_weight(stats, cp):
    """Optimal leaf weight w* = -T(G) / (H + lambda) (slides, "The Structure Score")."""
    den = stats[NEWTON_H] + cp[NEWTON_LAMBDA]
    if den <= 0.0:
        return 0.0
    return -soft_threshold(stats[NEWTON_G], cp[NEWTON_ALPHA]) / den


@njit(cache=True, inline="always", nogil=True)
def impurity_of(stats, merit_code, builtin, imp_fn, cp):
    """Node impurity under the merit protocol (the structure score for Newton)."""
    if merit_code == MERIT_NEWTON:
        return newton_impurity(stats, cp)
    return node_impurity(stats, builtin, imp_fn)


@njit(cache=True, nogil=True)
def split_merit(parent, parent_imp, children, task, merit_code, builtin, imp_fn, merit_fn, cp):
    """(score, gain_ratio, gain) of splitting ``parent`` into the rows of ``children``.

    * impurity decrease: imp(parent) - sum_c (w_c / w) imp(child_c)
      (information gain, Gini gain, variance reduction);
    * gain ratio: gain / split-info with split-info = -sum_c (w_c/w) log2(w_c/w)
      (Quinlan 1993); the score is the gain, the ratio is returned beside it;
    * custom: ``merit_fn(parent, children)``;
    * Newton: the second-order gain (module docstring), unnormalised.
    """
    if merit_code == MERIT_CUSTOM:
        m = merit_fn(parent, children)
        return m, m, m
    if merit_code == MERIT_NEWTON:
        g = 0.0
        for c in range(children.shape[0]):
            g -= newton_impurity(children[c], cp)
        g += newton_impurity(parent, cp)
        g -= cp[NEWTON_GAMMA] * (children.shape[0] - 1)
        return g, g, g
    w = stats_weight(parent, task)
    if w <= 0.0:
        return 0.0, 0.0, 0.0
    s = 0.0
    si = 0.0
    for c in range(children.shape[0]):
        wc = stats_weight(children[c], task)
        if wc > 0.0:
            p = wc / w
            s += p * node_impurity(children[c], builtin, imp_fn)
            if merit_code == MERIT_GAIN_RATIO:
                si -= p * math.log2(p)     # (only the gain ratio reads it)
    gain = parent_imp - s
    if merit_code == MERIT_GAIN_RATIO:
        ratio = gain / si if si > 0.0 else 0.0
        return gain, ratio, gain
    return gain, gain, gain


