"""How many side fits could an exact bound skip at the MNIST 4-vs-9 root?

For an additive loss (error rate) the joint V1 loss of a cut is
(min_L + min_R) / n_V1, each side's minimum over its own candidate predictors.
A side's loss is >= 0, so once one side's minimum alone reaches the best joint
loss found so far, the cut cannot win (nor tie) and the other side need not be
fitted.  This script fits every side of the root's cuts on every --stride-th
feature, records both sides' minima, and counts the other-side fits such a
bound would skip (a) with the final best as the bound (oracle), (b) with the
bound of a cheap first pass (inherited + linear predictors, all features) and
then the running best, features in their natural order, the larger side first.
"""
import os, sys, time
import numpy as np
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import bench_tops as bt
from treelab.learners.tops import _single_threaded_blas, _single_threaded_numba, _make_loss
from treelab.node_models import EstimatorModel, LogisticModel

stride = int(sys.argv[1]) if len(sys.argv) > 1 else 10
X, y, est, learners, sets = bt._mnist_root(10)
XT, yT, XV, yV = X[sets == 0], y[sets == 0], X[sets == 1], y[sets == 1]
w = np.ones(XT.shape[0])
loss = _make_loss("error_rate", "classification", 2)
cuts = bt._proper_cuts(XT, XV)
costly = [a for a, m in enumerate(learners) if not getattr(m, "_exact_cut_path", False)]
cheap = [a for a in range(len(learners)) if a not in costly]
rec = []   # (f, cut, nL, nR, minL_cheap, minR_cheap, minL_all, minR_all)
t0 = time.process_time()
with _single_threaded_blas(), _single_threaded_numba():
    root = [m._fresh()._fit_task(XT, yT, w, "classification", 2) for m in learners]
    inh = np.stack([loss.rows(yV, m._scores(XV)) for m in root])      # (m, nV)
    for f in range(0, XT.shape[1]):
        if not len(cuts[f]):
            continue
        order = np.argsort(XT[:, f], kind="stable")
        xs = XT[order, f]
        fits = {}
        ids = cheap if f % stride else range(len(learners))
        for a in ids:
            fits[a] = learners[a]._fit_cuts(XT, yT, w, "classification", 2, order, cuts[f], cache={})
        for k, p in enumerate(cuts[f]):
            t = xs[p - 1]                       # x <= t goes left for these rows (ties: the same)
            mL = XV[:, f] <= t
            L = {a: loss.rows(yV[mL], fits[a][0][k]._scores(XV[mL])).sum() for a in fits}
            R = {a: loss.rows(yV[~mL], fits[a][1][k]._scores(XV[~mL])).sum() for a in fits}
            iL, iR = inh[:, mL].sum(1).min(), inh[:, ~mL].sum(1).min()
            cL = min([iL] + [L[a] for a in cheap]); cR = min([iR] + [R[a] for a in cheap])
            aL = min([cL] + [L[a] for a in L]); aR = min([cR] + [R[a] for a in R])
            rec.append((f, k, p, XT.shape[0] - p, cL, cR, aL, aR, f % stride == 0))
rec = np.array(rec, float)
full = rec[rec[:, 8] == 1]
ub_cheap = (rec[:, 4] + rec[:, 5]).min()
best = (full[:, 6] + full[:, 7]).min()
print(f"root, {len(full)} cuts searched with every learner (every {stride}th feature), "
      f"{time.process_time() - t0:.0f} s CPU; V1 rows {len(yV)}; best joint errors "
      f"{best:.0f}, cheap first-pass bound {ub_cheap:.0f} (all features)")
big_first = np.where(full[:, 2] >= full[:, 3], full[:, 6], full[:, 7])
small_first = np.where(full[:, 2] >= full[:, 3], full[:, 7], full[:, 6])
for name, ub in (("oracle (final best)", best), ("cheap first pass", ub_cheap)):
    skip_big = (big_first >= ub - 1e-9).mean()
    skip_any = (np.maximum(full[:, 6], full[:, 7]) >= ub - 1e-9).mean()
    print(f"  bound {name} = {ub:.0f}: the larger side's minimum alone reaches it in "
          f"{100 * skip_big:.0f} % of the cuts (either side: {100 * skip_any:.0f} %); "
          f"side fits saved {50 * skip_big:.0f} % (larger side first)")
# running bound: cheap first pass, then the best exact joint so far, features in order
ub = ub_cheap
saved = 0
for r in full:
    a_first = r[6] if r[2] >= r[3] else r[7]
    if a_first >= ub - 1e-9:
        saved += 1
    else:
        ub = min(ub, r[6] + r[7])
print(f"  running bound (cheap pass, then the best so far): {100 * saved / len(full):.0f} % of "
      f"the cuts skip their smaller side = {50 * saved / len(full):.0f} % of the side fits; "
      f"load {os.getloadavg()[0]:.1f}")
