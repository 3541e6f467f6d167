"""
Streaming trees: Hoeffding bound against C-Tree
===============================================

Two Hoeffding trees learn a generated stream (RandCBT: a random tree labels
uniform points) one chunk at a time; they differ only in the rule that
decides when a leaf has seen enough instances to split.  The prequential
evaluation tests each chunk before training on it.
"""

import matplotlib.pyplot as plt

from treelab import HoeffdingTreeClassifier
from treelab.split_criteria.rules import CTreeRule
from treelab.streaming import RandCBT, prequential

X, y = RandCBT(n_leaves=8, m_per_leaf=1000, random_state=0).generate()
learners = {
    "Hoeffding bound": HoeffdingTreeClassifier(criterion="gini", grace_period=100),
    "C-Tree (c=0.01)": HoeffdingTreeClassifier(criterion="gini", grace_period=100,
                                               rule=CTreeRule(c=0.01)),
}
fig, ax = plt.subplots(figsize=(5, 3))
for name, learner in learners.items():
    curve = prequential(learner, X, y, metric="accuracy", chunk_size=500, progress=False)
    ax.plot(curve["instances"], curve["accuracy"], label=f"{name}: {learner.n_leaves} leaves")
ax.set_xlabel("instances")
ax.set_ylabel("prequential accuracy")
ax.legend()
fig.tight_layout()

# %%
# The tree the Hoeffding bound grew.
print(learners["Hoeffding bound"].export_text())
