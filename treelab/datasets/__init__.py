"""Data sets: small teaching tables shipped with treelab, and real data sets
downloaded on demand.

The ``load_*`` functions read the teaching tables (UTF-8 CSV files under
``data/``).  The loan table and Quinlan's play-tennis table return every
attribute and the class as pandas ``category`` columns, which treelab's
learners treat as nominal attributes; the course's regression table is numeric.

The ``fetch_*`` functions download a real data set from its public source on
first use, check it and keep it in the data folder (``$TREELAB_DATA``, else
``~/treelab_data``; see :func:`get_data_home`): Electricity, MNIST, MUSK1,
MUSK2, Elephant, Caravan and Spambase.
"""
from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from ._fetch import (  # noqa: E402
    CARAVAN_FEATURES, SPAMBASE_FEATURES, ChecksumError, DatasetUnavailableError, fetch_caravan,
    fetch_electricity, fetch_elephant, fetch_mnist, fetch_musk1, fetch_musk2, fetch_spambase,
    get_data_home,
)

__all__ = ["load_loan", "load_loan_scores", "load_buy_computer_confusion",
           "load_play_tennis", "LOAN_TRANSLATION", "LOAN_SCORES_TRANSLATION",
           "fetch_electricity", "fetch_mnist", "fetch_musk1", "fetch_musk2", "fetch_elephant",
           "fetch_caravan", "fetch_spambase", "get_data_home", "DatasetUnavailableError",
           "ChecksumError", "CARAVAN_FEATURES", "SPAMBASE_FEATURES"]

#: Chinese -> English names of the loan table's columns and values (the values in
#: the order the course slides list them).
LOAN_TRANSLATION = {
    "columns": {
        "年龄": "age",
        "消费收入比": "spending_income_ratio",
        "未偿还贷款": "outstanding_loans",
        "审批": "approved",
    },
    "values": {
        "年龄": {"青年": "young", "中年": "middle-aged", "老年": "old"},
        "消费收入比": {"一般": "moderate", "正常": "normal", "高": "high", "超出": "excessive"},
        "未偿还贷款": {"低": "low", "中": "medium", "较高": "fairly high", "高": "high"},
        "审批": {"通过": "yes", "不通过": "no"},
    },
}

#: Chinese -> English column names of the regression-tree table.
LOAN_SCORES_TRANSLATION = {
    "未偿还贷款比": "outstanding_loan_ratio",
    "年龄": "age",
    "消费收入比": "spending_income_ratio",
    "评估分": "score",
}

_PLAY_TENNIS_CATEGORIES = {
    "outlook": ["sunny", "overcast", "rain"],
    "temperature": ["hot", "mild", "cool"],
    "humidity": ["high", "normal"],
    "wind": ["weak", "strong"],
    "play": ["yes", "no"],
}


def _read_csv(name):
    with resources.files(__name__).joinpath("data", name).open("r", encoding="utf-8") as f:
        return pd.read_csv(f, dtype=str, keep_default_na=False)


def _as_categories(frame, categories):
    """Give each column a ``category`` dtype with the listed category order."""
    out = frame.copy()
    for col, cats in categories.items():
        unknown = set(out[col]) - set(cats)
        if unknown:  # a corrupted data file, not a user error
            raise RuntimeError(f"unexpected values {sorted(unknown)} in column {col!r}")
        out[col] = pd.Categorical(out[col], categories=cats)
    return out


def _finish(frame, target, return_X_y):
    if return_X_y:
        return frame.drop(columns=target), frame[target]
    return frame


def _check_language(language):
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")


