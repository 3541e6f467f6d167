"""Optional progress bars for long fits and runs (tqdm).

tqdm is not a dependency of treelab: without it (or when not asked for) the
bar is a silent stand-in with the same ``update`` / ``set_postfix`` /
``close`` methods, so callers never test for it.
"""
from __future__ import annotations

__all__ = ["progress_bar", "parallel_with_progress"]


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


def parallel_with_progress(make_task, n, n_jobs, prefer, enabled, desc, unit):
    """``joblib.Parallel(n_jobs, prefer)(make_task(i) for i in range(n))``; when
    ``enabled``, in batches of four tasks per worker with a progress bar advanced
    after each batch (the same results, in the same order)."""
    from joblib import Parallel, effective_n_jobs
    if not enabled:
        return Parallel(n_jobs=n_jobs, prefer=prefer)(make_task(i) for i in range(n))
    step = 4 * effective_n_jobs(n_jobs)
    bar = progress_bar(True, n, desc, unit=unit)
    out = []
    try:
        with Parallel(n_jobs=n_jobs, prefer=prefer) as par:
            for a in range(0, n, step):
                b = min(n, a + step)
                out += par(make_task(i) for i in range(a, b))
                bar.update(b - a)
    finally:
        bar.close()
    return out
