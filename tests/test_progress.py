"""Progress bars (tqdm) of the long fits: shown when asked, and the model is the same."""
import numpy as np
import pytest

from treelab import (
    BaggingRegressor, DecisionTreeRegressor, GradientBoostingClassifier, RandomForestClassifier,
)
from treelab._progress import progress_bar

pytest.importorskip("tqdm")


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(120, 4)
    return X, (X[:, 0] + 0.3 * rng.rand(120) > 0.6).astype(int)


def test_progress_bar_off_is_silent(capsys):
    bar = progress_bar(False, 10, "x")
    bar.update(3)
    bar.set_postfix(a=1)
    bar.close()
    assert capsys.readouterr().err == ""


def test_boosting_verbose_shows_rounds_and_the_same_model(data, capsys):
    X, y = data
    kw = dict(n_estimators=12, max_depth=3, n_iter_no_change=50, random_state=0)
    quiet = GradientBoostingClassifier(**kw).fit(X, y, eval_set=[(X[:40], y[:40])])
    assert "12/12" not in capsys.readouterr().err      # (a compile notice may be there)
    loud = GradientBoostingClassifier(verbose=1, **kw).fit(X, y, eval_set=[(X[:40], y[:40])])
    err = capsys.readouterr().err
    assert "GradientBoostingClassifier" in err and "12/12" in err and "round" in err
    assert f"best_round={quiet.best_iteration_ + 1}" in err and "val_loss=" in err
    np.testing.assert_array_equal(quiet.predict_proba(X), loud.predict_proba(X))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_forest_verbose_shows_trees_and_the_same_forest(data, capsys, n_jobs):
    X, y = data
    kw = dict(n_estimators=19, max_depth=4, n_jobs=n_jobs, random_state=0)
    quiet = RandomForestClassifier(**kw).fit(X, y)
    assert "19/19" not in capsys.readouterr().err
    loud = RandomForestClassifier(verbose=1, **kw).fit(X, y)
    err = capsys.readouterr().err
    assert "RandomForestClassifier" in err and "19/19" in err and "tree" in err
    np.testing.assert_array_equal(quiet.predict_proba(X), loud.predict_proba(X))
    np.testing.assert_array_equal(quiet.feature_importances_, loud.feature_importances_)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_bagging_verbose_shows_members_and_the_same_ensemble(data, capsys, n_jobs):
    X, y = data
    kw = dict(n_estimators=11, max_features=0.75, n_jobs=n_jobs, random_state=0)
    est = DecisionTreeRegressor(max_depth=3)
    quiet = BaggingRegressor(est, **kw).fit(X, y)
    assert "11/11" not in capsys.readouterr().err
    loud = BaggingRegressor(est, verbose=1, **kw).fit(X, y)
    err = capsys.readouterr().err
    assert "BaggingRegressor" in err and "11/11" in err and "member" in err
    np.testing.assert_array_equal(quiet.predict(X), loud.predict(X))


def test_scanning_verbose_counts_fit_and_transform_steps(capsys):
    from treelab import MultiGrainedScanning
    rng = np.random.RandomState(0)
    X, y = rng.rand(40, 16), np.arange(40) % 2
    kw = dict(window_sizes=[4, 8], n_estimators=3, n_folds=2, random_state=0)
    quiet = MultiGrainedScanning(**kw).fit_transform(X, y)
    assert "8/8" not in capsys.readouterr().err
    loud = MultiGrainedScanning(verbose=1, **kw).fit_transform(X, y)
    err = capsys.readouterr().err       # 2 window sizes x 2 folds, fitted then transformed
    assert "MultiGrainedScanning" in err and "8/8" in err and "phase=transform" in err
    np.testing.assert_array_equal(quiet, loud)
