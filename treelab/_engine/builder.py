"""Depth-first batch tree builder: one jitted call grows a whole tree.

The builder runs scikit-learn's depth-first strategy (left child first) with
either splitter:

* ``exact``: every numeric feature is pre-sorted once; each node keeps, for
  every numeric feature, its samples in sorted order, and a split partitions
  these segments stably (no per-node sorting);
* ``hist``: features are binned (:mod:`.binning`), each node owns a histogram
  (:mod:`.histogram`) and the larger child's histogram is the parent's minus
  its siblings'.

Nominal features are always evaluated from per-category statistics.  The
criterion is passed as first-class functions (see
:mod:`treelab.split_criteria.base`), so this kernel is compiled once, cached
on disk, and reused by every criterion, built-in or user-defined.

During the build ``tree.value`` holds each node's raw statistics vector; the
learner turns it into predictions (class proportions, means).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types

from .signatures import IMPURITY_TYPE, MERIT_TYPE
from .histogram import hist_build, hist_subtract
from .splitter import (
    MERIT_GAIN_RATIO, TASK_CLASSIFICATION, best_nominal, best_numeric_hist,
    best_numeric_sorted, better, node_impurity, split_merit, stats_weight,
)
from .tree import NOMINAL, NUMERIC, TreeArrays, add_cat_map, add_children, ensure_capacity, new_tree

__all__ = ["build_tree", "presort", "get_build_kernel"]

EPSILON = np.finfo(np.float64).eps


def presort(X, is_nominal):
    """Per numeric feature, the row indices sorted by value (NaN last) and the
    sorted values themselves (both ``(n_features, n_samples)``), so that split
    sweeps read contiguous memory.  Nominal rows are left in input order."""
    XT = np.ascontiguousarray(X.T)
    n, d = X.shape
    order = np.empty((d, n), np.int64)
    vals = np.empty((d, n), np.float64)

    def one(f):
        if is_nominal[f]:
            order[f] = np.arange(n)
        else:
            order[f] = np.argsort(XT[f])        # NumPy's SIMD sort; NaN sorts last
        vals[f] = XT[f][order[f]]

    if n * d >= 1_000_000 and (os.cpu_count() or 1) > 1:
        # NumPy's sort releases the GIL: one feature per thread
        with ThreadPoolExecutor(max_workers=min(d, os.cpu_count())) as pool:
            list(pool.map(one, range(d)))
    else:
        for f in range(d):
            one(f)
    return order, vals


@njit(cache=True)
def _node_stats(samples, start, end, yc, sstats, w, task, out):
    out[:] = 0.0
    for p in range(start, end):
        i = samples[p]
        if task == TASK_CLASSIFICATION:
            out[yc[i]] += w[i]
        else:
            for s in range(out.shape[0]):
                out[s] += sstats[i, s]


@njit(cache=True)
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


@njit(cache=True)
def _stable_partition(arr, start, end, slot_of, child_start, tmp):
    """Stable counting sort of ``arr[start:end]`` by ``slot_of[arr[p]]``."""
    pos = child_start.copy()
    for p in range(start, end):
        i = arr[p]
        s = slot_of[i]
        tmp[pos[s]] = i
        pos[s] += 1
    for p in range(start, end):
        arr[p] = tmp[p]


@njit(cache=True)
def _stable_partition_with_keys(arr, keys, start, end, slot_of, child_start, tmp, tmpk):
    """:func:`_stable_partition` that moves ``keys`` along with ``arr``."""
    pos = child_start.copy()
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


@njit(cache=True)
def _gather_block(X, Xb, use_hist, missing_bin, samples, start, end, yc, sstats, w, task,
                  blk, yl, sl, wl):
    """Copy a small node's rows into local contiguous buffers: ``blk[f, p]`` holds
    feature ``f`` of the node's ``p``-th sample (bin code, or raw value) with missing
    values as +inf (sorting them last), and ``yl`` / ``sl`` / ``wl`` its targets.
    One pass over whole rows instead of one random access per feature and sample."""
    m = end - start
    d = blk.shape[0]
    for p in range(m):
        i = samples[start + p]
        if use_hist:
            row = Xb[i]
            for f in range(d):
                c = row[f]
                blk[f, p] = np.inf if c == missing_bin else c
        else:
            for f in range(d):
                x = X[i, f]
                blk[f, p] = np.inf if np.isnan(x) else x
        wl[p] = w[i]
        if task == TASK_CLASSIFICATION:
            yl[p] = yc[i]
        else:
            for s in range(sstats.shape[1]):
                sl[p, s] = sstats[i, s]


@njit(cache=True)
def _sort_block_row(blk, f, m, keys_s, ids_s):
    """``keys_s[:m]`` = feature ``f`` of the block sorted ascending (missing = NaN last),
    ``ids_s[:m]`` = the local sample positions in that order."""
    for p in range(m):
        keys_s[p] = blk[f, p]
        ids_s[p] = p
    if m <= 24:
        for p in range(1, m):
            k = keys_s[p]
            q = p - 1
            while q >= 0 and keys_s[q] > k:
                keys_s[q + 1] = keys_s[q]
                ids_s[q + 1] = ids_s[q]
                q -= 1
            keys_s[q + 1] = k
            ids_s[q + 1] = p
    else:
        perm = np.argsort(blk[f, :m], kind="mergesort")
        for p in range(m):
            ids_s[p] = perm[p]
            keys_s[p] = blk[f, perm[p]]
    for p in range(m - 1, -1, -1):
        if np.isinf(keys_s[p]) and keys_s[p] > 0:
            keys_s[p] = np.nan
        else:
            break


def _build_tree_py(X, Xb, order, vals, yc, sstats, w, is_nominal, n_cats, edges, edge_offsets,
                   n_stats, task, use_hist, missing_bin, n_hist_bins,
                   max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
                   min_impurity_decrease, max_features, multiway, seed,
                   imp_fn, merit_fn, merit_code, builtin):
    n, d = X.shape
    S = n_stats
    np.random.seed(seed)
    max_cats = 1
    for f in range(d):
        if n_cats[f] > max_cats:
            max_cats = n_cats[f]

    t = new_tree(64, S, 64)
    t.sizes[0] = 1
    samples = np.arange(n)
    tmp = np.empty(n, np.int64)
    tmpk = np.empty(n if not use_hist else 1, np.float64)
    slot_of = np.zeros(n, np.int32)
    # nodes smaller than this sort their own samples per feature instead of
    # using a histogram (hist) or keeping presorted segments (exact)
    small = max(32, n_hist_bins // 2) if use_hist else 48
    keys_s = np.empty(small, np.float64)
    ids_s = np.empty(small, np.int64)
    blk = np.empty((d, small), np.float64)
    yloc = np.zeros(small, np.int64)
    wloc = np.zeros(small, np.float64)
    sloc = np.zeros((small, S), np.float64)
    kmax = max(2, max_cats)
    child_n_buf = np.zeros(kmax, np.int64)
    child_start_buf = np.zeros(kmax, np.int64)
    cstats_buf = np.zeros((kmax, S), np.float64)
    cimp_buf = np.zeros(kmax, np.float64)
    child_slot_buf = np.zeros(kmax, np.int64)
    expand_buf = np.zeros(kmax, np.bool_)

    # histogram pool (hist mode only)
    B = n_hist_bins
    P = 8 if use_hist else 1
    pool = np.zeros((P, d if use_hist else 1, B if use_hist else 1, S), np.float64)
    pcnt = np.zeros((P, d if use_hist else 1, B if use_hist else 1), np.int64)
    free = np.empty(P, np.int64)
    n_free = P
    for j in range(P):
        free[j] = P - 1 - j

    # root
    _node_stats(samples, 0, n, yc, sstats, w, task, t.value[0])
    t.n_samples[0] = n
    t.weighted_n_samples[0] = stats_weight(t.value[0], task)
    t.impurity[0] = node_impurity(t.value[0], builtin, imp_fn)
    w_total = t.weighted_n_samples[0]
    root_slot = -1
    if use_hist and n >= small:
        n_free -= 1
        root_slot = free[n_free]
        hist_build(Xb, samples, 0, n, yc, sstats, w, task, pool[root_slot], pcnt[root_slot])

    # stack: node, start, end, hist slot
    cap = 64
    st_node = np.empty(cap, np.int64)
    st_start = np.empty(cap, np.int64)
    st_end = np.empty(cap, np.int64)
    st_slot = np.empty(cap, np.int64)
    top = 0
    st_node[0] = 0
    st_start[0] = 0
    st_end[0] = n
    st_slot[0] = root_slot
    top = 1

    # split buffers
    left = np.zeros(S, np.float64)
    miss = np.zeros(S, np.float64)
    buf = np.zeros((2, S), np.float64)
    cat_stats = np.zeros((max_cats, S), np.float64)
    cat_cnt = np.zeros(max_cats, np.int64)
    feat_status = np.zeros(d, np.int64)
    feat_score = np.zeros(d, np.float64)
    feat_ratio = np.zeros(d, np.float64)
    feat_thr = np.zeros(d, np.float64)
    feat_mslot = np.zeros(d, np.int64)
    feat_k = np.zeros(d, np.int64)
    feat_cats = np.full((d, max_cats), -1, np.int64)
    features = np.arange(d)
    visited = np.zeros(d, np.int64)
    proxy_best = np.full(1, -np.inf)

    while top > 0:
        top -= 1
        node = st_node[top]
        start = st_start[top]
        end = st_end[top]
        hslot = st_slot[top]
        n_node = end - start
        parent = t.value[node]
        wn = t.weighted_n_samples[node]
        imp = t.impurity[node]
        depth = t.depth[node]

        is_leaf = (depth >= max_depth or n_node < min_samples_split
                   or n_node < 2 * min_samples_leaf or wn < 2.0 * min_weight_leaf
                   or imp <= EPSILON)
        best_f = -1
        if not is_leaf:
            # ---- evaluate features -------------------------------------------------
            n_visited = 0
            n_eval = 0
            gathered = False
            proxy_best[0] = -np.inf
            found_any = False
            for j in range(d):
                if max_features < d:
                    r = j + np.random.randint(0, d - j)
                    tmpf = features[j]
                    features[j] = features[r]
                    features[r] = tmpf
                f = features[j]
                status = 0
                if is_nominal[f]:
                    nc = n_cats[f]
                    if use_hist and hslot >= 0:
                        for c in range(nc):
                            cat_cnt[c] = pcnt[hslot, f, c]
                            for s in range(S):
                                cat_stats[c, s] = pool[hslot, f, c, s]
                        n_miss = pcnt[hslot, f, missing_bin]
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
                    status, score, ratio, kk, mslot = best_nominal(
                        cat_stats, cat_cnt, nc, miss.copy(), n_miss, parent, imp, n_node,
                        multiway, feat_cats[f], left, buf, min_samples_leaf, min_weight_leaf,
                        task, merit_code, builtin, imp_fn, merit_fn)
                    thr = 0.0
                elif n_node < small:
                    # small node: sort its own samples by this feature
                    if not gathered:
                        _gather_block(X, Xb, use_hist, missing_bin, samples, start, end,
                                      yc, sstats, w, task, blk, yloc, sloc, wloc)
                        gathered = True
                    _sort_block_row(blk, f, n_node, keys_s, ids_s)
                    status, score, ratio, thr, mslot = best_numeric_sorted(
                        keys_s, ids_s, 0, n_node, use_hist,
                        edges[edge_offsets[f]:edge_offsets[f + 1]] if use_hist else edges,
                        yloc, sloc, wloc, parent, imp, left, miss, buf, min_samples_leaf,
                        min_weight_leaf, task, merit_code, builtin, imp_fn, merit_fn,
                        proxy_best)
                    kk = 2
                elif use_hist:
                    nvb = edge_offsets[f + 1] - edge_offsets[f] + 1
                    status, score, ratio, thr, mslot = best_numeric_hist(
                        pool[hslot, f], pcnt[hslot, f], nvb,
                        edges[edge_offsets[f]:edge_offsets[f + 1]], missing_bin,
                        parent, imp, n_node, left, buf, min_samples_leaf, min_weight_leaf,
                        task, merit_code, builtin, imp_fn, merit_fn, proxy_best)
                    kk = 2
                else:
                    status, score, ratio, thr, mslot = best_numeric_sorted(
                        vals[f], order[f], start, end, False, edges, yc, sstats, w, parent,
                        imp, left, miss, buf, min_samples_leaf, min_weight_leaf,
                        task, merit_code, builtin, imp_fn, merit_fn, proxy_best)
                    kk = 2
                feat_status[f] = status
                visited[n_eval] = f
                n_eval += 1
                if status >= 0:
                    n_visited += 1
                if status == 1:
                    found_any = True
                    feat_score[f] = score
                    feat_ratio[f] = ratio
                    feat_thr[f] = thr
                    feat_mslot[f] = mslot
                    feat_k[f] = kk
                if max_features < d and n_visited >= max_features and found_any:
                    break
                if status == 1 and n_node == 2 and max_features >= d:
                    # two samples: every admissible split is the same partition with
                    # the same merit, and ties go to the first feature evaluated
                    break
            # ---- choose the feature ------------------------------------------------
            if merit_code == MERIT_GAIN_RATIO:
                # C4.5: best gain ratio among tests whose gain is at least the average gain
                tot = 0.0
                m = 0
                for j in range(n_eval):
                    f = visited[j]
                    if feat_status[f] == 1:
                        tot += feat_score[f]
                        m += 1
                if m > 0:
                    avg = tot / m
                    best_val = -np.inf
                    for j in range(n_eval):
                        f = visited[j]
                        if feat_status[f] == 1 and feat_score[f] >= avg - 1e-12:
                            if better(feat_ratio[f], best_val):
                                best_val = feat_ratio[f]
                                best_f = f
            else:
                best_val = -np.inf
                for j in range(n_eval):
                    f = visited[j]
                    if feat_status[f] == 1 and better(feat_score[f], best_val):
                        best_val = feat_score[f]
                        best_f = f
            if best_f < 0:
                is_leaf = True

        if not is_leaf:
            f = best_f
            kind = NOMINAL if is_nominal[f] else NUMERIC
            k = feat_k[f]
            thr = feat_thr[f]
            mslot = feat_mslot[f]
            cslots = feat_cats[f]
            nc = n_cats[f]
            # ---- assign samples to children and partition --------------------------
            child_n = child_n_buf[:k]
            child_n[:] = 0
            for p in range(start, end):
                i = samples[p]
                s = _sample_slot(X[i, f], kind, thr, mslot, cslots, nc)
                slot_of[i] = s
                child_n[s] += 1
            ok = True
            for j in range(k):
                if child_n[j] == 0:
                    ok = False
            if not ok:
                is_leaf = True
            else:
                child_start = child_start_buf[:k]
                acc = start
                for j in range(k):
                    child_start[j] = acc
                    acc += child_n[j]
                _stable_partition(samples, start, end, slot_of, child_start, tmp)
                if not use_hist and n_node >= small:
                    for g in range(d):
                        if not is_nominal[g]:
                            _stable_partition_with_keys(order[g], vals[g], start, end, slot_of,
                                                        child_start, tmp, tmpk)
                # ---- children statistics and improvement ---------------------------
                cstats = cstats_buf  # rows 0..k-1 in use
                for j in range(k):
                    _node_stats(samples, child_start[j], child_start[j] + child_n[j],
                                yc, sstats, w, task, cstats[j])
                wsum_imp = 0.0
                cimp = cimp_buf[:k]
                for j in range(k):
                    cimp[j] = node_impurity(cstats[j], builtin, imp_fn)
                    wsum_imp += stats_weight(cstats[j], task) * cimp[j]
                improvement = (wn * imp - wsum_imp) / w_total if w_total > 0 else 0.0
                if improvement + EPSILON < min_impurity_decrease:
                    is_leaf = True
        if is_leaf:
            if hslot >= 0:
                free[n_free] = hslot
                n_free += 1
            continue

        # ---- create the children ---------------------------------------------------
        t = ensure_capacity(t, k, nc if kind == NOMINAL else 0)
        parent = t.value[node]
        first = add_children(t, node, k)
        t.feature[node] = f
        t.kind[node] = kind
        t.threshold[node] = thr
        t.missing_child[node] = mslot
        if kind == NOMINAL:
            add_cat_map(t, node, cslots[:nc])
        for j in range(k):
            c = first + j
            t.value[c] = cstats[j]
            t.n_samples[c] = child_n[j]
            t.weighted_n_samples[c] = stats_weight(cstats[j], task)
            t.impurity[c] = cimp[j]

        # ---- children histograms ---------------------------------------------------
        child_slot = child_slot_buf[:k]
        child_slot[:] = -1
        if use_hist and hslot >= 0:
            expand = expand_buf[:k]
            for j in range(k):
                nj = child_n[j]
                expand[j] = (depth + 1 < max_depth and nj >= min_samples_split
                             and nj >= 2 * min_samples_leaf and cimp[j] > EPSILON
                             and nj >= small)
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
                if n_free == 0:
                    # grow the pool
                    P2 = 2 * P
                    pool2 = np.zeros((P2, d, B, S), np.float64)
                    pcnt2 = np.zeros((P2, d, B), np.int64)
                    pool2[:P] = pool
                    pcnt2[:P] = pcnt
                    pool = pool2
                    pcnt = pcnt2
                    free2 = np.empty(P2, np.int64)
                    free2[:n_free] = free[:n_free]
                    free = free2
                    for q in range(P, P2):
                        free[n_free] = q
                        n_free += 1
                    P = P2
                n_free -= 1
                sl = free[n_free]
                hist_build(Xb, samples, child_start[j], child_start[j] + child_n[j],
                           yc, sstats, w, task, pool[sl], pcnt[sl])
                child_slot[j] = sl
            if use_sub:
                # the parent's histogram becomes the largest child's
                for j in range(k):
                    if j != largest:
                        hist_subtract(pool[hslot], pcnt[hslot], pool[child_slot[j]],
                                      pcnt[child_slot[j]])
                child_slot[largest] = hslot
                for j in range(k):
                    if j != largest and not expand[j]:
                        free[n_free] = child_slot[j]
                        n_free += 1
                        child_slot[j] = -1
            else:
                free[n_free] = hslot
                n_free += 1

        # ---- push the children, first slot on top ---------------------------------
        if top + k > cap:
            cap2 = max(2 * cap, top + k)
            a = np.empty(cap2, np.int64)
            a[:top] = st_node[:top]
            st_node = a
            a = np.empty(cap2, np.int64)
            a[:top] = st_start[:top]
            st_start = a
            a = np.empty(cap2, np.int64)
            a[:top] = st_end[:top]
            st_end = a
            a = np.empty(cap2, np.int64)
            a[:top] = st_slot[:top]
            st_slot = a
            cap = cap2
        for j in range(k - 1, -1, -1):
            st_node[top] = first + j
            st_start[top] = child_start[j]
            st_end[top] = child_start[j] + child_n[j]
            st_slot[top] = child_slot[j]
            top += 1
    return t


_KERNEL = None


def _tree_type(n_outputs_dummy=1):
    from numba import typeof
    from .tree import new_tree as _nt
    return typeof(_nt(1, 1, 1))


def get_build_kernel():
    """The builder compiled with its explicit signature (loaded from the disk cache)."""
    global _KERNEL
    if _KERNEL is None:
        T = _tree_type()
        i64 = types.int64
        f64 = types.float64
        sig = T(
            types.float64[:, ::1],      # X
            types.uint8[:, ::1],        # Xb
            types.int64[:, ::1],        # order
            types.float64[:, ::1],      # vals
            types.int64[::1],           # yc
            types.float64[:, ::1],      # sstats
            types.float64[::1],         # w
            types.boolean[::1],         # is_nominal
            types.int64[::1],           # n_cats
            types.float64[::1],         # edges
            types.int64[::1],           # edge_offsets
            i64, i64, types.boolean, i64, i64,   # n_stats, task, use_hist, missing_bin, n_hist_bins
            i64, i64, i64, f64, f64, i64, i64, i64,   # ..., multiway (splitter.NOMINAL_*), seed
            IMPURITY_TYPE, MERIT_TYPE, i64, i64,
        )
        _KERNEL = njit(sig, cache=True)(_build_tree_py)
    return _KERNEL


def build_tree(**kw):
    """Grow one tree; keyword arguments are those of the kernel (see source)."""
    k = get_build_kernel()
    return k(kw["X"], kw["Xb"], kw["order"], kw["vals"], kw["yc"], kw["sstats"], kw["w"],
             kw["is_nominal"], kw["n_cats"], kw["edges"], kw["edge_offsets"],
             kw["n_stats"], kw["task"], kw["use_hist"], kw["missing_bin"], kw["n_hist_bins"],
             kw["max_depth"], kw["min_samples_split"], kw["min_samples_leaf"],
             kw["min_weight_leaf"], kw["min_impurity_decrease"], kw["max_features"],
             int(kw["multiway"]), kw["seed"], kw["imp_fn"], kw["merit_fn"], kw["merit_code"],
             kw.get("builtin", 0))
