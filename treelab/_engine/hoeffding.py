"""Hoeffding-tree kernels: class-count streaming statistics, leaf predictors and
the split attempt of the VFDT family (Domingos & Hulten, KDD 2000).

One jitted call learns a whole chunk of a stream.  The tree is a
:class:`~treelab._engine.tree.TreeArrays` whose ``value[node]`` holds the
class distribution of the node: for a leaf, the counts it inherited from its
parent's split plus the instances it has seen since.  Each leaf owns a
statistics slot (:class:`~treelab._engine.streaming.StreamState`) laid out as

* ``stats[slot, f, b, c]``: instances of class ``c`` whose feature ``f`` fell in
  bin (or category) ``b``, for ``b < B``; ``stats[slot, f, B, c]`` is their sum
  over the bins (the instances with ``f`` not missing), which is also the
  naive-Bayes denominator;
* ``totals[slot, c]``: the leaf's class counts since its statistics started;
* ``aux[slot, 0]`` / ``aux[slot, 1]``: how many of those instances the
  majority class / naive Bayes predicted correctly (MOA's adaptive leaves).

Every ``grace_period`` instances a leaf that is not pure compares, for every
feature, the best split of that feature (every threshold between bins of a
numeric feature, the multiway split of a nominal one) by the criterion's merit
computed on the counts, together with the merit of *not* splitting (0 for an
impurity decrease).  The best merit and two runner-ups -- the best split of
another feature or "no split" (VFDT / MOA, ``EV_SECOND``) and the best of
*every* other split, other thresholds of the best feature included (C-Tree's
Algorithm 1, ``EV_SECOND_ANY``) -- the number of instances and the context
(depth, stream time, features, classes, branches) go to the decision rule (a
first-class function with ``RULE_SIG``), which says whether the evidence
suffices.  A split gives each child the class counts of its
branch as its distribution and a fresh, empty statistics slot.

The per-instance variance handed to the rule (``EV_VAR``, used by the
t-test) is the jackknife estimate n * Var_jack of the best candidate's merit:
each instance is removed in turn (one count of its (branch, class) cell), so
it holds for any merit computed from counts.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types

from .jit import njit
from .signatures import IMPURITY_TYPE, MERIT_TYPE, RULE_TYPE
from .merit import MERIT_GAIN_RATIO, TASK_CLASSIFICATION, node_impurity, split_merit
from .streaming import (
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MAX_BRANCHES, EV_MERIT, EV_N, EV_SECOND,
    EV_SECOND_ANY, EV_SIZE, EV_T, EV_VAR, M_SEEN, M_SPLITS, capacities, grow_slot_of, has_room, new_state, release_slot, take_slot,
)
from .observers import (
    OBS_ADAPTIVE, OBS_EQUAL_WIDTH, OBS_GAUSSIAN, ar_bin, ar_include, gauss_children,
    gauss_log_density, gauss_points, gauss_update,
)
from .tree import NOMINAL, NUMERIC, add_cat_map, add_children, ensure_capacity, leaf_from, new_tree

#: Hoeffding merits take no criterion parameters
_NO_PARAMS = np.zeros(1)

__all__ = ["LEAF_MC", "LEAF_NB", "LEAF_NBA", "NB_MOA", "new_ht", "predict_proba", "get_learn_kernel",
           "best_split", "AUX_MC", "AUX_NB", "get_predict_kernel"]

#: leaf predictors: majority class, naive Bayes, adaptive (MOA's NBAdaptive)
LEAF_MC = 0
LEAF_NB = 1
LEAF_NBA = 2
#: flag added to the leaf mode for MOA's naive-Bayes form (``nb_form="moa"``):
#: votes are products of likelihoods (``NaiveBayes.doNaiveBayesPrediction``), a
#: nominal likelihood is ``NominalAttributeClassObserver``'s, all-zero votes
#: predict the first class (see :func:`_nb_log_scores`)
NB_MOA = 4
AUX_MC = 0
AUX_NB = 1
#: first aux column of the adaptive observer's per-feature ranges (lo, width)
AUX_RANGE = 2


def new_ht(n_classes, n_features, n_bins_total):
    """A one-leaf tree with ``n_classes`` outputs and its statistics; returns (t, st).

    ``n_bins_total`` is the number of bins or categories of the widest feature;
    one more bin holds each feature's class totals.  ``aux`` holds the naive-Bayes
    hit counts and the adaptive observer's ranges (:mod:`.observers`)."""
    t = new_tree(64, n_classes, 64)
    t.sizes[0] = 1
    t.parent[0] = -1
    t.depth[0] = 0
    st = new_state(1, n_features, n_bins_total + 1, n_classes, t.feature.shape[0],
                   n_aux=AUX_RANGE + 2 * n_features)
    return t, st


