"""Bootstrap samples: ``n_boot`` rows drawn with replacement from ``n`` (Breiman
1996, "Bagging predictors"; the course slides' "Bagging: sampling with
replacement"), from a tree's own seed.

numba's Mersenne Twister, seeded per call, draws them in compiled code: a row
is ``floor(u * n)`` with ``u`` a 53-bit uniform (``np.random.random``; its bias,
at most ``n / 2**53``, is far below anything a forest could show).  NumPy's
``RandomState(seed).randint(0, n, n)`` costs about 16 ns a draw plus 90 us to
seed, numba's ``randint`` (rejection sampling) 21 ns, this 8 ns: the bootstrap
of a cascade's small tree was a twentieth of its growth.  numba's generator
state is per thread, so trees drawn on threads do not disturb each other, and
the tree builders reseed it with their own seed.
"""
from __future__ import annotations

import numpy as np

from .jit import njit

__all__ = ["bootstrap_indices", "bootstrap_counts", "bootstrap_row_weights"]


@njit(cache=True, nogil=True, inline="always")
def _draw(n):
    """One row ``floor(u * n)``, ``u ~ U[0, 1)`` (53 bits)."""
    r = int(np.random.random() * n)
    return r if r < n else n - 1         # (u * n rounded up to n: never, but cheap)


@njit(cache=True, nogil=True)
def bootstrap_indices(seed, n, n_boot):
    """The ``n_boot`` drawn rows, in drawing order (``0 <= row < n``)."""
    np.random.seed(seed)
    out = np.empty(n_boot, np.int64)
    for i in range(n_boot):
        out[i] = _draw(n)
    return out


@njit(cache=True, nogil=True)
def bootstrap_counts(seed, n, n_boot):
    """How often each of the ``n`` rows is drawn: ``bincount`` of
    :func:`bootstrap_indices` with the same arguments (the same draws)."""
    np.random.seed(seed)
    counts = np.zeros(n, np.int64)
    for _ in range(n_boot):
        counts[_draw(n)] += 1
    return counts


@njit(cache=True, nogil=True)
def bootstrap_row_weights(seed, rows, n_total):
    """The bootstrap of the ``m = rows.shape[0]`` rows ``rows`` of a data set of
    ``n_total`` rows, as integer weights: ``counts = bootstrap_counts(seed, m, m)``
    over the positions of ``rows``; returns ``(w, counts)`` with ``w`` (``n_total``,
    float64) = ``counts[j]`` at ``rows[j]`` and zero elsewhere."""
    m = rows.shape[0]
    counts = bootstrap_counts(seed, m, m)
    w = np.zeros(n_total)
    for j in range(m):
        if counts[j] > 0:
            w[rows[j]] = counts[j]
    return w, counts
