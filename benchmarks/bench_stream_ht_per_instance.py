"""HT variants at chunks of 1 (per-instance prequential, MOA's protocol) on the
quick grid; MOA's per-instance accuracies are re-read from the chunk-100 run's log.

``n_range_samples=1``: the tree exists from the first instance (the Gaussian
observer needs no range; the adaptive range starts from the first value and
grows), so the first 1,000 instances are predicted by the tree, as MOA's are,
not by the class prior.

``nb_form="moa"`` (the "moa_nb" variants): MOA's naive-Bayes details (votes
as products, MOA's nominal likelihood, the first class on all-zero votes).

Run:  python benchmarks/bench_stream_ht_per_instance.py docs/figures/stream_accuracy_quick_chunk100.log
      [VARIANT,VARIANT,...]   (default: all)
      python benchmarks/bench_stream_ht_per_instance.py --electricity [VARIANT,...]
      (Electricity per instance, DataFrame with ``day`` nominal, against MOA's
      HoeffdingTree in the JVM on the ARFF)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
from bench_stream_accuracy import (tree_stream, preq_treelab, HT, _grid_from_log, paired,
                                   electricity, moa_electricity)
from treelab import HoeffdingTreeClassifier
V = {"HT equal_width": dict(), "HT gaussian": dict(observer="gaussian"),
     "HT gaussian inherited": dict(observer="gaussian", inherited_counts=True),
     "HT adaptive_range inherited": dict(observer="adaptive_range", inherited_counts=True),
     "HT equal_width inherited": dict(inherited_counts=True),
     "HT gaussian inherited r1": dict(observer="gaussian", inherited_counts=True,
                                      n_range_samples=1),
     "HT adaptive_range inherited r1": dict(observer="adaptive_range", inherited_counts=True,
                                            n_range_samples=1),
     "HT gaussian inherited r1 moa_nb": dict(observer="gaussian", inherited_counts=True,
                                             n_range_samples=1, nb_form="moa"),
     "HT adaptive_range inherited r1 moa_nb": dict(observer="adaptive_range",
                                                   inherited_counts=True, n_range_samples=1,
                                                   nb_form="moa")}
if len(sys.argv) > 2:
    V = {k: V[k] for k in sys.argv[2].split(",")}
if sys.argv[1] == "--electricity":
    X, y = electricity()
    m = moa_electricity("HT")
    print(f"Electricity, {len(y)} instances, chunks of 1; MOA HT (in the JVM) {m['acc']:.4f}",
          flush=True)
    for v, kw in V.items():
        # classes 0, 1 = UP, DOWN in the ARFF's order: class 0 is MOA's first class
        r = preq_treelab(lambda: HoeffdingTreeClassifier(classes=[0, 1], **HT, **kw), X, y, 1)
        print(f"{v:40s} {r['acc']:.4f}  {100 * (r['acc'] - m['acc']):+.3f} points "
              f"({round((r['acc'] - m['acc']) * len(y)):+d} instances)  {r['leaves']} leaves",
              flush=True)
    sys.exit(0)
moa = _grid_from_log(sys.argv[1])
res = []
i = 0
for d in (5, 20):
    for depth in (4, 8):
        for noise in (0.0, 0.15):
            for seed in range(4):
                X, y = tree_stream(5000, d, depth, noise, seed)
                out = {v: preq_treelab(lambda: HoeffdingTreeClassifier(classes=[0, 1], **HT, **kw), X, y, 1) for v, kw in V.items()}
                out["MOA HT"] = moa[i]["MOA HT"]
                i += 1
                res.append(out)
                print(f"d={d} depth={depth} noise={noise:.2f} s={seed}", "  ".join(f"{k} {v['acc']:.4f}" for k, v in out.items()), flush=True)
print(len(res), "streams, chunks of 1; paired vs MOA HT per instance")
for v in V:
    p = paired(res, v, "MOA HT")
    print(f"{v:32s} {100*p['mean']:+.2f} +- {100*p['se']:.2f}  {p['wins']}/{p['losses']}/{p['ties']}  mean {np.mean([r[v]['acc'] for r in res]):.4f}")
print("MOA HT mean", np.mean([r["MOA HT"]["acc"] for r in res]))
