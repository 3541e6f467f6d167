"""``treelab demo``: the decision-tree lab of a data-mining course, worked on the
tables of the course's decision-tree chapter (chapter 5 of the course).

The text it prints is deterministic (fixed seeds, no timings) and is pinned by
``tests/test_demo_golden.py``; every number uses one format: quantities with
3 decimals (entropies in bits), rates in percent with 2 decimals, counts as
integers.
"""
from __future__ import annotations

import numpy as np

__all__ = ["run_demo"]


class _Text(list):
    """The demo's lines; :meth:`say` adds prose wrapped at 100 columns (tables and
    trees are added unwrapped with ``append``)."""

    def say(self, text):
        import textwrap
        self.extend(textwrap.wrap(text, width=100, break_on_hyphens=False,
                                  break_long_words=False) or [""])


def _num(v):
    """Every non-count number of the demo: 3 decimals."""
    return f"{v:.3f}"


def _pct(v):
    """Every rate of the demo: percent with 2 decimals (as the slides)."""
    return f"{100.0 * v:.2f} %"


def _leaves(n):
    return f"{n} leaf" if n == 1 else f"{n} leaves"


def _counts(values):
    return "[" + ", ".join(str(int(round(v))) for v in values) + "]"


def _order(classes):
    return "[" + ", ".join(str(c) for c in classes) + "]"


def _title(text, out):
    from .teaching import display_width
    out.append("")
    out.append(text)
    out.append("=" * display_width(text))


def _tree_legend(classes):
    return (f"(leaf weights are class counts in the order {_order(classes)}; "
            "'(tie: first in class order)' marks a leaf whose counts tie, which predicts the "
            f"first tied class of {_order(classes)}; '(or missing/unseen)' marks the branch that "
            "takes missing values and values not seen at that node in training)")


def _loan_section(language, out):
    from . import C45Classifier, ID3Classifier
    from .datasets import load_loan
    from .teaching import attribute_counts, information_table, text_table

    X, y = load_loan(language=language, return_X_y=True)
    classes = [str(c) for c in np.unique(np.asarray(y.astype(object)))]
    _title("1. The course's loan-approval table (15 rows): information gain and gain ratio", out)
    number = "序号" if language == "zh" else "no."
    header = [number] + [str(c) for c in X.columns] + [str(y.name)]
    rows = [[str(i + 1)] + [str(v) for v in X.iloc[i]] + [str(y.iloc[i])] for i in range(len(y))]
    out.append(text_table(header, rows, align=">" + "<" * (len(header) - 1)))

    y_counts = [int((y == c).sum()) for c in classes]
    table = information_table(X, y)
    h_d = float(table["H(D)"].iloc[0])
    out.append("")
    out.say(f"H(D) = {_num(h_d)}   (class counts {_order(classes)} = {_counts(y_counts)}; "
            "entropies in bits, log base 2)")
    out.append("")
    out.say(f"Class counts per value, in the order {_order(classes)}, and the entropy "
            "H(D_v) of each value's rows:")
    rows = []
    for name in X.columns:
        counts, _ = attribute_counts(X[name], y)
        for value, r in counts.iterrows():
            rows.append([str(name), str(value), str(int(r["rows"])),
                         _counts([r[c] for c in classes]), _num(r["H(D_v)"])])
    out.append(text_table(["attribute", "value", "rows", f"counts {_order(classes)}", "H(D_v)"],
                          rows, align="<<>>>"))
    out.append("")
    out.say("Per attribute A: H(D|A) = sum_v |D_v|/|D| H(D_v); information gain "
            "I(D;A) = H(D) - H(D|A) (ID3);")
    out.say("split information H_A(D) = -sum_v |D_v|/|D| log2(|D_v|/|D|) (the entropy of "
            "A's own values); gain ratio = I(D;A) / H_A(D) (C4.5).")
    header = ["attribute", "H(D|A)", "information gain I(D;A)", "split information H_A(D)",
              "gain ratio"]
    rows = [[str(name), _num(r["H(D|A)"]), _num(r["I(D;A)"]), _num(r["H_A(D)"]),
             _num(r["gain ratio"])] for name, r in table.iterrows()]
    out.append(text_table(header, rows))
    best_gain = table["I(D;A)"].idxmax()
    best_ratio = table["gain ratio"].idxmax()
    out.say(f"Largest information gain: {best_gain} ({_num(table.loc[best_gain, 'I(D;A)'])}); "
            f"largest gain ratio: {best_ratio} "
            f"({_num(table.loc[best_ratio, 'gain ratio'])}).")

    out.append("")
    out.say("ID3 tree (information gain, one branch per value of a nominal attribute, "
            "grown until the leaves are pure or cannot be split):")
    id3 = ID3Classifier().fit(X, y)
    out.append(id3.export_text(show_weights=True, decimals=0).rstrip("\n"))
    out.append(f"training accuracy {_pct(id3.score(X, y))}")
    out.say(_tree_legend(classes))

    out.append("")
    c45 = C45Classifier(pruning=None).fit(X, y)
    msl = c45.min_samples_leaf
    refused = []
    for name in X.columns:
        sizes = attribute_counts(X[name], y)[0]["rows"]
        if int((sizes >= msl).sum()) < 2:
            refused.append(f"{name} ({' / '.join(str(int(v)) for v in sizes)} rows)")
    out.say("C4.5 tree (gain ratio among the tests with at least average information gain; "
            f"Quinlan's rule: a nominal test needs at least two branches with >= {msl} rows"
            + (f", so {', '.join(refused)} cannot be the root test" if refused else "")
            + "; no pruning):")
    out.append(c45.export_text(show_weights=True, decimals=0).rstrip("\n"))
    out.append(f"training accuracy {_pct(c45.score(X, y))}")
    pruned = C45Classifier().fit(X, y)
    out.say("After C4.5's pessimistic error-based pruning (confidence 0.25): "
            f"{_leaves(pruned.get_n_leaves())}, depth {pruned.get_depth()}:")
    out.append(pruned.export_text(show_weights=True, decimals=0).rstrip("\n"))
    from ._engine.pruning import add_errs, c45_coefficient, pessimistic
    coeff = c45_coefficient(0.25)
    a = c45.tree_.arrays
    _, est = pessimistic(a, c45.tree_.stats, 0.25, coeff)
    counts = c45.tree_.stats[0]
    e_root = float(counts.sum() - counts.max())
    leaf_est = e_root + add_errs(float(counts.sum()), e_root, 0.25, coeff)
    sub_est = float(sum(est[a.first_child[0] + j] for j in range(a.n_children[0])))
    out.say("(C4.5 estimates the errors of a node as the upper 25 % confidence limit of its "
            f"training errors: {_num(sub_est)} for the {c45.get_n_leaves()} leaves together, "
            f"{_num(leaf_est)} for one leaf in their place, so "
            + ("the leaf replaces the subtree.)" if leaf_est <= sub_est + 0.1
            else "the subtree stays.)"))


