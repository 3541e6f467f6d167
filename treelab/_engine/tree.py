"""Flat, growable struct-of-arrays tree storage and the one jitted traversal.

Every treelab tree -- batch (ID3 / C4.5 / CART), streaming (SGT, Hoeffding)
or a node of an ensemble -- is a :class:`TreeArrays` named tuple of NumPy
arrays indexed by node id, in the spirit of scikit-learn's ``Tree``.  Numba
passes the named tuple into kernels by value, so the same arrays are read by
the builders, the streaming learners and :func:`apply`.

Node layout
-----------
* ``kind[i]``: :data:`LEAF`, :data:`NUMERIC` (binary: ``x <= threshold`` goes
  to child slot 0, ``x > threshold`` to slot 1) or :data:`NOMINAL` (multiway
  or subset split on a category code).
* the children of a node are stored contiguously: ``first_child[i] + slot``
  for ``slot`` in ``range(n_children[i])``.
* ``missing_child[i]`` is the slot taken by a missing value (NaN); it is
  learned at fit time.
* nominal nodes map category code ``c`` to a slot through
  ``cat_map[cat_offset[i] + c]`` for ``0 <= c < cat_count[i]``; a code outside
  that range, or mapped to ``-1`` (a category the node never saw during
  training), takes the missing-value slot.  **Documented default: unseen
  categories go where missing values go.**
* ``sizes[0]`` is the number of nodes in use, ``sizes[1]`` the number of
  ``cat_map`` entries in use; arrays may have spare capacity beyond them.
"""
from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
from numba import get_num_threads, prange, types
from numba.extending import overload

from .bits import lowest_set_bit
from .jit import njit
from .specialize import WITH_BITVECTOR, WITH_HEAP, WITH_LOCKSTEP, WITH_WALK, specialized

__all__ = [
    "TreeArrays", "LEAF", "NUMERIC", "NOMINAL",
    "new_tree", "ensure_capacity", "add_children", "trim", "apply", "apply_serial",
    "predict_value", "predict_value_serial", "PARALLEL_MIN_ROWS", "decision_path",
    "node_depths_ok", "extract_subtree", "n_leaves",
    "max_depth", "forest_raw", "forest_raw_serial", "forest_predict", "pack_raw", "concat_trees",
    "forest_sum", "forest_sum_serial", "forest_sum_walk", "forest_sum_walk_serial", "pack_walk",
    "forest_apply", "pack_forest", "pack_binary", "forest_oob_sum", "forest_decision_path",
]

LEAF = 0
NUMERIC = 1
NOMINAL = 2

TreeArrays = namedtuple("TreeArrays", [
    "feature",            # int64: split feature, -1 for a leaf
    "kind",               # int8: LEAF / NUMERIC / NOMINAL
    "threshold",          # float64: numeric threshold (x <= t -> slot 0)
    "first_child",        # int64: id of child slot 0, -1 for a leaf
    "n_children",         # int64
    "missing_child",      # int64: slot for NaN (and unseen categories)
    "cat_offset",         # int64: start of this node's cat_map entries, -1 if none
    "cat_count",          # int64: number of category codes mapped
    "parent",             # int64: -1 for the root
    "depth",              # int64
    "n_samples",          # int64: training samples that reached the node
    "weighted_n_samples", # float64
    "impurity",           # float64
    "value",              # float64 (capacity, n_outputs): prediction at the node
    "cat_map",            # int64: flat category -> slot table
    "sizes",              # int64[2]: node count, cat_map entries used
])


@njit(cache=True, nogil=True)
def new_tree(capacity, n_outputs, cat_capacity):
    """An empty tree with room for ``capacity`` nodes and ``cat_capacity`` category entries."""
    capacity = max(capacity, 1)
    cat_capacity = max(cat_capacity, 1)
    return TreeArrays(
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int8),
        np.zeros(capacity, np.float64),
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int64),
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros((capacity, n_outputs), np.float64),
        np.full(cat_capacity, -1, np.int64),
        np.zeros(2, np.int64),
    )


