"""Readable text rendering of a fitted tree (any treelab tree learner)."""
from __future__ import annotations

import numpy as np

from .._engine.tree import LEAF, NOMINAL

__all__ = ["export_text", "export_stream_text"]


def _fmt(x, decimals):
    return f"{x:.{decimals}f}"


def _feature_names(estimator, feature_names, d):
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        return list(names) if names is not None else [f"feature_{i}" for i in range(d)]
    if len(feature_names) != d:
        raise ValueError(f"feature_names must have {d} entries, got {len(feature_names)}")
    return list(feature_names)


def _nominal_labels(a, node, name, enc):
    """``name = v`` / ``name in {a, b}`` per child of a nominal split."""
    f = a.feature[node]
    cats = enc.categories[f] if enc is not None and enc.categories[f] is not None else None
    groups = [[] for _ in range(a.n_children[node])]
    off = a.cat_offset[node]
    for c in range(a.cat_count[node]):
        s = a.cat_map[off + c]
        if s >= 0:
            groups[s].append(str(cats[c]) if cats is not None else str(c))
    return [f"{name} = {g[0]}" if len(g) == 1 else f"{name} in {{{', '.join(g)}}}"
            for g in groups]


#: appended to the child of a numeric split that takes missing values
MISSING_MARK = " (or missing)"
#: appended to the child of a nominal split that takes missing values and the
#: categories not seen at that node when the tree was grown
MISSING_UNSEEN_MARK = " (or missing/unseen)"


def _render(a, root, child_labels, leaf_text, marks_missing, max_depth, spacing):
    """Indented lines of the subtree at ``root``: ``child_labels(node)`` gives the
    test of each child, ``leaf_text(node)`` a leaf, ``marks_missing(node)`` whether
    the child taking missing values is marked (:data:`MISSING_MARK` on numeric
    splits, :data:`MISSING_UNSEEN_MARK` on nominal ones)."""
    bar = "|" + " " * spacing
    lines = []

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
            if (j == a.missing_child[node] and marks_missing(node)
                    and not lab.endswith("is missing")):
                lab += MISSING_UNSEEN_MARK if a.kind[node] == NOMINAL else MISSING_MARK
            lines.append(indent + "|--- " + lab)
            rec(a.first_child[node] + j, depth + 1)

    rec(root, 0)
    return lines


#: appended to a leaf whose largest class weights tie (the first tied class wins)
TIE_MARK = " (tie: first in class order)"


def _leaf_model_text(model, feature_names, class_names, decimals):
    """``model: Linear(value = 1.2 + 0.5 * x1 ...)`` for linear leaf models, the
    model's name otherwise."""
    name = model._describe()
    coef = getattr(model, "coef_", None)
    if coef is None:
        value = getattr(model, "value_", None)
        if value is not None:
            return f"model: {name} [" + ", ".join(_fmt(v, decimals) for v in value) + "]"
        return f"model: {name}"
    rows = []
    for k in range(coef.shape[0]):
        terms = " ".join(f"{'+' if c >= 0 else '-'} {_fmt(abs(c), decimals)}*{feature_names[j]}"
                         for j, c in enumerate(coef[k]) if c != 0)
        head = "" if coef.shape[0] == 1 else (
            f"{class_names[k] if class_names is not None and coef.shape[0] == len(class_names) else k}: ")
        rows.append(f"{head}{_fmt(model.intercept_[k], decimals)} {terms}".rstrip())
    return f"model: {name}(" + "; ".join(rows) + ")"


def export_text(estimator, *, feature_names=None, class_names=None, decimals=3,
                show_weights=False, max_depth=None, spacing=3, show_missing=True):
    """Render ``estimator.tree_`` as indented text.

    Numeric tests read ``feature <= t`` / ``feature > t``; nominal tests read
    ``feature = value`` (multiway) or ``feature in {a, b}`` (subsets).  With
    ``show_missing`` (default) every split marks the branch that takes what the
    tests cannot place, as the streaming export does: ``(or missing)`` on a
    numeric split (missing values), ``(or missing/unseen)`` on a nominal one
    (missing values and categories not seen at that node in training).
    ``show_missing=False`` prints it only where the feature had missing values
    at fit time.  Leaves show the predicted class (with the class weights, in
    the order of ``classes_``, if ``show_weights``) or the predicted value; a
    leaf whose largest weights tie predicts the first of the tied classes in
    the order of ``classes_`` and says so: ``(tie: first in class order)``.  A
    model tree's leaves show their model (the intercept and coefficients of a
    linear or logistic leaf model).
    """
    a, child_labels, leaf_text, marks_missing = _batch_labelers(
        estimator, feature_names, class_names, decimals, show_weights, show_missing)
    lines = _render(a, 0, child_labels, leaf_text, marks_missing, max_depth, spacing)
    return "\n".join(lines) + "\n"


