"""SGT's split test (Gouk, Pfahringer & Frank, "Stochastic Gradient Trees",
ACML 2019): a one-sample Student t-test of the mean per-instance merit (the
loss reduction), split when its two-sided p-value is below ``delta`` and the
mean is positive.

On an SGT the merit's variance comes from the gradient / Hessian moments
(the paper's eq. 18); on a Hoeffding tree the merit is the impurity decrease
and its per-instance variance is the jackknife estimate
(:mod:`treelab._engine.hoeffding`).  The test looks at the best candidate
only (no runner-up).
"""
from __future__ import annotations

import numpy as np

from ..._engine.jit import njit
from ..._engine.signatures import RULE_SIG
from ..._engine.streaming import EV_MERIT, EV_N, EV_VAR
from ..._engine.student_t import one_sample_t_test
from .base import check_delta

__all__ = ["ttest_rule", "TTestRule"]


@njit(RULE_SIG, cache=True)
def ttest_rule(evidence, params):
    """Split when the mean merit is positive and its t-test p-value < ``params[0]``."""
    merit = evidence[EV_MERIT]
    if not merit > 0.0:
        return False
    p = one_sample_t_test(merit, evidence[EV_VAR], evidence[EV_N])
    return p < params[0]


class TTestRule:
    """SGT's split test: a one-sample t-test of the mean per-instance merit,
    split when p < ``delta`` and the merit is positive (Gouk et al. 2019)."""

    name = "ttest"

    def __init__(self, delta=1e-7):
        self.delta = delta

    @property
    def rule_fn(self):
        return ttest_rule

    @property
    def params(self):
        return np.array([check_delta(self.delta)])

    def get_params(self, deep=True):
        return {"delta": self.delta}

    def set_params(self, **params):
        for k, v in params.items():
            if k != "delta":
                raise ValueError(f"invalid parameter {k!r} for TTestRule")
            self.delta = v
        return self

    def __eq__(self, other):
        return type(other) is type(self) and other.delta == self.delta

    def __hash__(self):
        return hash((type(self).__name__, self.delta))

    def __repr__(self):
        return f"TTestRule(delta={self.delta!r})"
