"""Text export of fitted trees and the textbook trees of the teaching data sets.

* ``export_text`` of a numeric tree lists the same thresholds and classes, in
  the same order, as scikit-learn's ``export_text`` of the same tree;
* ID3 on Quinlan's play-tennis table grows the textbook tree (outlook at the
  root; sunny -> humidity; overcast -> yes; rain -> wind);
* ID3 on the course's loan table puts A2 (spending-income ratio) at the root
  as the information table says; the whole tree is checked against class
  counts worked out by hand below;
* English and Chinese names render correctly; ``get_depth``,
  ``get_n_leaves``; ``feature_importances_`` sum to 1.
"""
import math
import re

import numpy as np
import pandas as pd
import pytest

from treelab import (
    C45Classifier, CARTClassifier, DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier,
    export_text,
)
from treelab.datasets import load_loan, load_play_tennis
from treelab.teaching import information_table

NAMES = ["alpha", "beta", "gamma", "delta"]
SPLIT_RE = re.compile(r"^[| ]*\|--- (\w+) (<=|>) +(-?\d+\.\d+)\s*$")
LEAF_RE = re.compile(r"^[| ]*\|--- (class|value): (.+?)\s*$")


def parse(text):
    """(depth, kind, payload) per line: splits as (feature, op, threshold), leaves as value."""
    out = []
    for line in text.splitlines():
        depth = line.index("|---") // 4
        m = SPLIT_RE.match(line)
        if m:
            out.append((depth, "split", (m.group(1), m.group(2), float(m.group(3)))))
            continue
        m = LEAF_RE.match(line)
        assert m, f"unexpected line {line!r}"
        out.append((depth, "leaf", m.group(2)))
    return out


def numeric_data(seed, n=300):
    # multiples of 1/1024 are exact in float32, which scikit-learn's trees use
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 1024, (n, 4)) / 1024
    y = ((X[:, 0] > 0.4) & (X[:, 1] < 0.7)).astype(int) + (X[:, 2] > 0.8)
    y = np.where(rng.rand(n) < 0.1, rng.randint(0, 3, n), y)
    return X, y


# --------------------------------------------------------- vs scikit-learn
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_numeric_tree_export_matches_scikit_learn(seed):
    sk_tree = pytest.importorskip("sklearn.tree")
    X, y = numeric_data(seed)
    sk = sk_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tl = DecisionTreeClassifier(max_depth=3).fit(X, y)
    # the same tree (no exactly tied splits in these data sets)
    np.testing.assert_array_equal(np.sort(sk.tree_.threshold[sk.tree_.feature >= 0]),
                                  np.sort(tl.tree_.threshold[tl.tree_.kind != 0]))
    a = parse(sk_tree.export_text(sk, feature_names=NAMES, decimals=4))
    # scikit-learn does not print where missing values go nor mark ties (it also
    # predicts the first tied class)
    b = parse(export_text(tl, feature_names=NAMES, decimals=4, show_missing=False)
              .replace(" (tie: first in class order)", ""))
    assert a == b
    assert tl.export_text(feature_names=NAMES, decimals=4) == export_text(
        tl, feature_names=NAMES, decimals=4)
    # both export the same number of lines for every depth limit
    for md in (0, 1, 2):
        assert len(export_text(tl, feature_names=NAMES, max_depth=md).splitlines()) == \
            len(sk_tree.export_text(sk, feature_names=NAMES, max_depth=md).splitlines())


def test_regression_tree_export_matches_scikit_learn():
    sk_tree = pytest.importorskip("sklearn.tree")
    X, _ = numeric_data(7)
    rng = np.random.RandomState(7)
    y = np.round(3 * X[:, 0] + (X[:, 1] > 0.5) + rng.randn(len(X)) * 0.1, 3)
    sk = sk_tree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    tl = DecisionTreeRegressor(max_depth=3).fit(X, y)
    a = parse(sk_tree.export_text(sk, feature_names=NAMES, decimals=3))
    b = parse(export_text(tl, feature_names=NAMES, decimals=3, show_missing=False))
    assert [t[:2] + ((t[2],) if t[1] == "split" else ()) for t in a] == \
        [t[:2] + ((t[2],) if t[1] == "split" else ()) for t in b]
    # leaf values agree to the printed decimals (scikit-learn prints [v])
    va = [float(v.strip("[]")) for _, k, v in a if k == "leaf"]
    vb = [float(v.strip("[]")) for _, k, v in b if k == "leaf"]
    np.testing.assert_allclose(va, vb, atol=1.5e-3)


