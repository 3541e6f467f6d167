"""Fixed numba signatures of the first-class functions the engine accepts.

A criterion (or, later, a loss or a decision rule) compiled with one of these
signatures can be passed into any cached kernel as a
``numba.types.FunctionType`` value without recompiling the kernel.
"""
from numba import types

__all__ = ["IMPURITY_SIG", "MERIT_SIG", "IMPURITY_TYPE", "MERIT_TYPE"]

#: impurity(stats) -> float
IMPURITY_SIG = types.float64(types.float64[::1])
#: merit(parent_stats, children_stats) -> float
MERIT_SIG = types.float64(types.float64[::1], types.float64[:, ::1])
IMPURITY_TYPE = types.FunctionType(IMPURITY_SIG)
MERIT_TYPE = types.FunctionType(MERIT_SIG)

#: split decision rule for streaming trees: rule(evidence, params) -> split?
#: ``evidence`` layout: see :mod:`treelab._engine.streaming` (EV_* constants)
RULE_SIG = types.boolean(types.float64[::1], types.float64[::1])
RULE_TYPE = types.FunctionType(RULE_SIG)
__all__ += ["RULE_SIG", "RULE_TYPE"]
