"""Shared by ``experiments/gcforest_mnist.py`` and ``benchmarks/bench_cascade.py``:
data sets, forest lists (treelab's or scikit-learn's) and one fit measured in a
fresh Python process (wall time of ``fit``, accuracy / R^2, peak resident memory).

Peak memory is the child's resident high-water mark during ``fit`` minus its
resident size just before ``fit`` (after imports, data loading and a 2-tree
warm-up fit on 300 rows, and a prediction on 30,000 rows, that load the cached
numba kernels): what the fit itself added at its peak.  The high-water mark is
reset after the warm-up (Linux ``/proc/self/clear_refs``, else ``ru_maxrss``),
so the warm-up's prediction does not count as the fit's peak.
``fit_cpu_s`` is the process's CPU time during the fit (all threads): on a
busy machine it is a steadier measure of the work than the wall time, which
waits for the other processes.

MNIST is the 10,000-image test set of :func:`treelab.datasets.fetch_mnist`
(downloaded once into ``$TREELAB_DATA``, else ``~/treelab_data``).

Run a child by hand:  python experiments/_gcforest_common.py '{"data": "digits", ...}'
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name, n_train=8000, n_test=2000):
    """(Xtr, ytr, Xte, yte, image_shape)."""
    if name == "mnist":
        from treelab.datasets import fetch_mnist
        X, y = fetch_mnist("test")
        X, y = X.astype(np.float64), y.astype(np.int64)
        perm = np.random.RandomState(0).permutation(X.shape[0])
        tr, te = perm[:n_train], perm[n_train:n_train + n_test]
        return X[tr], y[tr], X[te], y[te], (28, 28)
    from sklearn import datasets
    if name == "digits":
        X, y = datasets.load_digits(return_X_y=True)
        shape = (8, 8)
    elif name == "classification50k":
        X, y = datasets.make_classification(50_000, 20, n_informative=10, random_state=0)
        shape = None
    elif name == "diabetes":
        X, y = datasets.load_diabetes(return_X_y=True)
        shape = None
    elif name == "friedman1":
        X, y = datasets.make_friedman1(3000, 10, noise=1.0, random_state=0)
        shape = None
    else:
        raise ValueError(name)
    perm = np.random.RandomState(0).permutation(X.shape[0])
    cut = int(0.8 * X.shape[0])
    return X[perm[:cut]], y[perm[:cut]], X[perm[cut:]], y[perm[cut:]], shape


def forests(source, task, n_trees, n_random=2, n_completely_random=2, min_samples_leaf=1):
    """The paper's level from treelab's forests or, as the peer / stand-in,
    scikit-learn's RandomForest + ExtraTrees(max_features=1)."""
    if source == "treelab":
        from treelab.ensembles.cascade import _default_forests
        return _default_forests(task, n_trees, 0, n_random, n_completely_random,
                                min_samples_leaf=min_samples_leaf)
    from sklearn import ensemble as E
    kw = {"n_jobs": 1, "min_samples_leaf": min_samples_leaf}
    if task == "classification":
        rf = [E.RandomForestClassifier(n_trees, max_features="sqrt", **kw)
              for _ in range(n_random)]
        cr = [E.ExtraTreesClassifier(n_trees, max_features=1, **kw)
              for _ in range(n_completely_random)]
    else:
        rf = [E.RandomForestRegressor(n_trees, max_features="sqrt", **kw)
              for _ in range(n_random)]
        cr = [E.ExtraTreesRegressor(n_trees, max_features=1, **kw)
              for _ in range(n_completely_random)]
    return rf + cr


