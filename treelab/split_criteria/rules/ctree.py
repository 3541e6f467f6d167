"""C-Tree confidence radii: De Rosa & Cesa-Bianchi, "Splitting with Confidence
in Decision Trees with Application to Stream Mining" (IJCNN 2015).

The paper (binary classification, binary splits ``F``, Sec. III) bounds, for
``m`` examples at a leaf, the deviation of the plug-in estimate of the
conditional index ``Phi(Y | F)`` from its true value, on its own scales
(Sec. III-IV):

* scaled binary entropy ``H_1/2(p) = -(p/2) ln p - ((1-p)/2) ln(1-p)`` (nats / 2),
  Theorem 1, eq. (4): ``eps_ent(m, delta) = ln(m) sqrt((2/m) ln(4/delta)) + 2/m``;
* Gini ``J(p) = 2 p (1 - p)``, Theorem 2, eq. (5):
  ``eps_Gini(m, delta) = sqrt((8/m) ln(2/delta)) + 4 sqrt(1/m)``;
* Kearns-Mansour ``Q(p) = sqrt(p (1 - p))``, Theorem 3, eq. (6):
  ``eps_KM(m, delta) = 4 sqrt((1/m) ln(8/delta))``.

Theorem 4, eq. (7): running Algorithm 1 with ``eps_t = eps(m, delta')``,
``delta' = delta / ((h+1)(h+2) t d m)`` (``h`` depth of the leaf, ``t`` stream
time, ``d`` attributes) bounds by ``delta`` the probability that a random
example is routed through a tau-suboptimal split; Remark 1 takes
``delta = 1/t``.  Eq. (8), the radius of the paper's experiments for Gini and
Kearns-Mansour, folds every constant into ``c``:
``eps~ = c sqrt(ln(m^2 h^2 t d) / m)``; "the bound for eps_ent contains an extra
ln m factor", so entropy gets ``eps~_ent = c ln(m) sqrt(ln(m^2 h^2 t d) / m)``
here (:func:`ctree_practical_entropy_radius`).

Algorithm 1 splits leaf ``l`` when ``Phi(F_hat) <= Phi(F_2) - 2 eps`` or
``eps <= tau``, ``F_2`` the best split other than ``F_hat``.  With gains
``G = Phi(Y) - Phi(Y | F)`` (``Phi(Y)`` is common to all splits of a leaf)
this is ``G(F_hat) - G(F_2) >= 2 eps``: :class:`CTreeRule` defaults to
``two_eps=True``, ``strict=False``, ``runner_up="any_split"``, no tie-break.

Scales.  treelab's merits are gains of the textbook indices; for two classes,
with ``p`` the class-1 frequency (the same factor holds for the conditional
indices, which are weighted sums over the branches):

=================  ==============================  =============================
merit              treelab index                   = factor x the paper's index
=================  ==============================  =============================
entropy (bits)     ``-sum p log2 p``               ``(2 / ln 2) H_1/2``
gini               ``1 - sum p^2 = 2p(1-p)``       ``1 x J``
kearns_mansour     ``sum sqrt(p(1-p)) = 2 sqrt(p(1-p))``  ``2 x Q``
=================  ==============================  =============================

so a radius on the paper's scale is multiplied by that factor to apply to the
tree's merit (eqs. 4-6 and eq. 8 alike, so that ``c`` means what it means in
the paper).  On any other merit (gain ratio, classification error, a user
criterion, SGT's loss reduction) only the practical radius applies, on the
merit's own scale (``c`` absorbs it; no conversion): an extension beyond the
paper.

Classes.  The paper analyses binary classification only; its constants and the
scale factors above are for two classes.  With ``k > 2`` classes a rule on the
entropy, Gini or Kearns-Mansour merit raises ValueError (not silently reusing
binary constants); the practical radius on other merits, whose only constant
is ``c``, runs for any ``k``.

Branches (a documented extension).  The paper's splits are binary; treelab's
Hoeffding trees also make multiway splits on nominal features.  Following the
paper's proofs with ``v`` branches instead of 2 (``v = 2`` gives eqs. 4-6
exactly):

* entropy (Appendix A): the two McDiarmid terms do not depend on the alphabet
  sizes; the bias terms (Paninski, ``ln(1 + (N-1)/m) <= (N-1)/m``, halved by
  the scaling) become ``(v-1)/(2m)`` for ``F`` (``N = v``) and
  ``(2v-1)/(2m)`` for ``(Y, F)`` (``N = 2v``):
  ``eps_ent = ln(m) sqrt((2/m) ln(4/delta)) + (3v - 2)/(2m)``;
* Gini (Appendix B): changing one example still moves at most two of the
  ``v`` harmonic-mean terms, each by at most ``2/m``, so the deviation term is
  unchanged; the bias is ``2/sqrt(m)`` per term:
  ``eps_Gini = sqrt((8/m) ln(2/delta)) + 2 v sqrt(1/m)``;
* Kearns-Mansour (Appendix C): ``2v`` frequencies ``p_k, q_k`` under the union
  bound (Lemma 3 at ``delta / 2v`` each) and ``2 eps`` per term:
  ``eps_KM = 2 v sqrt((1/m) ln(4v/delta))``.

The best split and its runner-up may have different ``v``; the radius uses the
most branches of any candidate the leaf compared (``n_branches`` of the
context), which makes ``2 eps`` at least the sum of the two candidates' radii.
"""
from __future__ import annotations

