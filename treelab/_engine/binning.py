"""Binning of feature values: quantile bins for batch data, category codes for
nominal attributes, and one bin for missing values.

A numeric feature with edges ``e_0 < ... < e_{m-1}`` has ``m + 1`` value bins;
``bin(x)`` is the number of edges strictly below ``x``, so
``x <= e_b  <=>  bin(x) <= b`` and a histogram split "bins 0..b go left" is the
threshold split ``x <= e_b`` on raw values: one traversal serves both splitters.
Missing values go to bin ``missing_bin`` (the last one of the histogram).
Streaming equal-width bins live in the streaming engine.
"""
from __future__ import annotations

import os
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import prange

from .jit import njit

__all__ = ["dummy_binned_data", "quantile_bin_edges", "bin_matrix", "MAX_BINS", "BinnedData", "bin_data",
           "with_column_codes", "presort", "sorted_non_missing",
           "rank_columns", "feature_bin_values", "bin_means",
           "sparse_codes", "no_sparse_codes", "exact_bins"]

#: largest number of value bins a feature may have (one uint8 code is kept for missing)
MAX_BINS = 255


#: rows above which quantile edges are computed on a subsample (:func:`quantile_bin_edges`)
BIN_SUBSAMPLE = 200_000


def midpoint_edges(lo, hi):
    """Edges between consecutive distinct values ``lo[j] < hi[j]``: their midpoints,
    or ``lo[j]`` where the midpoint rounds up to ``hi[j]`` (so that ``x <= edge``
    still separates the two values)."""
    edges = lo / 2.0 + hi / 2.0
    bad = edges >= hi
    edges[bad] = lo[bad]
    return edges


#: the sign bit of a float64's bits (:func:`sorted_non_missing`)
_SIGN = np.uint64(1) << np.uint64(63)


@njit(cache=True, nogil=True)
def sorted_non_missing(col):
    """``(values, n_distinct)``: the non-NaN values of ``col`` in increasing order
    (the values of ``np.sort(col[~np.isnan(col)])``) and how many distinct
    values they hold (``-0.0 == 0.0``).  ``col`` may be a strided view (a column
    of a row-major matrix: read once, no transposed copy).

    A least-significant-digit radix sort (eight passes of one byte) of the
    order-preserving integer image of each value's bits (sign bit flipped for a
    positive value, every bit for a negative one); a pass is skipped when every
    value has the same byte there (integer-valued pixels: the low bytes).
    Linear time: 160,000 values in ~2 ms here against ~7.5 ms for NumPy's
    sort, the bulk of binning a boosted model's data (``-0.0`` lands before
    ``0.0``, which NumPy leaves in either order: the same values)."""
    n = col.shape[0]
    keys = np.empty(n, np.uint64)
    one = np.empty(1, np.float64)        # (a float's bits: through a one-value view)
    one_bits = one.view(np.uint64)
    m = 0
    for i in range(n):
        v = col[i]
        if v == v:
            one[0] = v
            b = one_bits[0]
            keys[m] = ~b if b & _SIGN else b | _SIGN
            m += 1
    if m == 0:
        return np.empty(0, np.float64), 0
    cnt = np.zeros((8, 256), np.int64)
    for i in range(m):
        k = keys[i]
        for p in range(8):
            cnt[p, (k >> np.uint64(8 * p)) & np.uint64(255)] += 1
    src = keys
    dst = np.empty(m, np.uint64)
    pos = np.empty(256, np.int64)
    for p in range(8):
        if cnt[p, (keys[0] >> np.uint64(8 * p)) & np.uint64(255)] == m:
            continue                    # one byte value for all: the order stands
        acc = 0
        for b in range(256):
            pos[b] = acc
            acc += cnt[p, b]
        sh = np.uint64(8 * p)
        for i in range(m):
            k = src[i]
            b = (k >> sh) & np.uint64(255)
            dst[pos[b]] = k
            pos[b] += 1
        src, dst = dst, src
    out = np.empty(m, np.float64)
    ob = out.view(np.uint64)
    n_distinct = 0
    for i in range(m):
        k = src[i]
        ob[i] = k & ~_SIGN if k & _SIGN else ~k
        if i == 0 or out[i] != out[i - 1]:
            n_distinct += 1
    return out, n_distinct