def _play_tennis_section(out):
    from . import ID3Classifier
    from .datasets import load_play_tennis
    from .teaching import information_table, text_table

    _title("2. Quinlan's play-tennis table (14 rows)", out)
    X, y = load_play_tennis(return_X_y=True)
    table = information_table(X, y)
    out.append(f"H(D) = {_num(table['H(D)'].iloc[0])}")
    header = ["attribute", "H(D|A)", "information gain I(D;A)", "split information H_A(D)",
              "gain ratio"]
    rows = [[str(name), _num(r["H(D|A)"]), _num(r["I(D;A)"]), _num(r["H_A(D)"]),
             _num(r["gain ratio"])] for name, r in table.iterrows()]
    out.append(text_table(header, rows))
    out.append("")
    out.append("ID3 tree:")
    out.append(ID3Classifier().fit(X, y).export_text().rstrip("\n"))


def _regression_section(language, out):
    from . import CARTRegressor
    from .datasets import load_loan_scores
    from .teaching import regression_split_table, text_table

    _title("3. The course's regression-tree table: the squared-error split search", out)
    X, y = load_loan_scores(language=language, return_X_y=True)
    number = "序号" if language == "zh" else "no."
    header = [number] + [str(c) for c in X.columns] + [str(y.name)]
    rows = [[str(i + 1)] + [f"{v:g}" for v in X.iloc[i]] + [f"{y.iloc[i]:g}"]
            for i in range(len(y))]
    out.append(text_table(header, rows, align=">" * len(header)))
    out.append("")
    out.say("Every split x_j <= s (s halfway between neighbouring values): c1, c2 = mean "
            "score left / right, loss = sum_R1 (y - c1)^2 + sum_R2 (y - c2)^2:")
    splits = regression_split_table(X, y)
    rows = [[r.attribute, _num(r.threshold), str(r.n1), str(r.n2), _num(r.c1), _num(r.c2),
             _num(r.loss)] for r in splits.itertuples()]
    out.append(text_table(["attribute", "s", "n1", "n2", "c1", "c2", "loss"], rows))
    best = splits.loc[splits["loss"].idxmin()]
    out.say(f"Smallest loss: {best['attribute']} <= {_num(best['threshold'])} "
            f"(loss {_num(best['loss'])}; leaves predict {_num(best['c1'])} and "
            f"{_num(best['c2'])}).")
    stump = CARTRegressor(max_depth=1).fit(X, y)
    out.append("CARTRegressor(max_depth=1) makes the same split:")
    out.append(stump.export_text().rstrip("\n"))


