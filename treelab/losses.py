"""Twice-differentiable losses shared by Stochastic Gradient Trees and gradient boosting.

A loss is a small Python object holding a jitted ``grad_hess`` function with
the fixed signature :data:`GRAD_HESS_SIG`::

    grad_hess(y, raw, grad, hess) -> None
        y    float64[::1]      targets (class codes 0..k-1 as floats for classifiers)
        raw  float64[:, ::1]   raw scores, (n_samples, n_outputs)
        grad float64[:, ::1]   output: d loss / d raw
        hess float64[:, ::1]   output: d^2 loss / d raw^2 (the diagonal)

so the engine's cached kernels take it as a first-class function
(``numba.types.FunctionType``, :data:`GRAD_HESS_TYPE`) and never recompile
for a new loss.  The Python side adds ``n_outputs(n_classes)``,
``inverse_link`` (raw score -> prediction / probabilities), ``link`` (its
inverse), ``init_raw`` (the starting raw score: zero, as SGT starts from 0, or
the prior), ``gradients`` and ``value`` (validated NumPy conveniences).

Built-in losses (Gouk, Pfahringer & Frank, ACML 2019;
Friedman 2001; Chen & Guestrin 2016):

* :class:`SquaredError` - l = (raw - y)^2 / 2, g = raw - y, h = 1;
* :class:`Logistic` - binary y in {0, 1}, p = sigmoid(raw), g = p - y, h = p (1 - p);
* :class:`Softmax` - k classes with k - 1 outputs, the last class's score
  hard-wired to 0 as in the SGT paper; g_j = p_j - [y = j], h_j = p_j (1 - p_j)
  (the diagonal of the Hessian);
* :class:`MultinomialSoftmax` - the same cross-entropy with one output per class
  (k trees per boosting round: XGBoost's ``multi:softprob``, Friedman 2001
  Algorithm 6, scikit-learn's HistGradientBoosting);
* :class:`AbsoluteError`, :class:`Huber` (``delta``), :class:`Quantile`
  (``alpha``) - robust regression losses whose true Hessian is 0 (almost)
  everywhere or beyond ``delta``: their kernels report the surrogate Hessian 1
  (as LightGBM's ``regression_l1`` / ``huber`` / ``quantile`` objectives and
  scikit-learn's HistGradientBoosting), so a Newton step is a gradient step, and
  :meth:`Loss.leaf_values` gives the exact per-leaf line search of Friedman's
  GBDT (weighted median / quantile of the residuals; Huber: the root of the
  clipped-residual sum), which gradient boosting applies to every tree of these
  losses (LightGBM's and scikit-learn's leaf renewal).  SGT uses the kernels as
  they are (a first-order step with unit Hessian, no line search);
* multi-instance learning (:class:`MultiInstanceMax`, kernels :func:`bag_max`,
  :func:`mi_grad_hess`): a bag's score is the maximum of its instances'
  scores, the bag loss is the logistic loss of that score, and its gradient
  and Hessian go only to the arg-max instance.

User-defined losses: :meth:`Loss.from_functions` takes scalar Python
functions ``grad(y, raw) -> float`` and ``hess(y, raw) -> float``, compiles
them with numba and builds the vectorised ``grad_hess``::

    def grad(y, f):
        r = f - y
        return r / math.sqrt(1.0 + r * r)
    def hess(y, f):
        r = f - y
        return (1.0 + r * r) ** -1.5
    pseudo_huber = Loss.from_functions(grad, hess, name="pseudo_huber")
"""
from __future__ import annotations

import math

import numpy as np

from ._compile import njit_maybe_cached as _njit_maybe_cached
from ._engine.jit import njit
from ._params import check_real

__all__ = [
    "GRAD_HESS_SIG", "GRAD_HESS_TYPE", "SCALAR_SIG", "SCALAR_TYPE",
    "Loss", "CustomLoss", "SquaredError", "Logistic", "Softmax", "MultiInstanceMax",
    "MultinomialSoftmax", "AbsoluteError", "Huber", "Quantile",
    "compile_grad_hess", "get_loss", "LOSSES", "REGRESSION_LOSSES",
    "sigmoid", "bag_max", "mi_grad_hess", "bag_offsets_from_ids",
]

from ._engine.signatures import GRAD_HESS_SIG, GRAD_HESS_TYPE, SCALAR_SIG, SCALAR_TYPE  # noqa: E402
from ._engine.loss_kernels import (  # noqa: E402,F401
    _elementwise_value, _logistic_proba, _logistic_value, _softmax_proba,
    _softmax_value, _squared_error_value,
    absolute_error_grad_hess, bag_max, huber_grad_hess, logistic_grad_hess, mi_grad_hess,
    multinomial_grad_hess, quantile_grad_hess, sigmoid, softmax_grad_hess,
    squared_error_grad_hess,
)