@njit(cache=True, nogil=True)
def _grow1(a, n, fill):
    # (element loops, not ``out[:m] = a``: an array assigned to a slice compiles
    # numba's shape-mismatch error and its string formatting, seconds of cold start)
    out = np.full(n, fill, a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit(cache=True, nogil=True)
def ensure_capacity(t, extra_nodes, extra_cats):
    """Return ``t``, or a copy with doubled capacity, so that ``extra_nodes``
    nodes and ``extra_cats`` category entries can be added."""
    need_n = t.sizes[0] + extra_nodes
    need_c = t.sizes[1] + extra_cats
    cap = t.feature.shape[0]
    ccap = t.cat_map.shape[0]
    if need_n <= cap and need_c <= ccap:
        return t
    n = cap
    while n < need_n:
        n *= 2
    c = ccap
    while c < need_c:
        c *= 2
    value = np.zeros((n, t.value.shape[1]), np.float64)
    for i in range(cap):
        for s in range(t.value.shape[1]):
            value[i, s] = t.value[i, s]
    return TreeArrays(
        _grow1(t.feature, n, -1), _grow1(t.kind, n, 0), _grow1(t.threshold, n, 0.0),
        _grow1(t.first_child, n, -1), _grow1(t.n_children, n, 0),
        _grow1(t.missing_child, n, 0), _grow1(t.cat_offset, n, -1),
        _grow1(t.cat_count, n, 0), _grow1(t.parent, n, -1), _grow1(t.depth, n, 0),
        _grow1(t.n_samples, n, 0), _grow1(t.weighted_n_samples, n, 0.0),
        _grow1(t.impurity, n, 0.0), value, _grow1(t.cat_map, c, -1), t.sizes,
    )


@njit(cache=True, nogil=True)
def add_root(t):
    """Add the root node (a leaf) to an empty tree; return its id (0)."""
    t.sizes[0] = 1
    t.parent[0] = -1
    t.depth[0] = 0
    return 0


@njit(cache=True, nogil=True)
def add_children(t, node, k):
    """Append ``k`` leaf children of ``node`` (capacity must suffice: see
    :func:`ensure_capacity`); return the id of the first one."""
    first = t.sizes[0]
    for j in range(k):
        c = first + j
        t.feature[c] = -1
        t.kind[c] = LEAF
        t.first_child[c] = -1
        t.n_children[c] = 0
        t.missing_child[c] = 0
        t.cat_offset[c] = -1
        t.cat_count[c] = 0
        t.parent[c] = node
        t.depth[c] = t.depth[node] + 1
    t.sizes[0] = first + k
    t.first_child[node] = first
    t.n_children[node] = k
    return first


@njit(cache=True, nogil=True)
def add_cat_map(t, node, slots):
    """Attach a category -> slot table to ``node`` (capacity must suffice)."""
    off = t.sizes[1]
    for c in range(slots.shape[0]):
        t.cat_map[off + c] = slots[c]
    t.cat_offset[node] = off
    t.cat_count[node] = slots.shape[0]
    t.sizes[1] = off + slots.shape[0]


def trim(t):
    """A copy of ``t`` whose arrays hold exactly the nodes in use (Python side)."""
    n = int(t.sizes[0])
    c = int(t.sizes[1])
    fields = {}
    for name in TreeArrays._fields:
        a = getattr(t, name)
        if name == "cat_map":
            fields[name] = np.ascontiguousarray(a[:max(c, 1)]).copy()
        elif name == "sizes":
            fields[name] = a.copy()
        else:
            fields[name] = np.ascontiguousarray(a[:n]).copy()
    return TreeArrays(**fields)


@njit(cache=True, inline="always", nogil=True)
def _next_node(t, node, x):
    """Child of ``node`` taken by feature value ``x`` (NaN = missing)."""
    if np.isnan(x):
        return t.first_child[node] + t.missing_child[node]
    if t.kind[node] == NUMERIC:
        if x <= t.threshold[node]:
            return t.first_child[node]
        return t.first_child[node] + 1
    code = int(x)
    slot = -1
    if code >= 0 and code < t.cat_count[node] and code == x:
        slot = t.cat_map[t.cat_offset[node] + code]
    if slot < 0:
        slot = t.missing_child[node]
    return t.first_child[node] + slot


@njit(cache=True, inline="always", nogil=True)
def leaf_from(t, root, x):
    """The leaf reached by one row ``x`` from node ``root`` (a forest stores
    several trees in one TreeArrays, each with its own root)."""
    node = root
    while t.kind[node] != LEAF:
        node = _next_node(t, node, x[t.feature[node]])
    return node


@njit(cache=True, inline="always", nogil=True)
def leaf_of(t, x):
    """The leaf reached by one row ``x`` (tree rooted at node 0)."""
    return leaf_from(t, 0, x)


@njit(cache=True, parallel=True, nogil=True)
def apply(t, X):
    """Leaf id for every row of ``X`` (float64, NaN = missing, nominal columns
    hold category codes). Parallel over rows."""
    n = X.shape[0]
    out = np.empty(n, np.int64)
    for i in prange(n):
        out[i] = leaf_of(t, X[i])
    return out


@njit(cache=True, nogil=True)
def apply_serial(t, X):
    """:func:`apply` without threads, for small inputs and streaming kernels."""
    n = X.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = leaf_of(t, X[i])
    return out


@njit(cache=True, nogil=True)
def predict_value_serial(t, X):
    """:func:`predict_value` without threads."""
    n = X.shape[0]
    k = t.value.shape[1]
    out = np.empty((n, k), np.float64)
    for i in range(n):
        node = leaf_of(t, X[i])
        for j in range(k):
            out[i, j] = t.value[node, j]
    return out


#: inputs with fewer rows are traversed without threads (thread start-up costs more)
PARALLEL_MIN_ROWS = 5_000


@njit(cache=True, parallel=True, nogil=True)
def predict_value(t, X):
    """``t.value`` of the leaf reached by every row (n_rows x n_outputs)."""
    n = X.shape[0]
    k = t.value.shape[1]
    out = np.empty((n, k), np.float64)
    for i in prange(n):
        node = leaf_of(t, X[i])
        for j in range(k):
            out[i, j] = t.value[node, j]
    return out


@njit(cache=True, nogil=True)
def decision_path(t, X):
    """Nodes visited by each row, as CSR ``(indptr, indices)``, root first."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        node = 0
        d = 1
        while t.kind[node] != LEAF:
            node = _next_node(t, node, X[i, t.feature[node]])
            d += 1
        indptr[i + 1] = indptr[i] + d
    indices = np.empty(indptr[n], np.int64)
    for i in range(n):
        node = 0
        p = indptr[i]
        indices[p] = 0
        while t.kind[node] != LEAF:
            node = _next_node(t, node, X[i, t.feature[node]])
            p += 1
            indices[p] = node
    return indptr, indices


@njit(cache=True, nogil=True)
def extract_subtree(t, make_leaf):
    """A new tree holding the nodes reachable from the root when every node
    with ``make_leaf[i]`` true is turned into a leaf (pruning).

    Node ids are renumbered breadth-first so that children stay contiguous.
    Returns ``(new_tree, old_id_of_new)``.
    """
    n = t.sizes[0]
    new_id = np.full(n, -1, np.int64)
    old_of_new = np.empty(n, np.int64)
    out = new_tree(n, t.value.shape[1], max(t.sizes[1], 1))
    queue = np.empty(n, np.int64)
    queue[0] = 0
    new_id[0] = 0
    old_of_new[0] = 0
    out.sizes[0] = 1
    head = 0
    tail = 1
    while head < tail:
        old = queue[head]
        head += 1
        nid = new_id[old]
        out.parent[nid] = -1 if old == 0 else new_id[t.parent[old]]
        out.depth[nid] = t.depth[old]
        out.n_samples[nid] = t.n_samples[old]
        out.weighted_n_samples[nid] = t.weighted_n_samples[old]
        out.impurity[nid] = t.impurity[old]
        out.value[nid] = t.value[old]
        if t.kind[old] == LEAF or make_leaf[old]:
            out.kind[nid] = LEAF
            out.feature[nid] = -1
            out.first_child[nid] = -1
            out.n_children[nid] = 0
            continue
        out.kind[nid] = t.kind[old]
        out.feature[nid] = t.feature[old]
        out.threshold[nid] = t.threshold[old]
        out.missing_child[nid] = t.missing_child[old]
        k = t.n_children[old]
        first = out.sizes[0]
        out.first_child[nid] = first
        out.n_children[nid] = k
        out.sizes[0] = first + k
        for j in range(k):
            c = t.first_child[old] + j
            new_id[c] = first + j
            old_of_new[first + j] = c
            queue[tail] = c
            tail += 1
        if t.kind[old] == NOMINAL:
            off = out.sizes[1]
            cc = t.cat_count[old]
            for c in range(cc):
                out.cat_map[off + c] = t.cat_map[t.cat_offset[old] + c]
            out.cat_offset[nid] = off
            out.cat_count[nid] = cc
            out.sizes[1] = off + cc
    return out, old_of_new[:out.sizes[0]].copy()


@njit(cache=True, nogil=True)
def n_leaves(t):
    c = 0
    for i in range(t.sizes[0]):
        if t.kind[i] == LEAF:
            c += 1
    return c


@njit(cache=True, nogil=True)
def max_depth(t):
    d = 0
    for i in range(t.sizes[0]):
        if t.depth[i] > d:
            d = t.depth[i]
    return d


def node_depths_ok(t):
    """Consistency check used by tests: children point back to their parent."""
    for i in range(int(t.sizes[0])):
        if t.kind[i] != LEAF:
            for j in range(int(t.n_children[i])):
                c = t.first_child[i] + j
                if t.parent[c] != i or t.depth[c] != t.depth[i] + 1:
                    return False
    return True


# ------------------------------------------------------------------ forests
@njit(cache=True, nogil=True)
def pack_forest(t):
    """A compact copy of the nodes in use for traversal: ``nodes[i]`` = (feature,
    first child, the node a missing value goes to, kind) as int32 and ``thr[i]`` =
    the threshold, or for a leaf its ``value[i, 0]``: one 16-byte record and one
    float per node instead of five arrays (built per call: O(nodes), far below
    the traversal of the rows)."""
    n = t.sizes[0]
    nodes = np.empty((n, 4), np.int32)
    thr = np.empty(n, np.float64)
    for i in range(n):
        k = t.kind[i]
        nodes[i, 3] = k
        if k == LEAF:
            nodes[i, 0] = -1
            nodes[i, 1] = -1
            nodes[i, 2] = -1
            thr[i] = t.value[i, 0]
        else:
            nodes[i, 0] = t.feature[i]
            nodes[i, 1] = t.first_child[i]
            nodes[i, 2] = t.first_child[i] + t.missing_child[i]
            thr[i] = t.threshold[i]
    return nodes, thr


@njit(cache=True, inline="always", nogil=True)
def _packed_leaf(t, nodes, thr, root, X, i):
    """:func:`leaf_from` of row ``X[i]`` on the packed layout (nominal nodes through
    :func:`_next_node`): the same leaf."""
    node = root
    while True:
        f = nodes[node, 0]
        if f < 0:
            return node
        v = X[i, f]
        if np.isnan(v):
            node = nodes[node, 2]
        elif nodes[node, 3] == NUMERIC:
            if v <= thr[node]:
                node = nodes[node, 1]
            else:
                node = nodes[node, 1] + 1
        else:
            node = _next_node(t, node, v)


#: rows traversed together through one tree by the forest kernels (a tree's top
#: levels stay in cache while a block of rows walks it)
_ROW_BLOCK = 64


@njit(cache=True, inline="always", nogil=True)
def _forest_raw_block(t, nodes, thr, roots, root_col, X, lo, hi, out):
    # every out[i, c] receives its trees' values in tree order (as a row-by-row walk)
    for j in range(roots.shape[0]):
        r = roots[j]
        c = root_col[j]
        for i in range(lo, hi):
            out[i, c] += thr[_packed_leaf(t, nodes, thr, r, X, i)]


#: a packed node's ``featm``: the feature in the low 30 bits, bit 30 set when a
#: missing value goes right (:func:`_pack_lockstep`, :func:`_pack_heap`)
_FEAT_BITS = 30
_FEAT_MASK = (1 << _FEAT_BITS) - 1

#: the complete-heap layout (:func:`_pack_heap`) is taken while a forest's trees
#: are at most this deep and their heaps hold at most ``_HEAP_MAX_BLOWUP`` times
#: the forest's nodes (depth-wise boosted trees; not deep leaf-wise ones)
_HEAP_MAX_DEPTH = 20
_HEAP_MAX_BLOWUP = 8


@njit(cache=True, nogil=True)
def _pack_lockstep(t, roots):
    """The forest for :func:`_forest_raw_lockstep`, or ``ok = False`` when a node
    is not a binary numeric split (nominal nodes take the general walk).  Per
    node: ``featm`` (the feature, bit 30 set when a missing value goes to the
    right child) and ``left`` (first child) as int32, ``thr`` and the leaf value
    ``val``; a leaf points to itself (``thr`` = +inf, missing left), so a row
    that reached it stays there.  ``depth[j]``: the longest root-to-leaf path of
    tree ``j`` (found by walking its nodes)."""
    n = t.sizes[0]
    ok, feat, left, miss, thr = pack_binary(t)
    val = np.zeros(n, np.float64)
    depth = np.zeros(roots.shape[0], np.int64)
    if not ok:
        return False, feat, left, thr, val, depth
    for i in range(n):
        mb = miss[i] - left[i]
        if mb < 0 or mb > 1 or feat[i] > _FEAT_MASK:
            return False, feat, left, thr, val, depth
        feat[i] |= np.int32(mb << _FEAT_BITS)
        if t.kind[i] == LEAF:
            val[i] = t.value[i, 0]
    stack = np.empty(64, np.int64)
    sdep = np.empty(64, np.int64)
    for j in range(roots.shape[0]):
        top = 1
        stack[0] = roots[j]
        sdep[0] = 0
        while top > 0:
            top -= 1
            node = stack[top]
            dn = sdep[top]
            if t.kind[node] == LEAF:
                if dn > depth[j]:
                    depth[j] = dn
                continue
            if top + 2 > stack.shape[0]:
                s2 = np.empty(2 * stack.shape[0], np.int64)
                d2 = np.empty(2 * stack.shape[0], np.int64)
                s2[:top] = stack[:top]
                d2[:top] = sdep[:top]
                stack = s2
                sdep = d2
            for c in range(2):
                stack[top] = t.first_child[node] + c
                sdep[top] = dn + 1
                top += 1
    return True, feat, left, thr, val, depth


@njit(cache=True, nogil=True)
def _heap_fits(depth, n_nodes):
    """Whether :func:`_pack_heap`'s layout is taken for trees of these depths."""
    slots = 0
    for j in range(depth.shape[0]):
        if depth[j] > _HEAP_MAX_DEPTH:
            return False
        slots += 1 << (depth[j] + 1)
    return slots <= _HEAP_MAX_BLOWUP * max(n_nodes, 1)


@njit(cache=True, nogil=True)
def _pack_heap(t, roots, depth, featm_flat, thr_flat):
    """Each tree ``j`` as a complete binary heap of ``depth[j]`` levels (the array
    layout of XGBoost's predictor): slot ``h``'s children are ``2h + 1`` and
    ``2h + 2``, so a step needs no child pointer.  Internal slots of tree ``j``
    are ``hf[ioff[j]:ioff[j + 1]]`` / ``ht[...]`` (``featm`` as in
    :func:`_pack_lockstep`); below a leaf of the tree the slots send every row
    left (``thr`` = +inf) and every heap leaf under it holds its value
    (``hv[loff[j]:loff[j + 1]]``).  ``featm_flat`` / ``thr_flat``: the flat
    packing's arrays (missing-value bits already set)."""
    T = roots.shape[0]
    ioff = np.zeros(T + 1, np.int64)
    loff = np.zeros(T + 1, np.int64)
    for j in range(T):
        ioff[j + 1] = ioff[j] + (1 << depth[j]) - 1
        loff[j + 1] = loff[j] + (1 << depth[j])
    hf = np.zeros(ioff[T], np.int32)
    ht = np.full(ioff[T], np.inf)
    hv = np.zeros(loff[T], np.float64)
    sn = np.empty(_HEAP_MAX_DEPTH + 2, np.int64)
    sh = np.empty(_HEAP_MAX_DEPTH + 2, np.int64)
    sl = np.empty(_HEAP_MAX_DEPTH + 2, np.int64)
    for j in range(T):
        d = depth[j]
        top = 1
        sn[0] = roots[j]
        sh[0] = 0
        sl[0] = 0
        while top > 0:
            top -= 1
            node = sn[top]
            h = sh[top]
            lv = sl[top]
            if t.kind[node] == LEAF:
                k = d - lv
                first = ((h + 1) << k) - 1 - ((1 << d) - 1)
                for q in range(1 << k):
                    hv[loff[j] + first + q] = t.value[node, 0]
                continue
            hf[ioff[j] + h] = featm_flat[node]
            ht[ioff[j] + h] = thr_flat[node]
            for c in range(2):
                sn[top] = t.first_child[node] + c
                sh[top] = 2 * h + 1 + c
                sl[top] = lv + 1
                top += 1
    return hf, ht, hv, ioff, loff


@njit(cache=True, nogil=True, inline="always")
def _goes_right(featm, thr, Xb, q, node):
    """1 when row ``q`` of ``Xb`` goes to ``node``'s second child: ``x > thr``, or
    for a NaN the missing-value bit of ``featm`` (no branch)."""
    fm = featm[node]
    v = Xb[q, fm & _FEAT_MASK]
    return np.int64(v > thr[node]) | (np.int64(v != v) & np.int64(fm >> _FEAT_BITS))


@njit(cache=True, nogil=True, inline="always")
def _goes_right_number(featm, thr, Xb, q, node):
    """:func:`_goes_right` for a row without NaN: ``x > thr`` (no NaN test, no
    missing-value bit: a quarter of the step's work)."""
    return np.int64(Xb[q, featm[node] & _FEAT_MASK] > thr[node])


@njit(cache=True, nogil=True)
def _used_features(featm):
    """The features the packed nodes ``featm`` split on, in increasing order (a
    leaf's ``featm`` is 0, so feature 0 is listed for a forest with a leaf)."""
    top = 0
    for i in range(featm.shape[0]):
        top = max(top, featm[i] & _FEAT_MASK)
    mark = np.zeros(top + 1, np.bool_)
    for i in range(featm.shape[0]):
        mark[featm[i] & _FEAT_MASK] = True
    return np.flatnonzero(mark).astype(np.int64)


@njit(cache=True, nogil=True, inline="always")
def _rows_number_only(Xb, m, used):
    """Whether the rows ``Xb[:m]`` hold no NaN in the features ``used``."""
    bad = False
    for q in range(m):
        for k in range(used.shape[0]):
            v = Xb[q, used[k]]
            bad |= v != v
    return not bad


@njit(cache=True, nogil=True, inline="always")
def _lockstep_heap(featm, thr, Xb, cur, m, levels, number_only):
    """``levels`` steps of the rows ``Xb[:m]`` from the nodes ``cur[:m]`` of a
    complete-heap tree (:func:`_pack_heap`: ``featm`` / ``thr`` per slot): the
    child is ``2 node + 1 + right`` with ``right`` from :func:`_goes_right`.  No
    branch in the row loops: they compile to vector gathers.  ``number_only``:
    no row of the block has a NaN in a feature the forest splits on
    (:func:`_rows_number_only`), so the step is :func:`_goes_right_number` (the
    same child; the loop does a quarter less work: 31 -> 23 ms for 40,000 rows
    through 100 depth-6 trees on one thread)."""
    if number_only:
        for _ in range(levels):
            for q in range(m):
                node = cur[q]
                cur[q] = 2 * node + 1 + _goes_right_number(featm, thr, Xb, q, node)
    else:
        for _ in range(levels):
            for q in range(m):
                node = cur[q]
                cur[q] = 2 * node + 1 + _goes_right(featm, thr, Xb, q, node)


@njit(cache=True, nogil=True, inline="always")
def _lockstep_words(word, thr, Xb, cur, m, levels, number_only):
    """:func:`_lockstep_heap` on the flat layout: the child is ``first child +
    right``, read off the node's one int64 ``word`` (the first half of a
    :func:`pack_walk` record: feature and missing-value bit low, first child
    high)."""
    if number_only:
        for _ in range(levels):
            for q in range(m):
                node = cur[q]
                e = word[node]
                cur[q] = (e >> 32) + np.int64(Xb[q, e & _FEAT_MASK] > thr[node])
    else:
        for _ in range(levels):
            for q in range(m):
                node = cur[q]
                e = word[node]
                v = Xb[q, e & _FEAT_MASK]
                cur[q] = (e >> 32) + (np.int64(v > thr[node]) |
                                      (np.int64(v != v) & ((e >> _FEAT_BITS) & 1)))


@njit(cache=True, nogil=True)
def _forest_raw_heap(hf, ht, hv, ioff, loff, depth, used, root_col, X, lo, hi, out):
    """:func:`_forest_raw_lockstep` on :func:`_pack_heap`'s layout: the child is
    ``2h + 1 + right`` with ``right = x > thr``, or the node's missing-value bit
    for a NaN, computed without a branch or a child pointer (the row loop of a
    level compiles to vector gathers).  The same leaves and the same sums in tree
    order."""
    cur = np.empty(_ROW_BLOCK, np.int64)
    for b0 in range(lo, hi, _ROW_BLOCK):
        m = min(hi, b0 + _ROW_BLOCK) - b0
        Xb = X[b0:b0 + m]
        number_only = _rows_number_only(Xb, m, used)
        for j in range(depth.shape[0]):
            fj = hf[ioff[j]:ioff[j + 1]]
            tj = ht[ioff[j]:ioff[j + 1]]
            for q in range(m):
                cur[q] = 0
            _lockstep_heap(fj, tj, Xb, cur, m, depth[j], number_only)
            vj = hv[loff[j]:loff[j + 1]]
            first = ioff[j + 1] - ioff[j]
            c = root_col[j]
            for q in range(m):
                out[b0 + q, c] += vj[cur[q] - first]


@njit(cache=True, nogil=True)
def _forest_raw_lockstep(word, thr, val, depth, used, roots, root_col, X, lo, hi, out):
    """The rows ``lo .. hi - 1`` in blocks of :data:`_ROW_BLOCK`, each block through
    every tree in lockstep: one level of the tree at a time for the whole block,
    ``depth[j]`` levels (rows already at a leaf stay there).  No data-dependent
    branch (the child is ``left + right``, ``right = x > thr`` or, for a NaN,
    the node's missing-value bit; both read off the node's ``word``, as in
    :func:`pack_walk`'s records) and the rows of a level are independent, so
    their memory accesses overlap (XGBoost-style blocked prediction).  Same
    leaves as :func:`_packed_leaf` (``x > thr`` is ``not x <= thr`` for a number)
    and the same sums, in tree order."""
    cur = np.empty(_ROW_BLOCK, np.int64)
    for b0 in range(lo, hi, _ROW_BLOCK):
        m = min(hi, b0 + _ROW_BLOCK) - b0
        Xb = X[b0:b0 + m]
        number_only = _rows_number_only(Xb, m, used)
        for j in range(roots.shape[0]):
            r = roots[j]
            c = root_col[j]
            for q in range(m):
                cur[q] = r
            _lockstep_words(word, thr, Xb, cur, m, depth[j], number_only)
            for q in range(m):
                out[b0 + q, c] += val[cur[q]]


#: the bitvector layout (:func:`_pack_bitvector`) holds trees of at most this
#: many leaves: one bit per leaf in a uint64
_BITVECTOR_MAX_LEAVES = 64


@njit(cache=True, nogil=True)
def _preorder(t, root, out):
    """The nodes of the tree under ``root`` in preorder, left child first (so its
    leaves come left to right, and every node before its subtree), into ``out``
    (grown when full).  Returns ``(out, count)``."""
    stack = np.empty(64, np.int64)
    stack[0] = root
    top = 1
    k = 0
    while top > 0:
        top -= 1
        node = stack[top]
        if k == out.shape[0]:
            o2 = np.empty(2 * max(k, 1), np.int64)
            o2[:k] = out[:k]
            out = o2
        out[k] = node
        k += 1
        if t.kind[node] == LEAF:
            continue
        if top + 2 > stack.shape[0]:
            s2 = np.empty(2 * stack.shape[0], np.int64)
            s2[:top] = stack[:top]
            stack = s2
        stack[top] = t.first_child[node] + 1
        stack[top + 1] = t.first_child[node]
        top += 2
    return out, k


@njit(cache=True, nogil=True)
def _pack_bitvector(t, roots, featm_flat, thr_flat, used):
    """The forest for :func:`_forest_raw_bitvector` (QuickScorer, Lucchese et al.,
    SIGIR 2015), or ``ok = False`` when a tree has more than
    :data:`_BITVECTOR_MAX_LEAVES` leaves.  The leaves of tree ``j`` are numbered
    left to right (in order) and their values stored in that order,
    ``bv[loff[j]:loff[j + 1]]``; its internal nodes, ``ioff[j]:ioff[j + 1]`` in
    preorder, hold ``bf`` (the position of the node's feature in ``used``, bit
    30 set when a missing value goes right, as ``featm``), the threshold ``bt``
    and ``bm``: every bit set but those of the leaves of the node's left subtree,
    the leaves a row going right can no longer reach.  ``featm_flat`` /
    ``thr_flat``: the flat packing's arrays; ``used``: :func:`_used_features` of
    ``featm_flat``."""
    T = roots.shape[0]
    ioff = np.zeros(T + 1, np.int64)
    loff = np.zeros(T + 1, np.int64)
    pos = np.zeros(used[-1] + 1 if used.shape[0] > 0 else 1, np.int32)
    for k in range(used.shape[0]):
        pos[used[k]] = k
    nodes = np.empty(128, np.int64)
    ok = True
    for j in range(T):                      # leaves and internal nodes per tree
        nodes, k = _preorder(t, roots[j], nodes)
        nl = 0
        for q in range(k):
            nl += t.kind[nodes[q]] == LEAF
        if nl > _BITVECTOR_MAX_LEAVES:
            ok = False
        ioff[j + 1] = ioff[j] + k - nl
        loff[j + 1] = loff[j] + nl
    if not ok:
        return (False, np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.uint64),
                np.zeros(0), ioff, loff)
    bf = np.empty(ioff[T], np.int32)
    bt = np.empty(ioff[T], np.float64)
    bm = np.empty(ioff[T], np.uint64)
    bv = np.empty(loff[T], np.float64)
    first_leaf = np.zeros(t.sizes[0], np.int64)     # a subtree's leaves: first .. end - 1
    end_leaf = np.zeros(t.sizes[0], np.int64)
    for j in range(T):
        nodes, k = _preorder(t, roots[j], nodes)
        nl = 0
        for q in range(k):
            node = nodes[q]
            if t.kind[node] == LEAF:
                bv[loff[j] + nl] = t.value[node, 0]
                first_leaf[node] = nl
                end_leaf[node] = nl + 1
                nl += 1
        for q in range(k - 1, -1, -1):      # children before their parent
            node = nodes[q]
            if t.kind[node] != LEAF:
                c = t.first_child[node]
                first_leaf[node] = first_leaf[c]
                end_leaf[node] = end_leaf[c + 1]
        i = ioff[j]
        for q in range(k):
            node = nodes[q]
            if t.kind[node] == LEAF:
                continue
            c = t.first_child[node]
            span = end_leaf[c] - first_leaf[c]      # 1 .. 63 leaves on the left
            left_bits = ((np.uint64(1) << np.uint64(span)) - np.uint64(1)) \
                << np.uint64(first_leaf[c])
            fm = featm_flat[node]
            bf[i] = pos[fm & _FEAT_MASK] | (fm & ~np.int32(_FEAT_MASK))
            bt[i] = thr_flat[node]
            bm[i] = ~left_bits
            i += 1
    return True, bf, bt, bm, bv, ioff, loff