@njit(cache=True, inline="always")
def _argmax(v):
    best = 0
    for c in range(1, v.shape[0]):
        if v[c] > v[best]:
            best = c
    return best


@njit(cache=True)
def _nb_log_scores(t, st, leaf, x, is_nominal, n_cats, n_bins, obs, moa, out):
    """Naive-Bayes scores of a leaf, written to ``out``; the prior is the leaf's
    class distribution.  Missing values and unseen categories are skipped.

    ``moa`` False (treelab's form): log P(c) + sum_f log P(x_f | c), discretised
    naive Bayes with Laplace smoothing, (count + 1) / (class total + bins), for
    bins and categories; the normal density for the Gaussian observer, as MOA's
    naive Bayes.

    ``moa`` True (MOA's ``NaiveBayes.doNaiveBayesPrediction``, GitHub master):
    the *votes* P(c) * prod_f P(x_f | c) as a product in the features' order
    (they may underflow to 0, as MOA's do); a nominal likelihood is
    ``NominalAttributeClassObserver.probabilityOfAttributeValueGivenClass``,
    (count + 1) / (class total + V_c) with V_c the highest category code seen
    with class c at the leaf plus one (``DoubleVector.numValues()``), and 0 for
    a class never seen there; numeric likelihoods are as in treelab's form
    (the Gaussian density: MOA's ``GaussianEstimator.probabilityDensity``)."""
    slot = st.slot_of[leaf]
    k = out.shape[0]
    B = st.stats.shape[2] - 1
    tot = 0.0
    for c in range(k):
        tot += t.value[leaf, c]
    for c in range(k):
        v = t.value[leaf, c]
        if moa:
            out[c] = v / tot if tot > 0.0 else 0.0
        else:
            out[c] = math.log(v / tot) if v > 0.0 else -np.inf
    if slot < 0:
        return
    for f in range(is_nominal.shape[0]):
        code = x[f]
        if np.isnan(code):
            continue
        if not is_nominal[f]:
            if obs == OBS_GAUSSIAN:
                for c in range(k):
                    lp = gauss_log_density(st.stats[slot, f], c, code)
                    if moa:
                        out[c] *= math.exp(lp)
                    else:
                        out[c] += lp
                continue
            if obs == OBS_ADAPTIVE:
                b = ar_bin(code, st.aux[slot, AUX_RANGE + 2 * f],
                           st.aux[slot, AUX_RANGE + 2 * f + 1], n_bins)
            else:
                b = int(code)
        else:
            b = int(code)
        nb = float(n_cats[f] if is_nominal[f] else n_bins)
        for c in range(k):
            if moa and is_nominal[f]:
                nv = 0
                for j in range(n_cats[f] - 1, -1, -1):
                    if st.stats[slot, f, j, c] > 0.0:
                        nv = j + 1
                        break
                out[c] *= ((st.stats[slot, f, b, c] + 1.0) / (st.stats[slot, f, B, c] + nv)
                           if nv > 0 else 0.0)
            elif moa:
                out[c] *= (st.stats[slot, f, b, c] + 1.0) / (st.stats[slot, f, B, c] + nb)
            else:
                out[c] += math.log((st.stats[slot, f, b, c] + 1.0) / (st.stats[slot, f, B, c] + nb))


@njit(cache=True)
def _leaf_proba(t, st, leaf, x, mode, is_nominal, n_cats, n_bins, obs, out):
    """Class probabilities of one row at its leaf, written to ``out`` (``mode``:
    the leaf predictor, plus :data:`NB_MOA` for MOA's naive-Bayes form, whose
    all-zero votes predict the first class as MOA's evaluation does)."""
    k = out.shape[0]
    slot = st.slot_of[leaf]
    moa = mode >= NB_MOA
    leaf_mode = mode - NB_MOA if moa else mode
    use_nb = leaf_mode == LEAF_NB or (leaf_mode == LEAF_NBA and slot >= 0
                                      and not st.aux[slot, AUX_MC] > st.aux[slot, AUX_NB])
    if use_nb:
        _nb_log_scores(t, st, leaf, x, is_nominal, n_cats, n_bins, obs, moa, out)
        if moa:
            s = 0.0
            for c in range(k):
                s += out[c]
            if s > 0.0:
                for c in range(k):
                    out[c] /= s
            else:
                out[:] = 0.0
                out[0] = 1.0
            return
        m = -np.inf
        for c in range(k):
            if out[c] > m:
                m = out[c]
        if m > -np.inf:
            s = 0.0
            for c in range(k):
                out[c] = math.exp(out[c] - m)
                s += out[c]
            for c in range(k):
                out[c] /= s
            return
    tot = 0.0
    for c in range(k):
        tot += t.value[leaf, c]
    for c in range(k):
        out[c] = t.value[leaf, c] / tot if tot > 0.0 else 1.0 / k


