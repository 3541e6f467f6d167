"""Histogram accumulation over binned data (class counts or dense sums).

A histogram of a node is ``hist[f, b, :]`` -- the statistics vector of the
node's samples whose feature ``f`` falls in bin ``b`` -- and ``cnt[f, b]``,
their number.  Histograms live in a pool ``(slot, feature, bin, stat)`` so a
builder can keep a parent's histogram and derive the larger child's by
subtraction (LightGBM's trick).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .merit import TASK_CLASSIFICATION

__all__ = ["hist_build", "hist_subtract"]


@njit(cache=True, nogil=True)
def _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt):
    d = Xb.shape[1]
    S = hist.shape[2]
    for p in range(start, end):
        i = samples[p]
        row = Xb[i]
        if task == TASK_CLASSIFICATION:
            c = yc[i]
            wi = w[i]
            for f in range(d):
                b = row[f]
                hist[f, b, c] += wi
                cnt[f, b] += 1
        elif S == 3:
            # three statistics (regression [w, wy, wy^2]; Newton [H, G, w]) kept in
            # registers: the same sums in the same order as the general loop
            a0 = sstats[i, 0]
            a1 = sstats[i, 1]
            a2 = sstats[i, 2]
            for f in range(d):
                b = row[f]
                hist[f, b, 0] += a0
                hist[f, b, 1] += a1
                hist[f, b, 2] += a2
                cnt[f, b] += 1
        else:
            for f in range(d):
                b = row[f]
                for s in range(S):
                    hist[f, b, s] += sstats[i, s]
                cnt[f, b] += 1


@njit(cache=True, nogil=True)
def hist_build(Xb, samples, start, end, yc, sstats, w, task, hist, cnt):
    """Fill ``hist``/``cnt`` (zeroed here) from the samples ``samples[start:end]``."""
    hist[:] = 0.0
    cnt[:] = 0
    # serial on purpose: a cached kernel calling a parallel=True one can crash when
    # only one of the two cache entries is rebuilt (numba issue #8578)
    _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt)


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
