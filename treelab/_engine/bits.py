"""Bit operations LLVM has as intrinsics and numba does not expose.

:func:`lowest_set_bit` is ``llvm.cttz.i64`` (count trailing zeros: one ``tzcnt``
/ ``bsf`` instruction), which the bitvector forest traversal
(:func:`.tree._forest_raw_bitvector`) uses to find a row's exit leaf.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["lowest_set_bit"]


@intrinsic
def lowest_set_bit(typingctx, x):
    """The index of the lowest set bit of the uint64 ``x`` (64 for ``x = 0``)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
        # (is_zero_poison = false: 0 gives 64)
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
    return sig, codegen
