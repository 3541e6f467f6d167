"""Streams are usable from the first rows (issue 14, item 5).

A streaming classifier that has seen rows but not yet ``n_range_samples`` of
them (the bin range, and so the trees, do not exist yet) predicts the class
prior of the rows seen so far, through every prediction method and whatever
fed it (``partial_fit``, ``learn_one``), with or without declared classes.
The reference prior is counted here from the labels; predicting early must
not change what is learned.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from _stream_reference import assert_same_model
from treelab import HoeffdingTreeClassifier, SGTClassifier
from treelab.streaming import prequential

N_RANGE = 120
LEARNERS = {
    "sgt": lambda **kw: SGTClassifier(grace_period=20, max_bins=8, n_range_samples=N_RANGE,
                                      delta=1e-2, **kw),
    "ht": lambda **kw: HoeffdingTreeClassifier(grace_period=20, max_bins=8,
                                               n_range_samples=N_RANGE, delta=1e-2, **kw),
}


def make_stream(n, seed, labels=("down", "flat", "up")):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"a": rng.rand(n), "b": rng.randn(n)})
    # skewed labels, so the prior is not uniform
    y = np.array(labels)[np.searchsorted([0.6, 0.85], rng.rand(n))]
    return X, y


def prior_of(labels_seen, labels):
    counts = np.array([np.sum(labels_seen == c) for c in labels], dtype=float)
    return counts / counts.sum()


def rows_of(X):
    return [dict(zip(X.columns, r)) for r in X.itertuples(index=False)]


def feed(model, X, y, how, classes):
    if how == "partial_fit":
        for a in range(0, len(y), 7):          # several chunks
            model.partial_fit(X.iloc[a:a + 7], y[a:a + 7], classes=classes)
    else:
        if classes is not None:
            model.set_params(classes=classes)
        for x, t in zip(rows_of(X), y):
            model.learn_one(x, t)
    return model


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_nothing_seen_is_not_fitted(learner):
    X, _ = make_stream(5, 0)
    m = LEARNERS[learner]()
    with pytest.raises(AttributeError) as info:
        m.predict(X)
    assert type(info.value).__name__ == "NotFittedError"
    assert m.predict_one({"a": 0.5, "b": 0.0}) is None
    assert m.predict_proba_one({"a": 0.5, "b": 0.0}) == {}


@pytest.mark.parametrize("how", ["partial_fit", "learn_one"])
@pytest.mark.parametrize("declared", [False, True])
@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_prior_before_the_range_is_known(learner, how, declared):
    X, y = make_stream(N_RANGE - 20, 1)
    classes = ["down", "flat", "up", "zzz"] if declared else None   # "zzz" never seen
    m = feed(LEARNERS[learner](), X, y, how, classes)
    assert "_forest" not in m.__dict__                       # still buffering
    labels = np.array(classes) if declared else np.array(["down", "flat", "up"])
    prior = prior_of(y, labels)
    Xq = X.iloc[:5]
    np.testing.assert_allclose(m.predict_proba(Xq), np.tile(prior, (5, 1)), rtol=1e-12)
    assert list(m.predict(Xq)) == ["down"] * 5               # the majority label
    got = m.predict_proba_one({"a": 0.3, "b": -1.0})
    assert list(got) == labels.tolist()
    np.testing.assert_allclose(list(got.values()), prior, rtol=1e-12)
    assert m.predict_one({"a": 0.3, "b": -1.0}) == "down"
    assert hasattr(m, "classes_") == declared                # fixed only when declared


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_prior_with_integer_labels_and_a_tie(learner):
    X = pd.DataFrame({"a": np.arange(6.0)})
    m = LEARNERS[learner]().partial_fit(X, np.array([2, 1, 2, 1, 5, 5]))
    # three labels, equal counts: the first in sorted order wins the tie
    np.testing.assert_allclose(m.predict_proba(X.iloc[:1]), [[1 / 3, 1 / 3, 1 / 3]])
    assert m.predict(X.iloc[:2]).tolist() == [1, 1]
    assert m.predict_one({"a": 0.0}) == 1
    assert m.predict_proba_one({"a": 0.0}) == pytest.approx({1: 1 / 3, 2: 1 / 3, 5: 1 / 3})


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_fit_with_few_rows_builds_the_model(learner):
    # fit treats its data as the whole stream: the trees exist even with fewer rows
    # than n_range_samples, so it predicts with the model (not the prior)
    X, y = make_stream(40, 2)
    m = LEARNERS[learner]().fit(X, y)
    assert "_forest" in m.__dict__
    p = m.predict_proba(X)
    assert p.shape == (40, 3) and np.allclose(p.sum(axis=1), 1.0)
    assert set(m.predict(X)) <= set(m.classes_)
    assert m.predict_one(rows_of(X.iloc[:1])[0]) in m.classes_
    m2 = LEARNERS[learner]().fit(X, y, classes=["down", "flat", "up", "zzz"])
    assert m2.predict_proba(X).shape == (40, 4)


@pytest.mark.parametrize("how", ["partial_fit", "learn_one"])
@pytest.mark.parametrize("declared", [False, True])
@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_early_predictions_do_not_change_learning(learner, how, declared):
    X, y = make_stream(3 * N_RANGE, 3)
    classes = ["down", "flat", "up"] if declared else None
    quiet = feed(LEARNERS[learner](), X, y, how, classes)
    asked = LEARNERS[learner]()
    if declared and how == "learn_one":
        asked.set_params(classes=classes)
    rows = rows_of(X)
    for a in range(0, len(y), 7):
        if a:
            asked.predict(X.iloc[a:a + 7])
            asked.predict_proba_one(rows[a])
            asked.predict_one(rows[a])
        if how == "partial_fit":
            asked.partial_fit(X.iloc[a:a + 7], y[a:a + 7], classes=classes)
        else:
            for x, t in zip(rows[a:a + 7], y[a:a + 7]):
                asked.learn_one(x, t)
    assert_same_model(quiet, asked)
    np.testing.assert_array_equal(quiet.predict_proba(X), asked.predict_proba(X))


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_prequential_scores_every_instance(learner):
    # the first chunk is scored by the prior of nothing (not fitted: left out); every
    # later chunk before the range is known is scored by the prior so far
    X, y = make_stream(2 * N_RANGE, 4)
    curve = prequential(LEARNERS[learner](), X, y, chunk_size=10, checkpoints=[60, 240],
                        progress=False)
    assert curve["scored"].tolist() == [50, 230]
    # up to instance 60 the predictions are the running majority label ("down")
    maj = np.mean(y[10:60] == "down")
    assert curve["accuracy"].iloc[0] == pytest.approx(maj)
