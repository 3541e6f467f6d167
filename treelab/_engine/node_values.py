"""A node's prediction from its statistics vector (the builders' ``value``
column): class proportions (classification: weighted class counts) or the
weighted mean target (regression: ``[w, sum wy, sum wy^2]``).  One pass in
compiled code: the NumPy form allocated five temporaries per tree, a tenth of
a completely-random tree's growth time in the cascade."""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["class_proportions", "weighted_means"]


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
