"""Gradient / Hessian moment statistics for Stochastic Gradient Trees.

A set of moments is a float64 vector of length :data:`N_MOMENTS`::

    m[N]       total weight (the count n for unit weights)
    m[MEAN_G]  mean gradient            G = mean(g)
    m[MEAN_H]  mean Hessian             H = mean(h)
    m[M2_G]    sum of squared deviations of g, sum (g_i - G)^2
    m[M2_H]    sum of squared deviations of h, sum (h_i - H)^2
    m[C_GH]    co-moment, sum (g_i - G)(h_i - H)

so that Var(g) = M2_G / (n - 1), Var(h) = M2_H / (n - 1) and
Cov(g, h) = C_GH / (n - 1).  A zero vector is the empty set.  Every kernel
works on a 1-D view, so the moments of one (leaf, feature, bin) cell of a
``[leaf, feature, bin, N_MOMENTS]`` array are updated in place.

Single observations are added with Welford's update (Welford 1962; weighted
form West 1979); two sets are merged with the pairwise formulas of Chan, Golub
& LeVeque (1979), extended to the co-moment by Bennett et al. (2009).  These
are the statistics kept by the Stochastic Gradient Tree (Gouk, Pfahringer &
Frank, ACML 2019), whose split test needs Var(g), Var(h) and Cov(g, h).

SGT loss change (Gouk et al. 2019): with G, H the mean gradient and
Hessian of the instances reaching a leaf and regularisation lambda, the
leaf's prediction moves by ``v = -G / (H + lambda)``; the second-order Taylor
approximation of the loss change of instance i is
``dL_i = g_i v + h_i v^2 / 2``, so over the leaf

    mean(dL) = G v + H v^2 / 2
    Var(dL)  = v^2 Var(g) + v^4 / 4 Var(h) + v^3 Cov(g, h)       (eq. 18)

(v is treated as a constant, as in the paper).  For a split the per-child
statistics are pooled with :func:`combine_mean_var`; the gamma penalty per new
leaf is left to the caller (the reference implementation adds
``n_children * gamma / n`` to the pooled mean).

The paper's own leaf value (eq. 13) uses *sums* over the leaf's n instances,
``v = -sum(g) / (lambda + sum(h)) = -G / (H + lambda / n)``, and its split
objective (eqs. 5, 10, 11) adds Omega's ``lambda / 2 v^2`` per changed leaf;
:func:`sgt_leaf_split_stats` gives both forms (``sums=True``: the paper;
``sums=False``: the means above, as the authors' Java code and river).
"""
from __future__ import annotations

import math

import numpy as np

from .jit import njit

__all__ = [
    "N", "MEAN_G", "MEAN_H", "M2_G", "M2_H", "C_GH", "N_MOMENTS",
    "moments_new", "moments_reset", "moments_update", "moments_update_weighted",
    "moments_merge", "moments_subtract", "moments_from_arrays",
    "moments_count", "moments_mean_g", "moments_mean_h",
    "moments_variance_g", "moments_variance_h", "moments_covariance",
    "sgt_delta_prediction", "sgt_loss_mean", "sgt_loss_variance",
    "sgt_leaf_loss_stats", "sgt_leaf_value", "sgt_leaf_split_stats", "combine_mean_var",
]

N, MEAN_G, MEAN_H, M2_G, M2_H, C_GH = range(6)
N_MOMENTS = 6


def moments_new(*shape):
    """A zero (empty) moments array of shape ``shape + (N_MOMENTS,)`` (Python helper)."""
    return np.zeros(tuple(shape) + (N_MOMENTS,), dtype=np.float64)


@njit(cache=True)
def moments_reset(m):
    """Set ``m`` to the empty set, in place."""
    for k in range(N_MOMENTS):
        m[k] = 0.0


@njit(cache=True)
def moments_update_weighted(m, g, h, w):
    """Add observation (g, h) with weight ``w`` > 0 to ``m`` in place.

    Weighted Welford update (West 1979): n' = n + w, G' = G + w (g - G) / n',
    M2_G += w (g - G)(g - G'), likewise for h, and C_GH += w (g - G)(h - H').
    Non-positive weights are ignored.
    """
    if not w > 0.0:
        return
    n_new = m[N] + w
    dg = g - m[MEAN_G]
    dh = h - m[MEAN_H]
    r = w / n_new
    mg = m[MEAN_G] + dg * r
    mh = m[MEAN_H] + dh * r
    m[M2_G] += w * dg * (g - mg)
    m[M2_H] += w * dh * (h - mh)
    m[C_GH] += w * dg * (h - mh)
    m[MEAN_G] = mg
    m[MEAN_H] = mh
    m[N] = n_new


