"""HT variants at chunks of 1 (per-instance prequential, MOA's protocol) on the
quick grid; MOA's per-instance accuracies are re-read from the log of a chunk-100
run of ``bench_stream_accuracy.py`` (its standard output saved to a file).

``n_range_samples=1``: the tree exists from the first instance (the Gaussian
observer needs no range; the adaptive range starts from the first value and
grows), so the first 1,000 instances are predicted by the tree, as MOA's are,
not by the class prior.

Two measures are printed.  (a) raw: accuracy over all n instances, as each
evaluator counts it.  (b) first instance excluded from both sides: neither
model has seen data when instance 1 is predicted, and the evaluators treat it
differently: ``preq_treelab`` does not predict it and counts it wrong, MOA's
prequential loop (capymoa's ``prequential_evaluation``, the loop in the JVM)
predicts ``Utils.maxIndex`` of the empty tree's all-zero votes, i.e. class 0,
and counts it right when ``y[0] == 0`` (checked: a one-instance stream gives
MOA accuracy 100 % with label 0 and 0 % with label 1, the stored prediction is
0 both times).  (b) is treelab's correct count over instances 2..n / (n - 1)
and MOA's (acc * n - [y[0] == 0]) / (n - 1): the like-for-like comparison.

``nb_form="moa"`` (the "moa_nb" variants): MOA's naive-Bayes details (votes
as products, MOA's nominal likelihood, the first class on all-zero votes).

Run:  python benchmarks/bench_stream_accuracy.py --quick --chunk 100 > chunk100.log
      python benchmarks/bench_stream_ht_per_instance.py chunk100.log
      [VARIANT,VARIANT,...]   (default: all)
      python benchmarks/bench_stream_ht_per_instance.py --electricity [VARIANT,...]
      (Electricity per instance, DataFrame with ``day`` nominal, against MOA's
      HoeffdingTree in the JVM on the ARFF)
      python benchmarks/bench_stream_ht_per_instance.py --moa-first
      (what MOA's prequential loop predicts and counts for the first instance)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
from bench_stream_accuracy import (tree_stream, preq_treelab, HT, _grid_from_log, paired,
                                   electricity, moa_electricity, HT_VARIANTS)
from treelab import HoeffdingTreeClassifier


def first_excluded(acc, n, first_counted_right):
    """Accuracy over instances 2..n from the accuracy over 1..n; the first
    instance was counted right iff ``first_counted_right`` (count-exact: the
    accuracies are k / n)."""
    return (round(acc * n) - int(first_counted_right)) / (n - 1)


# the chunked study's Hoeffding-tree variants, plus equal-width bins with inherited counts
V = {**HT_VARIANTS, "HT equal_width inherited": dict(inherited_counts=True)}


def moa_first():
    """MOA's first instance: capymoa's ``prequential_evaluation`` (the loop in
    the JVM, as ``moa_prequential`` / ``moa_electricity`` run it) on
    one-instance streams labelled 0 and 1, with the stored prediction."""
    import tempfile
    from bench_sgt import _write_arff
    from capymoa.classifier import HoeffdingTree
    from capymoa.evaluation import prequential_evaluation
    from capymoa.stream import ARFFStream
    X, y = tree_stream(50, 5, 4, 0.0, 0)
    for label in (0, 1):
        path = os.path.join(tempfile.mkdtemp(prefix="treelab-first-"), "s.arff")
        _write_arff(path, X[:1], np.array([label]), "classification")
        st = ARFFStream(path)
        ht = HoeffdingTree(schema=st.get_schema(), grace_period=200, confidence=1e-7,
                           tie_threshold=0.05)
        votes = list(ht.moa_learner.getVotesForInstance(st.next_instance().java_instance))
        st.restart()
        r = prequential_evaluation(st, ht, optimise=True, store_predictions=True, store_y=True)
        print(f"label {label}: empty tree's votes {votes}; JVM loop: prediction "
              f"{[int(q) for q in r.predictions()]}, accuracy {r.cumulative.accuracy():.1f} %")


if sys.argv[1] == "--moa-first":
    moa_first()
    sys.exit(0)
if len(sys.argv) > 2:
    V = {k: V[k] for k in sys.argv[2].split(",")}
if sys.argv[1] == "--electricity":
    X, y = electricity()
    m = moa_electricity("HT")
    print(f"Electricity, {len(y)} instances, chunks of 1; MOA HT (in the JVM) {m['acc']:.4f}",
          flush=True)
    n = len(y)
    m1 = first_excluded(m["acc"], n, y[0] == 0)
    print(f"y[0] = {y[0]} (MOA counts the first instance {'right' if y[0] == 0 else 'wrong'}); "
          f"MOA HT over instances 2..n {m1:.4f}", flush=True)
    for v, kw in V.items():
        # classes 0, 1 = UP, DOWN in the ARFF's order: class 0 is MOA's first class
        r = preq_treelab(lambda: HoeffdingTreeClassifier(classes=[0, 1], **HT, **kw), X, y, 1)
        r1 = first_excluded(r["acc"], n, False)   # preq_treelab counts instance 1 wrong
        print(f"{v:40s} (a) raw {r['acc']:.4f}  {100 * (r['acc'] - m['acc']):+.3f} points "
              f"({round((r['acc'] - m['acc']) * n):+d} instances)   "
              f"(b) 2..n {r1:.4f}  {100 * (r1 - m1):+.3f} points "
              f"({round((r1 - m1) * (n - 1)):+d} instances)  {r['leaves']} leaves",
              flush=True)
    sys.exit(0)
moa = _grid_from_log(sys.argv[1])
res = []
res1 = []
y0s = []
i = 0
for d in (5, 20):
    for depth in (4, 8):
        for noise in (0.0, 0.15):
            for seed in range(4):
                X, y = tree_stream(5000, d, depth, noise, seed)
                out = {v: preq_treelab(lambda: HoeffdingTreeClassifier(classes=[0, 1], **HT, **kw), X, y, 1) for v, kw in V.items()}
                out["MOA HT"] = moa[i]["MOA HT"]
                n = len(y)
                # (b): instance 1 excluded; treelab counted it wrong, MOA right iff y[0] == 0
                out1 = {k: dict(acc=first_excluded(r["acc"], n, k == "MOA HT" and y[0] == 0))
                        for k, r in out.items()}
                i += 1
                res.append(out)
                res1.append(out1)
                y0s.append(int(y[0] == 0))
                print(f"d={d} depth={depth} noise={noise:.2f} s={seed} y0={y[0]}",
                      "  ".join(f"{k} {v['acc']:.4f}" for k, v in out.items()), flush=True)
print(len(res), "streams, chunks of 1; paired vs MOA HT per instance (points, mean +- s.e., "
      "wins/losses/ties)")
print("y[0] == 0 (MOA counts the first instance right) on", sum(y0s), "of", len(y0s), "streams")
for name, rs in (("(a) raw, instances 1..n", res),
                 ("(b) first instance excluded, 2..n", res1)):
    print(name)
    for v in V:
        p = paired(rs, v, "MOA HT")
        print(f"  {v:40s} {100*p['mean']:+.3f} +- {100*p['se']:.3f}  "
              f"{p['wins']}/{p['losses']}/{p['ties']}  mean {np.mean([r[v]['acc'] for r in rs]):.5f}")
    print(f"  MOA HT mean {np.mean([r['MOA HT']['acc'] for r in rs]):.5f}")
