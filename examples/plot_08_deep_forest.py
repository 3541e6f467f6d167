"""
Deep forest: a cascade of forests
=================================

A cascade forest (gcForest's cascade) on scikit-learn's digits: each level's
forests see the original features and the previous level's class vectors, and
a held-out fraction of the training rows decides how many levels to keep.
"""

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from treelab import CascadeForestClassifier

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
cascade = CascadeForestClassifier(n_estimators=10, max_levels=3, random_state=0).fit(X_train, y_train)
print(f"{cascade.n_levels_} levels, test accuracy {cascade.score(X_test, y_test):.3f}")
for record in cascade.history_:
    print(record["phase"], record["level"], round(record["train_score"], 3))

# %%
# The scores that chose the number of levels: out-of-fold accuracy of the
# class vectors on the growing rows, and accuracy on the held-out rows.
import matplotlib.pyplot as plt

grown = [r for r in cascade.history_ if r["phase"] == "grow"]
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot([r["level"] for r in grown], [r["train_score"] for r in grown], marker="o",
        label="out-of-fold")
ax.plot([r["level"] for r in grown], [r["val_score"] for r in grown], marker="s",
        label="held out")
ax.set_xlabel("level")
ax.set_ylabel("accuracy")
ax.legend()
fig.tight_layout()
