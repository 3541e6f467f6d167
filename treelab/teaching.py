"""Course-lab tables: entropy, information gain and gain ratio of nominal attributes.

The quantities are those of ID3 (Quinlan 1986, "Induction of decision trees")
and C4.5 (Quinlan 1993, *C4.5: Programs for Machine Learning*):

* H(D)    entropy of the class distribution;
* H(D|A)  conditional entropy, ``sum_v |D_v|/|D| H(D_v)`` over the values v of A;
* I(D;A)  information gain H(D) - H(D|A);
* H_A(D)  split information, the entropy of A's own value distribution;
* gain ratio I(D;A) / H_A(D);

and, for the course's regression tree (slides, section 6.6), the squared-error
split search min_{j,s} [sum_{R_1} (y_i - c_1)^2 + sum_{R_2} (y_i - c_2)^2]
with c_m the mean of y in R_m (:func:`regression_split_table`).

Every entropy is computed by the engine's kernel
:func:`treelab.split_criteria.impurity.entropy` (bits), rescaled for another
logarithm base.  The tables are for nominal attributes only: ``category``,
``object``, string or boolean columns, grouped by value.  Numeric columns are
refused with a ``ValueError`` (bin them first, e.g. with :func:`pandas.cut`).
"""
from __future__ import annotations

import math
import unicodedata

import numpy as np
import pandas as pd

from .split_criteria.impurity import entropy as _entropy_bits

__all__ = [
    "class_entropy",
    "conditional_entropy",
    "information_gain",
    "split_information",
    "gain_ratio",
    "information_table",
    "print_information_table",
    "attribute_counts",
    "regression_split_table",
    "display_width",
    "text_table",
]

TABLE_COLUMNS = ["H(D)", "H(D|A)", "I(D;A)", "H_A(D)", "gain ratio"]
#: the printed header of each column of :func:`information_table`, spelled out
TABLE_HEADERS = {
    "H(D)": "H(D)",
    "H(D|A)": "H(D|A)",
    "I(D;A)": "information gain I(D;A)",
    "H_A(D)": "split information H_A(D)",
    "gain ratio": "gain ratio",
}


# ----------------------------------------------------------------- validation
def _log2_of_base(base):
    """Factor turning bits into units of ``base`` (H_b = H_2 / log2 b)."""
    if isinstance(base, bool) or not isinstance(base, (int, float, np.integer, np.floating)):
        raise TypeError(f"base must be a number, got {type(base).__name__}")
    if not base > 0 or base == 1 or not math.isfinite(base):
        raise ValueError(f"base must be a positive number other than 1, got {base!r}")
    return math.log2(base)


def _is_nominal(series):
    dtype = series.dtype
    return (isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype)
            or pd.api.types.is_string_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))


def _nominal(values, name):
    """``values`` as a Series of a nominal attribute without missing entries."""
    if not isinstance(values, pd.Series):
        array = np.asarray(values)
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
        values = pd.Series(array)
    series = values
    if len(series) == 0:
        raise ValueError(f"{name} is empty")
    if not _is_nominal(series):
        raise ValueError(
            f"{name} has numeric dtype {series.dtype}; information tables are for nominal "
            "attributes (category, object, string or bool) - bin it first, e.g. with pandas.cut")
    if series.isna().any():
        raise ValueError(f"{name} has missing values; fill or drop them first")
    return series


def _labels(y, n_rows):
    """The class labels as a Series of length ``n_rows`` without missing entries."""
    if not isinstance(y, pd.Series):
        array = np.asarray(y, dtype=object)
        if array.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {array.shape}")
        y = pd.Series(array)
    series = y
    if len(series) == 0:
        raise ValueError("y is empty")
    if len(series) != n_rows:
        raise ValueError(f"y has {len(series)} labels but X has {n_rows} rows")
    if series.isna().any():
        raise ValueError("y has missing labels")
    return series


# ------------------------------------------------------------- counting kernels
def _counts(codes, n_levels):
    """Occurrences of each integer code, as the float64 vector the kernel expects."""
    return np.ascontiguousarray(np.bincount(codes, minlength=n_levels), dtype=np.float64)


def _contingency(x, y):
    """Counts table: one row per observed value of ``x``, one column per class of ``y``."""
    x_codes, x_levels = pd.factorize(x, sort=False)
    y_codes, y_levels = pd.factorize(y, sort=False)
    table = np.zeros((len(x_levels), len(y_levels)), dtype=np.float64)
    np.add.at(table, (x_codes, y_codes), 1.0)
    return table


def _h(counts, log2_base):
    return _entropy_bits(np.ascontiguousarray(counts, dtype=np.float64)) / log2_base