def _feature_edges(col, max_bins, with_values=False):
    """Edges of one numeric column (sorted by :func:`sorted_non_missing`); with
    ``with_values`` also the mean of the column's values in each of its
    ``edges.shape[0] + 1`` bins (:func:`bin_means`)."""
    vals, n_distinct = sorted_non_missing(col)
    n = vals.shape[0]
    if n == 0:
        e = np.empty(0, np.float64)
        return (e, np.zeros(1)) if with_values else e
    if n_distinct > max_bins:
        return _quantile_edges(vals, max_bins, with_values)
    # one bin a value, edges at the midpoints: the bin's value is that value
    uniq = vals[np.concatenate(([True], vals[1:] != vals[:-1]))]
    edges = midpoint_edges(uniq[:-1], uniq[1:])
    return (edges, uniq.astype(np.float64)) if with_values else edges


def _quantile_edges(vals, max_bins, with_values):
    """Edges of the sorted values ``vals`` of more than ``max_bins`` distinct values."""
    n = vals.shape[0]
    # quantiles at k / max_bins with "midpoint" interpolation, then de-duplicated
    pos = np.arange(1, max_bins) * (n - 1) / max_bins
    raw = vals[np.floor(pos).astype(np.int64)] / 2.0 + vals[np.ceil(pos).astype(np.int64)] / 2.0
    raw = raw[raw < vals[-1]]          # an edge at the maximum would leave a bin empty
    edges = np.unique(raw)
    return (edges, bin_means(vals, edges)) if with_values else edges


def bin_means(sorted_vals, edges):
    """The mean of the (sorted, non-missing) values in each of the ``m + 1`` bins
    of ``edges`` (bin ``b`` holds ``e_{b-1} < x <= e_b``): the representative
    value of a bin, on which extremely randomized trees draw their cut-points
    (:func:`~.splitter.draw_cut_bin`).  Strictly increasing; an empty bin (none
    on quantile edges) gets the midpoint of its edges."""
    m = edges.shape[0]
    bounds = np.empty(m + 2, np.int64)
    bounds[0] = 0
    bounds[1:m + 1] = np.searchsorted(sorted_vals, edges, side="right")
    bounds[m + 1] = sorted_vals.shape[0]
    cnt = np.diff(bounds)
    csum = np.concatenate(([0.0], np.cumsum(sorted_vals - sorted_vals[0])))
    out = (csum[bounds[1:]] - csum[bounds[:-1]]) / np.maximum(cnt, 1) + sorted_vals[0]
    empty = cnt == 0
    if empty.any():
        ext = np.concatenate(([sorted_vals[0]], edges, [sorted_vals[-1]]))
        mid = ext[:-1] / 2.0 + ext[1:] / 2.0
        out[empty] = mid[empty]
    # the mean of a bin lies within its edges (rounding aside): keep it strictly
    # inside, so that the draw's order of bins is the order of their values
    lo = np.concatenate(([-np.inf], edges))
    hi = np.concatenate((edges, [np.inf]))
    out = np.minimum(np.maximum(out, np.nextafter(lo, np.inf)), hi)
    return out


def quantile_bin_edges(X, is_nominal, max_bins=MAX_BINS, subsample=BIN_SUBSAMPLE,
                       random_state=None, with_values=False):
    """Bin edges of every numeric feature, flattened: ``edges[offsets[f]:offsets[f+1]]``.

    With at most ``max_bins`` distinct values a feature gets one bin per value
    (edges at midpoints, as exact splitting); otherwise edges sit at the
    ``k / max_bins`` quantiles of (a subsample of at most ``subsample`` rows of) the
    data.  Nominal features get no edges: their category codes are their bins.

    ``with_values``: also return the bins' values (:func:`bin_means`; a
    feature's ``m + 1`` values at ``values[offsets[f] + f:offsets[f + 1] + f + 1]``,
    one placeholder 0 for a nominal feature): ``(edges, offsets, values)``.
    """
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}")
    X = np.asarray(X, dtype=np.float64)
    if subsample is not None and X.shape[0] > subsample:
        rng = np.random.default_rng(random_state)
        rows = np.sort(rng.choice(X.shape[0], size=subsample, replace=False))
        X = X[rows]
    return _edges_of_features(X, is_nominal, max_bins, with_values)


