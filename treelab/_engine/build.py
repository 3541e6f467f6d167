"""Build one tree: pick the kernels for a configuration and run its grower.

:func:`path_flags` reads the code paths a configuration can take off the data
and the parameters; :func:`get_build_kernel` compiles (or loads) the growth
policy's driver with those paths only (:mod:`.specialize`); :func:`build_tree`
runs it.  The growers: depth-first (:func:`.builder.grow_depth_first`),
level-wise (:func:`.level_wise.grow_level_wise`) and best-first
(:func:`.best_first.grow_best_first`), all over the same node step.
"""
from __future__ import annotations

import numpy as np
from numba import typeof, types

from .best_first import grow_best_first
from .binning import dummy_binned_data
from .builder import (LAYOUT_SAMPLES, TASK_CLASSIFICATION, decide_node, empty_pool,
                      grow_depth_first, make_params, new_pool, new_workspace, reuse_pool,
                      small_node_rows)
from .jit import njit
from .level_wise import grow_level_wise, level_step, max_slots
from .merit import MERIT_NEWTON
from .signatures import IMPURITY_SIG, IMPURITY_TYPE, MERIT_SIG, MERIT_TYPE, function_pointer
from .specialize import flags_read, specialized, specialized_function
from .splitter import SPLIT_RANDOM
from .tree import new_tree

__all__ = ["path_flags", "get_build_kernel", "node_step", "level_step_function", "build_tree",
           "pool_for", "GROW_POLICIES", "MAX_POOL_LEAVES"]


def path_flags(data, params):
    """The path flags of growing a tree with ``params`` (``BuildParams``) on
    ``data`` (``BinnedData``): the paths it can take, every other one off.

    The kind of values (bins or raw), the merit (Newton or not), the cut-points
    (best or random) and the exact layout each choose a driver.  Two paths
    follow the data only where a driver is cheap to compile: nominal features
    (compiled for every Newton driver, which costs minutes: one boosting
    driver per growth policy, whatever the data) and sparse rows (compiled
    with every binned driver)."""
    hist = bool(data.use_hist)
    random = params.split_mode == SPLIT_RANDOM
    samples_layout = params.layout == LAYOUT_SAMPLES
    newton = params.merit_code == MERIT_NEWTON and params.task != TASK_CLASSIFICATION
    return dict(
        WITH_HIST=hist,
        WITH_NEWTON=newton,
        WITH_SPARSE=hist,
        WITH_RANDOM=random,
        WITH_NOMINAL=newton or bool(data.is_nominal.any()),
        WITH_PRESORT=not hist and not random and not samples_layout,
        WITH_SAMPLES=not hist and not random and samples_layout,
    )


_KERNELS = {}
_STEPS = {}
_TYPES = {}
#: growth policy -> driver (a Python function compiled by :func:`get_build_kernel`)
GROW_POLICIES = {"depthwise": grow_depth_first, "levelwise": grow_level_wise,
                 "lossguide": grow_best_first}


def _driver_types():
    """The numba types of the drivers' arguments (binned data, parameters, pool)
    and of the node step's (:func:`node_step`)."""
    got = _TYPES.get("types")
    if got is None:
        D = typeof(dummy_binned_data())
        P = typeof(make_params(0, 1, 1, 2, 1, 0.0, 0.0, 1, False, 0,
                               feature_mask=np.zeros((1, 1), np.bool_)))
        pool = typeof(empty_pool())
        T = typeof(new_tree(1, 1, 1))
        i64, f64, i1 = types.int64, types.float64, types.int64[::1]
        # the workspace and pool as the drivers make them (new_workspace, reuse_pool)
        new_workspace.compile((D, i1, P))
        ws = new_workspace.overloads[(D, i1, P)].signature.return_type
        # (as the depth-first driver calls it: the slots' count left to its default)
        reuse_pool.compile((D, P, pool, types.Omitted(0)))
        hp = next(c.signature.return_type for a, c in reuse_pool.overloads.items()
                  if a[:3] == (D, P, pool))
        step = (D, P, types.float64[::1], ws, hp, i1, types.float64[:, ::1], types.float64[::1],
                i64, i64, i64, T.types[T.fields.index("value")], i64, f64, f64, f64, i64,
                IMPURITY_TYPE, MERIT_TYPE, types.boolean, types.boolean)
        got = _TYPES["types"] = (D, P, pool, T, step)
    return got


def node_step(flags=None):
    """The node step (:func:`.builder.decide_node`) compiled for the code paths
    ``flags`` (loaded from the disk cache) as a first-class function value the
    drivers call.  Passed, not called by name, it is compiled once per
    configuration and never linked into a driver: numba re-optimises every
    kernel a function calls by name as part of that function (each driver, and
    the level-wise threads' parallel wrapper, would compile it again)."""
    flags = dict(flags or {})
    key = tuple(sorted(flags.items()))
    got = _STEPS.get(key)
    if got is None:
        args = _driver_types()[4]
        kern = specialized(decide_node, **flags)
        kern.compile(args)
        got = _STEPS[key] = function_pointer(kern, kern.overloads[args].signature)
    return got


def _level_step_args():
    D, P, _, _, step = _driver_types()
    i1, i2 = types.int64[::1], types.int64[:, ::1]
    return (D, P, step[3], step[4], i1, types.float64[:, ::1], types.float64[::1], i1, i2,
            types.int64, i1, i1, i1, types.int64, i2, types.int64, i1)