def bag_offsets_from_ids(bag_ids):
    """Group instances by bag: ``(order, offsets, bags)``.

    ``order`` sorts the instances stably by bag id, so that the instances of
    ``bags[b]`` are ``order[offsets[b]:offsets[b+1]]``; index ``raw`` and
    ``X`` with ``order`` before calling the kernels.
    """
    bag_ids = np.asarray(bag_ids)
    if bag_ids.ndim != 1:
        raise ValueError(f"bag_ids must be 1-D, got shape {bag_ids.shape}")
    order = np.argsort(bag_ids, kind="stable")
    bags, counts = np.unique(bag_ids[order], return_counts=True)
    offsets = np.zeros(len(bags) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return order.astype(np.int64), offsets, bags


# -------------------------------------------------------------------- Python side

def _is_compiled_with(func, sig):
    sigs = getattr(func, "signatures", None)
    if not sigs:
        return False
    return tuple(sig.args) in [tuple(s) for s in sigs]


def compile_grad_hess(func, cache=True):
    """Compile ``func(y, raw, grad, hess)`` with :data:`GRAD_HESS_SIG`.

    Accepts a plain Python function or a dispatcher; with ``cache=True`` the
    machine code is cached beside the file defining ``func``.
    """
    if _is_compiled_with(func, GRAD_HESS_SIG):
        return func
    return _njit_maybe_cached(func, GRAD_HESS_SIG, cache)


def _compile_scalar(func, cache=True):
    if _is_compiled_with(func, SCALAR_SIG):
        return func
    if not callable(func):
        raise TypeError(f"expected a callable f(y, raw) -> float, got {func!r}")
    return _njit_maybe_cached(func, SCALAR_SIG, cache)


def _as_y(y):
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    return y


def _as_raw(raw, n=None):
    raw = np.asarray(raw, dtype=np.float64)
    if raw.ndim == 1:
        raw = raw.reshape(-1, 1)
    if raw.ndim != 2:
        raise ValueError(f"raw scores must be 1-D or 2-D (n_samples, n_outputs), got shape {raw.shape}")
    if n is not None and raw.shape[0] != n:
        raise ValueError(f"raw has {raw.shape[0]} rows but y has {n} entries")
    return np.ascontiguousarray(raw)


class Loss:
    """A twice-differentiable loss: a jitted ``grad_hess`` plus link functions.

    Parameters
    ----------
    name : str
    grad_hess : callable
        ``grad_hess(y, raw, grad, hess)`` filling ``grad``/``hess`` in place;
        compiled with :data:`GRAD_HESS_SIG` unless it already is.
    value : callable, optional
        Scalar ``value(y, raw) -> float`` per output (summed over outputs),
        used by :meth:`value`.
    n_outputs : int
        Raw scores per sample (default 1).

    Notes
    -----
    The default links are the identity and ``init_raw`` is zero.
    """

    task = "regression"
    #: each row's gradient and Hessian depend on that row's target and scores only,
    #: so gradient boosting may compute them on blocks of rows in threads.  False
    #: for a user's ``grad_hess`` (it may look at other rows); built-in and
    #: :meth:`from_functions` losses set it
    rowwise = False

    def __init__(self, name, grad_hess, value=None, n_outputs=1):
        if not callable(grad_hess):
            raise TypeError("grad_hess must be callable")
        self.name = str(name)
        self.grad_hess = compile_grad_hess(grad_hess)
        self._value_py = value
        self._value = None if value is None else _compile_scalar(value)
        self._n_outputs = int(n_outputs)

    # -- construction helpers ------------------------------------------------
    @staticmethod
    def from_functions(grad, hess, name="custom", value=None, inverse_link=None,
                       link=None, cache=True):
        """A single-output loss from scalar ``grad(y, raw)`` and ``hess(y, raw)``.

        The functions are compiled with :data:`SCALAR_SIG` (``cache=True``
        stores them beside the user's file) and wrapped into an element-wise
        ``grad_hess``.  ``value(y, raw)`` (optional) gives the loss itself;
        ``inverse_link`` / ``link`` are optional NumPy callables (identity by
        default).  See :class:`CustomLoss`.
        """
        return CustomLoss(grad, hess, name=name, value=value, inverse_link=inverse_link,
                          link=link, cache=cache)

    # -- shapes and links ----------------------------------------------------
    def n_outputs(self, n_classes=None):
        """Number of raw scores per sample (trees per boosting round)."""
        return self._n_outputs

    def inverse_link(self, raw):
        """Raw scores -> predictions (identity)."""
        return np.asarray(raw, dtype=np.float64)

    def link(self, pred):
        """Predictions -> raw scores (identity)."""
        return np.asarray(pred, dtype=np.float64)

    def init_raw(self, y, n_classes=None, strategy="zero"):
        """Starting raw score, shape (n_outputs,): zeros (SGT) or ``"prior"``.

        The base class knows only ``"zero"``; built-in losses also give the
        loss minimiser over a constant (``"prior"``: mean, log-odds, log-ratios).
        """
        if strategy != "zero":
            raise ValueError(f"{self.name}: unknown init strategy {strategy!r}; only 'zero'")
        return np.zeros(self.n_outputs(n_classes), dtype=np.float64)

    # -- NumPy conveniences ----------------------------------------------------
    def _check_y(self, y, raw):
        """Hook for target validation (raises ValueError)."""

    def gradients(self, y, raw):
        """``(grad, hess)`` arrays shaped like ``raw`` (2-D), after validation."""
        y = _as_y(y)
        raw = _as_raw(raw, len(y))
        self._check_y(y, raw)
        grad = np.empty_like(raw)
        hess = np.empty_like(raw)
        self.grad_hess(y, raw, grad, hess)
        return grad, hess

    def _value_kernel(self, y, raw, out):
        if self._value is None:
            raise NotImplementedError(f"loss {self.name!r} has no value function")
        _elementwise_value(y, raw, out, self._value)

    def value(self, y, raw):
        """Per-sample loss values, shape (n_samples,)."""
        y = _as_y(y)
        raw = _as_raw(raw, len(y))
        self._check_y(y, raw)
        out = np.empty(len(y), dtype=np.float64)
        self._value_kernel(y, raw, out)
        return out

    # -- line search (Friedman's GBDT, step (c)) -----------------------------------
    #: True when :meth:`leaf_values` is the exact argmin (then it also gives the
    #: constant initial score f_0 = argmin_c sum L(y_i, c))
    exact_line_search = False

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        """Per-leaf line search c_j = argmin_c sum_{i in leaf j} w_i L(y_i, raw_i + c e_col)
        (course slides, GBDT step (c); Friedman 2001, eq. 18).

        This default runs Newton's method from c = 0, c <- c - sum w g / sum w h
        per leaf, halving a step until the leaf's loss decreases (at most 50
        steps), when the loss has a value function; without one it takes a
        single Newton step (0 where the Hessian sum is not positive).  Losses
        with a closed form or an exact 1-D solution override it (squared,
        absolute, quantile, Huber), the logistic ones take Friedman's single
        Newton step (Algorithms 5 and 6).  ``raw`` is (n, n_outputs), ``leaf``
        the leaf index (0..n_leaves-1) of each row."""
        y = _as_y(y)
        raw = _as_raw(raw, len(y))
        w = np.asarray(w, dtype=np.float64)
        leaf = np.asarray(leaf, dtype=np.int64)
        c = self._newton_step(y, raw, w, leaf, n_leaves, col, np.zeros(n_leaves))
        if not self._has_value():
            return c

        def leaf_loss(cv):
            r = raw.copy()
            r[:, col] += cv[leaf]
            return np.bincount(leaf, weights=w * self.value(y, r), minlength=n_leaves)
        cur = np.zeros(n_leaves)
        f_cur = leaf_loss(cur)
        step = c
        for _ in range(50):
            trial = cur + step
            f_trial = leaf_loss(trial)
            for _ in range(40):          # halve the steps that do not decrease the loss
                bad = ~(f_trial <= f_cur) & (step != 0)
                if not bad.any():
                    break
                step = np.where(bad, 0.5 * step, step)
                trial = cur + step
                f_trial = leaf_loss(trial)
            ok = f_trial <= f_cur
            moved = ok & (trial != cur)
            cur = np.where(ok, trial, cur)
            f_cur = np.where(ok, f_trial, f_cur)
            if not moved.any() or np.all(np.abs(step) <= 1e-12 * (1.0 + np.abs(cur))):
                break
            step = self._newton_step(y, raw, w, leaf, n_leaves, col, cur)
        return cur

    def _has_value(self):
        return self._value is not None or type(self)._value_kernel is not Loss._value_kernel

    def _newton_step(self, y, raw, w, leaf, n_leaves, col, c):
        r = raw.copy()
        r[:, col] += c[leaf]
        g = np.empty_like(r)
        h = np.empty_like(r)
        self.grad_hess(y, r, g, h)
        G = np.bincount(leaf, weights=w * g[:, col], minlength=n_leaves)
        H = np.bincount(leaf, weights=w * h[:, col], minlength=n_leaves)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(H > 0, -G / np.where(H > 0, H, 1.0), 0.0)

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r})"

    def __eq__(self, other):
        return type(self) is type(other) and self.__reduce__() == other.__reduce__()

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __reduce__(self):
        return (Loss, (self.name, getattr(self.grad_hess, "py_func", self.grad_hess),
                       self._value_py, self._n_outputs))