def _edges_of_features(X, is_nominal, max_bins, with_values):
    """:func:`quantile_bin_edges` on all rows of ``X``, ``max_bins`` not checked."""
    d = X.shape[1]

    def one(f):
        if is_nominal[f]:
            return (np.empty(0), np.zeros(1)) if with_values else np.empty(0)
        return _feature_edges(X[:, f], max_bins, with_values)

    if X.shape[0] * d >= 1_000_000 and (os.cpu_count() or 1) > 1:
        # the radix sort releases the GIL (nogil): features are binned on threads
        with ThreadPoolExecutor(max_workers=min(d, os.cpu_count())) as pool:
            per = list(pool.map(one, range(d)))
    else:
        per = [one(f) for f in range(d)]
    if with_values:
        values = np.ascontiguousarray(np.concatenate([v for _, v in per]) if d else np.empty(0),
                                      dtype=np.float64)
        per = [e for e, _ in per]
    offsets = np.zeros(d + 1, np.int64)
    offsets[1:] = np.cumsum([e.shape[0] for e in per])
    edges = np.ascontiguousarray(np.concatenate(per) if d else np.empty(0), dtype=np.float64)
    if with_values:
        return edges, offsets, values
    return edges, offsets


@njit(cache=True, inline="always", nogil=True)
def feature_bin_values(bin_values, edge_offsets, f):
    """Feature ``f``'s slice of ``BinnedData.bin_values`` (its ``m + 1`` bins'
    values), or the empty array when there are none."""
    if bin_values.shape[0] == 0:
        return bin_values
    return bin_values[edge_offsets[f] + f:edge_offsets[f + 1] + f + 1]


@njit(cache=True, inline="always", nogil=True)
def edges_below(edges, lo, hi, x):
    """The number of edges ``edges[lo:hi]`` (sorted) strictly below ``x``: the
    bin code of ``x`` (``x <= e_b  <=>  code(x) <= b``), and for a threshold that
    is an edge, the last code going left."""
    a = lo
    b = hi
    while a < b:
        mid = (a + b) >> 1
        if edges[mid] < x:
            a = mid + 1
        else:
            b = mid
    return a - lo


#: buckets of a feature's lookup table per edge (:func:`_bucket_tables`)
BUCKETS_PER_EDGE = 4


@njit(cache=True, inline="always", nogil=True)
def _bucket(x, lo, scale, T):
    """Bucket of value ``x`` in a table of ``T`` buckets starting at ``lo``:
    ``floor((x - lo) * scale)`` clamped to ``[0, T - 1]`` (non-decreasing in
    ``x``; NaN and negative to bucket 0)."""
    u = (x - lo) * scale
    if u >= T - 1:
        return T - 1
    if u >= 0.0:
        return int(u)
    return 0


@njit(cache=True, nogil=True)
def _bucket_tables(edges, offsets, is_nominal):
    """Per numeric feature with ``m`` edges, ``T = BUCKETS_PER_EDGE x m`` buckets
    over ``[edges[0], edges[-1]]``: ``start[toff[f] + b]`` = the number of the
    feature's edges whose bucket is below ``b``.  Those edges are all below
    any value ``x`` of bucket ``b`` (the bucket is non-decreasing in the value,
    so an edge ``e >= x`` has a bucket ``>= b``), and they are a prefix of the
    sorted edges: the code of ``x`` (edges below it) is ``start[b]`` plus a
    short forward scan -- the binary search's count, exactly.  Returns
    ``(start, toff, lo, scale)``."""
    d = offsets.shape[0] - 1
    toff = np.zeros(d + 1, np.int64)
    lo = np.zeros(d)
    scale = np.zeros(d)
    for f in range(d):
        m = offsets[f + 1] - offsets[f]
        toff[f + 1] = toff[f] + (0 if is_nominal[f] or m == 0 else BUCKETS_PER_EDGE * m)
    start = np.zeros(toff[d], np.int32)
    for f in range(d):
        T = toff[f + 1] - toff[f]
        if T == 0:
            continue
        e0 = offsets[f]
        m = offsets[f + 1] - e0
        lo[f] = edges[e0]
        span = edges[e0 + m - 1] - edges[e0]
        sc = (T - 1) / span if span > 0.0 else 0.0
        if not (sc < np.inf):
            sc = 0.0                    # (a span too small or too large: one bucket)
        scale[f] = sc
        tab = start[toff[f]:toff[f + 1]]
        for k in range(m):
            b = _bucket(edges[e0 + k], lo[f], sc, T)
            if b + 1 < T:
                tab[b + 1] += 1
        for b in range(1, T):
            tab[b] += tab[b - 1]
    return start, toff, lo, scale


