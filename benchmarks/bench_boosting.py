"""Gradient-boosting benchmark: treelab against scikit-learn, XGBoost and LightGBM.

Every learner runs in one invocation with the same settings: 100 rounds,
learning rate 0.1, 255 bins, trees of depth 6 (depth-wise growth: treelab
``grow_policy="depthwise"``, XGBoost) or of 31 leaves (leaf-wise growth:
treelab ``grow_policy="lossguide"``, scikit-learn ``HistGradientBoosting*``,
LightGBM); every other parameter at the library's default, no early stopping,
all cores.  Tasks (80/20 split, ``random_state=0``):

* ``classification``: ``make_classification(200_000, 20, n_informative=10, random_state=0)``;
* ``regression``: ``make_regression(200_000, 20, n_informative=10, noise=10, random_state=0)``;
* ``mnist10``: the 10 digits of the MNIST test set (10,000 x 784,
  :func:`treelab.datasets.fetch_mnist`, downloaded once into ``$TREELAB_DATA``,
  else ``~/treelab_data``); skipped with a message when it cannot be had.

Each learner runs in its own fresh process (so peak memory is its own):

* **cold**: the first ``fit`` in that process, import excluded (treelab loads its
  kernels from numba's on-disk cache here; ``--compile`` adds a run on a fresh
  copy of the package with an empty cache: the first-ever fit, compilation included);
* **warm**: the best of ``--repeat`` further fits in the same process (the fit time);
* **predict**: best of ``max(PREDICT_REPEAT, --repeat)`` predictions of the
  test rows (a few hundredths of a second each: more tries than the fits,
  the same number for every learner), after one untimed warm-up prediction;
* **peak memory**: growth of the process's peak resident set size during the fits
  (``resource.getrusage``; it sees native allocations of every library).

Targets: treelab's warm fit at most 1.0x HistGradientBoosting's and
1.5x LightGBM's, its score within 0.3 points of the best peer, its predict time
at most 1x the fastest peer's.  Ratios are treelab / peer (lower is better):
``depthwise`` is compared with XGBoost (same growth), ``lossguide`` with
HistGB and LightGBM (same growth); the summary compares the better treelab
configuration with every peer.

Timings on a shared machine are unreliable: the load average is printed at
the start and the end of the run.

    python benchmarks/bench_boosting.py                       # everything, 200,000 rows
    python benchmarks/bench_boosting.py --n-samples 50000 --only classification
    python benchmarks/bench_boosting.py --only classification,treelab-lossguide,lightgbm
    python benchmarks/bench_boosting.py --only mnist10 \
        --set treelab-lossguide:reg_lambda=1,min_child_weight=1   # XGBoost's regularisation
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

N_ROUNDS = 100
LEARNING_RATE = 0.1
MAX_DEPTH = 6
MAX_LEAVES = 31
MAX_BINS = 255

#: predictions timed per learner at least (the best counts; see the module docstring)
PREDICT_REPEAT = 10

#: threads per learner (``--threads``; 0: every core)
THREADS = 0

TASKS = ("classification", "regression", "mnist10")
LEARNERS = ("treelab-depthwise", "treelab-lossguide", "sklearn-histgb", "xgboost", "lightgbm")
PEERS = ("sklearn-histgb", "xgboost", "lightgbm")


# ----------------------------------------------------------------------- data
def make_task(task, n_samples):
    """``(X_train, X_test, y_train, y_test, is_classification)`` of a task."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.model_selection import train_test_split
    if task == "classification":
        X, y = make_classification(n_samples, 20, n_informative=10, random_state=0)
        clf = True
    elif task == "regression":
        X, y = make_regression(n_samples, 20, n_informative=10, noise=10.0, random_state=0)
        clf = False
    elif task == "mnist10":
        from treelab.datasets import fetch_mnist
        X, y = fetch_mnist("test")
        X, y = X.astype(np.float64), y.astype(np.int64)
        clf = True
    else:
        raise ValueError(f"unknown task {task!r}")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0,
                                          stratify=y if clf else None)
    return (np.ascontiguousarray(Xtr), np.ascontiguousarray(Xte), ytr, yte, clf)


# -------------------------------------------------------------------- learners
def _n_jobs():
    t = os.environ.get("BENCH_THREADS")
    return int(t) if t else None


