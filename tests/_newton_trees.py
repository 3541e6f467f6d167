"""Newton trees grown straight on the engine on one thread and on two (the
thread-independence tests of the histogram paths share it)."""
import numpy as np

from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.merit import TASK_DENSE
from treelab._engine.tree import trim
from treelab.split_criteria.gradient import NewtonCriterion


def newton_trees_on_threads(data, sst, w, policy, n_features, yc=None):
    """The trees of the Newton criterion (``reg_lambda=1``) on ``data`` with the
    per-row statistics ``sst`` and weights ``w``, depth 6 (``depthwise``) or 31
    leaves (``lossguide``), grown with ``n_threads`` 1 and 2."""
    crit = NewtonCriterion(reg_lambda=1.0)
    yc = np.zeros(0, np.int64) if yc is None else yc
    trees = []
    for nt in (1, 2):
        P = make_params(TASK_DENSE, 3, 6 if policy == "depthwise" else 50, 2, 1,
                        crit.min_child_weight, 0.0, n_features, False, crit.merit_code,
                        crit.builtin_code,
                        max_leaves=31 if policy == "lossguide" else np.iinfo(np.int64).max,
                        n_threads=nt)
        trees.append(trim(build_tree(data, yc, sst, w, P, crit.impurity, crit.merit,
                                     cp=crit.params, grow_policy=policy)))
    return trees
