"""Matplotlib drawings of fitted trees: one renderer for every treelab tree.

:func:`draw_tree` lays a tree out (leaves left to right in order, each parent
centred over its children, one row per depth), draws one boxed label per node,
an arrow per edge and the edge's test half-way along it.  :func:`plot_tree`
feeds it any fitted treelab tree -- batch trees (``DecisionTree*``, ``ID3`` /
``C4.5`` / ``CART`` presets, model trees), streaming trees (Hoeffding tree,
SGT) and Trees of Predictors (through :func:`~treelab.plot_tops`, which uses
the same renderer) -- with the texts of :func:`~treelab.export_text` /
``export_stream_text``, so the figure and the text always agree.
"""
from __future__ import annotations

from .._engine.tree import LEAF

__all__ = ["draw_tree", "plot_tree", "plot_tops"]


def draw_tree(roots, children, box_text, *, edge_text=None, ax=None, box_style=None,
              edge_style=None, fontsize=8, titles=None):
    """Draw one or several trees on ``ax`` (created when None); returns ``ax``.

    ``roots``: node ids of the trees drawn side by side; ``children(u)``: the
    child ids of ``u`` (empty for a leaf); ``box_text(u)``: the node's label;
    ``edge_text(u, j)``: the label of the edge to the j-th child (or None);
    ``box_style(u)`` / ``edge_style(u, child)``: matplotlib keywords overriding
    the defaults (white boxes for inner nodes, grey for leaves; thin black
    arrows); ``titles``: one line above each root (or None).
    """
    import matplotlib.pyplot as plt
    xpos, depth_of, order = {}, {}, []

    def place(u, depth):
        depth_of[u] = depth
        kids = list(children(u))
        if not kids:
            xpos[u] = float(len(order))
            order.append(u)
            return
        for c in kids:
            place(c, depth + 1)
        xpos[u] = 0.5 * (xpos[kids[0]] + xpos[kids[-1]])

    for r in roots:
        place(r, 0)
    depth = max(depth_of.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(min(60, max(6, 2.0 * len(order))),
                                      min(40, max(3, 1.6 * (depth + 1)))))
    for u in xpos:
        x, yv = xpos[u], -depth_of[u]
        kids = list(children(u))
        style = dict(boxstyle="round", fc="white" if kids else "0.85", ec="black", lw=1)
        if box_style is not None:
            style.update(box_style(u) or {})
        ax.text(x, yv, box_text(u), ha="center", va="center", fontsize=fontsize, bbox=style)
        for j, c in enumerate(kids):
            es = dict(arrowstyle="->", color="black", lw=1)
            if edge_style is not None:
                es.update(edge_style(u, c) or {})
            ax.annotate("", xy=(xpos[c], yv - 1 + 0.18), xytext=(x, yv - 0.18), arrowprops=es)
            lab = edge_text(u, j) if edge_text is not None else None
            if lab:
                ax.text(0.5 * (x + xpos[c]), yv - 0.5, lab, ha="center", va="center",
                        fontsize=max(fontsize - 1, 1), color="0.3")
    if titles is not None:
        for r, t in zip(roots, titles):
            if t:
                ax.text(xpos[r], 0.55, t, ha="center", va="bottom", fontsize=fontsize,
                        fontweight="bold")
    ax.set_xlim(-0.7, len(order) - 0.3)
    ax.set_ylim(-depth - 0.6, 0.6 if titles is None else 0.9)
    ax.axis("off")
    return ax


def _array_children(a, max_depth):
    def children(u):
        if a.kind[u] == LEAF or (max_depth is not None and a.depth[u] >= max_depth):
            return []
        return list(range(int(a.first_child[u]), int(a.first_child[u] + a.n_children[u])))
    return children


