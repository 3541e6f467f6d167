"""Batch tree builders on node-level kernels: depth-first and best-first.

A tree grows from reusable parts:

* :data:`BuildParams`: the growth parameters (a named tuple, one argument);
* :data:`~.binning.BinnedData`: the data prepared once (bins or presort) and
  reused by every tree of an ensemble; each tree brings its own targets
  (``yc`` / ``sstats`` / ``w``) and rows;
* :data:`Workspace` and :data:`HistPool`: per-build buffers and the histogram
  pool ``(slot, feature, bin, stat)``;
* node kernels: :func:`find_best_split` (the feature loop, nominal
  gathering, C4.5's average-gain filter), :func:`partition_node`,
  :func:`children_stats`, :func:`children_histograms`, :func:`make_children`;
* drivers: :func:`grow_depth_first` (scikit-learn's strategy, left child
  first); the best-first driver (:mod:`.best_first`, leaf-wise growth with
  ``max_leaves``: always split the leaf with the largest improvement, as
  LightGBM and scikit-learn's HistGradientBoosting) and the level-wise driver
  (:mod:`.level_wise`, XGBoost's depthwise growth with a level's partitions
  and histograms threaded) are built on the same kernels.

Splitters: ``exact`` (every numeric feature pre-sorted once; each node keeps
its samples in sorted order per feature and a split partitions these segments
stably; or, with ``BuildParams.layout = LAYOUT_SAMPLES``, for forests that draw
features per node, one sample array whose drawn features are gathered and
sorted at each node, as scikit-learn's ``BestSplitter``) and ``hist`` (each node owns a histogram, the larger child's is the
parent's minus its siblings').  Nominal features are evaluated from
per-category statistics.  The criterion arrives as first-class functions and
a parameter vector (the merit protocol, :mod:`.merit`), so each driver is
compiled once, cached on disk, and reused by every criterion.  Kernels are
``nogil``: trees can grow in parallel threads.

During the build ``tree.value`` holds each node's raw statistics vector; the
learner turns it into predictions (class proportions, means, leaf weights).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from .binning import edges_below, feature_bin_values, presort  # noqa: F401 (presort re-exported)
from .histogram import (COUNT_NONE, bin_count, count_column_of_three, count_stat, hist_build,
                        hist_subtract, no_subtraction, root_counts_usable,
                        root_hist_counted, rows_subtraction_pays, subtract_rows,
                        unit_count_column)
from .jit import U0, U1, njit
from .merit import (
    MERIT_GAIN_RATIO, MERIT_NEWTON, NEWTON_GAMMA, TASK_CLASSIFICATION, better,
    better_at, impurity_of, stats_weight,
)
from .sorting import STACK_SIZE, positions, sort_pairs
from .prefetch import PREFETCH_DISTANCE, prefetch, prefetch_at, prefetch_stop, prefetch_targets
from .specialize import (WITH_HIST, WITH_NEWTON, WITH_NOMINAL, WITH_PRESORT, WITH_RANDOM,
                         WITH_SAMPLES, WITH_SPARSE)
from .splitter import (
    FEATURE_THRESHOLD, SPLIT_BEST, SPLIT_RANDOM, best_nominal, best_numeric_hist, best_numeric_sorted,
    newton_candidate, newton_hist_sweep, newton_sorted_sweep, newton_terms, nominal_scratch,
    random_nominal, random_numeric, random_numeric_draw, split_of_left_sums,
)
from .tree import NOMINAL, NUMERIC, add_cat_map, add_children, ensure_capacity, new_tree

__all__ = ["BuildParams", "make_params", "add_leaf_values", "LAYOUT_PRESORT", "LAYOUT_SAMPLES",
           "Workspace", "HistPool", "presort", "find_best_split", "decide_node",
           "partition_node", "children_stats", "children_improvement", "binned_children_stats",
           "children_histograms", "plan_children_histograms", "finish_children_histograms",
           "make_children", "grow_depth_first", "new_pool", "empty_pool", "reuse_pool"]

EPSILON = np.finfo(np.float64).eps

#: growth parameters of one tree (see :func:`make_params` for types and defaults)
BuildParams = namedtuple("BuildParams", [
    "task",                   # TASK_CLASSIFICATION or TASK_DENSE
    "n_stats",                # length of a statistics vector
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "min_weight_leaf",        # float: also XGBoost's min_child_weight (Newton stats)
    "min_impurity_decrease",  # float: Newton: the least gain of a split
    "max_features",           # features drawn per node (d: all)
    "multiway",               # splitter.NOMINAL_*: binary subsets, multiway, multiway (C4.5 rule)
    "merit_code",
    "builtin",
    "max_leaves",             # best-first driver only
    "seed",
    "feature_mask",           # bool (levels, d): features allowed at each depth (last row
                              # for deeper nodes); shape (0, 0): every feature
    "split_mode",             # splitter.SPLIT_BEST, or SPLIT_RANDOM (extra trees: random cut-points)
    "n_threads",              # threads of one histogram build (split by features: the
                              # tree does not depend on it); 1: serial
    "layout",                 # exact data: LAYOUT_PRESORT or LAYOUT_SAMPLES (see make_params)
    "count_constant",         # a drawn feature constant at the node is one of its
                              # max_features draws (see make_params)
])

#: ``BuildParams.layout`` for exact (not binned) data.  ``LAYOUT_PRESORT``: every
#: numeric feature presorted once, each node keeps its samples sorted per feature
#: and a split partitions all d sorted segments (best when every feature is
#: evaluated at every node: single trees).  ``LAYOUT_SAMPLES``: one sample-index
#: array per tree (scikit-learn's ``BestSplitter``): a node gathers and sorts
#: only the values of the features it draws, and a split partitions only that
#: array -- O(n max_features log n) per level instead of O(n d) (forests with
#: ``max_features < d``).  Both give the same splits.  Random cut-points
#: (``SPLIT_RANDOM``) always work on the sample array.
LAYOUT_PRESORT = 0
LAYOUT_SAMPLES = 1


def make_params(task, n_stats, max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
                min_impurity_decrease, max_features, multiway, merit_code, builtin=0,
                max_leaves=np.iinfo(np.int64).max, seed=0, feature_mask=None,
                split_mode=SPLIT_BEST, n_threads=1, layout=LAYOUT_PRESORT,
                count_constant=True):
    """:data:`BuildParams` with the field types the compiled drivers expect.

    ``feature_mask`` (bool, levels x d) restricts the features a node at depth
    ``l`` may split on to ``feature_mask[min(l, levels - 1)]`` (XGBoost's
    ``colsample_bytree`` / ``colsample_bylevel``); ``max_features`` then draws
    among those.  None: every feature.  ``split_mode``: ``splitter.SPLIT_BEST``
    (best cut-point) or ``SPLIT_RANDOM`` (extra trees: random cut-points).
    ``n_threads``: threads building one node's histogram (hist splitter; the
    grown tree is the same whatever their number, see :mod:`.histogram`);
    ``layout``: :data:`LAYOUT_PRESORT` or :data:`LAYOUT_SAMPLES` (exact data only).

    ``count_constant`` (``max_features < d``): a drawn feature that is constant
    at the node counts as one of the node's ``max_features`` candidates
    (the course slides' random forests: "at each node, best split is chosen
    from random sample of m_try variables"; Breiman 2001; Zhou & Feng 2017
    draw sqrt(d) features as candidates; scikit-learn's and XGBoost's rule);
    False: constant draws are passed over, and a node examines
    ``max_features`` non-constant features (more work and more candidates deep
    in sparse data such as MNIST).  Either way a node keeps drawing while none
    of its candidates gave an admissible split."""
    fm = (np.zeros((0, 0), np.bool_) if feature_mask is None
          else np.ascontiguousarray(feature_mask, dtype=np.bool_))
    if fm.ndim != 2:
        raise ValueError("feature_mask must be 2-D (levels, n_features)")
    return BuildParams(int(task), int(n_stats), int(max_depth), int(min_samples_split),
                       int(min_samples_leaf), float(min_weight_leaf),
                       float(min_impurity_decrease), int(max_features), int(multiway),
                       int(merit_code), int(builtin), int(max_leaves), int(seed), fm,
                       int(split_mode), max(1, int(n_threads)), int(layout),
                       bool(count_constant))


#: per-build buffers shared by the node kernels
Workspace = namedtuple("Workspace", [
    "samples", "tmp", "tmpk", "slot_of", "order", "vals",
    "keys_s", "ids_s", "blk", "yloc", "wloc", "sloc",
    "child_n", "child_start", "cstats", "cimp", "child_slot", "expand",
    "left", "miss", "buf", "cat_stats", "cat_cnt",
    "feat_status", "feat_score", "feat_ratio", "feat_thr", "feat_mslot", "feat_k", "feat_cats",
    "features", "visited", "proxy_best", "small", "fmask",
    "gvals", "gsel", "feat_key", "gkeys", "gids", "rank_cnt",
    "sweep",            # (5, bins): splitter.newton_hist_sweep's scratch
    "miss_root",        # (d,) bool: the tree's rows may hold the feature's missing code
    "sort_stack",       # (sorting.STACK_SIZE,) int64: sort_pairs' pending ranges
    "nom",              # splitter.nominal_scratch: the nominal searches' scratch
    "sp_ent",           # (6, entries) int64: small_node_entries' scratch
    "sp_aux",           # int64: small_node_entries' counters (d + 1 + n_bins + 1 + d + small)
])

#: histogram pool: ``hist[slot]`` / ``cnt[slot]`` (feature, bin[, stat]) and a stack
#: of free slots (``meta[0]`` of them at the bottom of ``free``); ``meta[1]``: the
#: tree's ``cnt_col`` (:func:`~.histogram.unit_count_column`, set with the root;
#: where it names a statistic, ``cnt`` is left untouched and the counts are read
#: off that statistic: :func:`~.histogram.count_stat`, :func:`~.histogram.bin_count`);
#: ``zero``: a slot-shaped scratch of zeros for :func:`~.histogram.subtract_rows`,
#: kept all zeros by it (``(0, 1, 1)``: none; :func:`pool_for` gives one)
HistPool = namedtuple("HistPool", ["hist", "cnt", "free", "meta", "ext", "zero"])


@njit(cache=True, nogil=True, inline="always")
def _sum_three(samples, start, end, sstats, out, ones):
    """``out[:3]`` = the sums of the three statistics ``sstats`` over the rows
    ``samples[start:end]``, in registers (the same additions in the same order as
    one statistic at a time).  ``ones``: also whether each statistic is 1 on
    every row (three bools, in the same pass; else all False)."""
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    u0 = ones
    u1 = ones
    u2 = ones
    for p in range(start, end):
        i = samples[p]
        v0 = sstats[i, 0]
        v1 = sstats[i, 1]
        v2 = sstats[i, 2]
        a0 += v0
        a1 += v1
        a2 += v2
        if ones:
            u0 &= v0 == 1.0
            u1 &= v1 == 1.0
            u2 &= v2 == 1.0
    out[0] = a0
    out[1] = a1
    out[2] = a2
    return u0, u1, u2


@njit(cache=True, nogil=True)
def _node_stats(samples, start, end, yc, sstats, w, task, out):
    out[:] = 0.0
    if task != TASK_CLASSIFICATION and out.shape[0] == 3:
        _sum_three(samples, start, end, sstats, out, False)
        return
    # (one loop per task rather than a branch per sample; same sums, same order)
    if task == TASK_CLASSIFICATION:
        for p in range(start, end):
            i = samples[p]
            out[yc[i]] += w[i]
        return
    for p in range(start, end):
        i = samples[p]
        for s in range(out.shape[0]):
            out[s] += sstats[i, s]


@njit(cache=True, nogil=True)
def _sample_slot(x, kind, thr, mslot, cat_slots, n_cats):
    if np.isnan(x):
        return mslot
    if kind == NUMERIC:
        return 0 if x <= thr else 1
    c = int(x)
    if c < 0 or c >= n_cats:
        return mslot
    s = cat_slots[c]
    return mslot if s < 0 else s


@njit(cache=True, nogil=True)
def _stable_partition(arr, start, end, slot_of, pos, tmp):
    """Stable counting sort of ``arr[start:end]`` by ``slot_of[arr[p]]``;
    ``pos[s]``: where slot ``s`` starts, advanced past its entries (the caller
    resets it: :func:`_child_starts`)."""
    for p in range(start, end):
        i = arr[p]
        s = slot_of[i]
        tmp[pos[s]] = i
        pos[s] += 1
    for p in range(start, end):
        arr[p] = tmp[p]


@njit(cache=True, nogil=True)
def _stable_partition_with_keys(arr, keys, start, end, slot_of, pos, tmp, tmpk):
    """:func:`_stable_partition` that moves ``keys`` along with ``arr``."""
    for p in range(start, end):
        i = arr[p]
        s = slot_of[i]
        q = pos[s]
        tmp[q] = i
        tmpk[q] = keys[p]
        pos[s] = q + 1
    for p in range(start, end):
        arr[p] = tmp[p]
        keys[p] = tmpk[p]


@njit(cache=True, nogil=True, inline="always")
def _child_starts(child_start, child_n, start, k):
    """``child_start[:k]``: the children's first positions, from ``start`` on
    in the order of their counts ``child_n``."""
    acc = start
    for j in range(k):
        child_start[j] = acc
        acc += child_n[j]


@njit(cache=True, nogil=True)
def _gather_targets(samples, start, end, yc, sstats, w, task, yl, sl, wl):
    """Copy a small node's targets into local contiguous buffers: ``yl`` / ``sl`` /
    ``wl`` ``[p]`` belong to the node's ``p``-th sample (the features are gathered
    one at a time, only those drawn: :func:`_gather_sort_small`)."""
    for p in range(end - start):
        i = samples[start + p]
        wl[p] = w[i]
        if task == TASK_CLASSIFICATION:
            yl[p] = yc[i]
        else:
            for s in range(sstats.shape[1]):
                sl[p, s] = sstats[i, s]


@njit(cache=True, nogil=True, inline="always")
def _code_key(c, missing_bin, scratch, q, lo, hi, n_miss):
    """``scratch[q]`` = bin code ``c`` as a sort key (the missing bin: inf);
    returns the running ``(lo, hi, n_miss)`` of the keys with it."""
    if c == missing_bin:
        scratch[q] = np.inf
        return lo, hi, n_miss + 1
    x = float(c)
    scratch[q] = x
    return min(lo, x), max(hi, x), n_miss


@njit(cache=True, nogil=True, inline="always")
def _gather_codes(Xb, missing_bin, f, samples, start, end, scratch):
    """``scratch[:m]`` = the bin codes of feature ``f`` of the small node
    ``samples[start:end]`` as floats (missing = inf); returns ``(lo, hi,
    n_miss)`` of them."""
    lo = np.inf
    hi = -np.inf
    n_miss = 0
    for p in range(end - start):
        lo, hi, n_miss = _code_key(Xb[samples[start + p], f], missing_bin, scratch, p, lo, hi,
                                   n_miss)
    return lo, hi, n_miss


@njit(cache=True, nogil=True, inline="always")
def _gather_small(X, Xb, use_hist, missing_bin, f, samples, start, end, scratch):
    """:func:`_gather_codes`, or of the raw values ``X`` (missing = inf) without
    ``use_hist``."""
    if use_hist:
        return _gather_codes(Xb, missing_bin, f, samples, start, end, scratch)
    lo = np.inf
    hi = -np.inf
    n_miss = 0
    for p in range(end - start):
        x = X[samples[start + p], f]
        if np.isnan(x):
            n_miss += 1
            scratch[p] = np.inf
        else:
            if x < lo:
                lo = x
            if x > hi:
                hi = x
            scratch[p] = x
    return lo, hi, n_miss


@njit(cache=True, nogil=True, inline="always")
def _insertion_sort_small(keys_s, ids_s, scratch, m):
    """``keys_s[:m]`` = ``scratch[:m]`` sorted (stable), ``ids_s[:m]`` their positions."""
    for p in range(m):
        keys_s[p] = scratch[p]
        ids_s[p] = p
    for p in range(1, m):
        k = keys_s[p]
        q = p - 1
        while q >= 0 and keys_s[q] > k:
            keys_s[q + 1] = keys_s[q]
            ids_s[q + 1] = ids_s[q]
            q -= 1
        keys_s[q + 1] = k
        ids_s[q + 1] = p


@njit(cache=True, nogil=True, inline="always")
def _counting_sort_codes(keys_s, ids_s, scratch, m, lo, hi, n_miss, missing_bin, bucket):
    """:func:`_insertion_sort_small`'s result for bin codes, by a counting sort in
    ``bucket`` (zero, at least ``missing_bin + 1`` long; left zero)."""
    c_lo = int(lo) if n_miss < m else 0
    c_hi = int(hi) if n_miss < m else -1
    for p in range(m):
        x = scratch[p]
        bucket[missing_bin if x == np.inf else int(x)] += 1
    pos = 0
    for c in range(c_lo, c_hi + 1):
        t = bucket[c]
        bucket[c] = pos
        pos += t
    bucket[missing_bin] = pos
    for p in range(m):
        x = scratch[p]
        c = missing_bin if x == np.inf else int(x)
        q = bucket[c]
        bucket[c] = q + 1
        keys_s[q] = x
        ids_s[q] = p
    bucket[c_lo:c_hi + 1] = 0
    bucket[missing_bin] = 0


@njit(cache=True, nogil=True, inline="always")
def _sort_codes(keys_s, ids_s, scratch, m, lo, hi, n_miss, missing_bin, bucket):
    """``keys_s[:m]`` / ``ids_s[:m]``: the keys ``scratch[:m]`` sorted (stable) --
    insertion sort up to 24 keys, else :func:`_counting_sort_codes` (bin codes)."""
    if m <= 24:
        _insertion_sort_small(keys_s, ids_s, scratch, m)
    else:
        _counting_sort_codes(keys_s, ids_s, scratch, m, lo, hi, n_miss, missing_bin, bucket)


@njit(cache=True, nogil=True, inline="always")
def _missing_as_nan(keys_s, m):
    """The sorted keys' trailing inf (missing) as NaN."""
    for p in range(m - 1, -1, -1):
        if np.isinf(keys_s[p]) and keys_s[p] > 0:
            keys_s[p] = np.nan
        else:
            break


