"""Stochastic Gradient Tree benchmark: treelab vs river vs MOA (capymoa), one run, same stream.

Streams (200,000 x 10 numeric features in [0, 1]):
* classification: labels from a random depth-5 axis-aligned tree, 10 % label noise;
* regression: Friedman #1 plus N(0, 1) noise.

Every learner is evaluated prequentially (test-then-train).  treelab runs
through chunked ``partial_fit`` (predict a chunk of ``--chunk`` rows, then
learn it: one jitted call each) and through river-style ``predict_one`` /
``learn_one``; river per instance; MOA's ``StochasticGradientTree`` through
capymoa with the whole loop inside the JVM (an ARFF stream and
``prequential_evaluation(optimise=True)``), so its time is not Python
overhead.  Prints instances per second, ratios, prequential accuracy / MAE,
model size and peak memory (Python allocations via tracemalloc; the JVM's
used-heap growth for MOA).

Targets: treelab >= 5x MOA's throughput through chunked partial_fit
(so >= 60x river's), >= 5x river's through learn_one, prequential accuracy
>= MOA's.  A single stream is one draw of a random labelling tree and which
learner wins on it varies from draw to draw, so accuracy is also compared on
``--accuracy-seeds`` streams (default 30; about 10 s each) and the target is
judged on the mean.

``--leaf-value paper,mean`` runs treelab's SGT in both leaf-value forms
(``leaf_value=``: the paper's eq. 13 with sums, the default, and the means of
the authors' code and river), each against the same MOA runs.

Run:  python benchmarks/bench_sgt.py [--n 200000] [--n-one 50000] [--n-river 200000]
      [--leaf-value paper|mean|paper,mean]
"""
from __future__ import annotations

import argparse
import gc
import os
import shutil
import tempfile
import time
import tracemalloc

import numpy as np


# ----------------------------------------------------------------------------- streams
def random_tree_labels(X, depth=5, seed=0):
    """Labels of a random axis-aligned tree of the given depth (thresholds inside each cell)."""
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    y = np.empty(X.shape[0], dtype=np.int64)

    def grow(idx, lo, hi, level):
        if level == depth:
            y[idx] = rng.integers(0, 2)
            return
        f = rng.integers(0, d)
        thr = rng.uniform(lo[f] + 0.2 * (hi[f] - lo[f]), hi[f] - 0.2 * (hi[f] - lo[f]))
        left = X[idx, f] <= thr
        hi_l, lo_r = hi.copy(), lo.copy()
        hi_l[f] = thr
        lo_r[f] = thr
        grow(idx[left], lo, hi_l, level + 1)
        grow(idx[~left], lo_r, hi, level + 1)

    grow(np.arange(X.shape[0]), np.zeros(d), np.ones(d), 0)
    return y


def classification_stream(n, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 10))
    y = random_tree_labels(X, depth=5, seed=seed + 1)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def regression_stream(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 10))
    y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
         + 5 * X[:, 4] + rng.normal(size=n))
    return X, y


# ---------------------------------------------------------------------------- helpers
def _score(task, y, pred):
    return float(np.mean(pred == y)) if task == "classification" else float(np.mean(np.abs(pred - y)))


class _Peak:
    """Peak Python-side allocation (tracemalloc) -- or nothing, when not tracing:
    tracing slows allocation-heavy Python code (river) many times over, so every
    learner runs twice, once timed without tracing and once traced for memory."""

    def __init__(self, trace):
        self.trace = trace
        self.peak = 0

    def __enter__(self):
        gc.collect()
        if self.trace:
            tracemalloc.start()
        return self

    def __exit__(self, *exc):
        if self.trace:
            self.peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()


def timed_and_traced(fn, *args, **kw):
    """Run ``fn`` untraced (its time and scores are kept) and traced (its peak memory)."""
    res = fn(*args, trace=False, **kw)
    res["peak"] = fn(*args, trace=True, **kw)["peak"]
    return res


def run_treelab_chunked(task, X, y, chunk, trace=False, leaf_value="paper"):
    from treelab import SGTClassifier, SGTRegressor
    model = (SGTClassifier(classes=[0, 1], leaf_value=leaf_value) if task == "classification"
             else SGTRegressor(leaf_value=leaf_value))
    preds = np.empty(len(y), dtype=float)
    with _Peak(trace) as mem:
        t0 = time.perf_counter()
        for s in range(0, len(y), chunk):
            Xc, yc = X[s:s + chunk], y[s:s + chunk]
            preds[s:s + chunk] = model.predict(Xc) if s else (0 if task == "classification" else 0.0)
            model.partial_fit(Xc, yc)
        secs = time.perf_counter() - t0
    return dict(secs=secs, score=_score(task, y, preds), nodes=model.n_nodes,
                leaves=model.n_leaves, peak=mem.peak)


