"""Prequential (interleaved test-then-train) evaluation of streaming learners.

:func:`prequential` walks a stream in its order; every instance is first used
to test the current model and then to train it.  It works with

* **chunked learners** (treelab's streaming learners, scikit-learn's
  ``partial_fit`` estimators): each chunk of ``chunk_size`` instances is
  predicted at once with ``predict`` and then learned with one
  ``partial_fit`` call, which is where jitted learners get their speed.  With
  ``chunk_size=1`` this is exactly per-instance test-then-train; a larger chunk
  tests each instance with the model as it was at the start of its chunk
  (a model at most ``chunk_size - 1`` instances stale).  The chunks are the
  same whatever the checkpoints, so the curve's points do not change the
  learning.
* **river learners** (no ``partial_fit``, or defined in a ``river`` module):
  ``predict_one`` then ``learn_one`` for every instance, with the rows as
  dicts.

The result is a learning curve: a :class:`pandas.DataFrame` with one row per
checkpoint.
"""
from __future__ import annotations

import inspect
import math
import numbers
import time

import numpy as np
import pandas as pd

from .._params import check_int
from .._progress import progress_bar

__all__ = ["prequential", "is_river_learner"]

_METRICS = ("accuracy", "mae", "rmse")
_SIZE_ATTRS = ("n_nodes", "n_leaves")


def is_river_learner(learner):
    """True for a learner to evaluate one instance at a time with dicts: one
    without ``partial_fit`` (river's API) or one defined in a ``river`` module."""
    module = type(learner).__module__ or ""
    return module == "river" or module.startswith("river.") or not hasattr(learner, "partial_fit")


def _is_not_fitted(exc):
    """scikit-learn's or treelab's NotFittedError (without importing either), or an
    AttributeError for a fitted attribute (a name ending in ``_``, e.g. ``classes_``)."""
    if any(c.__name__ == "NotFittedError" for c in type(exc).__mro__):
        return True
    name = getattr(exc, "name", None) if isinstance(exc, AttributeError) else None
    return isinstance(name, str) and name.endswith("_") and not name.endswith("__")


def _model_size(learner):
    out = {}
    for a in _SIZE_ATTRS:
        try:
            v = getattr(learner, a)
        except Exception:  # a property that fails before fitting
            continue
        if callable(v):
            try:
                v = v()
            except Exception:
                continue
        if isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool):
            out[a] = int(v)
    return out


def _checkpoint_positions(n, checkpoints, step):
    if step is not None:
        step = check_int("step", step)
        pos = np.arange(step, n + 1, step, dtype=np.int64)
    elif isinstance(checkpoints, (numbers.Integral, np.integer)) and not isinstance(checkpoints, bool):
        if checkpoints < 1:
            raise ValueError(f"checkpoints must be >= 1, got {checkpoints!r}")
        k = min(int(checkpoints), n)
        pos = np.unique(np.ceil(np.arange(1, k + 1) * (n / k)).astype(np.int64))
    else:
        try:
            pos = np.asarray(checkpoints, dtype=np.int64).ravel()
        except (TypeError, ValueError):
            raise TypeError("checkpoints must be an int (how many, evenly spaced) or a "
                            f"sequence of instance counts, got {checkpoints!r}") from None
        if pos.size and (pos.min() < 1 or pos.max() > n):
            raise ValueError(f"checkpoints must lie in [1, {n}], got {pos.min()}..{pos.max()}")
        pos = np.unique(pos)
    if pos.size == 0 or pos[-1] != n:
        pos = np.append(pos, n)          # the end of the stream is always a checkpoint
    return pos


def _as_target_array(y):
    if isinstance(y, (pd.Series, pd.Index)):
        if isinstance(y.dtype, pd.CategoricalDtype):
            return np.asarray(y.astype(object))
        return y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    return y


def _rows_as_dicts(X):
    if isinstance(X, pd.DataFrame):
        names = [c for c in X.columns]
        cols = [X[c].astype(object).where(X[c].notna(), None).tolist()
                if isinstance(X[c].dtype, pd.CategoricalDtype) else X[c].tolist()
                for c in X.columns]
        return [dict(zip(names, vals)) for vals in zip(*cols)]
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    return [dict(enumerate(row)) for row in X.tolist()]


def _losses(metric, y_true, y_pred):
    """Per-instance losses: 0/1 correctness for accuracy, |e| or e^2 for regression."""
    if metric == "accuracy":
        if y_pred.dtype == object or y_true.dtype == object or y_pred.dtype.kind != y_true.dtype.kind:
            return np.fromiter((t == p for t, p in zip(y_true.tolist(), y_pred.tolist())),
                               dtype=np.float64, count=y_true.shape[0])
        return (y_true == y_pred).astype(np.float64)
    err = y_true.astype(np.float64) - y_pred.astype(np.float64)
    return np.abs(err) if metric == "mae" else err * err