def test_export_text_options_and_errors():
    X, y = numeric_data(0)
    est = DecisionTreeClassifier(max_depth=2).fit(X, y)
    txt = export_text(est)
    assert "feature_0" in txt and "class: " in txt
    named = export_text(est, feature_names=NAMES, class_names=["zero", "one", "two"],
                        show_weights=True, decimals=1)
    assert re.search(r"class: (zero|one|two) \(weights: \[\d+\.\d, \d+\.\d, \d+\.\d\]\)", named)
    assert "|--- truncated" in export_text(est, max_depth=0)
    with pytest.raises(ValueError, match=r"feature_names must have 4 entries, got 2"):
        export_text(est, feature_names=["a", "b"])
    # leaf weights shown are the training class counts of the leaf
    counts = [list(map(float, m.group(1).split(", ")))
              for m in re.finditer(r"weights: \[([^\]]+)\]", export_text(est, show_weights=True))]
    assert np.sum(counts, axis=0).tolist() == np.bincount(y).astype(float).tolist()


def test_missing_values_are_marked_in_the_export():
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan], [np.nan]])
    y = np.array([0, 0, 0, 1, 1, 1])
    txt = export_text(DecisionTreeClassifier().fit(X, y))
    assert txt == ("|--- feature_0 is not missing\n|   |--- class: 0\n"
                   "|--- feature_0 is missing\n|   |--- class: 1\n")
    X = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 0, 0])
    lines = export_text(DecisionTreeClassifier().fit(X, y)).splitlines()
    assert lines[0] == "|--- feature_0 <= 2.500 (or missing)"
    assert lines[2] == "|--- feature_0 >  2.500"
    # the feature never had missing values: by default the branch that would take them
    # (the larger child, here the first on a tie of sizes) is still marked, as the
    # streaming export does; show_missing=False marks only features that had missing values
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    est = DecisionTreeClassifier().fit(X, [0, 0, 1, 1, 1])
    assert export_text(est) == ("|--- feature_0 <= 2.500\n|   |--- class: 0\n"
                                "|--- feature_0 >  2.500 (or missing)\n|   |--- class: 1\n")
    assert est.predict([[np.nan]]).tolist() == [1]
    assert "missing" not in export_text(est, show_missing=False)
    # nominal splits: missing values and categories unseen at the node share a branch
    Xn = pd.DataFrame({"c": pd.Categorical(["a", "a", "b", "b", "b"], categories=["a", "b", "z"])})
    est = DecisionTreeClassifier(nominal_split="multiway").fit(Xn, [0, 0, 1, 1, 1])
    assert export_text(est) == ("|--- c = a\n|   |--- class: 0\n"
                                "|--- c = b (or missing/unseen)\n|   |--- class: 1\n")
    unseen = pd.DataFrame({"c": pd.Categorical(["z", None], categories=["a", "b", "z"])})
    assert est.predict(unseen).tolist() == [1, 1]


def test_ties_resolved_by_class_order_are_marked():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    est = DecisionTreeClassifier().fit(X, ["b", "a", "b", "b", "b"])
    lines = export_text(est, show_weights=True, decimals=0).splitlines()
    # the x <= 0.5 leaf holds one "a" and one "b": argmax takes the first class, "a"
    assert lines[1] == "|   |--- class: a (weights: [1, 1]) (tie: first in class order)"
    assert lines[3] == "|   |--- class: b (weights: [0, 3])"
    assert est.predict([[0.0]]).tolist() == ["a"]
    assert "tie" not in export_text(DecisionTreeClassifier().fit(X, ["a", "a", "b", "b", "b"]))


