"""Forest benchmark: treelab vs scikit-learn in the same run.

Data: make_classification(200_000, 20, n_informative=10, random_state=0) and
make_regression with the same shape (the decision-tree benchmark's data), 80/20
split, ``n_jobs=2`` for everyone.  For every case it prints fit and predict time
ratios (treelab / scikit-learn; lower is better), test scores (accuracy / R^2),
the fitted model's size (pickle bytes), the peak extra resident memory of
the fit (RSS sampled every 5 ms above the level before the fit) and the fit's
CPU time (all threads: on a shared, loaded machine a steadier comparison of the
work done than wall time).

Targets (2 cores): random forest and extra trees fit <= 0.5x
scikit-learn's time at accuracy within 0.5 points; bagging (50 trees) and
AdaBoost (100 stumps) fit <= 0.5x; predict <= 1x; fitted forest memory <=
scikit-learn's.  ``benchmarks/bench_bagging_adaboost.py`` times the last two
alone (with tracemalloc peaks).

Cases are a list (``CASES``): add one with :func:`add_case`.

Run:  python benchmarks/bench_forests.py [--n-samples 200000] [--n-estimators 100]
      [--only rf_clf,et_clf,...] [--splitter hist|best]
Quick subset: ``--only rf_clf,et_clf --n-samples 20000`` (cases: rf_clf, et_clf,
rf_reg, et_reg, bagging_clf, adaboost_clf; ``--cases`` is the same option).
"""
from __future__ import annotations

import argparse
import gc
import os
import pickle
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class Case:
    name: str
    task: str                      # "classification" | "regression"
    sklearn: Callable              # (args) -> unfitted scikit-learn estimator
    treelab: Callable              # (args) -> unfitted treelab estimator
    fit_target: float = 0.5        # fit-time ratio target
    predict_target: float = 1.0


CASES: list[Case] = []


def add_case(name, task, sklearn, treelab, fit_target=0.5, predict_target=1.0):
    CASES.append(Case(name, task, sklearn, treelab, fit_target, predict_target))


def _default_cases():
    from sklearn import ensemble as sk

    import treelab as tl

    def kw(a):
        return dict(n_estimators=a.n_estimators, n_jobs=2, random_state=0)

    add_case("rf_clf", "classification", lambda a: sk.RandomForestClassifier(**kw(a)),
             lambda a: tl.RandomForestClassifier(splitter=a.splitter, **kw(a)))
    add_case("et_clf", "classification", lambda a: sk.ExtraTreesClassifier(**kw(a)),
             lambda a: tl.ExtraTreesClassifier(splitter=a.splitter, **kw(a)))
    add_case("rf_reg", "regression", lambda a: sk.RandomForestRegressor(**kw(a)),
             lambda a: tl.RandomForestRegressor(splitter=a.splitter, **kw(a)))
    add_case("et_reg", "regression", lambda a: sk.ExtraTreesRegressor(**kw(a)),
             lambda a: tl.ExtraTreesRegressor(splitter=a.splitter, **kw(a)))
    # the bagging (50 trees) and AdaBoost (100 stumps) cases, in the same run
    from sklearn.tree import DecisionTreeClassifier as SkTree

    add_case("bagging_clf", "classification",
             lambda a: sk.BaggingClassifier(SkTree(), n_estimators=50, n_jobs=2, random_state=0),
             lambda a: tl.BaggingClassifier(
                 tl.DecisionTreeClassifier(splitter=a.splitter), n_estimators=50, n_jobs=2,
                 random_state=0))
    add_case("adaboost_clf", "classification",
             lambda a: sk.AdaBoostClassifier(SkTree(max_depth=1), n_estimators=100,
                                             random_state=0),
             lambda a: tl.AdaBoostClassifier(tl.DecisionTreeClassifier(max_depth=1),
                                             n_estimators=100, random_state=0))


