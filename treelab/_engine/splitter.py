"""Split enumeration shared by the exact (sorted) and the histogram splitters.

All functions work on *statistics vectors* (see
:mod:`treelab.split_criteria.base`): ``task == 0`` means weighted class counts,
``task == 1`` means dense sums such as ``[w, sum w y, sum w y^2]``.  The
criterion arrives as first-class jitted functions (``imp_fn``, ``merit_fn``),
an integer ``merit_code`` and a parameter vector ``cp``: the merit protocol of
:mod:`.merit`.

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

from .binning import feature_bin_values
from .histogram import bin_count
from .sorting import sort_pairs
from .impurity import BUILTIN_ENTROPY, BUILTIN_GINI, BUILTIN_VARIANCE
from .specialize import WITH_NEWTON
from .jit import njit
# the merit protocol lives in .merit; its names stay importable from here
from .merit import (  # noqa: F401
    MERIT_CUSTOM, MERIT_GAIN_RATIO, MERIT_IMPURITY_DECREASE, MERIT_NEWTON, NEWTON_ALPHA,
    NEWTON_GAMMA, NEWTON_LAMBDA, TASK_CLASSIFICATION, newton_impurity, soft_threshold,
    TASK_DENSE, better, better_bar, node_impurity, split_merit, stats_weight,
)

__all__ = [
    "TASK_CLASSIFICATION", "TASK_DENSE", "MERIT_IMPURITY_DECREASE", "MERIT_GAIN_RATIO",
    "MERIT_CUSTOM", "stats_weight", "node_impurity", "split_merit", "best_numeric_sorted",
    "best_numeric_hist", "newton_hist_sweep", "newton_sorted_sweep", "split_of_left_sums",
    "best_nominal", "NOMINAL_BINARY", "NOMINAL_MULTIWAY",
    "NOMINAL_MULTIWAY_C45", "multiway_admissible", "MERIT_NEWTON", "SPLIT_BEST", "SPLIT_RANDOM",
    "random_numeric", "random_numeric_draw", "random_nominal", "draw_cut", "draw_cut_bin",
    "skip_cut_draw", "cut_at", "midpoint_threshold",
]

#: numeric values closer than this are not separated (as scikit-learn's FEATURE_THRESHOLD)
FEATURE_THRESHOLD = 1e-7


@njit(cache=True, inline="always", nogil=True)
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


@njit(cache=True, nogil=True, _nrt=False)
def eval_binary(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                min_samples_leaf, min_weight_leaf, task, merit_code, builtin, imp_fn, merit_fn, cp):
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
        score, ratio, _ = split_merit(parent, parent_imp, buf, task, merit_code, builtin,
                                      imp_fn, merit_fn, cp)
        if better(score, best_score):
            best_ok = True
            best_score = score
            best_ratio = ratio
            best_slot = 0 if miss_left else 1
    if best_ok and n_miss == 0:
        # no missing value seen here: missing goes to the larger child
        best_slot = 0 if n_left >= n_parent - n_left else 1
    return best_ok, best_score, best_ratio, best_slot


@njit(cache=True, inline="always", nogil=True)
def _add_sample(acc, i, yc, sstats, w, task):
    if task == TASK_CLASSIFICATION:
        acc[yc[i]] += w[i]
    else:
        for s in range(acc.shape[0]):
            acc[s] += sstats[i, s]


@njit(cache=True, inline="always", nogil=True)
def _proxy_value(left, parent, w_par, min_weight_leaf, task, builtin):
    """Proxy of the impurity decrease of the split (left, parent - left) for a
    built-in criterion, or -inf if a child is lighter than ``min_weight_leaf``
    (see :func:`_proxy_sweep` for the formulas)."""
    w_l = stats_weight(left, task)
    w_r = w_par - w_l
    if w_l < min_weight_leaf or w_r < min_weight_leaf or w_l <= 0.0 or w_r <= 0.0:
        return -np.inf
    if builtin == BUILTIN_VARIANCE:
        s_l = left[1]
        s_r = parent[1] - s_l
        return s_l * s_l / w_l + s_r * s_r / w_r
    v = 0.0
    if builtin == BUILTIN_GINI:
        sq_l = 0.0
        sq_r = 0.0
        for k in range(left.shape[0]):
            r = parent[k] - left[k]
            sq_l += left[k] * left[k]
            sq_r += r * r
        return sq_l / w_l + sq_r / w_r
    for k in range(left.shape[0]):
        lk = left[k]
        rk = parent[k] - lk
        if lk > 0.0:
            v += lk * math.log(lk)
        if rk > 0.0:
            v += rk * math.log(rk)
    return v - w_l * math.log(w_l) - w_r * math.log(w_r)


@njit(cache=True, nogil=True, _nrt=False)
def _variance_proxy_sweep(keys, ids, start, end, sstats, parent, w_par, min_samples_leaf,
                          min_weight_leaf):
    """:func:`_proxy_sweep` for the variance criterion on ``[w, wy, wy^2]`` rows: the
    same sums in the same order, kept in scalars (``wy^2`` is not needed by the
    proxy s_l^2 / w_l + s_r^2 / w_r)."""
    n_par = end - start
    best = -np.inf
    best_p = -1
    w_l = 0.0
    s_l = 0.0
    s_par = parent[1]
    n_left = 0
    for p in range(start, end - 1):
        i = ids[p]
        w_l += sstats[i, 0]
        s_l += sstats[i, 1]
        n_left += 1
        if keys[p + 1] <= keys[p] + FEATURE_THRESHOLD:
            continue
        if n_left < min_samples_leaf or n_par - n_left < min_samples_leaf:
            continue
        w_r = w_par - w_l
        if w_l < min_weight_leaf or w_r < min_weight_leaf or w_l <= 0.0 or w_r <= 0.0:
            continue
        s_r = s_par - s_l
        v = s_l * s_l / w_l + s_r * s_r / w_r
        if better(v, best):
            best = v
            best_p = p
    return best_p, best


@njit(cache=True, nogil=True, _nrt=False)
def _proxy_sweep(keys, ids, start, end, yc, sstats, w, parent, left, min_samples_leaf,
                 min_weight_leaf, task, builtin):
    """Position of the best threshold by an O(1)-per-sample *proxy* of the
    impurity decrease of a built-in criterion (no missing values).

    The proxies are monotone in the weighted child impurity (scikit-learn's
    ``proxy_impurity_improvement``): Gini: sum_c (sum_k n_ck^2) / w_c;
    entropy: sum_c (w_c log w_c - sum_k n_ck log n_ck) negated; variance:
    sum_c s_c^2 / w_c.  Class-count sums are updated incrementally.
    Returns the last position ``p`` of the left child, or -1.
    """
    S = parent.shape[0]
    w_par = stats_weight(parent, task)
    if task != TASK_CLASSIFICATION and builtin == BUILTIN_VARIANCE:
        return _variance_proxy_sweep(keys, ids, start, end, sstats, parent, w_par,
                                     min_samples_leaf, min_weight_leaf)
    left[:] = 0.0
    n_par = end - start
    best = -np.inf
    best_p = -1
    # incremental class-count aggregates
    sq_l = 0.0          # sum_k l_k^2
    pl = 0.0            # sum_k p_k l_k
    sq_p = 0.0          # sum_k p_k^2
    ent_l = 0.0         # sum_k l_k log l_k
    ent_r = 0.0         # sum_k r_k log r_k
    if task == TASK_CLASSIFICATION:
        for k in range(S):
            sq_p += parent[k] * parent[k]
            if parent[k] > 0.0:
                ent_r += parent[k] * math.log(parent[k])
    w_l = 0.0
    n_left = 0
    for p in range(start, end - 1):
        i = ids[p]
        if task == TASK_CLASSIFICATION:
            c = yc[i]
            wi = w[i]
            lc = left[c]
            rc = parent[c] - lc
            if builtin == BUILTIN_GINI:
                sq_l += 2.0 * lc * wi + wi * wi
                pl += parent[c] * wi
            else:
                if lc > 0.0:
                    ent_l -= lc * math.log(lc)
                lc2 = lc + wi
                if lc2 > 0.0:
                    ent_l += lc2 * math.log(lc2)
                if rc > 0.0:
                    ent_r -= rc * math.log(rc)
                rc2 = rc - wi
                if rc2 > 0.0:
                    ent_r += rc2 * math.log(rc2)
            left[c] = lc + wi
            w_l += wi
        else:
            for s in range(S):
                left[s] += sstats[i, s]
            w_l = left[0]
        n_left += 1
        if keys[p + 1] <= keys[p] + FEATURE_THRESHOLD:
            continue
        if n_left < min_samples_leaf or n_par - n_left < min_samples_leaf:
            continue
        w_r = w_par - w_l
        if w_l < min_weight_leaf or w_r < min_weight_leaf or w_l <= 0.0 or w_r <= 0.0:
            continue
        if builtin == BUILTIN_GINI:
            sq_r = sq_p - 2.0 * pl + sq_l
            v = sq_l / w_l + sq_r / w_r
        elif builtin == BUILTIN_ENTROPY:
            v = ent_l + ent_r - w_l * math.log(w_l) - w_r * math.log(w_r)
        else:
            s_l = left[1]
            s_r = parent[1] - s_l
            v = s_l * s_l / w_l + s_r * s_r / w_r
        if better(v, best):
            best = v
            best_p = p
    return best_p, best


@njit(cache=True, inline="always", nogil=True)
def _threshold_after(keys, p, use_edges, edges_f):
    """Threshold between sorted keys ``p`` and ``p + 1``: the bin's upper edge for
    bin codes, else the midpoint (the lower value if the midpoint rounds onto the
    upper one), as scikit-learn."""
    xi = keys[p]
    if use_edges:
        return edges_f[int(xi)]
    return midpoint_threshold(xi, keys[p + 1])


@njit(cache=True, inline="always", nogil=True)
def midpoint_threshold(xi, xn):
    """The threshold between two consecutive distinct values ``xi < xn`` of a node:
    their midpoint, or ``xi`` when the midpoint rounds onto ``xn`` (or overflows),
    as scikit-learn's best splitter."""
    thr = xi / 2.0 + xn / 2.0
    if thr == xn or np.isinf(thr):
        thr = xi
    return thr


