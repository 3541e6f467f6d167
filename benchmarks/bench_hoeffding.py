"""Hoeffding tree benchmark: treelab's VFDT vs river and MOA (capymoa), one run, same stream.

Stream: the classification stream of ``bench_sgt.py`` (200,000 x 10 numeric
features in [0, 1], labels from a random depth-5 axis-aligned tree, 10 % label
noise).  Every learner is evaluated prequentially (test-then-train) with the
same settings: grace period 200, delta (MOA: confidence) 1e-7, tie threshold
0.05, information gain, naive-Bayes-adaptive leaves.

* treelab ``HoeffdingTreeClassifier`` through chunked ``partial_fit`` (each chunk
  of ``--chunk`` rows is predicted, then learned: one jitted call each) and
  through river-style ``predict_one`` / ``learn_one``;
* river's ``HoeffdingTreeClassifier`` and ``ExtremelyFastDecisionTreeClassifier``
  per instance;
* MOA's ``HoeffdingTree`` and ``EFDT`` through capymoa with the whole loop
  inside the JVM (an ARFF stream and ``prequential_evaluation(optimise=True)``).

Prints instances per second, the ratios, prequential accuracy, leaves and peak
memory (Python allocations via tracemalloc; the JVM's used-heap growth for MOA).

Targets: treelab >= 1.5x MOA's HoeffdingTree throughput and >= 20x
river's through chunked partial_fit, accuracy within 1 point of MOA's.

Run:  python benchmarks/bench_hoeffding.py [--n 200000] [--n-river 50000] [--seed 0]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgt import (  # noqa: E402
    _Peak, classification_stream, moa_prequential, print_start_times, timed_and_traced,
)

SETTINGS = dict(grace_period=200, delta=1e-7, tau=0.05)


def run_treelab_chunked(X, y, chunk, merit="entropy", trace=False):
    from treelab import HoeffdingTreeClassifier
    model = HoeffdingTreeClassifier(classes=[0, 1], criterion=merit, **SETTINGS)
    preds = np.zeros(len(y), dtype=np.int64)
    with _Peak(trace) as mem:
        t0 = time.perf_counter()
        for s in range(0, len(y), chunk):
            Xc, yc = X[s:s + chunk], y[s:s + chunk]
            if s:
                preds[s:s + chunk] = model.predict(Xc)
            model.partial_fit(Xc, yc)
        secs = time.perf_counter() - t0
    return dict(secs=secs, score=float(np.mean(preds == y)), nodes=model.n_nodes,
                leaves=model.n_leaves, peak=mem.peak)


def _per_instance(model, rows, y, trace):
    """River-style prequential loop: predict_one, then learn_one."""
    preds = np.zeros(len(y), dtype=np.int64)
    yl = y.tolist()
    with _Peak(trace) as mem:
        t0 = time.perf_counter()
        for i, (x, yi) in enumerate(zip(rows, yl)):
            p = model.predict_one(x)
            preds[i] = p if p is not None else 0
            model.learn_one(x, yi)
        secs = time.perf_counter() - t0
    return dict(secs=secs, score=float(np.mean(preds == y)), nodes=model.n_nodes,
                leaves=model.n_leaves, peak=mem.peak)


def run_treelab_one(rows, y, trace=False):
    from treelab import HoeffdingTreeClassifier
    return _per_instance(HoeffdingTreeClassifier(classes=[0, 1], **SETTINGS), rows, y, trace)


def run_river(kind, rows, y, trace=False):
    from river import tree
    cls = (tree.HoeffdingTreeClassifier if kind == "ht"
           else tree.ExtremelyFastDecisionTreeClassifier)
    return _per_instance(cls(grace_period=200, delta=1e-7, tau=0.05), rows, y, trace)


def run_moa(kind, X, y):
    from capymoa.classifier import EFDT, HoeffdingTree
    cls = HoeffdingTree if kind == "ht" else EFDT
    return moa_prequential(
        lambda schema: cls(schema=schema, grace_period=200, confidence=1e-7, tie_threshold=0.05),
        X, y, "classification", size_names=("tree size (nodes)", "tree size (leaves)"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--n-one", type=int, default=50_000,
                    help="instances for treelab's learn_one run")
    ap.add_argument("--n-river", type=int, default=50_000,
                    help="instances for river (its throughput is measured on a prefix)")
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-moa", action="store_true")
    ap.add_argument("--skip-river", action="store_true")
    ap.add_argument("--skip-cold", action="store_true",
                    help="skip the cold / warm start measurement")
    args = ap.parse_args(argv)

    import treelab
    from treelab import HoeffdingTreeClassifier
    print(f"treelab {treelab.__version__}, {os.cpu_count()} cores, stream of {args.n} instances, "
          f"settings {SETTINGS}")
    if not args.skip_cold:
        print_start_times("HoeffdingTreeClassifier")
    Xw, yw = classification_stream(3000, seed=99)          # compile / load kernels first
    HoeffdingTreeClassifier(classes=[0, 1]).partial_fit(Xw, yw).predict(Xw[:5])

    X, y = classification_stream(args.n, seed=args.seed)
    n_rows = max(args.n_one, args.n_river)
    rows = [{f"x{j}": v for j, v in enumerate(r)} for r in X[:n_rows].tolist()]
    res = {}
    res["treelab partial_fit"] = (args.n, timed_and_traced(run_treelab_chunked, X, y, args.chunk))
    res["treelab learn_one"] = (args.n_one, timed_and_traced(run_treelab_one, rows[:args.n_one],
                                                             y[:args.n_one]))
    if not args.skip_river:
        try:
            for kind, name in (("ht", "river HT"), ("efdt", "river EFDT")):
                res[name] = (args.n_river, timed_and_traced(run_river, kind, rows[:args.n_river],
                                                            y[:args.n_river]))
        except ImportError:
            print("river is not installed: skipped")
    if not args.skip_moa:
        try:
            for kind, name in (("ht", "MOA HoeffdingTree"), ("efdt", "MOA EFDT")):
                res[name] = (args.n, run_moa(kind, X, y))
        except ImportError:
            print("capymoa is not installed: skipped")

    print("\nprequential accuracy; throughput in instances/s")
    for name, (n, r) in res.items():
        r["ips"] = n / r["secs"]
        print(f"  {name:20s} n={n:7d}  {r['ips']:11.0f} inst/s  accuracy {r['score']:.4f}  "
              f"nodes {r['nodes']}  leaves {r['leaves']}  peak memory {r['peak'] / 2**20:.1f} MiB")
    tl = res["treelab partial_fit"][1]
    if "MOA HoeffdingTree" in res:
        moa = res["MOA HoeffdingTree"][1]
        ratio = tl["ips"] / moa["ips"]
        print(f"  treelab partial_fit / MOA HoeffdingTree throughput: {ratio:.1f}x "
              f"[target >= 1.5x: {'met' if ratio >= 1.5 else 'MISSED'}]")
        gap = 100 * (tl["score"] - moa["score"])
        print(f"  accuracy treelab {tl['score']:.4f} vs MOA {moa['score']:.4f} ({gap:+.2f} pt) "
              f"[target within 1 pt: {'met' if gap >= -1.0 else 'MISSED'}]")
        if "MOA EFDT" in res:
            print(f"  treelab partial_fit / MOA EFDT throughput: "
                  f"{tl['ips'] / res['MOA EFDT'][1]['ips']:.1f}x")
    if "river HT" in res:
        r1 = tl["ips"] / res["river HT"][1]["ips"]
        print(f"  treelab partial_fit / river HT throughput: {r1:.0f}x "
              f"[target >= 20x: {'met' if r1 >= 20 else 'MISSED'}]")
        print(f"  treelab partial_fit / river EFDT throughput: "
              f"{tl['ips'] / res['river EFDT'][1]['ips']:.0f}x")
        print(f"  treelab learn_one / river HT throughput: "
              f"{res['treelab learn_one'][1]['ips'] / res['river HT'][1]['ips']:.1f}x")


if __name__ == "__main__":
    main()