@njit(cache=True)
def moments_update(m, g, h):
    """Add one observation (g, h) to ``m`` in place (Welford 1962)."""
    moments_update_weighted(m, g, h, 1.0)


@njit(cache=True)
def moments_merge(a, b, out):
    """Moments of the union of the sets ``a`` and ``b``, written to ``out``.

    Chan et al. (1979) / Bennett et al. (2009): with n = n_a + n_b and
    d = mean_b - mean_a, mean = mean_a + d n_b / n, M2 = M2_a + M2_b + d^2 n_a n_b / n
    and C = C_a + C_b + d_g d_h n_a n_b / n.  ``out`` may be ``a`` or ``b``
    (in-place accumulation).
    """
    na = a[N]
    nb = b[N]
    if nb <= 0.0:
        for k in range(N_MOMENTS):
            out[k] = a[k]
        return
    if na <= 0.0:
        for k in range(N_MOMENTS):
            out[k] = b[k]
        return
    n = na + nb
    dg = b[MEAN_G] - a[MEAN_G]
    dh = b[MEAN_H] - a[MEAN_H]
    f = na * nb / n
    rb = nb / n
    mg = a[MEAN_G] + dg * rb
    mh = a[MEAN_H] + dh * rb
    m2g = a[M2_G] + b[M2_G] + dg * dg * f
    m2h = a[M2_H] + b[M2_H] + dh * dh * f
    cgh = a[C_GH] + b[C_GH] + dg * dh * f
    out[N] = n
    out[MEAN_G] = mg
    out[MEAN_H] = mh
    out[M2_G] = m2g
    out[M2_H] = m2h
    out[C_GH] = cgh


@njit(cache=True)
def moments_subtract(total, part, out):
    """Moments of ``total`` minus its subset ``part``, written to ``out``.

    The inverse of :func:`moments_merge` (the histogram subtraction trick:
    sibling = parent - child).  Less stable than merging when the remainder is
    small; M2 values are clipped at 0.  A remainder of weight <= 0 (or below
    1e-12 of the total, a rounding residue) gives the empty set.  ``out`` may alias either input.
    """
    nt = total[N]
    na = part[N]
    nb = nt - na
    if na <= 0.0:
        for k in range(N_MOMENTS):
            out[k] = total[k]
        return
    if nb <= 1e-12 * nt or nb <= 0.0:
        for k in range(N_MOMENTS):
            out[k] = 0.0
        return
    # mean_b = mean_t + (mean_t - mean_a) n_a / n_b
    r = na / nb
    mg = total[MEAN_G] + (total[MEAN_G] - part[MEAN_G]) * r
    mh = total[MEAN_H] + (total[MEAN_H] - part[MEAN_H]) * r
    dg = mg - part[MEAN_G]
    dh = mh - part[MEAN_H]
    f = na * nb / nt
    m2g = total[M2_G] - part[M2_G] - dg * dg * f
    m2h = total[M2_H] - part[M2_H] - dh * dh * f
    cgh = total[C_GH] - part[C_GH] - dg * dh * f
    out[N] = nb
    out[MEAN_G] = mg
    out[MEAN_H] = mh
    out[M2_G] = m2g if m2g > 0.0 else 0.0
    out[M2_H] = m2h if m2h > 0.0 else 0.0
    out[C_GH] = cgh


@njit(cache=True)
def moments_from_arrays(g, h):
    """Moments of the paired samples ``g``, ``h`` (1-D, same length), one pass."""
    m = np.zeros(N_MOMENTS, dtype=np.float64)
    for i in range(g.shape[0]):
        moments_update_weighted(m, g[i], h[i], 1.0)
    return m


@njit(cache=True)
def moments_count(m):
    """Total weight n."""
    return m[N]


@njit(cache=True)
def moments_mean_g(m):
    """Mean gradient G (0 for the empty set)."""
    return m[MEAN_G]


@njit(cache=True)
def moments_mean_h(m):
    """Mean Hessian H (0 for the empty set)."""
    return m[MEAN_H]


@njit(cache=True)
def _scaled(x, n, ddof):
    if n - ddof <= 0.0:
        return math.inf
    return x / (n - ddof)


@njit(cache=True)
def moments_variance_g(m, ddof=1.0):
    """Variance of g, M2_G / (n - ddof); ``+inf`` when n <= ddof (unknown).

    The default ddof=1 is the unbiased sample variance used by the SGT test.
    """
    return _scaled(m[M2_G], m[N], ddof)


@njit(cache=True)
def moments_variance_h(m, ddof=1.0):
    """Variance of h, M2_H / (n - ddof); ``+inf`` when n <= ddof (unknown)."""
    return _scaled(m[M2_H], m[N], ddof)


