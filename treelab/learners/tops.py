"""Trees of Predictors (ToPs): Yoon, Zame & van der Schaar, "ToPs: Ensemble
Learning with Trees of Predictors", Section III.

Every node of a ToPs tree holds a predictor: a base learner trained on the
training rows of the node itself or of one of its ancestors.  Growth
(Section III-A):

1. The data are split at random into a training set T and two validation sets
   V1, V2 (75 / 15 / 10 % by default, stratified by class for classifiers, or
   given by the user with ``fit(..., sets=...)``).
2. The root's predictor is the base learner, trained on all of T, with the
   smallest loss on V1.
3. For each terminal node u, every candidate split (feature f, threshold t)
   is tried: binary (0/1) features at 0.5, other features at the 10 %, 20 %,
   ..., 90 % percentiles of u's training values (``numpy.percentile``, linear
   interpolation; repeated values give one candidate); rows with
   ``x_f <= t`` go left.  Nominal (pandas ``category``) columns are one-hot
   encoded into binary indicator columns before anything else (the paper
   assumes categorical features are binary), so a nominal split is
   "category c against the others".  For each side the predictor is chosen
   among every base learner trained on that side's training rows, on u's, or
   on any ancestor's ("a node that weakly precedes it"); split, threshold and
   the two predictors minimise the **joint** loss on u's V1 rows (the loss of
   the concatenated predictions, never a sum over sides for a non-additive
   loss such as 1 - AUC).  The split is kept only if that joint loss is
   strictly below u's current loss on its V1 rows.  A side must hold at least
   ``min_samples_leaf`` training rows and one V1 row (a side without
   validation rows cannot be judged).
4. Growth stops when no terminal node splits.  Then, for every path from the
   root to a terminal node, non-negative weights summing to one are fitted on
   the terminal's V2 rows (Section III-B); the prediction is the weighted sum
   of the predictions (scores) of the predictors along the path (III-C).

Path-weight solver: scipy's SLSQP (the simplex is one equality and box
bounds; paths are short, so a dense SQP is exact enough and cheap) minimises
the loss itself when it is smooth (squared error, with its analytic
gradient; log loss).  Error rate, 1 - AUC and user losses are piecewise
constant in the weights (SLSQP's gradients would be zero): the weights then
minimise the squared error of the scores (the paper's "it is just a linear
regression", Section III-E), and that solution competes with the uniform
weights and with each single node of the path (a vertex of the simplex) on
the loss itself; the best one on V2 is kept (first in that order on ties).
A terminal node without V2 rows puts weight one on its own predictor.

Ties and "strictly below": losses within ``1e-9 * max(1, |loss|)`` of the
minimum are ties, broken by the first candidate in the order (feature,
threshold, left predictor, right predictor), predictors ordered by training
node from the root down to the side itself, then by their position in
``base_learners``.  A split must lower the node's loss by more than that
tolerance.

Speed by design (the paper reports up to 13 hours): every base learner is
trained once on each node's training set and its scores on the node's V1
rows are cached and reused by every descendant; the per-row losses of those
inherited predictors are computed once per node, and the side sums for all
thresholds come from one matrix product; a node model's ``_fit_cuts`` fits
both sides of all percentile cuts of one feature at once (sufficient
statistics for :class:`~treelab.node_models.ConstantModel` and
:class:`~treelab.node_models.LinearModel`: per feature, the Gram matrices
``X_b' W X_b`` of the row blocks between consecutive cuts (one BLAS product
each), accumulated into both sides' normal equations and solved by Cholesky;
warm starts for :class:`~treelab.node_models.LogisticModel`); 1 - AUC over all
pairs of side predictors is one jitted Mann-Whitney kernel on pre-sorted
scores; features are evaluated in parallel (joblib threads, ``n_jobs``; the
kernels release the GIL) with a tqdm progress bar (``verbose``).  BLAS and
numba's parallel kernels run single-threaded in every thread of the fit (see
:func:`_single_threaded_blas`, :func:`_single_threaded_numba`).  Treelab
ensembles of treelab trees (AdaBoost, gradient boosting) fit the sides of a
feature's cuts on data derived from the node's, binned / presorted once per
node (:meth:`~treelab.node_models.EstimatorModel._fit_cuts`): the same bins and
presort as a fit on the side's rows, without re-binning every side.

Bounded exact search (on by default; additive losses, i.e. every built-in loss
but 1 - AUC, with at least one learner without a sufficient-statistics cut
path): the joint V1 loss of a cut is ``(min_L + min_R) / n_V1``, each side's
minimum over its own candidates, and row losses are non-negative, so a cut
whose one side alone exceeds the best joint loss some candidate attains can
neither win nor tie.  Per node, a first pass scores every cut with the
inherited predictors and the cheap learners (constant, linear) and gives
that bound; then, features in the order of their best cheap loss, the costly
learners are fitted on the side of each cut whose cheap minimum is larger, and
the other side only when the first one leaves the cut a chance (the bound
tightens as the search goes).  The candidates that remain are scored exactly
as without the bound, so the tree, thresholds, predictors and weights are the
same (tested); only side fits that cannot matter are skipped.

Screening (``screen_candidates=k``, off by default): with costly base
learners (ensembles fitted on both sides of up to 9 cuts of every feature at
every node, the paper's 13 hours) every candidate split is first ranked with
the inherited predictors and the learners that have a sufficient-statistics
cut path (constant, linear), and only the k best are searched with every
learner.  It is not the paper's search: a split that only a costly learner
makes good can be missed.

Sample weights (``fit(X, y, sample_weight=...)``) enter the base learners'
fits, the percentile thresholds and every loss; positive integer weights give
the same tree as duplicated rows (for the same ``sets``).

Scores: a regressor's predictors give values; a classifier's give an
``(n, n_classes)`` score matrix (probabilities for probabilistic learners,
the linear probability model for linear ones).  Built-in losses:
"squared_error" (mean squared error; on one-hot targets for a classifier,
the Brier score), "absolute_error" (regression), "error_rate" (argmax of the
scores), "log_loss" (on :func:`~treelab.node_models.scores_to_proba`, clipped
at 1e-15), "auc" (1 - AUC of the class-1 score, binary only; a node whose V1
rows hold one class has loss 0.5).  A user loss is a plain function
``loss(y_true, scores) -> float`` (original labels; the score matrix for a
classifier, the predictions for a regressor), evaluated on the joint set.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from .._engine.jit import njit
from .._params import check_int
from .._progress import progress_bar
from .._sklearn_compat import BaseEstimator, ClassifierMixin, RegressorMixin, check_is_fitted
from ..data import (
    check_classification_targets, check_random_state, check_regression_targets,
    check_sample_weight, encode_X, fit_encode_X, set_fitted_encoding,
)
from ..node_models import (
    CLASSIFICATION, REGRESSION, EstimatorModel, LinearModel, as_node_model, scores_to_proba,
)

__all__ = ["ToPsClassifier", "ToPsRegressor", "export_tops_text"]

TIE = 1e-9


def _tol(v):
    return TIE * max(1.0, abs(v))


# ============================================================================ losses
@njit(cache=True, nogil=True)
def _mw_cross(a, wa, b, cwb):
    """Weighted Mann-Whitney sum over pairs (x in a, z in b) of w_x w_z [x > z],
    ties counted 1/2; ``a``, ``b`` sorted, ``wa`` the weights of ``a``, ``cwb``
    the cumulative weights of ``b`` with a leading 0 (unit weights: the count
    of pairs)."""
    na, nb = a.shape[0], b.shape[0]
    u = 0.0
    j_lo = 0
    j_hi = 0
    for i in range(na):
        x = a[i]
        while j_lo < nb and b[j_lo] < x:
            j_lo += 1
        while j_hi < nb and b[j_hi] <= x:
            j_hi += 1
        u += wa[i] * (cwb[j_lo] + 0.5 * (cwb[j_hi] - cwb[j_lo]))
    return u


@njit(cache=True, nogil=True)
def _auc_pairs(posL, wposL, negL, cwnegL, posR, wposR, negR, cwnegR):
    """1 - AUC of every pair (left candidate i, right candidate j) on the joint
    set; rows of ``posL`` (``negL``...) are the sorted class-1 (class-0) scores
    of a candidate on the left (right) side's rows, ``wposL`` their weights in
    the same order, ``cwnegL`` the cumulative weights of ``negL`` (leading 0)."""
    cL, cR = posL.shape[0], posR.shape[0]
    P = 0.0
    N = 0.0
    if cL > 0:
        P += wposL[0].sum()
        N += cwnegL[0, cwnegL.shape[1] - 1]
    if cR > 0:
        P += wposR[0].sum()
        N += cwnegR[0, cwnegR.shape[1] - 1]
    out = np.empty((cL, cR))
    if not (P > 0.0 and N > 0.0):
        out[:, :] = 0.5
        return out
    uL = np.empty(cL)
    for i in range(cL):
        uL[i] = _mw_cross(posL[i], wposL[i], negL[i], cwnegL[i])
    uR = np.empty(cR)
    for j in range(cR):
        uR[j] = _mw_cross(posR[j], wposR[j], negR[j], cwnegR[j])
    for i in range(cL):
        for j in range(cR):
            u = (uL[i] + uR[j] + _mw_cross(posL[i], wposL[i], negR[j], cwnegR[j])
                 + _mw_cross(posR[j], wposR[j], negL[i], cwnegL[i]))
            out[i, j] = 1.0 - u / (P * N)
    return out


def _sorted_by_class(S, yy, ww):
    """Per candidate (rows of ``S``, shape (c, n)): the sorted class-1 scores
    with their weights, the sorted class-0 scores with cumulative weights."""
    c = S.shape[0]
    out = []
    for cls in (1, 0):
        sel = yy == cls
        Sc = S[:, sel]
        wc = np.ones(int(sel.sum())) if ww is None else ww[sel]
        if ww is None:
            srt = np.sort(Sc, axis=1)
            Wc = np.broadcast_to(wc, Sc.shape)
        else:
            o = np.argsort(Sc, axis=1, kind="stable")
            srt = np.take_along_axis(Sc, o, axis=1)
            Wc = wc[o]
        if cls == 1:
            out += [np.ascontiguousarray(srt), np.ascontiguousarray(Wc)]
        else:
            cw = np.zeros((c, Sc.shape[1] + 1))
            np.cumsum(Wc, axis=1, out=cw[:, 1:])
            out += [np.ascontiguousarray(srt), cw]
    return out


class _Loss:
    """A loss on (targets, scores), optionally sample-weighted.  ``rows`` exists
    for additive (mean) losses; weighted, they are the weighted means."""

    def __init__(self, name, task, fn=None):
        self.name = name
        self.task = task
        self.fn = fn
        self.additive = name in ("squared_error", "absolute_error", "error_rate", "log_loss")
        self.fn_takes_weight = False
        if fn is not None:
            import inspect
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                params = {}
            self.fn_takes_weight = "sample_weight" in params or any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())

    def rows(self, y, S):
        """Per-row losses; ``S`` is (..., n, k), ``y`` targets / class codes (n,).  A
        row with a NaN score (a learner that could not be fitted on the side:
        ``EstimatorModel(on_error="nan")``) has a NaN loss, so the candidate
        never wins."""
        r = self._rows(y, S)
        bad = np.isnan(S).any(axis=-1)
        return np.where(bad, np.nan, r) if bad.any() else r

    def _rows(self, y, S):
        if self.name == "squared_error":
            if self.task == REGRESSION:
                return (S[..., 0] - y) ** 2
            Y = np.zeros(S.shape[-2:])
            Y[np.arange(y.shape[0]), y] = 1.0
            return ((S - Y) ** 2).sum(axis=-1)
        if self.name == "absolute_error":
            return np.abs(S[..., 0] - y)
        if self.name == "error_rate":
            return (np.argmax(S, axis=-1) != y).astype(np.float64)
        if self.name == "log_loss":
            P = np.clip(S, 0.0, None)
            tot = P.sum(axis=-1)
            py = np.take_along_axis(P, np.broadcast_to(y[:, None], P.shape[:-1] + (1,)),
                                    axis=-1)[..., 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                py = np.where(tot > 0, py / np.where(tot > 0, tot, 1.0), 1.0 / S.shape[-1])
            return -np.log(np.clip(py, 1e-15, 1.0))
        raise AssertionError(self.name)

    def __call__(self, y, S, y_orig=None, w=None):
        """The loss of scores ``S`` on targets ``y``; ``w``: sample weights or
        None (unweighted)."""
        if y.shape[0] == 0:
            return 0.0
        if np.isnan(S).any():
            return np.nan          # (see rows)
        if self.additive:
            if w is None:
                return float(self.rows(y, S).mean())
            tot = float(w.sum())
            return float(self.rows(y, S) @ w) / tot if tot > 0 else 0.0
        if self.name == "auc":
            (pos, wpos, neg, cwneg) = _sorted_by_class(S[None, :, 1], y, w)
            if not (wpos.sum() > 0 and cwneg[0, -1] > 0):
                return 0.5
            return 1.0 - (_mw_cross(pos[0], wpos[0], neg[0], cwneg[0])
                          / (wpos.sum() * cwneg[0, -1]))
        pred = S[:, 0] if self.task == REGRESSION else S
        if w is not None and self.fn_takes_weight:
            return float(self.fn(y_orig, pred, sample_weight=w))
        return float(self.fn(y_orig, pred))


_CLS_LOSSES = ("error_rate", "log_loss", "squared_error", "auc")
_REG_LOSSES = ("squared_error", "absolute_error")


def _make_loss(loss, task, n_classes):
    if callable(loss):
        return _Loss("user", task, loss)
    allowed = _CLS_LOSSES if task == CLASSIFICATION else _REG_LOSSES
    aliases = {"1-auc": "auc", "roc_auc": "auc", "mse": "squared_error", "brier": "squared_error",
               "error": "error_rate", "zero_one": "error_rate", "mae": "absolute_error"}
    if not isinstance(loss, str):
        raise TypeError(f"loss must be a string or a function loss(y_true, scores), got "
                        f"{type(loss).__name__}")
    name = aliases.get(loss, loss)
    if name not in allowed:
        raise ValueError(f"unknown loss {loss!r} for {task}; use one of {list(allowed)} or a "
                         "function loss(y_true, scores)")
    if name == "auc" and n_classes != 2:
        raise ValueError(f"loss='auc' (1 - AUC) needs two classes, got {n_classes}")
    return _Loss(name, task)


# ============================================================================ weights
def fit_path_weights(S_list, y, loss, y_orig=None, sample_weight=None):
    """Non-negative weights summing to one that minimise ``loss`` of
    ``sum_k w_k S_k`` on the rows ``y`` (Section III-B; solver: see the module
    docstring).  ``S_list`` holds one (n, k) score matrix per node of the path;
    ``sample_weight`` weights the rows (None: unweighted)."""
    from scipy.optimize import minimize
    K = len(S_list)
    if K == 1:
        return np.ones(1)
    if y.shape[0] == 0 or sample_weight is not None and not np.sum(sample_weight) > 0:
        w = np.zeros(K)
        w[-1] = 1.0
        return w
    S = np.stack(S_list)                         # (K, n, k)
    if loss.task == REGRESSION or loss.name != "squared_error" and loss.task == REGRESSION:
        T = y.reshape(-1, 1).astype(np.float64)
    else:
        T = np.zeros(S.shape[1:])
        T[np.arange(y.shape[0]), y] = 1.0
    A = S.reshape(K, -1).T                        # (n*k, K)
    t = T.reshape(-1)
    if sample_weight is None:
        AtA, Atb = A.T @ A, A.T @ t
        n = float(y.shape[0])
    else:
        sw = np.repeat(np.asarray(sample_weight, np.float64), T.shape[1])
        AtA, Atb = (A * sw[:, None]).T @ A, (A * sw[:, None]).T @ t
        n = max(float(np.sum(sample_weight)), 1e-300)

    def sq(wv):
        r = A @ wv - t
        rr = float(r @ r) if sample_weight is None else float((r * sw) @ r)
        return rr / n, (2.0 * (AtA @ wv - Atb)) / n

    def solve(fun, jac):
        x0 = np.full(K, 1.0 / K)
        res = minimize(fun, x0, jac=jac, method="SLSQP", bounds=[(0.0, 1.0)] * K,
                       constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1.0,
                                     "jac": lambda v: np.ones(K)}],
                       options={"ftol": 1e-14, "maxiter": 500})
        wv = np.clip(res.x, 0.0, None)
        return wv / wv.sum()

    def true_loss(wv):
        return loss(y, np.tensordot(wv, S, axes=1), y_orig, sample_weight)

    if loss.name in ("squared_error",):
        return solve(lambda v: sq(v)[0], lambda v: sq(v)[1])
    if loss.name in ("log_loss", "absolute_error"):
        start = solve(lambda v: sq(v)[0], lambda v: sq(v)[1])
        best = solve(lambda v: true_loss(v), None)
        return best if true_loss(best) <= true_loss(start) else start
    cands = [solve(lambda v: sq(v)[0], lambda v: sq(v)[1]), np.full(K, 1.0 / K)]
    cands += [np.eye(K)[k] for k in range(K)]
    vals = [true_loss(c) for c in cands]
    m = min(vals)
    for c, v in zip(cands, vals):
        if v <= m + _tol(m):
            return c
    return cands[0]  # pragma: no cover


# ============================================================================ tree
@dataclass
class ToPsNode:
    """One node of a fitted tree of predictors."""
    id: int
    parent: int
    depth: int
    learner: int                 # index into base_learners_
    source: int                  # node whose training set trained the predictor
    n_train: int
    n_val1: int
    n_val2: int
    loss: float                  # V1 loss of the node's own predictor on its V1 rows
    feature: int = -1
    threshold: float = np.nan
    left: int = -1
    right: int = -1
    split_loss: float = np.nan   # joint V1 loss of the chosen split
    weights: np.ndarray = field(default=None)    # path weights (terminal nodes)
    path: list = field(default_factory=list)     # node ids root..self
    terminal_gain: float = np.nan  # terminal: V1 loss of the root's predictor minus the final one's

    @property
    def is_leaf(self):
        return self.left < 0

    @property
    def improvement(self):
        """V1 loss improvement of the split (0 at terminal nodes)."""
        return 0.0 if self.is_leaf else self.loss - self.split_loss


class _BaseToPs(BaseEstimator):
    _task = None

    def __init__(self, *, base_learners=None, loss=None, validation_fraction=(0.15, 0.10),
                 max_depth=None, min_samples_leaf=1, screen_candidates=None, n_jobs=None, verbose=0,
                 random_state=None):
        self.base_learners = base_learners
        self.loss = loss
        self.validation_fraction = validation_fraction
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.screen_candidates = screen_candidates
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.random_state = random_state

    # ----------------------------------------------------------- preparation
    def _learners(self, rng):
        bl = self.base_learners
        if bl is None:
            bl = [LinearModel()]
        if isinstance(bl, (str,)) or not hasattr(bl, "__len__") or hasattr(bl, "fit"):
            raise TypeError("base_learners must be a list of node models, estimators or names "
                            "('constant', 'linear', 'logistic')")
        if len(bl) == 0:
            raise ValueError("base_learners is empty")
        out = []
        for b in bl:
            m = as_node_model(b)
            if isinstance(m, EstimatorModel):
                try:
                    from sklearn.base import clone
                    est = clone(m.estimator)
                except (ImportError, TypeError):
                    import copy
                    est = copy.deepcopy(m.estimator)
                params = est.get_params(deep=False) if hasattr(est, "get_params") else {}
                if "random_state" in params and params["random_state"] is None:
                    est.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
                # a side it cannot be fitted on: NaN predictions, never selected
                m = EstimatorModel(est, on_error="nan")
            out.append(m)
        return out

    def _split_sets(self, n, yc, sets, rng):
        if sets is not None:
            s = np.asarray(sets)
            if s.shape != (n,):
                raise ValueError(f"sets must have one entry per sample ({n}), got shape {s.shape}")
            if not np.isin(s, (0, 1, 2)).all():
                raise ValueError("sets must hold 0 (training), 1 (validation 1) or 2 (validation 2)")
            s = s.astype(np.int64)
        else:
            vf = self.validation_fraction
            try:
                f1, f2 = (float(vf[0]), float(vf[1]))
            except (TypeError, IndexError, ValueError):
                raise ValueError(f"validation_fraction must be a pair (v1, v2) of fractions, "
                                 f"got {vf!r}") from None
            if not (f1 > 0 and f2 > 0 and f1 + f2 < 1):
                raise ValueError(f"validation_fraction must be two fractions > 0 with sum < 1, "
                                 f"got {vf!r}")
            if n < 3:
                raise ValueError(f"ToPs needs at least 3 samples (a training and two validation "
                                 f"sets), got n_samples = {n}")
            s = np.zeros(n, dtype=np.int64)
            groups = [np.arange(n)] if yc is None else [np.flatnonzero(yc == c)
                                                        for c in np.unique(yc)]
            for g in groups:
                g = g[rng.permutation(g.shape[0])]
                n1 = int(round(f1 * g.shape[0]))
                n2 = int(round(f2 * g.shape[0]))
                s[g[:n1]] = 1
                s[g[n1:n1 + n2]] = 2
            for part in (1, 2, 0):      # tiny data: every set gets at least one row
                if not (s == part).any():
                    donors = np.flatnonzero(np.bincount(s, minlength=3)[s] > 1)
                    s[donors[rng.randint(donors.shape[0])]] = part
        for part, name in ((0, "training"), (1, "validation-1"), (2, "validation-2")):
            if not (s == part).any():
                raise ValueError(f"the {name} set is empty (n_samples = {n})")
        return s

    def _expand(self, Xf, enc):
        """One-hot columns for nominal attributes (documented choice)."""
        if not enc.is_nominal.any():
            return Xf
        cols = []
        for j in range(Xf.shape[1]):
            if enc.is_nominal[j]:
                for c in range(int(enc.n_cats[j])):
                    cols.append((Xf[:, j] == c).astype(np.float64))
            else:
                cols.append(Xf[:, j])
        return np.ascontiguousarray(np.column_stack(cols))

    # ------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None, sets=None):
        """Grow the tree of predictors (Section III-A) and fit the path weights (III-B).

        ``sample_weight`` (optional, non-negative): enters the base learners'
        fits on the training rows, the percentile thresholds (weighted
        percentiles: an integer weight acts as that many copies of the row),
        and every loss on V1 and V2 (weighted means; weighted Mann-Whitney
        for 1 - AUC; a user loss gets ``sample_weight=`` when it accepts it).
        Counts (``min_samples_leaf``, one V1 row per side) count rows of
        positive weight, so a zero weight removes a row and positive integer
        weights equal row duplication.
        ``sets`` (optional): per sample 0 = training, 1 = validation set 1,
        2 = validation set 2; default a random 75 / 15 / 10 % split
        (``validation_fraction``), stratified by class for classifiers.
        """
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, allow_nan=False)
        n = Xf.shape[0]
        if self._task == CLASSIFICATION:
            classes, yc = check_classification_targets(y, n)
            if classes.shape[0] < 2:
                raise ValueError(f"Classifier can't train when only one class is present: y has "
                                 f"the single class {classes[0]!r}")
            self.classes_ = classes
            K = int(classes.shape[0])
            y_orig = classes[yc]
        else:
            yc = check_regression_targets(y, n)
            K = 1
            y_orig = yc
        max_depth = check_int("max_depth", self.max_depth, 0, allow_none=True)
        msl = check_int("min_samples_leaf", self.min_samples_leaf, 1)
        screen = check_int("screen_candidates", self.screen_candidates, 1, allow_none=True)
        if self.loss is None:
            loss_spec = "error_rate" if self._task == CLASSIFICATION else "squared_error"
        else:
            loss_spec = self.loss
        loss = _make_loss(loss_spec, self._task, K)
        sw = None
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, n)
            if np.all(sw == 1.0):
                sw = None
            elif loss.fn is not None and not loss.fn_takes_weight and np.ptp(sw) > 0:
                raise ValueError("sample_weight with a user loss needs a loss function that "
                                 "accepts a sample_weight keyword: loss(y_true, scores, "
                                 "sample_weight=None)")
        rng = check_random_state(self.random_state)
        learners = self._learners(rng)
        sets = self._split_sets(n, yc if self._task == CLASSIFICATION else None, sets, rng)
        Xe = self._expand(Xf, enc)
        set_fitted_encoding(self, enc, Xf.shape[1])
        self.n_classes_ = K if self._task == CLASSIFICATION else None
        if sw is not None:
            if not sw.sum() > 0:
                raise ValueError("all sample weights are zero (sample_weight sums to zero)")
            for part, nm in ((0, "training"), (1, "validation-1"), (2, "validation-2")):
                if not sw[sets == part].sum() > 0:
                    raise ValueError(f"the {nm} set has only zero sample weights (no sample "
                                     "of positive weight)")
        grower = _Grower(Xe, yc, y_orig, sets, learners, loss, self._task, K, max_depth, msl,
                         self.n_jobs, self.verbose, sw, screen)
        with _single_threaded_blas(), _single_threaded_numba():
            nodes, models = grower.grow()
        self.base_learners_ = learners
        self.loss_ = loss
        self.nodes_ = nodes
        self.predictors_ = models
        self.sets_ = sets
        self.feature_names_expanded_ = self._expanded_names(enc)
        return self

    def _expanded_names(self, enc):
        base = (list(enc.feature_names) if enc.feature_names is not None
                else [f"feature_{j}" for j in range(enc.n_features)])
        out = []
        for j in range(enc.n_features):
            if enc.is_nominal[j]:
                out += [f"{base[j]} = {c}" for c in enc.categories[j]]
            else:
                out.append(base[j])
        return out

    # --------------------------------------------------------------- predict
    def _encode(self, X):
        check_is_fitted(self, "nodes_")
        Xf = encode_X(X, self._encoding, type(self).__name__, allow_nan=False)
        return self._expand(Xf, self._encoding)

    def apply(self, X):
        """Terminal node id of each sample."""
        return _route(self.nodes_, self._encode(X))[0]

    def _scores(self, X):
        Xe = self._encode(X)
        return _predict_scores(self.nodes_, self.predictors_, Xe, self.n_classes_ or 1)

    def export_text(self, **kwargs):
        """Text rendering of the tree of predictors (:func:`export_tops_text`)."""
        return export_tops_text(self, **kwargs)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "nodes_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


def _route(nodes, X):
    """Terminal node of each row, and per node the rows that reach it."""
    n = X.shape[0]
    leaf = np.zeros(n, dtype=np.int64)
    rows = {0: np.arange(n)}
    stack = [0]
    while stack:
        u = stack.pop()
        nd = nodes[u]
        r = rows[u]
        if nd.is_leaf:
            leaf[r] = u
            continue
        go_left = X[r, nd.feature] <= nd.threshold
        rows[nd.left], rows[nd.right] = r[go_left], r[~go_left]
        stack += [nd.right, nd.left]
    return leaf, rows


def _predict_scores(nodes, models, X, K):
    leaf, rows = _route(nodes, X)
    S = np.zeros((X.shape[0], K))
    for nd in nodes:
        if not nd.is_leaf:
            continue
        r = rows[nd.id]
        if r.shape[0] == 0:
            continue
        Xr = X[r]
        acc = np.zeros((r.shape[0], K))
        for wk, p in zip(nd.weights, nd.path):
            if wk == 0.0:
                continue
            q = nodes[p]
            acc += wk * models[(q.learner, q.source)]._scores(Xr)
        S[r] = acc
    return S


# ============================================================================ grower
class _Grower:
    """The fast ToPs growth of Section III-A (see the module docstring)."""

    # the exact search skips the second side of a cut that cannot win (additive
    # losses, costly learners; see ``_best_split``); False: fit every side (A/B)
    bounded = True
    # the features searched at every node (None: all; benchmarks time a sample)
    features = None

    def __init__(self, X, y, y_orig, sets, learners, loss, task, K, max_depth, msl, n_jobs,
                 verbose, sample_weight=None, screen=None):
        self.task, self.K, self.loss = task, K, loss
        self.learners = learners
        self.m = len(learners)
        self.screen = screen
        # learners with a sufficient-statistics cut path (cheap at every cut)
        self.cheap = [a for a, lrn in enumerate(learners) if getattr(lrn, "_exact_cut_path", False)]
        self.max_depth, self.msl = max_depth, msl
        self.n_jobs, self.verbose = n_jobs, verbose
        T, V1, V2 = (np.flatnonzero(sets == k) for k in (0, 1, 2))
        self.XT, self.yT = np.ascontiguousarray(X[T]), y[T]
        self.XV1, self.yV1, self.oV1 = np.ascontiguousarray(X[V1]), y[V1], y_orig[V1]
        self.XV2, self.yV2, self.oV2 = np.ascontiguousarray(X[V2]), y[V2], y_orig[V2]
        # sample weights: None everywhere when unweighted (the unweighted code path)
        self.weighted = sample_weight is not None
        sw = sample_weight
        self.wT = np.ones(T.shape[0]) if sw is None else np.ascontiguousarray(sw[T])
        self.wV1 = None if sw is None else np.ascontiguousarray(sw[V1])
        self.wV2 = None if sw is None else np.ascontiguousarray(sw[V2])
        # rows of positive weight count (zero weight = the row removed)
        self.posT = self.wT > 0
        self.posV1 = np.ones(V1.shape[0], bool) if sw is None else self.wV1 > 0
        vals = self.XT[self.posT]
        self.binary = np.all((vals == 0) | (vals == 1), axis=0)
        self.bound_stats = [0, 0]  # bounded search: cuts seen, cuts whose second side was skipped
        self.models = {}         # (learner, node) -> fitted model
        self.v1_scores = {}      # (learner, node) -> scores on the node's V1 rows

    # -------------------------------------------------------------- helpers
    def _fit(self, a, rows):
        return self.learners[a]._fresh()._fit_task(self.XT[rows], self.yT[rows], self.wT[rows],
                                                   self.task, self.K)

    def _cache_node(self, nid, models, v1rows):
        for a, mdl in enumerate(models):
            self.models[(a, nid)] = mdl
            self.v1_scores[(a, nid)] = mdl._scores(self.XV1[v1rows])

    def _thresholds(self, xs, f, ws=None):
        """0.5 for a 0/1 feature; else the distinct 10 %, ..., 90 % percentiles of the
        sorted node values ``xs`` (numpy's default linear interpolation, computed
        on the already sorted values; weighted: as if each row were repeated
        its weight times, see :func:`_sorted_percentiles`)."""
        if self.binary[f]:
            return np.array([0.5])
        return np.unique(_sorted_percentiles(xs, ws))

    def _w1(self, rows):
        return None if self.wV1 is None else self.wV1[rows]

    def _w2(self, rows):
        return None if self.wV2 is None else self.wV2[rows]

    # ----------------------------------------------------------------- grow
    def grow(self):
        nT = self.XT.shape[0]
        T0, V10, V20 = np.arange(nT), np.arange(self.XV1.shape[0]), np.arange(self.XV2.shape[0])
        root_models = [self._fit(a, T0) for a in range(self.m)]
        self._cache_node(0, root_models, V10)
        losses = [self.loss(self.yV1, self.v1_scores[(a, 0)], self.oV1, self.wV1)
                  for a in range(self.m)]
        best = _first_min(losses)
        root = ToPsNode(0, -1, 0, best, 0, nT, V10.shape[0], V20.shape[0], losses[best], path=[0])
        nodes = [root]
        rows = {0: (T0, V10, V20)}
        self.rows = rows
        queue = [0]
        bar = progress_bar(bool(self.verbose), desc="ToPs nodes", unit="node", leave=False)
        while queue:
            u = queue.pop(0)
            nd = nodes[u]
            bar.update(1)
            if self.max_depth is not None and nd.depth >= self.max_depth:
                continue
            res = self._best_split(nodes, u, *rows[u])
            if res is None:
                continue
            f, t, split_loss, (sl, al), (sr, ar) = res
            if not split_loss < nd.loss - _tol(nd.loss):
                continue
            Tu, V1u, V2u = rows[u]
            goT = self.XT[Tu, f] <= t
            go1 = self.XV1[V1u, f] <= t
            go2 = self.XV2[V2u, f] <= t
            nd.feature, nd.threshold, nd.split_loss = int(f), float(t), float(split_loss)
            for side, (src, a), mask in (("left", (sl, al), (goT, go1, go2)),
                                         ("right", (sr, ar), (~goT, ~go1, ~go2))):
                cid = len(nodes)
                cr = (Tu[mask[0]], V1u[mask[1]], V2u[mask[2]])
                rows[cid] = cr
                self._cache_node(cid, [self._fit(b, cr[0]) for b in range(self.m)], cr[1])
                source = cid if src < 0 else src
                S = self.v1_scores[(a, source)]
                if source != cid:
                    S = S[np.searchsorted(rows[source][1], cr[1])]
                c = ToPsNode(cid, u, nd.depth + 1, a, source, cr[0].shape[0], cr[1].shape[0],
                             cr[2].shape[0], self.loss(self.yV1[cr[1]], S, self.oV1[cr[1]],
                                                             self._w1(cr[1])),
                             path=nd.path + [cid])
                nodes.append(c)
                setattr(nd, side, cid)
                queue.append(cid)
        bar.close()
        used = {}
        for nd in nodes:
            if nd.is_leaf:
                V2u = rows[nd.id][2]
                S_list = [self.models[(nodes[p].learner, nodes[p].source)]._scores(self.XV2[V2u])
                          for p in nd.path]
                nd.weights = fit_path_weights(S_list, self.yV2[V2u], self.loss, self.oV2[V2u],
                                              self._w2(V2u))
                V1u = rows[nd.id][1]
                XV = self.XV1[V1u]
                final = sum(wk * self.models[(nodes[p].learner, nodes[p].source)]._scores(XV)
                            for wk, p in zip(nd.weights, nd.path))
                root = self.v1_scores[(nodes[0].learner, 0)][V1u]
                w1 = self._w1(V1u)
                nd.terminal_gain = (self.loss(self.yV1[V1u], root, self.oV1[V1u], w1)
                                    - self.loss(self.yV1[V1u], final, self.oV1[V1u], w1))
            used[(nd.learner, nd.source)] = self.models[(nd.learner, nd.source)]
        return nodes, used

    # ------------------------------------------------------------ the search
    def _best_split(self, nodes, u, Tu, V1u, V2u):
        nd = nodes[u]
        posT, posV = self.posT[Tu], self.posV1[V1u]
        nT, nV = int(posT.sum()), int(posV.sum())
        if nT < 2 * self.msl or nV < 2:
            return None
        path = nd.path
        inh_keys = [(a, p) for p in path for a in range(self.m)]
        inh_S = np.stack([self.v1_scores[(a, p)][np.searchsorted(self.rows[p][1], V1u)]
                          if p != u else self.v1_scores[(a, p)] for (a, p) in inh_keys])
        yv, ov, wv = self.yV1[V1u], self.oV1[V1u], self._w1(V1u)
        inh_R = None
        if self.loss.additive:
            inh_R = self.loss.rows(yv, inh_S)
            if wv is not None:
                inh_R = inh_R * wv
        wtot = float(yv.shape[0]) if wv is None else float(wv.sum())
        XTu, yTu, wTu = self.XT[Tu], self.yT[Tu], self.wT[Tu]
        XV = self.XV1[V1u]
        d = XTu.shape[1]
        caches = [{} for _ in self.learners]    # per node: e.g. a linear model's X'WX
        posVf = posV.astype(np.float64)

        def side_sum(yy, S, ww):
            r = self.loss.rows(yy, S)
            return r.sum() if ww is None else r @ ww

        ninh = len(inh_keys)

        def spec(i, ids):
            if i < ninh:
                a, p = inh_keys[i]
                return p, a
            return -1, ids[i - ninh]

        def geometry(f, keep=None):
            """Feature ``f``'s candidate thresholds ``ts``, their training split
            positions ``pos`` in the sorted ``order``, V1 masks (left = True) and
            the proper ones ``ok`` (``keep``: only these thresholds)."""
            xt = XTu[:, f]
            order = np.argsort(xt, kind="stable")
            xs = xt[order]
            ts = self._thresholds(xs, f, None if wv is None else wTu[order])
            pos = np.searchsorted(xs, ts, side="right")
            if self.weighted:                 # training rows of positive weight on the left
                cpos = np.concatenate([[0], np.cumsum(posT[order])])
                nL = cpos[pos]
            else:
                nL = pos
            xv = XV[:, f]
            masks = xv[None, :] <= ts[:, None]
            nL1 = masks @ posVf
            ok = ((nL >= self.msl) & (nT - nL >= self.msl) & (nL1 >= 1) & (nL1 <= nV - 1))
            if keep is not None:
                ok &= np.isin(ts, keep)
            return order, ts, pos, masks, ok

        def evaluate(f, ids, keep=None):
            """Candidates of feature ``f`` with the new side predictors of the
            learners ``ids`` (all learners: the exact search); ``keep``: only
            these thresholds."""
            order, ts, pos, masks, ok = geometry(f, keep)
            out = []
            if not ok.any():
                return out
            upos = np.unique(pos[ok])
            fits = [self.learners[a]._fit_cuts(XTu, yTu, wTu, self.task, self.K, order, upos,
                                               cache=caches[a]) for a in ids]
            if inh_R is not None:
                sums_L = inh_R @ masks.T.astype(np.float64)           # (c_inh, n_t)
                sums_R = inh_R.sum(axis=1)[:, None] - sums_L
            for ti in np.flatnonzero(ok):
                mL = masks[ti]
                k = int(np.searchsorted(upos, pos[ti]))
                newL = [fl[0][k]._scores(XV[mL]) for fl in fits]
                newR = [fl[1][k]._scores(XV[~mL]) for fl in fits]
                if inh_R is not None:
                    wl = None if wv is None else wv[mL]
                    wr = None if wv is None else wv[~mL]
                    lossL = np.concatenate([sums_L[:, ti], [side_sum(yv[mL], s, wl)
                                                            for s in newL]])
                    lossR = np.concatenate([sums_R[:, ti], [side_sum(yv[~mL], s, wr)
                                                            for s in newR]])
                    iL, iR = _first_min(lossL), _first_min(lossR)
                    joint = (lossL[iL] + lossR[iR]) / wtot
                else:
                    SL = np.concatenate([inh_S[:, mL]] + ([np.stack(newL)] if newL else []))
                    SR = np.concatenate([inh_S[:, ~mL]] + ([np.stack(newR)] if newR else []))
                    J = self._joint_matrix(yv, ov, wv, mL, SL, SR)
                    flat = J.ravel()
                    idx = _first_min(flat)
                    iL, iR = divmod(idx, J.shape[1])
                    joint = flat[idx]
                out.append((float(joint), f, float(ts[ti]), spec(iL, ids), spec(iR, ids)))
            return out

        def cheap_pass(f):
            """Bounded search, step 1: feature ``f``'s proper cuts with the side
            sums of the inherited predictors and the cheap learners' new ones
            (per cut, each side's vector in the exact search's candidate order,
            NaN for the costly learners' entries, filled in by step 2)."""
            order, ts, pos, masks, ok = geometry(f)
            if not ok.any():
                return None
            upos = np.unique(pos[ok])
            fits = {a: self.learners[a]._fit_cuts(XTu, yTu, wTu, self.task, self.K, order, upos,
                                                  cache=caches[a]) for a in self.cheap}
            sums_L = inh_R @ masks.T.astype(np.float64)
            sums_R = inh_R.sum(axis=1)[:, None] - sums_L
            cuts = []
            for ti in np.flatnonzero(ok):
                mL = masks[ti]
                k = int(np.searchsorted(upos, pos[ti]))
                lossL = np.full(ninh + self.m, np.nan)
                lossR = np.full(ninh + self.m, np.nan)
                lossL[:ninh], lossR[:ninh] = sums_L[:, ti], sums_R[:, ti]
                for a, fl in fits.items():
                    lossL[ninh + a] = side_sum(yv[mL], fl[0][k]._scores(XV[mL]),
                                               None if wv is None else wv[mL])
                    lossR[ninh + a] = side_sum(yv[~mL], fl[1][k]._scores(XV[~mL]),
                                               None if wv is None else wv[~mL])
                cuts.append((ti, k, lossL, lossR))
            best = min((np.nanmin(c[2]) + np.nanmin(c[3])) / wtot for c in cuts)
            return order, ts, upos, masks, cuts, best

        def bounded(f, pre):
            """Bounded search, step 2: the costly learners on feature ``f``'s cuts.
            Per cut the side whose cheap minimum is larger is fitted first; when
            that side's minimum alone exceeds the best joint loss found so far
            (``bound``, a loss some candidate attains) beyond the tie tolerances,
            the cut can neither win nor tie (row losses are non-negative) and its
            other side is not fitted.  Every other cut gets exactly the exact
            search's candidates and joint loss."""
            if pre is None:
                return []
            order, ts, upos, masks, cuts, _ = pre
            first = [int(np.nanmin(c[3]) > np.nanmin(c[2])) for c in cuts]

            def fit_sides(want):
                """Fit the costly learners on the sides ``want`` (2, n_upos) and
                fill every cut's missing side sums they give."""
                if not want.any():
                    return
                for a in costly:
                    fl = self.learners[a]._fit_cuts(XTu, yTu, wTu, self.task, self.K, order,
                                                    upos, cache=caches[a], sides=want)
                    for ti, k, lossL, lossR in cuts:
                        for sd, vec in ((0, lossL), (1, lossR)):
                            if want[sd, k] and np.isnan(vec[ninh + a]):
                                mS = masks[ti] if sd == 0 else ~masks[ti]
                                vec[ninh + a] = side_sum(yv[mS], fl[sd][k]._scores(XV[mS]),
                                                         None if wv is None else wv[mS])
            want = np.zeros((2, upos.shape[0]), np.bool_)
            for (ti, k, _, _), sd in zip(cuts, first):
                want[sd, k] = True
            fit_sides(want)
            alive = []
            for (ti, k, lossL, lossR), sd in zip(cuts, first):
                lb = float(np.min((lossL, lossR)[sd]))         # a sum over the side's V1 rows
                ub = bound[0] * wtot
                alive.append(not lb > ub + 1e-6 * max(1.0, ub, wtot))
            want = np.zeros((2, upos.shape[0]), np.bool_)
            for (ti, k, lossL, lossR), keep in zip(cuts, alive):
                if keep:
                    for sd, vec in ((0, lossL), (1, lossR)):
                        if np.isnan(vec).any():
                            want[sd, k] = True
            fit_sides(want)
            out = []
            for (ti, k, lossL, lossR), keep in zip(cuts, alive):
                if not keep:
                    continue
                iL, iR = _first_min(lossL), _first_min(lossR)
                joint = (lossL[iL] + lossR[iR]) / wtot
                bound[0] = min(bound[0], float(joint))
                out.append((float(joint), f, float(ts[ti]), spec(iL, everyone),
                            spec(iR, everyone)))
            self.bound_stats[0] += len(cuts)
            self.bound_stats[1] += len(cuts) - sum(alive)
            return out

        everyone = list(range(self.m))
        costly = [a for a in everyone if a not in self.cheap]
        features = list(range(d)) if self.features is None else list(self.features)
        if self.screen is None and costly and self.bounded and self.loss.additive:
            # the exact search, bounded (see :meth:`_best_split`'s notes and ``bounded``)
            pres = dict(zip(features, _parallel_map(cheap_pass, features, self.n_jobs)))
            pres = {f: p for f, p in pres.items() if p is not None}
            if not pres:
                return None
            bound = [min(p[5] for p in pres.values())]
            # promising features first (the bound tightens early); results in feature order
            feats = sorted(pres, key=lambda f: (pres[f][5], f))
            by_f = dict(zip(feats, _parallel_map(lambda f: bounded(f, pres[f]), feats,
                                                 self.n_jobs)))
            results = [by_f[f] for f in sorted(by_f)]
        elif self.screen is None or len(self.cheap) == self.m:
            results = _parallel_map(lambda f: evaluate(f, everyone), features, self.n_jobs)
        else:
            # screening (documented deviation): rank every candidate split with
            # the cheap learners and the inherited predictors, then search the
            # ``screen`` best ones exactly with every learner
            first = _parallel_map(lambda f: evaluate(f, self.cheap), features, self.n_jobs)
            pre = [c for r in first for c in r]
            if not pre:
                return None
            rank = np.argsort(np.array([c[0] for c in pre]), kind="stable")[:self.screen]
            chosen = {}
            for i in sorted(rank):
                chosen.setdefault(pre[i][1], []).append(pre[i][2])
            feats = sorted(chosen)
            results = _parallel_map(lambda f: evaluate(f, everyone, np.array(chosen[f])), feats,
                                    self.n_jobs)
        cands = [c for r in results for c in r]
        if not cands:
            return None
        j = _first_min([c[0] for c in cands])
        joint, f, t, sL, sR = cands[j]
        return f, t, joint, sL, sR

    def _joint_matrix(self, yv, ov, wv, mL, SL, SR):
        """The loss of every pair (left candidate, right candidate) on the joint V1 rows."""
        if self.loss.name == "auc":
            wl = None if wv is None else wv[mL]
            wr = None if wv is None else wv[~mL]
            J = _auc_pairs(*_sorted_by_class(SL[:, :, 1], yv[mL], wl),
                           *_sorted_by_class(SR[:, :, 1], yv[~mL], wr))
            # a candidate with NaN scores (a learner that could not be fitted on
            # its side) never wins: its pairs are NaN (see _first_min)
            J[np.isnan(SL).any(axis=(1, 2))] = np.nan
            J[:, np.isnan(SR).any(axis=(1, 2))] = np.nan
            return J
        J = np.empty((SL.shape[0], SR.shape[0]))
        S = np.empty((yv.shape[0], SL.shape[2]))
        for i in range(SL.shape[0]):
            S[mL] = SL[i]
            for j in range(SR.shape[0]):
                S[~mL] = SR[j]
                J[i, j] = self.loss(yv, S, ov, wv)
        return J


_QS = np.arange(10, 100, 10) / 100.0


def _sorted_percentiles(xs, ws=None):
    """``numpy.percentile(xs, [10, ..., 90])`` (method "linear") of sorted ``xs``,
    with numpy's own interpolation formula.  Weighted (``ws``, in the order of
    ``xs``): the same formula on the virtual array in which row i fills the
    positions ``[W_{i-1}, W_i)`` of the cumulative weights, so an integer weight
    gives exactly the percentiles of the data with the row repeated that many
    times (a zero weight drops it)."""
    if ws is None:
        n = xs.shape[0]
        virt = _QS * (n - 1)
        lo = np.floor(virt).astype(np.int64)
        hi = np.minimum(lo + 1, n - 1)
        g = virt - lo
        a, b = xs[lo], xs[hi]
    else:
        cw = np.cumsum(ws)
        W = cw[-1]
        virt = _QS * max(W - 1.0, 0.0)
        lo = np.floor(virt)
        hi = np.minimum(lo + 1, max(np.ceil(W) - 1.0, 0.0))
        g = virt - lo
        last = xs.shape[0] - 1
        a = xs[np.minimum(np.searchsorted(cw, lo, side="right"), last)]
        b = xs[np.minimum(np.searchsorted(cw, hi, side="right"), last)]
    diff = b - a
    out = a + diff * g
    upper = g >= 0.5
    out[upper] = (b - diff * (1 - g))[upper]
    return out


def _single_threaded_blas():
    """BLAS (numpy's and scipy's OpenBLAS, which numba's ``np.dot`` calls) runs
    one thread during the growth: the node models' matrices are small, and
    OpenBLAS's spinning worker threads slow every call by one to two orders of
    magnitude on a loaded machine (measured: a 4,366 x 87 Gram matrix 0.29 s
    with the default threads vs 0.005 s with one, load 8 on 2 cores).
    Parallelism comes from ``n_jobs`` (features in joblib threads; the kernels
    release the GIL)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


@contextlib.contextmanager
def _single_threaded_numba():
    """numba's parallel kernels (tree traversal in the learners' predictions,
    histograms, binning) use one thread in the calling thread while the tree of
    predictors grows: the predictions and fits ToPs runs are small and many, and
    numba's worker threads cost CPU time without shortening them on a busy
    machine.  Parallelism comes from ``n_jobs`` (each joblib thread sets its own
    count: numba's thread count is per thread)."""
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _first_min(values):
    """Index of the first value within the tie tolerance of the minimum (NaN,
    e.g. from a user loss, never wins; all NaN: index 0)."""
    v = np.asarray(values, dtype=np.float64)
    v = np.where(np.isnan(v), np.inf, v)
    m = float(v.min())
    if not np.isfinite(m):
        return 0
    return int(np.flatnonzero(v <= m + _tol(m))[0])


def _parallel_map(fn, items, n_jobs):
    items = list(items)
    if n_jobs is None or n_jobs == 1 or len(items) < 2:
        return [fn(i) for i in items]
    from joblib import Parallel, delayed

    def one(i):
        with _single_threaded_numba():
            return fn(i)
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(one)(i) for i in items)