# ---------------------------------------------------------- play tennis
PLAY_TENNIS_TREE = """\
|--- outlook = sunny (or missing/unseen)
|   |--- humidity = high (or missing/unseen)
|   |   |--- class: no
|   |--- humidity = normal
|   |   |--- class: yes
|--- outlook = overcast
|   |--- class: yes
|--- outlook = rain
|   |--- wind = weak (or missing/unseen)
|   |   |--- class: yes
|   |--- wind = strong
|   |   |--- class: no
"""


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_id3_grows_quinlans_play_tennis_tree(splitter):
    X, y = load_play_tennis(return_X_y=True)
    est = ID3Classifier(splitter=splitter).fit(X, y)
    assert est.export_text() == PLAY_TENNIS_TREE
    a = est.tree_.arrays
    cols = list(X.columns)
    assert cols[a.feature[0]] == "outlook" and a.n_children[0] == 3
    sunny, overcast, rain = a.first_child[0] + np.arange(3)
    assert cols[a.feature[sunny]] == "humidity"
    assert a.kind[overcast] == 0
    assert cols[a.feature[rain]] == "wind"
    assert est.get_depth() == 2 and est.get_n_leaves() == 5
    assert est.score(X, y) == 1.0
    fi = est.feature_importances_
    assert fi.sum() == pytest.approx(1.0) and np.all(fi >= 0)
    # by hand (weighted entropy decrease): outlook 14 H(9,5) - 10 H(3,2); humidity
    # and wind each 5 H(3,2) (they make their branches pure); temperature 0
    dec = {"outlook": 14 * _entropy(9, 5) - 10 * _entropy(3, 2),
           "temperature": 0.0, "humidity": 5 * _entropy(3, 2), "wind": 5 * _entropy(3, 2)}
    total = sum(dec.values())
    np.testing.assert_allclose(fi, [dec[c] / total for c in cols], rtol=1e-12)
    # the class counts at the leaves: sunny-high 0/3, sunny-normal 2/0, overcast 4/0, ...
    assert export_text(est, show_weights=True, decimals=0).count("weights") == 5
    # the information table agrees on the root
    assert information_table(X, y)["I(D;A)"].idxmax() == "outlook"


def test_c45_and_cart_on_play_tennis():
    X, y = load_play_tennis(return_X_y=True)
    c45 = C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    assert c45.export_text() == PLAY_TENNIS_TREE          # gain ratio picks the same tests
    cart = CARTClassifier().fit(X, y)
    assert cart.score(X, y) == 1.0
    for line in cart.export_text().splitlines():
        if "class:" not in line:
            assert re.match(r"^[| ]*\|--- \w+ (= \w+|in \{\w+(, \w+)+\})"
                            r"( \(or missing/unseen\))?$", line), line
    assert all(cart.tree_.arrays.n_children[cart.tree_.arrays.kind != 0] == 2)


