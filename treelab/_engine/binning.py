"""Binning of feature values: quantile bins for batch data, category codes for
nominal attributes, and one bin for missing values.

A numeric feature with edges ``e_0 < ... < e_{m-1}`` has ``m + 1`` value bins;
``bin(x)`` is the number of edges strictly below ``x``, so
``x <= e_b  <=>  bin(x) <= b`` and a histogram split "bins 0..b go left" is the
threshold split ``x <= e_b`` on raw values: one traversal serves both splitters.
Missing values go to bin ``missing_bin`` (the last one of the histogram).
Streaming equal-width bins live in the streaming engine.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["quantile_bin_edges", "bin_matrix", "MAX_BINS"]

#: largest number of value bins a feature may have (one uint8 code is kept for missing)
MAX_BINS = 255


@njit(cache=True)
def _feature_edges(col, max_bins):
    vals = col[~np.isnan(col)]
    if vals.shape[0] == 0:
        return np.empty(0, np.float64)
    vals = np.sort(vals)
    # distinct values
    n = vals.shape[0]
    uniq = np.empty(n, np.float64)
    u = 0
    for i in range(n):
        if u == 0 or vals[i] != uniq[u - 1]:
            uniq[u] = vals[i]
            u += 1
    if u <= max_bins:
        edges = np.empty(u - 1, np.float64)
        for i in range(u - 1):
            edges[i] = uniq[i] / 2.0 + uniq[i + 1] / 2.0
            if edges[i] >= uniq[i + 1]:
                edges[i] = uniq[i]
        return edges
    # quantiles at k / max_bins, "midpoint" interpolation, then de-duplicated
    raw = np.empty(max_bins - 1, np.float64)
    for k in range(1, max_bins):
        pos = k * (n - 1) / max_bins
        lo = int(np.floor(pos))
        hi = int(np.ceil(pos))
        raw[k - 1] = vals[lo] / 2.0 + vals[hi] / 2.0
    out = np.empty(max_bins - 1, np.float64)
    m = 0
    for i in range(max_bins - 1):
        # an edge equal to the largest value would leave the last bin empty
        if raw[i] >= vals[n - 1]:
            continue
        if m == 0 or raw[i] > out[m - 1]:
            out[m] = raw[i]
            m += 1
    return out[:m].copy()


@njit(cache=True, parallel=True)
def _all_edges(X, is_nominal, max_bins):
    d = X.shape[1]
    counts = np.zeros(d, np.int64)
    tmp = np.empty((d, max_bins), np.float64)
    for f in prange(d):
        if is_nominal[f]:
            continue
        e = _feature_edges(np.ascontiguousarray(X[:, f]), max_bins)
        counts[f] = e.shape[0]
        tmp[f, :e.shape[0]] = e
    offsets = np.zeros(d + 1, np.int64)
    for f in range(d):
        offsets[f + 1] = offsets[f] + counts[f]
    edges = np.empty(offsets[d], np.float64)
    for f in range(d):
        edges[offsets[f]:offsets[f + 1]] = tmp[f, :counts[f]]
    return edges, offsets


def quantile_bin_edges(X, is_nominal, max_bins=MAX_BINS, subsample=200_000, random_state=None):
    """Bin edges of every numeric feature, flattened: ``edges[offsets[f]:offsets[f+1]]``.

    With at most ``max_bins`` distinct values a feature gets one bin per value
    (edges at midpoints, as exact splitting); otherwise edges sit at the
    ``k / max_bins`` quantiles of (a subsample of at most ``subsample`` rows of) the
    data.  Nominal features get no edges: their category codes are their bins.
    """
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}")
    X = np.asarray(X, dtype=np.float64)
    if subsample is not None and X.shape[0] > subsample:
        rng = np.random.default_rng(random_state)
        rows = np.sort(rng.choice(X.shape[0], size=subsample, replace=False))
        X = X[rows]
    return _all_edges(np.ascontiguousarray(X), np.asarray(is_nominal, dtype=np.bool_), max_bins)


@njit(cache=True, parallel=True)
def bin_matrix(X, edges, offsets, is_nominal, missing_bin):
    """Bin codes (uint8, rows x features) for ``X``: numeric values by binary search
    in their edges, nominal codes as they are, NaN as ``missing_bin``."""
    n, d = X.shape
    out = np.empty((n, d), np.uint8)
    for i in prange(n):
        for f in range(d):
            x = X[i, f]
            if np.isnan(x):
                out[i, f] = missing_bin
            elif is_nominal[f]:
                out[i, f] = int(x)
            else:
                lo = offsets[f]
                hi = offsets[f + 1]
                # number of edges strictly below x
                a = lo
                b = hi
                while a < b:
                    mid = (a + b) >> 1
                    if edges[mid] < x:
                        a = mid + 1
                    else:
                        b = mid
                out[i, f] = a - lo
    return out
