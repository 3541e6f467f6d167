"""Software prefetch for the gathers of a node's rows.

A node below the root holds rows scattered over the data (row ids in a
partitioned order), so the histogram and partition loops gather each row's
bin codes and statistics from cache lines that the hardware prefetcher cannot
predict.  The loop over a row's features issues so many stores that the
processor rarely reaches the next row's loads early enough to overlap their
misses: the histograms of a boosted tree's children (160,000 x 20 rows)
spent 2.5x the root's time per (row, feature) pair.  LightGBM issues
``PREFETCH_T0`` on the row a few iterations ahead (``dense_bin.hpp``); this
module gives numba kernels the same instruction: ``llvm.prefetch`` (read,
keep in all cache levels).  A prefetch never faults and changes no result:
only the index read for it (``samples[p + distance]``) must be in bounds.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types

from .jit import njit
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_at", "prefetch_targets", "prefetch_stop", "PREFETCH_DISTANCE",
           "PREFETCH_MIN_SPREAD"]

#: rows ahead of the current one that the gathering loops prefetch: 8, 16 and 32
#: gave the same time on a boosted tree's child histograms (half without)
PREFETCH_DISTANCE = 16

#: a node's rows are prefetched only when their ids are this many apart on
#: average (:func:`prefetch_stop`)
PREFETCH_MIN_SPREAD = 16


def _emit_prefetch(context, builder, aryty, ary_value, indices):
    ary = context.make_array(aryty)(context, builder, ary_value)
    ptr = cgutils.get_item_pointer(context, builder, aryty, ary, indices, wraparound=False)
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
    # (address, read = 0, locality 3 = keep in every level, data cache = 1)
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


@intrinsic
def prefetch(typingctx, arr, i):
    """Prefetch the cache line of ``arr[i]`` (a 1-D array) or of the first item
    of row ``i`` (``arr[i, 0, ...]``)."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        zero = context.get_constant(types.intp, 0)
        idx = [context.cast(builder, args[1], signature.args[1], types.intp)]
        return _emit_prefetch(context, builder, aryty, args[0], idx + [zero] * (aryty.ndim - 1))
    return sig, codegen


@intrinsic
def prefetch_at(typingctx, arr, i, j):
    """Prefetch the cache line of ``arr[i, j]`` (a 2-D array)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and isinstance(i, types.Integer)
            and isinstance(j, types.Integer)):
        return None
    sig = types.void(arr, i, j)

    def codegen(context, builder, signature, args):
        idx = [context.cast(builder, args[1], signature.args[1], types.intp),
               context.cast(builder, args[2], signature.args[2], types.intp)]
        return _emit_prefetch(context, builder, signature.args[0], args[0], idx)
    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def prefetch_targets(classification, yc, w, sstats, j):
    """Prefetch row ``j``'s targets: its class code and weight (``yc[j]``,
    ``w[j]``) when ``classification``, else its statistics row ``sstats[j]``."""
    if classification:
        prefetch(yc, j)
        prefetch(w, j)
    else:
        prefetch(sstats, j)


@njit(cache=True, nogil=True, inline="always")
def prefetch_stop(samples, start, end):
    """Where a loop over the rows ``samples[start:end]`` stops prefetching the row
    :data:`PREFETCH_DISTANCE` ahead: ``end - PREFETCH_DISTANCE`` when the rows
    are scattered (ascending row ids more than :data:`PREFETCH_MIN_SPREAD` apart
    on average, or not ascending), ``start`` (never) when they are dense.  A
    node's rows keep the data's order (stable partitions), so a dense node's
    rows are near each other and the hardware prefetcher finds them: the
    software prefetch only adds instructions there.  Measured on a histogram of
    160,000 x 20 codes with three statistics (one thread): the root 4.9 ms with
    prefetch, 4.0 ms without; 40,000 of its rows in order 1.27 / 1.06 ms; 10,000
    rows 0.35 / 0.36 ms; 2,500 rows 0.106 / 0.117 ms."""
    if end - start < 2:
        return start
    span = samples[end - 1] - samples[start]
    if span < 0 or (end - start) * PREFETCH_MIN_SPREAD < span:
        return end - PREFETCH_DISTANCE
    return start
