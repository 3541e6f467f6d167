"""Guard against stale numba caches after treelab's sources change.

Numba re-validates an on-disk cache entry only against the file that defines
the top-level jitted function, not against the modules it calls.  Before the
engine is imported, this module hashes every treelab source file and, when
the hash differs from the one recorded beside the caches, deletes treelab's
cached kernels (``*.nbi`` / ``*.nbc``) so they are rebuilt from current code.
Cheap (a few milliseconds); silent when the package directory is read-only.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent
_STAMP = _ROOT / "__pycache__" / "treelab-sources.sha1"


def _sources_hash():
    h = hashlib.sha1()
    for path in sorted(_ROOT.rglob("*.py")):
        h.update(str(path.relative_to(_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def invalidate_stale_caches():
    """Delete treelab's numba caches if any treelab source changed since they were written."""
    try:
        digest = _sources_hash()
        if _STAMP.exists() and _STAMP.read_text().strip() == digest:
            return False
        for pattern in ("*.nbi", "*.nbc"):
            for f in _ROOT.rglob(pattern):
                try:
                    f.unlink()
                except OSError:
                    pass
        _STAMP.parent.mkdir(exist_ok=True)
        tmp = _STAMP.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, _STAMP)
        return True
    except OSError:
        return False