@njit(cache=True, nogil=True, _nrt=False)
def best_numeric_sorted(keys, ids, start, end, use_edges, edges_f, yc, sstats, w, parent,
                        parent_imp, left, miss, buf, min_samples_leaf, min_weight_leaf,
                        task, merit_code, builtin, imp_fn, merit_fn, cp, proxy_best):
    """Threshold search on one numeric feature over samples sorted by it.

    ``keys[start:end]`` are the node's values of the feature in ascending
    order with missing values (NaN) last, ``ids[start:end]`` the matching
    sample ids.  With ``use_edges`` the keys are histogram bin codes and the
    threshold after code ``b`` is ``edges_f[b]``; otherwise keys are raw
    values and thresholds are midpoints between consecutive distinct values
    (scikit-learn's "best" splitter).  Returns
    ``(status, score, ratio, threshold, missing_slot)``.
    """
    if WITH_NEWTON and merit_code == MERIT_NEWTON and task != TASK_CLASSIFICATION:
        status, score, thr, slot = newton_sorted_sweep(
            keys, ids, start, end, use_edges, edges_f, sstats, parent, cp, min_samples_leaf,
            min_weight_leaf)
        return status, score, score, thr, slot
    n_parent = end - start
    end_nm = end
    while end_nm > start and np.isnan(keys[end_nm - 1]):
        end_nm -= 1
    n_miss = end - end_nm
    miss[:] = 0.0
    for p in range(end_nm, end):
        _add_sample(miss, ids[p], yc, sstats, w, task)
    if end_nm == start:
        return -1, -np.inf, -np.inf, 0.0, 0
    if n_miss == 0 and keys[end_nm - 1] <= keys[start] + FEATURE_THRESHOLD:
        return -1, -np.inf, -np.inf, 0.0, 0
    status = 0
    best_score = -np.inf
    best_ratio = -np.inf
    best_thr = 0.0
    best_slot = 1
    if (n_miss == 0 and merit_code == MERIT_IMPURITY_DECREASE
            and (builtin == BUILTIN_GINI or builtin == BUILTIN_ENTROPY
                 or (builtin == BUILTIN_VARIANCE and task != TASK_CLASSIFICATION))):
        # fast path: locate the best threshold by its proxy, then evaluate only it
        bp, bv = _proxy_sweep(keys, ids, start, end_nm, yc, sstats, w, parent, left,
                              min_samples_leaf, min_weight_leaf, task, builtin)
        if bp < 0:
            return 0, -np.inf, -np.inf, 0.0, 0
        if not better(bv, proxy_best[0]):
            # the proxy orders splits of one node exactly as the merit does: this
            # feature cannot beat an earlier one, so skip its full evaluation
            return 1, -np.inf, -np.inf, 0.0, 0
        proxy_best[0] = bv
        left[:] = 0.0
        for p in range(start, bp):
            _add_sample(left, ids[p], yc, sstats, w, task)
        n_left = bp - start
        # keys[bp + 1] still exists: the loop below sees a proper threshold
        last = bp
        _add_sample(left, ids[last], yc, sstats, w, task)
        n_left += 1
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, builtin, imp_fn, merit_fn, cp)
        if not ok:
            return 0, -np.inf, -np.inf, 0.0, 0
        return 1, score, ratio, _threshold_after(keys, last, use_edges, edges_f), slot
    left[:] = 0.0
    n_left = 0
    for p in range(start, end_nm):
        _add_sample(left, ids[p], yc, sstats, w, task)
        n_left += 1
        if p + 1 < end_nm:
            if keys[p + 1] <= keys[p] + FEATURE_THRESHOLD:
                continue
        elif n_miss == 0:
            break
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, builtin, imp_fn, merit_fn, cp)
        if ok and better(score, best_score):
            status = 1
            best_score = score
            best_ratio = ratio
            best_slot = slot
            if p + 1 < end_nm:
                best_thr = _threshold_after(keys, p, use_edges, edges_f)
            else:
                # every non-missing value left, missing values right
                best_thr = np.inf
                best_slot = 1
    return status, best_score, best_ratio, best_thr, best_slot