def _summarise(metric, s):
    return math.sqrt(s) if metric == "rmse" else s


def prequential(learner, X, y, metric="accuracy", chunk_size=1000, checkpoints=20,
                classes=None, progress=True, step=None, window=None, api="auto"):
    """Prequential (test-then-train) evaluation; returns the learning curve.

    Parameters
    ----------
    learner : object
        A chunked learner (``predict`` + ``partial_fit``, e.g. treelab's
        ``SGTClassifier``) or a river learner (``predict_one`` +
        ``learn_one``).  It is trained in place.
    X : ndarray of shape (n, d) or pandas.DataFrame
        The stream, in order.  DataFrame ``category`` columns are nominal
        attributes; chunks are handed to the learner as DataFrame slices.
    y : array-like of shape (n,)
        Labels (accuracy) or targets (mae / rmse).
    metric : {"accuracy", "mae", "rmse"}
        The score.  Instances the learner cannot predict yet (``predict``
        raises ``NotFittedError`` or an ``AttributeError`` for a fitted
        attribute such as ``classes_``, or ``predict_one`` returns ``None``) are
        left out of the score, as river's ``progressive_val_score`` does; the
        ``scored`` column counts the instances that were scored.
    chunk_size : int, default 1000
        Instances per predict / ``partial_fit`` chunk (chunked learners only;
        river learners are always per instance).  The chunks do not depend
        on the checkpoints; a checkpoint inside a chunk gets its metrics
        exactly (they are per instance), its ``seconds`` interpolated within
        the chunk and its model size from the end of the chunk.
    checkpoints : int or sequence of int, default 20
        How many evenly spaced checkpoints, or the instance counts at which to
        record the curve.  The end of the stream is always a checkpoint.
    classes : array-like, optional
        All class labels, passed to the first ``partial_fit`` call as
        ``classes=`` when the learner's ``partial_fit`` accepts it (river
        learners need no declaration; ignored for them).
    progress : bool, default True
        Show a tqdm progress bar (when tqdm is installed).
    step : int, optional
        Record a checkpoint every ``step`` instances instead (overrides
        ``checkpoints``).
    window : int, optional
        Window of the windowed metric: the last ``window`` instances.  Default:
        the instances since the previous checkpoint.
    api : {"auto", "chunk", "one"}
        Force the chunked path or the per-instance (river) path; "auto" uses
        :func:`is_river_learner`.

    Returns
    -------
    pandas.DataFrame
        One row per checkpoint with columns ``instances``, ``<metric>`` (over
        all instances so far), ``<metric>_window`` (over the window; NaN when
        nothing in it was scored), ``scored`` (instances scored so far),
        ``seconds`` (cumulative time spent inside the learner's predict and
        learn calls) and, when the learner exposes them, ``n_nodes`` and
        ``n_leaves``.  ``frame.attrs`` records the settings and
        ``compile_seconds``.

    Notes
    -----
    Only calls into the learner are timed.  Slicing the chunks, scoring and,
    for river learners, converting the rows to dicts are not: the rows are
    converted to a list of dicts once, up front, before the clock starts
    (river itself would receive them as dicts from its stream iterators), so
    the seconds compare the learners rather than the data plumbing.

    Nor is compilation: before the clock starts, a treelab learner's jitted
    kernels are compiled (or loaded from numba's disk cache) on a throwaway
    copy fed the stream's first rows; the time that took is
    ``frame.attrs["compile_seconds"]``, so the first chunk's ``seconds`` are
    learning only.
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}")
    check_int("chunk_size", chunk_size)
    check_int("window", window, allow_none=True)
    if api not in ("auto", "chunk", "one"):
        raise ValueError(f"api must be 'auto', 'chunk' or 'one', got {api!r}")
    one = is_river_learner(learner) if api == "auto" else api == "one"
    if not one and not (hasattr(learner, "partial_fit") and hasattr(learner, "predict")):
        raise TypeError(f"{type(learner).__name__} has no partial_fit / predict")
    if one and not (hasattr(learner, "learn_one") and hasattr(learner, "predict_one")):
        raise TypeError(f"{type(learner).__name__} has no learn_one / predict_one "
                        "(nor partial_fit)")

    if not isinstance(X, pd.DataFrame):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
    y_arr = _as_target_array(y)
    n = X.shape[0]
    if y_arr.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y_arr.shape[0]}")
    if n == 0:
        raise ValueError("the stream is empty")
    regression = metric != "accuracy"
    pos = _checkpoint_positions(n, checkpoints, step)

    # chunk boundaries: multiples of chunk_size (river: also the checkpoints, where the
    # clock is read; its learning is per instance whatever the boundaries)
    if one:
        bounds = np.unique(np.concatenate([np.arange(0, n, int(chunk_size)), pos]))
    else:
        bounds = np.append(np.arange(0, n, int(chunk_size)), n)
    pos_list = pos.tolist()
    next_ck = 0

    losses = np.empty(n, dtype=np.float64)
    scored = np.empty(n, dtype=bool)
    elapsed = 0.0
    rows = []

    if one:
        rows_x = _rows_as_dicts(X)          # once, outside the timed region
        rows_y = y_arr.tolist()
        predict_one, learn_one = learner.predict_one, learner.learn_one
    else:
        kw_first = {}
        if classes is not None:
            try:
                params = inspect.signature(learner.partial_fit).parameters
            except (TypeError, ValueError):
                params = {}
            if "classes" in params or any(p.kind == p.VAR_KEYWORD for p in params.values()):
                kw_first = {"classes": np.asarray(classes)}
        take = (lambda a, b: X.iloc[a:b]) if isinstance(X, pd.DataFrame) else (lambda a, b: X[a:b])
        first = True

    # compile (or load) a treelab learner's kernels on a throwaway copy first, so the
    # first chunk's seconds are learning, not compilation
    from .._warmup import warm_learner
    compile_seconds = warm_learner(learner, X, y_arr, classes=classes,
                                   api="one" if one else "chunk")

    desc = f"{(type(learner).__module__ or '').split('.')[0]}.{type(learner).__name__}"
    bar = progress_bar(progress, n, desc, unit="inst", leave=False)
    try:
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            if one:
                xs, ys = rows_x[a:b], rows_y[a:b]
                preds = [None] * (b - a)
                elapsed_before = elapsed
                t0 = time.perf_counter()
                for i, (x, t) in enumerate(zip(xs, ys)):
                    preds[i] = predict_one(x)
                    learn_one(x, t)
                elapsed += time.perf_counter() - t0
                ok = np.fromiter((p is not None for p in preds), dtype=bool, count=b - a)
                preds = np.array(preds, dtype=object) if not regression else np.array(
                    [0.0 if p is None else p for p in preds], dtype=np.float64)
            else:
                Xc, yc = take(a, b), y_arr[a:b]
                t0 = time.perf_counter()
                try:
                    preds = learner.predict(Xc)
                except Exception as exc:
                    if not _is_not_fitted(exc):
                        raise
                    preds = None
                if first:
                    learner.partial_fit(Xc, yc, **kw_first)
                    first = False
                else:
                    learner.partial_fit(Xc, yc)
                elapsed_before = elapsed
                elapsed += time.perf_counter() - t0
                if preds is None:
                    ok = np.zeros(b - a, dtype=bool)
                    preds = (np.zeros(b - a) if regression
                             else np.full(b - a, None, dtype=object))
                else:
                    preds = np.asarray(preds)
                    if preds.ndim == 2 and preds.shape[1] == 1:
                        preds = preds.ravel()
                    if preds.shape[0] != b - a:
                        raise ValueError(f"{type(learner).__name__}.predict returned "
                                         f"{preds.shape[0]} predictions for {b - a} rows")
                    ok = (np.fromiter((p is not None for p in preds.tolist()), dtype=bool,
                                      count=b - a) if preds.dtype == object
                          else np.ones(b - a, dtype=bool))
                    if regression and not ok.all():
                        preds = np.where(ok, preds, 0.0)
            scored[a:b] = ok
            losses[a:b] = np.where(ok, _losses(metric, y_arr[a:b], preds), 0.0)
            bar.update(b - a)
            if next_ck < len(pos_list) and pos_list[next_ck] <= b:
                size = _model_size(learner)
                while next_ck < len(pos_list) and pos_list[next_ck] <= b:
                    p = pos_list[next_ck]
                    secs = elapsed_before + (elapsed - elapsed_before) * (p - a) / (b - a)
                    rows.append((p, secs, size))
                    next_ck += 1
    finally:
        bar.close()

    csum = np.concatenate([[0.0], np.cumsum(losses)])
    cnt = np.concatenate([[0], np.cumsum(scored)])

    def value(lo, hi):
        k = cnt[hi] - cnt[lo]
        return _summarise(metric, (csum[hi] - csum[lo]) / k) if k else math.nan

    records = []
    prev = 0
    for b, secs, size in rows:
        lo = prev if window is None else max(0, b - int(window))
        rec = {
            "instances": b,
            metric: value(0, b),
            f"{metric}_window": value(lo, b),
            "scored": int(cnt[b]),
            "seconds": secs,
        }
        rec.update(size)
        records.append(rec)
        prev = b
    frame = pd.DataFrame.from_records(records)
    for a in _SIZE_ATTRS:
        if a in frame.columns:
            frame[a] = frame[a].astype("Int64")
    frame.attrs.update(learner=type(learner).__name__, metric=metric,
                       chunk_size=1 if one else int(chunk_size),
                       api="one" if one else "chunk", window=window,
                       compile_seconds=compile_seconds)
    return frame