def load_loan(language="en", return_X_y=False):
    """The data-mining course's 15-row loan-approval table (course slides,
    chapter 5, "Basic idea of decision tree induction"), rows in the slides' order.

    Attributes 年龄 age (青年 young / 中年 middle-aged / 老年 old), 消费收入比
    spending-income ratio (一般 moderate / 正常 normal / 高 high / 超出
    excessive) and 未偿还贷款 outstanding loans (低 low / 中 medium / 较高
    fairly high / 高 high); class 审批 approved (通过 yes / 不通过 no), 10 yes and
    5 no.  With log base 2 the slides compute H(D) = 0.918, H(D|A1) = 0.833,
    H(D|A2) = 0.507, H(D|A3) = 0.767 and the information gains
    I(D;A1) = 0.085, I(D;A2) = 0.411, I(D;A3) = 0.151 (A1 age, A2
    spending-income ratio, A3 outstanding loans); the split information of
    C4.5 is 0.700 / 1.782 / 1.889 and the gain ratios 0.122 / 0.231 / 0.080.
    The slides' row number (序号 1-15) is row ``i - 1`` of the frame.

    Parameters
    ----------
    language : {"en", "zh"}
        English or the course's Chinese column names and values
        (:data:`LOAN_TRANSLATION`).
    return_X_y : bool
        Return ``(X, y)`` instead of one DataFrame.
    """
    _check_language(language)
    frame = _read_csv("loan.csv")
    values = LOAN_TRANSLATION["values"]
    categories = {col: list(mapping) for col, mapping in values.items()}
    frame = _as_categories(frame, categories)
    if language == "en":
        for col, mapping in values.items():
            frame[col] = frame[col].cat.rename_categories(mapping)
        frame = frame.rename(columns=LOAN_TRANSLATION["columns"])
        target = "approved"
    else:
        target = "审批"
    return _finish(frame, target, return_X_y)


def load_loan_scores(language="en", return_X_y=False):
    """The course's regression-tree example (slides, section 6.6 "Regression
    Tree"): 未偿还贷款比 outstanding-loan ratio, 年龄 age and 消费收入比
    spending-income ratio -> 评估分 assessment score.

    The slides print five rows and then "..."; these five rows are all there
    is, so the table is for working a split search by hand (the slides' loss
    sum_{x_i in R_1} (y_i - c_1)^2 + sum_{x_i in R_2} (y_i - c_2)^2, see
    :func:`treelab.teaching.regression_split_table`).  All columns are float64.

    Parameters
    ----------
    language : {"en", "zh"}
        English or Chinese column names (:data:`LOAN_SCORES_TRANSLATION`).
    return_X_y : bool
        Return ``(X, y)`` instead of one DataFrame.
    """
    _check_language(language)
    frame = _read_csv("loan_scores.csv").astype(np.float64)
    target = "评估分"
    if language == "en":
        frame = frame.rename(columns=LOAN_SCORES_TRANSLATION)
        target = LOAN_SCORES_TRANSLATION[target]
    return _finish(frame, target, return_X_y)


def load_buy_computer_confusion():
    """The course's confusion-matrix example (slides, section 6.5, after Han,
    Kamber & Pei, *Data Mining: Concepts and Techniques*): 10,000 test tuples of
    the class buy_computer.

    Returns a DataFrame of counts, rows the actual class and columns the
    predicted class, both in the order ``["yes", "no"]`` (the slides' order)::

                       predicted yes  predicted no
        actual yes              6954            46
        actual no                412          2588

    :func:`treelab.evaluation.confusion_summary` adds the totals, recognition
    rates (99.34 % and 86.27 %) and the accuracy, (6954 + 2588) / 10000 =
    95.42 %.  The slides print 95.52 % in that cell, which these counts do not
    give (Han, Kamber & Pei print 95.42).
    """
    labels = pd.Index(["yes", "no"], name="buy_computer")
    return pd.DataFrame(np.array([[6954, 46], [412, 2588]], dtype=np.int64),
                        index=labels.rename("actual"), columns=labels.rename("predicted"))


def load_play_tennis(return_X_y=False):
    """Quinlan's 14-row weather ("play tennis") table: outlook, temperature,
    humidity, wind -> play (9 yes / 5 no).

    From Quinlan (1986), "Induction of decision trees", Machine Learning 1,
    Table 1 (there ``windy`` true/false and classes P/N), with the value names
    of Mitchell (1997), *Machine Learning*, Table 3.2.

    Parameters
    ----------
    return_X_y : bool
        Return ``(X, y)`` instead of one DataFrame.
    """
    frame = _as_categories(_read_csv("play_tennis.csv"), _PLAY_TENNIS_CATEGORIES)
    return _finish(frame, "play", return_X_y)