@njit(cache=True, inline="always", nogil=True)
def _newton_imp(h, g, lam, alpha):
    """:func:`~.merit.newton_impurity` of the statistics (H = h, G = g), on
    scalars, written with selects (no branch around the division, which then
    never divides by zero; a NaN sum stays NaN): the same value, in a loop
    LLVM can vectorise (:func:`newton_hist_sweep`)."""
    den = h + lam
    t = soft_threshold(g, alpha)
    v = -0.5 * t * t / (1.0 if den <= 0.0 else den)
    return 0.0 if den <= 0.0 else v


@njit(cache=True, inline="always", nogil=True)
def newton_terms(parent, cp):
    """The parent's ``H``, ``G`` and structure score
    (:func:`~.merit.newton_impurity`), then lambda, alpha and gamma."""
    return (parent[0], parent[1], newton_impurity(parent, cp), cp[NEWTON_LAMBDA],
            cp[NEWTON_ALPHA], cp[NEWTON_GAMMA])


@njit(cache=True, inline="always", nogil=True)
def newton_candidate(n_left, h_left, g_left, n_parent, n_miss, h_miss, g_miss, h_par, g_par,
                      imp_par, min_samples_leaf, min_weight_leaf, lam, alpha, gamma):
    """:func:`eval_binary` of one Newton candidate on scalars (the non-missing
    left side holds ``n_left`` samples of sums ``h_left``, ``g_left``): missing
    values right, then left; the same operations in the same order.  Returns
    ``(ok, score, missing_slot)``."""
    ok = False
    c_score = -np.inf
    c_slot = 1
    for m in range(2):
        if m == 1 and n_miss == 0:
            break
        nl = n_left + (n_miss if m == 1 else 0)
        nr = n_parent - nl
        if nl < min_samples_leaf or nr < min_samples_leaf:
            continue
        hl = h_left + (h_miss if m == 1 else 0.0)
        gl = g_left + (g_miss if m == 1 else 0.0)
        hr = h_par - hl
        gr = g_par - gl
        if hl < min_weight_leaf or hr < min_weight_leaf:
            continue
        g = 0.0
        g -= _newton_imp(hl, gl, lam, alpha)
        g -= _newton_imp(hr, gr, lam, alpha)
        g += imp_par
        g -= gamma * 1
        if better(g, c_score):
            ok = True
            c_score = g
            c_slot = 0 if m == 1 else 1
    if ok and n_miss == 0:
        # no missing value seen here: missing goes to the larger child
        c_slot = 0 if n_left >= n_parent - n_left else 1
    return ok, c_score, c_slot


@njit(cache=True, nogil=True, _nrt=False)
def newton_sorted_sweep(keys, ids, start, end, use_edges, edges_f, sstats, parent, cp,
                        min_samples_leaf, min_weight_leaf):
    """:func:`best_numeric_sorted` for the Newton gain (statistics ``[H, G, w]``
    in ``sstats``, rows ``ids``): the same candidates and sums, in the same
    order, evaluated on scalars (see :func:`newton_hist_sweep`).  Returns
    ``(status, score, threshold, missing_slot)``."""
    h_par, g_par, imp_par, lam, alpha, gamma = newton_terms(parent, cp)
    n_parent = end - start
    end_nm = end
    while end_nm > start and np.isnan(keys[end_nm - 1]):
        end_nm -= 1
    n_miss = end - end_nm
    h_miss = 0.0
    g_miss = 0.0
    for p in range(end_nm, end):
        h_miss += sstats[ids[p], 0]
        g_miss += sstats[ids[p], 1]
    if end_nm == start:
        return -1, -np.inf, 0.0, 0
    if n_miss == 0 and keys[end_nm - 1] <= keys[start] + FEATURE_THRESHOLD:
        return -1, -np.inf, 0.0, 0
    status = 0
    best_score = -np.inf
    best_thr = 0.0
    best_slot = 1
    h_left = 0.0
    g_left = 0.0
    n_left = 0
    for p in range(start, end_nm):
        i = ids[p]
        h_left += sstats[i, 0]
        g_left += sstats[i, 1]
        n_left += 1
        if p + 1 < end_nm:
            if keys[p + 1] <= keys[p] + FEATURE_THRESHOLD:
                continue
        elif n_miss == 0:
            break
        ok, score, slot = newton_candidate(
            n_left, h_left, g_left, n_parent, n_miss, h_miss, g_miss, h_par, g_par, imp_par,
            min_samples_leaf, min_weight_leaf, lam, alpha, gamma)
        if ok and better(score, best_score):
            status = 1
            best_score = score
            best_slot = slot
            if p + 1 < end_nm:
                best_thr = _threshold_after(keys, p, use_edges, edges_f)
            else:
                # every non-missing value left, missing values right
                best_thr = np.inf
                best_slot = 1
    return status, best_score, best_thr, best_slot