@njit(cache=True, inline="always", nogil=True)
def _bin_row(X, i, edges, offsets, is_nominal, missing_bin, out, start, toff, lo, scale):
    for f in range(X.shape[1]):
        x = X[i, f]
        if np.isnan(x):
            out[i, f] = missing_bin
        elif is_nominal[f]:
            out[i, f] = int(x)
        else:
            e0 = offsets[f]
            m = offsets[f + 1] - e0
            k = 0
            T = toff[f + 1] - toff[f]
            if T > 0:
                k = start[toff[f] + _bucket(x, lo[f], scale[f], T)]
            while k < m and edges[e0 + k] < x:
                k += 1
            out[i, f] = k


@njit(cache=True, parallel=True, nogil=True)
def _bin_matrix_parallel(X, edges, offsets, is_nominal, missing_bin):
    n, d = X.shape
    out = np.empty((n, d), np.uint8)
    start, toff, lo, scale = _bucket_tables(edges, offsets, is_nominal)
    for i in prange(n):
        _bin_row(X, i, edges, offsets, is_nominal, missing_bin, out, start, toff, lo, scale)
    return out


@njit(cache=True, nogil=True)
def _bin_matrix_serial(X, edges, offsets, is_nominal, missing_bin):
    n, d = X.shape
    out = np.empty((n, d), np.uint8)
    start, toff, lo, scale = _bucket_tables(edges, offsets, is_nominal)
    for i in range(n):
        _bin_row(X, i, edges, offsets, is_nominal, missing_bin, out, start, toff, lo, scale)
    return out


#: fewer cells than this are binned without threads (thread start-up costs more)
PARALLEL_MIN_CELLS = 1_000_000


def bin_matrix(X, edges, offsets, is_nominal, missing_bin):
    """Bin codes (uint8, rows x features) for ``X``: a numeric value's code is the
    number of its feature's edges below it (a bucket table and a short scan,
    :func:`_bucket_tables`: the count a binary search gives, without its
    mispredicted branches -- 160,000 x 20 values in ~70 ms before), nominal
    codes as they are, NaN as ``missing_bin``."""
    kern = _bin_matrix_parallel if X.size >= PARALLEL_MIN_CELLS else _bin_matrix_serial
    return kern(X, edges, offsets, is_nominal, missing_bin)


def _for_each_feature(one, n, d):
    """``one(f)`` for every feature ``f`` of an ``n x d`` matrix: on one thread per
    core when there are at least a million values (NumPy's sorts and searches
    release the GIL), else in a loop."""
    if n * d >= 1_000_000 and (os.cpu_count() or 1) > 1:
        with ThreadPoolExecutor(max_workers=min(d, os.cpu_count())) as pool:
            list(pool.map(one, range(d)))
    else:
        for f in range(d):
            one(f)


def presort(X, is_nominal):
    """Per numeric feature, the row indices sorted by value (NaN last) and the
    sorted values themselves (both ``(n_features, n_samples)``), so that split
    sweeps read contiguous memory.  Nominal rows are left in input order."""
    XT = np.ascontiguousarray(X.T)
    n, d = X.shape
    order = np.empty((d, n), np.int64)
    vals = np.empty((d, n), np.float64)

    def one(f):
        if is_nominal[f]:
            order[f] = np.arange(n)
        else:
            order[f] = np.argsort(XT[f])        # NumPy's SIMD sort; NaN sorts last
        vals[f] = XT[f][order[f]]

    _for_each_feature(one, n, d)
    return order, vals


