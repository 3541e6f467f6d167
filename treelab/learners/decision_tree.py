"""Batch decision trees: scikit-learn-style estimators and the textbook presets.

:class:`DecisionTreeClassifier` and :class:`DecisionTreeRegressor` grow a tree
with the engine's depth-first builder (:mod:`treelab._engine.builder`), with
any split criterion (built-in name or :class:`~treelab.split_criteria.Criterion`),
the exact (``splitter="best"``) or histogram (``splitter="hist"``) splitter,
numeric thresholds, nominal attributes (pandas ``category`` columns) as
multiway or binary subset splits, and missing values.  Post-pruning:
minimal cost-complexity (``ccp_alpha``), C4.5 pessimistic error pruning
(``pruning="pessimistic"``) and reduced-error pruning on a validation set
(:meth:`BaseDecisionTree.prune_reduced_error`).

Presets: :class:`ID3Classifier`, :class:`C45Classifier`,
:class:`CARTClassifier`, :class:`CARTRegressor`.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._compile import announce
from .._engine import pruning as _pruning
from .._engine.binning import MAX_BINS, bin_data
from .._engine.builder import make_params
from .._engine.build import build_tree
from .._engine.impurity import BUILTIN_VARIANCE
from .._engine.merit import TASK_CLASSIFICATION, TASK_DENSE
from .._engine.node_values import class_proportions, target_shift, weighted_means
from .._engine.splitter import NOMINAL_BINARY, NOMINAL_MULTIWAY, NOMINAL_MULTIWAY_C45
from .._engine.tree import LEAF, Tree, extract_subtree, trim
from .._format import plain_repr
from .._params import check_int, check_real, check_splitter
from .._sklearn_compat import (
    BaseEstimator, ClassifierMixin, ProbaArgmaxMixin, RegressorMixin, check_is_fitted,
)
from ..data import (
    check_classification_targets, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ..split_criteria import get_criterion

__all__ = [
    "DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier", "C45Classifier",
    "CARTClassifier", "CARTRegressor",
]

_MAX_INT = np.iinfo(np.int32).max


def _check_int_or_fraction(name, value, n, lo_int):
    """scikit-learn's rule: an int >= lo_int, or a float fraction of n."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        if value < lo_int:
            raise ValueError(f"{name} must be an int >= {lo_int} or a float in (0, 1], got {value}")
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name} as a float must be in (0, 1], got {value}")
        return max(lo_int, int(math.ceil(value * n)))
    raise TypeError(f"{name} must be an int or a float, got {type(value).__name__}")


