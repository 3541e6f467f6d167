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

Each line prints the wall time, the CPU time of the process (the fit is
single-threaded unless ``--n-jobs``: BLAS is pinned to one thread) and the
load average: on a shared machine the CPU time is the better measure.  Times
include the first-call numba compilation only if the cache is cold (run twice
for warm numbers).

Run:  python benchmarks/bench_tops.py [--only literal caravan mnist] [--n 600] [--profile]
      [--max-depth D] [--ensemble] [--n-jobs J]
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


def bench_mnist(max_depth=None, ensemble=False, n_jobs=None, ens_size=10, screen=10):
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
                          screen=screen)["ToPs/ensemble"]

        def mk():
            est = make()
            est.set_params(max_depth=max_depth)
            return est
        _time_fit(mk, X, y, f"MNIST 4-vs-9 ToPs/ensemble (1991 x 400, error rate, {ens_size}-member "
                  f"ensembles, screen_candidates={screen}{lim})", "30 min")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=["literal", "caravan", "mnist"])
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
        bench_mnist(args.max_depth, args.ensemble, args.n_jobs, args.ens_size, args.screen or None)


if __name__ == "__main__":
    main()
