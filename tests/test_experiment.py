"""Ablation runner (treelab.experiment) and ``treelab ablation`` command line."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treelab.experiment import final_points, load_stream, make_rule, run_ablation
from treelab.split_criteria.rules import CTreeRule, HoeffdingRule, TTestRule

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
                      rules={"ttest": {"delta": [1e-7]},
                             "ctree": {"c": [0.1], "runner_up": ["other_feature"]}},
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


# ------------------------------------- random permutations (C-Tree paper, Sec. VI-B)
def _fixed_stream(n=1200):
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"a": rng.random(n), "b": rng.random(n),
                      "c": pd.Categorical(rng.choice(["x", "y", "z"], n))})
    y = ((X.a > 0.4) ^ (rng.random(n) < 0.1)).astype(int).to_numpy()
    return X, y


def test_permute_stream_and_load_stream():
    from treelab.experiment import permute_stream
    X, y = _fixed_stream()
    perm = np.random.default_rng(3).permutation(len(y))
    Xp, yp = load_stream((X, y), seed=3, permute=True)
    np.testing.assert_array_equal(yp, y[perm])
    np.testing.assert_array_equal(Xp.a.to_numpy(), X.a.to_numpy()[perm])
    assert Xp.c.dtype == X.c.dtype and list(Xp.index) == list(range(len(y)))
    Xn, yn = permute_stream((X.to_numpy(), pd.Series(y)), 3)
    np.testing.assert_array_equal(yn, y[perm])
    np.testing.assert_array_equal(Xn[:, 0], X.a.to_numpy()[perm])
    # different seeds, different orders; the same seed, the same order
    assert not np.array_equal(load_stream((X, y), seed=4, permute=True)[1], yp)
    np.testing.assert_array_equal(load_stream((X, y), seed=3, permute=True)[1], yp)
    # generated streams take it too
    Xr, yr = load_stream("randcbt", seed=0, permute=True, **SMALL)
    Xg, yg = load_stream("randcbt", seed=0, **SMALL)
    perm = np.random.default_rng(0).permutation(len(yg))
    np.testing.assert_array_equal(Xr, Xg[perm])


def test_run_ablation_permutes_a_fixed_stream_per_seed():
    X, y = _fixed_stream()
    kw = dict(rules={"hoeffding": {"delta": [0.1], "tau": [0.0]}}, merits=["gini"],
              learner_params=dict(grace_period=50, n_range_samples=100), checkpoints=3,
              progress=False)
    df = run_ablation(stream=(X, y), stream_params=dict(permute=True), seeds=[0, 5], **kw)
    for seed in (0, 5):
        from treelab.experiment import permute_stream
        one = run_ablation(stream=permute_stream((X, y), seed), seeds=[seed], **kw)
        got = df[df.seed == seed].reset_index(drop=True)
        cols = ["instances", "accuracy", "n_leaves"]
        pd.testing.assert_frame_equal(got[cols], one[cols])


def test_best_per_leaf_bin():
    from treelab.experiment import best_per_leaf_bin
    pts = pd.DataFrame({
        "learner": "hoeffding", "merit": "gini",
        "rule": ["ctree"] * 4 + ["hoeffding"] * 3,
        "value": [0.1, 0.2, 0.3, 0.4, 1e-3, 1e-2, 1e-1],
        "n_leaves": [1.0, 3.0, 5.0, 40.0, 2.0, 9.5, 10.0],
        "accuracy": [0.50, 0.60, 0.65, 0.70, 0.55, 0.58, 0.57]})
    out = best_per_leaf_bin(pts, [1, 4, 10, 100])
    c = out[out.rule == "ctree"]
    # bins [1, 4): 1 and 3 leaves -> best 0.60; [4, 10): 5 -> 0.65; [10, 100): 40 -> 0.70
    assert list(c.accuracy) == [0.60, 0.65, 0.70]
    assert list(c.n_leaves) == [3.0, 5.0, 40.0] and list(c.value) == [0.2, 0.3, 0.4]
    h = out[out.rule == "hoeffding"]
    # 2 -> [1, 4); 9.5 -> [4, 10); 10 -> [10, 100)
    assert list(h.bin_lo) == [1, 4, 10] and list(h.accuracy) == [0.55, 0.58, 0.57]
    # leaves outside the edges are left out
    one = best_per_leaf_bin(pts, [2, 5])  # one bin [2, 5): ctree's 3 leaves, hoeffding's 2
    assert list(one.n_leaves) == [3.0, 2.0] and list(one.rule) == ["ctree", "hoeffding"]
    with pytest.raises(ValueError, match="increasing"):
        best_per_leaf_bin(pts, [5, 1])
    with pytest.raises(ValueError, match="two"):
        best_per_leaf_bin(pts, [1])


# ---------------------------------------- the Figure 2 / Figure 3 scripts' grids
def _experiments_module(name):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "experiments" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_exp_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_figure_grids_cover_the_papers_intervals():
    common = _experiments_module("_ctree_common")
    c = common.c_grid(4, "linear")
    np.testing.assert_allclose(c, [0.4, 0.8, 1.2, 1.6])
    np.testing.assert_allclose(common.delta_grid(3, "linear"), [0.25, 0.5, 0.75])
    c = np.array(common.c_grid(20, "log", c_min=1e-3))
    assert len(c) == 20 and c[0] == pytest.approx(1e-3) and np.all(np.diff(c) > 0)
    assert c[-1] < 2.0 and np.allclose(c[1:] / c[:-1], c[1] / c[0])  # geometric
    d = np.array(common.delta_grid(20, "log", 1e-10, 0.999))
    assert d[0] == pytest.approx(1e-10) and d[-1] == pytest.approx(0.999)
    assert np.all((d > 0) & (d < 1)) and np.all(np.diff(d) > 0)
    r = np.sqrt(np.log(1 / d))  # the Hoeffding radius factor is geometric
    assert np.allclose(r[1:] / r[:-1], r[1] / r[0])
    with pytest.raises(ValueError):
        common.c_grid(0)
    with pytest.raises(ValueError):
        common.delta_grid(5, "log", 0.5, 0.1)


def test_figure_rules_have_no_tie_break():
    common = _experiments_module("_ctree_common")
    import argparse
    ap = argparse.ArgumentParser()
    common.add_common_arguments(ap, grid=3, streams=1)
    rules = common.rules_from_args(ap.parse_args([]))
    assert set(rules) == {"ctree", "hoeffding", "corrh"}
    assert all(r["tau"] == [0.0] for r in rules.values())
    assert "runner_up" not in rules["ctree"]
    for name, grid in rules.items():
        param = "c" if name == "ctree" else "delta"
        for v in grid[param]:
            rule, _ = make_rule(name, "gini", **{param: v, "tau": 0.0})
            assert rule.tau == 0.0
    rules = common.rules_from_args(ap.parse_args(["--runner-up", "other_feature"]))
    assert rules["ctree"]["runner_up"] == ["other_feature"]


def test_figure3_skips_without_data(capsys, tmp_path):
    fig3 = _experiments_module("ctree_figure3")
    rc = fig3.main(["--data", str(tmp_path / "missing.arff.gz"), "--out-dir", str(tmp_path)])
    assert rc == 0
    assert "not found" in capsys.readouterr().out
    assert not any(tmp_path.iterdir())


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