# ============================================================================ estimators
class ToPsClassifier(ClassifierMixin, _BaseToPs):
    """Trees of Predictors for classification (Yoon, Zame & van der Schaar, Section III).

    Parameters
    ----------
    base_learners : list, default=None
        Node models (:mod:`treelab.node_models`), scikit-learn-compatible
        estimators (wrapped in :class:`~treelab.node_models.EstimatorModel`;
        a regressor fits the class indicators) or the names "constant",
        "linear", "logistic".  ``None``: ``[LinearModel()]`` (ToPs/LR).
    loss : str or callable, default=None
        "error_rate" (default), "log_loss", "squared_error" (Brier), "auc"
        (1 - AUC, binary), or ``loss(y_true, scores) -> float``.
    validation_fraction : (float, float), default=(0.15, 0.10)
        Fractions of V1 and V2 (the paper's 75 / 15 / 10 % split).
    max_depth : int or None
        Optional bound on the depth (None: the paper's rule alone).
    min_samples_leaf : int, default=1
        Training rows each side of a split must hold.
    screen_candidates : int or None, default=None
        None: the exact search of Section III-A (every learner on both sides
        of every candidate split).  An int k: a documented shortcut for
        costly learners (ensembles): every candidate split is first ranked
        by its joint V1 loss with the inherited predictors and the learners
        that have a sufficient-statistics cut path (constant, linear); only
        the k best splits are then searched exactly with every learner.
        Equal to the exact search when every learner is cheap.
    n_jobs : int or None
        joblib threads evaluating the features of a node in parallel.
        During ``fit`` BLAS and numba use one thread in every thread that
        grows the tree (numba's thread count is per calling thread, and it
        is restored afterwards): parallelism comes from ``n_jobs`` alone.
        Calling ``fit`` of several ToPs models from threads of your own
        therefore also gives each of them one numba thread.
    verbose : int
        A tqdm progress bar over nodes when > 0.
    random_state : int, RandomState or None
        Seeds the split into T / V1 / V2 and base learners whose
        ``random_state`` is None.

    Attributes
    ----------
    nodes_ : list of ToPsNode
        The tree's nodes.
    predictors_ : dict
        ``(learner, training node) -> fitted model``.
    base_learners_ : list
        The base learners as node models.
    classes_ : ndarray
        The class labels.
    sets_ : ndarray
        0 / 1 / 2 per training sample: training set T, validation sets V1, V2.
    """

    _task = CLASSIFICATION

    def decision_scores(self, X):
        """The weighted path scores (Section III-C), shape (n, n_classes)."""
        return self._scores(X)

    def predict_proba(self, X):
        """Class probabilities: the path scores clipped at 0 and renormalised."""
        return scores_to_proba(self._scores(X))

    def predict(self, X):
        """The class with the largest weighted path score."""
        S = self._scores(X)
        return self.classes_[np.argmax(S, axis=1)]


