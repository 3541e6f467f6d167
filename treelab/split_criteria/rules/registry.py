"""The one registry of split-decision rule names.

Every place that takes a rule by name -- ``HoeffdingTreeClassifier(rule=...)``,
``SGTClassifier(rule=...)`` (and the other SGT learners), the ablation runner
(:func:`treelab.experiment.run_ablation`) and the command line -- resolves it
here, so the names are the same everywhere:

=============  ===========================================  =====================
name           rule                                          learner values used
=============  ===========================================  =====================
``hoeffding``  :class:`HoeffdingRule` (VFDT; alias ``vfdt``)  ``delta``, ``tau``
``mcdiarmid``  :class:`McDiarmidRule` (Rutkowski et al.)      ``delta``
``ctree``      :class:`CTreeRule` (C-Tree; alias ``c-tree``)  ``delta``
``corrh``      :class:`HoeffdingRule` on the                  ``delta``, ``tau``
               classification-error merit (CorrH-Tree)
``ttest``      :class:`TTestRule` (SGT; alias ``t-test``)     ``delta``
=============  ===========================================  =====================

A learner passes its own ``delta`` / ``tau`` to the rule it names (the last
column); the rule is then bound to the learner's merit and classes
(:func:`treelab.split_criteria.rules.base.as_engine_rule`).  A name whose rule
does not apply to a learner's merit gets a ValueError saying why (e.g.
``"ctree"`` without ``c`` on SGT's loss reduction, which is none of the
paper's indices; pass ``CTreeRule(c=...)`` there).
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Tuple

from .base import DecisionRule
from .ctree import CTreeRule
from .hoeffding import HoeffdingRule
from .mcdiarmid import McDiarmidRule
from .ttest import TTestRule

__all__ = ["RuleEntry", "RULES", "rule_names", "rule_aliases", "lookup", "make_rule",
           "get_rule", "learner_rule"]


class RuleEntry(NamedTuple):
    """A named rule: its constructor, the merit it implies (if any), the learner
    values it takes, its aliases and a one-line description."""
    name: str
    factory: Callable
    merit: Optional[str]
    learner_values: Tuple[str, ...]
    aliases: Tuple[str, ...]
    doc: str


def _corrh(**params):
    return HoeffdingRule(criterion="classification_error", **params)


RULES = {e.name: e for e in (
    RuleEntry("hoeffding", HoeffdingRule, None, ("delta", "tau"), ("vfdt",),
              "VFDT's Hoeffding bound R sqrt(ln(1/delta)/2m), tie-break tau"),
    RuleEntry("mcdiarmid", McDiarmidRule, None, ("delta",), (),
              "Rutkowski et al.'s McDiarmid bounds (information gain, Gini)"),
    RuleEntry("ctree", CTreeRule, None, ("delta",), ("c-tree",),
              "C-Tree's confidence radii (eqs. 4-8), non-strict 2 eps test"),
    RuleEntry("corrh", _corrh, "classification_error", ("delta", "tau"), (),
              "CorrH-Tree: the Hoeffding bound on the classification-error merit"),
    RuleEntry("ttest", TTestRule, None, ("delta",), ("t-test",),
              "SGT's one-sample t-test of the merit"),
)}
_ALIASES = {a: e.name for e in RULES.values() for a in (e.name,) + e.aliases}


def rule_names():
    """The canonical rule names, in the registry's order."""
    return tuple(RULES)


def rule_aliases():
    """Every accepted spelling (lower case) and the canonical name it stands for."""
    return dict(_ALIASES)


def lookup(name):
    """The :class:`RuleEntry` of a rule name (case-insensitive, aliases accepted)."""
    if not isinstance(name, str):
        raise TypeError(f"a rule name must be a string, got {type(name).__name__}")
    try:
        return RULES[_ALIASES[name.lower()]]
    except KeyError:
        raise ValueError(f"unknown rule {name!r}; choose one of {list(rule_names())} "
                         "or pass a rule object") from None


def make_rule(name, merit=None, **params):
    """``(rule, merit)`` for a rule name: the rule object built with ``params``
    (its constructor's keywords, e.g. ``delta``, ``tau``, ``c``,
    ``runner_up``), and the merit to use -- the one the name implies
    (``corrh``: ``"classification_error"``) or else ``merit`` unchanged."""
    entry = lookup(name)
    rule = entry.factory(**params)
    return rule, (entry.merit if entry.merit is not None else merit)


def get_rule(rule, **params):
    """A rule object from a name (``params`` go to its constructor) or the object itself."""
    if isinstance(rule, str):
        return make_rule(rule, **params)[0]
    if params:
        raise TypeError("keyword arguments are only accepted with a rule name")
    if isinstance(rule, (DecisionRule, TTestRule)) or (
            hasattr(rule, "rule_fn") and hasattr(rule, "params")):
        return rule
    raise TypeError(f"rule must be a name or a decision rule object, got {type(rule).__name__}")


def learner_rule(rule, merit, default, **values):
    """``(rule object, merit)`` for a learner's ``rule`` parameter.

    ``rule``: None (the learner's ``default`` name), a name -- built with those
    of the learner's ``values`` (``delta``, ``tau``) the named rule takes -- or
    a rule object (used as given).  ``merit``: the learner's merit, replaced
    by the one a name implies (``corrh``).
    """
    if rule is None:
        rule = default
    if isinstance(rule, str):
        entry = lookup(rule)
        kw = {k: v for k, v in values.items() if k in entry.learner_values}
        return make_rule(rule, merit, **kw)
    return get_rule(rule), merit
