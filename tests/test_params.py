"""The shared hyper-parameter checks (treelab._params) and the estimators using them."""
import math

import numpy as np
import pytest

from treelab import (
    AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier, GradientBoostingRegressor,
    HoeffdingTreeClassifier, RandomForestClassifier, SGTClassifier,
)
from treelab._params import (
    InvalidParameterError, check_bool, check_fraction, check_int, check_n_jobs, check_real,
)


def test_error_is_value_and_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


@pytest.mark.parametrize("v, lo, hi, allow_none, ok", [
    (1, 1, None, False, True), (0, 1, None, False, False), (np.int64(5), 2, 5, False, True),
    (6, 2, 5, False, False), (None, 1, None, True, True), (None, 1, None, False, False),
    (True, 0, None, False, False), (np.bool_(True), 0, None, False, False),
    (2.0, 1, None, False, False), ("3", 1, None, False, False),
])
def test_check_int(v, lo, hi, allow_none, ok):
    if ok:
        out = check_int("k", v, lo, hi, allow_none)
        assert out == v and (out is None or type(out) is int)
    else:
        with pytest.raises(InvalidParameterError, match=r"^k must be an int"):
            check_int("k", v, lo, hi, allow_none)


def test_check_int_messages():
    with pytest.raises(ValueError, match=r"^k must be an int >= 2 or None, got 1$"):
        check_int("k", 1, 2, allow_none=True)
    with pytest.raises(ValueError, match=r"^k must be an int in \[2, 255\], got 256$"):
        check_int("k", 256, 2, 255)


@pytest.mark.parametrize("kw, good, bad", [
    (dict(lo=0), [0, 0.0, 3, np.float32(2.5)], [-1e-300, math.inf, math.nan, True, "1"]),
    (dict(lo=0, lo_open=True), [1e-300, 7], [0, 0.0, -1, math.inf]),
    (dict(lo=0, finite=False), [0, math.inf], [-math.inf, math.nan, -1]),
    (dict(lo=0, hi=1, lo_open=True, hi_open=True), [0.5, 1e-9], [0, 1, math.nan]),
    (dict(lo=0, hi=0.5, hi_open=True), [0, 0.49], [0.5, -0.1]),
    (dict(), [-1e300, 0], [math.inf, -math.inf, math.nan, None]),
])
def test_check_real(kw, good, bad):
    for v in good:
        out = check_real("x", v, **kw)
        assert type(out) is float and out == float(v)
    for v in bad:
        with pytest.raises(InvalidParameterError, match=r"^x must be "):
            check_real("x", v, **kw)


def test_check_real_messages():
    with pytest.raises(ValueError, match=r"^x must be a finite float > 0, got 0$"):
        check_real("x", 0, 0, lo_open=True)
    with pytest.raises(ValueError, match=r"^x must be a float >= 0, got nan$"):
        check_real("x", math.nan, 0, finite=False)
    with pytest.raises(ValueError, match=r"^x must be a float in \(0, 1\], got 0$"):
        check_fraction("x", 0)
    with pytest.raises(ValueError, match=r"^x must be a float in \[0, 0.5\), got 0.5$"):
        check_real("x", 0.5, 0, 0.5, hi_open=True)
    with pytest.raises(ValueError, match=r"^x must be a finite float, got inf$"):
        check_real("x", math.inf)
    assert check_real("x", None, 0, allow_none=True) is None
    with pytest.raises(ValueError, match=r"^x must be a float in \(0, 1\) or None, got 1$"):
        check_real("x", 1, 0, 1, lo_open=True, hi_open=True, allow_none=True)
    with pytest.raises(ValueError, match=r"^x must be a finite float, got None$"):
        check_real("x", None)


def test_check_bool_and_n_jobs():
    assert check_bool("b", np.bool_(False)) is False
    for v in (0, 1, "yes", None):
        with pytest.raises(InvalidParameterError, match="b must be a bool"):
            check_bool("b", v)
    assert check_n_jobs(None) is None and check_n_jobs(-1) == -1 and check_n_jobs(np.int8(2)) == 2
    for v in (0, 1.0, True, "2"):
        with pytest.raises(InvalidParameterError, match="n_jobs must be None or a non-zero int"):
            check_n_jobs(v)


_X = np.arange(40, dtype=float).reshape(20, 2)
_Y = np.arange(20) % 2