import math

import numpy as np

from ..._engine.jit import njit
from ..._engine.signatures import RULE_SIG
from ..._engine.streaming import EV_N
from .base import (
    CTX_DEPTH, CTX_N_BRANCHES, CTX_N_CLASSES, CTX_N_FEATURES, CTX_T, P_RADIUS, RADIUS_SIG,
    DecisionRule, check_delta, context_of, decide_evidence, merit_info, resolve_own_merit,
)

__all__ = [
    "ctree_entropy_radius", "ctree_gini_radius", "ctree_km_radius", "ctree_delta_schedule",
    "ctree_practical_radius", "ctree_practical_entropy_radius", "ctree_radius_kernel",
    "ctree_rule", "CTreeRule", "PAPER_SCALE", "paper_scale",
]

#: indices of the paper (codes in the radius parameters); -1: a merit the paper
#: does not analyse (practical radius only, on the merit's own scale)
_OTHER, _ENT, _GINI, _KM = -1.0, 0.0, 1.0, 2.0
_INDEX = {"entropy": _ENT, "gini": _GINI, "kearns_mansour": _KM}

#: treelab merit = factor x the paper's index, two classes (module docstring)
PAPER_SCALE = {"entropy": 2.0 / math.log(2.0), "gini": 1.0, "kearns_mansour": 2.0}


def paper_scale(family):
    """Factor from the paper's index to treelab's merit of ``family`` (two classes):
    entropy in bits ``2 / ln 2`` (``H_bits = H_nats / ln 2 = 2 H_1/2 / ln 2``),
    Gini 1 (``1 - p^2 - (1-p)^2 = 2p(1-p) = J``), Kearns-Mansour 2
    (``2 sqrt(p(1-p)) = 2 Q``)."""
    return PAPER_SCALE[family]


# ---------------------------------------------------------------------------
# the radii on the paper's scales
# ---------------------------------------------------------------------------
@njit(cache=True)
def ctree_entropy_radius(delta, m, n_branches=2.0):
    """Eq. (4), Theorem 1: ``eps_ent(m, delta) = ln(m) sqrt((2/m) ln(4/delta)) + 2/m``.

    Scale: scaled entropy ``H_1/2`` (nats / 2).  ``n_branches = v > 2``: bias
    ``(3v - 2)/(2m)`` instead of ``2/m`` (module docstring).  ``m <= 0`` or
    ``delta <= 0``: ``inf``.
    """
    if m <= 0 or delta <= 0.0:
        return math.inf
    v = n_branches if n_branches >= 2.0 else 2.0
    return math.log(m) * math.sqrt((2.0 / m) * math.log(4.0 / delta)) + (3.0 * v - 2.0) / (2.0 * m)


@njit(cache=True)
def ctree_gini_radius(delta, m, n_branches=2.0):
    """Eq. (5), Theorem 2: ``eps_Gini(m, delta) = sqrt((8/m) ln(2/delta)) + 4 sqrt(1/m)``.

    Scale: Gini ``J = 2p(1-p)``.  ``n_branches = v > 2``: bias ``2 v sqrt(1/m)``
    (module docstring).  ``m <= 0`` or ``delta <= 0``: ``inf``.
    """
    if m <= 0 or delta <= 0.0:
        return math.inf
    v = n_branches if n_branches >= 2.0 else 2.0
    return math.sqrt((8.0 / m) * math.log(2.0 / delta)) + 2.0 * v * math.sqrt(1.0 / m)