def _batch_labelers(estimator, feature_names, class_names, decimals, show_weights,
                    show_missing):
    """The tree arrays of a fitted batch tree and its three text functions:
    ``child_labels(node)`` (the test of each child), ``leaf_text(node)``,
    ``marks_missing(node)`` -- shared by :func:`export_text` and
    :func:`~treelab.plot_tree`."""
    from .._sklearn_compat import check_is_fitted
    check_is_fitted(estimator)
    tree = estimator.tree_
    a = tree.arrays
    enc = getattr(estimator, "_encoding", None)
    feature_names = _feature_names(estimator, feature_names, estimator.n_features_in_)
    classes = getattr(estimator, "classes_", None)
    if class_names is None and classes is not None:
        class_names = [str(c) for c in classes]

    leaf_models = getattr(estimator, "leaf_models_", None)

    def leaf_text(node):
        if leaf_models is not None:      # model tree: the leaf's own model
            return _leaf_model_text(leaf_models[int(node)], feature_names, class_names, decimals)
        if classes is not None:
            v = a.value[node]
            txt = f"class: {class_names[int(np.argmax(v))]}"
            counts = tree.stats[node] if tree.stats is not None else v
            if show_weights:
                txt += " (weights: [" + ", ".join(_fmt(c, decimals) for c in counts) + "])"
            if np.count_nonzero(counts == counts.max()) > 1:
                txt += TIE_MARK
            return txt
        return f"value: [{_fmt(a.value[node, 0], decimals)}]"

    def child_labels(node):
        name = feature_names[a.feature[node]]
        if a.kind[node] != NOMINAL:
            thr = _fmt(a.threshold[node], decimals)
            if np.isinf(a.threshold[node]):
                return [f"{name} is not missing", f"{name} is missing"]
            return [f"{name} <= {thr}", f"{name} >  {thr}"]
        return _nominal_labels(a, node, name, enc)

    def marks_missing(node):
        return (show_missing or enc is None or enc.has_missing is None
                or bool(enc.has_missing[a.feature[node]]))

    return a, child_labels, leaf_text, marks_missing


def export_stream_text(model, *, feature_names=None, decimals=3, show_weights=False,
                       max_depth=None, spacing=3, tree=None):
    """Render a streaming tree (SGT, Hoeffding tree) as indented text, in the
    units of the data.

    A numeric split "bins 0..b left" reads ``feature < e`` / ``feature >= e``
    with ``e`` the upper edge of bin ``b`` of the equal-width binning fitted on
    the first ``n_range_samples`` instances (values outside that range were
    clipped into the end bins, so the tests hold for them too).  The child that
    takes missing values (and, in a Hoeffding tree, categories unknown when the
    split was made) is marked ``(or missing)``.  Hoeffding-tree leaves show the
    majority class of their counts (naive-Bayes leaves may predict otherwise
    for a given instance; ``show_weights`` prints the counts); SGT leaves show
    their raw score (log-odds for a binary classifier, the score of class j
    against the last class in tree j of a multiclass one, the value for a
    regressor).  ``tree`` picks one tree of a multiclass SGT (default: all).
    """
    a, roots, child_labels, leaf_text = _stream_labelers(model, feature_names, decimals,
                                                         show_weights)
    classes = getattr(model, "classes_", None)
    picked = range(len(roots)) if tree is None else [int(tree)]
    if tree is not None and not 0 <= int(tree) < len(roots):
        raise ValueError(f"tree must be in 0..{len(roots) - 1}, got {tree!r}")
    out = []
    for j in picked:
        if len(roots) > 1:
            head = f"tree {j}"
            if classes is not None:
                head += f" (score of class {classes[j]} against class {classes[-1]})"
            out.append(head + ":")
        out += _render(a, roots[j], child_labels, leaf_text, lambda node: True, max_depth,
                       spacing)
    return "\n".join(out) + "\n"


def _stream_labelers(model, feature_names, decimals, show_weights):
    """The node arrays, roots and text functions of a streaming tree (shared by
    :func:`export_stream_text` and :func:`~treelab.plot_tree`)."""
    from .._sklearn_compat import _not_fitted_error_class
    model._flush()
    if not hasattr(model, "_forest"):
        raise _not_fitted_error_class()(
            f"{type(model).__name__} has not learned any tree yet (it is still collecting "
            "its first n_range_samples instances)")
    a = model._forest
    enc = model._encoding
    lo, hi, max_bins = model._lo, model._hi, int(model.max_bins)
    value_space = bool(getattr(model, "_value_space", False))
    feature_names = _feature_names(model, feature_names, enc.n_features)
    classes = getattr(model, "classes_", None)
    counts_leaves = getattr(model, "_leaf_counts_are_classes", False)

    def leaf_text(node):
        v = a.value[node]
        if counts_leaves:
            txt = f"class: {classes[int(np.argmax(v))]}"
            if show_weights:
                txt += " (counts: [" + ", ".join(_fmt(c, decimals) for c in v) + "])"
            return txt
        label = "score" if classes is not None else "value"
        return f"{label}: {_fmt(v[0], decimals)}"

    def child_labels(node):
        f = a.feature[node]
        name = feature_names[f]
        if a.kind[node] == NOMINAL:
            return _nominal_labels(a, node, name, enc)
        if value_space:                                # observers keeping values
            thr = _fmt(a.threshold[node], decimals)
            return [f"{name} <= {thr}", f"{name} >  {thr}"]
        b = int(np.floor(a.threshold[node]))          # threshold b + 0.5 on bin codes
        edge = _fmt(lo[f] + (b + 1) * (hi[f] - lo[f]) / max_bins, decimals)
        return [f"{name} <  {edge}", f"{name} >= {edge}"]

    roots = [int(r) for r in model._roots]
    return a, roots, child_labels, leaf_text
