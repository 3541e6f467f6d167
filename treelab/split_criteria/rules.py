"""Split-decision rules in the form the streaming engine calls them.

Every streaming learner (SGT, Hoeffding trees) asks one jitted function with
:data:`treelab._engine.signatures.RULE_SIG`, ``rule_fn(evidence, params) ->
split?``, whether a leaf has seen enough to apply its best candidate.  The
``evidence`` vector (:mod:`treelab._engine.streaming`, ``EV_*``) holds the
merit of the best candidate and of the runner-up (another split or "no
split"), the leaf's instance count ``n``, the per-instance variance of the
best merit, and the context: depth ``h``, stream time ``t``, features ``d``,
classes ``k`` and the branches of the best candidate.

This module gives the engine form of

* :class:`TTestRule`: SGT's one-sample t-test (Gouk, Pfahringer & Frank,
  ACML 2019): split when the mean merit (loss reduction) is positive and its
  two-sided p-value is below ``delta``;
* any confidence-radius rule of :mod:`treelab.split_criteria.bounds`
  (Hoeffding / VFDT, McDiarmid, C-Tree, or a user's
  :class:`~treelab.split_criteria.bounds.DecisionRule`), through
  :func:`as_engine_rule`: split when ``best - second > eps`` (``2 eps`` for
  the C-Tree reading) or ``eps < tau``;
* a user's own rule: any object with ``rule_fn`` (a function compiled with
  ``RULE_SIG``, or a plain Python function, compiled here) and ``params``.

so that "t-test vs Hoeffding vs C-Tree on the same tree" is one parameter.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .._engine.signatures import RULE_SIG
from .._engine.streaming import (
    EV_BRANCHES, EV_D, EV_DEPTH, EV_K, EV_MERIT, EV_N, EV_SECOND, EV_T, EV_VAR,
)
from .._engine.student_t import one_sample_t_test
from . import bounds as _b

__all__ = ["TTestRule", "EngineRule", "as_engine_rule", "ttest_rule", "bound_rule",
           "BOUND_HOEFFDING", "BOUND_MCDIARMID", "BOUND_CTREE"]


@njit(RULE_SIG, cache=True)
def ttest_rule(evidence, params):
    """SGT's split test: one-sample t-test of the per-instance merit (loss
    change), split when p < delta (``params[0]``) and the mean merit is positive."""
    merit = evidence[EV_MERIT]
    if not merit > 0.0:
        return False
    p = one_sample_t_test(merit, evidence[EV_VAR], evidence[EV_N])
    return p < params[0]


class TTestRule:
    """SGT's split test (Gouk et al. 2019): a one-sample t-test of the mean
    per-instance merit, split when p < ``delta`` and the merit is positive.

    On an SGT the merit is the loss reduction and its variance comes from the
    gradient/Hessian moments (eq. 18); on a Hoeffding tree the merit is the
    impurity decrease and its per-instance variance is the jackknife estimate
    (:mod:`treelab._engine.hoeffding`)."""

    name = "ttest"

    def __init__(self, delta=1e-7):
        self.delta = delta

    @property
    def rule_fn(self):
        return ttest_rule

    @property
    def params(self):
        delta = float(self.delta)
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {self.delta!r}")
        return np.array([delta])

    def __eq__(self, other):
        return type(other) is type(self) and other.delta == self.delta

    def __hash__(self):
        return hash((type(self).__name__, self.delta))

    def __repr__(self):
        return f"TTestRule(delta={self.delta!r})"


#: kinds of built-in radius (first entry of a bound rule's parameters)
BOUND_HOEFFDING = 0
BOUND_MCDIARMID = 1
BOUND_CTREE = 2
_P_KIND, _P_TAU, _P_TWO_EPS, _P_RADIUS = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _context(evidence):
    ctx = np.zeros(_b.CTX_SIZE, np.float64)
    ctx[_b.CTX_DEPTH] = evidence[EV_DEPTH]
    t = evidence[EV_T]
    ctx[_b.CTX_T] = t if t >= evidence[EV_N] else evidence[EV_N]
    ctx[_b.CTX_N_FEATURES] = evidence[EV_D]
    ctx[_b.CTX_N_CLASSES] = evidence[EV_K]
    br = evidence[EV_BRANCHES]
    ctx[_b.CTX_N_BRANCHES] = br if br >= 2.0 else 2.0
    return ctx


@njit(RULE_SIG, cache=True)
def bound_rule(evidence, params):
    """A built-in confidence-radius rule: ``params = [kind, tau, two_eps,
    radius params...]``; split when ``best - second > eps`` (``> 2 eps`` when
    ``two_eps``) or ``eps < tau`` (:func:`treelab.split_criteria.bounds.decide_split`)."""
    ctx = _context(evidence)
    rp = params[_P_RADIUS:]
    n = evidence[EV_N]
    kind = int(params[_P_KIND])
    if kind == BOUND_HOEFFDING:
        eps = _b.hoeffding_radius_kernel(rp, n, ctx)
    elif kind == BOUND_MCDIARMID:
        eps = _b.mcdiarmid_radius_kernel(rp, n, ctx)
    else:
        eps = _b.ctree_radius_kernel(rp, n, ctx)
    return _b.decide_split(evidence[EV_MERIT], evidence[EV_SECOND], eps, params[_P_TAU],
                           params[_P_TWO_EPS] > 0.0)


def _user_bound_rule(radius_func):
    """RULE_SIG wrapper of a user's radius function (compiled once per process:
    a function that calls another through a closure cannot be cached on disk)."""
    rf = radius_func

    def rule(evidence, params):
        ctx = _context(evidence)
        eps = rf(params[_P_RADIUS:], evidence[EV_N], ctx)
        return _b.decide_split(evidence[EV_MERIT], evidence[EV_SECOND], eps, params[_P_TAU],
                               params[_P_TWO_EPS] > 0.0)
    return njit(RULE_SIG, cache=False)(rule)


_USER_RULES = {}
_BUILTIN_KINDS = {}


def _kind_of(radius_func):
    if not _BUILTIN_KINDS:
        _BUILTIN_KINDS.update({id(_b.hoeffding_radius_kernel): BOUND_HOEFFDING,
                               id(_b.mcdiarmid_radius_kernel): BOUND_MCDIARMID,
                               id(_b.ctree_radius_kernel): BOUND_CTREE})
    return _BUILTIN_KINDS.get(id(radius_func))


class EngineRule:
    """A decision rule in engine form: ``rule_fn`` (``RULE_SIG``) and ``params``."""

    def __init__(self, rule_fn, params, source=None):
        self.rule_fn = rule_fn
        self.params = np.ascontiguousarray(np.atleast_1d(np.asarray(params, np.float64)))
        self.source = source

    def __repr__(self):
        return f"EngineRule({self.source!r})"


def as_engine_rule(rule):
    """The engine form (``rule_fn``, ``params``) of a decision rule.

    Accepts a :class:`~treelab.split_criteria.bounds.DecisionRule` (Hoeffding,
    McDiarmid, C-Tree or a user's radius), a :class:`TTestRule`, or any object
    with ``rule_fn`` and ``params`` (a plain Python ``rule_fn(evidence, params)``
    is compiled with ``RULE_SIG``)."""
    if isinstance(rule, _b.DecisionRule):
        head = [0.0, float(rule.tau), 1.0 if rule.two_eps else 0.0]
        kind = _kind_of(rule.radius_func)
        if kind is not None:
            head[0] = float(kind)
            return EngineRule(bound_rule, head + list(rule.radius_params), rule)
        key = id(rule.radius_func)
        fn = _USER_RULES.get(key)
        if fn is None or fn[0] is not rule.radius_func:
            fn = (rule.radius_func, _user_bound_rule(rule.radius_func))
            _USER_RULES[key] = fn
        return EngineRule(fn[1], head + list(rule.radius_params), rule)
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