# ------------------------------------------------------------------ loan
def _entropy(*counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def test_loan_tree_checked_by_hand():
    """Hand check of the ID3 tree from the class counts of the slides' loan table.

    Root (10 yes / 5 no, H = 0.918): gains A1 age 0.085, A2 spending-income
    ratio 0.411, A3 outstanding loans 0.151 -> A2 (the slides' I(D;A_max)).
    A2 = moderate: 6 yes / 0 no, a pure leaf "yes".  A2 = normal (rows 6, 10,
    12, 14, 15): 2 yes / 3 no (H = 0.971); age: old 1/0, middle-aged 1/3,
    gain 0.971 - 4/5 H(1,3) = 0.322; loans: low 2/2, high 0/1, gain 0.171 ->
    age.  normal/middle-aged (10, 12, 14, 15): loans low 1/2, high 0/1, gain
    H(1,3) - 3/4 H(1,2) = 0.123 -> loans; normal/middle-aged/low holds three
    rows equal in every attribute (1 yes / 2 no) -> leaf "no".  A2 = high (row
    1): leaf "no".  A2 = excessive (rows 7, 9, 13): 2 yes / 1 no; age (young
    1/0, middle-aged 1/1) and loans (low 1/0, medium 1/1) tie at gain 0.252 and
    the first column, age, wins; excessive/middle-aged holds rows 7 and 13,
    equal in every attribute, 1 yes / 1 no: a tie, which predicts the first
    class in sorted order, "no".
    """
    df = load_loan()
    yes = df["approved"] == "yes"
    assert _entropy(yes.sum(), (~yes).sum()) == pytest.approx(0.918, abs=5e-4)

    def gain(part, col):
        h = sum(len(g) / len(part) * _entropy((g["approved"] == "yes").sum(),
                                               (g["approved"] == "no").sum())
                for _, g in part.groupby(col, observed=True))
        return _entropy((part["approved"] == "yes").sum(), (part["approved"] == "no").sum()) - h

    cols = ["age", "spending_income_ratio", "outstanding_loans"]
    assert {c: gain(df, c) for c in cols} == pytest.approx(
        {"age": 0.085, "spending_income_ratio": 0.411, "outstanding_loans": 0.151}, abs=5e-4)
    normal = df[df["spending_income_ratio"] == "normal"]
    assert normal.index.tolist() == [5, 9, 11, 13, 14]          # the slides' rows 6, 10, 12, 14, 15
    assert gain(normal, "age") == pytest.approx(_entropy(2, 3) - 0.8 * _entropy(1, 3), abs=1e-12)
    assert gain(normal, "age") > gain(normal, "outstanding_loans")
    nm = normal[normal["age"] == "middle-aged"]
    assert gain(nm, "outstanding_loans") == pytest.approx(
        _entropy(1, 3) - 0.75 * _entropy(1, 2), abs=1e-12)
    assert nm[nm["outstanding_loans"] == "low"].drop(columns="approved").nunique().tolist() == [1] * 3
    exc = df[df["spending_income_ratio"] == "excessive"]
    assert gain(exc, "age") == pytest.approx(gain(exc, "outstanding_loans"), abs=1e-12)
    em = exc[exc["age"] == "middle-aged"]
    assert em.drop(columns="approved").nunique().tolist() == [1] * 3
    assert sorted(em["approved"].tolist()) == ["no", "yes"]


LOAN_TREE_EN = """\
|--- spending_income_ratio = moderate (or missing/unseen)
|   |--- class: yes
|--- spending_income_ratio = normal
|   |--- age = middle-aged (or missing/unseen)
|   |   |--- outstanding_loans = low (or missing/unseen)
|   |   |   |--- class: no
|   |   |--- outstanding_loans = high
|   |   |   |--- class: no
|   |--- age = old
|   |   |--- class: yes
|--- spending_income_ratio = high
|   |--- class: no
|--- spending_income_ratio = excessive
|   |--- age = young
|   |   |--- class: yes
|   |--- age = middle-aged (or missing/unseen)
|   |   |--- class: no (tie: first in class order)
"""

LOAN_TREE_ZH = """\
|--- 消费收入比 = 一般 (or missing/unseen)
|   |--- class: 通过 (weights: [0, 6])
|--- 消费收入比 = 正常
|   |--- 年龄 = 中年 (or missing/unseen)
|   |   |--- 未偿还贷款 = 低 (or missing/unseen)
|   |   |   |--- class: 不通过 (weights: [2, 1])
|   |   |--- 未偿还贷款 = 高
|   |   |   |--- class: 不通过 (weights: [1, 0])
|   |--- 年龄 = 老年
|   |   |--- class: 通过 (weights: [0, 1])
|--- 消费收入比 = 高
|   |--- class: 不通过 (weights: [1, 0])
|--- 消费收入比 = 超出
|   |--- 年龄 = 青年
|   |   |--- class: 通过 (weights: [0, 1])
|   |--- 年龄 = 中年 (or missing/unseen)
|   |   |--- class: 不通过 (weights: [1, 1]) (tie: first in class order)
"""


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_id3_on_the_loan_table(splitter):
    X, y = load_loan(return_X_y=True)
    est = ID3Classifier(splitter=splitter).fit(X, y)
    a = est.tree_.arrays
    cols = list(X.columns)
    assert cols[a.feature[0]] == "spending_income_ratio"
    assert information_table(X, y)["I(D;A)"].idxmax() == "spending_income_ratio"
    assert est.export_text() == LOAN_TREE_EN
    # structure: root with 4 children; "normal" splits on age, "excessive" on age
    assert a.n_children[0] == 4
    moderate, normal, high, excessive = a.first_child[0] + np.arange(4)
    assert a.kind[moderate] == 0 and a.kind[high] == 0
    assert cols[a.feature[normal]] == "age" and a.n_children[normal] == 2
    assert cols[a.feature[excessive]] == "age" and a.n_children[excessive] == 2
    # "young" never occurs among the normal rows: it goes where missing values go
    cats = list(X["age"].cat.categories)
    off = a.cat_offset[normal]
    assert a.cat_map[off + cats.index("young")] == -1
    np.testing.assert_array_equal(est.tree_.stats[[moderate, normal, high, excessive]],
                                  [[0, 6], [3, 2], [1, 0], [1, 2]])   # classes (no, yes)
    assert est.get_depth() == 3 and est.get_n_leaves() == 7
    # importances by hand: weighted entropy decrease of each split
    dec_ratio = 15 * _entropy(10, 5) - 5 * _entropy(2, 3) - 3 * _entropy(2, 1)
    dec_age = (5 * _entropy(2, 3) - 4 * _entropy(1, 3)) + (3 * _entropy(2, 1) - 2 * _entropy(1, 1))
    dec_loans = 4 * _entropy(1, 3) - 3 * _entropy(1, 2)
    total = dec_ratio + dec_age + dec_loans
    np.testing.assert_allclose(est.feature_importances_,
                               [dec_age / total, dec_ratio / total, dec_loans / total], rtol=1e-12)
    # training accuracy 13 of 15: normal/middle-aged/low and the excessive/middle-aged tie err
    assert est.score(X, y) == pytest.approx(13 / 15)


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_c45_on_the_loan_table_follows_gain_ratio(splitter, language):
    """C4.5 with Quinlan's minimum-cases rule (MINOBJS = 2: a nominal test needs two
    branches with >= 2 cases): age (1 / 13 / 1 rows) is refused, spending-income
    ratio (6 / 5 / 1 / 3) and outstanding loans (6 / 2 / 3 / 4) are admissible;
    both have at least the average gain of the two (0.281), and the ratio has
    the larger gain ratio, 0.231 vs 0.080 -> 消费收入比 at the root.  Below it
    normal (5 rows) has no admissible test (age 1 / 4, loans 4 / 1), excessive
    (3 rows) is below min_samples_split = 4: four leaves."""
    X, y = load_loan(language, return_X_y=True)
    ratio_col = X.columns[1]
    table = information_table(X, y)
    assert table["gain ratio"].idxmax() == ratio_col
    est = C45Classifier(splitter=splitter, pruning=None).fit(X, y)
    a = est.tree_.arrays
    assert X.columns[a.feature[0]] == ratio_col
    assert est.get_depth() == 1 and est.get_n_leaves() == 4
    np.testing.assert_array_equal(est.tree_.stats[a.first_child[0] + np.arange(4)],
                                  [[0, 6], [3, 2], [1, 0], [1, 2]])
    # every-branch rule (the former behaviour): the ratio's one-row branch "high" makes it
    # inadmissible, and outstanding loans, the only admissible test, takes the root
    old = C45Classifier(splitter=splitter, pruning=None, multiway_min_leaf="all").fit(X, y)
    assert X.columns[old.tree_.arrays.feature[0]] == X.columns[2]
    # ID3 (min_samples_leaf = 1: both rules agree) also puts the ratio at the root
    assert X.columns[ID3Classifier(splitter=splitter).fit(X, y).tree_.arrays.feature[0]] == ratio_col
    assert ID3Classifier(multiway_min_leaf="two").fit(X, y).export_text() == \
        ID3Classifier().fit(X, y).export_text()
    # pessimistic pruning (CF 0.25) folds this small tree into one leaf
    assert C45Classifier(splitter=splitter).fit(X, y).get_n_leaves() == 1


def _admissible_reference(counts, min_leaf, rule):
    """Pure-Python reference of the two minimum-leaf rules for a multiway split."""
    large = sum(c >= min_leaf for c in counts)
    return large >= 2 if rule == "two" else large == len(counts)


def test_multiway_min_leaf_rules_differ_on_a_hand_built_case():
    """Attribute a: values p (6 rows: 6 yes), q (5 rows: 5 no), r (1 row: no) -> branches
    6 / 5 / 1.  Attribute b: values s (8 rows: 6 yes, 2 no), t (4 rows: 4 no) -> 8 / 4.
    With min_samples_leaf = 2, the every-branch rule refuses a (branch r has one row)
    and splits on b; Quinlan's rule admits a (two branches hold >= 2 rows), a pure
    split (information gain 1 bit, Gini gain 0.5, gain ratio 0.755) that beats b
    (0.459 bits, 0.25, 0.5)."""
    a = ["p"] * 6 + ["q"] * 5 + ["r"]
    b = ["s"] * 6 + ["s"] * 2 + ["t"] * 3 + ["t"]
    y = ["yes"] * 6 + ["no"] * 6
    X = pd.DataFrame({"a": pd.Categorical(a), "b": pd.Categorical(b)})
    assert _admissible_reference([6, 5, 1], 2, "all") is False
    assert _admissible_reference([6, 5, 1], 2, "two") is True
    assert _admissible_reference([8, 4], 2, "all") is True
    assert _admissible_reference([11, 1], 2, "two") is False          # one large branch only
    info = information_table(X, y)
    assert info.loc["a", "I(D;A)"] == pytest.approx(1.0)
    assert info.loc["b", "I(D;A)"] == pytest.approx(1 - 8 / 12 * _entropy(6, 2), abs=1e-12)
    for splitter in ("best", "hist"):
        for criterion in ("entropy", "gini", "gain_ratio"):
            kw = dict(criterion=criterion, splitter=splitter, nominal_split="multiway",
                      min_samples_leaf=2, max_depth=1)
            every = DecisionTreeClassifier(**kw).fit(X, y)
            quinlan = DecisionTreeClassifier(multiway_min_leaf="two", **kw).fit(X, y)
            assert every.tree_.arrays.feature[0] == 1, (splitter, criterion)
            assert quinlan.tree_.arrays.feature[0] == 0, (splitter, criterion)
            # the one-row branch is a leaf of one row
            assert sorted(quinlan.tree_.arrays.weighted_n_samples[1:].tolist()) == [1, 5, 6]
    # a split with a single large branch stays refused under both rules: a single leaf
    X1 = pd.DataFrame({"c": pd.Categorical(["u"] * 11 + ["v"])})
    y1 = ["yes"] * 6 + ["no"] * 6
    for rule in ("all", "two"):
        est = DecisionTreeClassifier(nominal_split="multiway", min_samples_leaf=2,
                                     multiway_min_leaf=rule).fit(X1, y1)
        assert est.get_n_leaves() == 1
    # binary subset splits ignore the setting (both children must hold the minimum)
    for rule in ("all", "two"):
        est = DecisionTreeClassifier(min_samples_leaf=2, multiway_min_leaf=rule).fit(X, y)
        assert est.tree_.arrays.weighted_n_samples[1:3].min() >= 2
    with pytest.raises(ValueError, match="multiway_min_leaf must be 'all' or 'two'"):
        DecisionTreeClassifier(multiway_min_leaf="three").fit(X, y)


def test_chinese_names_render_correctly():
    X, y = load_loan("zh", return_X_y=True)
    est = ID3Classifier().fit(X, y)
    assert list(est.feature_names_in_) == ["年龄", "消费收入比", "未偿还贷款"]
    txt = export_text(est, show_weights=True, decimals=0)
    assert txt == LOAN_TREE_ZH
    assert txt.encode("utf-8").decode("utf-8") == txt
    # the same tree as the English table, name for name
    en = ID3Classifier().fit(*load_loan(return_X_y=True))
    translated = txt
    from treelab.datasets import LOAN_TRANSLATION as T
    for zh, e in T["columns"].items():
        translated = translated.replace(zh, e)
    for col, mapping in T["values"].items():
        for zh, e in sorted(mapping.items(), key=lambda kv: -len(kv[0])):
            translated = re.sub(rf"(= |class: ){zh}(?=[ \n])", rf"\g<1>{e}", translated)
    assert re.sub(r" \(weights: [^)]*\)", "", translated) == LOAN_TREE_EN
    np.testing.assert_array_equal(est.tree_.arrays.feature, en.tree_.arrays.feature)
    # English feature / class names given explicitly on the Chinese fit
    txt = export_text(est, feature_names=["age", "ratio", "loans"], class_names=["no", "yes"])
    assert txt.splitlines()[0] == "|--- ratio = 一般 (or missing/unseen)"
    assert "|   |--- class: yes" in txt and "loans = 低" in txt
    # predicting with Chinese category values
    row = pd.DataFrame({"年龄": pd.Categorical(["青年"]), "消费收入比": pd.Categorical(["一般"]),
                        "未偿还贷款": pd.Categorical(["高"])})
    assert est.predict(row).tolist() == ["通过"]


def test_mixed_numeric_and_nominal_export():
    rng = np.random.RandomState(0)
    n = 120
    X = pd.DataFrame({"température": np.round(rng.rand(n) * 30, 1),
                      "天气": pd.Categorical(rng.choice(["晴", "雨", "阴"], n))})
    y = np.where((X["天气"] == "雨") | (X["température"] > 20), "stay", "go")
    est = ID3Classifier().fit(X, y)
    txt = est.export_text()
    assert re.search(r"天气 = 雨", txt)
    assert re.search(r"température <= \d+\.\d{3}( \(or missing\))?\n", txt) and "température >  " in txt
    assert est.score(X, y) == 1.0
    assert est.get_n_leaves() == txt.count("class:")
    assert est.get_depth() == max(line.index("|---") // 4 for line in txt.splitlines()
                                  if "class:" in line)
    assert est.feature_importances_.sum() == pytest.approx(1.0)


def test_feature_importances_of_a_single_leaf_and_of_numeric_trees():
    X, y = numeric_data(0)
    est = DecisionTreeClassifier(max_depth=4).fit(X, y)
    fi = est.feature_importances_
    assert fi.shape == (4,) and fi.sum() == pytest.approx(1.0) and np.all(fi >= 0)
    assert fi[3] < fi[0]                                  # delta is (almost) noise
    reg = DecisionTreeRegressor(max_depth=3).fit(X, X[:, 1] * 2)
    np.testing.assert_allclose(reg.feature_importances_, [0, 1, 0, 0])
    # a tree that cannot split: depth 0, one leaf, all importances 0
    stump = DecisionTreeClassifier().fit(np.ones((6, 2)), [0, 1, 0, 1, 0, 1])
    assert stump.get_depth() == 0 and stump.get_n_leaves() == 1
    assert stump.feature_importances_.tolist() == [0.0, 0.0]
    assert export_text(stump) == "|--- class: 0 (tie: first in class order)\n"   # 3 vs 3


# ----------------------------------------------------------- streaming trees as text
def _stream_data(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.random(n) * 10, "b": rng.random(n)})
    X["c"] = pd.Categorical(rng.choice(["red", "green", "blue"], n))
    y = ((X["a"] > 3.7) & (X["c"] != "red")).astype(int).to_numpy()
    return X, y


