"""Decision-tree benchmark: treelab vs scikit-learn in the same run.

Data: make_classification(200_000, 20, n_informative=10, random_state=0) and
make_regression with the same shape, 80/20 split.  Prints fit / predict time
ratios (treelab / scikit-learn; lower is better), test scores, and the cold
(empty numba cache) and warm start time of ``import treelab`` + a first small fit.

Targets (2 cores): hist fit <= 0.5x scikit-learn with accuracy within
0.5 point; exact fit <= 1.5x; predict <= 1x; warm start < 3 s.

Small data: on 10,000 and 20,000 rows x 10 features both splitters fit
in at most 1x scikit-learn's time (best of ``--repeat`` runs each, in CPU time:
both fit on one thread, and the machine being shared, CPU time is the comparable
figure).

Run:  python benchmarks/bench_decision_tree.py [--n 200000] [--skip-cold] [--small-only]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np


def _best_of(fn, repeat, clock=time.perf_counter):
    best = np.inf
    out = None
    for _ in range(repeat):
        t0 = clock()
        out = fn()
        best = min(best, clock() - t0)
    return best, out


START_SNIPPET = (
    "import time; t0 = time.perf_counter(); import numpy as np; import treelab; "
    "X = np.random.default_rng(0).random((200, 5)); y = (X[:, 0] > 0.5).astype(int); "
    "treelab.DecisionTreeClassifier(max_depth=3).fit(X, y).predict(X); "
    "treelab.DecisionTreeRegressor(max_depth=3).fit(X, X[:, 1]).predict(X); "
    "print(time.perf_counter() - t0)"
)


def start_times(snippet=START_SNIPPET):
    """(cold, warm) seconds of ``snippet`` (import + first small fits; it prints
    its own time) in fresh processes: with an empty numba cache, then with the
    cache the first run wrote."""
    cache = tempfile.mkdtemp(prefix="treelab-numba-cache-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    try:
        cold = float(subprocess.check_output([sys.executable, "-c", snippet], env=env))
        warm = float(subprocess.check_output([sys.executable, "-c", snippet], env=env))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def small_data(repeat=5, sizes=(10_000, 20_000), d=10):
    """Fit-time ratios (treelab / scikit-learn) on small data, both splitters."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.tree import DecisionTreeClassifier as SkC, DecisionTreeRegressor as SkR

    from treelab import DecisionTreeClassifier, DecisionTreeRegressor

    out = []
    print(f"\n[small data] {d} features, best of {max(repeat, 5)} fits each, CPU time "
          "(target <= 1x)")
    cpu = time.process_time
    for n in sizes:
        for task in ("classification", "regression"):
            if task == "classification":
                X, y = make_classification(n, d, n_informative=6, random_state=0)
                sk, tl = SkC, DecisionTreeClassifier
            else:
                X, y = make_regression(n, d, n_informative=6, noise=10.0, random_state=0)
                sk, tl = SkR, DecisionTreeRegressor
            for sp in ("hist", "best"):
                tl(splitter=sp).fit(X[:300], y[:300])
            t_sk, _ = _best_of(lambda: sk(random_state=0).fit(X, y), max(repeat, 5), cpu)
            parts = []
            for sp in ("hist", "best"):
                t_tl, _ = _best_of(lambda: tl(splitter=sp, random_state=0).fit(X, y),
                                   max(repeat, 5), cpu)
                r = t_tl / t_sk
                parts.append(f"{sp} {t_tl * 1e3:.1f} ms ({r:.2f}x: {'met' if r <= 1 else 'MISSED'})")
                out.append(("small", n, task, sp, r))
            print(f"n={n:>6} {task:<14} scikit-learn {t_sk * 1e3:.1f} ms; treelab " + ", ".join(parts))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--small-only", action="store_true",
                    help="only the small-data case (10,000 / 20,000 rows x 10 features)")
    args = ap.parse_args(argv)

    from sklearn.datasets import make_classification, make_regression
    from sklearn.metrics import accuracy_score, r2_score
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier as SkC, DecisionTreeRegressor as SkR

    import treelab
    from treelab import DecisionTreeClassifier, DecisionTreeRegressor

    print(f"treelab {treelab.__version__}, {os.cpu_count()} cores, n={args.n}")
    if not args.skip_cold:
        cold, warm = start_times()
        print(f"start (import treelab + first small fits): cold {cold:.2f} s, warm {warm:.2f} s "
              f"[target warm < 3 s: {'met' if warm < 3 else 'MISSED'}]")

    rows = small_data(args.repeat)
    if args.small_only:
        return rows
    for task in ("classification", "regression"):
        if task == "classification":
            X, y = make_classification(args.n, 20, n_informative=10, random_state=0)
            score, name = accuracy_score, "accuracy"
            sk, tl = SkC, DecisionTreeClassifier
        else:
            X, y = make_regression(args.n, 20, n_informative=10, noise=10.0, random_state=0)
            score, name = r2_score, "R^2"
            sk, tl = SkR, DecisionTreeRegressor
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
        # warm the jit for this task on a small slice
        tl(splitter="hist").fit(Xtr[:500], ytr[:500]).predict(Xte[:10])
        tl().fit(Xtr[:500], ytr[:500])
        t_sk, m_sk = _best_of(lambda: sk(random_state=0).fit(Xtr, ytr), args.repeat)
        p_sk, pred_sk = _best_of(lambda: m_sk.predict(Xte), args.repeat)
        s_sk = score(yte, pred_sk)
        print(f"\n[{task}] scikit-learn DecisionTree: fit {t_sk:.3f} s, predict {p_sk * 1e3:.1f} ms, "
              f"{name} {s_sk:.4f}, leaves {m_sk.get_n_leaves()}")
        for splitter, target in (("hist", 0.5), ("best", 1.5)):
            t_tl, m_tl = _best_of(lambda: tl(splitter=splitter, random_state=0).fit(Xtr, ytr),
                                  args.repeat)
            p_tl, pred_tl = _best_of(lambda: m_tl.predict(Xte), args.repeat)
            s_tl = score(yte, pred_tl)
            fr, pr = t_tl / t_sk, p_tl / p_sk
            ok_fit = fr <= target
            ok_pred = pr <= 1.0
            line = (f"treelab splitter={splitter}: fit {t_tl:.3f} s (ratio {fr:.2f}, target <= {target}: "
                    f"{'met' if ok_fit else 'MISSED'}), predict {p_tl * 1e3:.1f} ms (ratio {pr:.2f}, "
                    f"target <= 1: {'met' if ok_pred else 'MISSED'}), {name} {s_tl:.4f} "
                    f"(diff {100 * (s_tl - s_sk):+.2f} points), leaves {m_tl.get_n_leaves()}")
            print(line)
            rows.append((task, splitter, fr, pr, s_tl - s_sk))
    return rows


if __name__ == "__main__":
    main()
