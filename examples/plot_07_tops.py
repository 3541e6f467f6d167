"""
Trees of Predictors
===================

ToPs grows a tree whose nodes each pick a predictor among several base
learners on a validation split, and predicts with a weighted combination of
the predictors along a leaf's path.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from treelab import ToPsClassifier, plot_tops
from treelab.node_models import ConstantModel, LinearModel

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
tops = ToPsClassifier(base_learners=[ConstantModel(), LinearModel()], max_depth=2,
                      random_state=0).fit(X_train, y_train)
print(f"test accuracy {tops.score(X_test, y_test):.3f}")
print(tops.export_text())

# %%
# The tree: each node's predictor, its validation gain and, on the heavy path
# to a leaf, the weights of the predictors that leaf combines.
fig, ax = plt.subplots(figsize=(7, 3))
plot_tops(tops, ax=ax)
plt.show()
