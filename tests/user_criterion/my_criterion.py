"""User-defined split criteria, written the way a treelab user would write them.

This module lives OUTSIDE the treelab package and imports nothing from
treelab except the public :class:`treelab.split_criteria.Criterion` (and
:func:`treelab.split_criteria.compile_impurity`).  Its functions are plain
Python; treelab compiles them with its fixed signatures (cached on disk next
to this file), so the engine's cached builder kernel is reused as is.

Criteria
--------
HALF_GINI           0.5 * Gini index (Tsallis entropy with q = 2, halved):
                    a positive multiple of Gini, so it must grow the Gini tree.
TSALLIS3            Tsallis entropy with q = 3, (1 - sum p^3) / 2: a genuinely
                    new concave impurity.
HALF_ENTROPY        0.5 * Shannon entropy (bits), impurity decrease: ID3's tree.
HALF_ENTROPY_RATIO  0.5 * Shannon entropy with the gain-ratio merit: C4.5's tree.
GINI_GAIN_CUSTOM    merit_kind="custom" with merit(parent, children) = plain
                    Gini gain, so it must grow the Gini tree.
BALANCED_GINI_GAIN  merit_kind="custom": Gini gain times a balance factor
                    (1 - largest child share) that penalises lopsided splits.
DOUBLE_VARIANCE     regression: 2 * variance (a crude proxy of the mean
                    absolute deviation); a positive multiple of the variance,
                    so it must grow the squared-error tree.
JIT_GINI            Gini written with numba's ``@njit`` decorator, the other
                    way a user may hand over a function.
"""
import math

from numba import njit

from treelab.split_criteria import Criterion, compile_impurity


# --------------------------------------------------------------- impurities
def gini_impurity(counts):
    """Gini index 1 - sum p_k^2 from weighted class counts (0 for an empty node)."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p
    return 1.0 - s


def half_gini(counts):
    """Tsallis entropy with q = 2 is the Gini index; this is half of it."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p
    return 0.5 * (1.0 - s)


def tsallis3(counts):
    """Tsallis entropy with q = 3: (1 - sum p^3) / (q - 1)."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / total
        s += p * p * p
    return (1.0 - s) / 2.0


def half_entropy(counts):
    """Half the Shannon entropy in bits."""
    total = 0.0
    for c in counts:
        total += c
    if total <= 0.0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0.0:
            p = c / total
            h -= p * math.log2(p)
    return 0.5 * h


def double_variance(stats):
    """Regression statistics [w, sum w y, sum w y^2] -> 2 * weighted variance."""
    w = stats[0]
    if w <= 0.0:
        return 0.0
    m = stats[1] / w
    v = stats[2] / w - m * m
    return 2.0 * v if v > 0.0 else 0.0


# ------------------------------------------------------------- custom merits
# A merit is compiled by numba as a whole, so it cannot call the plain Python
# functions above: the loops are written out inline.
def gini_gain(parent, children):
    """Plain Gini gain: gini(parent) - sum_c w_c / w * gini(child_c).

    Written with the same operations, in the same order, as treelab's
    impurity-decrease merit, so it must choose exactly the same splits."""
    w = 0.0
    for v in parent:
        w += v
    if w <= 0.0:
        return 0.0
    sq = 0.0
    for v in parent:
        p = v / w
        sq += p * p
    parent_gini = 1.0 - sq
    s = 0.0
    for c in range(children.shape[0]):
        wc = 0.0
        for v in children[c]:
            wc += v
        if wc > 0.0:
            sq = 0.0
            for v in children[c]:
                q = v / wc
                sq += q * q
            s += wc / w * (1.0 - sq)
    return parent_gini - s


def balanced_gini_gain(parent, children):
    """Gini gain times (1 - largest child share): lopsided splits are worth less."""
    w = 0.0
    for v in parent:
        w += v
    if w <= 0.0:
        return 0.0
    sq = 0.0
    for v in parent:
        p = v / w
        sq += p * p
    parent_gini = 1.0 - sq
    s = 0.0
    largest = 0.0
    for c in range(children.shape[0]):
        wc = 0.0
        for v in children[c]:
            wc += v
        if wc > largest:
            largest = wc
        if wc > 0.0:
            sq = 0.0
            for v in children[c]:
                q = v / wc
                sq += q * q
            s += wc / w * (1.0 - sq)
    return (parent_gini - s) * (1.0 - largest / w)


# ------------------------------------------------------------------ criteria
HALF_GINI = Criterion("half_gini", half_gini, task="classification")
TSALLIS3 = Criterion("tsallis3", tsallis3, task="classification")
HALF_ENTROPY = Criterion("half_entropy", half_entropy, task="classification")
HALF_ENTROPY_RATIO = Criterion("half_entropy_ratio", compile_impurity(half_entropy),
                               task="classification", merit_kind="gain_ratio")
GINI_GAIN_CUSTOM = Criterion("gini_gain_custom", gini_impurity, task="classification",
                             merit_kind="custom", merit=gini_gain)
BALANCED_GINI_GAIN = Criterion("balanced_gini_gain", gini_impurity, task="classification",
                               merit_kind="custom", merit=balanced_gini_gain)
DOUBLE_VARIANCE = Criterion("double_variance", double_variance, task="regression")


@njit(cache=True)
def jit_gini(counts):
    """Gini index, already a numba dispatcher (decorated)."""
    total = counts.sum()
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        s += (c / total) ** 2
    return 1.0 - s


JIT_GINI = Criterion("jit_gini", jit_gini, task="classification")
