"""The empty-cache compile check of ``tests/test_level_wise.py``.

Run as a script (:func:`start`, called by ``tests/conftest.py`` right after
collection so that it overlaps the rest of the suite) in a process whose numba
cache is empty: it grows one tree with the level-wise driver on two threads,
the first driver that process compiles, and prints its nodes as JSON.  The
test compares them with the depth-first and best-first trees of :func:`grow`
in the test process."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def grow(policy, n_threads):
    """Sorted ``(depth, feature, threshold, n_samples)`` of every node of the tree
    ``policy`` grows on 3,000 x 20 random rows (Newton criterion, depth 6, no
    leaf limit: every policy grows the same tree)."""
    import numpy as np

    from treelab._engine.binning import bin_data
    from treelab._engine.builder import make_params
    from treelab._engine.build import build_tree
    from treelab._engine.merit import TASK_DENSE
    from treelab._engine.tree import trim
    from treelab.split_criteria import NewtonCriterion, newton_stats
    rng = np.random.default_rng(1)
    n, d = 3000, 20
    X = rng.normal(size=(n, d))
    g = rng.normal(size=n) + X[:, 0]
    h = rng.uniform(0.5, 1.5, n)
    crit = NewtonCriterion(reg_lambda=1.0, min_child_weight=1.0)
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True)
    p = make_params(TASK_DENSE, 3, 6, 2, 1, 1.0, 0.0, d, False, crit.merit_code,
                    crit.builtin_code, n_threads=n_threads, seed=5)
    t = trim(build_tree(data, np.zeros(0, np.int64), newton_stats(g, h), np.ones(n), p,
                        crit.impurity, crit.merit, cp=crit.params, grow_policy=policy))
    m = t.sizes[0]
    return sorted(zip(t.depth[:m].tolist(), t.feature[:m].tolist(), t.threshold[:m].tolist(),
                      t.n_samples[:m].tolist()))


def start():
    """Start this script in a background process with an empty numba cache;
    returns ``(process, folder)``: the folder holds the cache, ``out.txt`` (the
    JSON nodes) and ``err.txt``."""
    folder = Path(tempfile.mkdtemp(prefix="treelab-first-compile-"))
    (folder / "cache").mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "cache"), TREELAB_COMPILE_NOTICE="0")
    here = Path(__file__).resolve()
    with open(folder / "out.txt", "w") as out, open(folder / "err.txt", "w") as err:
        proc = subprocess.Popen([sys.executable, str(here)], env=env, stdout=out, stderr=err,
                                cwd=str(here.parent))
    return proc, folder


def result(started, timeout=3000):
    """Wait for :func:`start`'s process; its nodes as a list of tuples."""
    proc, folder = started
    rc = proc.wait(timeout=timeout)
    if rc != 0:
        raise AssertionError("the empty-cache level-wise run failed:\n"
                             + (folder / "err.txt").read_text()[-3000:])
    return [tuple(v) for v in json.loads((folder / "out.txt").read_text())]


if __name__ == "__main__":
    print(json.dumps(grow("levelwise", 2)))
