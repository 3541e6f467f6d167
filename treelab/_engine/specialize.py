"""Slim kernels per configuration: compile-time code paths.

numba compiles every function a kernel *can* call, whichever branch runs, so
one kernel that dispatches at run time on the kind of data (bins or raw
values), the merit (Newton or impurity), the cut-points (best or random) or
nominal features compiles all of them, and so does every kernel above it.
Here the engine's kernels branch on **path flags** instead -- module-level
constants, all True by default (every path compiled, the run-time test
choosing) -- and :func:`specialized` gives a copy of a kernel, and of every
kernel it calls that reads a flag, with some flags False.  numba prunes a
branch on a constant before it types anything (its dead-branch pruning), so
such a copy neither compiles nor links the paths it cannot take: a decision
tree on raw numeric values compiles no histogram, Newton, sparse, random-cut or
nominal code.

A kernel reads a flag as ``if WITH_HIST and D.use_hist:`` -- the constant
first, the run-time test kept -- so that the default (all True) behaves as
before and a copy only loses branches its configuration never takes.  Python
picks the flags from the data and the parameters
(:func:`.build.path_flags`), one place for every learner.

Copies are built once per process and cached on disk as any kernel, each under
its own name (the kernel's name and the flags it turned off).  A copy depends
only on the flags its kernel reads (:func:`flags_read`), so configurations that
differ elsewhere share it.
"""
from __future__ import annotations

import types as pytypes

from .jit import EngineDispatcher, EngineFunctionCache

__all__ = ["PATH_FLAGS", "specialized", "specialized_function", "flags_read",
           "WITH_HIST", "WITH_NEWTON", "WITH_SPARSE", "WITH_RANDOM", "WITH_NOMINAL",
           "WITH_PRESORT", "WITH_SAMPLES", "WITH_BITVECTOR", "WITH_HEAP", "WITH_LOCKSTEP",
           "WITH_WALK"]

#: binned data: histograms, bin codes (``BinnedData.use_hist``)
WITH_HIST = True
#: the Newton merit (gradient boosting's trees)
WITH_NEWTON = True
#: sparse binned rows (``BinnedData.sp_dflt`` not empty)
WITH_SPARSE = True
#: random cut-points (extra trees, completely random trees)
WITH_RANDOM = True
#: nominal features (category partitions, multiway splits)
WITH_NOMINAL = True
#: raw values in presorted per-feature segments (``LAYOUT_PRESORT``)
WITH_PRESORT = True
#: raw values gathered and sorted per node from one sample array (``LAYOUT_SAMPLES``)
WITH_SAMPLES = True

#: the forest predictor's walking layouts (:func:`.tree.pack_raw`): bitvectors,
#: complete heaps, the flat lockstep layout, the general node walk
WITH_BITVECTOR = True
WITH_HEAP = True
WITH_LOCKSTEP = True
WITH_WALK = True

#: every flag, in a fixed order (the names of the copies follow it)
PATH_FLAGS = ("WITH_HIST", "WITH_NEWTON", "WITH_SPARSE", "WITH_RANDOM", "WITH_NOMINAL",
              "WITH_PRESORT", "WITH_SAMPLES", "WITH_BITVECTOR", "WITH_HEAP", "WITH_LOCKSTEP",
              "WITH_WALK")
_FLAG_SET = frozenset(PATH_FLAGS)

_reads: dict = {}
_copies: dict = {}
_globals: dict = {}


def _code_names(co):
    names = set(co.co_names)
    for c in co.co_consts:
        if isinstance(c, pytypes.CodeType):
            names |= _code_names(c)
    return names


def _flags_read_py(py):
    got = _reads.get(py)
    if got is not None:
        return got
    _reads[py] = frozenset()        # (jitted functions do not recurse mutually)
    names = _code_names(py.__code__)
    g = py.__globals__
    got = set(names & _FLAG_SET)
    for n in names:
        if isinstance(g.get(n), EngineDispatcher):
            got |= _flags_read_py(g[n].py_func)
    got = frozenset(got)
    _reads[py] = got
    return got


def flags_read(kernel):
    """The path flags ``kernel`` (a jitted function or a Python function) reads,
    directly or through a kernel it calls by name."""
    return _flags_read_py(getattr(kernel, "py_func", kernel))


def _key(flags):
    unknown = set(flags) - _FLAG_SET
    if unknown:
        raise ValueError(f"unknown path flags {sorted(unknown)}")
    return tuple(bool(flags.get(name, True)) for name in PATH_FLAGS)


def _restrict(py, key):
    """``key`` with the flags ``py`` does not read set back to True: kernels that
    read the same flags share their copies (every exact-path learner one
    depth-first driver, whatever its split search)."""
    read = _flags_read_py(py)
    return tuple(on or name not in read for name, on in zip(PATH_FLAGS, key))


def _suffix(key):
    off = [name[5:].lower() for name, on in zip(PATH_FLAGS, key) if not on]
    return "__no_" + "_".join(off) if off else ""


def _variant_globals(base, key):
    """The globals of a module (``base``: its namespace) as the copies with
    flags ``key`` see them: the flags set, every kernel that reads one replaced
    by its copy."""
    g = _globals.get((id(base), key))
    if g is not None:
        return g
    g = dict(base)
    _globals[(id(base), key)] = (g)
    g.update(zip(PATH_FLAGS, key))
    for name, val in list(g.items()):
        if isinstance(val, EngineDispatcher) and _flags_read_py(val.py_func):
            g[name] = _copy(val, _restrict(val.py_func, key))
    return g


def _rebind(py, key):
    fn = pytypes.FunctionType(py.__code__, _variant_globals(py.__globals__, key), py.__name__,
                              py.__defaults__, py.__closure__)
    fn.__kwdefaults__ = py.__kwdefaults__
    fn.__qualname__ = py.__qualname__ + _suffix(key)
    fn.__module__ = py.__module__
    fn.__doc__ = py.__doc__
    return fn


def _copy(disp, key):
    ck = (id(disp), key)
    got = _copies.get(ck)
    if got is not None:
        return got[1]
    fn = _rebind(disp.py_func, key)
    new = EngineDispatcher(py_func=fn, locals=dict(disp.locals),
                           targetoptions=dict(disp.targetoptions))
    if type(disp._cache).__name__ != "NullCache":
        new._cache = EngineFunctionCache(fn)
    _copies[ck] = (disp, new)       # (the original kept alive: ids stay unique)
    return new


def specialized(kernel, **flags):
    """``kernel`` (a jitted function) compiled with the given path flags (the
    others True): itself when it reads none, else its copy."""
    key = _restrict(kernel.py_func, _key(flags))
    if all(key):
        return kernel
    return _copy(kernel, key)


def specialized_function(func, **flags):
    """A Python function to jit (a driver compiled with an explicit signature)
    with the given path flags: ``func`` itself, or a copy of it whose globals
    hold the flags and the specialized kernels."""
    key = _restrict(func, _key(flags))
    if all(key):
        return func
    return _rebind(func, key)