def _overrides(name):
    """The parameters ``--set`` changes for the learner ``name`` (passed to the
    worker processes as JSON in ``BENCH_SET``)."""
    return json.loads(os.environ.get("BENCH_SET", "{}")).get(name, {})


def parse_set(items):
    """``--set LEARNER:key=value[,key=value...]`` items as ``{learner: {key: value}}``
    (values read as Python literals where they are, else strings)."""
    import ast
    out = {}
    for item in items or ():
        name, sep, kvs = item.partition(":")
        if not sep or name not in LEARNERS:
            raise SystemExit(f"--set {item!r}: expected LEARNER:key=value with LEARNER one of "
                             f"{', '.join(LEARNERS)}")
        for kv in kvs.split(","):
            key, sep, val = kv.partition("=")
            if not sep or not key.strip():
                raise SystemExit(f"--set {item!r}: {kv!r} is not key=value")
            try:
                val = ast.literal_eval(val.strip())
            except (ValueError, SyntaxError):
                val = val.strip()
            out.setdefault(name, {})[key.strip()] = val
    return out


def make_model(name, clf):
    """The learner ``name`` with the shared settings (``BENCH_THREADS``: threads of
    every learner; default all cores), then any ``--set`` changes."""
    model = _make_model(name, clf)
    extra = _overrides(name)
    return model.set_params(**extra) if extra else model


def _make_model(name, clf):
    if name.startswith("treelab-"):
        from treelab import GradientBoostingClassifier, GradientBoostingRegressor
        cls = GradientBoostingClassifier if clf else GradientBoostingRegressor
        policy = name.split("-", 1)[1]
        extra = (dict(max_depth=MAX_DEPTH) if policy == "depthwise"
                 else dict(max_depth=0, max_leaves=MAX_LEAVES))
        # all cores, as the peers (n_jobs=-1: the k class trees of a round grow in
        # parallel threads; None would grow them one after the other)
        return cls(n_estimators=N_ROUNDS, learning_rate=LEARNING_RATE, grow_policy=policy,
                   max_bins=MAX_BINS, random_state=0, n_jobs=_n_jobs() or -1, **extra)
    if name == "sklearn-histgb":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
        cls = HistGradientBoostingClassifier if clf else HistGradientBoostingRegressor
        return cls(max_iter=N_ROUNDS, learning_rate=LEARNING_RATE, max_leaf_nodes=MAX_LEAVES,
                   max_bins=MAX_BINS, early_stopping=False, random_state=0)
    if name == "xgboost":
        import xgboost
        cls = xgboost.XGBClassifier if clf else xgboost.XGBRegressor
        return cls(n_estimators=N_ROUNDS, learning_rate=LEARNING_RATE, max_depth=MAX_DEPTH,
                   tree_method="hist", max_bin=MAX_BINS + 1, random_state=0, n_jobs=_n_jobs())
    if name == "lightgbm":
        import lightgbm
        cls = lightgbm.LGBMClassifier if clf else lightgbm.LGBMRegressor
        return cls(n_estimators=N_ROUNDS, learning_rate=LEARNING_RATE, num_leaves=MAX_LEAVES,
                   max_depth=-1, max_bin=MAX_BINS, random_state=0, verbose=-1,
                   n_jobs=_n_jobs() or -1)
    raise ValueError(f"unknown learner {name!r}")


def _peak_rss_mb():
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 1024.0 if sys.platform != "darwin" else r / 2**20


def worker(name, data_file, repeat):
    """Run one learner on one task's data (in this fresh process); print JSON."""
    with np.load(data_file) as f:
        Xtr, Xte, ytr, yte, clf = f["Xtr"], f["Xte"], f["ytr"], f["yte"], bool(f["clf"])
    t0 = time.perf_counter()
    model = make_model(name, clf)            # imports the library
    import_s = time.perf_counter() - t0
    rss0 = _peak_rss_mb()
    t0 = time.perf_counter()
    model.fit(Xtr, ytr)
    cold = time.perf_counter() - t0
    fits, cpus = [], []
    for _ in range(repeat):
        m = make_model(name, clf)
        t0, c0 = time.perf_counter(), time.process_time()
        m.fit(Xtr, ytr)
        fits.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    model.predict(Xte)                       # warm-up: loads (or compiles) the kernels
    preds = []
    for _ in range(max(PREDICT_REPEAT, repeat)):
        t0 = time.perf_counter()
        pred = model.predict(Xte)
        preds.append(time.perf_counter() - t0)
    if clf:
        score = float(np.mean(np.asarray(pred) == yte))
    else:
        from sklearn.metrics import r2_score
        score = float(r2_score(yte, pred))
    print("RESULT " + json.dumps(dict(
        learner=name, import_s=import_s, cold_fit_s=cold, fit_s=min(fits), fit_cpu_s=min(cpus),
        predict_s=min(preds),
        score=score, peak_mb=_peak_rss_mb() - rss0)), flush=True)


