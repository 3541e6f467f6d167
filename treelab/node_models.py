"""Node models: the predictors that model trees and Trees of Predictors put in their nodes.

One protocol for every model (DESIGN.md, "Node models"):

* ``fit(X, y, sample_weight=None)`` on the rows of a node, ``predict(X)``,
  and ``predict_proba(X)`` for classifiers (public, scikit-learn style);
* internally ``_fit_task(X, y, w, task, n_classes)`` with ``y`` the class codes
  ``0..n_classes-1`` (``task="classification"``) or the targets (``"regression"``),
  and ``_scores(X)`` -> an ``(n, n_classes)`` score matrix (``(n, 1)`` for
  regression).  A classifier's scores are its class probabilities; a linear
  model's are the least-squares fit of the one-hot targets (a *linear probability
  model*, the paper's "Linear Regression" base learner used on a classification
  task, Yoon, Zame & van der Schaar, Section V), so they sum to one but may leave
  [0, 1]; :func:`scores_to_proba` clips and renormalises them;
* ``_fit_cuts(X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None)``: the
  models of both sides of every cut of one feature (rows ``order[:p]`` left,
  ``order[p:]`` right for each ``p`` in ``cut_pos``); ``sides``, a
  ``(2, len(cut_pos))`` boolean array, asks for some sides only (the others
  may come back as None: ToPs's bounded search skips a side that cannot win).  The default refits from scratch; the
  *sufficient-statistics path* of :class:`ConstantModel` and
  :class:`LinearModel` accumulates per-block statistics (weights and class sums;
  ``X'WX`` and ``X'WY``) along the sorted cuts and solves each side from the
  cumulative sums (right = total - left), and :class:`LogisticModel` warm-starts
  Newton's method from the previous cut's solution (a logistic fit has no
  additive sufficient statistics).

Models
------
* :class:`ConstantModel`: the weighted mean (regression) / class proportions.
* :class:`LinearModel`: ridge least squares with an unpenalised intercept,
  ``min ||W^(1/2)(y - Xb - c)||^2 + alpha ||b||^2``, solved from the normal
  equations ``(X_a' W X_a + alpha J) beta = X_a' W y`` (``X_a = [X, 1]``,
  ``J = diag(1, ..., 1, 0)``), the same solution as ``sklearn.linear_model.Ridge``.
* :class:`LogisticModel`: L2-regularised logistic regression,
  ``min 1/2 ||b||^2 + C sum_i w_i [log(1 + e^{z_i}) - y_i z_i]`` with
  ``z = Xb + c`` (scikit-learn's ``LogisticRegression(C=C)`` objective), by
  Newton's method (IRLS) with step halving; more than two classes are fitted
  one-vs-rest and the probabilities normalised (as ``OneVsRestClassifier``).
* :class:`EstimatorModel`: any scikit-learn-compatible estimator (treelab's
  or scikit-learn's), cloned per fit.  A regressor used on a classification
  task fits the class indicators (one regressor for two classes, one per
  class otherwise), as a linear probability model.

A node whose rows hold a single class gets a constant predictor of that class
from every classifier model (a logistic fit would diverge, scikit-learn's
refuses).
"""
from __future__ import annotations

import copy

import numpy as np

from ._engine.binning import BIN_SUBSAMPLE
from ._engine.jit import njit
from ._params import check_int, check_real
from ._sklearn_compat import BaseEstimator, check_is_fitted
from .data import (
    check_classification_targets, check_regression_targets, check_sample_weight, encode_X,
    fit_encode_X,
)

__all__ = ["NodeModel", "ConstantModel", "LinearModel", "LogisticModel", "EstimatorModel",
           "as_node_model", "scores_to_proba"]

CLASSIFICATION = "classification"
REGRESSION = "regression"


# ============================================================================ kernels
@njit(cache=True, nogil=True)
def _gram(X, Y, w):
    """``G = X_a' W X_a`` and ``C = X_a' W Y`` with ``X_a = [X, 1]`` (intercept last)."""
    n, d = X.shape
    k = Y.shape[1]
    G = np.zeros((d + 1, d + 1))
    C = np.zeros((d + 1, k))
    Xa = np.empty((n, d + 1))
    Xw = np.empty((n, d + 1))
    for i in range(n):
        for j in range(d):
            Xa[i, j] = X[i, j]
            Xw[i, j] = X[i, j] * w[i]
        Xa[i, d] = 1.0
        Xw[i, d] = w[i]
    if n > 0:
        G[:, :] = np.dot(Xw.T.copy(), Xa)
        C[:, :] = np.dot(Xw.T.copy(), Y)
    return G, C


@njit(cache=True, nogil=True)
def _ridge_solve(G, C, alpha):
    """Solve ``(G + alpha J) beta = C`` (``J`` = identity without the intercept).
    ``G + alpha J`` is positive definite when ``alpha > 0`` and the weight sum
    ``G[-1, -1] > 0``; otherwise (or when it is singular to machine precision:
    features of very different scales) the minimum-norm least-squares solution."""
    p = G.shape[0]
    A = G.copy()
    for j in range(p - 1):
        A[j, j] += alpha
    if alpha > 0.0 and G[p - 1, p - 1] > 0.0:
        try:
            return np.linalg.solve(A, C)
        except Exception:  # noqa: BLE001 - numba: singular to machine precision
            pass
    return np.linalg.lstsq(A, C)[0]


def _check_finite_gram(G, C):
    if not (np.isfinite(G).all() and np.isfinite(C).all()):
        raise ValueError("X (or y) is too large for a linear node model: the sums of squares "
                         "overflow float64; rescale the features (and targets)")


