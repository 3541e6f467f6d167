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

Unit weights: when one statistic is 1 for every row (the weight column of
boosting's ``[H, G, w]`` or of a regression's ``[w, wy, wy^2]`` without
``sample_weight``; for class counts, every weight 1), that statistic's bin sums
*are* the counts -- sums of ones are exact integers in float64 below 2^53 -- so
the accumulation loop skips ``cnt`` (``cnt_col``, see
:func:`unit_count_column`): one read-modify-write fewer per (sample, feature),
the same histogram.  Where the counts are one statistic's sums (a unit column,
or :data:`COUNT_STATS_0_2`'s first; :func:`count_stat`) ``cnt`` is not kept at
all: no kernel zeroes, fills or subtracts it and readers take the counts from
that statistic (:func:`bin_count`) -- a boosted histogram is then 24 bytes a bin
instead of 32, and every pass over a node's bins (zeroing, default bins, the
parent-minus-sibling subtraction, the split sweep) moves a quarter less.
Class counts with unit weights (:data:`COUNT_ALL_STATS`) are read off the
statistics into ``cnt`` after the accumulation.

Extents: a pool's histograms have as many bins as the widest feature (plus the
missing bin, the last), but feature ``f`` only fills bins ``0 .. ext[f] - 1``
and the missing bin (``ext``: its value bins, or its categories; see
``builder.new_pool``).  Zeroing, the counts read off a statistic and the
parent-minus-sibling subtraction touch only those bins (the readers never look
elsewhere); on 8-bit images, where most pixels have a few dozen distinct
values, that is 40 % of the 784 x 256 bins.  An empty ``ext`` means every bin.

Column codes: when the data set keeps its codes column by column as well
(``BinnedData.Xt``; scikit-learn's HistGradientBoosting and LightGBM keep
their bins that way; boosting does), a node with three dense statistics is
accumulated feature by feature from them, up to four features a pass
(:func:`feature_group`) so the pass's histograms stay in the L1 cache: a
node whose rows are one ascending run of the data (the root of a boosted
tree on all rows) reads codes and statistics in order
(:func:`_hist_columns`), any other node of at least 1 /
:data:`COLUMN_MIN_SHARE` of the rows through its samples
(:func:`_hist_columns_at`).  Each bin still adds the node's rows in their
order: the same histogram as the row-major loop.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from .jit import U1, njit
from .merit import TASK_CLASSIFICATION
from .prefetch import PREFETCH_DISTANCE, prefetch, prefetch_at, prefetch_stop, prefetch_targets

__all__ = ["hist_build", "hist_build_nodes", "hist_build_segments", "hist_subtract",
           "subtract_rows", "rows_subtraction_pays",
           "unit_count_column", "count_stat", "bin_count", "no_extents", "no_columns", "ascending_run",
           "root_counts_usable", "root_hist_counted",
           "PARALLEL_HIST_MIN_WORK", "PARALLEL_LEVEL_MIN_WORK",
           "COUNT_NONE", "COUNT_ALL_STATS", "COUNT_STATS_0_2"]

#: a node's histogram is built on several threads only when it holds at least
#: this many (sample, feature) pairs (below, starting the threads costs more).
#: 2,000,000 (was 200,000): a parallel region per node of a boosted tree
#: (160,000 x 20, depth 6: ~20 regions a tree) doubled the fit's CPU time and
#: lost wall time too on this 2-core machine (the worker threads spin between
#: regions); now only root-sized nodes go on threads
PARALLEL_HIST_MIN_WORK = 2_000_000

#: the histogram bytes one pass over a node's rows accumulates into
#: (:func:`_hist_block`: features in groups of about this many bytes of the
#: bins they use, :func:`_group_features`).  2 MiB (was 1 MiB, counted as 256
#: bins a feature and the counts kept, so 128 features a group): a boosted
#: MNIST histogram (784 features x ~141 bins x 24 bytes, 2.65 MB) is now filled
#: in two passes over the node's rows instead of seven -- the per-row work of
#: each pass (cursor, statistics, prefetch) outweighed the cache misses of the
#: larger groups on this machine's 1 MiB L2 (100 lossguide rounds, two
#: threads: 12.7 s against 13.4 s, the same trees; one pass, 4 MiB, as fast)
HIST_BLOCK_BYTES = 2 << 20

#: the most features whose histograms one pass over a node's rows fills from
#: the column codes (:func:`feature_group`): their bins stay in the L1 cache
HIST_GROUP = 4

#: :func:`hist_build_nodes` (a whole level in one parallel region) goes on
#: several threads from this many (sample, feature) pairs in the level.  20,000
#: (was 100,000): a warm parallel region costs ~2 us here, and a best-first
#: tree's smaller children (1,000-5,000 rows) were built on one thread while
#: the other spun; 5,000 was slower again (lossguide fits)
PARALLEL_LEVEL_MIN_WORK = 20_000

#: a node's histogram reads the column codes through its samples when it holds
#: at least 1 / COLUMN_MIN_SHARE of the rows (:func:`columns_pay`).  160,000 x 20
#: codes, two threads, a node of 1/2 .. 1/16,000 of the rows (random, ascending):
#: 1.2 against 1.4 ms at 1/2, 0.013 against 0.022 ms at 1/1,024 -- faster at every
#: share tried while the columns stay in cache; the limit keeps a tiny node of a
#: data set far larger than the cache from fetching a line a code
COLUMN_MIN_SHARE = 1024

#: ``cnt_col`` values: counts accumulated in the loop; counts = the sum of all
#: statistics (class counts with unit weights); ``COUNT_STATS_0_2``: three
#: statistics whose first and last are 1 on every row (squared-error boosting's
#: ``[h, g, w] = [1, g, 1]``): only statistic 0 and 1 are summed, statistic 2 is
#: copied from statistic 0, the counts are statistic 0 (``cnt`` not kept).
#: ``cnt_col >= 0``: counts = statistic ``cnt_col`` (``cnt`` not kept).
COUNT_NONE = -1
COUNT_ALL_STATS = -2
COUNT_STATS_0_2 = -3


@njit(cache=True, nogil=True, inline="always")
def count_stat(cnt_col):
    """The statistic whose bin sums are a histogram's counts when its ``cnt`` is
    not kept (see the module's docstring): ``cnt_col`` when it names one,
    statistic 0 for :data:`COUNT_STATS_0_2`; -1 when ``cnt`` holds the counts."""
    if cnt_col >= 0:
        return cnt_col
    if cnt_col == COUNT_STATS_0_2:
        return 0
    return -1


@njit(cache=True, nogil=True, inline="always")
def bin_count(hist_f, cnt_f, cc, b):
    """The rows in bin ``b`` of one feature's histogram ``hist_f`` / ``cnt_f``:
    ``cnt_f[b]``, or with ``cc = count_stat(cnt_col) >= 0`` statistic ``cc``'s sum
    (a sum of ones: exact)."""
    if cc >= 0:
        return np.int64(hist_f[b, cc])
    return cnt_f[b]


@njit(cache=True, nogil=True)
def unit_count_column(samples, start, end, yc, sstats, w, task):
    """The ``cnt_col`` of :func:`hist_build` for the rows ``samples[start:end]``
    (and any subset of them): :data:`COUNT_ALL_STATS` for class counts when every
    weight is 1; for three dense statistics whose first and last are 1 on every
    row, :data:`COUNT_STATS_0_2`; otherwise the first column that is 1 on every
    row; else :data:`COUNT_NONE`.  ``end - start`` must stay below 2^53."""
    if task == TASK_CLASSIFICATION:
        for p in range(start, end):
            if w[samples[p]] != 1.0:
                return COUNT_NONE
        return COUNT_ALL_STATS
    if sstats.shape[1] == 3:
        return count_column_of_three(_column_is_one(samples, start, end, sstats, 0),
                                     _column_is_one(samples, start, end, sstats, 1),
                                     _column_is_one(samples, start, end, sstats, 2))
    for c in range(sstats.shape[1]):
        if _column_is_one(samples, start, end, sstats, c):
            return c
    return COUNT_NONE


@njit(cache=True, nogil=True, inline="always")
def _column_is_one(samples, start, end, sstats, c):
    """Whether statistic ``c`` is 1 on every row of ``samples[start:end]``."""
    for p in range(start, end):
        if sstats[samples[p], c] != 1.0:
            return False
    return True


