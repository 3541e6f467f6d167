"""Stochastic Gradient Trees (Gouk, Pfahringer & Frank, ACML 2019).

Streaming learners with river's method names (``learn_one``, ``predict_one``,
``predict_proba_one``), chunked ``partial_fit(X, y)`` (one jitted call per
chunk) and batch ``fit``.  Hyper-parameters keep the paper's names and
defaults: ``delta=1e-7`` (t-test level), ``grace_period=200``,
``lambda_=0.1``, ``gamma=1.0`` (per new leaf), ``n_bins=64`` equal-width bins
whose range is estimated from the first ``n_range_samples=1000`` instances
(values outside the range are clipped to the end bins).  Those first
instances are buffered and, once the range is known, learned in order, so
no instance is wasted.

Any decision rule with :data:`treelab._engine.signatures.RULE_SIG` can replace
the t-test (``rule=``), e.g. a Hoeffding or C-Tree bound for ablations.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

from .._engine import sgt as _sgt
from .._engine.signatures import RULE_SIG, function_pointer
from .._engine.streaming import equal_width_codes, fit_equal_width_range
from .._engine.tree import LEAF, TreeArrays, max_depth as _max_depth, n_leaves as _n_leaves
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from ..data import encode_X, fit_encode_X
from ..losses import GRAD_HESS_SIG, Logistic, Softmax, SquaredError

__all__ = ["SGTClassifier", "SGTRegressor", "SGTMultiInstanceClassifier", "TTestRule"]

#: rows ``learn_one`` queues before one kernel call learns them (see ``_learn_row``)
_PENDING_MAX = 256


class TTestRule:
    """SGT's split test (Gouk et al. 2019): a one-sample t-test of the mean
    per-instance loss change, split when p < ``delta`` and the change is a
    reduction.  Its jitted ``rule_fn`` has :data:`RULE_SIG`."""

    def __init__(self, delta=1e-7):
        self.delta = delta

    @property
    def rule_fn(self):
        return _sgt.TTEST_RULE

    @property
    def params(self):
        return np.array([float(self.delta)])

    def __repr__(self):
        return f"TTestRule(delta={self.delta!r})"


def _check_positive_int(name, v, lo=1):
    if not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, bool) or v < lo:
        raise ValueError(f"{name} must be an int >= {lo}, got {v!r}")
    return int(v)


def _check_nonneg_float(name, v):
    if not isinstance(v, (numbers.Real, np.floating)) or isinstance(v, bool) or not v >= 0:
        raise ValueError(f"{name} must be a float >= 0, got {v!r}")
    return float(v)


class _BaseSGT(BaseEstimator):
    """Shared streaming machinery (not for direct use)."""

    _multi_instance = False

    # ---------------------------------------------------------------- params
    def _validate_params(self):
        delta = self.delta
        if not isinstance(delta, (numbers.Real, np.floating)) or not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}")
        _check_positive_int("grace_period", self.grace_period)
        _check_nonneg_float("lambda_", self.lambda_)
        _check_nonneg_float("gamma", self.gamma)
        _check_positive_int("n_bins", self.n_bins, 1)
        _check_positive_int("n_range_samples", self.n_range_samples, 1)
        rule = TTestRule(delta) if self.rule is None else self.rule
        if not hasattr(rule, "rule_fn") or not hasattr(rule, "params"):
            raise TypeError("rule must provide rule_fn (jitted with RULE_SIG) and params")
        return rule

    # ------------------------------------------------------------- encoding
    def _encode_chunk(self, X):
        """Encode a chunk; the first chunk's encoding is only *proposed* (kept in
        ``_new_encoding``) and committed by :meth:`_commit_encoding` once the whole
        chunk was accepted, so a rejected first chunk leaves no trace."""
        name = type(self).__name__
        if not hasattr(self, "_encoding"):
            nf = self.nominal_features
            if isinstance(nf, dict):
                if isinstance(X, pd.DataFrame):
                    X = self._frame_with_categories(X)
                nf = list(nf.keys())
            Xf, enc = fit_encode_X(X, name, nf, allow_nan=True)
            if isinstance(self.nominal_features, dict) and not isinstance(X, pd.DataFrame):
                for k, cats in self.nominal_features.items():
                    if isinstance(k, (int, np.integer)):
                        enc.categories[int(k)] = pd.Index(list(cats))
                enc.n_cats = np.array([0 if c is None else len(c) for c in enc.categories],
                                      dtype=np.int64)
            self._new_encoding = enc
            return Xf
        return encode_X(X, self._encoding, name, allow_nan=True)

    def _commit_encoding(self):
        enc = self.__dict__.pop("_new_encoding", None)
        if enc is not None:
            self._encoding = enc
            self.n_features_in_ = enc.n_features
            if enc.feature_names is not None:
                self.feature_names_in_ = enc.feature_names

    def _row_from_dict(self, x):
        """One row (1 x d float64) from a river-style feature dict."""
        if not isinstance(x, dict):
            raise TypeError(f"learn_one / predict_one take a dict of features, got {type(x).__name__}")
        if not hasattr(self, "_encoding"):
            names = list(x.keys())
            df = pd.DataFrame({k: [v] for k, v in x.items()})
            for k in names:
                if not (pd.api.types.is_numeric_dtype(df[k].dtype) or df[k].dtype == bool):
                    if self.nominal_features is None or k not in self.nominal_features:
                        raise TypeError(
                            f"feature {k!r} has the non-numeric value {x[k]!r}; declare nominal "
                            "features with nominal_features={name: [categories...]}")
            Xf = self._encode_chunk(self._frame_with_categories(df))
            self._commit_encoding()
            return Xf
        enc = self._encoding
        names = self._feature_order()
        if len(x) != enc.n_features or any(k not in x for k in names):
            raise ValueError(f"expected the features {names}, got {sorted(x)}")
        vals = [0.0] * enc.n_features
        cat_index = self._cat_index
        for j, k in enumerate(names):
            v = x[k]
            ci = cat_index[j]
            if ci is not None:
                if v is None or (isinstance(v, float) and v != v):
                    vals[j] = math.nan
                else:
                    vals[j] = ci.get(v, -1)
            else:
                try:
                    v = math.nan if v is None else float(v)
                except (TypeError, ValueError):
                    raise TypeError(f"feature {k!r} must be numeric, got {v!r}") from None
                if math.isinf(v):
                    raise ValueError(f"feature {k!r} is infinite; X may not contain infinity")
                vals[j] = v
        return np.array([vals], dtype=np.float64)

    def _frame_with_categories(self, df):
        nf = self.nominal_features
        if isinstance(nf, dict):
            df = df.copy()
            for k, cats in nf.items():
                if k in df.columns:
                    df[k] = pd.Categorical(df[k], categories=list(cats))
        return df

    def _feature_order(self):
        enc = self._encoding
        if enc.feature_names is not None:
            return [str(c) for c in enc.feature_names]
        return list(range(enc.n_features))

    @property
    def _cat_index(self):
        cache = getattr(self, "_cat_index_cache", None)
        if cache is None:
            cache = [None if c is None else {v: i for i, v in enumerate(c)}
                     for c in self._encoding.categories]
            self._cat_index_cache = cache
        return cache

    def __getstate__(self):
        self._flush()
        state = self.__dict__.copy()
        state.pop("_cat_index_cache", None)
        if "_forest" in state:
            state["_forest"] = tuple(state["_forest"])
            state["_state"] = tuple(state["_state"])
        return state

    def __setstate__(self, state):
        if "_forest" in state:
            state["_forest"] = TreeArrays(*state["_forest"])
            state["_state"] = _sgt.SGTState(*state["_state"])
        self.__dict__.update(state)

    # ------------------------------------------------------------- learning
    def _n_trees(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _start(self, Xf):
        """Fit the bin range on the buffered instances and create the trees."""
        enc = self._encoding
        self._lo, self._hi = fit_equal_width_range(Xf, enc.is_nominal)
        n_bins_total = max(self.n_bins, int(enc.n_cats.max()) if enc.n_features else 1)
        K = self._n_trees()
        self._forest, self._roots = _sgt.new_forest(K)
        self._state = _sgt.new_state(K, enc.n_features, max(n_bins_total, 1),
                                     self._forest.feature.shape[0])

    def _codes(self, Xf):
        return equal_width_codes(Xf, self._lo, self._hi, int(self.n_bins), self._is_nominal,
                                 self._n_cats)

    @property
    def _is_nominal(self):
        return np.ascontiguousarray(self._encoding.is_nominal, dtype=np.bool_)

    @property
    def _n_cats(self):
        return np.ascontiguousarray(self._encoding.n_cats, dtype=np.int64)

    def _learn_codes(self, Xc, y, bag_offsets):
        kernel = _sgt.get_learn_kernel()
        self._forest, self._state = kernel(
            self._forest, self._state, self._roots, np.ascontiguousarray(Xc),
            np.ascontiguousarray(y, dtype=np.float64), bag_offsets, self._is_nominal,
            self._n_cats, int(self.n_bins), float(self.lambda_), float(self.gamma),
            int(self.grace_period), function_pointer(self._loss.grad_hess, GRAD_HESS_SIG),
            function_pointer(self._rule.rule_fn, RULE_SIG), self._current_rule_params())

    def _learn_row(self, row, ycode):
        """Learn one encoded row.  Once the trees exist, rows are queued and learned
        in one kernel call per ``_PENDING_MAX`` rows -- or as soon as anything reads
        the model (predictions, sizes, pickling, another chunk), so the result is
        exactly that of learning each row at once."""
        if hasattr(self, "_forest"):
            self._pending_rows.append(row)
            self._pending_y.append(ycode)
            if len(self._pending_rows) >= _PENDING_MAX:
                self._flush()
        else:
            self._partial_fit_encoded(row, np.array([ycode], dtype=np.float64))

    def _flush(self):
        rows = self.__dict__.get("_pending_rows")
        if rows:
            X = np.concatenate(rows)
            y = np.array(self._pending_y, dtype=np.float64)
            self._pending_rows, self._pending_y = [], []
            self._learn_codes(self._codes(X), y, np.zeros(0, np.int64))

    def _partial_fit_encoded(self, Xf, ycode):
        """Learn encoded rows (float64 matrix, float64 targets) in stream order."""
        self._flush()
        if not hasattr(self, "_forest"):
            self._buf_X.append(Xf)
            self._buf_y.append(ycode)
            n_buf = sum(len(b) for b in self._buf_y)
            if n_buf < self.n_range_samples:
                return
            Xb = np.concatenate(self._buf_X)
            yb = np.concatenate(self._buf_y)
            self._buf_X, self._buf_y = [], []
            self._start(Xb[:self.n_range_samples])
            Xf, ycode = Xb, yb
        self._learn_codes(self._codes(Xf), ycode, np.zeros(0, np.int64))

    def _ensure_started_for_predict(self):
        """Predictions before the range is known: fit the range on the buffer (if any)."""
        return hasattr(self, "_forest")

    def _raw(self, Xf):
        self._flush()
        if not hasattr(self, "_forest"):
            return np.zeros((Xf.shape[0], self._n_trees()))
        return _sgt.forest_raw(self._forest, self._roots, np.ascontiguousarray(self._codes(Xf)))

    def _raw_one(self, row):
        """Raw scores of one encoded row, traversed in Python: for a single row this
        is faster than any kernel call (whose argument unboxing dominates)."""
        self._flush()
        K = self._n_trees()
        if not hasattr(self, "_forest"):
            return [0.0] * K
        t = self._forest
        enc = self._encoding
        lo, hi, nb = self._lo, self._hi, int(self.n_bins)
        codes = {}
        out = []
        kind, feature, threshold = t.kind, t.feature, t.threshold
        first, missing = t.first_child, t.missing_child
        for root in self._roots.tolist():
            node = root
            while kind[node] != LEAF:
                f = int(feature[node])
                c = codes.get(f)
                if c is None:
                    v = row[f]
                    if v != v:
                        c = math.nan
                    elif enc.is_nominal[f]:
                        c = float(v) if (0 <= v < enc.n_cats[f] and v == int(v)) else math.nan
                    else:
                        w = hi[f] - lo[f]
                        c = 0.0 if not w > 0 else float(min(max(math.floor(nb * ((v - lo[f]) / w)), 0), nb - 1))
                    codes[f] = c
                if c != c:
                    node = int(first[node] + missing[node])
                elif kind[node] == 1:
                    node = int(first[node] + (0 if c <= threshold[node] else 1))
                else:
                    slot = -1
                    ci = int(c)
                    if 0 <= ci < t.cat_count[node]:
                        slot = int(t.cat_map[t.cat_offset[node] + ci])
                    node = int(first[node] + (slot if slot >= 0 else missing[node]))
            out.append(float(t.value[node, 0]))
        return out

    def _current_rule_params(self):
        """The rule's parameters, re-read when ``rule`` / ``delta`` changed (set_params)."""
        key = (id(self.rule), self.delta)
        if self.__dict__.get("_rule_key") != key:
            self._rule = self._validate_params()
            self._rule_params = np.ascontiguousarray(self._rule.params, dtype=np.float64)
            self._rule_key = key
        return self._rule_params

    def _init_stream(self):
        self._pending_rows, self._pending_y = [], []
        self._raw_labels = []
        self._rule = self._validate_params()
        self._rule_params = np.ascontiguousarray(self._rule.params, dtype=np.float64)
        self._rule_key = (id(self.rule), self.delta)
        self._buf_X, self._buf_y = [], []

    # ------------------------------------------------------------ model size
    def _initial_trees(self):
        """Before the trees exist the model is its single-leaf trees (0 when the
        number of trees is not known yet: classes not fixed)."""
        try:
            return self._n_trees()
        except AttributeError:
            return 0

    @property
    def n_nodes(self):
        """Number of nodes in all trees."""
        self._flush()
        return int(self._forest.sizes[0]) if hasattr(self, "_forest") else self._initial_trees()

    @property
    def n_leaves(self):
        self._flush()
        return int(_n_leaves(self._forest)) if hasattr(self, "_forest") else self._initial_trees()

    @property
    def depth(self):
        self._flush()
        return int(_max_depth(self._forest)) if hasattr(self, "_forest") else 0

    @property
    def n_splits(self):
        self._flush()
        return int(self._state.meta[_sgt.M_SPLITS]) if hasattr(self, "_state") else 0

    @property
    def n_leaf_updates(self):
        self._flush()
        return int(self._state.meta[_sgt.M_UPDATES]) if hasattr(self, "_state") else 0

    @property
    def n_seen(self):
        self._flush()
        seen = int(self._state.meta[_sgt.M_SEEN]) if hasattr(self, "_state") else 0
        return seen + sum(len(b) for b in getattr(self, "_buf_X", []))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.non_deterministic = False
        return tags


