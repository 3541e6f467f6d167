"""Engine contracts: fixed numba signatures of the first-class functions the
engine accepts (criteria, decision rules, losses) and the streaming evidence layout.

A criterion (or, later, a loss or a decision rule) compiled with one of these
signatures can be passed into any cached kernel as a
``numba.types.FunctionType`` value without recompiling the kernel.
"""
from numba import types
from numba.core.types.function_type import CompileResultWAP
from numba.extending import typeof_impl

__all__ = ["IMPURITY_SIG", "MERIT_SIG", "IMPURITY_TYPE", "MERIT_TYPE"]

#: impurity(stats) -> float
IMPURITY_SIG = types.float64(types.float64[::1])
#: merit(parent_stats, children_stats) -> float
MERIT_SIG = types.float64(types.float64[::1], types.float64[:, ::1])
IMPURITY_TYPE = types.FunctionType(IMPURITY_SIG)
MERIT_TYPE = types.FunctionType(MERIT_SIG)

#: split decision rule for streaming trees: rule(evidence, params) -> split?
#: ``evidence`` layout: the EV_* constants below
RULE_SIG = types.boolean(types.float64[::1], types.float64[::1])
RULE_TYPE = types.FunctionType(RULE_SIG)
__all__ += ["RULE_SIG", "RULE_TYPE"]

#: loss derivatives: grad_hess(y, raw, grad, hess) -> None (see :mod:`treelab.losses`)
#: y float64[::1] targets, raw / grad / hess float64[:, ::1] (n_samples, n_outputs)
GRAD_HESS_SIG = types.void(types.float64[::1], types.float64[:, ::1],
                           types.float64[:, ::1], types.float64[:, ::1])
GRAD_HESS_TYPE = types.FunctionType(GRAD_HESS_SIG)
#: a user's scalar ``grad(y, raw)`` / ``hess(y, raw)`` / ``value(y, raw)``
SCALAR_SIG = types.float64(types.float64, types.float64)
SCALAR_TYPE = types.FunctionType(SCALAR_SIG)
__all__ += ["GRAD_HESS_SIG", "GRAD_HESS_TYPE", "SCALAR_SIG", "SCALAR_TYPE"]

# ---- streaming evidence layout: the vector a decision rule (RULE_SIG) receives ----
EV_MERIT = 0     # merit of the best candidate (higher is better; SGT: mean loss reduction)
EV_SECOND = 1    # merit of the runner-up: best split of another feature, or "no split"
EV_N = 2         # instances seen by the leaf since its statistics were reset
EV_VAR = 3       # variance of the per-instance merit of the best candidate (SGT)
EV_DEPTH = 4     # depth of the leaf
EV_T = 5         # instances seen by the whole tree
EV_D = 6         # number of features
EV_K = 7         # number of classes / outputs
EV_BRANCHES = 8  # branches of the best candidate (0: the best is "no split")
EV_SECOND_ANY = 9     # runner-up among *all* other splits (other thresholds of the best
#                       feature too) or "no split" (Hoeffding engine; SGT: not computed)
EV_MAX_BRANCHES = 10  # most branches of any candidate compared (Hoeffding engine; SGT: 0)
EV_SIZE = 11
__all__ += ["EV_MERIT", "EV_SECOND", "EV_N", "EV_VAR", "EV_DEPTH", "EV_T", "EV_D", "EV_K",
            "EV_BRANCHES", "EV_SECOND_ANY", "EV_MAX_BRANCHES", "EV_SIZE"]


_WAP_CACHE = {}


class TypedWAP(CompileResultWAP):
    """numba's ``CompileResultWAP`` keeping its ``FunctionType``: numba types a
    first-class function argument anew on every call (``FunctionType(sig)``:
    11 us here, most of a small kernel call's 19 us); this one is typed once
    (1.5 us a call after; the same type)."""
    numba_type = None


@typeof_impl.register(TypedWAP)
def _typeof_typed_wap(val, c):
    t = val.numba_type
    if t is None:
        t = val.numba_type = types.FunctionType(val.signature())
    return t


def function_pointer(func, sig):
    """``func`` (a dispatcher compiled with ``sig``) as a first-class function value
    whose address is looked up, and whose numba type is made, once per process:
    passing it to a kernel costs about a microsecond instead of a dispatcher
    lookup on every call (which matters for per-instance streaming calls such as
    ``learn_one``)."""
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
        wap = (func, TypedWAP(cres))
        _WAP_CACHE[key] = wap
    return wap[1]
