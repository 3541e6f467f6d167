"""Prequential accuracy of Stochastic Gradient Trees on the Electricity stream.

treelab's ``SGTClassifier`` (chunked test-then-train, one jitted call per chunk)
beside river's ``SGTClassifier`` (per instance ``predict_one`` / ``learn_one``)
when river is installed.  Electricity (ELEC2, MOA's ``elecNormNew.arff``, from
:func:`treelab.datasets.fetch_electricity`: downloaded once into the data
folder) is read in its time order; ``day`` is nominal.

Both learners use the paper's settings: delta=1e-7, grace period 200,
lambda=0.1, gamma=1, 64 equal-width bins whose range is estimated from the
first 1000 instances.  river's own port of that quantizer,
``StaticQuantizer``, divides by zero on a feature that is constant during its
warm-up (https://github.com/online-ml/river/issues/1437, still there in river 0.26.1), and Electricity's
three Victoria attributes are constant for the first ~17,000 instances; so
river's SGT runs by default with its ``DynamicQuantizer`` (bins of
0.25 standard deviations), the alternative river offers
(``--river-quantizer static`` tries the static one).

Writes ``results/sgt_electricity.csv`` (the learning curves) and
``results/sgt_electricity.png`` (accuracy vs. instances); prints the final
accuracy and instances per second.  treelab's Numba kernels are compiled (or
loaded from the disk cache) in a warm-up on a throw-away model first, and that
time is reported separately; river needs no warm-up.

treelab's SGT uses the paper's leaf values (eq. 13, sums) unless
``--leaf-value mean`` asks for the authors' code's (river's) means.

    python experiments/sgt_electricity.py [--chunk-size 1000] [--checkpoints 50]
        [--leaf-value paper|mean]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treelab import SGTClassifier  # noqa: E402
from treelab.datasets import fetch_electricity  # noqa: E402
from treelab.streaming import prequential  # noqa: E402

PAPER = dict(delta=1e-7, grace_period=200, reg_lambda=0.1, gamma=1.0, max_bins=64,
             n_range_samples=1000)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="data folder where the data are downloaded once (default: "
                         "$TREELAB_DATA, else ~/treelab_data)")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results")
    ap.add_argument("--chunk-size", type=int, default=1000,
                    help="treelab's test-then-train chunk size (1 = per instance)")
    ap.add_argument("--checkpoints", type=int, default=50, help="points on the curve")
    ap.add_argument("--max-instances", type=int, default=None,
                    help="use only the first N instances (quick runs)")
    ap.add_argument("--no-river", action="store_true", help="skip river's SGT")
    ap.add_argument("--river-quantizer", choices=["dynamic", "static"], default="dynamic",
                    help="river SGT's feature quantizer (static crashes on Electricity, "
                         "see the module docstring)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--leaf-value", choices=["paper", "mean"], default="paper",
                    help="treelab SGT's leaf values: the paper's eq. 13 (sums) or the "
                         "authors' code's means")
    args = ap.parse_args(argv)

    try:
        X, label = fetch_electricity(data_home=args.data_dir)
    except OSError as exc:
        print(f"SKIP: {exc}; nothing to do.")
        return 0
    if args.max_instances:
        X, label = X.iloc[:args.max_instances], label.iloc[:args.max_instances]
    y = (label == "UP").to_numpy()          # river's binary SGT wants bool targets
    n = len(y)
    print(f"Electricity: {n} instances, {X.shape[1]} attributes "
          f"(nominal: {[c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]}), "
          f"UP rate {y.mean():.3f}")
    progress = not args.no_progress
    curves, summary = [], []

    # ---- treelab
    t0 = time.perf_counter()
    SGTClassifier(**PAPER, leaf_value=args.leaf_value).partial_fit(
        X.iloc[:1200], y[:1200], classes=[False, True]).predict(X.iloc[:10])
    warm = time.perf_counter() - t0
    model = SGTClassifier(**PAPER, leaf_value=args.leaf_value)
    curve = prequential(model, X, y, metric="accuracy", chunk_size=args.chunk_size,
                        checkpoints=args.checkpoints, classes=[False, True], progress=progress)
    name = f"treelab SGT (chunk {args.chunk_size}, leaf_value={args.leaf_value})"
    curve.insert(0, "learner", name)
    curves.append(curve)
    summary.append(dict(learner=name, accuracy=curve["accuracy"].iloc[-1],
                        scored=int(curve["scored"].iloc[-1]),
                        seconds=curve["seconds"].iloc[-1],
                        n_leaves=curve["n_leaves"].iloc[-1], warmup_s=warm))

    # ---- river
    rcurve = None
    if args.no_river:
        print("river: skipped (--no-river)")
    else:
        try:
            from river import tree as rtree
        except ImportError:
            print("river: not installed, skipping its SGTClassifier (pip install river)")
        else:
            if args.river_quantizer == "static":
                quantizer = rtree.splitter.StaticQuantizer(
                    n_bins=PAPER["max_bins"], warm_start=PAPER["n_range_samples"])
            else:
                quantizer = rtree.splitter.DynamicQuantizer()
            rmodel = rtree.SGTClassifier(
                delta=PAPER["delta"], grace_period=PAPER["grace_period"],
                lambda_value=PAPER["reg_lambda"], gamma=PAPER["gamma"],
                nominal_attributes=[c for c in X.columns
                                    if isinstance(X[c].dtype, pd.CategoricalDtype)],
                feature_quantizer=quantizer)
            rname = f"river SGT ({args.river_quantizer} quantizer)"
            try:
                rcurve = prequential(rmodel, X, y, metric="accuracy",
                                     checkpoints=args.checkpoints, progress=progress)
            except ZeroDivisionError:
                print("river: its StaticQuantizer divided by zero (a feature constant during "
                      "the warm-up, a known river bug); rerun with --river-quantizer dynamic")
                rcurve = None
        if rcurve is not None:
            rcurve.insert(0, "learner", rname)
            curves.append(rcurve)
            summary.append(dict(learner=rname,
                                accuracy=rcurve["accuracy"].iloc[-1],
                                scored=int(rcurve["scored"].iloc[-1]),
                                seconds=rcurve["seconds"].iloc[-1],
                                n_leaves=rcurve["n_leaves"].iloc[-1]
                                if "n_leaves" in rcurve else np.nan, warmup_s=0.0))

    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = pd.concat(curves, ignore_index=True)
    out.to_csv(args.out_dir / "sgt_electricity.csv", index=False)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for (name, c), col in zip(out.groupby("learner", sort=False), ["C0", "C1", "C2"]):
        ax.plot(c["instances"], 100 * c["accuracy"], color=col, label=f"{name} (cumulative)")
        ax.plot(c["instances"], 100 * c["accuracy_window"], color=col, ls=":", alpha=0.7,
                label=f"{name} (window)")
    ax.set_xlabel("instances")
    ax.set_ylabel("prequential accuracy (%)")
    ax.set_title("SGT on Electricity (elecNormNew), test-then-train")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out_dir / "sgt_electricity.png", dpi=120)

    print(f"\nfinal prequential accuracy ({n} instances; those a learner could not yet "
          "predict are not scored):")
    for s in summary:
        print(f"  {s['learner']:<30} accuracy {100 * s['accuracy']:6.2f}% "
              f"(on {s['scored']})   "
              f"{n / s['seconds']:>10,.0f} instances/s ({s['seconds']:.2f} s)   "
              f"leaves {s['n_leaves']}"
              + (f"   [+ {s['warmup_s']:.2f} s compile / cache-load warm-up]"
                 if s["warmup_s"] else ""))
    print(f"wrote {args.out_dir / 'sgt_electricity.csv'} and {args.out_dir / 'sgt_electricity.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
