"""Post-pruning kernels on fitted :class:`~treelab._engine.tree.TreeArrays`.

Each kernel returns a boolean ``make_leaf`` mask (internal nodes to collapse);
:func:`treelab._engine.tree.extract_subtree` then builds the pruned tree.
Children always have larger ids than their parent, so a reverse sweep over
node ids visits every subtree bottom-up.

* :func:`cost_complexity` -- minimal cost-complexity pruning (Breiman et al.
  1984, ch. 3), the weakest-link sequence, same arithmetic as scikit-learn's
  ``ccp_alpha`` / ``cost_complexity_pruning_path``, for k-ary trees;
* :func:`pessimistic` -- C4.5's error-based pruning (Quinlan 1993, ch. 4),
  subtree replacement with the upper confidence limit ``AddErrs`` of C4.5
  release 8;
* :func:`reduced_error` -- reduced-error pruning on a validation set
  (Quinlan 1987).
"""
from __future__ import annotations

import math

import numpy as np

from .jit import njit
from .tree import LEAF

__all__ = ["cost_complexity", "pessimistic", "add_errs", "c45_coefficient", "reduced_error"]


@njit(cache=True)
def cost_complexity(t, ccp_alpha, record_path):
    """Weakest-link pruning.  With ``record_path`` the whole sequence is run
    and ``(alphas, impurities)`` of every step are returned; otherwise pruning
    stops before the first subtree whose effective alpha exceeds ``ccp_alpha``.

    R(t) = w_t / w_root * impurity(t); effective alpha of an internal node
    = (R(t) - R(T_t)) / (|leaves(T_t)| - 1).
    Returns ``(make_leaf, alphas, impurities)``.
    """
    n = t.sizes[0]
    W = t.weighted_n_samples[0]
    r_node = np.empty(n, np.float64)
    for i in range(n):
        r_node[i] = t.weighted_n_samples[i] * t.impurity[i] / W if W > 0 else 0.0
    r_branch = np.zeros(n, np.float64)
    n_leaves = np.zeros(n, np.int64)
    for i in range(n - 1, -1, -1):
        if t.kind[i] == LEAF:
            r_branch[i] = r_node[i]
            n_leaves[i] = 1
        else:
            s = 0.0
            m = 0
            for j in range(t.n_children[i]):
                c = t.first_child[i] + j
                s += r_branch[c]
                m += n_leaves[c]
            r_branch[i] = s
            n_leaves[i] = m
    candidate = np.zeros(n, np.bool_)
    in_subtree = np.ones(n, np.bool_)
    for i in range(n):
        candidate[i] = t.kind[i] != LEAF
    make_leaf = np.zeros(n, np.bool_)
    alphas = np.empty(n + 1, np.float64)
    imps = np.empty(n + 1, np.float64)
    alphas[0] = 0.0
    imps[0] = r_branch[0]
    count = 1
    stack = np.empty(n, np.int64)
    while candidate[0]:
        eff = np.inf
        best = -1
        for i in range(n):
            if not candidate[i]:
                continue
            a = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
            if a < eff:
                eff = a
                best = i
        if not record_path and ccp_alpha < eff:
            break
        # collapse the branch rooted at best
        top = 0
        stack[top] = best
        top += 1
        while top > 0:
            top -= 1
            v = stack[top]
            if not in_subtree[v]:
                continue
            candidate[v] = False
            in_subtree[v] = False
            if t.kind[v] != LEAF:
                for j in range(t.n_children[v]):
                    stack[top] = t.first_child[v] + j
                    top += 1
        in_subtree[best] = True
        make_leaf[best] = True
        n_pruned = n_leaves[best] - 1
        n_leaves[best] = 1
        diff = r_node[best] - r_branch[best]
        r_branch[best] = r_node[best]
        v = t.parent[best]
        while v != -1:
            n_leaves[v] -= n_pruned
            r_branch[v] += diff
            v = t.parent[v]
        alphas[count] = eff
        imps[count] = r_branch[0]
        count += 1
    return make_leaf, alphas[:count].copy(), imps[:count].copy()


# C4.5 release 8, prune.c: confidence levels and normal deviates for AddErrs
_C45_VAL = np.array([0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_C45_DEV = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])


def c45_coefficient(cf):
    """C4.5's squared normal deviate for confidence ``cf``, interpolated in its table."""
    if not 0.0 < cf < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {cf}")
    i = int(np.searchsorted(_C45_VAL, cf, side="left"))
    i = max(i, 1)
    dev = _C45_DEV[i - 1] + (_C45_DEV[i] - _C45_DEV[i - 1]) * (cf - _C45_VAL[i - 1]) / (
        _C45_VAL[i] - _C45_VAL[i - 1])
    return dev * dev


@njit(cache=True)
def add_errs(N, e, cf, coeff):
    """Extra errors of the upper confidence limit for ``e`` errors in ``N``
    cases (C4.5's ``AddErrs``)."""
    if N <= 0.0:
        return 0.0
    if e < 1e-6:
        return N * (1.0 - math.exp(math.log(cf) / N))
    if e < 0.9999:
        v0 = N * (1.0 - math.exp(math.log(cf) / N))
        return v0 + e * (add_errs(N, 1.0, cf, coeff) - v0)
    if e + 0.5 >= N:
        return 0.67 * (N - e)
    pr = (e + 0.5 + coeff / 2.0
          + math.sqrt(coeff * ((e + 0.5) * (1.0 - (e + 0.5) / N) + coeff / 4.0))) / (N + coeff)
    return N * pr - e


@njit(cache=True)
def pessimistic(t, counts, cf, coeff):
    """C4.5 error-based pruning by subtree replacement.

    ``counts[i]`` are the weighted training class counts at node ``i``.  A
    subtree is replaced by a leaf when the leaf's estimated errors
    ``E + AddErrs(N, E)`` do not exceed the subtree's by more than 0.1
    (C4.5's tolerance).  Returns ``(make_leaf, estimated_errors)``.
    """
    n = t.sizes[0]
    est = np.zeros(n, np.float64)
    make_leaf = np.zeros(n, np.bool_)
    for i in range(n - 1, -1, -1):
        N = 0.0
        best = 0.0
        for c in range(counts.shape[1]):
            N += counts[i, c]
            if counts[i, c] > best:
                best = counts[i, c]
        E = N - best
        leaf_est = E + add_errs(N, E, cf, coeff)
        if t.kind[i] == LEAF:
            est[i] = leaf_est
            continue
        sub = 0.0
        for j in range(t.n_children[i]):
            sub += est[t.first_child[i] + j]
        if leaf_est <= sub + 0.1:
            make_leaf[i] = True
            est[i] = leaf_est
        else:
            est[i] = sub
    return make_leaf, est


@njit(cache=True)
def reduced_error(t, node_error, ):
    """Reduced-error pruning: ``node_error[i]`` is the validation loss if node
    ``i`` were a leaf; collapse every subtree whose validation loss is not
    lower than its root's as a leaf (bottom-up, Quinlan 1987)."""
    n = t.sizes[0]
    sub = np.zeros(n, np.float64)
    make_leaf = np.zeros(n, np.bool_)
    for i in range(n - 1, -1, -1):
        if t.kind[i] == LEAF:
            sub[i] = node_error[i]
            continue
        s = 0.0
        for j in range(t.n_children[i]):
            s += sub[t.first_child[i] + j]
        if node_error[i] <= s:
            make_leaf[i] = True
            sub[i] = node_error[i]
        else:
            sub[i] = s
    return make_leaf
