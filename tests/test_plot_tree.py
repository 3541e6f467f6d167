"""treelab.plot_tree: one matplotlib renderer (treelab.learners.plot.draw_tree)
for every treelab tree -- batch trees, model trees, streaming trees, ToPs.
Each node is one boxed text, each edge one label; the labels are those of the
text exports."""
import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from treelab import (  # noqa: E402
    DecisionTreeClassifier, DecisionTreeRegressor, HoeffdingTreeClassifier, SGTClassifier,
    SGTRegressor, ToPsRegressor, export_text, plot_tree,
)
from treelab.learners.export import export_stream_text  # noqa: E402


def _boxes_and_edges(ax):
    from matplotlib.text import Annotation
    texts = [t for t in ax.texts if not isinstance(t, Annotation)]      # arrows are annotations
    boxes = [t.get_text() for t in texts if t.get_bbox_patch() is not None]
    edges = [t.get_text() for t in texts if t.get_bbox_patch() is None
             and not t.get_text().startswith("tree ")]
    return boxes, edges


def _data(n=200, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 3)
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.3)).astype(int)
    return X, y


def _export_tests(text):
    """The edge tests of a text export: the '|--- ' lines that are not leaves."""
    out = []
    for line in text.splitlines():
        body = line.split("|--- ")[-1]
        if not body.startswith(("class:", "value:", "model:", "score:", "truncated")):
            out.append(body)
    return out


def test_plot_tree_batch_classifier_boxes_and_labels():
    import matplotlib.pyplot as plt
    X, y = _data()
    est = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    ax = plot_tree(est)
    boxes, edges = _boxes_and_edges(ax)
    n_nodes = est.tree_.node_count
    assert len(boxes) == n_nodes == 7
    assert len(edges) == n_nodes - 1
    assert sorted(edges) == sorted(_export_tests(export_text(est)))
    leaves = [b for b in boxes if b.startswith("class:")]
    assert len(leaves) == est.tree_.n_leaves
    assert f"node 0\nsamples = {int(est.tree_.n_node_samples[0])}" in boxes
    plt.close("all")


def test_plot_tree_regressor_model_tree_and_depth_limit():
    import matplotlib.pyplot as plt
    rng = np.random.RandomState(1)
    X = rng.rand(150, 2)
    y = np.where(X[:, 0] > 0.5, 3 * X[:, 1], -X[:, 1])
    est = DecisionTreeRegressor(max_depth=1, leaf_model="linear").fit(X, y)
    boxes, edges = _boxes_and_edges(plot_tree(est))
    assert len(boxes) == 3 and len(edges) == 2
    assert sum(b.startswith("Linear(") for b in boxes) == 2
    deep = DecisionTreeRegressor(max_depth=4).fit(X, y)
    boxes, edges = _boxes_and_edges(plot_tree(deep, max_depth=1))
    assert len(boxes) == 3 and len(edges) == 2
    assert sum(b.startswith("...") for b in boxes) == 2
    plt.close("all")


def test_plot_tree_streaming_trees():
    import matplotlib.pyplot as plt
    X, y = _data(3000, 2)
    ht = HoeffdingTreeClassifier(grace_period=100).fit(X, y)
    boxes, edges = _boxes_and_edges(plot_tree(ht))
    n = ht._forest.sizes[0]
    assert len(boxes) == n and len(edges) == n - 1
    assert sorted(edges) == sorted(_export_tests(export_stream_text(ht)))
    sgt = SGTRegressor().fit(X, X[:, 0] * 3 + y)
    boxes, edges = _boxes_and_edges(plot_tree(sgt))
    assert len(edges) == len(boxes) - 1
    assert sorted(edges) == sorted(_export_tests(export_stream_text(sgt)))
    y3 = np.digitize(X[:, 0], [0.33, 0.66])
    sgt3 = SGTClassifier().fit(X, y3)
    ax = plot_tree(sgt3)
    titles = [t.get_text() for t in ax.texts if t.get_text().startswith("tree ")]
    assert len(titles) == len(sgt3._roots) == 2
    all_boxes = _boxes_and_edges(ax)[0]
    b0 = _boxes_and_edges(plot_tree(sgt3, tree=0))[0]
    b1 = _boxes_and_edges(plot_tree(sgt3, tree=1))[0]
    assert len(b0) + len(b1) == len(all_boxes)
    with pytest.raises(ValueError, match="tree must be"):
        plot_tree(sgt3, tree=5)
    plt.close("all")


def test_plot_tree_tops_goes_through_the_same_renderer():
    import matplotlib.pyplot as plt
    X, y = _data(300, 3)
    yr = X[:, 0] + np.where(X[:, 1] > 0.5, X[:, 2], 0)
    est = ToPsRegressor(base_learners=["constant", "linear"], random_state=0).fit(X, yr)
    boxes, edges = _boxes_and_edges(plot_tree(est))
    assert len(boxes) == len(est.nodes_) and len(edges) == len(est.nodes_) - 1
    with pytest.raises(TypeError, match="unexpected keyword"):
        plot_tree(DecisionTreeClassifier().fit(X, y), path_to=0)
    plt.close("all")


def test_plot_tree_unfitted_raises():
    from treelab._sklearn_compat import _not_fitted_error_class
    with pytest.raises(_not_fitted_error_class()):
        plot_tree(DecisionTreeClassifier())