# ------------------------------------------------------------------ measuring
def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Peak resident memory above the level at entry, sampled on a thread."""

    def __enter__(self):
        gc.collect()
        self.base = _rss()
        self.peak = self.base
        self._stop = False
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self):
        while not self._stop:
            self.peak = max(self.peak, _rss())
            time.sleep(0.005)

    def __exit__(self, *exc):
        self._stop = True
        self._t.join()
        self.peak = max(self.peak, _rss())
        self.extra = self.peak - self.base


def measure(est, Xtr, ytr, Xte, yte, task):
    with PeakRSS() as mem:
        c0 = time.process_time()
        t0 = time.perf_counter()
        est.fit(Xtr, ytr)
        fit = time.perf_counter() - t0
        fit_cpu = time.process_time() - c0
    t0 = time.perf_counter()
    pred = est.predict(Xte)
    predict = time.perf_counter() - t0
    if task == "classification":
        score = float(np.mean(pred == yte))
    else:
        score = float(1 - ((yte - pred) ** 2).sum() / ((yte - yte.mean()) ** 2).sum())
    size = len(pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL))
    return dict(fit=fit, fit_cpu=fit_cpu, predict=predict, score=score, size=size,
                peak=mem.extra)


def data(task, n):
    from sklearn.datasets import make_classification, make_regression
    if task == "classification":
        X, y = make_classification(n, 20, n_informative=10, random_state=0)
    else:
        X, y = make_regression(n, 20, n_informative=10, noise=10.0, random_state=0)
    cut = int(0.8 * n)
    return X[:cut], y[:cut], X[cut:], y[cut:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-samples", type=int, default=200_000)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--splitter", default="hist", choices=["hist", "best"])
    ap.add_argument("--only", "--cases", dest="cases", default=None,
                    help="comma-separated case names (default: all): "
                         "rf_clf,et_clf,rf_reg,et_reg,bagging_clf,adaboost_clf")
    a = ap.parse_args(argv)
    if not CASES:
        _default_cases()
    wanted = None if a.cases is None else set(a.cases.split(","))
    if wanted is not None and wanted - {c.name for c in CASES}:
        ap.error(f"unknown case(s) {sorted(wanted - {c.name for c in CASES})}; known: "
                 f"{', '.join(c.name for c in CASES)}")
    print(f"forests: n={a.n_samples} (80/20), 20 features, {a.n_estimators} trees, n_jobs=2, "
          f"treelab splitter={a.splitter}; load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores (timings on a shared machine are noisy)")
    # warm treelab's kernels (the numba cache) outside the timings
    import treelab as tl
    Xw = np.random.default_rng(0).random((300, 4))
    Xbig = np.random.default_rng(1).random((20_000, 4))
    for sp in ("best", "hist"):
        for cls in (tl.RandomForestClassifier, tl.ExtraTreesRegressor):
            m = cls(3, splitter=sp, n_jobs=2).fit(Xw, Xw[:, 0] > 0.5)
            m.predict(Xw)
            m.predict(Xbig)           # the parallel traversal (compiled on first use)
    # bagging's and AdaBoost's traversals run on the single trees' arrays (other
    # types than a forest's narrowed ones): compiled here, not in the timed predict
    yw = (Xw[:, 0] > 0.5).astype(int)
    for m in (tl.BaggingClassifier(tl.DecisionTreeClassifier(splitter="hist"), n_estimators=3,
                                   n_jobs=2),
              tl.AdaBoostClassifier(tl.DecisionTreeClassifier(max_depth=1), n_estimators=3)):
        m.fit(Xw, yw)
        m.predict(Xw)
        m.predict(Xbig)
    cache = {}
    rows = []
    for case in CASES:
        if wanted is not None and case.name not in wanted:
            continue
        if case.task not in cache:
            cache[case.task] = data(case.task, a.n_samples)
        Xtr, ytr, Xte, yte = cache[case.task]
        sk = measure(case.sklearn(a), Xtr, ytr, Xte, yte, case.task)
        gc.collect()
        tlr = measure(case.treelab(a), Xtr, ytr, Xte, yte, case.task)
        gc.collect()
        r = dict(case=case.name, sk=sk, tl=tlr, fit_ratio=tlr["fit"] / sk["fit"],
                 fit_cpu_ratio=tlr["fit_cpu"] / sk["fit_cpu"],
                 pred_ratio=tlr["predict"] / sk["predict"], size_ratio=tlr["size"] / sk["size"],
                 dscore=100 * (tlr["score"] - sk["score"]), case_obj=case)
        rows.append(r)
        ok_fit = r["fit_ratio"] <= case.fit_target and r["dscore"] >= -0.5
        print(f"\n[{case.name}] scikit-learn fit {sk['fit']:.2f} s predict {sk['predict']:.3f} s "
              f"score {sk['score']:.4f} size {sk['size'] / 2**20:.1f} MiB peak +{sk['peak'] / 2**20:.0f} MiB")
        print(f"[{case.name}] treelab      fit {tlr['fit']:.2f} s predict {tlr['predict']:.3f} s "
              f"score {tlr['score']:.4f} size {tlr['size'] / 2**20:.1f} MiB peak +{tlr['peak'] / 2**20:.0f} MiB")
        print(f"[{case.name}] fit CPU time (all threads; steadier than wall time on a loaded "
              f"machine): treelab {tlr['fit_cpu']:.2f} s, scikit-learn {sk['fit_cpu']:.2f} s, "
              f"ratio {r['fit_cpu_ratio']:.2f}x")
        print(f"[{case.name}] ratios: fit {r['fit_ratio']:.2f}x (target <= {case.fit_target}x, "
              f"{'met' if ok_fit else 'NOT met'}), predict {r['pred_ratio']:.2f}x (target <= "
              f"{case.predict_target}x, {'met' if r['pred_ratio'] <= case.predict_target else 'NOT met'}), "
              f"score {r['dscore']:+.2f} pt, model size {r['size_ratio']:.2f}x "
              f"({'met' if r['size_ratio'] <= 1 else 'NOT met'})")
    if rows:
        print("\nsummary (treelab / scikit-learn; targets: fit <= 0.5x at a score "
              "within 0.5 pt, predict <= 1x, model size <= 1x)")
        print(f"{'case':14s} {'fit':>7s} {'fit CPU':>8s} {'predict':>8s} {'score pt':>9s} "
              f"{'size':>6s} {'peak MiB (tl / sk)':>20s}")
        for r in rows:
            peak = f"+{r['tl']['peak'] / 2**20:.0f} / +{r['sk']['peak'] / 2**20:.0f}"
            print(f"{r['case']:14s} {r['fit_ratio']:6.2f}x {r['fit_cpu_ratio']:7.2f}x "
                  f"{r['pred_ratio']:7.2f}x {r['dscore']:+9.2f} {r['size_ratio']:5.2f}x "
                  f"{peak:>20s}")
    print(f"\nload after the run: {os.getloadavg()[0]:.1f}")
    return rows


if __name__ == "__main__":
    main()