@njit(cache=True, nogil=True)
def _gather_sort_small(X, Xb, use_hist, missing_bin, f, samples, start, end, keys_s, ids_s,
                       scratch, bucket, stack):
    """``keys_s[:m]`` = feature ``f`` of the small node ``samples[start:end]`` sorted
    ascending (bin code or raw value, missing = NaN last; stable), ``ids_s[:m]``
    the local sample positions in that order.  Returns False, without sorting,
    when the feature is constant on the node and nothing is missing (what
    ``best_numeric_sorted`` would report as status -1); True otherwise.
    Bin codes of more than 24 samples are counting-sorted in ``bucket`` (zero,
    at least ``missing_bin + 1`` long; left zero), raw values sorted as
    (value, position) pairs in place (:func:`~.sorting.sort_pairs`, ``stack``
    its scratch): the order of a stable sort either way, without allocation."""
    m = end - start
    lo, hi, n_miss = _gather_small(X, Xb, use_hist, missing_bin, f, samples, start, end,
                                   scratch)
    if n_miss == 0 and hi <= lo + FEATURE_THRESHOLD:
        return False
    if m <= 24 or use_hist:
        _sort_codes(keys_s, ids_s, scratch, m, lo, hi, n_miss, missing_bin, bucket)
    else:
        positions(keys_s, ids_s, scratch, m)
        sort_pairs(keys_s, ids_s, 0, m, stack)
    _missing_as_nan(keys_s, m)
    return True


# The Newton searches of one feature, called per feature and node from
# find_best_split: without numba's reference counting (``_nrt=False``; they
# allocate nothing), the views of the pool and the edges made here and not in
# the caller -- there each view and each argument took and released a reference
# with an atomic instruction (perf: ~7 % of a lossguide fit on MNIST in
# NRT_incref / NRT_decref).
@njit(cache=True, nogil=True, _nrt=False)
def newton_small_split(Xb, missing_bin, f, samples, start, end, keys_s, ids_s, scratch,
                       bucket, edges, lo, hi, sloc, parent, cp, min_samples_leaf,
                       min_weight_leaf):
    """The Newton split of bin-coded feature ``f`` on a small node: its codes
    sorted as :func:`_gather_sort_small` sorts them, then
    :func:`~.splitter.newton_sorted_sweep` (``sloc``: the node's statistics by
    position, ``edges[lo:hi]`` the feature's edges).  Returns ``(status, score,
    threshold, missing_slot)``; status -1: constant on the node."""
    m = end - start
    c_lo, c_hi, n_miss = _gather_codes(Xb, missing_bin, f, samples, start, end, scratch)
    if n_miss == 0 and c_hi <= c_lo + FEATURE_THRESHOLD:
        return -1, -np.inf, 0.0, 0
    _sort_codes(keys_s, ids_s, scratch, m, c_lo, c_hi, n_miss, missing_bin, bucket)
    _missing_as_nan(keys_s, m)
    return newton_sorted_sweep(keys_s, ids_s, 0, m, True, edges[lo:hi], sloc, parent, cp,
                               min_samples_leaf, min_weight_leaf)


@njit(cache=True, nogil=True)
def sparse_entry_scratch(D, small):
    """The scratch of :func:`small_node_entries` on nodes of fewer than
    ``small`` rows of ``D``: ``(ent, aux)``, empty unless ``D`` has sparse
    binned rows (sized for the widest row)."""
    n_ent = 0
    n_aux = 0
    if D.use_hist and D.sp_dflt.shape[0] > 0:
        d = D.sp_dflt.shape[0]
        widest = 0
        for i in range(D.sp_ptr.shape[0] - 1):
            widest = max(widest, D.sp_ptr[i + 1] - D.sp_ptr[i])
        n_ent = small * widest
        n_aux = 2 * d + D.n_bins + 2 + small
    return np.empty((6, n_ent), np.int64), np.empty(n_aux, np.int64)