@njit(cache=True, nogil=True)
def _forest_raw_bitvector(bf, bt, bm, bv, ioff, loff, used, root_col, X, lo, hi, out):
    """QuickScorer's traversal (Lucchese et al., SIGIR 2015) on
    :func:`_pack_bitvector`'s layout: per block of :data:`_ROW_BLOCK` rows (the
    features ``used`` copied column by column, ``XT``), every tree starts with all
    of its leaves possible (``bits`` = all ones a row) and each internal node
    clears its left subtree's leaves from the rows going right: ``bits &= bm`` when
    ``x > thr`` (or, for a NaN, when the node's missing-value bit is set).  The
    row's exit leaf is the lowest bit left (leaves in order: the leftmost leaf not
    ruled out is the one the walk reaches).  The nodes are visited in any order,
    with no branch and no dependence between rows, so the row loop is a vector
    compare-and-mask (lossguide trees of 31 leaves, 40,000 rows x 100 trees, one
    thread: 73 ms on the flat lockstep layout, 20 ms here).  The same leaves and
    the same sums in tree order as :func:`_packed_leaf`."""
    nu = used.shape[0]
    XT = np.zeros((nu, _ROW_BLOCK), np.float64)
    bits = np.empty(_ROW_BLOCK, np.uint64)
    every = ~np.uint64(0)
    for b0 in range(lo, hi, _ROW_BLOCK):
        m = min(hi, b0 + _ROW_BLOCK) - b0
        bad = False
        for q in range(m):
            for k in range(nu):
                v = X[b0 + q, used[k]]
                XT[k, q] = v
                bad |= v != v
        for k in range(nu):             # a tail block's unused rows: numbers
            for q in range(m, _ROW_BLOCK):
                XT[k, q] = 0.0
        for j in range(ioff.shape[0] - 1):
            for q in range(_ROW_BLOCK):
                bits[q] = every
            if bad:
                for k in range(ioff[j], ioff[j + 1]):
                    fm = bf[k]
                    col = XT[fm & _FEAT_MASK]
                    tk = bt[k]
                    mk = bm[k]
                    mr = (fm >> _FEAT_BITS) & 1
                    for q in range(_ROW_BLOCK):
                        v = col[q]
                        bits[q] &= mk if (v > tk) | ((v != v) & (mr == 1)) else every
            else:
                for k in range(ioff[j], ioff[j + 1]):
                    col = XT[bf[k] & _FEAT_MASK]
                    tk = bt[k]
                    mk = bm[k]
                    for q in range(_ROW_BLOCK):
                        bits[q] &= mk if col[q] > tk else every
            vj = bv[loff[j]:loff[j + 1]]
            c = root_col[j]
            for q in range(m):
                out[b0 + q, c] += vj[lowest_set_bit(bits[q])]


