"""Stochastic Gradient Tree kernels (Gouk, Pfahringer & Frank, ACML 2019).

One jitted call learns a whole chunk of a stream.  A *forest* of ``K`` trees
(one per raw output: 1 for regression / binary, k - 1 for k classes under
softmax) lives in one :class:`~treelab._engine.tree.TreeArrays` whose roots are
``roots[j]``; leaf values are raw scores.  Each leaf owns a statistics slot
(:mod:`treelab._engine.streaming`) with the gradient/Hessian moments
(:mod:`treelab._engine.moments`) of the instances it saw, per feature and bin,
and in total.

For every instance the trees' raw scores give the loss's gradient and
Hessian (a first-class ``grad_hess`` function, :mod:`treelab.losses`); each
tree's leaf adds them to its moments (missing values add to no bin).  Every
``grace_period`` instances a leaf evaluates its candidates u (eq. 3):

* "update only": move the leaf value by v;
* every numeric split "bins 0..b left" and every nominal multiway split
  (one child per category), each child c with its own v_c;

by L = (Delta L(u) + Omega(u)) / n, the approximate loss change (eq. 10) plus
the regulariser (eq. 5) per instance of the leaf's n instances, and the
variance of the per-instance loss change (eq. 18: v^2 Var(g) + v^4/4 Var(h)
+ v^3 Cov(g, h) within each child, pooled across children).  With S_g, S_h
the sums and G, H the means of g, h over a child's n_c instances, the two
leaf-value forms (``sums``) are

* ``sums=True``, the paper: v_c = -S_g / (lambda + S_h) (eq. 13) and
  L = [sum_c (S_g v_c + (S_h + lambda) v_c^2 / 2) + gamma * (new leaves)] / n
  (eq. 11 summed over the changed leaves, plus Omega's gamma term);
* ``sums=False``, the authors' Java code and river: v_c = -G / (H + lambda)
  and L = sum_c n_c/n (G_c v_c + H_c v_c^2 / 2) + gamma * (new leaves) / n
  (no lambda / 2 v^2 term).

gamma counts the new nodes a candidate adds (Sec. 3.1, "a cost for each new
node added to the tree"): every child of a split, 2 for a numeric split and
one per declared category for a nominal one, as in the authors' code and
river; none for "update only", which adds no node (its lambda term, eq. 11
for the updated leaf, does count in the paper's form).  A split side without
instances is not a candidate.  The best
(lowest L) candidate is passed to the decision rule (a first-class function,
default: the one-sample t-test of :mod:`treelab.split_criteria.rules`,
split when p < delta and L < 0).  Applying
it either updates the leaf value or turns the leaf into a split whose
children start at the parent value plus their own v_c, with fresh
statistics.  Missing values go to child 0.

``resplit`` (not in the paper; MOA's current ``StochasticGradientTree``,
whose ``disableResplits`` option is off by default): a node that splits keeps
its statistics slot, and every instance is learned at every node of its path
(:func:`_observe_path`), an internal node's (g, h) taken at that node's own
value.  Every ``grace_period`` instances an internal node compares its best
split with its current one (:func:`_try_resplit`); a re-split cuts the
subtree off (its nodes stay in the arrays as unreachable ``DEAD`` nodes
without statistics) and grows fresh leaves at the node's value plus their v_c.
"""
from __future__ import annotations

import numpy as np
from numba import types

from .jit import njit
from .moments import (
    N, N_MOMENTS, combine_mean_var, moments_merge, moments_update,
    sgt_leaf_split_stats, sgt_leaf_value,
)
from .observers import OBS_ADAPTIVE, ar_bin, ar_include
from .signatures import RULE_TYPE
from .streaming import (
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MERIT, EV_N, EV_SECOND, EV_SIZE, EV_T, EV_VAR,
    M_SEEN, M_SPLITS, M_UPDATES, StreamState, capacities, grow_slot_of, has_room,
    new_state as _new_state, release_slot, take_slot,
)
from .tree import (
    LEAF, NOMINAL, NUMERIC, _next_node, add_cat_map, add_children, ensure_capacity,
    forest_predict, leaf_from, new_tree,
)

