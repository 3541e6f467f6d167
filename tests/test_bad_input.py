"""Bad input gets a clear error that names the problem (DESIGN.md: "Bad input
gets a clear ValueError/TypeError naming the problem; nothing crashes inside a
kernel").  Each case checks the exception type and a regex on the message.

Tests marked "regression test" cover bugs found while writing this file.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from treelab import (
    C45Classifier, DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier, export_text,
)

try:
    from sklearn.exceptions import NotFittedError
except ImportError:  # pragma: no cover
    from treelab._sklearn_compat import NotFittedError

CLF, REG = DecisionTreeClassifier, DecisionTreeRegressor
BOTH = [CLF, REG]


@pytest.fixture
def Xy():
    rng = np.random.RandomState(0)
    X = rng.rand(20, 3)
    y = np.arange(20) % 2
    return X, y


@pytest.fixture
def df():
    rng = np.random.RandomState(1)
    return pd.DataFrame({"a": rng.rand(20), "b": rng.rand(20),
                         "c": pd.Categorical(rng.choice(["u", "v", "w"], 20))})


# ------------------------------------------------------------------- targets
@pytest.mark.parametrize("cls", BOTH)
def test_nan_in_y(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"y contains NaN"):
        cls().fit(X, np.where(y == 0, np.nan, 1.0))


@pytest.mark.parametrize("cls", BOTH)
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_inf_in_y(cls, bad, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"y contains infinity"):
        cls().fit(X, np.where(y == 0, bad, 1.0))


def test_missing_class_label_in_object_and_category_y(Xy):
    X, _ = Xy
    with pytest.raises(ValueError, match=r"y contains NaN"):
        CLF().fit(X, np.array(["a", "b", None, "a"] * 5, dtype=object))
    with pytest.raises(ValueError, match=r"y contains NaN"):
        CLF().fit(X, pd.Series(pd.Categorical(["a", "b", None, "a"] * 5)))


@pytest.mark.parametrize("cls", [CLF, ID3Classifier, C45Classifier])
def test_single_class(cls, Xy):
    X, _ = Xy
    with pytest.raises(ValueError, match=r"only one class.*'?a'?"):
        cls().fit(X, ["a"] * 20)
    with pytest.raises(ValueError, match=r"only one class"):
        cls().fit(X, np.zeros(20))


def test_continuous_y_for_a_classifier(Xy):
    X, _ = Xy
    with pytest.raises(ValueError, match=r"Unknown label type: continuous.*regressor"):
        CLF().fit(X, np.linspace(0.0, 1.0, 20))


def test_string_y_for_a_regressor(Xy):
    X, _ = Xy
    with pytest.raises(ValueError, match=r"y must be numeric"):
        REG().fit(X, ["a", "b"] * 10)


@pytest.mark.parametrize("cls", BOTH)
def test_y_of_wrong_shape(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"y should be a 1d array.*\(20, 2\)"):
        cls().fit(X, np.c_[y, y])
    with pytest.raises(ValueError, match=r"requires y to be passed"):
        cls().fit(X, None)


@pytest.mark.parametrize("cls", BOTH)
def test_mismatched_X_y_lengths(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[20, 19\]"):
        cls().fit(X, y[:-1])


# ------------------------------------------------------------------------- X
@pytest.mark.parametrize("cls", BOTH)
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_inf_in_X(cls, bad, Xy):
    X, y = Xy
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=r"X contains infinity"):
        cls().fit(X, y)
    est = cls().fit(Xy[0], y)
    with pytest.raises(ValueError, match=r"X contains infinity"):
        est.predict(X)


def test_inf_in_a_dataframe_column(df):
    df = df.copy()
    df.loc[2, "a"] = np.inf
    with pytest.raises(ValueError, match=r"X contains infinity"):
        CLF().fit(df, np.arange(20) % 2)


def test_nan_in_X_is_allowed(Xy):
    X, y = Xy
    X = X.copy()
    X[::3, 0] = np.nan
    assert CLF().fit(X, y).predict(X).shape == (20,)


@pytest.mark.parametrize("cls", BOTH)
def test_wrong_number_of_features_numpy(cls, Xy):
    X, y = Xy
    est = cls().fit(X, y)
    for Z in (X[:, :2], np.c_[X, X[:, :1]]):
        with pytest.raises(ValueError, match=rf"X has {Z.shape[1]} features, but {cls.__name__} "
                                             r"is expecting 3 features"):
            est.predict(Z)
    if cls is CLF:
        with pytest.raises(ValueError, match=r"X has 2 features.*expecting 3"):
            est.predict_proba(X[:, :2])
    with pytest.raises(ValueError, match=r"X has 2 features.*expecting 3"):
        est.apply(X[:, :2])


@pytest.mark.parametrize("cls", BOTH)
def test_wrong_number_of_features_dataframe(cls, df):
    y = np.arange(20) % 2
    est = cls().fit(df, y)
    # the message names the mismatch: the fitted and the given columns
    with pytest.raises(ValueError, match=r"feature names should match.*\['a', 'b', 'c'\].*"
                                         r"got \['a', 'b'\]"):
        est.predict(df[["a", "b"]])
    with pytest.raises(ValueError, match=r"feature names should match.*got \['a', 'b', 'c', 'd'\]"):
        est.predict(df.assign(d=1.0))
    with pytest.raises(ValueError, match=r"feature names should match.*got \['z', 'b', 'c'\]"):
        est.predict(df.rename(columns={"a": "z"}))
    # a NumPy array of the wrong width (a warning about missing names is fine)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=r"X has 2 features.*expecting 3"):
            est.predict(df[["a", "b"]].to_numpy())
    # fitted on NumPy, predicted on a DataFrame of the wrong width
    est = cls().fit(df[["a", "b"]].to_numpy(), y)
    with pytest.raises(ValueError, match=r"X has 3 features.*expecting 2"):
        est.predict(pd.DataFrame(np.zeros((4, 3))))


@pytest.mark.parametrize("cls", BOTH)
def test_empty_X(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"0 sample\(s\).*minimum of 1"):
        cls().fit(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match=r"0 feature\(s\).*minimum of 1"):
        cls().fit(np.empty((20, 0)), y)
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        cls().fit(pd.DataFrame(), [])
    with pytest.raises(ValueError, match=r"0 feature\(s\)"):
        cls().fit(pd.DataFrame(index=range(20)), y)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        est.predict(np.empty((0, 3)))


@pytest.mark.parametrize("cls", BOTH)
def test_one_dimensional_X(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"Expected 2D array, got 1D array.*reshape\(-1, 1\)"):
        cls().fit(X[:, 0], y)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match=r"Expected 2D array, got 1D array"):
        est.predict(X[0])
    with pytest.raises(ValueError, match=r"Expected 2D array, got scalar"):
        est.predict(1.0)
    with pytest.raises(ValueError, match=r"dim 3"):
        cls().fit(X[:, :, None], y)


@pytest.mark.parametrize("cls", BOTH)
def test_object_dataframe_column_needs_category_dtype(cls):
    y = np.arange(20) % 2
    for col in (["u", "v"] * 10, pd.Series(["u", "v"] * 10, dtype=object)):
        X = pd.DataFrame({"a": np.arange(20.0), "s": col})
        with pytest.raises(TypeError, match=r"column 's'.*neither numeric nor 'category'.*"
                                            r"\.astype\('category'\)"):
            cls().fit(X, y)
    # with the suggested conversion it works
    X = pd.DataFrame({"a": np.arange(20.0), "s": pd.Series(["u", "v"] * 10).astype("category")})
    cls().fit(X, y)


def test_object_column_at_predict_time_that_was_numeric(df):
    est = CLF().fit(df, np.arange(20) % 2)
    bad = df.assign(a=["x"] * 20)
    with pytest.raises(TypeError, match=r"column 'a'.*numeric at fit time"):
        est.predict(bad)


@pytest.mark.parametrize("cls", BOTH)
def test_string_numpy_array(cls, Xy):
    _, y = Xy
    X = np.array([["a", "b"], ["c", "d"]] * 10)
    with pytest.raises(ValueError, match=r"non-numeric values.*'category' columns or listed in "
                                         r"nominal_features"):
        cls().fit(X, y)
    # listing the columns as nominal is the documented way in
    est = cls(nominal_features=[0, 1]).fit(X, y)
    assert est.predict(X).shape == (20,)


def test_mixed_object_numpy_array(Xy):
    _, y = Xy
    X = np.array([[1.0, "a"], [2.0, "b"]] * 10, dtype=object)
    with pytest.raises(ValueError, match=r"non-numeric"):
        CLF().fit(X, y)


def test_other_unsupported_X(Xy):
    from scipy import sparse
    X, y = Xy
    with pytest.raises(TypeError, match=r"sparse input is not supported.*toarray"):
        CLF().fit(sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match=r"Complex data not supported"):
        CLF().fit(X + 1j, y)
    with pytest.raises(ValueError, match=r"X is None"):
        CLF().fit(None, y)


def test_bad_nominal_features(Xy, df):
    X, y = Xy
    with pytest.raises(ValueError, match=r"nominal_features index 7 out of range for 3 features"):
        CLF(nominal_features=[7]).fit(X, y)
    with pytest.raises(ValueError, match=r"nominal_features names .*zz.*not a column"):
        CLF(nominal_features=["zz"]).fit(df, np.arange(20) % 2)
    with pytest.raises(ValueError, match=r"boolean mask must have length 3"):
        CLF(nominal_features=[True, False]).fit(X, y)


def test_hist_splitter_with_too_many_categories():
    n = 300
    X = pd.DataFrame({"c": pd.Categorical(np.arange(n))})
    with pytest.raises(ValueError, match=r"splitter='hist'.*at most 255 categories.*got 300.*"
                                         r"splitter='best'"):
        CLF(splitter="hist").fit(X, np.arange(n) % 2)
    CLF(splitter="best").fit(X, np.arange(n) % 2)  # fine with the exact splitter


# ------------------------------------------------------------- sample weight
@pytest.mark.parametrize("cls", BOTH)
def test_negative_sample_weight(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"Negative values in sample_weight"):
        cls().fit(X, y, sample_weight=np.r_[-1.0, np.ones(19)])


@pytest.mark.parametrize("cls", BOTH)
def test_sample_weight_of_wrong_length_or_shape(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(19,\), expected \(20,\)"):
        cls().fit(X, y, sample_weight=np.ones(19))
    with pytest.raises(ValueError, match=r"Sample weights must be 1D"):
        cls().fit(X, y, sample_weight=np.ones((20, 1)))


@pytest.mark.parametrize("cls", BOTH)
def test_nan_zero_sample_weight(cls, Xy):
    X, y = Xy
    with pytest.raises(ValueError, match=r"sample_weight contains NaN or infinity"):
        cls().fit(X, y, sample_weight=np.r_[np.nan, np.ones(19)])
    with pytest.raises(ValueError, match=r"Sum of sample weights is zero"):
        cls().fit(X, y, sample_weight=np.zeros(20))


# ----------------------------------------------------------- hyper-parameters
BAD_PARAMS = [
    (dict(max_depth=0), ValueError, r"max_depth must be an int >= 1 or None, got 0"),
    (dict(max_depth=-3), ValueError, r"max_depth.*got -3"),
    (dict(max_depth=2.5), ValueError, r"max_depth.*got 2.5"),
    (dict(min_samples_leaf=0), ValueError, r"min_samples_leaf must be an int >= 1.*got 0"),
    (dict(min_samples_leaf=0.0), ValueError, r"min_samples_leaf as a float must be in \(0, 1\]"),
    (dict(min_samples_leaf="2"), TypeError, r"min_samples_leaf must be an int or a float"),
    (dict(min_samples_split=1), ValueError, r"min_samples_split must be an int >= 2"),
    (dict(max_features=2.0), ValueError, r"max_features as a float must be in \(0, 1\], got 2.0"),
    (dict(max_features="bad"), ValueError, r"max_features must be None, 'sqrt', 'log2'.*'bad'"),
    (dict(max_features=0), ValueError, r"max_features must be in \[1, n_features=3\], got 0"),
    (dict(max_features=4), ValueError, r"max_features must be in \[1, n_features=3\], got 4"),
    (dict(splitter="bad"), ValueError, r"splitter must be 'best'.*'hist'.*got 'bad'"),
    (dict(nominal_split="bad"), ValueError, r"nominal_split must be 'binary' or 'multiway', "
                                            r"got 'bad'"),
    (dict(max_bins=1), ValueError, r"max_bins must be an int in \[2, 255\], got 1"),
    (dict(max_bins=300), ValueError, r"max_bins must be an int in \[2, 255\], got 300"),
    (dict(max_bins=1, splitter="hist"), ValueError, r"max_bins.*got 1"),
    (dict(max_bins=300, splitter="hist"), ValueError, r"max_bins.*got 300"),
    (dict(pruning="bad"), ValueError, r"pruning must be None, 'cost_complexity' or "
                                      r"'pessimistic', got 'bad'"),
    (dict(ccp_alpha=-1.0), ValueError, r"ccp_alpha must be a float >= 0"),
    (dict(min_weight_fraction_leaf=0.7), ValueError, r"min_weight_fraction_leaf must be a float in "
                                                     r"\[0, 0.5\]"),
    (dict(min_impurity_decrease=-1.0), ValueError, r"min_impurity_decrease must be a float >= 0"),
    (dict(random_state="x"), ValueError, r"'x' cannot be used to seed"),
    (dict(criterion=3), TypeError, r"criterion must be a string or a "
                                   r"treelab.split_criteria.Criterion, got int"),
]
CLF_ONLY = [
    (dict(criterion="bad"), ValueError, r"unknown classification criterion 'bad'; choose one of "
                                        r"\[.*'entropy'.*'gini'.*\]"),
    (dict(criterion="squared_error"), ValueError, r"unknown classification criterion "
                                                  r"'squared_error'"),
    (dict(class_weight="bad"), ValueError, r"class_weight must be None, 'balanced' or a dict"),
    (dict(class_weight={7: 2.0}), ValueError, r"class_weight names the class 7"),
    (dict(pruning="pessimistic", confidence=1.5), ValueError, r"confidence must be a float in \(0, 1\)"),
]
REG_ONLY = [
    (dict(criterion="bad"), ValueError, r"unknown regression criterion 'bad'; choose one of "
                                        r"\[.*'squared_error'.*\]"),
    (dict(criterion="gini"), ValueError, r"unknown regression criterion 'gini'"),
    (dict(criterion="entropy"), ValueError, r"unknown regression criterion 'entropy'"),
    (dict(pruning="pessimistic"), ValueError, r"pessimistic \(C4.5\) pruning is for "
                                              r"classification"),
]


def _ids(cases):
    return [",".join(f"{k}={v!r}" for k, v in kw.items()) for kw, _, _ in cases]


@pytest.mark.parametrize("kw, exc, msg", BAD_PARAMS + CLF_ONLY, ids=_ids(BAD_PARAMS + CLF_ONLY))
def test_bad_classifier_params(kw, exc, msg, Xy):
    X, y = Xy
    with pytest.raises(exc, match=msg):
        CLF(**kw).fit(X, y)


@pytest.mark.parametrize("kw, exc, msg", BAD_PARAMS + REG_ONLY, ids=_ids(BAD_PARAMS + REG_ONLY))
def test_bad_regressor_params(kw, exc, msg, Xy):
    X, y = Xy
    with pytest.raises(exc, match=msg):
        REG(**kw).fit(X, y.astype(float))


def test_criterion_object_of_the_wrong_task(Xy):
    from treelab.split_criteria import GINI, VARIANCE
    X, y = Xy
    with pytest.raises(ValueError, match=r"criterion 'squared_error' is for regression, not "
                                         r"classification"):
        CLF(criterion=VARIANCE).fit(X, y)
    with pytest.raises(ValueError, match=r"criterion 'gini' is for classification, not "
                                         r"regression"):
        REG(criterion=GINI).fit(X, y.astype(float))


def test_bad_params_are_reported_at_fit_not_init():
    # scikit-learn convention: __init__ only stores
    est = CLF(max_depth=0, splitter="bad")
    assert est.get_params()["max_depth"] == 0


# ------------------------------------------------------------ not fitted yet
@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba"])
def test_predict_before_fit(method, Xy):
    X, _ = Xy
    with pytest.raises(NotFittedError, match=r"not fitted yet.*Call 'fit'"):
        getattr(CLF(), method)(X)


def test_regressor_predict_and_inspection_before_fit(Xy):
    X, _ = Xy
    with pytest.raises(NotFittedError, match=r"DecisionTreeRegressor instance is not fitted"):
        REG().predict(X)
    for call in (lambda: CLF().get_depth(), lambda: CLF().get_n_leaves(),
                 lambda: CLF().feature_importances_):
        with pytest.raises(NotFittedError, match=r"not fitted yet"):
            call()


# regression test: these used to read self.tree_ before check_is_fitted and
# raised a bare AttributeError (fixed in 2cd31bc)
@pytest.mark.parametrize("call", ["apply", "decision_path", "export_text"])
def test_apply_decision_path_export_before_fit(call, Xy):
    X, _ = Xy
    est = CLF()
    with pytest.raises(NotFittedError, match=r"not fitted yet"):
        if call == "export_text":
            export_text(est)
        else:
            getattr(est, call)(X)


# ------------------------------------------------------------ failed refits
def test_failed_refit_raises_and_leaves_the_old_tree_usable(Xy):
    """Documented behaviour: a refit that fails during validation raises the
    validation error; the previously fitted tree (``tree_``) is not replaced,
    so the estimator still predicts as before.  (See the next test for a refit
    with different classes.)"""
    X, y = Xy
    est = CLF().fit(X, y)
    before = est.predict_proba(X)
    tree = est.tree_
    with pytest.raises(ValueError, match=r"only one class"):
        est.fit(X, np.zeros(20))
    with pytest.raises(ValueError, match=r"max_depth"):
        est.set_params(max_depth=0).fit(X, y)
    est.set_params(max_depth=None)
    with pytest.raises(ValueError, match=r"X contains infinity"):
        est.fit(np.full_like(X, np.inf), y)
    assert est.tree_ is tree
    np.testing.assert_array_equal(est.predict_proba(X), before)
    # and a later successful fit works normally
    est.fit(X, 1 - y)
    np.testing.assert_array_equal(est.predict(X), 1 - y)


# regression test: fit() used to set classes_/n_classes_ before later validation
# (sample weights, hyper-parameters) could fail, leaving classes_ inconsistent with
# the old tree_ (fixed in 2cd31bc)
def test_failed_refit_with_new_classes_keeps_state_consistent(Xy):
    X, y = Xy
    est = CLF().fit(X, y)
    before = est.predict_proba(X)
    y3 = np.arange(20) % 3
    with pytest.raises(ValueError, match=r"max_depth"):
        est.set_params(max_depth=0).fit(X, y3)
    with pytest.raises(ValueError, match=r"Sum of sample weights is zero"):
        est.set_params(max_depth=None).fit(X, y3, sample_weight=np.zeros(20))
    with pytest.raises(ValueError, match=r"class_weight names the class 7"):
        est.set_params(class_weight={7: 1.0}).fit(X, y3)
    est.set_params(class_weight=None)
    # the old model is intact and consistent
    assert est.classes_.tolist() == [0, 1] and est.n_classes_ == 2
    assert est.tree_.value.shape[1] == len(est.classes_)
    np.testing.assert_array_equal(est.predict_proba(X), before)
    assert set(est.predict(X)) <= {0, 1}


# ------------------------------------------------- future-proof encodings
# regression test: data._encode_column_nominal used to build
# pd.Categorical(values, categories=fit_categories) with values outside the
# categories, which pandas 3 deprecates (Pandas4Warning; an error in pandas 4)
# (fixed in 2cd31bc)
def test_unseen_category_at_predict_time_does_not_rely_on_deprecated_pandas():
    X = pd.DataFrame({"c": pd.Categorical(["a", "b"] * 5)})
    est = CLF().fit(X, [0, 1] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        unseen = est.apply(pd.DataFrame({"c": pd.Categorical(["a", "b", "z"])}))
        plain = est.apply(pd.DataFrame({"c": ["a", "b", "z"]}))
    missing = est.apply(pd.DataFrame({"c": pd.Categorical(["a", "b", None])}))
    np.testing.assert_array_equal(unseen, missing)      # unseen goes where missing goes
    np.testing.assert_array_equal(plain, missing)


# regression test: a NumPy array with nominal_features used to go through
# pd.DataFrame(arr), whose labels 0..d-1 became feature_names_in_ ['0', '1'], so
# predicting on the same array warned about feature names (fixed in 2cd31bc)
def test_numpy_with_nominal_features_has_no_feature_names():
    X = np.array([["a", "b"], ["c", "d"]] * 10)
    y = np.arange(20) % 2
    est = CLF(nominal_features=[0, 1]).fit(X, y)
    assert not hasattr(est, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(X)


# regression test (scikit-learn convention): a DataFrame with non-string column
# labels has no feature names; treelab used to store str(label) and then warn on
# NumPy input (fixed in 2cd31bc)
def test_integer_column_labels_are_not_feature_names(Xy):
    X, y = Xy
    est = CLF().fit(pd.DataFrame(X), y)
    assert not hasattr(est, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(X)
