"""Forests on wide 8-bit data: MNIST (the first 8,000 rows of the test set,
784 pixels), 50 trees, ``n_jobs=2``, fit only: treelab's random forest (sqrt(d)
features a node) and completely-random forest, exact and hist splitters, against
scikit-learn's ``RandomForestClassifier`` and ``ExtraTreesClassifier(max_features=1)``
(the cascade's forests, see ``bench_cascade.py``).  Every fit is repeated
(``--repeats``, default 2) in one process and the best wall time is kept; CPU
seconds (all threads) are printed beside it.  No target of its own: it shows
where the per-node cost of wide data stands (the forests' targets are measured
on 200,000 x 20 by ``bench_forests.py``).  The data come from
:func:`treelab.datasets.fetch_mnist` (downloaded once into ``$TREELAB_DATA``,
else ``~/treelab_data``).

Run:  python benchmarks/bench_forests_mnist.py [--repeats 2] [--n-trees 50]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def timed(est, X, y, repeats):
    best = (np.inf, np.inf)
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X, y)
        best = min(best, (time.perf_counter() - t0, time.process_time() - c0))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--n-trees", type=int, default=50)
    args = ap.parse_args()
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    import treelab
    from treelab.datasets import fetch_mnist
    X, y = fetch_mnist("test")
    X, y = X.astype(np.float64)[:8000], y[:8000]
    treelab.RandomForestClassifier(2, random_state=0).fit(X[:300], y[:300])   # load kernels
    nt = args.n_trees
    kw = dict(n_jobs=2, random_state=0)
    print(f"MNIST 8000 x 784, {nt} trees, n_jobs=2, best of {args.repeats}; load "
          f"{os.getloadavg()[0]:.1f}")
    print("| forest | treelab wall (CPU) s | scikit-learn wall (CPU) s | ratio |\n|---|---|---|---|")
    peers = {
        "random forest": timed(RandomForestClassifier(nt, max_features="sqrt", **kw), X, y,
                               args.repeats),
        "completely random": timed(ExtraTreesClassifier(nt, max_features=1, **kw), X, y,
                                   args.repeats),
    }
    for sp in ("best", "hist"):
        ours = {
            "random forest": treelab.RandomForestClassifier(nt, max_features="sqrt",
                                                           splitter=sp, **kw),
            "completely random": treelab.CompletelyRandomForestClassifier(nt, splitter=sp,
                                                                         **kw),
        }
        for name, est in ours.items():
            w, c = timed(est, X, y, args.repeats)
            pw, pc = peers[name]
            print(f"| {name}, {sp} | {w:.2f} ({c:.2f}) | {pw:.2f} ({pc:.2f}) | {w / pw:.2f}x |")


if __name__ == "__main__":
    main()
