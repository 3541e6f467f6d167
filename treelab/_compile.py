"""Visible, once-per-install compilation of treelab's kernels.

treelab's kernels are compiled by numba on first use and cached on disk
(``__pycache__`` beside each module, or numba's cache folder); later processes
load them in a fraction of a second.  ``import treelab`` compiles nothing.  On
a fresh install (or after the code kernels are built from changed, see
:mod:`treelab._engine.cache`) the first call of each learner family compiles
the kernels of its configuration (figures per family in :data:`FAMILIES`).
This module

* tells the user, in **one line on stderr**, when such a compilation starts
  (:func:`announce`, called by the learners before their first kernel call) -- only when
  numba's on-disk cache is really cold for that family (its index files are
  missing, stale or of another numba version), never when it only loads;
* says whether a family's kernels are in numba's cache
  (:func:`family_is_cached`; :mod:`treelab._warmup` compiles every family's
  kernels at once, ``treelab warmup``).

``TREELAB_COMPILE_NOTICE=0`` silences the notices.
"""
from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

__all__ = ["announce", "family_is_cached", "FAMILIES", "njit_maybe_cached"]

_ROOT = Path(os.path.abspath(__file__)).parent     # (as numba names the files)

#: learner families: what their first call compiles, the kernels whose on-disk
#: cache decides whether it is cold (``(file, qualname prefix)``), and about how
#: long the cold compilation of one configuration takes on 2 cores (seconds,
#: wall; ``benchmarks/bench_start.py`` measures them)
FAMILIES = {
    "decision_tree": dict(
        label="decision-tree kernels (ID3 / C4.5 / CART)", seconds=35,
        kernels=[("_engine/builder.py", "grow_depth_first"), ("_engine/builder.py", "decide_node"),
                 ("_engine/tree.py", "predict_value"),
                 ("_engine/pruning.py", "cost_complexity")]),
    "sgt": dict(
        label="Stochastic Gradient Tree kernels", seconds=45,
        kernels=[("_engine/sgt.py", "_learn_py"), ("_engine/tree.py", "_pack_lockstep"),
                 ("_engine/streaming.py", "_codes_serial")]),
    "gradient_boosting": dict(
        label="gradient-boosting kernels", seconds=200,
        kernels=[("_engine/builder.py", "grow_depth_first"), ("_engine/builder.py", "decide_node"),
                 ("_engine/best_first.py", "grow_best_first"),
                 ("_engine/splitter.py", "newton_hist_sweep"),
                 ("_engine/tree.py", "_pack_lockstep"), ("_engine/loss_kernels.py", "")]),
    "forests": dict(
        label="forest kernels on bins (splitter=\"hist\", \"best\" on data of few values, cascades)",
        seconds=135,
        kernels=[("_engine/column_builder.py", "grow_codes"),
                 ("_engine/tree.py", "forest_sum"), ("_engine/tree.py", "forest_sum_walk")]),
    "hoeffding": dict(
        label="Hoeffding tree kernels", seconds=40,
        kernels=[("_engine/hoeffding.py", "_learn_py"),
                 ("_engine/hoeffding.py", "_predict_proba_py"),
                 ("_engine/streaming.py", "_codes_serial")]),
}

#: learner module -> family (a learner's family is that of the first class in
#: its MRO defined in one of these modules)
_MODULE_FAMILY = {
    "treelab.learners.decision_tree": "decision_tree",
    "treelab.learners.sgt": "sgt",
    "treelab.learners.hoeffding": "hoeffding",
    "treelab.ensembles.gradient_boosting": "gradient_boosting",
}

_announced: set = set()


def _enabled():
    return os.environ.get("TREELAB_COMPILE_NOTICE", "1").strip().lower() not in (
        "0", "no", "false", "off")


def _cache_dir(py_file):
    """The folder numba caches ``py_file``'s kernels in and the source stamp it
    checks (:func:`treelab._engine.cache.locator_for`)."""
    from ._engine.cache import locator_for
    loc = locator_for(py_file)
    if loc is None:
        return None, None
    return Path(loc.get_cache_path()), loc.get_source_stamp()


def _kernel_cached(rel, prefix, root=_ROOT):
    """True when numba's on-disk cache holds a fresh compiled version of a function
    of ``<root>/<rel>`` (``root``: the treelab package) whose qualified name starts
    with ``prefix`` (any, when empty): an index file of this numba version,
    stamped with the current source, listing at least one compiled signature."""
    import numba
    py_file = Path(root) / rel
    folder, stamp = _cache_dir(py_file)
    if folder is None or not folder.is_dir():
        return False
    pattern = f"{py_file.stem}.{prefix}*.nbi"
    for index in folder.glob(pattern):
        try:
            with open(index, "rb") as f:
                version = pickle.load(f)
                if version != numba.__version__:
                    continue
                data = f.read()
            got_stamp, overloads = pickle.loads(data)
        except Exception:
            continue
        if got_stamp == stamp and overloads:
            return True
    return False


def family_is_cached(family):
    """True when every probe kernel of ``family`` is in numba's on-disk cache; None
    when that cannot be told (an unknown numba cache layout)."""
    try:
        return all(_kernel_cached(rel, prefix) for rel, prefix in FAMILIES[family]["kernels"])
    except Exception:
        return None


def _notice(family, extra=""):
    info = FAMILIES[family]
    print(f"treelab: compiling the {info['label']} (about {info['seconds']} s, once per "
          f"install; cached afterwards{extra}; `treelab warmup` compiles every learner)",
          file=sys.stderr, flush=True)


def family_of(estimator):
    for cls in type(estimator).__mro__:
        fam = _MODULE_FAMILY.get(getattr(cls, "__module__", ""))
        if fam is not None:
            return fam
    return None


def announce(estimator):
    """Before ``estimator``'s first kernel call in this process: one line on stderr
    when its family's kernels are not in numba's on-disk cache (they are about to
    be compiled).  Checked once per family and process (a few file reads).
    ``estimator`` may also be a family name (``"forests"``: the column builder,
    announced by the forests and cascades that are about to call it)."""
    fam = estimator if isinstance(estimator, str) else family_of(estimator)
    if fam is None or fam in _announced:
        return
    _announced.add(fam)
    if _enabled() and family_is_cached(fam) is False:
        _notice(fam)


def njit_maybe_cached(func, sig, cache=True):
    """``numba.njit(sig, cache=cache)(func)``; a function without a source file
    (defined in a REPL or by ``exec``) has no cache location and is compiled
    uncached instead of failing (used for users' criteria and losses)."""
    from ._engine.jit import njit
    py = getattr(func, "py_func", func)
    if cache:
        try:
            return njit(sig, cache=True)(py)
        except RuntimeError:  # numba: "no locator available for file ..."
            pass
    return njit(sig, cache=False)(py)
