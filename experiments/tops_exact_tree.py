"""Time one whole exact ToPs/ensemble fit (Section III search, no screening) on
MNIST 4-vs-9 (1,991 x 400, error rate, the ``bench_tops.py --only mnist``
setting with ``screen_candidates=None``), logging each node's search (CPU and
wall seconds, rows) and the load average as it goes.

Run:  python experiments/tops_exact_tree.py [--n-jobs J] [--ens-size 10] [--max-depth D]
"""
import argparse, os, sys, threading, time
import numpy as np
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "experiments"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--ens-size", type=int, default=10)
    ap.add_argument("--max-depth", type=int, default=None)
    args = ap.parse_args()
    import tops_table3 as t3
    import treelab.learners.tops as tops
    X, y, _ = t3.load("mnist49")
    make = t3.methods("classification", "error_rate", False, args.n_jobs, True,
                      ens_size=args.ens_size, screen=None)["ToPs/ensemble"]
    loads = []
    stop = threading.Event()

    def sample():
        while not stop.wait(30):
            loads.append(os.getloadavg()[0])
    threading.Thread(target=sample, daemon=True).start()
    orig = tops._Grower._best_split

    def logged(self, nodes, u, Tu, V1u, V2u):
        t0, c0 = time.perf_counter(), time.process_time()
        out = orig(self, nodes, u, Tu, V1u, V2u)
        print(f"  node {u} (depth {nodes[u].depth}, T = {Tu.shape[0]} rows): search "
              f"{time.process_time() - c0:.1f} s CPU, {time.perf_counter() - t0:.1f} s wall, "
              f"split found: {out is not None}; load {os.getloadavg()[0]:.1f}; "
              f"{time.strftime('%H:%M:%S')}", flush=True)
        return out
    tops._Grower._best_split = logged
    tops._Grower.features = list(range(200, 210))       # compile / warm up (cheaply)
    make().set_params(max_depth=1).fit(X[:300], y[:300])
    tops._Grower.features = None
    print(f"start {time.strftime('%Y-%m-%d %H:%M:%S')}, n_jobs={args.n_jobs}, load "
          f"{os.getloadavg()}", flush=True)
    est = make().set_params(max_depth=args.max_depth)
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    stop.set()
    nodes = est.nodes_
    print(f"MNIST 4-vs-9 ToPs/ensemble, exact Section III search ({args.ens_size}-member "
          f"ensembles, n_jobs={args.n_jobs}): {cpu:.0f} s CPU = {cpu / 60:.1f} CPU-min, "
          f"{wall:.0f} s wall = {wall / 60:.1f} min; {len(nodes)} nodes, depth "
          f"{max(nd.depth for nd in nodes)}; load average during the fit: "
          f"{min(loads, default=np.nan):.1f}-{max(loads, default=np.nan):.1f} "
          f"(mean {np.mean(loads) if loads else np.nan:.1f}); end {time.strftime('%H:%M:%S')}",
          flush=True)
    print(est.export_text(decimals=4))
    print("splits (feature, threshold, learner, source):",
          [(nd.feature, nd.threshold, nd.learner, nd.source) for nd in nodes])


if __name__ == "__main__":
    main()