def _predict_proba_py(t, st, Xc, mode, is_nominal, n_cats, n_bins, obs):
    """Class probabilities (n, k) for code rows ``Xc``."""
    n = Xc.shape[0]
    k = t.value.shape[1]
    out = np.empty((n, k), np.float64)
    for i in range(n):
        leaf = leaf_from(t, 0, Xc[i])
        _leaf_proba(t, st, leaf, Xc[i], mode, is_nominal, n_cats, n_bins, obs, out[i])
    return out


@njit(cache=True, inline="always")
def _merit(parent, parent_imp, children, merit_code, builtin, imp_fn, merit_fn):
    score, ratio, _ = split_merit(parent, parent_imp, children, TASK_CLASSIFICATION, merit_code,
                                  builtin, imp_fn, merit_fn, _NO_PARAMS)
    return ratio if merit_code == MERIT_GAIN_RATIO else score


@njit(cache=True, inline="always")
def _branches_ok(children, total, min_frac):
    """At least two branches hold more than ``min_frac`` of the weight (MOA's
    minimum branch fraction; 0 = at least two non-empty branches)."""
    ok = 0
    for j in range(children.shape[0]):
        w = 0.0
        for c in range(children.shape[1]):
            w += children[j, c]
        if w > min_frac * total and w > 0.0:
            ok += 1
    return ok >= 2


@njit(cache=True)
def _candidate_children(st, slot, f, b, is_nominal, n_cats, obs, n_points):
    """The (branches x classes) counts of splitting ``slot``'s instances on
    feature ``f`` (numeric: bins 0..b left, or the Gaussian observer's
    candidate threshold b; nominal: one branch per category)."""
    k = st.totals.shape[1]
    B = st.stats.shape[2] - 1
    if is_nominal[f]:
        nc = n_cats[f]
        ch = np.empty((nc, k), np.float64)
        for j in range(nc):
            for c in range(k):
                ch[j, c] = st.stats[slot, f, j, c]
        return ch
    ch = np.zeros((2, k), np.float64)
    if obs == OBS_GAUSSIAN:
        pts = np.empty(n_points, np.float64)
        gauss_points(st.stats[slot, f], n_points, pts)
        gauss_children(st.stats[slot, f], pts[b], ch)
        return ch
    for bb in range(b + 1):
        for c in range(k):
            ch[0, c] += st.stats[slot, f, bb, c]
    for c in range(k):
        r = st.stats[slot, f, B, c] - ch[0, c]
        ch[1, c] = r if r > 0.0 else 0.0
    return ch


@njit(cache=True)
def _jackknife_var(children, merit_code, builtin, imp_fn, merit_fn):
    """Per-instance variance n * Var_jack of the merit of ``children`` (counts):
    Var_jack = (n - 1)/n * sum_cells n_cell (theta_-cell - theta_bar)^2."""
    nb, k = children.shape
    parent = np.zeros(k, np.float64)
    for j in range(nb):
        for c in range(k):
            parent[c] += children[j, c]
    n = 0.0
    for c in range(k):
        n += parent[c]
    if n < 2.0:
        return np.inf
    thetas = np.empty(nb * k, np.float64)
    weights = np.empty(nb * k, np.float64)
    m = 0
    mean = 0.0
    for j in range(nb):
        for c in range(k):
            w = children[j, c]
            if w < 1.0:
                continue
            children[j, c] -= 1.0
            parent[c] -= 1.0
            th = _merit(parent, node_impurity(parent, builtin, imp_fn), children, merit_code,
                        builtin, imp_fn, merit_fn)
            children[j, c] += 1.0
            parent[c] += 1.0
            thetas[m] = th
            weights[m] = w
            mean += w * th
            m += 1
    mean /= n
    ss = 0.0
    for i in range(m):
        dlt = thetas[i] - mean
        ss += weights[i] * dlt * dlt
    return (n - 1.0) * ss


