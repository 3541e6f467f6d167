"""A node's prediction from its statistics vector (the builders' ``value``
column): class proportions (classification: weighted class counts) or the
weighted mean target (regression: ``[w, sum wy, sum wy^2]``).  One pass in
compiled code: the NumPy form allocated five temporaries per tree, a tenth of
a completely-random tree's growth time in the cascade."""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["class_proportions", "target_shift", "weighted_means"]


@njit(cache=True, nogil=True)
def class_proportions(stats):
    """``stats[i] / sum(stats[i])`` row by row; a row of total weight zero gets
    the uniform ``1 / K``."""
    n, K = stats.shape
    out = np.empty((n, K))
    for i in range(n):
        tot = 0.0
        for k in range(K):
            tot += stats[i, k]
        if tot > 0:
            for k in range(K):
                out[i, k] = stats[i, k] / tot
        else:
            for k in range(K):
                out[i, k] = 1.0 / K
    return out


@njit(cache=True, nogil=True)
def weighted_means(stats):
    """``sum wy / w`` (``stats[:, 1] / stats[:, 0]``) as a column; 0 where the
    weight is zero."""
    n = stats.shape[0]
    out = np.empty((n, 1))
    for i in range(n):
        w = stats[i, 0]
        out[i, 0] = stats[i, 1] / w if w > 0 else 0.0
    return out


def target_shift(y, w):
    """The midpoint of the regression targets' range (rows of positive weight)
    when every target is farther from zero than that range, else 0.
    Subtracted from ``y`` before growth and added back to the node means: the
    variance ``sum wy^2 / w - mean^2`` cancels catastrophically when the mean
    dominates (targets around 1e8 with unit spread keep about no digit of it),
    and the variance reduction is the same for shifted targets.  Minimum and
    maximum are exact, so a weight of k and k copies of a row shift alike;
    targets whose range reaches zero's neighbourhood are left as they are."""
    pos = y[w > 0] if (w <= 0).any() else y
    if pos.shape[0] == 0:
        return 0.0
    lo = float(pos.min())
    hi = float(pos.max())
    if lo > hi - lo or -hi > hi - lo:
        return 0.5 * lo + 0.5 * hi
    return 0.0