def _conditional_from_table(table, log2_base):
    """``sum_v |D_v|/|D| H(D_v)`` from a value-by-class counts table."""
    sizes = table.sum(axis=1)
    total = sizes.sum()
    return float(sum(s / total * _h(row, log2_base) for s, row in zip(sizes, table)))


# ------------------------------------------------------------------ one concept each
def class_entropy(y, base=2):
    """H(D) = -sum_k p_k log p_k of the class labels ``y`` (Quinlan 1986)."""
    lb = _log2_of_base(base)
    y = _labels(y, len(y))
    codes, levels = pd.factorize(y)
    return float(_h(_counts(codes, len(levels)), lb))


def conditional_entropy(x, y, base=2):
    """``H(D|A) = sum_v |D_v|/|D| H(D_v)``, the class entropy left after splitting on ``x``
    (Quinlan 1986)."""
    lb = _log2_of_base(base)
    x = _nominal(x, "x")
    y = _labels(y, len(x))
    return _conditional_from_table(_contingency(x.to_numpy(), y.to_numpy()), lb)


def information_gain(x, y, base=2):
    """I(D;A) = H(D) - H(D|A), ID3's split merit (Quinlan 1986)."""
    return class_entropy(y, base) - conditional_entropy(x, y, base)


def split_information(x, base=2):
    """``H_A(D) = -sum_v |D_v|/|D| log |D_v|/|D|``, the entropy of ``x``'s own values
    (C4.5's split info, Quinlan 1993)."""
    lb = _log2_of_base(base)
    x = _nominal(x, "x")
    codes, levels = pd.factorize(x.to_numpy())
    return float(_h(_counts(codes, len(levels)), lb))


def gain_ratio(x, y, base=2):
    """I(D;A) / H_A(D), C4.5's merit (Quinlan 1993); NaN when ``x`` has one value.

    The ratio does not depend on ``base``; the argument is kept for symmetry.
    """
    info = split_information(x, base)
    return information_gain(x, y, base) / info if info > 0 else float("nan")


# --------------------------------------------------------------------- tables
def information_table(X, y, base=2):
    """One row per attribute of ``X`` with H(D), H(D|A), I(D;A), H_A(D) and gain ratio.

    ``X`` is a DataFrame of nominal attributes (a Series counts as one attribute),
    ``y`` the class labels.  The gain ratio of a one-valued attribute is NaN.
    """
    lb = _log2_of_base(base)
    if isinstance(X, pd.Series):
        X = X.to_frame(name=X.name if X.name is not None else "A")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame of nominal attributes, got {type(X).__name__}")
    if X.shape[1] == 0 or X.shape[0] == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
    labels = _labels(y, len(X)).to_numpy()
    y_codes, y_levels = pd.factorize(labels)
    h_d = _h(_counts(y_codes, len(y_levels)), lb)
    rows = []
    for name in X.columns:
        x = _nominal(X[name], f"attribute {name!r}").to_numpy()
        table = _contingency(x, labels)
        h_cond = _conditional_from_table(table, lb)
        gain = h_d - h_cond
        h_a = _h(table.sum(axis=1), lb)
        rows.append([h_d, h_cond, gain, h_a, gain / h_a if h_a > 0 else float("nan")])
    out = pd.DataFrame(rows, index=pd.Index(list(X.columns), name="attribute"),
                       columns=TABLE_COLUMNS)
    return out


