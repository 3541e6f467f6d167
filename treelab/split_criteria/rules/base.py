"""Shared base of the split-decision rules: :class:`DecisionRule`, the test that
compares two merits with a confidence radius, and the engine adaptor.

A streaming tree splits a leaf once the merit of its best candidate beats the
runner-up's by enough.  Every confidence-radius rule here (Hoeffding / VFDT,
McDiarmid, C-Tree, or a user's own radius) is

* a jitted radius ``radius_func(params, n, ctx) -> eps`` compiled with
  :data:`RADIUS_SIG` (``ctx`` laid out by :func:`make_context`), and
* the comparison :func:`decide_split`, configured by four settings:

  ``two_eps``   gap threshold ``eps`` (VFDT, Domingos & Hulten 2000) or
                ``2 eps`` (C-Tree, De Rosa & Cesa-Bianchi, Sec. I and Fig. 1:
                two confidence intervals of half-width ``eps`` must not overlap);
  ``strict``    ``gap > thr or eps < tau`` (VFDT / MOA) or the non-strict
                ``gap >= thr or eps <= tau`` (C-Tree, Algorithm 1, line 6);
  ``tau``       tie-break threshold; ``None`` or 0 disables it (the C-Tree
                paper's experiments use none, Sec. VI);
  ``runner_up`` ``"other_feature"``: the best split of another feature, or no
                split (VFDT / MOA, which rank one suggestion per attribute);
                ``"any_split"``: the best split other than the best one,
                another threshold of the same feature included (C-Tree,
                Algorithm 1, line 5: ``F_2 = argmax over F != F_hat``).  Both
                count "no split" (merit 0) as a candidate, as VFDT's X_0 and
                the MOA code the C-Tree paper's experiments modified.

Engine form: a learner hands the rule's ``rule_fn`` (a jitted function with
:data:`treelab._engine.signatures.RULE_SIG`) and its float64 ``params`` to
the streaming kernels; ``params`` start with the four settings above
(``P_TAU``, ``P_STRICT``, ``P_GAP``, ``P_RUNNER``) and go on with the radius
parameters (from ``P_RADIUS``).  :func:`as_engine_rule` builds it, binding the
rule to the learner's merit (its range, or its scale relative to a paper's
index) and number of classes.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional

import numpy as np
from numba import types

from ..._engine.jit import njit
from ..._engine.signatures import RULE_SIG
from ..._engine.streaming import (
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MAX_BRANCHES, EV_MERIT, EV_N, EV_SECOND,
    EV_SECOND_ANY, EV_T,
)
from ..._params import check_real

__all__ = [
    "RADIUS_SIG", "RADIUS_TYPE", "compile_radius", "make_context", "decide_split",
    "CTX_DEPTH", "CTX_T", "CTX_N_FEATURES", "CTX_N_CLASSES", "CTX_N_BRANCHES", "CTX_SIZE",
    "P_TAU", "P_STRICT", "P_GAP", "P_RUNNER", "P_RADIUS", "RUNNER_UPS",
    "DecisionRule", "EngineRule", "as_engine_rule", "MeritInfo", "merit_info",
    "LOSS_REDUCTION",
]

# ---------------------------------------------------------------------------
# radius functions: fixed signature and context
# ---------------------------------------------------------------------------
#: radius(params, n, ctx) -> eps
RADIUS_SIG = types.float64(types.float64[::1], types.float64, types.float64[::1])
RADIUS_TYPE = types.FunctionType(RADIUS_SIG)

CTX_DEPTH = 0       # depth h of the leaf (root = 0)
CTX_T = 1           # t, examples seen by the whole tree so far (stream time)
CTX_N_FEATURES = 2  # d, number of attributes
CTX_N_CLASSES = 3   # k, number of classes
CTX_N_BRANCHES = 4  # v, most branches of the candidates compared (2 = binary splits)
CTX_SIZE = 5

#: engine parameters every confidence-radius rule starts with
P_TAU, P_STRICT, P_GAP, P_RUNNER, P_RADIUS = 0, 1, 2, 3, 4
#: runner-up choices and their codes in ``params[P_RUNNER]``
RUNNER_UPS = {"other_feature": 0, "any_split": 1}


def make_context(depth=0, t=None, n_features=1, n_classes=2, n_branches=2, n=None):
    """Context vector ``ctx`` for ``radius_func(params, n, ctx)``.

    ``t`` defaults to ``n`` (the leaf's examples are part of the stream), or 1.
    """
    if t is None:
        t = n if n is not None else 1
    ctx = np.empty(CTX_SIZE, dtype=np.float64)
    ctx[CTX_DEPTH] = depth
    ctx[CTX_T] = t
    ctx[CTX_N_FEATURES] = n_features
    ctx[CTX_N_CLASSES] = n_classes
    ctx[CTX_N_BRANCHES] = n_branches
    return ctx


def compile_radius(func, cache=True):
    """Compile ``func(params, n, ctx) -> float`` with :data:`RADIUS_SIG` (for user rules).

    With ``cache=True`` the code is cached beside the file defining ``func``;
    functions without a file (interactive sessions) are compiled uncached.
    """
    py = getattr(func, "py_func", func)
    if cache:
        try:
            return njit(RADIUS_SIG, cache=True)(py)
        except RuntimeError:  # no cache locator (e.g. defined in a REPL)
            pass
    return njit(RADIUS_SIG, cache=False)(py)


# ---------------------------------------------------------------------------
# the comparison
# ---------------------------------------------------------------------------
@njit(cache=True)
def decide_split(best, second, eps, tau, gap_factor, strict):
    """Split decision from plain floats (callable inside kernels).

    ``strict``: ``best - second > gap_factor * eps or eps < tau`` (VFDT, MOA);
    otherwise ``best - second >= gap_factor * eps or eps <= tau`` (C-Tree,
    Algorithm 1, line 6, with gains instead of conditional impurities: the
    paper's ``Phi(F_hat) <= Phi(F_2) - 2 eps`` is ``G(F_hat) - G(F_2) >= 2 eps``
    because ``G = Phi(Y) - Phi(Y | F)`` and ``Phi(Y)`` is common to both).
    ``tau <= 0`` disables the tie-break.  A ``nan`` merit or radius never
    splits, except through the tie-break on a finite ``eps``.
    """
    thr = gap_factor * eps
    gap = best - second
    if strict:
        if gap > thr:
            return True
        return tau > 0.0 and eps < tau
    if gap >= thr:
        return True
    return tau > 0.0 and eps <= tau


@njit(cache=True, inline="always")
def context_of(evidence):
    """The radius context of an engine evidence vector (``t`` at least ``n``;
    branches: the most of any candidate compared, at least 2)."""
    ctx = np.zeros(CTX_SIZE, np.float64)
    ctx[CTX_DEPTH] = evidence[EV_DEPTH]
    t = evidence[EV_T]
    ctx[CTX_T] = t if t >= evidence[EV_N] else evidence[EV_N]
    ctx[CTX_N_FEATURES] = evidence[EV_D]
    ctx[CTX_N_CLASSES] = evidence[EV_K]
    br = evidence[EV_BRANCHES]
    if evidence[EV_MAX_BRANCHES] > br:
        br = evidence[EV_MAX_BRANCHES]
    ctx[CTX_N_BRANCHES] = br if br >= 2.0 else 2.0
    return ctx


@njit(cache=True, inline="always")
def decide_evidence(evidence, params, eps):
    """:func:`decide_split` on an evidence vector with the rule's settings."""
    second = evidence[EV_SECOND_ANY] if params[P_RUNNER] > 0.0 else evidence[EV_SECOND]
    return decide_split(evidence[EV_MERIT], second, eps, params[P_TAU], params[P_GAP],
                        params[P_STRICT] > 0.0)


# ---------------------------------------------------------------------------
# merits as the rules see them
# ---------------------------------------------------------------------------
class MeritInfo(NamedTuple):
    """What a rule needs to know of a merit: its name, the textbook index it is
    (``family``), whether it is an impurity decrease, and its range."""
    name: str
    family: Optional[str] = None
    decrease: bool = False
    range_of_merit: Optional[Callable] = None


#: the merit of a Stochastic Gradient Tree: a loss reduction (no known range)
LOSS_REDUCTION = MeritInfo("loss_reduction")


def merit_info(merit):
    """:class:`MeritInfo` of a criterion (object or name) or ``None``."""
    if merit is None or isinstance(merit, MeritInfo):
        return merit
    from ..base import Criterion
    from ..impurity import get_criterion
    if isinstance(merit, Criterion):
        crit = merit
    else:
        try:
            crit = get_criterion(merit, "classification")
        except ValueError:
            try:
                crit = get_criterion(merit, "regression")
            except (ValueError, TypeError):
                pass
            else:
                return MeritInfo(crit.name, None, True, crit.range_of_merit)
            raise
    return MeritInfo(crit.name, getattr(crit, "family", None),
                     crit.merit_kind == "impurity_decrease", crit.range_of_merit)


# ---------------------------------------------------------------------------
# rule objects
# ---------------------------------------------------------------------------
_CONTEXT_KEYS = ("depth", "t", "n_features", "n_classes", "n_branches")


def check_delta(delta, name="delta"):
    """A confidence level in (0, 1)."""
    return check_real(name, delta, 0, 1, lo_open=True, hi_open=True)


def check_tau(tau):
    """``None`` or 0: no tie-break; otherwise a threshold > 0."""
    if tau is None:
        return None
    tau = float(tau)
    if not tau >= 0.0 or not math.isfinite(tau):
        raise ValueError(f"tau must be >= 0 and finite, or None "
                         f"(None or 0 disables the tie-break), got {tau!r}")
    return tau


def check_runner_up(runner_up):
    if runner_up not in RUNNER_UPS:
        raise ValueError(f"runner_up must be one of {sorted(RUNNER_UPS)}, got {runner_up!r}")
    return runner_up


def _rebuild(cls, params):
    return cls(**params)


class DecisionRule:
    """A split-decision rule: a confidence radius and the comparison that uses it.

    Parameters
    ----------
    radius_func : callable
        ``radius_func(params, n, ctx) -> eps``; a plain function is compiled
        with :data:`RADIUS_SIG`.  ``ctx`` is laid out as in :func:`make_context`.
    params : array-like of float
        Parameters passed to ``radius_func`` (float64 vector).
    tau : float or None
        Tie-break threshold; ``None`` or 0 disables it.
    two_eps : bool
        Gap threshold ``2 eps`` (C-Tree) instead of ``eps`` (VFDT).
    strict : bool
        ``gap > thr or eps < tau`` (VFDT) instead of ``>=`` / ``<=`` (C-Tree).
    runner_up : {"other_feature", "any_split"}
        Which runner-up a learner compares the best split with (module docstring).
    name : str

    Examples
    --------
    A user rule in the user's own file::

        import math
        from treelab.split_criteria.rules import DecisionRule
        def bernstein_like(params, n, ctx):
            return math.sqrt(params[0] * math.log(ctx[1] + 1.0) / n)
        rule = DecisionRule(bernstein_like, [2.0], tau=0.05)
        rule.should_split(0.30, 0.10, n=400)
    """

    #: jitted RULE_SIG function of a built-in rule (None: wrap ``radius_func``)
    _engine_fn = None

    def __init__(self, radius_func, params=(), tau=None, two_eps=False, strict=True,
                 runner_up="other_feature", name="custom"):
        if not callable(radius_func):
            raise TypeError("radius_func must be callable")
        sigs = getattr(radius_func, "signatures", None) or []
        if tuple(RADIUS_SIG.args) in [tuple(s) for s in sigs]:
            self.radius_func = radius_func
        else:
            self.radius_func = compile_radius(radius_func)
        self.radius_params = np.ascontiguousarray(np.atleast_1d(
            np.asarray(params, dtype=np.float64)))
        if self.radius_params.size == 0:
            self.radius_params = np.zeros(1, dtype=np.float64)
        self._set_test(tau, two_eps, strict, runner_up)
        self.name = str(name)

    def _set_test(self, tau, two_eps, strict, runner_up):
        self.tau = check_tau(tau)
        self.two_eps = bool(two_eps)
        self.strict = bool(strict)
        self.runner_up = check_runner_up(runner_up)

    # -- binding to a learner's merit and classes ---------------------------
    def radius_params_for(self, merit=None, n_classes=None):
        """Radius parameters for the learner's ``merit`` (a criterion, name,
        :class:`MeritInfo` or None) and ``n_classes`` (None: not known yet);
        raises ValueError when the rule does not apply to them."""
        return self.radius_params

    def engine_params(self, merit=None, n_classes=None):
        """``params`` of the engine form: the test's settings, then the radius's."""
        head = [0.0 if not self.tau else self.tau, 1.0 if self.strict else 0.0,
                2.0 if self.two_eps else 1.0, float(RUNNER_UPS[self.runner_up])]
        rp = self.radius_params_for(merit, n_classes)
        return np.ascontiguousarray(np.concatenate([head, rp]), dtype=np.float64)

    # -- the two methods every learner uses --------------------------------
    def radius(self, n, depth=0, t=None, n_features=1, n_classes=2, n_branches=2):
        """Confidence radius after ``n`` examples at a leaf, in the given context."""
        ctx = make_context(depth, t, n_features, n_classes, n_branches, n=n)
        params = np.ascontiguousarray(self.radius_params_for(None, n_classes), np.float64)
        return float(self.radius_func(params, float(n), ctx))

    def should_split(self, best, second, n, **context):
        """``(split, eps)`` for the best and runner-up merits after ``n`` examples.

        ``context`` may hold ``depth``, ``t``, ``n_features``, ``n_classes``,
        ``n_branches`` (see :func:`make_context`).  As in VFDT, pass the merit of
        "no split" (0) as ``second`` when there is a single candidate.
        """
        unknown = set(context) - set(_CONTEXT_KEYS)
        if unknown:
            raise TypeError(f"unknown context keys {sorted(unknown)}; "
                            f"expected a subset of {list(_CONTEXT_KEYS)}")
        eps = self.radius(n, **context)
        split = decide_split(float(best), float(second), eps, self.tau or 0.0,
                             2.0 if self.two_eps else 1.0, self.strict)
        return bool(split), eps

    def n_required(self, gap, max_n=1 << 40, **context):
        """Smallest ``n`` at which a merit gap ``gap`` would be judged significant.

        Bisection on ``n`` (radii decrease in ``n`` for fixed context); returns
        ``inf`` if ``gap`` is not significant even at ``max_n``.  Ignores the
        tie-break.
        """
        factor = 2.0 if self.two_eps else 1.0

        def ok(n):
            eps = self.radius(n, **context)
            return gap > factor * eps if self.strict else gap >= factor * eps
        if not ok(max_n):
            return math.inf
        lo, hi = 1, max_n
        if ok(lo):
            return lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi

    # -- plumbing ------------------------------------------------------------
    def get_params(self, deep=True):
        return {"radius_func": getattr(self.radius_func, "py_func", self.radius_func),
                "params": self.radius_params.copy(), "tau": self.tau,
                "two_eps": self.two_eps, "strict": self.strict,
                "runner_up": self.runner_up, "name": self.name}

    def set_params(self, **params):
        """Change parameters (scikit-learn's nested ``rule__x`` convention)."""
        new = {**self.get_params(), **params}
        unknown = set(params) - set(self.get_params())
        if unknown:
            raise ValueError(f"invalid parameters {sorted(unknown)} for {type(self).__name__}")
        self.__dict__.update(type(self)(**new).__dict__)
        return self

    def __reduce__(self):
        return (_rebuild, (type(self), self.get_params()))

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        a, b = self.get_params(), other.get_params()
        if a.keys() != b.keys():
            return False
        for key in a:
            x, y = a[key], b[key]
            if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
                if not np.array_equal(np.asarray(x), np.asarray(y)):
                    return False
            elif x != y:
                return False
        return True

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()
                         if k not in ("radius_func", "params"))
        return f"{type(self).__name__}({args})"


