"""Histogram accumulation over binned data (class counts or dense sums).

A histogram of a node is ``hist[f, b, :]`` -- the statistics vector of the
node's samples whose feature ``f`` falls in bin ``b`` -- and ``cnt[f, b]``,
their number.  Histograms live in a pool ``(slot, feature, bin, stat)`` so a
builder can keep a parent's histogram and derive the larger child's by
subtraction (LightGBM's trick).

Threads split the **features**, never the rows: each bin's sum is still
accumulated over the node's samples in their order, so a histogram -- and the
tree grown from it -- is bit-identical whatever the number of threads
(splitting the rows would add partial sums in another order).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .merit import TASK_CLASSIFICATION

__all__ = ["hist_build", "hist_subtract", "PARALLEL_HIST_MIN_WORK"]

#: a node's histogram is built on several threads only when it holds at least
#: this many (sample, feature) pairs (below, starting the threads costs more)
PARALLEL_HIST_MIN_WORK = 200_000


@njit(cache=True, nogil=True)
def _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, f0, f1):
    """Add the samples ``samples[start:end]`` to features ``f0 .. f1 - 1`` of ``hist`` / ``cnt``."""
    S = hist.shape[2]
    for p in range(start, end):
        i = samples[p]
        row = Xb[i]
        if task == TASK_CLASSIFICATION:
            c = yc[i]
            wi = w[i]
            for f in range(f0, f1):
                b = row[f]
                hist[f, b, c] += wi
                cnt[f, b] += 1
        elif S == 3:
            # three statistics (regression [w, wy, wy^2]; Newton [H, G, w]) kept in
            # registers: the same sums in the same order as the general loop
            a0 = sstats[i, 0]
            a1 = sstats[i, 1]
            a2 = sstats[i, 2]
            for f in range(f0, f1):
                b = row[f]
                hist[f, b, 0] += a0
                hist[f, b, 1] += a1
                hist[f, b, 2] += a2
                cnt[f, b] += 1
        else:
            for f in range(f0, f1):
                b = row[f]
                for s in range(S):
                    hist[f, b, s] += sstats[i, s]
                cnt[f, b] += 1


@njit(cache=True, nogil=True, parallel=True)
def _hist_build_features(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, n_blocks):
    """:func:`_hist_build_serial` on ``n_blocks`` threads, each owning a contiguous
    block of features (zeroed and filled by that thread)."""
    d = Xb.shape[1]
    for k in prange(n_blocks):
        f0 = k * d // n_blocks
        f1 = (k + 1) * d // n_blocks
        hist[f0:f1] = 0.0
        cnt[f0:f1] = 0
        _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, f0, f1)


@njit(cache=True, nogil=True)
def hist_build(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, n_threads=1):
    """Fill ``hist``/``cnt`` (zeroed here) from the samples ``samples[start:end]``;
    on ``n_threads`` threads (split by features: the result does not depend on
    it) when the node is large enough (:data:`PARALLEL_HIST_MIN_WORK`)."""
    d = Xb.shape[1]
    n_blocks = min(n_threads, d)
    if n_blocks > 1 and (end - start) * d >= PARALLEL_HIST_MIN_WORK:
        _hist_build_features(Xb, samples, start, end, yc, sstats, w, task, hist, cnt,
                             n_blocks)
        return
    hist[:] = 0.0
    cnt[:] = 0
    _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, 0, d)


@njit(cache=True, nogil=True)
def hist_subtract(hist, cnt, other_hist, other_cnt):
    """In place: ``hist -= other_hist`` and ``cnt -= other_cnt`` (parent minus a sibling)."""
    d, B, S = hist.shape
    for f in range(d):
        for b in range(B):
            if other_cnt[f, b] == 0:
                continue
            cnt[f, b] -= other_cnt[f, b]
            for s in range(S):
                v = hist[f, b, s] - other_hist[f, b, s]
                hist[f, b, s] = v if cnt[f, b] > 0 else 0.0
