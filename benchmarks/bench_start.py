"""Start-up cost per learner: cold (empty numba cache), warm, and after ``treelab warmup``.

Each measurement is a fresh Python process: ``import treelab`` and one first
``fit`` + ``predict`` of one learner on 2,000 x 5 random rows (every learner
family: decision trees exact and on bins, gradient boosting depth-wise and
loss-guided, random / extra / completely random forests, bagging, AdaBoost, a
cascade, gcForest with scanning, ToPs, SGT classifier / regressor /
multi-instance, the Hoeffding tree).  The cold column also lists, per learner,
the kernels that took the most compile seconds (numba's event API).  "cold" runs on
a private copy of the package with no numba cache (what a fresh install
pays, compilation included); "warm" repeats it once the cache is filled;
"after warmup" runs ``treelab warmup`` once on another empty copy and then
the first fit of every learner in its own new process.

    python benchmarks/bench_start.py                 # all learners, all three columns
    python benchmarks/bench_start.py --no-cold       # only warm / after-warmup
    python benchmarks/bench_start.py --learners DecisionTreeClassifier --no-warmup
    python benchmarks/bench_start.py --source OLD/treelab   # another version, same run

The copies live in a temporary folder, so the repository's own cache is not
touched.  Prints a table (seconds) and, with ``--json FILE``, writes it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DATA = """
import numpy as np
rng = np.random.default_rng(0)
X = rng.random((2000, 5))
y = ((X[:, 0] > 0.5) ^ (rng.random(2000) < 0.1)).astype(int)
"""

LEARNERS = {
    "DecisionTreeClassifier": "m = treelab.DecisionTreeClassifier().fit(X, y); m.predict(X[:10])",
    "DecisionTreeClassifier(hist)": (
        "m = treelab.DecisionTreeClassifier(splitter='hist').fit(X, y); m.predict(X[:10])"),
    "DecisionTreeRegressor": "m = treelab.DecisionTreeRegressor().fit(X, X[:, 0]); m.predict(X[:10])",
    "GradientBoosting(depthwise)": (
        "m = treelab.GradientBoostingClassifier(n_estimators=5).fit(X, y); m.predict(X[:10])"),
    "GradientBoosting(lossguide)": (
        "m = treelab.GradientBoostingClassifier(n_estimators=5, grow_policy='lossguide')"
        ".fit(X, y); m.predict(X[:10])"),
    "RandomForestClassifier": (
        "m = treelab.RandomForestClassifier(n_estimators=5).fit(X, y); m.predict(X[:10])"),
    "ExtraTreesClassifier": (
        "m = treelab.ExtraTreesClassifier(n_estimators=5).fit(X, y); m.predict(X[:10])"),
    "CompletelyRandomForest": (
        "m = treelab.CompletelyRandomForestClassifier(n_estimators=5).fit(X, y); "
        "m.predict(X[:10])"),
    "BaggingClassifier": (
        "m = treelab.BaggingClassifier(n_estimators=5).fit(X, y); m.predict(X[:10])"),
    "AdaBoostClassifier": (
        "m = treelab.AdaBoostClassifier(n_estimators=5).fit(X, y); m.predict(X[:10])"),
    "CascadeForestClassifier": (
        "m = treelab.CascadeForestClassifier(max_levels=2).fit(X, y); m.predict(X[:10])"),
    "GcForestClassifier": (
        "Xi = rng.random((200, 64)); yi = (Xi[:, :8].sum(1) > 4).astype(int); "
        "m = treelab.GcForestClassifier(n_estimators=5, max_levels=1).fit(Xi, yi); m.predict(Xi[:10])"),
    "ToPsClassifier": "m = treelab.ToPsClassifier().fit(X, y); m.predict(X[:10])",
    "SGTClassifier": "m = treelab.SGTClassifier().fit(X, y); m.predict(X[:10])",
    "SGTRegressor": "m = treelab.SGTRegressor().fit(X, X[:, 0]); m.predict(X[:10])",
    "SGTMultiInstanceClassifier": (
        "b = np.repeat(np.arange(500), 4); yb = np.repeat(y[::4], 4); "
        "m = treelab.SGTMultiInstanceClassifier().fit(X, yb, b); m.predict(X[:8], b[:8])"),
    "HoeffdingTreeClassifier": "m = treelab.HoeffdingTreeClassifier().fit(X, y); m.predict(X[:10])",
}

SNIPPET = """
import json, time
from numba.core import event
compile_s = {{}}
stack = []
class _Listener(event.Listener):
    def on_start(self, ev):
        d = ev.data.get("dispatcher")
        stack.append([getattr(getattr(d, "py_func", None), "__qualname__", "?"),
                      time.perf_counter(), 0.0])
    def on_end(self, ev):
        name, t, child = stack.pop()
        dt = time.perf_counter() - t
        compile_s[name] = compile_s.get(name, 0.0) + dt - child   # own time
        if stack:
            stack[-1][2] += dt