def run_treelab_one(task, rows, y, trace=False, leaf_value="paper"):
    from treelab import SGTClassifier, SGTRegressor
    model = (SGTClassifier(classes=[0, 1], leaf_value=leaf_value) if task == "classification"
             else SGTRegressor(leaf_value=leaf_value))
    preds = np.empty(len(y), dtype=float)
    yl = y.tolist()
    with _Peak(trace) as mem:
        t0 = time.perf_counter()
        for i, (x, yi) in enumerate(zip(rows, yl)):
            p = model.predict_one(x)
            preds[i] = (p if p is not None else 0) if task == "classification" else p
            model.learn_one(x, yi)
        secs = time.perf_counter() - t0
    return dict(secs=secs, score=_score(task, y, preds), nodes=model.n_nodes,
                leaves=model.n_leaves, peak=mem.peak)


def run_river(task, rows, y, trace=False):
    from river import tree
    model = tree.SGTClassifier() if task == "classification" else tree.SGTRegressor()
    preds = np.empty(len(y), dtype=float)
    yl = [bool(v) for v in y] if task == "classification" else y.tolist()
    with _Peak(trace) as mem:
        t0 = time.perf_counter()
        for i, (x, yi) in enumerate(zip(rows, yl)):
            p = model.predict_one(x)
            preds[i] = float(bool(p)) if task == "classification" else p
            model.learn_one(x, yi)
        secs = time.perf_counter() - t0
    size = {}
    for attr in ("n_nodes", "n_leaves", "n_splits"):
        if hasattr(model, attr):
            size[attr] = getattr(model, attr)
    return dict(secs=secs, score=_score(task, y, preds), nodes=size.get("n_nodes"),
                leaves=size.get("n_leaves"), peak=mem.peak)


def print_start_times(*learners):
    """Cold (empty numba cache) and warm start of ``import treelab`` plus a first
    chunk, ``learn_one`` and ``predict_one`` of each streaming learner named."""
    from bench_decision_tree import start_times
    lines = ["import time; t0 = time.perf_counter(); import numpy as np; import treelab",
             "X = np.random.default_rng(0).random((1200, 5)); y = (X[:, 0] > 0.5).astype(int)",
             "row = {i: 0.5 for i in range(5)}"]
    for name in learners:
        make = f"treelab.{name}()" if "Regressor" in name else f"treelab.{name}(classes=[0, 1])"
        lines += [f"m = {make}.partial_fit(X, y); m.predict(X[:5])",
                  f"m1 = {make}; m1.learn_one(row, 1); m1.predict_one(row)"]
    lines.append("print(time.perf_counter() - t0)")
    cold, warm = start_times("\n".join(lines))
    print(f"start (import treelab + first chunk, learn_one, predict_one of {', '.join(learners)}): "
          f"cold {cold:.2f} s, warm {warm:.2f} s")


def _write_arff(path, X, y, task):
    with open(path, "w") as fh:
        fh.write("@relation bench\n")
        for j in range(X.shape[1]):
            fh.write(f"@attribute x{j} numeric\n")
        fh.write("@attribute class {0,1}\n" if task == "classification" else "@attribute y numeric\n")
        fh.write("@data\n")
        fmt = ",".join(["%.10g"] * X.shape[1])
        for i in range(X.shape[0]):
            fh.write(fmt % tuple(X[i]) + ("," + (str(int(y[i])) if task == "classification"
                                               else "%.10g" % y[i])) + "\n")