def rank_columns(X, is_nominal, max_distinct=None):
    """The value ranks of the exact splitter's sample layout
    (``builder.LAYOUT_SAMPLES``): ``ranks[f, i]`` = the index of ``X[i, f]``
    among the distinct values of numeric feature ``f`` (-1: missing),
    column-major ``(n_features, n_samples)``; ``uniq[offsets[f]:offsets[f + 1]]``
    = those distinct values, ascending.  A node then sorts a feature by a stable
    counting sort of its ranks (the same order as a stable sort of the values)
    when their range is small next to the node, e.g. MNIST's 8-bit pixels.
    (-0.0 and 0.0 share a rank, as they compare equal in any sort.)

    Only features with at most ``max_distinct`` (default ``max(512, n // 8)``)
    distinct values are ranked
    (a feature with more would meet a small enough range only at the top nodes);
    the others, nominal and all-missing features have no values in ``uniq`` (and
    ranks -1) and are sorted by value.  When no feature is ranked, ``ranks`` is
    ``(d, 0)``: no memory spent."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    XT = np.ascontiguousarray(X.T)
    limit = max(512, n // 8) if max_distinct is None else int(max_distinct)
    parts = [np.zeros(0)] * d

    def distinct(f):
        if is_nominal[f]:
            return
        s, n_distinct = sorted_non_missing(XT[f])
        if s.shape[0] == 0 or n_distinct > limit:
            return
        keep = np.empty(s.shape[0], np.bool_)
        keep[0] = True
        np.not_equal(s[1:], s[:-1], out=keep[1:])
        parts[f] = s[keep]

    _for_each_feature(distinct, n, d)
    offsets = np.zeros(d + 1, np.int64)
    offsets[1:] = np.cumsum([p.shape[0] for p in parts])
    uniq = np.concatenate(parts) if d else np.zeros(0)
    if offsets[-1] == 0:
        return np.zeros((d, 0), np.int64), np.zeros(0), offsets
    ranks = np.full((d, n), -1, np.int64)

    def rank(f):
        if parts[f].shape[0]:
            col = XT[f]
            r = np.searchsorted(parts[f], col)
            r[np.isnan(col)] = -1
            ranks[f] = r

    _for_each_feature(rank, n, d)
    return ranks, np.ascontiguousarray(uniq, dtype=np.float64), offsets


#: a binned data set keeps a sparse copy of its codes (:func:`sparse_codes`) when
#: at least this fraction of its codes are their feature's most frequent code
#: (MNIST's pixels: 81 %); LightGBM's ``sparse_threshold`` is 0.8
SPARSE_MIN_DEFAULT_FRACTION = 0.7

#: ... and it has at least this many features (a few features: the dense loop
#: over a row's codes is as short as the sparse one)
SPARSE_MIN_FEATURES = 32


@njit(cache=True, nogil=True)
def _code_counts(Xb):
    n, d = Xb.shape
    counts = np.zeros((d, 256), np.int64)
    for i in range(n):
        for f in range(d):
            counts[f, Xb[i, f]] += 1
    return counts


@njit(cache=True, nogil=True)
def _sparse_rows(Xb, dflt, n_bins, nnz):
    n, d = Xb.shape
    ptr = np.empty(n + 1, np.int64)
    fbin = np.empty(nnz, np.int32)
    k = 0
    ptr[0] = 0
    for i in range(n):
        for f in range(d):
            c = Xb[i, f]
            if c != dflt[f]:
                fbin[k] = f * n_bins + c
                k += 1
        ptr[i + 1] = k
    return ptr, fbin


def no_sparse_codes():
    """The :func:`sparse_codes` of a data set kept dense only."""
    return (np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint8))


def sparse_codes(Xb, n_bins, min_default_fraction=None, min_features=None):
    """The bin codes ``Xb`` (``n x d``) as rows of their non-default codes, or
    :func:`no_sparse_codes` when too few are the default: ``(ptr, fbin, dflt)``
    with ``dflt[f]`` feature ``f``'s most frequent code (the lowest on ties) and
    row ``i``'s other codes at ``fbin[ptr[i]:ptr[i + 1]]``, in increasing feature
    order, each as the flat histogram bin ``f * n_bins + code``.  A histogram
    accumulates only these and derives each default bin from the node's totals
    (:func:`~.histogram.hist_build`; LightGBM's "most frequent bin" of sparse
    features).  The thresholds default to :data:`SPARSE_MIN_DEFAULT_FRACTION`
    and :data:`SPARSE_MIN_FEATURES`."""
    if min_default_fraction is None:
        min_default_fraction = SPARSE_MIN_DEFAULT_FRACTION
    if min_features is None:
        min_features = SPARSE_MIN_FEATURES
    n, d = Xb.shape
    if n == 0 or d < min_features or d * n_bins >= 2 ** 31:
        return no_sparse_codes()
    counts = _code_counts(Xb)
    dflt = np.argmax(counts, axis=1).astype(np.uint8)
    n_dflt = int(counts.max(axis=1).sum())
    if n_dflt < min_default_fraction * n * d:
        return no_sparse_codes()
    ptr, fbin = _sparse_rows(Xb, dflt, int(n_bins), n * d - n_dflt)
    return ptr, fbin, dflt


#: A data set prepared once for the batch builders and reused by every tree of an
#: ensemble (each tree passes its own targets and rows).  ``use_hist``: bin codes
#: ``Xb`` with ``n_bins`` histogram bins, ``missing_bin`` the last; otherwise the
#: per-feature sort ``order`` / ``vals`` of the exact splitter (the builder works
#: on a copy) -- or, for the sample layout (``builder.LAYOUT_SAMPLES``), the value
#: ranks of :func:`rank_columns` in ``order`` (``(d, n)``; ``vals`` empty) and the
#: distinct values in ``edges`` / ``edge_offsets``, or nothing (``order`` of width
#: 0: the layout sorts raw values).  ``X`` keeps the raw values (float64, NaN =
#: missing, category codes).  ``bin_values``: with bins, the mean value of each
#: bin (:func:`bin_means`; feature ``f``'s at ``edge_offsets[f] + f`` on), on which
#: random cut-points are drawn uniformly in value (:func:`~.splitter.draw_cut_bin`);
#: empty: they are drawn uniformly among the bin boundaries.  ``sp_ptr`` /
#: ``sp_bin`` / ``sp_dflt``: the codes' sparse rows (:func:`sparse_codes`; an empty
#: ``sp_dflt``: none), which histograms of large nodes accumulate instead of ``Xb``.
#: ``Xt``: the codes column by column (``(d, n)``, :func:`with_column_codes`; empty:
#: none), from which a node whose rows are in the data's order (a root) gets its
#: histogram (:func:`~.histogram.hist_build`).  ``Xt_cnt``: with ``Xt``, the number of
#: rows in each bin of each feature (``(d, n_bins)``; empty: none): the counts of
#: every root histogram on all rows (:func:`~.histogram.root_hist_counted`).
BinnedData = namedtuple("BinnedData", [
    "X", "Xb", "order", "vals", "is_nominal", "n_cats", "edges", "edge_offsets",
    "use_hist", "missing_bin", "n_bins", "bin_values", "sp_ptr", "sp_bin", "sp_dflt", "Xt",
    "Xt_cnt",
], defaults=(np.zeros(0),) + no_sparse_codes() + (np.zeros((0, 0), np.uint8),
                                                   np.zeros((0, 0), np.int64)))


def with_column_codes(data):
    """``data`` with its bin codes also stored column by column (``Xt``) and the
    rows of each bin counted (``Xt_cnt``), for the root histograms of learners
    that grow many trees on all rows (boosting); unchanged without bins or when
    the histograms use sparse rows (their large nodes read those instead)."""
    if not data.use_hist or data.sp_dflt.shape[0] > 0 or data.Xt.shape[0] > 0:
        return data
    # (every code is below n_bins: the missing bin is the last)
    counts = np.ascontiguousarray(_code_counts(data.Xb)[:, :data.n_bins])
    return data._replace(Xt=np.ascontiguousarray(data.Xb.T), Xt_cnt=counts)


def bin_data(X, is_nominal, n_cats, use_hist, max_bins=MAX_BINS, random_state=None,
             with_values=False, subsample=BIN_SUBSAMPLE):
    """Prepare ``X`` (float64, C-contiguous, encoded) for the batch builders:
    quantile bins (``use_hist``; edges from at most ``subsample`` rows, None: all)
    or a presort (exact splitter).  ``with_values`` (bins only): also the bins'
    mean values, which only random cut-points read.  See :data:`BinnedData`."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    is_nominal = np.ascontiguousarray(is_nominal, dtype=np.bool_)
    n_cats = np.ascontiguousarray(n_cats, dtype=np.int64)
    if use_hist:
        binned = quantile_bin_edges(X, is_nominal, max_bins, subsample=subsample,
                                    random_state=random_state, with_values=with_values)
        edges, offsets = binned[0], binned[1]
        bvals = binned[2] if with_values else np.zeros(0)
        n_value_bins = int(np.max(np.diff(offsets))) + 1 if d else 1
        B = max(n_value_bins, int(n_cats.max()) if d else 0) + 1
        if B > 256:
            raise ValueError(
                f"splitter='hist' handles nominal attributes with at most {MAX_BINS} "
                f"categories (got {int(n_cats.max())}); use splitter='best'")
        Xb = bin_matrix(X, edges, offsets, is_nominal, B - 1)
        order = np.zeros((d, 0), np.int64)
        vals = np.zeros((d, 0), np.float64)
    else:
        edges, offsets = np.zeros(0), np.zeros(d + 1, np.int64)
        bvals = np.zeros(0)
        B = 1
        Xb = np.zeros((0, d), np.uint8)
        order, vals = presort(X, is_nominal)
    sp = sparse_codes(Xb, B) if use_hist else no_sparse_codes()
    return BinnedData(X, Xb, order, vals, is_nominal, n_cats,
                      np.ascontiguousarray(edges, dtype=np.float64),
                      np.ascontiguousarray(offsets, dtype=np.int64),
                      bool(use_hist), int(B - 1), int(B),
                      np.ascontiguousarray(bvals, dtype=np.float64), *sp)


