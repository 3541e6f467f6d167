"""Jitted loss kernels shared by Stochastic Gradient Trees and gradient boosting.

Gradient / Hessian kernels have the engine's :data:`~.signatures.GRAD_HESS_SIG`
so cached kernels take them as first-class functions; the loss *objects*
(Python side: links, initial scores, validation) live in :mod:`treelab.losses`.
Formulas: squared error, logistic and softmax as in Gouk, Pfahringer & Frank
(ACML 2019) and Friedman (2001); multi-instance max-logistic as in Gouk et al.
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange, types

from .jit import njit
from .signatures import GRAD_HESS_SIG, GRAD_HESS_TYPE, SCALAR_TYPE

__all__ = [
    "sigmoid", "squared_error_grad_hess", "logistic_grad_hess", "softmax_grad_hess",
    "multinomial_grad_hess", "absolute_error_grad_hess", "huber_grad_hess",
    "quantile_grad_hess", "bag_max", "mi_grad_hess", "newton_round_stats",
]


# --------------------------------------------------------------------------- kernels

@njit(cache=True)
def sigmoid(z):
    """Logistic function 1 / (1 + exp(-z)) without overflow: with e = exp(-|z|),
    1 / (1 + e) for z >= 0 and e / (1 + e) below.  One exponential and a select
    instead of a branch on the sign (the branch mispredicted on every other
    row of a boosting round); the same operations on the same operands as the
    two-branch form, so the same bits."""
    e = math.exp(-abs(z))
    return (1.0 if z >= 0.0 else e) / (1.0 + e)


@njit(cache=True)
def _log1pexp(z):
    """log(1 + exp(z)) without overflow."""
    if z > 0.0:
        return z + math.log1p(math.exp(-z))
    return math.log1p(math.exp(z))


@njit(GRAD_HESS_SIG, cache=True)
def squared_error_grad_hess(y, raw, grad, hess):
    """l = (raw - y)^2 / 2: g = raw - y, h = 1 (every output column against y)."""
    for i in range(raw.shape[0]):
        for j in range(raw.shape[1]):
            grad[i, j] = raw[i, j] - y[i]
            hess[i, j] = 1.0


@njit(GRAD_HESS_SIG, cache=True)
def logistic_grad_hess(y, raw, grad, hess):
    """l = log(1 + e^raw) - y raw, y in {0, 1}: g = p - y, h = p (1 - p), p = sigmoid(raw)."""
    for i in range(raw.shape[0]):
        for j in range(raw.shape[1]):
            p = sigmoid(raw[i, j])
            grad[i, j] = p - y[i]
            hess[i, j] = p * (1.0 - p)


@njit(cache=True, inline="always")
def _softmax_shift(raw, i, implicit):
    """(m, s) for row ``i``: m = the largest score, s = sum_j e^(score_j - m), so
    p_j = e^(raw_ij - m) / s (overflow-free).  ``implicit``: one more class scored 0
    (the k - 1 output form, Gouk et al. 2019), counted in m and s."""
    if implicit:
        mx = 0.0
    else:
        mx = raw[i, 0]
    for j in range(raw.shape[1]):
        if raw[i, j] > mx:
            mx = raw[i, j]
    s = math.exp(-mx) if implicit else 0.0
    for j in range(raw.shape[1]):
        s += math.exp(raw[i, j] - mx)
    return mx, s


@njit(cache=True, inline="always")
def _softmax_grad_hess(y, raw, grad, hess, implicit):
    """g_j = p_j - [y = j], h_j = p_j (1 - p_j) for every output j."""
    for i in range(raw.shape[0]):
        mx, s = _softmax_shift(raw, i, implicit)
        yi = y[i]
        for j in range(raw.shape[1]):
            p = math.exp(raw[i, j] - mx) / s
            grad[i, j] = p - (1.0 if yi == j else 0.0)
            hess[i, j] = p * (1.0 - p)


@njit(GRAD_HESS_SIG, cache=True)
def softmax_grad_hess(y, raw, grad, hess):
    """Softmax cross-entropy over k = n_outputs + 1 classes, class k-1 scored 0.

    p_j = e^raw_j / (1 + sum_i e^raw_i); g_j = p_j - [y = j]; h_j = p_j (1 - p_j).
    """
    _softmax_grad_hess(y, raw, grad, hess, True)


@njit(GRAD_HESS_SIG, cache=True)
def multinomial_grad_hess(y, raw, grad, hess):
    """Softmax cross-entropy over k = n_outputs classes, one score per class
    (XGBoost's ``multi:softprob``, Friedman 2001 Algorithm 6):
    p_j = e^raw_j / sum_i e^raw_i; g_j = p_j - [y = j]; h_j = p_j (1 - p_j)."""
    _softmax_grad_hess(y, raw, grad, hess, False)


@njit(cache=True)
def _softmax_value(y, raw, out, implicit):
    """Cross-entropy log(sum_j e^score_j) - score_y per row (the implicit class's
    score is 0)."""
    k1 = raw.shape[1]
    for i in range(raw.shape[0]):
        mx, s = _softmax_shift(raw, i, implicit)
        c = int(y[i])
        ry = raw[i, c] if 0 <= c < k1 else 0.0
        out[i] = mx + math.log(s) - ry


@njit(cache=True)
def _softmax_proba(raw, out, implicit):
    """Class probabilities; with ``implicit`` the last column of ``out`` is the
    class scored 0."""
    k1 = raw.shape[1]
    for i in range(raw.shape[0]):
        mx, s = _softmax_shift(raw, i, implicit)
        for j in range(k1):
            out[i, j] = math.exp(raw[i, j] - mx) / s
        if implicit:
            out[i, k1] = math.exp(-mx) / s


@njit(GRAD_HESS_SIG, cache=True)
def absolute_error_grad_hess(y, raw, grad, hess):
    """l = |y - raw|: g = sign(raw - y) (0 at raw = y), h = 1, a surrogate: the
    true Hessian is 0 almost everywhere (LightGBM's ``regression_l1`` and
    scikit-learn's HistGradientBoosting use 1 and then set each leaf to the
    median of its residuals, see ``AbsoluteError.leaf_values``)."""
    for i in range(raw.shape[0]):
        for j in range(raw.shape[1]):
            r = raw[i, j] - y[i]
            grad[i, j] = 1.0 if r > 0.0 else (-1.0 if r < 0.0 else 0.0)
            hess[i, j] = 1.0


def huber_grad_hess(delta):
    """Huber loss with threshold ``delta`` (r = raw - y): l = r^2 / 2 for
    |r| <= delta, delta (|r| - delta / 2) beyond; g = clip(r, -delta, delta),
    h = 1 (LightGBM's ``huber``: a surrogate, the true Hessian is 0 beyond
    delta).  ``delta`` is a compile-time constant: one compile per value and
    process (not cached on disk)."""
    d = float(delta)

    def grad_hess(y, raw, grad, hess):
        for i in range(raw.shape[0]):
            for j in range(raw.shape[1]):
                r = raw[i, j] - y[i]
                grad[i, j] = d if r > d else (-d if r < -d else r)
                hess[i, j] = 1.0
    return njit(GRAD_HESS_SIG, cache=False, nogil=True)(grad_hess)


def quantile_grad_hess(alpha):
    """Pinball (quantile) loss at level ``alpha`` (r = y - raw):
    l = alpha r for r >= 0, (alpha - 1) r otherwise; g = -alpha if y > raw,
    1 - alpha if y < raw (0 at equality), h = 1 (a surrogate, as LightGBM's
    ``quantile`` and scikit-learn's HistGradientBoosting, which then set each
    leaf to the alpha-quantile of its residuals).  One compile per value."""
    a = float(alpha)

    def grad_hess(y, raw, grad, hess):
        for i in range(raw.shape[0]):
            for j in range(raw.shape[1]):
                r = y[i] - raw[i, j]
                grad[i, j] = -a if r > 0.0 else ((1.0 - a) if r < 0.0 else 0.0)
                hess[i, j] = 1.0
    return njit(GRAD_HESS_SIG, cache=False, nogil=True)(grad_hess)


@njit(cache=True)
def _squared_error_value(y, raw, out):
    for i in range(raw.shape[0]):
        s = 0.0
        for j in range(raw.shape[1]):
            r = raw[i, j] - y[i]
            s += 0.5 * r * r
        out[i] = s


@njit(cache=True)
def _logistic_value(y, raw, out):
    for i in range(raw.shape[0]):
        s = 0.0
        for j in range(raw.shape[1]):
            s += _log1pexp(raw[i, j]) - y[i] * raw[i, j]
        out[i] = s


@njit(cache=True)
def _logistic_proba(raw, out):
    """out[i] = [1 - sigmoid(raw[i]), sigmoid(raw[i])]."""
    for i in range(raw.shape[0]):
        p = sigmoid(raw[i])
        out[i, 0] = 1.0 - p
        out[i, 1] = p


@njit(types.void(types.float64[::1], types.float64[:, ::1], types.float64[::1], SCALAR_TYPE),
      cache=True)
def _elementwise_value(y, raw, out, value):
    """out_i = sum_j value(y_i, raw_ij) for a scalar first-class ``value``."""
    for i in range(raw.shape[0]):
        s = 0.0
        for j in range(raw.shape[1]):
            s += value(y[i], raw[i, j])
        out[i] = s


# ------------------------------------------------------------ multi-instance kernels

@njit(cache=True)
def bag_max(raw, bag_offsets):
    """Bag scores as the maximum over each bag's instances.

    ``raw`` holds instance scores (1-D); the instances of bag b are rows
    ``bag_offsets[b]:bag_offsets[b+1]`` (instances grouped by bag, see
    :func:`bag_offsets_from_ids`).  Returns ``(scores, argmax)``, ``argmax``
    the row index of the first maximising instance; an empty bag scores
    ``-inf`` with argmax -1.
    """
    n_bags = bag_offsets.shape[0] - 1
    scores = np.empty(n_bags, dtype=np.float64)
    arg = np.empty(n_bags, dtype=np.int64)
    for b in range(n_bags):
        best = -np.inf
        at = -1
        for i in range(bag_offsets[b], bag_offsets[b + 1]):
            if at < 0 or raw[i] > best:
                best = raw[i]
                at = i
        scores[b] = best
        arg[b] = at
    return scores, arg


@njit(cache=True)
def mi_grad_hess(y_bag, raw, bag_offsets, grad, hess):
    """Gradient and Hessian of the multi-instance max-logistic loss per instance.

    Bag loss l_b = log(1 + e^s_b) - y_b s_b with s_b = max over the bag's
    instance scores ``raw``; its subgradient w.r.t. the instance scores is
    (p_b - y_b) at the arg-max instance and 0 elsewhere, likewise the
    Hessian p_b (1 - p_b) (Gouk et al. 2019, multi-instance learning).
    ``grad`` and ``hess`` (1-D, like ``raw``) are overwritten.
    """
    for i in range(raw.shape[0]):
        grad[i] = 0.0
        hess[i] = 0.0
    scores, arg = bag_max(raw, bag_offsets)
    for b in range(scores.shape[0]):
        at = arg[b]
        if at < 0:
            continue
        p = sigmoid(scores[b])
        grad[at] = p - y_bag[b]
        hess[at] = p * (1.0 - p)


# ----------------------------------------------------------- a boosting round's statistics
_ROUND_STATS_SIG = types.void(GRAD_HESS_TYPE, types.float64[::1], types.float64[:, ::1],
                              types.float64[:, ::1], types.float64[:, ::1], types.float64[::1],
                              types.float64[:, :, ::1], types.boolean, types.boolean, types.int64)


@njit(_ROUND_STATS_SIG, cache=True, nogil=True, parallel=True)
def newton_round_stats(grad_hess, y, raw, grad, hess, w, sst, first_order, rowwise, n_chunks):
    """One boosting round's per-row statistics: ``grad_hess(y, raw, grad, hess)``,
    then for every output ``j`` ``sst[j, i] = [w_i h_ij, w_i g_ij, .]`` (first
    order: ``h = 1``, so ``w_i``; the third column is left as it is).  In
    ``n_chunks`` blocks of rows on threads; the loss itself too when
    ``rowwise`` (each row's derivatives depend on that row only: built-in and
    element-wise losses), otherwise in one call first.  The same products as
    NumPy's ``w * h`` row by row."""
    n = raw.shape[0]
    K = raw.shape[1]
    if not rowwise:
        grad_hess(y, raw, grad, hess)
    for c in prange(n_chunks):
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        if rowwise:
            grad_hess(y[lo:hi], raw[lo:hi], grad[lo:hi], hess[lo:hi])
        for j in range(K):
            # (unsigned rows: no wraparound test an access, .jit.U1)
            for i in range(np.uint64(lo), np.uint64(hi)):
                sst[j, i, 0] = w[i] if first_order else w[i] * hess[i, j]
                sst[j, i, 1] = w[i] * grad[i, j]