@njit(cache=True)
def best_split(st, slot, is_nominal, n_cats, n_bins, min_frac, merit_code, builtin, imp_fn,
               merit_fn, obs=OBS_EQUAL_WIDTH, n_points=10):
    """Best split of a leaf's statistics.  Returns ``(best_merit, best_f, best_b,
    second_merit, null_merit, second_any, max_branches)``; ``best_f = -1`` when
    "no split" is best.  ``second_merit`` is that of another feature or of not
    splitting (VFDT's X_0), whichever is higher; ``second_any`` the best merit of
    any split other than the best one (another threshold of the best feature
    included; thresholds giving the same partition count once) or of not
    splitting; ``max_branches`` the most branches of any candidate (2 for
    numeric splits).  ``best_b``: the threshold bin, or for the Gaussian
    observer the index of the candidate threshold (:func:`.observers.gauss_points`)."""
    k = st.totals.shape[1]
    B = st.stats.shape[2] - 1
    d = is_nominal.shape[0]
    tot = st.totals[slot]
    null_ch = np.empty((1, k), np.float64)
    for c in range(k):
        null_ch[0, c] = tot[c]
    null = _merit(tot, node_impurity(tot, builtin, imp_fn), null_ch, merit_code, builtin,
                  imp_fn, merit_fn)
    best = null
    best_f = -1
    best_b = -1
    second = -np.inf
    best_f_second = -np.inf      # runner-up threshold of the best feature
    max_branches = 0
    parent = np.empty(k, np.float64)
    pair = np.zeros((2, k), np.float64)
    pts = np.empty(max(n_points, 1), np.float64)
    for f in range(d):
        w = 0.0
        for c in range(k):
            parent[c] = st.stats[slot, f, B, c]
            w += parent[c]
        if w <= 0.0:
            continue
        pimp = node_impurity(parent, builtin, imp_fn)
        f_best = -np.inf
        f_second = -np.inf
        f_b = -1
        if is_nominal[f]:
            ch = _candidate_children(st, slot, f, 0, is_nominal, n_cats, obs, n_points)
            if _branches_ok(ch, w, min_frac):
                f_best = _merit(parent, pimp, ch, merit_code, builtin, imp_fn, merit_fn)
                if ch.shape[0] > max_branches:
                    max_branches = ch.shape[0]
        else:
            # numeric: the Gaussian observer's candidate thresholds, or every
            # threshold between bins (bins 0..b left)
            m_pts = gauss_points(st.stats[slot, f], n_points, pts) if obs == OBS_GAUSSIAN \
                else n_bins - 1
            for c in range(k):
                pair[0, c] = 0.0
            for b in range(m_pts):
                if obs == OBS_GAUSSIAN:
                    gauss_children(st.stats[slot, f], pts[b], pair)
                else:
                    wb = 0.0
                    for c in range(k):
                        v = st.stats[slot, f, b, c]
                        pair[0, c] += v
                        wb += v
                    if wb <= 0.0:
                        continue            # same split as the previous threshold
                    for c in range(k):
                        r = parent[c] - pair[0, c]
                        pair[1, c] = r if r > 0.0 else 0.0
                if not _branches_ok(pair, w, min_frac):
                    continue
                m = _merit(parent, pimp, pair, merit_code, builtin, imp_fn, merit_fn)
                if max_branches < 2:
                    max_branches = 2
                if m > f_best:
                    f_second = f_best
                    f_best = m
                    f_b = b
                elif m > f_second:
                    f_second = m
        if f_best == -np.inf:
            continue
        if f_best > best:
            if best > second:
                second = best
            best = f_best
            best_f = f
            best_b = f_b
            best_f_second = f_second
        elif f_best > second:
            second = f_best
    second_any = second if second > best_f_second else best_f_second
    return best, best_f, best_b, second, null, second_any, max_branches


