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
    b = parse(export_text(tl, feature_names=NAMES, decimals=4))
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
    b = parse(export_text(tl, feature_names=NAMES, decimals=3))
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
    # no "(or missing)" where the feature never had missing values
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    assert "missing" not in export_text(DecisionTreeClassifier().fit(X, [0, 0, 1, 1]))


# ---------------------------------------------------------- play tennis
PLAY_TENNIS_TREE = """\
|--- outlook = sunny
|   |--- humidity = high
|   |   |--- class: no
|   |--- humidity = normal
|   |   |--- class: yes
|--- outlook = overcast
|   |--- class: yes
|--- outlook = rain
|   |--- wind = weak
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
            assert re.match(r"^[| ]*\|--- \w+ (= \w+|in \{\w+(, \w+)+\})$", line), line
    assert all(cart.tree_.arrays.n_children[cart.tree_.arrays.kind != 0] == 2)


# ------------------------------------------------------------------ loan
def _entropy(*counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def test_loan_tree_checked_by_hand():
    """Hand check of the ID3 tree from the class counts of the loan table.

    Root (10 yes / 5 no, H = 0.918): gains A1 age 0.085, A2 ratio 0.411,
    A3 loans 0.151 -> A2.  A2 = low: 7 yes / 0 no, a pure leaf "yes".
    A2 = medium: 2 yes / 3 no (H = 0.971); all five rows are young, so A1
    cannot split; A3: few 1 yes / 2 no, many 1 yes / 1 no (none absent),
    H(D|A3) = 3/5*0.918 + 2/5*1 = 0.951, gain 0.020 > 0 -> split on A3.  Both
    children are constant in every attribute, so they are leaves: few -> "no"
    (2 vs 1); many is a 1-1 tie and predicts the first class in sorted order,
    "no".  A2 = high: 1 yes / 2 no, all rows young with many loans -> leaf "no".
    """
    df = load_loan()
    yes = df["approved"] == "yes"
    assert _entropy(yes.sum(), (~yes).sum()) == pytest.approx(0.918, abs=5e-4)
    gains = {}
    for col in ["age", "spending_income_ratio", "outstanding_loans"]:
        h = sum(len(g) / len(df) * _entropy((g["approved"] == "yes").sum(),
                                             (g["approved"] == "no").sum())
                for _, g in df.groupby(col, observed=True))
        gains[col] = _entropy(10, 5) - h
    assert gains == pytest.approx({"age": 0.085, "spending_income_ratio": 0.411,
                                   "outstanding_loans": 0.151}, abs=5e-4)
    medium = df[df["spending_income_ratio"] == "medium"]
    assert (medium["approved"] == "yes").sum() == 2 and len(medium) == 5
    assert medium["age"].nunique() == 1
    by_loans = medium.groupby("outstanding_loans", observed=True)["approved"].apply(
        lambda s: ((s == "yes").sum(), (s == "no").sum())).to_dict()
    assert by_loans == {"few": (1, 2), "many": (1, 1)}
    assert _entropy(2, 3) - (3 / 5 * _entropy(1, 2) + 2 / 5 * _entropy(1, 1)) == \
        pytest.approx(0.020, abs=5e-4)
    high = df[df["spending_income_ratio"] == "high"]
    assert high[["age", "outstanding_loans"]].nunique().tolist() == [1, 1]
    assert sorted((high["approved"] == "yes").tolist()) == [False, False, True]


LOAN_TREE_EN = """\
|--- spending_income_ratio = low
|   |--- class: yes
|--- spending_income_ratio = medium
|   |--- outstanding_loans = few
|   |   |--- class: no
|   |--- outstanding_loans = many
|   |   |--- class: no
|--- spending_income_ratio = high
|   |--- class: no
"""

LOAN_TREE_ZH = """\
|--- 支出收入比 = 低
|   |--- class: 是 (weights: [0.000, 7.000])
|--- 支出收入比 = 中
|   |--- 未还贷款 = 少
|   |   |--- class: 否 (weights: [2.000, 1.000])
|   |--- 未还贷款 = 多
|   |   |--- class: 否 (weights: [1.000, 1.000])
|--- 支出收入比 = 高
|   |--- class: 否 (weights: [2.000, 1.000])
"""


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_id3_on_the_loan_table(splitter):
    X, y = load_loan(return_X_y=True)
    est = ID3Classifier(splitter=splitter).fit(X, y)
    a = est.tree_.arrays
    assert list(X.columns)[a.feature[0]] == "spending_income_ratio"
    assert information_table(X, y)["I(D;A)"].idxmax() == "spending_income_ratio"
    assert est.export_text() == LOAN_TREE_EN
    # structure: root with 3 children; only "medium" splits again, on A3, in 2 children
    assert a.n_children[0] == 3
    low, medium, high = a.first_child[0] + np.arange(3)
    assert a.kind[low] == 0 and a.kind[high] == 0
    assert list(X.columns)[a.feature[medium]] == "outstanding_loans" and a.n_children[medium] == 2
    # "none" never occurs among the medium rows: it goes where missing values go
    cats = list(X["outstanding_loans"].cat.categories)
    off = a.cat_offset[medium]
    assert a.cat_map[off + cats.index("none")] == -1
    np.testing.assert_array_equal(est.tree_.stats[[low, medium, high]],
                                  [[0, 7], [3, 2], [2, 1]])          # classes (no, yes)
    assert est.get_depth() == 2 and est.get_n_leaves() == 4
    fi = est.feature_importances_
    assert fi.sum() == pytest.approx(1.0)
    assert fi[0] == 0.0 and fi[1] > fi[2] > 0.0
    # training accuracy 12 of 15: the medium/few, medium/many and high leaves err once each
    assert est.score(X, y) == pytest.approx(12 / 15)


def test_chinese_names_render_correctly():
    X, y = load_loan("zh", return_X_y=True)
    est = ID3Classifier().fit(X, y)
    assert list(est.feature_names_in_) == ["年龄", "支出收入比", "未还贷款"]
    txt = export_text(est, show_weights=True)
    assert txt == LOAN_TREE_ZH
    assert txt.encode("utf-8").decode("utf-8") == txt
    # the same tree as the English table, name for name
    en = ID3Classifier().fit(*load_loan(return_X_y=True))
    translated = txt
    from treelab.datasets import LOAN_TRANSLATION as T
    for zh, e in T["columns"].items():
        translated = translated.replace(zh, e)
    for col, mapping in T["values"].items():
        for zh, e in mapping.items():
            translated = re.sub(rf"(= |class: ){zh}\b", rf"\g<1>{e}", translated)
    assert re.sub(r" \(weights: [^)]*\)", "", translated) == LOAN_TREE_EN
    np.testing.assert_array_equal(est.tree_.arrays.feature, en.tree_.arrays.feature)
    # English feature / class names given explicitly on the Chinese fit
    txt = export_text(est, feature_names=["age", "ratio", "loans"], class_names=["no", "yes"])
    assert txt.splitlines()[0] == "|--- ratio = 低"
    assert "|   |--- class: yes" in txt and "loans = 少" in txt
    # predicting with Chinese category values
    row = pd.DataFrame({"年龄": pd.Categorical(["青年"]), "支出收入比": pd.Categorical(["低"]),
                        "未还贷款": pd.Categorical(["多"])})
    assert est.predict(row).tolist() == ["是"]


def test_mixed_numeric_and_nominal_export():
    rng = np.random.RandomState(0)
    n = 120
    X = pd.DataFrame({"température": np.round(rng.rand(n) * 30, 1),
                      "天气": pd.Categorical(rng.choice(["晴", "雨", "阴"], n))})
    y = np.where((X["天气"] == "雨") | (X["température"] > 20), "stay", "go")
    est = ID3Classifier().fit(X, y)
    txt = est.export_text()
    assert re.search(r"天气 = 雨", txt)
    assert re.search(r"température <= \d+\.\d{3}\n", txt) and "température >  " in txt
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
    assert export_text(stump) == "|--- class: 0\n"


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
    w = (m._hi[0] - m._lo[0]) / m.n_bins
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
