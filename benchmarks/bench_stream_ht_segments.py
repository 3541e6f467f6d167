"""Where the Hoeffding tree's per-instance gap to MOA lies: prequential
accuracy per instance of treelab's ``HoeffdingTreeClassifier`` and MOA's
``HoeffdingTree`` (capymoa, per-instance predict / train calls so that every
prediction is kept), split into the first 1,000 instances and the rest, on
the quick grid's streams (``bench_stream_accuracy.tree_stream``), with the
number of leaves at the end.

The finding: with the Gaussian observer and ``inherited_counts=True``
the rest agrees with MOA within 0.1 point and the leaves are equal; the gap
is the first 1,000 instances, which treelab predicts by the class prior until
``n_range_samples`` instances have come (``n_range_samples=1``: none).

Run:  python benchmarks/bench_stream_ht_segments.py [SEEDS] [name=dict(...) ...]
      (default: 2 seeds per grid cell = 16 streams; variants g_inh, g_inh_r1)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_stream_accuracy import HT, tree_stream  # noqa: E402


def moa_predictions(X, y):
    """MOA's per-instance predictions (-1 where it gives none) and its leaves."""
    from capymoa.classifier import HoeffdingTree
    from capymoa.stream import NumpyStream
    st = NumpyStream(X, y.astype(int), target_type="categorical")
    ht = HoeffdingTree(schema=st.get_schema(), grace_period=HT["grace_period"],
                       confidence=HT["delta"], tie_threshold=HT["tau"])
    out = np.full(len(y), -1)
    i = 0
    while st.has_more_instances():
        inst = st.next_instance()
        p = ht.predict(inst)
        out[i] = -1 if p is None else p
        ht.train(inst)
        i += 1
    sizes = {str(m.getName()): m.getValue() for m in ht.moa_learner.getModelMeasurements()}
    return out, int(sizes["tree size (leaves)"])


def treelab_predictions(X, y, **kw):
    from treelab import HoeffdingTreeClassifier
    m = HoeffdingTreeClassifier(classes=[0, 1], **HT, **kw)
    out = np.full(len(y), -1)
    for i in range(len(y)):
        if i:
            out[i] = m.predict(X[i:i + 1])[0]
        m.partial_fit(X[i:i + 1], y[i:i + 1])
    return out, m.n_leaves


def main(argv):
    seeds = int(argv[0]) if argv else 2
    variants = ({k: eval(v) for k, v in (a.split("=", 1) for a in argv[1:])} if len(argv) > 1
                else {"g_inh": dict(observer="gaussian", inherited_counts=True),
                      "g_inh_r1": dict(observer="gaussian", inherited_counts=True,
                                       n_range_samples=1)})
    rows = []
    for d in (5, 20):
        for depth in (4, 8):
            for noise in (0.0, 0.15):
                for seed in range(seeds):
                    X, y = tree_stream(5000, d, depth, noise, seed)
                    res = {"MOA": moa_predictions(X, y)}
                    res.update({k: treelab_predictions(X, y, **kw) for k, kw in variants.items()})
                    line, r = f"d={d} depth={depth} noise={noise} s={seed}", {}
                    for k, (p, leaves) in res.items():
                        r[k] = (np.mean(p[1:1000] == y[1:1000]), np.mean(p[1000:] == y[1000:]),
                                np.sum(p[1:] == y[1:]) / len(y))
                        line += f" | {k} {r[k][0]:.3f}/{r[k][1]:.3f}/{r[k][2]:.4f} L{leaves}"
                    rows.append(r)
                    print(line, flush=True)
    for k in variants:
        for j, part in enumerate(("first1000", "rest", "all")):
            dl = np.array([r[k][j] - r["MOA"][j] for r in rows]) * 100
            print(f"{k:10s} {part:9s} {dl.mean():+.2f} +- {dl.std(ddof=1) / np.sqrt(dl.size):.2f}"
                  f"  W/L {np.sum(dl > 0)}/{np.sum(dl < 0)}")


if __name__ == "__main__":
    main(sys.argv[1:])
