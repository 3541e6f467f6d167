"""Streaming part of the engine: equal-width binning fitted on the first
instances of a stream, per-leaf statistics slots, and the evidence vector
handed to split decision rules.

Streaming trees store their splits in *code space*: a numeric feature is
replaced by its bin code (0..n_bins-1, values outside the fitted range are
clipped to the first / last bin), a nominal feature by its category code,
a missing value by NaN.  A numeric split "bins 0..b go left" is the
threshold ``b + 0.5`` on codes, so the engine's one traversal
(:func:`treelab._engine.tree.apply`) serves streaming trees unchanged, and
training and prediction bin values identically.

Per-leaf statistics live in arrays indexed by a *slot*
(:class:`StreamState`): ``slot_of[node]`` is the slot of a leaf (-1 for
internal nodes); when a leaf splits its slot is freed and each child takes a
fresh, zeroed one.  The layout of a slot's per-feature, per-bin statistics
vector depends on the learner: gradient/Hessian moments for SGT
(:mod:`treelab._engine.moments`), class counts for Hoeffding trees.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from .jit import njit
from .tree import ensure_capacity

__all__ = [
    "equal_width_codes", "fit_equal_width_range", "EV_MERIT", "EV_SECOND", "EV_N",
    "EV_VAR", "EV_DEPTH", "EV_T", "EV_D", "EV_K", "EV_BRANCHES", "EV_SECOND_ANY",
    "EV_MAX_BRANCHES", "EV_SIZE",
    "StreamState", "new_state", "take_slot", "release_slot", "grow_slot_of",
    "has_room", "make_room", "capacities", "M_FREE", "M_SEEN", "M_SPLITS", "M_UPDATES",
]

# evidence vector passed to decision rules (RULE_SIG): layout defined in .signatures
from .signatures import (  # noqa: E402
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MAX_BRANCHES, EV_MERIT, EV_N, EV_SECOND,
    EV_SECOND_ANY, EV_SIZE, EV_T, EV_VAR,
)

StreamState = namedtuple("StreamState", [
    "slot_of",   # int64 per node: statistics slot of a leaf, -1 otherwise
    "stats",     # float64 (slots, features, bins, S): per-feature, per-bin statistics
    "totals",    # float64 (slots, S): the leaf's statistics over all its instances
    "counts",    # int64 per slot: instances since the last reset
    "aux",       # float64 (slots, A): per-leaf extras (e.g. naive-Bayes hit counts)
    "free",      # int64 stack of free slots
    "meta",      # int64[4]: n_free, instances seen, splits, leaf updates
])
M_FREE, M_SEEN, M_SPLITS, M_UPDATES = 0, 1, 2, 3


def new_state(n_roots, n_features, n_bins_total, n_stats, capacity_nodes, n_aux=1, slots=None):
    """Statistics for ``n_roots`` root leaves (slot j for root j), zeroed."""
    P = max(8, 2 * n_roots) if slots is None else slots
    slot_of = np.full(capacity_nodes, -1, np.int64)
    slot_of[:n_roots] = np.arange(n_roots)
    free = np.empty(P, np.int64)
    n_free = 0
    for s in range(P - 1, n_roots - 1, -1):
        free[n_free] = s
        n_free += 1
    meta = np.zeros(4, np.int64)
    meta[M_FREE] = n_free
    return StreamState(slot_of, np.zeros((P, n_features, n_bins_total, n_stats)),
                       np.zeros((P, n_stats)), np.zeros(P, np.int64),
                       np.zeros((P, max(n_aux, 1))), free, meta)


@njit(cache=True)
def _grow_pool(st):
    """``st`` with its pool of statistics slots doubled (the new slots free)."""
    P = st.stats.shape[0]
    P2 = 2 * P
    stats = np.zeros((P2,) + st.stats.shape[1:], np.float64)
    stats[:P] = st.stats
    totals = np.zeros((P2, st.totals.shape[1]), np.float64)
    totals[:P] = st.totals
    counts = np.zeros(P2, np.int64)
    counts[:P] = st.counts
    aux = np.zeros((P2, st.aux.shape[1]), np.float64)
    aux[:P] = st.aux
    free = np.empty(P2, np.int64)
    nf = st.meta[M_FREE]
    free[:nf] = st.free[:nf]
    for s in range(P2 - 1, P - 1, -1):
        free[nf] = s
        nf += 1
    st.meta[M_FREE] = nf
    return StreamState(st.slot_of, stats, totals, counts, aux, free, st.meta)


@njit(cache=True)
def take_slot(st):
    """``(st, s)``: a zeroed statistics slot ``s``, the pool doubled when none is free."""
    if st.meta[M_FREE] == 0:
        st = _grow_pool(st)
    st.meta[M_FREE] -= 1
    s = st.free[st.meta[M_FREE]]
    st.stats[s] = 0.0
    st.totals[s] = 0.0
    st.counts[s] = 0
    st.aux[s] = 0.0
    return st, s


@njit(cache=True)
def release_slot(st, s):
    """Return slot ``s`` to the pool."""
    st.free[st.meta[M_FREE]] = s
    st.meta[M_FREE] += 1


@njit(cache=True)
def grow_slot_of(st, cap):
    """``st`` with ``slot_of`` covering ``cap`` nodes."""
    if st.slot_of.shape[0] >= cap:
        return st
    so = np.full(cap, -1, np.int64)
    so[:st.slot_of.shape[0]] = st.slot_of
    return StreamState(so, st.stats, st.totals, st.counts, st.aux, st.free, st.meta)


@njit(cache=True)
def has_room(t, st, nodes, cats):
    """True when ``nodes`` nodes (each with a statistics slot) and ``cats``
    category-map entries can be added to tree ``t`` / state ``st`` without
    reallocating any array.

    The learn kernels mutate the model in place and return only how far they
    got: before each instance they check for the room its splits could need
    and stop when it is missing; the caller then calls :func:`make_room` (a rare
    reallocation) and resumes.  Returning the model's named tuples instead
    would cost tens of microseconds per call (boxing), which dominates
    ``learn_one``."""
    return (t.sizes[0] + nodes <= t.feature.shape[0]
            and t.sizes[1] + cats <= t.cat_map.shape[0]
            and st.meta[M_FREE] >= nodes
            and st.slot_of.shape[0] >= t.feature.shape[0])


@njit(cache=True)
def capacities(t, st):
    """Sizes of the model's arrays; a learn kernel compares them before it returns,
    so that a reallocation it could not hand back (a wrong room bound) is an
    error, never a silently lost update."""
    return (t.feature.shape[0], t.cat_map.shape[0], st.stats.shape[0], st.slot_of.shape[0])


@njit(cache=True)
def make_room(t, st, nodes, cats):
    """``(t, st)`` reallocated (capacities doubled) so that :func:`has_room` holds."""
    t = ensure_capacity(t, nodes, cats)
    st = grow_slot_of(st, t.feature.shape[0])
    while st.meta[M_FREE] < nodes:
        st = _grow_pool(st)
    return t, st


def fit_equal_width_range(X, is_nominal):
    """Per-feature (min, max) of the non-missing values of ``X`` (numeric features only)."""
    d = X.shape[1]
    lo = np.zeros(d)
    hi = np.zeros(d)
    for f in range(d):
        if is_nominal[f]:
            continue
        col = X[:, f]
        col = col[~np.isnan(col)]
        if col.size:
            lo[f], hi[f] = col.min(), col.max()
    return lo, hi


@njit(cache=True, inline="always")
def nominal_code(x, n_cat):
    """Category code ``x`` as a float; NaN unless it is one of ``0 .. n_cat - 1``
    (tested as a float: ``int()`` of a huge value overflows)."""
    return float(int(x)) if (0.0 <= x < n_cat and x == np.floor(x)) else np.nan


@njit(cache=True, inline="always")
def equal_width_code(x, lo, hi, n_bins, nominal, n_cat):
    """Code of one value: its equal-width bin of [lo, hi] (clipped) for a numeric
    feature, its category code for a nominal one, NaN when missing.  One value of
    ``equal_width_codes`` (the streaming learners' ``predict_one`` calls it)."""
    if np.isnan(x):
        return np.nan
    if nominal:
        return nominal_code(x, n_cat)
    w = hi - lo
    if not w > 0.0:
        return 0.0
    if w == np.inf:             # a range wider than the largest float: halved
        v = n_bins * ((0.5 * x - 0.5 * lo) / (0.5 * hi - 0.5 * lo))
    else:
        v = n_bins * ((x - lo) / w)
    if not v >= 0.0:            # clipped as a float: int() of a huge value overflows
        return 0.0
    if v >= n_bins:
        return float(n_bins - 1)
    return float(int(v))


@njit(cache=True, parallel=True)
def _codes_parallel(X, lo, hi, n_bins, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in prange(n):
        for f in range(d):
            out[i, f] = equal_width_code(X[i, f], lo[f], hi[f], n_bins, is_nominal[f], n_cats[f])
    return out


@njit(cache=True)
def _codes_serial(X, lo, hi, n_bins, is_nominal, n_cats):
    n, d = X.shape
    out = np.empty((n, d), np.float64)
    for i in range(n):
        for f in range(d):
            out[i, f] = equal_width_code(X[i, f], lo[f], hi[f], n_bins, is_nominal[f], n_cats[f])
    return out


def equal_width_codes(X, lo, hi, n_bins, is_nominal, n_cats):
    """Codes of ``X``: equal-width bin of [lo, hi] (clipped) for numeric features,
    category code for nominal ones (NaN when the code is not a known category),
    NaN for missing values.  A feature with lo == hi has a single bin 0.
    Threads are used only for large chunks (their start-up costs more than a row)."""
    kern = _codes_parallel if X.shape[0] >= 20_000 else _codes_serial
    return kern(X, lo, hi, n_bins, is_nominal, n_cats)
