"""Prequential evaluation and the stream / MIL data readers (small, fast)."""
import gzip

import numpy as np
import pandas as pd
import pytest

from treelab import SGTClassifier
from treelab.streaming import is_river_learner, load_arff, load_mil, prequential


class RunningMean:
    """A chunked regressor predicting the mean of the targets seen so far."""

    def __init__(self):
        self.s, self.n = 0.0, 0
        self.n_nodes = 1

    def partial_fit(self, X, y):
        self.s += float(np.sum(y))
        self.n += len(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.s / self.n if self.n else 0.0)


class Majority:
    """A chunked classifier predicting the most frequent label so far (unfitted at first)."""

    def __init__(self):
        self.counts = {}

    def partial_fit(self, X, y, classes=None):
        self.calls = getattr(self, "calls", 0) + 1
        if classes is not None:
            self.classes_seen = (self.calls, list(classes))
        for v in np.asarray(y).tolist():
            self.counts[v] = self.counts.get(v, 0) + 1
        return self

    def predict(self, X):
        if not self.counts:
            from treelab._sklearn_compat import NotFittedError
            raise NotFittedError("not fitted")
        return np.full(len(X), max(self.counts, key=self.counts.get), dtype=object)


def _stream(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = np.where(X[:, 0] + 0.2 * rng.normal(size=n) > 0.5, "b", "a")
    return X, y


def test_chunk_size_one_equals_hand_written_loop():
    X, y = _stream()
    params = dict(grace_period=20, n_range_samples=50, delta=1e-3)
    curve = prequential(SGTClassifier(**params), X, y, chunk_size=1, checkpoints=[100, 250],
                        classes=["a", "b"], progress=False)

    ref = SGTClassifier(**params)
    correct = []      # NaN: no prediction yet, left out of the score
    sizes = {}
    for i in range(len(y)):
        p = ref.predict(X[i:i + 1])[0] if hasattr(ref, "classes_") else None
        correct.append(np.nan if p is None else p == y[i])
        if i == 0:
            ref.partial_fit(X[i:i + 1], y[i:i + 1], classes=["a", "b"])
        else:
            ref.partial_fit(X[i:i + 1], y[i:i + 1])
        if i + 1 in (100, 250, 400):
            sizes[i + 1] = ref.n_nodes
    correct = np.array(correct, dtype=float)

    assert np.isnan(correct[0]) and not np.isnan(correct[1:]).any()
    assert curve["instances"].tolist() == [100, 250, 400]
    assert curve["scored"].tolist() == [99, 249, 399]
    assert np.allclose(curve["accuracy"], [np.nanmean(correct[:100]),
                                           np.nanmean(correct[:250]), np.nanmean(correct)])
    assert np.allclose(curve["accuracy_window"], [np.nanmean(correct[:100]),
                                                  correct[100:250].mean(), correct[250:].mean()])
    assert curve["n_nodes"].tolist() == [sizes[100], sizes[250], sizes[400]]
    assert ref.n_nodes > 1    # the tree did grow, so the comparison means something
    assert (np.diff(curve["seconds"]) >= 0).all()


def test_chunked_checkpoints_and_model_size_columns():
    X, y = _stream(1000)
    curve = prequential(SGTClassifier(grace_period=20, n_range_samples=50), X, y,
                        chunk_size=64, checkpoints=7, classes=["a", "b"], progress=False)
    assert len(curve) == 7
    assert curve["instances"].iloc[-1] == 1000
    assert curve["instances"].is_monotonic_increasing
    assert {"instances", "accuracy", "accuracy_window", "seconds", "n_nodes",
            "n_leaves"} <= set(curve.columns)
    assert curve["accuracy"].between(0, 1).all()
    assert curve["accuracy"].iloc[-1] > 0.6
    assert curve.attrs["chunk_size"] == 64

    step = prequential(SGTClassifier(grace_period=20, n_range_samples=50), X, y,
                       chunk_size=64, step=300, classes=["a", "b"], progress=False)
    assert step["instances"].tolist() == [300, 600, 900, 1000]
    # the checkpoints only read the curve: the chunks and so the learning are the same
    assert step["accuracy"].iloc[-1] == curve["accuracy"].iloc[-1]
    assert step["n_nodes"].iloc[-1] == curve["n_nodes"].iloc[-1]


def test_chunked_metric_values_exact():
    # majority classifier: the unfitted first chunk is not scored; classes passed once
    y = np.array(list("aababbbbab"))
    X = np.zeros((10, 1))
    m = Majority()
    curve = prequential(m, X, y, chunk_size=3, checkpoints=[5, 10], classes=["a", "b"],
                        window=4, progress=False)
    # chunks [0,3) [3,5) [5,6) [6,9) [9,10); predictions: none x3, a a, a?, ...
    preds = [None, None, None, "a", "a", "a", "a", "a", "a", "b"]
    # after 6 rows a=3, b=3: the first-seen label wins the tie; after 9 rows b leads
    correct = np.array([np.nan if p is None else p == t for p, t in zip(preds, y)], dtype=float)
    assert np.allclose(curve["accuracy"], [np.nanmean(correct[:5]), np.nanmean(correct)])
    assert np.allclose(curve["accuracy_window"], [np.nanmean(correct[1:5]), correct[6:].mean()])
    assert curve["scored"].tolist() == [2, 7]
    first = prequential(Majority(), X, y, chunk_size=5, checkpoints=[3, 10], progress=False)
    assert np.isnan(first["accuracy"].iloc[0]) and first["scored"].tolist() == [0, 5]
    assert m.classes_seen == (1, ["a", "b"])    # passed on the first call only
    assert "n_nodes" not in curve.columns


def test_regression_metrics_and_dataframe_input():
    rng = np.random.default_rng(1)
    yv = rng.normal(size=50)
    X = pd.DataFrame({"u": rng.uniform(size=50),
                      "c": pd.Categorical(rng.choice(["p", "q"], 50), categories=["p", "q"])})
    mae = prequential(RunningMean(), X, yv, metric="mae", chunk_size=1, checkpoints=1,
                      progress=False)
    rmse = prequential(RunningMean(), X, pd.Series(yv), metric="rmse", chunk_size=1,
                       checkpoints=1, progress=False)
    pred = np.concatenate([[0.0], np.cumsum(yv)[:-1] / np.arange(1, 50)])
    assert mae["mae"].iloc[0] == pytest.approx(np.mean(np.abs(yv - pred)))
    assert rmse["rmse"].iloc[0] == pytest.approx(np.sqrt(np.mean((yv - pred) ** 2)))
    assert mae["n_nodes"].iloc[0] == 1


def test_bad_arguments():
    X, y = _stream(20)
    with pytest.raises(ValueError, match="metric"):
        prequential(Majority(), X, y, metric="auc", progress=False)
    with pytest.raises(ValueError, match="chunk_size"):
        prequential(Majority(), X, y, chunk_size=0, progress=False)
    with pytest.raises(ValueError, match="rows"):
        prequential(Majority(), X, y[:5], progress=False)
    with pytest.raises(TypeError):
        prequential(object(), X, y, progress=False)


def test_river_learner():
    pytest.importorskip("river")
    from river import linear_model, tree

    X, y = _stream(300)
    yb = y == "b"
    model = tree.HoeffdingTreeClassifier(grace_period=50)
    assert is_river_learner(model)
    assert not is_river_learner(SGTClassifier())
    curve = prequential(model, X, yb, chunk_size=100, checkpoints=3, progress=False)

    ref = tree.HoeffdingTreeClassifier(grace_period=50)
    correct = []
    for row, t in zip(X.tolist(), yb.tolist()):
        x = dict(enumerate(row))
        p = ref.predict_one(x)
        correct.append(np.nan if p is None else p == t)
        ref.learn_one(x, t)
    correct = np.array(correct, dtype=float)
    assert curve["instances"].tolist() == [100, 200, 300]
    assert np.allclose(curve["accuracy"], [np.nanmean(correct[:100]),
                                           np.nanmean(correct[:200]), np.nanmean(correct)])
    assert curve["n_nodes"].iloc[-1] == ref.n_nodes
    assert curve.attrs["api"] == "one"

    # DataFrame rows become dicts keyed by column name; regression with river
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    reg = prequential(linear_model.LinearRegression(), df, X[:, 0] * 2.0, metric="mae",
                      checkpoints=2, progress=False)
    assert reg["mae"].iloc[-1] < reg["mae"].iloc[0]


ARFF = """% a comment
@relation 'tiny test'

@attribute num numeric
@attribute 'day of week' {1,2,3}
@attribute colour {'dark red',green}
@attribute n2 REAL
@attribute class {UP,DOWN}

@data
% a comment in the data
0.5,1,'dark red',3,UP
?,3,green,-1.5e-1,DOWN

0.25,?,?,2,UP
"""


@pytest.mark.parametrize("compress", [False, True])
def test_load_arff(tmp_path, compress):
    path = tmp_path / ("t.arff.gz" if compress else "t.arff")
    if compress:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(ARFF)
    else:
        path.write_text(ARFF, encoding="utf-8")
    df = load_arff(path)
    assert list(df.columns) == ["num", "day of week", "colour", "n2", "class"]
    assert df.shape == (3, 5)
    assert df["num"].dtype == np.float64 and df["n2"].dtype == np.float64
    assert np.isnan(df["num"].iloc[1]) and df["num"].iloc[2] == 0.25
    assert df["n2"].tolist() == [3.0, -0.15, 2.0]
    assert isinstance(df["day of week"].dtype, pd.CategoricalDtype)
    assert df["day of week"].cat.categories.tolist() == ["1", "2", "3"]
    assert df["day of week"].iloc[1] == "3" and pd.isna(df["day of week"].iloc[2])
    assert df["colour"].cat.categories.tolist() == ["dark red", "green"]
    assert df["colour"].tolist()[:2] == ["dark red", "green"] and pd.isna(df["colour"].iloc[2])
    assert df["class"].cat.categories.tolist() == ["UP", "DOWN"]
    assert df.attrs["relation"] == "tiny test"
    X, y = load_arff(path, return_X_y=True)
    assert X.shape == (3, 4) and y.tolist() == ["UP", "DOWN", "UP"]


def test_load_arff_errors(tmp_path):
    bad = tmp_path / "bad.arff"
    bad.write_text(ARFF.replace("0.5,1,", "0.5,9,"), encoding="utf-8")
    with pytest.raises(ValueError, match="declared categories"):
        load_arff(bad)
    bad.write_text("@relation r\n@attribute a numeric\n@data\n{0 1}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="sparse"):
        load_arff(bad)
    bad.write_text("@relation r\n@attribute a numeric\n@data\nx\n", encoding="utf-8")
    with pytest.raises(ValueError, match="non-numeric"):
        load_arff(bad)


def test_load_mil(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("1,7,0.5,2\n1,7,1.5,3\n0,9,-1,4\n", encoding="utf-8")
    X, y, bags = load_mil(path)
    assert X.shape == (3, 2) and X.dtype == np.float64
    assert y.tolist() == [1, 1, 0] and y.dtype.kind == "i"
    assert bags.tolist() == [7, 7, 9]
    path.write_text("1,7,0.5\n0,7,1.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match="different labels"):
        load_mil(path)


def test_compilation_is_timed_apart():
    """Issue 14, item 4: a treelab learner's kernels are compiled on a throwaway copy
    before the clock starts (``attrs["compile_seconds"]``); the learner itself
    sees the stream from its first row, as before."""
    from treelab import HoeffdingTreeClassifier
    rng = np.random.RandomState(5)
    X = rng.rand(600, 3)
    y = (X[:, 0] > 0.5).astype(int)
    m = HoeffdingTreeClassifier(grace_period=50, n_range_samples=100)
    curve = prequential(m, X, y, chunk_size=100, checkpoints=2, progress=False)
    assert curve.attrs["compile_seconds"] > 0
    assert m.n_seen == 600
    ref = HoeffdingTreeClassifier(grace_period=50, n_range_samples=100)
    for a in range(0, 600, 100):
        ref.partial_fit(X[a:a + 100], y[a:a + 100])
    np.testing.assert_array_equal(m.predict_proba(X), ref.predict_proba(X))

    class Plain:                       # not a treelab learner: nothing to compile
        def partial_fit(self, X, y, classes=None):
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    assert prequential(Plain(), X, y, progress=False).attrs["compile_seconds"] == 0.0


def test_loaders_honour_treelab_data(tmp_path, monkeypatch):
    """A relative data file not in the working directory is looked up in
    $TREELAB_DATA; a missing one says where to get it and how to point at it."""
    (tmp_path / "tiny.arff").write_text(
        "@relation t\n@attribute a numeric\n@attribute class {x,y}\n@data\n1,x\n2,y\n")
    (tmp_path / "bags.csv").write_text("0,1,0.5\n0,1,0.7\n1,2,0.1\n")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("TREELAB_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="TREELAB_DATA"):
        load_arff("tiny.arff")
    with pytest.raises(FileNotFoundError, match="moa.cms.waikato.ac.nz"):
        load_arff("elecNormNew.arff.gz")
    monkeypatch.setenv("TREELAB_DATA", str(tmp_path))
    X, y = load_arff("tiny.arff", return_X_y=True)
    assert X["a"].tolist() == [1.0, 2.0] and list(y) == ["x", "y"]
    Xb, yb, bags = load_mil("bags.csv")
    assert Xb.shape == (3, 1) and bags.tolist() == [1, 1, 2]
    with pytest.raises(FileNotFoundError, match="nor in TREELAB_DATA"):
        load_arff("missing.arff")