def resolve_own_merit(rule_criterion, merit):
    """The merit a rule's radius is computed for: the rule's own ``criterion`` if
    given (it must then be the learner's merit), else the learner's merit."""
    own = merit_info(rule_criterion)
    other = merit_info(merit)
    if own is not None and other is not None and own.name != other.name:
        raise ValueError(
            f"the rule was built for the merit {own.name!r} but the tree's merit is "
            f"{other.name!r}; leave the rule's criterion unset to use the tree's merit")
    return own if own is not None else other


# ---------------------------------------------------------------------------
# engine form
# ---------------------------------------------------------------------------
class EngineRule:
    """A decision rule in engine form: ``rule_fn`` (``RULE_SIG``) and ``params``."""

    def __init__(self, rule_fn, params, source=None):
        self.rule_fn = rule_fn
        self.params = np.ascontiguousarray(np.atleast_1d(np.asarray(params, np.float64)))
        self.source = source

    def __repr__(self):
        return f"EngineRule({self.source!r})"


def _user_rule_fn(radius_func):
    """RULE_SIG wrapper of a user's radius function (compiled once per process:
    a function that calls another through a closure cannot be cached on disk)."""
    rf = radius_func

    def rule(evidence, params):
        eps = rf(params[P_RADIUS:], evidence[EV_N], context_of(evidence))
        return decide_evidence(evidence, params, eps)
    return njit(RULE_SIG, cache=False)(rule)