@njit(cache=True, inline="always", nogil=True, error_model="numpy")
def score_left_sums(hb, gb, nb, sb, m, h_par, g_par, imp_par, lam, alpha, gamma, npf, msl,
                    min_weight_leaf):
    """The gains of the ``m`` splits with left sums ``hb``, ``gb`` and counts
    ``nb`` into ``sb`` (-inf where a side holds fewer than ``msl`` rows or less
    than ``min_weight_leaf`` Hessian), in a loop without branches (vectorised:
    its two divisions were half the sweep's time), then the first best in
    order, each against the running best's :func:`~.merit.better_bar`.
    Returns ``(index, gain)``; index -1: none."""
    for q in range(np.uint64(0), np.uint64(m)):
        hl = hb[q]
        gl = gb[q]
        nl = nb[q]
        hr = h_par - hl
        g = 0.0
        g -= _newton_imp(hl, gl, lam, alpha)
        g -= _newton_imp(hr, g_par - gl, lam, alpha)
        g += imp_par
        g -= gamma * 1
        ok = ((nl >= msl) & (npf - nl >= msl) & (hl >= min_weight_leaf)
              & (hr >= min_weight_leaf))
        sb[q] = g if ok else -np.inf
    best_score = -np.inf
    bar = -np.inf
    best_q = -1
    for q in range(m):
        if sb[q] > bar:
            best_score = sb[q]
            bar = better_bar(best_score)
            best_q = q
    return best_q, best_score


@njit(cache=True, inline="always", nogil=True, error_model="numpy")
def split_of_left_sums(sweep, m, indexed, edges_f, h_par, g_par, imp_par, lam, alpha, gamma,
                       npf, msl, min_weight_leaf):
    """The Newton split among the ``m`` candidates whose left sums are in
    ``sweep`` (rows H, G, count; row 3 the scores, :func:`score_left_sums`):
    ``(status, score, threshold, missing_slot)`` -- candidate ``q``'s threshold
    ``edges_f[sweep[4, q]]`` (``indexed``: its bin kept there) or
    ``edges_f[q]``; no missing value was seen, so missing goes to the larger
    child.  Status 0: no candidate admissible."""
    nb = sweep[2]
    best_q, best_score = score_left_sums(sweep[0], sweep[1], nb, sweep[3], m, h_par, g_par,
                                         imp_par, lam, alpha, gamma, npf, msl, min_weight_leaf)
    if best_q < 0:
        return 0, -np.inf, 0.0, 1
    nl = nb[best_q]
    b = int(sweep[4, best_q]) if indexed else best_q
    return 1, best_score, edges_f[b], (0 if nl >= npf - nl else 1)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def newton_hist_sweep(hist_f, cnt_f, n_value_bins, edges_f, missing_bin, parent, cp, n_parent,
                      min_samples_leaf, min_weight_leaf, scratch, cc=-1):
    """:func:`best_numeric_hist` for the Newton gain (statistics ``[H, G, w]``):
    the same candidates, the same floating-point operations in the same order
    (so the same tree) as the generic path through :func:`eval_binary` and
    :func:`~.merit.split_merit`, with the sums kept in scalars.  Gain: the
    slides' XGBoost section,
    1/2 [G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) - G^2/(H+lambda)] - gamma.

    Without missing values on the node (the common case) in three passes over
    ``scratch`` (``(5, >= n_value_bins)`` float64, the caller's; smaller: the
    one-pass sweep below): the running left sums in bin order (of every bin,
    without a branch, where the node has at least a row a bin, which needs the
    empty bins' sums to be exactly 0.0, as every histogram of the engine holds
    them; of the candidates only, where it has fewer), then every one's gain
    and the first best in bin order (:func:`score_left_sums`; a bin that is
    no candidate scores -inf).  With missing values, one pass
    (:func:`newton_candidate`, missing right then left).  One call a feature,
    every candidate on scalars: the generic path's calls per candidate made
    that a fifth of a boosting fit on MNIST's 784 features.  (The parent's terms stay computed here, not once a node by
    the caller: hoisted out of the level-wise driver's parallel split search
    by numba's parfor pass, they gave other splits on the second thread.)  Returns ``(status, score,
    threshold, missing_slot)``; status -1: the feature is constant on the
    node.  ``cc``: the statistic holding the bins' counts where ``cnt_f`` is not
    kept (:func:`~.histogram.count_stat`; -1: ``cnt_f``).  ``missing_bin`` -1:
    the feature's missing bin is known to be empty (not read)."""
    h_par, g_par, imp_par, lam, alpha, gamma = newton_terms(parent, cp)
    n_miss = bin_count(hist_f, cnt_f, cc, missing_bin) if missing_bin >= 0 else 0
    if n_miss == 0 and scratch.shape[0] >= 5 and scratch.shape[1] >= n_value_bins:
        hb = scratch[0]
        gb = scratch[1]
        nb = scratch[2]
        ib = scratch[4]
        h_left = 0.0
        g_left = 0.0
        nonempty = 0
        msl = float(min_samples_leaf)
        npf = float(n_parent)
        if n_parent >= n_value_bins:
            # at least a row a bin: the running sums of every bin, without a branch
            # on the bin's count (which mispredicted at about every non-empty bin
            # of a sparse histogram) and without compacting the candidates (a
            # store at a data-dependent index kept this pass at ~1.2 ns a bin
            # against ~0.65 ns; MNIST-like nodes: the sweep ~10 % faster).  An
            # empty bin's sums are exactly 0.0 (a built histogram's are never
            # added to; a subtraction or a sparse node's default bin sets them
            # to 0: histogram._subtract_bins, _zero_empty_default_bins), so its
            # running sums are its left neighbour's; it is no candidate (as the
            # bin that brings every row left).  Counts (sums of ones, or
            # integer counts) are exact in float64.
            n_left = 0.0
            for b in range(np.uint64(0), np.uint64(n_value_bins)):
                c = hist_f[b, cc] if cc >= 0 else float(cnt_f[b])
                h_left += hist_f[b, 0]
                g_left += hist_f[b, 1]
                n_left += c
                hb[b] = h_left
                gb[b] = g_left
                nb[b] = n_left
                nonempty += c != 0.0
            if nonempty <= 1:
                return -1, -np.inf, 0.0, 0
            # (candidates: the non-empty bins that leave a row on each side.  The
            # sides' counts of at least max(min_samples_leaf, 1) exclude the bins
            # before the first row and from the bin that brings the last one; an
            # empty bin after a candidate repeats its sums, so its score, which
            # never beats the first (better_bar): no test of the bin's count)
            return split_of_left_sums(scratch, n_value_bins, False, edges_f, h_par, g_par,
                                      imp_par, lam, alpha, gamma, npf, max(msl, 1.0),
                                      min_weight_leaf)
        # fewer rows than bins: most bins empty, the branch predicted; the
        # candidates (non-empty bins that leave a row right) compacted
        n_left = 0
        m = 0
        for b in range(n_value_bins):
            c = bin_count(hist_f, cnt_f, cc, b)
            if c == 0:
                continue
            nonempty += 1
            h_left += hist_f[b, 0]
            g_left += hist_f[b, 1]
            n_left += c
            if n_left == n_parent:
                break
            hb[m] = h_left
            gb[m] = g_left
            nb[m] = n_left
            ib[m] = b
            m += 1
        if nonempty <= 1:
            return -1, -np.inf, 0.0, 0
        return split_of_left_sums(scratch, m, True, edges_f, h_par, g_par, imp_par, lam,
                                  alpha, gamma, npf, msl, min_weight_leaf)
    nonempty = 0
    for b in range(n_value_bins):
        if bin_count(hist_f, cnt_f, cc, b) > 0:
            nonempty += 1
            if nonempty > 1:
                break
    if nonempty == 0 or (nonempty == 1 and n_miss == 0):
        return -1, -np.inf, 0.0, 0
    h_miss = hist_f[missing_bin, 0]
    g_miss = hist_f[missing_bin, 1]
    status = 0
    best_score = -np.inf
    bar = -np.inf
    best_thr = 0.0
    best_slot = 1
    h_left = 0.0
    g_left = 0.0
    n_left = 0
    n_nonmissing = n_parent - n_miss
    for b in range(n_value_bins):
        n_b = bin_count(hist_f, cnt_f, cc, b)
        if n_b == 0:
            continue
        h_left += hist_f[b, 0]
        g_left += hist_f[b, 1]
        n_left += n_b
        if n_left == n_nonmissing and n_miss == 0:
            break
        ok, c_score, c_slot = newton_candidate(
            n_left, h_left, g_left, n_parent, n_miss, h_miss, g_miss, h_par, g_par, imp_par,
            min_samples_leaf, min_weight_leaf, lam, alpha, gamma)
        if ok and c_score > bar:
            status = 1
            best_score = c_score
            bar = better_bar(c_score)
            best_slot = c_slot
            if n_left == n_nonmissing:
                best_thr = np.inf
                best_slot = 1
            else:
                best_thr = edges_f[b]
        if n_left == n_nonmissing:
            break
    return status, best_score, best_thr, best_slot