def moa_prequential(make_learner, X, y, task, size_names=("nodes", "leaf nodes")):
    """Prequential run of a capymoa learner with the whole loop inside the JVM:
    ``make_learner(schema)`` builds it on an ARFF copy of the stream.  Returns
    seconds, score (accuracy or MAE), model size (MOA's measurements named
    ``size_names``) and the JVM's used-heap growth."""
    from capymoa.evaluation import prequential_evaluation
    from capymoa.stream import ARFFStream
    import jpype
    tmp = tempfile.mkdtemp(prefix="treelab-bench-")
    path = os.path.join(tmp, "stream.arff")
    _write_arff(path, X, y, task)
    stream = ARFFStream(path)
    learner = make_learner(stream.get_schema())
    rt = jpype.JClass("java.lang.Runtime").getRuntime()
    jpype.JClass("java.lang.System").gc()
    used0 = rt.totalMemory() - rt.freeMemory()
    try:
        t0 = time.perf_counter()
        res = prequential_evaluation(stream, learner, optimise=True)
        secs = time.perf_counter() - t0
        used1 = rt.totalMemory() - rt.freeMemory()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cum = res.cumulative
    score = cum.accuracy() / 100.0 if task == "classification" else cum.mae()
    nodes = leaves = None
    try:
        for m in learner.moa_learner.getModelMeasurements():
            name = str(m.getName())
            if name == size_names[0]:
                nodes = int(m.getValue())
            elif name == size_names[1]:
                leaves = int(m.getValue())
    except Exception:  # noqa: BLE001 - model measurements are optional
        pass
    return dict(secs=secs, score=score, nodes=nodes, leaves=leaves, peak=max(used1 - used0, 0))


def run_moa(task, X, y):
    if task == "classification":
        from capymoa.classifier import StochasticGradientTree
    else:
        from capymoa.regressor import StochasticGradientTree
    return moa_prequential(lambda schema: StochasticGradientTree(schema=schema), X, y, task)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--n-one", type=int, default=50_000,
                    help="instances for the learn_one runs (treelab and river)")
    ap.add_argument("--n-river", type=int, default=None,
                    help="instances for river (default: --n-one)")
    ap.add_argument("--chunk", type=int, default=100,
                    help="rows per partial_fit call (each chunk is predicted before it is "
                         "learned, so larger chunks trade prequential accuracy for speed)")
    ap.add_argument("--skip-moa", action="store_true")
    ap.add_argument("--skip-river", action="store_true")
    ap.add_argument("--tasks", default="classification,regression")
    ap.add_argument("--seed", type=int, default=0, help="seed of the synthetic streams")
    ap.add_argument("--skip-cold", action="store_true",
                    help="skip the cold / warm start measurement")
    ap.add_argument("--accuracy-seeds", type=int, default=30,
                    help="classification streams (seeds 0..N-1) on which treelab's chunked "
                         "SGT and MOA's are compared for prequential accuracy (0: skip)")
    ap.add_argument("--leaf-value", default="paper",
                    help="treelab's leaf-value form(s), comma-separated: 'paper' (eq. 13, "
                         "sums; the default) and / or 'mean' (the authors' code, river)")
    args = ap.parse_args(argv)
    forms = [f.strip() for f in args.leaf_value.split(",") if f.strip()]
    if not forms or any(f not in ("paper", "mean") for f in forms):
        ap.error(f"--leaf-value: 'paper', 'mean' or 'paper,mean', got {args.leaf_value!r}")
    n_river = args.n_river or args.n_one

    import treelab
    print(f"treelab {treelab.__version__}, {os.cpu_count()} cores, stream of {args.n} instances")
    if not args.skip_cold:
        print_start_times("SGTClassifier", "SGTRegressor")
    # compile / load kernels outside the timed region
    from treelab import SGTClassifier, SGTRegressor
    Xw, yw = classification_stream(3000, seed=99)
    SGTClassifier(classes=[0, 1]).partial_fit(Xw, yw).predict(Xw[:5])
    SGTRegressor().partial_fit(*regression_stream(3000, seed=99)).predict(Xw[:5])

    for task in args.tasks.split(","):
        X, y = (classification_stream(args.n, seed=args.seed) if task == "classification"
                else regression_stream(args.n, seed=args.seed))
        metric = "accuracy" if task == "classification" else "MAE"
        rows = [{f"x{j}": v for j, v in enumerate(r)} for r in X[:max(args.n_one, n_river)].tolist()]
        res = {}
        for form in forms:
            tag = "" if len(forms) == 1 else f" [{form}]"
            res[f"treelab partial_fit{tag}"] = (args.n, timed_and_traced(
                run_treelab_chunked, task, X, y, args.chunk, leaf_value=form))
            res[f"treelab learn_one{tag}"] = (args.n_one, timed_and_traced(
                run_treelab_one, task, rows[:args.n_one], y[:args.n_one], leaf_value=form))
        if not args.skip_river:
            try:
                res["river"] = (n_river, timed_and_traced(run_river, task, rows[:n_river],
                                                          y[:n_river]))
            except ImportError:
                print("river is not installed: skipped")
        if not args.skip_moa:
            try:
                res["MOA (capymoa)"] = (args.n, run_moa(task, X, y))
            except ImportError:
                print("capymoa is not installed: skipped")
        print(f"\n[{task}] prequential {metric}; throughput in instances/s; treelab "
              f"leaf_value={','.join(forms)}")
        for name, (n, r) in res.items():
            r["ips"] = n / r["secs"]
            print(f"  {name:30s} n={n:7d}  {r['ips']:11.0f} inst/s  {metric} {r['score']:.4f}  "
                  f"nodes {r['nodes']}  leaves {r['leaves']}  peak memory {r['peak'] / 2**20:.1f} MiB")
        tag = "" if len(forms) == 1 else f" [{forms[0]}]"
        tl = res[f"treelab partial_fit{tag}"][1]
        one = res[f"treelab learn_one{tag}"][1]
        if "MOA (capymoa)" in res:
            moa = res["MOA (capymoa)"][1]
            ratio = tl["ips"] / moa["ips"]
            print(f"  treelab partial_fit / MOA throughput: {ratio:.1f}x "
                  f"[target >= 5x: {'met' if ratio >= 5 else 'MISSED'}]")
            if task == "classification":
                ok = tl["score"] >= moa["score"]
                print(f"  accuracy treelab {tl['score']:.4f} vs MOA {moa['score']:.4f} "
                      f"[target >= MOA: {'met' if ok else 'MISSED'}]")
            else:
                print(f"  MAE treelab {tl['score']:.4f} vs MOA {moa['score']:.4f}")
        if "river" in res:
            rv = res["river"][1]
            r1 = tl["ips"] / rv["ips"]
            r2 = one["ips"] / rv["ips"]
            print(f"  treelab partial_fit / river: {r1:.0f}x [target >= 60x: "
                  f"{'met' if r1 >= 60 else 'MISSED'}]")
            print(f"  treelab learn_one / river: {r2:.1f}x [target >= 5x: "
                  f"{'met' if r2 >= 5 else 'MISSED'}]")
    if args.accuracy_seeds > 0 and not args.skip_moa and "classification" in args.tasks:
        try:
            accuracy_over_streams(args.n, args.accuracy_seeds, args.chunk, forms)
        except ImportError:
            print("capymoa is not installed: accuracy over streams skipped")


