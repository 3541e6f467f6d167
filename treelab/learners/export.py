"""Readable text rendering of a fitted tree (any treelab tree learner)."""
from __future__ import annotations

import numpy as np

from .._engine.tree import LEAF, NOMINAL

__all__ = ["export_text"]


def _fmt(x, decimals):
    return f"{x:.{decimals}f}"


def export_text(estimator, *, feature_names=None, class_names=None, decimals=3,
                show_weights=False, max_depth=None, spacing=3):
    """Render ``estimator.tree_`` as indented text.

    Numeric tests read ``feature <= t`` / ``feature > t``; nominal tests read
    ``feature = value`` (multiway) or ``feature in {a, b}`` (subsets).  The
    branch that also receives missing values is marked ``(or missing)``.
    Leaves show the predicted class (with class weights if ``show_weights``)
    or the predicted value.
    """
    from .._sklearn_compat import check_is_fitted
    check_is_fitted(estimator)
    tree = estimator.tree_
    a = tree.arrays
    enc = getattr(estimator, "_encoding", None)
    d = estimator.n_features_in_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = list(names) if names is not None else [f"feature_{i}" for i in range(d)]
    elif len(feature_names) != d:
        raise ValueError(f"feature_names must have {d} entries, got {len(feature_names)}")
    classes = getattr(estimator, "classes_", None)
    if class_names is None and classes is not None:
        class_names = [str(c) for c in classes]
    bar = "|" + " " * spacing
    lines = []

    def leaf_text(node):
        if classes is not None:
            v = a.value[node]
            txt = f"class: {class_names[int(np.argmax(v))]}"
            if show_weights:
                counts = tree.stats[node] if tree.stats is not None else v
                txt += " (weights: [" + ", ".join(_fmt(c, decimals) for c in counts) + "])"
            return txt
        return f"value: [{_fmt(a.value[node, 0], decimals)}]"

    def child_labels(node):
        f = a.feature[node]
        name = feature_names[f]
        k = a.n_children[node]
        if a.kind[node] != NOMINAL:
            thr = _fmt(a.threshold[node], decimals)
            if np.isinf(a.threshold[node]):
                return [f"{name} is not missing", f"{name} is missing"]
            return [f"{name} <= {thr}", f"{name} >  {thr}"]
        cats = enc.categories[f] if enc is not None and enc.categories[f] is not None else None
        groups = [[] for _ in range(k)]
        off = a.cat_offset[node]
        for c in range(a.cat_count[node]):
            s = a.cat_map[off + c]
            if s >= 0:
                groups[s].append(str(cats[c]) if cats is not None else str(c))
        out = []
        for g in groups:
            if len(g) == 1:
                out.append(f"{name} = {g[0]}")
            else:
                out.append(f"{name} in {{{', '.join(g)}}}")
        return out

    def rec(node, depth):
        indent = bar * depth
        if max_depth is not None and depth > max_depth:
            lines.append(indent + "|--- truncated")
            return
        if a.kind[node] == LEAF:
            lines.append(indent + "|--- " + leaf_text(node))
            return
        labels = child_labels(node)
        for j in range(a.n_children[node]):
            lab = labels[j]
            seen_missing = enc is None or enc.has_missing is None or enc.has_missing[a.feature[node]]
            if j == a.missing_child[node] and seen_missing and not lab.endswith("is missing"):
                lab += " (or missing)"
            lines.append(indent + "|--- " + lab)
            rec(a.first_child[node] + j, depth + 1)

    rec(0, 0)
    return "\n".join(lines) + "\n"