class _BuiltinLoss(Loss):
    """Built-in losses pickle and compare by class."""

    rowwise = True

    _grad_hess = None
    _name = ""

    def __init__(self):
        self.name = self._name
        self.grad_hess = type(self)._grad_hess
        self._value_py = None
        self._value = None
        self._n_outputs = 1

    def __reduce__(self):
        return (type(self), ())


class SquaredError(_BuiltinLoss):
    """Squared error (y - raw)^2 / 2 for regression; g = raw - y, h = 1."""

    _name = "squared_error"
    _grad_hess = squared_error_grad_hess
    exact_line_search = True

    def _value_kernel(self, y, raw, out):
        _squared_error_value(y, raw, out)

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        """Weighted mean of the residuals y - raw in each leaf (the exact argmin)."""
        r = _as_y(y) - _as_raw(raw)[:, col]
        W = np.bincount(leaf, weights=w, minlength=n_leaves)
        S = np.bincount(leaf, weights=w * r, minlength=n_leaves)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(W > 0, S / np.where(W > 0, W, 1.0), 0.0)

    def init_raw(self, y, n_classes=None, strategy="zero"):
        if strategy == "prior":
            y = _as_y(y)
            return np.full(1, float(y.mean()) if len(y) else 0.0)
        return super().init_raw(y, n_classes, strategy)