@njit(cache=True)
def ctree_km_radius(delta, m, n_branches=2.0):
    """Eq. (6), Theorem 3: ``eps_KM(m, delta) = 4 sqrt((1/m) ln(8/delta))``.

    Scale: Kearns-Mansour ``Q = sqrt(p(1-p))``.  ``n_branches = v > 2``:
    ``2 v sqrt((1/m) ln(4v/delta))`` (module docstring).  ``m <= 0`` or
    ``delta <= 0``: ``inf``.
    """
    if m <= 0 or delta <= 0.0:
        return math.inf
    v = n_branches if n_branches >= 2.0 else 2.0
    return 2.0 * v * math.sqrt((1.0 / m) * math.log(4.0 * v / delta))


@njit(cache=True)
def ctree_delta_schedule(delta, h, t, d, m):
    """Eq. (7), Theorem 4: the confidence of one test, ``delta / ((h+1)(h+2) t d m)``.

    ``h``: depth of the leaf (root 0); ``t``: stream time; ``d``: attributes;
    ``m``: examples at the leaf (``sum_h 1/((h+1)(h+2)) = 1`` spreads ``delta``
    over the depths, ``t d m`` over times and candidate splits).  ``t``, ``d``,
    ``m`` below 1 count as 1, ``h`` below 0 as 0.
    """
    tt = t if t >= 1.0 else 1.0
    dd = d if d >= 1.0 else 1.0
    mm = m if m >= 1.0 else 1.0
    hh = h if h >= 0.0 else 0.0
    return delta / ((hh + 1.0) * (hh + 2.0) * tt * dd * mm)


@njit(cache=True)
def _practical_log(m, h, t, d):
    hh = h if h >= 1.0 else 1.0
    tt = t if t >= 1.0 else 1.0
    dd = d if d >= 1.0 else 1.0
    arg = 2.0 * math.log(m) + 2.0 * math.log(hh) + math.log(tt) + math.log(dd)
    return arg if arg > 0.0 else 0.0


@njit(cache=True)
def ctree_practical_radius(c, m, h, t, d):
    """Eq. (8): ``eps~ = c sqrt(ln(m^2 h^2 t d) / m)`` (Gini and Kearns-Mansour).

    The root has ``h = 0``, where ``ln(m^2 h^2 t d)`` is ``ln 0``; the choice
    made here: ``h`` below 1 counts as 1 (so the root and its children share
    the depth term), and ``t``, ``d`` below 1 as 1.  ``m <= 0``: ``inf``.
    """
    if m <= 0:
        return math.inf
    return c * math.sqrt(_practical_log(m, h, t, d) / m)


@njit(cache=True)
def ctree_practical_entropy_radius(c, m, h, t, d):
    """Eq. (8) with the extra ``ln m`` factor of ``eps_ent`` (Sec. VI: "the bound
    for eps_ent contains an extra ln m factor"): ``c ln(m) sqrt(ln(m^2 h^2 t d) / m)``.
    Same choice for ``h = 0`` as :func:`ctree_practical_radius`."""
    if m <= 0:
        return math.inf
    return c * math.log(m) * math.sqrt(_practical_log(m, h, t, d) / m)


@njit(RADIUS_SIG, cache=True)
def ctree_radius_kernel(params, n, ctx):
    """params = [delta (<= 0: 1/t, Remark 1), c (> 0: eq. 8), index, scale, schedule].

    The radius on the merit's scale: ``scale x`` the paper's radius.  A paper
    index with more than two classes gives ``inf`` (never split; the learners
    refuse that case before any data).
    """
    index = params[2]
    if index != _OTHER and ctx[CTX_N_CLASSES] > 2.0:
        return math.inf
    h, t, d = ctx[CTX_DEPTH], ctx[CTX_T], ctx[CTX_N_FEATURES]
    c = params[1]
    if c > 0.0:
        if index == _ENT:
            return params[3] * ctree_practical_entropy_radius(c, n, h, t, d)
        return params[3] * ctree_practical_radius(c, n, h, t, d)
    delta = params[0]
    if not delta > 0.0:
        delta = 1.0 / (t if t >= 1.0 else 1.0)
    if params[4] > 0.0:
        delta = ctree_delta_schedule(delta, h, t, d, n)
    v = ctx[CTX_N_BRANCHES]
    if index == _GINI:
        return params[3] * ctree_gini_radius(delta, n, v)
    if index == _KM:
        return params[3] * ctree_km_radius(delta, n, v)
    return params[3] * ctree_entropy_radius(delta, n, v)


@njit(RULE_SIG, cache=True)
def ctree_rule(evidence, params):
    """Engine form: ``params = [tau, strict, gap factor, runner-up, delta, c, index,
    scale, schedule]``."""
    eps = ctree_radius_kernel(params[P_RADIUS:], evidence[EV_N], context_of(evidence))
    return decide_evidence(evidence, params, eps)