def test_streaming_export_text_reads_in_data_units_and_matches_routing():
    from treelab import HoeffdingTreeClassifier
    from treelab._engine.tree import leaf_from
    from treelab.data import encode_X
    X, y = _stream_data()
    m = HoeffdingTreeClassifier(grace_period=50, delta=1e-3).fit(X, y)
    text = m.export_text(show_weights=True, decimals=6)
    first = text.splitlines()[0]
    match = re.fullmatch(r"\|--- a <  ([0-9.]+)", first)
    assert match, text
    edge = float(match.group(1))
    w = (m._hi[0] - m._lo[0]) / m.max_bins
    assert abs(edge - 3.7) <= w                          # the bin edge next to the truth
    rows = pd.DataFrame({"a": [edge - 1e-4, edge + 1e-4], "b": [0.5, 0.5],
                         "c": pd.Categorical(["blue", "blue"], categories=X["c"].cat.categories)})
    codes = m._codes(encode_X(rows, m._encoding, "test", allow_nan=True))
    t = m._forest
    left, right = t.first_child[0], t.first_child[0] + 1
    below, above = leaf_from(t, 0, codes[0]), leaf_from(t, 0, codes[1])
    assert below == left and above != left and (above == right or t.parent[above] == right)
    for name in ("c = red", "c = green", "c = blue", "(or missing)", "counts: ["):
        assert name in text
    assert "class: 0" in text and "class: 1" in text


