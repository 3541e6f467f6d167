"""Small-chunk throughput on Electricity: treelab's Hoeffding tree and SGT vs MOA in the JVM.

Targets: with chunks of 100 rows treelab's
``HoeffdingTreeClassifier`` and ``SGTClassifier`` at least 2x MOA's in-JVM
throughput (``HoeffdingTree`` / ``StochasticGradientTree`` through capymoa's
``prequential_evaluation(optimise=True)``: the whole loop in the JVM), and
chunks of 1,000 keeping about 450,000-570,000 instances/s.

Stream: MOA's Electricity (``elecNormNew.arff``, 45,312 instances, time order;
:func:`treelab.datasets.fetch_electricity`, downloaded once into
``$TREELAB_DATA``, else ``~/treelab_data``, or ``--electricity PATH``).
treelab is run prequentially (each chunk predicted by the model before it,
then learned) on the stream as

* ``float``: a float64 array (``day`` as its category code, a numeric column);
* ``DataFrame``: the pandas frame of ``load_arff`` (``day`` a ``category``
  column, so a nominal attribute: MOA's view of the stream).

Each measurement is repeated ``--repeats`` times in this process after a
warm-up run (numba's compilation and MOA's JIT are not counted); the best run
is reported, with wall time and CPU time (``time.process_time``: the whole
process, so for MOA it includes the JVM's compiler and GC threads).  MOA's
first (cold JIT) run is printed too.  Ratios are treelab / MOA of instances
per second.  On a loaded machine quote the load (printed from ``os.getloadavg``).

Settings: Hoeffding trees grace period 200, delta (MOA: confidence) 1e-7, tie
threshold 0.05, information gain, naive-Bayes-adaptive leaves (both sides'
defaults otherwise); SGT both sides' defaults.

Run:  python benchmarks/bench_stream_chunks.py [--chunks 100,1000] [--repeats 3]
      [--learners HT,SGT] [--skip-moa] [--profile 100]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

HT_SETTINGS = dict(grace_period=200, delta=1e-7, tau=0.05)


def electricity(path=None):
    if path:
        from treelab.streaming.datasets import load_arff
        X, y = load_arff(path, return_X_y=True)
    else:
        from treelab.datasets import fetch_electricity
        X, y = fetch_electricity()
    y = np.asarray(y.cat.codes, dtype=np.int64)
    Xf = X.assign(day=X["day"].cat.codes.astype(np.float64)).to_numpy(np.float64)
    return X, Xf, y


def electricity_file(path=None):
    """The Electricity ARFF file (plain, gzipped or zipped): ``path``, else the
    copy ``fetch_electricity`` keeps in the data folder."""
    if path:
        return path
    from treelab.datasets import fetch_electricity, get_data_home
    fetch_electricity()         # downloaded and checked once
    home = get_data_home()
    return next(str(home / n) for n in ("elecNormNew.arff.zip", "elecNormNew.arff",
                                        "elecNormNew.arff.gz") if (home / n).is_file())


def make_treelab(kind):
    from treelab import HoeffdingTreeClassifier, SGTClassifier
    if kind == "HT":
        return HoeffdingTreeClassifier(classes=[0, 1], **HT_SETTINGS)
    return SGTClassifier(classes=[0, 1])


def preq_treelab(kind, X, y, chunk):
    """Prequential run in chunks; returns wall s, CPU s, accuracy, leaves."""
    model = make_treelab(kind)
    frame = hasattr(X, "iloc")
    n = len(y)
    correct = 0
    c0, t0 = time.process_time(), time.perf_counter()
    for s in range(0, n, chunk):
        Xc = X.iloc[s:s + chunk] if frame else X[s:s + chunk]
        yc = y[s:s + chunk]
        if s:
            correct += int((model.predict(Xc) == yc).sum())
        model.partial_fit(Xc, yc)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(wall=wall, cpu=cpu, acc=correct / n, leaves=model.n_leaves)


def _moa_learner(kind, schema):
    from capymoa.classifier import HoeffdingTree, StochasticGradientTree
    if kind == "HT":
        return HoeffdingTree(schema=schema, grace_period=200, confidence=1e-7,
                             tie_threshold=0.05)
    return StochasticGradientTree(schema=schema)


def preq_moa(kind, arff_path):
    """capymoa's prequential evaluation with the loop inside the JVM."""
    from capymoa.evaluation import prequential_evaluation
    from capymoa.stream import ARFFStream
    stream = ARFFStream(arff_path)
    learner = _moa_learner(kind, stream.get_schema())
    c0, t0 = time.process_time(), time.perf_counter()
    res = prequential_evaluation(stream, learner, optimise=True)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(wall=wall, cpu=cpu, acc=res.cumulative.accuracy() / 100.0, leaves=None)


