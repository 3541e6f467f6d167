"""sort_pairs orders (key, position) pairs as a stable sort of the keys."""
import numpy as np
import pytest

from treelab._engine.sorting import STACK_SIZE, positions, sort_pairs
from treelab._engine.jit import njit


@njit
def _stable_order(src):
    m = src.shape[0]
    keys = np.empty(m)
    ids = np.empty(m, np.int64)
    positions(keys, ids, src, m)
    sort_pairs(keys, ids, 0, m, np.zeros(STACK_SIZE, np.int64))
    return keys, ids


@pytest.mark.parametrize("m", [0, 1, 2, 3, 15, 16, 17, 40, 257, 5000])
@pytest.mark.parametrize("kind", ["continuous", "few_values", "sorted", "reversed", "inf"])
def test_sort_pairs_matches_numpy_stable_sort(m, kind):
    rng = np.random.default_rng(m)
    if kind == "continuous":
        x = rng.normal(size=m)
    elif kind == "few_values":
        x = rng.integers(0, 3, m).astype(float)
    elif kind == "sorted":
        x = np.sort(rng.integers(0, 50, m).astype(float))
    elif kind == "reversed":
        x = np.sort(rng.integers(0, 50, m).astype(float))[::-1].copy()
    else:
        x = np.where(rng.random(m) < 0.3, np.inf, rng.normal(size=m))
    keys, ids = _stable_order(x)
    want = np.argsort(x, kind="stable")
    np.testing.assert_array_equal(ids, want)
    np.testing.assert_array_equal(keys, x[want])


def test_sort_pairs_worst_case_input_falls_back_without_overflowing_its_stack():
    # organ-pipe keys defeat a median-of-three pivot; the depth limit turns to heapsort
    m = 20000
    x = np.concatenate([np.arange(m // 2), np.arange(m // 2)[::-1]]).astype(float)
    keys, ids = _stable_order(x)
    np.testing.assert_array_equal(ids, np.argsort(x, kind="stable"))
