"""Small teaching data sets shipped with treelab (UTF-8 CSV files under ``data/``).

Every attribute and the class are returned as pandas ``category`` columns, which
treelab's learners treat as nominal attributes.
"""
from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_loan", "load_play_tennis", "LOAN_TRANSLATION"]

#: Chinese -> English names of the loan table's columns and values.
LOAN_TRANSLATION = {
    "columns": {
        "年龄": "age",
        "支出收入比": "spending_income_ratio",
        "未还贷款": "outstanding_loans",
        "是否批准": "approved",
    },
    "values": {
        "年龄": {"青年": "young", "中老年": "older"},
        "支出收入比": {"低": "low", "中": "medium", "高": "high"},
        "未还贷款": {"无": "none", "少": "few", "多": "many"},
        "是否批准": {"是": "yes", "否": "no"},
    },
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


def load_loan(language="en", return_X_y=False):
    """The data-mining course's 15-row loan-approval table.

    Attributes A1 age (青年 young / 中老年 older), A2 spending-income ratio
    (低 low / 中 medium / 高 high) and A3 outstanding loans (无 none / 少 few /
    多 many); class ``approved`` (是 yes / 否 no), 10 yes and 5 no.  With log
    base 2 it gives H(D)=0.918, H(D|A1)=0.833, H(D|A2)=0.507, H(D|A3)=0.767 and
    information gains I(D;A1)=0.085, I(D;A2)=0.411, I(D;A3)=0.151.

    Provenance: the original course table could not be found (searches of public
    course notes and code for these figures gave nothing), so this table was
    **reconstructed from the published figures**.  A brute-force search over
    per-attribute class-count tables of a 10/5 data set found the counts that
    reproduce all seven numbers at 3 decimals (rounding H(D|A) and I(D;A) each
    from the exact values); among attributes with two or three values these are
    the only fits, apart from a three-valued age with groups 1/0, 1/0, 8/5:

    ====  ==========================================
    A1    young 8 yes / 5 no, older 2 yes / 0 no
    A2    low 7/0, medium 2/3, high 1/2
    A3    none 3/0, few 4/2, many 3/3
    ====  ==========================================

    The rows combine these counts; other pairings of the same counts give the
    same single-attribute figures.

    Parameters
    ----------
    language : {"en", "zh"}
        English or the course's Chinese column names and values.
    return_X_y : bool
        Return ``(X, y)`` instead of one DataFrame.
    """
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
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
        target = "是否批准"
    return _finish(frame, target, return_X_y)


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
