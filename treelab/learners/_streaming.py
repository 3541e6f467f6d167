"""Shared machinery of treelab's streaming trees (SGT, Hoeffding trees).

Encoding of chunks and river-style dict rows (pandas ``category`` columns and
declared ``nominal_features`` are nominal), buffering of the first
``n_range_samples`` instances until the equal-width bin range is known,
queueing of ``learn_one`` rows into one kernel call, pickling (also
mid-stream), model-size properties and, for classifiers, the handling of
classes.  The learners themselves only create their model and call their
kernels.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._compile import announce
from .._engine.observers import (
    G_ROWS, OBS_ADAPTIVE, OBS_EQUAL_WIDTH, OBS_GAUSSIAN, OBSERVERS, set_root_ranges, value_codes,
)
from .._engine.signatures import RULE_SIG, function_pointer
from .._engine.streaming import (
    M_SEEN, M_SPLITS, StreamState, equal_width_code, equal_width_codes, fit_equal_width_range,
    make_room, nominal_code,
)
from .._engine.tree import LEAF, TreeArrays, max_depth as _max_depth, n_leaves as _n_leaves
from .._sklearn_compat import BaseEstimator, check_is_fitted
from .._format import plain_repr
from ..data import _column_or_1d, check_classification_targets, encode_X, fit_encode_X

__all__ = ["StreamingTreeBase", "StreamingClassifierMixin", "PENDING_MAX"]

#: rows ``learn_one`` queues before one kernel call learns them (see ``_learn_row``)
PENDING_MAX = 256


class StreamingTreeBase(BaseEstimator):
    """Shared streaming machinery of treelab's incremental trees (not for direct use).

    Subclasses provide ``_n_trees()``, ``_new_model(n_trees, n_features,
    n_bins_total)`` -> ``(forest, roots, state)``, ``_learn_codes(Xc, y,
    bag_offsets)``, ``_make_rule()`` and ``_rule_key()``.
    """


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
        return self._encode(X)

    def _encode(self, X):
        """``X`` validated against the fitted encoding as float64 rows.  A plain
        float64 array for a model fitted on such arrays (no names, no nominal
        features) only needs its shape and the absence of infinity checked, which
        is done here without the general validator (it matters per chunk)."""
        enc = self._encoding
        if (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2
                and X.shape[0] > 0 and X.shape[1] == enc.n_features
                and enc.feature_names is None and not enc.is_nominal.any()
                and not np.isinf(X).any()):
            return X if X.flags.c_contiguous else np.ascontiguousarray(X)
        if type(X) is pd.DataFrame:
            Xf = self._encode_frame_fast(X, enc)
            if Xf is not None:
                return Xf
        return encode_X(X, enc, type(self).__name__, allow_nan=True)

    @staticmethod
    def _encode_frame_fast(X, enc):
        """A DataFrame chunk with the fitted columns, numeric columns numeric and
        nominal columns ``category`` with exactly the fitted categories, encoded
        without the general validator (what :func:`treelab.data.encode_X` gives
        for it; that validator's per-column pandas work dominates small chunks).
        None when the chunk is anything else (the general path decides)."""
        n, d = X.shape
        names = enc.feature_names
        if n == 0 or d != enc.n_features or names is None:
            return None
        cols = X.columns
        if not all(a is b or a == b for a, b in zip(cols, names)):
            return None
        Xf = np.empty((n, d), np.float64)
        nominal = enc.is_nominal
        for j, (_, col) in enumerate(X.items()):
            if nominal[j]:
                arr = col.array
                if not isinstance(arr, pd.Categorical):
                    return None
                cats = arr.categories
                fitted = enc.categories[j]
                if not (cats is fitted or cats.equals(fitted)):
                    return None
                codes = arr.codes
                Xf[:, j] = codes
                if codes.min() < 0:
                    Xf[codes < 0, j] = np.nan
            else:
                v = col.values        # an ndarray for numpy dtypes (nullable ones: not)
                if type(v) is not np.ndarray or v.dtype.kind not in "fiub":
                    return None
                Xf[:, j] = v
        # category codes are finite or NaN, so the whole matrix can be checked
        if np.isinf(Xf).any():
            return None            # the general path raises its error
        return Xf

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
            nf = self.nominal_features or ()
            # river's convention: None is a missing value (a float NaN unless nominal)
            df = pd.DataFrame({k: [np.nan if (v is None and k not in nf) else v]
                               for k, v in x.items()})
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
        try:
            if len(x) != enc.n_features:
                raise KeyError
            vals = [x[k] for k in names]
        except KeyError:
            raise ValueError(f"expected the features {names}, got {sorted(x, key=str)}") from None
        cat_index = self._cat_index
        if not self._any_nominal:
            try:
                row = np.array([vals], dtype=np.float64)     # None -> NaN (missing)
            except (TypeError, ValueError):
                row = None
            if row is not None:
                if np.isinf(row).any():
                    j = int(np.flatnonzero(np.isinf(row[0]))[0])
                    raise ValueError(f"feature {names[j]!r} is infinite; X may not contain "
                                     "infinity")
                return row
        for j, k in enumerate(names):
            v = vals[j]
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
        """Keys of a dict row, in column order (cached)."""
        names = self.__dict__.get("_names_cache")
        if names is None:
            enc = self._encoding
            names = ([str(c) for c in enc.feature_names] if enc.feature_names is not None
                     else list(range(enc.n_features)))
            self._names_cache = names
        return names

    @property
    def _cat_index(self):
        cache = self.__dict__.get("_cat_index_cache")
        if cache is None:
            cache = [None if c is None else {v: i for i, v in enumerate(c)}
                     for c in self._encoding.categories]
            self._cat_index_cache = cache
            self._any_nominal = any(c is not None for c in cache)
        return cache

    #: fitted state dropped by ``fit`` (learning starts from scratch)
    _STREAM_ATTRS = ("_forest", "_roots", "_state", "_buf_X", "_buf_y", "_encoding",
                     "_new_encoding", "_cat_index_cache", "_any_nominal", "_names_cache",
                     "_room", "_classes_are_codes", "_pending_rows", "_pending_y",
                     "_raw_labels", "_lo", "_hi", "_obs_fitted", "_nominal_cache", "classes_", "n_classes_", "_class_code",
                     "n_features_in_", "feature_names_in_")

    def _reset_stream(self):
        """Forget everything learned (``fit`` starts a new stream)."""
        for attr in self._STREAM_ATTRS + tuple(getattr(self, "_class_attrs", ())):
            self.__dict__.pop(attr, None)

    def __getstate__(self):
        self._flush()
        state = self.__dict__.copy()
        for key in ("_cat_index_cache", "_any_nominal", "_names_cache", "_rule", "_rule_params",
                    "_rule_key_seen", "_nominal_cache", "_kernel_args"):
            state.pop(key, None)      # the engine rule is rebuilt from the parameters
        if "_forest" in state:
            state["_forest"] = tuple(state["_forest"])
            state["_state"] = tuple(state["_state"])
        return state

    def __setstate__(self, state):
        if "_forest" in state:
            state["_forest"] = TreeArrays(*state["_forest"])
            state["_state"] = StreamState(*state["_state"])
        self.__dict__.update(state)

    # ------------------------------------------------------------- learning
    def _n_trees(self):  # pragma: no cover - abstract
        raise NotImplementedError

    #: numeric observers the learner accepts (:mod:`treelab._engine.observers`)
    _OBSERVERS = tuple(OBSERVERS)
    #: first ``aux`` column of the adaptive observer's per-leaf ranges
    _AUX_RANGE = 1

    def _obs_code(self):
        """Engine code of the ``observer`` parameter (validated); once the trees
        exist, the observer they were built with (the parameter cannot change a
        model's statistics mid-stream)."""
        fitted = self.__dict__.get("_obs_fitted")
        if fitted is not None:
            return fitted
        obs = getattr(self, "observer", "equal_width")
        if not isinstance(obs, str) or obs not in self._OBSERVERS:
            raise ValueError(f"observer must be one of {list(self._OBSERVERS)}, got {obs!r}")
        code = OBSERVERS[obs]
        if code == OBS_ADAPTIVE and int(self.max_bins) % 2:
            raise ValueError(f"observer='adaptive_range' needs an even max_bins (a doubled range "
                             f"merges pairs of bins), got {self.max_bins!r}")
        return code

    @property
    def _value_space(self):
        """True when the trees learn and store values (not bin codes) of numeric features."""
        return self._obs_code() != OBS_EQUAL_WIDTH

    def _start(self, Xf):
        """Fit the bin range on the buffered instances and create the trees."""
        announce(self)          # one line on stderr if the kernels are about to compile
        enc = self._encoding
        obs = self._obs_code()
        self._obs_fitted = obs
        self._lo, self._hi = fit_equal_width_range(Xf, enc.is_nominal)
        n_cat = int(enc.n_cats.max()) if enc.n_features else 1
        n_bins_total = max(G_ROWS, n_cat) if obs == OBS_GAUSSIAN else max(self.max_bins, n_cat)
        self._forest, self._roots, self._state = self._new_model(
            self._n_trees(), enc.n_features, max(n_bins_total, 1))
        if obs == OBS_ADAPTIVE:
            st = self._state
            set_root_ranges(st.aux, [int(st.slot_of[r]) for r in self._roots], self._AUX_RANGE,
                            self._lo, self._hi, enc.is_nominal)

    def _run_learn(self, call, n):
        """Drive a learn kernel (``call(start, room) -> next``, mutating the model
        in place) over ``n`` rows or bags, making room in the model whenever it
        stops early (see :func:`treelab._engine.streaming.has_room`)."""
        room = self.__dict__.get("_room")
        if room is None:    # nodes one instance's splits may add: a split per tree
            nc = self._encoding.n_cats
            room = self._room = len(self._roots) * max(2, int(nc.max()) if nc.size else 2)
        i = call(0, room)
        while i != n:
            if not 0 <= i < n:
                raise RuntimeError("internal error: a learn kernel reallocated the model "
                                   "it cannot hand back; please report this")
            self._forest, self._state = make_room(self._forest, self._state, room, room)
            nxt = call(i, room)
            if nxt == i:
                raise RuntimeError("internal error: no progress after making room")
            i = nxt

    def _codes(self, Xf):
        if self._value_space:
            return value_codes(Xf, self._is_nominal, self._n_cats)
        return equal_width_codes(Xf, self._lo, self._hi, int(self.max_bins), self._is_nominal,
                                 self._n_cats)

    @property
    def _is_nominal(self):
        enc = self._encoding
        c = self.__dict__.get("_nominal_cache")
        if c is None or c[0] is not enc:
            c = self._nominal_cache = (
                enc, np.ascontiguousarray(enc.is_nominal, dtype=np.bool_),
                np.ascontiguousarray(enc.n_cats, dtype=np.int64))
        return c[1]

    @property
    def _n_cats(self):
        self._is_nominal
        return self._nominal_cache[2]

    def _learn_row(self, row, ycode):
        """Learn one encoded row.  Once the trees exist, rows are queued and learned
        in one kernel call per ``PENDING_MAX`` rows -- or as soon as anything reads
        the model (predictions, sizes, pickling, another chunk), so the result is
        exactly that of learning each row at once."""
        if hasattr(self, "_forest"):
            self._pending_rows.append(row)
            self._pending_y.append(ycode)
            if len(self._pending_rows) >= PENDING_MAX:
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
            # copies: a caller may refill the same chunk array for its next chunk
            self._buf_X.append(np.array(Xf, dtype=np.float64, copy=True))
            self._buf_y.append(np.array(ycode, dtype=np.float64, copy=True))
            n_buf = sum(len(b) for b in self._buf_y)
            if n_buf < self.n_range_samples:
                return
            Xb = np.concatenate(self._buf_X)
            yb = np.concatenate(self._buf_y)
            self._buf_X, self._buf_y = [], []
            self._start(Xb[:self.n_range_samples])
            Xf, ycode = Xb, yb
        self._learn_codes(self._codes(Xf), ycode, np.zeros(0, np.int64))

    def _end_of_data(self):
        """``fit`` has seen all its data: if fewer than ``n_range_samples``
        instances came, fit the bin range on those and learn them now (a stream
        fed by ``partial_fit`` / ``learn_one`` keeps buffering instead)."""
        self._flush()
        if not hasattr(self, "_forest") and getattr(self, "_buf_X", None):
            Xb = np.concatenate(self._buf_X)
            yb = np.concatenate(self._buf_y)
            self._buf_X, self._buf_y = [], []
            self._start(Xb)
            self._learn_codes(self._codes(Xb), yb, np.zeros(0, np.int64))
        return self

    def _leaf_one(self, row, root, codes):
        """Leaf reached from ``root`` by one encoded row, traversed in Python: for a
        single row this is faster than any kernel call (whose argument unboxing
        dominates).  ``codes`` caches the row's bin codes by feature."""
        t = self._forest
        enc = self._encoding
        lo, hi, nb = self._lo, self._hi, int(self.max_bins)
        if self._value_space:
            nb = 0                    # values, not bin codes (see _code_one)
        kind, feature, threshold = t.kind, t.feature, t.threshold
        first, missing = t.first_child, t.missing_child
        node = root
        while kind[node] != LEAF:
            f = int(feature[node])
            c = self._code_one(row, f, codes, enc, lo, hi, nb)
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
        return node

    @staticmethod
    def _code_one(row, f, codes, enc, lo, hi, nb):
        """Bin / category code of feature ``f`` of one row (NaN: missing or unseen)."""
        c = codes.get(f)
        if c is None:
            v = float(row[f])
            if enc.is_nominal[f]:
                c = nominal_code(v, int(enc.n_cats[f]))
            elif nb == 0:
                c = v
            else:       # the batch kernels' binning (NaN stays NaN)
                c = equal_width_code(v, float(lo[f]), float(hi[f]), int(nb), False, 0)
            codes[f] = c
        return c

    def _engine_rule(self):
        """``(rule_fn, params)`` of the decision rule in engine form, rebuilt when
        the parameters it depends on changed (``set_params``) or after unpickling."""
        key = self._rule_key()
        if self.__dict__.get("_rule_key_seen") != key:
            self._rule = self._make_rule()
            self._rule_params = np.ascontiguousarray(self._rule.params, dtype=np.float64)
            self._rule_key_seen = key
        return function_pointer(self._rule.rule_fn, RULE_SIG), self._rule_params

    def _init_stream(self):
        self._pending_rows, self._pending_y = [], []
        self._raw_labels = []
        self.__dict__.pop("_rule_key_seen", None)
        self._engine_rule()          # validates the parameters before any data
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
        """Number of leaves that were split so far."""
        self._flush()
        return int(self._state.meta[M_SPLITS]) if hasattr(self, "_state") else 0

    @property
    def n_seen(self):
        self._flush()
        seen = int(self._state.meta[M_SEEN]) if hasattr(self, "_state") else 0
        return seen + sum(len(b) for b in getattr(self, "_buf_X", []))

    #: leaf values are class counts (Hoeffding trees), not raw scores (SGT)
    _leaf_counts_are_classes = False

    def export_text(self, **kwargs):
        """The learned tree(s) as indented text in the data's units (see
        :func:`treelab.learners.export.export_stream_text`)."""
        from .export import export_stream_text
        return export_stream_text(self, **kwargs)

    def __sklearn_is_fitted__(self):
        """Fitted once it has seen data (not by the attributes ending in ``_``)."""
        return "_encoding" in self.__dict__

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.non_deterministic = False
        return tags


class StreamingClassifierMixin:
    """Class handling of streaming classifiers: classes fixed at the start of the
    stream (``classes=`` of the first ``partial_fit``, the ``classes`` parameter,
    or the labels of the first ``n_range_samples`` instances), river's
    ``learn_one`` / ``predict_one`` / ``predict_proba_one`` and chunked
    ``partial_fit``.  Subclasses provide ``_proba(Xf)`` and ``_proba_one(row)``
    (called once the trees exist), and may hook ``_on_classes()``.

    Usable from the first rows: until ``n_range_samples`` instances have come
    (the trees do not exist yet, rows are buffered) ``predict`` /
    ``predict_proba`` / ``predict_one`` / ``predict_proba_one`` answer with the
    class prior of the instances seen so far (with or without declared
    ``classes``; see ``_early_prior``) instead of raising ``NotFittedError``
    or returning ``None`` / ``{}``; only a model that has seen no instance at
    all is not fitted.  ``fit`` always builds the trees (from all rows when
    there are fewer than ``n_range_samples``).
    """

    #: attributes set by ``_on_classes`` (dropped when a first chunk is rejected)
    _class_attrs = ()

    def _on_classes(self):
        """Called once the classes are known."""

    def _set_classes(self, classes):
        classes = np.asarray(classes)
        if classes.ndim != 1 or classes.shape[0] < 2:
            raise ValueError(f"a classifier needs at least two classes, got {plain_repr(classes)}")
        if np.unique(classes).shape[0] != classes.shape[0]:
            raise ValueError("classes must be unique")
        self.classes_ = np.sort(classes)
        self.n_classes_ = int(classes.shape[0])
        self._class_code = {c: i for i, c in enumerate(self.classes_.tolist())}
        c = self.classes_
        self._classes_are_codes = bool(c.dtype.kind in "iu" and (c == np.arange(c.shape[0])).all())
        self._on_classes()

    def _codes_of(self, y):
        y = np.asarray(y)
        if (y.dtype.kind in "iu" and y.ndim == 1 and y.shape[0]
                and self.__dict__.get("_classes_are_codes")):
            if 0 <= y.min() and y.max() < self.n_classes_:     # labels 0..k-1: their own codes
                return y.astype(np.float64)
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
            raise ValueError(f"y contains the label {plain_repr(y[bad][0])}, which is not one of the "
                             f"classes {plain_repr(self.classes_)} fixed at the start of the stream; "
                             "pass classes=[...] to declare every label")
        return idx.astype(np.float64)

    def _drop_classes(self):
        for attr in ("classes_", "n_classes_", "_class_code",
                     "_classes_are_codes") + self._class_attrs:
            self.__dict__.pop(attr, None)

    def _declare_classes(self, classes):
        """Fix the declared classes; labels buffered before (classes not declared
        then) become class codes, or the declaration is undone when one is not a class."""
        self._set_classes(classes)
        raw = self.__dict__.get("_raw_labels")
        if raw:
            try:
                self._buf_y = [self._codes_of(np.concatenate(raw))]
            except ValueError:
                self._drop_classes()
                raise
            self._raw_labels = []

    def partial_fit(self, X, y, classes=None):
        """Learn a chunk of the stream in order (one jitted call)."""
        return self._partial_fit(X, y, classes, True)

    def _partial_fit(self, X, y, classes, check_labels):
        if not hasattr(self, "_buf_X"):
            self._init_stream()
        yl = _column_or_1d(y)
        Xf = self._encode_chunk(X)
        if yl.shape[0] != Xf.shape[0]:
            raise ValueError(f"X has {Xf.shape[0]} rows but y has shape {yl.shape}")
        if check_labels and yl.dtype.kind in "fc":
            check_classification_targets(yl, yl.shape[0])   # as fit: no continuous labels
        if classes is not None and hasattr(self, "classes_"):
            if not np.array_equal(self.classes_, np.unique(np.asarray(classes))):
                raise ValueError(f"`classes={plain_repr(np.asarray(classes))}` is not the same as "
                                 f"on last call to partial_fit, was: {plain_repr(self.classes_)} "
                                 "(the classes are fixed at the start of the stream)")
        if not hasattr(self, "classes_") and (classes is not None or self.classes is not None):
            self._declare_classes(classes if classes is not None else self.classes)
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
                    f"{plain_repr(classes[0])}; pass classes=[...] to declare the classes")
            self._set_classes(classes)
            try:
                codes = self._codes_of(all_labels)
            except ValueError:
                self._drop_classes()
                raise
            self._commit_encoding()
            Xb = np.concatenate(self._buf_X + [Xf]) if self._buf_X else Xf
            self._buf_X, self._raw_labels = [], []
            self._partial_fit_encoded(Xb, codes)
        else:
            self._commit_encoding()
            # copies: a caller may refill the same chunk arrays for its next chunk
            self._raw_labels = self._raw_labels + [np.array(labels, copy=True)]
            self._buf_X.append(np.array(Xf, dtype=np.float64, copy=True))

    def fit(self, X, y, classes=None):
        """Learn ``(X, y)`` as one stream from scratch, in row order.  The bin
        range comes from the first ``n_range_samples`` rows, or from all of them
        when there are fewer (every row is learned)."""
        self._reset_stream()
        y = _column_or_1d(y)
        found, _ = check_classification_targets(y, y.shape[0])   # discrete labels only
        if classes is None and self.classes is None:
            classes = found
            if classes.shape[0] < 2 and y.shape[0]:    # no rows: partial_fit names X or y
                raise ValueError("Classifier can't train when only one class is present.")
        self._partial_fit(X, y, classes, False)
        return self._end_of_data()

    def learn_one(self, x, y):
        """Learn one instance (a dict of features and its label)."""
        if not hasattr(self, "_buf_X"):
            self._init_stream()
        row = self._row_from_dict(x)
        if not hasattr(self, "classes_") and self.classes is not None:
            self._declare_classes(self.classes)
        if hasattr(self, "classes_"):
            try:
                code = self._class_code.get(y)
            except TypeError:
                raise TypeError(f"{type(self).__name__}.learn_one: the label must be a scalar "
                                f"(a class of classes_), got {type(y).__name__} {y!r}") from None
            if code is None:
                self._codes_of(np.asarray([y]))   # raises the unknown-label error
            self._learn_row(row, float(code))
        else:
            labels = np.asarray([y])
            if labels.dtype.kind in "fcO":
                check_classification_targets(labels, 1)
            self._learn_unknown_classes(row, labels)
        return self

    # ------------------------------------------------- early-stream predictions
    def _early_prior(self):
        """``(labels, prior)`` while the trees do not exist yet (fewer than
        ``n_range_samples`` instances seen, still buffered), else None.

        Until then the model predicts the **class prior of the instances seen
        so far** (their relative label frequencies): the labels are
        ``classes_`` when the classes are declared (a declared class not seen
        yet has probability 0), otherwise the distinct labels seen so far in
        sorted order (``classes_`` itself is fixed only after
        ``n_range_samples`` instances).  It only reads the buffer, so
        predicting early never changes what is learned.  ``(labels, None)``
        when no instance has been seen."""
        self._flush()
        if "_forest" in self.__dict__:
            return None
        if hasattr(self, "classes_"):
            buf = self.__dict__.get("_buf_y") or []
            if not buf:
                return self.classes_, None
            counts = np.bincount(np.concatenate(buf).astype(np.int64),
                                 minlength=self.n_classes_).astype(np.float64)
            return self.classes_, counts / counts.sum()
        raw = self.__dict__.get("_raw_labels") or []
        if not raw:
            return np.array([]), None
        labels, counts = np.unique(np.concatenate(raw), return_counts=True)
        return labels, counts / counts.sum()

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.  Before the
        trees exist (fewer than ``n_range_samples`` instances seen) every row
        gets the class prior of the instances seen so far (see
        ``_early_prior``; without declared classes the columns are the sorted
        labels seen so far)."""
        if "_forest" in self.__dict__:            # the common case, without the checks below
            return self._proba(self._encode(X))
        check_is_fitted(self, "_encoding")
        Xf = self._encode(X)
        early = self._early_prior()
        if early is not None:
            labels, prior = early
            if prior is None:
                check_is_fitted(self, "classes_")
                prior = np.full(self.n_classes_, 1.0 / self.n_classes_)
            return np.tile(prior, (Xf.shape[0], 1))
        check_is_fitted(self, "classes_")
        return self._proba(Xf)

    def predict(self, X):
        """Most probable class; before the trees exist, the most frequent label
        seen so far (ties: the first in sorted label order)."""
        if "_forest" in self.__dict__:
            return self.classes_[np.argmax(self._proba(self._encode(X)), axis=1)]
        check_is_fitted(self, "_encoding")
        early = self._early_prior()
        if early is not None and early[1] is not None:
            labels, prior = early
            k = int(np.argmax(prior))
            return np.repeat(labels[k:k + 1], self._encode(X).shape[0])
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def predict_proba_one(self, x):
        """Class probabilities of one instance as a dict (river's convention);
        ``{}`` before any instance was learned, the class prior of the
        instances seen so far before the trees exist."""
        if not hasattr(self, "_encoding"):
            return {}
        row = self._row_from_dict(x)[0]
        early = self._early_prior()
        if early is not None:
            labels, prior = early
            if prior is None:
                if not hasattr(self, "classes_"):
                    return {}
                prior = np.full(self.n_classes_, 1.0 / self.n_classes_)
            return {c: float(v) for c, v in zip(labels.tolist(), prior)}
        p = self._proba_one(row)
        return {c: float(v) for c, v in zip(self.classes_.tolist(), p)}

    def predict_one(self, x):
        """Most probable class of one instance (None before any instance was learned)."""
        proba = self.predict_proba_one(x)
        if not proba:
            return None
        return max(proba, key=proba.get)