class ToPsRegressor(RegressorMixin, _BaseToPs):
    """Trees of Predictors for regression (Section III); parameters as
    :class:`ToPsClassifier` with ``loss`` "squared_error" (default),
    "absolute_error" or ``loss(y_true, y_pred) -> float``."""

    _task = REGRESSION

    def predict(self, X):
        """Weighted sum of the predictions along each sample's path (Section III-C)."""
        return self._scores(X)[:, 0]


# ============================================================================ export
def _learner_name(est, a):
    return est.base_learners_[a]._describe()


def export_tops_text(est, *, feature_names=None, decimals=4, spacing=3):
    """Indented text of a fitted ToPs tree: at each node the learner, the node
    whose training set trained it (``^k``: k levels up, as the up-arrows of the
    paper's Figs. 4-5), the V1 loss, the split's V1 loss improvement, and at
    terminal nodes the path weights (root first)."""
    check_is_fitted(est, "nodes_")
    names = feature_names if feature_names is not None else est.feature_names_expanded_
    nodes = est.nodes_
    bar = "|" + " " * spacing
    lines = []

    def desc(nd):
        up = nd.depth - nodes[nd.source].depth
        txt = (f"[node {nd.id}] {_learner_name(est, nd.learner)}"
               f"{' ' + '^' * up if up else ''} (trained on node {nd.source}), "
               f"V1 loss {nd.loss:.{decimals}f}, n_train={nd.n_train}")
        if not nd.is_leaf:
            txt += f", split improvement {nd.improvement:.{decimals}f}"
        else:
            txt += ", weights [" + ", ".join(f"{w:.{decimals}f}" for w in nd.weights) + "]"
        return txt

    def rec(u, depth):
        nd = nodes[u]
        lines.append(bar * depth + desc(nd))
        if nd.is_leaf:
            return
        nm = names[nd.feature]
        thr = f"{nd.threshold:.{decimals}f}"
        lines.append(bar * depth + f"|--- {nm} <= {thr}")
        rec(nd.left, depth + 1)
        lines.append(bar * depth + f"|--- {nm} >  {thr}")
        rec(nd.right, depth + 1)

    rec(0, 0)
    return "\n".join(lines) + "\n"

