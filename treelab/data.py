"""Input validation and encoding shared by every treelab learner.

Turns user input (NumPy arrays, array-likes, pandas DataFrames whose
``category`` columns are nominal attributes) into the engine's representation:
a C-contiguous float64 matrix in which numeric columns hold their values,
nominal columns hold category codes, and NaN marks a missing value.  Every
problem is reported with a ``ValueError`` / ``TypeError`` that names it, so no
bad value ever reaches a jitted kernel.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._format import plain_repr

__all__ = [
    "FeatureEncoding", "fit_encode_X", "encode_X", "check_sample_weight",
    "check_random_state", "check_classification_targets", "check_regression_targets",
    "DataConversionWarning",
]

class DataConversionWarning(UserWarning):
    """Warning used to notify implicit data conversions (scikit-learn's class is used
    instead when scikit-learn is installed)."""


def _data_conversion_warning():
    import importlib.util
    if importlib.util.find_spec("sklearn") is not None:
        from sklearn.exceptions import DataConversionWarning as SkWarning
        return SkWarning
    return DataConversionWarning


@dataclass
class FeatureEncoding:
    """What was learned about the columns of ``X`` at fit time."""
    n_features: int
    is_nominal: np.ndarray                 # bool per column
    categories: list                       # per column: pandas Index of categories, or None
    feature_names: np.ndarray | None = None
    n_cats: np.ndarray = field(default=None)
    has_missing: np.ndarray = field(default=None)   # bool per column: NaN seen at fit

    def __post_init__(self):
        if self.n_cats is None:
            self.n_cats = np.array([0 if c is None else len(c) for c in self.categories],
                                   dtype=np.int64)

    # compact pickling: an ensemble holds one encoding per member, so an all-numeric
    # encoding is stored as its column count and bit flags, not as per-column lists
    def __getstate__(self):
        state = self.__dict__.copy()
        numeric = (isinstance(self.is_nominal, np.ndarray) and self.is_nominal.dtype == np.bool_
                   and not self.is_nominal.any() and all(c is None for c in self.categories)
                   and isinstance(self.n_cats, np.ndarray) and self.n_cats.dtype == np.int64
                   and not self.n_cats.any())
        if numeric:
            state["is_nominal"] = state["categories"] = state["n_cats"] = None
        hm = self.has_missing
        if isinstance(hm, np.ndarray) and hm.dtype == np.bool_ and hm.ndim == 1:
            state["has_missing"] = ("bits", np.packbits(hm).tobytes(), hm.shape[0])
        return state

    def __setstate__(self, state):
        state = dict(state)
        d = state["n_features"]
        if state["is_nominal"] is None:
            state["is_nominal"] = np.zeros(d, np.bool_)
            state["categories"] = [None] * d
            state["n_cats"] = np.zeros(d, np.int64)
        hm = state.get("has_missing")
        if isinstance(hm, tuple) and hm and hm[0] == "bits":
            state["has_missing"] = np.unpackbits(
                np.frombuffer(hm[1], np.uint8), count=hm[2]).astype(np.bool_)
        self.__dict__.update(state)


def _is_sparse(X):
    return hasattr(X, "tocsr") or hasattr(X, "toarray") and hasattr(X, "nnz")


def _check_2d(X, what="X"):
    if X is None:
        raise ValueError(f"{what} is None; expected a 2-D array-like of shape (n_samples, n_features)")
    if _is_sparse(X):
        raise TypeError(
            f"sparse input is not supported by treelab trees; convert {what} with .toarray()")


def _numeric_array(X, estimator_name, what="X"):
    """NumPy input -> float64 2-D array with clear errors."""
    arr = np.asarray(X)
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {what} has dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError(f"Expected 2D array, got scalar array instead: {what}={X!r}. "
                         "Reshape your data either using array.reshape(-1, 1) if your data "
                         "has a single feature or array.reshape(1, -1) if it contains a single sample.")
    if arr.ndim == 1:
        raise ValueError(f"Expected 2D array, got 1D array instead: {what} has shape {arr.shape}. "
                         "Reshape your data either using array.reshape(-1, 1) if your data "
                         "has a single feature or array.reshape(1, -1) if it contains a single sample.")
    if arr.ndim > 2:
        raise ValueError(f"Found array with dim {arr.ndim}; {estimator_name} expected <= 2.")
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except TypeError as e:
            raise TypeError(
                f"{what} contains values that are not numbers ({e}). Nominal attributes must be "
                "given as pandas 'category' columns or listed in nominal_features.") from None
        except ValueError as e:
            raise ValueError(
                f"{what} contains non-numeric values ({e}). Nominal attributes must be given as "
                "pandas 'category' columns or listed in nominal_features.") from None
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{what} has unsupported dtype {arr.dtype}")
    return np.asarray(arr, dtype=np.float64)


def _check_shape(n, d, estimator_name, what="X"):
    if n == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=({n}, {d})) while a minimum of 1 "
                         f"is required by {estimator_name}.")
    if d == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n}, {d})) while a minimum of 1 "
                         f"is required by {estimator_name}.")


def _check_finite(Xf, is_nominal, allow_nan, what="X"):
    num = ~is_nominal
    if num.any():
        sub = Xf[:, num] if not num.all() else Xf
        # a finite sum means no infinity and no NaN (either makes the sum inf or
        # NaN): one read of the data instead of a boolean array and its scan
        # (half the time: a prediction's input check is part of its cost)
        with np.errstate(over="ignore"):
            total = sub.sum()
        if np.isfinite(total):
            return
        if np.isinf(sub).any():
            raise ValueError(f"Input {what} contains infinity or a value too large for dtype('float64').")
        if not allow_nan and np.isnan(sub).any():
            raise ValueError(f"Input {what} contains NaN.")


def _feature_names(frame):
    """Column labels as feature names when they are all strings (scikit-learn's rule:
    other labels, e.g. the integers of ``pd.DataFrame(array)``, are no feature names)."""
    cols = list(frame.columns)
    if cols and all(isinstance(c, str) for c in cols):
        return np.asarray(cols, dtype=object)
    return None


def _resolve_nominal(nominal_features, n_features, names):
    mask = np.zeros(n_features, dtype=bool)
    if nominal_features is None:
        return mask
    nf = np.asarray(nominal_features)
    if nf.dtype == bool:
        if nf.shape != (n_features,):
            raise ValueError(f"nominal_features as a boolean mask must have length {n_features}")
        return nf.copy()
    for item in np.atleast_1d(nf):
        if isinstance(item, (numbers.Integral, np.integer)):
            if not 0 <= int(item) < n_features:
                raise ValueError(f"nominal_features index {item} out of range for {n_features} features")
            mask[int(item)] = True
        else:
            if names is None or str(item) not in list(names):
                raise ValueError(f"nominal_features names {plain_repr(item)}, which is not a column of X")
            mask[list(names).index(str(item))] = True
    return mask


def _resolve_nominal_frame(nominal_features, frame):
    """:func:`_resolve_nominal` for a DataFrame: items may be any column label."""
    cols = list(frame.columns)
    d = len(cols)
    if nominal_features is None:
        return np.zeros(d, dtype=bool)
    nf = np.asarray(nominal_features, dtype=object)
    if nf.dtype == bool or (nf.size and all(isinstance(v, (bool, np.bool_)) for v in nf.ravel())):
        return _resolve_nominal(np.asarray(nominal_features, dtype=bool), d, None)
    mask = np.zeros(d, dtype=bool)
    for item in np.atleast_1d(nf):
        if item in cols:
            mask[cols.index(item)] = True
        elif isinstance(item, (numbers.Integral, np.integer)):
            if not 0 <= int(item) < d:
                raise ValueError(f"nominal_features index {item} out of range for {d} features")
            mask[int(item)] = True
        elif str(item) in [str(c) for c in cols]:
            mask[[str(c) for c in cols].index(str(item))] = True
        else:
            raise ValueError(f"nominal_features names {plain_repr(item)}, which is not a column of X")
    return mask


def _encode_column_nominal(values, categories, col_name):
    """Codes of ``values`` in ``categories`` (NaN for missing, -1 for a value absent
    from the fitted categories, which the trees route like a missing value)."""
    s = pd.Series(values)
    missing = s.isna().to_numpy()
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object)
    codes = pd.Index(categories).get_indexer(s.where(~missing, None)).astype(np.float64)
    codes[missing] = np.nan
    return codes


def _check_unique_columns(frame):
    if frame.columns.has_duplicates:
        dup = frame.columns[frame.columns.duplicated()].unique()
        raise ValueError(f"X has duplicate column names ({', '.join(map(plain_repr, dup))}); "
                         "every feature needs its own name")


def fit_encode_X(X, estimator_name="estimator", nominal_features=None, allow_nan=True,
                 _array=None):
    """Validate ``X`` at fit time; return ``(Xf, encoding)``.  ``_array``: the
    NumPy input ``X`` was made from (its columns not listed as nominal are read
    as numbers, as at predict time)."""
    _check_2d(X)
    names = None
    if isinstance(X, pd.DataFrame):
        _check_unique_columns(X)
        names = _feature_names(X)
        n, d = X.shape
        _check_shape(n, d, estimator_name)
        mask = _resolve_nominal_frame(nominal_features, X)
        Xf = np.empty((n, d), dtype=np.float64)
        cats = []
        for j, col in enumerate(X.columns):
            s = X[col]
            if _array is not None and not mask[j]:
                cats.append(None)
                Xf[:, j] = _numeric_array(_array[:, j:j + 1], estimator_name)[:, 0]
                continue
            if isinstance(s.dtype, pd.CategoricalDtype) or mask[j]:
                mask[j] = True
                if isinstance(s.dtype, pd.CategoricalDtype):
                    categories = s.cat.categories
                else:
                    categories = pd.Index(pd.unique(s.dropna())).sort_values()
                if len(categories) == 0:
                    categories = pd.Index([])
                cats.append(categories)
                Xf[:, j] = _encode_column_nominal(s, categories, col)
            elif s.dtype == bool or pd.api.types.is_numeric_dtype(s.dtype):
                if pd.api.types.is_complex_dtype(s.dtype):
                    raise ValueError(f"Complex data not supported: column {col!r}")
                cats.append(None)
                Xf[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                raise TypeError(
                    f"column {col!r} has dtype {s.dtype}, which is neither numeric nor 'category'. "
                    f"Convert it with X[{col!r}].astype('category') to use it as a nominal attribute.")
        enc = FeatureEncoding(d, mask, cats, names)
    else:
        if nominal_features is not None:
            arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
            if arr.ndim != 2:
                _numeric_array(X, estimator_name)  # raises the right shape error
            # integer column labels: no feature names, as for any NumPy input
            return fit_encode_X(pd.DataFrame(arr), estimator_name, nominal_features, allow_nan,
                                _array=arr)
        Xf = _numeric_array(X, estimator_name)
        n, d = Xf.shape
        _check_shape(n, d, estimator_name)
        enc = FeatureEncoding(d, np.zeros(d, dtype=bool), [None] * d, None)
    _check_finite(Xf, enc.is_nominal, allow_nan)
    enc.has_missing = np.isnan(Xf).any(axis=0)
    return np.require(Xf, np.float64, ["C", "W"]), enc


def set_fitted_encoding(estimator, enc, n_features):
    """Record a fit's input encoding on ``estimator`` as scikit-learn expects:
    ``_encoding``, ``n_features_in_`` and ``feature_names_in_`` (removed when the
    data had no column names, so a refit on an array forgets earlier names)."""
    estimator._encoding = enc
    estimator.n_features_in_ = n_features
    if enc.feature_names is not None:
        estimator.feature_names_in_ = enc.feature_names
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def encode_X(X, enc, estimator_name="estimator", allow_nan=True):
    """Validate ``X`` at predict time against the fitted encoding."""
    _check_2d(X)
    if isinstance(X, pd.DataFrame):
        _check_unique_columns(X)
        names = _feature_names(X)
        if enc.feature_names is None:
            if names is not None:
                warnings.warn(f"X has feature names, but {estimator_name} was fitted without "
                              "feature names", UserWarning)
        elif names is None or len(names) != len(enc.feature_names) or (
                names != enc.feature_names).any():
            raise ValueError(
                "The feature names should match those that were passed during fit. "
                f"Fit with {list(enc.feature_names)}, got {list(names)}.")
        n, d = X.shape
        if d != enc.n_features:
            raise ValueError(f"X has {d} features, but {estimator_name} is expecting "
                             f"{enc.n_features} features as input.")
        if n == 0:
            _check_shape(n, d, estimator_name)
        Xf = np.empty((n, d), dtype=np.float64)
        for j, col in enumerate(X.columns):
            s = X[col]
            if enc.is_nominal[j]:
                Xf[:, j] = _encode_column_nominal(s, enc.categories[j], col)
            elif s.dtype == bool or pd.api.types.is_numeric_dtype(s.dtype):
                Xf[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                raise TypeError(f"column {col!r} has dtype {s.dtype} but was numeric at fit time")
    else:
        if enc.feature_names is not None:
            warnings.warn(f"X does not have valid feature names, but {estimator_name} was "
                          "fitted with feature names", UserWarning)
        if enc.is_nominal.any():
            arr = np.asarray(X, dtype=object)
            if arr.ndim != 2:
                _numeric_array(X, estimator_name)
            if arr.shape[1] != enc.n_features:
                raise ValueError(f"X has {arr.shape[1]} features, but {estimator_name} is "
                                 f"expecting {enc.n_features} features as input.")
            _check_shape(arr.shape[0], arr.shape[1], estimator_name)
            Xf = np.empty(arr.shape, dtype=np.float64)
            for j in range(arr.shape[1]):
                if enc.is_nominal[j]:
                    Xf[:, j] = _encode_column_nominal(arr[:, j], enc.categories[j], j)
                else:
                    Xf[:, j] = _numeric_array(arr[:, j:j + 1], estimator_name)[:, 0]
        else:
            Xf = _numeric_array(X, estimator_name)
            n, d = Xf.shape
            if d != enc.n_features:
                raise ValueError(f"X has {d} features, but {estimator_name} is expecting "
                                 f"{enc.n_features} features as input.")
            _check_shape(n, d, estimator_name)
    _check_finite(Xf, enc.is_nominal, allow_nan)
    return np.require(Xf, np.float64, ["C", "W"])


def _column_or_1d(y, what="y"):
    if y is None:
        raise ValueError(f"requires y to be passed, but the target {what} is None")
    if isinstance(y, (pd.DataFrame,)):
        if y.shape[1] != 1:
            raise ValueError(f"{what} should be a 1d array, got a DataFrame with {y.shape[1]} columns")
        y = y.iloc[:, 0]
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples, ), for example using ravel().",
                      _data_conversion_warning(), stacklevel=3)
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{what} should be a 1d array, got an array of shape {arr.shape} instead.")
    return arr


def fit_class_codes(est, y, n_samples):
    """Class labels of a classifier's ``fit``: sets ``est.classes_`` and
    ``est.n_classes_`` and returns the int64 codes; one class is an error."""
    classes, codes = check_classification_targets(y, n_samples)
    if classes.shape[0] < 2:
        raise ValueError(f"Classifier can't train when only one class is present: y has "
                         f"the single class {classes[0]!r}")
    est.classes_ = classes
    est.n_classes_ = int(classes.shape[0])
    return codes


def check_classification_targets(y, n_samples):
    """Validate class labels; return ``(classes, codes)``."""
    y = _column_or_1d(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {y.shape[0]}]")
    if y.dtype.kind == "O" or isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
        y = np.asarray(pd.Series(y).astype(object))
        if pd.isna(y).any():
            raise ValueError("Input y contains NaN (missing class labels are not allowed).")
    if y.dtype.kind == "f":
        if np.isnan(y).any():
            raise ValueError("Input y contains NaN (missing class labels are not allowed).")
        if np.isinf(y).any():
            raise ValueError("Input y contains infinity.")
        if not np.all(y == np.round(y)):
            raise ValueError("Unknown label type: continuous. A classifier needs discrete class "
                             "labels; use a regressor for a continuous target.")
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported in y")
    if y.dtype.kind == "O":
        kinds = {type(v) for v in y}
        if len(kinds) > 1 and not all(issubclass(k, (str, np.str_)) for k in kinds):
            if not all(issubclass(k, numbers.Number) for k in kinds):
                raise ValueError(f"Unknown label type: mix of {sorted(k.__name__ for k in kinds)}")
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as e:
        raise ValueError(f"Unknown label type: labels cannot be sorted ({e})") from None
    return classes, codes.astype(np.int64).ravel()


def check_regression_targets(y, n_samples):
    y = _column_or_1d(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {y.shape[0]}]")
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported in y")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"y must be numeric for regression ({e})") from None
    if np.isnan(y).any():
        raise ValueError("Input y contains NaN.")
    if np.isinf(y).any():
        raise ValueError("Input y contains infinity or a value too large for dtype('float64').")
    return y


def check_sample_weight(sample_weight, n_samples):
    """Validate ``sample_weight``; ``None`` gives ones."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if isinstance(sample_weight, numbers.Number):
        return np.full(n_samples, float(sample_weight))
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"Sample weights must be 1D array or scalar, got shape {w.shape}")
    if w.shape[0] != n_samples:
        raise ValueError(f"sample_weight.shape == {w.shape}, expected {(n_samples,)}!")
    if not np.isfinite(w).all():
        raise ValueError("sample_weight contains NaN or infinity")
    if (w < 0).any():
        raise ValueError("Negative values in sample_weight are not allowed")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise ValueError("sample_weight is too large: its sum overflows float64")
    return np.require(w, np.float64, ["C", "W"]).copy()


def check_random_state(seed):
    """A ``numpy.random.RandomState`` from None, an int or an instance (scikit-learn's rule)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, (numbers.Integral, np.integer)):
        return np.random.RandomState(int(seed))
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{plain_repr(seed)} cannot be used to seed a numpy.random.RandomState instance")