def level_step_function(used=True):
    """The level-wise and best-first drivers' partition and histogram step
    (:func:`.level_wise.level_step`) compiled with its explicit signature (loaded
    from the disk cache) as a first-class function value: compiled once, for
    every configuration on bins, and never linked into a driver.  ``used``
    False: a stub of the same type, for those drivers on raw values (they never
    call it), which compiles none of the histogram kernels."""
    key = "level" if used else "no level"
    got = _STEPS.get(key)
    if got is None:
        args = _level_step_args()
        kern = level_step if used else _no_level_step
        kern.compile(types.boolean(*args))
        got = _STEPS[key] = function_pointer(kern, kern.overloads[args].signature)
    return got


@njit(cache=True, nogil=True)
def _no_level_step(D, P, ws, hp, yc, sstats, w, tmp_r, parts, n_parts, b_start, b_end, b_slot,
                   n_b, tasks, n_tasks, leaf_of_row):
    return True


def get_build_kernel(grow_policy="depthwise", flags=None):
    """A driver compiled with its explicit signature (loaded from the disk cache):
    ``kernel(data, yc, sstats, w, rows, params, cp, imp_fn, merit_fn, leaf_of_row, pool,
    decide[, level]) -> TreeArrays``.  ``flags``: the code paths it may take
    (:func:`~.specialize.path_flags`; default: every one); ``decide``: the node
    step for the same flags (:func:`node_step`); ``level`` (level-wise and
    best-first growth): :func:`level_step_function`."""
    if grow_policy not in GROW_POLICIES:
        raise ValueError(f"grow_policy must be one of {sorted(GROW_POLICIES)}, "
                         f"got {grow_policy!r}")
    flags = dict(flags or {})
    # (a driver's copy depends on the flags it reads: the node step's are its own)
    read = flags_read(GROW_POLICIES[grow_policy])
    key = (grow_policy, tuple(sorted((k, v) for k, v in flags.items() if k in read)))
    kern = _KERNELS.get(key)
    if kern is None:
        D, P, pool, T, _ = _driver_types()
        args = (D, types.int64[::1], types.float64[:, ::1], types.float64[::1], types.int64[::1],
                P, types.float64[::1], IMPURITY_TYPE, MERIT_TYPE, types.int64[::1], pool,
                typeof(node_step(flags)))
        if grow_policy != "depthwise":
            args += (typeof(level_step_function(False)),)
        sig = T(*args)
        kern = njit(sig, cache=True, nogil=True)(
            specialized_function(GROW_POLICIES[grow_policy], **flags))
        _KERNELS[key] = kern
    return kern


def build_tree(data, yc, sstats, w, params, imp_fn, merit_fn, cp=None, rows=None,
               grow_policy="depthwise", leaf_of_row=None, pool=None):
    """Grow one tree on ``data`` (:data:`~.binning.BinnedData`) with ``params``
    (:data:`BuildParams`).  ``rows``: the row ids to use (default: all);
    ``cp``: criterion parameters (default: none); ``leaf_of_row``: an int64 array
    (one entry per row of ``data``) that receives the leaf of each row grown on;
    ``pool``: a histogram pool (:func:`pool_for`) that this call may reuse --
    the caller's to keep from one tree to the next, never shared by two trees
    growing at once."""
    if rows is None:
        rows = np.arange(data.X.shape[0], dtype=np.int64)
    if cp is None:
        cp = np.zeros(1)
    flags = path_flags(data, params)
    kern = get_build_kernel(grow_policy, flags)
    # the criterion's functions as cached first-class values: a dispatcher passed as
    # a FunctionType argument costs a compile-result and symbol lookup on every
    # call (~0.3 ms each: 3 % of a boosting round on 160,000 rows)
    imp_fn = function_pointer(imp_fn, IMPURITY_SIG)
    merit_fn = function_pointer(merit_fn, MERIT_SIG)
    if leaf_of_row is None:
        leaf_of_row = _NO_LEAVES
    elif leaf_of_row.dtype != np.int64 or leaf_of_row.shape != (data.X.shape[0],) or \
            not leaf_of_row.flags.c_contiguous:
        raise ValueError("leaf_of_row must be a contiguous int64 array with one entry per row")
    args = (data, yc, sstats, w, np.ascontiguousarray(rows, dtype=np.int64), params,
            np.ascontiguousarray(cp, dtype=np.float64), imp_fn, merit_fn, leaf_of_row,
            _NO_POOL if pool is None else pool, node_step(flags))
    if grow_policy != "depthwise":
        # (raw values: the drivers never call it -- a stub, no histogram kernel)
        args += (level_step_function(bool(data.use_hist)),)
    return kern(*args)


def pool_for(data, params, grow_policy="depthwise", n_rows=None):
    """A histogram pool for a caller to pass to :func:`build_tree` tree after
    tree (one per thread), with the slots a tree of ``params`` grown by
    ``grow_policy`` on ``n_rows`` rows (default: all) needs at once; None without
    bins."""
    if not data.use_hist:
        return None
    n = data.X.shape[0] if n_rows is None else n_rows
    slots = 0
    if grow_policy == "lossguide" and params.max_leaves <= MAX_POOL_LEAVES:
        # a histogram per frontier leaf, plus the child built while splitting
        slots = params.max_leaves + 2
    elif grow_policy == "levelwise":
        slots = max_slots(params.max_depth, n // small_node_rows(True, data.n_bins))
    pool = new_pool(data, params, slots)
    if params.n_stats == 3 and params.task != TASK_CLASSIFICATION:
        # the scratch of histogram.subtract_rows (the drivers' splits use it on one
        # thread): numpy's zeros come as untouched pages, only the bins it uses are
        # faulted in
        pool = pool._replace(zero=np.zeros(pool.hist.shape[1:], np.float64))
    return pool


#: :func:`pool_for` sizes a best-first pool for ``max_leaves`` up to this; more
#: (or no limit): the default size, doubled on demand within each tree
MAX_POOL_LEAVES = 1024

_NO_LEAVES = np.zeros(0, np.int64)
_NO_POOL = empty_pool()