@njit(cache=True, nogil=True)
def small_node_entries(D, samples, start, end, small, ent, aux):
    """For a small node (``small``) of sparse binned data (``D.sp_dflt`` not
    empty): the node's non-default codes grouped by feature and sorted, ``(ptr,
    pos, code, mark)`` -- feature ``f``'s are ``code[ptr[f]:ptr[f + 1]]`` at the
    node's positions ``pos[...]``, in ascending code order and equal codes in
    ascending position (the missing bin, the largest code, last): the order of
    a stable sort of the feature's codes, made for every feature at once by
    two counting passes (by code, then by feature), so that
    :func:`newton_sparse_small_split` sorts nothing.  ``mark`` (-1, a position
    each) is that function's scratch.  A feature with no such code on the
    node, its default code not being the missing bin, is constant on the node
    (MNIST: 81 % of the codes are the default ones, so the node's sparse codes
    are about a fifth of its codes).  Else four empty arrays (no such
    knowledge: every feature is read).  ``ent`` / ``aux``: the workspace's
    scratch (``sp_ent`` / ``sp_aux``, sized for the widest row) that receives
    them; returns their number (-1: none made), :func:`entries_of` gives the
    views.  (Scalars returned, no arrays: the function is compiled without
    reference counting for the node step, and numba keeps one compiled version
    per signature, whichever caller compiled it first.)"""
    dflt = D.sp_dflt
    d = dflt.shape[0]
    if not (small and D.use_hist and d > 0):
        return -1
    B = np.uint64(D.n_bins)
    ptr = D.sp_ptr
    fb = D.sp_bin
    nnz = 0
    for p in range(start, end):
        i = samples[p]
        nnz += ptr[i + 1] - ptr[i]
    # the entries in position order: feature, code, position (one division each)
    t_f = ent[0, :nnz]
    t_c = ent[1, :nnz]
    t_p = ent[2, :nnz]
    by_code = ent[3, :nnz]
    pos = ent[4, :nnz]
    code = ent[5, :nnz]
    e_ptr = aux[:d + 1]
    c_ptr = aux[d + 1:d + D.n_bins + 2]
    nxt = aux[d + D.n_bins + 2:2 * d + D.n_bins + 2]
    mark = aux[2 * d + D.n_bins + 2:2 * d + D.n_bins + 2 + end - start]
    e_ptr[:] = 0
    c_ptr[:] = 0
    q = 0
    for p in range(start, end):
        i = samples[p]
        for k in range(ptr[i], ptr[i + 1]):
            c = np.uint64(fb[k])
            f = c // B
            t_f[q] = f
            t_c[q] = c - f * B
            t_p[q] = p - start
            e_ptr[f + U1] += 1
            c_ptr[c - f * B + U1] += 1
            q += 1
    for f in range(d):
        e_ptr[f + 1] += e_ptr[f]
    for c in range(D.n_bins):
        c_ptr[c + 1] += c_ptr[c]
    # by code (stable: each code's entries in position order) ...
    for q in range(nnz):
        r = c_ptr[t_c[q]]
        c_ptr[t_c[q]] = r + 1
        by_code[r] = q
    # ... then by feature (stable): each feature's entries by code, then position
    for f in range(d):
        nxt[f] = e_ptr[f]
    for r in range(nnz):
        q = by_code[r]
        f = t_f[q]
        s = nxt[f]
        nxt[f] = s + 1
        pos[s] = t_p[q]
        code[s] = t_c[q]
    mark[:] = -1
    return nnz


@njit(cache=True, nogil=True, inline="always")
def entries_of(ent, aux, nnz, d, n_bins, m):
    """The views ``(ptr, pos, code, mark)`` of :func:`small_node_entries`'
    ``nnz`` entries of ``d`` features on a node of ``m`` rows (``nnz`` -1:
    four empty views)."""
    if nnz < 0:
        none = aux[:0]
        return none, none, none, none
    mark0 = 2 * d + n_bins + 2
    return aux[:d + 1], ent[4, :nnz], ent[5, :nnz], aux[mark0:mark0 + m]


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def newton_sparse_small_split(pos, code, e0, e1, f, dflt_f, missing_bin, m, mark, edges, lo,
                              hi, sloc, parent, cp, min_samples_leaf, min_weight_leaf, sweep):
    """:func:`newton_small_split` of feature ``f`` on a small node of ``m`` rows from
    its non-default codes ``code[e0:e1]`` at the positions ``pos[e0:e1]``, sorted
    by code then position (:func:`small_node_entries`; its default code
    ``dflt_f`` is not the missing bin): the same sorted order -- the codes below
    the default, the default rows in position order, the codes above, missing
    last; equal codes by position -- and the same sums, candidates and result,
    without reading the default rows' codes (one pass over their statistics).
    Without missing codes the candidates' left sums go to ``sweep`` (``(5, >=
    the feature's bins)``) and are scored as :func:`~.splitter.newton_hist_sweep`
    scores them (:func:`~.splitter.split_of_left_sums`: the same gains and
    first best).  ``mark``: -1 or another feature's number at every position (left
    marked with ``f``)."""
    k = e1 - e0
    n_def = m - k
    for q in range(e0, e1):
        mark[pos[q]] = f
    e_nm = e1
    while e_nm > e0 and code[e_nm - 1] == missing_bin:
        e_nm -= 1
    n_miss = e1 - e_nm
    n_nm = m - n_miss
    if n_nm == 0:
        return -1, -np.inf, 0.0, 0
    if n_miss == 0 and (k == 0 or (n_def == 0 and code[e1 - 1] == code[e0])):
        return -1, -np.inf, 0.0, 0
    h_par, g_par, imp_par, lam, alpha, gamma = newton_terms(parent, cp)
    h_miss = 0.0
    g_miss = 0.0
    for q in range(e_nm, e1):
        i = pos[q]
        h_miss += sloc[i, 0]
        g_miss += sloc[i, 1]
    edges_f = edges[lo:hi]
    hb = sweep[0]
    gb = sweep[1]
    nb = sweep[2]
    ib = sweep[4]
    n_cand = 0
    status = 0
    best_score = -np.inf
    best_thr = 0.0
    best_slot = 1
    h_left = 0.0
    g_left = 0.0
    n_left = 0
    q = e0
    def_done = n_def == 0
    while n_left < n_nm:
        # the next group of equal codes: the default rows or the next sorted codes
        if not def_done and (q >= e_nm or code[q] > dflt_f):
            for p in range(m):
                if mark[p] != f:
                    h_left += sloc[p, 0]
                    g_left += sloc[p, 1]
            n_left += n_def
            x = dflt_f
            def_done = True
        else:
            x = code[q]
            while q < e_nm and code[q] == x:
                i = pos[q]
                h_left += sloc[i, 0]
                g_left += sloc[i, 1]
                n_left += 1
                q += 1
        if n_left == n_nm and n_miss == 0:
            break
        if n_miss == 0:
            hb[n_cand] = h_left
            gb[n_cand] = g_left
            nb[n_cand] = n_left
            ib[n_cand] = x
            n_cand += 1
            continue
        ok, score, slot = newton_candidate(
            n_left, h_left, g_left, m, n_miss, h_miss, g_miss, h_par, g_par, imp_par,
            min_samples_leaf, min_weight_leaf, lam, alpha, gamma)
        if ok and better(score, best_score):
            status = 1
            best_score = score
            best_slot = slot
            if n_left < n_nm:
                best_thr = edges_f[x]
            else:
                # every non-missing value left, missing values right
                best_thr = np.inf
                best_slot = 1
    if n_miss > 0:
        return status, best_score, best_thr, best_slot
    return split_of_left_sums(sweep, n_cand, True, edges_f, h_par, g_par, imp_par, lam, alpha,
                              gamma, float(m), float(min_samples_leaf), min_weight_leaf)


@njit(cache=True, nogil=True, _nrt=False)
def newton_hist_split(pool, pcnt, hslot, f, edges, lo, hi, missing_bin, parent, cp, n_node,
                      min_samples_leaf, min_weight_leaf, scratch, cc):
    """:func:`~.splitter.newton_hist_sweep` of feature ``f`` in the pool's slot
    ``hslot`` (its edges ``edges[lo:hi]``)."""
    return newton_hist_sweep(pool[hslot, f], pcnt[hslot, f], hi - lo + 1, edges[lo:hi],
                             missing_bin, parent, cp, n_node, min_samples_leaf,
                             min_weight_leaf, scratch, cc)


@njit(cache=True, nogil=True, inline="always")
def has_ranks(D):
    """Whether ``D.order`` holds value ranks (:func:`~.binning.rank_columns`: ``vals``
    empty) rather than a presort (``order`` and ``vals`` both ``(d, n)``)."""
    return D.order.shape[1] > 0 and D.vals.shape[1] == 0


@njit(cache=True, nogil=True)
def _gather_sorted(D, f, samples, start, end, keys, ids, tmpk, tmpi, rank_cnt, stack):
    """:data:`LAYOUT_SAMPLES`: ``keys[:m]`` = feature ``f`` of the node's ``m`` samples
    in ascending order, missing values (NaN) last, ``ids[:m]`` the sample ids in
    that order (a stable sort of the values gathered in sample order).  Returns
    False, without sorting, when every value is missing or the feature is
    constant with none missing (``best_numeric_sorted``'s status -1).

    With value ranks of ``f`` in ``D.order`` (:func:`has_ranks`; ranked features
    have their distinct values in ``D.edges``) and a rank
    range of the node that is small next to ``m`` (at most ``4 m + 256``
    ranks: always on 8-bit data), the sort is a stable counting sort of the
    ranks, O(m + range), and the keys are the distinct values of those ranks
    (the same keys in the same order); otherwise the gathered values sorted
    with their positions as pairs (:func:`~.sorting.sort_pairs`, ``stack`` its
    scratch: a stable sort, in place)."""
    X = D.X
    nm = 0
    m = end - start
    counted = False  # sorted by the counting sort: no mergesort below
    if has_ranks(D) and D.edge_offsets[f + 1] > D.edge_offsets[f]:
        col = D.order[f]
        u = D.edges[D.edge_offsets[f]:D.edge_offsets[f + 1]]
        rlo = u.shape[0]
        rhi = -1
        for p in range(start, end):
            r = col[samples[p]]
            if r >= 0:
                nm += 1
                if r < rlo:
                    rlo = r
                if r > rhi:
                    rhi = r
        if nm == 0 or (nm == m and u[rhi] <= u[rlo] + FEATURE_THRESHOLD):
            return False
        R = rhi - rlo + 1
        if R <= 4 * nm + 256:
            cnt = rank_cnt
            for p in range(start, end):
                r = col[samples[p]]
                if r >= 0:
                    cnt[r - rlo] += 1
            pos = 0
            for b in range(R):
                c = cnt[b]
                cnt[b] = pos
                pos += c
            for p in range(start, end):
                i = samples[p]
                r = col[i]
                if r >= 0:
                    q = cnt[r - rlo]
                    cnt[r - rlo] = q + 1
                    keys[q] = u[r]
                    ids[q] = i
            cnt[:R] = 0
            counted = True
        else:
            nm = 0
            for p in range(start, end):
                i = samples[p]
                r = col[i]
                if r >= 0:
                    tmpk[nm] = u[r]
                    tmpi[nm] = i
                    nm += 1
    else:
        lo = np.inf
        hi = -np.inf
        for p in range(start, end):
            i = samples[p]
            x = X[i, f]
            if not np.isnan(x):
                tmpk[nm] = x
                tmpi[nm] = i
                nm += 1
                if x < lo:
                    lo = x
                if x > hi:
                    hi = x
        if nm == 0 or (nm == m and hi <= lo + FEATURE_THRESHOLD):
            return False
    if not counted:
        positions(keys, ids, tmpk, nm)
        sort_pairs(keys, ids, 0, nm, stack)
        for q in range(nm):
            ids[q] = tmpi[ids[q]]
    q = nm
    if nm < m:
        for p in range(start, end):
            i = samples[p]
            if np.isnan(X[i, f]):
                keys[q] = np.nan
                ids[q] = i
                q += 1
    return True


@njit(cache=True, nogil=True, inline="always")
def two_children(start, nl, nr, child_n, child_start):
    """``child_n`` / ``child_start`` of a two-way split of the node starting at
    ``start`` whose left child ends at ``nl`` and whose right child has ``nr``
    samples; returns 2, or 0 when a child is empty."""
    child_n[0] = nl - start
    child_n[1] = nr
    if nl == start or nr == 0:
        return 0
    child_start[0] = start
    child_start[1] = nl
    return 2


