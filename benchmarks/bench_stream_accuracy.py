"""Stream accuracy study: treelab's Hoeffding tree and SGT, with each numeric
observer and SGT option, against MOA (capymoa, loop inside the JVM) and river,
paired on the same streams, prequentially (test-then-train).

Streams
* a grid of synthetic tree streams: ``d`` features uniform in [0, 1]
  (width 5, 10, 20), labels from a random axis-aligned labelling tree of depth
  4, 6, 8 (``bench_sgt.random_tree_labels``), label noise 0, 5, 15 %, two
  seeds each (54 streams of 20,000 instances; ``--quick``: width 5 / 20,
  depth 4 / 8, noise 0 / 15 %, four seeds = 32 streams of 5,000);
* MOA's Electricity stream (``elecNormNew.arff``, time order; ``day`` nominal;
  :func:`treelab.datasets.fetch_electricity`, downloaded once into
  ``$TREELAB_DATA``, else ``~/treelab_data``, or ``--electricity PATH``).

Learners (same settings everywhere: grace period 200, delta / confidence
1e-7, tie threshold 0.05, information gain, naive-Bayes-adaptive leaves; SGT
with its defaults):
* treelab HT with ``observer`` = equal_width (default), gaussian, and gaussian /
  adaptive_range with ``inherited_counts=True`` (MOA's n in the bound), and
  both of those with ``n_range_samples=1`` ("r1": the tree learns and predicts
  from the first instance, as MOA's, instead of predicting the class prior for
  the first 1,000 instances), and both r1 variants with ``nb_form="moa"``
  ("moa_nb": MOA's naive-Bayes form; the Gaussian one is the recommended
  MOA-equivalent setting);
* treelab SGT paper default (equal_width), ``resplit=True`` (MOA's current
  re-splitting of internal nodes), adaptive_range, and "moa-like"
  (``leaf_value="mean"``, ``gamma=0``, ``min_improvement=1e-3``,
  ``observer="adaptive_range"``);
* MOA ``HoeffdingTree`` and ``StochasticGradientTree``; river
  ``HoeffdingTreeClassifier`` and ``SGTClassifier`` (per instance, slow:
  ``--river electricity`` (default) runs it on Electricity only).
* On Electricity MOA is also evaluated in treelab's chunks (``MOA HT
  chunked``: each chunk predicted by the model before it, then learned), since
  prequential accuracy on this autocorrelated stream depends on the chunk size.

treelab learns in chunks of ``--chunk`` rows (each predicted, then learned).
Prints per-stream accuracies, then for each treelab variant the mean paired
difference to MOA's learner of the same family (and to river's) with its
standard error, and wins / losses / ties; writes a plot (PNG) of the paired
differences and a JSON of every number.

A peer that raises (river's SGT on Electricity: ZeroDivisionError in its
quantizer on a constant feature) is recorded as "failed: <error>" and skipped
by the paired statistics.  Each finished stream is appended to
``stream_accuracy_<tag>.jsonl`` (``--resume`` continues a partial run).

Run:  python benchmarks/bench_stream_accuracy.py [--quick] [--chunk 100] [--river all] [--out DIR] [--tag _x]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sgt import moa_prequential, random_tree_labels  # noqa: E402

HT = dict(grace_period=200, delta=1e-7, tau=0.05)
HT_VARIANTS = {
    "HT equal_width": dict(observer="equal_width"),
    "HT gaussian": dict(observer="gaussian"),
    "HT gaussian inherited": dict(observer="gaussian", inherited_counts=True),
    "HT adaptive_range inherited": dict(observer="adaptive_range", inherited_counts=True),
    # the tree from the first instance (no prior-only warm-up), as MOA's
    "HT gaussian inherited r1": dict(observer="gaussian", inherited_counts=True,
                                     n_range_samples=1),
    "HT adaptive_range inherited r1": dict(observer="adaptive_range", inherited_counts=True,
                                           n_range_samples=1),
    # the recommended MOA-equivalent settings (docs/guide/streaming.md): + MOA's
    # naive-Bayes form
    "HT gaussian inherited r1 moa_nb": dict(observer="gaussian", inherited_counts=True,
                                            n_range_samples=1, nb_form="moa"),
    "HT adaptive_range inherited r1 moa_nb": dict(observer="adaptive_range",
                                                  inherited_counts=True, n_range_samples=1,
                                                  nb_form="moa"),
}
SGT_VARIANTS = {
    "SGT paper (equal_width)": dict(),
    "SGT resplit": dict(resplit=True),
    "SGT adaptive_range": dict(observer="adaptive_range"),
    "SGT moa-like": dict(leaf_value="mean", gamma=0.0, min_improvement=1e-3,
                         observer="adaptive_range"),
}


def tree_stream(n, d, depth, noise, seed):
    rng = np.random.default_rng(1000 * seed + 7 * d + depth)
    X = rng.random((n, d))
    y = random_tree_labels(X, depth=depth, seed=seed + 31 * depth + d)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


ELEC = None     # --electricity PATH; else treelab.datasets.fetch_electricity()


def electricity():
    if ELEC:
        from treelab.streaming.datasets import load_arff
        X, y = load_arff(ELEC, return_X_y=True)
    else:
        from treelab.datasets import fetch_electricity
        X, y = fetch_electricity()
    return X, np.asarray(y.cat.codes if hasattr(y, "cat") else y)


def electricity_file():
    """The Electricity ARFF file (plain, gzipped or zipped): ``--electricity
    PATH``, else the copy ``fetch_electricity`` keeps in the data folder."""
    if ELEC:
        return ELEC
    from treelab.datasets import fetch_electricity, get_data_home
    fetch_electricity()         # downloaded and checked once
    home = get_data_home()
    return next(str(home / n) for n in ("elecNormNew.arff.zip", "elecNormNew.arff",
                                        "elecNormNew.arff.gz") if (home / n).is_file())


def preq_treelab(make, X, y, chunk):
    model = make()
    n = len(y)
    correct = 0
    t0 = time.perf_counter()
    for s in range(0, n, chunk):
        Xc = X.iloc[s:s + chunk] if hasattr(X, "iloc") else X[s:s + chunk]
        yc = y[s:s + chunk]
        if s:
            correct += int((model.predict(Xc) == yc).sum())
        model.partial_fit(Xc, yc)
    return dict(acc=correct / n, leaves=model.n_leaves, secs=time.perf_counter() - t0)


def preq_river(model, X, y):
    cols = [str(c) for c in (X.columns if hasattr(X, "columns") else range(X.shape[1]))]
    vals = X.to_numpy(dtype=object) if hasattr(X, "to_numpy") else X
    correct = 0
    for i in range(len(y)):
        x = {c: (v if not isinstance(v, float) or v == v else None)
             for c, v in zip(cols, vals[i].tolist())}
        p = model.predict_one(x)
        correct += int(p is not None and p == y[i])
        model.learn_one(x, int(y[i]))
    return dict(acc=correct / len(y))


def _moa_learner(kind, schema):
    """MOA's HoeffdingTree (the study's settings) or StochasticGradientTree (defaults)."""
    from capymoa.classifier import HoeffdingTree, StochasticGradientTree
    if kind == "HT":
        return HoeffdingTree(schema=schema, grace_period=200, confidence=1e-7,
                             tie_threshold=0.05)
    return StochasticGradientTree(schema=schema)


def moa_run(kind, X, y):
    names = (("tree size (nodes)", "tree size (leaves)") if kind == "HT"
             else ("nodes", "leaf nodes"))
    r = moa_prequential(lambda schema: _moa_learner(kind, schema), X, y, "classification",
                        size_names=names)
    return dict(acc=r["score"], leaves=r["leaves"], secs=r["secs"])


def moa_electricity(kind, chunk=1):
    """MOA on the original ARFF (``day`` nominal).  ``chunk=1``: the loop in the
    JVM (capymoa's prequential evaluation); otherwise evaluated as treelab is:
    each chunk of ``chunk`` instances is predicted by the model before the
    chunk, then learned (a Python loop over capymoa's per-instance calls; its
    time is not MOA's)."""
    import shutil
    import tempfile
    from capymoa.evaluation import prequential_evaluation
    from capymoa.stream import ARFFStream
    from treelab.streaming.datasets import _open_text, data_path
    tmp = tempfile.mkdtemp(prefix="treelab-elec-")
    path = os.path.join(tmp, "elec.arff")
    with _open_text(data_path(electricity_file())) as fi, \
            open(path, "w", encoding="utf-8", newline="") as fo:
        shutil.copyfileobj(fi, fo)
    try:
        stream = ARFFStream(path)
        learner = _moa_learner(kind, stream.get_schema())
        t0 = time.perf_counter()
        if chunk == 1:
            res = prequential_evaluation(stream, learner, optimise=True)
            return dict(acc=res.cumulative.accuracy() / 100.0, secs=time.perf_counter() - t0)
        buf, correct, n = [], 0, 0
        while True:
            more = stream.has_more_instances()
            if more:
                buf.append(stream.next_instance())
            if len(buf) == chunk or (not more and buf):
                for inst in buf:
                    if n:
                        correct += int(learner.predict(inst) == inst.y_index)
                    n += 1
                for inst in buf:
                    learner.train(inst)
                buf = []
            if not more:
                break
        return dict(acc=correct / n)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_stream(name, X, y, chunk, river, elec=False):
    from treelab import HoeffdingTreeClassifier, SGTClassifier
    classes = np.unique(y)
    out = {}
    for v, kw in HT_VARIANTS.items():
        out[v] = preq_treelab(lambda: HoeffdingTreeClassifier(classes=classes, **HT, **kw),
                              X, y, chunk)
    for v, kw in SGT_VARIANTS.items():
        out[v] = preq_treelab(lambda: SGTClassifier(classes=classes, **kw), X, y, chunk)
    for kind in ("HT", "SGT"):
        out[f"MOA {kind}"] = moa_electricity(kind) if elec else moa_run(kind, X, y)
        if elec and chunk > 1:
            out[f"MOA {kind} chunked"] = moa_electricity(kind, chunk)
    if river:
        from river import tree
        for rname, make in (("river HT", lambda: tree.HoeffdingTreeClassifier(
                grace_period=200, delta=1e-7, tau=0.05)), ("river SGT", tree.SGTClassifier)):
            try:
                out[rname] = preq_river(make(), X, y)
            except Exception as exc:    # noqa: BLE001 -- a peer's bug is a result, not an abort
                # e.g. river's SGT quantizer (river/tree/splitter/sgt_quantizer.py) divides
                # by a zero radius when a feature is constant at the start (Electricity)
                out[rname] = dict(failed=f"{type(exc).__name__}: {exc}")
    print(f"{name:28s} {_fmt_row(out)}", flush=True)
    return out


def _fmt_row(out):
    """One stream's accuracies, in groups (treelab HT | treelab SGT | MOA | river)."""
    groups = [[], [], []]
    for k, v in out.items():
        g = 2 if k.startswith(("MOA", "river")) else 1 if k.startswith("SGT") else 0
        groups[g].append(f"{k.split(' (')[0]} " + (f"{v['acc']:.4f}" if "acc" in v
                                                    else f"failed: {v['failed']}"))
    return "  |  ".join("  ".join(g) for g in groups if g)


def _grid_from_log(path):
    """Per-stream accuracies from the lines ``run_stream`` printed."""
    import re
    keys = list(HT_VARIANTS) + list(SGT_VARIANTS) + ["MOA HT", "MOA SGT", "river HT",
                                                     "river SGT"]
    short = {k.split(" (")[0]: k for k in keys}
    pat = re.compile("(" + "|".join(re.escape(k) for k in sorted(short, key=len, reverse=True))
                     + r") ([0-9.]+)")
    grid = []
    with open(path) as fh:
        for line in fh:
            if line.startswith("d=") and "MOA HT" in line:
                grid.append({short[k]: dict(acc=float(v)) for k, v in pat.findall(line[28:])})
    return grid


def _ok(r, k):
    return k in r and "acc" in r[k]


def paired(results, a, b):
    """Paired differences a - b over the streams where both ran (a failed peer is skipped)."""
    diffs = np.array([r[a]["acc"] - r[b]["acc"] for r in results if _ok(r, a) and _ok(r, b)])
    if diffs.size == 0:
        return None
    se = diffs.std(ddof=1) / np.sqrt(diffs.size) if diffs.size > 1 else float("nan")
    return dict(mean=float(diffs.mean()), se=float(se), wins=int((diffs > 1e-12).sum()),
                losses=int((diffs < -1e-12).sum()), ties=int((np.abs(diffs) <= 1e-12).sum()),
                n=int(diffs.size), diffs=diffs.tolist())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="32 streams (4 seeds of 8 shapes) of --n-quick instances")
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--n-quick", type=int, default=5_000)
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=None, help="seeds per shape (2; quick: 4)")
    ap.add_argument("--river", choices=("none", "electricity", "all"), default="electricity",
                    help="where river runs (per instance, slow)")
    ap.add_argument("--skip-electricity", action="store_true")
    ap.add_argument("--skip-grid", action="store_true", help="Electricity only")
    ap.add_argument("--electricity", default=None,
                    help="path of elecNormNew.arff(.gz/.zip) (default: "
                         "treelab.datasets.fetch_electricity())")
    ap.add_argument("--grid-from-log", default=None,
                    help="take the grid's accuracies from the printed lines of an earlier run")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "docs", "figures"))
    ap.add_argument("--tag", default="",
                    help="suffix of the output names (stream_accuracy_<grid>_chunk<c><tag>.*)")
    ap.add_argument("--resume", action="store_true",
                    help="skip the streams already in the checkpoint (<name>.jsonl)")
    args = ap.parse_args(argv)
    tag = ("electricity" if args.skip_grid else "quick" if args.quick else "full") + \
        f"_chunk{args.chunk}{args.tag}"
    os.makedirs(args.out, exist_ok=True)
    # one JSON line per finished stream, so a partial run still reports
    ckpt_path = os.path.join(args.out, f"stream_accuracy_{tag}.jsonl")
    done = {}
    if args.resume and os.path.exists(ckpt_path):
        with open(ckpt_path) as fh:
            for line in fh:
                rec = json.loads(line)
                done[rec["stream"]] = rec["result"]
    elif os.path.exists(ckpt_path):
        os.remove(ckpt_path)

    def checkpointed(name, fn):
        if name in done:
            print(f"{name:28s} {_fmt_row(done[name])}  (from checkpoint)", flush=True)
            return done[name]
        out = fn()
        with open(ckpt_path, "a") as fh:
            fh.write(json.dumps(dict(stream=name, result=out, load=os.getloadavg()),
                                default=_json_default) + "\n")
        return out
    widths, depths, noises = ((5, 20), (4, 8), (0.0, 0.15)) if args.quick else \
        ((5, 10, 20), (4, 6, 8), (0.0, 0.05, 0.15))
    n = args.n_quick if args.quick else args.n
    seeds = args.seeds if args.seeds is not None else (4 if args.quick else 2)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; chunks of {args.chunk}; "
          f"{'quick grid' if args.quick else 'full grid'}, {n} instances per stream")
    global ELEC
    if args.electricity:
        ELEC = args.electricity
    grid = []
    if args.grid_from_log:
        grid = _grid_from_log(args.grid_from_log)
        widths = ()
    if args.skip_grid:
        widths = ()
    for d in widths:
        for depth in depths:
            for noise in noises:
                for seed in range(seeds):
                    name = f"d={d} depth={depth} noise={noise:.2f} s={seed}"
                    grid.append(checkpointed(name, lambda: run_stream(
                        name, *tree_stream(n, d, depth, noise, seed), args.chunk,
                        args.river == "all")))
    elec = None
    if not args.skip_electricity:
        elec = checkpointed("Electricity", lambda: run_stream(
            "Electricity", *electricity(), args.chunk, args.river != "none", elec=True))
    print(f"load average at the end {os.getloadavg()}")

    summary = {}
    print(f"\npaired prequential accuracy differences over {len(grid)} tree streams "
          "(mean +- standard error; wins / losses / ties)")
    for fam, variants in (("HT", HT_VARIANTS), ("SGT", SGT_VARIANTS)):
        for v in variants:
            for ref in (f"MOA {fam}", f"river {fam}"):
                p = paired(grid, v, ref)
                if p is None:
                    continue
                summary[f"{v} - {ref}"] = p
                e = (f"; Electricity {100 * (elec[v]['acc'] - elec[ref]['acc']):+.2f} pt"
                     if elec and _ok(elec, v) and _ok(elec, ref) else
                     f"; Electricity: {ref} failed" if elec and ref in elec else "")
                if elec and _ok(elec, ref + " chunked"):
                    e += (f" (vs MOA in chunks of {args.chunk}: "
                          f"{100 * (elec[v]['acc'] - elec[ref + ' chunked']['acc']):+.2f} pt)")
                skipped = sum(1 for r in grid if v in r and ref in r and not _ok(r, ref))
                sk = f" ({ref} failed on {skipped} streams, skipped)" if skipped else ""
                print(f"  {v:38s} - {ref:9s}: {100 * p['mean']:+.2f} +- {100 * p['se']:.2f} pt"
                      f"  {p['wins']}/{p['losses']}/{p['ties']} (n={p['n']}){e}{sk}")
    means = {}
    for k in (grid[0] if grid else {}):
        accs = [r[k]["acc"] for r in grid if _ok(r, k)]
        if accs:
            means[k] = float(np.mean(accs))
    print("\nmean accuracy over the grid: " + ", ".join(f"{k} {v:.4f}" for k, v in means.items()))
    for k in (grid[0] if grid else {}):
        nf = sum(1 for r in grid if k in r and not _ok(r, k))
        if nf:
            first = next(r[k]["failed"] for r in grid if k in r and not _ok(r, k))
            print(f"{k} failed on {nf} of {len(grid)} streams (first: {first})")
    if elec:
        print("Electricity: " + ", ".join(
            f"{k} {v['acc']:.4f}" if "acc" in v else f"{k} failed: {v['failed']}"
            for k, v in elec.items()))
    with open(os.path.join(args.out, f"stream_accuracy_{tag}.json"), "w") as fh:
        json.dump(dict(grid=grid, electricity=elec, summary=summary, means=means,
                       n=n, chunk=args.chunk, load=os.getloadavg()), fh, indent=1,
                  default=_json_default)
    if summary:
        _plot(summary, elec, os.path.join(args.out, f"stream_accuracy_{tag}.png"), len(grid))


def _json_default(o):
    return o.item() if hasattr(o, "item") else str(o)


def _plot(summary, elec, path, n_streams):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = [k for k in summary if "MOA" in k] + [k for k in summary if "river" in k]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(keys) + 1.8))
    for i, k in enumerate(keys):
        d = 100 * np.asarray(summary[k]["diffs"])
        ax.scatter(d, np.full(d.size, i) + np.random.default_rng(i).uniform(-0.15, 0.15, d.size),
                   s=10, alpha=0.5, color="tab:blue")
        ax.errorbar(100 * summary[k]["mean"], i, xerr=100 * summary[k]["se"], fmt="o",
                    color="black", capsize=3)
        v, ref = k.split(" - ")
        if elec and _ok(elec, v) and _ok(elec, ref):
            ax.scatter([100 * (elec[v]["acc"] - elec[ref]["acc"])], [i], marker="*", s=120,
                       color="tab:red", zorder=5)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels(keys)
    ax.invert_yaxis()
    ax.set_xlabel("prequential accuracy difference to MOA / river (points)\ndots: tree streams, "
                  "black: mean +- s.e., red star: Electricity")
    ax.set_title(f"treelab vs MOA and river, paired over {n_streams} tree streams")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
