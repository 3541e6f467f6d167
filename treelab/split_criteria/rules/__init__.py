"""Split-decision rules for streaming trees, one module per paper.

* :mod:`.base`: :class:`DecisionRule` (a confidence radius and the test that
  uses it: ``eps`` or ``2 eps``, strict or not, tie-break, runner-up), the
  engine adaptor :func:`as_engine_rule` and the signatures a user's radius is
  compiled with;
* :mod:`.hoeffding`: VFDT's Hoeffding bound (Domingos & Hulten 2000; eq. (1)
  of the C-Tree paper), also the CorrH-Tree baseline;
* :mod:`.mcdiarmid`: Rutkowski et al.'s McDiarmid bounds (eq. (2) of the
  C-Tree paper);
* :mod:`.ctree`: De Rosa & Cesa-Bianchi's C-Tree radii, eqs. (4)-(8);
* :mod:`.ttest`: SGT's t-test (Gouk et al. 2019);
* :mod:`.registry`: the one table of rule names (:func:`rule_names`).
"""
from .base import (
    CTX_DEPTH, CTX_N_BRANCHES, CTX_N_CLASSES, CTX_N_FEATURES, CTX_SIZE, CTX_T, LOSS_REDUCTION,
    RADIUS_SIG, RADIUS_TYPE, RUNNER_UPS, DecisionRule, EngineRule, MeritInfo, as_engine_rule,
    compile_radius, decide_split, make_context, merit_info,
)
from .ctree import (
    PAPER_SCALE, CTreeRule, ctree_delta_schedule, ctree_entropy_radius, ctree_gini_radius,
    ctree_km_radius, ctree_practical_entropy_radius, ctree_practical_radius,
    ctree_radius_kernel, ctree_rule, paper_scale,
)
from .hoeffding import (
    HoeffdingRule, hoeffding_bound, hoeffding_n_required, hoeffding_radius_kernel,
    hoeffding_rule,
)
from .mcdiarmid import (
    McDiarmidRule, mcdiarmid_entropy_bound, mcdiarmid_entropy_constant, mcdiarmid_gini_bound,
    mcdiarmid_radius_kernel, mcdiarmid_rule,
)
from .registry import RULES, get_rule, learner_rule, lookup, make_rule, rule_aliases, rule_names
from .ttest import TTestRule, ttest_rule

__all__ = [
    "DecisionRule", "HoeffdingRule", "McDiarmidRule", "CTreeRule", "TTestRule",
    "EngineRule", "as_engine_rule", "MeritInfo", "merit_info", "LOSS_REDUCTION",
    "RADIUS_SIG", "RADIUS_TYPE", "compile_radius", "make_context", "decide_split",
    "CTX_DEPTH", "CTX_T", "CTX_N_FEATURES", "CTX_N_CLASSES", "CTX_N_BRANCHES", "CTX_SIZE",
    "RUNNER_UPS",
    "hoeffding_bound", "hoeffding_n_required", "hoeffding_radius_kernel", "hoeffding_rule",
    "mcdiarmid_entropy_constant", "mcdiarmid_entropy_bound", "mcdiarmid_gini_bound",
    "mcdiarmid_radius_kernel", "mcdiarmid_rule",
    "ctree_entropy_radius", "ctree_gini_radius", "ctree_km_radius", "ctree_delta_schedule",
    "ctree_practical_radius", "ctree_practical_entropy_radius", "ctree_radius_kernel",
    "ctree_rule", "PAPER_SCALE", "paper_scale",
    "ttest_rule",
    "RULES", "rule_names", "rule_aliases", "lookup", "make_rule", "get_rule", "learner_rule",
]