@njit(cache=True, nogil=True)
def _chol_solve(A, C):
    """Solve ``A x = C`` for a symmetric positive definite ``A`` by Cholesky
    (LAPACK ``potrf``, half the work of LU, then two triangular solves);
    ``ok`` is False when ``A`` is not numerically positive definite (the
    caller then falls back to :func:`_ridge_solve`)."""
    p = A.shape[0]
    k = C.shape[1]
    try:
        L = np.linalg.cholesky(A)
    except Exception:  # noqa: BLE001 - numba: not positive definite
        return np.zeros((p, k)), False
    x = C.copy()
    for c in range(k):
        for i in range(p):                    # L z = C
            t = x[i, c]
            for q in range(i):
                t -= L[i, q] * x[q, c]
            x[i, c] = t / L[i, i]
        for i in range(p - 1, -1, -1):        # L' x = z
            t = x[i, c]
            for q in range(i + 1, p):
                t -= L[q, i] * x[q, c]
            x[i, c] = t / L[i, i]
    return x, True


@njit(cache=True, nogil=True)
def _ridge_solve_fast(G, C, alpha):
    """:func:`_ridge_solve` by Cholesky when ``G + alpha J`` is positive definite."""
    p = G.shape[0]
    if alpha > 0.0 and G[p - 1, p - 1] > 0.0:
        A = G.copy()
        for j in range(p - 1):
            A[j, j] += alpha
        x, ok = _chol_solve(A, C)
        if ok:
            return x
    return _ridge_solve(G, C, alpha)


@njit(cache=True, nogil=True)
def _block_grams(X, Y, w, order, bounds):
    """Statistics ``(G_b, C_b)`` of the rows ``order[bounds[b]:bounds[b+1]]`` for each block b."""
    nb = bounds.shape[0] - 1
    d = X.shape[1]
    k = Y.shape[1]
    Gs = np.zeros((nb, d + 1, d + 1))
    Cs = np.zeros((nb, d + 1, k))
    for b in range(nb):
        rows = order[bounds[b]:bounds[b + 1]]
        m = rows.shape[0]
        Xb = np.empty((m, d))
        Yb = np.empty((m, k))
        wb = np.empty(m)
        for i in range(m):
            r = rows[i]
            Xb[i, :] = X[r, :]
            Yb[i, :] = Y[r, :]
            wb[i] = w[r]
        G, C = _gram(Xb, Yb, wb)
        Gs[b] = G
        Cs[b] = C
    return Gs, Cs


@njit(cache=True, nogil=True)
def _ridge_cut_path(GsL, CsL, GsR, CsR, Gt, Ct, alpha, needL, needR):
    """Left / right ridge coefficients at each cut from the statistics of the
    row blocks between consecutive cuts and the node's totals ``(Gt, Ct)``.

    ``GsL[c]`` (c = 0..a): rows between cut c-1 and cut c (cut -1 = the first
    row); accumulated from the left they give the left side of cuts 0..a.
    ``GsR[j]``: rows between cut b+j and cut b+j+1 (the last block ends at the
    last row), ``b = nc - len(GsR)``; accumulated from the right they give the
    right side of cuts b..nc-1.  The other side of a cut is total minus the
    accumulated one.  Only the sides flagged in ``needL`` / ``needR`` are
    solved (the others stay zero: the caller fits them another way)."""
    nc = needL.shape[0]
    p = Gt.shape[0]
    k = Ct.shape[1]
    a = GsL.shape[0] - 1
    b = nc - GsR.shape[0]
    left = np.zeros((nc, p, k))
    right = np.zeros((nc, p, k))
    done = np.zeros(nc, dtype=np.bool_)
    GA = np.zeros((p, p))
    CA = np.zeros((p, k))
    for c in range(a + 1):
        GA += GsL[c]
        CA += CsL[c]
        if needL[c]:
            left[c] = _ridge_solve_fast(GA, CA, alpha)
        if needR[c]:
            right[c] = _ridge_solve_fast(Gt - GA, Ct - CA, alpha)
        done[c] = True
    GA[:, :] = 0.0
    CA[:, :] = 0.0
    for c in range(nc - 1, b - 1, -1):
        GA += GsR[c - b]
        CA += CsR[c - b]
        if done[c]:
            continue
        if needR[c]:
            right[c] = _ridge_solve_fast(GA, CA, alpha)
        if needL[c]:
            left[c] = _ridge_solve_fast(Gt - GA, Ct - CA, alpha)
    return left, right


def _accumulation_range(cut_pos, n, need):
    """``(a, b)``: accumulate block statistics from the left over cuts 0..a and
    from the right over cuts b..nc-1 so that every cut flagged in ``need`` is
    covered, with the fewest rows (``cut_pos[a] + n - cut_pos[b]``)."""
    nc = cut_pos.shape[0]
    best = None
    for a in range(-1, nc):
        for b in range(a + 1, nc + 1):
            if any(need[c] for c in range(a + 1, b)):
                continue
            cost = (cut_pos[a] if a >= 0 else 0) + (n - cut_pos[b] if b < nc else 0)
            if best is None or cost < best[0]:
                best = (cost, a, b)
    return best[1], best[2]


