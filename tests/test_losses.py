"""Losses (treelab.losses): gradients/Hessians against finite differences and SciPy."""
import math
import pickle

import numpy as np
import pytest
from numba import njit, types
from scipy import special

from treelab.losses import (
    GRAD_HESS_SIG, GRAD_HESS_TYPE, CustomLoss, Logistic, Loss, MultiInstanceMax, Softmax,
    SquaredError, bag_max, bag_offsets_from_ids, get_loss, mi_grad_hess,
)

EPS = 1e-5


# A user-defined loss living outside the package: pseudo-Huber with delta = 1.
def pseudo_huber_grad(y, f):
    r = f - y
    return r / math.sqrt(1.0 + r * r)


def pseudo_huber_hess(y, f):
    r = f - y
    return (1.0 + r * r) ** -1.5


def pseudo_huber_value(y, f):
    r = f - y
    return math.sqrt(1.0 + r * r) - 1.0


# and a piecewise one: Huber with delta = 1
def huber_grad(y, f):
    r = f - y
    return max(-1.0, min(1.0, r))


def huber_hess(y, f):
    return 1.0 if abs(f - y) <= 1.0 else 0.0


def huber_value(y, f):
    r = abs(f - y)
    return 0.5 * r * r if r <= 1.0 else r - 0.5


# A kernel taking the loss as a first-class function, the way the engine does.
@njit(types.void(GRAD_HESS_TYPE, types.float64[::1], types.float64[:, ::1],
                 types.float64[:, ::1], types.float64[:, ::1]))
def _engine_like_kernel(grad_hess, y, raw, grad, hess):
    grad_hess(y, raw, grad, hess)


def _fd_check(loss, y, raw, rtol=1e-6, atol=1e-7):
    """Compare grad with d value / d raw and hess with d grad / d raw (central differences)."""
    grad, hess = loss.gradients(y, raw)
    fd_g = np.empty_like(raw)
    fd_h = np.empty_like(raw)
    for j in range(raw.shape[1]):
        e = np.zeros_like(raw)
        e[:, j] = EPS
        fd_g[:, j] = (loss.value(y, raw + e) - loss.value(y, raw - e)) / (2 * EPS)
        fd_h[:, j] = (loss.gradients(y, raw + e)[0][:, j]
                      - loss.gradients(y, raw - e)[0][:, j]) / (2 * EPS)
    np.testing.assert_allclose(grad, fd_g, rtol=rtol, atol=atol)
    np.testing.assert_allclose(hess, fd_h, rtol=rtol, atol=atol)
    return grad, hess


def test_signature_objects():
    assert GRAD_HESS_TYPE == types.FunctionType(GRAD_HESS_SIG)
    for loss in (SquaredError(), Logistic(), Softmax()):
        assert tuple(GRAD_HESS_SIG.args) in [tuple(s) for s in loss.grad_hess.signatures]


def test_squared_error():
    rng = np.random.default_rng(0)
    y = rng.normal(size=20)
    raw = rng.normal(size=(20, 1))
    loss = SquaredError()
    grad, hess = _fd_check(loss, y, raw)
    np.testing.assert_allclose(grad[:, 0], raw[:, 0] - y)
    np.testing.assert_array_equal(hess, 1.0)
    np.testing.assert_allclose(loss.value(y, raw), 0.5 * (raw[:, 0] - y) ** 2)
    assert loss.n_outputs() == 1
    np.testing.assert_array_equal(loss.inverse_link(raw), raw)
    np.testing.assert_array_equal(loss.init_raw(y), [0.0])
    assert loss.init_raw(y, strategy="prior")[0] == pytest.approx(y.mean())
    # 1-D raw is taken as one output
    g1, _ = loss.gradients(y, raw[:, 0])
    np.testing.assert_array_equal(g1, grad)