# ============================================================================ regressor
class SGTRegressor(RegressorMixin, _BaseSGT):
    """Stochastic Gradient Tree for regression (squared error).

    Parameters
    ----------
    delta, grace_period, lambda_, gamma, n_bins, n_range_samples
        The paper's hyper-parameters (see module docstring).
    rule : object, optional
        Split decision rule with ``rule_fn`` / ``params`` (default: t-test at ``delta``).
    nominal_features : list or dict, optional
        Nominal columns (pandas ``category`` columns are always nominal); a dict
        ``{name: [categories]}`` declares the categories for ``learn_one`` dicts.
    loss : treelab.losses.Loss, optional
        Any single-output loss (default squared error), e.g. a user-defined Huber loss.
    """

    def __init__(self, delta=1e-7, grace_period=200, lambda_=0.1, gamma=1.0, n_bins=64,
                 n_range_samples=1000, rule=None, nominal_features=None, loss=None):
        self.delta = delta
        self.grace_period = grace_period
        self.lambda_ = lambda_
        self.gamma = gamma
        self.n_bins = n_bins
        self.n_range_samples = n_range_samples
        self.rule = rule
        self.nominal_features = nominal_features
        self.loss = loss

    def _n_trees(self):
        return 1

    def _targets(self, y, n):
        from ..data import check_regression_targets
        return check_regression_targets(y, n)

    def partial_fit(self, X, y, sample_weight=None):
        """Learn a chunk of the stream in order (one jitted call)."""
        if sample_weight is not None:
            raise ValueError("SGT does not support sample_weight")
        if not hasattr(self, "_buf_X"):
            self._init_stream()
            self._loss = SquaredError() if self.loss is None else self.loss
        Xf = self._encode_chunk(X)
        y = self._targets(y, Xf.shape[0])
        self._commit_encoding()
        self._partial_fit_encoded(Xf, y)
        return self

    def fit(self, X, y, sample_weight=None):
        """Learn ``(X, y)`` as one stream from scratch."""
        for attr in ("_forest", "_state", "_buf_X", "_encoding", "_cat_index_cache",
                     "_pending_rows", "_pending_y"):
            self.__dict__.pop(attr, None)
        return self.partial_fit(X, y, sample_weight)

    def learn_one(self, x, y):
        """Learn one instance (a dict of features)."""
        if not hasattr(self, "_buf_X"):
            self._init_stream()
            self._loss = SquaredError() if self.loss is None else self.loss
        row = self._row_from_dict(x)
        yv = float(y)
        if not np.isfinite(yv):
            raise ValueError(f"target must be finite, got {y!r}")
        self._learn_row(row, yv)
        return self

    def predict(self, X):
        check_is_fitted(self, "_encoding")
        Xf = encode_X(X, self._encoding, type(self).__name__, allow_nan=True)
        return self._loss.inverse_link(self._raw(Xf))[:, 0] if self._loss.name != "squared_error" \
            else self._raw(Xf)[:, 0]

    def predict_one(self, x):
        if not hasattr(self, "_encoding"):
            return 0.0
        raw = self._raw_one(self._row_from_dict(x)[0])
        if self._loss.name == "squared_error":
            return raw[0]
        return float(self._loss.inverse_link(np.array([raw]))[0, 0])


