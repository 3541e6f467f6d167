"""The command line answers mistakes in one line, a wrong call with its usage
first, shows its defaults, and compilation is announced only when numba's
cache is cold."""
from __future__ import annotations

import importlib.util
import io
import sys
import textwrap

import pytest

from treelab import _compile, _warmup
from treelab.cli import build_parser, main, rule_names

SMALL = ["--stream-param", "n_leaves=4", "--stream-param", "m_per_leaf=100",
         "--no-progress", "--dry-run"]


def one_line_error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.endswith("\n") and err.count("\n") == 1, err      # exactly one line
    assert "Traceback" not in err
    return err


def usage_error(capsys, argv):
    """A wrong call: the usage, then the error in one line (and a hint), status 2."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: treelab") and "Traceback" not in err
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("argv,bad,closest", [
    (["--rule", "hoefding"], "'hoefding'", "'hoeffding'"),
    (["--rule", "ctre:c=0.1"], "'ctre'", "'ctree'"),
    (["--set", "grace_periode=100"], "'grace_periode'", "'grace_period'"),
    (["--learner", "sgt", "--set", "lambda=0.2"], "'lambda'", "'reg_lambda'"),
    (["--stream-param", "n_leavs=50"], "'n_leavs'", "'n_leaves'"),
    (["--merit", "ginni"], "'ginni'", "'gini'"),
    (["--stream", "randcbd"], "'randcbd'", "'randcbt'"),
    (["--rule", "ctree:cc=0.1"], "'cc'", "'c'"),
])
def test_unknown_names_one_line_with_closest(capsys, argv, bad, closest):
    err = one_line_error(capsys, ["ablation"] + argv + SMALL)
    assert bad in err and f"did you mean {closest}" in err


def test_unknown_choice_shows_usage_and_closest(capsys):
    err = usage_error(capsys, ["ablation", "--learner", "sgtt"] + SMALL)
    assert "'sgtt'" in err and "did you mean 'sgt'" in err


@pytest.mark.parametrize("argv,new", [(["--learner", "sgt", "--set", "lambda_=0.2"], "reg_lambda"),
                                      (["--learner", "sgt", "--set", "n_bins=8"], "max_bins"),
                                      (["--set", "merit=gini"], "criterion")])
def test_former_parameter_names_name_the_new_one(capsys, argv, new):
    err = one_line_error(capsys, ["ablation"] + argv + SMALL)
    assert f"was renamed {new}" in err


@pytest.mark.parametrize("argv,match", [
    (["--set", "grace_period=-1"], "grace_period must be an int >= 1"),
    (["--rule", "hoeffding:delta=2"], "delta"),
    (["--set", "grace_period"], "key=value"),
    (["--seeds", "a,b"], "--seeds"),
    (["--chunk-size", "0"], "--chunk-size"),
    (["--stream", "electricity", "--stream-param", "path=/no/such/elec.arff"],
     "TREELAB_DATA"),
])
def test_bad_values_one_line(capsys, argv, match):
    tail = ["--no-progress", "--dry-run"] if "--stream" in argv else SMALL
    assert match in one_line_error(capsys, ["ablation"] + argv + tail)


def test_unknown_command_shows_usage_and_closest(capsys):
    err = usage_error(capsys, ["ablaton"])
    assert "did you mean 'ablation'" in err


def test_wrong_type_shows_usage(capsys):
    assert "invalid int value" in usage_error(capsys, ["ablation", "--chunk-size", "x"] + SMALL)


def test_no_arguments_print_the_commands(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: treelab")
    for command in ("demo", "warmup", "teach", "ablation", "--version", "--debug"):
        assert command in err


def test_version(capsys):
    import treelab
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"treelab {treelab.__version__}"


def test_runtime_error_one_line_and_debug_traceback(capsys, tmp_path, monkeypatch):
    """An error while running: one line, exit status 1; ``--debug`` raises it."""
    import treelab.teaching_ensembles as lessons

    def broken(png_dir=None):
        raise OSError(f"cannot write {png_dir}")
    monkeypatch.setattr(lessons, "ensemble_lessons", broken)
    with pytest.raises(SystemExit) as info:
        main(["teach", "ensembles", "--png-dir", str(tmp_path)])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OSError: cannot write" in err and "--debug" in err
    for argv in (["--debug", "teach", "ensembles"], ["teach", "ensembles", "--debug"]):
        with pytest.raises(OSError):
            main(argv)


def test_python_dash_m_treelab():
    import subprocess
    out = subprocess.run([sys.executable, "-m", "treelab", "--version"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("treelab "), out.stderr


def test_unknown_rule_lists_every_rule(capsys):
    err = one_line_error(capsys, ["ablation", "--rule", "zzz"] + SMALL)
    for name in rule_names():
        assert name in err


def test_dry_run_validates_and_runs_nothing(capsys, tmp_path):
    rc = main(["ablation", "--rule", "hoeffding:delta=1e-7,0.1", "--rule", "corrh:delta=0.1",
               "--merit", "gini", "--set", "grace_period=50", "--out", str(tmp_path)] + SMALL)
    assert rc == 0
    out = capsys.readouterr().out
    assert "randcbt(n_leaves=4, m_per_leaf=100)" in out and "dry run" in out
    assert not list(tmp_path.iterdir())


def test_help_shows_defaults_and_stream_parameters(capsys):
    with pytest.raises(SystemExit) as info:
        main(["ablation", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for text in ("(default: randcbt)", "(default: 1000)", "(default: 20)", "(default: 0)",
                 "(default: results/ablation)", "default: hoeffding", "default: entropy",
                 "randcbt: n_leaves=50, n_features=5, q=0.7, m_per_leaf=10000",
                 "electricity: path=", "river:<Generator>", "grace_period=200",
                 "reg_lambda=0.1"):
        assert text in out, text
    for sub, text in (("demo", "(default: en)"), ("warmup", "--force")):
        with pytest.raises(SystemExit):
            main([sub, "--help"])
        assert text in " ".join(capsys.readouterr().out.split())


def test_parser_knows_the_commands():
    p = build_parser()
    assert p.parse_args(["warmup"]).command == "warmup"
    assert p.parse_args(["demo", "--warmup"]).warmup
    assert not p.parse_args(["demo"]).warmup            # the demo compiles what it uses
    assert p.parse_args(["demo", "--no-warmup"]).no_warmup     # (still accepted)


# ------------------------------------------------------------- compile notices
def test_kernel_cache_detection_on_a_real_module(tmp_path, monkeypatch):
    """An independent numba-cached module: cold before the first call, warm after
    it, cold again once its source changes."""
    src = tmp_path / "probe_mod.py"
    src.write_text(textwrap.dedent("""
        from numba import njit
        @njit(cache=True)
        def plus_one(x):
            return x + 1
    """))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert not _compile._kernel_cached("probe_mod.py", "plus_one", root=tmp_path)
    spec = importlib.util.spec_from_file_location("probe_mod", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.plus_one(1) == 2
    assert _compile._kernel_cached("probe_mod.py", "plus_one", root=tmp_path)
    assert not _compile._kernel_cached("probe_mod.py", "other", root=tmp_path)
    src.write_text(src.read_text() + "\n# changed\n")
    assert not _compile._kernel_cached("probe_mod.py", "plus_one", root=tmp_path)


@pytest.mark.parametrize("cached,lines", [(False, 1), (True, 0), (None, 0)])
def test_announce_prints_one_line_only_when_cold(monkeypatch, cached, lines):
    from treelab import HoeffdingTreeClassifier, SGTClassifier
    monkeypatch.setattr(_compile, "_announced", set())
    monkeypatch.setattr(_compile, "family_is_cached", lambda fam: cached)
    monkeypatch.delenv("TREELAB_COMPILE_NOTICE", raising=False)
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    for _ in range(3):                       # once per family and process
        _compile.announce(SGTClassifier())
    assert buf.getvalue().count("\n") == lines
    if lines:
        assert "Stochastic Gradient Tree" in buf.getvalue() and "once per install" in buf.getvalue()
    _compile.announce(HoeffdingTreeClassifier())
    assert buf.getvalue().count("\n") == 2 * lines
    monkeypatch.setenv("TREELAB_COMPILE_NOTICE", "0")
    monkeypatch.setattr(_compile, "_announced", set())
    _compile.announce(SGTClassifier())
    assert buf.getvalue().count("\n") == 2 * lines


def test_warmup_fills_the_cache_and_then_skips():
    buf = io.StringIO()
    took = _warmup.warmup(families=["hoeffding"], force=True, file=buf)
    assert set(took) == {"hoeffding"} and took["hoeffding"] > 0
    assert _compile.family_is_cached("hoeffding") is True
    buf = io.StringIO()
    assert _warmup.warmup(families=["hoeffding"], file=buf) == {"hoeffding": 0.0}
    assert "already compiled" in buf.getvalue()
    with pytest.raises(ValueError, match="unknown learner family"):
        _warmup.warmup(families=["nope"])


def test_cache_probes_name_cached_kernels_that_exist():
    """Every probe of a learner family names a source file that defines kernels
    compiled with ``cache=True`` (a probe of a file without any, e.g. after kernels
    moved, would never be 'cached' and the compile notice would print in every
    process)."""
    import treelab
    for family, info in _compile.FAMILIES.items():
        for rel, prefix in info["kernels"]:
            src = (_compile._ROOT / rel).read_text()
            assert "cache=True" in src, (family, rel)
            if prefix:
                assert f"def {prefix}" in src, (family, rel, prefix)
    assert treelab is not None


def test_functions_without_a_source_file_compile_uncached():
    """A user's criterion or loss typed into a plain REPL (or exec'd, as the README
    test does) has no file for numba's cache: it is compiled without caching
    instead of failing with numba's "no locator available"."""
    from treelab.losses import Loss
    from treelab.split_criteria import Criterion
    ns = {}
    exec(compile("def tsallis2(counts):\n    s = counts.sum(); r = 1.0\n"
                 "    for c in counts:\n        r -= (c / s) ** 2\n    return r\n"
                 "def grad(y, raw):\n    return raw - y\n"
                 "def hess(y, raw):\n    return 1.0\n", "<stdin>", "exec"), ns)
    crit = Criterion("tsallis2", ns["tsallis2"])
    assert crit.node_impurity([3.0, 1.0]) == pytest.approx(1 - (0.75 ** 2 + 0.25 ** 2))
    loss = Loss.from_functions(ns["grad"], ns["hess"])
    assert loss.grad(2.0, 0.5) == pytest.approx(-1.5)
