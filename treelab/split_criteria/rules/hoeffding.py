"""The Hoeffding bound of VFDT (Domingos & Hulten, "Mining high-speed data
streams", KDD 2000), as the C-Tree paper prints it (De Rosa & Cesa-Bianchi,
eq. (1)): after ``m`` independent observations of a variable with range ``R``,
with probability at least ``1 - delta`` the true mean is within

    eps_hof(m, delta) = R sqrt(ln(1/delta) / (2 m))

of the sample mean.  VFDT splits when the best merit beats the best merit of
another attribute (or "no split") by more than ``eps``, or when ``eps < tau``
(tie-break); MOA's ``HoeffdingTree`` does the same with strict comparisons.
``R`` is the range of the merit, which every merit carries
(:meth:`treelab.split_criteria.Criterion.range_of_merit`: log2 k for
information gain, 1 for Gini, ...).  With the classification-error merit this
is the CorrH-Tree baseline of the C-Tree paper (Sec. VI).
"""
from __future__ import annotations

import math

import numpy as np

from ..._engine.jit import njit
from ..._engine.signatures import RULE_SIG
from ..._engine.streaming import EV_N
from .base import (
    P_RADIUS, RADIUS_SIG, DecisionRule, check_delta, context_of,
    decide_evidence, merit_info, resolve_own_merit,
)

__all__ = ["hoeffding_bound", "hoeffding_n_required", "hoeffding_radius_kernel",
           "hoeffding_rule", "HoeffdingRule"]


@njit(cache=True)
def hoeffding_bound(value_range, delta, n):
    """Eq. (1) of the C-Tree paper / VFDT: ``eps = R sqrt(ln(1/delta) / (2 n))``.

    Returns ``inf`` for ``n <= 0`` or ``delta <= 0`` and 0 for ``delta >= 1``.
    """
    if n <= 0 or delta <= 0.0:
        return math.inf
    if delta >= 1.0:
        return 0.0
    return value_range * math.sqrt(math.log(1.0 / delta) / (2.0 * n))


@njit(cache=True)
def hoeffding_n_required(value_range, delta, eps):
    """Examples needed for the Hoeffding radius to fall to ``eps``: ``R^2 ln(1/delta) / (2 eps^2)``."""
    if eps <= 0.0 or delta <= 0.0:
        return math.inf
    if delta >= 1.0:
        return 0.0
    return value_range * value_range * math.log(1.0 / delta) / (2.0 * eps * eps)


@njit(RADIUS_SIG, cache=True)
def hoeffding_radius_kernel(params, n, ctx):
    """params = [delta, R]."""
    return hoeffding_bound(params[1], params[0], n)


@njit(RULE_SIG, cache=True)
def hoeffding_rule(evidence, params):
    """Engine form: ``params = [tau, strict, gap factor, runner-up, delta, R]``."""
    eps = hoeffding_radius_kernel(params[P_RADIUS:], evidence[EV_N], context_of(evidence))
    return decide_evidence(evidence, params, eps)


class HoeffdingRule(DecisionRule):
    """VFDT split rule (Domingos & Hulten, KDD 2000; eq. (1) of the C-Tree paper).

    ``eps = R sqrt(ln(1/delta) / (2 n))``; split when ``best - second > eps``
    or ``eps < tau``, ``second`` being the best split of another feature or
    "no split" (MOA's HoeffdingTree).

    Parameters
    ----------
    delta : float
        One minus the confidence (VFDT default 1e-7).
    tau : float or None
        Tie-break threshold (VFDT default 0.05); None or 0 disables it.
    criterion : str or Criterion, optional
        Merit the gaps come from; ``R`` is its range (``range_of_merit``) for
        the number of classes.  None (default): the merit of the tree the rule
        is given to (standalone use then needs ``criterion`` or ``value_range``).
    value_range : float, optional
        Explicit ``R`` (needed for merits without a known range, e.g. SGT's
        loss reduction or a user criterion without ``merit_range``).
    two_eps, strict, runner_up
        The comparison (:mod:`treelab.split_criteria.rules.base`); defaults are
        VFDT's: ``> eps``, strict, another feature.
    """

    _engine_fn = hoeffding_rule

    def __init__(self, delta=1e-7, tau=0.05, criterion=None, value_range=None,
                 two_eps=False, strict=True, runner_up="other_feature"):
        self.delta = check_delta(delta)
        self.criterion = criterion
        merit_info(criterion)                         # validates the name
        if value_range is not None:
            r = float(value_range)
            if not r > 0.0 or not math.isfinite(r):
                raise ValueError(f"value_range must be a positive finite number, got {value_range!r}")
        self.value_range = value_range
        self.radius_func = hoeffding_radius_kernel
        self.radius_params = np.array([self.delta, np.nan])
        self._set_test(tau, two_eps, strict, runner_up)
        self.name = "hoeffding"

    def value_range_for(self, n_classes=2, merit=None):
        """The ``R`` used for ``n_classes`` classes (with the tree's ``merit``)."""
        if self.value_range is not None:
            return float(self.value_range)
        info = resolve_own_merit(self.criterion, merit)
        r = None
        if info is not None and info.range_of_merit is not None:
            r = info.range_of_merit(2 if n_classes is None else n_classes)
        if r is None:
            name = "no merit" if info is None else f"the merit {info.name!r}"
            raise ValueError(
                f"the Hoeffding bound needs the range of the merit, and {name} has none: "
                "pass value_range=R (or give the Criterion a merit_range)")
        return float(r)

    def radius_params_for(self, merit=None, n_classes=None):
        return np.array([self.delta, self.value_range_for(n_classes, merit)])

    def get_params(self, deep=True):
        return {"delta": self.delta, "tau": self.tau, "criterion": self.criterion,
                "value_range": self.value_range, "two_eps": self.two_eps,
                "strict": self.strict, "runner_up": self.runner_up}