class _Bunch(dict):
    """A dict whose keys are also attributes (like ``sklearn.utils.Bunch``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


class BaseDecisionTree(BaseEstimator):
    """Shared fit / predict / pruning logic (not for direct use)."""

    _task = None

    # ------------------------------------------------------------------ params
    def _resolve_params(self, n, d, w_total):
        check_splitter(self.splitter)
        max_depth = check_int("max_depth", self.max_depth, 1, allow_none=True)
        if max_depth is None:
            max_depth = _MAX_INT
        min_samples_split = _check_int_or_fraction("min_samples_split", self.min_samples_split, n, 2)
        min_samples_leaf = _check_int_or_fraction("min_samples_leaf", self.min_samples_leaf, n, 1)
        min_samples_split = max(min_samples_split, 2 * min_samples_leaf)
        mwfl = check_real("min_weight_fraction_leaf", self.min_weight_fraction_leaf, 0, 0.5)
        mid = check_real("min_impurity_decrease", self.min_impurity_decrease, 0, finite=False)
        mf = self.max_features
        if mf is None:
            max_features = d
        elif isinstance(mf, str):
            if mf == "sqrt":
                max_features = max(1, int(math.sqrt(d)))
            elif mf == "log2":
                max_features = max(1, int(math.log2(d)))
            else:
                raise ValueError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {mf!r}")
        elif isinstance(mf, (numbers.Integral, np.integer)) and not isinstance(mf, bool):
            if not 1 <= mf <= d:
                raise ValueError(f"max_features must be in [1, n_features={d}], got {mf}")
            max_features = int(mf)
        elif isinstance(mf, (numbers.Real, np.floating)) and not isinstance(mf, bool):
            if not 0.0 < mf <= 1.0:
                raise ValueError(f"max_features as a float must be in (0, 1], got {mf}")
            max_features = max(1, int(mf * d))
        else:
            raise ValueError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {mf!r}")
        cd = getattr(self, "constant_draws", "count")
        if cd not in ("count", "skip"):
            raise ValueError(f"constant_draws must be 'count' or 'skip', got {cd!r}")
        if self.nominal_split not in ("binary", "multiway"):
            raise ValueError(f"nominal_split must be 'binary' or 'multiway', got {self.nominal_split!r}")
        if self.multiway_min_leaf not in ("all", "two"):
            raise ValueError(f"multiway_min_leaf must be 'all' or 'two', "
                             f"got {self.multiway_min_leaf!r}")
        check_int("max_bins", self.max_bins, 2, MAX_BINS)
        check_real("ccp_alpha", self.ccp_alpha, 0, finite=False)
        if self.pruning not in (None, "cost_complexity", "pessimistic"):
            raise ValueError(f"pruning must be None, 'cost_complexity' or 'pessimistic', "
                             f"got {self.pruning!r}")
        if self.pruning == "pessimistic":
            if self._task != "classification":
                raise ValueError("pessimistic (C4.5) pruning is for classification trees")
            check_real("confidence", self.confidence, 0, 1, lo_open=True, hi_open=True)
        return dict(max_depth=max_depth, min_samples_split=min_samples_split,
                    min_samples_leaf=min_samples_leaf, min_weight_leaf=float(mwfl * w_total),
                    min_impurity_decrease=float(mid), max_features=max_features,
                    count_constant=cd == "count")

    # --------------------------------------------------------------------- fit
    def _targets(self, y, n, sample_weight):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the tree from the training set ``(X, y)``."""
        announce(self)          # one line on stderr if the kernels are about to compile
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, self.nominal_features, allow_nan=True)
        return self._fit_encoded(Xf, enc, y, sample_weight)

    def _fit_encoded(self, Xf, enc, y, sample_weight, data=None):
        """:meth:`fit` on encoded ``Xf``.  ``data``: ``Xf`` already prepared by
        :func:`~treelab._engine.binning.bin_data` (an ensemble presorts / bins once
        for all its members); rows of weight zero are then left out through the
        builder's row list instead of being copied out (the same tree with the
        exact splitter; hist bins come from all rows of ``data``)."""
        n, d = Xf.shape
        yc, sstats, w, n_stats, fitted = self._targets(y, n, sample_weight)
        w_total = float(w.sum())
        if not w_total > 0:
            raise ValueError("Sum of sample weights is zero: nothing to learn from")
        keep = w > 0
        rows = None
        if data is not None:
            if not keep.all():
                rows = np.flatnonzero(keep)
                n = rows.shape[0]
        elif not keep.all():
            # samples of weight zero take no part in the fit (not even as thresholds),
            # so a weight of k is the same as k copies of a sample
            Xf, w = np.ascontiguousarray(Xf[keep]), np.ascontiguousarray(w[keep])
            yc = np.ascontiguousarray(yc[keep]) if yc.shape[0] else yc
            sstats = np.ascontiguousarray(sstats[keep]) if sstats.shape[0] else sstats
            n = Xf.shape[0]
        params = self._resolve_params(n, d, w_total)
        crit = get_criterion(self.criterion, self._task)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(0, np.iinfo(np.int32).max))
        if data is None:
            data = bin_data(Xf, enc.is_nominal, enc.n_cats, self.splitter == "hist",
                            self.max_bins, random_state=seed)
        task = TASK_CLASSIFICATION if self._task == "classification" else TASK_DENSE
        bp = make_params(task, n_stats, multiway=self._nominal_mode(), seed=seed,
                         merit_code=crit.merit_code, builtin=crit.builtin_code, **params)
        arrays = build_tree(data, yc, sstats, w, bp, crit.impurity, crit.merit,
                            cp=crit.params, rows=rows)
        arrays = trim(arrays)
        for key, value in fitted.items():
            setattr(self, key, value)
        set_fitted_encoding(self, enc, d)
        self.max_features_ = params["max_features"]
        self.criterion_ = crit
        self.tree_ = self._make_tree(arrays)
        if self.pruning == "pessimistic":
            self._prune_pessimistic()
        if self.ccp_alpha > 0.0 or self.pruning == "cost_complexity":
            make_leaf, _, _ = _pruning.cost_complexity(self.tree_.arrays, float(self.ccp_alpha), False)
            self._apply_prune(make_leaf)
        if rows is not None and self.leaf_model is not None:
            Xf, w = Xf[rows], w[rows]
            yc = yc[rows] if yc.shape[0] else yc
            sstats = sstats[rows] if sstats.shape[0] else sstats
        self._fit_leaf_models(Xf, yc, sstats, w)
        return self

    def _nominal_mode(self):
        """The engine's code for ``nominal_split`` x ``multiway_min_leaf``."""
        if self.nominal_split != "multiway":
            return NOMINAL_BINARY
        return NOMINAL_MULTIWAY_C45 if self.multiway_min_leaf == "two" else NOMINAL_MULTIWAY

    # ------------------------------------------------------------ model trees
    def _fit_leaf_models(self, Xf, yc, sstats, w):
        """Model trees: one node model per leaf, fitted on the training rows that
        reach the leaf (the tree itself is grown exactly as without ``leaf_model``).
        A thin layer over the fitted tree: ``apply`` gives the leaf of each row."""
        if self.leaf_model is None:
            if hasattr(self, "leaf_models_"):
                del self.leaf_models_
            return
        from ..node_models import CLASSIFICATION, REGRESSION, as_node_model
        proto = as_node_model(self.leaf_model)
        if np.isnan(Xf).any():
            raise ValueError("leaf_model needs complete data: X contains NaN (missing values "
                             "are allowed only without a leaf model)")
        if self._task == "classification":
            task, K, y = CLASSIFICATION, self.n_classes_, yc
        else:
            shift = getattr(self, "_y_shift", 0.0)
            task, K, y = REGRESSION, 1, sstats[:, 1] / sstats[:, 0] + shift
        leaves = self.tree_.apply(Xf)
        models = {}
        for leaf in np.unique(leaves):
            rows = np.flatnonzero(leaves == leaf)
            models[int(leaf)] = proto._fresh()._fit_task(Xf[rows], y[rows], w[rows], task, K)
        self.leaf_models_ = models

    def _leaf_model_scores(self, Xf):
        if np.isnan(Xf).any():
            raise ValueError("X contains NaN; a tree with leaf models needs complete data")
        leaves = self.tree_.apply(Xf)
        k = self.n_classes_ if self._task == "classification" else 1
        S = np.zeros((Xf.shape[0], k))
        for leaf in np.unique(leaves):
            rows = np.flatnonzero(leaves == leaf)
            S[rows] = self.leaf_models_[int(leaf)]._scores(Xf[rows])
        return S

    def _make_tree(self, arrays):
        """Turn raw node statistics (kept in ``value`` by the builder) into predictions."""
        stats = arrays.value.copy()
        value = self._value_from_stats(stats)
        arrays = arrays._replace(value=np.ascontiguousarray(value))
        return Tree(arrays, stats)

    def _apply_prune(self, make_leaf):
        if not make_leaf.any():
            return
        new, old_ids = extract_subtree(self.tree_.arrays, make_leaf)
        new = trim(new)
        self.tree_ = Tree(new, self.tree_.stats[old_ids].copy())

    def _prune_pessimistic(self):
        coeff = _pruning.c45_coefficient(float(self.confidence))
        make_leaf, _ = _pruning.pessimistic(self.tree_.arrays, self.tree_.stats,
                                            float(self.confidence), coeff)
        self._apply_prune(make_leaf)

    # ---------------------------------------------------------------- predict
    def _encode(self, X):
        check_is_fitted(self)
        return encode_X(X, self._encoding, type(self).__name__, allow_nan=True)

    def apply(self, X):
        """Index of the leaf that each sample ends up in."""
        Xf = self._encode(X)
        return self.tree_.apply(Xf)

    def decision_path(self, X):
        """Nodes visited by each sample, as a CSR ``(indptr, indices)`` pair
        (a ``scipy.sparse.csr_matrix`` of shape (n_samples, n_nodes))."""
        from scipy.sparse import csr_matrix
        Xf = self._encode(X)
        indptr, indices = self.tree_.decision_path(Xf)
        data = np.ones(indices.shape[0], dtype=np.int8)
        return csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, self.tree_.node_count))

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self)
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease brought by each feature (MDI)."""
        check_is_fitted(self)
        a = self.tree_.arrays
        imp = np.zeros(self.n_features_in_)
        W = a.weighted_n_samples[0]
        for i in range(self.tree_.node_count):
            if a.kind[i] == LEAF:
                continue
            dec = a.weighted_n_samples[i] * a.impurity[i]
            for j in range(a.n_children[i]):
                c = a.first_child[i] + j
                dec -= a.weighted_n_samples[c] * a.impurity[c]
            imp[a.feature[i]] += dec / W
        s = imp.sum()
        return imp / s if s > 0 else imp

    # ---------------------------------------------------------------- pruning
    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf impurities of the minimal
        cost-complexity pruning sequence (Breiman et al. 1984), computed on a
        tree grown on ``(X, y)`` without pruning."""
        params = self.get_params()
        params.update(ccp_alpha=0.0, pruning=None)
        est = type(self)(**params).fit(X, y, sample_weight=sample_weight)
        _, alphas, imps = _pruning.cost_complexity(est.tree_.arrays, 0.0, True)
        return _Bunch(ccp_alphas=alphas, impurities=imps)

    def prune_reduced_error(self, X_val, y_val):
        """Reduced-error pruning (Quinlan 1987) on a validation set: bottom-up,
        a subtree becomes a leaf whenever that does not increase the validation
        error (misclassifications, or squared error for regression).  Returns
        ``self``."""
        if getattr(self, "leaf_models_", None) is not None:
            raise ValueError("prune_reduced_error is not available for a tree with leaf models "
                             "(the leaf models would have to be refitted on the training data); "
                             "use ccp_alpha or pruning='pessimistic', applied before the leaf "
                             "models are fitted")
        Xf = self._encode(X_val)
        err = self._node_validation_error(Xf, y_val)
        make_leaf = _pruning.reduced_error(self.tree_.arrays, err)
        self._apply_prune(make_leaf)
        return self

    def export_text(self, **kwargs):
        """Readable text rendering of the tree (see :func:`treelab.export_text`)."""
        check_is_fitted(self)
        from .export import export_text
        return export_text(self, **kwargs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = getattr(self, "leaf_model", None) is None
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "tree_")