@njit(cache=True, nogil=True)
def _dual_ridge(K, X, Y, w, rows, alpha):
    """Ridge with an unpenalised intercept on ``rows`` through the dual (kernel)
    system: with ``X~``, ``y~`` centred by the weighted means and
    ``Z = W^(1/2) X~``, ``b = Z' (Z Z' + alpha I)^(-1) W^(1/2) y~`` (the
    push-through identity, the same ``b`` as the normal equations) and
    ``c = ybar - xbar' b``.  ``Z Z'`` is the doubly centred block of the node's
    kernel ``K = X X'``: an ``m x m`` Cholesky instead of ``(d+1) x (d+1)``,
    cheaper when the side holds fewer rows than features.  Needs ``alpha > 0``;
    ``ok`` False when the weights sum to zero or the system is not numerically
    positive definite (the caller then uses the primal solve)."""
    m = rows.shape[0]
    d = X.shape[1]
    k = Y.shape[1]
    beta = np.zeros((d + 1, k))
    W = 0.0
    for i in range(m):
        W += w[rows[i]]
    if not (W > 0.0 and alpha > 0.0):
        return beta, False
    kw = np.zeros(m)
    for i in range(m):
        ri = rows[i]
        t = 0.0
        for j in range(m):
            t += K[ri, rows[j]] * w[rows[j]]
        kw[i] = t / W
    s = 0.0
    for i in range(m):
        s += w[rows[i]] * kw[i]
    s /= W
    sq = np.empty(m)
    for i in range(m):
        sq[i] = np.sqrt(w[rows[i]])
    M = np.empty((m, m))
    for i in range(m):
        ri = rows[i]
        for j in range(m):
            M[i, j] = sq[i] * sq[j] * (K[ri, rows[j]] - kw[i] - kw[j] + s)
        M[i, i] += alpha
    ybar = np.zeros(k)
    xbar = np.zeros(d)
    for i in range(m):
        ri = rows[i]
        for c in range(k):
            ybar[c] += w[ri] * Y[ri, c]
        for j in range(d):
            xbar[j] += w[ri] * X[ri, j]
    ybar /= W
    xbar /= W
    R = np.empty((m, k))
    for i in range(m):
        for c in range(k):
            R[i, c] = sq[i] * (Y[rows[i], c] - ybar[c])
    A, ok = _chol_solve(M, R)
    if not ok:
        return beta, False
    for c in range(k):
        su = 0.0
        for i in range(m):
            u = sq[i] * A[i, c]
            su += u
            ri = rows[i]
            for j in range(d):
                beta[j, c] += u * X[ri, j]
        icpt = ybar[c]
        for j in range(d):
            beta[j, c] -= xbar[j] * su
            icpt -= xbar[j] * beta[j, c]
        beta[d, c] = icpt
    return beta, True


@njit(cache=True, nogil=True)
def _dual_cut_sides(K, X, Y, w, order, cut_pos, alpha, dualL, dualR, left, right):
    """Fill ``left[c]`` / ``right[c]`` by :func:`_dual_ridge` for the flagged
    sides (left = ``order[:cut_pos[c]]``); returns the flags of the sides whose
    dual system failed (to be solved in the primal)."""
    nc = cut_pos.shape[0]
    failL = np.zeros(nc, dtype=np.bool_)
    failR = np.zeros(nc, dtype=np.bool_)
    for c in range(nc):
        if dualL[c]:
            beta, ok = _dual_ridge(K, X, Y, w, order[:cut_pos[c]], alpha)
            left[c] = beta
            failL[c] = not ok
        if dualR[c]:
            beta, ok = _dual_ridge(K, X, Y, w, order[cut_pos[c]:], alpha)
            right[c] = beta
            failR[c] = not ok
    return failL, failR


# the dual (kernel) solve serves sides with fewer rows than features, in at
# least this many dimensions, when the node's kernel matrix has at most
# _DUAL_MAX_KERNEL entries (128 MB)
_DUAL_MIN_FEATURES = 32
_DUAL_MAX_KERNEL = 16_000_000


@njit(cache=True)
def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


@njit(cache=True, nogil=True)
def _logistic_newton(X, y, w, C, beta0, max_iter, tol):
    """Binary L2 logistic regression by Newton's method (IRLS) with step halving.

    Minimises ``f(b, c) = 1/2 ||b||^2 + C sum_i w_i [log(1 + e^{z_i}) - y_i z_i]``,
    ``z = X b + c`` (intercept last in ``beta``, unpenalised).  Stops when the
    largest gradient component is below ``tol`` (relative to ``max(1, C sum w)``).
    Returns ``(beta, n_iter)``.
    """
    n, d = X.shape
    p = d + 1
    beta = beta0.copy()
    scale = max(1.0, C * np.sum(w))

    def objective(beta):
        f = 0.0
        for j in range(d):
            f += 0.5 * beta[j] * beta[j]
        s = 0.0
        for i in range(n):
            z = beta[d]
            for j in range(d):
                z += X[i, j] * beta[j]
            # log(1 + e^z) - y z, stably
            if z > 0:
                lz = z + np.log1p(np.exp(-z))
            else:
                lz = np.log1p(np.exp(z))
            s += w[i] * (lz - y[i] * z)
        return f + C * s

    fcur = objective(beta)
    it = 0
    for it in range(1, max_iter + 1):
        g = np.zeros(p)
        H = np.zeros((p, p))
        Xa = np.empty((n, p))
        Xh = np.empty((n, p))
        for i in range(n):
            z = beta[d]
            for j in range(d):
                z += X[i, j] * beta[j]
            pr = _sigmoid(z)
            r = C * w[i] * (pr - y[i])
            h = C * w[i] * pr * (1.0 - pr)
            for j in range(d):
                Xa[i, j] = X[i, j]
                Xh[i, j] = X[i, j] * h
                g[j] += r * X[i, j]
            Xa[i, d] = 1.0
            Xh[i, d] = h
            g[d] += r
        for j in range(d):
            g[j] += beta[j]
        if np.max(np.abs(g)) <= tol * scale:
            break
        H[:, :] = np.dot(Xh.T.copy(), Xa)
        for j in range(d):
            H[j, j] += 1.0
        H[d, d] += 1e-12 * scale
        step = np.linalg.solve(H, g)
        t = 1.0
        accepted = False
        for _ in range(50):
            cand = beta - t * step
            fnew = objective(cand)
            if fnew <= fcur + 1e-12 * abs(fcur):
                beta = cand
                fcur = fnew
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break
    return beta, it


