"""User losses defined outside the treelab package (issue 10, item 3): scalar
gradient / Hessian functions turned into a :class:`treelab.losses.Loss` that both
SGT and gradient boosting take.  Module-level functions, so models pickle."""
import math

from treelab.losses import Loss


def sq_grad(y, f):
    return f - y


def sq_hess(y, f):
    return 1.0


def sq_value(y, f):
    return 0.5 * (f - y) * (f - y)


def ph_grad(y, f):
    r = f - y
    return r / math.sqrt(1.0 + r * r)


def ph_hess(y, f):
    r = f - y
    return (1.0 + r * r) ** -1.5


def ph_value(y, f):
    r = f - y
    return math.sqrt(1.0 + r * r) - 1.0


#: squared error rebuilt from its gradient and Hessian
USER_SQUARED = Loss.from_functions(sq_grad, sq_hess, name="user_squared", value=sq_value)
#: pseudo-Huber loss sqrt(1 + r^2) - 1
PSEUDO_HUBER = Loss.from_functions(ph_grad, ph_hess, name="pseudo_huber", value=ph_value)
