"""McDiarmid-tree radii of Rutkowski, Pietruczuk, Duda & Jaworski ("Decision
trees for mining data streams based on the McDiarmid's bound", IEEE TKDE
25(6):1272-1279, 2013).

Information gain, as the C-Tree paper prints it (De Rosa & Cesa-Bianchi,
Sec. II, eq. (2)), for ``K`` classes and ``m`` examples::

    eps_md(m, delta) = C(K, m) sqrt(ln(1/delta) / (2 m)),
    C(K, m) = 6 (K log2 e + log2 2m) + 2 log2 K,

with gains in bits (log2).  Gini gain: ``eps = 8 sqrt(ln(1/delta) / (2 m))``
(Rutkowski et al., Theorem 2; Gini ``1 - sum p_j^2``).  The C-Tree paper does
not print this one (it says [25] derives bounds "for various split
measures" and prints the entropy one), and the Rutkowski et al. text is not
among the project's source texts, so its constant 8 is the published value
as cited, not checked against a stored copy.

The rule splits when ``gain(a) - gain(b) > eps`` for the two best attributes
(strict, another attribute as runner-up, as VFDT, whose Hoeffding bound it
replaces); it has no tie-break.  The C-Tree paper left it out of its
experiments because "these bounds generate 1-node trees in all the
experiments" (Sec. VI): ``C(2, m) > 25`` for every ``m``, so for two
classes and ``delta = 1e-7`` ``eps_md`` stays above the largest possible gain
(1 bit) until ``m`` is in the hundreds of thousands.
"""
from __future__ import annotations

import math

import numpy as np

from ..._engine.jit import njit
from ..._engine.signatures import RULE_SIG
from ..._engine.streaming import EV_N
from .base import (
    CTX_N_CLASSES, P_RADIUS, RADIUS_SIG, DecisionRule, check_delta, context_of,
    decide_evidence, merit_info, resolve_own_merit,
)

__all__ = ["mcdiarmid_entropy_constant", "mcdiarmid_entropy_bound", "mcdiarmid_gini_bound",
           "mcdiarmid_radius_kernel", "mcdiarmid_rule", "McDiarmidRule"]

_ENTROPY, _GINI = 0.0, 1.0
_LOG2E = 1.0 / math.log(2.0)


@njit(cache=True)
def mcdiarmid_entropy_constant(n_classes, m):
    """``C(K, m) = 6 (K log2 e + log2 2m) + 2 log2 K`` (C-Tree paper, eq. (2)).

    ``K`` below 2 is treated as 2.
    """
    k = n_classes if n_classes >= 2.0 else 2.0
    return 6.0 * (k * _LOG2E + math.log2(2.0 * m)) + 2.0 * math.log2(k)


@njit(cache=True)
def mcdiarmid_entropy_bound(n_classes, delta, m):
    """Eq. (2) of the C-Tree paper: ``eps_md = C(K, m) sqrt(ln(1/delta) / (2 m))``, bits.

    Returns ``inf`` for ``m <= 0`` or ``delta <= 0`` and 0 for ``delta >= 1``.
    """
    if m <= 0 or delta <= 0.0:
        return math.inf
    if delta >= 1.0:
        return 0.0
    return mcdiarmid_entropy_constant(n_classes, m) * math.sqrt(math.log(1.0 / delta) / (2.0 * m))


@njit(cache=True)
def mcdiarmid_gini_bound(delta, m):
    """Gini gain: ``eps = 8 sqrt(ln(1/delta) / (2 m))`` (Rutkowski et al. 2013,
    Theorem 2, as cited; not printed in the C-Tree paper).  Gini ``1 - sum p^2``."""
    if m <= 0 or delta <= 0.0:
        return math.inf
    if delta >= 1.0:
        return 0.0
    return 8.0 * math.sqrt(math.log(1.0 / delta) / (2.0 * m))


@njit(RADIUS_SIG, cache=True)
def mcdiarmid_radius_kernel(params, n, ctx):
    """params = [delta, index (0: information gain, 1: Gini gain)]."""
    if params[1] == _ENTROPY:
        return mcdiarmid_entropy_bound(ctx[CTX_N_CLASSES], params[0], n)
    return mcdiarmid_gini_bound(params[0], n)


@njit(RULE_SIG, cache=True)
def mcdiarmid_rule(evidence, params):
    """Engine form: ``params = [tau, strict, gap factor, runner-up, delta, index]``."""
    eps = mcdiarmid_radius_kernel(params[P_RADIUS:], evidence[EV_N], context_of(evidence))
    return decide_evidence(evidence, params, eps)


class McDiarmidRule(DecisionRule):
    """McDiarmid-tree split rule (Rutkowski et al., IEEE TKDE 2013).

    Information gain (bits): ``eps = C(K, m) sqrt(ln(1/delta) / (2 m))`` with
    ``C(K, m) = 6 (K log2 e + log2 2m) + 2 log2 K`` (eq. (2) of the C-Tree
    paper); Gini gain: ``eps = 8 sqrt(ln(1/delta) / (2 m))``.  Split when
    ``best - second > eps``; no tie-break by default.

    Parameters
    ----------
    delta : float
    criterion : str or Criterion, optional
        "entropy" (information gain) or "gini"; None (default): the tree's merit.
    tau, two_eps, strict, runner_up
        The comparison (:mod:`treelab.split_criteria.rules.base`).
    """

    _engine_fn = mcdiarmid_rule

    def __init__(self, delta=1e-7, criterion=None, tau=None, two_eps=False, strict=True,
                 runner_up="other_feature"):
        self.delta = check_delta(delta)
        self.criterion = criterion
        if criterion is not None:
            self._index(merit_info(criterion))
        self.radius_func = mcdiarmid_radius_kernel
        self.radius_params = np.array([self.delta, np.nan])
        self._set_test(tau, two_eps, strict, runner_up)
        self.name = "mcdiarmid"

    @staticmethod
    def _index(info):
        if info is not None and info.decrease and info.family == "entropy":
            return _ENTROPY
        if info is not None and info.decrease and info.family == "gini":
            return _GINI
        name = "no merit" if info is None else repr(info.name)
        raise ValueError("McDiarmidRule supports criterion 'gini' or 'entropy' (information "
                         f"gain): Rutkowski et al. bound only those; got {name}")

    def radius_params_for(self, merit=None, n_classes=None):
        return np.array([self.delta, self._index(resolve_own_merit(self.criterion, merit))])

    def get_params(self, deep=True):
        return {"delta": self.delta, "criterion": self.criterion, "tau": self.tau,
                "two_eps": self.two_eps, "strict": self.strict, "runner_up": self.runner_up}
