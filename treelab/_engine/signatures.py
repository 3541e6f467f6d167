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


_WAP_CACHE = {}


def function_pointer(func, sig):
    """``func`` (a dispatcher compiled with ``sig``) as a first-class function value
    whose address is looked up once per process: passing it to a kernel costs
    nanoseconds instead of a dispatcher lookup on every call (which matters for
    per-instance streaming calls such as ``learn_one``)."""
    from numba.core.types.function_type import CompileResultWAP
    key = (id(func), id(sig))
    wap = _WAP_CACHE.get(key)
    if wap is None or wap[0] is not func:
        py = getattr(func, "py_func", None)
        if py is None or not hasattr(func, "overloads"):
            return func
        cres = func.overloads.get(tuple(sig.args))
        if cres is None:
            func.compile(sig)
            cres = func.overloads[tuple(sig.args)]
        wap = (func, CompileResultWAP(cres))
        _WAP_CACHE[key] = wap
    return wap[1]