#: rows per task of the parallel lockstep traversal (16 blocks)
_ROW_CHUNK = 16 * _ROW_BLOCK


@njit(cache=True, nogil=True)
def _forest_raw_chunk(layout, flat, heap, bitv, roots, root_col, X, lo, hi, out):
    # (each layout behind its flag: a copy for one layout compiles its walker only)
    if WITH_BITVECTOR and layout == 3:
        _, bf, bt, bm, bv, ioff, loff = bitv
        _forest_raw_bitvector(bf, bt, bm, bv, ioff, loff, flat[5], root_col, X, lo, hi, out)
    elif WITH_HEAP and layout == 2:
        hf, ht, hv, ioff, loff = heap
        _forest_raw_heap(hf, ht, hv, ioff, loff, flat[4], flat[5], root_col, X, lo, hi, out)
    elif WITH_LOCKSTEP and layout == 1:
        _, word, thr, val, depth, used = flat
        _forest_raw_lockstep(word, thr, val, depth, used, roots, root_col, X, lo, hi, out)


#: :func:`_pack_raw` walks complete heaps rather than bitvectors when the trees
#: have more split nodes than this many times their depths (both summed over the
#: trees).  Measured (AMD EPYC, two threads, 100 boosted trees, 40,000 x 20
#: rows): bitvectors 2.7 / 4.0 / 7.1 / 13.1 ms at depths 3-6 (7, 15, 31, 63
#: split nodes a tree), heaps 6.6 / 8.1 / 10.0 / 11.4 ms; 1,000 MNIST trees of
#: depth 6 (46 split nodes a tree), 2,000 rows: 8.1 ms against 6.5 ms
_HEAP_NODES_PER_LEVEL = 7


