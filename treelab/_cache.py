"""Guard against stale numba caches after treelab's sources change.

Numba re-validates an on-disk cache entry only against the file that defines
the top-level jitted function, not against the modules it calls (whose code
is compiled into it).  Before the engine is imported, this module hashes every
treelab source file and, in the cache directory numba will use for each of
treelab's source folders, deletes the cached kernels (``*.nbi`` / ``*.nbc``)
when the hash recorded there differs, so they are rebuilt from current code.
The directory is found the way numba finds it (its cache locators, in their
order): ``NUMBA_CACHE_DIR`` when set, else the folder's ``__pycache__`` when
writable, else numba's per-user cache -- so an upgrade of a read-only install,
or a cache kept under ``NUMBA_CACHE_DIR``, never runs old kernels either.
Cheap (a few milliseconds); silent where nothing can be written.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: the package's folder as numba sees its files (``os.path.abspath``, symbolic
#: links kept: numba names a cache folder after that path)
_ROOT = Path(os.path.abspath(__file__)).parent
#: the recorded hash, in each cache directory
STAMP_NAME = "treelab-sources.sha1"


def _sources_hash(root, sources):
    h = hashlib.sha1()
    for path in sources:
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _stamp_site():
    """(A function defined in a source file: what numba's locators are given.)"""


def numba_locator(py_file, func=_stamp_site):
    """numba's cache locator for the functions of ``py_file`` (the first of its
    locator classes that applies, as ``numba.core.caching`` picks it; that may
    create the directory), or None."""
    from numba.core import caching
    impl = getattr(caching, "_CacheImpl", None) or getattr(caching, "CacheImpl")
    for cls in impl._locator_classes:
        try:
            loc = cls.from_function(func, str(py_file))
        except Exception:       # (a locator that does not apply may raise)
            loc = None
        if loc is not None:
            return loc
    return None


def cache_dir_of(py_file):
    """The directory numba caches the kernels of ``py_file`` in, or None."""
    loc = numba_locator(py_file)
    return None if loc is None else Path(loc.get_cache_path())


def invalidate_stale_caches(root=_ROOT):
    """Delete the numba caches of ``root``'s source folders (each its own cache
    directory) whose recorded source hash is not the current one.  Returns the
    number of folders whose caches were deleted."""
    try:
        sources = sorted(root.rglob("*.py"))
        digest = _sources_hash(root, sources)
    except OSError:
        return 0
    folders = sorted({p.parent for p in sources if "__pycache__" not in p.parts})
    n = 0
    for folder in folders:
        try:
            cache = cache_dir_of(next(folder.glob("*.py")))
            if cache is None:
                continue
            stamp = cache / STAMP_NAME
            if stamp.exists() and stamp.read_text().strip() == digest:
                continue
            for pattern in ("*.nbi", "*.nbc"):
                for f in cache.glob(pattern):
                    try:
                        f.unlink()
                    except OSError:
                        pass
            cache.mkdir(parents=True, exist_ok=True)
            tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(digest)
            os.replace(tmp, stamp)
            n += 1
        except OSError:
            continue
    return n