def _confusion_section(out):
    from .datasets import load_buy_computer_confusion
    from .evaluation import confusion_summary
    from .teaching import text_table

    _title("4. The course's confusion-matrix example: buy_computer, 10000 test tuples", out)
    C = load_buy_computer_confusion()
    summary = confusion_summary(C)
    labels = list(C.index)
    header = ["actual \\ predicted"] + [f"buy_computer={c}" for c in labels] + [
        "total", "recognition"]
    rows = []
    for name, r in summary.iterrows():
        head = f"buy_computer={name}" if name != "total" else "total"
        rows.append([head] + [str(int(r[c])) for c in labels] + [str(int(r["total"])),
                                                                 _pct(r["recognition (%)"] / 100)])
    out.append(text_table(header, rows))
    acc = summary.loc["total", "recognition (%)"] / 100
    out.say(f"accuracy = (6954 + 2588) / 10000 = {_pct(acc)}; error rate = {_pct(1 - acc)}; "
            "recognition = correct / actual tuples of the class "
            f"(yes: sensitivity {_pct(summary.loc['yes', 'recognition (%)'] / 100)}, "
            f"no: specificity {_pct(summary.loc['no', 'recognition (%)'] / 100)}).")
    out.append("(The slides print 95.52 % as the accuracy; their own counts give 95.42 %.)")


def _breast_cancer_split(out):
    """Breast cancer (scikit-learn's copy) with the demo's fixed stratified 3/4 - 1/4 split.

    Returns ``(X, X_train, X_test, y_train, y_test)``, or None (and says why in
    ``out``) when scikit-learn is not installed.
    """
    from .evaluation import stratified_kfold
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        out.append("scikit-learn is not installed: install treelab with the 'test' extra "
                   "(pip install -e '.[test]') to run this part.")
        return None
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    train, test = stratified_kfold(y.to_numpy(), n_splits=4, random_state=0)[0]
    return X, X.iloc[train], X.iloc[test], y.iloc[train], y.iloc[test]


def _cart_section(out):
    from . import CARTClassifier
    from .evaluation import cross_val_accuracy
    from .teaching import text_table

    _title("5. CART with minimal cost-complexity pruning: breast cancer (scikit-learn data)", out)
    split = _breast_cancer_split(out)
    if split is None:
        return
    X, Xtr, Xte, ytr, yte = split
    full = CARTClassifier(random_state=0).fit(Xtr, ytr)
    path = full.cost_complexity_pruning_path(Xtr, ytr)
    candidates = np.unique(np.round(path["ccp_alphas"][:-1], 6))
    cv = [cross_val_accuracy(CARTClassifier(random_state=0, ccp_alpha=a), Xtr, ytr,
                             n_splits=5).mean() for a in candidates]
    i_best = int(np.argmax(cv))
    best = float(candidates[i_best])
    pruned = CARTClassifier(random_state=0, ccp_alpha=best).fit(Xtr, ytr)
    acc_full, acc_pruned = full.score(Xte, yte), pruned.score(Xte, yte)
    out.append(f"training rows {len(ytr)}, test rows {len(yte)}")
    out.append(f"unpruned tree: {_leaves(full.get_n_leaves())}, depth {full.get_depth()}, "
               f"test accuracy {_pct(acc_full)}")
    out.say(f"ccp_alpha chosen by 5-fold cross-validation on the training rows among "
            f"{len(candidates)} path alphas: {_num(best)} (cross-validated accuracy "
            f"{_pct(cv[i_best])}"
            + (f"; unpruned, alpha 0: {_pct(cv[0])})" if candidates[0] == 0 else ")"))
    out.append(f"pruned tree:   {_leaves(pruned.get_n_leaves())}, depth {pruned.get_depth()}, "
               f"test accuracy {_pct(acc_pruned)}")
    diff = round((acc_pruned - acc_full) * len(yte))
    if diff < 0:
        verdict = (f"{-diff} more test row{'s' if -diff != 1 else ''} wrong than the unpruned "
                   "tree")
    elif diff > 0:
        verdict = f"{diff} fewer test row{'s' if diff != 1 else ''} wrong than the unpruned tree"
    else:
        verdict = "as many test rows right as the unpruned tree"
    out.say(f"Why: alpha is picked by cross-validation on the training rows, not on the test "
            f"rows; the pruned tree gets {verdict} with {pruned.get_n_leaves()} instead of "
            f"{full.get_n_leaves()} leaves (one test row is "
            f"{100.0 / len(yte):.2f} points), a simpler tree that is expected to generalise "
            "about as well.")
    labels = [str(c) for c in pruned.classes_]
    from .evaluation import confusion_matrix
    C = confusion_matrix(yte.to_numpy(), pruned.predict(Xte), labels)
    out.append("")
    out.append("confusion matrix of the pruned tree on the test rows:")
    out.append(text_table(["actual \\ predicted"] + labels,
                          [[lab] + [str(int(v)) for v in C[i]] for i, lab in enumerate(labels)]))
    out.append("")
    out.append("pruned tree:")
    out.append(pruned.export_text(decimals=3).rstrip("\n"))
    imp = [(v, n) for v, n in zip(pruned.feature_importances_, X.columns) if v > 0]
    imp.sort(key=lambda t: (-t[0], t[1]))
    out.say("feature importances (features the tree does not use are left out): "
            + ", ".join(f"{n} {_num(v)}" for v, n in imp))