@njit(cache=True, nogil=True)
def count_column_of_three(one0, one1, one2):
    """:func:`unit_count_column` of three dense statistics, from whether each is
    1 on every row: the first and last -> :data:`COUNT_STATS_0_2`; else the first
    that is; else :data:`COUNT_NONE`."""
    if one0 and one2:
        return COUNT_STATS_0_2
    if one0:
        return 0
    if one1:
        return 1
    if one2:
        return 2
    return COUNT_NONE


@njit(cache=True, nogil=True)
def _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, f0, f1,
                       cnt_col):
    """Add the samples ``samples[start:end]`` to features ``f0 .. f1 - 1`` of ``hist`` /
    ``cnt`` (with ``cnt_col != COUNT_NONE``: not ``cnt``, which is read off ``hist``
    afterwards, see the module's docstring)."""
    S = hist.shape[2]
    count = cnt_col == COUNT_NONE
    # the features as slices indexed from 0: a loop over range(f0, f1) indexing the
    # full arrays keeps numba's negative-index wraparound (f0 may be below 0 for
    # all it knows); measured 1.9x slower on a one-statistic loop, 4-5 % on a
    # boosted tree (Newton statistics)
    hs = hist[f0:f1]
    cs = cnt[f0:f1]
    m = f1 - f0
    # the row PREFETCH_DISTANCE ahead: its codes and statistics, where the node's
    # rows are scattered (.prefetch; there half the time of a child's histogram)
    ahead = prefetch_stop(samples, start, end)
    for p in range(start, end):
        if p < ahead:
            j = samples[p + PREFETCH_DISTANCE]
            for off in range(f0, f1, 64):
                prefetch_at(Xb, j, off)
            prefetch_targets(task == TASK_CLASSIFICATION, yc, w, sstats, j)
        i = np.uint64(samples[np.uint64(p)])     # (unsigned: .jit.U1)
        row = Xb[i, f0:f1]
        if task == TASK_CLASSIFICATION:
            c = yc[i]
            wi = w[i]
            if count:
                for f in range(m):
                    b = row[f]
                    hs[f, b, c] += wi
                    cs[f, b] += 1
            else:
                for f in range(m):
                    hs[f, row[f], c] += wi
        elif S == 3 and cnt_col == COUNT_STATS_0_2:
            # [1, g, 1]: statistic 2 (and the counts) equal statistic 0, copied below
            a1 = sstats[i, 1]
            for f in range(m):
                b = row[f]
                hs[f, b, 0] += 1.0
                hs[f, b, 1] += a1
        elif S == 3:
            # three statistics (regression [w, wy, wy^2]; Newton [H, G, w]) kept in
            # registers: the same sums in the same order as the general loop
            a0 = sstats[i, 0]
            a1 = sstats[i, 1]
            a2 = sstats[i, 2]
            if count:
                for f in range(m):
                    b = row[f]
                    hs[f, b, 0] += a0
                    hs[f, b, 1] += a1
                    hs[f, b, 2] += a2
                    cs[f, b] += 1
            else:
                for f in range(m):
                    b = row[f]
                    hs[f, b, 0] += a0
                    hs[f, b, 1] += a1
                    hs[f, b, 2] += a2
        else:
            for f in range(m):
                b = row[f]
                for s in range(S):
                    hs[f, b, s] += sstats[i, s]
                if count:
                    cs[f, b] += 1


@njit(cache=True, nogil=True)
def _counts_from_stats(hist, cnt, f0, f1, cnt_col, ext):
    """After the accumulation of features ``f0 .. f1 - 1`` (over their extents):
    :data:`COUNT_ALL_STATS`, ``cnt`` = the sum of the statistics;
    :data:`COUNT_STATS_0_2`, statistic 2 = statistic 0 (``cnt`` is not kept);
    any other ``cnt_col``: nothing."""
    if cnt_col != COUNT_ALL_STATS and cnt_col != COUNT_STATS_0_2:
        return
    B, S = hist.shape[1], hist.shape[2]
    for f in range(f0, f1):
        # the feature's bins 0 .. top - 1, then its missing bin (one loop body:
        # a helper called per bin costs reference counting on every call)
        top = ext[f] if ext.shape[0] > 0 else B
        nb = top + 1 if top < B else B
        for j in range(nb):
            b = j if j < top else B - 1
            if cnt_col == COUNT_STATS_0_2:
                hist[f, b, 2] = hist[f, b, 0]
            else:
                v = 0.0
                for s in range(S):
                    v += hist[f, b, s]
                cnt[f, b] = np.int64(v)


@njit(cache=True, nogil=True)
def _hist_add_sparse(sp_ptr, sp_bin, samples, start, end, yc, sstats, w, task, hist, cnt, b1,
                     count, cur):
    """:func:`_hist_build_serial` over sparse rows (:func:`.binning.sparse_codes`):
    add each row's non-default codes from its cursor ``cur[p - start]`` (an index
    into ``sp_bin``) up to the flat bin ``b1`` (excluded), and leave the cursor
    there.  Default bins are not touched (:func:`_fix_default_bins`)."""
    d, B, S = hist.shape
    h = hist.reshape(d * B, S)
    c1 = cnt.reshape(d * B)
    classification = task == TASK_CLASSIFICATION
    ahead = end - PREFETCH_DISTANCE
    # (unsigned positions, rows and flat bins: no wrap-around test on each of the
    # four stores an entry, .jit.U1; MNIST-sized nodes 13 % faster, same sums)
    ub1 = np.uint64(b1)
    for p in range(start, end):
        if p < ahead:
            j = samples[p + PREFETCH_DISTANCE]
            prefetch(sp_bin, cur[p + PREFETCH_DISTANCE - start])
            prefetch_targets(classification, yc, w, sstats, j)
        i = np.uint64(samples[p])
        k = np.uint64(cur[p - start])
        hi = np.uint64(sp_ptr[i + U1])
        if classification:
            c = yc[i]
            wi = w[i]
            while k < hi:
                fb = np.uint64(sp_bin[k])
                if fb >= ub1:
                    break
                h[fb, c] += wi
                if count:
                    c1[fb] += 1
                k += U1
        elif S == 3:
            a0 = sstats[i, 0]
            a1 = sstats[i, 1]
            a2 = sstats[i, 2]
            while k < hi:
                fb = np.uint64(sp_bin[k])
                if fb >= ub1:
                    break
                h[fb, 0] += a0
                h[fb, 1] += a1
                h[fb, 2] += a2
                if count:
                    c1[fb] += 1
                k += U1
        else:
            while k < hi:
                fb = np.uint64(sp_bin[k])
                if fb >= ub1:
                    break
                for s in range(S):
                    h[fb, s] += sstats[i, s]
                if count:
                    c1[fb] += 1
                k += U1
        cur[p - start] = np.int64(k)


@njit(cache=True, nogil=True, inline="always")
def direct_three(task, S, cc):
    """Three statistics, not class counts, the bins' counts one of them (``cc``,
    :func:`count_stat`, >= 0): the layout :func:`_hist_add_sparse_direct` and
    :func:`subtract_rows` sum."""
    return task != TASK_CLASSIFICATION and S == 3 and cc >= 0


@njit(cache=True, nogil=True)
def _hist_add_sparse_direct(sp_ptr, sp_bin, dflt, samples, start, end, sstats, hist, f0, f1,
                            cur):
    """Features ``f0 .. f1 - 1`` of the dense build (:func:`_hist_build_serial`, three
    statistics, zeroed bins) from the sparse rows: each row's non-default codes
    from its cursor ``cur[p - start]`` up to feature ``f1`` (the cursor left
    there), and its default codes summed feature by feature in contiguous runs
    -- each default bin the direct sum of its rows in their order, as the dense
    loop makes it, not the node's total minus the other bins
    (:func:`_fix_default_bins`): the same bits as the dense loop, reading ~150
    codes a MNIST row instead of 784."""
    B = np.uint64(hist.shape[1])
    d = hist.shape[0]
    h = hist.reshape(d * hist.shape[1], 3)
    u0 = np.uint64(f0)
    u1 = np.uint64(f1)
    ub1 = u1 * B
    acc0 = np.zeros(f1 - f0, np.float64)
    acc1 = np.zeros(f1 - f0, np.float64)
    acc2 = np.zeros(f1 - f0, np.float64)
    for p in range(start, end):
        i = np.uint64(samples[p])
        a0 = sstats[i, 0]
        a1 = sstats[i, 1]
        a2 = sstats[i, 2]
        k = np.uint64(cur[p - start])
        hi = np.uint64(sp_ptr[i + U1])
        f = u0
        while k < hi:
            fb = np.uint64(sp_bin[k])
            if fb >= ub1:
                break
            fe = fb // B
            for g in range(f - u0, fe - u0):
                acc0[g] += a0
                acc1[g] += a1
                acc2[g] += a2
            h[fb, 0] += a0
            h[fb, 1] += a1
            h[fb, 2] += a2
            f = fe + U1
            k += U1
        for g in range(f - u0, u1 - u0):
            acc0[g] += a0
            acc1[g] += a1
            acc2[g] += a2
        cur[p - start] = np.int64(k)
    for f in range(f0, f1):
        db = np.int64(dflt[f])
        hist[f, db, 0] = acc0[f - f0]
        hist[f, db, 1] = acc1[f - f0]
        hist[f, db, 2] = acc2[f - f0]