def test_streaming_export_text_sgt_trees_and_errors():
    from treelab import HoeffdingTreeClassifier, SGTClassifier, SGTRegressor
    X, y = _stream_data()
    y3 = np.where(X["a"] > 5, 2, np.where(X["b"] > 0.5, 1, 0))
    s = SGTClassifier(grace_period=50, delta=1e-3).fit(X, y3)
    text = s.export_text()
    assert "tree 0 (score of class 0 against class 2):" in text
    assert "tree 1 (score of class 1 against class 2):" in text and "score: " in text
    one = s.export_text(tree=1)
    assert "tree 1" in one and "tree 0" not in one
    with pytest.raises(ValueError, match="tree must be"):
        s.export_text(tree=2)
    with pytest.raises(ValueError, match="feature_names must have 3"):
        s.export_text(feature_names=["x"])
    assert "|--- truncated" in s.export_text(max_depth=0)
    r = SGTRegressor(grace_period=50, delta=1e-3).fit(X, X["a"].to_numpy() * 2)
    assert "value: " in r.export_text() and "tree 0" not in r.export_text()
    assert r.export_text(feature_names=["x1", "x2", "x3"]).startswith("|--- x1 ")
    buffering = HoeffdingTreeClassifier(classes=[0, 1]).partial_fit(X.iloc[:10], y[:10])
    with pytest.raises(ValueError, match="still collecting"):      # NotFittedError
        buffering.export_text()