_PROBA_EPS = 1e-15


class Logistic(_BuiltinLoss):
    """Binary logistic loss (cross-entropy) on raw log-odds; y in {0, 1}."""

    task = "classification"
    _name = "logistic"
    _grad_hess = logistic_grad_hess

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        """One Newton step, sum w (y - p) / sum w p (1 - p): Friedman 2001,
        Algorithm 5 (in log-odds); the exact argmin is infinite in a pure leaf."""
        raw = _as_raw(raw)
        return self._newton_step(_as_y(y), raw, np.asarray(w, np.float64),
                                 np.asarray(leaf, np.int64), n_leaves, col, np.zeros(n_leaves))

    def n_outputs(self, n_classes=None):
        if n_classes is not None and int(n_classes) != 2:
            raise ValueError(f"logistic loss is binary; got n_classes={n_classes} (use 'softmax')")
        return 1

    def _check_y(self, y, raw):
        if not np.all((y == 0.0) | (y == 1.0)):
            raise ValueError("logistic loss needs targets y in {0, 1}")

    def inverse_link(self, raw):
        """Raw log-odds -> P(y = 1), elementwise (same shape as ``raw``)."""
        raw = np.asarray(raw, dtype=np.float64)
        out = np.empty_like(raw)
        pos = raw >= 0
        out[pos] = 1.0 / (1.0 + np.exp(-raw[pos]))
        e = np.exp(raw[~pos])
        out[~pos] = e / (1.0 + e)
        return out

    def link(self, pred):
        """P(y = 1) -> log-odds (probabilities clipped to [1e-15, 1 - 1e-15])."""
        p = np.clip(np.asarray(pred, dtype=np.float64), _PROBA_EPS, 1.0 - _PROBA_EPS)
        return np.log(p) - np.log1p(-p)

    @staticmethod
    def predict_proba_one(raw):
        """[P(y = 0), P(y = 1)] of one instance from its raw score (a length-1
        sequence), in plain Python: a single row is faster without NumPy."""
        r = float(raw[0])
        if r >= 0.0:
            p = 1.0 / (1.0 + math.exp(-r))
        else:
            e = math.exp(r)
            p = e / (1.0 + e)
        return [1.0 - p, p]

    def predict_proba(self, raw):
        """(n, 2) class probabilities [P(y = 0), P(y = 1)] from raw scores (n,) or (n, 1)."""
        raw = np.ascontiguousarray(np.asarray(raw, dtype=np.float64).reshape(-1))
        out = np.empty((raw.shape[0], 2), dtype=np.float64)
        _logistic_proba(raw, out)
        return out

    def _value_kernel(self, y, raw, out):
        _logistic_value(y, raw, out)

    def init_raw(self, y, n_classes=None, strategy="zero"):
        if strategy == "prior":
            y = _as_y(y)
            self._check_y(y, None)
            return self.link(np.full(1, y.mean() if len(y) else 0.5))
        return super().init_raw(y, n_classes, strategy)


