"""The shape of the C-Tree paper's Figure 2: online accuracy vs number of leaves on RandCBT.

De Rosa & Cesa-Bianchi ("Splitting with Confidence in Decision Trees with
Application to Stream Mining", IJCNN 2015) compare C-Tree (their confidence
radius, practical form c sqrt(ln(m^2 h^2 t d) / m), split when best - second
> 2 eps) with the Hoeffding tree (H-Tree) and CorrH-Tree (Hoeffding bound on
the classification-error merit) on streams from random complete binary trees
(RandCBT): 50 leaves, d = 5 attributes, 10,000 examples per leaf, Gini
criterion, grace period 100, a grid over c for C-Tree and over delta for H-Tree
and CorrH-Tree.  Each configuration gives one point (number of leaves at the
end of the stream, online = prequential accuracy); a better rule reaches
higher accuracy at the same number of leaves.

This script runs that grid with :func:`treelab.experiment.run_ablation` on
``--streams`` RandCBT streams (seeds 0..N-1; each is a new random tree) and
writes ``results/ctree_figure2/ctree_figure2.csv`` (tidy learning curves),
``ctree_figure2_points.csv`` (one row per configuration: mean accuracy and
leaves over the streams), ``ctree_figure2_leaves.png`` (the Figure 2 view) and
``ctree_figure2_curves.png``.  With the defaults (10 streams of 500,000
instances, 19 configurations) it runs in about 5-10 minutes on 2 cores.

    python experiments/ctree_figure2.py [--streams 10] [--m-per-leaf 10000] [--n-jobs 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treelab.experiment import final_points, run_ablation  # noqa: E402

C_GRID = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
DELTA_GRID = [1e-9, 1e-6, 1e-3, 0.05, 0.3, 0.9]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streams", type=int, default=10, help="RandCBT streams (seeds)")
    ap.add_argument("--n-leaves", type=int, default=50)
    ap.add_argument("--n-features", type=int, default=5)
    ap.add_argument("--m-per-leaf", type=int, default=10_000)
    ap.add_argument("--q", type=float, default=0.9, help="label purity of the leaves")
    ap.add_argument("--grace-period", type=int, default=100)
    ap.add_argument("--tau", type=float, default=0.05,
                    help="tie-break of H-Tree and CorrH-Tree (0 disables it)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results" / "ctree_figure2")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    df = run_ablation(
        stream="randcbt",
        stream_params=dict(n_leaves=args.n_leaves, n_features=args.n_features,
                           m_per_leaf=args.m_per_leaf, q=args.q),
        rules={"ctree": {"c": C_GRID},
               "hoeffding": {"delta": DELTA_GRID, "tau": [args.tau]},
               "corrh": {"delta": DELTA_GRID, "tau": [args.tau]}},
        merits=["gini"], learner_params=dict(grace_period=args.grace_period),
        seeds=range(args.streams), chunk_size=1000, checkpoints=20, n_jobs=args.n_jobs,
        out_dir=args.out_dir, name="ctree_figure2")
    pts = final_points(df)
    pts.to_csv(args.out_dir / "ctree_figure2_points.csv", index=False)
    print(pts.drop(columns=["stream", "learner"]).to_string(
        index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"\n{args.streams} streams x {len(pts)} configurations in "
          f"{time.perf_counter() - t0:.0f} s; results in {args.out_dir}")


if __name__ == "__main__":
    main()