@njit(cache=True, nogil=True, inline="always")
def finish_two(samples, tmp, start, nl, nr, child_n, child_start):
    """Close a stable two-way partition of ``samples[start:...]``: the left samples
    are compacted in ``samples[start:nl]``, the ``nr`` right ones wait in
    ``tmp[:nr]`` and are written after them.  Sets ``child_n`` / ``child_start``;
    returns 2, or 0 when a child is empty (:func:`two_children`)."""
    nlu = np.uint64(nl)
    for q in range(np.uint64(nr)):       # (unsigned: a vectorized copy, .jit.U1)
        samples[nlu + q] = tmp[q]
    return two_children(start, nl, nr, child_n, child_start)


@njit(cache=True, nogil=True)
def _partition_two(samples, tmp, child_n, child_start, start, end, vals, key, miss_left, Xb, f,
                   missing_bin, use_codes, xt):
    """Stable partition of the node's samples ``samples[start:end]`` into two children in
    one pass (left samples compacted in place, right ones via ``tmp``: the order of the
    counting sort).  A sample goes left iff its value is ``<= key`` (missing:
    ``miss_left``); the value is ``vals[p]`` (gathered for ``samples[p]``, NaN =
    missing) or, with ``use_codes``, the bin code ``Xb[i, f]`` (``missing_bin`` =
    missing, :func:`split_codes`; read from the column codes ``xt`` when there
    are some).  Sets ``child_n`` / ``child_start``; returns 2, or 0 when a child
    would be empty.

    Branch-free (the side is a coin flip to the branch predictor): every sample
    is written to both candidate slots and the wrong one is overwritten by the
    next sample (positions below ``p`` were read already)."""
    if use_codes:
        nl = start + split_codes(samples, start, end, Xb, f, key, miss_left, missing_bin,
                                 samples, start, tmp, 0, xt)
        return finish_two(samples, tmp, start, nl, end - nl, child_n, child_start)
    nl = start
    nr = 0
    for p in range(start, end):
        i = samples[p]
        x = vals[p]
        go_left = miss_left if np.isnan(x) else x <= key
        samples[nl] = i
        tmp[nr] = i
        nl += go_left
        nr += 1 - go_left
    return finish_two(samples, tmp, start, nl, nr, child_n, child_start)


@njit(cache=True, nogil=True, inline="always")
def code_goes_left(c, key, miss_left, missing_bin):
    """The rule of a binned split: a row whose bin code ``c`` is ``<= key`` goes
    left; the missing code (``missing_bin``) goes left iff ``miss_left``."""
    return miss_left if c == missing_bin else c <= key


@njit(cache=True, nogil=True, inline="always")
def split_codes(samples, start, end, Xb, f, key, miss_left, missing_bin, out_l, off_l, out_r,
                off_r, xt):
    """Stable, branch-free two-way split of ``samples[start:end]`` by the bin code
    ``Xb[i, f]``: a sample goes left iff its code is ``<= key`` (``missing_bin``:
    ``miss_left``); the left ones to ``out_l[off_l:]``, the right ones to
    ``out_r[off_r:]`` in their order.  ``out_l`` may be ``samples`` itself with
    ``off_l <= start`` (each sample is read before its slot is written).  Returns
    the number that went left.  ``xt``: the codes column by column
    (``BinnedData.Xt``; empty: none), read instead of ``Xb`` when given -- a
    node's ascending samples then read neighbouring bytes of one column, not one
    cache line of ``Xb`` a sample (160,000 x 20 codes, a node of 1/8 of the
    rows: 1.6 -> 0.63 ns a sample).  Positions and rows index as unsigned
    integers (:data:`~.jit.U1`): numba wraps a negative signed index around, a
    compare and select on every access (37,000 of 160,000 rows from the column
    codes: 3.2 -> 2.1 ns a sample)."""
    nl = U0
    nr = U0
    ol = np.uint64(off_l)
    orr = np.uint64(off_r)
    if xt.shape[0] > 0:
        col = xt[f]
        for p in range(np.uint64(start), np.uint64(end)):
            i = samples[p]
            go_left = np.uint64(code_goes_left(col[np.uint64(i)], key, miss_left, missing_bin))
            out_l[ol + nl] = i
            out_r[orr + nr] = i
            nl += go_left
            nr += U1 - go_left
        return np.int64(nl)
    ahead = prefetch_stop(samples, start, end)
    fu = np.uint64(f)
    for p in range(start, end):
        if p < ahead:
            prefetch_at(Xb, samples[p + PREFETCH_DISTANCE], f)     # (.prefetch)
        i = samples[np.uint64(p)]
        go_left = np.uint64(code_goes_left(Xb[np.uint64(i), fu], key, miss_left, missing_bin))
        out_l[ol + nl] = i
        out_r[orr + nr] = i
        nl += go_left
        nr += U1 - go_left
    return np.int64(nl)


# ------------------------------------------------------------------ set-up
@njit(cache=True, nogil=True)
def new_workspace(D, rows, P):
    """Buffers for growing one tree on rows ``rows`` (distinct ids) of ``D``."""
    N, d = D.X.shape
    n = rows.shape[0]
    S = P.n_stats
    max_cats = 1
    for f in range(d):
        if D.n_cats[f] > max_cats:
            max_cats = D.n_cats[f]
    samples = rows.copy()
    if D.use_hist or P.split_mode == SPLIT_RANDOM or P.layout == LAYOUT_SAMPLES:
        # (random cut-points read the samples: no sorted segments to maintain)
        order = np.zeros((d, 0), np.int64)
        vals = np.zeros((d, 0), np.float64)
    elif n == N:
        order = D.order.copy()
        vals = D.vals.copy()
    else:
        # the presort restricted to the rows, still in sorted order
        keep = np.zeros(N, np.bool_)
        for p in range(n):
            keep[rows[p]] = True
        order = np.empty((d, n), np.int64)
        vals = np.empty((d, n), np.float64)
        for f in range(d):
            q = 0
            for p in range(N):
                i = D.order[f, p]
                if keep[i]:
                    order[f, q] = i
                    vals[f, q] = D.vals[f, p]
                    q += 1
    small = small_node_rows(D.use_hist, D.n_bins)
    kmax = max(2, max_cats)
    n_tmpk = 1 if D.use_hist else n
    # random cut-points: the drawn feature's values and the best one's (2 rows);
    # the sample layout: a node's gathered, sorted keys and sample ids
    n_g = n if P.split_mode == SPLIT_RANDOM else 0
    n_s = n if (P.layout == LAYOUT_SAMPLES and not D.use_hist) else 1
    # the sample layout with value ranks (binning.rank_columns): counting-sort buckets
    n_rank = D.n_bins + 1 if D.use_hist else 1      # (hist: small nodes' counting sort)
    if n_s > 1 and has_ranks(D):
        for f in range(d):
            n_rank = max(n_rank, D.edge_offsets[f + 1] - D.edge_offsets[f])
    # the Newton sweep's scratch (splitter.newton_hist_sweep)
    n_sweep = D.n_bins if D.use_hist and P.merit_code == MERIT_NEWTON else 0
    stack = np.zeros(STACK_SIZE, np.int64)
    sp_ent, sp_aux = sparse_entry_scratch(D, small)
    return Workspace(
        samples, np.empty(n, np.int64), np.empty(n_tmpk, np.float64),
        np.zeros(N, np.int32), order, vals,
        np.empty(small, np.float64), np.empty(small, np.int64), np.empty((1, small), np.float64),
        np.zeros(small, np.int64), np.zeros(small, np.float64), np.zeros((small, S), np.float64),
        np.zeros(kmax, np.int64), np.zeros(kmax, np.int64), np.zeros((kmax, S), np.float64),
        np.zeros(kmax, np.float64), np.zeros(kmax, np.int64), np.zeros(kmax, np.bool_),
        np.zeros(S, np.float64), np.zeros(S, np.float64), np.zeros((2, S), np.float64),
        np.zeros((max_cats, S), np.float64), np.zeros(max_cats, np.int64),
        np.zeros(d, np.int64), np.zeros(d, np.float64), np.zeros(d, np.float64),
        np.zeros(d, np.float64), np.zeros(d, np.int64), np.zeros(d, np.int64),
        np.full((d, max_cats), -1, np.int64),
        np.arange(d), np.zeros(d, np.int64), np.full(1, -np.inf), small,
        np.ones(d, np.bool_),
        np.empty((2, n_g), np.float64), np.zeros(2, np.int64), np.zeros(d, np.float64),
        np.empty(n_s, np.float64), np.empty(n_s, np.int64), np.zeros(n_rank, np.int64),
        np.empty((5, n_sweep)), np.ones(d, np.bool_), stack,
        nominal_scratch(max_cats, S, stack), sp_ent, sp_aux,
    )


