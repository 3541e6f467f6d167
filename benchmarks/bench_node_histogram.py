"""One node's gradient histogram: treelab's kernel against scikit-learn's
HistGradientBoosting, in a hot cache and with other traffic between calls.

Where a lossguide boosting fit spends its time: scikit-learn's
HistGradientBoosting is timed per phase (its ``verbose`` timers, and a proxy
around its ``HistogramBuilder`` that times the roots, the smaller children and
the subtractions apart), then one node's histogram is built by both libraries
on the same codes and gradients: treelab's ``hist_build_nodes`` from the
column codes through the node's samples (as its boosted trees' children are
built; squared error's ``[1, g, 1]`` statistics) and HistGB's
``compute_histograms_brute`` (float32 gradients, constant Hessians), first
checked to give the same counts and sums.  Each size is timed hot (the same
node again) and with ``--traffic`` MiB of other memory written between calls,
as a fit's other work (partitions, split searches, the other nodes, other
processes on the machine) leaves the cache.

Data: ``make_regression(200_000, 20, n_informative=10, noise=10, random_state=0)``,
the first 160,000 rows (``bench_boosting.py``'s regression task).

Run:  python benchmarks/bench_node_histogram.py [--threads 2] [--traffic 8] [--skip-fit]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def histgb_breakdown(X, y, threads):
    """Phase times of one HistGradientBoostingRegressor fit (100 rounds, 31
    leaves, 255 bins, no early stopping): its own timers, and the histograms
    split into roots, smaller children (with their rows) and subtractions."""
    from threadpoolctl import threadpool_limits
    import sklearn.ensemble._hist_gradient_boosting.grower as grower
    from sklearn.ensemble import HistGradientBoostingRegressor

    real = grower.HistogramBuilder
    acc = dict(root=0.0, child=0.0, child_rows=0, sub=0.0)

    class Timed:
        def __init__(self, X_binned, *args):
            self._hb = real(X_binned, *args)
            self._n = X_binned.shape[0]

        def __getattr__(self, name):          # everything else: the real builder's
            return getattr(self._hb, name)

        def compute_histograms_brute(self, idx, allowed=None):
            t = time.perf_counter()
            out = self._hb.compute_histograms_brute(idx, allowed)
            dt = time.perf_counter() - t
            if idx.shape[0] == self._n:
                acc["root"] += dt
            else:
                acc["child"] += dt
                acc["child_rows"] += idx.shape[0]
            return out

        def compute_histograms_subtraction(self, *args):
            t = time.perf_counter()
            out = self._hb.compute_histograms_subtraction(*args)
            acc["sub"] += time.perf_counter() - t
            return out

    def fit(verbose):
        return HistGradientBoostingRegressor(
            max_iter=100, learning_rate=0.1, max_leaf_nodes=31, max_bins=255,
            early_stopping=False, random_state=0, verbose=verbose).fit(X, y)

    grower.HistogramBuilder = Timed
    try:
        with threadpool_limits(threads):
            fit(0)
            for k in acc:
                acc[k] = 0
            t = time.perf_counter()
            fit(1)                       # prints its phase timers
            total = time.perf_counter() - t
    finally:
        grower.HistogramBuilder = real
    print(f"HistGB fit {total:.3f} s; histograms: roots {acc['root']:.3f} s, smaller "
          f"children {acc['child']:.3f} s ({acc['child_rows'] / 100:,.0f} rows a tree), "
          f"subtractions {acc['sub']:.3f} s")


def node_histograms(X, y, threads, traffic_mib, repeat):
    from sklearn.ensemble._hist_gradient_boosting.histogram import HistogramBuilder
    from threadpoolctl import threadpool_limits
    from treelab._engine.binning import bin_data, with_column_codes
    from treelab._engine.histogram import COUNT_STATS_0_2, hist_build_nodes
    from treelab._engine.merit import TASK_DENSE

    n, d = X.shape
    data = with_column_codes(bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), True))
    B = data.n_bins
    g = y - y.mean()
    sst = np.column_stack([np.ones(n), g, np.ones(n)])      # squared error, unit weights
    w = np.ones(n)
    y0 = np.zeros(0, np.int64)
    hist = np.empty((1, d, B, 3))          # a pool of one slot
    cnt = np.empty((1, d, B), np.int64)
    one = np.zeros(1, np.int64)
    hb = HistogramBuilder(np.asfortranarray(data.Xb), B, g.astype(np.float32),
                          np.ones(1, np.float32), True, threads)
    junk = np.zeros(max(traffic_mib, 0) * 2 ** 20 // 8)
    rng = np.random.default_rng(0)

    end = np.zeros(1, np.int64)

    def ours(samples):
        # (as a boosted tree's smaller child: a level of one node, features split
        # over the threads; the node's end set before the timing)
        hist_build_nodes(data.Xb, samples, one, end, one, 1, y0, sst, w, TASK_DENSE, hist,
                         cnt, threads, COUNT_STATS_0_2, None, None, data.Xt)

    print(f"\none node's histogram, {d} features x {B} bins, {threads} thread(s); median "
          f"of {repeat}, us (treelab / HistGB)")
    print(f"{'rows':>8} {'hot':>24} {f'{traffic_mib} MiB between calls':>28}")
    with threadpool_limits(threads):
        for m in (2_000, 10_000, 40_000, 80_000):
            samples = np.sort(rng.choice(n, m, replace=False)).astype(np.int64)
            s32 = samples.astype(np.uint32)
            end[0] = m
            # the same work: the same counts, the same sums (HistGB's in float32)
            ours(samples)
            theirs = np.asarray(hb.compute_histograms_brute(s32, None))
            if not (np.array_equal(hist[0, :, :, 0], theirs["count"]) and np.allclose(
                    hist[0, :, :, 1], theirs["sum_gradients"], rtol=1e-4,
                    atol=1e-4 * np.abs(g).max())):
                raise AssertionError(f"the two histograms of the node of {m} rows differ")
            cells = []
            for pollute in (False, True):
                t = {0: [], 1: []}
                # each library in a block of its own, a pause between: two thread
                # pools taking turns call by call spin against each other's work
                for k, fn, arg in ((0, ours, samples),
                                   (1, lambda s: hb.compute_histograms_brute(s, None), s32)):
                    time.sleep(0.2)
                    for r in range(repeat + 1):
                        if pollute and junk.size:
                            junk += 1.0
                        t0 = time.perf_counter()
                        fn(arg)
                        if r:
                            t[k].append(time.perf_counter() - t0)
                a, b = np.median(t[0]) * 1e6, np.median(t[1]) * 1e6
                cells.append(f"{a:9.0f} / {b:7.0f} = {a / b:4.2f}x")
            print(f"{m:>8} {cells[0]:>24} {cells[1]:>28}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--traffic", type=int, default=8,
                    help="MiB of memory written between two timed node histograms")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--skip-fit", action="store_true",
                    help="only the node histograms, not HistGB's phase breakdown")
    a = ap.parse_args()
    from sklearn.datasets import make_regression
    X, y = make_regression(200_000, 20, n_informative=10, noise=10.0, random_state=0)
    X, y = np.ascontiguousarray(X[:160_000]), y[:160_000]
    if not a.skip_fit:
        histgb_breakdown(X, y, a.threads)
    node_histograms(X, y, a.threads, a.traffic, a.repeat)


if __name__ == "__main__":
    main()