@njit(cache=True, nogil=True)
def best_numeric_hist(hist_f, cnt_f, n_value_bins, edges_f, missing_bin, parent, parent_imp,
                      n_parent, left, buf, min_samples_leaf, min_weight_leaf,
                      task, merit_code, builtin, imp_fn, merit_fn, cp, proxy_best,
                      b_lo=0, b_hi=-1, cc=-1):
    """Threshold search over the histogram of one numeric feature.

    ``hist_f[b]`` is the statistics vector of bin ``b`` and ``cnt_f[b]`` its
    sample count; the split "bins 0..b go left" is the threshold ``edges_f[b]``.
    ``b_lo`` / ``b_hi``: the caller knows every bin outside ``[b_lo, b_hi]`` is
    empty (the scans skip them; ``b_hi < 0``: not known).  ``cc``: the statistic
    holding the bins' counts where ``cnt_f`` is not kept
    (:func:`~.histogram.count_stat`; -1: ``cnt_f``).
    Returns ``(status, score, ratio, threshold, missing_slot)``.
    """
    if merit_code == MERIT_NEWTON and task != TASK_CLASSIFICATION:
        # (the sweep makes the constant-feature check itself)
        status, score, thr, slot = newton_hist_sweep(
            hist_f, cnt_f, n_value_bins, edges_f, missing_bin, parent, cp, n_parent,
            min_samples_leaf, min_weight_leaf, buf[:0], cc)
        return status, score, score, thr, slot
    miss = hist_f[missing_bin]
    n_miss = bin_count(hist_f, cnt_f, cc, missing_bin)
    b_end = n_value_bins if b_hi < 0 else min(b_hi + 1, n_value_bins)
    nonempty = 0
    for b in range(b_lo, b_end):
        if bin_count(hist_f, cnt_f, cc, b) > 0:
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
    if (n_miss == 0 and merit_code == MERIT_IMPURITY_DECREASE
            and (builtin == BUILTIN_GINI or builtin == BUILTIN_ENTROPY
                 or (builtin == BUILTIN_VARIANCE and task != TASK_CLASSIFICATION))):
        # fast path: find the best bin by the criterion's proxy, then evaluate only it
        w_par = stats_weight(parent, task)
        best_v = -np.inf
        best_b = -1
        for b in range(b_lo, b_end):
            n_b = bin_count(hist_f, cnt_f, cc, b)
            if n_b == 0:
                continue
            for s in range(left.shape[0]):
                left[s] += hist_f[b, s]
            n_left += n_b
            if n_left == n_nonmissing:
                break
            if n_left < min_samples_leaf or n_parent - n_left < min_samples_leaf:
                continue
            v = _proxy_value(left, parent, w_par, min_weight_leaf, task, builtin)
            if better(v, best_v):
                best_v = v
                best_b = b
        if best_b < 0:
            return 0, -np.inf, -np.inf, 0.0, 0
        if not better(best_v, proxy_best[0]):
            return 1, -np.inf, -np.inf, 0.0, 0
        proxy_best[0] = best_v
        left[:] = 0.0
        n_left = 0
        for b in range(b_lo, best_b + 1):
            for s in range(left.shape[0]):
                left[s] += hist_f[b, s]
            n_left += bin_count(hist_f, cnt_f, cc, b)
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, builtin, imp_fn, merit_fn, cp)
        if not ok:
            return 0, -np.inf, -np.inf, 0.0, 0
        return 1, score, ratio, edges_f[best_b], slot
    for b in range(b_lo, b_end):
        n_b = bin_count(hist_f, cnt_f, cc, b)
        if n_b == 0:
            continue
        for s in range(left.shape[0]):
            left[s] += hist_f[b, s]
        n_left += n_b
        if n_left == n_nonmissing and n_miss == 0:
            break
        ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                             n_miss, buf, min_samples_leaf, min_weight_leaf,
                                             task, merit_code, builtin, imp_fn, merit_fn, cp)
        if ok and better(score, best_score):
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


