"""Pieces shared by the pure-Python references and tests of treelab's streaming
learners (SGT, Hoeffding trees): the equal-width binning of
``treelab._engine.streaming`` written out plainly, chunk feeding and the
comparison of two models."""
from __future__ import annotations

import math

import numpy as np

from treelab._engine.tree import LEAF


class EqualWidthBinning:
    """Per-feature (min, max) from the first instances; codes: equal-width bin,
    clipped to the end bins, for numeric features; the category code (None when
    not a known category) for nominal ones; None for missing values.  Needs
    ``d``, ``is_nominal``, ``n_cats`` (per feature) and ``n_bins``."""

    def fit_range(self, rows):
        self.lo, self.hi = [], []
        for f in range(self.d):
            vals = [r[f] for r in rows if not math.isnan(r[f])]
            if self.is_nominal[f] or not vals:
                self.lo.append(0.0)
                self.hi.append(0.0)
            else:
                self.lo.append(min(vals))
                self.hi.append(max(vals))

    def nominal_code(self, f, x):
        """The category code of nominal feature ``f`` (None when not a known category)."""
        c = int(x)
        return c if c == x and 0 <= c < self.n_cats[f] else None

    def code(self, row):
        out = []
        for f, x in enumerate(row):
            if math.isnan(x):
                out.append(None)
            elif self.is_nominal[f]:
                out.append(self.nominal_code(f, x))
            else:
                w = self.hi[f] - self.lo[f]
                if not w > 0:
                    out.append(0)
                    continue
                b = math.floor(self.n_bins * ((x - self.lo[f]) / w))
                out.append(min(max(b, 0), self.n_bins - 1))
        return out


def chunks(n, size):
    """``[(lo, hi)]`` bounds of consecutive chunks of ``size`` rows."""
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def feed(model, X, y, bounds):
    """``partial_fit`` the DataFrame rows of each chunk in order."""
    for lo, hi in bounds:
        model.partial_fit(X.iloc[lo:hi], y[lo:hi])
    return model


def assert_same_model(a, b):
    """Identical trees (every array up to the nodes in use), leaf statistics and
    counters of two streaming models (SGT or Hoeffding tree)."""
    assert a.n_nodes == b.n_nodes
    ta, tb = a._forest, b._forest
    n = int(ta.sizes[0])
    for name in ta._fields:
        xa, xb = getattr(ta, name), getattr(tb, name)
        if name == "cat_map":
            m = int(ta.sizes[1])
            np.testing.assert_array_equal(xa[:m], xb[:m], err_msg=name)
        elif name == "sizes":
            np.testing.assert_array_equal(xa, xb)
        else:
            np.testing.assert_array_equal(xa[:n], xb[:n], err_msg=name)
    sa, sb = a._state, b._state
    np.testing.assert_array_equal(sa.meta, sb.meta)
    np.testing.assert_array_equal(sa.counts, sb.counts)
    for node in range(n):
        if ta.kind[node] == LEAF:
            ka, kb = sa.slot_of[node], sb.slot_of[node]
            assert sa.counts[ka] == sb.counts[kb]
            np.testing.assert_array_equal(sa.totals[ka], sb.totals[kb])
            np.testing.assert_array_equal(sa.stats[ka], sb.stats[kb])
            np.testing.assert_array_equal(sa.aux[ka], sb.aux[kb])
        else:
            assert sa.slot_of[node] == sb.slot_of[node] == -1