__all__ = ["SGTState", "new_state", "new_forest", "forest_leaf", "forest_raw",
           "get_learn_kernel", "M_UPDATES", "M_SPLITS", "M_SEEN"]

SGTState = StreamState
#: first aux column of the adaptive observer's per-feature ranges (lo, width)
AUX_RANGE = 1


def new_forest(n_trees):
    """K single-leaf trees with value 0, stored in one TreeArrays; returns (t, roots)."""
    t = new_tree(max(64, 2 * n_trees), 1, 64)
    t.sizes[0] = n_trees
    for j in range(n_trees):
        t.parent[j] = -1
        t.depth[j] = 0
    return t, np.arange(n_trees, dtype=np.int64)


def new_state(n_trees, n_features, n_bins_total, capacity_nodes, slots=None):
    """Moment statistics for ``n_trees`` root leaves (slot j for root j); ``aux``
    holds the adaptive observer's ranges (:mod:`.observers`)."""
    return _new_state(n_trees, n_features, n_bins_total, N_MOMENTS, capacity_nodes,
                      AUX_RANGE + 2 * n_features, slots)


forest_leaf = leaf_from


def forest_raw(t, roots, Xc):
    """Raw scores (n, K) of the forest for code rows ``Xc``: the engine's one
    multi-root traversal (:func:`~treelab._engine.tree.forest_predict`), tree j
    giving column j."""
    return forest_predict(t, roots, np.arange(roots.shape[0]), Xc, roots.shape[0])


@njit(cache=True)
def _best_candidate(st, slot, is_nominal, n_cats, n_bins, lam, gamma, sums, cum, rcum,
                    splits_only=False, cur_f=-1, cur_b=-1):
    """Evaluate every candidate of a node.  Returns (best_mean, best_var,
    best_f, best_b, second_mean, v_update, cur_mean, cur_var).  ``splits_only``
    (an internal node re-evaluated by ``resplit``): "update only" is no
    candidate; ``(cur_mean, cur_var)`` are those of the split on feature
    ``cur_f`` (threshold bin ``cur_b``), +inf when ``cur_f < 0``."""
    n = float(st.counts[slot])
    d = is_nominal.shape[0]
    v0, mean0, var0, om0 = sgt_leaf_split_stats(st.totals[slot], lam, sums)
    best_mean = mean0 + om0 / n
    best_var = var0
    if splits_only:
        best_mean = np.inf
        best_var = np.inf
    cur_mean = np.inf
    cur_var = np.inf
    best_f = -1
    best_b = -1
    second = np.inf
    for f in range(d):
        f_mean = np.inf
        f_var = np.inf
        f_b = -1
        if is_nominal[f]:
            k = n_cats[f]
            acc_n = 0.0
            acc_mean = 0.0
            acc_var = 0.0
            acc_om = 0.0
            for c in range(k):
                m = st.stats[slot, f, c]
                if m[N] <= 0.0:
                    continue           # an empty child: v = 0, no loss change, omega 0
                _, mc, vc, oc = sgt_leaf_split_stats(m, lam, sums)
                acc_om += oc
                acc_n, acc_mean, acc_var = combine_mean_var(acc_n, acc_mean, acc_var, m[N], mc, vc)
            nonempty = 0
            for c in range(k):
                if st.stats[slot, f, c, N] > 0.0:
                    nonempty += 1
            if nonempty >= 2:
                f_mean = acc_mean + (acc_om + gamma * k) / n
                f_var = acc_var
            if f == cur_f:
                cur_mean = f_mean
                cur_var = f_var
        else:
            # right sides by backward accumulation: rcum[b] = bins b+1 .. n_bins-1
            rcum[n_bins - 1] = 0.0
            for b in range(n_bins - 2, -1, -1):
                moments_merge(rcum[b + 1], st.stats[slot, f, b + 1], rcum[b])
            cum[:] = 0.0
            for b in range(n_bins - 1):
                if st.stats[slot, f, b, N] > 0.0:
                    moments_merge(cum, st.stats[slot, f, b], cum)
                elif not (f == cur_f and b == cur_b):
                    continue    # the partition of threshold b - 1: counted once (first wins)
                rest = rcum[b]
                if cum[N] <= 0.0 or rest[N] <= 0.0:
                    continue
                _, ml, sl, ol = sgt_leaf_split_stats(cum, lam, sums)
                _, mr, sr, orr = sgt_leaf_split_stats(rest, lam, sums)
                _, mean, var = combine_mean_var(cum[N], ml, sl, rest[N], mr, sr)
                mean += (ol + orr + 2.0 * gamma) / n
                if f == cur_f and b == cur_b:
                    cur_mean = mean
                    cur_var = var
                if mean < f_mean:
                    f_mean = mean
                    f_var = var
                    f_b = b
        if f_mean < best_mean:
            if best_mean < second:      # the runner-up may be "update only"
                second = best_mean
            best_mean = f_mean
            best_var = f_var
            best_f = f
            best_b = f_b
        elif f_mean < second:
            second = f_mean
    return best_mean, best_var, best_f, best_b, second, v0, cur_mean, cur_var