#: ``multiway`` argument of :func:`best_nominal`: binary subset splits, multiway
#: splits in which every branch must hold the minimum leaf size, or multiway splits
#: admissible when at least two branches hold it (Quinlan's C4.5)
NOMINAL_BINARY = 0
NOMINAL_MULTIWAY = 1
NOMINAL_MULTIWAY_C45 = 2


@njit(cache=True, inline="always", nogil=True)
def multiway_admissible(n_large, k, multiway):
    """Whether a multiway split into ``k`` branches, ``n_large`` of which hold at least
    ``min_samples_leaf`` samples (and ``min_weight_leaf`` weight), may be made.

    ``NOMINAL_MULTIWAY``: every branch must (scikit-learn's rule for its binary
    splits, carried over).  ``NOMINAL_MULTIWAY_C45``: at least two branches must,
    as in Quinlan's C4.5 (Quinlan 1993; release 8, ``ComputeGain``: "There must
    be at least two subsets with MINOBJS items", MINOBJS = 2 by default);
    smaller branches are then allowed, down to one case.  (C4.5 counts only
    cases with a known value; here the branch that takes the node's missing
    values counts them too.)
    """
    if multiway == NOMINAL_MULTIWAY_C45:
        return n_large >= 2
    return n_large == k


@njit(cache=True, inline="always", nogil=True)
def _present_categories(cat_cnt, n_cats, n_miss, present):
    """``present[:k]`` = the categories seen at the node; returns ``(k, status)``:
    status -1 (nothing to separate), 0 (one category plus missing values: no
    category test separates them) or 1 (a split is possible)."""
    k = 0
    for c in range(n_cats):
        if cat_cnt[c] > 0:
            present[k] = c
            k += 1
    if k + (1 if n_miss > 0 else 0) < 2 or k == 0:
        return k, -1
    if k < 2:
        return k, 0
    return k, 1


@njit(cache=True, nogil=True)
def nominal_scratch(max_cats, n_stats, stack):
    """The scratch of :func:`best_nominal` / :func:`random_nominal` for up to
    ``max_cats`` categories: ``(present, perm, key, children, stack)``."""
    return (np.empty(max_cats, np.int64), np.empty(max_cats, np.int64),
            np.empty(max_cats, np.float64), np.empty((max_cats, n_stats), np.float64), stack)


@njit(cache=True, nogil=True)
def best_nominal(cat_stats, cat_cnt, n_cats, miss, n_miss, parent, parent_imp, n_parent,
                 multiway, cat_slots, left, buf2, min_samples_leaf, min_weight_leaf,
                 task, merit_code, builtin, imp_fn, merit_fn, cp, scratch):
    """Best split of a nominal feature from its per-category statistics.

    * ``multiway`` (:data:`NOMINAL_MULTIWAY` or :data:`NOMINAL_MULTIWAY_C45`,
      see :func:`multiway_admissible` for the minimum leaf size): one child per
      category present at the node (ID3 / C4.5);
    * otherwise a binary subset split: categories ordered by their mean target
      (regression) or by the frequency of the node's majority class, then
      swept as an ordered feature (Breiman et al. 1984; optimal for two classes
      and for squared error).

    Writes the category -> slot table into ``cat_slots[:n_cats]`` (-1 for
    categories absent from the node).  Returns
    ``(status, score, ratio, n_children, missing_slot)``.  ``scratch``:
    :func:`nominal_scratch` (nothing allocated here).
    """
    S = parent.shape[0]
    present, perm, key, children, stack = scratch
    k, status = _present_categories(cat_cnt, n_cats, n_miss, present)
    if status < 1:
        return status, -np.inf, -np.inf, 0, 0
    for c in range(n_cats):
        cat_slots[c] = -1
    if multiway:
        children = children[:k]
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
            n_large = 0
            for j in range(k):
                c = present[j]
                nj = cat_cnt[c] + (n_miss if j == mslot else 0)
                for s in range(S):
                    children[j, s] = cat_stats[c, s] + (miss[s] if j == mslot else 0.0)
                if nj >= min_samples_leaf and stats_weight(children[j], task) >= min_weight_leaf:
                    n_large += 1
            if not multiway_admissible(n_large, k, multiway):
                continue
            score, ratio, _ = split_merit(parent, parent_imp, children, task, merit_code,
                                          builtin, imp_fn, merit_fn, cp)
            if better(score, best_score):
                best_score = score
                best_ratio = ratio
                best_slot = mslot
        if best_slot < 0:
            return 0, -np.inf, -np.inf, 0, 0
        for j in range(k):
            cat_slots[present[j]] = j
        return 1, best_score, best_ratio, k, best_slot
    # binary subset split: order the present categories by a scalar key
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
    # (a stable argsort of the keys: the pairs (key, position) sorted in place)
    for j in range(k):
        perm[j] = j
    sort_pairs(key, perm, 0, k, stack)
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
                                             task, merit_code, builtin, imp_fn, merit_fn, cp)
        if ok and better(score, best_score):
            best_score = score
            best_ratio = ratio
            best_j = j
            best_slot = slot
    if best_j < 0:
        return 0, -np.inf, -np.inf, 0, 0
    for j in range(k):
        cat_slots[present[perm[j]]] = 0 if j <= best_j else 1
    return 1, best_score, best_ratio, 2, best_slot


# ------------------------------------------------------------ random splits
#: ``BuildParams.split_mode``: the best threshold of each drawn feature, or one
#: random threshold per drawn feature (extremely randomized trees)
SPLIT_BEST = 0
SPLIT_RANDOM = 1


@njit(cache=True, nogil=True)
def _random_binary(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                   min_samples_leaf, min_weight_leaf, task, merit_code, builtin, imp_fn,
                   merit_fn, cp):
    """The merit of one drawn binary split (left statistics ``left``, missing values
    ``miss`` on the better side, :func:`eval_binary`), shared by the random numeric
    and nominal splits: ``(status, score, ratio, missing_slot)``, status 0 when the
    split is not admissible."""
    ok, score, ratio, slot = eval_binary(parent, parent_imp, n_parent, left, n_left, miss, n_miss,
                                         buf, min_samples_leaf, min_weight_leaf, task, merit_code,
                                         builtin, imp_fn, merit_fn, cp)
    if not ok:
        return 0, -np.inf, -np.inf, 1
    return 1, score, ratio, slot


