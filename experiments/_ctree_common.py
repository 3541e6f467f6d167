"""Shared parts of the C-Tree paper's Figure 2 and Figure 3 scripts.

De Rosa & Cesa-Bianchi, "Splitting with Confidence in Decision Trees with
Application to Stream Mining" (IJCNN 2015), Section VI: C-Tree (practical
radius eq. 8, ``c`` in (0, 2), delta = 1/t by Remark 1), H-Tree (VFDT, delta
in (0, 1)) and CorrH-Tree (VFDT's Hoeffding bound on the classification-error
merit, delta in (0, 1)) share one Hoeffding-tree core; Gini merit, grace
period 100, no tie-break; each parameter value gives one point (number of
leaves, online accuracy) per stream, averaged over the streams.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from treelab.experiment import best_per_leaf_bin, final_points, run_ablation  # noqa: E402

#: the paper's markers and colours (Figure 2 caption): C-Tree cross / red,
#: H-Tree circle / blue, CorrH-Tree star / green
STYLE = {"ctree": ("C-Tree", "x", "tab:red"),
         "hoeffding": ("H-Tree", "o", "tab:blue"),
         "corrh": ("CorrH-Tree", "*", "tab:green")}


def c_grid(n, spacing="log", c_min=1e-3):
    """``n`` values of C-Tree's ``c`` in the paper's open interval (0, 2).

    ``linear``: ``2k / (n + 1)``, k = 1..n (evenly spaced, ends excluded);
    ``log``: geometric from ``c_min`` up to (not including) 2.  The radius of
    eq. 8 is proportional to ``c``, so a geometric grid spreads the tree sizes.
    """
    _check_n(n)
    if spacing == "linear":
        return [2.0 * k / (n + 1) for k in range(1, n + 1)]
    if not 0.0 < c_min < 2.0:
        raise ValueError(f"c_min must be in (0, 2), got {c_min!r}")
    return [float(v) for v in np.geomspace(c_min, 2.0, n, endpoint=False)]


def delta_grid(n, spacing="log", delta_min=1e-10, delta_max=0.999):
    """``n`` values of the Hoeffding ``delta`` in the paper's open interval (0, 1).

    ``linear``: ``k / (n + 1)``, k = 1..n; ``log``: ``ln(1/delta)`` geometric
    between ``ln(1/delta_min)`` and ``ln(1/delta_max)``.  The Hoeffding radius
    is proportional to ``sqrt(ln(1/delta))``, so this grid is geometric in the
    radius, as the ``c`` grid is for C-Tree.
    """
    _check_n(n)
    if spacing == "linear":
        return [k / (n + 1) for k in range(1, n + 1)]
    if not 0.0 < delta_min < delta_max < 1.0:
        raise ValueError("need 0 < delta_min < delta_max < 1")
    if n == 1:
        return [float(delta_min)]
    logs = np.geomspace(np.log(1 / delta_min), np.log(1 / delta_max), n)
    return [float(v) for v in np.exp(-logs)]


def _check_n(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"grid size must be a positive integer, got {n!r}")


def add_common_arguments(ap, grid, streams):
    """Grid, learner and output options shared by both figures."""
    ap.add_argument("--grid", type=int, default=grid,
                    help=f"parameter values per learner (default {grid}; the paper: 200)")
    ap.add_argument("--spacing", choices=["log", "linear"], default="log",
                    help="grid spacing over c in (0, 2) and delta in (0, 1) (default log; "
                         "the paper does not say)")
    ap.add_argument("--c-min", type=float, default=1e-3, help="smallest c of the log grid")
    ap.add_argument("--delta-min", type=float, default=1e-10,
                    help="smallest delta of the log grid")
    ap.add_argument("--delta-max", type=float, default=0.999,
                    help="largest delta of the log grid")
    ap.add_argument("--streams", type=int, default=streams,
                    help=f"streams: seeds 0..N-1 (default {streams})")
    ap.add_argument("--grace-period", type=int, default=100)
    ap.add_argument("--merit", default="gini", help="H-Tree / C-Tree merit (the paper: gini)")
    ap.add_argument("--runner-up", choices=["any_split", "other_feature"], default=None,
                    help="C-Tree's second-best split (passed to the rule only when given; "
                         "default: the rule's own default)")
    ap.add_argument("--chunk-size", type=int, default=1000,
                    help="prequential chunk: predictions use the tree as it was at the "
                         "chunk's start (splits still happen per instance)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="a ~1 minute smoke run")
    ap.add_argument("--no-progress", action="store_true")


def rules_from_args(args):
    """The three learners of Section VI, no tie-break (``tau = 0``: a split is
    never forced by ``eps`` being small, since every radius is > 0)."""
    ctree = {"c": c_grid(args.grid, args.spacing, args.c_min), "tau": [0.0]}
    if args.runner_up is not None:
        ctree["runner_up"] = [args.runner_up]
    deltas = delta_grid(args.grid, args.spacing, args.delta_min, args.delta_max)
    return {"ctree": ctree,
            "hoeffding": {"delta": deltas, "tau": [0.0]},
            "corrh": {"delta": deltas, "tau": [0.0]}}


def run(args, stream, stream_params, name, title):
    """Run the grid, write ``<name>.csv`` (curves), ``<name>_points.csv``
    (mean final accuracy / leaves per configuration) and ``<name>.png``."""
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rules = rules_from_args(args)
    df = run_ablation(stream=stream, stream_params=stream_params, rules=rules,
                      merits=[args.merit], learner_params=dict(grace_period=args.grace_period),
                      seeds=range(args.streams), chunk_size=args.chunk_size, checkpoints=20,
                      n_jobs=args.n_jobs, progress=not args.no_progress, out_dir=out,
                      plot=False, name=name)
    elapsed = time.perf_counter() - t0
    pts = final_points(df)
    pts.to_csv(out / f"{name}_points.csv", index=False)
    png = plot_leaves(pts, out / f"{name}.png", title)
    n_runs = df.groupby(["rule", "value", "seed"]).ngroups
    print(pts.drop(columns=["stream", "learner"]).to_string(
        index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"\n{args.streams} streams x {len(pts)} configurations = {n_runs} runs in "
          f"{elapsed:.0f} s ({args.n_jobs} jobs); results in {out}"
          + ("" if png else " (no PNG: matplotlib missing)"))
    return df, pts, elapsed


def plot_leaves(pts, path, title, binned=None):
    """Online accuracy (end of stream, mean over streams) against the number of
    leaves, one curve per learner across its parameter grid, the paper's
    markers.  ``binned`` (optional, :func:`best_per_leaf_bin`'s table) adds a
    second panel with the best accuracy per leaf bin.  Returns the path, or
    ``None`` without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    panels = 1 if binned is None else 2
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, 5), squeeze=False)
    ax = axes[0, 0]
    for rule, (label, marker, colour) in STYLE.items():
        g = pts[pts["rule"] == rule].sort_values("n_leaves")
        if len(g):
            ax.plot(g["n_leaves"], g["accuracy"], marker=marker, color=colour, label=label,
                    lw=1, ms=6)
    _axes(ax, pts["n_leaves"], "every parameter value (mean over streams)")
    if binned is not None:
        ax = axes[0, 1]
        for rule, (label, marker, colour) in STYLE.items():
            g = binned[binned["rule"] == rule].sort_values("n_leaves")
            if len(g):
                ax.plot(g["n_leaves"], g["accuracy"], marker=marker, color=colour,
                        label=label, lw=1, ms=6)
        _axes(ax, binned["n_leaves"], "best parameter value per leaf bin")
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _axes(ax, leaves, subtitle):
    leaves = np.asarray(leaves, dtype=float)
    if len(leaves) and leaves.min() > 0 and leaves.max() / leaves.min() > 30:
        ax.set_xscale("log")
    ax.set_xlabel("number of leaves (end of stream)")
    ax.set_ylabel("online accuracy")
    ax.set_title(subtitle, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()


def leaf_bins(pts, n_bins=12):
    """Log-spaced leaf-count bin edges covering ``pts``' leaves."""
    hi = max(2.0, float(pts["n_leaves"].max()) * 1.0001)
    return np.unique(np.concatenate([[1.0], np.geomspace(1.0, hi, n_bins + 1)[1:]]))


def describe(args, extra):
    """One line stating the configuration actually used."""
    rules = rules_from_args(args)
    c, d = rules["ctree"]["c"], rules["hoeffding"]["delta"]
    return (f"{extra}; merit {args.merit}, grace period {args.grace_period}, no tie-break; "
            f"C-Tree c: {len(c)} values {c[0]:.3g}..{c[-1]:.3g}; H-Tree / CorrH-Tree delta: "
            f"{len(d)} values {d[0]:.3g}..{d[-1]:.3g} ({args.spacing}); "
            f"{args.streams} streams")


__all__ = ["c_grid", "delta_grid", "add_common_arguments", "rules_from_args", "run",
           "plot_leaves", "leaf_bins", "describe", "best_per_leaf_bin", "STYLE", "ROOT"]
