"""Forests on a Dask cluster through joblib (issue 11).

A two-worker ``distributed.LocalCluster`` (worker processes, one thread each)
fits a forest under ``joblib.parallel_config(backend="dask")``: the forest must
be identical to the local fit (per-tree seeds are drawn up front, so where a
tree is grown does not matter).  The fault test kills one worker process
(SIGKILL, from a thread, once the scheduler shows it running forest tasks and
some trees are already done) while the forest is being fitted: Dask re-runs the
lost tasks on the surviving / restarted worker, the fit completes, and the forest
is identical to the local one -- nothing lost, nothing duplicated.
"""
import os
import signal
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install treelab[dask])")
joblib = pytest.importorskip("joblib")

from treelab import (  # noqa: E402
    CompletelyRandomForestClassifier, ExtraTreesRegressor, RandomForestClassifier,
)

FIELDS = ["feature", "threshold", "kind", "first_child", "missing_child", "value", "cat_map"]


def _same_forest(a, b):
    np.testing.assert_array_equal(a._roots, b._roots)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a._forest, name), getattr(b._forest, name),
                                      err_msg=name)


def _data(n=600, d=8, seed=0, regression=False):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.05] = np.nan
    s = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) + 0.5 * rng.randn(n)
    return X, (s if regression else (s > 0).astype(int))


@pytest.fixture(scope="module")
def cluster():
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "NUMBA_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, worker_dashboard_address=None,
                                  env=env) as cl, distributed.Client(cl) as client:
        client.wait_for_workers(2, timeout=120)
        yield cl, client


def test_forest_on_dask_equals_local(cluster):
    _, client = cluster
    X, y = _data()
    Xr, yr = _data(regression=True, seed=1)
    cases = [(RandomForestClassifier(16, oob_score=True, random_state=0), X, y),
             (ExtraTreesRegressor(8, max_features=3, random_state=1), Xr, yr),
             (CompletelyRandomForestClassifier(8, splitter="hist", random_state=2), X, y)]
    for est, XX, yy in cases:
        local = est.__class__(**est.get_params()).fit(XX, yy)
        with joblib.parallel_config(backend="dask"):
            remote = est.__class__(**est.get_params()).fit(XX, yy)
        _same_forest(local, remote)
        np.testing.assert_array_equal(local.predict(XX), remote.predict(XX))
        if hasattr(local, "oob_score_"):
            assert local.oob_score_ == remote.oob_score_
    # the trees really were grown by the workers: their processes ran treelab's builder
    loaded = client.run(lambda: "treelab.ensembles.forest" in __import__("sys").modules)
    assert len(loaded) == 2 and all(loaded.values())


def test_forest_with_progress_bar_on_dask_equals_local(cluster, capsys):
    """verbose=1 fits in batches (one joblib call each) on the cluster: the same forest."""
    pytest.importorskip("tqdm")
    X, y = _data()
    params = dict(n_estimators=21, oob_score=True, random_state=0)
    local = RandomForestClassifier(**params).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        remote = RandomForestClassifier(verbose=1, **params).fit(X, y)
    assert "21/21" in capsys.readouterr().err
    _same_forest(local, remote)
    assert local.oob_score_ == remote.oob_score_


def test_forest_survives_a_killed_worker(cluster):
    cl, client = cluster
    X, y = _data(n=4000, d=10, seed=3)
    params = dict(n_estimators=60, max_features=None, random_state=5, oob_score=True)
    local = RandomForestClassifier(**params).fit(X, y)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    info = {}

    def killer():
        t_end = time.time() + 120
        seen = None
        while time.time() < t_end:
            try:
                proc = client.processing()
            except Exception:
                time.sleep(0.02)
                continue
            if proc.get(victim):
                if seen is None:
                    seen = time.time()      # first forest task on the victim
                elif time.time() - seen > 0.3:
                    # some trees are done by now, others are being grown: kill it
                    info["running_on_victim"] = len(proc[victim])
                    os.kill(pids[victim], signal.SIGKILL)
                    info["killed"] = time.time()
                    return
            time.sleep(0.01)

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    with joblib.parallel_config(backend="dask"):
        remote = RandomForestClassifier(**params).fit(X, y)
    t_done = time.time()
    th.join(timeout=5)
    assert "killed" in info, "the worker was not killed during the fit (fit too fast?)"
    assert info["killed"] < t_done and info["running_on_victim"] >= 1
    # the killed process is gone (reaped by its nanny) and a new one replaced it
    client.wait_for_workers(2, timeout=120)
    assert pids[victim] not in client.run(os.getpid).values()
    _same_forest(local, remote)
    assert remote.node_counts_.shape == (60,)
    assert remote.oob_score_ == local.oob_score_