event.register("numba:compile", _Listener())
t0, c0 = time.perf_counter(), time.process_time()
import treelab
t1, c1 = time.perf_counter(), time.process_time()
{data}
t2, c2 = time.perf_counter(), time.process_time()
{fit}
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps(dict(import_s=t1 - t0, fit_s=t3 - t2, import_cpu=c1 - c0, fit_cpu=c3 - c2,
                      compile_s=compile_s)))
"""


SOURCE = ROOT / "treelab"


def fresh_copy(where):
    """A copy of the treelab package without any numba cache."""
    dst = Path(where) / "treelab"
    shutil.copytree(SOURCE, dst,
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return Path(where)


def run(code, path, env_extra=None):
    env = dict(os.environ, PYTHONPATH=str(path), TREELAB_COMPILE_NOTICE="0")
    env.pop("NUMBA_CACHE_DIR", None)
    env.update(env_extra or {})
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], cwd=path, env=env, capture_output=True,
                         text=True)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    res = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {}
    res["wall_s"] = wall
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--learners", nargs="*", default=list(LEARNERS), choices=list(LEARNERS))
    ap.add_argument("--no-cold", action="store_true", help="skip the cold column")
    ap.add_argument("--cold-learners", nargs="*", choices=list(LEARNERS),
                    help="learners measured cold (default: all of --learners)")
    ap.add_argument("--no-warmup", action="store_true",
                    help="skip the after-warmup column (a full warmup on an empty cache)")
    ap.add_argument("--kernels", type=int, default=8,
                    help="per learner, the kernels with the most cold compile seconds "
                         "(their own time, callees excluded; numba's event API)")
    ap.add_argument("--json", help="also write the table to this file")
    ap.add_argument("--source", help="the treelab package folder to copy (default: this "
                                     "repository's)")
    args = ap.parse_args(argv)
    global SOURCE
    if args.source:
        SOURCE = Path(args.source)
    table = {name: {} for name in args.learners}
    with tempfile.TemporaryDirectory(prefix="treelab-start-") as tmp:
        for name in args.learners:
            code = SNIPPET.format(data=DATA, fit=LEARNERS[name])
            if not args.no_cold and (args.cold_learners is None
                                     or name in args.cold_learners):
                path = fresh_copy(Path(tmp) / f"cold-{name}")
                table[name]["cold"] = c = run(code, path)
                table[name]["warm"] = w = run(code, path)
                print(f"{name}: cold {c['wall_s']:.1f} s wall (CPU import {c['import_cpu']:.1f}"
                      f" + fit {c['fit_cpu']:.1f} s), warm {w['wall_s']:.1f} s wall (CPU "
                      f"{w['import_cpu']:.1f} + {w['fit_cpu']:.1f} s)", flush=True)
                top = sorted(c["compile_s"].items(), key=lambda kv: -kv[1])[:args.kernels]
                for kname, sec in top:
                    print(f"    {sec:6.1f} s  {kname}", flush=True)
        warmup_s = None
        if not args.no_warmup:
            path = fresh_copy(Path(tmp) / "warmup")
            t0 = time.perf_counter()
            run("import sys; from treelab.cli import main; sys.exit(main(['warmup']))", path)
            warmup_s = time.perf_counter() - t0
            print(f"treelab warmup (empty cache): {warmup_s:.1f} s", flush=True)
            for name in args.learners:
                code = SNIPPET.format(data=DATA, fit=LEARNERS[name])
                table[name]["after_warmup"] = a = run(code, path)
                print(f"{name} after warmup: {a['wall_s']:.1f} s wall (CPU import "
                      f"{a['import_cpu']:.1f} + fit {a['fit_cpu']:.1f} s)", flush=True)
    print()
    print("seconds, import + first fit/predict, fresh process; wall (CPU of that process)")
    print(f"{'learner':28s} {'cold':>24s} {'warm':>24s} {'after warmup':>24s}")
    for name, cols in table.items():
        cells = []
        for col in ("cold", "warm", "after_warmup"):
            c = cols.get(col)
            cells.append(f"{c['import_s']:.1f} + {c['fit_s']:.1f} "
                         f"({c['import_cpu']:.1f} + {c['fit_cpu']:.1f})" if c else "-")
        print(f"{name:28s} " + " ".join(f"{c:>24s}" for c in cells))
    if warmup_s is not None:
        print(f"\n`treelab warmup` on an empty cache: {warmup_s:.1f} s wall")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(table=table, warmup_s=warmup_s), f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