def build(spec, shape):
    m, src, nt = spec["model"], spec.get("forests", "treelab"), spec.get("n_trees", 50)
    n_jobs = spec.get("n_jobs", 2)
    casc_kw = dict(max_levels=spec.get("max_levels", 4), n_iter_no_change=spec.get("tol", 1),
                   validation=spec.get("validation", "holdout"), n_jobs=n_jobs, random_state=0)
    if m == "rf":
        if src == "treelab":
            from treelab.ensembles.forest import RandomForestClassifier
        else:
            from sklearn.ensemble import RandomForestClassifier
        return RandomForestClassifier(n_estimators=spec.get("rf_trees", 200), n_jobs=n_jobs,
                                      random_state=0)
    if m == "rf_reg":
        if src == "treelab":
            from treelab.ensembles.forest import RandomForestRegressor
        else:
            from sklearn.ensemble import RandomForestRegressor
        return RandomForestRegressor(n_estimators=spec.get("rf_trees", 200), n_jobs=n_jobs,
                                     random_state=0)
    if m == "cascade":
        from treelab import CascadeForestClassifier
        return CascadeForestClassifier(forests=forests(src, "classification", nt), **casc_kw)
    if m == "cascade_reg":
        from treelab import CascadeForestRegressor
        return CascadeForestRegressor(forests=forests(src, "regression", nt), **casc_kw)
    if m == "gcforest":
        from treelab import GcForestClassifier
        return GcForestClassifier(
            image_shape=shape, stride=spec.get("stride"), window_sizes=spec.get("windows"),
            scan_forests=forests(src, "classification", nt, 1, 1, min_samples_leaf=10),
            forests=forests(src, "classification", nt),
            max_train_windows=spec.get("max_train_windows", 20_000),
            pooling=spec.get("pooling", "mean"), pool_size=spec.get("pool_size", 3), **casc_kw)
    if m in ("gb", "gb_reg"):
        from treelab import GradientBoostingClassifier, GradientBoostingRegressor
        from treelab.ensembles import XGBOOST_REGULARISATION
        cls = GradientBoostingClassifier if m == "gb" else GradientBoostingRegressor
        # XGBoost's regularisation, as in the recorded runs (treelab's defaults are
        # HistGB's)
        return cls(n_estimators=spec.get("gb_rounds", 100), learning_rate=0.3, max_depth=6,
                   colsample_bynode=spec.get("colsample", 1.0), random_state=0,
                   **XGBOOST_REGULARISATION)
    raise ValueError(m)


def _rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _reset_peak():
    """Reset the process's resident high-water mark (Linux >= 4.0: ``5`` to
    ``/proc/self/clear_refs``) so the fit's peak is not the warm-up's.  True if
    it worked."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_mb(reset):
    """Peak resident size since the reset (``VmHWM``), else since the start."""
    if reset:
        try:
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(spec):
    Xtr, ytr, Xte, yte, shape = load(spec["data"], spec.get("n_train", 8000),
                                     spec.get("n_test", 2000))
    # warm-up on a few rows: one-off costs (loading cached numba kernels, thread
    # pools) are not counted in the fit's time or memory
    m = min(300, Xtr.shape[0])
    warm = {**spec, "max_levels": 1, "n_trees": 2, "rf_trees": 2, "gb_rounds": 2,
            "max_train_windows": 500}
    w = build(warm, shape).fit(Xtr[:m], ytr[:m])
    # and the threaded prediction kernels (a large enough input takes that path)
    w.predict(np.tile(Xtr[:m], (max(1, 30_000 // m), 1)))
    del w
    est = build(spec, shape)
    reset = _reset_peak()
    base = _rss_mb()
    load0 = os.getloadavg()[0]
    c0 = time.process_time()
    t0 = time.perf_counter()
    est.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t0
    cpu_s = time.process_time() - c0
    peak = _peak_mb(reset)
    t0 = time.perf_counter()
    score = float(est.score(Xte, yte))
    pred_s = time.perf_counter() - t0
    casc = getattr(est, "cascade_", est)
    out = {"fit_s": fit_s, "fit_cpu_s": cpu_s, "load": (load0 + os.getloadavg()[0]) / 2,
           "predict_s": pred_s, "score": score, "peak_mb": peak - base,
           "peak_rss_mb": peak, "levels": getattr(casc, "n_levels_", None),
           "grown": len([r for r in getattr(casc, "history_", []) if r["phase"] == "grow"])
           or None, "n_train": int(Xtr.shape[0]), "n_test": int(Xte.shape[0])}
    print("RESULT " + json.dumps(out))


def run_isolated(spec, timeout=None):
    """Fit ``spec`` in a fresh interpreter; the child's result dict (or an error)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), json.dumps(spec)],
                           capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"error": tail[0][:200]}


def load_average():
    try:
        return os.getloadavg()
    except OSError:  # pragma: no cover
        return (float("nan"),) * 3


if __name__ == "__main__":
    child(json.loads(sys.argv[1]))
