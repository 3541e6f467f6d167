"""The small-node sort of the batch builder is a stable argsort of one feature of
the node's rows (insertion sort up to 24 rows; above, a counting sort of bin codes
in a bucket array it leaves zero, or an in-place sort of (value, position) pairs of raw values),
and it reports a feature that is constant on the node without missing values
(the splitter's status -1) without sorting."""
import numpy as np
import pytest

from treelab._engine.builder import _gather_sort_small
from treelab._engine.sorting import STACK_SIZE

STACK = np.zeros(STACK_SIZE, np.int64)

MISSING_BIN = 255


def _ref(values):
    """The stable order of ``values`` (NaN last) and the sorted keys (NaN kept)."""
    key = np.where(np.isnan(values), np.inf, values)
    order = np.argsort(key, kind="stable")
    return order, values[order]


@pytest.mark.parametrize("m", [1, 2, 15, 16, 17, 24, 25, 31, 32, 33, 47, 64, 100, 127])
def test_gather_sort_small_is_a_stable_argsort(m):
    rng = np.random.default_rng(m)
    n, d = 400, 4
    X = np.empty((n, d))
    X[:, 0] = rng.integers(0, 5, n)                 # many ties: stability matters
    X[:, 1] = rng.normal(size=n)
    X[:, 2] = rng.integers(0, 3, n).astype(float)
    X[rng.random(n) < 0.3, 2] = np.nan              # missing values (sorted last, as NaN)
    X[:, 3] = 2.5                                   # constant
    samples = rng.permutation(n).astype(np.int64)
    start = 37
    end = start + m
    rows = samples[start:end]
    Xb = np.zeros((n, d), np.uint8)
    for f in range(d):
        v = X[:, f]
        Xb[:, f] = np.where(np.isnan(v), MISSING_BIN, np.searchsorted(np.unique(v[~np.isnan(v)]), v))
    for use_hist in (False, True):
        for f in range(d):
            keys = np.full(2 * m, -7.0)
            ids = np.full(2 * m, -7, np.int64)
            scratch = np.empty(130)
            bucket = np.zeros(MISSING_BIN + 1, np.int64)
            ok = _gather_sort_small(X, Xb, use_hist, MISSING_BIN, f, samples, start, end,
                                    keys, ids, scratch, bucket, STACK)
            assert not bucket.any()
            vals = X[rows, f]
            if use_hist:
                vals = np.where(Xb[rows, f] == MISSING_BIN, np.nan, Xb[rows, f].astype(float))
            finite = vals[~np.isnan(vals)]
            constant = finite.size == m and (m == 0 or finite.max() <= finite.min() + 1e-7)
            assert ok is (not constant), (use_hist, f)
            if constant:
                continue
            order, want = _ref(vals)
            np.testing.assert_array_equal(ids[:m], order)
            np.testing.assert_array_equal(keys[:m], want)


def test_all_missing_is_sorted_not_skipped():
    """Every value missing: not the constant shortcut (the splitter decides)."""
    for use_hist, m in ((False, 5), (True, 5), (True, 30)):
        X = np.full((m, 1), np.nan)
        Xb = np.full((m, 1), MISSING_BIN, np.uint8)
        samples = np.arange(m, dtype=np.int64)
        keys = np.zeros(m)
        ids = np.zeros(m, np.int64)
        bucket = np.zeros(MISSING_BIN + 1, np.int64)
        assert _gather_sort_small(X, Xb, use_hist, MISSING_BIN, 0, samples, 0, m, keys, ids,
                                  np.empty(m), bucket, STACK)
        assert np.isnan(keys).all() and list(ids) == list(range(m))
        assert not bucket.any()