class _SoftmaxFamily(_BuiltinLoss):
    """Softmax cross-entropy, shared by its two forms: ``_implicit = 1``, k - 1
    outputs and the last class scored 0 (:class:`Softmax`); ``_implicit = 0``, one
    output per class (:class:`MultinomialSoftmax`).  One set of kernels serves
    both (:mod:`treelab._engine.loss_kernels`)."""

    task = "classification"
    _implicit = 1
    _label = "softmax loss"

    def n_outputs(self, n_classes=None):
        if n_classes is None or int(n_classes) < 2:
            raise ValueError(f"{self._label} needs n_classes >= 2, got {n_classes!r}")
        return int(n_classes) - self._implicit

    def _check_y(self, y, raw, k=None):
        k = raw.shape[1] + self._implicit if k is None else k
        if not np.all((y >= 0) & (y < k) & (y == np.floor(y))):
            raise ValueError(f"{self._label} with {k - self._implicit} outputs needs class "
                             f"codes y in 0..{k - 1}")

    def inverse_link(self, raw):
        """Raw scores (n, n_outputs) -> class probabilities (n, k)."""
        raw = np.asarray(raw, dtype=np.float64)
        if raw.ndim == 1:
            raw = raw.reshape(-1, 1)
        raw = np.ascontiguousarray(raw)
        out = np.empty((raw.shape[0], raw.shape[1] + self._implicit), dtype=np.float64)
        _softmax_proba(raw, out, bool(self._implicit))
        return out

    predict_proba = inverse_link

    def predict_proba_one(self, raw):
        """Class probabilities (k) of one instance from its raw scores (plus the
        implicit class's 0), in plain Python."""
        scores = [float(r) for r in raw] + [0.0] * self._implicit
        m = max(scores)
        e = [math.exp(v - m) for v in scores]
        z = sum(e)
        return [v / z for v in e]

    def _value_kernel(self, y, raw, out):
        _softmax_value(y, raw, out, bool(self._implicit))

    def init_raw(self, y, n_classes=None, strategy="zero"):
        if strategy == "prior":
            y = _as_y(y)
            k = self.n_outputs(n_classes) + self._implicit
            self._check_y(y, None, k)
            counts = np.bincount(y.astype(np.int64), minlength=k).astype(np.float64)
            p = counts / counts.sum() if counts.sum() else np.full(k, 1.0 / k)
            return self.link(p[None, :])[0]
        return super().init_raw(y, n_classes, strategy)

    def _leaf_newton(self, y, raw, w, leaf, n_leaves, col):
        return self._newton_step(_as_y(y), raw, np.asarray(w, np.float64),
                                 np.asarray(leaf, np.int64), n_leaves, col, np.zeros(n_leaves))


class Softmax(_SoftmaxFamily):
    """Multiclass softmax cross-entropy with k - 1 outputs (SGT convention).

    Output j is the score of class j for j < k - 1; the last class's score is
    fixed at 0 (Gouk et al. 2019: one tree per class minus one).  ``y`` holds
    class codes 0..k-1; k = n_outputs + 1 is read from ``raw.shape[1]``.
    The Hessian is its diagonal p_j (1 - p_j).
    """

    _name = "softmax"
    _grad_hess = softmax_grad_hess
    _implicit = 1
    _label = "softmax loss"

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        """One Newton step (as :meth:`Logistic.leaf_values`)."""
        return self._leaf_newton(y, _as_raw(raw), w, leaf, n_leaves, col)

    def link(self, pred):
        """Class probabilities (n, k) -> raw scores log(p_j / p_{k-1}), (n, k-1)."""
        p = np.clip(np.asarray(pred, dtype=np.float64), _PROBA_EPS, None)
        lp = np.log(p)
        return lp[..., :-1] - lp[..., -1:]