# ========================================================================== classifier
class DecisionTreeClassifier(ProbaArgmaxMixin, ClassifierMixin, BaseDecisionTree):
    """A decision tree classifier on treelab's jitted engine.

    Parameters
    ----------
    criterion : str or Criterion, default="gini"
        "gini", "entropy" (information gain; alias "log_loss"), "gain_ratio",
        "kearns_mansour", "classification_error", or a user
        :class:`~treelab.split_criteria.Criterion`.
    splitter : {"best", "hist"}, default="best"
        "best": exact threshold search over sorted values (as scikit-learn);
        "hist": quantile histograms with ``max_bins`` bins.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf
        As in scikit-learn.
    max_features, random_state, min_impurity_decrease, class_weight, ccp_alpha
        As in scikit-learn.
    constant_draws : {"count", "skip"}, default="count"
        With ``max_features`` below the number of features: "count" -- a drawn
        feature that is constant at the node is one of its ``max_features``
        candidates (the course slides: "best split is chosen from random sample
        of m_try variables"; Breiman 2001; Zhou & Feng 2017; scikit-learn's
        rule); "skip" -- constant draws are passed
        over until ``max_features`` non-constant features have been examined
        (treelab's earlier rule, kept for comparisons).  Either way a node keeps drawing
        while no candidate gave an admissible split.
    max_bins : int, default=255
        Number of quantile bins per numeric feature for ``splitter="hist"``.
    nominal_features : None, list of int/str or bool mask
        Columns to treat as nominal in addition to pandas ``category`` columns.
    nominal_split : {"binary", "multiway"}, default="binary"
        Nominal attributes split into one child per category ("multiway", ID3 /
        C4.5) or into two subsets of categories ("binary", CART).
    multiway_min_leaf : {"all", "two"}, default="all"
        Which branches of a multiway nominal split must hold ``min_samples_leaf``
        samples (and ``min_weight_fraction_leaf`` of the weight) for the split
        to be admissible: "all" of them, or at least "two" -- Quinlan's C4.5
        rule (1993: a test needs at least two outcomes with MINOBJS cases;
        smaller branches, down to one case, are then allowed).  Binary splits
        always need both children to hold the minimum.
    pruning : {None, "cost_complexity", "pessimistic"}, default=None
        Post-pruning after growth.  ``ccp_alpha > 0`` always applies
        cost-complexity pruning; "pessimistic" is C4.5's error-based pruning.
    confidence : float, default=0.25
        C4.5's confidence factor CF for pessimistic pruning.
    leaf_model : None, str, node model or estimator, default=None
        Model tree: the tree is grown (and pruned) as usual, then each leaf
        gets its own node model (:mod:`treelab.node_models`: "logistic",
        "linear" -- a linear probability model --, "constant", or any
        estimator) fitted on the training rows that reach it; predictions come
        from the leaf's model.  Needs complete data (no NaN); nominal columns
        enter the model as their category codes.

    Notes
    -----
    Missing values (NaN) are routed to the child chosen at fit time (the side
    with the better merit; the larger child when the node saw none).  A
    category unseen at a node goes where missing values go.
    """

    _task = "classification"

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, max_bins=255, nominal_features=None,
                 nominal_split="binary", pruning=None, confidence=0.25, multiway_min_leaf="all",
                 leaf_model=None, constant_draws="count"):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.nominal_features = nominal_features
        self.nominal_split = nominal_split
        self.pruning = pruning
        self.confidence = confidence
        self.multiway_min_leaf = multiway_min_leaf
        self.leaf_model = leaf_model
        self.constant_draws = constant_draws

    def _targets(self, y, n, sample_weight):
        classes, yc = check_classification_targets(y, n)
        if classes.shape[0] < 2:
            raise ValueError(
                f"Classifier can't train when only one class is present: y has the single "
                f"class {plain_repr(classes[0])}")
        fitted = {"classes_": classes, "n_classes_": int(classes.shape[0]), "n_outputs_": 1}
        w = check_sample_weight(sample_weight, n)
        cw = self.class_weight
        if cw is not None:
            k = fitted["n_classes_"]
            if cw == "balanced":
                counts = np.bincount(yc, minlength=k).astype(np.float64)
                per_class = n / (k * counts)
            elif isinstance(cw, dict):
                per_class = np.ones(k)
                for label, val in cw.items():
                    idx = np.flatnonzero(classes == label)
                    if idx.size == 0:
                        raise ValueError(f"class_weight names the class {plain_repr(label)}, which is "
                                         "not in y")
                    try:
                        per_class[idx[0]] = float(val)
                    except (TypeError, ValueError):
                        per_class[idx[0]] = np.nan
                    if not 0.0 <= per_class[idx[0]] < np.inf:
                        raise ValueError(f"class_weight of class {plain_repr(label)} must be a "
                                         f"finite number >= 0, got {val!r}")
            else:
                raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {cw!r}")
            w = w * per_class[yc]
        k = fitted["n_classes_"]
        return np.ascontiguousarray(yc), np.zeros((0, k)), w, k, fitted

    def _value_from_stats(self, stats):
        return class_proportions(np.ascontiguousarray(stats, dtype=np.float64))

    def predict_proba(self, X):
        """Class probabilities: the weighted class proportions of the leaf (with
        ``leaf_model``: the leaf model's probabilities, or its clipped and
        renormalised scores for a linear probability model)."""
        Xf = self._encode(X)
        if getattr(self, "leaf_models_", None) is not None:
            from ..node_models import scores_to_proba
            return scores_to_proba(self._leaf_model_scores(Xf))
        return self.tree_.predict(Xf)

    def _node_validation_error(self, Xf, y_val):
        classes = self.classes_
        y = np.asarray(y_val)
        if y.ndim != 1:
            raise ValueError(f"y_val must be 1-D, got shape {y.shape}")
        if y.shape[0] != Xf.shape[0]:
            raise ValueError("X_val and y_val have different numbers of samples")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("Input y_val contains NaN.")
        known = np.isin(y, classes)
        if not known.all():
            unseen = ", ".join(plain_repr(v) for v in list(dict.fromkeys(y[~known].tolist()))[:5])
            raise ValueError(f"y_val has labels the tree was not fitted on: {unseen}")
        idx = np.searchsorted(classes, y)
        indptr, indices = self.tree_.decision_path(Xf)
        pred = np.argmax(self.tree_.value, axis=1)
        err = np.zeros(self.tree_.node_count)
        for i in range(Xf.shape[0]):
            for p in range(indptr[i], indptr[i + 1]):
                node = indices[p]
                if pred[node] != idx[i]:
                    err[node] += 1.0
        return err