def run_worker(name, data_file, repeat, env=None, cwd=None):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, str(data_file),
           "--repeat", str(repeat)]
    env = dict(os.environ if env is None else env)
    env.setdefault("PYTHONPATH", str(ROOT))
    env.setdefault("TREELAB_COMPILE_NOTICE", "0")
    if THREADS:
        env.update(BENCH_THREADS=str(THREADS), OMP_NUM_THREADS=str(THREADS),
                   NUMBA_NUM_THREADS=str(THREADS))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{name} failed:\n{out.stderr[-3000:]}")


def compile_time(name, data_file):
    """First-ever fit of a treelab learner: a copy of the package without any numba
    cache, in a fresh process (compilation included)."""
    with tempfile.TemporaryDirectory(prefix="treelab-bench-") as tmp:
        shutil.copytree(ROOT / "treelab", Path(tmp) / "treelab",
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
        env = dict(os.environ, PYTHONPATH=tmp)
        env.pop("NUMBA_CACHE_DIR", None)
        return run_worker(name, data_file, 1, env=env, cwd=tmp)["cold_fit_s"]


# ------------------------------------------------------------------------ main
def _fmt_ratio(r, target):
    return f"{r:.2f}x" + ("" if target is None else f" ({'met' if r <= target else 'MISSED'})")


def report(task, res, clf):
    """Print one task's table and its target lines; return the summary rows."""
    unit = "accuracy" if clf else "R^2"
    print(f"\n[{task}] {unit}; times in seconds; peak = growth of peak RSS during the fits")
    print(f"{'learner':<20}{'fit':>9}{'fit CPU':>9}{'cold fit':>10}{'predict':>10}{unit:>10}"
          f"{'peak MB':>9}")
    for name, r in res.items():
        print(f"{name:<20}{r['fit_s']:>9.3f}{r['fit_cpu_s']:>9.3f}{r['cold_fit_s']:>10.3f}"
              f"{r['predict_s']:>10.4f}{r['score']:>10.4f}{r['peak_mb']:>9.0f}")
    peers = {p: res[p] for p in PEERS if p in res}
    ours = {t: res[t] for t in ("treelab-depthwise", "treelab-lossguide") if t in res}
    rows = []
    if not peers or not ours:
        return rows
    best_peer = max(peers, key=lambda p: peers[p]["score"])
    fastest_pred = min(peers, key=lambda p: peers[p]["predict_s"])
    same = {"treelab-depthwise": ("xgboost",),
            "treelab-lossguide": ("sklearn-histgb", "lightgbm")}
    targets = {"sklearn-histgb": 1.0, "lightgbm": 1.5}
    for t, r in ours.items():
        parts = []
        for p in PEERS:
            if p not in peers:
                continue
            fr = r["fit_s"] / peers[p]["fit_s"]
            cr = r["fit_cpu_s"] / peers[p]["fit_cpu_s"]
            pr = r["predict_s"] / peers[p]["predict_s"]
            tag = "" if p in same[t] else " [other growth]"
            parts.append(f"{p}: fit {_fmt_ratio(fr, targets.get(p))} (CPU {cr:.2f}x), "
                         f"predict {pr:.2f}x{tag}")
            rows.append((task, t, p, fr, pr))
        diff = 100 * (r["score"] - peers[best_peer]["score"])
        pr = r["predict_s"] / peers[fastest_pred]["predict_s"]
        changed = " [--set: not the shared settings, the targets do not apply]" \
            if _overrides(t) else ""
        print(f"{t}: " + "; ".join(parts) + changed)
        print(f"    score {diff:+.2f} points vs best peer {best_peer} "
              f"({'met' if diff >= -0.3 else 'MISSED'}: within 0.3); predict "
              f"{_fmt_ratio(pr, 1.0)} of the fastest peer {fastest_pred}")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=200_000,
                    help="rows of the synthetic tasks (default 200,000)")
    ap.add_argument("--only", default="",
                    help="comma-separated task and/or learner names to run "
                         f"(tasks: {', '.join(TASKS)}; learners: {', '.join(LEARNERS)})")
    ap.add_argument("--repeat", type=int, default=2, help="warm fits / predictions per learner")
    ap.add_argument("--compile", action="store_true",
                    help="also time treelab's first-ever fit (empty numba cache)")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads per learner (OMP_NUM_THREADS, NUMBA_NUM_THREADS, n_jobs); "
                         "0: every core.  1 gives comparable figures on a loaded machine")
    ap.add_argument("--set", action="append", metavar="LEARNER:KEY=VALUE[,...]",
                    help="change parameters of one learner, e.g. --set "
                         "treelab-lossguide:reg_lambda=0,min_child_weight=0.001 (repeatable; "
                         "the targets are stated for the shared settings, not for these)")
    ap.add_argument("--json", help="write every measurement to this file")
    ap.add_argument("--worker", nargs=2, metavar=("LEARNER", "DATA"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], args.repeat)

    global THREADS
    THREADS = args.threads
    changed = parse_set(args.set)
    if changed:
        os.environ["BENCH_SET"] = json.dumps(changed)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = only - set(TASKS) - set(LEARNERS)
    if unknown:
        ap.error(f"unknown names in --only: {sorted(unknown)}")
    tasks = [t for t in TASKS if t in only] or list(TASKS)
    learners = [m for m in LEARNERS if m in only] or list(LEARNERS)

    import lightgbm
    import sklearn
    import xgboost
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (1 min); "
          f"scikit-learn {sklearn.__version__}, XGBoost {xgboost.__version__}, "
          f"LightGBM {lightgbm.__version__}; {N_ROUNDS} rounds, learning rate {LEARNING_RATE}, "
          f"depth {MAX_DEPTH} (depthwise) / {MAX_LEAVES} leaves (lossguide), {MAX_BINS} bins; "
          f"threads per learner: {THREADS or 'all'}")
    for name, kv in changed.items():
        print(f"--set {name}: " + ", ".join(f"{k}={v!r}" for k, v in kv.items())
              + " (not the shared settings: the targets do not apply to this learner's row)")
    # fill treelab's numba cache first, so that "cold" measures loading, not compiling
    if any(m.startswith("treelab") for m in learners):
        subprocess.run([sys.executable, "-c", "from treelab._warmup import warmup; "
                        "warmup(families=['gradient_boosting'], verbose=False)"], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True)
    everything = {}
    summary = []
    with tempfile.TemporaryDirectory(prefix="bench-boosting-") as tmp:
        for task in tasks:
            try:
                Xtr, Xte, ytr, yte, clf = make_task(task, args.n_samples)
            except OSError as exc:          # the MNIST data cannot be had
                print(f"\n[{task}] skipped: {exc}")
                continue
            data_file = Path(tmp) / f"{task}.npz"
            np.savez(data_file, Xtr=Xtr, Xte=Xte, ytr=ytr, yte=yte, clf=clf)
            print(f"\n[{task}] train {Xtr.shape[0]} x {Xtr.shape[1]}, test {Xte.shape[0]}",
                  flush=True)
            res = {}
            for name in learners:
                res[name] = run_worker(name, data_file, args.repeat)
                if args.compile and name.startswith("treelab"):
                    res[name]["compile_fit_s"] = compile_time(name, data_file)
                    print(f"  {name}: first-ever fit (empty numba cache) "
                          f"{res[name]['compile_fit_s']:.1f} s", flush=True)
            summary += report(task, res, clf)
            everything[task] = res
    print(f"\nload average at the end {os.getloadavg()[0]:.2f} (1 min)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(results=everything, load_end=os.getloadavg()[0]), f, indent=1)
    return summary


if __name__ == "__main__":
    main()