_USER_RULES = {}


def as_engine_rule(rule, merit=None, n_classes=None, runner_ups=tuple(RUNNER_UPS)):
    """The engine form (``rule_fn``, ``params``) of a decision rule.

    Accepts a :class:`DecisionRule` (Hoeffding, McDiarmid, C-Tree or a user's
    radius), bound here to the learner's ``merit`` and ``n_classes`` (None: not
    known yet), or any object with ``rule_fn`` and ``params`` (e.g.
    :class:`~treelab.split_criteria.rules.ttest.TTestRule`; a plain Python
    ``rule_fn(evidence, params)`` is compiled with ``RULE_SIG``).
    ``runner_ups``: the runner-ups the learner's engine computes.
    """
    if isinstance(rule, DecisionRule):
        params = rule.engine_params(merit, n_classes)      # refuses a merit it cannot bound
        if rule.runner_up not in runner_ups:
            raise ValueError(
                f"this learner's engine compares the best split with {list(runner_ups)} "
                f"only, but the rule asks for runner_up={rule.runner_up!r}; build the rule "
                f"with runner_up={runner_ups[0]!r}")
        fn = rule._engine_fn
        if fn is None:
            key = id(rule.radius_func)
            cached = _USER_RULES.get(key)
            if cached is None or cached[0] is not rule.radius_func:
                cached = (rule.radius_func, _user_rule_fn(rule.radius_func))
                _USER_RULES[key] = cached
            fn = cached[1]
        return EngineRule(fn, params, rule)
    if hasattr(rule, "rule_fn") and hasattr(rule, "params"):
        fn = rule.rule_fn
        sigs = getattr(fn, "signatures", None) or []
        if tuple(RULE_SIG.args) not in [tuple(s) for s in sigs]:
            if not callable(fn):
                raise TypeError("rule.rule_fn must be callable")
            fn = njit(RULE_SIG, cache=False)(getattr(fn, "py_func", fn))
        params = np.asarray(rule.params, dtype=np.float64)
        if params.size == 0:
            params = np.zeros(1)
        return EngineRule(fn, params, rule)
    raise TypeError(
        "rule must be a treelab decision rule (TTestRule, HoeffdingRule, McDiarmidRule, "
        f"CTreeRule, DecisionRule) or provide rule_fn and params; got {type(rule).__name__}")
