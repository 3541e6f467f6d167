"""treelab's njit: one compiled version per real signature, no literal copies."""
import sys

import numpy as np
from numba.core import types
from numba.core.dispatcher import Dispatcher

from treelab._engine.jit import EngineDispatcher, njit


def _has_literal(sig):
    return any(isinstance(a, types.Literal) for a in sig)


def test_constant_arguments_compile_the_callee_once():
    @njit
    def callee(a, k, flag):
        return a[k] if flag else -a[k]

    @njit
    def caller(a):
        n = 0
        top = 1                       # typed from its constant first, then int64
        while top > 0:
            n += callee(a, 0, True) + callee(a, 1, False) + callee(a, top, True)
            top = callee(a, 2, True) - 1.0 > 0
        return n

    a = np.array([1.0, 2.0, 1.0])
    assert caller(a) == 1.0 - 2.0 + 2.0
    assert isinstance(callee, EngineDispatcher)
    assert len(callee.signatures) == 1
    assert not _has_literal(callee.signatures[0])


def test_explicit_signatures_and_options_pass_through():
    @njit("float64(float64)", cache=False, nogil=True)
    def twice(x):
        return 2.0 * x

    assert twice(1.5) == 3.0
    assert twice.targetoptions["nogil"] is True
    assert [str(s) for s in twice.signatures] == ["(float64,)"]

    @njit(inline="always")
    def inc(x):
        return x + 1

    @njit
    def use(x):
        return inc(x) + inc(2)

    assert use(1) == 5
    assert inc.signatures == []          # inlined into use: never compiled alone


def test_fitted_learners_hold_no_literal_specializations():
    from treelab import DecisionTreeClassifier, GradientBoostingClassifier
    rng = np.random.RandomState(0)
    X = rng.rand(120, 3)
    y = (X[:, 0] + 0.2 * rng.rand(120) > 0.6).astype(int)
    DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y).predict(X)
    GradientBoostingClassifier(n_estimators=2, max_depth=2, random_state=0).fit(X, y).predict(X)
    bad = []
    for name, mod in list(sys.modules.items()):
        if not name.startswith("treelab"):
            continue
        for attr, obj in vars(mod).items():
            if isinstance(obj, Dispatcher):
                bad += [f"{name}.{attr}{s}" for s in obj.signatures if _has_literal(s)]
    assert not bad, bad


def test_function_pointer_is_typed_once_and_calls_like_the_dispatcher():
    """``signatures.function_pointer``: the same object for the same function, its
    numba type made once (the identical ``FunctionType(sig)`` on every typing),
    and a kernel given it returns what the dispatcher itself gives."""
    import numpy as np
    from numba import njit, types
    from numba.core.typing.typeof import Purpose, typeof

    from treelab._engine.impurity import entropy
    from treelab._engine.signatures import IMPURITY_SIG, TypedWAP, function_pointer

    fp = function_pointer(entropy, IMPURITY_SIG)
    assert isinstance(fp, TypedWAP) and function_pointer(entropy, IMPURITY_SIG) is fp
    t1 = typeof(fp, Purpose.argument)
    assert t1 == types.FunctionType(IMPURITY_SIG)
    assert typeof(fp, Purpose.argument) is t1

    @njit
    def call(f, a):
        return f(a)

    a = np.array([3.0, 1.0, 0.0, 4.0])
    assert call(fp, a) == entropy(a)
