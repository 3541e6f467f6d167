"""The split-criterion protocol shared by every tree learner.

A criterion tells the engine what a candidate split is worth.  It is a small
Python object holding jitted functions with *fixed signatures*, so the engine's
cached kernels receive them as first-class function values
(``numba.types.FunctionType``) and never recompile for a new criterion: a user
can define a criterion in their own file and pass it to any learner.

Node statistics ("stats") are float64 vectors whose layout depends on the task:

* ``classification``: weighted class counts, one entry per class;
* ``regression``: ``[sum w, sum w*y, sum w*y**2]``.

The two signatures are

* ``impurity(stats) -> float``  (:data:`IMPURITY_SIG`), the impurity of one node;
* ``merit(parent, children) -> float`` (:data:`MERIT_SIG`), the worth of a
  split of ``parent`` into the rows of ``children`` (k x len(stats)).

Built-in criteria set ``merit_kind`` to ``"impurity_decrease"`` (merit =
impurity(parent) - sum_c w_c / w * impurity(child_c), the information gain /
Gini gain / variance reduction) or ``"gain_ratio"`` (the impurity decrease divided by
the split information -sum_c w_c/w log2(w_c/w), Quinlan 1993); the engine then
evaluates the merit inline from ``impurity``.  ``merit_kind="custom"`` calls the
criterion's own ``merit`` function instead.
"""
from __future__ import annotations

import numpy as np

from .._compile import njit_maybe_cached as _njit_maybe_cached
from .._engine.jit import njit

__all__ = [
    "IMPURITY_SIG",
    "MERIT_SIG",
    "IMPURITY_TYPE",
    "MERIT_TYPE",
    "Criterion",
    "MERIT_KINDS",
    "compile_impurity",
    "compile_merit",
    "no_merit",
]

from .._engine.signatures import IMPURITY_SIG, IMPURITY_TYPE, MERIT_SIG, MERIT_TYPE  # noqa: E402

#: merit kinds understood by the engine, and their integer codes inside kernels
MERIT_KINDS = {"impurity_decrease": 0, "gain_ratio": 1, "custom": 2, "newton": 3}
#: statistics layouts: class counts, [w, wy, wy^2], or [H, G, w] (second-order, see gradient.py)
TASKS = ("classification", "regression", "gradient")


def compile_impurity(func, cache=True):
    """Compile ``func(stats) -> float`` with :data:`IMPURITY_SIG`.

    Accepts a plain Python function or an already-jitted dispatcher.  With
    ``cache=True`` (default) the compiled code is stored beside the file that
    defines ``func``.
    """
    return _njit_maybe_cached(func, IMPURITY_SIG, cache)


def compile_merit(func, cache=True):
    """Compile ``func(parent, children) -> float`` with :data:`MERIT_SIG`."""
    return _njit_maybe_cached(func, MERIT_SIG, cache)



@njit(MERIT_SIG, cache=True)
def no_merit(parent, children):  # pragma: no cover - placeholder, never called
    """Placeholder merit for criteria whose merit the engine evaluates inline."""
    return 0.0


def _is_compiled_with(func, sig):
    # (a signature declared and not compiled yet counts: reading ``signatures``
    # would compile it now, at import)
    declared = [tuple(s.args) for s in getattr(func, "_declared", ()) if hasattr(s, "args")]
    if tuple(sig.args) in declared:
        return True
    sigs = getattr(func, "signatures", None)
    if not sigs:
        return False
    return tuple(sig.args) in [tuple(s) for s in sigs]


class Criterion:
    """A split criterion: an impurity function and a merit rule.

    Parameters
    ----------
    name : str
        Short name, shown in ``repr`` and in exported trees.
    impurity : callable
        ``impurity(stats) -> float``; a plain function is compiled with
        :data:`IMPURITY_SIG`.
    task : {"classification", "regression"}
        Which statistics layout the functions read (see module docstring).
    merit_kind : {"impurity_decrease", "gain_ratio", "custom"}
        How the worth of a split is computed.
    merit : callable, optional
        ``merit(parent, children) -> float``, required for ``merit_kind="custom"``.
    merit_range : float or callable, optional
        The range ``R`` of the merit (largest minus smallest possible value), as
        river's ``range_of_merit``: a number, or ``merit_range(n_classes) ->
        float``.  Confidence-radius rules that need it (the Hoeffding bound,
        :mod:`treelab.split_criteria.rules.hoeffding`) read it through
        :meth:`range_of_merit`; ``None``: unknown (such a rule then needs an
        explicit ``value_range``).

    Examples
    --------
    A user criterion defined in the user's own file::

        from treelab.split_criteria import Criterion
        def half_gini(counts):
            s = counts.sum()
            r = 1.0
            for c in counts:
                r -= (c / s) ** 2
            return 0.5 * r
        crit = Criterion("half_gini", half_gini, task="classification")
        DecisionTreeClassifier(criterion=crit).fit(X, y)
    """

    #: textbook index the impurity is, for rules whose radii are derived for one
    #: ("entropy" in bits, "gini" = 1 - sum p^2, "kearns_mansour" = sum sqrt(p(1-p)),
    #: "classification_error"); None for any other criterion
    family = None

    def __init__(self, name, impurity, task="classification",
                 merit_kind="impurity_decrease", merit=None, merit_range=None):
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {task!r}")
        if merit_kind not in MERIT_KINDS:
            raise ValueError(
                f"merit_kind must be one of {sorted(MERIT_KINDS)}, got {merit_kind!r}")
        if merit_kind == "custom" and merit is None:
            raise ValueError("merit_kind='custom' needs a merit function")
        if not callable(impurity):
            raise TypeError("impurity must be callable")
        if merit_range is not None and not callable(merit_range):
            r = float(merit_range)
            if not (r > 0.0 and np.isfinite(r)):
                raise ValueError(f"merit_range must be a positive finite number or a "
                                 f"callable, got {merit_range!r}")
        self.merit_range = merit_range
        self.name = str(name)
        self.task = task
        self.merit_kind = merit_kind
        # what the user passed, pickled by reference (a module-level function or
        # @njit dispatcher of the user's own module)
        self._impurity_src = impurity
        self._merit_src = merit
        self.impurity = (impurity if _is_compiled_with(impurity, IMPURITY_SIG)
                         else compile_impurity(impurity))
        if merit is None:
            self.merit = no_merit
        else:
            self.merit = (merit if _is_compiled_with(merit, MERIT_SIG)
                          else compile_merit(merit))

    #: engine code of a built-in impurity it may inline (0: call ``impurity``)
    builtin_code = 0
    #: the criterion's parameter vector ``cp`` handed to the engine (merit protocol)
    params = np.zeros(1)

    @property
    def merit_code(self):
        return MERIT_KINDS[self.merit_kind]

    def range_of_merit(self, n_classes=2):
        """Range ``R`` of the merit for ``n_classes`` classes, or None when unknown."""
        r = self.merit_range
        if r is None:
            return None
        return float(r(n_classes) if callable(r) else r)

    def node_impurity(self, stats):
        """Impurity of one node from its statistics vector (Python convenience)."""
        return float(self.impurity(np.ascontiguousarray(stats, dtype=np.float64)))

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, task={self.task!r}, merit_kind={self.merit_kind!r})"

    # Criteria are compared and pickled by name for the built-ins (see impurity.py);
    # user criteria pickle by reference to their defining functions.
    def __reduce__(self):
        return (Criterion, (self.name, self._impurity_src, self.task, self.merit_kind,
                            self._merit_src, self.merit_range))
