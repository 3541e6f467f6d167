"""Cascade-forest benchmark: the same cascade -- same levels, forests,
folds, growth rule, code -- built once from treelab's forests and once, as the
peer, from scikit-learn's ``RandomForestClassifier`` + ``ExtraTreesClassifier
(max_features=1)`` (the completely-random stand-in).  Only the forests differ.

Data: ``make_classification(50_000, 20, n_informative=10, random_state=0)``
(80 / 20 split) and the MNIST subset (8,000 / 2,000 of the t10k set).
Targets: treelab at most 0.3x the peer's fit time and at most 0.5x its peak
memory, at equal or better accuracy.  Every fit runs in a fresh process; peak
memory is what the fit added to the process's resident size at its peak.

On a busy machine wall times are unreliable: the load average during each
fit is printed, and the fit's CPU time (all threads of the process) beside it.

``--stand-in-forests`` replaces treelab's forests by the peer's own (a trial
run of the script before treelab's forests exist: ratios are then ~1 by
construction).

Run:  python benchmarks/bench_cascade.py [--n-trees 50] [--max-levels 3] [--only synthetic mnist]
      [--n-train 8000 --n-test 2000]   (MNIST rows; e.g. --n-train 2000 for a quick run)
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
from _gcforest_common import load_average, run_isolated  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stand-in-forests", action="store_true")
    ap.add_argument("--n-trees", type=int, default=50, help="trees per forest")
    ap.add_argument("--max-levels", type=int, default=3)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=["synthetic", "mnist"])
    ap.add_argument("--n-train", type=int, default=8000,
                    help="MNIST training rows (quick subset: e.g. 2000)")
    ap.add_argument("--n-test", type=int, default=2000, help="MNIST test rows")
    args = ap.parse_args()
    ours = "sklearn" if args.stand_in_forests else "treelab"
    print(f"cascade: 2 RF + 2 completely-random forests x {args.n_trees} trees, k = 3, 20 % "
          f"holdout then refit, <= {args.max_levels} levels, n_jobs={args.n_jobs}; "
          f"load average {load_average()[0]:.1f}")
    print("| data | forests | fit wall (s) | fit CPU (s) | load | peak MB | accuracy % | "
          "levels (grown) |\n|---|---|---|---|---|---|---|---|")
    ok = True
    for data in args.only:
        spec = {"data": "classification50k" if data == "synthetic" else "mnist",
                "model": "cascade", "n_trees": args.n_trees, "max_levels": args.max_levels,
                "n_jobs": args.n_jobs, "n_train": args.n_train, "n_test": args.n_test}
        res = {}
        for src in (ours, "sklearn"):
            label = "treelab" if src == "treelab" else (
                "peer (sklearn)" if src == "sklearn" and len(res) else "stand-in (sklearn)")
            r = run_isolated({**spec, "forests": src})
            res[label] = r
            if "error" in r:
                print(f"| {data} | {label} | error: {r['error']} |")
                continue
            print(f"| {data} | {label} | {r['fit_s']:.1f} | {r['fit_cpu_s']:.1f} | "
                  f"{r['load']:.1f} | {r['peak_mb']:.0f} | "
                  f"{100 * r['score']:.2f} | {r['levels']} ({r['grown']}) |", flush=True)
        a, b = list(res.values())
        if "error" in a or "error" in b:
            ok = False
            continue
        t, m = a["fit_s"] / b["fit_s"], a["peak_mb"] / max(b["peak_mb"], 1e-9)
        tc = a["fit_cpu_s"] / b["fit_cpu_s"]
        acc = a["score"] - b["score"]
        hit = t <= 0.3 and m <= 0.5 and acc >= 0
        ok &= hit
        print(f"| {data} | ratio ours / peer | {t:.2f}x (target <= 0.3) | {tc:.2f}x | | "
              f"{m:.2f}x (target <= 0.5) | {100 * acc:+.2f} points (target >= 0) | "
              f"{'targets met' if hit else 'targets NOT met'} |", flush=True)
    print("all targets met" if ok else "some targets not met")


if __name__ == "__main__":
    main()