@pytest.mark.parametrize("est, name", [
    (DecisionTreeClassifier(max_depth=0), "max_depth"),
    (DecisionTreeClassifier(min_weight_fraction_leaf=0.6), "min_weight_fraction_leaf"),
    (DecisionTreeClassifier(max_bins=True), "max_bins"),
    (RandomForestClassifier(n_estimators=0), "n_estimators"),
    (RandomForestClassifier(bootstrap=1), "bootstrap"),
    (RandomForestClassifier(n_jobs=0), "n_jobs"),
    (BaggingClassifier(n_estimators=1.0), "n_estimators"),
    (BaggingClassifier(bootstrap="yes"), "bootstrap"),
    (AdaBoostClassifier(learning_rate=math.inf), "learning_rate"),
    (GradientBoostingRegressor(subsample=0.0), "subsample"),
    (GradientBoostingRegressor(learning_rate="0.1"), "learning_rate"),
    (GradientBoostingRegressor(base_score=math.nan), "base_score"),
    (GradientBoostingRegressor(validation_fraction=1.0), "validation_fraction"),
    (GradientBoostingRegressor(reg_lambda=-1.0), "reg_lambda"),
    (HoeffdingTreeClassifier(min_branch_fraction=0.5), "min_branch_fraction"),
    (SGTClassifier(delta=1.0), "delta"),
    (SGTClassifier(reg_lambda=math.nan), "reg_lambda"),
])
def test_estimators_name_the_parameter(est, name):
    with pytest.raises(InvalidParameterError, match=f"^{name} must be "):
        est.fit(_X, _Y)


# ------------------------------------------------------------ one vocabulary
def _estimator_classes():
    import inspect
    import treelab
    return [getattr(treelab, n) for n in treelab.__all__
            if inspect.isclass(getattr(treelab, n)) and n != "Criterion"]


def _params_of(cls):
    import inspect
    return inspect.signature(cls.__init__).parameters


def test_constructors_hold_the_new_names_only():
    """No estimator's signature keeps a former name whose new name it has, and
    the shared words mean one thing: ``n_jobs`` defaults to None, ``verbose``
    to the int 0, ``splitter`` to "best"."""
    from treelab._params import RENAMED_PARAMETERS
    for cls in _estimator_classes():
        params = _params_of(cls)
        for old, new in RENAMED_PARAMETERS.items():
            assert not (old in params and old != "delta"), (cls.__name__, old)
        if "n_jobs" in params:
            assert params["n_jobs"].default is None, cls.__name__
        if "verbose" in params:
            v = params["verbose"].default
            assert v == 0 and type(v) is int, cls.__name__
        if "splitter" in params:
            assert params["splitter"].default == "best", cls.__name__
        for name in ("n_bins", "max_bin", "n_trees", "lambda_"):
            assert name not in params, (cls.__name__, name)


def test_former_names_raise_a_type_error_naming_the_new_one():
    from treelab._params import RENAMED_PARAMETERS
    checked = 0
    for cls in _estimator_classes():
        params = _params_of(cls)
        for old, new in RENAMED_PARAMETERS.items():
            if old in params or new not in params:
                continue
            with pytest.raises(TypeError, match=f"{old} was renamed {new}"):
                cls(**{old: params[new].default})
            with pytest.raises(TypeError, match=f"{old} was renamed {new}"):
                cls().set_params(**{old: params[new].default})
            checked += 1
    assert checked >= 20
    with pytest.raises(TypeError, match="unexpected keyword"):     # other names: Python's error
        RandomForestClassifier(n_treez=3)


def test_streaming_learners_share_the_positional_order():
    from treelab import SGTMultiInstanceClassifier, SGTRegressor
    for cls in (HoeffdingTreeClassifier, SGTClassifier, SGTRegressor, SGTMultiInstanceClassifier):
        m = cls(50, 1e-3)
        assert (m.grace_period, m.delta) == (50, 1e-3)
        with pytest.raises(TypeError):
            cls(50, 1e-3, 0.1)                   # the rest is keyword-only


@pytest.mark.parametrize("make", [
    lambda s: DecisionTreeClassifier(splitter=s), lambda s: RandomForestClassifier(3, splitter=s)])
def test_one_splitter_spelling(make):
    for s in ("best", "hist"):
        make(s).fit(_X, _Y)
    with pytest.raises(InvalidParameterError, match="splitter='exact' is spelled splitter='best'"):
        make("exact").fit(_X, _Y)
    with pytest.raises(InvalidParameterError, match="splitter must be 'best'"):
        make("random").fit(_X, _Y)


def test_n_jobs_none_is_one_thread():
    from treelab._params import n_threads
    assert n_threads(None) == 1 and n_threads(1) == 1
    import os
    assert n_threads(-1) == (os.cpu_count() or 1)


def test_a_model_pickled_under_former_names_loads():
    """Attributes saved under a former name are read as the new name's."""
    import pickle
    from treelab import CascadeForestClassifier
    ht = HoeffdingTreeClassifier(max_bins=8, criterion="gini")
    ht.__dict__["n_bins"] = ht.__dict__.pop("max_bins")
    ht.__dict__["merit"] = ht.__dict__.pop("criterion")
    old = pickle.loads(pickle.dumps(ht))
    assert (old.max_bins, old.criterion) == (8, "gini")
    assert old.get_params()["max_bins"] == 8 and not hasattr(old, "tol")
    casc = CascadeForestClassifier(tol=0.5)
    casc.__dict__["delta"] = casc.__dict__.pop("tol")
    assert pickle.loads(pickle.dumps(casc)).tol == 0.5
    with pytest.raises(AttributeError):
        old.no_such_attribute


def test_properties_keep_their_not_fitted_error():
    for est in (DecisionTreeClassifier(), RandomForestClassifier()):
        with pytest.raises(AttributeError, match="not fitted yet"):
            est.feature_importances_