class MultinomialSoftmax(_SoftmaxFamily):
    """Multiclass softmax cross-entropy with one output per class (k outputs).

    p_j = e^raw_j / sum_i e^raw_i, g_j = p_j - [y = j], h_j = p_j (1 - p_j) (the
    diagonal of the Hessian, as scikit-learn's HistGradientBoosting; XGBoost's
    ``multi:softprob`` doubles it, LightGBM scales it by k / (k - 1)).  Gradient
    boosting grows k trees per round with it (Friedman 2001, Algorithm 6).
    :class:`Softmax` is the k - 1 output form that SGT uses (Gouk et al. 2019).
    """

    _name = "multinomial_softmax"
    _grad_hess = multinomial_grad_hess
    _implicit = 0
    _label = "multinomial softmax"

    def link(self, pred):
        """Class probabilities (n, k) -> raw scores log p_j - mean_i log p_i (centred)."""
        lp = np.log(np.clip(np.asarray(pred, dtype=np.float64), _PROBA_EPS, None))
        return lp - lp.mean(axis=-1, keepdims=True)

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        """One Newton step scaled by (k - 1) / k: Friedman 2001, Algorithm 6
        (``gamma_jk = (K-1)/K sum y~ / sum |y~| (1 - |y~|)``, ``y~ = [y = k] - p_k``)."""
        raw = _as_raw(raw)
        k = raw.shape[1]
        return (k - 1.0) / k * self._leaf_newton(y, raw, w, leaf, n_leaves, col)


