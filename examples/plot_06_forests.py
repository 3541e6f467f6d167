"""
Forests, bagging and AdaBoost
=============================

A random forest with its out-of-bag estimate, extremely randomised trees, a
bagging ensemble of treelab trees and AdaBoost on decision stumps, all on the
breast-cancer data.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from treelab import (AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier,
                     ExtraTreesClassifier, RandomForestClassifier)

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)

rf = RandomForestClassifier(n_estimators=20, oob_score=True, random_state=0).fit(X_train, y_train)
print(f"random forest: OOB {rf.oob_score_:.3f}, test {rf.score(X_test, y_test):.3f}")
et = ExtraTreesClassifier(n_estimators=20, random_state=0).fit(X_train, y_train)
print(f"extra trees: test {et.score(X_test, y_test):.3f}")

# %%
bag = BaggingClassifier(n_estimators=10, oob_score=True, random_state=0).fit(X_train, y_train)
print(f"bagging: OOB {bag.oob_score_:.3f}, test {bag.score(X_test, y_test):.3f}")
ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=20,
                         random_state=0).fit(X_train, y_train)
print(f"AdaBoost: test {ada.score(X_test, y_test):.3f}")
print("first rounds' errors", ada.estimator_errors_[:3].round(3),
      "and vote weights", ada.estimator_weights_[:3].round(3))

# %%
# The forest's impurity-based feature importances.
import matplotlib.pyplot as plt
import numpy as np

top = np.argsort(rf.feature_importances_)[::-1][:8]
names = load_breast_cancer().feature_names
fig, ax = plt.subplots(figsize=(5, 3))
ax.barh([names[i] for i in top][::-1], rf.feature_importances_[top][::-1])
ax.set_xlabel("importance")
fig.tight_layout()
