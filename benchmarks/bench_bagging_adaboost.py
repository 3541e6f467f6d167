"""Bagging and AdaBoost benchmark: treelab vs scikit-learn in the same run.

Data: make_classification(200_000, 20, n_informative=10, random_state=0), 80/20
split (the decision-tree benchmark's data).  n_jobs=2 for everyone:
BaggingClassifier(50 full trees) and AdaBoostClassifier(100 stumps, SAMME),
each with its library's own decision tree.  Prints fit / predict times, their
ratios (treelab / scikit-learn; lower is better), test accuracy and the peak
resident memory growth of each fit (from ``resource``; rough).

Targets: fit <= 0.5x scikit-learn, predict <= 1x.

Run:  python benchmarks/bench_bagging_adaboost.py [--n-samples 200000] [--only bagging|adaboost]
"""
from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _traced(fn):
    """Seconds and peak Python-heap allocation (NumPy arrays included) of ``fn()``."""
    tracemalloc.start()
    try:
        t, out = _timed(fn)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return t, peak / 2 ** 20, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=200_000)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--bagging-trees", type=int, default=50)
    ap.add_argument("--adaboost-stumps", type=int, default=100)
    ap.add_argument("--only", choices=["bagging", "adaboost"], default=None)
    ap.add_argument("--no-memory", action="store_true",
                    help="no tracemalloc (it slows NumPy-heavy code a little)")
    args = ap.parse_args(argv)

    from sklearn.datasets import make_classification
    from sklearn.ensemble import AdaBoostClassifier as SkAda
    from sklearn.ensemble import BaggingClassifier as SkBag
    from sklearn.tree import DecisionTreeClassifier as SkTree

    import treelab
    from treelab import AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier

    X, y = make_classification(args.n_samples, 20, n_informative=10, random_state=0)
    cut = int(0.8 * len(y))
    Xtr, Xte, ytr, yte = X[:cut], X[cut:], y[:cut], y[cut:]
    # compile outside the timings: the serial and the parallel (>= 5,000 rows) traversals
    for est in (BaggingClassifier(n_estimators=2, random_state=0),
                AdaBoostClassifier(n_estimators=2)):
        est.fit(Xtr[:500], ytr[:500])
        est.predict(Xte[:10])
        est.predict(np.repeat(Xte[:10], 600, axis=0))
    print(f"treelab {treelab.__version__}; {len(ytr)} train / {len(yte)} test rows, 20 features; "
          f"n_jobs={args.n_jobs}; load average {os.getloadavg()[0]:.1f} "
          f"(shared machine: timings are indicative)")
    runs = []
    if args.only in (None, "bagging"):
        M = args.bagging_trees
        runs.append((f"Bagging({M} trees)",
                     lambda: SkBag(SkTree(), n_estimators=M, n_jobs=args.n_jobs, random_state=0),
                     lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=M,
                                               n_jobs=args.n_jobs, random_state=0)))
    if args.only in (None, "adaboost"):
        M = args.adaboost_stumps
        runs.append((f"AdaBoost({M} stumps)",
                     lambda: SkAda(SkTree(max_depth=1), n_estimators=M, random_state=0),
                     lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1),
                                                n_estimators=M, random_state=0)))
    for name, make_sk, make_tl in runs:
        res = {}
        for lib, make in (("sklearn", make_sk), ("treelab", make_tl)):
            est = make()
            if args.no_memory:
                fit_s, est = _timed(lambda: est.fit(Xtr, ytr))
                mem = float("nan")
            else:
                fit_s, mem, est = _traced(lambda: est.fit(Xtr, ytr))
            pred_s, pred = _timed(lambda: est.predict(Xte))
            res[lib] = (fit_s, pred_s, float(np.mean(pred == yte)), mem)
            print(f"  {name:22s} {lib:8s} fit {fit_s:8.2f} s  predict {pred_s:6.3f} s  "
                  f"accuracy {res[lib][2]:.4f}  peak traced memory {mem:8.1f} MiB", flush=True)
        (fs, ps, as_, _), (ft, pt, at, _) = res["sklearn"], res["treelab"]
        print(f"{name}: fit ratio {ft / fs:.2f} (target <= 0.5), predict ratio {pt / ps:.2f} "
              f"(target <= 1), accuracy {at:.4f} vs {as_:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
