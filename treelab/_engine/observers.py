"""Numeric split-candidate observers of the streaming trees: how a leaf
summarises a numeric attribute and which thresholds it proposes.

Every streaming tree (Hoeffding trees, SGT) chooses one by ``observer``:

* ``"equal_width"`` (:data:`OBS_EQUAL_WIDTH`): ``n_bins`` equal-width bins over
  a range fixed from the first ``n_range_samples`` instances, values outside
  clipped to the first / last bin (Gouk et al., ACML 2019, Sec. 3.3: the SGT
  paper's discretisation).  Rows are learned and traversed as *bin codes*
  (a split "bins 0..b left" is the threshold ``b + 0.5`` on codes).
* ``"gaussian"`` (:data:`OBS_GAUSSIAN`, class counts only): MOA's
  ``GaussianNumericAttributeClassObserver`` (the default of its
  ``HoeffdingTree``).  Per leaf, feature and class it keeps the weight, mean,
  sum of squared deviations (Welford) and the minimum / maximum.  Candidate
  thresholds: ``n_split_points`` (MOA: 10) points
  ``min + (max - min) (i + 1) / (n_split_points + 1)``, ``i = 0 ..``, over the
  minimum / maximum of all classes, kept when strictly inside (min, max).  The
  class distribution left of threshold s (``x <= s``) is, per class, its whole
  weight W if s >= its max, nothing if s < its min, otherwise
  ``W Phi((s - mean) / std)`` (normal CDF, std = sqrt(M2 / (W - 1))); the
  right side gets the rest.  Naive-Bayes leaves use the normal density.
* ``"adaptive_range"`` (:data:`OBS_ADAPTIVE`): ``n_bins`` equal-width bins
  (``n_bins`` even) whose range is kept *per leaf and feature* and
  re-estimated when a value falls outside it, instead of clipping.  A root
  starts from the range of the first ``n_range_samples`` instances, a new
  leaf from its parent's.  **How statistics move**: a value above the range
  doubles its width keeping the lower end (new bin j holds old bins 2j and
  2j + 1; the upper half starts empty); a value below doubles it keeping the
  upper end (new bin n/2 + j holds old bins 2j and 2j + 1); repeated until
  the value is inside.  Old bin edges are new bin edges, so this moves
  counts (class counts: sums; SGT moments: Chan et al. merges) without any
  approximation: the statistics equal those of binning every past instance
  on the new range.  A range of width 0 (a constant so far at ``lo``) becomes
  ``[lo, x]`` (old instances stay in bin 0) or ``[x, lo]`` (they move to bin
  n - 1).  Bins are right-closed, ``(lo + b w/n, lo + (b + 1) w/n]`` (bin 0
  also holds ``lo``), so a split "bins 0..b left" is the value threshold
  ``lo + (b + 1) w / n`` with ``x <= threshold`` going left, as the traversal.

The last two learn and traverse *values* (numeric features are passed
through, nominal ones coded; :func:`value_codes`) and store value thresholds.
The per-leaf range of the adaptive observer lives in the statistics slot's
``aux`` row: ``aux[slot, r0 + 2 f]`` = lo, ``aux[slot, r0 + 2 f + 1]`` = width.
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange

from .jit import njit
from .moments import moments_merge
from .streaming import nominal_code

__all__ = ["OBS_EQUAL_WIDTH", "OBS_GAUSSIAN", "OBS_ADAPTIVE", "OBSERVERS", "G_W", "G_MEAN",
           "G_M2", "G_MIN", "G_MAX", "G_ROWS", "value_codes", "ar_bin", "ar_include",
           "gauss_update", "gauss_points", "gauss_children", "gauss_log_density",
           "normal_cdf", "set_root_ranges"]

OBS_EQUAL_WIDTH = 0
OBS_GAUSSIAN = 1
OBS_ADAPTIVE = 2
#: observer names accepted by the learners' ``observer`` parameter
OBSERVERS = {"equal_width": OBS_EQUAL_WIDTH, "gaussian": OBS_GAUSSIAN,
             "adaptive_range": OBS_ADAPTIVE}

#: rows of a feature's Gaussian statistics ``stats[slot, f, row, class]``
G_W, G_MEAN, G_M2, G_MIN, G_MAX = 0, 1, 2, 3, 4
G_ROWS = 5


# ------------------------------------------------------------------ codes
@njit(cache=True, inline="always")
def _vcode(x, nominal, n_cat):
    if np.isnan(x) or not nominal:
        return x
    return nominal_code(x, n_cat)


@njit(cache=True)
def _value_codes_serial(X, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in range(n):
        for f in range(d):
            out[i, f] = _vcode(X[i, f], is_nominal[f], n_cats[f])
    return out


@njit(cache=True, parallel=True)
def _value_codes_parallel(X, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in prange(n):
        for f in range(d):
            out[i, f] = _vcode(X[i, f], is_nominal[f], n_cats[f])
    return out


def value_codes(X, is_nominal, n_cats):
    """Rows for the value-space observers: numeric values as they are, nominal
    features as category codes (NaN when not a known category), NaN missing.
    Without nominal features ``X`` itself is returned (no copy)."""
    if not is_nominal.any():
        return X
    kern = _value_codes_parallel if X.shape[0] >= 20_000 else _value_codes_serial
    return kern(X, is_nominal, n_cats)


def set_root_ranges(aux, slots, r0, lo, hi, is_nominal):
    """Write the fitted range (lo, hi) of every numeric feature as the adaptive
    range (lo, width) of the root slots ``slots``."""
    for s in slots:
        for f in range(lo.shape[0]):
            if not is_nominal[f]:
                aux[s, r0 + 2 * f] = lo[f]
                aux[s, r0 + 2 * f + 1] = hi[f] - lo[f]


# --------------------------------------------------------- adaptive range
@njit(cache=True, inline="always")
def ar_bin(x, lo, w, n):
    """Right-closed bin of ``x`` in ``n`` equal-width bins over [lo, lo + w]
    (clipped; a range of width 0 has the single bin 0)."""
    if not w > 0.0:
        return 0
    v = n * ((x - lo) / w)
    if not v > 1.0:             # clipped as a float: int() of a huge value overflows
        return 0
    if v > n:
        return n - 1
    return int(math.ceil(v)) - 1


@njit(cache=True, inline="always")
def _combine(sf, i, j, moments, tmp):
    """tmp = statistics of bins i and j together."""
    if moments:
        moments_merge(sf[i], sf[j], tmp)
    else:
        for c in range(sf.shape[1]):
            tmp[c] = sf[i, c] + sf[j, c]


@njit(cache=True)
def ar_include(sf, lo, w, x, n, moments):
    """``(lo, w)`` of a range that holds ``x``, moving the bin statistics
    ``sf`` (bins x stats; ``moments``: SGT moments, else additive counts) as
    the module docstring says.  ``n`` must be even."""
    if w > 0.0 and lo <= x <= lo + w:
        return lo, w
    S = sf.shape[1]
    tmp = np.empty(S, np.float64)
    if not w > 0.0:
        if x == lo:
            return lo, w
        if x > lo:
            return lo, x - lo
        for c in range(S):
            tmp[c] = sf[0, c]
            sf[0, c] = 0.0
        for c in range(S):
            sf[n - 1, c] = tmp[c]
        return x, lo - x
    h = n // 2
    while x > lo + w:
        for j in range(h):
            _combine(sf, 2 * j, 2 * j + 1, moments, tmp)
            for c in range(S):
                sf[j, c] = tmp[c]
        for j in range(h, n):
            for c in range(S):
                sf[j, c] = 0.0
        w = 2.0 * w
    while x < lo:
        for j in range(h - 1, -1, -1):
            _combine(sf, 2 * j, 2 * j + 1, moments, tmp)
            for c in range(S):
                sf[h + j, c] = tmp[c]
        for j in range(h):
            for c in range(S):
                sf[j, c] = 0.0
        lo = lo - w
        w = 2.0 * w
    return lo, w


# ---------------------------------------------------------------- Gaussian
@njit(cache=True, inline="always")
def gauss_update(sf, c, x):
    """Add value ``x`` of class ``c`` to a feature's Gaussian statistics ``sf``
    (rows G_*; Welford's update, as MOA's ``GaussianEstimator`` with weight 1)."""
    w = sf[G_W, c]
    if w > 0.0:
        w1 = w + 1.0
        last = sf[G_MEAN, c]
        mean = last + (x - last) / w1
        sf[G_MEAN, c] = mean
        sf[G_M2, c] += (x - last) * (x - mean)
        sf[G_W, c] = w1
        if x < sf[G_MIN, c]:
            sf[G_MIN, c] = x
        if x > sf[G_MAX, c]:
            sf[G_MAX, c] = x
    else:
        sf[G_W, c] = 1.0
        sf[G_MEAN, c] = x
        sf[G_M2, c] = 0.0
        sf[G_MIN, c] = x
        sf[G_MAX, c] = x


@njit(cache=True, inline="always")
def normal_cdf(z):
    """Phi(z), the standard normal CDF."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@njit(cache=True)