@njit(cache=True, nogil=True)
def _node_totals(samples, start, end, yc, sstats, w, task, S):
    """The statistics of the rows ``samples[start:end]`` summed (class weights, or
    the dense statistics' columns)."""
    tot = np.zeros(S, np.float64)
    if task == TASK_CLASSIFICATION:
        for p in range(start, end):
            i = samples[p]
            tot[yc[i]] += w[i]
    else:
        for p in range(start, end):
            i = samples[p]
            for s in range(S):
                tot[s] += sstats[i, s]
    return tot


@njit(cache=True, nogil=True)
def _fix_default_bins(hist, cnt, dflt, tot, n, f0, f1, count, ext):
    """Each feature's default bin ``dflt[f]`` (the codes the sparse rows leave
    out): the node's totals ``tot`` (and ``n`` rows) minus the feature's other
    bins -- LightGBM's ``FixHistogram``.  ``count``: the counts too (else they are
    read off the statistics afterwards)."""
    B, S = hist.shape[1], hist.shape[2]
    for f in range(f0, f1):
        db = np.int64(dflt[f])
        top = ext[f] if ext.shape[0] > 0 else B
        nb = top + 1 if top < B else B
        if S == 3:
            # the three sums in one pass over the bins (each in bin order, as below)
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            for j in range(nb):
                b = j if j < top else B - 1
                if b != db:
                    a0 += hist[f, b, 0]
                    a1 += hist[f, b, 1]
                    a2 += hist[f, b, 2]
            hist[f, db, 0] = tot[0] - a0
            hist[f, db, 1] = tot[1] - a1
            hist[f, db, 2] = tot[2] - a2
        else:
            for s in range(S):
                acc = 0.0
                for j in range(nb):
                    b = j if j < top else B - 1
                    if b != db:
                        acc += hist[f, b, s]
                hist[f, db, s] = tot[s] - acc
        if count:
            m = 0
            for j in range(nb):
                b = j if j < top else B - 1
                if b != db:
                    m += cnt[f, b]
            cnt[f, db] = n - m


@njit(cache=True, nogil=True)
def _zero_empty_default_bins(hist, cnt, dflt, f0, f1, cc):
    """A default bin that holds no row: exactly zero (the subtraction of
    :func:`_fix_default_bins` leaves rounding residue).  ``cc``:
    :func:`count_stat`."""
    for f in range(f0, f1):
        db = dflt[f]
        if bin_count(hist[f], cnt[f], cc, db) == 0:
            hist[f, db, :] = 0.0


@njit(cache=True, nogil=True, inline="always")
def bins_in_use(ext, f0, f1, B):
    """The bins features ``f0 .. f1 - 1`` use in a histogram of ``B`` bins a
    feature: their extents ``ext`` and missing bins (every bin without
    extents)."""
    if ext.shape[0] == 0:
        return (f1 - f0) * B
    bins = 0
    for f in range(f0, f1):
        bins += ext[f] + 1
    return bins


@njit(cache=True, nogil=True)
def use_sparse_rows(sp, n_rows, f0, f1, B, ext):
    """Whether a histogram of ``n_rows`` rows over features ``f0 .. f1 - 1`` is
    cheaper from the sparse rows ``sp`` (:func:`.binning.sparse_codes`): their
    codes plus a pass over the features' bins (:func:`_fix_default_bins`) against
    every code of the dense rows."""
    if sp[2].shape[0] == 0 or n_rows == 0:
        return False
    d = sp[2].shape[0]
    N = sp[0].shape[0] - 1
    nnz = sp[1].shape[0] * (f1 - f0) / (N * d) if N > 0 else 0.0
    bins = bins_in_use(ext, f0, f1, B)
    # a sparse code costs about 1.5 dense ones (its feature is read with it)
    return n_rows * ((f1 - f0) - 1.5 * nnz) > bins


@njit(cache=True, nogil=True)
def no_sparse():
    """The sparse rows meaning "none" (dense codes only)."""
    return (np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint8))


@njit(cache=True, nogil=True)
def no_extents():
    """The ``ext`` meaning "every bin of every feature"."""
    return np.zeros(0, np.int64)


@njit(cache=True, nogil=True)
def no_columns():
    """The ``xt`` meaning "no column codes" (row-major ``Xb`` only)."""
    return np.zeros((0, 0), np.uint8)


@njit(cache=True, nogil=True)
def ascending_run(samples, start, end):
    """``samples[start]`` when ``samples[start:end]`` is one ascending run of rows
    (``r, r + 1, ...``; the rows read in order from column codes), else -1."""
    if end <= start:
        return -1
    r0 = samples[start]
    for p in range(start + 1, end):
        if samples[p] != r0 + (p - start):
            return -1
    return r0


@njit(cache=True, nogil=True, inline="always")
def columns_pay(xt, n_node, task, sstats):
    """Whether a node of ``n_node`` rows reads the column codes ``xt`` (empty:
    none) through its samples (:func:`_hist_columns_at`): three dense statistics,
    and at least ``1 / COLUMN_MIN_SHARE`` of the data's rows (a sparser node
    touches a cache line of every column for each of its rows; the row-major
    loop, one line a row)."""
    return _columns_usable(xt, task, sstats) and n_node * COLUMN_MIN_SHARE >= xt.shape[1]


@njit(cache=True, nogil=True, inline="always")
def _columns_usable(xt, task, sstats):
    """Whether the column codes ``xt`` can stand for ``Xb`` at all: there are
    some, and three dense statistics (not class counts)."""
    return xt.shape[0] > 0 and task != TASK_CLASSIFICATION and sstats.shape[1] == 3


@njit(cache=True, nogil=True, inline="always")
def _add_three(h, b, a0, a1, a2):
    """``h[b] += (a0, a1, a2)``: one row's three statistics into one bin."""
    h[b, 0] += a0
    h[b, 1] += a1
    h[b, 2] += a2


@njit(cache=True, nogil=True, inline="always")
def _add_four(hs, xs, i, a0, a1, a2):
    """Row ``i``'s three statistics into the bins of its codes in the four
    features' histograms ``hs`` (codes ``xs``)."""
    _add_three(hs[0], xs[0][i], a0, a1, a2)
    _add_three(hs[1], xs[1][i], a0, a1, a2)
    _add_three(hs[2], xs[2][i], a0, a1, a2)
    _add_three(hs[3], xs[3][i], a0, a1, a2)


@njit(cache=True, nogil=True, inline="always")
def _count_four(cs, xs, i):
    """Row ``i`` counted in the four features' count rows ``cs``."""
    cs[0][xs[0][i]] += 1
    cs[1][xs[1][i]] += 1
    cs[2][xs[2][i]] += 1
    cs[3][xs[3][i]] += 1


@njit(cache=True, nogil=True, inline="always")
def _add_three_features(hs, xs, i, a0, a1, a2):
    """:func:`_add_four` of three features."""
    _add_three(hs[0], xs[0][i], a0, a1, a2)
    _add_three(hs[1], xs[1][i], a0, a1, a2)
    _add_three(hs[2], xs[2][i], a0, a1, a2)


@njit(cache=True, nogil=True, inline="always")
def _add_two_features(hs, xs, i, a0, a1, a2):
    """:func:`_add_four` of two features."""
    _add_three(hs[0], xs[0][i], a0, a1, a2)
    _add_three(hs[1], xs[1][i], a0, a1, a2)