@njit(cache=True)
def _apply_candidate(t, st, node, slot, f, b, v0, is_nominal, n_cats, n_bins, obs, lam, sums,
                     cum, rcum, keep=False):
    """Update the leaf value (f < 0) or split the leaf on feature f (threshold bin b).
    ``keep`` (``resplit``): the split node keeps its statistics slot and goes
    on accumulating (MOA's current SGT)."""
    if f < 0:
        t.value[node, 0] += v0
        st.stats[slot] = 0.0
        st.totals[slot] = 0.0
        st.counts[slot] = 0
        st.meta[M_UPDATES] += 1
        return t, st
    if is_nominal[f]:
        k = n_cats[f]
        deltas = np.zeros(k, np.float64)
        for c in range(k):
            deltas[c] = sgt_leaf_value(st.stats[slot, f, c], lam, sums)
    else:
        k = 2
        cum[:] = 0.0
        for bb in range(b + 1):
            if st.stats[slot, f, bb, N] > 0.0:
                moments_merge(cum, st.stats[slot, f, bb], cum)
        rest = rcum[0]
        rest[:] = 0.0
        for bb in range(n_bins - 1, b, -1):
            if st.stats[slot, f, bb, N] > 0.0:
                moments_merge(rest, st.stats[slot, f, bb], rest)
        deltas = np.zeros(2, np.float64)
        deltas[0] = sgt_leaf_value(cum, lam, sums)
        deltas[1] = sgt_leaf_value(rest, lam, sums)
    t = ensure_capacity(t, k, k if is_nominal[f] else 0)
    st = grow_slot_of(st, t.feature.shape[0])
    first = add_children(t, node, k)
    t.feature[node] = f
    t.missing_child[node] = 0
    t.n_samples[node] = st.counts[slot]
    if is_nominal[f]:
        t.kind[node] = NOMINAL
        slots = np.arange(k)
        add_cat_map(t, node, slots)
    else:
        t.kind[node] = NUMERIC
        if obs == OBS_ADAPTIVE:
            t.threshold[node] = (st.aux[slot, AUX_RANGE + 2 * f]
                                 + (b + 1) * st.aux[slot, AUX_RANGE + 2 * f + 1] / n_bins)
        else:
            t.threshold[node] = b + 0.5
    base = t.value[node, 0]
    ranges = st.aux[slot, AUX_RANGE:].copy()      # the children inherit the ranges
    if not keep:
        release_slot(st, slot)
        st.slot_of[node] = -1
    for j in range(k):
        c = first + j
        t.value[c, 0] = base + deltas[j]
        st, s = take_slot(st)
        st.slot_of[c] = s
        st.aux[s, AUX_RANGE:] = ranges
    st.meta[M_SPLITS] += 1
    return t, st