_NO_BITVECTORS = (False, np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.uint64), np.zeros(0),
                  np.zeros(1, np.int64), np.zeros(1, np.int64))
_NO_HEAPS = (np.zeros(0, np.int32), np.zeros(0), np.zeros(0), np.zeros(1, np.int64),
             np.zeros(1, np.int64))


def _pack_raw(t, roots, bitvector=True):
    """The layout :func:`forest_raw` walks: 3 bitvectors (:func:`_pack_bitvector`,
    every tree of at most 64 leaves, unless the heaps fit and the trees have more
    than :data:`_HEAP_NODES_PER_LEVEL` split nodes a level; ``bitvector = False``:
    not taken), 2 complete heaps (:func:`_pack_heap`, when :func:`_heap_fits`), 1
    flat lockstep (:func:`_pack_lockstep`, the nodes read as :func:`pack_walk`'s
    node words: one gather a step instead of a feature and a child array), 0 the
    general walk (a nominal node).  Returns ``(layout, flat, heap, bitv)``;
    ``flat`` = ``(featm, words, thr, val, depth, used features)``.  Python picks
    the packers, so a forest compiles those of its layout only."""
    ok, featm, left, thr, val, depth = _pack_lockstep(t, roots)
    used = _used_features(featm)
    layout = 0
    bitv = _NO_BITVECTORS
    if ok:
        layout = 2 if _heap_fits(depth, t.sizes[0]) else 1
        if bitvector:
            bitv = _pack_bitvector(t, roots, featm, thr, used)
            # the bitvectors test every split node of a tree, the heaps one node a
            # level: the heaps where the trees hold more than _HEAP_NODES_PER_LEVEL
            # split nodes a level of depth (full depth-6 trees)
            n_split = bitv[5][-1]           # (ioff: the trees' split nodes)
            if bitv[0] and not (layout == 2 and
                                n_split > _HEAP_NODES_PER_LEVEL * depth.sum()):
                layout = 3
    heap = _pack_heap(t, roots, depth, featm, thr) if layout == 2 else _NO_HEAPS
    # (the same checks as _pack_lockstep's: its forests are pack_walk's)
    word = pack_walk(t)[1][:, 0].copy() if layout == 1 else np.zeros(0, np.int64)
    return layout, (featm, word, thr, val, depth, used), heap, bitv


def pack_raw(t, roots):
    """The walking layout of the forest (``t``, ``roots``) that :func:`forest_raw`
    builds on every call (:func:`_pack_raw`), for a caller that predicts with the
    same forest many times: pass it as ``packed`` to :func:`forest_predict`."""
    return _pack_raw(t, np.ascontiguousarray(roots, dtype=np.int64))


#: the layout flags of each layout's traversal copies (:func:`_raw_kernel`)
_LAYOUT_FLAGS = {
    0: dict(WITH_BITVECTOR=False, WITH_HEAP=False, WITH_LOCKSTEP=False),
    1: dict(WITH_BITVECTOR=False, WITH_HEAP=False, WITH_WALK=False),
    2: dict(WITH_BITVECTOR=False, WITH_LOCKSTEP=False, WITH_WALK=False),
    3: dict(WITH_HEAP=False, WITH_LOCKSTEP=False, WITH_WALK=False),
}


def _raw_kernel(packed, parallel):
    """The traversal of ``packed``'s layout (:func:`_forest_raw_packed` or, not
    ``parallel``, :func:`_forest_raw_serial_packed`) compiled for that layout only."""
    # (specialized builds each copy once)
    return specialized(_forest_raw_packed if parallel else _forest_raw_serial_packed,
                       **_LAYOUT_FLAGS[int(packed[0])])


@njit(cache=True, nogil=True)
def _forest_raw_serial_packed(t, packed, roots, root_col, X, n_cols):
    n = X.shape[0]
    out = np.zeros((n, n_cols), np.float64)
    layout, flat, heap, bitv = packed
    if layout > 0:
        _forest_raw_chunk(layout, flat, heap, bitv, roots, root_col, X, 0, n, out)
        return out
    if WITH_WALK:
        nodes, thr = pack_forest(t)
        _forest_raw_block(t, nodes, thr, roots, root_col, X, 0, n, out)
    return out


def forest_raw_serial(t, roots, root_col, X, n_cols):
    """:func:`forest_raw` without threads."""
    packed = _pack_raw(t, roots)
    return _raw_kernel(packed, False)(t, packed, roots, root_col, X, n_cols)


