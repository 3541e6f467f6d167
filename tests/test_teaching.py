"""Course-lab tables (treelab.teaching) and the teaching data sets (treelab.datasets)."""
import math

import numpy as np
import pandas as pd
import pytest

from treelab import teaching
from treelab.datasets import load_loan, load_play_tennis
from treelab.split_criteria import impurity
from treelab.teaching import (
    class_entropy, conditional_entropy, gain_ratio, information_gain, information_table,
    print_information_table, split_information,
)


def H(*counts):
    """Hand entropy in bits of a counts vector, written out independently of the kernel."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


# ------------------------------------------------------------------ loaders
@pytest.mark.parametrize("language, target", [("en", "approved"), ("zh", "是否批准")])
def test_load_loan_shape_and_dtypes(language, target):
    df = load_loan(language)
    assert df.shape == (15, 4)
    assert df.columns[-1] == target
    assert all(isinstance(t, pd.CategoricalDtype) for t in df.dtypes)
    X, y = load_loan(language, return_X_y=True)
    assert X.shape == (15, 3) and y.shape == (15,) and y.name == target
    assert isinstance(y.dtype, pd.CategoricalDtype)
    assert sorted(y.value_counts().tolist()) == [5, 10]


def test_load_loan_languages_are_translations():
    en, zh = load_loan("en"), load_loan("zh")
    assert list(en.columns) == ["age", "spending_income_ratio", "outstanding_loans", "approved"]
    assert list(zh.columns) == ["年龄", "支出收入比", "未还贷款", "是否批准"]
    assert list(zh["支出收入比"].cat.categories) == ["低", "中", "高"]
    assert list(en["spending_income_ratio"].cat.categories) == ["low", "medium", "high"]
    # same rows: the category codes agree column by column
    for ce, cz in zip(en.columns, zh.columns):
        np.testing.assert_array_equal(en[ce].cat.codes, zh[cz].cat.codes)
    assert (en["approved"] == "yes").sum() == (zh["是否批准"] == "是").sum() == 10


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
LOAN_EXPECTED = {  # attribute position: (H(D|A), I(D;A)), from the course notes
    0: (0.833, 0.085),
    1: (0.507, 0.411),
    2: (0.767, 0.151),
}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_loan_course_numbers(language):
    X, y = load_loan(language, return_X_y=True)
    table = information_table(X, y).round(3)
    assert list(table.columns) == ["H(D)", "H(D|A)", "I(D;A)", "H_A(D)", "gain ratio"]
    assert (table["H(D)"] == 0.918).all()
    for i, (h_cond, gain) in LOAN_EXPECTED.items():
        assert table["H(D|A)"].iloc[i] == h_cond
        assert table["I(D;A)"].iloc[i] == gain


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
    # loan: 10 yes / 5 no; per attribute (yes, no) counts of each value
    hd = H(10, 5)
    age = [(8, 5), (2, 0)]
    ratio = [(7, 0), (2, 3), (1, 2)]
    loans = [(3, 0), (4, 2), (3, 3)]
    hand = {}
    for name, groups in {"age": age, "spending_income_ratio": ratio,
                         "outstanding_loans": loans}.items():
        h_cond = sum((a + b) / 15 * H(a, b) for a, b in groups)
        split = H(*[a + b for a, b in groups])
        hand[name] = (hd - h_cond) / split
    # e.g. age: (0.918 - 0.833) / H(13/15, 2/15) = 0.0852 / 0.5665 = 0.150
    assert round(hand["age"], 3) == 0.150
    assert round(hand["spending_income_ratio"], 3) == 0.273
    assert round(hand["outstanding_loans"], 3) == 0.099
    table = information_table(*load_loan(return_X_y=True))
    for name, value in hand.items():
        assert table.loc[name, "gain ratio"] == pytest.approx(value, abs=1e-12)

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
    zh = print_information_table(*load_loan("zh", return_X_y=True), title="信息增益表")
    assert zh.splitlines()[0] == "信息增益表" and zh.splitlines()[1] == "=" * 10
    assert "支出收入比" in zh


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
