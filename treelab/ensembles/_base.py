"""Helpers shared by the ensembles: base-estimator handling without a hard
scikit-learn dependency, parameter checks (bagging, AdaBoost), and the kept
walking layout of a fitted forest (random forests, gradient boosting)."""
from __future__ import annotations

import copy
import inspect
import numbers

import numpy as np

MAX_SEED = np.iinfo(np.int32).max


def share_member_arrays(members, names=("classes_",)):
    """Members' equal fitted arrays (``classes_``) made one object, so that a
    pickle of the ensemble stores them once (pickle keeps one copy of an object
    referred to many times): a smaller model file, the same predictions.  The
    arrays are only read after fit."""
    for name in names:
        first = None
        for est in members:
            a = getattr(est, name, None)
            if not isinstance(a, np.ndarray):
                continue
            if first is None:
                first = a
            elif a is not first and a.dtype == first.dtype and np.array_equal(a, first):
                setattr(est, name, first)


def clone_estimator(est):
    """``sklearn.base.clone`` when scikit-learn is importable, else a fresh
    instance built from ``get_params(deep=False)``."""
    try:
        from sklearn.base import clone
    except ImportError:  # pragma: no cover - scikit-learn is optional
        if hasattr(est, "get_params"):
            return type(est)(**copy.deepcopy(est.get_params(deep=False)))
        return copy.deepcopy(est)
    return clone(est)


def accepts_sample_weight(est):
    """Whether ``est.fit`` takes a ``sample_weight`` argument."""
    try:
        return "sample_weight" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def has_param(est, name):
    return hasattr(est, "get_params") and name in est.get_params(deep=False)


def is_treelab_tree(est):
    """A treelab batch tree without leaf models: its fitted arrays can join a
    multi-root forest (:func:`treelab._engine.tree.concat_trees`)."""
    from ..learners.decision_tree import BaseDecisionTree
    return isinstance(est, BaseDecisionTree) and getattr(est, "leaf_model", None) is None


def check_member_kind(ensemble, est):
    """A classifier ensemble's members must be classifiers: a regressor's outputs
    would be read as class labels (``TypeError`` naming it)."""
    if getattr(ensemble, "_estimator_type", None) != "classifier":
        return
    kind = getattr(est, "_estimator_type", None)
    if kind is None and hasattr(est, "__sklearn_tags__"):
        try:
            kind = est.__sklearn_tags__().estimator_type
        except Exception:  # pragma: no cover - foreign tags
            kind = None
    if kind == "regressor":
        raise TypeError(f"{type(ensemble).__name__} needs a classifier as its estimator, "
                        f"got the regressor {est!r}")


def resolve_count(name, value, total):
    """scikit-learn's rule for ``max_samples`` / ``max_features``: an int in
    [1, total] or a float fraction in (0, 1] of ``total`` (floor, at least 1)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        if not 1 <= value <= total:
            raise ValueError(f"{name} as an int must be in [1, {total}], got {value}")
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name} as a float must be in (0, 1], got {value}")
        return max(1, int(value * total))
    raise TypeError(f"{name} must be an int or a float, got {type(value).__name__}")


def base_allows_nan(est):
    """The base estimator's ``allow_nan`` tag (False when it cannot tell)."""
    if is_treelab_tree(est):
        return True
    try:
        from sklearn.utils import get_tags
        return bool(get_tags(est).input_tags.allow_nan)
    except Exception:  # noqa: BLE001 - no scikit-learn, or a foreign object without tags
        return False


def prepare_shared(base, Xf, enc, seed):
    """Presort (exact splitter) or bin (hist) ``Xf`` once for every treelab-tree
    member of an ensemble."""
    from .._engine.binning import bin_data
    return bin_data(Xf, enc.is_nominal, enc.n_cats, getattr(base, "splitter", "best") == "hist",
                    base.max_bins, random_state=int(seed))


