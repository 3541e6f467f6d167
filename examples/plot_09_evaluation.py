"""
Evaluation: confusion matrices and cross-validation
===================================================

treelab's evaluation helpers on the course's buy_computer confusion matrix and
on a cross-validated tree, and the ensemble lesson's majority-vote curve.
"""

from treelab.datasets import load_buy_computer_confusion
from treelab.evaluation import confusion_summary, format_confusion_matrix

cm = load_buy_computer_confusion()
print(cm)
print(confusion_summary(cm))

# %%
# Cross-validated accuracy of a small tree on the iris data, and the pooled
# confusion matrix of its out-of-fold predictions.
import numpy as np
from sklearn.datasets import load_iris

from treelab import DecisionTreeClassifier
from treelab.evaluation import confusion_matrix, cross_val_accuracy, stratified_kfold

X, y = load_iris(return_X_y=True)
tree = DecisionTreeClassifier(max_depth=3, random_state=0)
print("fold accuracies", cross_val_accuracy(tree, X, y, n_splits=5, random_state=0).round(3))
pred = np.empty_like(y)
for train, test in stratified_kfold(y, n_splits=5, random_state=0):
    pred[test] = tree.fit(X[train], y[train]).predict(X[test])
print(format_confusion_matrix(confusion_matrix(y, pred, labels=[0, 1, 2]),
                              labels=load_iris().target_names))

# %%
# The error of a majority vote of independent classifiers, each wrong with
# probability 0.35 or 0.45, against the number of voters.
import matplotlib.pyplot as plt

from treelab.teaching_ensembles import majority_vote_curve

fig, ax = plt.subplots(figsize=(5, 3))
for eps in (0.35, 0.45):
    curve = majority_vote_curve(eps=eps, max_classifiers=51)
    ax.plot(curve["n_classifiers"], curve["error"], label=f"base error {eps}")
ax.set_xlabel("classifiers")
ax.set_ylabel("majority-vote error")
ax.legend()
fig.tight_layout()