@njit(cache=True)
def _split(t, st, node, slot, f, b, is_nominal, n_cats, n_bins, obs, n_points):
    """Turn leaf ``node`` into a split on feature ``f``; children start with their
    branch's class counts (a declared category without instances: the parent's
    distribution scaled to one instance) and fresh statistics.  Missing values
    and categories unknown to the encoding go to the heaviest child."""
    ch = _candidate_children(st, slot, f, b, is_nominal, n_cats, obs, n_points)
    nb, k = ch.shape
    t = ensure_capacity(t, nb, nb if is_nominal[f] else 0)
    st = grow_slot_of(st, t.feature.shape[0])
    first = add_children(t, node, nb)
    t.feature[node] = f
    t.n_samples[node] = st.counts[slot]
    heavy = 0
    heavy_w = -1.0
    for j in range(nb):
        w = 0.0
        for c in range(k):
            w += ch[j, c]
        if w > heavy_w:
            heavy_w = w
            heavy = j
    t.missing_child[node] = heavy
    if is_nominal[f]:
        t.kind[node] = NOMINAL
        add_cat_map(t, node, np.arange(nb))
    else:
        t.kind[node] = NUMERIC
        if obs == OBS_GAUSSIAN:
            pts = np.empty(n_points, np.float64)
            gauss_points(st.stats[slot, f], n_points, pts)
            t.threshold[node] = pts[b]
        elif obs == OBS_ADAPTIVE:
            t.threshold[node] = (st.aux[slot, AUX_RANGE + 2 * f]
                                 + (b + 1) * st.aux[slot, AUX_RANGE + 2 * f + 1] / n_bins)
        else:
            t.threshold[node] = b + 0.5
    ranges = st.aux[slot, AUX_RANGE:].copy()      # the children inherit the ranges
    release_slot(st, slot)
    st.slot_of[node] = -1
    ptot = 0.0
    for c in range(k):
        ptot += t.value[node, c]
    for j in range(nb):
        c_node = first + j
        wj = 0.0
        for c in range(k):
            wj += ch[j, c]
        for c in range(k):
            # a category the leaf never saw starts from the parent's distribution,
            # scaled to one pseudo-instance, until it sees instances of its own
            t.value[c_node, c] = ch[j, c] if wj > 0.0 or ptot <= 0.0 else t.value[node, c] / ptot
        st, s = take_slot(st)
        st.slot_of[c_node] = s
        st.aux[s, AUX_RANGE:] = ranges
    st.meta[M_SPLITS] += 1
    return t, st


@njit(cache=True)
def _attempt_split(t, st, leaf, slot, is_nominal, n_cats, n_bins, obs, n_points, min_frac,
                   inherited, merit_code, builtin, imp_fn, merit_fn, rule_fn, rule_params, ev):
    k = st.totals.shape[1]
    nonzero = 0
    for c in range(k):
        if st.totals[slot, c] > 0.0:
            nonzero += 1
    if nonzero < 2:          # a pure leaf has nothing to gain
        return t, st
    best, f, b, second, null, second_any, max_br = best_split(
        st, slot, is_nominal, n_cats, n_bins, min_frac, merit_code, builtin, imp_fn, merit_fn,
        obs, n_points)
    if f < 0:
        return t, st
    ch = _candidate_children(st, slot, f, b, is_nominal, n_cats, obs, n_points)
    ev[EV_MERIT] = best - null
    ev[EV_SECOND] = second - null
    ev[EV_SECOND_ANY] = second_any - null
    ev[EV_MAX_BRANCHES] = max_br
    if inherited:
        # MOA's HoeffdingTree: n = getWeightSeen(), the leaf's class
        # distribution with the counts inherited from its parent's split
        n_seen = 0.0
        for c in range(k):
            n_seen += t.value[leaf, c]
        ev[EV_N] = n_seen
    else:
        ev[EV_N] = st.counts[slot]
    ev[EV_VAR] = _jackknife_var(ch, merit_code, builtin, imp_fn, merit_fn)
    ev[EV_DEPTH] = t.depth[leaf]
    ev[EV_T] = st.meta[M_SEEN]
    ev[EV_D] = is_nominal.shape[0]
    ev[EV_K] = k
    ev[EV_BRANCHES] = ch.shape[0]
    if rule_fn(ev, rule_params):
        t, st = _split(t, st, leaf, slot, f, b, is_nominal, n_cats, n_bins, obs, n_points)
    return t, st


