"""The ``treelab`` command line.

``treelab demo``: the data-mining course's teaching lab on the course slides'
tables (information gain, split information and gain ratio, ID3 and C4.5 trees
on the loan-approval table; play tennis; the regression-tree split search; the
buy_computer confusion matrix) and a CART tree with cost-complexity pruning on
scikit-learn's bundled breast-cancer data.  ``--language zh`` prints the
course's tables with their Chinese labels.

``treelab ablation``: a grid of streaming learners x split rules x parameter
values x seeds on a stream (:mod:`treelab.experiment`), in parallel, writing a
tidy CSV and PNG plots, e.g.::

    treelab ablation --stream randcbt --stream-param n_leaves=50 \
        --stream-param m_per_leaf=1000 --merit gini --set grace_period=100 \
        --rule hoeffding:delta=1e-7,1e-3,0.1 --rule ctree:c=0.01,0.05,0.2 \
        --rule corrh:delta=1e-7,1e-3,0.1 --seeds 0,1 --n-jobs 2 --out results/ablation
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _rule(title):
    print("\n" + title)
    print("=" * len(title))


def demo(args):
    """The course lab on the course's own tables (:mod:`treelab._demo`); the printed
    text is deterministic and pinned by a golden-output test."""
    from ._demo import run_demo
    run_demo(language=args.language)
    return 0


def _value(text):
    """A command-line value: int, float, bool, None or string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _pairs(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"treelab ablation: {what} must look like key=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = _value(v)
    return out


def _rule_grid(specs):
    """``NAME[:param=v1,v2[;param2=...]]`` -> {name: {param: [values]}}."""
    grid = {}
    for spec in specs or ["hoeffding"]:
        name, _, rest = spec.partition(":")
        params = {}
        for part in filter(None, rest.split(";")):
            if "=" not in part:
                raise SystemExit(f"treelab ablation: bad rule spec {spec!r} "
                                 "(expected NAME:param=v1,v2)")
            k, v = part.split("=", 1)
            params[k.strip()] = [_value(x) for x in v.split(",") if x.strip()]
        grid[name.strip()] = params
    return grid


def ablation(args):
    from .experiment import final_points, run_ablation
    rules = _rule_grid(args.rule)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    t0 = time.perf_counter()
    df = run_ablation(stream=args.stream, rules=rules, learners=args.learner or ["hoeffding"],
                      merits=args.merit or None, seeds=seeds,
                      stream_params=_pairs(args.stream_param, "--stream-param"),
                      learner_params=_pairs(args.set, "--set"), chunk_size=args.chunk_size,
                      checkpoints=args.checkpoints, n_jobs=args.n_jobs,
                      progress=not args.no_progress, out_dir=args.out, plot=not args.no_plot,
                      name=args.name)
    pts = final_points(df)
    with_pd_opts = pts.drop(columns=["stream"]).to_string(index=False, float_format=lambda v: f"{v:.4g}")
    print(with_pd_opts)
    print(f"\n{df.groupby(['learner', 'rule', 'param', 'value', 'merit', 'seed'], dropna=False).ngroups}"
          f" runs in {time.perf_counter() - t0:.1f} s; wrote {args.out}/{args.name}.csv"
          + ("" if args.no_plot else f" and {args.name}_curves.png, {args.name}_leaves.png"))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="treelab", description="treelab command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="teaching lab and a CART example on built-in data")
    p.add_argument("--language", choices=["en", "zh"], default="en",
                   help="labels of the course's loan and regression tables: English or "
                        "the slides' Chinese (default: en)")
    p.set_defaults(func=demo)
    p = sub.add_parser("ablation", help="grid of streaming learners x split rules x values x seeds")
    p.add_argument("--stream", default="randcbt",
                   help="randcbt, electricity or river:<Generator> (default: randcbt)")
    p.add_argument("--stream-param", action="append", metavar="KEY=VALUE",
                   help="stream parameter, e.g. n_leaves=50 (repeatable)")
    p.add_argument("--learner", action="append", choices=["hoeffding", "sgt"],
                   help="learner (repeatable; default hoeffding)")
    p.add_argument("--rule", action="append", metavar="NAME[:PARAM=V1,V2]",
                   help="rule and its values: hoeffding, mcdiarmid, ctree, corrh, ttest "
                        "(repeatable; several parameters separated by ';')")
    p.add_argument("--merit", action="append",
                   help="merit of Hoeffding trees (repeatable): entropy, gini, kearns_mansour, "
                        "classification_error, gain_ratio")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="learner parameter, e.g. grace_period=100 (repeatable)")
    p.add_argument("--seeds", default="0", help="comma-separated stream seeds (default 0)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel runs (-1: all cores)")
    p.add_argument("--chunk-size", type=int, default=1000)
    p.add_argument("--checkpoints", type=int, default=20)
    p.add_argument("--out", default="results/ablation", help="output folder")
    p.add_argument("--name", default="ablation", help="file name stem of the outputs")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=ablation)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
