"""ToPs benchmark: treelab's ToPs against the slow literal reference of the tests
(``tests/_tops_reference.py``: refits every candidate predictor, no caching, no
sufficient statistics) at identical output, and treelab's absolute times on the
experiments' data.

1. ``literal``: random regression data (n rows, 4 features, learners
   constant + linear, squared error); both grow the tree and fit the path
   weights (same BLAS threading); checks that the trees and weights are the
   same and prints the wall and CPU time ratios (target: treelab >= 20x faster).
2. ``caravan``: ToPs/LR (``LinearModel``), 1 - AUC, all 5,822 rows x 85
   features (target < 60 s on 2 cores).
3. ``mnist``: ToPs/LR, error rate, the 1,991 fours and nines of the MNIST test
   set, central 20 x 20 pixels = 400 features (the paper's 400; target < 10 min);
   ``--ensemble`` adds ToPs/ensemble (AdaBoost, linear, logistic, gradient
   boosting, random forest: treelab's own, ``--ens-size`` members each, default
   10; ``screen_candidates=--screen``, default 10; target < 30 min),
   ``--max-depth`` times a truncated tree (a fraction of the fit).
4. ``--profile``: cProfile of the Caravan run (where the time goes).
5. ``mnist-sides``: the exact ToPs/ensemble search's unit of work, one costly
   learner fitted on one side of a root cut of MNIST 4-vs-9 (CPU ms per side
   fit): plain refits with numba's default threads (before), with one numba
   thread, and from the node's prepared (binned / presorted) data (now).
6. ``mnist-root``: the exact ToPs/ensemble root search (``screen_candidates``
   off) on every ``--stride``-th feature, the CPU time of each learner's cut
   path, and the extrapolation to all 400 features by their number of proper
   cuts; ``--ada-splitter hist`` gives AdaBoost binned stumps (the same stumps
   as the exact splitter wherever a feature has at most 255 distinct values in
   the node: one bin per value, edges at the midpoints; MNIST's 8-bit pixels
   have at most 256).  ``--bound ab`` runs the search without and then with
   the bound of the exact search (a cut's second side is not fitted when its
   first side alone exceeds the best joint loss found; the default of
   ``fit``) and checks that both find the same split.

Each line prints the wall time, the CPU time of the process (the fit is
single-threaded unless ``--n-jobs``: BLAS is pinned to one thread) and the
load average: on a shared machine the CPU time is the better measure.  Times
include the first-call numba compilation only if the cache is cold (run twice
for warm numbers).

Run:  python benchmarks/bench_tops.py [--only literal caravan mnist] [--n 600] [--profile]
      [--max-depth D] [--ensemble] [--n-jobs J] [--ada-splitter hist]
      python benchmarks/bench_tops.py --only mnist-sides mnist-root [--stride 10] [--bound ab]
      python experiments/tops_exact_tree.py --n-jobs 2    (the whole exact tree, per-node log)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "experiments"))


def bench_literal(n):
    from _tops_reference import literal_tops, literal_weights

    from treelab import ToPsRegressor
    from treelab.node_models import ConstantModel, LinearModel
    rng = np.random.RandomState(0)
    X = rng.rand(n, 4)
    y = np.where(X[:, 0] > 0.4, 2 * X[:, 1], -X[:, 2]) + X[:, 3] ** 2 + 0.2 * rng.randn(n)
    sets = np.zeros(n, int)
    perm = rng.permutation(n)
    sets[perm[:int(0.15 * n)]] = 1
    sets[perm[int(0.15 * n):int(0.25 * n)]] = 2
    learners = [ConstantModel(), LinearModel(alpha=0.1)]
    ToPsRegressor(base_learners=learners, max_depth=1).fit(X[:50], y[:50])   # compile
    t0, c0 = time.perf_counter(), time.process_time()
    est = ToPsRegressor(base_learners=learners).fit(X, y, sets=sets)
    t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0
    T, V1, V2 = (sets == k for k in (0, 1, 2))

    def mse(yy, S):
        return float(np.mean((S[:, 0] - yy) ** 2))
    from treelab.learners.tops import _make_loss, _single_threaded_blas, fit_path_weights
    t0, c0 = time.perf_counter(), time.process_time()
    with _single_threaded_blas():      # the same BLAS threading as treelab's fit (fair timing)
        ref = literal_tops(X[T], y[T], X[V1], y[V1], X[V2], y[V2], learners, mse,
                           "regression", 1)
        W = literal_weights(ref, X[T], y[T], X[V2], y[V2], learners, "regression", 1,
                            _make_loss("squared_error", "regression", 1), fit_path_weights)
    t_lit, c_lit = time.perf_counter() - t0, time.process_time() - c0
    same = len(ref) == len(est.nodes_) and all(
        (r["feature"], r["left"], r["learner"], r["source"]) == (nd.feature, nd.left, nd.learner,
                                                                 nd.source)
        and (r["feature"] < 0 or abs(r["threshold"] - nd.threshold) <= 1e-12 * abs(nd.threshold))
        for r, nd in zip(ref, est.nodes_)) and all(
        np.allclose(W[nd.id], nd.weights, atol=1e-6) for nd in est.nodes_ if nd.is_leaf)
    print(f"literal reference vs treelab (n={n}, d=4, constant+linear, squared error; both "
          f"grow the tree and fit the path weights): {len(est.nodes_)} nodes, same tree and "
          f"weights: {same}")
    print(f"  wall: literal {t_lit:.2f} s, treelab {t_fast:.3f} s, ratio {t_lit / t_fast:.1f}x; "
          f"CPU of this process: literal {c_lit:.2f} s, treelab {c_fast:.3f} s, ratio "
          f"{c_lit / c_fast:.1f}x (target >= 20x); load average {os.getloadavg()[0]:.1f}")


def _time_fit(make, X, y, label, target):
    t0 = time.perf_counter()
    c0 = time.process_time()
    est = make().fit(X, y)
    t = time.perf_counter() - t0
    c = time.process_time() - c0
    print(f"{label}: fit {t:.1f} s wall ({c:.1f} s CPU of this process), {len(est.nodes_)} "
          f"nodes, depth {max(nd.depth for nd in est.nodes_)} (target < {target}); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    return est


def bench_caravan(profile=False):
    import tops_table3 as t3

    from treelab import ToPsClassifier
    data = t3.load("caravan")
    if data is None:
        print("caravan: data not found; skipped")
        return
    X, y, _ = data

    def make():
        return ToPsClassifier(base_learners=["linear"], loss="auc", random_state=0)
    ToPsClassifier(base_learners=["linear"], loss="auc", max_depth=1).fit(X[:300], y[:300])
    if profile:
        import cProfile
        import pstats
        pr = cProfile.Profile()
        pr.enable()
        _time_fit(make, X, y, "Caravan ToPs/LR (5822 x 85, 1 - AUC)", "60 s")
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(18)
    else:
        _time_fit(make, X, y, "Caravan ToPs/LR (5822 x 85, 1 - AUC)", "60 s")


def bench_mnist(max_depth=None, ensemble=False, n_jobs=None, ens_size=10, screen=10,
                ada_splitter="best"):
    """ToPs/LR (and ToPs/ensemble) on MNIST 4-vs-9; ``max_depth`` times a
    truncated tree (a fraction of the full fit, to extrapolate from)."""
    import tops_table3 as t3

    from treelab import ToPsClassifier
    data = t3.load("mnist49")
    if data is None:
        print("mnist: data not found; skipped")
        return
    X, y, _ = data
    lim = "" if max_depth is None else f", max_depth={max_depth} (a fraction of the full fit)"
    _time_fit(lambda: ToPsClassifier(base_learners=["linear"], loss="error_rate",
                                     max_depth=max_depth, n_jobs=n_jobs, random_state=0),
              X, y, f"MNIST 4-vs-9 ToPs/LR (1991 x 400, error rate{lim})", "10 min")
    if ensemble:
        make = t3.methods("classification", "error_rate", False, n_jobs, True, ens_size=ens_size,
                          screen=screen, ada_splitter=ada_splitter)["ToPs/ensemble"]

        def mk():
            est = make()
            est.set_params(max_depth=max_depth)
            return est
        _time_fit(mk, X, y, f"MNIST 4-vs-9 ToPs/ensemble (1991 x 400, error rate, {ens_size}-member "
                  f"ensembles, AdaBoost splitter {ada_splitter!r}, screen_candidates={screen}{lim})",
                  "30 min")


def _mnist_root(ens_size, ada_splitter="best"):
    """MNIST 4-vs-9 (1,991 x 400) as ``--only mnist`` fits it: the ToPs/ensemble
    estimator (exact search), its learners and the T / V1 rows of ``fit``."""
    import tops_table3 as t3

    from treelab.data import check_random_state
    data = t3.load("mnist49")
    if data is None:
        return None
    X, y, _ = data
    est = t3.methods("classification", "error_rate", False, None, True, ens_size=ens_size,
                     screen=None, ada_splitter=ada_splitter)["ToPs/ensemble"]()
    rng = check_random_state(est.random_state)          # the order of ToPs's own fit
    learners = est._learners(rng)
    sets = est._split_sets(X.shape[0], y, None, rng)
    return X, y, est, learners, sets


def _proper_cuts(XT, XV1, msl=1):
    """Per feature: the distinct split positions of its proper candidate cuts (the
    root's, as ``_Grower._best_split`` finds them; unweighted)."""
    from treelab.learners.tops import _sorted_percentiles
    n, nv = XT.shape[0], XV1.shape[0]
    out = []
    for f in range(XT.shape[1]):
        xs = np.sort(XT[:, f])
        binary = np.all((xs == 0) | (xs == 1))
        ts = np.array([0.5]) if binary else np.unique(_sorted_percentiles(xs))
        pos = np.searchsorted(xs, ts, side="right")
        nL1 = (XV1[:, f][None, :] <= ts[:, None]).sum(axis=1)
        ok = (pos >= msl) & (n - pos >= msl) & (nL1 >= 1) & (nL1 <= nv - 1)
        out.append(np.unique(pos[ok]))
    return out


def bench_mnist_sides(ens_size=10, feature=210, reps=3):
    """Step 1 of the exact search's cost: every costly learner fitted on both sides
    of the root's proper cuts of one feature, three ways, interleaved ``reps``
    times (CPU of this process per side fit): the plain refit of each side with
    numba's default threads (before this change), the plain refit with numba on
    one thread, and the side data derived from the node's prepared data."""
    from treelab.learners.tops import _single_threaded_blas, _single_threaded_numba
    from treelab.node_models import EstimatorModel, LogisticModel, NodeModel
    got = _mnist_root(ens_size)
    if got is None:
        print("mnist: data not found; skipped")
        return
    X, y, est, learners, sets = got
    XT, yT, XV1 = X[sets == 0], y[sets == 0], X[sets == 1]
    w = np.ones(XT.shape[0])
    cuts = _proper_cuts(XT, XV1)[feature]
    order = np.argsort(XT[:, feature], kind="stable")
    import contextlib
    variants = {
        "refit, numba default threads": (NodeModel._fit_cuts, contextlib.nullcontext),
        "refit, numba 1 thread": (NodeModel._fit_cuts, _single_threaded_numba),
        "prepared node data, numba 1 thread": (None, _single_threaded_numba),
    }
    costly = [m for m in learners if isinstance(m, (EstimatorModel, LogisticModel))]
    times = {(i, v): [] for i in range(len(costly)) for v in variants}
    prep = {}
    with _single_threaded_blas():
        for m in costly:                                   # warm-up (compilation)
            m._fit_cuts(XT, yT, w, "classification", 2, order, cuts[:1], cache={})
        for _ in range(reps):
            for i, m in enumerate(costly):
                for v, (fn, ctx) in variants.items():
                    cache = {}
                    with ctx():
                        if fn is None and isinstance(m, EstimatorModel):
                            c0 = time.process_time()
                            m._fit_cuts(XT, yT, w, "classification", 2, order, cuts[:0],
                                        cache=cache)          # the node's data alone
                            prep.setdefault(i, []).append(time.process_time() - c0)
                        c0 = time.process_time()
                        if fn is None:
                            m._fit_cuts(XT, yT, w, "classification", 2, order, cuts, cache=cache)
                        else:
                            fn(m, XT, yT, w, "classification", 2, order, cuts)
                        times[(i, v)].append((time.process_time() - c0) / (2 * len(cuts)))
    print(f"MNIST 4-vs-9 root (T = {XT.shape[0]} rows x 400 px), feature {feature}: "
          f"{len(cuts)} proper cuts = {2 * len(cuts)} side fits per learner; CPU ms per "
          f"side fit, median of {reps} interleaved repeats; load average "
          f"{os.getloadavg()[0]:.1f}")
    for i, m in enumerate(costly):
        row = ", ".join(f"{v} {1e3 * np.median(times[(i, v)]):.1f}" for v in variants)
        extra = (f"; node data prepared once per node: {1e3 * np.median(prep[i]):.1f} ms"
                 if i in prep else "")
        print(f"  {m._describe()}: {row}{extra}", flush=True)


def bench_mnist_root_search(ens_size=10, stride=10, n_jobs=None, ada_splitter="best",
                            max_depth=1, bounds=(True,)):
    """The exact ToPs/ensemble search of the MNIST root node (no screening) on every
    ``stride``-th feature, with the CPU time of each learner's cut path, and its
    extrapolation to all 400 features by their number of proper cuts.
    ``bounds``: run with the bounded search (True: the default of ``fit``, the
    second side of a cut that cannot win is not fitted) and / or without it
    (False: every side fitted), one after the other, and check that both find
    the same split.  The bound then comes from the sampled features only, so
    the sample skips fewer sides than a search of all features would.
    ``max_depth`` > 1 also searches the nodes below (on the same features; their
    split is then the best among those features), one line per node searched."""
    import treelab.learners.tops as tops
    from treelab.node_models import EstimatorModel, LinearModel, LogisticModel
    got = _mnist_root(ens_size, ada_splitter)
    if got is None:
        print("mnist: data not found; skipped")
        return
    X, y, est, learners, sets = got
    XT, XV1 = X[sets == 0], X[sets == 1]
    cuts = _proper_cuts(XT, XV1)
    sampled = list(range(0, XT.shape[1], stride))
    n_all = sum(len(c) for c in cuts)
    n_sampled = sum(len(cuts[f]) for f in sampled)
    per = {}
    search = []
    orig_search = tops._Grower._best_split
    orig_bounded, orig_features = tops._Grower.bounded, tops._Grower.features
    originals = {cls: cls._fit_cuts for cls in (EstimatorModel, LinearModel, LogisticModel)}
    sides = {}

    def timed(cls):
        def fit_cuts(self, *a, **k):
            c0 = time.thread_time()
            want = k.get("sides")
            sides[self._describe()] = sides.get(self._describe(), 0) + (
                2 * len(a[6]) if want is None else int(np.sum(want)))
            try:
                return originals[cls](self, *a, **k)
            finally:
                key = self._describe()
                per[key] = per.get(key, 0.0) + time.thread_time() - c0
        return fit_cuts

    def best_split(self, nodes, u, Tu, V1u, V2u):
        t0, c0 = time.perf_counter(), time.process_time()
        out = orig_search(self, nodes, u, Tu, V1u, V2u)
        sub = _proper_cuts(self.XT[Tu], self.XV1[V1u])
        search.append((time.perf_counter() - t0, time.process_time() - c0, u, Tu.shape[0],
                       sum(len(c) for c in sub), sum(len(sub[f]) for f in sampled),
                       dict(per), dict(sides), out, list(self.bound_stats)))
        return out
    found = {}
    try:
        tops._Grower._best_split = best_split
        tops._Grower.features = sampled
        for cls in originals:
            cls._fit_cuts = timed(cls)
        est.set_params(max_depth=max_depth, n_jobs=n_jobs)
        est.fit(X[:300], y[:300])                             # compile / warm up
        for bounded in bounds:
            tops._Grower.bounded = bounded
            per.clear()
            sides.clear()
            search.clear()
            est.fit(X, y)
            found[bounded] = search[0][8][:2]
            _report_root(search, n_all, n_sampled, sampled, ens_size, ada_splitter, n_jobs,
                         XT.shape[0], bounded)
    finally:
        tops._Grower._best_split = orig_search
        tops._Grower.bounded, tops._Grower.features = orig_bounded, orig_features
        for cls, fn in originals.items():
            cls._fit_cuts = fn
    if len(found) == 2:
        print(f"  bounded and unbounded searches find the same root split (feature, "
              f"threshold): {found[True] == found[False]} {found[True]}", flush=True)


def _report_root(search, n_all, n_sampled, sampled, ens_size, ada_splitter, n_jobs, n_rows,
                 bounded):
    wall, cpu, _, _, _, _, per0, sides0, _, stats = search[0]
    scale = n_all / n_sampled
    kind = ("bounded (a cut's second side skipped when it cannot win)" if bounded
            else "unbounded (every side fitted)")
    print(f"MNIST 4-vs-9 ToPs/ensemble ({ens_size}-member ensembles, AdaBoost splitter "
          f"{ada_splitter!r}), exact root search, {kind} "
          f"(T = {n_rows} rows) on {len(sampled)} of 400 features ({n_sampled} of "
          f"{n_all} proper cuts): {cpu:.1f} s CPU ({wall:.1f} s wall, n_jobs={n_jobs}); "
          f"extrapolated to all features: {cpu * scale:.0f} s CPU = {cpu * scale / 60:.1f} "
          f"min per root search; load average {os.getloadavg()[0]:.1f}")
    rest = cpu - sum(per0.values())
    print("  CPU by learner cut path (sampled): " + ", ".join(
        f"{k} {v:.1f} s ({sides0.get(k, 0)} sides)"
        for k, v in sorted(per0.items(), key=lambda kv: -kv[1]))
        + f"; scoring and the rest {rest:.1f} s", flush=True)
    if bounded:
        print(f"  cuts whose second side was skipped: {stats[1]} of {stats[0]}", flush=True)
    print(f"  a whole tree costs about the root search x (sum of its nodes' training rows / "
          f"the root's), 3.4 for the screened tree on these data: about "
          f"{cpu * scale * 3.4 / 60:.0f} CPU-minutes", flush=True)
    for wall, cpu, u, n_u, cuts_all, cuts_s, _, _, _, _ in search[1:]:
        print(f"  node {u} (T = {n_u} rows): {cpu:.1f} s CPU ({wall:.1f} s wall) on "
              f"{cuts_s} of its {cuts_all} proper cuts; extrapolated "
              f"{cpu * cuts_all / max(cuts_s, 1):.0f} s CPU", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=["literal", "caravan", "mnist"],
                    help="literal caravan mnist; mnist-sides (per side fit, A/B), "
                         "mnist-root (the exact ToPs/ensemble root search, sampled)")
    ap.add_argument("--ada-splitter", default="best", choices=["best", "hist"],
                    help="ToPs/ensemble's AdaBoost stumps: exact ('best') or binned ('hist')")
    ap.add_argument("--stride", type=int, default=10,
                    help="mnist-root: search every stride-th feature and extrapolate")
    ap.add_argument("--bound", default="on", choices=["on", "off", "ab"],
                    help="mnist-root: the bounded exact search (on, the default of fit), "
                         "every side fitted (off), or both one after the other (ab)")
    ap.add_argument("--n", type=int, default=600, help="rows for the literal comparison")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--max-depth", type=int, default=None,
                    help="MNIST: grow only to this depth (time a fraction of the fit)")
    ap.add_argument("--ensemble", action="store_true", help="MNIST: also ToPs/ensemble")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--ens-size", type=int, default=10, help="members of each ensemble learner")
    ap.add_argument("--screen", type=int, default=10,
                    help="ToPs/ensemble screen_candidates (0: the exact search)")
    args = ap.parse_args()
    if "literal" in args.only:
        bench_literal(args.n)
    if "caravan" in args.only:
        bench_caravan(args.profile)
    if "mnist" in args.only:
        bench_mnist(args.max_depth, args.ensemble, args.n_jobs, args.ens_size, args.screen or None,
                    args.ada_splitter)
    if "mnist-sides" in args.only:
        bench_mnist_sides(args.ens_size)
    if "mnist-root" in args.only:
        bench_mnist_root_search(args.ens_size, args.stride, args.n_jobs, args.ada_splitter,
                                args.max_depth or 1,
                                {"on": (True,), "off": (False,), "ab": (False, True)}[args.bound])


if __name__ == "__main__":
    main()
