"""Best-first (leaf-wise) growth: LightGBM's and scikit-learn HistGradientBoosting's
order, ``grow_policy="lossguide"``, with a split's work threaded.

The leaf whose split improves most is split next, until ``P.max_leaves``
leaves (a split that would exceed it is skipped) or no leaf can split.  Each
new leaf's best split is found as soon as the leaf exists (the same node
kernels as the depth-first driver, :func:`.builder.decide_node`):

* with the leaf's histogram and the Newton merit (gradient boosting) the
  children's sums come from the histogram's bins and the samples stay where
  they are: a leaf is partitioned only when it is split (as LightGBM and
  HistGradientBoosting do), so the leaves never split are never read;
  the partition is then the level-wise driver's (:func:`.level_wise.level_tasks`
  for one node: on several threads in chunks, each chunk's samples to their
  places in the serial stable partition's order), and so is the smaller
  child's histogram (split by features on the threads), the larger child's
  being the parent's minus it;
* without per-node feature draws the two new leaves of a split are decided on
  two threads, a workspace each (:func:`.level_wise._decide_nodes_par`);
* other splits (nominal, no histogram, other merits) partition and sum in one
  pass when they are found, as before.

The splits, the node numbering and every sum are those of the serial driver
(the same kernels, the same sample order): the tree does not depend on the
number of threads.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from .builder import (
    _mark_leaf, _root, children_histograms, children_improvement,
    finish_children_histograms, make_children, new_workspace, plan_children_histograms,
    pool_release, reuse_pool,
)
from .jit import njit
from .level_wise import (
    _clone_workspace, _decide_nodes_par, decisions_on_threads, thread_decision,
)
from .tree import LEAF

__all__ = ["grow_best_first"]

# the records of a leaf whose split is found (reused when it is split: no second
# pass over its samples): integer fields of ``rec_i``
_F, _MSLOT, _K, _DEFER, _CN = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _heap_push(keys, nodes, size, key, node):
    """Max-heap on (key, -node): the largest improvement first, ties to the older node."""
    if size == keys.shape[0]:
        k2 = np.empty(2 * size, np.float64)
        n2 = np.empty(2 * size, np.int64)
        k2[:size] = keys
        n2[:size] = nodes
        keys = k2
        nodes = n2
    p = size
    keys[p] = key
    nodes[p] = node
    while p > 0:
        q = (p - 1) // 2
        if keys[q] > keys[p] or (keys[q] == keys[p] and nodes[q] < nodes[p]):
            break
        keys[p], keys[q] = keys[q], keys[p]
        nodes[p], nodes[q] = nodes[q], nodes[p]
        p = q
    return keys, nodes, size + 1


@njit(cache=True, nogil=True)
def _heap_pop(keys, nodes, size):
    """Remove the top of the heap; returns (node, new size)."""
    top = nodes[0]
    size -= 1
    keys[0] = keys[size]
    nodes[0] = nodes[size]
    p = 0
    while True:
        a = 2 * p + 1
        if a >= size:
            break
        b = a + 1
        c = a
        if b < size and (keys[b] > keys[a] or (keys[b] == keys[a] and nodes[b] < nodes[a])):
            c = b
        if keys[p] > keys[c] or (keys[p] == keys[c] and nodes[p] < nodes[c]):
            break
        keys[p], keys[c] = keys[c], keys[p]
        nodes[p], nodes[c] = nodes[c], nodes[p]
        p = c
    return top, size


@njit(cache=True, nogil=True)
def _grow_rows(a, n, fill):
    """``a`` with ``n`` rows, the new ones set to ``fill``."""
    out = np.empty((n,) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    out[a.shape[0]:] = fill
    return out


@njit(cache=True, nogil=True)
def _split_deferred(D, P, ws, hp, yc, sstats, w, tmp_r, leaf_of_row, hslot, f, k, depth,
                    n_node, final, level):
    """A deferred split's partition (its samples are still in the parent's
    order) and its children's histograms (``ws.child_slot``), the level-wise
    driver's kernels for a level of one node.  ``final``: the tree's last split
    (no leaf will be split after it): the partition only."""
    start = ws.child_start[0]
    end = start + n_node
    parts = np.empty((1, 7), np.int64)
    parts[0, 0] = start
    parts[0, 1] = end
    parts[0, 2] = f
    lo = D.edge_offsets[f]
    parts[0, 3] = np.searchsorted(D.edges[lo:D.edge_offsets[f + 1]], ws.feat_thr[f])
    parts[0, 4] = 1 if ws.feat_mslot[f] == 0 else 0
    parts[0, 5] = ws.child_n[0]
    parts[0, 6] = -1
    if final:
        ws.child_slot[:k] = -1
        largest = -1
    else:
        hp, largest = plan_children_histograms(D, P, ws, hp, hslot, k, depth, n_node)
    b_start = np.empty(k, np.int64)
    b_end = np.empty(k, np.int64)
    b_slot = np.empty(k, np.int64)
    n_b = 0
    for j in range(k):
        sl = ws.child_slot[j]
        if sl >= 0:
            b_start[n_b] = ws.child_start[j]
            b_end[n_b] = ws.child_start[j] + ws.child_n[j]
            b_slot[n_b] = sl
            n_b += 1
    tasks = np.full((1, 6), -1, np.int64)
    tasks[0, 0] = 0
    tasks[0, 1] = 0
    tasks[0, 2] = n_b
    tasks[0, 5] = 0
    if largest >= 0 and k == 2:
        tasks[0, 3] = hslot
        tasks[0, 4] = ws.child_slot[1 - largest]
        # (a sibling that will not split: its rows subtracted, no histogram built)
        tasks[0, 5] = 0 if ws.expand[1 - largest] else 1
    if not level(D, P, ws, hp, yc, sstats, w, tmp_r, parts, 1, b_start, b_end, b_slot, n_b,
                 tasks, 1, leaf_of_row):
        raise RuntimeError("level tasks: a subtraction without the histogram it subtracts")
    if parts[0, 5] != ws.child_n[0]:
        raise RuntimeError("best-first partition: a child's size differs from its "
                           "histogram count")
    finish_children_histograms(hp, hslot, ws.child_slot, ws.expand, k, largest,
                               tasks[0, 3] >= 0)
    return hp


def grow_best_first(D, yc, sstats, w, rows, P, cp, imp_fn, merit_fn, leaf_of_row, pool, decide,
                    level):
    """Best-first growth (see the module docstring).  A leaf that is never split
    keeps its samples in its own range.  Arguments as
    :func:`.builder.grow_depth_first`."""
    np.random.seed(P.seed)
    ws = new_workspace(D, rows, P)
    hp = reuse_pool(D, P, pool)
    n = rows.shape[0]
    t, hp, root_slot = _root(D, P, cp, ws, hp, yc, sstats, w, imp_fn)
    w_total = t.weighted_n_samples[0]
    kmax = ws.child_n.shape[0]
    max_cats = ws.feat_cats.shape[1]
    tmp_r = np.empty(n, np.int64)
    # the two new leaves of a split decided on two threads
    par = decisions_on_threads(D, P)
    wss = [ws]
    if par:
        wss.append(_clone_workspace(ws))
    cap = t.feature.shape[0]
    # each node: start, end, histogram slot
    nd = np.full((cap, 3), -1, np.int64)
    rec_i = np.zeros((cap, _CN + kmax), np.int64)
    rec_thr = np.zeros(cap, np.float64)
    rec_cats = np.full((cap, max_cats), -1, np.int64)
    rec_cstats = np.zeros((cap, kmax, P.n_stats), np.float64)
    rec_cimp = np.zeros((cap, kmax), np.float64)
    hkeys = np.empty(64, np.float64)
    hnodes = np.empty(64, np.int64)
    hsize = 0
    nd[0, 0] = 0
    nd[0, 1] = n
    nd[0, 2] = root_slot
    n_todo = 1
    lv = np.empty((kmax, 4), np.int64)      # the new leaves: node, start, end, slot
    lv[0, 0] = 0
    lv[0, 1:] = nd[0]
    r_state = np.zeros(2, np.int8)
    r_f = np.empty(2, np.int64)
    r_thr = np.empty(2, np.float64)
    r_mslot = np.empty(2, np.int64)
    r_cn = np.empty((2, 2), np.int64)
    r_cs = np.empty((2, 2, P.n_stats), np.float64)
    r_ci = np.empty((2, 2), np.float64)
    n_leaves = 1
    while True:
        # ---- evaluate the new leaves ------------------------------------------------
        r_state[:] = 0
        if par and n_todo == 2:
            _decide_nodes_par(D, P, cp, wss, hp, yc, sstats, w, t, lv, 2, w_total, imp_fn,
                              merit_fn, r_state, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci, decide)
        for q in range(n_todo):
            node = lv[q, 0]
            start = lv[q, 1]
            end = lv[q, 2]
            hslot = lv[q, 3]
            wn = t.weighted_n_samples[node]
            imp = t.impurity[node]
            f = -1
            k = 0
            deferred = False
            improvement = 0.0
            if r_state[q] == 2:
                f = thread_decision(ws, q, start, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci)
                k = 2
                deferred = True
                improvement = children_improvement(P, cp, ws, 2, wn, imp, w_total, imp_fn)
            elif r_state[q] != 1:
                f, k, deferred, improvement = decide(
                    D, P, cp, ws, hp, yc, sstats, w, start, end, hslot, t.value, node, imp,
                    wn, w_total, t.depth[node], imp_fn, merit_fn, True, True)
            if f < 0:
                if hslot >= 0:
                    pool_release(hp, hslot)
                    nd[node, 2] = -1
                continue
            rec_i[node, _F] = f
            rec_i[node, _MSLOT] = ws.feat_mslot[f]
            rec_i[node, _K] = k
            rec_i[node, _DEFER] = deferred
            rec_i[node, _CN:_CN + k] = ws.child_n[:k]
            rec_thr[node] = ws.feat_thr[f]
            rec_cats[node] = ws.feat_cats[f]
            rec_cstats[node, :k] = ws.cstats[:k]
            rec_cimp[node, :k] = ws.cimp[:k]
            hkeys, hnodes, hsize = _heap_push(hkeys, hnodes, hsize, improvement, node)
        # ---- split the best leaf -------------------------------------------------------
        node = -1
        while hsize > 0:
            cand, hsize = _heap_pop(hkeys, hnodes, hsize)
            if n_leaves + rec_i[cand, _K] - 1 <= P.max_leaves:
                node = cand
                break
            if nd[cand, 2] >= 0:
                pool_release(hp, nd[cand, 2])
                nd[cand, 2] = -1
        if node < 0:
            break
        f = rec_i[node, _F]
        k = rec_i[node, _K]
        start = nd[node, 0]
        n_node = nd[node, 1] - start
        hslot = nd[node, 2]
        depth = t.depth[node]
        ws.feat_thr[f] = rec_thr[node]
        ws.feat_mslot[f] = rec_i[node, _MSLOT]
        ws.feat_k[f] = k
        ws.feat_cats[f] = rec_cats[node]
        acc = start
        for j in range(k):
            ws.child_n[j] = rec_i[node, _CN + j]
            ws.child_start[j] = acc
            acc += ws.child_n[j]
        ws.cstats[:k] = rec_cstats[node, :k]
        ws.cimp[:k] = rec_cimp[node, :k]
        t, first = make_children(t, node, D, P, ws, f, k)
        # the last split of the tree (every split adds a leaf at least): its children
        # get no histogram and no split search (LightGBM stops there too)
        final = n_leaves + k - 1 >= P.max_leaves
        if rec_i[node, _DEFER]:
            hp = _split_deferred(D, P, ws, hp, yc, sstats, w, tmp_r, leaf_of_row, hslot, f,
                                 k, depth, n_node, final, level)
        elif final:
            ws.child_slot[:k] = -1
            if D.use_hist and hslot >= 0:
                pool_release(hp, hslot)
        else:
            hp = children_histograms(D, P, ws, hp, yc, sstats, w, hslot, k, depth, n_node)
        nd[node, 2] = -1
        n_leaves += k - 1
        if t.feature.shape[0] > cap:
            cap = t.feature.shape[0]
            nd = _grow_rows(nd, cap, -1)
            rec_i = _grow_rows(rec_i, cap, 0)
            rec_thr = _grow_rows(rec_thr, cap, 0.0)
            rec_cats = _grow_rows(rec_cats, cap, -1)
            rec_cstats = _grow_rows(rec_cstats, cap, 0.0)
            rec_cimp = _grow_rows(rec_cimp, cap, 0.0)
        for j in range(k):
            c = first + j
            nd[c, 0] = ws.child_start[j]
            nd[c, 1] = ws.child_start[j] + ws.child_n[j]
            nd[c, 2] = ws.child_slot[j]
            lv[j, 0] = c
            lv[j, 1:] = nd[c]
        n_todo = 0 if final else k
    if leaf_of_row.shape[0] > 0:
        _mark_leaves(leaf_of_row, ws.samples, t, nd, P.n_threads)
    return t


#: :func:`_mark_leaves` goes on the threads from this many grown-on rows
PARALLEL_MARK_MIN_ROWS = 20_000


@njit(cache=True, nogil=True)
def _mark_leaves_range(leaf_of_row, samples, starts, ends, nodes, lo, hi):
    """The leaves' marks of the sample positions ``lo .. hi - 1`` (each leaf
    ``nodes[q]`` holds the positions ``starts[q] .. ends[q] - 1``)."""
    for q in range(nodes.shape[0]):
        s = max(starts[q], lo)
        e = min(ends[q], hi)
        if s < e:
            _mark_leaf(leaf_of_row, samples, s, e, nodes[q])


@njit(cache=True, nogil=True, parallel=True)
def _mark_leaves_par(leaf_of_row, samples, starts, ends, nodes, n_threads):
    n = samples.shape[0]
    for k in prange(n_threads):
        kk = np.int64(k)                  # (a prange index may be unsigned)
        _mark_leaves_range(leaf_of_row, samples, starts, ends, nodes, kk * n // n_threads,
                           (kk + 1) * n // n_threads)


@njit(cache=True, nogil=True)
def _mark_leaves(leaf_of_row, samples, t, nd, n_threads):
    """``leaf_of_row[samples[p]]`` = the leaf holding position ``p``, for every
    leaf of ``t`` (its positions ``nd[node, 0] .. nd[node, 1] - 1``); on
    ``n_threads`` threads, each its share of the positions (the leaves' rows
    are disjoint: the same marks)."""
    m = 0
    for node in range(t.sizes[0]):
        if t.kind[node] == LEAF:
            m += 1
    starts = np.empty(m, np.int64)
    ends = np.empty(m, np.int64)
    nodes = np.empty(m, np.int64)
    m = 0
    for node in range(t.sizes[0]):
        if t.kind[node] == LEAF:
            starts[m] = nd[node, 0]
            ends[m] = nd[node, 1]
            nodes[m] = node
            m += 1
    if n_threads > 1 and samples.shape[0] >= PARALLEL_MARK_MIN_ROWS:
        _mark_leaves_par(leaf_of_row, samples, starts, ends, nodes, n_threads)
    else:
        _mark_leaves_range(leaf_of_row, samples, starts, ends, nodes, 0, samples.shape[0])
