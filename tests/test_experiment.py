"""Ablation runner (treelab.experiment) and ``treelab ablation`` command line."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treelab.experiment import final_points, load_stream, make_rule, run_ablation
from treelab.split_criteria.bounds import CTreeRule, HoeffdingRule
from treelab.split_criteria.rules import TTestRule

SMALL = dict(n_leaves=4, n_features=3, m_per_leaf=400)


def test_grid_is_tidy_and_complete(tmp_path):
    df = run_ablation(stream="randcbt", stream_params=SMALL,
                      rules={"hoeffding": {"delta": [1e-7, 0.1]}, "ctree": {"c": [0.05]},
                             "corrh": {"delta": [0.1], "tau": [0.05]}},
                      merits=["gini"], learner_params=dict(grace_period=50), seeds=[0, 1],
                      checkpoints=4, progress=False, out_dir=tmp_path, name="t")
    cols = {"stream", "learner", "rule", "param", "value", "merit", "seed", "instances",
            "accuracy", "accuracy_window", "n_leaves", "n_nodes", "seconds"}
    assert cols <= set(df.columns)
    runs = df.groupby(["rule", "param", "value", "merit", "seed"], dropna=False).ngroups
    assert runs == 4 * 2
    # every run reaches the end of its stream (4 leaves x 400 examples)
    last = df.groupby(["rule", "value", "seed"])["instances"].max()
    assert (last == 1600).all()
    # fixed parameters are not part of the label; corrh uses the error merit
    corrh = df[df.rule == "corrh"]
    assert set(corrh.param) == {"delta"} and set(corrh.merit) == {"classification_error"}
    assert set(df[df.rule == "hoeffding"].merit) == {"gini"}
    assert (tmp_path / "t.csv").exists()
    back = pd.read_csv(tmp_path / "t.csv")
    assert len(back) == len(df)
    for suffix in ("curves", "leaves"):
        png = tmp_path / f"t_{suffix}.png"
        assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"
    pts = final_points(df)
    assert len(pts) == 4 and (pts.seeds == 2).all()
    assert pts.accuracy.between(0, 1).all()


def test_runs_are_reproducible_and_parallel_equals_serial():
    kw = dict(stream="randcbt", stream_params=SMALL, rules={"ctree": {"c": [0.02, 0.1]}},
              merits=["entropy"], learner_params=dict(grace_period=50), seeds=[3],
              checkpoints=3, progress=False)
    timing = ["seconds", "compile_seconds", "wall_seconds"]
    a = run_ablation(n_jobs=1, **kw).drop(columns=timing)
    b = run_ablation(n_jobs=2, **kw).drop(columns=timing)
    pd.testing.assert_frame_equal(a, b)


def test_sgt_learner_and_callable_stream():
    def stream(seed, n=1500):
        rng = np.random.default_rng(seed)
        X = rng.random((n, 3))
        return X, (X[:, 0] > 0.5).astype(int)
    df = run_ablation(stream=stream, learners=["sgt"],
                      rules={"ttest": {"delta": [1e-7]}, "ctree": {"c": [0.1]}},
                      seeds=[0], checkpoints=2, progress=False,
                      learner_params=dict(grace_period=50, n_range_samples=100))
    assert set(df.rule) == {"ttest", "ctree"} and set(df.stream) == {"custom"}
    assert df.accuracy.iloc[-1] > 0.8


def test_make_rule():
    rule, merit = make_rule("corrh", "gini", delta=0.01)
    assert isinstance(rule, HoeffdingRule) and merit == "classification_error"
    assert rule.criterion == "classification_error"
    rule, merit = make_rule("ctree", "gini", c=0.1)
    assert isinstance(rule, CTreeRule) and rule.c == 0.1 and merit == "gini"
    assert isinstance(make_rule("ttest", delta=0.1)[0], TTestRule)
    with pytest.raises(ValueError, match="unknown rule"):
        make_rule("nope")


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown rule"):
        run_ablation(rules={"bogus": {}}, progress=False)
    with pytest.raises(ValueError, match="non-empty"):
        run_ablation(rules={}, progress=False)
    with pytest.raises(ValueError, match="unknown stream"):
        load_stream("no-such-stream")
    with pytest.raises(FileNotFoundError, match="Electricity"):
        load_stream("electricity", path="/nonexistent/elec.arff.gz")
    with pytest.raises(TypeError):
        load_stream(42)


def test_command_line(tmp_path, capsys):
    from treelab.cli import main
    rc = main(["ablation", "--stream-param", "n_leaves=4", "--stream-param", "m_per_leaf=300",
               "--stream-param", "n_features=3", "--merit", "gini", "--set", "grace_period=50",
               "--rule", "hoeffding:delta=1e-7,0.1", "--rule", "ctree:c=0.05",
               "--seeds", "0,1", "--checkpoints", "3", "--no-progress", "--out", str(tmp_path),
               "--name", "cli"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "hoeffding" in out and "ctree" in out and "6 runs" in out
    df = pd.read_csv(tmp_path / "cli.csv")
    assert set(df.rule) == {"hoeffding", "ctree"} and set(df.seed) == {0, 1}
    assert (tmp_path / "cli_leaves.png").exists()


def test_command_line_rejects_bad_pairs():
    from treelab.cli import main
    with pytest.raises(SystemExit):
        main(["ablation", "--set", "grace_period", "--no-progress"])


def test_settings_sidecar_compile_column_and_plots(tmp_path, monkeypatch):
    """Issue 14, item 4: the stream length and settings are written beside the CSV;
    compilation has its own column; the plots show the seed spread, name the stream
    and label every point with its parameter value."""
    import json

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    figures = []
    orig = Figure.savefig

    def keep(self, *a, **kw):
        figures.append(self)
        return orig(self, *a, **kw)

    monkeypatch.setattr(Figure, "savefig", keep)
    df = run_ablation(stream="randcbt", stream_params=SMALL,
                      rules={"hoeffding": {"delta": [1e-7, 0.1]}}, merits=["gini"],
                      learner_params=dict(grace_period=50), seeds=[0, 1], checkpoints=3,
                      progress=False, out_dir=tmp_path, name="s")
    assert (df.compile_seconds >= 0).all() and (df.seconds >= 0).all()
    meta = json.loads((tmp_path / "s.json").read_text())
    assert meta["stream"] == "randcbt" and meta["stream_params"] == SMALL
    assert meta["stream_length"] == {"0": 1600, "1": 1600} and meta["n_features"]["0"] == 3
    assert meta["rules"] == {"hoeffding": {"delta": [1e-7, 0.1]}} and meta["seeds"] == [0, 1]
    assert meta["learner_params"] == {"grace_period": 50} and meta["chunk_size"] == 1000
    assert df.attrs["settings"]["stream_length"] == meta["stream_length"]
    curves, leaves = figures
    ax = curves.axes[0]
    assert "randcbt(n_leaves=4, n_features=3, m_per_leaf=400)" in ax.get_title()
    assert "2 seeds" in ax.get_title()
    assert len(ax.collections) == 2               # one min-max band per configuration
    ax = leaves.axes[0]
    assert "randcbt" in ax.get_title()
    assert sorted(t.get_text() for t in ax.texts) == ["delta=0.1", "delta=1e-07"]


def test_describe_settings_names_the_stream_and_its_length():
    from treelab.experiment import ablation_settings, describe_settings
    s = ablation_settings("randcbt", {"n_leaves": 4}, ["hoeffding"], {"ctree": {"c": [0.1]}},
                          ["gini"], [0], {"grace_period": 50}, 500, 10,
                          lengths={0: (2000, 5)})
    text = describe_settings(s)
    assert "randcbt(n_leaves=4), 2,000 instances x 5 features" in text
    assert "ctree c=[0.1]" in text and "compilation" in text
