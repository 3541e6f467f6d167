"""The kernels' on-disk cache is keyed by the code they are built from.

A kernel's cache entry is valid while neither its module's code nor the code of
any package module it imports (directly or not) changes; docstrings, comments
and moved lines change nothing.  Entries live where numba puts them
(``NUMBA_CACHE_DIR``, else ``__pycache__``, else numba's per-user folder).
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from treelab._engine import cache as engine_cache
from treelab._engine.cache import EngineLocator, code_stamp, module_imports

PACKAGE = Path(engine_cache.PACKAGE_ROOT)


@pytest.fixture
def fresh_memo(monkeypatch):
    monkeypatch.setattr(engine_cache, "_file_info", {})
    monkeypatch.setattr(engine_cache, "_stamp", {})

    def reset():
        engine_cache._file_info.clear()
        engine_cache._stamp.clear()
    return reset


def _package(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "base.py").write_text('"""Base."""\nK = 1\n\ndef f(x):\n    """Twice."""\n    return 2 * x\n')
    (root / "sub" / "mid.py").write_text("from ..base import f\n\ndef g(x):\n    return f(x) + 1\n")
    (root / "sub" / "top.py").write_text("from .mid import (\n    g,\n)\nfrom .. import other\n")
    (root / "other.py").write_text("Z = 0\n")
    (root / "alone.py").write_text("W = 5\n")
    return root


def test_imports_found(tmp_path):
    root = _package(tmp_path)
    top = root / "sub" / "top.py"
    # (``from .. import other`` runs the package's __init__ too)
    assert sorted(module_imports(top, top.read_bytes(), root)) == [
        root / "__init__.py", root / "other.py", root / "sub" / "mid.py"]
    mid = root / "sub" / "mid.py"
    assert module_imports(mid, mid.read_bytes(), root) == [root / "base.py"]


def test_stamp_follows_code_not_text(tmp_path, fresh_memo):
    root = _package(tmp_path)
    top = root / "sub" / "top.py"
    s0 = code_stamp(top, root)
    # docstrings, comments and moved lines in a module imported two levels down
    fresh_memo()
    (root / "base.py").write_text('"""Base, reworded."""\n# a comment\n\n\nK = 1\n\n\n'
                                  'def f(x):\n    """Twice the input."""\n    return 2 * x\n')
    assert code_stamp(top, root) == s0
    # a module nothing imports
    fresh_memo()
    (root / "alone.py").write_text("W = 6\n")
    assert code_stamp(top, root) == s0
    # code in a module imported two levels down
    fresh_memo()
    (root / "base.py").write_text('"""Base."""\nK = 1\n\ndef f(x):\n    return 3 * x\n')
    s1 = code_stamp(top, root)
    assert s1 != s0
    # ... and a constant
    fresh_memo()
    (root / "base.py").write_text('"""Base."""\nK = 2\n\ndef f(x):\n    return 3 * x\n')
    assert code_stamp(top, root) not in (s0, s1)
    # the module's own stamp does not depend on its importers
    fresh_memo()
    base_stamp = code_stamp(root / "base.py", root)
    fresh_memo()
    (top).write_text("from .mid import g\nX = 1\n")
    assert code_stamp(root / "base.py", root) == base_stamp


def test_stamp_is_the_same_in_every_process():
    code = ("from treelab._engine.cache import code_stamp; "
            "print(code_stamp(%r))" % str(PACKAGE / "_engine" / "builder.py"))
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed)),
                           check=True).stdout for seed in (1, 2)}
    assert len(outs) == 1


def test_locator_only_for_the_package(tmp_path):
    outside = tmp_path / "user.py"
    outside.write_text("def f():\n    pass\n")
    assert EngineLocator.from_function(test_locator_only_for_the_package, str(outside)) is None
    loc = EngineLocator.from_function(test_locator_only_for_the_package,
                                      str(PACKAGE / "_engine" / "impurity.py"))
    assert loc is not None and loc.get_disambiguator() == "tl"


_PROBE = """
import json, numpy as np, treelab
from treelab._engine import impurity
impurity.entropy(np.array([3.0, 1.0]))          # compiled (or loaded) on first use
print(json.dumps(dict(hits=sum(impurity.entropy.stats.cache_hits.values()),
                      misses=sum(impurity.entropy.stats.cache_misses.values()))))
"""


def _probe(path, cache):
    env = dict(os.environ, PYTHONPATH=str(path), NUMBA_CACHE_DIR=str(cache),
               TREELAB_COMPILE_NOTICE="0")
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_real_kernels_survive_text_edits(tmp_path):
    """A copy of the package under NUMBA_CACHE_DIR: an edited docstring keeps
    the cached kernels, an edited constant in a module they import does not."""
    work = tmp_path / "copy"
    shutil.copytree(PACKAGE, work / "treelab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    cache = tmp_path / "numba-cache"
    first = _probe(work, cache)
    assert first["misses"] >= 1 and first["hits"] == 0
    files = sorted(p.name for p in cache.rglob("impurity.entropy*"))
    assert files and all("-tl.py" in name for name in files)     # no line number
    assert not list((work / "treelab").rglob("*.nbi"))            # numba's folder
    # docstrings and blank lines at the top of the module and of one it imports
    imp = work / "treelab" / "_engine" / "impurity.py"
    text = imp.read_text()
    assert text.startswith('"""')
    imp.write_text('# a comment\n\n\n"""Reworded.' + text[3:])
    jit = work / "treelab" / "_engine" / "jit.py"
    jit.write_text("# a comment\n\n" + jit.read_text())
    second = _probe(work, cache)
    assert second == dict(hits=second["hits"], misses=0) and second["hits"] >= 1
    # code in a module the kernel imports
    jit.write_text(jit.read_text() + "\n_UNUSED_CONSTANT = 1\n")
    third = _probe(work, cache)
    assert third["misses"] >= 1 and third["hits"] == 0
