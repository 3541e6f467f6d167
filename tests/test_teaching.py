"""Course-lab tables (treelab.teaching) and the teaching data sets (treelab.datasets)."""
import math

import numpy as np
import pandas as pd
import pytest

from treelab import teaching
from treelab.datasets import (
    load_buy_computer_confusion, load_loan, load_loan_scores, load_play_tennis,
)
from treelab.evaluation import confusion_matrix, confusion_summary
from treelab.split_criteria import impurity
from treelab.teaching import (
    attribute_counts, class_entropy, conditional_entropy, gain_ratio, information_gain,
    information_table, print_information_table, regression_split_table, split_information,
    text_table,
)


def H(*counts):
    """Hand entropy in bits of a counts vector, written out independently of the kernel."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


# ------------------------------------------------------------------ loaders
@pytest.mark.parametrize("language, target", [("en", "approved"), ("zh", "审批")])
def test_load_loan_shape_and_dtypes(language, target):
    df = load_loan(language)
    assert df.shape == (15, 4)
    assert df.columns[-1] == target
    assert all(isinstance(t, pd.CategoricalDtype) for t in df.dtypes)
    X, y = load_loan(language, return_X_y=True)
    assert X.shape == (15, 3) and y.shape == (15,) and y.name == target
    assert isinstance(y.dtype, pd.CategoricalDtype)
    assert sorted(y.value_counts().tolist()) == [5, 10]


# the slides' table (course slides, chapter 5), row by row: 序号 1..15
SLIDES_LOAN = """\
1 中年 高 高 不通过
2 中年 一般 高 通过
3 中年 一般 较高 通过
4 中年 一般 低 通过
5 中年 一般 高 通过
6 老年 正常 低 通过
7 中年 超出 中 通过
8 中年 一般 较高 通过
9 青年 超出 低 通过
10 中年 正常 低 通过
11 中年 一般 较高 通过
12 中年 正常 低 不通过
13 中年 超出 中 不通过
14 中年 正常 高 不通过
15 中年 正常 低 不通过
"""


def test_load_loan_is_the_slides_table():
    zh = load_loan("zh")
    rows = [line.split() for line in SLIDES_LOAN.splitlines()]
    assert [int(r[0]) for r in rows] == list(range(1, 16))
    assert zh.astype(str).values.tolist() == [r[1:] for r in rows]
    assert list(zh.columns) == ["年龄", "消费收入比", "未偿还贷款", "审批"]
    assert list(zh["年龄"].cat.categories) == ["青年", "中年", "老年"]
    assert list(zh["消费收入比"].cat.categories) == ["一般", "正常", "高", "超出"]
    assert list(zh["未偿还贷款"].cat.categories) == ["低", "中", "较高", "高"]
    assert list(zh["审批"].cat.categories) == ["通过", "不通过"]


def test_load_loan_languages_are_translations():
    en, zh = load_loan("en"), load_loan("zh")
    assert list(en.columns) == ["age", "spending_income_ratio", "outstanding_loans", "approved"]
    assert list(en["spending_income_ratio"].cat.categories) == [
        "moderate", "normal", "high", "excessive"]
    assert list(en["outstanding_loans"].cat.categories) == ["low", "medium", "fairly high", "high"]
    assert list(en["age"].cat.categories) == ["young", "middle-aged", "old"]
    # same rows: the category codes agree column by column
    for ce, cz in zip(en.columns, zh.columns):
        np.testing.assert_array_equal(en[ce].cat.codes, zh[cz].cat.codes)
    assert (en["approved"] == "yes").sum() == (zh["审批"] == "通过").sum() == 10


def test_load_loan_bad_language():
    with pytest.raises(ValueError, match="language"):
        load_loan("fr")


def test_load_play_tennis_shape_and_dtypes():
    df = load_play_tennis()
    assert df.shape == (14, 5)
    assert list(df.columns) == ["outlook", "temperature", "humidity", "wind", "play"]
    assert all(isinstance(t, pd.CategoricalDtype) for t in df.dtypes)
    assert df["play"].value_counts().to_dict() == {"yes": 9, "no": 5}
    X, y = load_play_tennis(return_X_y=True)
    assert X.shape == (14, 4) and y.name == "play"


# --------------------------------------------------------------- the numbers
LOAN_EXPECTED = {  # attribute position: H(D|A), I(D;A), H_A(D), gain ratio, as the slides
    0: (0.833, 0.085, 0.700, 0.122),     # A1 年龄 age
    1: (0.507, 0.411, 1.782, 0.231),     # A2 消费收入比 spending-income ratio
    2: (0.767, 0.151, 1.889, 0.080),     # A3 未偿还贷款 outstanding loans
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_loan_course_numbers(language):
    X, y = load_loan(language, return_X_y=True)
    table = information_table(X, y).round(3)
    assert list(table.columns) == ["H(D)", "H(D|A)", "I(D;A)", "H_A(D)", "gain ratio"]
    assert (table["H(D)"] == 0.918).all()
    for i, expected in LOAN_EXPECTED.items():
        assert tuple(table.iloc[i, 1:]) == expected


def test_loan_languages_give_same_numbers():
    t_en = information_table(*load_loan("en", return_X_y=True))
    t_zh = information_table(*load_loan("zh", return_X_y=True))
    np.testing.assert_allclose(t_en.to_numpy(), t_zh.to_numpy(), rtol=0, atol=1e-15)


def test_play_tennis_numbers():
    X, y = load_play_tennis(return_X_y=True)
    table = information_table(X, y).round(3)
    assert (table["H(D)"] == 0.940).all()
    assert table["I(D;A)"].to_dict() == {
        "outlook": 0.247, "temperature": 0.029, "humidity": 0.152, "wind": 0.048}


def test_gain_ratios_by_hand():
    # loan (the slides' computation): 10 yes / 5 no; per attribute the (yes, no)
    # counts of each value, in the slides' value order
    hd = H(10, 5)
    age = [(1, 0), (8, 5), (1, 0)]                    # 青年, 中年, 老年
    ratio = [(6, 0), (2, 3), (0, 1), (2, 1)]          # 一般, 正常, 高, 超出
    loans = [(4, 2), (1, 1), (3, 0), (2, 2)]          # 低, 中, 较高, 高
    hand = {}
    for name, groups in {"age": age, "spending_income_ratio": ratio,
                         "outstanding_loans": loans}.items():
        h_cond = sum((a + b) / 15 * H(a, b) for a, b in groups)
        split = H(*[a + b for a, b in groups])
        hand[name] = (hd - h_cond, split, (hd - h_cond) / split)
    # e.g. age: (0.918 - 0.833) / H(1/15, 13/15, 1/15) = 0.0852 / 0.6998 = 0.122
    assert [round(v, 3) for v in hand["age"]] == [0.085, 0.700, 0.122]
    assert [round(v, 3) for v in hand["spending_income_ratio"]] == [0.411, 1.782, 0.231]
    assert [round(v, 3) for v in hand["outstanding_loans"]] == [0.151, 1.889, 0.080]
    table = information_table(*load_loan(return_X_y=True))
    for name, (gain, split, ratio_) in hand.items():
        assert table.loc[name, "I(D;A)"] == pytest.approx(gain, abs=1e-12)
        assert table.loc[name, "H_A(D)"] == pytest.approx(split, abs=1e-12)
        assert table.loc[name, "gain ratio"] == pytest.approx(ratio_, abs=1e-12)

    # play tennis: 9 yes / 5 no
    hd = H(9, 5)
    outlook = [(2, 3), (4, 0), (3, 2)]          # sunny, overcast, rain
    temperature = [(2, 2), (4, 2), (3, 1)]      # hot, mild, cool
    humidity = [(3, 4), (6, 1)]                 # high, normal
    wind = [(6, 2), (3, 3)]                     # weak, strong
    table = information_table(*load_play_tennis(return_X_y=True))
    for name, groups in {"outlook": outlook, "temperature": temperature,
                         "humidity": humidity, "wind": wind}.items():
        h_cond = sum((a + b) / 14 * H(a, b) for a, b in groups)
        split = H(*[a + b for a, b in groups])
        assert table.loc[name, "H_A(D)"] == pytest.approx(split, abs=1e-12)
        assert table.loc[name, "gain ratio"] == pytest.approx((hd - h_cond) / split, abs=1e-12)
    # Quinlan (1993): outlook 0.247 / 1.577 = 0.156; humidity 0.152 / 1 = 0.152
    assert round(table.loc["outlook", "gain ratio"], 3) == 0.156
    assert round(table.loc["humidity", "gain ratio"], 3) == 0.152


def test_single_concept_functions_match_table():
    X, y = load_play_tennis(return_X_y=True)
    table = information_table(X, y)
    assert class_entropy(y) == pytest.approx(H(9, 5), abs=1e-12)
    for name in X.columns:
        row = table.loc[name]
        assert conditional_entropy(X[name], y) == pytest.approx(row["H(D|A)"], abs=1e-12)
        assert information_gain(X[name], y) == pytest.approx(row["I(D;A)"], abs=1e-12)
        assert split_information(X[name]) == pytest.approx(row["H_A(D)"], abs=1e-12)
        assert gain_ratio(X[name], y) == pytest.approx(row["gain ratio"], abs=1e-12)
    # plain lists work too
    assert information_gain(list(X["wind"].astype(str)), list(y.astype(str))) == \
        pytest.approx(table.loc["wind", "I(D;A)"], abs=1e-12)


def test_uses_engine_entropy_kernel():
    assert teaching._entropy_bits is impurity.entropy


def test_other_log_base_rescales():
    X, y = load_play_tennis(return_X_y=True)
    bits = information_table(X, y)
    nats = information_table(X, y, base=math.e)
    cols = ["H(D)", "H(D|A)", "I(D;A)", "H_A(D)"]
    np.testing.assert_allclose(nats[cols].to_numpy(), bits[cols].to_numpy() * math.log(2))
    np.testing.assert_allclose(nats["gain ratio"], bits["gain ratio"])


def test_constant_attribute_gain_ratio_is_nan():
    X = pd.DataFrame({"c": pd.Categorical(["a"] * 4)})
    table = information_table(X, ["y", "n", "y", "y"])
    assert table.loc["c", "I(D;A)"] == 0.0
    assert math.isnan(table.loc["c", "gain ratio"])


def test_print_information_table(capsys):
    X, y = load_loan(return_X_y=True)
    text = print_information_table(X, y)
    assert capsys.readouterr().out.strip() == text.strip()
    assert text.splitlines()[0].startswith("Information gain table")
    assert "0.411" in text and "0.918" in text and "spending_income_ratio" in text
    assert "information gain I(D;A)" in text and "split information H_A(D)" in text
    zh = print_information_table(*load_loan("zh", return_X_y=True), title="信息增益表")
    assert zh.splitlines()[0] == "信息增益表" and zh.splitlines()[1] == "=" * 10
    lines = zh.splitlines()[2:]
    assert lines[2].startswith("消费收入比 ")
    # the Chinese names take two columns per character: every row is as wide as the header
    widths = {teaching.display_width(line) for line in lines}
    assert widths == {teaching.display_width(lines[0])}, lines


# ---------------------------------------------------------------- bad input
def test_numeric_attribute_is_refused():
    X = pd.DataFrame({"income": [1.0, 2.5, 3.0, 4.0]})
    with pytest.raises(ValueError, match="nominal"):
        information_table(X, ["y", "n", "y", "n"])
    with pytest.raises(ValueError, match="nominal"):
        conditional_entropy([1, 2, 3, 4], ["y", "n", "y", "n"])


@pytest.mark.parametrize("X, y, exc, match", [
    (pd.DataFrame({"a": ["u", "v"]}), ["y"], ValueError, "labels"),
    (pd.DataFrame({"a": ["u", None]}), ["y", "n"], ValueError, "missing"),
    (pd.DataFrame({"a": ["u", "v"]}), ["y", None], ValueError, "missing"),
    (pd.DataFrame(index=range(2)), ["y", "n"], ValueError, "at least one"),
    (np.array([["u"], ["v"]]), ["y", "n"], TypeError, "DataFrame"),
])
def test_bad_input(X, y, exc, match):
    with pytest.raises(exc, match=match):
        information_table(X, y)


@pytest.mark.parametrize("base, exc", [(1, ValueError), (0, ValueError), (-2, ValueError),
                                       ("2", TypeError)])
def test_bad_base(base, exc):
    X, y = load_play_tennis(return_X_y=True)
    with pytest.raises(exc, match="base"):
        information_table(X, y, base=base)


# ---------------------------------------------------- per-value class counts
def test_attribute_counts_are_the_slides_groups():
    X, y = load_loan("zh", return_X_y=True)
    counts, classes = attribute_counts(X["消费收入比"], y)
    assert classes == ["不通过", "通过"]                 # sorted, as a classifier's classes_
    assert list(counts.index) == ["一般", "正常", "高", "超出"]
    assert counts[["rows", "不通过", "通过"]].values.tolist() == [
        [6, 0, 6], [5, 3, 2], [1, 1, 0], [3, 1, 2]]
    np.testing.assert_allclose(counts["H(D_v)"], [0.0, H(3, 2), 0.0, H(1, 2)], atol=1e-12)
    # the weighted sum of H(D_v) is H(D|A) (the slides: 0.507)
    hc = float((counts["rows"] / 15 * counts["H(D_v)"]).sum())
    assert hc == pytest.approx(conditional_entropy(X["消费收入比"], y), abs=1e-12)
    assert round(hc, 3) == 0.507
    # a plain list and values absent from a category column
    counts, classes = attribute_counts(["a", "b", "a"], [1, 2, 2])
    assert classes == [1, 2] and counts.values[:, :3].tolist() == [[2, 1, 1], [1, 0, 1]]
    x = pd.Series(pd.Categorical(["u", "u"], categories=["u", "v"]))
    assert list(attribute_counts(x, ["p", "q"])[0].index) == ["u"]


# ------------------------------------------------------- regression split search
def _brute_force_splits(X, y):
    """Every split x_j <= s written out with Python lists (the slides' loss)."""
    out = []
    for name in X.columns:
        xs = list(X[name])
        values = sorted(set(xs))
        for a, b in zip(values, values[1:]):
            s = (a + b) / 2
            left = [yi for xi, yi in zip(xs, y) if xi <= s]
            right = [yi for xi, yi in zip(xs, y) if xi > s]
            c1, c2 = sum(left) / len(left), sum(right) / len(right)
            loss = sum((v - c1) ** 2 for v in left) + sum((v - c2) ** 2 for v in right)
            out.append((name, s, len(left), len(right), c1, c2, loss))
    return out


def test_load_loan_scores_is_the_slides_table():
    zh = load_loan_scores("zh")
    assert list(zh.columns) == ["未偿还贷款比", "年龄", "消费收入比", "评估分"]
    assert zh.values.tolist() == [[0.7, 35, 0.6, 50], [0.3, 36, 0.7, 85], [0.2, 25, 1.2, 45],
                                  [0.1, 40, 0.3, 90], [0.5, 50, 1.1, 60]]
    X, y = load_loan_scores(return_X_y=True)
    assert list(X.columns) == ["outstanding_loan_ratio", "age", "spending_income_ratio"]
    assert y.name == "score" and y.dtype == np.float64
    with pytest.raises(ValueError, match="language"):
        load_loan_scores("fr")


def test_regression_split_table_by_hand_and_against_cart():
    X, y = load_loan_scores(return_X_y=True)
    table = regression_split_table(X, y)
    ref = _brute_force_splits(X, list(y))
    assert len(table) == len(ref) == 12
    for row, r in zip(table.itertuples(index=False), ref):
        assert row.attribute == r[0] and (row.n1, row.n2) == r[2:4]
        np.testing.assert_allclose([row.threshold, row.c1, row.c2, row.loss], [r[1], *r[4:]],
                                   rtol=1e-12)
    best = table.loc[table["loss"].idxmin()]
    # age <= 35.5: R1 = {25 -> 45, 35 -> 50}, R2 = {36 -> 85, 40 -> 90, 50 -> 60}
    assert best["attribute"] == "age" and best["threshold"] == 35.5
    assert best["c1"] == 47.5 and best["c2"] == pytest.approx(235 / 3, rel=1e-12)
    assert best["loss"] == pytest.approx(12.5 + (85 - 235 / 3) ** 2 + (90 - 235 / 3) ** 2
                                         + (60 - 235 / 3) ** 2, rel=1e-12)
    from treelab import CARTRegressor
    stump = CARTRegressor(max_depth=1).fit(X, y)
    a = stump.tree_.arrays
    assert list(X.columns)[a.feature[0]] == "age" and a.threshold[0] == 35.5
    sk_tree = pytest.importorskip("sklearn.tree")
    sk = sk_tree.DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert sk.tree_.feature[0] == 1 and sk.tree_.threshold[0] == 35.5


def test_regression_split_table_bad_input():
    X, y = load_loan_scores(return_X_y=True)
    with pytest.raises(TypeError, match="DataFrame"):
        regression_split_table(X.to_numpy(), y)
    with pytest.raises(ValueError, match="numeric"):
        regression_split_table(X.assign(age=X["age"].astype(str)), y)
    with pytest.raises(ValueError, match="1-D with 5"):
        regression_split_table(X, y[:3])
    with pytest.raises(ValueError, match="missing"):
        regression_split_table(X, y.where(y > 50))


# -------------------------------------------------------------- aligned tables
def test_text_table_aligns_wide_characters():
    text = text_table(["名称", "n"], [["消费收入比", "6"], ["ab", "12"]])
    lines = text.splitlines()
    assert lines == ["名称         n", "消费收入比   6", "ab          12"]
    assert {teaching.display_width(line) for line in lines} == {14}
    assert teaching.display_width("消费abc") == 7
    assert text_table(["a", "b"], [["x", "y"]], align="><") == "a  b\nx  y"
    with pytest.raises(ValueError, match="2 cells"):
        text_table(["a", "b"], [["x"]])
    with pytest.raises(ValueError, match="align"):
        text_table(["a", "b"], [["x", "y"]], align="<^")


# ---------------------------------------------------------- confusion matrix
def test_buy_computer_confusion_summary():
    C = load_buy_computer_confusion()
    assert C.values.tolist() == [[6954, 46], [412, 2588]]
    assert list(C.index) == list(C.columns) == ["yes", "no"]
    s = confusion_summary(C)
    assert list(s.index) == ["yes", "no", "total"]
    assert list(s.columns) == ["yes", "no", "total", "recognition (%)"]
    assert s[["yes", "no", "total"]].values.tolist() == [[6954, 46, 7000], [412, 2588, 3000],
                                                         [7366, 2634, 10000]]
    # the slides: recognition 99.34 % and 86.27 %; accuracy (6954 + 2588) / 10000 = 95.42 %
    # (the slides print 95.52, which these counts do not give)
    assert s["recognition (%)"].round(2).tolist() == [99.34, 86.27, 95.42]
    assert s.loc["total", "recognition (%)"] == pytest.approx(100 * 9542 / 10000, rel=1e-12)
    # the same from an array with labels, and from predictions
    s2 = confusion_summary(C.to_numpy(), labels=np.array(["yes", "no"]))
    pd.testing.assert_frame_equal(s, s2, check_names=False)
    y_true = ["yes"] * 7000 + ["no"] * 3000
    y_pred = ["yes"] * 6954 + ["no"] * 46 + ["yes"] * 412 + ["no"] * 2588
    assert confusion_matrix(y_true, y_pred, labels=["yes", "no"]).tolist() == C.values.tolist()


def test_confusion_summary_bad_input_and_plain_labels():
    with pytest.raises(ValueError, match="square"):
        confusion_summary(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        confusion_summary(np.array([[1, -1], [0, 1]]))
    with pytest.raises(ValueError, match="no tuples"):
        confusion_summary(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="labels has 3"):
        confusion_summary(np.eye(2), labels=[0, 1, 2])
    s = confusion_summary(np.array([[3, 1], [0, 0]]), labels=np.array([2, 5]))
    assert list(s.index) == [2, 5, "total"] and type(s.index[0]) is int
    assert math.isnan(s.loc[5, "recognition (%)"]) and s.loc["total", "recognition (%)"] == 75.0