@njit(cache=True, parallel=True, nogil=True)
def _forest_raw_packed(t, packed, roots, root_col, X, n_cols, n_threads):
    n = X.shape[0]
    out = np.zeros((n, n_cols), np.float64)
    layout, flat, heap, bitv = packed
    if layout > 0:
        # chunks of _ROW_CHUNK rows, smaller when there are too few for two a
        # thread (a few thousand rows through a large forest)
        size = _ROW_CHUNK
        if n_threads > 0:
            size = min(size, max(_ROW_BLOCK // 4, -(-n // (2 * n_threads))))
        nc = (n + size - 1) // size
        for b in prange(nc):
            lo = b * size
            _forest_raw_chunk(layout, flat, heap, bitv, roots, root_col, X, lo,
                              min(n, lo + size), out)
        return out
    if WITH_WALK:
        nodes, pthr = pack_forest(t)
        nb = (n + _ROW_BLOCK - 1) // _ROW_BLOCK
        for b in prange(nb):
            lo = b * _ROW_BLOCK
            _forest_raw_block(t, nodes, pthr, roots, root_col, X, lo, min(n, lo + _ROW_BLOCK),
                              out)
    return out


def forest_raw(t, roots, root_col, X, n_cols, n_threads=0):
    """Raw scores of a forest stored in one :class:`TreeArrays` with several roots:
    ``out[i, root_col[j]] += value[leaf of row i in tree j, 0]`` for every tree
    ``j`` (trees in order), ``n_cols`` output columns.  One call predicts a whole
    ensemble (boosting: trees summed per class; SGT: one tree per column).
    Parallel over chunks of rows; binary numeric trees are walked for a whole
    block of rows at once: as bitvectors when no tree has more than 64 leaves
    (:func:`_forest_raw_bitvector`, QuickScorer: boosted trees of 31 leaves) and
    the trees are not both shallow and full (those -- depth 6 -- and deeper ones
    level by level as complete heaps when they are shallow enough,
    :func:`_forest_raw_heap`; see :func:`_pack_raw`) or on the flat node layout
    (:func:`_forest_raw_lockstep`); others one tree at a time on the packed node
    layout (:func:`pack_forest`).  ``n_threads`` (0: not given):
    the threads the chunks are for (fewer rows than two full chunks a thread
    are cut into smaller ones).  The same sums whatever the chunks."""
    packed = _pack_raw(t, roots)
    return _raw_kernel(packed, True)(t, packed, roots, root_col, X, n_cols, n_threads)


#: a forest of this many (rows x trees) is traversed on threads even with fewer
#: than :data:`PARALLEL_MIN_ROWS` rows (2,000 MNIST rows through 1,000 boosted
#: trees: 31 ms on one thread, 15 on two)
PARALLEL_MIN_FOREST_WORK = 200_000


def forest_predict(t, roots, root_col, X, n_cols, packed=None):
    """:func:`forest_raw`, without threads on small inputs (fewer than
    :data:`PARALLEL_MIN_ROWS` rows and :data:`PARALLEL_MIN_FOREST_WORK` rows x
    trees).  ``packed``: :func:`pack_raw` of ``(t, roots)``, kept by a caller
    that predicts with the same forest again (packing 1,000 boosted trees costs
    about 2 ms a call); the same result."""
    roots = np.ascontiguousarray(roots, dtype=np.int64)
    root_col = np.ascontiguousarray(root_col, dtype=np.int64)
    if packed is None:
        packed = pack_raw(t, roots)
    if (X.shape[0] < PARALLEL_MIN_ROWS
            and X.shape[0] * roots.shape[0] < PARALLEL_MIN_FOREST_WORK):
        return _raw_kernel(packed, False)(t, packed, roots, root_col, X, int(n_cols))
    return _raw_kernel(packed, True)(t, packed, roots, root_col, X, int(n_cols),
                                     get_num_threads())


@njit(cache=True, inline="always", nogil=True)
def _forest_sum_block(t, nodes, thr, roots, root_weight, X, lo, hi, out):
    K = t.value.shape[1]
    for j in range(roots.shape[0]):
        r = roots[j]
        wj = root_weight[j]
        for i in range(lo, hi):
            leaf = _packed_leaf(t, nodes, thr, r, X, i)
            for k in range(K):
                out[i, k] += wj * t.value[leaf, k]


@njit(cache=True, nogil=True)
def pack_binary(t):
    """The node arrays :func:`_pack_lockstep` builds on, or ``ok = False`` when a
    node is nominal (those forests take :func:`pack_forest`'s walk).  Per node:
    ``feat`` / ``left`` (first child) / ``miss`` (the node a NaN goes to) as
    int32 and ``thr``; a leaf points to itself with ``thr`` = +inf, so a row
    that reached it stays there.  Reads only ``kind``, ``feature``,
    ``first_child``, ``missing_child`` and ``threshold`` (a compacted forest has
    no ``n_children``; a numeric node is binary)."""
    n = t.sizes[0]
    feat = np.zeros(n, np.int32)
    left = np.empty(n, np.int32)
    miss = np.empty(n, np.int32)
    thr = np.empty(n, np.float64)
    for i in range(n):
        k = t.kind[i]
        if k == LEAF:
            left[i] = i
            miss[i] = i
            thr[i] = np.inf
        elif k == NUMERIC:
            feat[i] = t.feature[i]
            left[i] = t.first_child[i]
            miss[i] = t.first_child[i] + t.missing_child[i]
            thr[i] = t.threshold[i]
        else:
            return False, feat, left, miss, thr
    return True, feat, left, miss, thr


@njit(cache=True, nogil=True)
def pack_walk(t):
    """The forest for :func:`_forest_sum_records`, or ``ok = False`` when a node is
    not a binary numeric split (nominal nodes: :func:`pack_forest`'s walk).  One
    16-byte record per node: ``rec[i, 0]`` = the feature (low 30 bits), bit 30
    set when a missing value goes to the second child, the first child in the
    high 32 bits; ``rec[i, 1]`` = the threshold's bits (``rec.view(float64)``).
    A leaf points to itself with threshold +inf, so a row that reached it stays
    there.  A step reads one record (one cache line) where the five node arrays
    or separate packed ones cost a line each: the walk of a large forest is
    bound by those loads."""
    n = t.sizes[0]
    rec = np.empty((n, 2), np.int64)
    thr = rec.view(np.float64)
    for i in range(n):
        k = t.kind[i]
        if k == LEAF:
            rec[i, 0] = np.int64(i) << 32
            thr[i, 1] = np.inf
        elif k == NUMERIC and t.feature[i] <= _FEAT_MASK and 0 <= t.missing_child[i] <= 1:
            rec[i, 0] = (np.int64(t.feature[i]) | (np.int64(t.missing_child[i]) << _FEAT_BITS)
                         | (np.int64(t.first_child[i]) << 32))
            thr[i, 1] = t.threshold[i]
        else:
            return False, rec[:0]
    return True, rec


#: rows walked down one tree together by :func:`_forest_sum_records`
_GROUP = 16

#: the code of a missing value in uint8 code rows (the cascade's code matrices)
CODE_MISSING = 255


def _missing_code(X):
    """The value of ``X``'s rows that goes to a node's missing child besides NaN:
    :data:`CODE_MISSING` for integer codes, NaN (equal to nothing) for floats."""
    raise NotImplementedError   # (numba only: see the overload below)


@overload(_missing_code, jit_options={"cache": True})
def _missing_code_overload(X):
    if isinstance(X.dtype, types.Integer):
        return lambda X: CODE_MISSING
    return lambda X: np.nan


@njit(cache=True, inline="always", nogil=True)
def _forest_sum_records(rec, value, roots, root_weight, X, lo, hi, out):
    """:func:`_forest_sum_block` on :func:`pack_walk`'s records: the rows
    ``lo .. hi - 1`` walk each tree in turn (the tree stays in cache, as
    scikit-learn), :data:`_GROUP` rows at a time advancing one level per step
    until none moves (a leaf points to itself), so the group's independent
    loads overlap instead of one row's chain of dependent loads.  Branch-free
    step: child ``first + (x > thr)``, NaN to the missing child.  Same leaves
    (``x > thr`` is ``not x <= thr`` for a number) and the same sums in tree
    order.  ``X`` may be uint8 bin codes of a forest grown on them (thresholds
    ``k + 0.5``, :data:`CODE_MISSING` to the missing child): a row is then one
    byte a feature instead of eight."""
    K = value.shape[1]
    missing_code = _missing_code(X)
    thr = rec.view(np.float64)
    cur = np.empty(_GROUP, np.int64)
    for j in range(roots.shape[0]):
        r = roots[j]
        wj = root_weight[j]
        for b0 in range(lo, hi, _GROUP):
            m = min(hi, b0 + _GROUP) - b0
            for q in range(m):
                cur[q] = r
            moved = 1
            while moved != 0:
                moved = 0
                for q in range(m):
                    node = cur[q]
                    w = rec[node, 0]
                    first = w >> 32
                    v = X[b0 + q, w & _FEAT_MASK]
                    nxt = first + np.int64(v > thr[node, 1])
                    if v != v or v == missing_code:
                        nxt = first + ((w >> _FEAT_BITS) & 1)
                    moved |= nxt ^ node
                    cur[q] = nxt
            for q in range(m):
                for k in range(K):
                    out[b0 + q, k] += wj * value[cur[q], k]


@njit(cache=True, nogil=True, inline="always")
def _sum_chunks(n, n_chunks):
    """``(size, count)`` of the contiguous row chunks of :func:`forest_sum` /
    :func:`forest_sum_walk`: ``n_chunks`` of them (0: 16), at least
    :data:`_ROW_BLOCK` rows each."""
    nc = n_chunks if n_chunks > 0 else 16
    size = max(_ROW_BLOCK, (n + nc - 1) // nc)
    return size, (n + size - 1) // size


@njit(cache=True, parallel=True, nogil=True)
def forest_sum_walk(rec, value, roots, root_weight, X, n_chunks=0):
    """:func:`forest_sum` on a forest's :func:`pack_walk` records (``value``: its
    leaf values), for a forest that keeps them (packed once when it is fitted).
    ``X``: float rows, or uint8 bin codes (see :func:`_forest_sum_records`)."""
    n = X.shape[0]
    out = np.zeros((n, value.shape[1]), np.float64)
    size, nb = _sum_chunks(n, n_chunks)
    for b in prange(nb):
        lo = b * size
        _forest_sum_records(rec, value, roots, root_weight, X, lo, min(n, lo + size), out)
    return out


@njit(cache=True, nogil=True)
def forest_sum_walk_serial(rec, value, roots, root_weight, X):
    """:func:`forest_sum_walk` without threads."""
    out = np.zeros((X.shape[0], value.shape[1]), np.float64)
    _forest_sum_records(rec, value, roots, root_weight, X, 0, X.shape[0], out)
    return out


@njit(cache=True, parallel=True, nogil=True)
def forest_sum(t, roots, root_weight, X, n_chunks=0):
    """Weighted sum over the trees rooted at ``roots`` of the value row of the leaf
    each row of ``X`` reaches: ``out[i] = sum_j root_weight[j] value[leaf_j(x_i)]``
    (n_rows x n_outputs).  A random forest's or bagging's averaged class proportions
    / means in one call (weights 1 or 1/M).  Parallel over ``n_chunks`` contiguous
    chunks of rows (give the thread count; 0: 16), each walking the whole forest
    tree by tree, as scikit-learn: a fully grown tree (tens of thousands of
    nodes) stays in cache while the chunk's rows walk it, where 64-row blocks
    fetched every tree again for every block (twice the CPU time on deep
    forests).  Numeric forests walk in groups of rows on records packed here
    (:func:`pack_walk`, :func:`_forest_sum_records`; a forest predicting often
    keeps them: :func:`forest_sum_walk`), others on :func:`pack_forest`'s
    layout.  The same sums whatever the chunks."""
    n = X.shape[0]
    out = np.zeros((n, t.value.shape[1]), np.float64)
    size, nb = _sum_chunks(n, n_chunks)
    ok, rec = pack_walk(t)
    if ok:
        for b in prange(nb):
            lo = b * size
            _forest_sum_records(rec, t.value, roots, root_weight, X, lo, min(n, lo + size),
                                out)
        return out
    nodes, thr = pack_forest(t)
    for b in prange(nb):
        lo = b * size
        _forest_sum_block(t, nodes, thr, roots, root_weight, X, lo, min(n, lo + size), out)
    return out


@njit(cache=True, nogil=True)
def forest_sum_serial(t, roots, root_weight, X):
    """:func:`forest_sum` without threads."""
    ok, rec = pack_walk(t)
    if ok:
        return forest_sum_walk_serial(rec, t.value, roots, root_weight, X)
    n = X.shape[0]
    out = np.zeros((n, t.value.shape[1]), np.float64)
    nodes, thr = pack_forest(t)
    _forest_sum_block(t, nodes, thr, roots, root_weight, X, 0, n, out)
    return out


@njit(cache=True, parallel=True, nogil=True)
def forest_apply(t, roots, X):
    """Leaf reached by every row in every tree, as node ids local to each tree
    (``out[i, j]`` = leaf id in tree ``j`` minus ``roots[j]``)."""
    n = X.shape[0]
    T = roots.shape[0]
    out = np.empty((n, T), np.int64)
    for i in prange(n):
        for j in range(T):
            out[i, j] = leaf_from(t, roots[j], X[i]) - roots[j]
    return out


@njit(cache=True, parallel=True, nogil=True)
def forest_oob_sum(t, roots, X, in_bag):
    """Out-of-bag sums: for every row ``i``, the value rows of its leaves in the trees
    ``j`` with ``in_bag[j, i] == 0`` summed, and how many such trees there are."""
    n = X.shape[0]
    T = roots.shape[0]
    out = np.zeros((n, t.value.shape[1]), np.float64)
    cnt = np.zeros(n, np.int64)
    K = t.value.shape[1]
    for i in prange(n):
        for j in range(T):
            if in_bag[j, i] == 0:
                leaf = leaf_from(t, roots[j], X[i])
                for k in range(K):
                    out[i, k] += t.value[leaf, k]
                cnt[i] += 1
    return out, cnt


@njit(cache=True, nogil=True)
def forest_decision_path(t, roots, X):
    """Nodes visited by each row in every tree (forest-wide node ids, trees in order),
    as CSR ``(indptr, indices)``."""
    n = X.shape[0]
    T = roots.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        d = 0
        for j in range(T):
            node = roots[j]
            d += 1
            while t.kind[node] != LEAF:
                node = _next_node(t, node, X[i, t.feature[node]])
                d += 1
        indptr[i + 1] = indptr[i] + d
    indices = np.empty(indptr[n], np.int64)
    for i in range(n):
        p = indptr[i]
        for j in range(T):
            node = roots[j]
            indices[p] = node
            p += 1
            while t.kind[node] != LEAF:
                node = _next_node(t, node, X[i, t.feature[node]])
                indices[p] = node
                p += 1
    return indptr, indices


#: forests of at least this many nodes are concatenated on threads (:func:`concat_trees`)
CONCAT_PARALLEL_MIN_NODES = 1_000_000


def concat_trees(trees, release=False, n_threads=1):
    """One forest :class:`TreeArrays` holding ``trees`` (trimmed TreeArrays with
    one output column each); returns ``(forest, roots)``.  ``release=True``
    (``trees`` a list nothing else refers to): each tree's array of a field is
    dropped from the list once that field is concatenated, so the fit holds
    the trees and the forest together for one field only, not twice the forest.
    ``n_threads`` > 1: a forest of at least ``CONCAT_PARALLEL_MIN_NODES`` nodes is
    copied on that many threads (the same arrays)."""
    if not trees:
        raise ValueError("concat_trees needs at least one tree")
    n_nodes = [int(t.sizes[0]) for t in trees]
    # large forests: the trees' slices copied (and their ids shifted) on threads
    # (NumPy releases the GIL for both); a serial concatenation of a 1 GB forest
    # took ~9 % of an extra-trees regressor's fit
    n_threads = min(int(n_threads), len(trees))
    pool = None
    if n_threads > 1 and sum(n_nodes) >= CONCAT_PARALLEL_MIN_NODES:
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(n_threads)
    n_cats = [int(t.sizes[1]) for t in trees]
    node_off = np.concatenate(([0], np.cumsum(n_nodes)))
    cat_off = np.concatenate(([0], np.cumsum(n_cats)))
    fields = {}
    try:
        for name in TreeArrays._fields:
            if name == "sizes":
                continue
            limit = n_cats if name == "cat_map" else n_nodes
            lens = [min(limit[j], getattr(t, name).shape[0]) for j, t in enumerate(trees)]
            first = getattr(trees[0], name)
            dt = first.dtype
            top = {"first_child": node_off[-1], "parent": node_off[-1],
                   "cat_offset": cat_off[-1]}.get(name)
            if top is not None and np.iinfo(dt).max < top:
                dt = np.dtype(np.int64)          # (narrowed trees: forest-wide ids need more)
            # one C-level concatenation, then the ids shifted by each tree's offset in
            # one vectorised pass (a per-tree loop of slices and masks cost ~50 ms a
            # cascade slot of 150 small trees)
            parts = [getattr(t, name)[:lens[j]] for j, t in enumerate(trees)]
            out = np.empty((int(sum(lens)),) + first.shape[1:], dt)
            ids = name in ("first_child", "parent", "cat_offset")
            off = cat_off if name == "cat_offset" else node_off
            if pool is None:
                # (same_kind: narrowed trees' ids widen into the forest's dtype)
                np.concatenate(parts, out=out, casting="same_kind")
                if ids:
                    shift = np.repeat(off[:-1].astype(dt, copy=False), lens)
                    np.add(out, shift, out=out, where=out >= 0)
            else:
                pos = np.concatenate(([0], np.cumsum(lens)))

                def copy(js, parts=parts, out=out, pos=pos, ids=ids, off=off, dt=dt):
                    for j in js:
                        o = out[pos[j]:pos[j + 1]]
                        o[...] = parts[j]
                        if ids:
                            np.add(o, dt.type(off[j]), out=o, where=o >= 0)
                list(pool.map(copy, (range(k, len(parts), n_threads) for k in range(n_threads))))
            del parts
            fields[name] = out
            if release:
                for j in range(len(trees)):
                    trees[j] = trees[j]._replace(**{name: None})
    finally:
        if pool is not None:
            pool.shutdown()
    if fields["cat_map"].shape[0] == 0:
        fields["cat_map"] = np.full(1, -1, np.int64)
    fields["sizes"] = np.array([node_off[-1], cat_off[-1]], np.int64)
    return TreeArrays(**fields), node_off[:-1].astype(np.int64)


class Tree:
    """A fitted tree: the :class:`TreeArrays` plus Python conveniences.

    Attributes mirror scikit-learn's ``Tree`` where they make sense
    (``node_count``, ``feature``, ``threshold``, ``value``, ``impurity``,
    ``n_node_samples``, ``weighted_n_node_samples``, and, for binary nodes,
    ``children_left`` / ``children_right``); ``stats`` keeps each node's raw
    statistics vector (weighted class counts, or ``[w, sum wy, sum wy^2]``).
    """

    def __init__(self, arrays, stats=None):
        self.arrays = arrays
        self.stats = stats

    # --- scikit-learn-like views ------------------------------------------------
    @property
    def node_count(self):
        return int(self.arrays.sizes[0])

    def _col(self, name):
        return getattr(self.arrays, name)[:self.node_count]

    feature = property(lambda self: self._col("feature"))
    threshold = property(lambda self: self._col("threshold"))
    value = property(lambda self: self._col("value"))
    impurity = property(lambda self: self._col("impurity"))
    n_node_samples = property(lambda self: self._col("n_samples"))
    weighted_n_node_samples = property(lambda self: self._col("weighted_n_samples"))
    kind = property(lambda self: self._col("kind"))
    depth = property(lambda self: self._col("depth"))
    parent = property(lambda self: self._col("parent"))

    def children(self, node):
        """Ids of the children of ``node`` (empty for a leaf)."""
        a = self.arrays
        return np.arange(a.first_child[node], a.first_child[node] + a.n_children[node]) \
            if a.kind[node] != LEAF else np.empty(0, np.int64)

    @property
    def children_left(self):
        fc = self._col("first_child")
        return np.where(self.kind == LEAF, -1, fc)

    @property
    def children_right(self):
        fc = self._col("first_child")
        return np.where(self.kind == LEAF, -1, fc + 1)

    @property
    def max_depth(self):
        return int(max_depth(self.arrays))

    @property
    def n_leaves(self):
        return int(n_leaves(self.arrays))

    def is_leaf(self):
        return self.kind == LEAF

    # --- traversal ----------------------------------------------------------------
    def apply(self, X):
        """Leaf ids for the encoded rows ``X`` (float64, C-contiguous)."""
        if X.shape[0] < PARALLEL_MIN_ROWS:
            return apply_serial(self.arrays, X)
        return apply(self.arrays, X)

    def predict(self, X):
        if X.shape[0] < PARALLEL_MIN_ROWS:
            return predict_value_serial(self.arrays, X)
        return predict_value(self.arrays, X)

    def decision_path(self, X):
        return decision_path(self.arrays, X)

    def __getstate__(self):
        return {"packed": pack_tree_state(self.arrays, self.stats)}

    def __setstate__(self, state):
        if "packed" in state:
            self.arrays, self.stats = unpack_tree_state(state["packed"])
        else:                                   # models pickled before the packed form
            self.arrays = TreeArrays(*state["arrays"])
            self.stats = state["stats"]


# ------------------------------------------------------------- compact pickling
_PACK_VERSION = 1
_DERIVED = ("parent", "depth")


def _smallest_int(a):
    """The narrowest signed integer dtype that holds every value of ``a``."""
    if a.size == 0:
        return np.dtype(np.int8)
    lo, hi = int(a.min()), int(a.max())
    for dt in (np.int8, np.int16, np.int32):
        info = np.iinfo(dt)
        if info.min <= lo and hi <= info.max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def _child_ids(first_child, n_children, nodes):
    """The ids of the children of ``nodes`` (inner nodes), node by node, and how
    many each has."""
    k = n_children[nodes].astype(np.int64)
    ends = np.cumsum(k)
    start = np.repeat(first_child[nodes].astype(np.int64) - (ends - k), k)
    return np.arange(ends[-1] if k.size else 0) + start, k


def parents_and_depths(kind, first_child, n_children):
    """Each node's parent (-1 for a root) and depth, from the child ranges alone;
    ``(None, None)`` when the ranges do not describe a forest of trees."""
    n = kind.shape[0]
    parent = np.full(n, -1, np.int64)
    depth = np.zeros(n, np.int64)
    inner = np.flatnonzero(kind != LEAF)
    child, k = _child_ids(first_child, n_children, inner)
    if child.size and (child.min() < 0 or child.max() >= n):
        return None, None
    parent[child] = np.repeat(inner, k)
    level = np.flatnonzero(parent == -1)
    seen = 0
    d = 0
    while level.size:
        depth[level] = d
        seen += level.size
        if seen > n:                            # a node reached twice: not a forest
            return None, None
        level, _ = _child_ids(first_child, n_children, level[kind[level] != LEAF])
        d += 1
    return parent, depth


def pack_tree_state(arrays, stats=None):
    """A compact, lossless pickling form of a tree (and its per-node statistics):
    the integer fields in their narrowest dtypes and every field as raw bytes in
    one buffer (one header instead of one per array); ``parent`` and ``depth``
    are left out when they are what the child ranges imply (they are recomputed
    on loading).  :func:`unpack_tree_state` restores the same arrays, dtypes
    included.  Field order is ``TreeArrays._fields`` then ``stats``; a field's
    shape is stored only when it is not ``(node count,)``."""
    n = int(arrays.sizes[0])
    cols = list(arrays)
    if stats is not None:
        cols.append(np.asarray(stats))
    derived = False
    if n and all(getattr(arrays, f).shape == (n,) for f in ("kind", "first_child", "n_children")
                 + _DERIVED):
        parent, depth = parents_and_depths(arrays.kind, arrays.first_child, arrays.n_children)
        derived = parent is not None and np.array_equal(parent, arrays.parent) \
            and np.array_equal(depth, arrays.depth)
    layout, chunks = [], []
    for name, a in zip(TreeArrays._fields + ("stats",), cols):
        dt = sys.intern(a.dtype.str)
        shape = None if a.shape == (n,) else a.shape
        if derived and name in _DERIVED:
            layout.append((dt, None, shape))
            continue
        stored = a
        if a.dtype.kind == "i":
            stored = a.astype(_smallest_int(a), copy=False)
        stored = np.ascontiguousarray(stored)
        layout.append((dt, sys.intern(stored.dtype.str), shape))
        chunks.append(stored.tobytes())
    return (_PACK_VERSION, n, tuple(layout), b"".join(chunks))


def unpack_tree_state(state):
    """``(arrays, stats)`` from :func:`pack_tree_state`'s form."""
    version, n, layout, blob = state
    if version != _PACK_VERSION:
        raise ValueError(f"unknown packed tree format version {version}")
    fields, pos, derived = {}, 0, []
    for name, (dtype, stored, shape) in zip(TreeArrays._fields + ("stats",), layout):
        shape = (n,) if shape is None else shape
        if stored is None:
            derived.append((name, np.dtype(dtype), shape))
            continue
        sdt = np.dtype(stored)
        count = int(np.prod(shape, dtype=np.int64))
        a = np.frombuffer(blob, sdt, count, pos).reshape(shape)
        pos += count * sdt.itemsize
        fields[name] = a.astype(np.dtype(dtype))          # a writable copy
    if derived:
        parent, depth = parents_and_depths(fields["kind"], fields["first_child"],
                                           fields["n_children"])
        for name, dt, _ in derived:
            fields[name] = (parent if name == "parent" else depth).astype(dt)
    stats = fields.pop("stats", None)
    return TreeArrays(**fields), stats