class CTreeRule(DecisionRule):
    """C-Tree split rule (De Rosa & Cesa-Bianchi, IJCNN 2015, Algorithm 1).

    Two radii (module docstring for the formulas and scales):

    * ``c`` given: the practical radius of eq. (8), ``c sqrt(ln(m^2 h^2 t d) / m)``
      (times ``ln m`` on the entropy merit), as in the paper's experiments
      (``delta = 1/t`` is folded into ``c``);
    * ``c=None``: the confidence radius of the merit, eq. (4), (5) or (6), at
      confidence ``delta`` (None: ``1/t``, Remark 1), replaced by the schedule of
      eq. (7) when ``schedule=True`` (Theorem 4).

    Both are multiplied by the factor from the paper's index to the tree's merit
    (entropy in bits ``2/ln 2``, Gini 1, Kearns-Mansour 2).

    Parameters
    ----------
    criterion : str or Criterion, optional
        The merit; None (default): the merit of the tree the rule is given to.
        Without ``c`` it must be "entropy", "gini" or "kearns_mansour".
    c : float, optional
        Constant of eq. (8).
    delta : float or None
        Confidence of eqs. (4)-(7); None: ``1/t`` (Remark 1).
    schedule : bool
        Use eq. (7)'s ``delta / ((h+1)(h+2) t d m)``.
    two_eps, strict, tau, runner_up
        Algorithm 1's test by default: ``best - second >= 2 eps`` (non-strict),
        no tie-break (``tau`` None or 0; the paper's experiments use none), the
        runner-up is the best *other split* (``"any_split"``: another threshold
        of the same feature counts); ``runner_up="other_feature"`` compares with
        the best split of another feature, as VFDT / MOA.  Note that
        neighbouring thresholds of one numeric feature have nearly the same
        merit, so with ``"any_split"`` a leaf waits until the best threshold
        stands out from its neighbours by ``2 eps``.

    Notes
    -----
    Context for :meth:`radius` / :meth:`should_split`: ``depth`` (h, root 0),
    ``t`` (stream time; defaults to ``n``), ``n_features`` (d), ``n_classes``
    (must be 2 for the paper's indices), ``n_branches`` (v).
    """

    _engine_fn = ctree_rule

    def __init__(self, criterion=None, c=None, delta=1e-7, schedule=True, two_eps=True,
                 tau=None, strict=False, runner_up="any_split"):
        self.criterion = criterion
        if c is not None:
            c = float(c)
            if not c > 0.0 or not math.isfinite(c):
                raise ValueError(f"c must be a positive finite number, got {c!r}")
        self.c = c
        self.delta = None if delta is None else check_delta(delta)
        self.schedule = bool(schedule)
        if criterion is not None:
            self._index_scale(merit_info(criterion))
        self.radius_func = ctree_radius_kernel
        self.radius_params = np.array([np.nan] * 5)
        self._set_test(tau, two_eps, strict, runner_up)
        self.name = "ctree"

    def _index_scale(self, info, n_classes=None):
        paper = info is not None and info.decrease and info.family in _INDEX
        if self.c is None and not paper:
            name = "no merit" if info is None else repr(info.name)
            raise ValueError(
                "CTreeRule supports criterion 'entropy', 'gini' or 'kearns_mansour' for the "
                "paper's confidence radii (eqs. 4-6); any merit takes the practical radius "
                f"of eq. 8 (CTreeRule(c=...)); got {name}")
        if not paper:
            return _OTHER, 1.0
        if n_classes is not None and n_classes > 2:
            raise ValueError(
                f"CTreeRule on the {info.name!r} merit needs two classes, got {n_classes}: the "
                "C-Tree paper analyses binary classification only (Sec. III), so its radii "
                "(eqs. 4-6, 8) and their scale factors have no k-class form")
        return _INDEX[info.family], PAPER_SCALE[info.family]

    def radius_params_for(self, merit=None, n_classes=None):
        index, scale = self._index_scale(resolve_own_merit(self.criterion, merit), n_classes)
        return np.array([-1.0 if self.delta is None else self.delta,
                         -1.0 if self.c is None else self.c, index, scale,
                         1.0 if self.schedule else 0.0])

    def get_params(self, deep=True):
        return {"criterion": self.criterion, "c": self.c, "delta": self.delta,
                "schedule": self.schedule, "two_eps": self.two_eps, "tau": self.tau,
                "strict": self.strict, "runner_up": self.runner_up}