def gauss_points(sf, n_points, out):
    """Candidate thresholds of a feature (MOA's ``getSplitPointSuggestions``):
    written to ``out`` in increasing order; returns how many."""
    mn = np.inf
    mx = -np.inf
    for c in range(sf.shape[1]):
        if sf[G_W, c] > 0.0:
            if sf[G_MIN, c] < mn:
                mn = sf[G_MIN, c]
            if sf[G_MAX, c] > mx:
                mx = sf[G_MAX, c]
    if mn == np.inf:
        return 0
    rng = mx - mn
    m = 0
    for i in range(n_points):
        s = rng / (n_points + 1.0) * (i + 1) + mn
        if s > mn and s < mx and (m == 0 or s > out[m - 1]):
            out[m] = s
            m += 1
    return m


@njit(cache=True)
def gauss_children(sf, s, ch):
    """Class weights left (``x <= s``, row 0) and right (row 1) of threshold
    ``s`` estimated from the per-class normals (MOA's
    ``getClassDistsResultingFromBinarySplit``), written to ``ch`` (2 x k)."""
    for c in range(sf.shape[1]):
        ch[0, c] = 0.0
        ch[1, c] = 0.0
        W = sf[G_W, c]
        if W <= 0.0:
            continue
        if s < sf[G_MIN, c]:
            ch[1, c] = W
        elif s >= sf[G_MAX, c]:
            ch[0, c] = W
        else:
            var = sf[G_M2, c] / (W - 1.0) if W > 1.0 else 0.0
            std = math.sqrt(var) if var > 0.0 else 0.0
            if std > 0.0:
                left = normal_cdf((s - sf[G_MEAN, c]) / std) * W
            else:
                left = W if s >= sf[G_MEAN, c] else 0.0
            right = W - left
            ch[0, c] = left
            ch[1, c] = right if right > 0.0 else 0.0


@njit(cache=True, inline="always")
def gauss_log_density(sf, c, x):
    """log of the normal density of class ``c`` at ``x`` (MOA's
    ``probabilityDensity``: -inf without instances; a zero variance gives
    density 1 at the mean and 0 elsewhere)."""
    W = sf[G_W, c]
    if W <= 0.0:
        return -np.inf
    var = sf[G_M2, c] / (W - 1.0) if W > 1.0 else 0.0
    if var > 0.0:
        d = x - sf[G_MEAN, c]
        return -0.5 * math.log(2.0 * math.pi * var) - d * d / (2.0 * var)
    return 0.0 if x == sf[G_MEAN, c] else -np.inf

