"""Profile one feature's cut path (both sides of every root cut) of each costly
ToPs/ensemble learner on MNIST 4-vs-9 (cProfile, CPU time)."""
import cProfile, os, pstats, sys, time
import numpy as np
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import bench_tops as bt
from treelab.learners.tops import _single_threaded_blas, _single_threaded_numba
from treelab.node_models import EstimatorModel, LogisticModel

feature = int(sys.argv[1]) if len(sys.argv) > 1 else 210
which = sys.argv[2:] or None
X, y, est, learners, sets = bt._mnist_root(10)
XT, yT, XV1 = X[sets == 0], y[sets == 0], X[sets == 1]
w = np.ones(XT.shape[0])
cuts = bt._proper_cuts(XT, XV1)[feature]
order = np.argsort(XT[:, feature], kind="stable")
with _single_threaded_blas(), _single_threaded_numba():
    for m in learners:
        if not isinstance(m, (EstimatorModel, LogisticModel)):
            continue
        name = m._describe()
        if which and name not in which:
            continue
        m._fit_cuts(XT, yT, w, "classification", 2, order, cuts[:1], cache={})
        c0 = time.process_time()
        m._fit_cuts(XT, yT, w, "classification", 2, order, cuts, cache={})
        c = time.process_time() - c0
        pr = cProfile.Profile(time.process_time)
        pr.enable()
        m._fit_cuts(XT, yT, w, "classification", 2, order, cuts, cache={})
        pr.disable()
        print(f"== {name}: {1e3 * c / (2 * len(cuts)):.1f} ms CPU per side fit "
              f"({len(cuts)} cuts), load {os.getloadavg()[0]:.1f}")
        pstats.Stats(pr).sort_stats(os.environ.get("SORT", "tottime")).print_stats(int(os.environ.get("NPRINT", 14)))
