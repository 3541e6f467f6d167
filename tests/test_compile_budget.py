"""What a fit compiles: only the code paths of its configuration.

Each check runs in a fresh interpreter (a kernel compiled or loaded by another
test would hide what this fit needs), fits one learner and lists the engine's
jitted functions that hold a compiled (or cache-loaded) version afterwards.
No timing: the budget is the set and the number of functions.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from treelab._engine import specialize

_LIST_LOADED = """
import json, sys
from numba.core.registry import CPUDispatcher
loaded = set()
for name, mod in list(sys.modules.items()):
    if not name.startswith("treelab"):
        continue
    for attr, val in list(vars(mod).items()):
        if isinstance(val, CPUDispatcher) and val.overloads:
            loaded.add(val.py_func.__qualname__)
from treelab._engine.specialize import _copies
from treelab._engine.build import _KERNELS
for copy in [c for _, c in _copies.values()] + list(_KERNELS.values()):
    if copy.overloads:
        loaded.add(copy.py_func.__qualname__)
print(json.dumps(sorted(loaded)))
"""


def _loaded_after(fit):
    code = ("import numpy as np, treelab\n"
            "rng = np.random.default_rng(0)\n"
            "X = rng.random((300, 4)); y = (X[:, 0] > 0.5).astype(int)\n"
            + textwrap.dedent(fit) + _LIST_LOADED)
    env = dict(os.environ, TREELAB_COMPILE_NOTICE="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_compiles_nothing():
    assert _loaded_after("") == set()


#: (name fragments) of kernels of other configurations
_NEWTON = ("newton_",)
_HIST = ("hist_build", "best_numeric_hist", "root_hist_counted", "children_histograms")
_SPARSE = ("small_node_entries", "sparse")
_RANDOM = ("random_numeric", "random_nominal")
_NOMINAL = ("best_nominal", "random_nominal")


#: set-up kernels every configuration runs (the workspace sizes the sparse rows'
#: scratch at run time: empty without them)
_SETUP = ("sparse_entry_scratch",)


def _none_of(loaded, fragments):
    """The loaded kernels whose name (without the copy's suffix) has a fragment."""
    return sorted(k for k in loaded if k not in _SETUP
                  and any(f in k.split("__no_")[0] for f in fragments))


def test_decision_tree_on_numeric_values_compiles_one_path():
    loaded = _loaded_after("treelab.DecisionTreeClassifier().fit(X, y).predict(X)")
    assert _none_of(loaded, _NEWTON + _HIST + _SPARSE + _RANDOM + _NOMINAL) == []
    assert _drivers(loaded) == ["grow_depth_first__no_hist"]
    assert _steps(loaded) == ["decide_node__no_hist_newton_sparse_random_nominal_samples"]
    # the budget: the functions one such fit compiles (numpy's and numba's own
    # implementations not counted)
    assert len(loaded) <= 40, sorted(loaded)


def _drivers(loaded):
    return sorted(k for k in loaded if k.startswith(("grow_depth_first", "grow_level_wise",
                                                     "grow_best_first")))


def _steps(loaded):
    return sorted(k for k in loaded if k.startswith("decide_node"))


def test_extra_trees_compile_random_cuts_only():
    loaded = _loaded_after(
        "treelab.ExtraTreesClassifier(n_estimators=2, n_jobs=1).fit(X, y).predict(X)")
    assert _none_of(loaded, _NEWTON + _HIST + _SPARSE + _NOMINAL) == []
    # the decision tree's driver: only the node step is of this configuration
    assert _drivers(loaded) == ["grow_depth_first__no_hist"]
    assert _steps(loaded) == ["decide_node__no_hist_newton_sparse_nominal_presort_samples"]


def test_boosting_compiles_no_exact_or_random_path():
    loaded = _loaded_after(
        "treelab.GradientBoostingClassifier(n_estimators=2).fit(X, y).predict(X)")
    assert _none_of(loaded, _RANDOM + ("_gather_sorted",)) == []
    assert _drivers(loaded) == ["grow_level_wise"]
    assert _steps(loaded) == ["decide_node__no_random_presort_samples"]
    # the prediction's traversal is compiled for the forest's one layout
    # (bitvectors, heaps, lockstep or the node walk): the three others are off
    raw = [k for k in loaded if k.startswith(("_forest_raw_serial_packed", "_forest_raw_packed"))]
    assert raw and all(len(k.split("__no_")[-1].split("_")) == 3 for k in raw), raw


def test_flags_of_a_configuration():
    """The flags Python picks follow the data and the parameters."""
    from types import SimpleNamespace as NS

    import numpy as np

    from treelab._engine.build import path_flags
    from treelab._engine.builder import LAYOUT_PRESORT, LAYOUT_SAMPLES
    from treelab._engine.merit import MERIT_NEWTON, TASK_CLASSIFICATION, TASK_DENSE
    from treelab._engine.splitter import SPLIT_BEST, SPLIT_RANDOM

    def data(hist, sparse=False, nominal=False):
        return NS(use_hist=hist, sp_dflt=np.zeros(3 if sparse else 0, np.int64),
                  is_nominal=np.array([False, nominal]))

    def params(mode=SPLIT_BEST, layout=LAYOUT_PRESORT, merit=0, task=TASK_CLASSIFICATION):
        return NS(split_mode=mode, layout=layout, merit_code=merit, task=task)

    def off(flags):
        return sorted(k[5:].lower() for k, v in flags.items() if not v)

    assert off(path_flags(data(False), params())) == [
        "hist", "newton", "nominal", "random", "samples", "sparse"]
    assert off(path_flags(data(False, nominal=True), params(layout=LAYOUT_SAMPLES))) \
        == ["hist", "newton", "presort", "random", "sparse"]
    assert off(path_flags(data(False), params(mode=SPLIT_RANDOM))) == [
        "hist", "newton", "nominal", "presort", "samples", "sparse"]
    # Newton drivers (minutes to compile) take nominal features whatever the data
    assert off(path_flags(data(True), params(merit=MERIT_NEWTON, task=TASK_DENSE))) \
        == ["presort", "random", "samples"]
    assert off(path_flags(data(True), params())) == [
        "newton", "nominal", "presort", "random", "samples"]


@pytest.mark.parametrize("flags,suffix", [
    ({}, ""),
    ({"WITH_HIST": False}, "__no_hist"),
    ({"WITH_NEWTON": False, "WITH_RANDOM": False}, "__no_newton_random"),
])
def test_copies_named_after_the_paths_they_drop(flags, suffix):
    from treelab._engine.builder import find_best_split
    k = specialize.specialized(find_best_split, **flags)
    assert k.py_func.__qualname__ == "find_best_split" + suffix
    assert (k is find_best_split) == (suffix == "")
    assert specialize.specialized(find_best_split, **flags) is k      # built once


def test_copies_depend_on_the_flags_a_kernel_reads():
    """A driver reads only the binned-or-raw flag (the node step, passed to it,
    reads the others): configurations that differ elsewhere share its copy."""
    from treelab._engine.build import get_build_kernel
    from treelab._engine.builder import grow_depth_first

    assert specialize.flags_read(grow_depth_first) == {"WITH_HIST"}
    assert specialize.specialized_function(grow_depth_first, WITH_RANDOM=False) \
        is grow_depth_first
    exact = dict(WITH_HIST=False, WITH_NEWTON=False, WITH_SPARSE=False)
    assert get_build_kernel("depthwise", dict(exact, WITH_RANDOM=False)) \
        is get_build_kernel("depthwise", dict(exact, WITH_NOMINAL=False))


def test_unknown_flag_is_refused():
    from treelab._engine.builder import find_best_split
    with pytest.raises(ValueError, match="unknown path flags"):
        specialize.specialized(find_best_split, WITH_GPU=False)
