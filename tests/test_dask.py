"""The same code on a Dask cluster through joblib (issue 11, item 2): a two-worker
``distributed.LocalCluster`` (worker processes, one thread and one numba thread
each) runs an ablation grid and a bagging fit under
``joblib.parallel_config(backend="dask")``; the results equal the local ones."""
import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip(
    "distributed", reason="distributed is not installed (pip install 'treelab[dask]')")

import joblib  # noqa: E402

from treelab import BaggingClassifier, BaggingRegressor  # noqa: E402
from treelab.experiment import run_ablation  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       env={"NUMBA_NUM_THREADS": "1"})
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_ablation_grid_on_dask_equals_local(client):
    kw = dict(stream="randcbt", stream_params=dict(n_leaves=4, n_features=3, m_per_leaf=300),
              rules={"hoeffding": {"delta": [1e-7, 0.1]}}, merits=["gini"],
              learner_params=dict(grace_period=50), seeds=[0], checkpoints=3, progress=False)
    timing = ["seconds", "compile_seconds", "wall_seconds"]
    local = run_ablation(n_jobs=1, **kw)
    with joblib.parallel_config(backend="dask"):
        remote = run_ablation(n_jobs=2, **kw)
    pd.testing.assert_frame_equal(local.drop(columns=timing, errors="ignore"),
                                  remote.drop(columns=timing, errors="ignore"))


def test_bagging_on_dask_equals_local(client):
    X, y = _data()
    local = BaggingClassifier(n_estimators=6, max_features=0.8, oob_score=True,
                              random_state=0).fit(X, y)
    with distributed.get_task_stream(client) as ts, joblib.parallel_config(backend="dask"):
        remote = BaggingClassifier(n_estimators=6, max_features=0.8, oob_score=True,
                                   random_state=0, n_jobs=2).fit(X, y)
    assert len(ts.data) >= 1                   # the members ran in the workers
    np.testing.assert_array_equal(local.predict_proba(X), remote.predict_proba(X))
    assert local.oob_score_ == remote.oob_score_
    for a, b in zip(local.estimators_, remote.estimators_):
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    Xr = X
    yr = X[:, 0] * 2 + X[:, 1]
    from sklearn.linear_model import Ridge
    reg_local = BaggingRegressor(Ridge(), n_estimators=4, random_state=1).fit(Xr, yr)
    with joblib.parallel_config(backend="dask"):
        reg_remote = BaggingRegressor(Ridge(), n_estimators=4, random_state=1,
                                      n_jobs=2).fit(Xr, yr)
    np.testing.assert_array_equal(reg_local.predict(Xr), reg_remote.predict(Xr))