@njit(cache=True)
def _accumulate(st, slot, x, g, h, is_nominal, n_bins, obs):
    """Add one instance's (g, h) to a node's moments: in total and in the bin
    (category) of every feature that is not missing."""
    moments_update(st.totals[slot], g, h)
    for f in range(is_nominal.shape[0]):
        c = x[f]
        if np.isnan(c):
            continue
        if obs == OBS_ADAPTIVE and not is_nominal[f]:
            j = AUX_RANGE + 2 * f
            lo, w = ar_include(st.stats[slot, f], st.aux[slot, j], st.aux[slot, j + 1], c,
                               n_bins, True)
            st.aux[slot, j] = lo
            st.aux[slot, j + 1] = w
            moments_update(st.stats[slot, f, ar_bin(c, lo, w, n_bins)], g, h)
        else:
            moments_update(st.stats[slot, f, int(c)], g, h)
    st.counts[slot] += 1


@njit(cache=True)
def _observe(t, st, node, x, g, h, is_nominal, n_cats, n_bins, obs, lam, gamma, sums, min_imp,
             grace, K, rule_fn, rule_params, ev, cum, rcum, keep=False, attempt=True):
    """Learn one instance at leaf ``node``; every ``grace`` instances try its
    best candidate.  Returns (t, st, changed): whether the leaf was split."""
    slot = st.slot_of[node]
    _accumulate(st, slot, x, g, h, is_nominal, n_bins, obs)
    if not attempt or st.counts[slot] % grace != 0:
        return t, st, False
    d = is_nominal.shape[0]
    best_mean, best_var, f, b, second, v0, _, _ = _best_candidate(
        st, slot, is_nominal, n_cats, n_bins, lam, gamma, sums, cum, rcum)
    ev[EV_MERIT] = -best_mean
    ev[EV_SECOND] = -second
    ev[EV_N] = st.counts[slot]
    ev[EV_VAR] = best_var
    ev[EV_DEPTH] = t.depth[node]
    ev[EV_T] = st.meta[M_SEEN]
    ev[EV_D] = d
    ev[EV_K] = K
    ev[EV_BRANCHES] = 0.0 if f < 0 else (float(n_cats[f]) if is_nominal[f] else 2.0)
    if rule_fn(ev, rule_params) and -best_mean > min_imp:
        t, st = _apply_candidate(t, st, node, slot, f, b, v0, is_nominal, n_cats, n_bins, obs,
                                 lam, sums, cum, rcum, keep)
        return t, st, f >= 0
    return t, st, False


#: ``kind`` of a node cut off by a re-split (unreachable, no statistics)
DEAD = 3


@njit(cache=True)
def _cut_subtree(t, st, node):
    """Mark every descendant of ``node`` DEAD and free its statistics slot."""
    stack = np.empty(t.sizes[0], np.int64)
    top = 0
    for j in range(t.n_children[node]):
        stack[top] = t.first_child[node] + j
        top += 1
    while top > 0:
        top -= 1
        u = stack[top]
        if t.kind[u] != LEAF:
            for j in range(t.n_children[u]):
                stack[top] = t.first_child[u] + j
                top += 1
        if st.slot_of[u] >= 0:
            release_slot(st, st.slot_of[u])
            st.slot_of[u] = -1
        t.kind[u] = DEAD
        t.parent[u] = -1
        t.depth[u] = 0
        t.n_children[u] = 0
        t.first_child[u] = -1


@njit(cache=True)
def _try_resplit(t, st, node, slot, is_nominal, n_cats, n_bins, obs, lam, gamma, sums, z,
                 cum, rcum):
    """MOA's re-split of an internal node (its current ``StochasticGradientTree``,
    ``trainNode`` / ``findBestSplit``): the best split of the node's statistics
    replaces the current one (and the whole subtree, by fresh leaves) when
    its upper confidence bound mean + z sqrt(var / n) is below the current
    split's lower bound mean - z sqrt(var / n).  Returns (t, st, changed)."""
    cur_f = t.feature[node]
    cur_b = int(t.threshold[node]) if t.kind[node] == NUMERIC else -1
    best_mean, best_var, f, b, _, v0, cur_mean, cur_var = _best_candidate(
        st, slot, is_nominal, n_cats, n_bins, lam, gamma, sums, cum, rcum, True, cur_f, cur_b)
    if f < 0 or (f == cur_f and (b == cur_b or is_nominal[f])):
        return t, st, False
    n = float(st.counts[slot])
    if not best_mean + z * np.sqrt(best_var / n) < cur_mean - z * np.sqrt(cur_var / n):
        return t, st, False
    _cut_subtree(t, st, node)
    t.kind[node] = LEAF
    t, st = _apply_candidate(t, st, node, slot, f, b, v0, is_nominal, n_cats, n_bins, obs, lam,
                             sums, cum, rcum, True)
    return t, st, True


