"""Evaluation helpers for course labs: confusion matrix, accuracy, recognition rates,
k-fold cross-validation.

Pure NumPy (no scikit-learn needed); any estimator with ``fit`` / ``predict``
and scikit-learn-style ``get_params`` works.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._format import plain
from ._params import check_int

__all__ = ["confusion_matrix", "format_confusion_matrix", "confusion_summary",
           "stratified_kfold", "cross_val_accuracy"]


def confusion_matrix(y_true, y_pred, labels=None):
    """Counts ``C[i, j]`` of samples of true class ``labels[i]`` predicted as ``labels[j]``."""
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred have different shapes {y_true.shape} vs {y_pred.shape}")
    if labels is None:
        labels = np.unique(np.concatenate([y_true, y_pred]))
    labels = np.asarray(labels)
    index = {lab: i for i, lab in enumerate(labels.tolist())}
    C = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, p in zip(y_true.tolist(), y_pred.tolist()):
        if t in index and p in index:
            C[index[t], index[p]] += 1
    return C


def format_confusion_matrix(C, labels):
    """The confusion matrix as a labelled text table (rows: true class, columns: predicted)."""
    frame = pd.DataFrame(C, index=[f"true {lab}" for lab in labels],
                         columns=[f"pred {lab}" for lab in labels])
    return frame.to_string()


def confusion_summary(C, labels=None):
    """The confusion matrix with totals, each class's recognition rate and the accuracy,
    laid out as the course slides' table (section 6.5, "Confusion matrix").

    ``C[i, j]`` counts tuples of actual class ``labels[i]`` predicted as
    ``labels[j]``; a DataFrame brings its own labels (its index).  The
    recognition rate of class i is C[i, i] / sum_j C[i, j] (the share of its
    tuples classified correctly: sensitivity for the positive class,
    specificity for the negative one); the total row's rate is the accuracy,
    trace(C) / sum(C).  Returns a DataFrame with one row per class plus
    ``total`` and the columns ``labels..., total, recognition (%)`` (percent,
    unrounded).
    """
    if isinstance(C, pd.DataFrame):
        if labels is None:
            labels = list(C.index)
        C = C.to_numpy()
    C = np.asarray(C)
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
        raise ValueError(f"C must be a square matrix, got shape {C.shape}")
    if not np.issubdtype(C.dtype, np.number) or np.any(C < 0) or not np.all(np.isfinite(C)):
        raise ValueError("C must hold non-negative finite counts")
    if labels is None:
        labels = list(range(C.shape[0]))
    labels = [plain(v) for v in labels]
    if len(labels) != C.shape[0]:
        raise ValueError(f"labels has {len(labels)} entries but C is {C.shape[0]} x {C.shape[0]}")
    row_tot = C.sum(axis=1)
    total = C.sum()
    if not total > 0:
        raise ValueError("C holds no tuples")
    with np.errstate(invalid="ignore", divide="ignore"):
        rec = np.where(row_tot > 0, 100.0 * np.diag(C) / np.where(row_tot > 0, row_tot, 1), np.nan)
    body = np.column_stack([C, row_tot]).astype(np.float64)
    frame = pd.DataFrame(body, index=labels, columns=labels + ["total"])
    frame["recognition (%)"] = rec
    frame.loc["total"] = list(C.sum(axis=0)) + [total, 100.0 * np.trace(C) / total]
    count_cols = labels + ["total"]
    if np.issubdtype(C.dtype, np.integer):
        frame[count_cols] = frame[count_cols].astype(np.int64)
    return frame


def stratified_kfold(y, n_splits=10, random_state=0):
    """Train / test index pairs of a stratified k-fold split (each class dealt round-robin
    into the folds after a seeded shuffle)."""
    y = np.asarray(y)
    n_splits = check_int("n_splits", n_splits, 2)
    if y.shape[0] < n_splits:
        raise ValueError(f"cannot make {n_splits} folds from {y.shape[0]} samples")
    rng = np.random.default_rng(random_state)
    fold = np.empty(y.shape[0], dtype=np.int64)
    offset = 0
    for cls in np.unique(y):
        idx = np.flatnonzero(y == cls)
        idx = idx[rng.permutation(idx.shape[0])]
        fold[idx] = (np.arange(idx.shape[0]) + offset) % n_splits
        offset += idx.shape[0]
    return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_splits)]


def _take(X, idx):
    return X.iloc[idx] if isinstance(X, (pd.DataFrame, pd.Series)) else np.asarray(X)[idx]


def cross_val_accuracy(estimator, X, y, n_splits=10, random_state=0):
    """Accuracy of a fresh copy of ``estimator`` on each fold of a stratified k-fold split."""
    y_arr = np.asarray(y)
    scores = []
    for train, test in stratified_kfold(y_arr, n_splits, random_state):
        est = type(estimator)(**estimator.get_params())
        est.fit(_take(X, train), _take(y, train))
        scores.append(float(np.mean(est.predict(_take(X, test)) == y_arr[test])))
    return np.asarray(scores)