@njit(cache=True, nogil=True, inline="always")
def random_numeric_result(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                          min_samples_leaf, min_weight_leaf, task, merit_code, builtin, imp_fn,
                          merit_fn, cp, thr, key, only_missing):
    """The result of a drawn numeric cut once its children's statistics are summed
    (:func:`random_numeric` and the column builder's random cut):
    ``(status, score, ratio, thr, mslot, key)``; a node whose only values beside
    the missing ones are on one side sends the missing rows to slot 1.  Inlined
    into its callers (numba IR): as a called function it made the column
    builder's extra-trees regressor 15 % slower per tree."""
    status, score, ratio, slot = _random_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                                n_miss, buf, min_samples_leaf, min_weight_leaf,
                                                task, merit_code, builtin, imp_fn, merit_fn, cp)
    if status == 0:
        return 0, -np.inf, -np.inf, 0.0, 0, 0.0
    if only_missing:
        slot = 1
    return 1, score, ratio, thr, slot, key


@njit(cache=True, nogil=True, inline="always")
def draw_cut(lo, hi, bvals_f):
    """The random cut of extremely randomized trees on bin codes: the last bin
    going left, in ``lo .. hi - 1`` for a node whose codes span ``lo < hi``.

    With the bins' values ``bvals_f`` (:func:`~.binning.bin_means`: each bin's mean
    value), the paper's draw (Geurts et al. 2006, Algorithm 2, "Pick a random
    split": ``a_c ~ U[a_min, a_max]``) on the binned data: ``t ~ U[v_lo, v_hi)``
    and the bins whose value is at most ``t`` go left -- uniform in value, so a
    feature's cut-points fall where its range is, not where its rows are; with
    one bin a distinct value (at most ``max_bin`` of them) exactly the exact
    splitter's distribution of partitions.  ``bvals_f`` empty:
    ``b ~ U{lo, ..., hi - 1}``, uniform among the node's bin boundaries
    (LightGBM's ``extra_trees``).  A draw that rounds onto the node's largest
    value becomes its smallest (``b = lo``, ``t = v_lo``), as scikit-learn's
    ``RandomSplitter`` and :func:`random_numeric`'s raw-value draw do: with
    lossless bins the tree of ``splitter="exact"``.  Returns ``(b, t)`` (``t``: the
    drawn value, NaN without ``bvals_f``)."""
    if bvals_f.shape[0] == 0:
        return lo + np.random.randint(0, hi - lo), np.nan
    return cut_at(lo, hi, bvals_f, np.random.random())


@njit(cache=True, nogil=True, inline="always")
def skip_cut_draw(lo, hi, bvals_f):
    """The random numbers :func:`draw_cut` takes for the same arguments, without
    the cut (a cut drawn only to keep the random stream in step)."""
    if bvals_f.shape[0] == 0:
        np.random.randint(0, hi - lo)
    else:
        np.random.random()


@njit(cache=True, nogil=True, inline="always")
def cut_at(lo, hi, bvals_f, u):
    """:func:`draw_cut`'s cut for the uniform number ``u`` in [0, 1): ``t = v_lo +
    (v_hi - v_lo) u``, ``b`` the last bin in ``lo .. hi - 1`` whose value is at
    most ``t``, or ``(lo, v_lo)`` when ``t`` rounds onto ``v_hi``."""
    a = bvals_f[lo]
    t = a + (bvals_f[hi] - a) * u
    if t >= bvals_f[hi]:
        return lo, a
    # the last b in [lo, hi - 1] with bvals_f[b] <= t (bvals_f[lo] = a <= t): the
    # candidates are base .. base + n - 1; a fixed count of halvings (codes are
    # uint8: n <= 256 needs 8), whose selects compile to conditional moves -- the
    # comparison is a coin flip, and a searching loop's mispredicted exits cost
    # a tree of extremely randomized trees a quarter of its time (36 against 5
    # ns a draw measured alone)
    base = lo
    n = hi - lo
    for _ in range(8):
        half = n >> 1
        base = base + half if bvals_f[base + half] <= t else base
        n -= half
    while n > 1:                     # (more than 256 bins: never with uint8 codes)
        half = n >> 1
        base = base + half if bvals_f[base + half] <= t else base
        n -= half
    return base, t


@njit(cache=True, nogil=True, inline="always")
def draw_cut_bin(lo, hi, bvals_f):
    """:func:`draw_cut`'s bin alone."""
    return draw_cut(lo, hi, bvals_f)[0]


@njit(cache=True, nogil=True)
def random_numeric(X, Xb, use_hist, missing_bin, f, samples, start, end, edges_f, bvals_f,
                   yc, sstats,
                   w, parent, parent_imp, left, miss, buf, min_samples_leaf, min_weight_leaf,
                   task, merit_code, builtin, imp_fn, merit_fn, cp, vals):
    """One random threshold of numeric feature ``f`` at the node ``samples[start:end]``
    (Geurts, Ernst & Wehenkel 2006, "Extremely randomized trees", Algorithm 2:
    a cut-point drawn uniformly in [min, max] of the feature at the node).

    Exact data: ``thr ~ U[min, max)`` on raw values (a draw equal to the maximum
    becomes the minimum, as scikit-learn's ``RandomSplitter``).  Histogram data:
    ``thr = edges_f[b]`` with ``b`` from :func:`draw_cut_bin` -- uniform in value
    over the bins' values ``bvals_f`` (the feature's slice of
    ``BinnedData.bin_values``), or, ``bvals_f`` empty, uniform among the bin
    boundaries inside the node's range of bins (LightGBM's ``extra_trees``).  A feature
    constant at the node returns status -1; one value plus missing values
    splits "values | missing".  The missing side is the one with the better
    merit (:func:`eval_binary`).

    The node's values of ``f`` are gathered once into ``vals[start:end]`` (raw
    values, or bin codes as floats; NaN = missing): the second pass and the
    partition (``builder.partition_node``) read that contiguous copy instead of
    ``X`` again.  A sample goes left iff ``vals[p] <= key`` (``key`` = ``thr`` on
    raw values, the cut bin on codes).  Returns
    ``(status, score, ratio, thr, mslot, key)``."""
    # (the loops are written once per data kind and task, not branching on them per
    # sample: 2-3x fewer ns per sample; same values, same sums in the same order)
    n_parent = end - start
    lo, hi, n_miss = numeric_node_range(X, Xb, use_hist, missing_bin, f, samples, start, end,
                                        vals, True)
    if n_miss == n_parent:
        return -1, -np.inf, -np.inf, 0.0, 0, 0.0
    only_missing = one_value(lo, hi, use_hist)
    if only_missing and n_miss == 0:
        return -1, -np.inf, -np.inf, 0.0, 0, 0.0
    key = np.inf
    thr = np.inf
    if not only_missing:
        if use_hist:
            b_cut = draw_cut_bin(int(lo), int(hi), bvals_f)
            key = float(b_cut)
            thr = edges_f[b_cut]
        else:
            thr = lo + (hi - lo) * np.random.random()
            if thr >= hi:
                thr = lo
            key = thr
    left[:] = 0.0
    miss[:] = 0.0
    n_left = 0
    if task == TASK_CLASSIFICATION:
        for p in range(start, end):
            x = vals[p]
            if x <= key:                   # (False for NaN)
                i = samples[p]
                left[yc[i]] += w[i]
                n_left += 1
            elif n_miss > 0 and np.isnan(x):
                i = samples[p]
                miss[yc[i]] += w[i]
    else:
        for p in range(start, end):
            x = vals[p]
            if x <= key:
                _add_sample(left, samples[p], yc, sstats, w, task)
                n_left += 1
            elif n_miss > 0 and np.isnan(x):
                _add_sample(miss, samples[p], yc, sstats, w, task)
    return random_numeric_result(parent, parent_imp, n_parent, left, n_left, miss, n_miss, buf,
                                 min_samples_leaf, min_weight_leaf, task, merit_code, builtin,
                                 imp_fn, merit_fn, cp, thr, key, only_missing)