@njit(cache=True)
def _observe_path(t, st, root, j, x, yb, raw, G, H, loss_fn, is_nominal, n_cats, n_bins, obs,
                  lam, gamma, sums, min_imp, grace, K, rule_fn, rule_params, z, ev, cum, rcum):
    """``resplit``: learn one instance at every node of tree ``j``'s path, as
    MOA's current SGT: an internal node's (g, h) are taken at its own value
    (the other trees' raw scores unchanged), so its statistics describe
    re-splitting it; at most one split or re-split per tree and instance."""
    node = root
    changed = False
    leaf_raw = raw[0, j]
    while t.kind[node] != LEAF:
        slot = st.slot_of[node]
        if slot >= 0:
            own = raw[0, j]
            raw[0, j] = t.value[node, 0]
            loss_fn(yb, raw, G, H)
            raw[0, j] = own
            _accumulate(st, slot, x, G[0, j], H[0, j], is_nominal, n_bins, obs)
            if not changed and st.counts[slot] % grace == 0:
                t, st, changed = _try_resplit(t, st, node, slot, is_nominal, n_cats, n_bins,
                                              obs, lam, gamma, sums, z, cum, rcum)
        node = _next_node(t, node, x[t.feature[node]])
    if changed:
        raw[0, j] = t.value[node, 0]          # a new leaf: (g, h) at its own value
    loss_fn(yb, raw, G, H)
    t, st, _ = _observe(t, st, node, x, G[0, j], H[0, j], is_nominal, n_cats, n_bins, obs, lam,
                        gamma, sums, min_imp, grace, K, rule_fn, rule_params, ev, cum, rcum,
                        True, not changed)
    raw[0, j] = leaf_raw         # the later trees see this instance's scores as before
    return t, st