@njit(cache=True, nogil=True)
def small_node_rows(use_hist, n_bins):
    """Nodes with fewer rows sort their own samples per feature instead of using
    a histogram (bins) or keeping presorted segments (exact)."""
    return max(32, n_bins // 2) if use_hist else 48


@njit(cache=True, nogil=True)
def pool_extents(D, bb):
    """Each feature's extent in a histogram of ``bb`` bins (.histogram): its value
    bins or categories; empty (every bin) when one of them fills the histogram
    anyway, or without bins."""
    d = D.X.shape[1]
    if not D.use_hist:
        return np.empty(0, np.int64)
    ext = np.empty(d, np.int64)
    narrow = False
    for f in range(d):
        ext[f] = D.n_cats[f] if D.is_nominal[f] else (
            D.edge_offsets[f + 1] - D.edge_offsets[f] + 1)
        narrow = narrow or ext[f] < bb - 1
    if not narrow:
        return np.empty(0, np.int64)
    return ext


@njit(cache=True, nogil=True)
def new_pool(D, P, n_slots=0):
    """An empty histogram pool of ``n_slots`` slots (0: as many as depth-first
    growth needs), grown on demand.  Slots are not zeroed: a histogram is
    zeroed when it is built."""
    d = D.X.shape[1]
    B = D.n_bins
    if n_slots <= 0:
        n_slots = 1
        if D.use_hist:
            # depth-first growth of a tree of depth <= D holds at most D + 1 histograms
            # at once; pool_take doubles the pool on demand (best-first growth)
            n_slots = 8 if P.max_depth >= 7 else max(2, P.max_depth + 1)
    free = np.empty(n_slots, np.int64)
    for j in range(n_slots):
        free[j] = n_slots - 1 - j
    meta = np.full(2, n_slots, np.int64)
    meta[1] = COUNT_NONE
    dd = d if D.use_hist else 1
    bb = B if D.use_hist else 1
    hist = np.empty((n_slots, dd, bb, P.n_stats), np.float64)
    cnt = np.empty((n_slots, dd, bb), np.int64)
    ext = pool_extents(D, bb)
    return HistPool(hist, cnt, free, meta, ext, np.zeros((0, 1, 1), np.float64))


def empty_pool():
    """The pool a driver gets when its caller keeps none (:func:`reuse_pool`)."""
    return HistPool(np.empty((0, 1, 1, 1), np.float64), np.empty((0, 1, 1), np.int64),
                    np.empty(0, np.int64), np.zeros(2, np.int64), np.empty(0, np.int64),
                    np.zeros((0, 1, 1), np.float64))


@njit(cache=True, nogil=True)
def reuse_pool(D, P, pool, n_slots=0):
    """``pool`` -- a pool of an earlier tree on the same bins and statistics
    (:func:`new_pool`), kept by the caller -- with every slot free again, when
    its histograms have this tree's shape; else :func:`new_pool`.  Boosting and
    forests grow hundreds of trees: a fresh pool each time cost the page faults
    of its first writes (MNIST, 784 x 256 bins x 3 statistics a slot: a third of
    a boosted tree's time).  Slots are not zeroed, as in a new pool.  A pool
    must not be used by two trees at once."""
    if (D.use_hist and pool.hist.shape[0] >= max(n_slots, 1)
            and pool.hist.shape[1] == D.X.shape[1] and pool.hist.shape[2] == D.n_bins
            and pool.hist.shape[3] == P.n_stats):
        m = pool.hist.shape[0]
        free = np.empty(m, np.int64)
        for j in range(m):
            free[j] = m - 1 - j
        meta = np.full(2, m, np.int64)
        meta[1] = COUNT_NONE
        return HistPool(pool.hist, pool.cnt, free, meta, pool_extents(D, D.n_bins), pool.zero)
    return new_pool(D, P, n_slots)


@njit(cache=True, nogil=True)
def pool_take(hp):
    """A free slot of the pool (doubling it when none is left): ``(pool, slot)``."""
    n_free = hp.meta[0]
    if n_free == 0:
        P = hp.hist.shape[0]
        P2 = 2 * P
        hist = np.empty((P2,) + hp.hist.shape[1:], np.float64)
        cnt = np.empty((P2,) + hp.cnt.shape[1:], np.int64)
        hist[:P] = hp.hist
        cnt[:P] = hp.cnt
        free = np.empty(P2, np.int64)
        for q in range(P, P2):
            free[n_free] = q
            n_free += 1
        hp = HistPool(hist, cnt, free, hp.meta, hp.ext, hp.zero)
    n_free -= 1
    hp.meta[0] = n_free
    return hp, hp.free[n_free]


@njit(cache=True, nogil=True, inline="always")
def pool_release(hp, slot):
    hp.free[hp.meta[0]] = slot
    hp.meta[0] += 1


# ------------------------------------------------------------ node kernels
@njit(cache=True, nogil=True, inline="always")
def set_feature_mask(P, ws, depth):
    """``ws.fmask`` = the features a node at ``depth`` may split on (see
    :func:`make_params`); every feature when ``P.feature_mask`` is empty."""
    L = P.feature_mask.shape[0]
    if L > 0:
        row = min(depth, L - 1)
        for f in range(ws.fmask.shape[0]):      # (a loop: see tree._grow1)
            ws.fmask[f] = P.feature_mask[row, f]


@njit(cache=True, nogil=True)
def is_leaf_node(P, depth, n_node, wn, imp):
    """Pre-pruning: a node that may not be split whatever its data."""
    return (depth >= P.max_depth or n_node < P.min_samples_split
            or n_node < 2 * P.min_samples_leaf or wn < 2.0 * P.min_weight_leaf
            or (P.merit_code != MERIT_NEWTON and imp <= EPSILON))


# random cut-points: called once per drawn feature and node (extra trees with all
# features: 20 calls a node), inlined for the reference counts (see _INLINE below)
_random_numeric_i = njit(cache=True, nogil=True, inline="always")(random_numeric.py_func)


@njit(cache=True, nogil=True)
def find_best_split(D, P, cp, ws, hp, yc, sstats, w, start, end, hslot, parent, imp,
                    imp_fn, merit_fn):
    """Best split of the node holding ``ws.samples[start:end]``: every (drawn)
    feature's best threshold or category partition, then the best feature (for
    gain ratio, C4.5's rule: the best ratio among tests with at least average
    gain).  Returns the feature (-1: none); its split is described by
    ``ws.feat_thr / feat_mslot / feat_k / feat_cats`` at that feature."""
    X = D.X
    d = X.shape[1]
    S = P.n_stats
    task = P.task
    use_hist = D.use_hist
    missing_bin = D.missing_bin
    # features tie to rounding of the node's score for the Newton gain
    # (merit.better_at: a weight of k and k copies of a row choose alike)
    tie_scale = abs(imp) if P.merit_code == MERIT_NEWTON else 0.0
    is_nominal = D.is_nominal
    n_cats = D.n_cats
    edges = D.edges
    edge_offsets = D.edge_offsets
    samples = ws.samples
    pool = hp.hist
    pcnt = hp.cnt
    # the statistic holding the bins' counts where the pool keeps no cnt (.histogram)
    cc = count_stat(hp.meta[1])
    max_features = P.max_features
    min_samples_leaf = P.min_samples_leaf
    min_weight_leaf = P.min_weight_leaf
    merit_code = P.merit_code
    builtin = P.builtin
    small = ws.small
    cat_cnt = ws.cat_cnt
    cat_stats = ws.cat_stats
    miss = ws.miss
    left = ws.left
    buf = ws.buf
    features = ws.features
    fmask = ws.fmask
    # (the workspace's arrays the loop below reads per feature, taken once: each
    # namedtuple field read in the loop is a reference taken and released)
    Xb = D.Xb
    keys_s = ws.keys_s
    ids_s = ws.ids_s
    blk0 = ws.blk[0]
    rank_cnt = ws.rank_cnt
    sloc = ws.sloc
    sweep = ws.sweep
    miss_root = ws.miss_root
    feat_status = ws.feat_status
    feat_score = ws.feat_score
    feat_ratio = ws.feat_ratio
    feat_thr = ws.feat_thr
    feat_mslot = ws.feat_mslot
    feat_k = ws.feat_k
    visited = ws.visited
    newton = use_hist and merit_code == MERIT_NEWTON and task != TASK_CLASSIFICATION
    n_node = end - start
    best_f = -1
    n_visited = 0
    n_eval = 0
    gathered = False
    ws.proxy_best[0] = -np.inf
    found_any = False
    # random cut-points: the running best feature's gathered values stay in
    # ws.gvals[gsel[0]] (gsel[1] = that feature, -1: none) for partition_node
    gsel = ws.gsel
    gsel[1] = -1
    random_cuts = P.split_mode == SPLIT_RANDOM
    draws_only = False
    track = random_cuts and merit_code != MERIT_GAIN_RATIO
    run_best = -np.inf
    # a small node of sparse binned data: its non-default codes by feature
    if WITH_SPARSE:
        nnz = small_node_entries(D, samples, start, end, n_node < small, ws.sp_ent, ws.sp_aux)
        e_ptr, e_pos, e_code, e_mark = entries_of(ws.sp_ent, ws.sp_aux, nnz,
                                                  D.sp_dflt.shape[0], D.n_bins, n_node)
        sparse_small = e_ptr.shape[0] > 0
    else:
        sparse_small = False
    # sparse binned data: a histogram whose default bin (not the missing one)
    # holds every row of the node is a feature constant on it, which the
    # searches below report as status -1 after a pass over its bins
    dflt = D.sp_dflt
    check_dflt = use_hist and dflt.shape[0] > 0
    for j in range(d):
        if max_features < d:
            r = j + np.random.randint(0, d - j)
            tmpf = features[j]
            features[j] = features[r]
            features[r] = tmpf
        f = features[j]
        if not fmask[f]:
            continue
        if WITH_RANDOM and draws_only and not is_nominal[f]:
            random_numeric_draw(X, D.Xb, use_hist, missing_bin, f, samples, start, end,
                                edge_offsets, D.bin_values)
            continue
        status = 0
        if WITH_NOMINAL and is_nominal[f]:
            nc = n_cats[f]
            if WITH_HIST and use_hist and hslot >= 0:
                for c in range(nc):
                    cat_cnt[c] = bin_count(pool[hslot, f], pcnt[hslot, f], cc, c)
                    for s in range(S):
                        cat_stats[c, s] = pool[hslot, f, c, s]
                n_miss = bin_count(pool[hslot, f], pcnt[hslot, f], cc, missing_bin)
                for s in range(S):
                    miss[s] = pool[hslot, f, missing_bin, s]
            else:
                cat_cnt[:nc] = 0
                cat_stats[:nc] = 0.0
                miss[:] = 0.0
                n_miss = 0
                for p in range(start, end):
                    i = samples[p]
                    x = X[i, f]
                    if np.isnan(x):
                        n_miss += 1
                        if task == TASK_CLASSIFICATION:
                            miss[yc[i]] += w[i]
                        else:
                            for s in range(S):
                                miss[s] += sstats[i, s]
                    else:
                        c = int(x)
                        cat_cnt[c] += 1
                        if task == TASK_CLASSIFICATION:
                            cat_stats[c, yc[i]] += w[i]
                        else:
                            for s in range(S):
                                cat_stats[c, s] += sstats[i, s]
            if WITH_RANDOM and P.split_mode == SPLIT_RANDOM:
                status, score, ratio, kk, mslot = random_nominal(
                    cat_stats, cat_cnt, nc, miss, n_miss, parent, imp, n_node,
                    P.multiway, ws.feat_cats[f], left, buf, min_samples_leaf, min_weight_leaf,
                    task, merit_code, builtin, imp_fn, merit_fn, cp, ws.nom)
            else:
                status, score, ratio, kk, mslot = best_nominal(
                    cat_stats, cat_cnt, nc, miss, n_miss, parent, imp, n_node,
                    P.multiway, ws.feat_cats[f], left, buf, min_samples_leaf, min_weight_leaf,
                    task, merit_code, builtin, imp_fn, merit_fn, cp, ws.nom)
            thr = 0.0
        elif WITH_RANDOM and P.split_mode == SPLIT_RANDOM:
            # extra trees: one random cut-point of this feature
            status, score, ratio, thr, mslot, key = _random_numeric_i(
                X, D.Xb, use_hist, missing_bin, f, samples, start, end,
                edges[edge_offsets[f]:edge_offsets[f + 1]] if use_hist else edges,
                feature_bin_values(D.bin_values, edge_offsets, f),
                yc, sstats, w, parent, imp, left, miss, buf, min_samples_leaf,
                min_weight_leaf, task, merit_code, builtin, imp_fn, merit_fn, cp,
                ws.gvals[1 - gsel[0]])
            ws.feat_key[f] = key
            kk = 2
        elif n_node < small:
            # small node: sort its own samples by this feature
            if not gathered:
                _gather_targets(samples, start, end, yc, sstats, w, task, ws.yloc,
                                ws.sloc, ws.wloc)
                gathered = True
            if WITH_SPARSE and sparse_small and e_ptr[f + 1] == e_ptr[f] and \
                    dflt[f] != missing_bin:
                # every row holds the feature's default code: constant on the node
                status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
            elif WITH_SPARSE and WITH_NEWTON and newton and sparse_small and \
                    dflt[f] != missing_bin:
                status, score, thr, mslot = newton_sparse_small_split(
                    e_pos, e_code, e_ptr[f], e_ptr[f + 1], f, dflt[f], missing_bin, n_node,
                    e_mark, edges, edge_offsets[f], edge_offsets[f + 1], sloc, parent, cp,
                    min_samples_leaf, min_weight_leaf, sweep)
                ratio = score
            elif WITH_NEWTON and newton:
                # (the Newton sweep on scalars, see splitter.newton_hist_sweep)
                status, score, thr, mslot = newton_small_split(
                    Xb, missing_bin, f, samples, start, end, keys_s, ids_s, blk0, rank_cnt,
                    edges, edge_offsets[f], edge_offsets[f + 1], sloc, parent, cp,
                    min_samples_leaf, min_weight_leaf)
                ratio = score
            elif not _gather_sort_small(X, Xb, use_hist, missing_bin, f, samples, start, end,
                                        keys_s, ids_s, blk0, rank_cnt, ws.sort_stack):
                status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
            else:
                status, score, ratio, thr, mslot = best_numeric_sorted(
                    keys_s, ids_s, 0, n_node, use_hist,
                    edges[edge_offsets[f]:edge_offsets[f + 1]] if use_hist else edges,
                    ws.yloc, sloc, ws.wloc, parent, imp, left, miss, buf, min_samples_leaf,
                    min_weight_leaf, task, merit_code, builtin, imp_fn, merit_fn, cp,
                    ws.proxy_best)
            kk = 2
        elif WITH_SPARSE and check_dflt and dflt[f] != missing_bin and (
                (np.int64(pool[hslot, f, dflt[f], cc]) if cc >= 0
                 else pcnt[hslot, f, dflt[f]]) == n_node):
            # (bin_count of the default bin, on scalars: no views of the pool)
            status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
            kk = 2
        elif WITH_NEWTON and newton:
            # (-1: no row of the tree is missing the feature, its missing bin unread)
            status, score, thr, mslot = newton_hist_split(
                pool, pcnt, hslot, f, edges, edge_offsets[f], edge_offsets[f + 1],
                missing_bin if miss_root[f] else -1, parent, cp, n_node, min_samples_leaf,
                min_weight_leaf, sweep, cc)
            ratio = score
            kk = 2
        elif WITH_HIST and use_hist:
            nvb = edge_offsets[f + 1] - edge_offsets[f] + 1
            status, score, ratio, thr, mslot = best_numeric_hist(
                pool[hslot, f], pcnt[hslot, f], nvb,
                edges[edge_offsets[f]:edge_offsets[f + 1]], missing_bin,
                parent, imp, n_node, left, buf, min_samples_leaf, min_weight_leaf,
                task, merit_code, builtin, imp_fn, merit_fn, cp, ws.proxy_best, 0, -1, cc)
            kk = 2
        elif WITH_SAMPLES and P.layout == LAYOUT_SAMPLES:
            # one sample array: gather and sort only this feature's values
            if _gather_sorted(D, f, samples, start, end, ws.gkeys, ws.gids, ws.tmpk, ws.tmp,
                              ws.rank_cnt, ws.sort_stack):
                status, score, ratio, thr, mslot = best_numeric_sorted(
                    ws.gkeys, ws.gids, 0, n_node, False, edges, yc, sstats, w, parent,
                    imp, left, miss, buf, min_samples_leaf, min_weight_leaf,
                    task, merit_code, builtin, imp_fn, merit_fn, cp, ws.proxy_best)
            else:
                status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
            kk = 2
        else:
            status, score, ratio, thr, mslot = best_numeric_sorted(
                ws.vals[f], ws.order[f], start, end, False, edges, yc, sstats, w, parent,
                imp, left, miss, buf, min_samples_leaf, min_weight_leaf,
                task, merit_code, builtin, imp_fn, merit_fn, cp, ws.proxy_best)
            kk = 2
        feat_status[f] = status
        visited[n_eval] = f
        n_eval += 1
        if status >= 0 or P.count_constant:
            n_visited += 1
        if status == 1:
            found_any = True
            feat_score[f] = score
            feat_ratio[f] = ratio
            feat_thr[f] = thr
            feat_mslot[f] = mslot
            feat_k[f] = kk
            if track and better_at(score, run_best, tie_scale):
                # (the choice below picks the same feature: same order, same rule)
                run_best = score
                if is_nominal[f]:
                    gsel[1] = -1
                else:
                    gsel[0] = 1 - gsel[0]
                    gsel[1] = f
        if max_features < d and n_visited >= max_features and found_any:
            break
        if status == 1 and n_node == 2 and max_features >= d:
            # two samples: every admissible split is the same partition with
            # the same merit (up to the rounding of mirrored sums), and ties go
            # to the first feature evaluated.  Random cut-points: the numeric
            # features left still draw their cuts, unscored, as the node's twin
            # with a row of weight k repeated k times draws them (see
            # column_builder._two_row_cuts); nominal ones are scored (2 rows)
            if not random_cuts:
                break
            draws_only = True
    # ---- choose the feature ------------------------------------------------
    if merit_code == MERIT_GAIN_RATIO:
        # C4.5: best gain ratio among tests whose gain is at least the average gain
        tot = 0.0
        m = 0
        for j in range(n_eval):
            f = ws.visited[j]
            if ws.feat_status[f] == 1:
                tot += ws.feat_score[f]
                m += 1
        if m > 0:
            avg = tot / m
            best_val = -np.inf
            for j in range(n_eval):
                f = ws.visited[j]
                if ws.feat_status[f] == 1 and ws.feat_score[f] >= avg - 1e-12:
                    if better(ws.feat_ratio[f], best_val):
                        best_val = ws.feat_ratio[f]
                        best_f = f
    else:
        best_val = -np.inf
        for j in range(n_eval):
            f = ws.visited[j]
            if ws.feat_status[f] == 1 and better_at(ws.feat_score[f], best_val, tie_scale):
                best_val = ws.feat_score[f]
                best_f = f
    return best_f


@njit(cache=True, nogil=True)
def _partition_binned(D, ws, start, end, f, thr, mslot):
    """:func:`partition_node` for a numeric split of binned data: reads the uint8 bin
    codes instead of the raw values (``x <= e_b  <=>  bin(x) <= b``, see
    :mod:`.binning`) in one pass (:func:`_partition_two`)."""
    # tb = number of edges strictly below thr (thr is an edge, or +inf)
    tb = edges_below(D.edges, D.edge_offsets[f], D.edge_offsets[f + 1], thr)
    return _partition_two(ws.samples, ws.tmp, ws.child_n, ws.child_start, start, end, ws.tmpk,
                          float(tb), mslot == 0, D.Xb, f, D.missing_bin, True, D.Xt)


@njit(cache=True, nogil=True)
def partition_node(D, P, ws, start, end, f):
    """Send the node's samples to the children of its split on ``f`` (stable:
    ``ws.samples``, and in exact mode the per-feature sorted segments).  Sets
    ``ws.child_n`` / ``ws.child_start``; returns the number of children, or 0
    (nothing moved) when a child would be empty."""
    X = D.X
    samples = ws.samples
    slot_of = ws.slot_of
    kind = NOMINAL if D.is_nominal[f] else NUMERIC
    k = ws.feat_k[f]
    thr = ws.feat_thr[f]
    mslot = ws.feat_mslot[f]
    cslots = ws.feat_cats[f]
    nc = D.n_cats[f]
    child_n = ws.child_n[:k]
    child_n[:] = 0
    if WITH_RANDOM and ws.gsel[1] == f and P.split_mode == SPLIT_RANDOM and kind == NUMERIC:
        # random cut-point: the values gathered by the split search
        return _partition_two(samples, ws.tmp, ws.child_n, ws.child_start, start, end,
                              ws.gvals[ws.gsel[0]], ws.feat_key[f], mslot == 0, D.Xb, f,
                              D.missing_bin, False, D.Xt)
    if WITH_HIST and D.use_hist and kind == NUMERIC:
        return _partition_binned(D, ws, start, end, f, thr, mslot)
    for p in range(start, end):
        i = samples[p]
        s = _sample_slot(X[i, f], kind, thr, mslot, cslots, nc)
        slot_of[i] = s
        child_n[s] += 1
    for j in range(k):
        if child_n[j] == 0:
            return 0
    child_start = ws.child_start
    _child_starts(child_start, child_n, start, k)
    _stable_partition(samples, start, end, slot_of, child_start, ws.tmp)
    _child_starts(child_start, child_n, start, k)
    if (WITH_PRESORT and not D.use_hist and end - start >= ws.small
            and P.split_mode == SPLIT_BEST and P.layout == LAYOUT_PRESORT):
        for g in range(X.shape[1]):
            if not D.is_nominal[g]:
                _stable_partition_with_keys(ws.order[g], ws.vals[g], start, end, slot_of,
                                            child_start, ws.tmp, ws.tmpk)
                _child_starts(child_start, child_n, start, k)
    return k


@njit(cache=True, nogil=True)
def children_stats(P, cp, ws, yc, sstats, w, k, wn, imp, w_total, imp_fn):
    """Statistics and impurities of the ``k`` children (``ws.cstats``, ``ws.cimp``)
    and the split's improvement: the weighted impurity decrease
    (w imp - sum_c w_c imp_c) / W_root, or for Newton the gain (merit module)."""
    for j in range(k):
        _node_stats(ws.samples, ws.child_start[j], ws.child_start[j] + ws.child_n[j],
                    yc, sstats, w, P.task, ws.cstats[j])
    return children_improvement(P, cp, ws, k, wn, imp, w_total, imp_fn)


@njit(cache=True, nogil=True, inline="always")
def children_improvement(P, cp, ws, k, wn, imp, w_total, imp_fn):
    """The impurities of the ``k`` children whose statistics are in ``ws.cstats``
    (``ws.cimp``) and the split's improvement (see :func:`children_stats`)."""
    task = P.task
    wsum_imp = 0.0
    for j in range(k):
        ws.cimp[j] = impurity_of(ws.cstats[j], P.merit_code, P.builtin, imp_fn, cp)
        wsum_imp += stats_weight(ws.cstats[j], task) * ws.cimp[j]
    if P.merit_code == MERIT_NEWTON:
        g = 0.0
        for j in range(k):
            g -= ws.cimp[j]
        g += imp
        g -= cp[NEWTON_GAMMA] * (k - 1)
        return g
    return (wn * imp - wsum_imp) / w_total if w_total > 0 else 0.0


@njit(cache=True, nogil=True)
def binned_children_stats(D, P, ws, hp, hslot, yc, sstats, w, start, end, f, move):
    """:func:`partition_node` + the statistics part of :func:`children_stats` in one
    pass, for a numeric split of binned data: ``ws.child_n``, ``ws.child_start``
    and ``ws.cstats``.  ``move``: also partition the samples (as
    :func:`partition_node`); without it the samples stay where they are (the
    best-first driver partitions only the leaves it splits, when it splits
    them: LightGBM / scikit-learn HistGradientBoosting).  Returns 2, or 0 when a
    child would be empty.

    Gradient boosting (the Newton merit) with the node's histogram (``hslot >=
    0``): each child's statistics are the sums of its bins of feature ``f`` (as
    LightGBM and HistGradientBoosting take them); the partition then reads only
    the codes, and without ``move`` no row is read (the boosting fit of
    ``bench_boosting``'s first task: -10 %).  Otherwise each child is summed
    over its samples in their order (the order the stable partition keeps): the
    same sums, bit for bit, as the column builder's (``column_builder``), so a
    decision tree and a one-tree forest stay node-for-node equal."""
    Xb = D.Xb
    samples = ws.samples
    tmp = ws.tmp
    missing_bin = D.missing_bin
    # x <= e_b  <=>  bin(x) <= b (see .binning): tb = number of edges below thr
    tb = np.searchsorted(D.edges[D.edge_offsets[f]:D.edge_offsets[f + 1]], ws.feat_thr[f])
    miss_left = ws.feat_mslot[f] == 0
    cst = ws.cstats
    nl = 0
    if hslot >= 0 and P.merit_code == MERIT_NEWTON:
        hf = hp.hist[hslot, f]
        cf = hp.cnt[hslot, f]
        cc = count_stat(hp.meta[1])
        nvb = D.edge_offsets[f + 1] - D.edge_offsets[f] + 1
        cst[:2] = 0.0
        n_right = 0
        for b in range(nvb):
            nb = bin_count(hf, cf, cc, b)
            if nb == 0:
                continue
            j = 0 if b <= tb else 1
            for s in range(cst.shape[1]):
                cst[j, s] += hf[b, s]
            if j == 0:
                nl += nb
            else:
                n_right += nb
        n_mb = bin_count(hf, cf, cc, missing_bin)
        if n_mb > 0:
            j = 0 if miss_left else 1
            for s in range(cst.shape[1]):
                cst[j, s] += hf[missing_bin, s]
            if j == 0:
                nl += n_mb
        if move:
            return _partition_two(samples, tmp, ws.child_n, ws.child_start, start, end,
                                  ws.tmpk, float(tb), miss_left, Xb, f, missing_bin, True,
                                  D.Xt)
    elif P.task != TASK_CLASSIFICATION and P.n_stats == 3:
        l0 = 0.0
        l1 = 0.0
        l2 = 0.0
        r0 = 0.0
        r1 = 0.0
        r2 = 0.0
        # branch-free (as above): each side adds the sample or +0.0, which leaves
        # a sum unchanged (the same sums as adding only on one side)
        ahead = prefetch_stop(samples, start, end)
        for p in range(start, end):
            if p < ahead:
                j = samples[p + PREFETCH_DISTANCE]
                prefetch_at(Xb, j, f)
                prefetch(sstats, j)
            i = samples[p]
            c = Xb[i, f]
            go = code_goes_left(c, tb, miss_left, missing_bin)
            a0 = sstats[i, 0]
            a1 = sstats[i, 1]
            a2 = sstats[i, 2]
            l0 += a0 if go else 0.0
            l1 += a1 if go else 0.0
            l2 += a2 if go else 0.0
            r0 += 0.0 if go else a0
            r1 += 0.0 if go else a1
            r2 += 0.0 if go else a2
            if move:
                samples[start + nl] = i
                tmp[p - start - nl] = i
            nl += go
        cst[0, 0] = l0
        cst[0, 1] = l1
        cst[0, 2] = l2
        cst[1, 0] = r0
        cst[1, 1] = r1
        cst[1, 2] = r2
    else:
        cst[:2] = 0.0
        ahead = prefetch_stop(samples, start, end)
        for p in range(start, end):
            if p < ahead:
                q = samples[p + PREFETCH_DISTANCE]
                prefetch_at(Xb, q, f)
                prefetch_targets(P.task == TASK_CLASSIFICATION, yc, w, sstats, q)
            i = samples[p]
            c = Xb[i, f]
            j = 0 if code_goes_left(c, tb, miss_left, missing_bin) else 1
            if move:
                # (branch-free as above)
                samples[start + nl] = i
                tmp[p - start - nl] = i
            nl += 1 - j
            if P.task == TASK_CLASSIFICATION:
                cst[j, yc[i]] += w[i]
            else:
                for s in range(cst.shape[1]):
                    cst[j, s] += sstats[i, s]
    if move:
        return finish_two(samples, tmp, start, start + nl, end - start - nl, ws.child_n,
                          ws.child_start)
    return two_children(start, start + nl, end - start - nl, ws.child_n, ws.child_start)


@njit(cache=True, nogil=True, inline="always")
def split_ok(P, improvement, imp):
    """Whether the improvement of a split is enough (``min_impurity_decrease``;
    Newton: a gain above it, the slides' pre-stopping at a non-positive gain).
    A Newton gain must exceed it by more than rounding of the node's score
    ``imp`` = -G^2 / 2(H + lambda) (:data:`~.merit.TIE_RTOL` of it): with
    lambda = 0 a split of a node whose rows share g and h gains exactly 0, and
    the rounding of its sums would otherwise decide it -- differently for a
    weight of k than for k copies of a row."""
    if P.merit_code == MERIT_NEWTON:
        return better_at(improvement - P.min_impurity_decrease, 0.0, abs(imp))
    return not (improvement + EPSILON < P.min_impurity_decrease)


# the tree's growth functions inlined into make_children (each call would take and
# release a reference to every one of the tree's 16 arrays)
_ensure_capacity_i = njit(cache=True, nogil=True, inline="always")(ensure_capacity.py_func)
_add_children_i = njit(cache=True, nogil=True, inline="always")(add_children.py_func)


@njit(cache=True, nogil=True)
def make_children(t, node, D, P, ws, f, k):
    """Turn leaf ``node`` into the split on ``f`` with ``k`` children holding
    ``ws.cstats`` / ``ws.cimp`` / ``ws.child_n``.  Returns ``(tree, first_child)``."""
    kind = NOMINAL if D.is_nominal[f] else NUMERIC
    nc = D.n_cats[f]
    t = _ensure_capacity_i(t, k, nc if kind == NOMINAL else 0)
    first = _add_children_i(t, node, k)
    t.feature[node] = f
    t.kind[node] = kind
    t.threshold[node] = ws.feat_thr[f]
    t.missing_child[node] = ws.feat_mslot[f]
    if kind == NOMINAL:
        add_cat_map(t, node, ws.feat_cats[f][:nc])
    for j in range(k):
        c = first + j
        for s in range(t.value.shape[1]):       # (a loop: see tree._grow1)
            t.value[c, s] = ws.cstats[j, s]
        t.n_samples[c] = ws.child_n[j]
        t.weighted_n_samples[c] = stats_weight(ws.cstats[j], P.task)
        t.impurity[c] = ws.cimp[j]
    return t, first


@njit(cache=True, nogil=True, inline="always")
def sparse_rows(D):
    """The data's sparse rows as :func:`.histogram.hist_build` takes them."""
    return (D.sp_ptr, D.sp_bin, D.sp_dflt)


@njit(cache=True, nogil=True)
def plan_children_histograms(D, P, ws, hp, hslot, k, depth, n_node):
    """Which children of a split node (histogram in slot ``hslot >= 0``, children
    in ``ws.child_n`` / ``ws.child_start`` / ``ws.cimp``) get a histogram:
    ``ws.expand[j]`` (the child may split), ``ws.child_slot[j]`` (a slot taken for
    a histogram to build on the child's samples; -1: none).  Returns ``(pool,
    largest)``: ``largest >= 0`` is the child whose histogram will be the
    parent's minus its siblings' (:func:`finish_children_histograms`)."""
    child_slot = ws.child_slot[:k]
    child_slot[:] = -1
    child_n = ws.child_n
    expand = ws.expand[:k]
    for j in range(k):
        nj = child_n[j]
        expand[j] = (depth + 1 < P.max_depth and nj >= P.min_samples_split
                     and nj >= 2 * P.min_samples_leaf
                     and (P.merit_code == MERIT_NEWTON or ws.cimp[j] > EPSILON)
                     and nj >= ws.small)
    largest = 0
    for j in range(k):
        if child_n[j] > child_n[largest]:
            largest = j
    use_sub = expand[largest] and 2 * child_n[largest] >= n_node
    for j in range(k):
        if j == largest and use_sub:
            continue
        if not (expand[j] or use_sub):
            continue
        hp, sl = pool_take(hp)
        child_slot[j] = sl
    return hp, (largest if use_sub else -1)


@njit(cache=True, nogil=True)
def finish_children_histograms(hp, hslot, child_slot, expand, k, largest, subtracted=False):
    """After the planned histograms are built (:func:`plan_children_histograms`):
    the parent's histogram becomes the ``largest`` child's (minus its siblings';
    ``subtracted``: the caller has already subtracted them, as the level-wise
    driver's node tasks do) and siblings that may not split give their slots
    back; without ``largest`` the parent's slot is released.  Updates
    ``child_slot``."""
    if largest >= 0:
        if not subtracted:
            for j in range(k):
                if j != largest:
                    hist_subtract(hp.hist[hslot], hp.cnt[hslot], hp.hist[child_slot[j]],
                                  hp.cnt[child_slot[j]], hp.ext, hp.meta[1])
        child_slot[largest] = hslot
        for j in range(k):
            if j != largest and not expand[j]:
                pool_release(hp, child_slot[j])
                child_slot[j] = -1
    else:
        pool_release(hp, hslot)


@njit(cache=True, nogil=True)
def children_histograms(D, P, ws, hp, yc, sstats, w, hslot, k, depth, n_node):
    """Histograms of the children that may split (``ws.child_slot``, -1: none): the
    smaller ones built, the largest one the parent's minus its siblings' (its slot
    is the parent's).  The parent's slot is released otherwise.  Returns the pool."""
    if not (D.use_hist and hslot >= 0):
        ws.child_slot[:k] = -1
        return hp
    hp, largest = plan_children_histograms(D, P, ws, hp, hslot, k, depth, n_node)
    # two children: the smaller one's histogram is subtracted from the parent's as
    # it is built, group of features by group while its bins are in the cache (as
    # the level-wise driver's tasks): the same sums as hist_subtract after it, and
    # one pass less over both histograms
    fused = largest >= 0 and k == 2
    if fused:
        sub_h, sub_c = hp.hist[hslot], hp.cnt[hslot]
    else:
        sub_h, sub_c = no_subtraction()
    sp = sparse_rows(D)
    for j in range(k):
        sl = ws.child_slot[j]
        if sl < 0:
            continue
        s0 = ws.child_start[j]
        s1 = s0 + ws.child_n[j]
        if fused and not ws.expand[j] and rows_subtraction_pays(
                D.Xb, sp, s1 - s0, P.task, sub_h, hp.meta[1], hp.ext, hp.zero):
            # a child that will not split: its rows subtracted, no histogram built
            subtract_rows(D.Xb, sp, ws.samples, s0, s1, yc, sstats, w, P.task, sub_h, hp.zero,
                          count_stat(hp.meta[1]))
            continue
        hist_build(D.Xb, ws.samples, s0, s1, yc, sstats, w, P.task, hp.hist[sl], hp.cnt[sl],
                   P.n_threads, hp.meta[1], hp.ext, sp, D.Xt, (sub_h, sub_c))
    finish_children_histograms(hp, hslot, ws.child_slot, ws.expand, k, largest, fused)
    return hp


@njit(cache=True, nogil=True)
def _root(D, P, cp, ws, hp, yc, sstats, w, imp_fn):
    """The root leaf (statistics of all rows) and its histogram slot."""
    n = ws.samples.shape[0]
    t = new_tree(64, P.n_stats, 64)
    t.sizes[0] = 1
    three = P.task != TASK_CLASSIFICATION and P.n_stats == 3
    if three:
        # (boosting: the sums and the unit columns in one pass over all rows)
        u0, u1, u2 = _sum_three(ws.samples, 0, n, sstats, t.value[0], True)
    else:
        _node_stats(ws.samples, 0, n, yc, sstats, w, P.task, t.value[0])
    t.n_samples[0] = n
    t.weighted_n_samples[0] = stats_weight(t.value[0], P.task)
    t.impurity[0] = impurity_of(t.value[0], P.merit_code, P.builtin, imp_fn, cp)
    root_slot = -1
    if WITH_HIST and D.use_hist and n >= ws.small and P.split_mode == SPLIT_BEST:
        # (random splits read the samples, not histograms: no histogram is built)
        hp, root_slot = pool_take(hp)
        # unit weights: the counts are read off a statistic (see .histogram)
        if three:
            hp.meta[1] = count_column_of_three(u0, u1, u2)
        else:
            hp.meta[1] = unit_count_column(ws.samples, 0, n, yc, sstats, w, P.task)
        if root_counts_usable(D.Xt, D.Xt_cnt, ws.samples, n, sstats, P.task, hp.meta[1],
                              hp.hist.shape[2]):
            # (boosting on all rows: the unit statistics' bins are the data's counts)
            root_hist_counted(D.Xt, D.Xt_cnt, sstats, hp.hist[root_slot], hp.meta[1], hp.ext,
                              P.n_threads)
        else:
            hist_build(D.Xb, ws.samples, 0, n, yc, sstats, w, P.task, hp.hist[root_slot],
                       hp.cnt[root_slot], P.n_threads, hp.meta[1], hp.ext, sparse_rows(D), D.Xt)
        _missing_on_root(hp, root_slot, D.missing_bin, ws.miss_root)
    else:
        ws.miss_root[:] = True
    return t, hp, root_slot


@njit(cache=True, nogil=True)
def _missing_on_root(hp, root_slot, missing_bin, miss_root):
    """``miss_root[f]``: whether the root's histogram holds a row in feature
    ``f``'s missing bin.  Where it does not, no node of the tree does, and the
    Newton search of the feature reads no missing bin
    (:func:`~.splitter.newton_hist_sweep` with ``missing_bin`` -1; on MNIST that
    far-away read was about a tenth of the sweep)."""
    cc = count_stat(hp.meta[1])
    for f in range(miss_root.shape[0]):
        miss_root[f] = bin_count(hp.hist[root_slot, f], hp.cnt[root_slot, f], cc,
                                 missing_bin) > 0


@njit(cache=True, nogil=True)
def _mark_leaf(leaf_of_row, samples, start, end, node):
    for p in range(np.uint64(start), np.uint64(end)):     # (unsigned: .jit.U1)
        leaf_of_row[np.uint64(samples[p])] = node


@njit(cache=True, nogil=True)
def _add_leaf_values_rows(out, j, value, leaf_of_row, lo, hi):
    # (a plain kernel: the parallel region below holds one call and nothing
    # else, as every parallel region of the engine; see level_wise.py)
    ju = np.uint64(j)
    for i in range(np.uint64(lo), np.uint64(hi)):       # (unsigned: .jit.U1)
        out[i, ju] += value[np.uint64(leaf_of_row[i]), 0]


@njit(cache=True, nogil=True, parallel=True)
def _add_leaf_values_par(out, j, value, leaf_of_row, n_chunks):
    n = leaf_of_row.shape[0]
    size = (n + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        lo = np.int64(c) * size           # (a prange index may be unsigned)
        _add_leaf_values_rows(out, j, value, leaf_of_row, lo, min(n, lo + size))


@njit(cache=True, nogil=True)
def add_leaf_values(out, j, value, leaf_of_row, n_chunks=1):
    """``out[i, j] += value[leaf_of_row[i], 0]`` for every row ``i``: a tree's
    values added to column ``j`` of the scores of the rows it was grown on,
    read off the builder's ``leaf_of_row`` (no traversal; boosting's update
    f_m = f_{m-1} + lr T_m on its training rows).  ``n_chunks > 1``: in that
    many chunks of rows on the threads (each row's sum is the same)."""
    if n_chunks > 1:
        _add_leaf_values_par(out, j, value, leaf_of_row, n_chunks)
    else:
        _add_leaf_values_rows(out, j, value, leaf_of_row, 0, leaf_of_row.shape[0])


@njit(cache=True, nogil=True)
def new_node_stack(n, slot):
    """The depth-first drivers' stack, one row ``(node, start, end, hist slot)``
    per pending node, holding the root (node 0 on samples ``[0, n)``)."""
    stack = np.empty((64, 4), np.int64)
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n
    stack[0, 3] = slot
    return stack


@njit(cache=True, inline="always", nogil=True)
def stack_room(stack, top, k):
    """``stack``, or a copy of it with doubled rows, with room for ``k`` rows above ``top``."""
    if top + k > stack.shape[0]:
        s2 = np.empty((max(2 * stack.shape[0], top + k), 4), np.int64)
        for r in range(top):                    # (a loop: see tree._grow1)
            for c in range(4):
                s2[r, c] = stack[r, c]
        stack = s2
    return stack


@njit(cache=True, inline="always", nogil=True)
def stack_push(stack, top, first, child_start, child_n, child_slot, k):
    """Write the ``k`` children of a split (nodes ``first..first+k-1``) above ``top``
    with the first child on top (scikit-learn's order); room must exist
    (:func:`stack_room`; this part allocates nothing).  Returns the new top."""
    for j in range(k - 1, -1, -1):
        stack[top, 0] = first + j
        stack[top, 1] = child_start[j]
        stack[top, 2] = child_start[j] + child_n[j]
        stack[top, 3] = child_slot[j]
        top += 1
    return top


@njit(cache=True, inline="always", nogil=True)
def push_children(stack, top, first, child_start, child_n, child_slot, k):
    """Push the ``k`` children of a split (nodes ``first..first+k-1``) with the
    first child on top (scikit-learn's order); grows the stack when full.
    Returns ``(stack, top)``."""
    stack = stack_room(stack, top, k)
    return stack, stack_push(stack, top, first, child_start, child_n, child_slot, k)


# ----------------------------------------------------------------- drivers
# The node kernels as numba inlines them into their caller.  A call boundary
# passes the workspace (~40 arrays) by value -- about 2 kB copied a call: 10 %
# of an extra-trees fit when the node step called its parts --, and from a
# reference-counting kernel (the drivers' make_children) also costs an atomic
# increment and decrement per array.
_INLINE = dict(cache=True, nogil=True, inline="always")
_find_best_split_i = njit(**_INLINE)(find_best_split.py_func)
_partition_node_i = njit(**_INLINE)(partition_node.py_func)
_children_stats_i = njit(**_INLINE)(children_stats.py_func)
_make_children_i = njit(**_INLINE)(make_children.py_func)
_is_leaf_node_i = njit(**_INLINE)(is_leaf_node.py_func)
_binned_children_stats_i = njit(**_INLINE)(binned_children_stats.py_func)


# The node step every driver calls: compiled once per configuration and passed
# to the depth-first, best-first and level-wise drivers and the level-wise
# threads as a first-class function value (:func:`.build.node_step`), so that no
# driver links and re-optimises it.  Without reference counting (``_nrt=False``:
# nothing below it allocates -- the workspace holds every scratch --, so a call
# takes no reference to the ~40 arrays of its arguments; with it, those atomic
# increments and decrements measured ~40 % of an extra-trees fit, perf's
# NRT_incref / NRT_decref).  numba compiles the kernels it calls without
# reference counting too, and keeps one compiled version of a kernel per
# signature, whichever caller compiled it first: a kernel below the node step
# returns no array (a view returned without its reference would be released by
# a counting caller).  numba's numpy error model (a division by zero gives inf
# or nan, as in numpy; the kernels below guard their divisions): a kernel called
# through a function value cannot raise into its caller (numba would print the
# exception and go on with a wrong value).
@njit(cache=True, nogil=True, _nrt=False, error_model="numpy")
def decide_node(D, P, cp, ws, hp, yc, sstats, w, start, end, hslot, values, node, imp, wn,
                w_total, depth, imp_fn, merit_fn, defer, moves):
    """The split of the node holding ``ws.samples[start:end]`` (every driver's node
    step): pre-pruning, the best split (:func:`find_best_split`), its children's
    statistics -- a numeric split of binned data partitions and sums in one pass
    (:func:`binned_children_stats`), other splits partition then sum -- and
    pre-stopping (:func:`split_ok`).  ``defer``: with the node's histogram and
    the Newton merit a binned numeric split takes its sums from the histogram
    and leaves the samples where they are (the caller partitions them later:
    :mod:`.level_wise`).  ``moves`` False: a split that would move samples
    (nominal, or not deferred) is not made, ``k`` -1 (the level-wise threads,
    whose workspaces share the partition's scratch).  Returns ``(feature, k,
    deferred, improvement)``;
    feature -1: the node stays a leaf.  The split is described in ``ws`` as
    :func:`make_children` reads it."""
    f = -1
    k = 0
    deferred = False
    improvement = 0.0
    if not _is_leaf_node_i(P, depth, end - start, wn, imp):
        set_feature_mask(P, ws, depth)
        f = _find_best_split_i(D, P, cp, ws, hp, yc, sstats, w, start, end, hslot,
                               values[node], imp, imp_fn, merit_fn)
    if f >= 0:
        fused = D.use_hist and not D.is_nominal[f] and P.split_mode == SPLIT_BEST
        deferred = defer and fused and hslot >= 0 and P.merit_code == MERIT_NEWTON
        if not (moves or deferred):
            # (a split that would move samples, asked not to: k = -1)
            return f, -1, False, 0.0
        if WITH_HIST and fused:
            k = _binned_children_stats_i(D, P, ws, hp, hslot, yc, sstats, w, start, end, f,
                                         not deferred)
        else:
            k = _partition_node_i(D, P, ws, start, end, f)
        if k == 0:
            f = -1
        else:
            if WITH_HIST and fused:
                improvement = children_improvement(P, cp, ws, k, wn, imp, w_total, imp_fn)
            else:
                improvement = _children_stats_i(P, cp, ws, yc, sstats, w, k, wn, imp,
                                                w_total, imp_fn)
            if not split_ok(P, improvement, imp):
                f = -1
    return f, k, deferred, improvement


def grow_depth_first(D, yc, sstats, w, rows, P, cp, imp_fn, merit_fn, leaf_of_row, pool, decide):
    """Depth-first growth (scikit-learn's order: a node's children are pushed
    on a stack, the first child on top).  ``rows``: distinct row ids of ``D`` to
    grow on; targets ``yc`` (class codes, task 0) or ``sstats`` (per-row
    statistics vectors), weights ``w``; ``cp``: criterion parameters.
    ``leaf_of_row`` (length 0: not wanted): receives the leaf of every grown-on
    row, read off the final partition (boosting updates its scores with it
    instead of traversing the new tree).  ``pool``: a histogram pool to reuse
    (:func:`reuse_pool`; :func:`empty_pool`: none).  ``decide``: the node step,
    :func:`decide_node` compiled for the configuration, as a first-class function
    value (:func:`.build.node_step`).  (The level-wise and best-first drivers
    take one more: ``level``, their partition and histogram step,
    :func:`.build.level_step_function`.)"""
    np.random.seed(P.seed)
    ws = new_workspace(D, rows, P)
    hp = reuse_pool(D, P, pool)
    n = rows.shape[0]
    t, hp, root_slot = _root(D, P, cp, ws, hp, yc, sstats, w, imp_fn)
    w_total = t.weighted_n_samples[0]

    stack = new_node_stack(n, root_slot)
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        start = stack[top, 1]
        end = stack[top, 2]
        hslot = stack[top, 3]
        n_node = end - start
        wn = t.weighted_n_samples[node]
        imp = t.impurity[node]
        depth = t.depth[node]
        best_f, k, _, _ = decide(D, P, cp, ws, hp, yc, sstats, w, start, end, hslot, t.value,
                                 node, imp, wn, w_total, depth, imp_fn, merit_fn, False, True)
        is_leaf = best_f < 0
        if is_leaf:
            if hslot >= 0:
                pool_release(hp, hslot)
            if leaf_of_row.shape[0] > 0:
                _mark_leaf(leaf_of_row, ws.samples, start, end, node)
            continue
        t, first = _make_children_i(t, node, D, P, ws, best_f, k)
        if WITH_HIST and hslot >= 0:
            hp = children_histograms(D, P, ws, hp, yc, sstats, w, hslot, k, depth, n_node)
        else:
            ws.child_slot[:k] = -1          # (what children_histograms sets without histograms)
        stack, top = push_children(stack, top, first, ws.child_start, ws.child_n,
                                   ws.child_slot, k)
    return t
