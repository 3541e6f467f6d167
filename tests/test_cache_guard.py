"""``treelab._cache``: stale numba caches are deleted wherever numba keeps them.

Numba checks a cached kernel only against the file defining the jitted
function, so after a change to a module it calls, the guard must delete the
kernels -- in the folder's ``__pycache__`` and, as numba does, under
``NUMBA_CACHE_DIR`` when that is set (a read-only install, a container).
"""
import numpy as np
from numba.core import config

from treelab._cache import STAMP_NAME, cache_dir_of, invalidate_stale_caches


def _package(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("X = 1\n")
    (root / "sub" / "b.py").write_text("Y = 2\n")
    return root


def _fake_kernels(cache):
    cache.mkdir(parents=True, exist_ok=True)
    files = [cache / "b.f-1.py311.nbi", cache / "b.f-1.py311.1.nbc"]
    for f in files:
        f.write_bytes(b"kernel")
    return files


def _check_guard(root, caches):
    # first look: no stamp -> whatever is there is deleted, a stamp written
    files = [_fake_kernels(c) for c in caches]
    assert invalidate_stale_caches(root) == len(caches)
    for c, fs in zip(caches, files):
        assert (c / STAMP_NAME).exists()
        assert not any(f.exists() for f in fs)
    # kernels compiled afterwards are kept while the sources do not change
    files = [_fake_kernels(c) for c in caches]
    assert invalidate_stale_caches(root) == 0
    assert all(f.exists() for fs in files for f in fs)
    # a change to any source file (here one numba would not notice for a.py's
    # kernels) invalidates every folder's caches
    (root / "sub" / "b.py").write_text("Y = 3\n")
    assert invalidate_stale_caches(root) == len(caches)
    assert not any(f.exists() for fs in files for f in fs)
    assert invalidate_stale_caches(root) == 0


def test_guard_in_tree(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", "")
    root = _package(tmp_path)
    caches = [root / "__pycache__", root / "sub" / "__pycache__"]
    assert [cache_dir_of(root / "a.py"), cache_dir_of(root / "sub" / "b.py")] == caches
    _check_guard(root, caches)


def test_guard_under_numba_cache_dir(tmp_path, monkeypatch):
    user = tmp_path / "numba-cache"
    monkeypatch.setattr(config, "CACHE_DIR", str(user))
    root = _package(tmp_path)
    caches = [cache_dir_of(root / "a.py"), cache_dir_of(root / "sub" / "b.py")]
    # numba's own place for them: under NUMBA_CACHE_DIR, one folder a source folder
    assert all(c.parent == user for c in caches) and caches[0] != caches[1]
    _check_guard(root, caches)
    assert not (root / "__pycache__").exists()


def test_cached_kernel_found_where_the_guard_looks(tmp_path, monkeypatch):
    """A real jitted function's cache files land in the directory
    ``cache_dir_of`` names (numba's locator, not a copy of its rules)."""
    import importlib.util
    import sys

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "nc"))
    src = tmp_path / "jitmod"
    src.mkdir()
    (src / "kern.py").write_text(
        "from numba import njit\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("treelab_cache_probe", src / "kern.py")
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "treelab_cache_probe", mod)
    spec.loader.exec_module(mod)
    assert mod.twice(np.int64(3)) == 6
    cache = cache_dir_of(src / "kern.py")
    assert list(cache.glob("kern.twice-*.nbi")) and list(cache.glob("kern.twice-*.nbc"))
    assert invalidate_stale_caches(src) == 1
    assert not list(cache.glob("*.nbi")) and not list(cache.glob("*.nbc"))