def subset_shared(data, enc, feats):
    """The prepared data of the columns ``feats`` (None: all; repeats allowed) and
    the encoding a member records: nominal columns keep their category codes (a
    member predicts on the ensemble's encoded ``X``), no feature names."""
    import pandas as pd

    from .._engine.binning import no_sparse_codes, sparse_codes
    from ..data import FeatureEncoding
    if feats is None:
        feats = np.arange(data.X.shape[1])
        sub = data
    else:
        X = np.ascontiguousarray(data.X[:, feats])
        Xb = np.ascontiguousarray(data.Xb[:, feats]) if data.Xb.shape[0] else \
            np.zeros((0, feats.shape[0]), np.uint8)
        order = np.ascontiguousarray(data.order[feats]) if data.order.shape[1] else \
            np.zeros((feats.shape[0], 0), np.int64)
        vals = np.ascontiguousarray(data.vals[feats]) if data.vals.shape[1] else \
            np.zeros((feats.shape[0], 0), np.float64)
        if data.use_hist:
            parts = [data.edges[data.edge_offsets[f]:data.edge_offsets[f + 1]] for f in feats]
            edges = np.ascontiguousarray(np.concatenate(parts) if parts else np.zeros(0))
            offsets = np.concatenate(([0], np.cumsum([p.shape[0] for p in parts])))
        else:
            edges, offsets = data.edges, np.zeros(feats.shape[0] + 1)
        sp = sparse_codes(Xb, data.n_bins) if data.use_hist else no_sparse_codes()
        sub = data._replace(X=X, Xb=Xb, order=order, vals=vals, sp_ptr=sp[0], sp_bin=sp[1],
                            sp_dflt=sp[2],
                            is_nominal=np.ascontiguousarray(data.is_nominal[feats]),
                            n_cats=np.ascontiguousarray(data.n_cats[feats]), edges=edges,
                            edge_offsets=np.ascontiguousarray(offsets, dtype=np.int64))
    is_nom = np.asarray(enc.is_nominal, bool)[feats]
    cats = [pd.Index(np.arange(enc.n_cats[f], dtype=np.float64)) if is_nom[i] else None
            for i, f in enumerate(feats)]
    sub_enc = FeatureEncoding(int(feats.shape[0]), is_nom, cats, None)
    sub_enc.has_missing = None if enc.has_missing is None else np.asarray(enc.has_missing)[feats]
    return sub, sub_enc


class RebuiltForestState:
    """Mixin for an ensemble whose ``self._forest`` (its members' trees combined
    by ``_make_forest``) is derived data: pickled as a marker (a smaller model
    file) and rebuilt on loading.  Attributes named in ``_not_pickled`` are
    left out of the pickle too."""

    _not_pickled = ()
    _MARK = "rebuilt on loading"

    def __getstate__(self):
        state = self.__dict__.copy()
        if state.get("_forest") is not None:
            state["_forest"] = self._MARK
        for name in self._not_pickled:
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if isinstance(state.get("_forest"), str):
            self._forest = self._make_forest()


class KeptWalkLayout:
    """Mixin for an ensemble that predicts by walking ``self._forest`` in a layout
    packed from it (the forests' :func:`~treelab._engine.tree.pack_walk`
    records, boosting's :func:`~treelab._engine.tree.pack_raw`): packed once
    when the forest is made (:meth:`_keep_layout` at the end of ``fit``) and on
    unpickling, left out of the pickle (rebuilt in milliseconds), and packed
    per call for a forest set by hand.  Subclasses name the attribute
    (``_layout_attr``) and pack (:meth:`_pack_layout`)."""

    #: the attribute holding ``(forest, layout)``
    _layout_attr = "_layout"

    def _pack_layout(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _keep_layout(self):
        setattr(self, self._layout_attr, (self._forest, self._pack_layout()))

    def _kept_layout(self):
        cache = self.__dict__.get(self._layout_attr)
        if cache is None or cache[0] is not self._forest:
            # (only for a forest set by hand: predict leaves the attributes alone)
            return self._pack_layout()
        return cache[1]

    def __getstate__(self):
        parent = getattr(super(), "__getstate__", None)
        # a copy: object.__getstate__ returns the instance's own __dict__, from
        # which the layout must not be removed
        state = dict(parent() if parent is not None else self.__dict__)
        state.pop(self._layout_attr, None)
        return state

    def __setstate__(self, state):
        parent = getattr(super(), "__setstate__", None)
        if parent is not None:
            parent(state)
        else:
            self.__dict__.update(state)
        if "_forest" in self.__dict__:
            self._keep_layout()