# =========================================================================== classifier
class SGTClassifier(ClassifierMixin, _BaseSGT):
    """Stochastic Gradient Tree classifier: logistic loss for two classes, softmax
    cross-entropy with k - 1 trees (the last class's score fixed at 0) for k classes.

    The classes are fixed at the first ``partial_fit`` (its ``classes=`` argument,
    the ``classes`` parameter, or the labels of the first ``n_range_samples``
    instances); a label outside them later raises a ``ValueError``.
    """

    def __init__(self, delta=1e-7, grace_period=200, lambda_=0.1, gamma=1.0, n_bins=64,
                 n_range_samples=1000, rule=None, nominal_features=None, classes=None):
        self.delta = delta
        self.grace_period = grace_period
        self.lambda_ = lambda_
        self.gamma = gamma
        self.n_bins = n_bins
        self.n_range_samples = n_range_samples
        self.rule = rule
        self.nominal_features = nominal_features
        self.classes = classes

    def _n_trees(self):
        return 1 if len(self.classes_) == 2 else len(self.classes_) - 1

    def _set_classes(self, classes):
        classes = np.asarray(classes)
        if classes.ndim != 1 or classes.shape[0] < 2:
            raise ValueError(f"a classifier needs at least two classes, got {classes!r}")
        if np.unique(classes).shape[0] != classes.shape[0]:
            raise ValueError("classes must be unique")
        self.classes_ = np.sort(classes)
        self.n_classes_ = int(classes.shape[0])
        self._class_code = {c: i for i, c in enumerate(self.classes_.tolist())}
        self._loss = Logistic() if self.n_classes_ == 2 else Softmax()

    def _codes_of(self, y):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got shape {y.shape}")
        if (np.isnan(y).any() if y.dtype.kind == "f"
                else y.dtype.kind == "O" and pd.isna(pd.Series(y, dtype=object)).any()):
            raise ValueError("Input y contains NaN (missing class labels are not allowed).")
        idx = np.searchsorted(self.classes_, y)
        idx = np.clip(idx, 0, self.n_classes_ - 1)
        bad = self.classes_[idx] != y
        if bad.any():
            raise ValueError(f"y contains the label {y[bad][0]!r}, which is not one of the "
                             f"classes {list(self.classes_)} fixed at the start of the stream; "
                             "pass classes=[...] to declare every label")
        return idx.astype(np.float64)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn a chunk of the stream in order (one jitted call)."""
        if sample_weight is not None:
            raise ValueError("SGT does not support sample_weight")
        if not hasattr(self, "_buf_X"):
            self._init_stream()
        Xf = self._encode_chunk(X)
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None")
        yl = np.asarray(y)
        if yl.ndim == 2 and yl.shape[1] == 1:
            yl = yl.ravel()
        if yl.ndim != 1 or yl.shape[0] != Xf.shape[0]:
            raise ValueError(f"X has {Xf.shape[0]} rows but y has shape {yl.shape}")
        if not hasattr(self, "classes_") and (classes is not None or self.classes is not None):
            self._set_classes(classes if classes is not None else self.classes)
        if hasattr(self, "classes_"):
            codes = self._codes_of(yl)            # validates every label before any change
            self._commit_encoding()
            self._partial_fit_encoded(Xf, codes)
            return self
        self._learn_unknown_classes(Xf, yl)
        return self

    def _learn_unknown_classes(self, Xf, labels):
        """Classes not declared: buffer rows and labels; the classes are the labels
        among the first ``n_range_samples`` instances (later new labels raise)."""
        if (labels.dtype.kind == "f" and np.isnan(labels).any()) or (
                labels.dtype.kind == "O" and pd.isna(pd.Series(labels, dtype=object)).any()):
            raise ValueError("Input y contains NaN (missing class labels are not allowed).")
        buffered = sum(len(b) for b in self._buf_X)
        need = self.n_range_samples - buffered
        if labels.shape[0] >= need:
            all_labels = np.concatenate(self._raw_labels + [labels]) if self._raw_labels else labels
            classes = np.unique(all_labels[:self.n_range_samples])
            if classes.shape[0] < 2:
                raise ValueError(
                    f"the first {self.n_range_samples} instances hold the single class "
                    f"{classes[0]!r}; pass classes=[...] to declare the classes")
            self._set_classes(classes)
            try:
                codes = self._codes_of(all_labels)
            except ValueError:
                for attr in ("classes_", "n_classes_", "_class_code", "_loss"):
                    self.__dict__.pop(attr, None)
                raise
            self._commit_encoding()
            Xb = np.concatenate(self._buf_X + [Xf]) if self._buf_X else Xf
            self._buf_X, self._raw_labels = [], []
            self._partial_fit_encoded(Xb, codes)
        else:
            self._commit_encoding()
            self._raw_labels = self._raw_labels + [labels]
            self._buf_X.append(Xf)

    def fit(self, X, y, classes=None, sample_weight=None):
        """Learn ``(X, y)`` as one stream from scratch."""
        for attr in ("_forest", "_state", "_buf_X", "_encoding", "_cat_index_cache",
                     "classes_", "_raw_labels", "_pending_rows", "_pending_y", "_new_encoding"):
            self.__dict__.pop(attr, None)
        if classes is None and self.classes is None:
            classes = np.unique(np.asarray(y))
            if classes.shape[0] < 2:
                raise ValueError("Classifier can't train when only one class is present.")
        return self.partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def learn_one(self, x, y):
        """Learn one instance (a dict of features and its label)."""
        if not hasattr(self, "_buf_X"):
            self._init_stream()
        row = self._row_from_dict(x)
        if not hasattr(self, "classes_") and self.classes is not None:
            self._set_classes(self.classes)
        if hasattr(self, "classes_"):
            code = self._class_code.get(y)
            if code is None:
                self._codes_of(np.asarray([y]))   # raises the unknown-label error
            self._learn_row(row, float(code))
        else:
            self._learn_unknown_classes(row, np.asarray([y]))
        return self

    def _proba_from_raw(self, raw):
        if not hasattr(self, "classes_"):
            return None
        return self._loss.predict_proba(raw)   # Logistic: (n, 2); Softmax: (n, k)

    def predict_proba(self, X):
        check_is_fitted(self, "classes_")
        check_is_fitted(self, "_encoding")
        Xf = encode_X(X, self._encoding, type(self).__name__, allow_nan=True)
        return self._proba_from_raw(self._raw(Xf))

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_proba_one(self, x):
        """Class probabilities of one instance as a dict (river's convention)."""
        if not hasattr(self, "classes_") or not hasattr(self, "_encoding"):
            return {}
        p = self._proba_from_raw(np.array([self._raw_one(self._row_from_dict(x)[0])]))[0]
        return {c: float(v) for c, v in zip(self.classes_.tolist(), p)}

    def predict_one(self, x):
        proba = self.predict_proba_one(x)
        if not proba:
            return None
        return max(proba, key=proba.get)


# ===================================================================== multi-instance
class SGTMultiInstanceClassifier(ClassifierMixin, _BaseSGT):
    """Multi-instance SGT (Gouk et al. 2019, Sec. 4.3): a bag is positive when
    its highest-scoring instance is; the bag score is the maximum instance score,
    the logistic loss is taken on it, and its gradient and Hessian update only
    the arg-max instance's leaf.  Trained in ``n_epochs`` passes over the
    training bags (shuffled each epoch with ``random_state``).

    ``fit(X, y, bags)``: ``X`` instances, ``bags`` the bag id of each instance,
    ``y`` the bag label of each instance (constant within a bag) or one label
    per bag in order of first appearance.
    """

    _multi_instance = True

    def __init__(self, delta=1e-7, grace_period=200, lambda_=0.1, gamma=1.0, n_bins=64,
                 n_range_samples=1000, rule=None, nominal_features=None, n_epochs=10,
                 random_state=None):
        self.delta = delta
        self.grace_period = grace_period
        self.lambda_ = lambda_
        self.gamma = gamma
        self.n_bins = n_bins
        self.n_range_samples = n_range_samples
        self.rule = rule
        self.nominal_features = nominal_features
        self.n_epochs = n_epochs
        self.random_state = random_state

    def _n_trees(self):
        return 1

    @staticmethod
    def _group(bags):
        bags = np.asarray(bags)
        if bags.ndim != 1:
            raise ValueError("bags must be a 1-D array of bag ids, one per instance")
        uniq, first, inv = np.unique(bags, return_index=True, return_inverse=True)
        order_bags = np.argsort(first, kind="stable")          # bags in order of appearance
        rank = np.empty_like(order_bags)
        rank[order_bags] = np.arange(order_bags.shape[0])
        bag_of_row = rank[inv.ravel()]
        rows = np.argsort(bag_of_row, kind="stable")
        counts = np.bincount(bag_of_row, minlength=uniq.shape[0])
        offsets = np.zeros(uniq.shape[0] + 1, np.int64)
        offsets[1:] = np.cumsum(counts)
        return rows, offsets, uniq[order_bags], bag_of_row

    def fit(self, X, y, bags):
        """Train on bags for ``n_epochs`` epochs."""
        from ..data import check_random_state
        for attr in ("_forest", "_state", "_buf_X", "_encoding", "_cat_index_cache", "classes_",
                     "_pending_rows", "_pending_y"):
            self.__dict__.pop(attr, None)
        self._init_stream()
        _check_positive_int("n_epochs", self.n_epochs)
        Xf = self._encode_chunk(X)
        rows, offsets, bag_ids, bag_of_row = self._group(bags)
        if len(bag_of_row) != Xf.shape[0]:
            raise ValueError("bags must give one bag id per instance")
        y = np.asarray(y)
        n_bags = offsets.shape[0] - 1
        if y.shape[0] == Xf.shape[0]:
            yb = np.empty(n_bags, dtype=y.dtype)
            yb[bag_of_row] = y
            if not (y == yb[bag_of_row]).all():
                raise ValueError("instances of one bag have different labels")
        elif y.shape[0] == n_bags:
            yb = y
        else:
            raise ValueError("y must have one label per instance or one per bag")
        classes = np.unique(yb)
        if classes.shape[0] != 2:
            raise ValueError(f"multi-instance SGT is binary; got classes {list(classes)}")
        self._commit_encoding()
        self.classes_ = classes
        self.n_classes_ = 2
        self._loss = Logistic()
        ycode = (yb == classes[1]).astype(np.float64)
        Xs = Xf[rows]
        self._start(Xs[:self.n_range_samples])
        Xc = np.ascontiguousarray(self._codes(Xs))
        rng = check_random_state(self.random_state)
        sizes = np.diff(offsets)
        for _ in range(int(self.n_epochs)):
            perm = rng.permutation(n_bags)
            idx = np.concatenate([np.arange(offsets[b], offsets[b + 1]) for b in perm])
            new_off = np.zeros(n_bags + 1, np.int64)
            new_off[1:] = np.cumsum(sizes[perm])
            self._learn_codes(Xc[idx], ycode[perm], new_off)
        return self

    def decision_function(self, X, bags):
        """Bag scores: the maximum raw score over each bag's instances."""
        check_is_fitted(self, "_forest")
        Xf = encode_X(X, self._encoding, type(self).__name__, allow_nan=True)
        rows, offsets, bag_ids, _ = self._group(bags)
        raw = self._raw(Xf[rows])[:, 0]
        return np.maximum.reduceat(raw, offsets[:-1]) if raw.size else raw

    def predict_proba(self, X, bags):
        s = self.decision_function(X, bags)
        p1 = 1.0 / (1.0 + np.exp(-s))
        return np.stack([1.0 - p1, p1], axis=1)

    def predict(self, X, bags):
        """Predicted label of each bag (bags in order of first appearance)."""
        return self.classes_[(self.decision_function(X, bags) > 0).astype(int)]

    def score(self, X, y, bags):
        rows, offsets, bag_ids, bag_of_row = self._group(bags)
        y = np.asarray(y)
        if y.shape[0] == len(bag_of_row):
            yb = np.empty(offsets.shape[0] - 1, dtype=y.dtype)
            yb[bag_of_row] = y
        else:
            yb = y
        return float(np.mean(self.predict(X, bags) == yb))
