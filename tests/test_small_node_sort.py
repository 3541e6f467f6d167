"""The small-node sort of the batch builder is a stable argsort (insertion sort up to 24
rows, numba's mergesort argsort above)."""
import numpy as np
import pytest

from treelab._engine.builder import _sort_block_row


@pytest.mark.parametrize("m", [0, 1, 2, 15, 16, 17, 24, 25, 31, 32, 33, 47, 64, 100, 127])
def test_sort_block_row_is_a_stable_argsort(m):
    rng = np.random.default_rng(m)
    d = 3
    blk = np.empty((d, 130))
    blk[0, :m] = rng.integers(0, 5, m)            # many ties: stability matters
    blk[1, :m] = rng.normal(size=m)
    blk[2, :m] = rng.integers(0, 3, m).astype(float)
    blk[2, :m][rng.random(m) < 0.3] = np.inf       # missing values (sorted last, as NaN)
    for f in range(d):
        keys = np.full(2 * max(m, 1), -7.0)
        ids = np.full(2 * max(m, 1), -7, np.int64)
        _sort_block_row(blk, f, m, keys, ids)
        ref = np.argsort(blk[f, :m], kind="stable")
        np.testing.assert_array_equal(ids[:m], ref)
        want = blk[f, ref].copy()
        want[np.isinf(want)] = np.nan
        np.testing.assert_array_equal(keys[:m], want)