def display_width(text):
    """Terminal columns taken by ``text``: East Asian wide and full-width characters
    (``unicodedata.east_asian_width`` "W" / "F", e.g. Chinese) count twice."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


_display_width = display_width


def _pad(text, width, align):
    gap = " " * max(0, width - display_width(text))
    return text + gap if align == "<" else gap + text


def text_table(header, rows, align=None, gap=2):
    """Rows of strings as an aligned text table (wide characters count twice).

    ``header`` and every row are sequences of strings of the same length;
    ``align`` is one character per column, ``"<"`` (left) or ``">"`` (right;
    default: left for the first column, right for the others).
    """
    header = [str(h) for h in header]
    rows = [[str(v) for v in row] for row in rows]
    ncol = len(header)
    if any(len(r) != ncol for r in rows):
        raise ValueError(f"every row must have {ncol} cells")
    if align is None:
        align = "<" + ">" * (ncol - 1)
    if len(align) != ncol or set(align) - {"<", ">"}:
        raise ValueError(f"align must be {ncol} characters '<' or '>', got {align!r}")
    widths = [max(display_width(r[j]) for r in [header] + rows) for j in range(ncol)]
    sep = " " * gap
    lines = [sep.join(_pad(r[j], widths[j], align[j]) for j in range(ncol)).rstrip()
             for r in [header] + rows]
    return "\n".join(lines)


def _fmt3(v):
    return "nan" if v != v else f"{v:.3f}"


def print_information_table(X, y, base=2, title=None):
    """Print :func:`information_table` as text (3 decimals) under a title; return the text.

    Columns are spelled out (``information gain I(D;A)``, ``split information
    H_A(D)``) and aligned for wide (e.g. Chinese) attribute names.
    """
    table = information_table(X, y, base)
    if title is None:
        target = getattr(y, "name", None)
        title = (f"Information gain table: class {target!r}, " if target is not None
                 else "Information gain table: ")
        title += f"{len(X)} rows, log base {base:g}"
    header = ["attribute"] + [TABLE_HEADERS[c] for c in table.columns]
    rows = [[str(name)] + [_fmt3(v) for v in row] for name, row in
            zip(table.index, table.to_numpy())]
    text = f"{title}\n{'=' * display_width(title)}\n{text_table(header, rows)}"
    print(text)
    return text


def attribute_counts(x, y, base=2):
    """Per value of the nominal attribute ``x``: rows ``|D_v|``, class counts and H(D_v).

    Returns ``(table, classes)``: a DataFrame indexed by the values of ``x``
    (in category order for a ``category`` column, else in order of first
    appearance; values absent from the data are left out) with columns
    ``rows``, one count column per class and ``H(D_v)``, and the classes in
    the order of the count columns (sorted, as a classifier's ``classes_``).
    The weighted sum of ``H(D_v)`` is H(D|A) (Quinlan 1986).
    """
    lb = _log2_of_base(base)
    x = _nominal(x, "x")
    y = _labels(y, len(x))
    classes = np.unique(np.asarray(y.astype(object)))
    if isinstance(x.dtype, pd.CategoricalDtype):
        values = [v for v in x.cat.categories if (x == v).any()]
    else:
        values = list(pd.unique(x))
    xa = np.asarray(x.astype(object))
    ya = np.asarray(y.astype(object))
    rows = []
    for v in values:
        yv = ya[xa == v]
        counts = [int(np.sum(yv == c)) for c in classes]
        rows.append([len(yv)] + counts + [float(_h(np.asarray(counts, float), lb))])
    cols = ["rows"] + [str(c) for c in classes] + ["H(D_v)"]
    out = pd.DataFrame(rows, index=pd.Index([str(v) for v in values], name=x.name), columns=cols)
    return out, list(classes)


def regression_split_table(X, y):
    """Every candidate split ``x_j <= s`` of the course's regression tree, with its loss.

    For each numeric column j of ``X`` and each threshold s halfway between
    consecutive distinct values, the slides' (section 6.6) quantities:
    R_1 = {x_j <= s}, R_2 = {x_j > s}, c_m = mean of y over R_m and the loss
    sum_{R_1} (y_i - c_1)^2 + sum_{R_2} (y_i - c_2)^2.  Returns a DataFrame
    with columns ``attribute, threshold, n1, n2, c1, c2, loss``, in column
    order then threshold order; the best split (CART's first split, the
    smallest loss) is its row ``loss.idxmin()``.
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame of numeric columns, got {type(X).__name__}")
    if X.shape[0] < 2 or X.shape[1] == 0:
        raise ValueError(f"X must have at least two rows and one column, got shape {X.shape}")
    yv = np.asarray(y, dtype=np.float64)
    if yv.ndim != 1 or yv.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with {X.shape[0]} values, got shape {yv.shape}")
    if not np.all(np.isfinite(yv)):
        raise ValueError("y has missing or infinite values")
    rows = []
    for name in X.columns:
        if not pd.api.types.is_numeric_dtype(X[name]) or pd.api.types.is_bool_dtype(X[name]):
            raise ValueError(f"column {name!r} is not numeric")
        xv = X[name].to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(xv)):
            raise ValueError(f"column {name!r} has missing or infinite values")
        distinct = np.unique(xv)
        for a, b in zip(distinct[:-1], distinct[1:]):
            s = (a + b) / 2.0
            left = xv <= s
            y1, y2 = yv[left], yv[~left]
            c1, c2 = y1.mean(), y2.mean()
            loss = float(((y1 - c1) ** 2).sum() + ((y2 - c2) ** 2).sum())
            rows.append([str(name), float(s), int(left.sum()), int((~left).sum()),
                         float(c1), float(c2), loss])
    return pd.DataFrame(rows, columns=["attribute", "threshold", "n1", "n2", "c1", "c2", "loss"])