def accuracy_over_streams(n, n_seeds, chunk, forms=("paper",)):
    """Prequential accuracy of treelab's chunked SGT (each leaf-value form in
    ``forms``) and MOA's SGT on the classification streams of seeds
    0..n_seeds-1: one stream is a single draw of a random tree, and which
    learner wins on it varies, so the accuracy target is judged on the mean
    over the streams (paired differences reported)."""
    print(f"\n[classification] prequential accuracy over {n_seeds} streams (seeds 0-{n_seeds - 1})")
    ours = {f: [] for f in forms}
    theirs = []
    for seed in range(n_seeds):
        X, y = classification_stream(n, seed=seed)
        b = run_moa("classification", X, y)["score"]
        theirs.append(b)
        line = f"  seed {seed:3d}  MOA {b:.4f}"
        for f in forms:
            a = run_treelab_chunked("classification", X, y, chunk, leaf_value=f)["score"]
            ours[f].append(a)
            line += f"  treelab[{f}] {a:.4f} ({100 * (a - b):+6.2f} pt)"
        print(line, flush=True)
    theirs = np.array(theirs)
    for f in forms:
        a = np.array(ours[f])
        d = a - theirs
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        ok = a.mean() >= theirs.mean()
        print(f"  leaf_value={f}: mean treelab {a.mean():.4f}  MOA {theirs.mean():.4f}  paired "
              f"diff {100 * d.mean():+.2f} pt (s.e. {100 * se:.2f})  treelab ahead on "
              f"{int((d > 0).sum())}/{len(d)} streams, behind on {int((d < 0).sum())}  "
              f"[target: mean accuracy >= MOA's: {'met' if ok else 'MISSED'}]")
    if len(forms) == 2:
        d = np.array(ours[forms[0]]) - np.array(ours[forms[1]])
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        print(f"  {forms[0]} - {forms[1]}: {100 * d.mean():+.2f} pt (s.e. {100 * se:.2f}), "
              f"{forms[0]} ahead on {int((d > 0).sum())}/{len(d)} streams")


if __name__ == "__main__":
    main()
