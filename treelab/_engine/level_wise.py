"""Level-wise growth: XGBoost's ``depthwise`` policy with a level's work threaded.

The depth-first driver (:func:`.builder.grow_depth_first`) grows one node at a
time, so only a node's own histogram can go on threads, and on a boosted tree
of depth 6 only the root is large enough to pay for it (see
:mod:`.histogram`).  This driver grows the tree a level at a time, as XGBoost's
``hist`` depthwise grower does:

1. the split of every node of the level is decided with the same node kernels
   as the depth-first driver (the best split from the node's histogram, the
   children's statistics from the histogram's bins of the split feature,
   pre-stopping).  Without per-node feature draws the nodes that have a
   histogram are decided on ``P.n_threads`` threads, a workspace each
   (:func:`_decide_nodes_par`); the tree is then grown from the decisions in
   node order, one node after another;
2. :func:`level_tasks`: the samples of the level's numeric splits are
   partitioned and the histograms of the smaller children built; on threads,
   whole nodes per thread (largest first to the least loaded one) when the
   level has at least two nodes a thread, otherwise each partition in chunks
   (:func:`partition_chunks`: each chunk's left and right samples go to their
   final places, the order of the serial stable partition) and every
   histogram split by features (:func:`.histogram.hist_build_nodes`);
3. each largest child's histogram is its parent's minus its siblings'.

At most three parallel regions a level instead of threads at the root only.
The splits are the depth-first driver's (same kernels, same sums in the same
order): the trees differ only in node numbering (breadth-first) and, with
per-node feature draws (``max_features < d``), in the order the draws are
taken (those levels are decided serially, so the tree never depends on the
threads).  A whole level's histograms are alive at once:
:func:`level_wise_fits` says whether that stays within
:data:`LEVEL_HIST_BUDGET` bytes.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from .builder import (
    MERIT_NEWTON, SPLIT_BEST, Workspace, _make_children_i, _mark_leaf, _partition_two, _root,
    code_goes_left, finish_children_histograms, new_workspace,
    plan_children_histograms, pool_release, reuse_pool, sparse_rows, split_codes,
)
from .histogram import (
    _hist_block, count_stat, hist_build_nodes, hist_build_segments, hist_subtract,
    no_subtraction, rows_subtraction_pays, subtract_rows,
)
from .jit import njit
from .prefetch import PREFETCH_DISTANCE, prefetch_at, prefetch_stop
from .splitter import nominal_scratch

__all__ = ["grow_level_wise", "level_wise_fits", "max_slots", "level_tasks", "level_step",
           "partition_chunks", "LEVEL_HIST_BUDGET"]

#: the most bytes of histograms a level-wise tree may hold at once (see
#: :func:`level_wise_fits`); beyond it the depth-first driver grows the tree (at
#: most ``max_depth + 1`` histograms alive)
LEVEL_HIST_BUDGET = 256 * 2 ** 20

#: rows per partition chunk: at least this many (a chunk is one task of the
#: parallel partition; 1024, was 4096: nodes of 4,096-8,191 rows were one chunk,
#: partitioned on one thread)
MIN_CHUNK = 1024


def level_wise_fits(max_depth, n_features, n_bins, n_stats):
    """Whether a level-wise tree of depth ``max_depth`` keeps its histograms within
    :data:`LEVEL_HIST_BUDGET`: nodes of depth ``max_depth - 1`` are the deepest
    that may split, so at most ``2^(max_depth - 1)`` histograms are alive (the
    nodes of depth ``max_depth - 2`` and their children's built ones), each
    ``n_features x n_bins`` of ``n_stats`` floats and a count."""
    if max_depth > 40:
        return False
    slot = n_features * n_bins * (n_stats + 1) * 8
    return max_slots(max_depth, 2 ** 40) * slot <= LEVEL_HIST_BUDGET


@njit(cache=True, nogil=True)
def max_slots(max_depth, n_large):
    """The most histograms a level-wise tree holds at once (see
    :func:`level_wise_fits`), with at most ``n_large`` nodes of a level large
    enough to have one."""
    return max(2, min(2 ** (min(max_depth, 40) - 1), 2 * min(n_large, 2 ** 40) + 2))


@njit(cache=True, nogil=True)
def _place_chunk(samples, tmp_l, tmp_r, ch, c):
    """Chunk ``c``'s left and right samples from ``tmp_l`` / ``tmp_r`` to their
    destinations ``ch[c, 6]`` / ``ch[c, 7]``."""
    s, e, nl, dl, dr = ch[c, 0], ch[c, 1], ch[c, 5], ch[c, 6], ch[c, 7]
    # (unsigned positions: two copies numba vectorizes, .jit.U1; 0.99 -> 0.26 ns a sample)
    su = np.uint64(s)
    dlu = np.uint64(dl)
    dru = np.uint64(dr)
    for q in range(np.uint64(nl)):
        samples[dlu + q] = tmp_l[su + q]
    for q in range(np.uint64(e - s - nl)):
        samples[dru + q] = tmp_r[su + q]


@njit(cache=True, nogil=True)
def _split_chunk(Xb, samples, tmp_l, tmp_r, missing_bin, ch, c, xt):
    """Chunk ``c``'s left samples to ``tmp_l[s:]``, its right ones to ``tmp_r[s:]``."""
    ch[c, 5] = split_codes(samples, ch[c, 0], ch[c, 1], Xb, ch[c, 2], ch[c, 3], ch[c, 4] != 0,
                           missing_bin, tmp_l, ch[c, 0], tmp_r, ch[c, 0], xt)


# The parallel regions below hold one call to a plain (not inlined) kernel and
# nothing else.  When their prange bodies inlined the node kernels
# (``inline="always"``: the split search, the node task, the histogram block),
# numba 0.68 compiled a wrong driver whenever the level-wise driver was the
# first one compiled in an empty cache (a new install's first job: binary
# boosting on two threads): its two-thread trees stopped early (3,000 x 20,
# depth 6: 27 nodes instead of 117), while the other order, the one the test
# suite compiled in, gave the right tree
# (``tests/test_level_wise.py::test_level_wise_driver_compiled_first_in_an_empty_cache``).

@njit(cache=True, nogil=True, parallel=True)
def _split_chunks_par(Xb, samples, tmp_l, tmp_r, missing_bin, ch, n_ch, xt):
    for c in prange(n_ch):
        # (np.int64: a prange index is unsigned; one signature for both callers)
        _split_chunk(Xb, samples, tmp_l, tmp_r, missing_bin, ch, np.int64(c), xt)


@njit(cache=True, nogil=True, parallel=True)
def _place_chunks_par(samples, tmp_l, tmp_r, ch, n_ch):
    for c in prange(n_ch):
        _place_chunk(samples, tmp_l, tmp_r, ch, np.int64(c))


@njit(cache=True, nogil=True)
def partition_chunks(Xb, samples, tmp_l, tmp_r, missing_bin, tasks, n_tasks, n_threads, xt):
    """Stable two-way partitions of several nodes by bin code, each node's samples
    ``samples[start:end]`` split in chunks processed on ``n_threads`` threads.
    ``tasks[q] = (start, end, feature, threshold bin, missing go left, -)``: a
    sample goes left iff its code is ``<= threshold bin`` (the missing code: the
    flag); ``tasks[q, 5]`` receives the node's number of left samples.
    ``tmp_l`` / ``tmp_r``: scratch, as long as ``samples``.  ``xt``: the codes
    column by column, read instead of ``Xb`` (empty: none)."""
    total = 0
    for q in range(n_tasks):
        total += tasks[q, 1] - tasks[q, 0]
    size = max(MIN_CHUNK, total // (4 * n_threads) + 1)
    n_ch = 0
    for q in range(n_tasks):
        n_ch += (tasks[q, 1] - tasks[q, 0] + size - 1) // size
    # chunk: start, end, feature, threshold bin, missing left, n left, left dest, right dest
    ch = np.empty((n_ch, 8), np.int64)
    c = 0
    for q in range(n_tasks):
        for s in range(tasks[q, 0], tasks[q, 1], size):
            ch[c, 0] = s
            ch[c, 1] = min(s + size, tasks[q, 1])
            ch[c, 2:5] = tasks[q, 2:5]
            c += 1
    if n_threads > 1 and n_ch > 1:
        _split_chunks_par(Xb, samples, tmp_l, tmp_r, missing_bin, ch, n_ch, xt)
    else:
        for c in range(n_ch):
            _split_chunk(Xb, samples, tmp_l, tmp_r, missing_bin, ch, c, xt)
    # destinations: a node's chunks' left parts in order, then their right parts
    c = 0
    for q in range(n_tasks):
        c1 = c + (tasks[q, 1] - tasks[q, 0] + size - 1) // size
        nl = 0
        for j in range(c, c1):
            nl += ch[j, 5]
        dl = tasks[q, 0]
        dr = tasks[q, 0] + nl
        for j in range(c, c1):
            ch[j, 6] = dl
            ch[j, 7] = dr
            dl += ch[j, 5]
            dr += ch[j, 1] - ch[j, 0] - ch[j, 5]
        tasks[q, 5] = nl
        c = c1
    if n_threads > 1 and n_ch > 1:
        _place_chunks_par(samples, tmp_l, tmp_r, ch, n_ch)
    else:
        for c in range(n_ch):
            _place_chunk(samples, tmp_l, tmp_r, ch, c)


@njit(cache=True, nogil=True, inline="always")
def mark_two_leaves(Xb, samples, start, end, f, key, miss_left, missing_bin, leaf_of_row, first,
                    xt):
    """A split whose two children are leaves (the last level): each row's leaf
    (``first`` if its code is ``<= key``, missing: ``miss_left``; else ``first +
    1``) into ``leaf_of_row`` (length 0: not wanted), the samples left where they
    are (no partition: nothing reads them again).  Returns the number going left.
    ``xt``: the codes column by column, read instead of ``Xb`` (empty: none)."""
    nl = 0
    mark = leaf_of_row.shape[0] > 0
    # (positions and rows unsigned: no wraparound test an access, .jit.U1)
    if xt.shape[0] > 0:
        col = xt[f]
        for p in range(np.uint64(start), np.uint64(end)):
            i = np.uint64(samples[p])
            go_left = code_goes_left(col[i], key, miss_left, missing_bin)
            if mark:
                leaf_of_row[i] = first if go_left else first + 1
            nl += go_left
        return nl
    ahead = prefetch_stop(samples, start, end)
    fu = np.uint64(f)
    for p in range(start, end):
        if p < ahead:
            prefetch_at(Xb, samples[p + PREFETCH_DISTANCE], f)
        i = np.uint64(samples[np.uint64(p)])
        go_left = code_goes_left(Xb[i, fu], key, miss_left, missing_bin)
        if mark:
            leaf_of_row[i] = first if go_left else first + 1
        nl += go_left
    return nl


@njit(cache=True, nogil=True)
def _node_task(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot, task, yc,
               sstats, w, P_task, hist, cnt, cnt_col, ext, leaf_of_row, xt, zero):
    """One split node's share of a level: its deferred partition (``task[0] >= 0``:
    row of ``parts``; ``parts[q, 6] >= 0``: two leaf children, their rows marked
    instead, :func:`mark_two_leaves`), then the histograms it builds
    (``b_*[task[1]:task[2]]``), then (``task[3] >= 0``) the parent's histogram
    in slot ``task[3]`` minus its other child's, slot ``task[4]``: the largest
    child's.  Where that other child will not split (``task[5] == 1``) and the
    scratch ``zero`` allows it (:func:`.histogram.rows_subtraction_pays`), its
    rows are subtracted without building its histogram
    (:func:`.histogram.subtract_rows`; its slot is left as it was).  Touches only
    the node's samples, its part of ``tmp``, its rows of ``leaf_of_row`` and its
    own slots (and ``zero``: one thread at a time)."""
    q = task[0]
    if q >= 0:
        s = parts[q, 0]
        e = parts[q, 1]
        if parts[q, 6] >= 0:
            parts[q, 5] = mark_two_leaves(Xb, samples, s, e, parts[q, 2], parts[q, 3],
                                          parts[q, 4] != 0, missing_bin, leaf_of_row,
                                          parts[q, 6], xt)
        else:
            cn = np.empty(2, np.int64)
            cs = np.empty(2, np.int64)
            _partition_two(samples, tmp[s:e], cn, cs, s, e, tmp[:0].astype(np.float64),
                           float(parts[q, 3]), parts[q, 4] != 0, Xb, parts[q, 2], missing_bin,
                           True, xt)
            parts[q, 5] = cn[0]
    # the parent's minus the smaller child's histogram made with the child's, group
    # by group while its bins are in the cache (the same numbers)
    fused = False
    eh, ec = no_subtraction()
    only_sub = task.shape[0] > 5 and task[5] == 1
    for b in range(task[1], task[2]):
        here = task[3] >= 0 and b_slot[b] == task[4]
        fused = fused or here
        if here and only_sub and rows_subtraction_pays(Xb, sp, b_end[b] - b_start[b], P_task,
                                                       hist[task[3]], cnt_col, ext, zero):
            subtract_rows(Xb, sp, samples, b_start[b], b_end[b], yc, sstats, w, P_task,
                          hist[task[3]], zero, count_stat(cnt_col))
            continue
        _hist_block(Xb, sp, samples, b_start[b], b_end[b], yc, sstats, w, P_task,
                    hist[b_slot[b]], cnt[b_slot[b]], 0, 1, cnt_col, ext, xt, -1,
                    hist[task[3]] if here else eh, cnt[task[3]] if here else ec)
    if task[3] >= 0 and not fused:
        hist_subtract(hist[task[3]], cnt[task[3]], hist[task[4]], cnt[task[4]], ext, cnt_col)


@njit(cache=True, nogil=True, parallel=True)
def _node_tasks_par(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot, tasks,
                    owner, n_tasks, n_threads, yc, sstats, w, P_task, hist, cnt, cnt_col, ext,
                    leaf_of_row, xt):
    for k in prange(n_threads):
        for q in range(n_tasks):
            if owner[q] == k:
                # (no scratch: the threads' nodes would share it)
                _node_task(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot,
                           tasks[q], yc, sstats, w, P_task, hist, cnt, cnt_col, ext,
                           leaf_of_row, xt, np.zeros((0, 1, 1), np.float64))


#: :func:`level_tasks` gives whole nodes to the threads (LPT) unless the most
#: loaded thread would hold more than this times an even share of the level's
#: work; then the partitions go by nodes and the histograms by equal runs of
#: (node, feature) (:func:`_partitions_then_segments`).  LPT's loads on the
#: boosting benchmark's depth-6 trees: 1.31x an even share at the level of four
#: nodes, 1.14-1.17x at eight, 1.06-1.11x at sixteen, 1.01-1.09x at 32
LPT_MAX_IMBALANCE = 1.08


@njit(cache=True, nogil=True)
def lpt_owners(work, n_threads):
    """Longest processing time first: each task, the largest ``work`` first
    (ties in index order), to the least loaded of ``n_threads`` threads.
    Returns each task's thread and the threads' loads."""
    owner = np.empty(work.shape[0], np.int64)
    load = np.zeros(n_threads, np.int64)
    for q in np.argsort(-work, kind="mergesort"):
        k = np.argmin(load)
        owner[q] = k
        load[k] += work[q]
    return owner, load


@njit(cache=True, nogil=True)
def _task_builds(tasks, n_tasks, b_start, b_end, b_slot):
    """The level's histogram builds as its tasks hold them (``b_*[tasks[q, 1]:
    tasks[q, 2]]``, task by task): their starts, ends, slots and the slot each
    one's histogram is subtracted from (its task's ``tasks[q, 3]`` when
    ``tasks[q, 4]`` is the build's slot; else -1).  ``ok`` False when a
    subtraction's sibling is not among its task's builds."""
    n_b = 0
    for q in range(n_tasks):
        n_b += max(0, tasks[q, 2] - tasks[q, 1])
    starts = np.empty(n_b, np.int64)
    ends = np.empty(n_b, np.int64)
    slots = np.empty(n_b, np.int64)
    subs_of = np.full(n_b, -1, np.int64)
    ok = True
    j = 0
    for q in range(n_tasks):
        found = tasks[q, 3] < 0
        for b in range(tasks[q, 1], tasks[q, 2]):
            starts[j] = b_start[b]
            ends[j] = b_end[b]
            slots[j] = b_slot[b]
            if tasks[q, 3] >= 0 and b_slot[b] == tasks[q, 4]:
                subs_of[j] = tasks[q, 3]
                found = True
            j += 1
        ok = ok and found
    return starts, ends, slots, subs_of, ok


@njit(cache=True, nogil=True)
def _partitions_then_segments(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot,
                              tasks, n_tasks, n_threads, yc, sstats, w, P_task, hist, cnt,
                              cnt_col, ext, leaf_of_row, xt, starts, ends, slots, subs_of):
    """:func:`level_tasks` in two parallel regions: the partitions, whole nodes
    per thread (LPT on their rows), then every histogram build and subtraction
    (``starts .. subs_of``, :func:`_task_builds`) cut into equal runs of (node, feature)
    (:func:`.histogram.hist_build_segments`).  The same partitions and the same
    histograms as node by node."""
    only = tasks[:n_tasks].copy()
    only[:, 1] = 0
    only[:, 2] = 0
    only[:, 3] = -1
    work = np.zeros(n_tasks, np.int64)
    for q in range(n_tasks):
        if tasks[q, 0] >= 0:
            work[q] = parts[tasks[q, 0], 1] - parts[tasks[q, 0], 0]
    owner, _ = lpt_owners(work, n_threads)
    _node_tasks_par(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot, only,
                    owner, n_tasks, n_threads, yc, sstats, w, P_task, hist, cnt, cnt_col, ext,
                    leaf_of_row, xt)
    if starts.shape[0] > 0:
        hist_build_segments(Xb, samples, starts, ends, slots, starts.shape[0], yc, sstats, w,
                            P_task, hist, cnt, n_threads, cnt_col, ext, xt, subs_of)


@njit(cache=True, nogil=True)
def level_tasks(Xb, sp, samples, tmp, tmp_r, missing_bin, parts, n_parts, b_start, b_end, b_slot,
                n_b, tasks, n_tasks, n_threads, yc, sstats, w, P_task, hist, cnt, cnt_col, ext,
                leaf_of_row, xt, zero):
    """The level's deferred partitions and histogram builds.  One thread: node
    by node (a node's histograms right after its partition, while its rows are
    in cache, as the depth-first driver).  Several threads and at least two
    tasks a thread: whole nodes per thread, the largest first to the least
    loaded thread (LPT) -- or, when that leaves one thread more than
    :data:`LPT_MAX_IMBALANCE` times an even share (a few nodes of unequal
    sizes) and the codes are dense, the partitions so and then the histograms
    in equal runs of (node, feature) (:func:`_partitions_then_segments`); fewer
    tasks: each partition in chunks on all threads (:func:`partition_chunks`),
    then every histogram split by features (:func:`.histogram.hist_build_nodes`).
    ``ext``: the histogram pool's extents (``HistPool.ext``); ``sp``: the
    data's sparse rows (as :func:`.histogram.hist_build`); ``xt``: its column
    codes (``BinnedData.Xt``, empty: none).  ``parts[q] = (start, end, feature, threshold
    bin, missing go left, -> left count, first leaf or -1)``; ``tasks[q] =
    (parts row or -1, first and end of its histogram builds, parent slot to
    subtract from or -1, sibling slot[, 1 when the sibling will not split])``
    (see :func:`_node_task`): every subtraction is made here, with its node's
    task or, on the chunked path, feature block by feature block after the
    histograms.  ``zero``: the pool's scratch (``HistPool.zero``; ``(0, 1, 1)``:
    none), used on one thread only.  Returns False when a task asks for a
    subtraction without the histogram it subtracts (a driver's bug: the caller
    raises), else True."""
    if n_threads <= 1:
        for q in range(n_tasks):
            _node_task(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot,
                       tasks[q], yc, sstats, w, P_task, hist, cnt, cnt_col, ext, leaf_of_row,
                       xt, zero)
        return True
    if n_tasks >= 2 * n_threads:
        work = np.zeros(n_tasks, np.int64)
        for q in range(n_tasks):
            if tasks[q, 0] >= 0:
                work[q] += parts[tasks[q, 0], 1] - parts[tasks[q, 0], 0]
            for b in range(tasks[q, 1], tasks[q, 2]):
                work[q] += 2 * (b_end[b] - b_start[b])
        owner, load = lpt_owners(work, n_threads)
        if sp[2].shape[0] == 0 and load.max() * n_threads > LPT_MAX_IMBALANCE * load.sum():
            starts, ends, slots, subs_of, ok = _task_builds(tasks, n_tasks, b_start, b_end,
                                                            b_slot)
            if ok:
                _partitions_then_segments(Xb, sp, samples, tmp, missing_bin, parts, b_start,
                                          b_end, b_slot, tasks, n_tasks, n_threads, yc, sstats,
                                          w, P_task, hist, cnt, cnt_col, ext, leaf_of_row, xt,
                                          starts, ends, slots, subs_of)
                return True
        _node_tasks_par(Xb, sp, samples, tmp, missing_bin, parts, b_start, b_end, b_slot, tasks,
                        owner, n_tasks, n_threads, yc, sstats, w, P_task, hist, cnt, cnt_col,
                        ext, leaf_of_row, xt)
        return True
    # (few nodes: a split into two leaves is marked here, then partitioned with
    # the others all the same; only trees of depth <= 2 have one on this path)
    for q in range(n_parts):
        if parts[q, 6] >= 0:
            mark_two_leaves(Xb, samples, parts[q, 0], parts[q, 1], parts[q, 2], parts[q, 3],
                            parts[q, 4] != 0, missing_bin, leaf_of_row, parts[q, 6], xt)
    if n_parts > 0:
        partition_chunks(Xb, samples, tmp, tmp_r, missing_bin, parts, n_parts, n_threads, xt)
    # the parents' minus their smaller children's histograms, on the same threads
    subs = np.empty((n_tasks, 2), np.int64)
    n_subs = 0
    for q in range(n_tasks):
        if tasks[q, 3] >= 0:
            subs[n_subs, 0] = tasks[q, 3]
            subs[n_subs, 1] = tasks[q, 4]
            n_subs += 1
    if n_b > 0:
        hist_build_nodes(Xb, samples, b_start, b_end, b_slot, n_b, yc, sstats, w, P_task, hist,
                         cnt, n_threads, cnt_col, ext, sp, xt, subs[:n_subs])
    elif n_subs > 0:
        return False
    return True


@njit(cache=True, nogil=True)
def level_step(D, P, ws, hp, yc, sstats, w, tmp_r, parts, n_parts, b_start, b_end, b_slot, n_b,
               tasks, n_tasks, leaf_of_row):
    """:func:`level_tasks` on a driver's data, parameters, workspace and pool.  The
    level-wise and best-first drivers call it as a first-class function value
    (:func:`.build.level_step_function`): compiled once, not linked into each
    driver.  Returns :func:`level_tasks`'s flag."""
    return level_tasks(D.Xb, sparse_rows(D), ws.samples, ws.tmp, tmp_r, D.missing_bin, parts,
                       n_parts, b_start, b_end, b_slot, n_b, tasks, n_tasks, P.n_threads, yc,
                       sstats, w, P.task, hp.hist, hp.cnt, hp.meta[1], hp.ext, leaf_of_row,
                       D.Xt, hp.zero)


@njit(cache=True, nogil=True)
def _clone_workspace(ws):
    """A workspace for another thread's split searches: the sample arrays shared
    (each thread reads only its own nodes' samples and moves none), and the
    tree's missing-value flags (set with the root, read only), every per-node
    buffer its own."""
    stack = ws.sort_stack.copy()
    return Workspace(
        ws.samples, ws.tmp, ws.tmpk, ws.slot_of, ws.order, ws.vals,
        ws.keys_s.copy(), ws.ids_s.copy(), ws.blk.copy(), ws.yloc.copy(), ws.wloc.copy(),
        ws.sloc.copy(), ws.child_n.copy(), ws.child_start.copy(), ws.cstats.copy(),
        ws.cimp.copy(), ws.child_slot.copy(), ws.expand.copy(), ws.left.copy(), ws.miss.copy(),
        ws.buf.copy(), ws.cat_stats.copy(), ws.cat_cnt.copy(), ws.feat_status.copy(),
        ws.feat_score.copy(), ws.feat_ratio.copy(), ws.feat_thr.copy(), ws.feat_mslot.copy(),
        ws.feat_k.copy(), ws.feat_cats.copy(), ws.features.copy(), ws.visited.copy(),
        ws.proxy_best.copy(), ws.small, ws.fmask.copy(), ws.gvals.copy(), ws.gsel.copy(),
        ws.feat_key.copy(), ws.gkeys.copy(), ws.gids.copy(), ws.rank_cnt.copy(),
        ws.sweep.copy(), ws.miss_root, stack,
        nominal_scratch(ws.nom[0].shape[0], ws.nom[3].shape[1], stack),
        ws.sp_ent.copy(), ws.sp_aux.copy(),
    )


@njit(cache=True, nogil=True)
def decisions_on_threads(D, P):
    """Whether split decisions may go on ``P.n_threads`` threads (a workspace each,
    :func:`_decide_nodes_par`): only without per-node feature draws (their order
    would depend on the threads) and for Newton sums read off histograms."""
    return (P.n_threads > 1 and P.max_features >= D.X.shape[1] and D.use_hist
            and P.merit_code == MERIT_NEWTON and P.split_mode == SPLIT_BEST)


@njit(cache=True, nogil=True, parallel=True)
def _decide_nodes_par(D, P, cp, wss, hp, yc, sstats, w, t, lv, n_lv, w_total, imp_fn, merit_fn,
                      r_state, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci, decide):
    """The split decisions of the level's nodes that have a histogram, on
    ``len(wss)`` threads (node ``q`` on thread ``q % T``): the same kernels as
    the serial loop of :func:`grow_level_wise` (best split from the histogram,
    children's sums from its bins, pre-stopping), nothing moved.  ``r_state[q]``:
    1 leaf, 2 numeric split (``r_*`` hold it), 3 left to the serial loop (a
    nominal split).  :func:`.builder.decide_node` with ``moves=False``: a
    nominal split partitions through the scratch arrays the threads share
    (``ws.tmp``), so it goes back to the serial loop."""
    T = len(wss)
    for k in prange(T):
        for q in range(k, n_lv, T):
            _decide_level_node(D, P, cp, wss[k], hp, yc, sstats, w, t, lv, q, w_total, imp_fn,
                               merit_fn, r_state, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci, decide)


@njit(cache=True, nogil=True)
def thread_decision(ws, q, start, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci):
    """Node ``q``'s split decided on a thread (:func:`_decide_nodes_par`, state 2)
    back into the workspace ``ws`` as :func:`.builder.make_children` reads it,
    the node's samples starting at ``start``.  Returns the split feature."""
    f = r_f[q]
    ws.feat_thr[f] = r_thr[q]
    ws.feat_mslot[f] = r_mslot[q]
    ws.feat_k[f] = 2
    ws.child_n[0] = r_cn[q, 0]
    ws.child_n[1] = r_cn[q, 1]
    ws.child_start[0] = start
    ws.child_start[1] = start + r_cn[q, 0]
    ws.cstats[:2] = r_cs[q]
    ws.cimp[:2] = r_ci[q]
    return f


@njit(cache=True, nogil=True)
def _decide_level_node(D, P, cp, wk, hp, yc, sstats, w, t, lv, q, w_total, imp_fn, merit_fn,
                       r_state, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci, decide):
    """Node ``q`` of the level for :func:`_decide_nodes_par`, with workspace ``wk``."""
    node = lv[q, 0]
    start = lv[q, 1]
    end = lv[q, 2]
    hslot = lv[q, 3]
    if hslot < 0:
        return
    wn = t.weighted_n_samples[node]
    imp = t.impurity[node]
    depth = t.depth[node]
    f, kk, _, _ = decide(D, P, cp, wk, hp, yc, sstats, w, start, end, hslot, t.value, node, imp,
                         wn, w_total, depth, imp_fn, merit_fn, True, False)
    if f < 0:
        r_state[q] = 1
        return
    if kk < 0:
        # a nominal split partitions through scratch the threads share
        r_state[q] = 3
        return
    r_state[q] = 2
    r_f[q] = f
    r_thr[q] = wk.feat_thr[f]
    r_mslot[q] = wk.feat_mslot[f]
    r_cn[q, 0] = wk.child_n[0]
    r_cn[q, 1] = wk.child_n[1]
    r_cs[q, :2] = wk.cstats[:2]
    r_ci[q, :2] = wk.cimp[:2]


def grow_level_wise(D, yc, sstats, w, rows, P, cp, imp_fn, merit_fn, leaf_of_row, pool, decide,
                    level):
    """Level-wise growth (see the module docstring); arguments as
    :func:`.builder.grow_depth_first`."""
    np.random.seed(P.seed)
    ws = new_workspace(D, rows, P)
    n = rows.shape[0]
    # only nodes of at least ws.small rows have a histogram
    hp = reuse_pool(D, P, pool, max_slots(P.max_depth, n // ws.small))
    t, hp, root_slot = _root(D, P, cp, ws, hp, yc, sstats, w, imp_fn)
    w_total = t.weighted_n_samples[0]
    kmax = ws.child_n.shape[0]
    tmp_r = np.empty(n, np.int64)
    par = decisions_on_threads(D, P)
    wss = [ws]
    if par:
        for _ in range(P.n_threads - 1):
            wss.append(_clone_workspace(ws))
    # the level: node, start, end, histogram slot
    lv = np.empty((1, 4), np.int64)
    lv[0, 0] = 0
    lv[0, 1] = 0
    lv[0, 2] = n
    lv[0, 3] = root_slot
    n_lv = 1
    while n_lv > 0:
        nx = np.empty((n_lv * kmax, 4), np.int64)
        n_nx = 0
        parts = np.empty((n_lv, 7), np.int64)       # deferred partitions (level_tasks)
        n_parts = 0
        # split nodes with histograms: parent slot, k, largest, index of the first
        # child in nx; their children's slots and expand flags
        sp = np.empty((n_lv, 4), np.int64)
        # level_tasks: part row, builds b0, b1, parent slot to subtract from, sibling slot
        tasks = np.empty((n_lv, 6), np.int64)
        sp_slot = np.empty((n_lv, kmax), np.int64)
        sp_expand = np.zeros((n_lv, kmax), np.bool_)
        n_sp = 0
        b_start = np.empty(n_lv * kmax, np.int64)   # histograms to build
        b_end = np.empty(n_lv * kmax, np.int64)
        b_slot = np.empty(n_lv * kmax, np.int64)
        n_b = 0
        r_state = np.zeros(n_lv, np.int8)           # decided on threads (_decide_nodes_par)
        on_threads = par and n_lv >= 2 * P.n_threads
        n_r = n_lv if on_threads else 0
        r_f = np.empty(n_r, np.int64)
        r_thr = np.empty(n_r, np.float64)
        r_mslot = np.empty(n_r, np.int64)
        r_cn = np.empty((n_r, 2), np.int64)
        r_cs = np.empty((n_r, 2, P.n_stats), np.float64)
        r_ci = np.empty((n_r, 2), np.float64)
        if on_threads:
            _decide_nodes_par(D, P, cp, wss, hp, yc, sstats, w, t, lv, n_lv, w_total, imp_fn,
                              merit_fn, r_state, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci, decide)
        for q in range(n_lv):
            node = lv[q, 0]
            start = lv[q, 1]
            end = lv[q, 2]
            hslot = lv[q, 3]
            n_node = end - start
            wn = t.weighted_n_samples[node]
            imp = t.impurity[node]
            depth = t.depth[node]
            best_f = -1
            k = 0
            deferred = False
            if r_state[q] == 2:
                best_f = thread_decision(ws, q, start, r_f, r_thr, r_mslot, r_cn, r_cs, r_ci)
                k = 2
                deferred = True
            elif r_state[q] != 1:
                # with the node's histogram, Newton sums come from its bins: the
                # samples are moved later, with the level's other nodes
                best_f, k, deferred, _ = decide(D, P, cp, ws, hp, yc, sstats, w, start, end,
                                                hslot, t.value, node, imp, wn, w_total, depth,
                                                imp_fn, merit_fn, True, True)
            is_leaf = best_f < 0
            if is_leaf:
                if hslot >= 0:
                    pool_release(hp, hslot)
                if leaf_of_row.shape[0] > 0:
                    _mark_leaf(leaf_of_row, ws.samples, start, end, node)
                continue
            t, first = _make_children_i(t, node, D, P, ws, best_f, k)
            part_q = -1
            if deferred:
                part_q = n_parts
                lo = D.edge_offsets[best_f]
                parts[n_parts, 0] = start
                parts[n_parts, 1] = end
                parts[n_parts, 2] = best_f
                parts[n_parts, 3] = np.searchsorted(D.edges[lo:D.edge_offsets[best_f + 1]],
                                                    ws.feat_thr[best_f])
                parts[n_parts, 4] = 1 if ws.feat_mslot[best_f] == 0 else 0
                parts[n_parts, 5] = ws.child_n[0]
                # two leaf children (the depth limit): their rows are marked, not moved
                parts[n_parts, 6] = first if depth + 1 >= P.max_depth else -1
                n_parts += 1
            marked = part_q >= 0 and parts[part_q, 6] >= 0
            for j in range(k):
                nx[n_nx + j, 0] = first + j
                nx[n_nx + j, 1] = ws.child_start[j]
                # (marked: an empty range, the rows' leaves are set already)
                nx[n_nx + j, 2] = ws.child_start[j] + (0 if marked else ws.child_n[j])
                nx[n_nx + j, 3] = -1
            if D.use_hist and hslot >= 0:
                hp, largest = plan_children_histograms(D, P, ws, hp, hslot, k, depth, n_node)
                sp[n_sp, 0] = hslot
                sp[n_sp, 1] = k
                sp[n_sp, 2] = largest
                sp[n_sp, 3] = n_nx
                tasks[n_sp, 0] = part_q
                tasks[n_sp, 1] = n_b
                for j in range(k):
                    sl = ws.child_slot[j]
                    sp_slot[n_sp, j] = sl
                    sp_expand[n_sp, j] = ws.expand[j]
                    if sl >= 0:
                        b_start[n_b] = ws.child_start[j]
                        b_end[n_b] = ws.child_start[j] + ws.child_n[j]
                        b_slot[n_b] = sl
                        n_b += 1
                tasks[n_sp, 2] = n_b
                tasks[n_sp, 3] = -1
                tasks[n_sp, 4] = -1
                tasks[n_sp, 5] = 0
                if largest >= 0 and k == 2:
                    # the subtraction goes with the node's task (on its thread)
                    tasks[n_sp, 3] = hslot
                    tasks[n_sp, 4] = ws.child_slot[1 - largest]
                    tasks[n_sp, 5] = 0 if ws.expand[1 - largest] else 1
                n_sp += 1
            n_nx += k
        if n_sp > 0:
            expect = parts[:n_parts, 5].copy()
            if not level(D, P, ws, hp, yc, sstats, w, tmp_r, parts, n_parts, b_start, b_end,
                         b_slot, n_b, tasks, n_sp, leaf_of_row):
                raise RuntimeError("level tasks: a subtraction without the histogram it "
                                   "subtracts")
            for q in range(n_parts):
                if parts[q, 5] != expect[q]:
                    raise RuntimeError("level-wise partition: a child's size differs from "
                                       "its histogram count")
        for s in range(n_sp):
            k = sp[s, 1]
            finish_children_histograms(hp, sp[s, 0], sp_slot[s], sp_expand[s], k, sp[s, 2],
                                       tasks[s, 3] >= 0)
            for j in range(k):
                nx[sp[s, 3] + j, 3] = sp_slot[s, j]
        lv = nx
        n_lv = n_nx
    return t
