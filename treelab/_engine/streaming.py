"""Streaming part of the engine: equal-width binning fitted on the first
instances of a stream, per-leaf statistics slots, and the evidence vector
handed to split decision rules.

Streaming trees store their splits in *code space*: a numeric feature is
replaced by its bin code (0..n_bins-1, values outside the fitted range are
clipped to the first / last bin), a nominal feature by its category code,
a missing value by NaN.  A numeric split "bins 0..b go left" is the
threshold ``b + 0.5`` on codes, so the engine's one traversal
(:func:`treelab._engine.tree.apply`) serves streaming trees unchanged, and
training and prediction bin values identically.

Per-leaf statistics live in arrays indexed by a *slot*: ``slot_of[node]`` is
the slot of a leaf (-1 for internal nodes); when a leaf splits its slot is
freed and each child takes a fresh, zeroed one.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = [
    "equal_width_codes", "fit_equal_width_range", "EV_MERIT", "EV_SECOND", "EV_N",
    "EV_VAR", "EV_DEPTH", "EV_T", "EV_D", "EV_K", "EV_SIZE",
]

# evidence vector passed to decision rules (RULE_SIG)
EV_MERIT = 0     # merit of the best candidate (higher is better; SGT: mean loss reduction)
EV_SECOND = 1    # merit of the second-best candidate (another feature)
EV_N = 2         # instances seen by the leaf since its statistics were reset
EV_VAR = 3       # variance of the per-instance merit of the best candidate (SGT)
EV_DEPTH = 4     # depth of the leaf
EV_T = 5         # instances seen by the whole tree
EV_D = 6         # number of features
EV_K = 7         # number of classes / outputs
EV_SIZE = 8


def fit_equal_width_range(X, is_nominal):
    """Per-feature (min, max) of the non-missing values of ``X`` (numeric features only)."""
    d = X.shape[1]
    lo = np.zeros(d)
    hi = np.zeros(d)
    for f in range(d):
        if is_nominal[f]:
            continue
        col = X[:, f]
        col = col[~np.isnan(col)]
        if col.size:
            lo[f], hi[f] = col.min(), col.max()
    return lo, hi


@njit(cache=True, inline="always")
def _code(x, lo, hi, n_bins, nominal, n_cat):
    if np.isnan(x):
        return np.nan
    if nominal:
        c = int(x)
        return float(c) if (c == x and 0 <= c < n_cat) else np.nan
    w = hi - lo
    if not w > 0.0:
        return 0.0
    b = int(np.floor(n_bins * ((x - lo) / w)))
    if b < 0:
        b = 0
    elif b >= n_bins:
        b = n_bins - 1
    return float(b)


@njit(cache=True, parallel=True)
def _codes_parallel(X, lo, hi, n_bins, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in prange(n):
        for f in range(d):
            out[i, f] = _code(X[i, f], lo[f], hi[f], n_bins, is_nominal[f], n_cats[f])
    return out


@njit(cache=True)
def _codes_serial(X, lo, hi, n_bins, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in range(n):
        for f in range(d):
            out[i, f] = _code(X[i, f], lo[f], hi[f], n_bins, is_nominal[f], n_cats[f])
    return out


def equal_width_codes(X, lo, hi, n_bins, is_nominal, n_cats):
    """Codes of ``X``: equal-width bin of [lo, hi] (clipped) for numeric features,
    category code for nominal ones (NaN when the code is not a known category),
    NaN for missing values.  A feature with lo == hi has a single bin 0.
    Threads are used only for large chunks (their start-up costs more than a row)."""
    kern = _codes_parallel if X.shape[0] >= 20_000 else _codes_serial
    return kern(X, lo, hi, n_bins, is_nominal, n_cats)