def best(runs):
    return dict(wall=min(r["wall"] for r in runs), cpu=min(r["cpu"] for r in runs),
                acc=runs[0]["acc"], leaves=runs[0]["leaves"])


def fmt(name, r, n):
    return (f"  {name:<34s} wall {r['wall']:7.3f} s ({n / r['wall']:>9,.0f}/s)  "
            f"CPU {r['cpu']:7.3f} s ({n / r['cpu']:>9,.0f}/s)  acc {r['acc']:.4f}"
            + (f"  leaves {r['leaves']}" if r.get("leaves") is not None else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", default="100,1000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--learners", default="HT,SGT")
    ap.add_argument("--skip-moa", action="store_true")
    ap.add_argument("--electricity", default=None,
                    help="path of elecNormNew.arff(.gz/.zip) (default: "
                         "treelab.datasets.fetch_electricity())")
    ap.add_argument("--profile", type=int, default=0,
                    help="also cProfile one float-array run at this chunk size (HT and SGT)")
    args = ap.parse_args(argv)
    chunks = [int(c) for c in args.chunks.split(",")]
    kinds = args.learners.split(",")
    Xdf, Xf, y = electricity(args.electricity)
    n = len(y)
    print(f"Electricity: {n} instances, {Xf.shape[1]} features; load average "
          f"{os.getloadavg()[0]:.2f} at start")

    moa = {}
    if not args.skip_moa:
        try:
            import capymoa  # noqa: F401
        except ImportError:
            print("capymoa is not installed: MOA skipped")
            args.skip_moa = True
    if not args.skip_moa:
        from treelab.streaming.datasets import _open_text, data_path
        tmp = tempfile.mkdtemp(prefix="treelab-chunks-")
        arff = os.path.join(tmp, "elec.arff")
        with _open_text(data_path(electricity_file(args.electricity))) as fi, \
                open(arff, "w", encoding="utf-8", newline="") as fo:
            shutil.copyfileobj(fi, fo)
        try:
            for kind in kinds:
                first = preq_moa(kind, arff)
                runs = [preq_moa(kind, arff) for _ in range(args.repeats)]
                moa[kind] = best(runs)
                print(fmt(f"MOA {kind} first (cold JIT)", first, n))
                print(fmt(f"MOA {kind} best of {args.repeats}", moa[kind], n))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    for kind in kinds:
        preq_treelab(kind, Xf[:3000], y[:3000], 100)           # compile / load the kernels
        preq_treelab(kind, Xdf.iloc[:3000], y[:3000], 100)
        for chunk in chunks:
            for form, X in (("float", Xf), ("DataFrame", Xdf)):
                r = best([preq_treelab(kind, X, y, chunk) for _ in range(args.repeats)])
                line = fmt(f"treelab {kind} {form} chunks of {chunk}", r, n)
                if kind in moa:
                    line += (f"  ratio to MOA: wall {moa[kind]['wall'] / r['wall']:.2f}x, "
                             f"CPU {moa[kind]['cpu'] / r['cpu']:.2f}x")
                print(line, flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")

    if args.profile:
        import cProfile
        import pstats
        for kind in kinds:
            pr = cProfile.Profile()
            pr.enable()
            preq_treelab(kind, Xf, y, args.profile)
            pr.disable()
            print(f"--- profile: {kind}, float array, chunks of {args.profile}")
            pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