# ========================================================================== regressor
class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A regression tree (CART, squared error) on treelab's jitted engine.

    Parameters are those of :class:`DecisionTreeClassifier` without
    ``class_weight``; ``criterion`` is "squared_error" (alias "variance") or a
    regression :class:`~treelab.split_criteria.Criterion`.  Leaves predict the
    weighted mean of their targets, or, with ``leaf_model`` ("linear",
    "constant", a node model or any regressor), the prediction of the leaf's own
    model fitted on the training rows of the leaf (a model tree).  With the
    squared error, targets all farther from zero than their range are grown
    less the range's midpoint (added back to ``tree_.value`` and
    ``tree_.stats``): the variance is the same, but its form
    ``sum wy^2 / w - mean^2`` would lose its digits to the offset.
    """

    _task = "regression"

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, max_bins=255, nominal_features=None, nominal_split="binary",
                 pruning=None, confidence=0.25, multiway_min_leaf="all",
                 leaf_model=None, constant_draws="count"):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.nominal_features = nominal_features
        self.nominal_split = nominal_split
        self.pruning = pruning
        self.confidence = confidence
        self.multiway_min_leaf = multiway_min_leaf
        self.leaf_model = leaf_model
        self.constant_draws = constant_draws

    def _targets(self, y, n, sample_weight):
        """``[w, wy, wy^2]`` per row; with the squared error criterion ``y`` less
        :func:`~treelab._engine.node_values.target_shift` (kept in ``_y_shift``,
        added back by :meth:`_value_from_stats`)."""
        y = check_regression_targets(y, n)
        w = check_sample_weight(sample_weight, n)
        self._y_shift = 0.0
        if get_criterion(self.criterion, self._task).builtin_code == BUILTIN_VARIANCE:
            self._y_shift = target_shift(y, w)
            if self._y_shift:
                y = y - self._y_shift
        sstats = np.ascontiguousarray(np.stack([w, w * y, w * y * y], axis=1))
        return np.zeros(0, np.int64), sstats, w, 3, {"n_outputs_": 1}

    def _value_from_stats(self, stats):
        value = weighted_means(np.ascontiguousarray(stats, dtype=np.float64))
        shift = getattr(self, "_y_shift", 0.0)
        return value + shift if shift else value

    def _make_tree(self, arrays):
        tree = super()._make_tree(arrays)
        c = getattr(self, "_y_shift", 0.0)
        if c:       # the node sums of y itself: [w, wy + cw, wy^2 + 2c wy + c^2 w]
            s = tree.stats
            s[:, 2] += c * (2.0 * s[:, 1] + c * s[:, 0])
            s[:, 1] += c * s[:, 0]
        return tree

    def predict(self, X):
        """Weighted mean target of the leaf each sample reaches (with
        ``leaf_model``: the prediction of the leaf's model)."""
        Xf = self._encode(X)
        if getattr(self, "leaf_models_", None) is not None:
            return self._leaf_model_scores(Xf)[:, 0]
        return self.tree_.predict(Xf)[:, 0]

    def _node_validation_error(self, Xf, y_val):
        y = check_regression_targets(y_val, Xf.shape[0])
        indptr, indices = self.tree_.decision_path(Xf)
        mean = self.tree_.value[:, 0]
        err = np.zeros(self.tree_.node_count)
        for i in range(Xf.shape[0]):
            for p in range(indptr[i], indptr[i + 1]):
                node = indices[p]
                err[node] += (y[i] - mean[node]) ** 2
        return err


# ========================================================================== presets
class ID3Classifier(DecisionTreeClassifier):
    """ID3 (Quinlan 1986): information gain, one branch per value of a nominal
    attribute; numeric attributes get binary threshold tests; no pruning by
    default (pre-pruning through ``max_depth`` / ``min_samples_*``)."""

    def __init__(self, *, criterion="entropy", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, max_bins=255, nominal_features=None,
                 nominal_split="multiway", pruning=None, confidence=0.25,
                 multiway_min_leaf="all", constant_draws="count"):
        super().__init__(criterion=criterion, splitter=splitter, max_depth=max_depth,
                         min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                         min_weight_fraction_leaf=min_weight_fraction_leaf,
                         max_features=max_features, random_state=random_state,
                         min_impurity_decrease=min_impurity_decrease, class_weight=class_weight,
                         ccp_alpha=ccp_alpha, max_bins=max_bins, nominal_features=nominal_features,
                         nominal_split=nominal_split, pruning=pruning, confidence=confidence,
                         multiway_min_leaf=multiway_min_leaf, constant_draws=constant_draws)


class C45Classifier(DecisionTreeClassifier):
    """C4.5 (Quinlan 1993): gain ratio (among tests with at least average gain),
    multiway nominal splits, binary thresholds on numeric attributes, missing
    values, and pessimistic error-based post-pruning with confidence 0.25.

    Minimum cases (Quinlan's MINOBJS, here ``min_samples_leaf=2``): a nominal
    test is admissible when at least two of its branches hold two cases or more
    (``multiway_min_leaf="two"``); a threshold test needs two on each side."""

    def __init__(self, *, criterion="gain_ratio", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=2, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, max_bins=255, nominal_features=None,
                 nominal_split="multiway", pruning="pessimistic", confidence=0.25,
                 multiway_min_leaf="two", constant_draws="count"):
        super().__init__(criterion=criterion, splitter=splitter, max_depth=max_depth,
                         min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                         min_weight_fraction_leaf=min_weight_fraction_leaf,
                         max_features=max_features, random_state=random_state,
                         min_impurity_decrease=min_impurity_decrease, class_weight=class_weight,
                         ccp_alpha=ccp_alpha, max_bins=max_bins, nominal_features=nominal_features,
                         nominal_split=nominal_split, pruning=pruning, confidence=confidence,
                         multiway_min_leaf=multiway_min_leaf, constant_draws=constant_draws)


class CARTClassifier(DecisionTreeClassifier):
    """CART (Breiman et al. 1984) classification: Gini, binary splits (subsets
    of categories for nominal attributes), minimal cost-complexity pruning via
    ``ccp_alpha`` and :meth:`cost_complexity_pruning_path`."""


class CARTRegressor(DecisionTreeRegressor):
    """CART regression tree: squared error (variance reduction), binary splits,
    minimal cost-complexity pruning via ``ccp_alpha``."""
