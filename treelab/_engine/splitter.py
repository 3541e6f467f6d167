"""Split enumeration shared by the exact (sorted) and the histogram splitters.

All functions work on *statistics vectors* (see
:mod:`treelab.split_criteria.base`): ``task == 0`` means weighted class counts,
``task == 1`` means dense sums such as ``[w, sum w y, sum w y^2]``.  The
criterion arrives as first-class jitted functions (``imp_fn``, ``merit_fn``)
and an integer ``merit_code`` (0 impurity decrease, 1 gain ratio, 2 custom).

Every split evaluator returns a status (``-1`` constant feature, ``0`` no
admissible split, ``1`` found) and the split's *score* (the merit used to pick
the threshold of this feature: the gain for gain ratio, as C4.5 does), its
*gain ratio* (only meaningful for ``merit_code == 1``), and its description.
Missing values are tried on both sides of every numeric threshold and in every
child of a nominal split; the side with the better merit is kept.  When a
node saw no missing value, missing values go to its largest child.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "TASK_CLASSIFICATION", "TASK_DENSE", "MERIT_IMPURITY_DECREASE", "MERIT_GAIN_RATIO",
    "MERIT_CUSTOM", "stats_weight", "split_merit", "best_numeric_sorted",
    "best_numeric_hist", "best_nominal",
]

TASK_CLASSIFICATION = 0
TASK_DENSE = 1
MERIT_IMPURITY_DECREASE = 0
MERIT_GAIN_RATIO = 1
MERIT_CUSTOM = 2
#: numeric values closer than this are not separated (as scikit-learn's FEATURE_THRESHOLD)
FEATURE_THRESHOLD = 1e-7


@njit(cache=True, inline="always")
def stats_weight(s, task):
    """Total weight held by a statistics vector."""
    if task == TASK_CLASSIFICATION:
        t = 0.0
        for v in s:
            t += v
        return t
    return s[0]


@njit(cache=True)
def split_merit(parent, parent_imp, children, task, merit_code, imp_fn, merit_fn):
    """(score, gain_ratio, gain) of splitting ``parent`` into the rows of ``children``.

    * impurity decrease: imp(parent) - sum_c (w_c / w) imp(child_c)
      (information gain, Gini gain, variance reduction);
    * gain ratio: gain / split-info with split-info = -sum_c (w_c/w) log2(w_c/w)
      (Quinlan 1993); the score is the gain, the ratio is returned beside it;
    * custom: ``merit_fn(parent, children)``.
    """
    if merit_code == MERIT_CUSTOM:
        m = merit_fn(parent, children)
        return m, m, m
    w = stats_weight(parent, task)
    if w <= 0.0:
        return 0.0, 0.0, 0.0
    s = 0.0
    si = 0.0
    for c in range(children.shape[0]):
        wc = stats_weight(children[c], task)
        if wc > 0.0:
            p = wc / w
            s += p * imp_fn(children[c])
            si -= p * math.log2(p)
    gain = parent_imp - s
    if merit_code == MERIT_GAIN_RATIO:
        ratio = gain / si if si > 0.0 else 0.0
        return gain, ratio, gain
    return gain, gain, gain


@njit(cache=True, inline="always")
def _set_pair(buf, left, parent, miss, miss_left, task):
    """buf[0] = left (+ miss), buf[1] = parent - buf[0], clamped at 0 for counts."""
    S = parent.shape[0]
    for s in range(S):
        lv = left[s] + (miss[s] if miss_left else 0.0)
        rv = parent[s] - lv
        if task == TASK_CLASSIFICATION and rv < 0.0:
            rv = 0.0
        buf[0, s] = lv
        buf[1, s] = rv


@njit(cache=True)
def eval_binary(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                min_samples_leaf, min_weight_leaf, task, merit_code, imp_fn, merit_fn):
    """Best of "missing right" and "missing left" for one binary candidate.

    ``left`` holds the non-missing samples that go left.  Returns
    ``(ok, score, ratio, missing_slot)``.
    """
    best_ok = False
    best_score = -np.inf
    best_ratio = -np.inf
    best_slot = 1
    for miss_left in (False, True):
        if miss_left and n_miss == 0:
            break
        nl = n_left + (n_miss if miss_left else 0)
        nr = n_parent - nl
        if nl < min_samples_leaf or nr < min_samples_leaf:
            continue
        _set_pair(buf, left, parent, miss, miss_left, task)
        if (stats_weight(buf[0], task) < min_weight_leaf
                or stats_weight(buf[1], task) < min_weight_leaf):
            continue
        score, ratio, _ = split_merit(parent, parent_imp, buf, task, merit_code, imp_fn, merit_fn)
        if score > best_score:
            best_ok = True
            best_score = score
            best_ratio = ratio
            best_slot = 0 if miss_left else 1
    if best_ok and n_miss == 0:
        # no missing value seen here: missing goes to the larger child
        best_slot = 0 if n_left >= n_parent - n_left else 1
    return best_ok, best_score, best_ratio, best_slot


@njit(cache=True, inline="always")
def _add_sample(acc, i, yc, sstats, w, task):
    if task == TASK_CLASSIFICATION:
        acc[yc[i]] += w[i]
    else:
        for s in range(acc.shape[0]):
            acc[s] += sstats[i, s]


@njit(cache=True)
def best_numeric_sorted(X, f, order_f, start, end, yc, sstats, w, parent, parent_imp,
                        left, miss, buf, min_samples_leaf, min_weight_leaf,
                        task, merit_code, imp_fn, merit_fn):
    """Exact threshold search on one numeric feature (scikit-learn's "best" splitter).

    ``order_f[start:end]`` holds the node's samples sorted by feature ``f``
    (missing values last).  Thresholds are midpoints between consecutive
    distinct values.  Returns ``(status, score, ratio, threshold, missing_slot)``.
    """
    n_parent = end - start
    # missing values are sorted last
    end_nm = end
    while end_nm > start and np.isnan(X[order_f[end_nm - 1], f]):
        end_nm -= 1
    n_miss = end - end_nm
    miss[:] = 0.0
    for p in range(end_nm, end):
        _add_sample(miss, order_f[p], yc, sstats, w, task)
    if end_nm == start:
        return -1, -np.inf, -np.inf, 0.0, 0
    if n_miss == 0 and X[order_f[end_nm - 1], f] <= X[order_f[start], f] + FEATURE_THRESHOLD:
        return -1, -np.inf, -np.inf, 0.0, 0
    status = 0
    best_score = -np.inf
    best_ratio = -np.inf
    best_thr = 0.0
    best_slot = 1
    left[:] = 0.0
    n_left = 0
    for p in range(start, end_nm):
        i = order_f[p]
        _add_sample(left, i, yc, sstats, w, task)
        n_left += 1
        if p + 1 < end_nm:
            xi = X[i, f]
            xn = X[order_f[p + 1], f]
            if xn <= xi + FEATURE_THRESHOLD:
                continue
        elif n_miss == 0:
            break
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, imp_fn, merit_fn)
        if ok and score > best_score:
            status = 1
            best_score = score
            best_ratio = ratio
            best_slot = slot
            if p + 1 < end_nm:
                xi = X[i, f]
                xn = X[order_f[p + 1], f]
                thr = xi / 2.0 + xn / 2.0
                if thr == xn or np.isinf(thr):
                    thr = xi
                best_thr = thr
            else:
                # every non-missing value left, missing values right
                best_thr = np.inf
                best_slot = 1
    return status, best_score, best_ratio, best_thr, best_slot


@njit(cache=True)
def best_numeric_hist(hist_f, cnt_f, n_value_bins, edges_f, missing_bin, parent, parent_imp,
                      n_parent, left, buf, min_samples_leaf, min_weight_leaf,
                      task, merit_code, imp_fn, merit_fn):
    """Threshold search over the histogram of one numeric feature.

    ``hist_f[b]`` is the statistics vector of bin ``b`` and ``cnt_f[b]`` its
    sample count; the split "bins 0..b go left" is the threshold ``edges_f[b]``.
    Returns ``(status, score, ratio, threshold, missing_slot)``.
    """
    miss = hist_f[missing_bin]
    n_miss = cnt_f[missing_bin]
    nonempty = 0
    for b in range(n_value_bins):
        if cnt_f[b] > 0:
            nonempty += 1
    if nonempty == 0 or (nonempty == 1 and n_miss == 0):
        return -1, -np.inf, -np.inf, 0.0, 0
    status = 0
    best_score = -np.inf
    best_ratio = -np.inf
    best_thr = 0.0
    best_slot = 1
    left[:] = 0.0
    n_left = 0
    n_nonmissing = n_parent - n_miss
    for b in range(n_value_bins):
        if cnt_f[b] == 0:
            continue
        for s in range(left.shape[0]):
            left[s] += hist_f[b, s]
        n_left += cnt_f[b]
        if n_left == n_nonmissing and n_miss == 0:
            break
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, imp_fn, merit_fn)
        if ok and score > best_score:
            status = 1
            best_score = score
            best_ratio = ratio
            best_slot = slot
            if n_left == n_nonmissing:
                best_thr = np.inf
                best_slot = 1
            else:
                best_thr = edges_f[b]
        if n_left == n_nonmissing:
            break
    return status, best_score, best_ratio, best_thr, best_slot


@njit(cache=True)
def best_nominal(cat_stats, cat_cnt, n_cats, miss, n_miss, parent, parent_imp, n_parent,
                 multiway, cat_slots, left, buf2, min_samples_leaf, min_weight_leaf,
                 task, merit_code, imp_fn, merit_fn):
    """Best split of a nominal feature from its per-category statistics.

    * ``multiway``: one child per category present at the node (ID3 / C4.5);
    * otherwise a binary subset split: categories ordered by their mean target
      (regression) or by the frequency of the node's majority class, then
      swept as an ordered feature (Breiman et al. 1984; optimal for two classes
      and for squared error).

    Writes the category -> slot table into ``cat_slots[:n_cats]`` (-1 for
    categories absent from the node).  Returns
    ``(status, score, ratio, n_children, missing_slot)``.
    """
    S = parent.shape[0]
    present = np.empty(n_cats, np.int64)
    k = 0
    for c in range(n_cats):
        if cat_cnt[c] > 0:
            present[k] = c
            k += 1
    if k + (1 if n_miss > 0 else 0) < 2 or k == 0:
        return -1, -np.inf, -np.inf, 0, 0
    if k < 2:
        # only one category plus missing values: nothing a category test can separate
        return 0, -np.inf, -np.inf, 0, 0
    for c in range(n_cats):
        cat_slots[c] = -1
    if multiway:
        children = np.empty((k, S), np.float64)
        best_score = -np.inf
        best_ratio = -np.inf
        best_slot = -1
        largest = 0
        for j in range(k):
            if cat_cnt[present[j]] > cat_cnt[present[largest]]:
                largest = j
        tries = k if n_miss > 0 else 1
        for m in range(tries):
            mslot = m if n_miss > 0 else largest
            ok = True
            for j in range(k):
                c = present[j]
                nj = cat_cnt[c] + (n_miss if j == mslot else 0)
                if nj < min_samples_leaf:
                    ok = False
                for s in range(S):
                    children[j, s] = cat_stats[c, s] + (miss[s] if j == mslot else 0.0)
                if stats_weight(children[j], task) < min_weight_leaf:
                    ok = False
            if not ok:
                continue
            score, ratio, _ = split_merit(parent, parent_imp, children, task, merit_code,
                                          imp_fn, merit_fn)
            if score > best_score:
                best_score = score
                best_ratio = ratio
                best_slot = mslot
        if best_slot < 0:
            return 0, -np.inf, -np.inf, 0, 0
        for j in range(k):
            cat_slots[present[j]] = j
        return 1, best_score, best_ratio, k, best_slot
    # binary subset split: order the present categories by a scalar key
    key = np.empty(k, np.float64)
    if task == TASK_CLASSIFICATION:
        ref = 0
        for s in range(S):
            if parent[s] > parent[ref]:
                ref = s
        for j in range(k):
            tot = 0.0
            for s in range(S):
                tot += cat_stats[present[j], s]
            key[j] = cat_stats[present[j], ref] / tot if tot > 0.0 else 0.0
    else:
        for j in range(k):
            st = cat_stats[present[j]]
            key[j] = st[1] / st[0] if st[0] > 0.0 else 0.0
    perm = np.argsort(key, kind="mergesort")
    left[:] = 0.0
    n_left = 0
    best_score = -np.inf
    best_ratio = -np.inf
    best_j = -1
    best_slot = 1
    for j in range(k - 1):
        c = present[perm[j]]
        for s in range(S):
            left[s] += cat_stats[c, s]
        n_left += cat_cnt[c]
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf2, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, imp_fn, merit_fn)
        if ok and score > best_score:
            best_score = score
            best_ratio = ratio
            best_j = j
            best_slot = slot
    if best_j < 0:
        return 0, -np.inf, -np.inf, 0, 0
    for j in range(k):
        cat_slots[present[perm[j]]] = 0 if j <= best_j else 1
    return 1, best_score, best_ratio, 2, best_slot
