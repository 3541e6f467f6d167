"""The C-Tree paper's Figure 2: online accuracy vs number of leaves on RandCBT streams.

De Rosa & Cesa-Bianchi ("Splitting with Confidence in Decision Trees with
Application to Stream Mining", IJCNN 2015), Section VI-A: streams from random
binary trees built by Algorithm 2 (:class:`treelab.streaming.RandCBT`): 50
leaves, d = 5 attributes on [0, 1], 10,000 examples drawn uniformly from each
leaf's sub-region (500,000 per stream), label 1 with probability q = 0.7 on left
leaves and 0.3 on right leaves.  Learners (one Hoeffding-tree core, Gini, grace
period 100, no tie-break):

* C-Tree: the practical radius of eq. 8, ``c sqrt(ln(m^2 h^2 t d) / m)``,
  ``c`` over (0, 2);
* H-Tree: VFDT's Hoeffding radius, ``delta`` over (0, 1);
* CorrH-Tree: the Hoeffding radius on the classification-error merit,
  ``delta`` over (0, 1).

Each parameter value gives one point: the online (prequential, test-then-train)
accuracy at the end of the stream and the tree's number of leaves, both
averaged over the streams; one curve per learner.  The paper used 200 values
and 1,000 streams; the defaults here (``--grid 20 --streams 10``: 600 runs of
500,000 instances, about 3 CPU-seconds each) take about 15 minutes on 2 idle
cores and about 30 when other jobs share them.  ``--quick`` is a ~1
minute smoke run on small streams.

Writes ``results/ctree_figure2/ctree_figure2.csv`` (tidy learning curves),
``ctree_figure2_points.csv`` (one row per configuration) and
``ctree_figure2.png`` (the Figure 2 view).

    python experiments/ctree_figure2.py [--grid 20] [--streams 10] [--n-jobs 2] [--quick]
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ctree_common import ROOT, add_common_arguments, describe, run  # noqa: E402

#: the ~30-minute configuration on 2 cores
GRID, STREAMS = 20, 10


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(ap, grid=GRID, streams=STREAMS)
    ap.add_argument("--n-leaves", type=int, default=50)
    ap.add_argument("--n-features", type=int, default=5)
    ap.add_argument("--m-per-leaf", type=int, default=10_000)
    ap.add_argument("--q", type=float, default=0.7,
                    help="P(y=1) on left leaves, 1 - q on right leaves")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results" / "ctree_figure2")
    args = ap.parse_args(argv)
    if args.quick:
        args.grid, args.streams, args.m_per_leaf = 4, 2, 1000
    stream_params = dict(n_leaves=args.n_leaves, n_features=args.n_features,
                         m_per_leaf=args.m_per_leaf, q=args.q)
    setup = describe(args, f"RandCBT (Algorithm 2): {args.n_leaves} leaves, d = "
                           f"{args.n_features}, {args.m_per_leaf} examples per leaf, "
                           f"q = {args.q}")
    print(setup + ("  [quick]" if args.quick else ""))
    title = ("C-Tree paper, Figure 2" + (" (quick)" if args.quick else "") + "\n"
             + textwrap.fill(setup, 110))
    run(args, "randcbt", stream_params, "ctree_figure2", title)


if __name__ == "__main__":
    main()
