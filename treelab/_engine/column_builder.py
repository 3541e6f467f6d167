"""Depth-first trees on column-major bin codes that read only the drawn features.

The histogram builder (:mod:`.builder`) keeps, for every node, the histogram
of **all** ``d`` features (the larger child's by subtraction) and copies all
``d`` features of a small node's rows before sorting: O(d) work per node even
when the tree examines ``max_features`` of them.  A random forest examines
sqrt(d) features per node (Breiman 2001) and a completely-random tree one
(Zhou & Feng 2017, section 2.1): on wide inputs (MNIST: 784 pixels + the
cascade's class vectors) the unused features dominate the time, and the
per-tree histogram pool (slots x d x bins x classes) the memory.

:func:`grow_codes` grows the same trees as
``build.build_tree(..., splitter="hist")`` from the same ``BuildParams`` and
seed, doing only the drawn features' work:

* the codes are stored column-major (``XT[f]`` = feature ``f`` of every row,
  contiguous), so gathering one feature of a node's rows stays in cache;
* best splits (``SPLIT_BEST``): per drawn feature, a histogram of that feature
  alone over the node's rows (nodes of at least ``small`` rows) or its
  gathered, sorted codes (smaller nodes), scored by the splitter's
  :func:`~.splitter.best_numeric_hist` / :func:`~.splitter.best_numeric_sorted`
  -- the builder's two paths, so the same thresholds and merits;
* random splits (``SPLIT_RANDOM``: extra trees, completely-random trees): no
  histogram at all -- the node's [min, max] code range of the drawn feature,
  one cut drawn by :func:`~.splitter.draw_cut_bin` (the draw of
  :func:`~.splitter.random_numeric`), the children's statistics, partition;
* features are drawn by the builder's partial Fisher-Yates shuffle (one
  ``randint`` per visited feature, the permutation carried from node to node,
  constant features counted as draws or not as ``P.count_constant`` says),
  nodes are visited in the same order and the same numba RNG is seeded with
  ``P.seed``: for classification (integer sums)
  the trees equal the builder's node for node (tested); for regression the
  per-node sums may differ in the last bit from the builder's subtracted
  histograms.

Numeric features only (the cascade's codes; no nominal features, no feature
mask, no gain ratio: its C4.5 choice rule needs every visited feature's gain).  Cost per node: O(n_node x features visited) instead of O(n_node x d).

Speed (extra trees): the targets are kept by position (``yc / w``
or ``sstats`` of ``samples[p]`` at ``p``) and moved with their rows by every
partition, so a node's passes read them in order instead of at random rows
for every visited feature; a random cut's codes are gathered once (uint8) and
the partition reads them; the sums of a random cut and the partition are
branch-free (a random cut sends rows either way unpredictably).  Every sum
keeps its values and order, so the trees are unchanged.

Node blocks (extra trees on at most ``BLOCK_MAX_FEATURES`` features):
every row's codes of all features, padded to 8-byte words, are
kept by position too and moved with the row; a node's drawn cuts are summed together
(:func:`_block_sums`) and drawn through a bucket table
(:func:`_draw_cut_table`).  The cuts are drawn in the batches the one-feature
loop would draw before it could stop, so the draws, sums and trees are the
same (tested against the histogram builder with and without the blocks).
For classification with unit weights (no bootstrap, class or sample weights)
the class is one more byte of the block row: a partition moves
the row's words alone (the children's class counts are the chosen cut's),
and a cut's class counts are integers (packed in one register for up to four
classes): the same sums.  A drawn feature's code range is one pass down its
block column.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import types

from .binning import dummy_binned_data, edges_below, feature_bin_values
from .builder import (
    _node_stats, children_improvement, code_goes_left, finish_two,
    is_leaf_node, make_params, new_node_stack, new_workspace, split_ok, stack_push, stack_room,
    two_children,
)
from .impurity import BUILTIN_NONE
from .jit import njit
from .merit import (
    MERIT_GAIN_RATIO, MERIT_IMPURITY_DECREASE, TASK_CLASSIFICATION, better, impurity_of,
    node_impurity, stats_weight,
)
from .signatures import IMPURITY_SIG, IMPURITY_TYPE, MERIT_SIG, MERIT_TYPE, function_pointer
from .splitter import (SPLIT_RANDOM, _add_sample, best_numeric_hist, best_numeric_sorted,
                       draw_cut, draw_cut_bin, midpoint_threshold, random_numeric_result,
                       skip_cut_draw)
from .tree import NUMERIC, add_children, ensure_capacity, new_tree

__all__ = ["grow_codes", "get_codes_kernel", "build_tree_codes"]

#: random splits (extra trees) on at most this many features use the node blocks
#: (:func:`grow_codes`)
BLOCK_MAX_FEATURES = 64
#: buckets of a feature's table for drawing extra-trees cuts (:func:`_draw_cut_table`)
CUT_TABLE_BUCKETS = 4096

#: the node blocks' arrays (:func:`grow_codes`; empty when the blocks are not used)
NodeBlocks = namedtuple("NodeBlocks", [
    "rows",              # (n, dp) uint8: every row's codes (and class byte), by position
    "lo", "hi",          # (dp,) uint8: a feature's lowest / highest non-missing code here
    "n_missing",         # (dp,) int64: its missing codes here
    "cut_feature", "cut_code", "cut_only_missing",   # a batch of drawn cuts (d,)
    "left_sums", "missing_sums", "n_left",           # their sums (d, S) / left rows (d,)
    "flags",             # [any missing code, the class's byte or -1, unit regression weights]
    "words", "buffer",   # (n, nw) uint64: the rows as words; a partition's right side
    "lane_cut", "lane_sums", "lane_count",           # all-columns lane sums (_block_sums)
    "cut_table", "cut_table_v0", "cut_table_scale",  # per-feature cut tables
    "lane_cut1", "lane_counts",                      # int32 class-count lanes
    "best_left", "best_missing",                     # the best cut's sums (the partition's)
])

_INLINE = dict(cache=True, nogil=True, inline="always")
_add_children_i = njit(**_INLINE)(add_children.py_func)
_is_leaf_node_i = njit(**_INLINE)(is_leaf_node.py_func)
# the split scorers, inlined at their one call site each (a call passing the
# criterion's first-class functions is not: see random_numeric_result)
_best_numeric_hist_i = njit(**_INLINE)(best_numeric_hist.py_func)
_best_numeric_sorted_i = njit(**_INLINE)(best_numeric_sorted.py_func)


@njit(**_INLINE)
def _column_hist(col, samples, start, end, yl, sl, wl, task, hist, cnt):
    """Histogram of one feature (``col`` = its codes) over ``samples[start:end]``
    (targets ``yl / sl / wl`` by position, :func:`grow_codes`); ``hist`` / ``cnt``
    arrive zeroed.  Returns the (lowest, highest) code seen."""
    lo = 1 << 30
    hi = -1
    S = hist.shape[1]
    # (one loop per task: the branch taken out of the loop by hand -- left
    # inside, the inlined loop kept it, and its registers, per row)
    if task == TASK_CLASSIFICATION:
        for p in range(start, end):
            b = col[samples[p]]
            lo = min(lo, b)
            hi = max(hi, b)
            hist[b, yl[p]] += wl[p]
            cnt[b] += 1
    else:
        for p in range(start, end):
            b = col[samples[p]]
            lo = min(lo, b)
            hi = max(hi, b)
            for s in range(S):
                hist[b, s] += sl[p, s]
            cnt[b] += 1
    return lo, hi


@njit(**_INLINE)
def _sorted_codes(col, samples, start, end, missing_bin, keys, ids, cnt, g):
    """``keys[:m]`` = the node's codes of one feature in ascending order (stable;
    missing values last, as NaN), ``ids[:m]`` their positions in ``samples``
    (the targets are kept by position; the builder's ``_gather_sort_small``
    for that feature).  Returns False, sorting nothing, when every code is the
    same (a constant feature, or all missing: ``best_numeric_sorted``'s
    status -1).  No allocation; ``cnt`` arrives and leaves zeroed.

    The codes are gathered once into ``g[:m]`` (uint8, contiguous): the range
    check then reads bytes in order, and so do the sorts (one random-row pass
    instead of two or three: ~0.6-0.8x the time of a small node's feature).

    Few rows over a wide code range (``m^2 <= 8 x range``: a deep node of a
    pixel feature, 5 rows over codes 0..250) are insertion-sorted as packed
    ``code << 32 | offset`` integers, whose order is the stable order; others
    by a stable counting sort over the code range (the missing code is the
    highest, so it sorts last).  Same order either way."""
    m = end - start
    for q in range(m):
        g[q] = col[np.uint64(samples[start + q])]
    lo8 = np.uint8(255)
    hi8 = np.uint8(0)
    for q in range(m):
        c = g[q]
        lo8 = min(lo8, c)
        hi8 = max(hi8, c)
    lo = np.int64(lo8)
    hi = np.int64(hi8)
    if hi <= lo:
        return False
    if m * m <= 8 * (hi - lo + 1):
        for q in range(m):
            v = (np.int64(g[q]) << 32) | q
            r = q
            while r > 0 and ids[r - 1] > v:
                ids[r] = ids[r - 1]
                r -= 1
            ids[r] = v
        for q in range(m):
            v = ids[q]
            c = v >> 32
            keys[q] = np.nan if c == missing_bin else float(c)
            ids[q] = start + (v & 0xFFFFFFFF)
        return True
    for q in range(m):
        cnt[np.uint64(g[q])] += 1
    pos = 0
    for c in range(lo, hi + 1):
        k = cnt[c]
        cnt[c] = pos
        pos += k
    for q in range(m):
        c = np.int64(g[q])
        cu = np.uint64(c)
        k = cnt[cu]
        cnt[cu] = k + 1
        keys[k] = np.nan if c == missing_bin else float(c)
        ids[k] = start + q
    cnt[lo:hi + 1] = 0
    return True


@njit(**_INLINE)
def _split_codes(col, gathered, samples, tmp, start, end, key, miss_left, missing_bin, tg,
                 task, cst, child_n, child_start, bk, f):
    """Partition the node's rows ``samples[start:end]`` by one feature's codes
    (left iff ``code <= key``; the missing code goes left iff ``miss_left``) --
    ``col[samples[p]]``, or ``gathered[p]`` when it holds them -- and sum the two
    children's statistics into ``cst[0]`` / ``cst[1]`` in the same pass.  The
    partition is stable (left rows compacted in place, right ones through
    ``tmp``: the builder's ``_partition_two``) and moves the targets kept by
    position (``tg``, :func:`grow_codes`) with their rows; each child is summed
    over its rows in that order, as the builder's ``_node_stats`` sums it after
    partitioning: the same values bit for bit.  Sets ``child_n`` /
    ``child_start``; returns 2, or 0 when a child would be empty.  With the
    node blocks (``bk``, :func:`grow_codes`) the codes are ``bl[p, f]`` and every
    row's codes move with it; with the class in the block row nothing is summed
    (``cst`` is left to the caller: the chosen cut's class counts)."""
    yl, sl, wl, tyl, tsl, twl = tg[0], tg[1], tg[2], tg[3], tg[4], tg[5]
    bl, b64, t64 = bk.rows, bk.words, bk.buffer
    use_b = bl.shape[0] > 0
    nw = b64.shape[1]
    use_g = gathered.shape[0] > 0
    kb = (1 << 30) if key > 1e9 else int(key)
    nl = start
    nr = 0
    if task != TASK_CLASSIFICATION:
        S = cst.shape[1]
        l0 = 0.0
        l1 = 0.0
        l2 = 0.0
        r0 = 0.0
        r1 = 0.0
        r2 = 0.0
        cst[:2] = 0.0
        for p in range(start, end):
            i = 0 if use_b else samples[p]   # (blocks: the row ids are not kept)
            c = bl[p, f] if use_b else (gathered[p] if use_g else col[i])
            go = code_goes_left(c, kb, miss_left, missing_bin)
            if use_b:
                _move_row(b64, t64, p, nl, nr, nw)
            if S == 3:
                # branch-free, as the classification loop below
                a0 = sl[p, 0]
                a1 = sl[p, 1]
                a2 = sl[p, 2]
                if not use_b:
                    samples[nl] = i
                    tmp[nr] = i
                sl[nl, 0] = a0
                sl[nl, 1] = a1
                sl[nl, 2] = a2
                tsl[nr, 0] = a0
                tsl[nr, 1] = a1
                tsl[nr, 2] = a2
                l0 += a0 if go else 0.0
                l1 += a1 if go else 0.0
                l2 += a2 if go else 0.0
                r0 += 0.0 if go else a0
                r1 += 0.0 if go else a1
                r2 += 0.0 if go else a2
                nl += go
                nr += 1 - go
            elif go:
                if not use_b:
                    samples[nl] = i
                for s in range(S):
                    a = sl[p, s]
                    sl[nl, s] = a
                    cst[0, s] += a
                nl += 1
            else:
                if not use_b:
                    tmp[nr] = i
                for s in range(S):
                    a = sl[p, s]
                    tsl[nr, s] = a
                    cst[1, s] += a
                nr += 1
        if S == 3:
            cst[0, 0] = l0
            cst[0, 1] = l1
            cst[0, 2] = l2
            cst[1, 0] = r0
            cst[1, 1] = r1
            cst[1, 2] = r2
        for q in range(nr):
            for s in range(S):
                sl[nl + q, s] = tsl[q, s]
    elif use_b and bk.flags[1] >= 0:
        # the class is a byte of the block row and every weight is 1: the row's
        # words are all there is to move; the children's class counts are the
        # chosen cut's sums (the caller, _grow_nodes: counts, so the same values)
        for p in range(start, end):
            c = bl[p, f]
            _move_row(b64, t64, p, nl, nr, nw)
            go = code_goes_left(c, kb, miss_left, missing_bin)
            nl += go
            nr += 1 - go
    else:
        cst[:2] = 0.0
        # branch-free: every row is written to both sides and the side it does not
        # go to is overwritten by the next one (positions nl <= p were read already);
        # adding 0.0 leaves a sum as skipping it does
        for p in range(start, end):
            i = 0 if use_b else samples[p]   # (blocks: the row ids are not kept)
            c = bl[p, f] if use_b else (gathered[p] if use_g else col[i])
            if use_b:
                _move_row(b64, t64, p, nl, nr, nw)
            y = yl[p]
            wi = wl[p]
            go = code_goes_left(c, kb, miss_left, missing_bin)
            if not use_b:
                samples[nl] = i
                tmp[nr] = i
            yl[nl] = y
            wl[nl] = wi
            tyl[nr] = y
            twl[nr] = wi
            cst[0, y] += wi if go else 0.0
            cst[1, y] += 0.0 if go else wi
            nl += go
            nr += 1 - go
        for q in range(nr):
            yl[nl + q] = tyl[q]
            wl[nl + q] = twl[q]
    if use_b:
        for q in range(nr):
            for g in range(nw):
                b64[nl + q, g] = t64[q, g]
        return two_children(start, nl, nr, child_n, child_start)
    return finish_two(samples, tmp, start, nl, nr, child_n, child_start)


@njit(**_INLINE)
def _cut_merit(parent, parent_imp, n_parent, left, n_left, buf, min_samples_leaf,
               min_weight_leaf, task, builtin, imp_fn):
    """:func:`~.splitter.random_numeric_result` of a cut that no missing row reaches,
    under an impurity decrease: ``(status, score, missing_slot)``.  The same
    operations in the same order as ``eval_binary`` / ``split_merit`` (so the
    same values), inlined: as calls they cost each drawn feature more than
    summing a small node's rows."""
    n_right = n_parent - n_left
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return 0, -np.inf, 1
    for s in range(parent.shape[0]):
        lv = left[s]
        rv = parent[s] - lv
        if task == TASK_CLASSIFICATION and rv < 0.0:
            rv = 0.0
        buf[0, s] = lv
        buf[1, s] = rv
    w_l = stats_weight(buf[0], task)
    w_r = stats_weight(buf[1], task)
    if w_l < min_weight_leaf or w_r < min_weight_leaf:
        return 0, -np.inf, 1
    w = stats_weight(parent, task)
    gain = 0.0
    if w > 0.0:
        acc = 0.0
        if w_l > 0.0:
            acc += (w_l / w) * node_impurity(buf[0], builtin, imp_fn)
        if w_r > 0.0:
            acc += (w_r / w) * node_impurity(buf[1], builtin, imp_fn)
        gain = parent_imp - acc
    if not better(gain, -np.inf):
        return 0, -np.inf, 1
    # no missing value seen here: missing goes to the larger child
    return 1, gain, 0 if n_left >= n_right else 1


@njit(**_INLINE)
def _random_codes(col, samples, start, end, missing_bin, edges_f, bvals_f, tg, parent,
                  parent_imp, left, miss, buf, min_samples_leaf, min_weight_leaf, task,
                  merit_code, builtin, imp_fn, merit_fn, cp, gathered, exact_cut,
                  codes_are_values):
    """:func:`~.splitter.random_numeric` on one feature's codes (its histogram
    branch: the same draw :func:`~.splitter.draw_cut_bin`, the same sums in the same
    order, the same return value), reading the targets by position (``tg``) and
    gathering the node's codes into ``gathered[start:end]`` (uint8) for the
    partition.  ``exact_cut``: the threshold is the drawn value;
    ``codes_are_values``: :func:`_draw_cut_codes`'s shortcut."""
    yl, sl, wl = tg[0], tg[1], tg[2]
    n_parent = end - start
    ilo = 256
    ihi = -1
    n_miss = 0
    for p in range(start, end):
        c = col[samples[p]]
        gathered[p] = c
        if c == missing_bin:
            n_miss += 1
        else:
            if c < ilo:
                ilo = c
            if c > ihi:
                ihi = c
    if n_miss == n_parent:
        return -1, -np.inf, -np.inf, 0.0, 0, 0.0
    only_missing = ihi <= ilo
    if only_missing and n_miss == 0:
        return -1, -np.inf, -np.inf, 0.0, 0, 0.0
    key = np.inf
    thr = np.inf
    kb = 1 << 30
    if not only_missing:
        kb, t_cut = _draw_cut_codes(ilo, ihi, bvals_f, codes_are_values)
        thr = t_cut if exact_cut else edges_f[kb]
        key = float(kb)
    left[:] = 0.0
    miss[:] = 0.0
    n_left = 0
    if n_miss == 0:
        # no missing code here: branch-free sums (a random cut sends rows either
        # way unpredictably); adding 0.0 for a right row leaves every sum as the
        # skipping loop leaves it (a sum from +0.0 is never -0.0), so the same values
        if task == TASK_CLASSIFICATION:
            for p in range(start, end):
                go = gathered[p] <= kb
                left[yl[p]] += wl[p] if go else 0.0
                n_left += go
        elif left.shape[0] == 3:
            l0 = 0.0
            l1 = 0.0
            l2 = 0.0
            for p in range(start, end):
                go = gathered[p] <= kb
                l0 += sl[p, 0] if go else 0.0
                l1 += sl[p, 1] if go else 0.0
                l2 += sl[p, 2] if go else 0.0
                n_left += go
            left[0] = l0
            left[1] = l1
            left[2] = l2
        else:
            for p in range(start, end):
                go = gathered[p] <= kb
                for s in range(left.shape[0]):
                    left[s] += sl[p, s] if go else 0.0
                n_left += go
    else:
        for p in range(start, end):
            c = gathered[p]
            if c == missing_bin:
                _add_sample(miss, p, yl, sl, wl, task)
            elif c <= kb:
                _add_sample(left, p, yl, sl, wl, task)
                n_left += 1
    if n_miss == 0 and merit_code == MERIT_IMPURITY_DECREASE:
        status, score, slot = _cut_merit(parent, parent_imp, n_parent, left, n_left, buf,
                                         min_samples_leaf, min_weight_leaf, task, builtin,
                                         imp_fn)
        if status == 0:
            return 0, -np.inf, -np.inf, 0.0, 0, 0.0
        return 1, score, score, thr, slot, key
    return random_numeric_result(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                                 min_samples_leaf, min_weight_leaf, task, merit_code, builtin,
                                 imp_fn, merit_fn, cp, thr, key, only_missing)


@njit(**_INLINE)
def _draw_cut_codes(lo, hi, bvals_f, codes_are_values):
    """:func:`~.splitter.draw_cut` (the same random draw, the same ``(b, t)``);
    ``codes_are_values``: every bin's value is its code (:func:`_bin_values_are_codes`:
    the cascade's code columns), so the last bin whose value is at most ``t`` is
    ``floor(t)`` -- no search (8 dependent loads a draw).  The arithmetic is
    draw_cut's: ``t = v_lo + (v_hi - v_lo) U`` on the same values."""
    if not codes_are_values:
        return draw_cut(lo, hi, bvals_f)
    return _cut_at_codes(lo, hi, bvals_f, np.random.random())


@njit(**_INLINE)
def _cut_at_codes(lo, hi, bvals_f, u):
    """:func:`~.splitter.cut_at` when the bins' values are the codes."""
    a = bvals_f[lo]
    t = a + (bvals_f[hi] - a) * u
    if t >= bvals_f[hi]:
        return lo, a
    # (lo <= t < hi: floor(t) is in lo .. hi - 1)
    return np.int64(t), t


@njit(cache=True, nogil=True)
def _bin_values_are_codes(D):
    """Whether every feature's bin values are its codes ``0, 1, ..`` (and there are
    some): :func:`_draw_cut_codes`'s shortcut is then exact."""
    bv = D.bin_values
    if bv.shape[0] == 0:
        return False
    eo = D.edge_offsets
    for f in range(eo.shape[0] - 1):
        bvals_f = feature_bin_values(bv, eo, f)
        # (no exit inside the loop: it vectorises, ~7x faster on MNIST's 824
        # columns than exiting at the first mismatch, 0.23 ms a tree)
        bad = False
        for b in range(bvals_f.shape[0]):
            bad |= bvals_f[b] != b
        if bad:
            return False
    return True


@njit(**_INLINE)
def _node_midpoint(D, f, b, nxt):
    """The exact splitter's threshold of the split "codes <= ``b`` go left" of
    feature ``f`` at a node whose next code above ``b`` is ``nxt``, on bins that
    are the feature's distinct values (``exact_cut``): the midpoint of their two
    values (:func:`~.splitter.midpoint_threshold`), not the bin edge, which is
    the midpoint to the next value of the whole data."""
    bvals_f = feature_bin_values(D.bin_values, D.edge_offsets, f)
    return midpoint_threshold(bvals_f[b], bvals_f[nxt])


@njit(**_INLINE)
def _next_sorted_code(keys, m, b):
    """The smallest of the ascending codes ``keys[:m]`` above ``b`` (one exists:
    a split leaves rows on its right), by bisection."""
    a = 0
    z = m
    while a < z:
        mid = (a + z) >> 1
        if keys[mid] <= b:
            a = mid + 1
        else:
            z = mid
    return np.int64(keys[a])


@njit(**_INLINE)
def _mark_constant(known_const, f, start, end):
    """Feature ``f`` has one code at the node ``[start, end)``: so has every node of
    its subtree (:func:`_find_split`'s ``known_const``)."""
    known_const[0, f] = start
    known_const[1, f] = end


@njit(**_INLINE)
def _code_range(col, samples, start, end, missing_bin):
    """(lowest, highest) non-missing code of one feature over the node's rows and
    the number of missing ones."""
    lo = 1 << 30
    hi = -1
    n_miss = 0
    for p in range(start, end):
        c = col[samples[p]]
        if c == missing_bin:
            n_miss += 1
        else:
            if c < lo:
                lo = c
            if c > hi:
                hi = c
    return lo, hi, n_miss


@njit(**_INLINE)
def _move_row(b64, t64, p, nl, nr, nw):
    """A stable two-way partition's step for the node blocks: row ``p``'s codes
    (``nw`` 8-byte words) to the left end ``nl`` and to the right buffer's
    ``nr`` (branch-free: the side the row does not go to is overwritten later,
    as its targets).  Rows of one to four words are moved as named words (the
    branch is the same for every row): the generic loop is vectorised behind
    run-time overlap checks that cost more than a row of three words."""
    if nw == 3:
        c0 = b64[p, 0]
        c1 = b64[p, 1]
        c2 = b64[p, 2]
        b64[nl, 0] = c0
        b64[nl, 1] = c1
        b64[nl, 2] = c2
        t64[nr, 0] = c0
        t64[nr, 1] = c1
        t64[nr, 2] = c2
    elif nw == 2:
        c0 = b64[p, 0]
        c1 = b64[p, 1]
        b64[nl, 0] = c0
        b64[nl, 1] = c1
        t64[nr, 0] = c0
        t64[nr, 1] = c1
    elif nw == 1:
        c0 = b64[p, 0]
        b64[nl, 0] = c0
        t64[nr, 0] = c0
    elif nw == 4:
        c0 = b64[p, 0]
        c1 = b64[p, 1]
        c2 = b64[p, 2]
        c3 = b64[p, 3]
        b64[nl, 0] = c0
        b64[nl, 1] = c1
        b64[nl, 2] = c2
        b64[nl, 3] = c3
        t64[nr, 0] = c0
        t64[nr, 1] = c1
        t64[nr, 2] = c2
        t64[nr, 3] = c3
    else:
        for q in range(nw):
            c = b64[p, q]
            b64[nl, q] = c
            t64[nr, q] = c


@njit(**_INLINE)
def _block_range(bl, f, start, end, missing_bin, any_missing):
    """(lowest, highest) non-missing code of feature ``f`` over the node's block
    rows ``bl[start:end]`` and the number of missing ones (255 / 0 / 0 when every
    code is missing) -- computed for a feature when it is drawn: one strided pass
    with the extremes in registers (about a third of :func:`_block_ranges`'s
    pass over all columns, which keeps them in memory through every row)."""
    lo = np.uint8(255)
    hi = np.uint8(0)
    n_miss = 0
    if not any_missing:
        for p in range(start, end):
            c = bl[p, f]
            lo = min(lo, c)
            hi = max(hi, c)
        return lo, hi, n_miss
    for p in range(start, end):
        c = bl[p, f]
        if c == missing_bin:
            n_miss += 1
        else:
            lo = min(lo, c)
            hi = max(hi, c)
    return lo, hi, n_miss


@njit(**_INLINE)
def _block_ranges(bl, start, end, missing_bin, any_missing, lo, hi, nm):
    """Per feature, over the node's block rows ``bl[start:end]``: the lowest and
    highest non-missing code (``lo`` / ``hi``) and the number of missing ones
    (``nm``) -- one contiguous pass for all features (:func:`_code_range` of
    every column at once; nodes drawing a third of the block's columns or more,
    such as extra trees' regressors drawing every feature)."""
    d = bl.shape[1]
    lo[:] = 255
    hi[:] = 0
    nm[:] = 0
    if not any_missing:
        for p in range(start, end):
            for f in range(d):
                c = bl[p, f]
                lo[f] = min(lo[f], c)
                hi[f] = max(hi[f], c)
        return
    for p in range(start, end):
        for f in range(d):
            c = bl[p, f]
            if c == missing_bin:
                nm[f] += 1
            else:
                lo[f] = min(lo[f], c)
                hi[f] = max(hi[f], c)


@njit(**_INLINE)
def _block_sums(bk, tg, start, end, nb, missing_bin, task):
    """The children's statistics of ``nb`` drawn cuts at once (feature ``fb[k]``,
    last code going left ``kbb[k]``), one pass over the node's block rows:
    ``lb[k]`` left (non-missing) sums, ``mb[k]`` the missing rows' sums,
    ``nlb[k]`` the rows going left.  Each cut's sums run over the rows in their
    order, as :func:`_random_codes` sums them: the same values.  When the cuts
    cover an eighth of the block's columns or more (every feature of extra
    trees' regressor), every column is summed as a vector lane (its cut, or
    none) and the drawn ones are read out; with the class in the block row
    (unit weights) the lanes are int32 counts per class."""
    bl = bk.rows
    nm, fb, kbb = bk.n_missing, bk.cut_feature, bk.cut_code
    lb, mb, nlb = bk.left_sums, bk.missing_sums, bk.n_left
    cutf, acc, cntf = bk.lane_cut, bk.lane_sums, bk.lane_count
    yl, sl, wl = tg[0], tg[1], tg[2]
    # classification with the class in the block row and unit weights (grow_codes)
    ycol = bk.flags[1]
    yb = task == TASK_CLASSIFICATION and ycol >= 0
    S = lb.shape[1]
    dp = bl.shape[1]
    lb[:nb] = 0.0
    mb[:nb] = 0.0
    nlb[:nb] = 0
    any_miss = False
    for k in range(nb):
        if nm[fb[k]] > 0:
            any_miss = True
    if yb and not any_miss and S <= 4:
        # the class in the block row, unit weights, at most four classes: per cut,
        # one pass down its column with the left rows' class counts packed in
        # one register (16 bits a class, taken out every 65,535 rows); sums of
        # ones, so the same values as adding 1.0
        for k in range(nb):
            f = fb[k]
            kb = kbb[k]
            n0 = 0
            n1 = 0
            n2 = 0
            n3 = 0
            p = start
            while p < end:
                q = min(end, p + 65535)
                packed = np.uint64(0)
                for r in range(p, q):
                    packed += np.uint64(bl[r, f] <= kb) << np.uint64(16 * bl[r, ycol])
                n0 += np.int64(packed & np.uint64(0xFFFF))
                n1 += np.int64((packed >> np.uint64(16)) & np.uint64(0xFFFF))
                n2 += np.int64((packed >> np.uint64(32)) & np.uint64(0xFFFF))
                n3 += np.int64(packed >> np.uint64(48))
                p = q
            lb[k, 0] = float(n0)
            if S > 1:
                lb[k, 1] = float(n1)
            if S > 2:
                lb[k, 2] = float(n2)
            if S > 3:
                lb[k, 3] = float(n3)
            nlb[k] = n0 + n1 + n2 + n3
        return
    if not any_miss and 8 * nb >= dp:
        cutf[:] = -1                 # (no code is below: not summed)
        for k in range(nb):
            cutf[fb[k]] = kbb[k]
        if yb:
            # (more than four classes) a class's left sum is a count -- one int32 lane per
            # column and class, the row's compare added to its class's lanes
            # (no weight, no separate count: a column's count is the sum over
            # the classes; sums of ones, so the same values as adding 1.0)
            cut1, cacc = bk.lane_cut1, bk.lane_counts
            for f in range(dp):
                cut1[f] = cutf[f] + 1            # (0: no code is below)
            cacc[:, :] = 0
            for p in range(start, end):
                row = cacc[bl[p, ycol]]
                for f in range(dp):
                    row[f] += bl[p, f] < cut1[f]
            for k in range(nb):
                f = fb[k]
                nk = 0
                for s in range(S):
                    lb[k, s] = float(cacc[s, f])
                    nk += cacc[s, f]
                nlb[k] = nk
            return
        acc[:, :] = 0.0
        cntf[:] = 0
        if task == TASK_CLASSIFICATION:
            for p in range(start, end):
                y = bl[p, ycol] if yb else yl[p]
                wi = 1.0 if yb else wl[p]
                for f in range(dp):
                    go = bl[p, f] <= cutf[f]
                    acc[y, f] += wi if go else 0.0
                    cntf[f] += go
        else:
            # unit weights (statistic 0 is 1.0 on every row): its lane is the count
            s0 = 1 if bk.flags[2] != 0 else 0
            for p in range(start, end):
                for s in range(s0, S):
                    a = sl[p, s]
                    for f in range(dp):
                        acc[s, f] += a if bl[p, f] <= cutf[f] else 0.0
                for f in range(dp):
                    cntf[f] += bl[p, f] <= cutf[f]
            if s0 == 1:
                for f in range(dp):
                    acc[0, f] = float(cntf[f])      # a sum of ones: exact
        for k in range(nb):
            f = fb[k]
            for s in range(S):
                lb[k, s] = acc[s, f]
            nlb[k] = cntf[f]
        return
    if not any_miss:
        # branch-free (a random cut sends rows either way unpredictably); adding
        # 0.0 leaves a sum as skipping the row does
        if task == TASK_CLASSIFICATION:
            for p in range(start, end):
                y = bl[p, ycol] if yb else yl[p]
                wi = 1.0 if yb else wl[p]
                for k in range(nb):
                    go = bl[p, fb[k]] <= kbb[k]
                    lb[k, y] += wi if go else 0.0
                    nlb[k] += go
        else:
            for p in range(start, end):
                for k in range(nb):
                    go = bl[p, fb[k]] <= kbb[k]
                    for s in range(S):
                        lb[k, s] += sl[p, s] if go else 0.0
                    nlb[k] += go
        return
    for p in range(start, end):
        for k in range(nb):
            c = bl[p, fb[k]]
            if yb:
                if c == missing_bin:
                    mb[k, bl[p, ycol]] += 1.0
                elif c <= kbb[k]:
                    lb[k, bl[p, ycol]] += 1.0
                    nlb[k] += 1
            elif c == missing_bin:
                _add_sample(mb[k], p, yl, sl, wl, task)
            elif c <= kbb[k]:
                _add_sample(lb[k], p, yl, sl, wl, task)
                nlb[k] += 1


@njit(**_INLINE)
def _fill_cut_tables(D, d, tab, tab_v0, tab_scale):
    """Per feature, a bucket table over its bins' values for :func:`_draw_cut_table`:
    ``tab[f, j]`` = the last bin whose value is at most the start of bucket ``j``
    of ``[v_0, v_last]`` cut into ``tab.shape[1]`` equal buckets (the feature's
    first value ``tab_v0[f]``, buckets per unit ``tab_scale[f]``; 0: no table)."""
    eo = D.edge_offsets
    M = tab.shape[1]
    for f in range(d):
        bv = feature_bin_values(D.bin_values, eo, f)
        B = bv.shape[0]
        tab_scale[f] = 0.0
        tab_v0[f] = 0.0
        tab[f, :] = 0
        if B < 2 or not bv[B - 1] > bv[0]:
            continue
        v0 = bv[0]
        scale = M / (bv[B - 1] - v0)
        tab_v0[f] = v0
        tab_scale[f] = scale
        b = 0
        for j in range(M):
            x = v0 + j / scale
            while b + 1 < B and bv[b + 1] <= x:
                b += 1
            tab[f, j] = b


@njit(**_INLINE)
def _draw_cut_table(lo, hi, bvals_f, tab_f, v0, scale):
    """:func:`~.splitter.draw_cut_bin` (the same random draws, the same cut) with
    the feature's bucket table (:func:`_fill_cut_tables`): the bucket of the
    drawn value gives a bin near the answer and at most a step or two finish
    it -- the answer does not depend on the table, only the search's length
    (a binary search over 255 values is a chain of 8 dependent loads)."""
    if bvals_f.shape[0] == 0 or scale == 0.0:
        return draw_cut_bin(lo, hi, bvals_f)
    return _table_cut_at(lo, hi, bvals_f, tab_f, v0, scale, np.random.random())


@njit(**_INLINE)
def _table_cut_at(lo, hi, bvals_f, tab_f, v0, scale, u):
    """:func:`_draw_cut_table`'s bin for the uniform number ``u``
    (:func:`~.splitter.cut_at`'s bin)."""
    a = bvals_f[lo]
    t = a + (bvals_f[hi] - a) * u
    if t >= bvals_f[hi]:
        return lo                    # (cut_at's rounding rule)
    x = (t - v0) * scale
    M = tab_f.shape[0]
    j = 0
    if x >= M - 1:
        j = M - 1
    elif x > 0.0:
        j = int(x)
    b = np.int64(tab_f[j])
    b = min(max(b, lo), hi - 1)
    # the last b in [lo, hi - 1] with bvals_f[b] <= t (bvals_f[lo] = a <= t)
    while b > lo and bvals_f[b] > t:
        b -= 1
    while b < hi - 1 and bvals_f[b + 1] <= t:
        b += 1
    return b


@njit(**_INLINE)
def _next_feature(features, j, d, max_features):
    """The ``j``-th visited feature: the builder's partial Fisher-Yates shuffle
    (one ``randint`` per visited feature when fewer than all are drawn; the
    permutation is carried from node to node), else index order."""
    if max_features < d:
        r = j + np.random.randint(0, d - j)
        tmpf = features[j]
        features[j] = features[r]
        features[r] = tmpf
    return features[j]


@njit(**_INLINE)
def _record_candidate(ws, f, score, thr, mslot, key, best_val, best_f):
    """A visited feature's admissible cut against the running best (the first best
    in visiting order wins, as the builder's): its split goes to
    ``ws.feat_thr / feat_mslot / feat_key``.  Returns ``(best_val, best_f,
    whether it is the new best)``."""
    if better(score, best_val):
        ws.feat_thr[f] = thr
        ws.feat_mslot[f] = mslot
        ws.feat_key[f] = key
        return score, f, True
    return best_val, best_f, False


@njit(**_INLINE)
def _visits_done(max_features, d, n_visited, found_any, status, n_node, random):
    """The feature loop's stopping rule: ``max_features`` features visited and an
    admissible cut found (when fewer than all are drawn), or a two-row node's
    first admissible split (when all are: every split separates its two rows).
    Not with random cut-points (``random``): see :func:`_two_row_cuts`."""
    if max_features < d and n_visited >= max_features and found_any:
        return True
    return status == 1 and n_node == 2 and max_features >= d and not random


@njit(**_INLINE)
def _two_row_cuts(n_node, max_features, d):
    """Random cut-points at a node of two rows with every feature drawn: each
    feature not constant there still draws its cut -- as the node's twin
    with a row of weight k repeated k times does (a weight of k is k copies
    of a row; stopping at the first admissible cut left the later nodes'
    draws out of step) -- but only the first cut is summed and scored:
    every cut separates the two rows, so every one is as admissible as the
    first and scores it up to rounding (the mirrored sums), a tie the first
    wins (:func:`~.merit.better`)."""
    return n_node == 2 and max_features >= d


@njit(**_INLINE)
def _block_random_split(D, P, cp, ws, tg, bk, start, end, parent, imp, imp_fn, merit_fn):
    """:func:`_find_split`'s random-split loop on the node blocks: the same feature
    draws, cut draws and choice, with a drawn feature's code range from its
    block column (:func:`_block_range`; all columns' in one pass,
    :func:`_block_ranges`, when a third of them or more are drawn) and the drawn
    cuts summed together
    (:func:`_block_sums`).  A batch holds the cuts the loop would draw before it
    could stop: ``max_features`` less those visited (all features when every
    feature is examined), so the random draws are the same."""
    bl = bk.rows
    lo, hi, nm = bk.lo, bk.hi, bk.n_missing
    fb, kbb, omb = bk.cut_feature, bk.cut_code, bk.cut_only_missing
    lb, mb, nlb = bk.left_sums, bk.missing_sums, bk.n_left
    d = fb.shape[0]
    eo = D.edge_offsets
    features = ws.features
    max_features = P.max_features
    n_node = end - start
    any_missing = bk.flags[0] != 0
    two_rows = _two_row_cuts(n_node, max_features, d)
    # few drawn features: each one's range when it is drawn; else all at once
    all_ranges = 3 * max_features >= bl.shape[1]
    if all_ranges:
        _block_ranges(bl, start, end, D.missing_bin, any_missing, lo, hi, nm)
    n_visited = 0
    found_any = False
    best_f = -1
    best_val = -np.inf
    j = 0
    while j < d:
        # (none admissible yet: one more feature at a time, as the loop goes on)
        want = max(1, max_features - n_visited) if max_features < d else d
        nb = 0
        n_const = 0                      # constant draws of the batch (status -1)
        while j < d and nb + n_const < want:
            f = _next_feature(features, j, d, max_features)
            j += 1
            if not all_ranges:
                clo, chi, n_miss = _block_range(bl, f, start, end, D.missing_bin, any_missing)
                lo[f] = clo
                hi[f] = chi
                nm[f] = n_miss
            n_miss = nm[f]
            flo = np.int64(lo[f])
            fhi = np.int64(hi[f])
            only_missing = fhi <= flo
            if n_miss == n_node or (only_missing and n_miss == 0):
                # constant here: one of the draws with P.count_constant
                # (counted before the batch's cuts: the batch ends with its
                # last draw, where the one-feature loop could first stop)
                if P.count_constant:
                    n_const += 1
                continue
            if two_rows and nb == 1:
                # (the first cut of a two-row node drawn: the others only take
                # their random numbers, _two_row_cuts)
                if not only_missing:
                    skip_cut_draw(flo, fhi, feature_bin_values(D.bin_values, eo, f))
                continue
            kb = 1 << 30
            if not only_missing:
                kb = _draw_cut_table(flo, fhi, feature_bin_values(D.bin_values, eo, f),
                                     bk.cut_table[f], bk.cut_table_v0[f],
                                     bk.cut_table_scale[f])
            fb[nb] = f
            kbb[nb] = kb
            omb[nb] = only_missing
            nb += 1
        n_visited += n_const
        if nb == 0:
            if j >= d or (found_any and n_visited >= max_features):
                break
            continue
        _block_sums(bk, tg, start, end, nb, D.missing_bin, P.task)
        stop = False
        for k in range(nb):
            f = fb[k]
            kb = kbb[k]
            key = np.inf
            thr = np.inf
            if not omb[k]:
                key = float(kb)
                thr = D.edges[eo[f] + kb]
            if nm[f] == 0 and P.merit_code == MERIT_IMPURITY_DECREASE:
                status, score, mslot = _cut_merit(parent, imp, n_node, lb[k], nlb[k], ws.buf,
                                                  P.min_samples_leaf, P.min_weight_leaf,
                                                  P.task, P.builtin, imp_fn)
            else:
                status, score, ratio, thr, mslot, key = random_numeric_result(
                    parent, imp, n_node, lb[k], nlb[k], mb[k], nm[f], ws.buf,
                    P.min_samples_leaf, P.min_weight_leaf, P.task,
                    P.merit_code, P.builtin, imp_fn, merit_fn, cp, thr, key, omb[k])
            n_visited += 1
            if status == 1:
                found_any = True
                best_val, best_f, new_best = _record_candidate(ws, f, score, thr, mslot,
                                                               key, best_val, best_f)
                if new_best:
                    # its children's sums (the partition of a classifier with the
                    # class in the block row does not sum them again)
                    for s in range(lb.shape[1]):
                        bk.best_left[s] = lb[k, s]
                        bk.best_missing[s] = mb[k, s]
            if _visits_done(max_features, d, n_visited, found_any, status, n_node, True):
                stop = True
                break
        if stop:
            break
    return best_f


@njit(**_INLINE)
def _find_split(XT, D, P, cp, ws, tg, start, end, parent, imp, imp_fn, merit_fn,
                hist, cnt, keys, ids, gs, gc, bk, exact_cut, known_const, codes_are_values):
    """The builder's ``find_best_split`` restricted to numeric codes and merits other
    than the gain ratio (the best merit wins, ties to the first visited feature),
    doing the work of the visited features only.  Returns ``(feature, fused)``
    (feature -1: none); its split is in ``ws.feat_thr / feat_mslot / feat_key``
    (the last code going left); a random split's codes are in
    ``gc[ws.gsel[0]]`` when ``ws.gsel[1]`` is that feature.  ``fused``: a
    completely-random node (one feature, no missing code among its rows, no
    minimum leaf beyond one row) whose first admissible draw is the split: its
    children are summed by the partition alone, and its missing values go to
    the larger child (the caller sets ``feat_mslot`` after partitioning).
    ``exact_cut``: the exact splitter's thresholds (:func:`grow_codes`).
    ``known_const[:, f]``: the rows ``[start, end)`` of the last node at which
    feature ``f`` had one code; a node inside that range (a descendant: node
    ranges nest or are disjoint, and depth first, a later node inside it is in
    its subtree) has that one code too and skips the feature's scan.  O(1) a
    feature found constant, nothing copied per node.  ``codes_are_values``:
    random cuts drawn by :func:`_draw_cut_codes`'s shortcut.

    Every kernel called per node is inlined (numba's reference counting would
    otherwise increment and decrement every array argument at each call)."""
    d = XT.shape[0]
    task = P.task
    missing_bin = D.missing_bin
    edges = D.edges
    eo = D.edge_offsets
    samples = ws.samples
    features = ws.features
    max_features = P.max_features
    msl = P.min_samples_leaf
    mwl = P.min_weight_leaf
    merit_code = P.merit_code
    builtin = P.builtin
    n_node = end - start
    random = P.split_mode == SPLIT_RANDOM
    # a draw that cannot be refused: any cut inside [lo, hi] leaves a row on each
    # side, and a built-in impurity decrease is finite (beats -inf)
    fused = (random and max_features == 1 and msl <= 1 and mwl <= 0.0
             and merit_code == MERIT_IMPURITY_DECREASE and builtin != BUILTIN_NONE)
    ws.proxy_best[0] = -np.inf
    gsel = ws.gsel
    gsel[1] = -1
    n_visited = 0
    found_any = False
    # the best feature so far: the builder's choice (first best in visiting order)
    best_f = -1
    best_val = -np.inf
    # exact_cut: the best split's threshold, the midpoint of its two values at
    # this node, found when it became the best (from its histogram or sorted codes)
    best_exact = 0.0
    # a two-row node's first admissible random cut found: the features left only
    # draw their cuts (_two_row_cuts)
    draws_only = False
    for j in range(d):
        f = _next_feature(features, j, d, max_features)
        key = 0.0
        if draws_only:
            if not (known_const[0, f] <= start and end <= known_const[1, f]):
                lo, hi, n_miss = _code_range(XT[f], samples, start, end, missing_bin)
                # (_random_codes draws when the feature has two codes here; the
                # same random numbers as _draw_cut_codes, whose shortcut needs values)
                if n_miss < n_node and hi > lo:
                    skip_cut_draw(lo, hi, feature_bin_values(D.bin_values, eo, f))
            continue
        if known_const[0, f] <= start and end <= known_const[1, f]:
            # one code at an ancestor, so here (its rows or fewer): what the scans
            # below would find, without scanning (the same draws and outcome)
            if fused:
                continue
            status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
        else:
            col = XT[f]
            edges_f = edges[eo[f]:eo[f + 1]]
            if random:
                bvals_f = feature_bin_values(D.bin_values, eo, f)
                if fused:
                    lo, hi, n_miss = _code_range(col, samples, start, end, missing_bin)
                    if n_miss == n_node or (n_miss == 0 and hi <= lo):
                        # constant here (random_numeric's -1): with none admissible
                        # yet, drawing goes on whether it counts or not
                        _mark_constant(known_const, f, start, end)
                        continue
                    if n_miss == 0:
                        # random_numeric's draw (draw_cut_bin); the split is
                        # admissible.  The caller partitions (no missing code among
                        # the rows: the missing side is free) and then sends missing
                        # values to the larger child (none seen)
                        b_cut, t_cut = _draw_cut_codes(lo, hi, bvals_f, codes_are_values)
                        ws.feat_thr[f] = t_cut if exact_cut else edges_f[b_cut]
                        ws.feat_mslot[f] = 1
                        ws.feat_key[f] = b_cut
                        return f, True
                # the extra-trees draw on this feature's codes, gathered into the
                # buffer the running best does not hold (the partition reads them)
                status, score, ratio, thr, mslot, key = _random_codes(
                    col, samples, start, end, missing_bin, edges_f, bvals_f, tg, parent, imp,
                    ws.left, ws.miss, ws.buf, msl, mwl, task, merit_code, builtin, imp_fn, merit_fn,
                    cp, gc[1 - gsel[0]], exact_cut, codes_are_values)
                if status == -1:
                    _mark_constant(known_const, f, start, end)
            elif n_node < ws.small:
                if _sorted_codes(col, samples, start, end, missing_bin, keys, ids, cnt, gs):
                    status, score, ratio, thr, mslot = _best_numeric_sorted_i(
                        keys, ids, 0, n_node, True, edges_f, tg[0], tg[1], tg[2], parent, imp,
                        ws.left, ws.miss, ws.buf, msl, mwl, task, merit_code, builtin, imp_fn,
                        merit_fn, cp, ws.proxy_best)
                    if exact_cut and status == 1 and better(score, best_val):
                        # (the sorted codes: the node's next one above the cut)
                        b = edges_below(edges, eo[f], eo[f + 1], thr)
                        best_exact = _node_midpoint(D, f, b, _next_sorted_code(keys, n_node, b))
                else:
                    status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
                    _mark_constant(known_const, f, start, end)
            else:
                lo, hi = _column_hist(col, samples, start, end, tg[0], tg[1], tg[2], task, hist,
                                      cnt)
                if hi <= lo:
                    # one code (constant, or all missing): best_numeric_hist's -1
                    status, score, ratio, thr, mslot = -1, -np.inf, -np.inf, 0.0, 0
                    _mark_constant(known_const, f, start, end)
                else:
                    # (the bins outside [lo, hi] are empty: the scan skips them)
                    status, score, ratio, thr, mslot = _best_numeric_hist_i(
                        hist, cnt, eo[f + 1] - eo[f] + 1, edges_f, missing_bin, parent, imp,
                        n_node, ws.left, ws.buf, msl, mwl, task, merit_code, builtin, imp_fn,
                        merit_fn, cp, ws.proxy_best, lo, hi)
                    if exact_cut and status == 1 and better(score, best_val):
                        # (the histogram: the node's next present code above the cut)
                        b = edges_below(edges, eo[f], eo[f + 1], thr)
                        nxt = b + 1
                        while nxt < hi and cnt[nxt] == 0:
                            nxt += 1
                        best_exact = _node_midpoint(D, f, b, nxt)
                # back to zero: only the bins this node touched
                hist[lo:hi + 1] = 0.0
                cnt[lo:hi + 1] = 0
        if status >= 0 or P.count_constant:
            n_visited += 1
        if status == 1:
            found_any = True
            best_val, best_f, new_best = _record_candidate(ws, f, score, thr, mslot, key,
                                                           best_val, best_f)
            if new_best and random:
                gsel[0] = 1 - gsel[0]
                gsel[1] = f
        if _visits_done(max_features, d, n_visited, found_any, status, n_node, random):
            break
        if random and status == 1 and _two_row_cuts(n_node, max_features, d):
            draws_only = True
    if best_f >= 0 and not random:
        # the last code going left: the number of the feature's edges below the
        # threshold (as builder._partition_binned)
        key = edges_below(edges, eo[best_f], eo[best_f + 1], ws.feat_thr[best_f])
        ws.feat_key[best_f] = key
        if exact_cut:
            ws.feat_thr[best_f] = best_exact
    return best_f, False


# The node loop runs without numba's reference counting (``_nrt=False``): it
# allocates nothing (the caller grows the tree and the stack between calls), and
# every array-valued variable of the node's code -- namedtuple fields, views,
# inlined kernels' arguments, a call's arguments -- would otherwise take and
# release a reference with an atomic instruction each: perf put ~60 % of a
# completely-random tree's time in NRT_incref / NRT_decref before this.  The
# node's kernels are inlined into it at one level (a split node's steps are
# written here, not in an inlined ``_split_node``): numba's inliner deep-copies
# a callee's whole IR, scope included, for every block, so each level of
# nesting over the large split search cost minutes of compile time.
@njit(cache=True, nogil=True, _nrt=False)
def _grow_nodes(XT, D, P, cp, ws, t, tg, stack, top, w_total, imp_fn, merit_fn, hist, cnt,
                keys, ids, gs, gc, bk, exact_cut, known_const, codes_are_values):
    """Split the nodes of the depth-first stack ``stack[:top]`` (children pushed,
    the first on top) until it is empty (returns 0), or until the tree or the
    stack has no room for two more nodes (returns the current top: the caller
    grows them and calls again).  Each node is split as the builder would:
    pre-pruning, the split search, the partition with the children's
    statistics, ``min_impurity_decrease``; on a split, the two children are
    added to ``t`` as :func:`.builder.make_children` adds them, and their rows
    are ``ws.child_start / child_n``."""
    cap = t.feature.shape[0]
    scap = stack.shape[0]
    # random splits on the node blocks (grow_codes)
    use_block = P.split_mode == SPLIT_RANDOM and bk.rows.shape[0] > 0
    while top > 0:
        if t.sizes[0] + 2 > cap or top + 1 > scap:
            return top
        top -= 1
        node = stack[top, 0]
        start = stack[top, 1]
        end = stack[top, 2]
        n_node = end - start
        wn = t.weighted_n_samples[node]
        imp = t.impurity[node]
        if _is_leaf_node_i(P, t.depth[node], n_node, wn, imp):
            continue
        if use_block:
            # (called here, not from _find_split: one level of inlining less)
            ws.gsel[1] = -1
            f = _block_random_split(D, P, cp, ws, tg, bk, start, end, t.value[node], imp,
                                    imp_fn, merit_fn)
            fused = False
        else:
            f, fused = _find_split(XT, D, P, cp, ws, tg, start, end, t.value[node], imp,
                                   imp_fn, merit_fn, hist, cnt, keys, ids, gs, gc, bk,
                                   exact_cut, known_const, codes_are_values)
        if f < 0:
            continue
        g = gc[ws.gsel[0]] if ws.gsel[1] == f else gc[0, :0]
        if _split_codes(XT[f], g, ws.samples, ws.tmp, start, end, ws.feat_key[f],
                        ws.feat_mslot[f] == 0, D.missing_bin, tg, P.task, ws.cstats,
                        ws.child_n, ws.child_start, bk, f) == 0:
            continue
        if fused:
            ws.feat_mslot[f] = 0 if ws.child_n[0] >= ws.child_n[1] else 1
        if use_block and bk.flags[1] >= 0:
            # the class in the block row (unit weights): the left child holds the
            # cut's left rows and, when they go left, its missing ones; class
            # counts, so the right child's are exact differences
            ml = ws.feat_mslot[f] == 0
            pv = t.value[node]
            for s in range(ws.cstats.shape[1]):
                a = bk.best_left[s] + (bk.best_missing[s] if ml else 0.0)
                ws.cstats[0, s] = a
                ws.cstats[1, s] = pv[s] - a
        improvement = children_improvement(P, cp, ws, 2, wn, imp, w_total, imp_fn)
        if not split_ok(P, improvement, imp):
            continue
        ws.feat_k[f] = 2
        # builder.make_children for a numeric split, capacity already ensured
        first = _add_children_i(t, node, 2)
        t.feature[node] = f
        t.kind[node] = NUMERIC
        t.threshold[node] = ws.feat_thr[f]
        t.missing_child[node] = ws.feat_mslot[f]
        for j in range(2):
            c = first + j
            for s in range(ws.cstats.shape[1]):
                t.value[c, s] = ws.cstats[j, s]
            t.n_samples[c] = ws.child_n[j]
            t.weighted_n_samples[c] = stats_weight(ws.cstats[j], P.task)
            t.impurity[c] = ws.cimp[j]
        top = stack_push(stack, top, first, ws.child_start, ws.child_n, ws.child_slot, 2)
    return 0


def grow_codes(D, XT, yc, sstats, w, rows, P, cp, imp_fn, merit_fn, exact_cut):
    """Grow one tree depth-first (the builder's order) on rows ``rows`` of the
    column-major codes ``XT`` (``d x N`` uint8; ``D`` gives edges, bins and the
    missing code); targets / weights as :func:`.builder.grow_depth_first`.

    ``exact_cut``: the bins are the features' distinct values (``D.bin_values``
    holds them exactly, no missing values) and the thresholds are the exact
    splitter's -- a best split's the midpoint between the node's two values it
    separates, a random cut's the drawn value -- instead of the bin edges: the
    tree of ``splitter="exact"`` (no node blocks; see
    :func:`treelab._engine.binning.exact_bins`)."""
    np.random.seed(P.seed)
    ws = new_workspace(D, rows, P)
    n = rows.shape[0]
    hist = np.zeros((D.n_bins, P.n_stats), np.float64)
    cnt = np.zeros(D.n_bins, np.int64)
    keys = np.empty(ws.small, np.float64)
    ids = np.empty(ws.small, np.int64)
    gs = np.empty(ws.small, np.uint8)      # a small node's gathered codes (_sorted_codes)
    # features with one code at a node: that node's rows (none yet: an empty range)
    known_const = np.empty((2, XT.shape[0]), np.int64)
    known_const[0] = n + 1
    known_const[1] = -1
    # random cuts drawn without a search when the bins' values are the codes
    codes_are_values = P.split_mode == SPLIT_RANDOM and _bin_values_are_codes(D)
    # the targets kept by position, moved with their rows by every partition: a
    # node's passes read them in order instead of gathering yc[i] / w[i] /
    # sstats[i] at random rows for every visited feature (the same values in
    # the same order: the same sums)
    S = P.n_stats
    clf = P.task == TASK_CLASSIFICATION
    nc = n if clf else 0
    ns = 0 if clf else n
    yl = np.empty(nc, np.int64)
    wl = np.empty(nc, np.float64)
    sl = np.empty((ns, S), np.float64)
    for p in range(n):
        i = ws.samples[p]
        if clf:
            yl[p] = yc[i]
            wl[p] = w[i]
        else:
            for s in range(S):
                sl[p, s] = sstats[i, s]
    tg = (yl, sl, wl, np.empty(nc, np.int64), np.empty((ns, S), np.float64),
          np.empty(nc, np.float64))
    # random splits on few features: the node blocks (every row's codes of all
    # features, row-major, moved with the row by each partition: a node's passes
    # read them in order, all features at once)
    d = XT.shape[0]
    use_block = P.split_mode == SPLIT_RANDOM and d <= BLOCK_MAX_FEATURES and not exact_cut
    nbk = n if use_block else 0
    # classification with unit weights (no bootstrap, no class or sample weights)
    # and at most 256 classes: the class is kept as byte d of the block row, so a
    # partition moves the row's words alone (block_flags[1] = d; -1: not so)
    y_in_block = use_block and clf and S <= 256
    for p in range(nc if y_in_block else 0):
        if wl[p] != 1.0:
            y_in_block = False
            break
    # a block row: the d codes (and the class) padded to whole 8-byte words
    # (moved as words; the padding codes are 0 and never read as a feature)
    nw = (d + (1 if y_in_block else 0) + 7) // 8
    b64 = np.zeros((nbk, nw), np.uint64)
    t64 = np.empty((nbk, nw), np.uint64)
    bl = b64.view(np.uint8)
    dp = 8 * nw
    # [0]: any missing code among the block's rows; [1]: the class's byte (or -1);
    # [2]: regression whose statistic 0 (the weight) is 1.0 on every row
    block_flags = np.zeros(3, np.int64)
    block_flags[1] = d if y_in_block else -1
    if use_block and not clf:
        block_flags[2] = 1
        for p in range(ns):
            if sl[p, 0] != 1.0:
                block_flags[2] = 0
                break
    for p in range(nbk):
        i = ws.samples[p]
        for f in range(d):
            c = XT[f, i]
            bl[p, f] = c
            if c == D.missing_bin:
                block_flags[0] = 1
        if y_in_block:
            bl[p, d] = yl[p]
    bk = NodeBlocks(
        bl, np.empty(dp, np.uint8), np.empty(dp, np.uint8), np.zeros(dp, np.int64),
        np.empty(d, np.int64), np.empty(d, np.int64), np.empty(d, np.bool_),
        np.empty((d, S), np.float64), np.empty((d, S), np.float64), np.empty(d, np.int64),
        block_flags, b64, t64, np.empty(dp, np.int64), np.empty((S, dp), np.float64),
        np.empty(dp, np.int64), np.empty((d if use_block else 0, CUT_TABLE_BUCKETS), np.uint8),
        np.zeros(d, np.float64), np.zeros(d, np.float64), np.empty(dp, np.uint8),
        np.empty((S if y_in_block else 0, dp), np.int32), np.zeros(S, np.float64),
        np.zeros(S, np.float64))
    if use_block:
        _fill_cut_tables(D, d, bk.cut_table, bk.cut_table_v0, bk.cut_table_scale)
    # a random split's gathered codes: the drawn feature's and the running best's
    gc = np.empty((2, n if P.split_mode == SPLIT_RANDOM and not use_block else 0), np.uint8)
    t = new_tree(64, P.n_stats, 64)
    t.sizes[0] = 1
    _node_stats(ws.samples, 0, n, yc, sstats, w, P.task, t.value[0])
    t.n_samples[0] = n
    t.weighted_n_samples[0] = stats_weight(t.value[0], P.task)
    t.impurity[0] = impurity_of(t.value[0], P.merit_code, P.builtin, imp_fn, cp)
    w_total = t.weighted_n_samples[0]
    ws.child_slot[:2] = -1                  # (no histograms here)
    stack = new_node_stack(n, -1)
    top = 1
    while top > 0:
        top = _grow_nodes(XT, D, P, cp, ws, t, tg, stack, top, w_total, imp_fn, merit_fn,
                          hist, cnt, keys, ids, gs, gc, bk, exact_cut, known_const,
                          codes_are_values)
        if top > 0:
            t = ensure_capacity(t, 2, 0)
            stack = stack_room(stack, top, 2)
    return t


_KERNEL = []


def get_codes_kernel():
    """:func:`grow_codes` compiled with its explicit signature (cached on disk)."""
    if not _KERNEL:
        from numba import typeof
        T = typeof(new_tree(1, 1, 1))
        sig = T(
            typeof(dummy_binned_data()), types.uint8[:, ::1], types.int64[::1],
            types.float64[:, ::1], types.float64[::1], types.int64[::1],
            typeof(make_params(0, 1, 1, 2, 1, 0.0, 0.0, 1, False, 0,
                               feature_mask=np.zeros((1, 1), np.bool_))),
            types.float64[::1], IMPURITY_TYPE, MERIT_TYPE, types.boolean,
        )
        _KERNEL.append(njit(sig, cache=True, nogil=True)(grow_codes))
    return _KERNEL[0]


def build_tree_codes(data, XT, yc, sstats, w, params, imp_fn, merit_fn, cp=None, rows=None,
                     exact_cut=False):
    """:func:`grow_codes` with :func:`.build.build_tree`'s arguments plus the
    column-major codes ``XT`` (``data.Xb`` is not read; numeric features only) and
    ``exact_cut`` (the exact splitter's thresholds on lossless bins)."""
    d, N = XT.shape
    if data.X.shape[1] != d or np.any(data.is_nominal):
        raise ValueError("build_tree_codes: numeric features only, XT must be (d, n_rows)")
    if params.feature_mask.shape[0] != 0:
        raise ValueError("build_tree_codes does not take a feature mask")
    if params.merit_code == MERIT_GAIN_RATIO:
        raise ValueError("build_tree_codes does not take the gain ratio (C4.5's choice rule)")
    if rows is None:
        rows = np.arange(N, dtype=np.int64)
    if cp is None:
        cp = np.zeros(1)
    return get_codes_kernel()(data, np.ascontiguousarray(XT, np.uint8), yc, sstats, w,
                              np.ascontiguousarray(rows, dtype=np.int64), params,
                              np.ascontiguousarray(cp, dtype=np.float64),
                              function_pointer(imp_fn, IMPURITY_SIG),
                              function_pointer(merit_fn, MERIT_SIG), bool(exact_cut))