@njit(cache=True, nogil=True, inline="always")
def _add_unit02(hs, xs, i, a1):
    """Row ``i`` of ``[1, g, 1]`` statistics (:data:`COUNT_STATS_0_2`) into the
    bins of its codes in a group of 1-4 features: ``1`` to statistic 0 and ``g``
    to statistic 1 (two read-modify-writes instead of three; statistic 2 is
    copied from statistic 0 afterwards, :func:`_counts_from_stats`)."""
    for k in range(len(hs)):
        b = xs[k][i]
        hs[k][b, 0] += 1.0
        hs[k][b, 1] += a1


@njit(cache=True, nogil=True, inline="always")
def _count_features(cs, xs, i):
    """Row ``i`` counted in the count rows ``cs`` of a group of 1-3 features."""
    for k in range(len(cs)):
        cs[k][xs[k][i]] += 1


@njit(cache=True, nogil=True, inline="always")
def feature_group(r):
    """The features of the next pass over a node's rows when ``r`` are left:
    at most four a pass (:data:`HIST_GROUP`), the fewest passes, as even as can
    be -- 10 features (a thread's half of 20) go 4 + 3 + 3, not 4 + 4 + 1 + 1
    (each pass reads the node's samples and statistics once: a pass of one
    feature costs nearly as much as one of four)."""
    passes = (r + HIST_GROUP - 1) // HIST_GROUP
    return (r + passes - 1) // passes


@njit(cache=True, nogil=True)
def _hist_columns(xt, r0, n, sstats, hist, cnt, f0, f1, count, unit02):
    """Add the rows ``r0 .. r0 + n - 1`` (in order) to features ``f0 .. f1 - 1`` of
    ``hist`` (three dense statistics; ``count``: also ``cnt``) from the column
    codes ``xt`` (``(d, n_rows)``): up to four features a pass over the rows
    (:func:`feature_group`), each bin's sums in the rows' order (see the
    module's docstring).  ``unit02``: the statistics are ``[1, g, 1]``
    (:data:`COUNT_STATS_0_2`): statistics 0 and 1 only (:func:`_add_unit02`)."""
    ss = sstats[r0:r0 + n]
    f = f0
    while f < f1:
        g = feature_group(f1 - f)
        if unit02:
            if g == 4:
                hs = (hist[f], hist[f + 1], hist[f + 2], hist[f + 3])
                xs = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n], xt[f + 2, r0:r0 + n],
                      xt[f + 3, r0:r0 + n])
                for i in range(n):
                    _add_unit02(hs, xs, i, ss[i, 1])
            elif g == 3:
                hs3 = (hist[f], hist[f + 1], hist[f + 2])
                xs3 = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n], xt[f + 2, r0:r0 + n])
                for i in range(n):
                    _add_unit02(hs3, xs3, i, ss[i, 1])
            elif g == 2:
                hs2 = (hist[f], hist[f + 1])
                xs2 = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n])
                for i in range(n):
                    _add_unit02(hs2, xs2, i, ss[i, 1])
            else:
                hs1 = (hist[f],)
                xs1 = (xt[f, r0:r0 + n],)
                for i in range(n):
                    _add_unit02(hs1, xs1, i, ss[i, 1])
        elif g == 4:
            hs = (hist[f], hist[f + 1], hist[f + 2], hist[f + 3])
            xs = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n], xt[f + 2, r0:r0 + n],
                  xt[f + 3, r0:r0 + n])
            for i in range(n):
                _add_four(hs, xs, i, ss[i, 0], ss[i, 1], ss[i, 2])
            if count:
                cs = (cnt[f], cnt[f + 1], cnt[f + 2], cnt[f + 3])
                for i in range(n):
                    _count_four(cs, xs, i)
        elif g == 3:
            hs3 = (hist[f], hist[f + 1], hist[f + 2])
            xs3 = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n], xt[f + 2, r0:r0 + n])
            for i in range(n):
                _add_three_features(hs3, xs3, i, ss[i, 0], ss[i, 1], ss[i, 2])
            if count:
                cs3 = (cnt[f], cnt[f + 1], cnt[f + 2])
                for i in range(n):
                    _count_features(cs3, xs3, i)
        elif g == 2:
            hs2 = (hist[f], hist[f + 1])
            xs2 = (xt[f, r0:r0 + n], xt[f + 1, r0:r0 + n])
            for i in range(n):
                _add_two_features(hs2, xs2, i, ss[i, 0], ss[i, 1], ss[i, 2])
            if count:
                cs2 = (cnt[f], cnt[f + 1])
                for i in range(n):
                    _count_features(cs2, xs2, i)
        else:
            h0 = hist[f]
            c0 = cnt[f]
            x0 = xt[f, r0:r0 + n]
            for i in range(n):
                b0 = x0[i]
                _add_three(h0, b0, ss[i, 0], ss[i, 1], ss[i, 2])
                if count:
                    c0[b0] += 1
        f += g


@njit(cache=True, nogil=True)
def _root_columns_counted(xt, xt_cnt, sstats, hist, f0, f1, cnt_col, e):
    """Features ``f0 .. f1 - 1`` of the histogram of all rows in order (a root on
    every row) when the statistics ``cnt_col`` names are 1 on every row (2: the
    weight column of boosting's ``[H, G, w]``; :data:`COUNT_STATS_0_2`: also
    ``H``, squared error): only the other statistics are accumulated (two or one
    read-modify-write a row and feature instead of three), the unit ones are the
    rows' counts per bin, ``xt_cnt`` (``BinnedData.Xt_cnt``; sums of ones are
    those counts exactly; such a histogram keeps no ``cnt``, see
    :func:`count_stat`).  The same histogram as
    :func:`_hist_columns`: each accumulated bin adds the rows in their order."""
    B = hist.shape[1]
    n = xt.shape[1]
    for f in range(f0, f1):
        top = e[f] if e.shape[0] > 0 else B
        hist[f, :top] = 0.0
        hist[f, B - 1] = 0.0
    both = cnt_col == 2          # accumulate H and G; else (0 and 2 unit) G only
    f = f0
    while f < f1:
        g = feature_group(f1 - f)
        if g == 4:
            h0, h1, h2, h3 = hist[f], hist[f + 1], hist[f + 2], hist[f + 3]
            x0, x1, x2, x3 = xt[f], xt[f + 1], xt[f + 2], xt[f + 3]
            if both:
                for i in range(n):
                    a0 = sstats[i, 0]
                    a1 = sstats[i, 1]
                    h0[x0[i], 0] += a0
                    h0[x0[i], 1] += a1
                    h1[x1[i], 0] += a0
                    h1[x1[i], 1] += a1
                    h2[x2[i], 0] += a0
                    h2[x2[i], 1] += a1
                    h3[x3[i], 0] += a0
                    h3[x3[i], 1] += a1
            else:
                for i in range(n):
                    a1 = sstats[i, 1]
                    h0[x0[i], 1] += a1
                    h1[x1[i], 1] += a1
                    h2[x2[i], 1] += a1
                    h3[x3[i], 1] += a1
        elif g == 3:
            h0, h1, h2 = hist[f], hist[f + 1], hist[f + 2]
            x0, x1, x2 = xt[f], xt[f + 1], xt[f + 2]
            if both:
                for i in range(n):
                    a0 = sstats[i, 0]
                    a1 = sstats[i, 1]
                    h0[x0[i], 0] += a0
                    h0[x0[i], 1] += a1
                    h1[x1[i], 0] += a0
                    h1[x1[i], 1] += a1
                    h2[x2[i], 0] += a0
                    h2[x2[i], 1] += a1
            else:
                for i in range(n):
                    a1 = sstats[i, 1]
                    h0[x0[i], 1] += a1
                    h1[x1[i], 1] += a1
                    h2[x2[i], 1] += a1
        elif g == 2:
            h0, h1 = hist[f], hist[f + 1]
            x0, x1 = xt[f], xt[f + 1]
            if both:
                for i in range(n):
                    a0 = sstats[i, 0]
                    a1 = sstats[i, 1]
                    h0[x0[i], 0] += a0
                    h0[x0[i], 1] += a1
                    h1[x1[i], 0] += a0
                    h1[x1[i], 1] += a1
            else:
                for i in range(n):
                    a1 = sstats[i, 1]
                    h0[x0[i], 1] += a1
                    h1[x1[i], 1] += a1
        else:
            h0 = hist[f]
            x0 = xt[f]
            for i in range(n):
                if both:
                    h0[x0[i], 0] += sstats[i, 0]
                h0[x0[i], 1] += sstats[i, 1]
        f += g
    for f in range(f0, f1):
        top = e[f] if e.shape[0] > 0 else B
        for j in range(top + 1 if top < B else B):
            b = j if j < top else B - 1
            c = xt_cnt[f, b]
            hist[f, b, 2] = float(c)
            if not both:
                hist[f, b, 0] = float(c)


