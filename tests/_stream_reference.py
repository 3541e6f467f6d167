"""Pieces shared by the pure-Python references and tests of treelab's streaming
learners (SGT, Hoeffding trees): the equal-width binning of
``treelab._engine.streaming`` written out plainly, and chunk feeding."""
from __future__ import annotations

import math


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

    def code(self, row):
        out = []
        for f, x in enumerate(row):
            if math.isnan(x):
                out.append(None)
            elif self.is_nominal[f]:
                c = int(x)
                out.append(c if c == x and 0 <= c < self.n_cats[f] else None)
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
