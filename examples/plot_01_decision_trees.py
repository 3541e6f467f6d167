"""
Decision trees and the teaching lab
===================================

ID3 and C4.5 on the course's loan-approval table (nominal attributes, multiway
splits), the information-gain table behind ID3's first split, and a CART tree
on scikit-learn's breast-cancer data with cost-complexity pruning.
"""

# %%
# The loan table: four nominal attributes (pandas ``category`` columns).
from treelab import C45Classifier, ID3Classifier
from treelab.datasets import load_loan
from treelab.teaching import information_table

X, y = load_loan(return_X_y=True)
print(X.head())

# %%
# Information gain, split information and gain ratio of every attribute at
# the root: ID3 splits on the largest gain, C4.5 on the largest gain ratio
# among attributes of at least average gain.
print(information_table(X, y).round(3))

# %%
# The two trees: one branch per value of a nominal attribute.
id3 = ID3Classifier().fit(X, y)
print(id3.export_text(show_weights=True))
c45 = C45Classifier().fit(X, y)
print(c45.export_text())

# %%
# CART with minimal cost-complexity pruning
# -----------------------------------------
# The pruning path gives the weakest-link sequence of ``ccp_alpha`` values;
# the validation accuracy picks one.
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from treelab import CARTClassifier, plot_tree

X, y = load_breast_cancer(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X, y, stratify=y, random_state=0)
path = CARTClassifier(random_state=0).cost_complexity_pruning_path(X_train, y_train)
alphas = path.ccp_alphas[:-1]
scores = [CARTClassifier(ccp_alpha=a, random_state=0).fit(X_train, y_train).score(X_val, y_val)
          for a in alphas]
best = alphas[max(range(len(scores)), key=scores.__getitem__)]
print(f"best ccp_alpha {best:.4f}, validation accuracy {max(scores):.3f}")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(alphas, scores, marker="o", drawstyle="steps-post")
ax.set_xlabel("ccp_alpha")
ax.set_ylabel("validation accuracy")
fig.tight_layout()

# %%
# The pruned tree's top levels (``x22`` is column 22, "worst perimeter").
pruned = CARTClassifier(ccp_alpha=best, random_state=0).fit(X_train, y_train)
fig, ax = plt.subplots(figsize=(8, 4))
plot_tree(pruned, ax=ax, max_depth=2, feature_names=[f"x{j}" for j in range(X.shape[1])],
          show_missing=False, decimals=2)
plt.show()