@njit(cache=True, nogil=True, inline="always")
def one_value(lo, hi, use_hist):
    """Whether a node's non-missing values of a feature, ranging ``lo .. hi``
    (:func:`numeric_node_range`), are one value: one bin code, or raw values
    closer than :data:`FEATURE_THRESHOLD` -- no cut to draw between them."""
    return (hi <= lo) if use_hist else (hi <= lo + FEATURE_THRESHOLD)


@njit(cache=True, nogil=True, inline="always")
def numeric_node_range(X, Xb, use_hist, missing_bin, f, samples, start, end, vals, gather):
    """``(lo, hi, n_missing)`` of numeric feature ``f`` over the node
    ``samples[start:end]`` (raw values, or bin codes as floats; lo = inf, hi =
    -inf when every one is missing); ``gather``: each row's value (NaN =
    missing) into ``vals[start:end]`` too (:func:`random_numeric`)."""
    lo = np.inf
    hi = -np.inf
    n_miss = 0
    if use_hist:
        ilo = 256
        ihi = -1
        for p in range(start, end):
            c = Xb[samples[p], f]
            if c == missing_bin:
                if gather:
                    vals[p] = np.nan
                n_miss += 1
            else:
                if gather:
                    vals[p] = c
                if c < ilo:
                    ilo = c
                if c > ihi:
                    ihi = c
        if n_miss < end - start:
            lo = float(ilo)
            hi = float(ihi)
    else:
        for p in range(start, end):
            x = X[samples[p], f]
            if gather:
                vals[p] = x
            if np.isnan(x):
                n_miss += 1
            else:
                if x < lo:
                    lo = x
                if x > hi:
                    hi = x
    return lo, hi, n_miss


@njit(cache=True, nogil=True, _nrt=False)
def random_numeric_draw(X, Xb, use_hist, missing_bin, f, samples, start, end,
                        edge_offsets, bin_values):
    """The random draws :func:`random_numeric` makes on feature ``f`` at the node,
    and nothing else (a node of two rows whose split is already found: see
    ``builder.find_best_split``).  ``edge_offsets`` / ``bin_values``: the whole
    data's (``BinnedData``), sliced here: called per feature,
    without numba's reference counting (``_nrt=False``; it allocates nothing),
    where views made by the caller took and released a reference each."""
    lo, hi, n_miss = numeric_node_range(X, Xb, use_hist, missing_bin, f, samples, start, end,
                                        bin_values[:0], False)
    if n_miss == end - start:
        return
    if one_value(lo, hi, use_hist):
        return
    if use_hist:
        skip_cut_draw(int(lo), int(hi), feature_bin_values(bin_values, edge_offsets, f))
    else:
        np.random.random()               # (random_numeric's draw on raw values)


@njit(cache=True, nogil=True)
def random_nominal(cat_stats, cat_cnt, n_cats, miss, n_miss, parent, parent_imp, n_parent,
                   multiway, cat_slots, left, buf2, min_samples_leaf, min_weight_leaf,
                   task, merit_code, builtin, imp_fn, merit_fn, cp, scratch):
    """Random split of a nominal feature: with ``multiway`` the multiway split (it has
    no threshold to draw: :func:`best_nominal`); otherwise a uniformly random
    non-trivial subset of the categories present at the node goes left (each
    category left with probability 1/2, redrawn while one side is empty).
    Arguments and return value as :func:`best_nominal`."""
    if multiway:
        return best_nominal(cat_stats, cat_cnt, n_cats, miss, n_miss, parent, parent_imp,
                            n_parent, multiway, cat_slots, left, buf2, min_samples_leaf,
                            min_weight_leaf, task, merit_code, builtin, imp_fn, merit_fn, cp,
                            scratch)
    S = parent.shape[0]
    k, status = _present_categories(cat_cnt, n_cats, n_miss, scratch[0])
    if status < 1:
        return status, -np.inf, -np.inf, 0, 0
    for c in range(n_cats):
        cat_slots[c] = -1
    while True:
        n_l = 0
        for c in range(n_cats):
            if cat_cnt[c] > 0:
                s = np.random.randint(0, 2)
                cat_slots[c] = s
                n_l += 1 - s
        if 0 < n_l < k:
            break
    left[:] = 0.0
    n_left = 0
    for c in range(n_cats):
        if cat_slots[c] == 0:
            for s in range(S):
                left[s] += cat_stats[c, s]
            n_left += cat_cnt[c]
    status, score, ratio, slot = _random_binary(parent, parent_imp, n_parent, left, n_left, miss,
                                                n_miss, buf2, min_samples_leaf, min_weight_leaf,
                                                task, merit_code, builtin, imp_fn, merit_fn, cp)
    if status == 0:
        for c in range(n_cats):
            cat_slots[c] = -1
        return 0, -np.inf, -np.inf, 0, 0
    return 1, score, ratio, 2, slot