@njit(cache=True, nogil=True)
def _codes_are_values(X, Xb, bin_values, offsets, min_gap):
    """Whether every value of ``X`` is its bin's value (``bin_values``, the layout of
    :func:`feature_bin_values`) and each feature's bin values increase by more
    than ``min_gap`` from one to the next."""
    n, d = X.shape
    for f in range(d):
        base = offsets[f] + f
        for b in range(base + 1, offsets[f + 1] + f + 1):
            if not bin_values[b] > bin_values[b - 1] + min_gap:
                return False
    for i in range(n):
        for f in range(d):
            if X[i, f] != bin_values[offsets[f] + f + Xb[i, f]]:
                return False
    return True


def exact_bins(X, min_gap, max_bins=MAX_BINS + 1):
    """``X`` (float64, numeric features) as bins that lose nothing, or None: every
    feature has at most ``max_bins`` distinct values (counted on all rows; 256 by
    default: with no missing value every uint8 code can be a value), no
    missing value, and consecutive values more than ``min_gap`` apart (the exact
    splitter's tolerance: it separates every such pair).  Each bin is then one
    distinct value, held exactly in ``bin_values``, and a split of the codes is
    a split of the values: the column builder grows the exact splitter's trees
    on them (:func:`~.column_builder.grow_codes`, ``exact_cut``).  Data with more
    values are refused after a look at their first rows."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    if n == 0 or d == 0:
        return None
    head = np.sort(X[:4 * max_bins], axis=0)
    if np.isnan(head[-1]).any() or np.any((head[1:] != head[:-1]).sum(axis=0) >= max_bins):
        return None
    if np.isnan(X).any():
        return None
    nominal = np.zeros(d, np.bool_)
    edges, offsets, values = _edges_of_features(X, nominal, max_bins, True)
    # without missing values the missing code is never written: up to 256 value
    # bins (codes 0..255), the missing code 256 then matching no uint8 code
    B = int(np.max(np.diff(offsets))) + 2
    Xb = bin_matrix(X, edges, offsets, nominal, B - 1)
    if not _codes_are_values(X, Xb, values, offsets, float(min_gap)):
        return None
    return BinnedData(X, Xb, np.zeros((d, 0), np.int64), np.zeros((d, 0), np.float64),
                      nominal, np.zeros(d, np.int64), edges, offsets, True, B - 1, B, values,
                      *no_sparse_codes())


def dummy_binned_data():
    """A one-row, one-feature :data:`BinnedData` (its numba type types the drivers' signatures)."""
    d = 1
    return BinnedData(np.zeros((1, d)), np.zeros((1, d), np.uint8), np.zeros((d, 1), np.int64),
                      np.zeros((d, 1)), np.zeros(d, np.bool_), np.zeros(d, np.int64),
                      np.zeros(1), np.zeros(d + 1, np.int64), False, 0, 1)