def plot_tree(estimator, *, ax=None, feature_names=None, class_names=None, decimals=3,
              max_depth=None, show_weights=False, show_missing=True, tree=None, fontsize=8,
              **tops_kwargs):
    """Draw any fitted treelab tree with matplotlib; returns the axes.

    Batch trees (``DecisionTreeClassifier`` / ``Regressor``, the ID3 / C4.5 /
    CART presets, model trees with ``leaf_model=``): every node is a box (inner
    nodes: node id and training samples; leaves: the text of
    :func:`~treelab.export_text` -- class, value or leaf model -- and samples),
    every edge carries its test (``x <= t``, ``x = v``, ``(or missing)``
    marks as in the text export).  Streaming trees (Hoeffding tree, SGT): the
    tests in data units and the leaves of ``export_stream_text``; a multiclass
    SGT's trees are drawn side by side (``tree=j``: only tree j).  A ToPs
    estimator goes to :func:`~treelab.plot_tops` (``tops_kwargs``, e.g.
    ``path_to``).  ``max_depth`` draws nodes down to that depth (deeper
    subtrees end in a box marked ``...``).
    """
    from .tops import _BaseToPs
    if isinstance(estimator, _BaseToPs):
        return plot_tops(estimator, ax=ax, feature_names=feature_names, decimals=decimals,
                         fontsize=fontsize, **tops_kwargs)
    if tops_kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(tops_kwargs)} (only a ToPs "
                        "estimator takes them)")
    if max_depth is not None and (isinstance(max_depth, bool) or int(max_depth) != max_depth
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be an int >= 0 or None, got {max_depth!r}")
    from .export import MISSING_MARK, MISSING_UNSEEN_MARK, _batch_labelers, _stream_labelers
    from .._engine.tree import NOMINAL
    from ._streaming import StreamingTreeBase
    if not isinstance(estimator, StreamingTreeBase):
        a, child_labels, leaf_text, marks_missing = _batch_labelers(
            estimator, feature_names, class_names, decimals, show_weights, show_missing)
        roots, titles = [0], None
    else:
        a, roots, child_labels, leaf_text = _stream_labelers(estimator, feature_names, decimals,
                                                             show_weights)
        def marks_missing(node):
            return True
        classes = getattr(estimator, "classes_", None)
        titles = None
        if len(roots) > 1:
            titles = [f"tree {j}" + (f" (class {classes[j]} vs {classes[-1]})"
                                     if classes is not None else "") for j in range(len(roots))]
        if tree is not None:
            if not 0 <= int(tree) < len(roots):
                raise ValueError(f"tree must be in 0..{len(roots) - 1}, got {tree!r}")
            roots, titles = [roots[int(tree)]], None
    children = _array_children(a, max_depth)

    def box_text(u):
        n = int(a.n_samples[u])
        tail = f"\nsamples = {n}" if n > 0 else ""
        if a.kind[u] == LEAF:
            return leaf_text(u).replace("model: ", "").replace("; ", "\n") + tail
        if max_depth is not None and a.depth[u] >= max_depth:
            return "..." + tail
        return f"node {u}" + tail

    def edge_text(u, j):
        lab = child_labels(u)[j]
        if j == a.missing_child[u] and marks_missing(u) and not lab.endswith("is missing"):
            lab += MISSING_UNSEEN_MARK if a.kind[u] == NOMINAL else MISSING_MARK
        return lab

    return draw_tree(roots, children, box_text, edge_text=edge_text, ax=ax, fontsize=fontsize,
                     titles=titles)


def plot_tops(est, *, path_to=None, ax=None, feature_names=None, decimals=3, fontsize=8):
    """Draw a fitted ToPs tree as the paper's Figs. 4-5: each node shows its
    learner, the training node (up-arrows ``^`` = levels above), the V1 loss
    improvement of its split (non-terminal) or of its final predictor over the
    root's predictor on its V1 rows (terminal, shaded); the path to terminal
    node ``path_to`` (default: the terminal with most V2 rows) is drawn in heavy
    blue with its weights.  Returns the matplotlib axes."""
    from .._sklearn_compat import check_is_fitted
    from .tops import _learner_name
    check_is_fitted(est, "nodes_")
    nodes = est.nodes_
    names = feature_names if feature_names is not None else est.feature_names_expanded_
    leaves = [nd for nd in nodes if nd.is_leaf]
    if path_to is None:
        path_to = max(leaves, key=lambda nd: nd.n_val2).id
    if not 0 <= int(path_to) < len(nodes) or not nodes[path_to].is_leaf:
        raise ValueError(f"path_to must be a terminal node id, got {path_to}")
    chosen = nodes[path_to]
    on_path = set(chosen.path)

    def children(u):
        nd = nodes[u]
        return [] if nd.is_leaf else [nd.left, nd.right]

    def box_text(u):
        nd = nodes[u]
        up = nd.depth - nodes[nd.source].depth
        label = f"{_learner_name(est, nd.learner)}{' ' + '^' * up if up else ''}"
        gain = nd.terminal_gain if nd.is_leaf else nd.improvement
        label += f"\nΔ={gain:.{decimals}f}"
        if u in on_path:
            label += f"\nw={chosen.weights[chosen.path.index(u)]:.{decimals}f}"
        return label

    def edge_text(u, j):
        nd = nodes[u]
        return f"{names[nd.feature]} {'<=' if j == 0 else '>'} {nd.threshold:.{decimals}g}"

    def box_style(u):
        return dict(ec="tab:blue", lw=2) if u in on_path else None

    def edge_style(u, c):
        return dict(color="tab:blue", lw=2.5) if (u in on_path and c in on_path) else None

    return draw_tree([0], children, box_text, edge_text=edge_text, ax=ax, box_style=box_style,
                     edge_style=edge_style, fontsize=fontsize)