@njit(cache=True, nogil=True, parallel=True)
def _root_counted_features(xt, xt_cnt, sstats, hist, cnt_col, e, n_blocks):
    d = xt.shape[0]
    for k in prange(n_blocks):
        _root_columns_counted(xt, xt_cnt, sstats, hist, k * d // n_blocks,
                              (k + 1) * d // n_blocks, cnt_col, e)


@njit(cache=True, nogil=True)
def root_counts_usable(xt, xt_cnt, samples, n, sstats, task, cnt_col, n_bins):
    """Whether :func:`root_hist_counted` builds the histogram of the node
    ``samples[:n]``: every row of the data in order, three dense statistics whose
    unit columns (``cnt_col``) are 2 or 0 and 2, and the bins counted."""
    return (xt_cnt.shape[0] > 0 and xt_cnt.shape[0] == xt.shape[0]
            and xt_cnt.shape[1] == n_bins and n == xt.shape[1]
            and (cnt_col == 2 or cnt_col == COUNT_STATS_0_2)
            and _columns_usable(xt, task, sstats) and ascending_run(samples, 0, n) == 0)


@njit(cache=True, nogil=True)
def root_hist_counted(xt, xt_cnt, sstats, hist, cnt_col, ext, n_threads):
    """The histogram of a root on all rows with unit statistics counted once
    (:func:`_root_columns_counted`; see :func:`root_counts_usable`), on
    ``n_threads`` threads split by features (the same histogram)."""
    d = xt.shape[0]
    n_blocks = min(n_threads, d)
    if n_blocks > 1 and xt.shape[1] * d >= PARALLEL_HIST_MIN_WORK:
        _root_counted_features(xt, xt_cnt, sstats, hist, cnt_col, ext, n_blocks)
    else:
        _root_columns_counted(xt, xt_cnt, sstats, hist, 0, d, cnt_col, ext)


@njit(cache=True, nogil=True)
def _hist_columns_at(xt, samples, start, end, sstats, hist, cnt, f0, f1, count, unit02):
    """:func:`_hist_columns` over the rows ``samples[start:end]`` (any node: the
    codes and statistics read at those rows, in that order).  Positions and rows
    index as unsigned integers (:data:`.jit.U1`; a node of 10,000 of 160,000
    rows, ``[1, g, 1]``: 173 -> 128 us)."""
    s0 = np.uint64(start)
    s1 = np.uint64(end)
    f = f0
    while f < f1:
        g = feature_group(f1 - f)
        if unit02:
            # [1, g, 1]: two read-modify-writes a row and feature instead of three
            # (a node of 80,000 of 160,000 rows, 8 features: 1.67 -> 1.00 ms)
            if g == 4:
                hs = (hist[f], hist[f + 1], hist[f + 2], hist[f + 3])
                xs = (xt[f], xt[f + 1], xt[f + 2], xt[f + 3])
                for p in range(s0, s1):
                    i = np.uint64(samples[p])
                    _add_unit02(hs, xs, i, sstats[i, 1])
            elif g == 3:
                hs3 = (hist[f], hist[f + 1], hist[f + 2])
                xs3 = (xt[f], xt[f + 1], xt[f + 2])
                for p in range(s0, s1):
                    i = np.uint64(samples[p])
                    _add_unit02(hs3, xs3, i, sstats[i, 1])
            elif g == 2:
                hs2 = (hist[f], hist[f + 1])
                xs2 = (xt[f], xt[f + 1])
                for p in range(s0, s1):
                    i = np.uint64(samples[p])
                    _add_unit02(hs2, xs2, i, sstats[i, 1])
            else:
                hs1 = (hist[f],)
                xs1 = (xt[f],)
                for p in range(s0, s1):
                    i = np.uint64(samples[p])
                    _add_unit02(hs1, xs1, i, sstats[i, 1])
        elif g == 4:
            hs = (hist[f], hist[f + 1], hist[f + 2], hist[f + 3])
            xs = (xt[f], xt[f + 1], xt[f + 2], xt[f + 3])
            for p in range(s0, s1):
                i = np.uint64(samples[p])
                _add_four(hs, xs, i, sstats[i, 0], sstats[i, 1], sstats[i, 2])
            if count:
                cs = (cnt[f], cnt[f + 1], cnt[f + 2], cnt[f + 3])
                for p in range(s0, s1):
                    _count_four(cs, xs, np.uint64(samples[p]))
        elif g == 3:
            hs3 = (hist[f], hist[f + 1], hist[f + 2])
            xs3 = (xt[f], xt[f + 1], xt[f + 2])
            for p in range(s0, s1):
                i = np.uint64(samples[p])
                _add_three_features(hs3, xs3, i, sstats[i, 0], sstats[i, 1], sstats[i, 2])
            if count:
                cs3 = (cnt[f], cnt[f + 1], cnt[f + 2])
                for p in range(s0, s1):
                    _count_features(cs3, xs3, np.uint64(samples[p]))
        elif g == 2:
            hs2 = (hist[f], hist[f + 1])
            xs2 = (xt[f], xt[f + 1])
            for p in range(s0, s1):
                i = np.uint64(samples[p])
                _add_two_features(hs2, xs2, i, sstats[i, 0], sstats[i, 1], sstats[i, 2])
            if count:
                cs2 = (cnt[f], cnt[f + 1])
                for p in range(s0, s1):
                    _count_features(cs2, xs2, np.uint64(samples[p]))
        else:
            h0 = hist[f]
            c0 = cnt[f]
            x0 = xt[f]
            for p in range(s0, s1):
                i = np.uint64(samples[p])
                b0 = x0[i]
                _add_three(h0, b0, sstats[i, 0], sstats[i, 1], sstats[i, 2])
                if count:
                    c0[b0] += 1
        f += g


@njit(cache=True, nogil=True)
def _row_cursors(sp_ptr, sp_bin, samples, start, end, b0):
    """Each row's first sparse code at or above the flat bin ``b0``."""
    cur = np.empty(end - start, np.int64)
    for p in range(start, end):
        i = samples[p]
        lo = sp_ptr[i]
        if b0 > 0:
            lo += np.searchsorted(sp_bin[lo:sp_ptr[i + 1]], b0)
        cur[p - start] = lo
    return cur


@njit(cache=True, nogil=True, inline="always")
def _hist_block(Xb, sp, samples, start, end, yc, sstats, w, task, hist, cnt, k, n_blocks,
                cnt_col, ext, xt, r0, sub_h, sub_c):
    """Zero and fill block ``k`` of ``n_blocks`` contiguous feature blocks of one
    node's ``hist`` / ``cnt`` (``n_blocks = 1``: the whole histogram); only the
    bins within the extents ``ext`` (empty: all).  From the sparse rows ``sp``
    when they are cheaper (:func:`use_sparse_rows`); from the column codes ``xt``
    when ``r0 >= 0`` (the node's rows are ``r0, r0 + 1, ...``, see
    :func:`ascending_run`; three dense statistics).  ``sub_h`` / ``sub_c`` not
    empty (:func:`no_subtraction`): then ``sub -= `` the block, as
    :func:`hist_subtract` (a parent's histogram minus this smaller child's)."""
    d = Xb.shape[1]
    _hist_range(Xb, sp, samples, start, end, yc, sstats, w, task, hist, cnt,
                k * d // n_blocks, (k + 1) * d // n_blocks, cnt_col, ext, xt, r0, sub_h, sub_c)


@njit(cache=True, nogil=True)
def _zero_features(hist, cnt, f0, f1, ext, counted):
    """Zero features ``f0 .. f1 - 1`` of ``hist`` (and ``cnt`` when ``counted``)
    within their extents."""
    B = hist.shape[1]
    if ext.shape[0] == 0:
        hist[f0:f1] = 0.0
        if counted:
            cnt[f0:f1] = 0
    else:
        for f in range(f0, f1):
            top = ext[f]
            hist[f, :top] = 0.0
            hist[f, B - 1] = 0.0
            if counted:
                cnt[f, :top] = 0
                cnt[f, B - 1] = 0


@njit(cache=True, nogil=True)
def no_subtraction():
    """The ``(sub_h, sub_c)`` of :func:`_hist_block` meaning "no subtraction"."""
    return np.zeros((0, 0, 0), np.float64), np.zeros((0, 0), np.int64)


@njit(cache=True, nogil=True, inline="always")
def _group_features(hist, ext, f0, f1, counted):
    """How many of the features ``f0 .. f1 - 1`` one pass over a node's rows
    fills (:func:`_hist_range`): about :data:`HIST_BLOCK_BYTES` of the bins they
    use (their extents ``ext`` and missing bin, every bin without extents; the
    counts ``cnt`` too where ``counted``), at least 8."""
    B, S = hist.shape[1], hist.shape[2]
    bins = bins_in_use(ext, f0, f1, B) / max(f1 - f0, 1)      # a feature, on average
    return max(8, int(HIST_BLOCK_BYTES / (max(bins, 1.0) * (S + (1 if counted else 0)) * 8.0)))


@njit(cache=True, nogil=True, inline="always")
def _hist_range(Xb, sp, samples, start, end, yc, sstats, w, task, hist, cnt, f0, f1, cnt_col,
                ext, xt, r0, sub_h, sub_c):
    """:func:`_hist_block` of the features ``f0 .. f1 - 1``."""
    B = hist.shape[1]
    subtract = sub_h.shape[0] > 0
    # features in cache-sized groups, one pass over the rows each: a histogram's
    # bins are spread over B * (S + 1) words a feature, and 784 features x 256
    # bins (MNIST) did not fit a core's L2 cache -- one pass over all of them
    # was 2.7x slower than two passes over halves (the same sums in the same
    # order: each bin still adds the node's rows in their order)
    count = cnt_col == COUNT_NONE
    cc = count_stat(cnt_col)
    step = _group_features(hist, ext, f0, f1, cc < 0)
    # (sparse or dense decided for the node's whole histogram, not for this block
    # of features: a default bin derived from the totals differs from the dense
    # sums by rounding, so a per-block choice made the model depend on the number
    # of threads)
    if use_sparse_rows(sp, end - start, 0, Xb.shape[1], B, ext):
        # each row's codes other than its features' most frequent ones, then the
        # default bins from the node's totals -- group by group, each group's
        # zeroing, additions, default bins, counts and subtraction while its bins
        # are in the cache (one pass over the whole histogram each was a fifth of
        # a boosting fit on MNIST: 784 features x ~140 bins x 32 bytes a node)
        cur = _row_cursors(sp[0], sp[1], samples, start, end, f0 * B)
        tot = _node_totals(samples, start, end, yc, sstats, w, task, hist.shape[2])
        for g0 in range(f0, f1, step):
            g1 = min(g0 + step, f1)
            _zero_features(hist, cnt, g0, g1, ext, cc < 0)
            _hist_add_sparse(sp[0], sp[1], samples, start, end, yc, sstats, w, task, hist,
                             cnt, g1 * B, count, cur)
            _fix_default_bins(hist, cnt, sp[2], tot, end - start, g0, g1, count, ext)
            _counts_from_stats(hist, cnt, g0, g1, cnt_col, ext)
            _zero_empty_default_bins(hist, cnt, sp[2], g0, g1, cc)
            if subtract:
                _subtract_features(sub_h, sub_c, hist, cnt, ext, g0, g1, cc)
        return
    _zero_features(hist, cnt, f0, f1, ext, cc < 0)
    unit02 = cnt_col == COUNT_STATS_0_2
    if r0 >= 0:
        _hist_columns(xt, r0, end - start, sstats, hist, cnt, f0, f1, count, unit02)
    elif columns_pay(xt, end - start, task, sstats):
        _hist_columns_at(xt, samples, start, end, sstats, hist, cnt, f0, f1, count, unit02)
    elif sp[2].shape[0] > 0 and direct_three(task, hist.shape[2], cc):
        # the dense sums from the sparse rows (default bins summed directly)
        cur = _row_cursors(sp[0], sp[1], samples, start, end, f0 * B)
        for g0 in range(f0, f1, step):
            _hist_add_sparse_direct(sp[0], sp[1], sp[2], samples, start, end, sstats, hist,
                                    g0, min(g0 + step, f1), cur)
    else:
        for g0 in range(f0, f1, step):
            _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, g0,
                               min(g0 + step, f1), cnt_col)
    _counts_from_stats(hist, cnt, f0, f1, cnt_col, ext)
    if subtract:
        _subtract_features(sub_h, sub_c, hist, cnt, ext, f0, f1, cc)


#: :func:`_hist_block` as a plain kernel, for the parallel regions: their prange
#: bodies call it instead of inlining it (see ``level_wise._split_chunks_par``)
hist_block = njit(cache=True, nogil=True)(_hist_block.py_func)


@njit(cache=True, nogil=True, parallel=True)
def _hist_build_features(Xb, sp, samples, start, end, yc, sstats, w, task, hist, cnt, n_blocks,
                         cnt_col, ext, xt, r0, sub_h, sub_c):
    """:func:`hist_build` on ``n_blocks`` threads, each owning a block of features."""
    for k in prange(n_blocks):
        hist_block(Xb, sp, samples, start, end, yc, sstats, w, task, hist, cnt, k, n_blocks,
                   cnt_col, ext, xt, r0, sub_h, sub_c)


@njit(cache=True, nogil=True)
def hist_build(Xb, samples, start, end, yc, sstats, w, task, hist, cnt, n_threads=1,
               cnt_col=COUNT_NONE, ext=None, sp=None, xt=None, sub=None):
    """Fill ``hist``/``cnt`` (zeroed here) from the samples ``samples[start:end]``;
    on ``n_threads`` threads (split by features: the result does not depend on
    it) when the node is large enough (:data:`PARALLEL_HIST_MIN_WORK`).
    ``cnt_col``: :func:`unit_count_column` of the rows (the same histogram,
    faster), or :data:`COUNT_NONE`.  ``ext``: the features' extents (see the
    module docstring; None: every bin).  ``sp``: the sparse rows of ``Xb``
    (:func:`.binning.sparse_codes`; None: none), used where they are cheaper --
    each default bin is then the node's total minus the feature's other bins,
    equal to the dense sums up to rounding.  ``xt``: the codes column by column
    (``BinnedData.Xt``; None or empty: none), read instead of ``Xb`` -- the same
    histogram -- when the rows are one ascending run (the root) and there are three
    dense statistics.  ``sub``: ``(parent_hist, parent_cnt)`` to subtract this
    histogram from, as :func:`hist_subtract` after the build (the same bits), made
    feature group by feature group while the group's bins are in the cache (None,
    or the empty arrays of :func:`no_subtraction`: none).  The one-node case of :func:`hist_build_nodes` (its own
    threshold: one node a region)."""
    if ext is None:
        e = no_extents()
    else:
        e = ext
    if sp is None:
        s = no_sparse()
    else:
        s = sp
    if xt is None:
        x = no_columns()
    else:
        x = xt
    if sub is None:
        sub_h, sub_c = no_subtraction()
    else:
        sub_h, sub_c = sub
    r0 = -1
    if _columns_usable(x, task, sstats):
        r0 = ascending_run(samples, start, end)
    n_blocks = min(n_threads, Xb.shape[1])
    if n_blocks > 1 and (end - start) * Xb.shape[1] >= PARALLEL_HIST_MIN_WORK:
        _hist_build_features(Xb, s, samples, start, end, yc, sstats, w, task, hist, cnt,
                             n_blocks, cnt_col, e, x, r0, sub_h, sub_c)
    else:
        _hist_block(Xb, s, samples, start, end, yc, sstats, w, task, hist, cnt, 0, 1, cnt_col,
                    e, x, r0, sub_h, sub_c)


@njit(cache=True, nogil=True, parallel=True)
def _hist_build_nodes_features(Xb, sp, samples, starts, ends, slots, n_nodes, yc, sstats, w,
                               task, hist, cnt, n_blocks, cnt_col, ext, xt, subs):
    """:func:`hist_build_nodes` on ``n_blocks`` threads, each owning a contiguous
    block of features of every node's histogram."""
    for k in prange(n_blocks):
        # (np.int64: a prange index is unsigned; one signature for both callers)
        _hist_block_nodes(Xb, sp, samples, starts, ends, slots, n_nodes, yc, sstats, w, task,
                          hist, cnt, np.int64(k), n_blocks, cnt_col, ext, xt, subs)


@njit(cache=True, nogil=True)
def fused_subtraction(subs, slot):
    """The parent slot ``a`` of the subtraction ``(a, slot)`` in ``subs`` when it is
    the only one from ``a`` (then it can be made as ``slot``'s histogram is built,
    feature group by feature group, with the same result; several siblings
    subtracted from one parent keep the order of ``subs``), else -1."""
    a = -1
    for q in range(subs.shape[0]):
        if subs[q, 1] == slot:
            a = subs[q, 0]
    if a < 0:
        return -1
    m = 0
    for q in range(subs.shape[0]):
        if subs[q, 0] == a:
            m += 1
    return a if m == 1 else -1


@njit(cache=True, nogil=True)
def _built_here(slots, n_nodes, b):
    for q in range(n_nodes):
        if slots[q] == b:
            return True
    return False


@njit(cache=True, nogil=True)
def _hist_block_nodes(Xb, sp, samples, starts, ends, slots, n_nodes, yc, sstats, w, task, hist,
                      cnt, k, n_blocks, cnt_col, ext, xt, subs):
    """Feature block ``k`` of ``n_blocks`` of every node's histogram
    (:func:`_hist_build_nodes_features`'s thread ``k``), then that block of the
    subtractions ``subs`` (each made with its node's block where it is the only
    subtraction from its parent: :func:`fused_subtraction`)."""
    eh, ec = no_subtraction()
    for q in range(n_nodes):
        a = fused_subtraction(subs, slots[q])
        _hist_block(Xb, sp, samples, starts[q], ends[q], yc, sstats, w, task, hist[slots[q]],
                    cnt[slots[q]], k, n_blocks, cnt_col, ext, xt, -1,
                    hist[a] if a >= 0 else eh, cnt[a] if a >= 0 else ec)
    d = Xb.shape[1]
    for q in range(subs.shape[0]):
        a = subs[q, 0]
        b = subs[q, 1]
        if _built_here(slots, n_nodes, b) and fused_subtraction(subs, b) >= 0:
            continue
        _subtract_features(hist[a], cnt[a], hist[b], cnt[b], ext, k * d // n_blocks,
                           (k + 1) * d // n_blocks, count_stat(cnt_col))


@njit(cache=True, nogil=True)
def _hist_segment(Xb, samples, starts, ends, slots, yc, sstats, w, task, hist, cnt, cnt_col, ext,
                  xt, subs_of, u0, u1):
    """The units ``u0 .. u1 - 1`` of :func:`hist_build_segments` -- unit ``q * d + f``
    is feature ``f`` of node ``q``'s histogram -- node by node, each node's
    features in one :func:`_hist_range`, then the same features of its
    subtraction (``subs_of[q] >= 0``: that slot minus node ``q``'s)."""
    d = Xb.shape[1]
    sp = no_sparse()
    eh, ec = no_subtraction()
    u = u0
    while u < u1:
        q = u // d
        f0 = u - q * d
        f1 = min(d, f0 + (u1 - u))
        a = subs_of[q]
        _hist_range(Xb, sp, samples, starts[q], ends[q], yc, sstats, w, task, hist[slots[q]],
                    cnt[slots[q]], f0, f1, cnt_col, ext, xt, -1, hist[a] if a >= 0 else eh,
                    cnt[a] if a >= 0 else ec)
        u += f1 - f0


@njit(cache=True, nogil=True, parallel=True)
def _hist_segments_par(Xb, samples, starts, ends, slots, yc, sstats, w, task, hist, cnt, cnt_col,
                       ext, xt, subs_of, cuts, n_threads):
    for k in prange(n_threads):
        _hist_segment(Xb, samples, starts, ends, slots, yc, sstats, w, task, hist, cnt, cnt_col,
                      ext, xt, subs_of, cuts[k], cuts[k + 1])


@njit(cache=True, nogil=True)
def segment_cuts(starts, ends, n_nodes, d, n_threads):
    """Where :func:`hist_build_segments` cuts the units (node, feature) -- node
    by node, features in order, each weighing the node's rows -- into
    ``n_threads`` contiguous runs of (nearly) equal work: ``cuts[k] .. cuts[k+1]
    - 1`` are thread ``k``'s units.  A cut inside a node falls on a multiple of
    :data:`HIST_GROUP` features, so both sides fill whole passes (13 features
    would take four passes, 12 three).  At most ``n_threads - 1`` nodes are
    shared by two threads."""
    total = 0
    for q in range(n_nodes):
        total += (ends[q] - starts[q]) * d
    cuts = np.empty(n_threads + 1, np.int64)
    cuts[0] = 0
    k = 1
    acc = 0
    for q in range(n_nodes):
        r = ends[q] - starts[q]
        for f in range(0, d, HIST_GROUP):
            while k < n_threads and acc * n_threads >= k * total:
                cuts[k] = q * d + f
                k += 1
            acc += r * min(HIST_GROUP, d - f)
    while k <= n_threads:
        cuts[k] = n_nodes * d
        k += 1
    return cuts


@njit(cache=True, nogil=True)
def hist_build_segments(Xb, samples, starts, ends, slots, n_nodes, yc, sstats, w, task, hist,
                        cnt, n_threads, cnt_col, ext, xt, subs_of):
    """:func:`hist_build_nodes` for dense codes (no sparse rows) with the work
    cut by rows x features instead of by features: the nodes' (node, feature)
    pairs in order, ``n_threads`` contiguous runs of equal work
    (:func:`segment_cuts`), so each thread reads the samples of its own nodes
    (a split node's, of both threads) and the loads are even whatever the
    nodes' sizes.  ``subs_of[q] >= 0``: after node ``q``'s features, that slot
    minus node ``q``'s histogram over the same features (a parent's minus its
    smaller child's).  Each bin adds the node's rows in their order: the same
    histograms as node by node."""
    cuts = segment_cuts(starts, ends, n_nodes, Xb.shape[1], n_threads)
    if n_threads > 1:
        _hist_segments_par(Xb, samples, starts, ends, slots, yc, sstats, w, task, hist, cnt,
                           cnt_col, ext, xt, subs_of, cuts, n_threads)
    else:
        _hist_segment(Xb, samples, starts, ends, slots, yc, sstats, w, task, hist, cnt, cnt_col,
                      ext, xt, subs_of, 0, cuts[1])


@njit(cache=True, nogil=True)
def hist_build_nodes(Xb, samples, starts, ends, slots, n_nodes, yc, sstats, w, task, hist, cnt,
                     n_threads=1, cnt_col=COUNT_NONE, ext=None, sp=None, xt=None, subs=None):
    """The histograms of ``n_nodes`` nodes at once (a level of a level-wise
    grower): node ``q`` holds ``samples[starts[q]:ends[q]]`` and its histogram goes
    to ``hist[slots[q]]`` / ``cnt[slots[q]]``.  One parallel region for all of them
    on ``n_threads`` threads split by features (the same sums as
    :func:`hist_build` node by node, whatever the number of threads) when the
    level holds at least :data:`PARALLEL_LEVEL_MIN_WORK` (sample, feature) pairs.
    ``ext``, ``sp``: as :func:`hist_build`; ``xt``: the column codes (None: none),
    read through the samples by the nodes where they pay (:func:`columns_pay`).
    ``subs``: rows ``(a, b)`` of slots, then ``hist[a] -= hist[b]`` as
    :func:`hist_subtract` (a parent's histogram minus its smaller child's, built
    here), each thread its own features: the same result."""
    if ext is None:
        e = no_extents()
    else:
        e = ext
    if sp is None:
        s = no_sparse()
    else:
        s = sp
    if xt is None:
        x = no_columns()
    else:
        x = xt
    if subs is None:
        sb = np.zeros((0, 2), np.int64)
    else:
        sb = subs
    d = Xb.shape[1]
    n_blocks = min(n_threads, d)
    work = 0
    for q in range(n_nodes):
        work += ends[q] - starts[q]
    if n_blocks > 1 and work * d >= PARALLEL_LEVEL_MIN_WORK:
        _hist_build_nodes_features(Xb, s, samples, starts, ends, slots, n_nodes, yc, sstats, w,
                                   task, hist, cnt, n_blocks, cnt_col, e, x, sb)
        return
    _hist_block_nodes(Xb, s, samples, starts, ends, slots, n_nodes, yc, sstats, w, task, hist,
                      cnt, 0, 1, cnt_col, e, x, sb)


@njit(cache=True, nogil=True)
def hist_subtract(hist, cnt, other_hist, other_cnt, ext=None, cnt_col=COUNT_NONE):
    """In place: ``hist -= other_hist`` and ``cnt -= other_cnt`` (parent minus a
    sibling), over the extents ``ext`` (as :func:`hist_build`; None: every bin).
    ``cnt_col``: the histograms' (:func:`count_stat`: where it names the
    statistic that holds the counts, ``cnt`` is neither read nor written)."""
    if ext is None:
        e = no_extents()
    else:
        e = ext
    _subtract_features(hist, cnt, other_hist, other_cnt, e, 0, hist.shape[0],
                       count_stat(cnt_col))


@njit(cache=True, nogil=True)
def rows_subtraction_pays(Xb, sp, n_rows, task, hist, cnt_col, ext, zero):
    """Whether :func:`subtract_rows` may stand for building a histogram of
    ``n_rows`` rows only to subtract it (same bits): a scratch ``zero`` is there,
    the histogram would be built densely (every bin the direct sum of its rows;
    not the sparse path, whose default bins are the node's total minus the
    other bins, :func:`_hist_range`), three statistics with the counts one of
    them (:func:`count_stat`) and not class counts.  ``hist``: a slot,
    ``(d, B, S)``."""
    return (zero.shape[0] > 0 and direct_three(task, hist.shape[2], count_stat(cnt_col))
            and not use_sparse_rows(sp, n_rows, 0, Xb.shape[1], hist.shape[1], ext))


@njit(cache=True, nogil=True)
def subtract_rows(Xb, sp, samples, start, end, yc, sstats, w, task, hist, zero, cc):
    """In place: ``hist`` minus the histogram of the rows ``samples[start:end]``
    (three statistics, the counts statistic ``cc``), without building that
    histogram -- for a child that will not split, whose histogram a split
    builds only to derive its larger sibling's.  Building it zeroes, and the
    subtraction then passes over, every bin of every feature (~110,000 on
    MNIST, ~190 us) for a child of often under a hundred rows.  Here the rows'
    sums go to ``zero`` (a histogram-shaped scratch, all zeros, and left so) as
    the dense build makes them (:func:`_hist_build_serial`, or from the sparse
    rows ``sp``, :func:`_hist_add_sparse_direct`: the same bits), then only the
    bins they touched are subtracted, as :func:`_subtract_bins` does (a bin
    left with no row set to 0), and cleared in the scratch.  The bins the rows
    do not touch would subtract zeros, which changes nothing (a bin with no row
    is exactly 0 in every histogram: zeroed, never added to, or set so): the
    same bits as :func:`hist_build` then :func:`hist_subtract` where
    :func:`rows_subtraction_pays`.  MNIST, a child of 64 rows: 50 us against
    330 us."""
    d = Xb.shape[1]
    B = np.uint64(hist.shape[1])
    # the flat bins the rows touch, in the rows' order (repeats included)
    if sp[2].shape[0] > 0:
        cur = _row_cursors(sp[0], sp[1], samples, start, end, 0)
        _hist_add_sparse_direct(sp[0], sp[1], sp[2], samples, start, end, sstats, zero, 0, d,
                                cur)
        sp_ptr = sp[0]
        n_js = d
        for p in range(start, end):
            n_js += sp_ptr[samples[p] + 1] - sp_ptr[samples[p]]
        js = np.empty(n_js, np.uint64)
        q = 0
        for p in range(start, end):
            i = np.uint64(samples[p])
            for k in range(np.uint64(sp_ptr[i]), np.uint64(sp_ptr[i + U1])):
                js[q] = sp[1][k]
                q += 1
        for f in range(np.uint64(d)):
            js[q] = f * B + np.uint64(sp[2][f])
            q += 1
    else:
        _hist_build_serial(Xb, samples, start, end, yc, sstats, w, task, zero,
                           np.zeros((0, 0), np.int64), 0, d, cc)
        js = np.empty((end - start) * d, np.uint64)
        q = 0
        for p in range(start, end):
            i = np.uint64(samples[p])
            for f in range(np.uint64(d)):
                js[q] = f * B + np.uint64(Xb[i, f])
                q += 1
    h = hist.reshape(d * hist.shape[1], 3)
    z = zero.reshape(d * hist.shape[1], 3)
    for q in range(js.shape[0]):
        j = js[q]
        if z[j, cc] > 0.5:       # touched, not yet subtracted (a count >= 1)
            h[j, 0], h[j, 1], h[j, 2] = _minus_keep(h[j, 0], h[j, 1], h[j, 2], z[j, 0],
                                                    z[j, 1], z[j, 2], cc)
            z[j, 0] = 0.0
            z[j, 1] = 0.0
            z[j, 2] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _minus_keep(h0, h1, h2, z0, z1, z2, cc):
    """One bin's three statistics minus a sibling's, 0 where no row is left (the
    counts: statistic ``cc``), as :func:`_subtract_bins`."""
    v0 = h0 - z0
    v1 = h1 - z1
    v2 = h2 - z2
    keep = (v2 if cc == 2 else (v0 if cc == 0 else v1)) > 0.5
    return (v0 if keep else 0.0), (v1 if keep else 0.0), (v2 if keep else 0.0)


@njit(cache=True, nogil=True, inline="always")
def _subtract_bins(h, c, oh, oc, b0, b1, cc):
    """Bins ``b0 .. b1 - 1`` of one feature: ``c -= oc``, ``h -= oh``, a bin left
    with no row set to 0 (``cc = count_stat(cnt_col) >= 0``: ``c`` is not kept,
    the rows are statistic ``cc``).  No branch: a sibling's empty bin subtracts
    zeros (``x - 0.0`` is ``x``), where a test of its count mispredicted about
    every other bin of a deep node (the subtraction was ~8 % of a boosted
    fit).  (Unsigned bins: no wraparound test an access, :data:`.jit.U1`.)"""
    S = h.shape[1]
    if S == 3 and cc >= 0:
        for b in range(np.uint64(b0), np.uint64(b1)):
            # (counts: sums of ones, exact; an empty bin's is 0.0)
            h[b, 0], h[b, 1], h[b, 2] = _minus_keep(h[b, 0], h[b, 1], h[b, 2], oh[b, 0],
                                                    oh[b, 1], oh[b, 2], cc)
    elif S == 3:
        for b in range(np.uint64(b0), np.uint64(b1)):
            k = c[b] - oc[b]
            c[b] = k
            keep = k > 0
            v0 = h[b, 0] - oh[b, 0]
            v1 = h[b, 1] - oh[b, 1]
            v2 = h[b, 2] - oh[b, 2]
            h[b, 0] = v0 if keep else 0.0
            h[b, 1] = v1 if keep else 0.0
            h[b, 2] = v2 if keep else 0.0
    else:
        for b in range(np.uint64(b0), np.uint64(b1)):
            if cc >= 0:
                k = np.int64(h[b, cc] - oh[b, cc])
            else:
                k = c[b] - oc[b]
                c[b] = k
            for s in range(S):
                v = h[b, s] - oh[b, s]
                h[b, s] = v if k > 0 else 0.0


@njit(cache=True, nogil=True, _nrt=False)
def _subtract_features(hist, cnt, other_hist, other_cnt, e, f0, f1, cc):
    """:func:`hist_subtract` of features ``f0 .. f1 - 1`` (their value bins within
    the extents, then the missing bin; ``cc``: :func:`count_stat`)."""
    B = hist.shape[1]
    for f in range(f0, f1):
        top = e[f] if e.shape[0] > 0 else B
        _subtract_bins(hist[f], cnt[f], other_hist[f], other_cnt[f], 0, top, cc)
        if top < B:
            _subtract_bins(hist[f], cnt[f], other_hist[f], other_cnt[f], B - 1, B, cc)
