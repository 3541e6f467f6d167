"""The package as users get it: ``python -m build`` makes an sdist and a wheel
whose contents are checked, and the wheel, installed into a fresh virtual
environment, runs from there (not from the checkout).

The fresh environment (``python -m venv``) gets the wheel with ``pip install
--no-deps --no-index``: nothing is downloaded for it.  Its dependencies (numba,
numpy, scipy, pandas, joblib) come from the environment running the tests,
whose site-packages folder is appended to the new environment's ``sys.path``
by a ``.pth`` line -- after the new environment's own site-packages, and
without running that folder's own ``.pth`` files, so an editable install of
the checkout there is not seen.  (``--system-site-packages`` would expose the
base interpreter's packages, not the test environment's.)  The build itself
runs in build's isolated environment, which fetches setuptools from the
package index.

The smoke test in the new environment runs ``treelab --version``, ``python
-m treelab --version``, reads the bundled CSV tables and fits a small
:class:`~treelab.DecisionTreeClassifier` from a temporary working folder,
with ``NUMBA_CACHE_DIR`` set to an empty temporary folder: the decision
tree's kernels are compiled from nothing (about 40 s of the test's 1-2
minutes), which is what a first fit after installing costs.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

import treelab

ROOT = Path(__file__).resolve().parent.parent
NAME = f"treelab-{treelab.__version__}"
DATA = ["loan.csv", "loan_scores.csv", "play_tennis.csv"]
#: never in a distribution: caches, numba's kernel cache files
CACHES = ("__pycache__", ".pyc", ".pyo", ".nbi", ".nbc")


def _run(cmd, cwd, env=None, timeout=600):
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({out.returncode}):\n"
                                 f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=ROOT)
    sdist, = out.glob("*.tar.gz")
    wheel, = out.glob("*.whl")
    return sdist, wheel


def test_sdist_contents(dists):
    sdist, _ = dists
    assert sdist.name == f"{NAME}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for path in ["pyproject.toml", "README.md", "LICENSE", "PKG-INFO", "treelab/__init__.py",
                 "treelab/__main__.py", "treelab/cli.py", "treelab/_engine/tree.py",
                 "tests/conftest.py", "tests/test_wheel.py", "tests/golden/demo_en.txt"] \
            + [f"treelab/datasets/data/{f}" for f in DATA]:
        assert path in names, path
    assert not [n for n in names if n.endswith(CACHES) or "/__pycache__/" in n]
    assert not [n for n in names if n.split("/")[0] in ("benchmarks", "experiments", "results",
                                                         ".venv", "build", "dist")]


def test_wheel_contents(dists):
    _, wheel = dists
    assert wheel.name == f"{NAME}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        entry_points = zf.read(f"{NAME}.dist-info/entry_points.txt").decode()
        metadata = zf.read(f"{NAME}.dist-info/METADATA").decode()
    assert {n.split("/")[0] for n in names} == {"treelab", f"{NAME}.dist-info"}
    for path in ["treelab/__init__.py", "treelab/__main__.py", "treelab/cli.py",
                 "treelab/_engine/tree.py", "treelab/learners/decision_tree.py",
                 "treelab/split_criteria/rules/__init__.py"] \
            + [f"treelab/datasets/data/{f}" for f in DATA]:
        assert path in names, path
    assert any(n.startswith(f"{NAME}.dist-info/") and n.endswith("LICENSE") for n in names)
    assert not [n for n in names if n.endswith(CACHES) or "/__pycache__/" in n]
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "experiments/",
                                                  "docs/", "examples/"))]
    assert "treelab = treelab.cli:main" in entry_points
    for req in ("numba", "numpy", "scipy", "pandas", "joblib"):
        assert f"Requires-Dist: {req}" in metadata, req


def test_installed_wheel_runs_outside_the_checkout(dists, tmp_path):
    _, wheel = dists
    t0 = time.perf_counter()
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    # the test environment's packages (numba, numpy, ...) after the new environment's own
    (site / "_treelab_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "--no-cache-dir",
          "--disable-pip-version-check", str(wheel)], cwd=tmp_path)

    work = tmp_path / "work"                      # not the checkout: nothing to import there
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba_cache"), TREELAB_COMPILE_NOTICE="0")
    version = f"treelab {treelab.__version__}"
    out = _run([str(bindir / "treelab"), "--version"], cwd=work, env=env)
    assert out.stdout.strip() == version
    out = _run([str(py), "-m", "treelab", "--version"], cwd=work, env=env)
    assert out.stdout.strip() == version
    script = (
        "import numpy as np, treelab\n"
        "from treelab.datasets import load_loan, load_play_tennis\n"
        "print(treelab.__file__)\n"
        "print(treelab.__version__)\n"
        "assert load_loan().shape[0] == 15 and load_play_tennis().shape[0] == 14\n"
        "X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 0.0]])\n"
        "y = np.array([0, 0, 0, 1, 1, 1])\n"
        "m = treelab.DecisionTreeClassifier(max_depth=2).fit(X, y)\n"
        "assert (m.predict(X) == y).all(), m.predict(X)\n"
        "print('fit ok', m.get_depth())\n")
    out = _run([str(py), "-c", script], cwd=work, env=env)
    where, got_version, fitted = out.stdout.strip().splitlines()[-3:]
    assert Path(where).resolve().is_relative_to(venv.resolve()), where
    assert not Path(where).resolve().is_relative_to(ROOT), where
    assert got_version == treelab.__version__ and fitted == "fit ok 1"
    print(f"install and smoke test in a fresh environment: {time.perf_counter() - t0:.1f} s")
