"""The ``treelab`` command line.

``treelab demo``: the data-mining course's teaching lab (information tables and
ID3 trees on the built-in loan-approval and play-tennis tables) and a CART
tree with cost-complexity pruning on scikit-learn's bundled breast-cancer data.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _rule(title):
    print("\n" + title)
    print("=" * len(title))


def demo(args):
    from . import CARTClassifier, ID3Classifier
    from .datasets import load_loan, load_play_tennis
    from .evaluation import (confusion_matrix, cross_val_accuracy, format_confusion_matrix,
                             stratified_kfold)
    from .teaching import print_information_table

    t0 = time.perf_counter()
    lang = args.language
    _rule("1. Teaching lab: loan approval (15 rows), information gain and gain ratio")
    X, y = load_loan(language=lang, return_X_y=True)
    print(X.assign(**{y.name: y}).to_string())
    print()
    print_information_table(X, y, title="Per-attribute table (log base 2)")
    id3 = ID3Classifier().fit(X, y)
    print("\nID3 tree (multiway splits on nominal attributes, information gain):")
    print(id3.export_text(show_weights=True, decimals=0))

    _rule("2. Teaching lab: Quinlan's play-tennis table (14 rows)")
    X, y = load_play_tennis(return_X_y=True)
    print_information_table(X, y, title="Per-attribute table (log base 2)")
    id3 = ID3Classifier().fit(X, y)
    print("\nID3 tree:")
    print(id3.export_text())

    _rule("3. CART with minimal cost-complexity pruning: breast cancer (scikit-learn data)")
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        print("scikit-learn is not installed: install treelab with the 'test' extra "
              "(pip install -e '.[test]') to run this part.")
        return 0
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    train, test = stratified_kfold(y.to_numpy(), n_splits=4, random_state=0)[0]
    Xtr, Xte, ytr, yte = X.iloc[train], X.iloc[test], y.iloc[train], y.iloc[test]
    full = CARTClassifier(random_state=0).fit(Xtr, ytr)
    path = full.cost_complexity_pruning_path(Xtr, ytr)
    alphas = path["ccp_alphas"][:-1]
    candidates = np.unique(np.round(alphas, 6))
    cv = [cross_val_accuracy(CARTClassifier(random_state=0, ccp_alpha=a), Xtr, ytr,
                             n_splits=5).mean() for a in candidates]
    best = float(candidates[int(np.argmax(cv))])
    pruned = CARTClassifier(random_state=0, ccp_alpha=best).fit(Xtr, ytr)
    print(f"training rows {len(ytr)}, test rows {len(yte)}")
    print(f"unpruned tree: {full.get_n_leaves()} leaves, depth {full.get_depth()}, "
          f"test accuracy {full.score(Xte, yte):.3f}")
    print(f"ccp_alpha chosen by 5-fold cross-validation among {len(candidates)} path alphas: "
          f"{best:.5f}")
    print(f"pruned tree:   {pruned.get_n_leaves()} leaves, depth {pruned.get_depth()}, "
          f"test accuracy {pruned.score(Xte, yte):.3f}")
    labels = list(pruned.classes_)
    print("\nconfusion matrix of the pruned tree on the test rows:")
    print(format_confusion_matrix(confusion_matrix(yte, pruned.predict(Xte), labels), labels))
    print("\npruned tree:")
    print(pruned.export_text(decimals=2))
    imp = sorted(zip(pruned.feature_importances_, X.columns), reverse=True)[:5]
    print("top feature importances: " + ", ".join(f"{n} {v:.3f}" for v, n in imp))
    print(f"\n(demo finished in {time.perf_counter() - t0:.1f} s)")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="treelab", description="treelab command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="teaching lab and a CART example on built-in data")
    p.add_argument("--language", choices=["en", "zh"], default="en",
                   help="language of the loan table's labels (default: en)")
    p.set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