def _learn_py(t, st, Xc, y, is_nominal, n_cats, n_bins, obs, n_points, grace, mode, min_frac,
              inherited, merit_code, builtin, imp_fn, merit_fn, rule_fn, rule_params, start, room):
    """Learn code rows ``Xc[start:]`` with class codes ``y`` in order, in place
    (``obs``: the numeric observer, :mod:`.observers`; ``n_points``: the
    Gaussian observer's candidate thresholds; ``inherited``: 1 when the split
    attempt's ``n`` counts the class counts a leaf inherited at its split).
    Returns the first row not learned: the end, or an earlier row when the model
    lacks ``room`` free nodes / slots (see
    :func:`~treelab._engine.streaming.has_room`); -1 on an unexpected reallocation."""
    shape0 = capacities(t, st)
    k = t.value.shape[1]
    d = is_nominal.shape[0]
    B = st.stats.shape[2] - 1
    ev = np.zeros(EV_SIZE, np.float64)
    scores = np.zeros(k, np.float64)
    moa = mode >= NB_MOA
    leaf_mode = mode - NB_MOA if moa else mode
    for i in range(start, Xc.shape[0]):
        if not has_room(t, st, room, room):
            return i if capacities(t, st) == shape0 else -1
        x = Xc[i]
        c = int(y[i])
        leaf = leaf_from(t, 0, x)
        slot = st.slot_of[leaf]
        if leaf_mode == LEAF_NBA:
            if _argmax(t.value[leaf]) == c:
                st.aux[slot, AUX_MC] += 1.0
            _nb_log_scores(t, st, leaf, x, is_nominal, n_cats, n_bins, obs, moa, scores)
            if _argmax(scores) == c:
                st.aux[slot, AUX_NB] += 1.0
        t.value[leaf, c] += 1.0
        st.totals[slot, c] += 1.0
        for f in range(d):
            code = x[f]
            if np.isnan(code):
                continue
            if obs == OBS_EQUAL_WIDTH or is_nominal[f]:
                st.stats[slot, f, int(code), c] += 1.0
            elif obs == OBS_GAUSSIAN:
                gauss_update(st.stats[slot, f], c, code)
            else:
                j = AUX_RANGE + 2 * f
                lo, w = ar_include(st.stats[slot, f], st.aux[slot, j], st.aux[slot, j + 1],
                                   code, n_bins, False)
                st.aux[slot, j] = lo
                st.aux[slot, j + 1] = w
                st.stats[slot, f, ar_bin(code, lo, w, n_bins), c] += 1.0
            st.stats[slot, f, B, c] += 1.0
        st.counts[slot] += 1
        st.meta[M_SEEN] += 1
        if st.counts[slot] % grace == 0:
            t, st = _attempt_split(t, st, leaf, slot, is_nominal, n_cats, n_bins, obs, n_points,
                                   min_frac, inherited, merit_code, builtin, imp_fn, merit_fn,
                                   rule_fn,
                                   rule_params, ev)
    if capacities(t, st) != shape0:
        return -1
    return Xc.shape[0]


predict_proba = njit(cache=True)(_predict_proba_py)
_KERNEL = None
_PREDICT = None


def get_predict_kernel():
    """:func:`predict_proba` compiled with its explicit signature; returns the
    compiled entry point (no per-call type resolution: it matters for
    ``predict_one``; callers pass exactly these types)."""
    global _PREDICT
    if _PREDICT is None:
        from numba import typeof
        t, st = new_ht(2, 1, 1)
        sig = types.float64[:, ::1](typeof(t), typeof(st), types.float64[:, ::1], types.int64,
                                    types.boolean[::1], types.int64[::1], types.int64,
                                    types.int64)
        disp = njit(sig, cache=True)(_predict_proba_py)
        _PREDICT = disp.overloads[disp.signatures[0]].entry_point
    return _PREDICT


def get_learn_kernel():
    """The chunk learner compiled with its explicit signature (cached on disk);
    returns the compiled entry point (callers pass exactly these types)."""
    global _KERNEL
    if _KERNEL is None:
        from numba import typeof
        t, st = new_ht(2, 1, 1)
        T = typeof(t)
        S = typeof(st)
        sig = types.int64(
            T, S, types.float64[:, ::1], types.float64[::1], types.boolean[::1],
            types.int64[::1], types.int64, types.int64, types.int64, types.int64, types.int64,
            types.float64, types.int64,
            types.int64, types.int64, IMPURITY_TYPE, MERIT_TYPE, RULE_TYPE, types.float64[::1],
            types.int64, types.int64)
        disp = njit(sig, cache=True)(_learn_py)
        _KERNEL = disp.overloads[disp.signatures[0]].entry_point
    return _KERNEL