# ============================================================================ helpers
def scores_to_proba(S):
    """Class probabilities from a score matrix: negative scores clipped to 0,
    rows renormalised to sum one (a row of zeros becomes uniform)."""
    P = np.clip(np.asarray(S, dtype=np.float64), 0.0, None)
    tot = P.sum(axis=1, keepdims=True)
    k = P.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, P / np.where(tot > 0, tot, 1.0), 1.0 / k)


def _targets_matrix(y, task, n_classes):
    """Regression: the targets as a column; classification: the indicator of
    class 1 for two classes, one-hot columns otherwise."""
    if task == REGRESSION:
        return np.ascontiguousarray(np.asarray(y, dtype=np.float64).reshape(-1, 1))
    y = np.asarray(y, dtype=np.int64)
    if n_classes == 2:
        return np.ascontiguousarray((y == 1).astype(np.float64).reshape(-1, 1))
    Y = np.zeros((y.shape[0], n_classes))
    Y[np.arange(y.shape[0]), y] = 1.0
    return Y


def _expand_scores(raw, task, n_classes):
    if task == CLASSIFICATION and n_classes == 2:
        return np.column_stack([1.0 - raw[:, 0], raw[:, 0]])
    return raw


# ============================================================================ protocol
class NodeModel(BaseEstimator):
    """Base of treelab's node models (see the module docstring for the protocol)."""

    _public_task = REGRESSION
    # True where ``_fit_cuts`` is a sufficient-statistics path (all cuts of a
    # feature for about the price of one fit): ToPs's ``screen_candidates``
    # ranks candidate splits with these learners
    _exact_cut_path = False

    # ---- public scikit-learn face
    def fit(self, X, y, sample_weight=None):
        """Fit on the rows ``(X, y)`` with optional ``sample_weight``."""
        Xf, enc = fit_encode_X(X, type(self).__name__, allow_nan=False)
        n = Xf.shape[0]
        w = check_sample_weight(sample_weight, n)
        if self._public_task == CLASSIFICATION:
            classes, codes = check_classification_targets(y, n)
            self.classes_ = classes
            self._fit_task(Xf, codes, w, CLASSIFICATION, int(classes.shape[0]))
        else:
            yr = check_regression_targets(y, n)
            self._fit_task(Xf, yr, w, REGRESSION, 1)
        self._encoding = enc
        self.n_features_in_ = Xf.shape[1]
        return self

    def _encode(self, X):
        check_is_fitted(self, "task_")
        if not hasattr(self, "_encoding"):
            return np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        return encode_X(X, self._encoding, type(self).__name__, allow_nan=False)

    def predict(self, X):
        """Regression: the predicted value; classification: the class with the
        largest score."""
        S = self._scores(self._encode(X))
        if self.task_ == REGRESSION:
            return S[:, 0]
        codes = np.argmax(S, axis=1)
        classes = getattr(self, "classes_", None)
        return codes if classes is None else classes[codes]

    def predict_proba(self, X):
        """Class probabilities (classification only)."""
        check_is_fitted(self, "task_")
        if self.task_ != CLASSIFICATION:
            raise AttributeError(f"{type(self).__name__} was fitted for regression; "
                                 "predict_proba is for classification")
        return scores_to_proba(self._scores(self._encode(X)))

    # ---- internal protocol
    def _fit_task(self, X, y, w, task, n_classes):  # pragma: no cover - abstract
        raise NotImplementedError

    def _scores(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def _fresh(self):
        """An unfitted copy with the same parameters."""
        return type(self)(**self.get_params(deep=False))

    def _fit_cuts(self, X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None):
        """Models of the left and right side of each cut (default: refit both sides,
        each on its rows in the order of ``X``, as the side's own fit sees them);
        ``sides``: see the module docstring (None where not asked for)."""
        def fit_side(s, rows):
            rows = np.sort(rows)
            return self._fresh()._fit_task(X[rows], y[rows], w[rows], task, n_classes)
        return _per_side(order, cut_pos, sides, fit_side)

    def _describe(self):
        return type(self).__name__.replace("Model", "")

    def __sklearn_is_fitted__(self):
        return hasattr(self, "task_")


def _single_class(y, w, n_classes):
    """The class code if the rows of positive weight hold a single class, else -1."""
    present = np.unique(np.asarray(y)[np.asarray(w) > 0])
    if present.shape[0] == 1:
        return int(present[0])
    return -1


def _per_side(order, cut_pos, sides, fit_side):
    """``(lefts, rights)`` of :meth:`NodeModel._fit_cuts`: ``fit_side(s, rows)`` for
    side ``s`` (0 left, 1 right) of every cut at ``cut_pos`` in ``order`` that
    ``sides`` asks for, None elsewhere; cut by cut, left before right (the
    order warm starts rely on)."""
    want = _wanted_sides(sides, len(cut_pos))
    out = ([], [])
    for k, p in enumerate(cut_pos):
        for s, rows in ((0, order[:p]), (1, order[p:])):
            out[s].append(fit_side(s, rows) if want[s, k] else None)
    return out


def _wanted_sides(sides, n_cuts):
    """``sides`` of :meth:`NodeModel._fit_cuts` as a (2, n_cuts) boolean array."""
    if sides is None:
        return np.ones((2, n_cuts), np.bool_)
    sides = np.asarray(sides, np.bool_)
    if sides.shape != (2, n_cuts):
        raise ValueError(f"sides must have shape (2, {n_cuts}), got {sides.shape}")
    return sides


def _bounds(order_len, cut_pos):
    return np.ascontiguousarray(np.concatenate([[0], np.asarray(cut_pos, np.int64),
                                                [order_len]]).astype(np.int64))


# ============================================================================ constant
class ConstantModel(NodeModel):
    """The weighted mean of the targets (regression) or the weighted class
    proportions (classification) of the node's rows; sufficient statistics:
    the weight and weighted target (class) sums."""

    _exact_cut_path = True

    def __init__(self):
        pass

    def _fit_task(self, X, y, w, task, n_classes):
        Y = _targets_matrix(y, task, n_classes)
        self._set(np.asarray(w, np.float64).sum(), w @ Y, task, n_classes)
        self.n_features_in_ = X.shape[1]
        return self

    def _set(self, wsum, ysum, task, n_classes):
        self.task_ = task
        self.n_classes_ = n_classes
        raw = ysum / wsum if wsum > 0 else np.zeros_like(ysum)
        if task == CLASSIFICATION and wsum <= 0:
            raw = np.full_like(ysum, 1.0 / n_classes)
        self.value_ = _expand_scores(np.asarray(raw, np.float64).reshape(1, -1), task, n_classes)[0]
        return self

    def _scores(self, X):
        return np.tile(self.value_, (X.shape[0], 1))

    def _fit_cuts(self, X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None):
        Y = _targets_matrix(y, task, n_classes)
        wo = w[order]
        cw = np.concatenate([[0.0], np.cumsum(wo)])
        cy = np.vstack([np.zeros((1, Y.shape[1])), np.cumsum(Y[order] * wo[:, None], axis=0)])
        lefts, rights = [], []
        for p in cut_pos:
            for side, (ws, ys) in ((lefts, (cw[p], cy[p])), (rights, (cw[-1] - cw[p], cy[-1] - cy[p]))):
                m = ConstantModel()._set(ws, ys, task, n_classes)
                m.n_features_in_ = X.shape[1]
                side.append(m)
        return lefts, rights

    def _describe(self):
        return "Constant"


# ============================================================================ linear
class LinearModel(NodeModel):
    """Ridge least squares (unpenalised intercept) from ``X'WX`` and ``X'WY``
    (jitted); ``alpha=0`` is ordinary least squares (minimum-norm solution).

    On a classification task it is the linear probability model: the fit of
    the class-1 indicator (two classes) or of each one-hot column.
    """

    _exact_cut_path = True

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def _fit_task(self, X, y, w, task, n_classes):
        alpha = check_real("alpha", self.alpha, 0)
        Y = _targets_matrix(y, task, n_classes)
        G, C = _gram(np.ascontiguousarray(X, dtype=np.float64), Y,
                     np.ascontiguousarray(w, dtype=np.float64))
        _check_finite_gram(G, C)
        return self._from_beta(_ridge_solve_fast(G, C, alpha), task, n_classes, X.shape[1])

    def sufficient_stats(self, X, y, sample_weight=None):
        """``(X_a' W X_a, X_a' W y)`` of a regression node (additive over rows)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        w = check_sample_weight(sample_weight, X.shape[0])
        return _gram(X, _targets_matrix(y, REGRESSION, 1), w)

    def fit_stats(self, G, C):
        """Fit a regression model from sufficient statistics (see :meth:`sufficient_stats`)."""
        alpha = check_real("alpha", self.alpha, 0)
        G = np.ascontiguousarray(G, dtype=np.float64)
        C = np.ascontiguousarray(C, dtype=np.float64).reshape(G.shape[0], -1)
        _check_finite_gram(G, C)
        return self._from_beta(_ridge_solve_fast(G, C, alpha), REGRESSION, 1, G.shape[0] - 1)

    def _from_beta(self, beta, task, n_classes, d):
        self.task_ = task
        self.n_classes_ = n_classes
        self.coef_ = np.ascontiguousarray(beta[:-1].T)       # (k, d)
        self.intercept_ = np.ascontiguousarray(beta[-1])     # (k,)
        self.n_features_in_ = d
        return self

    def _scores(self, X):
        raw = X @ self.coef_.T + self.intercept_
        return _expand_scores(raw, self.task_, self.n_classes_)

    def _fit_cuts(self, X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None):
        """Sufficient-statistics path (every side, whatever ``sides`` asks): the node's ``X'WX`` / ``X'WY`` (kept in
        ``cache`` across the features of a node) and the statistics of the rows
        between consecutive cuts, accumulated from the left over the first cuts
        and from the right over the last ones (whichever covers the cuts with
        the fewest rows); the other side of each cut is total minus that side.
        In high dimension (``d >= 32``, ``alpha > 0``) a side with fewer rows
        than features is solved in the dual (:func:`_dual_ridge`, from the
        node's kernel matrix ``X X'``, cached), and the block statistics are
        accumulated only over the cuts that still need the primal solve."""
        alpha = check_real("alpha", self.alpha, 0)
        X = np.ascontiguousarray(X, dtype=np.float64)
        w = np.ascontiguousarray(w, dtype=np.float64)
        Y = _targets_matrix(y, task, n_classes)
        order = np.ascontiguousarray(order, dtype=np.int64)
        key = ("linear-gram", task, n_classes)
        if cache is not None and key in cache:
            Gt, Ct = cache[key]
        else:
            Gt, Ct = _gram(X, Y, w)
            _check_finite_gram(Gt, Ct)     # bounds every part's sums (Cauchy-Schwarz)
            if cache is not None:
                cache[key] = (Gt, Ct)
        n, d = X.shape
        cut_pos = np.ascontiguousarray(np.asarray(cut_pos, np.int64))
        nc = cut_pos.shape[0]
        dual = alpha > 0 and d >= _DUAL_MIN_FEATURES and n * n <= _DUAL_MAX_KERNEL
        dualL = np.asarray(dual & (cut_pos < d), dtype=np.bool_)
        dualR = np.asarray(dual & (n - cut_pos < d), dtype=np.bool_)
        left = right = None
        if dualL.any() or dualR.any():
            kkey = ("linear-kernel",)
            K = cache.get(kkey) if cache is not None else None
            if K is None:
                K = np.ascontiguousarray(X @ X.T)
                if cache is not None:
                    cache[kkey] = K
            left = np.zeros((nc, d + 1, Y.shape[1]))
            right = np.zeros((nc, d + 1, Y.shape[1]))
            failL, failR = _dual_cut_sides(K, X, Y, w, order, cut_pos, alpha, dualL, dualR,
                                           left, right)
            dualL &= ~failL
            dualR &= ~failR
        needL, needR = ~dualL, ~dualR
        if needL.any() or needR.any():
            a, b = _accumulation_range(cut_pos, n, needL | needR)
            boundsL = np.concatenate([[0], cut_pos[:a + 1]]).astype(np.int64)
            boundsR = np.concatenate([cut_pos[b:], [n]]).astype(np.int64)
            GsL, CsL = _block_grams(X, Y, w, order, boundsL)
            GsR, CsR = _block_grams(X, Y, w, order, boundsR)
            pl, pr = _ridge_cut_path(GsL, CsL, GsR, CsR, Gt, Ct, alpha, needL, needR)
            if left is None:
                left, right = pl, pr
            else:
                left[needL] = pl[needL]
                right[needR] = pr[needR]
        lefts = [LinearModel(self.alpha)._from_beta(left[c], task, n_classes, d)
                 for c in range(nc)]
        rights = [LinearModel(self.alpha)._from_beta(right[c], task, n_classes, d)
                  for c in range(nc)]
        return lefts, rights

    def _describe(self):
        return "Linear"


# ============================================================================ logistic
class LogisticModel(NodeModel):
    """L2-regularised logistic regression by Newton's method / IRLS (jitted),
    scikit-learn's ``LogisticRegression(C=C)`` objective; one-vs-rest beyond two classes."""

    _public_task = CLASSIFICATION

    def __init__(self, C=1.0, max_iter=100, tol=1e-8):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    def _check(self):
        C = check_real("C", self.C, 0, lo_open=True)
        max_iter = check_int("max_iter", self.max_iter, 1)
        tol = check_real("tol", self.tol, 0, lo_open=True)
        return C, max_iter, tol

    def _fit_task(self, X, y, w, task, n_classes, beta0=None):
        if task != CLASSIFICATION:
            raise ValueError("LogisticModel is a classifier; use LinearModel for regression")
        C, max_iter, tol = self._check()
        X = np.ascontiguousarray(X, dtype=np.float64)
        w = np.ascontiguousarray(w, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        d = X.shape[1]
        n_models = 1 if n_classes == 2 else n_classes
        betas = np.zeros((n_models, d + 1))
        self.n_iter_ = np.zeros(n_models, dtype=np.int64)
        for k in range(n_models):
            target = 1 if n_classes == 2 else k
            yk = np.ascontiguousarray((y == target).astype(np.float64))
            pos = float(w[yk > 0].sum())
            neg = float(w[yk == 0].sum())
            if pos <= 0 or neg <= 0:     # one class: the constant prediction, not a divergent fit
                betas[k, -1] = 40.0 if pos > 0 else -40.0
                continue
            start = np.zeros(d + 1) if beta0 is None else np.ascontiguousarray(beta0[k])
            betas[k], self.n_iter_[k] = _logistic_newton(X, yk, w, C, start, max_iter, tol)
        self.task_ = task
        self.n_classes_ = n_classes
        self.coef_ = betas[:, :-1].copy()
        self.intercept_ = betas[:, -1].copy()
        self.n_features_in_ = d
        return self

    def _beta(self):
        return np.column_stack([self.coef_, self.intercept_])

    def _scores(self, X):
        z = X @ self.coef_.T + self.intercept_
        p = np.where(z >= 0, 1.0 / (1.0 + np.exp(-np.abs(z))),
                     np.exp(-np.abs(z)) / (1.0 + np.exp(-np.abs(z))))
        if self.n_classes_ == 2:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        tot = p.sum(axis=1, keepdims=True)
        return p / np.where(tot > 0, tot, 1.0)

    def _fit_cuts(self, X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None):
        """Warm starts along the sorted cuts: each side starts Newton's method from
        the previous fitted cut's solution of the same side (the converged optimum
        does not depend on the start; only the number of iterations does);
        ``sides``: only these sides (None elsewhere)."""
        # the first cut of each side starts from the node's own fit (cached across
        # the features of a node), later cuts from the previous cut's solution
        key = ("logistic-node-beta", task, n_classes)
        if cache is not None and key in cache:
            node_beta = cache[key]
        else:
            node_beta = _warm(LogisticModel(self.C, self.max_iter, self.tol)._fit_task(
                X, y, w, task, n_classes))
            if cache is not None:
                cache[key] = node_beta
        prev = [node_beta, node_beta]

        def fit_side(s, rows):
            m = LogisticModel(self.C, self.max_iter, self.tol)._fit_task(
                X[rows], y[rows], w[rows], task, n_classes, beta0=prev[s])
            prev[s] = _warm(m)
            return m
        return _per_side(order, cut_pos, sides, fit_side)

    def _describe(self):
        return "Logistic"


def _warm(model):
    beta = model._beta()
    # a one-class side has an artificial +-40 intercept: not a useful start
    return np.where(np.abs(beta) >= 40.0, 0.0, beta)


# ============================================================================ estimator
class EstimatorModel(NodeModel):
    """Any scikit-learn-compatible estimator as a node model (cloned at every fit).

    A classifier maps its ``predict_proba`` columns onto the task's classes
    (absent classes get probability 0); a regressor on a classification task
    fits the class indicators (linear probability model).  ``sample_weight``
    is passed on when it is not all ones.

    ``on_error``: "raise" (default) lets the estimator's ``ValueError`` through;
    "nan" makes a model whose fit raised one (e.g. AdaBoost's "worse than
    random" first stump on a small, evenly weighted side) predict NaN, which
    ToPs never selects (its loss is NaN; ToPs's own learners use this).
    """

    def __init__(self, estimator=None, on_error="raise"):
        self.estimator = estimator
        self.on_error = on_error

    @property
    def _public_task(self):
        return CLASSIFICATION if _is_classifier(self.estimator) else REGRESSION

    def _clone(self):
        try:
            from sklearn.base import clone
            return clone(self.estimator)
        except ImportError:  # pragma: no cover
            return copy.deepcopy(self.estimator)

    def _fit_task(self, X, y, w, task, n_classes, data=None):
        """Fit (a clone of) the estimator on ``(X, y, w)``; ``data``: ``X`` already
        binned / presorted for an estimator with ``_fit_prepared`` (see
        :meth:`_fit_cuts`)."""
        if self.estimator is None or not hasattr(self.estimator, "fit"):
            raise TypeError(f"EstimatorModel needs an estimator with fit/predict, got "
                            f"{self.estimator!r}")
        if self.on_error not in ("raise", "nan"):
            raise ValueError(f"on_error must be 'raise' or 'nan', got {self.on_error!r}")
        if self.on_error == "raise":
            return self._fit_estimators(X, y, w, task, n_classes, data)
        try:
            return self._fit_estimators(X, y, w, task, n_classes, data)
        except ValueError:
            self._const = np.full(n_classes if task == CLASSIFICATION else 1, np.nan)
            self.estimators_ = []
            return self

    def _fit_estimators(self, X, y, w, task, n_classes, data):
        self.task_ = task
        self.n_classes_ = n_classes
        self.n_features_in_ = X.shape[1]
        self._const = None
        kw = {} if np.all(w == 1.0) else {"sample_weight": w}
        if task == CLASSIFICATION and _is_classifier(self.estimator):
            one = _single_class(y, w, n_classes)
            if one >= 0:
                v = np.zeros(n_classes)
                v[one] = 1.0
                self._const = v
                return self
            est = self._clone()
            _fit_estimator(est, X, y, kw, data)
            self.estimators_ = [est]
            self._cols = np.searchsorted(np.arange(n_classes), np.asarray(est.classes_))
            return self
        Y = _targets_matrix(y, task, n_classes)
        self.estimators_ = []
        for k in range(Y.shape[1]):
            est = self._clone()
            _fit_estimator(est, X, Y[:, k], kw, data)
            self.estimators_.append(est)
        return self

    def _fit_cuts(self, X, y, w, task, n_classes, order, cut_pos, cache=None, sides=None):
        """Both sides of every cut (``sides``: only these, None elsewhere).  A treelab ensemble that grows treelab trees on
        binned or presorted data (``_prepared_layout`` / ``_fit_prepared``:
        AdaBoost with tree members, gradient boosting) gets each side's data
        derived from the node's, prepared once (:func:`_side_data`), instead of
        binning / presorting every side again: the same bins and the same
        presort, so the same model as a fit on the side's rows (presort: up to
        the order of tied values, i.e. of floating-point additions).  Other
        estimators: the default refit."""
        layout = _prepared_layout(self.estimator)
        # (above BIN_SUBSAMPLE rows quantile edges come from a subsample: such nodes
        # bin each side as usual)
        if layout is None or X.shape[0] > BIN_SUBSAMPLE or not np.all(w > 0):
            return super()._fit_cuts(X, y, w, task, n_classes, order, cut_pos, cache, sides)
        use_hist, max_bins = layout
        key = ("prepared-node", use_hist)
        node = None if cache is None else cache.get(key)
        if node is None:
            node = _prepare_node(X, use_hist)
            if cache is not None:
                cache[key] = node
        def fit_side(s, rows):
            rows = np.sort(rows)
            data = _side_data(node, X, rows, use_hist, max_bins)
            return self._fresh()._fit_task(data.X, y[rows], w[rows], task, n_classes, data=data)
        return _per_side(order, cut_pos, sides, fit_side)

    def _scores(self, X):
        n = X.shape[0]
        if self._const is not None:
            return np.tile(self._const, (n, 1))
        if self.task_ == CLASSIFICATION and _is_classifier(self.estimator):
            S = np.zeros((n, self.n_classes_))
            if n:                      # estimators reject 0 rows (a leaf without V2 rows)
                S[:, self._cols] = self.estimators_[0].predict_proba(X)
            return S
        if n == 0:
            return _expand_scores(np.zeros((0, len(self.estimators_))), self.task_,
                                  self.n_classes_)
        raw = np.column_stack([np.asarray(e.predict(X), np.float64).reshape(n) for e in self.estimators_])
        return _expand_scores(raw, self.task_, self.n_classes_)

    def _describe(self):
        return type(self.estimator).__name__


def _fit_estimator(est, X, y, kw, data):
    if data is None:
        est.fit(X, y, **kw)
    else:
        est._fit_prepared(X, y, kw.get("sample_weight"), data)


def _prepared_layout(est):
    """``(use_hist, max_bins)`` when ``est`` can fit on prepared data, else None."""
    fn = getattr(est, "_prepared_layout", None)
    if fn is None or not hasattr(est, "_fit_prepared"):
        return None
    try:
        return fn()
    except Exception:  # noqa: BLE001 - bad parameters: the plain fit reports them
        return None




def _prepare_node(X, use_hist):
    """What every side of a node's cuts derives its data from: the presort of the
    node's rows (exact splitter), or each feature's distinct values and every
    row's index among them, numbered across features (hist)."""
    from ._engine.binning import presort
    n, d = X.shape
    if not use_hist:
        return presort(X, np.zeros(d, np.bool_))
    gid = np.empty((n, d), np.int64)
    uniq = []
    start = 0
    for f in range(d):
        u, inv = np.unique(X[:, f], return_inverse=True)
        gid[:, f] = start + inv.reshape(-1)
        uniq.append(u)
        start += u.shape[0]
    starts = np.concatenate(([0], np.cumsum([u.shape[0] for u in uniq]))).astype(np.int64)
    return gid, np.concatenate(uniq), starts


def _side_data(node, X, rows, use_hist, max_bins):
    """``bin_data(X[rows], ...)`` (numeric features) from the node's
    :func:`_prepare_node`: hist: a side with at most ``max_bins`` distinct values
    of every feature has one bin per value with edges at the midpoints of
    consecutive values (the formula of :func:`~treelab._engine.binning.quantile_bin_edges`),
    so its codes are the ranks of its values among the side's distinct values,
    read off the node's distinct values (other sides are binned as usual);
    presort: the node's per-feature order restricted to the rows."""
    from ._engine.binning import BinnedData, bin_data, midpoint_edges
    Xs = np.ascontiguousarray(X[rows], dtype=np.float64)
    n, d = Xs.shape
    is_nom = np.zeros(d, np.bool_)
    n_cats = np.zeros(d, np.int64)
    if not use_hist:
        order, vals = node
        N = order.shape[1]
        keep = np.zeros(N, np.bool_)
        keep[rows] = True
        local = np.cumsum(keep) - 1
        m = keep[order]
        return BinnedData(Xs, np.zeros((0, d), np.uint8),
                          np.ascontiguousarray(local[order[m]].reshape(d, n)),
                          np.ascontiguousarray(vals[m].reshape(d, n)), is_nom, n_cats,
                          np.zeros(0), np.zeros(d + 1, np.int64), False, 0, 1)
    gid, U, starts = node
    g = gid[rows]
    present = np.zeros(U.shape[0], np.bool_)
    present[g.reshape(-1)] = True
    c = np.cumsum(present)
    before = np.concatenate(([0], c))[starts]          # distinct side values before each feature
    ndist = np.diff(before)
    if ndist.max() > max_bins:
        return bin_data(Xs, is_nom, n_cats, True, max_bins)
    codes = np.ascontiguousarray((c[g] - 1 - before[:-1]).astype(np.uint8))
    Us = U[present]
    feat = np.repeat(np.arange(d), ndist)
    same = feat[1:] == feat[:-1]
    edges = midpoint_edges(Us[:-1][same], Us[1:][same])
    offsets = np.zeros(d + 1, np.int64)
    offsets[1:] = np.cumsum(ndist - 1)
    B = int(ndist.max()) + 1
    return BinnedData(Xs, codes, np.zeros((d, 0), np.int64), np.zeros((d, 0), np.float64),
                      is_nom, n_cats, np.ascontiguousarray(edges, dtype=np.float64), offsets,
                      True, B - 1, B)


def _is_classifier(est):
    tags = getattr(est, "_estimator_type", None)
    if tags is not None:
        return tags == "classifier"
    try:
        return est.__sklearn_tags__().estimator_type == "classifier"
    except Exception:  # noqa: BLE001
        return False


_SHORT = {"constant": ConstantModel, "linear": LinearModel, "logistic": LogisticModel}


def as_node_model(obj):
    """A node model from a node model, an estimator, or a short name
    ("constant", "linear", "logistic")."""
    if isinstance(obj, str):
        if obj not in _SHORT:
            raise ValueError(f"unknown node model {obj!r}; use one of {sorted(_SHORT)}, a "
                             "NodeModel or an estimator")
        return _SHORT[obj]()
    if isinstance(obj, NodeModel):
        return obj._fresh()
    if hasattr(obj, "fit") and hasattr(obj, "predict"):
        return EstimatorModel(obj)
    raise TypeError(f"a node model must be a NodeModel, an estimator with fit/predict or one of "
                    f"{sorted(_SHORT)}, got {type(obj).__name__}")
