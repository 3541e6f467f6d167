"""
Gradient boosting
=================

XGBoost-style Newton boosting against Friedman's first-order GBDT on the
breast-cancer data, and a regressor with early stopping on the diabetes data.
"""

from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import train_test_split

from treelab import GradientBoostingClassifier, GradientBoostingRegressor

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
for method in ("newton", "gradient"):
    gb = GradientBoostingClassifier(method=method, n_estimators=30, learning_rate=0.1,
                                    max_depth=3, random_state=0).fit(X_train, y_train)
    print(f"{method:>8}: test accuracy {gb.score(X_test, y_test):.3f}")

# %%
# Regression with early stopping: 20 % of the training rows are held out, and
# boosting stops when their loss has not improved for 10 rounds.
import matplotlib.pyplot as plt

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
reg = GradientBoostingRegressor(n_estimators=200, learning_rate=0.05, max_depth=2,
                                min_samples_leaf=10, validation_fraction=0.2, n_iter_no_change=10,
                                random_state=0).fit(X_train, y_train)
print(f"best round {reg.best_iteration_ + 1} of {reg.n_iter_} grown, "
      f"test R^2 {reg.score(X_test, y_test):.3f}")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(range(1, len(reg.evals_result_) + 1), reg.evals_result_)
ax.axvline(reg.best_iteration_ + 1, color="grey", linestyle="--")
ax.set_xlabel("round")
ax.set_ylabel("validation loss")
fig.tight_layout()
