"""The documentation builds without a warning, with the example gallery run.

``sphinx-build -W --keep-going -b html docs <tmp>`` on a copy of ``docs/`` and
``examples/`` (so that the generated API pages and gallery stay out of the
working tree), offline (no intersphinx inventories).  Every example of the
gallery is executed; a failing example or any Sphinx warning fails the test,
and the build log is shown.  Skipped only when the documentation tools are not
installed (``pip install -e ".[docs]"``), or when the documentation sources are
not there (the source distribution ships the tests without them).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if not (ROOT / "docs" / "conf.py").is_file() or not (ROOT / "examples").is_dir():
    # the source distribution ships the tests without the documentation sources
    pytest.skip("no docs/ or examples/ next to the tests (a source distribution)",
                allow_module_level=True)

for _module in ("sphinx", "numpydoc", "myst_parser", "sphinx_gallery", "sphinxarg",
                "pydata_sphinx_theme", "matplotlib"):
    pytest.importorskip(_module)

_GENERATED = ("_build", "auto_examples", "generated", "sg_execution_times.rst", "__pycache__")


def _copy_sources(dest: Path):
    ignore = shutil.ignore_patterns(*_GENERATED)
    shutil.copytree(ROOT / "docs", dest / "docs", ignore=ignore)
    shutil.copytree(ROOT / "examples", dest / "examples", ignore=ignore)
    for name in ("CHANGELOG.md", "CONTRIBUTING.md", "README.md"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest / name)


def test_docs_build_without_warnings(tmp_path):
    _copy_sources(tmp_path)
    out = tmp_path / "html"
    env = dict(os.environ, MPLBACKEND="Agg", TREELAB_DOCS_INTERSPHINX="0",
               PYTHONWARNINGS="ignore")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
           "-d", str(tmp_path / "doctrees"), str(tmp_path / "docs"), str(out)]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    log = (proc.stdout + proc.stderr)[-20000:]
    assert proc.returncode == 0, f"sphinx-build failed ({proc.returncode}):\n{log}"
    for page in ("index.html", "parameters.html", "api/index.html",
                 "auto_examples/index.html", "guide/decision_trees.html", "changelog.html"):
        assert (out / page).is_file(), page
    examples = sorted(p.stem for p in (ROOT / "examples").glob("plot_*.py"))
    assert examples
    for stem in examples:
        html = (out / "auto_examples" / f"{stem}.html").read_text(encoding="utf-8")
        assert "sphx-glr-script-out" in html or "sphx-glr-single-img" in html, (
            f"{stem}: the example was not run")