def _learn_py(t, st, roots, Xc, y, bag_offsets, is_nominal, n_cats, n_bins, obs, lam, gamma,
              sums, min_imp, resplit, z, grace, loss_fn, rule_fn, rule_params, start, room):
    """Learn a chunk in place, from row (or bag) ``start`` on.  ``bag_offsets``
    empty: one instance per row with target ``y[i]`` (for several outputs,
    ``loss_fn`` sees all K raw scores).  Otherwise multi-instance bags: rows
    ``bag_offsets[b]:bag_offsets[b+1]`` form bag ``b`` with label ``y[b]``; the
    bag score is the maximum instance score of the single tree and only the
    arg-max instance is learned.  ``sums``: the leaf-value form (module
    docstring); ``min_imp``: a candidate is applied only when its loss change
    per instance is below ``-min_imp`` (MOA's ``minImprovement``; 0: the paper);
    ``resplit``: internal nodes keep learning and may be re-split
    (:func:`_observe_path`, MOA's current SGT) at confidence bound ``z``.

    Returns the index of the first row (bag) not learned: the end, or an
    earlier one when the model lacks ``room`` free nodes / slots (what one
    instance's splits may need), to be resumed after
    :func:`~treelab._engine.streaming.make_room`; -1 if an array was
    reallocated anyway (an internal error)."""
    shape0 = capacities(t, st)
    K = roots.shape[0]
    raw = np.zeros((1, K), np.float64)
    G = np.zeros((1, K), np.float64)
    H = np.zeros((1, K), np.float64)
    yb = np.zeros(1, np.float64)
    leaves = np.zeros(K, np.int64)
    ev = np.zeros(EV_SIZE, np.float64)
    cum = np.zeros(N_MOMENTS, np.float64)
    rcum = np.zeros((max(n_bins, 1), N_MOMENTS), np.float64)
    if bag_offsets.shape[0] == 0:
        for i in range(start, Xc.shape[0]):
            if not has_room(t, st, room, room):
                return i if capacities(t, st) == shape0 else -1
            x = Xc[i]
            for j in range(K):
                leaves[j] = forest_leaf(t, roots[j], x)
                raw[0, j] = t.value[leaves[j], 0]
            yb[0] = y[i]
            loss_fn(yb, raw, G, H)
            st.meta[M_SEEN] += 1
            for j in range(K):
                if resplit:
                    t, st = _observe_path(t, st, roots[j], j, x, yb, raw, G, H, loss_fn,
                                          is_nominal, n_cats, n_bins, obs, lam, gamma, sums,
                                          min_imp, grace, K, rule_fn, rule_params, z, ev, cum,
                                          rcum)
                else:
                    t, st, _ = _observe(t, st, leaves[j], x, G[0, j], H[0, j], is_nominal,
                                        n_cats, n_bins, obs, lam, gamma, sums, min_imp, grace,
                                        K, rule_fn, rule_params, ev, cum, rcum)
    else:
        for bag in range(start, bag_offsets.shape[0] - 1):
            if not has_room(t, st, room, room):
                return bag if capacities(t, st) == shape0 else -1
            lo = bag_offsets[bag]
            hi = bag_offsets[bag + 1]
            best_i = lo
            best_leaf = forest_leaf(t, roots[0], Xc[lo])
            best_s = t.value[best_leaf, 0]
            for i in range(lo + 1, hi):
                lf = forest_leaf(t, roots[0], Xc[i])
                s = t.value[lf, 0]
                if s > best_s:
                    best_s = s
                    best_i = i
                    best_leaf = lf
            raw[0, 0] = best_s
            yb[0] = y[bag]
            loss_fn(yb, raw, G, H)
            st.meta[M_SEEN] += 1
            if resplit:
                t, st = _observe_path(t, st, roots[0], 0, Xc[best_i], yb, raw, G, H, loss_fn,
                                      is_nominal, n_cats, n_bins, obs, lam, gamma, sums, min_imp,
                                      grace, K, rule_fn, rule_params, z, ev, cum, rcum)
            else:
                t, st, _ = _observe(t, st, best_leaf, Xc[best_i], G[0, 0], H[0, 0], is_nominal,
                                    n_cats, n_bins, obs, lam, gamma, sums, min_imp, grace, K,
                                    rule_fn, rule_params, ev, cum, rcum)
    if capacities(t, st) != shape0:
        return -1
    return Xc.shape[0] if bag_offsets.shape[0] == 0 else bag_offsets.shape[0] - 1


_KERNEL = None


def get_learn_kernel():
    """The chunk learner compiled with its explicit signature (cached on disk):
    ``kernel(t, st, ..., start, room) -> next`` (see ``_learn_py``)."""
    global _KERNEL
    if _KERNEL is None:
        from numba import typeof
        from .signatures import GRAD_HESS_TYPE
        t, roots = new_forest(1)
        st = new_state(1, 1, 1, 64)
        T = typeof(t)
        S = typeof(st)
        sig = types.int64(
            T, S, types.int64[::1], types.float64[:, ::1], types.float64[::1],
            types.int64[::1], types.boolean[::1], types.int64[::1], types.int64, types.int64,
            types.float64, types.float64, types.boolean, types.float64, types.boolean,
            types.float64, types.int64, GRAD_HESS_TYPE, RULE_TYPE, types.float64[::1], types.int64, types.int64)
        disp = njit(sig, cache=True)(_learn_py)
        # the compiled entry point skips the dispatcher's per-call type resolution
        # (tens of microseconds with named-tuple arguments: it matters for learn_one);
        # callers pass exactly the signature's types
        _KERNEL = disp.overloads[disp.signatures[0]].entry_point
    return _KERNEL
