"""The slides' ensemble lessons (issue 11, item 3): numbers checked against scipy,
the slides' own table, Li Hang's AdaBoost example and slow loops."""
import math

import numpy as np
import pytest

from treelab import BaggingClassifier, DecisionTreeClassifier
from treelab.cli import main
from treelab.teaching_ensembles import (
    SLIDES_BAGGING_ROUNDS, adaboost_example, adaboost_rounds_table, bootstrap_rounds_table,
    majority_vote_curve, majority_vote_error, oob_error_curve, plot_majority_vote_curve,
)


def test_majority_vote_error_is_the_slides_006():
    from scipy.stats import binom
    assert round(majority_vote_error(25, 0.35), 2) == 0.06
    assert majority_vote_error(25, 0.35) == pytest.approx(binom.sf(12, 25, 0.35), rel=1e-12)
    assert majority_vote_error(1, 0.35) == pytest.approx(0.35)
    # even count: a tie is a coin flip
    assert majority_vote_error(2, 0.3) == pytest.approx(0.09 + 0.5 * 2 * 0.3 * 0.7)
    c = majority_vote_curve(0.35, 25)
    assert list(c.n_classifiers) == list(range(1, 26, 2))
    assert (np.diff(c.error) < 0).all()                 # better than chance: error falls
    assert (np.diff(majority_vote_curve(0.55, 25).error) > 0).all()   # worse: it grows
    with pytest.raises(ValueError):
        majority_vote_error(25, 1.5)
    with pytest.raises(ValueError):
        majority_vote_error(0, 0.3)


def test_majority_vote_png(tmp_path):
    pytest.importorskip("matplotlib")
    p = plot_majority_vote_curve(tmp_path / "mv.png")
    assert p.read_bytes()[:4] == b"\x89PNG"


def test_bootstrap_rounds_table():
    t = bootstrap_rounds_table(draws=SLIDES_BAGGING_ROUNDS)
    assert list(t.index) == ["Original Data", "Bagging (Round 1)", "Bagging (Round 2)",
                             "Bagging (Round 3)"]
    assert list(t.iloc[1, :10]) == [7, 8, 10, 8, 2, 5, 10, 10, 5, 9]
    assert t.loc["Bagging (Round 1)", "out-of-bag"] == "1 3 4 6"
    assert t.loc["Bagging (Round 3)", "out-of-bag"] == "2 4"
    drawn = bootstrap_rounds_table(n=1000, rounds=20, random_state=0)
    inbag = [len(set(drawn.iloc[r + 1, :1000])) / 1000 for r in range(20)]
    assert abs(np.mean(inbag) - (1 - (1 - 1 / 1000) ** 1000)) < 0.01   # ~0.632


def test_adaboost_round_table_is_li_hangs_example():
    t, ada = adaboost_rounds_table()
    np.testing.assert_allclose(t["error"], [0.3, 3 / 14, 2 / 11], rtol=1e-12)
    np.testing.assert_allclose(t["alpha"], [math.log(0.7 / 0.3), math.log(11 / 3),
                                            math.log(9 / 2)], rtol=1e-12)
    assert list(t["misclassified"]) == ["7 8 9", "4 5 6", "1 2 3 10"]
    np.testing.assert_allclose(t.loc[2, ["w1", "w7"]].astype(float), [1 / 14, 1 / 6], rtol=1e-12)
    assert t.attrs["training_error"] == 0.0


def test_adaboost_resample_table_replays_the_draws():
    X, y = adaboost_example()
    t, ada = adaboost_rounds_table(X, y, n_rounds=4, boosting="resample", random_state=3)
    for i, est in enumerate(ada.estimators_):
        rows = np.array([int(v) - 1 for v in t.loc[i + 1, "drawn"].split()])
        ref = DecisionTreeClassifier(max_depth=1, criterion="classification_error",
                                     random_state=est.random_state).fit(
            X[rows], np.searchsorted(ada.classes_, y[rows]))
        np.testing.assert_array_equal(ref.predict(X), est.predict(X))


def test_oob_error_curve_against_bagging_oob():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    bag = BaggingClassifier(n_estimators=25, oob_score=True, random_state=0).fit(X, y)
    c = oob_error_curve(bag, X, y)
    assert list(c.n_estimators) == list(range(1, 26))
    covered = np.zeros(len(y), bool)
    for rows in bag.estimators_samples_:
        covered |= ~np.isin(np.arange(len(y)), rows)
    assert c.coverage.iloc[-1] == pytest.approx(covered.mean())
    dec = bag.oob_decision_function_[covered]
    assert c.oob_error.iloc[-1] == pytest.approx(np.mean(dec.argmax(1) != y[covered]))
    assert c.oob_error.iloc[-1] < c.oob_error.iloc[0]


def test_teach_cli(capsys):
    assert main(["teach", "ensembles"]) == 0
    out = capsys.readouterr().out
    assert "= 0.0604  (slides: 0.06)" in out
    assert "Bagging (Round 1)  7  8  10   8  2  5  10  10  5   9     1 3 4 6" in out
    assert "0.2143" in out and "training error after 3 rounds: 0.000" in out
