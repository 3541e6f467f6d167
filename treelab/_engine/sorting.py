"""In-place sorts of (key, position) pairs: a stable order without allocation.

A stable sort of keys orders equal keys by their position; sorting the pairs
``(key, position)`` lexicographically gives that order with any in-place
algorithm, so the node kernels sort in their workspace (introsort: quicksort
with a median-of-three pivot, insertion sort on short runs, heapsort below a
depth limit, as Musser's "Introspective sorting and selection algorithms",
1997) instead of calling ``np.argsort(kind="mergesort")``, which allocates on
every call and so ties a kernel to numba's reference counting.
"""
from __future__ import annotations

from .jit import njit

__all__ = ["sort_pairs", "positions", "STACK_SIZE"]

#: the scratch :func:`sort_pairs` needs (int64 entries)
STACK_SIZE = 3 * 64
_SHORT = 16


@njit(cache=True, nogil=True, inline="always")
def _less(keys, ids, a, b):
    """Pair ``a`` before pair ``b``: smaller key, or equal keys and smaller id."""
    ka = keys[a]
    kb = keys[b]
    return ka < kb or (ka == kb and ids[a] < ids[b])


@njit(cache=True, nogil=True, inline="always")
def _swap(keys, ids, a, b):
    t = keys[a]
    keys[a] = keys[b]
    keys[b] = t
    u = ids[a]
    ids[a] = ids[b]
    ids[b] = u


@njit(cache=True, nogil=True)
def _insertion(keys, ids, lo, hi):
    for p in range(lo + 1, hi):
        k = keys[p]
        i = ids[p]
        q = p - 1
        while q >= lo and (keys[q] > k or (keys[q] == k and ids[q] > i)):
            keys[q + 1] = keys[q]
            ids[q + 1] = ids[q]
            q -= 1
        keys[q + 1] = k
        ids[q + 1] = i


@njit(cache=True, nogil=True)
def _sift_down(keys, ids, lo, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and _less(keys, ids, lo + child, lo + child + 1):
            child += 1
        if not _less(keys, ids, lo + root, lo + child):
            return
        _swap(keys, ids, lo + root, lo + child)
        root = child


@njit(cache=True, nogil=True)
def _heapsort(keys, ids, lo, hi):
    n = hi - lo
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(keys, ids, lo, root, n)
    for end in range(n - 1, 0, -1):
        _swap(keys, ids, lo, lo + end)
        _sift_down(keys, ids, lo, 0, end)


@njit(cache=True, nogil=True)
def sort_pairs(keys, ids, lo, hi, stack):
    """Sort the pairs ``(keys[p], ids[p])`` for ``p`` in ``[lo, hi)`` in place,
    lexicographically (keys ascending, ties by id: with ``ids`` the pairs'
    original positions this is the order of a stable sort of the keys).  Keys
    must not be NaN (callers sort missing values as ``inf``).  ``stack``: an
    int64 scratch of :data:`STACK_SIZE` entries (the pending ranges: the
    larger side of each partition waits, so at most 64 of them)."""
    n = hi - lo
    if n < 2:
        return
    depth_limit = 2
    m = n
    while m > 1:
        m >>= 1
        depth_limit += 2
    top = 0
    stack[0] = lo
    stack[1] = hi
    stack[2] = depth_limit
    top = 3
    while top > 0:
        top -= 3
        a = stack[top]
        b = stack[top + 1]
        depth = stack[top + 2]
        while b - a > _SHORT:
            if depth == 0:
                _heapsort(keys, ids, a, b)
                a = b
                break
            depth -= 1
            # median of three to keys[a]: the pivot
            mid = a + (b - a) // 2
            last = b - 1
            if _less(keys, ids, mid, a):
                _swap(keys, ids, mid, a)
            if _less(keys, ids, last, a):
                _swap(keys, ids, last, a)
            if _less(keys, ids, last, mid):
                _swap(keys, ids, last, mid)
            _swap(keys, ids, a, mid)
            pk = keys[a]
            pi = ids[a]
            # Hoare partition around the pivot pair (pairs are distinct)
            i = a
            j = b
            while True:
                i += 1
                while i < b and (keys[i] < pk or (keys[i] == pk and ids[i] < pi)):
                    i += 1
                j -= 1
                while keys[j] > pk or (keys[j] == pk and ids[j] > pi):
                    j -= 1
                if i >= j:
                    break
                _swap(keys, ids, i, j)
            _swap(keys, ids, a, j)
            # the larger side pushed, the smaller one sorted next (stack depth O(log n))
            if j - a < b - j - 1:
                stack[top] = j + 1
                stack[top + 1] = b
                stack[top + 2] = depth
                top += 3
                b = j
            else:
                stack[top] = a
                stack[top + 1] = j
                stack[top + 2] = depth
                top += 3
                a = j + 1
        if b - a > 1:
            _insertion(keys, ids, a, b)


@njit(cache=True, nogil=True, inline="always")
def positions(keys, ids, src, m):
    """``keys[:m]`` = ``src[:m]``, ``ids[:m]`` = ``0 .. m-1``: the pairs that
    :func:`sort_pairs` orders as a stable sort of ``src``."""
    for p in range(m):
        keys[p] = src[p]
        ids[p] = p



