"""Optional progress bars for long fits and runs (tqdm).

tqdm is not a dependency of treelab: without it (or when not asked for) the
bar is a silent stand-in with the same ``update`` / ``set_postfix`` /
``close`` methods, so callers never test for it.
"""
from __future__ import annotations

__all__ = ["progress_bar"]


class _NoBar:
    """Stands in for a tqdm bar: does nothing."""

    def update(self, n=1):
        pass

    def set_postfix(self, **kw):
        pass

    def close(self):
        pass


def progress_bar(enabled, total=None, desc=None, unit="it", leave=True):
    """A ``tqdm.auto`` bar when ``enabled`` and tqdm is installed, else a
    silent stand-in."""
    if not enabled:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return _NoBar()
    return tqdm(total=total, desc=desc, unit=unit, leave=leave)