def weighted_quantile(r, w, alpha):
    """A minimiser c of sum_i w_i rho_alpha(r_i - c) (pinball loss): the smallest
    r_(k) whose cumulative weight reaches alpha W; where it reaches alpha W
    exactly the minimisers form an interval and its midpoint is returned (so the
    unweighted median is ``np.median``)."""
    r = np.asarray(r, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if r.shape[0] == 0:
        return 0.0
    o = np.argsort(r, kind="stable")
    rs, cw = r[o], np.cumsum(w[o])
    target = alpha * cw[-1]
    k = int(np.searchsorted(cw, target * (1 - 1e-12), side="left"))
    k = min(k, rs.shape[0] - 1)
    if abs(cw[k] - target) <= 1e-12 * cw[-1] and k + 1 < rs.shape[0]:
        return 0.5 * (rs[k] + rs[k + 1])
    return float(rs[k])


def _per_leaf(fn, r, w, leaf, n_leaves):
    out = np.zeros(n_leaves)
    o = np.argsort(leaf, kind="stable")
    bounds = np.searchsorted(leaf[o], np.arange(n_leaves + 1))
    for j in range(n_leaves):
        sel = o[bounds[j]:bounds[j + 1]]
        if sel.shape[0]:
            out[j] = fn(r[sel], w[sel])
    return out


class _RobustLoss(_BuiltinLoss):
    """Shared parts of the absolute / Huber / quantile losses (single output,
    identity link, surrogate Hessian 1, exact per-leaf line search)."""

    exact_line_search = True

    def _residual_leaf(self, r, w):
        raise NotImplementedError

    def leaf_values(self, y, raw, w, leaf, n_leaves, col=0):
        r = _as_y(y) - _as_raw(raw)[:, col]
        return _per_leaf(self._residual_leaf, r, np.asarray(w, np.float64),
                         np.asarray(leaf, np.int64), n_leaves)

    def init_raw(self, y, n_classes=None, strategy="zero"):
        if strategy == "prior":
            y = _as_y(y)
            return np.full(1, self._residual_leaf(y, np.ones_like(y)) if len(y) else 0.0)
        return super().init_raw(y, n_classes, strategy)


class AbsoluteError(_RobustLoss):
    """``l = |y - raw|``; g = sign(raw - y), surrogate h = 1; leaf line search: the
    weighted median of the residuals (Friedman 2001, Algorithm 3, LAD_TreeBoost)."""

    _name = "absolute_error"
    _grad_hess = absolute_error_grad_hess

    def _residual_leaf(self, r, w):
        return weighted_quantile(r, w, 0.5)

    def _value_kernel(self, y, raw, out):
        out[:] = np.abs(y[:, None] - raw).sum(axis=1)


class Quantile(_RobustLoss):
    """Pinball loss at level ``alpha`` in (0, 1): l = alpha (y - raw) if y >= raw,
    (1 - alpha)(raw - y) otherwise; g = -alpha / (1 - alpha), surrogate h = 1; leaf
    line search: the weighted alpha-quantile of the residuals (the exact argmin;
    LightGBM's and scikit-learn's leaf renewal).  ``alpha = 0.5`` is half the
    absolute error."""

    _name = "quantile"

    def __init__(self, alpha=0.5):
        alpha = check_real("quantile alpha", alpha, 0, 1, lo_open=True, hi_open=True)
        super().__init__()
        self.alpha = alpha
        key = ("quantile", self.alpha)
        if key not in _PARAM_KERNELS:
            _PARAM_KERNELS[key] = quantile_grad_hess(self.alpha)
        self.grad_hess = _PARAM_KERNELS[key]

    def _residual_leaf(self, r, w):
        return weighted_quantile(r, w, self.alpha)

    def _value_kernel(self, y, raw, out):
        r = y[:, None] - raw
        out[:] = np.where(r >= 0, self.alpha * r, (self.alpha - 1.0) * r).sum(axis=1)

    def __repr__(self):
        return f"Quantile(alpha={self.alpha!r})"

    def __hash__(self):
        return hash(("quantile", self.alpha))

    def __reduce__(self):
        return (Quantile, (self.alpha,))


class Huber(_RobustLoss):
    """Huber loss with threshold ``delta`` > 0 (r = raw - y): r^2 / 2 for
    ``|r| <= delta``, ``delta (|r| - delta / 2)`` beyond; g = clip(r, -delta, delta),
    surrogate h = 1 (LightGBM's ``huber``).  Leaf line search: the exact argmin,
    the root c of sum_i w_i clip(r_i - c, -delta, delta) = 0 (r = y - raw, a
    monotone piecewise-linear function; ``scipy.optimize.brentq``).  Friedman's
    M_TreeBoost (2001, Algorithm 4) approximates the same argmin by one step from
    the median and re-estimates delta each round; here delta is fixed."""

    _name = "huber"

    def __init__(self, delta=1.0):
        delta = check_real("huber delta", delta, 0, lo_open=True)
        super().__init__()
        self.delta = delta
        key = ("huber", self.delta)
        if key not in _PARAM_KERNELS:
            _PARAM_KERNELS[key] = huber_grad_hess(self.delta)
        self.grad_hess = _PARAM_KERNELS[key]

    def _residual_leaf(self, r, w):
        from scipy.optimize import brentq
        d = self.delta
        lo, hi = float(r.min()), float(r.max())
        if hi - lo <= 0.0:
            return lo

        def psi(c):
            return float(np.dot(w, np.clip(r - c, -d, d)))
        if psi(lo) <= 0.0:
            return lo
        if psi(hi) >= 0.0:
            return hi
        return brentq(psi, lo, hi, xtol=1e-14 * max(1.0, abs(lo), abs(hi)),
                      maxiter=500)

    def _value_kernel(self, y, raw, out):
        a = np.abs(raw - y[:, None])
        d = self.delta
        out[:] = np.where(a <= d, 0.5 * a * a, d * (a - 0.5 * d)).sum(axis=1)

    def __repr__(self):
        return f"Huber(delta={self.delta!r})"

    def __hash__(self):
        return hash(("huber", self.delta))

    def __reduce__(self):
        return (Huber, (self.delta,))


#: compiled kernels of the parameterised losses, one per (kind, value) and process
_PARAM_KERNELS = {}


def _make_elementwise_grad_hess(gfun, hfun):
    """Vectorise compiled scalar grad/hess into a GRAD_HESS_SIG function.

    The result refers to ``gfun``/``hfun`` as globals, so it is compiled once
    per process (not cached on disk); the scalar functions themselves are.
    """
    def grad_hess(y, raw, grad, hess):
        for i in range(raw.shape[0]):
            yi = y[i]
            for j in range(raw.shape[1]):
                r = raw[i, j]
                grad[i, j] = gfun(yi, r)
                hess[i, j] = hfun(yi, r)
    return njit(GRAD_HESS_SIG, cache=False)(grad_hess)


class CustomLoss(Loss):
    """A single-output loss from user scalar functions ``grad(y, raw)``, ``hess(y, raw)``.

    Each function maps two floats to a float and must be numba-compilable
    (plain arithmetic and ``math``).  ``grad_hess`` applies them to every
    entry of ``raw``.  ``value``, ``inverse_link`` and ``link`` are optional.
    Pickles by reference to the user's functions (define them at module level).
    """

    task = "regression"
    rowwise = True

    def __init__(self, grad, hess, name="custom", value=None, inverse_link=None, link=None,
                 cache=True):
        if not callable(grad) or not callable(hess):
            raise TypeError("grad and hess must be callables f(y, raw) -> float")
        self.name = str(name)
        self._grad_py = getattr(grad, "py_func", grad)
        self._hess_py = getattr(hess, "py_func", hess)
        self._value_py = None if value is None else getattr(value, "py_func", value)
        self._inverse_link = inverse_link
        self._link = link
        self._cache = bool(cache)
        self.grad = _compile_scalar(grad, cache)
        self.hess = _compile_scalar(hess, cache)
        self._value = None if value is None else _compile_scalar(value, cache)
        self.grad_hess = _make_elementwise_grad_hess(self.grad, self.hess)
        self._n_outputs = 1

    def inverse_link(self, raw):
        raw = np.asarray(raw, dtype=np.float64)
        return raw if self._inverse_link is None else np.asarray(self._inverse_link(raw))

    def link(self, pred):
        pred = np.asarray(pred, dtype=np.float64)
        return pred if self._link is None else np.asarray(self._link(pred))

    def __reduce__(self):
        return (CustomLoss, (self._grad_py, self._hess_py, self.name, self._value_py,
                             self._inverse_link, self._link, self._cache))


class MultiInstanceMax:
    """Multi-instance binary classification with the max-over-bag logistic loss.

    Not a :class:`Loss` (its gradients need the bag structure); wraps
    :func:`bag_max` and :func:`mi_grad_hess` for NumPy callers.  Bags are
    given by ``bag_offsets`` over instances grouped by bag
    (:func:`bag_offsets_from_ids`); ``y_bag`` holds one label in {0, 1} per bag.
    """

    name = "multi_instance_max"
    task = "classification"

    @staticmethod
    def _check(y_bag, raw, bag_offsets):
        y_bag = _as_y(y_bag)
        raw = np.ascontiguousarray(raw, dtype=np.float64).reshape(-1)
        off = np.ascontiguousarray(bag_offsets, dtype=np.int64)
        if off.ndim != 1 or len(off) != len(y_bag) + 1:
            raise ValueError(f"bag_offsets must have n_bags + 1 = {len(y_bag) + 1} entries")
        if off[0] != 0 or off[-1] != len(raw) or np.any(np.diff(off) < 0):
            raise ValueError("bag_offsets must start at 0, be non-decreasing and end at n_instances")
        if not np.all((y_bag == 0.0) | (y_bag == 1.0)):
            raise ValueError("multi-instance loss needs bag labels in {0, 1}")
        return y_bag, raw, off

    def n_outputs(self, n_classes=None):
        return 1

    def bag_scores(self, raw, bag_offsets):
        """(scores, argmax) per bag; see :func:`bag_max`."""
        raw = np.ascontiguousarray(raw, dtype=np.float64).reshape(-1)
        return bag_max(raw, np.ascontiguousarray(bag_offsets, dtype=np.int64))

    def gradients(self, y_bag, raw, bag_offsets):
        """Per-instance ``(grad, hess)`` (1-D); non-zero only at each bag's arg-max."""
        y_bag, raw, off = self._check(y_bag, raw, bag_offsets)
        grad = np.empty_like(raw)
        hess = np.empty_like(raw)
        mi_grad_hess(y_bag, raw, off, grad, hess)
        return grad, hess

    def value(self, y_bag, raw, bag_offsets):
        """Per-bag logistic loss at the bag score."""
        y_bag, raw, off = self._check(y_bag, raw, bag_offsets)
        s, _ = bag_max(raw, off)
        return np.logaddexp(0.0, s) - y_bag * s

    def predict_proba(self, raw, bag_offsets):
        """(n_bags, 2) probabilities from the bag scores."""
        s, _ = self.bag_scores(raw, bag_offsets)
        p = Logistic().inverse_link(s)
        return np.column_stack([1.0 - p, p])

    def __repr__(self):
        return "MultiInstanceMax()"


LOSSES = {
    "squared_error": SquaredError,
    "logistic": Logistic,
    "softmax": Softmax,
    "multinomial_softmax": MultinomialSoftmax,
    "absolute_error": AbsoluteError,
    "huber": Huber,
    "quantile": Quantile,
}
#: the single-output regression losses by the names the regressors' ``loss`` takes
REGRESSION_LOSSES = {k: LOSSES[k] for k in ("squared_error", "absolute_error", "huber", "quantile")}
_ALIASES = {
    "squared": "squared_error", "l2": "squared_error", "mse": "squared_error",
    "log_loss": "logistic", "binary_crossentropy": "logistic", "cross_entropy": "logistic",
    "multinomial": "softmax", "multiclass": "softmax",
    "l1": "absolute_error", "mae": "absolute_error", "absolute": "absolute_error",
    "multi:softprob": "multinomial_softmax", "softprob": "multinomial_softmax",
}


def get_loss(name):
    """A loss by name (a key of :data:`LOSSES`, default parameters); a Loss passes through."""
    if isinstance(name, (Loss, MultiInstanceMax)):
        return name
    if not isinstance(name, str):
        raise TypeError(f"loss must be a name or a Loss, got {type(name).__name__}")
    key = _ALIASES.get(name.lower(), name.lower())
    if key == "multi_instance_max":
        return MultiInstanceMax()
    if key not in LOSSES:
        raise ValueError(f"unknown loss {name!r}; choose from {sorted(LOSSES)} or pass a Loss")
    return LOSSES[key]()
