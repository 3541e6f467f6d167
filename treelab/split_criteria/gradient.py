"""The second-order (Newton / XGBoost) split criterion.

Course slides, chapter 5, section "XGBoost" (Chen & Guestrin 2016): with
G_j, H_j the sums of the loss's gradients and Hessians over a leaf's
instances, the leaf's optimal weight and the structure score are

    w_j* = -G_j / (H_j + lambda),    Obj = -1/2 sum_j G_j^2 / (H_j + lambda) + gamma T,

and a split's gain is

    Gain = 1/2 [G_L^2/(H_L + lambda) + G_R^2/(H_R + lambda) - (G_L + G_R)^2/(H_L + H_R + lambda)] - gamma.

With L1 regularisation ``alpha`` every G is soft-thresholded first,
T(G) = sign(G) max(|G| - alpha, 0) (XGBoost's ``reg_alpha``); a split into k
children (multiway nominal) is charged gamma (k - 1).  Statistics vectors are
``[H, G, w]`` per node (Hessian sum first, so the engine's node weight is the
Hessian sum and ``min_child_weight`` is its ``min_weight_leaf``).  The gain is
evaluated inside the engine (:mod:`treelab._engine.merit`) from the parameter
vector :attr:`NewtonCriterion.params` ``= [lambda, alpha, gamma]``.  Any
builder (depth-first or best-first, exact or histogram) grows trees with it.
"""
from __future__ import annotations

import numpy as np

from .._engine.jit import njit
from .._engine.merit import NEWTON_G, NEWTON_H
from .._engine.signatures import IMPURITY_SIG
from .._params import check_real
from .base import Criterion

__all__ = ["NewtonCriterion", "newton_stats"]


@njit(IMPURITY_SIG, cache=True)
def _structure_score(stats):
    """-1/2 G^2 / H (lambda = 0): a placeholder the engine never calls (it uses
    the parameterised score of :func:`treelab._engine.merit.newton_impurity`)."""
    h = stats[0]
    return -0.5 * stats[1] * stats[1] / h if h > 0.0 else 0.0


def newton_stats(grad, hess, sample_weight=None):
    """Per-row statistics vectors ``[w h, w g, w]`` (n x 3) for the engine."""
    g = np.asarray(grad, dtype=np.float64).ravel()
    h = np.asarray(hess, dtype=np.float64).ravel()
    w = np.ones_like(g) if sample_weight is None else np.asarray(sample_weight, np.float64)
    return np.ascontiguousarray(np.stack([w * h, w * g, w], axis=1))


class NewtonCriterion(Criterion):
    """Second-order gain with ``reg_lambda`` (L2 on leaf weights), ``reg_alpha``
    (L1), ``gamma`` (cost per extra leaf) and ``min_child_weight`` (least
    Hessian sum of a child): the slides' XGBoost gain as a criterion.

    Its ``task`` is ``"gradient"``: statistics ``[H, G, w]`` built by
    :func:`newton_stats`.
    """

    def __init__(self, reg_lambda=1.0, reg_alpha=0.0, gamma=0.0, min_child_weight=1.0):
        self.reg_lambda = check_real("reg_lambda", reg_lambda, 0, finite=False)
        self.reg_alpha = check_real("reg_alpha", reg_alpha, 0, finite=False)
        self.gamma = check_real("gamma", gamma, 0, finite=False)
        self.min_child_weight = check_real("min_child_weight", min_child_weight, 0, finite=False)
        super().__init__("newton", _structure_score, task="gradient", merit_kind="newton")
        self.params = np.array([self.reg_lambda, self.reg_alpha, self.gamma], np.float64)

    def _t(self, g):
        return np.sign(g) * np.maximum(np.abs(g) - self.reg_alpha, 0.0)

    def node_impurity(self, stats):
        """Structure score of one leaf, -1/2 T(G)^2 / (H + lambda)."""
        s = np.asarray(stats, dtype=np.float64)
        den = s[NEWTON_H] + self.reg_lambda
        return float(-0.5 * self._t(s[NEWTON_G]) ** 2 / den) if den > 0 else 0.0

    def leaf_weight(self, stats):
        """Optimal weights w* = -T(G) / (H + lambda) of statistics rows (..., 3)."""
        s = np.asarray(stats, dtype=np.float64)
        den = s[..., NEWTON_H] + self.reg_lambda
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, -self._t(s[..., NEWTON_G]) / np.where(den > 0, den, 1.0), 0.0)

    def gain(self, children):
        """Gain of splitting into ``children`` (k x 3 statistics), the slides' formula."""
        c = np.asarray(children, dtype=np.float64)
        return float(self.node_impurity(c.sum(axis=0))
                     - sum(self.node_impurity(r) for r in c) - self.gamma * (c.shape[0] - 1))

    def __repr__(self):
        return (f"NewtonCriterion(reg_lambda={self.reg_lambda}, reg_alpha={self.reg_alpha}, "
                f"gamma={self.gamma}, min_child_weight={self.min_child_weight})")

    def __reduce__(self):
        return (NewtonCriterion, (self.reg_lambda, self.reg_alpha, self.gamma,
                                  self.min_child_weight))
