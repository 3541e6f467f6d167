"""
Stochastic Gradient Trees
=========================

An SGT grows from gradient and Hessian statistics and splits when a t-test
says a split lowers the loss.  Here a classifier learns the breast-cancer data
and a regressor the diabetes data, both streamed in chunks with ``partial_fit``.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes

from treelab import SGTClassifier, SGTRegressor

rng = np.random.default_rng(0)
X, y = load_breast_cancer(return_X_y=True)
order = rng.permutation(len(y))
X, y = np.repeat(X[order], 5, axis=0), np.repeat(y[order], 5)   # five passes
clf = SGTClassifier(grace_period=100)
for start in range(0, len(y), 250):
    clf.partial_fit(X[start:start + 250], y[start:start + 250], classes=[0, 1])
print(f"classifier: {clf.n_leaves} leaves, training accuracy {clf.score(X, y):.3f}")

# %%
X, y = load_diabetes(return_X_y=True)
reg = SGTRegressor(grace_period=50)
for _ in range(10):
    reg.partial_fit(X, y)
print(f"regressor: {reg.n_leaves} leaves, training R^2 {reg.score(X, y):.3f}")
