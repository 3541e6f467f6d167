"""Hyper-parameter checks shared by every treelab estimator.

Each check returns the value as a plain Python ``int`` / ``float`` or raises an
:class:`InvalidParameterError` whose message names the parameter, the allowed
range and the value given.  ``InvalidParameterError`` is both a ``ValueError``
and a ``TypeError`` (scikit-learn's convention), so a wrong value and a wrong
type are caught by either ``except`` clause.  ``bool`` is never a number here.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["InvalidParameterError", "check_int", "check_real", "check_fraction", "check_bool",
           "check_n_jobs", "check_splitter", "n_threads", "RENAMED_PARAMETERS", "check_renamed"]


class InvalidParameterError(ValueError, TypeError):
    """A hyper-parameter of the wrong type or outside its range."""


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_real(v):
    return isinstance(v, (numbers.Real, np.floating)) and not isinstance(v, (bool, np.bool_))


def check_int(name, v, lo=1, hi=None, allow_none=False):
    """``v`` as an int in ``[lo, hi]`` (``hi=None``: no upper bound); ``None``
    passes through when ``allow_none``."""
    if v is None and allow_none:
        return None
    if not _is_int(v) or v < lo or (hi is not None and v > hi):
        what = f"an int >= {lo}" if hi is None else f"an int in [{lo}, {hi}]"
        raise InvalidParameterError(f"{name} must be {what}{' or None' if allow_none else ''}, "
                                    f"got {v!r}")
    return int(v)


def check_real(name, v, lo=None, hi=None, *, lo_open=False, hi_open=False, finite=True,
               allow_none=False):
    """``v`` as a float in the interval from ``lo`` to ``hi`` (``None``: unbounded;
    ``lo_open`` / ``hi_open`` exclude the bound).  NaN is always refused,
    infinity unless ``finite=False`` (and the interval is unbounded that way);
    ``None`` passes through when ``allow_none``."""
    if v is None and allow_none:
        return None
    ok = _is_real(v) and not math.isnan(v) and (not finite or math.isfinite(v))
    if ok and lo is not None:
        ok = v > lo if lo_open else v >= lo
    if ok and hi is not None:
        ok = v < hi if hi_open else v <= hi
    if not ok:
        kind = "a finite float" if finite and (lo is None or hi is None) else "a float"
        if lo is not None and hi is not None:
            what = f"{kind} in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        elif lo is not None:
            what = f"{kind} {'>' if lo_open else '>='} {lo}"
        elif hi is not None:
            what = f"{kind} {'<' if hi_open else '<='} {hi}"
        else:
            what = kind
        raise InvalidParameterError(f"{name} must be {what}{' or None' if allow_none else ''}, "
                                    f"got {v!r}")
    return float(v)


def check_fraction(name, v):
    """``v`` as a float in (0, 1] (a sampling fraction)."""
    return check_real(name, v, 0, 1, lo_open=True)


def check_bool(name, v):
    """``v`` as a bool (Python's or NumPy's)."""
    if not isinstance(v, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be a bool, got {v!r}")
    return bool(v)


def check_n_jobs(v):
    """joblib's ``n_jobs``: None or a non-zero int (negative counts from the cores)."""
    if v is not None and (not _is_int(v) or v == 0):
        raise InvalidParameterError(f"n_jobs must be None or a non-zero int, got {v!r}")
    return None if v is None else int(v)


#: ``splitter`` values, the same for single trees and forests
SPLITTERS = ("best", "hist")


def check_splitter(v):
    """``splitter``: "best" (exact search over the sorted values, scikit-learn's
    name) or "hist" (quantile histograms); "exact", a former forest spelling of
    "best", is refused with the new spelling."""
    if isinstance(v, str) and v == "exact":
        raise InvalidParameterError("splitter='exact' is spelled splitter='best' (the exact "
                                    "search over sorted values, as in scikit-learn)")
    if not (isinstance(v, str) and v in SPLITTERS):
        raise InvalidParameterError(f"splitter must be 'best' (exact search over sorted "
                                    f"values) or 'hist' (quantile histograms), got {v!r}")
    return v


def n_threads(n_jobs):
    """Threads for ``n_jobs``, one meaning for every estimator (joblib's and
    scikit-learn's): None -> 1 (unless inside a ``joblib.parallel_config``
    context), -1 -> every core, -k -> cores + 1 - k."""
    from joblib import effective_n_jobs
    return max(1, int(effective_n_jobs(n_jobs)))


#: hyper-parameters whose name changed: old name -> the name every estimator now uses
RENAMED_PARAMETERS = {
    "n_trees": "n_estimators",
    "max_bin": "max_bins",
    "n_bins": "max_bins",
    "lambda_": "reg_lambda",
    "merit": "criterion",
    "min_child_samples": "min_samples_leaf",
    "early_stopping_rounds": "n_iter_no_change",
    "n_tolerant_rounds": "n_iter_no_change",
    "delta": "tol",
    "base_estimator": "estimator",
    "seed": "random_state",
}


def check_renamed(cls, names):
    """Raise ``TypeError`` ("n_trees was renamed n_estimators") when ``names``
    holds a former name of one of ``cls``'s constructor parameters.

    Called by every estimator's construction and ``set_params``
    (:class:`treelab._sklearn_compat.BaseEstimator`), so the table above is the
    one place a rename is declared."""
    params = None
    for name in names:
        new = RENAMED_PARAMETERS.get(name)
        if new is None:
            continue
        if params is None:
            params = set(cls._get_param_names())
        if name not in params and new in params:
            raise TypeError(f"{cls.__name__}: {name} was renamed {new}; "
                            f"use {cls.__name__}({new}=...)")
