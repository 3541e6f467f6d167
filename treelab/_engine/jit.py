"""treelab's ``njit``: numba's, without a specialization per literal argument,
cached by the code kernels are built from (:mod:`.cache`).

Numba types a constant argument of a call between jitted functions as a
literal (``f(x, 0)`` -> ``Literal[int](0)``) and compiles the callee once per
literal value it is called with, beside the ``int64`` version other call
sites need; a variable typed first from its initial constant
(``top = 1; while ...: top = grow(..., top)``) compiles its callee twice, as
``Literal[int](1)`` and as ``int64``.  A kernel called from several places
thus compiled up to five times, and every inlined helper with it: a cold
install spent more than half of the gradient-boosting and extra-trees kernels'
compile time on such copies (64 extra specializations in the boosting family,
the column builder's node loop twice).

:func:`njit` is ``numba.njit`` with one change: a call from jitted code types
the callee on the arguments' non-literal types (``types.unliteral``), so each
kernel compiles once per real signature.  Everything else (options, explicit
signatures, ``inline="always"``, first-class function types) is numba's; an
on-disk cache (``cache=True``) is numba's, its entries keyed by
:func:`.cache.code_stamp`.  A kernel that needs a literal argument (a static tuple index) must
not use it; none in treelab does.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.core import config, sigutils, types
from numba.core.registry import CPUDispatcher

from .cache import EngineFunctionCache

__all__ = ["njit", "EngineDispatcher", "U0", "U1"]


class EngineDispatcher(CPUDispatcher):
    """A CPU dispatcher whose call sites in jitted code drop literal types, and
    whose declared signatures compile on first use, not at import."""

    #: signatures declared with the kernel and not compiled yet: compiled (or
    #: loaded from the disk cache), then compilation disabled, on first use --
    #: so ``import treelab`` compiles nothing and a fit compiles the criteria,
    #: rules and losses it uses, not all of them
    _declared = ()

    def _compile_declared(self):
        sigs = self._declared
        if sigs:
            self._declared = ()
            numba.get_num_threads()        # (see compile)
            from numba.core import typeinfer
            with typeinfer.register_dispatcher(self):
                for sig in sigs:
                    super().compile(sig)
            self.disable_compile()

    def compile(self, sig):
        # numba's threading layer, launched before any kernel is compiled or
        # loaded: a kernel loaded from the disk cache that runs a parallel
        # region calls into it without launching it (a call to a null address
        # when nothing in the process launched it before)
        numba.get_num_threads()
        self._compile_declared()
        if not self._can_compile:
            args, _ = sigutils.normalize_signature(sig)
            existing = self.overloads.get(tuple(args))
            if existing is not None:
                return existing.entry_point
        return super().compile(sig)

    def _compile_for_args(self, *args, **kws):
        if self._declared:
            self._compile_declared()
            # (numba calls what this returns: the dispatcher again, which now
            # finds the declared overloads, or raises numba's no-match error)
            return self._call_again
        return super()._compile_for_args(*args, **kws)

    def _call_again(self, *args, **kws):
        return self(*args, **kws)

    @property
    def signatures(self):
        self._compile_declared()
        return super().signatures

    @property
    def nopython_signatures(self):
        self._compile_declared()
        return super().nopython_signatures

    def get_call_template(self, args, kws):
        self._compile_declared()
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def njit(signature_or_function=None, locals=None, cache=False, **options):
    """``numba.njit`` (same arguments) returning an :class:`EngineDispatcher`."""
    if config.DISABLE_JIT:
        return numba.njit(signature_or_function, locals=locals or {}, cache=cache, **options)
    options["nopython"] = True
    options.setdefault("boundscheck", None)
    if signature_or_function is None:
        func, sigs = None, None
    elif isinstance(signature_or_function, list):
        func, sigs = None, signature_or_function
    elif sigutils.is_signature(signature_or_function):
        func, sigs = None, [signature_or_function]
    else:
        func, sigs = signature_or_function, None

    def wrapper(f):
        disp = EngineDispatcher(py_func=f, locals=dict(locals or {}), targetoptions=options)
        if cache:
            # numba's enable_caching(), with the package's code-keyed locator
            disp._cache = EngineFunctionCache(disp.py_func)
        if sigs is not None:
            disp._declared = tuple(sigs)
        return disp

    return wrapper(func) if func is not None else wrapper


#: unsigned 0 and 1 for index arithmetic in hot loops.  Numba wraps a negative
#: signed index around (``a[-1]`` is the last element): every access through an
#: ``int64`` it cannot prove non-negative -- a row id read from ``samples``, a
#: position in ``range(start, end)`` -- pays a compare and a select, which kept
#: the partitions and node histograms from vectorizing or pipelining well.  The
#: kernels index by ``np.uint64`` positions and rows there instead (same
#: elements, same sums; 1.3-2x faster loops, see :func:`.builder.split_codes`).
#: Mind numba's typing: ``uint64 + int64`` is ``float64``, so such arithmetic
#: converts both sides.
U0 = np.uint64(0)
U1 = np.uint64(1)