@njit(cache=True)
def moments_covariance(m, ddof=1.0):
    """Covariance of g and h, C_GH / (n - ddof); ``+inf`` when n <= ddof (unknown)."""
    return _scaled(m[C_GH], m[N], ddof)


@njit(cache=True)
def sgt_delta_prediction(m, lam):
    """Leaf update v = -G / (H + lambda) (Gouk et al. 2019; a Newton step).

    Returns 0 when H + lambda <= 0 (the quadratic model has no minimiser; the
    paper assumes a convex loss) and for the empty set.
    """
    den = m[MEAN_H] + lam
    if not den > 0.0:
        return 0.0
    return -m[MEAN_G] / den


@njit(cache=True)
def sgt_loss_mean(m, v):
    """Mean approximate loss change G v + H v^2 / 2 of moving the prediction by v."""
    return v * m[MEAN_G] + 0.5 * m[MEAN_H] * v * v


@njit(cache=True)
def sgt_loss_variance(m, v):
    """Variance of the per-instance loss change (Gouk et al. 2019, eq. 18).

    v^2 Var(g) + v^4 / 4 Var(h) + v^3 Cov(g, h), with unbiased (n - 1)
    estimates, clipped at 0 against rounding; ``+inf`` when n < 2 (no
    estimate), so that the t-test never accepts on a single observation.
    """
    n = m[N]
    if n < 2.0:
        return math.inf
    s = 1.0 / (n - 1.0)
    v2 = v * v
    var = v2 * m[M2_G] * s + 0.25 * v2 * v2 * m[M2_H] * s + v2 * v * m[C_GH] * s
    return var if var > 0.0 else 0.0


@njit(cache=True)
def sgt_leaf_loss_stats(m, lam):
    """(v, mean loss change, its variance) for the leaf whose moments are ``m``."""
    v = sgt_delta_prediction(m, lam)
    return v, sgt_loss_mean(m, v), sgt_loss_variance(m, v)


@njit(cache=True)
def sgt_leaf_value(m, lam, sums):
    """The leaf's prediction change v for the instances whose moments are ``m``.

    ``sums=True``: Gouk et al. (2019), eq. (13), v = -sum(g) / (lambda + sum(h))
    with sum(g) = n G, sum(h) = n H (lambda acts once per leaf);
    ``sums=False``: the authors' Java code and river, v = -G / (H + lambda) with
    the means (lambda acts n times more strongly).  0 when the denominator is
    not positive (no minimiser) and for the empty set.
    """
    if not sums:
        return sgt_delta_prediction(m, lam)
    den = m[N] * m[MEAN_H] + lam
    if not den > 0.0:
        return 0.0
    return -(m[N] * m[MEAN_G]) / den


@njit(cache=True)
def sgt_leaf_split_stats(m, lam, sums):
    """(v, mean, variance, omega) of one leaf a candidate would create or update.

    v: :func:`sgt_leaf_value`; mean and variance: of the per-instance
    approximate loss change g_i v + h_i v^2 / 2 (eqs. 9 and 17-18, v held
    constant); omega: the leaf's ``lambda / 2 v^2`` term of Omega (eq. 5),
    which enters eq. (11) once per leaf (not per instance) -- the caller adds
    ``(sum of omegas + gamma * new leaves) / n`` to the pooled mean.  With
    ``sums=False`` (the authors' code) omega is 0: their split test leaves
    the term out.
    """
    v = sgt_leaf_value(m, lam, sums)
    omega = 0.5 * lam * v * v if sums else 0.0
    return v, sgt_loss_mean(m, v), sgt_loss_variance(m, v), omega


@njit(cache=True)
def combine_mean_var(n1, mean1, var1, n2, mean2, var2):
    """Pool two samples given as (count, mean, unbiased variance) -> (n, mean, var).

    Used to combine the loss-change statistics of the children of a split
    into those of the split: the mean is the weighted mean and the variance
    the unbiased variance of the union, (M2_1 + M2_2 + d^2 n1 n2 / n) / (n - 1)
    with M2_i = var_i (n_i - 1) and d = mean2 - mean1 (Chan et al. 1979).
    A part with n_i < 2 contributes no within-part spread (its variance is
    ignored; it may be ``inf``).  The pooled variance is ``inf`` when n < 2.
    """
    if n1 <= 0.0:
        return n2, mean2, var2
    if n2 <= 0.0:
        return n1, mean1, var1
    n = n1 + n2
    d = mean2 - mean1
    mean = mean1 + d * (n2 / n)
    m2 = d * d * (n1 * n2 / n)
    if n1 >= 2.0:
        m2 += var1 * (n1 - 1.0)
    if n2 >= 2.0:
        m2 += var2 * (n2 - 1.0)
    if n < 2.0:
        return n, mean, math.inf
    return n, mean, m2 / (n - 1.0)
