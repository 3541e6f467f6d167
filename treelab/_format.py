"""Plain values for messages: labels print as ``2`` or ``'yes'``, never ``np.int64(2)``."""
from __future__ import annotations

import numpy as np

__all__ = ["plain", "plain_repr"]


def plain(value):
    """``value`` with NumPy scalars turned into Python scalars and arrays / lists /
    tuples into lists of them (what a user typed, e.g. ``[0, 1]``)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()] if value.ndim else plain(value.item())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def plain_repr(value):
    """``repr`` of :func:`plain` of ``value``: ``2``, ``'yes'``, ``[0, 1]``."""
    return repr(plain(value))