def _boosting_section(out):
    from . import GradientBoostingClassifier
    from .ensembles import XGBOOST_REGULARISATION
    from .teaching import text_table

    _title("6. Gradient boosting: first order (GBDT) against second order (XGBoost), "
           "breast cancer", out)
    split = _breast_cancer_split(out)
    if split is None:
        return
    X, Xtr, Xte, ytr, yte = split
    out.say("Same training / test rows as section 5; logistic loss, 100 rounds of depth-3 "
            "trees, learning rate 0.1, starting from the log-odds of the training classes. "
            "GBDT (slides 6.8, method='gradient'): each tree fits the negative gradient "
            "y - p by squared error, then every leaf takes one Newton step of the line search "
            "c = argmin sum L(y, f + c). XGBoost (slides 6.9, method='newton'): the tree is "
            "grown with the gain of the second-order expansion (lambda 1) and its leaves "
            "take w* = -G / (H + lambda).")
    # the slides' XGBoost with lambda 1 (XGBoost's defaults; treelab's are HistGB's)
    kw = dict(n_estimators=100, learning_rate=0.1, max_depth=3, random_state=0,
              **XGBOOST_REGULARISATION)
    models = {m: GradientBoostingClassifier(method=m, **kw).fit(Xtr, ytr)
              for m in ("gradient", "newton")}
    staged = {m: list(g.staged_predict_proba(Xte)) for m, g in models.items()}
    yt = yte.to_numpy()
    classes = models["newton"].classes_
    pos = (yt == classes[1]).astype(float)

    def acc(p):
        return float(np.mean(classes[np.argmax(p, axis=1)] == yt))

    def logloss(p):
        q = np.clip(p[:, 1], 1e-15, 1 - 1e-15)
        return float(-np.mean(pos * np.log(q) + (1 - pos) * np.log(1 - q)))
    rows = []
    for k in (1, 5, 10, 25, 50, 100):
        rows.append([str(k)] + [f(staged[m][k - 1]) for m in ("gradient", "newton")
                                for f in (lambda p: _pct(acc(p)), lambda p: _num(logloss(p)))])
    out.append(text_table(["trees", "GBDT accuracy", "GBDT log-loss", "XGBoost accuracy",
                           "XGBoost log-loss"], rows))
    imp = models["newton"].feature_importances_
    top = np.argsort(-imp, kind="stable")[:3]
    out.say("XGBoost's largest gain importances: "
            + ", ".join(f"{X.columns[i]} {_num(imp[i])}" for i in top) + ".")


def run_demo(language="en", stream=None):
    """Print the demo (``language``: labels of the course's tables, "en" or "zh");
    return the text."""
    import sys
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
    out = _Text(["treelab demo: the data-mining course's decision-tree lab "
                 "(tables from the course slides, chapter 5)",
                 "Numbers: 3 decimals (entropies in bits, log base 2); rates in percent with "
                 "2 decimals; counts as integers."])
    _loan_section(language, out)
    _play_tennis_section(out)
    _regression_section(language, out)
    _confusion_section(out)
    _cart_section(out)
    _boosting_section(out)
    text = "\n".join(out) + "\n"
    (stream or sys.stdout).write(text)
    return text