def test_logistic():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 30).astype(float)
    raw = rng.normal(0, 3, size=(30, 1))
    loss = Logistic()
    grad, hess = _fd_check(loss, y, raw)
    p = special.expit(raw[:, 0])
    np.testing.assert_allclose(grad[:, 0], p - y, rtol=1e-13)
    np.testing.assert_allclose(hess[:, 0], p * (1 - p), rtol=1e-13)
    ref = -(y * np.log(p) + (1 - y) * np.log1p(-p))
    np.testing.assert_allclose(loss.value(y, raw), ref, rtol=1e-12)
    np.testing.assert_allclose(loss.inverse_link(raw), special.expit(raw), rtol=1e-15)
    np.testing.assert_allclose(loss.link(loss.inverse_link(raw)), raw, rtol=1e-9)
    proba = loss.predict_proba(raw)
    assert proba.shape == (30, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert loss.init_raw(y, strategy="prior")[0] == pytest.approx(special.logit(y.mean()))
    assert loss.n_outputs(2) == 1
    with pytest.raises(ValueError):
        loss.n_outputs(3)
    # extreme scores: no overflow, no nan
    g, h = loss.gradients([1.0, 0.0], np.array([[-800.0], [800.0]]))
    np.testing.assert_allclose(g[:, 0], [-1.0, 1.0])
    assert np.isfinite(h).all() and np.isfinite(loss.value([1.0, 0.0], [[-800.0], [800.0]])).all()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_softmax(k):
    rng = np.random.default_rng(k)
    n = 25
    y = rng.integers(0, k, n).astype(float)
    raw = rng.normal(0, 2, size=(n, k - 1))
    loss = Softmax()
    assert loss.n_outputs(k) == k - 1
    grad, hess = _fd_check(loss, y, raw)
    full = np.column_stack([raw, np.zeros(n)])        # last class hard-wired to 0
    p = special.softmax(full, axis=1)
    onehot = np.eye(k)[y.astype(int)]
    np.testing.assert_allclose(grad, (p - onehot)[:, :-1], atol=1e-14)
    np.testing.assert_allclose(hess, (p * (1 - p))[:, :-1], atol=1e-14)
    np.testing.assert_allclose(loss.value(y, raw), -np.log(p[np.arange(n), y.astype(int)]),
                               rtol=1e-12)
    np.testing.assert_allclose(loss.inverse_link(raw), p, rtol=1e-13)
    np.testing.assert_allclose(loss.link(p), raw, rtol=1e-9, atol=1e-12)
    prior = loss.init_raw(y, n_classes=k, strategy="prior")
    freq = np.bincount(y.astype(int), minlength=k) / n
    np.testing.assert_allclose(loss.inverse_link(prior[None, :])[0], freq, atol=1e-12)
    np.testing.assert_array_equal(loss.init_raw(y, n_classes=k), np.zeros(k - 1))


def test_softmax_two_classes_is_logistic_on_class_zero():
    raw = np.array([[-2.0], [0.3], [4.0]])
    y = np.array([0.0, 1.0, 0.0])
    g_s, h_s = Softmax().gradients(y, raw)
    g_l, h_l = Logistic().gradients(1.0 - y, raw)     # class 0 plays "positive"
    np.testing.assert_allclose(g_s, g_l, atol=1e-15)
    np.testing.assert_allclose(h_s, h_l, atol=1e-15)


@pytest.mark.parametrize("grad,hess,value", [
    (pseudo_huber_grad, pseudo_huber_hess, pseudo_huber_value),
    (huber_grad, huber_hess, huber_value),
])
def test_custom_loss_from_functions(grad, hess, value):
    loss = Loss.from_functions(grad, hess, name="user", value=value)
    assert isinstance(loss, CustomLoss) and loss.name == "user"
    rng = np.random.default_rng(7)
    y = rng.normal(size=40)
    raw = y[:, None] + rng.uniform(-3, 3, size=(40, 1))
    raw[np.abs(np.abs(raw[:, 0] - y) - 1.0) < 1e-3] += 0.01    # keep away from Huber's kink
    g, h = _fd_check(loss, y, raw)
    np.testing.assert_allclose(g[:, 0], [grad(a, b) for a, b in zip(y, raw[:, 0])])
    np.testing.assert_allclose(h[:, 0], [hess(a, b) for a, b in zip(y, raw[:, 0])])
    # the engine receives it as a first-class function, like the built-ins
    g2 = np.empty_like(raw)
    h2 = np.empty_like(raw)
    _engine_like_kernel(loss.grad_hess, y, raw, g2, h2)
    np.testing.assert_array_equal(g2, g)
    np.testing.assert_array_equal(h2, h)
    # pickles by reference to the functions
    back = pickle.loads(pickle.dumps(loss))
    np.testing.assert_array_equal(back.gradients(y, raw)[0], g)
    assert back == loss


def test_custom_loss_without_value_and_with_links():
    loss = CustomLoss(pseudo_huber_grad, pseudo_huber_hess, inverse_link=np.exp, link=np.log)
    with pytest.raises(NotImplementedError):
        loss.value([0.0], [[1.0]])
    np.testing.assert_allclose(loss.inverse_link([0.0, 1.0]), [1.0, math.e])
    np.testing.assert_allclose(loss.link([1.0]), [0.0])
    with pytest.raises(TypeError):
        Loss.from_functions(pseudo_huber_grad, "not a function")


def test_builtin_losses_through_an_engine_kernel():
    y = np.array([0.0, 1.0, 2.0])
    raw = np.ascontiguousarray(np.arange(6.0).reshape(3, 2) / 4)
    for loss in (SquaredError(), Softmax()):
        g = np.empty_like(raw)
        h = np.empty_like(raw)
        _engine_like_kernel(loss.grad_hess, y, raw, g, h)
        ge, he = loss.gradients(y, raw)
        np.testing.assert_array_equal(g, ge)
        np.testing.assert_array_equal(h, he)


def test_loss_from_vectorised_grad_hess():
    def twice_squared(y, raw, grad, hess):
        for i in range(raw.shape[0]):
            for j in range(raw.shape[1]):
                grad[i, j] = 2.0 * (raw[i, j] - y[i])
                hess[i, j] = 2.0
    loss = Loss("twice", twice_squared)
    g, h = loss.gradients([1.0, 2.0], [[0.0], [0.0]])
    np.testing.assert_array_equal(g[:, 0], [-2.0, -4.0])
    np.testing.assert_array_equal(h, 2.0)


def test_validation_errors():
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        Logistic().gradients([0.0, 2.0], [[0.0], [0.0]])
    with pytest.raises(ValueError, match="class codes"):
        Softmax().gradients([0.0, 3.0], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="class codes"):
        Softmax().gradients([0.5, 1.0], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="rows"):
        SquaredError().gradients([0.0, 1.0, 2.0], np.zeros((2, 1)))
    with pytest.raises(ValueError):
        SquaredError().gradients(np.zeros((2, 2)), np.zeros((2, 1)))
    with pytest.raises(ValueError):
        Softmax().n_outputs(None)
    with pytest.raises(ValueError):
        SquaredError().init_raw([1.0], strategy="median")
    with pytest.raises(ValueError):
        Logistic().init_raw([0.0, 3.0], strategy="prior")
    with pytest.raises(ValueError):
        Softmax().init_raw([0.0, 3.0], n_classes=3, strategy="prior")


def test_get_loss_and_pickle():
    assert isinstance(get_loss("squared_error"), SquaredError)
    assert isinstance(get_loss("logistic"), Logistic)
    assert isinstance(get_loss("softmax"), Softmax)
    assert isinstance(get_loss("MSE"), SquaredError)
    assert isinstance(get_loss("multi_instance_max"), MultiInstanceMax)
    loss = Logistic()
    assert get_loss(loss) is loss
    with pytest.raises(ValueError, match="unknown loss"):
        get_loss("hinge")
    with pytest.raises(TypeError):
        get_loss(3)
    for loss in (SquaredError(), Logistic(), Softmax()):
        back = pickle.loads(pickle.dumps(loss))
        assert back == loss and back.grad_hess is loss.grad_hess


# ----------------------------------------------------------------- multi-instance

def _bags():
    rng = np.random.default_rng(11)
    sizes = [3, 1, 4, 2, 5]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    raw = rng.normal(0, 2, offsets[-1])
    y_bag = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    return y_bag, raw, offsets


def test_bag_max_matches_numpy():
    _, raw, off = _bags()
    scores, arg = bag_max(raw, off)
    for b in range(len(off) - 1):
        seg = raw[off[b]:off[b + 1]]
        assert scores[b] == seg.max()
        assert arg[b] == off[b] + np.argmax(seg)
    s, a = bag_max(np.array([1.0, 2.0]), np.array([0, 0, 2], dtype=np.int64))
    assert s[0] == -np.inf and a[0] == -1 and a[1] == 1


def test_mi_grad_hess_finite_differences():
    y_bag, raw, off = _bags()
    mi = MultiInstanceMax()
    grad, hess = mi.gradients(y_bag, raw, off)
    total = lambda r: mi.value(y_bag, r, off).sum()       # noqa: E731
    total_grad = lambda r: mi.gradients(y_bag, r, off)[0]  # noqa: E731
    for i in range(len(raw)):
        e = np.zeros_like(raw)
        e[i] = EPS
        assert grad[i] == pytest.approx((total(raw + e) - total(raw - e)) / (2 * EPS), abs=1e-7)
        assert hess[i] == pytest.approx((total_grad(raw + e)[i] - total_grad(raw - e)[i]) / (2 * EPS),
                                        abs=1e-6)
    # only the arg-max instance of each bag gets a gradient
    _, arg = bag_max(raw, off)
    mask = np.zeros(len(raw), bool)
    mask[arg] = True
    assert (grad[~mask] == 0).all() and (hess[~mask] == 0).all()
    p = special.expit(raw[arg])
    np.testing.assert_allclose(grad[arg], p - y_bag, rtol=1e-13)
    np.testing.assert_allclose(hess[arg], p * (1 - p), rtol=1e-13)
    proba = mi.predict_proba(raw, off)
    np.testing.assert_allclose(proba[:, 1], p, rtol=1e-13)
    # the raw kernel, called directly
    g2 = np.full_like(raw, 9.0)
    h2 = np.full_like(raw, 9.0)
    mi_grad_hess(y_bag, raw, off, g2, h2)
    np.testing.assert_array_equal(g2, grad)
    np.testing.assert_array_equal(h2, hess)


def test_bag_offsets_from_ids_and_validation():
    ids = np.array([7, 3, 7, 3, 9, 7])
    order, off, bags = bag_offsets_from_ids(ids)
    np.testing.assert_array_equal(bags, [3, 7, 9])
    np.testing.assert_array_equal(off, [0, 2, 5, 6])
    np.testing.assert_array_equal(ids[order], [3, 3, 7, 7, 7, 9])
    np.testing.assert_array_equal(order, [1, 3, 0, 2, 5, 4])  # stable
    mi = MultiInstanceMax()
    with pytest.raises(ValueError):
        mi.gradients([1.0, 0.0], np.zeros(6), np.array([0, 2, 5, 6]))   # 3 bags, 2 labels
    with pytest.raises(ValueError):
        mi.gradients([1.0, 0.0, 1.0], np.zeros(6), np.array([0, 2, 5, 7]))
    with pytest.raises(ValueError):
        mi.gradients([1.0, 0.0, 2.0], np.zeros(6), off)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_predict_proba_one_matches_the_vectorised_probabilities(k):
    rng = np.random.default_rng(k)
    loss = Logistic() if k == 2 else Softmax()
    raw = rng.normal(scale=20.0, size=(50, k - 1))
    raw[0] = 0.0
    raw[1] = 800.0                     # overflow-safe in both directions
    raw[2] = -800.0
    ref = loss.predict_proba(raw if k > 2 else raw[:, 0])
    for i in range(raw.shape[0]):
        got = loss.predict_proba_one(raw[i])
        np.testing.assert_allclose(got, ref[i], rtol=1e-12, atol=1e-300)
        assert math.isclose(sum(got), 1.0, rel_tol=1e-12)


@pytest.mark.parametrize("first_order", [False, True])
@pytest.mark.parametrize("n_chunks", [1, 7])
def test_newton_round_stats_is_the_loss_then_the_weighted_products(first_order, n_chunks):
    from treelab._engine.loss_kernels import newton_round_stats
    from treelab.losses import Softmax
    rng = np.random.default_rng(0)
    n, K = 1001, 3
    y = rng.integers(0, K, n).astype(np.float64)
    raw = rng.normal(size=(n, K))
    w = rng.uniform(0.5, 2.0, n)
    loss = Softmax()
    g0, h0 = loss.gradients(y, raw)
    for rowwise in (True, False):
        G = np.empty((n, K))
        H = np.empty((n, K))
        sst = np.full((K, n, 3), 7.0)
        newton_round_stats(loss.grad_hess, y, raw, G, H, w, sst, first_order, rowwise, n_chunks)
        np.testing.assert_array_equal(G, g0)
        np.testing.assert_array_equal(H, h0)
        for j in range(K):
            np.testing.assert_array_equal(sst[j, :, 0], w if first_order else w * h0[:, j])
            np.testing.assert_array_equal(sst[j, :, 1], w * g0[:, j])
            assert np.all(sst[j, :, 2] == 7.0)


def test_only_element_wise_losses_are_marked_row_wise():
    from treelab.losses import Huber, Logistic, Loss, SquaredError
    assert Logistic().rowwise and SquaredError().rowwise and Huber(2.0).rowwise
    assert Loss.from_functions(huber_grad, huber_hess).rowwise

    def twice_squared(y, raw, grad, hess):
        for i in range(raw.shape[0]):
            grad[i, 0] = 2.0 * (raw[i, 0] - y[i])
            hess[i, 0] = 2.0
    assert not Loss("mine", twice_squared).rowwise
