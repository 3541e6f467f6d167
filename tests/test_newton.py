"""The second-order (Newton / XGBoost) criterion on the batch engine.

References: hand-computed values from the course slides' formulas
(``papers/004``, section 6.9 "XGBoost": structure score, gain, leaf weight)
and a slow pure-Python tree grower written below, depth-wise and loss-guided,
with and without missing values; squared loss with lambda = 0 against
DecisionTreeRegressor(splitter="hist") on the same bins.
"""
import heapq
import math

import numpy as np
import pytest

from treelab import DecisionTreeRegressor
from treelab._engine.binning import bin_data
from treelab._engine.builder import make_params
from treelab._engine.build import build_tree
from treelab._engine.merit import MERIT_NEWTON, TASK_DENSE, split_merit
from treelab._engine.tree import LEAF, predict_value_serial, trim
from treelab.split_criteria import NewtonCriterion, newton_stats

# ------------------------------------------------------------------ hand-computed
# five instances (the slides' structure-score table), one feature x = 1..5
G5 = np.array([-2.0, -1.0, 0.5, 1.0, 3.0])
H5 = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
X5 = np.arange(1.0, 6.0).reshape(-1, 1)


def _stats(rows):
    return np.array([H5[rows].sum(), G5[rows].sum(), len(rows)], np.float64)


def test_gain_and_leaf_weights_by_hand():
    crit = NewtonCriterion(reg_lambda=1.0, gamma=0.5, min_child_weight=0.0)
    left, right = _stats([0, 1]), _stats([2, 3, 4])
    parent = left + right
    # G_L = -3, H_L = 2; G_R = 4.5, H_R = 3; G = 1.5, H = 5
    # Gain = 1/2 [9/3 + 20.25/4 - 2.25/6] - 0.5 = 1/2 * 7.6875 - 0.5 = 3.34375
    assert crit.gain(np.array([left, right])) == pytest.approx(3.34375, abs=1e-12)
    g, r, _ = split_merit(parent, 0.0, np.array([left, right]), TASK_DENSE, MERIT_NEWTON, 0,
                          crit.impurity, crit.merit, crit.params)
    assert g == pytest.approx(3.34375, abs=1e-12) and r == g
    # w* = -G / (H + lambda): left 3/3 = 1, right -4.5/4 = -1.125
    np.testing.assert_allclose(crit.leaf_weight(np.array([left, right])), [1.0, -1.125])
    # structure score of the two-leaf tree: -1/2 (9/3 + 20.25/4) + 2 gamma = -3.03125
    obj = sum(crit.node_impurity(s) for s in (left, right)) + 2 * 0.5
    assert obj == pytest.approx(-3.03125, abs=1e-12)


def test_l1_soft_threshold_by_hand():
    crit = NewtonCriterion(reg_lambda=1.0, reg_alpha=1.0, gamma=0.0)
    left, right = _stats([0, 1]), _stats([2, 3, 4])
    # T(-3) = -2, T(4.5) = 3.5, T(1.5) = 0.5
    # Gain = 1/2 [4/3 + 12.25/4 - 0.25/6] = 1/2 (1.333.. + 3.0625 - 0.041666..) = 2.177083..
    expect = 0.5 * (4 / 3 + 12.25 / 4 - 0.25 / 6)
    assert crit.gain(np.array([left, right])) == pytest.approx(expect, abs=1e-12)
    g, _, _ = split_merit(left + right, 0.0, np.array([left, right]), TASK_DENSE, MERIT_NEWTON,
                          0, crit.impurity, crit.merit, crit.params)
    assert g == pytest.approx(expect, abs=1e-12)
    np.testing.assert_allclose(crit.leaf_weight(np.array([left, right])), [2 / 3, -3.5 / 4])
    # |G| <= alpha: weight 0
    assert crit.leaf_weight(np.array([0.5, 0.7, 1.0])) == 0.0


def _engine_tree(X, g, h, crit, max_depth=6, max_leaves=None, use_hist=False, policy="depthwise"):
    n, d = X.shape
    data = bin_data(X, np.zeros(d, bool), np.zeros(d, np.int64), use_hist)
    params = make_params(TASK_DENSE, 3, max_depth, 2, 1, crit.min_child_weight, 0.0, d, False,
                         crit.merit_code, crit.builtin_code,
                         max_leaves=max_leaves or np.iinfo(np.int64).max)
    t = build_tree(data, np.zeros(0, np.int64), newton_stats(g, h), np.ones(n), params,
                   crit.impurity, crit.merit, cp=crit.params, grow_policy=policy)
    return trim(t)


def _engine_predict(t, crit, X):
    leaf_w = crit.leaf_weight(t.value)
    t2 = t._replace(value=np.ascontiguousarray(leaf_w.reshape(-1, 1)))
    return predict_value_serial(t2, np.ascontiguousarray(X, dtype=np.float64))[:, 0]


def test_five_rows_tree_takes_the_best_hand_split():
    crit = NewtonCriterion(reg_lambda=1.0, gamma=0.5, min_child_weight=0.0)
    t = _engine_tree(X5, G5, H5, crit, max_depth=1)
    # candidates x <= 1.5, 2.5, 3.5, 4.5; by hand (lambda 1, parent term 2.25/6 = 0.375):
    # {1}|{2..5}: 4/2 + 12.25/5 = 4.45  -> gain 1/2 (4.45 - 0.375) - 0.5 = 1.5375
    # {1,2}|{3..5}: 3 + 5.0625 = 8.0625 -> 3.34375 (best)
    # {1..3}|{4,5}: 6.25/4 + 16/3 = 6.895833 -> 2.760417
    # {1..4}|{5}: 2.25/5 + 9/2 = 4.95 -> 1.7875
    assert t.kind[0] != LEAF and t.threshold[0] == 2.5
    np.testing.assert_allclose(_engine_predict(t, crit, X5), [1, 1, -1.125, -1.125, -1.125])


def test_gamma_stops_a_split_with_negative_gain_and_min_child_weight_blocks():
    # best gain before gamma is 3.84375: gamma 4 makes every split negative -> a leaf
    t = _engine_tree(X5, G5, H5, NewtonCriterion(reg_lambda=1.0, gamma=4.0,
                                                  min_child_weight=0.0), max_depth=3)
    assert t.sizes[0] == 1
    # min_child_weight 2.5: each child needs a Hessian sum >= 2.5, i.e. 3 rows: no split
    t = _engine_tree(X5, G5, H5, NewtonCriterion(reg_lambda=1.0, min_child_weight=2.5),
                     max_depth=3)
    assert t.sizes[0] == 1
    # min_child_weight 2: only {1,2}|{3,4,5} and {1,2,3}|{4,5} remain; the first is better
    t = _engine_tree(X5, G5, H5, NewtonCriterion(reg_lambda=1.0, min_child_weight=2.0),
                     max_depth=1)
    assert t.threshold[0] == 2.5


# ------------------------------------------------------ slow pure-Python reference
def _T(g, alpha):
    return math.copysign(max(abs(g) - alpha, 0.0), g)


def _score(G, H, lam, alpha):
    return _T(G, alpha) ** 2 / (H + lam) if H + lam > 0 else 0.0


def _better(v, best, scale=0.0):
    """merit.better_at: ties to rounding of |best| + scale."""
    return v > best if math.isinf(best) else v > best + 1e-12 * (abs(best) + scale)


def _ref_best_split(X, g, h, rows, lam, alpha, gamma, mcw, msl=1):
    """Best split of one node: every feature, every threshold between distinct
    values, missing values tried right then left (larger child when none)."""
    G, H = g[rows].sum(), h[rows].sum()
    parent = _score(G, H, lam, alpha)
    best = (-math.inf, None)
    for f in range(X.shape[1]):
        x = X[rows, f]
        nm = rows[~np.isnan(x)]
        ms = rows[np.isnan(x)]
        if len(nm) == 0:
            continue
        order = nm[np.argsort(X[nm, f], kind="stable")]
        v = X[order, f]
        if len(ms) == 0 and v[-1] <= v[0] + 1e-7:
            continue
        Gm, Hm = g[ms].sum(), h[ms].sum()
        f_best = (-math.inf, None)
        for p in range(len(order)):
            last = p == len(order) - 1
            if not last and v[p + 1] <= v[p] + 1e-7:
                continue
            if last and len(ms) == 0:
                break
            GL, HL = g[order[:p + 1]].sum(), h[order[:p + 1]].sum()
            nl = p + 1
            c_best = (-math.inf, None)
            for miss_left in (False, True):
                if miss_left and len(ms) == 0:
                    break
                gl, hl = (GL + Gm, HL + Hm) if miss_left else (GL, HL)
                nleft = nl + (len(ms) if miss_left else 0)
                if nleft < msl or len(rows) - nleft < msl or hl < mcw or H - hl < mcw:
                    continue
                gain = 0.5 * (_score(gl, hl, lam, alpha) + _score(G - gl, H - hl, lam, alpha)
                              - parent) - gamma
                if _better(gain, c_best[0]):
                    c_best = (gain, 0 if miss_left else 1)
            if c_best[1] is None or not _better(c_best[0], f_best[0]):
                continue
            mslot = c_best[1]
            if len(ms) == 0:
                mslot = 0 if nl >= len(rows) - nl else 1
            thr = math.inf if last else (v[p] / 2 + v[p + 1] / 2 if v[p] / 2 + v[p + 1] / 2 != v[p + 1] else v[p])
            if last:
                mslot = 1
            f_best = (c_best[0], (f, thr, mslot))
        if f_best[1] is not None and _better(f_best[0], best[0], 0.5 * parent):
            best = f_best
    return best


def _route(X, rows, f, thr, mslot):
    x = X[rows, f]
    go_left = np.where(np.isnan(x), mslot == 0, x <= thr)
    return rows[go_left], rows[~go_left]


def _ref_tree(X, g, h, lam, alpha, gamma, mcw, max_depth, max_leaves=None, msl=1):
    """Nested-dict tree: depth-wise (max_leaves None) or loss-guided growth; ``msl``
    rows at least in a child."""
    def leaf(rows, depth):
        return {"rows": rows, "depth": depth,
                "w": -_T(g[rows].sum(), alpha) / (h[rows].sum() + lam)}

    def candidate(node):
        rows = node["rows"]
        if node["depth"] >= max_depth or len(rows) < max(2, 2 * msl) or h[rows].sum() < 2 * mcw:
            return None
        gain, split = _ref_best_split(X, g, h, rows, lam, alpha, gamma, mcw, msl)
        # a gain within rounding of the node's score -G^2/2(H+lambda) is no gain
        # (builder.split_ok: exact zeros of lambda = 0 on rows sharing g and h)
        bar = 1e-12 * 0.5 * _score(g[rows].sum(), h[rows].sum(), lam, alpha)
        if split is None or not gain > bar:
            return None
        return gain, split

    def apply(node, split):
        f, thr, mslot = split
        lr, rr = _route(X, node["rows"], f, thr, mslot)
        node.update(split=split, kids=[leaf(lr, node["depth"] + 1), leaf(rr, node["depth"] + 1)])

    root = leaf(np.arange(X.shape[0]), 0)
    if max_leaves is None:
        stack = [root]
        while stack:
            node = stack.pop()
            c = candidate(node)
            if c is not None:
                apply(node, c[1])
                stack.extend(node["kids"])
        return root
    heap, count, n_leaves = [], 0, 1
    c = candidate(root)
    if c is not None:
        heapq.heappush(heap, (-c[0], count, root, c[1]))
    while heap and n_leaves < max_leaves:
        _, _, node, split = heapq.heappop(heap)
        apply(node, split)
        n_leaves += 1
        for kid in node["kids"]:
            count += 1
            c = candidate(kid)
            if c is not None:
                heapq.heappush(heap, (-c[0], count, kid, c[1]))
    return root


def _ref_predict(node, x):
    while "split" in node:
        f, thr, mslot = node["split"]
        left = (mslot == 0) if np.isnan(x[f]) else x[f] <= thr
        node = node["kids"][0 if left else 1]
    return node["w"]


def _n_leaves(node):
    return 1 if "split" not in node else sum(_n_leaves(k) for k in node["kids"])


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
@pytest.mark.parametrize("lam,alpha,gamma,mcw", [(1.0, 0.0, 0.0, 1.0), (0.5, 0.3, 0.2, 2.0)])
def test_engine_grows_the_reference_tree(missing, policy, lam, alpha, gamma, mcw):
    for seed in range(3):
        rng = np.random.default_rng(seed)
        n, d = 120, 3
        X = rng.normal(size=(n, d)).round(1)
        g = rng.normal(size=n) + X[:, 0]
        h = rng.uniform(0.5, 1.5, size=n)
        if missing:
            X[rng.random((n, d)) < 0.15] = np.nan
        crit = NewtonCriterion(reg_lambda=lam, reg_alpha=alpha, gamma=gamma,
                               min_child_weight=mcw)
        max_leaves = 7 if policy == "lossguide" else None
        t = _engine_tree(X, g, h, crit, max_depth=5, max_leaves=max_leaves, policy=policy)
        ref = _ref_tree(X, g, h, lam, alpha, gamma, mcw, 5, max_leaves)
        Xt = np.vstack([X, rng.normal(size=(50, d)).round(2)])
        Xt[rng.random(Xt.shape) < 0.1] = np.nan
        expect = np.array([_ref_predict(ref, x) for x in Xt])
        np.testing.assert_allclose(_engine_predict(t, crit, Xt), expect, rtol=1e-10, atol=1e-12)
        assert int((t.kind == LEAF).sum()) == _n_leaves(ref)
        if max_leaves:
            assert _n_leaves(ref) <= max_leaves


@pytest.mark.parametrize("policy", ["depthwise", "lossguide"])
def test_hist_engine_grows_the_reference_tree_with_some_features_never_missing(policy):
    """Histogram nodes (400 rows, values on a grid: one bin a value, the exact
    candidates), missing values in two of four features only: the features the
    root sees no missing value of are searched without reading their missing
    bin (builder._missing_on_root), the others with it; the reference tree."""
    for seed in range(2):
        rng = np.random.default_rng(seed)
        n, d = 400, 4
        X = rng.normal(size=(n, d)).round(1)
        g = rng.normal(size=n) + X[:, 0] - np.abs(X[:, 1])
        h = rng.uniform(0.5, 1.5, size=n)
        X[rng.random(n) < 0.2, 0] = np.nan
        X[rng.random(n) < 0.1, 2] = np.nan
        crit = NewtonCriterion(reg_lambda=1.0, min_child_weight=1.0)
        max_leaves = 9 if policy == "lossguide" else None
        t = _engine_tree(X, g, h, crit, max_depth=4, max_leaves=max_leaves, policy=policy,
                         use_hist=True)
        ref = _ref_tree(X, g, h, 1.0, 0.0, 0.0, 1.0, 4, max_leaves)
        Xt = np.vstack([X, rng.normal(size=(50, d)).round(2)])
        Xt[rng.random(Xt.shape) < 0.1] = np.nan
        expect = np.array([_ref_predict(ref, x) for x in Xt])
        np.testing.assert_allclose(_engine_predict(t, crit, Xt), expect, rtol=1e-10, atol=1e-12)
        assert int((t.kind == LEAF).sum()) == _n_leaves(ref) > 4
        # both kinds of features split on
        used = set(t.feature[t.kind != LEAF].tolist())
        assert used & {0, 2} and used & {1, 3}


def test_squared_loss_lambda_zero_equals_the_hist_regression_tree():
    rng = np.random.default_rng(3)
    n, d = 400, 4
    X = rng.normal(size=(n, d))
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(size=n) * 0.3
    X[rng.random((n, d)) < 0.05] = np.nan
    dt = DecisionTreeRegressor(splitter="hist", max_depth=6, random_state=0).fit(X, y)
    # one boosting round from raw score 0, learning rate 1: g = 0 - y, h = 1
    crit = NewtonCriterion(reg_lambda=0.0, min_child_weight=0.0)
    t = _engine_tree(X, -y, np.ones(n), crit, max_depth=6, use_hist=True)
    a = dt.tree_.arrays
    assert t.sizes[0] == a.sizes[0]
    np.testing.assert_array_equal(t.feature, a.feature)
    np.testing.assert_array_equal(t.threshold, a.threshold)
    np.testing.assert_array_equal(t.missing_child, a.missing_child)
    np.testing.assert_allclose(_engine_predict(t, crit, X), dt.predict(X), rtol=1e-10,
                               atol=1e-12)


def test_bad_parameters_and_pickling():
    import pickle
    with pytest.raises(ValueError, match="reg_lambda"):
        NewtonCriterion(reg_lambda=-1.0)
    with pytest.raises(ValueError, match="gamma"):
        NewtonCriterion(gamma=float("nan"))
    c = pickle.loads(pickle.dumps(NewtonCriterion(2.0, 0.5, 0.1, 3.0)))
    assert (c.reg_lambda, c.reg_alpha, c.gamma, c.min_child_weight) == (2.0, 0.5, 0.1, 3.0)
    np.testing.assert_array_equal(c.params, [2.0, 0.5, 0.1])


# ------------------------------------------- the histogram sweep, bin by bin
def _ref_imp(h, g, lam, alpha):
    # merit.newton_impurity on scalars: -1/2 T(G)^2 / (H + lambda), 0 when H + lambda <= 0
    den = h + lam
    if den <= 0.0:
        return 0.0
    t = g - alpha if g > alpha else (g + alpha if g < -alpha else 0.0)
    return -0.5 * t * t / den


def _ref_hist_sweep(hist, cnt, nvb, edges, mb, parent, cp, n_parent, msl, mwl):
    """The sweep as the slides define it, one candidate at a time: bins 0..b left
    (empty bins are no candidate, whatever their sums), missing values right then
    left (to the larger child when the node has none), the first best in bin order
    within better()'s tolerance.  The same operations in the same order as the
    kernel, so the same bits."""
    lam, alpha, gamma = cp
    h_par, g_par = parent[0], parent[1]
    imp_par = _ref_imp(h_par, g_par, lam, alpha)
    n_miss = int(cnt[mb])
    nonempty = int((cnt[:nvb] > 0).sum())
    if nonempty == 0 or (nonempty == 1 and n_miss == 0):
        return -1, -math.inf, 0.0, 0
    status, best, best_thr, best_slot = 0, -math.inf, 0.0, 1
    hl0 = gl0 = 0.0
    nl0 = 0
    for b in range(nvb):
        if cnt[b] == 0:
            continue
        hl0 += hist[b, 0]
        gl0 += hist[b, 1]
        nl0 += int(cnt[b])
        if nl0 == n_parent - n_miss and n_miss == 0:
            break
        c_best, c_slot, ok = -math.inf, 1, False
        for m in (0, 1) if n_miss else (0,):
            nl = nl0 + (n_miss if m else 0)
            hl = hl0 + (hist[mb, 0] if m else 0.0)
            gl = gl0 + (hist[mb, 1] if m else 0.0)
            hr, gr = h_par - hl, g_par - gl
            if nl < msl or n_parent - nl < msl or hl < mwl or hr < mwl:
                continue
            g = 0.0
            g -= _ref_imp(hl, gl, lam, alpha)
            g -= _ref_imp(hr, gr, lam, alpha)
            g += imp_par
            g -= gamma
            if _better(g, c_best):
                ok, c_best, c_slot = True, g, 0 if m else 1
        if ok and n_miss == 0:
            c_slot = 0 if nl0 >= n_parent - nl0 else 1
        if ok and _better(c_best, best):
            status, best, best_slot = 1, c_best, c_slot
            if nl0 == n_parent - n_miss:
                best_thr, best_slot = math.inf, 1
            else:
                best_thr = edges[b]
        if nl0 == n_parent - n_miss:
            break
    return status, best, best_thr, best_slot


def test_newton_hist_sweep_equals_the_candidate_by_candidate_rule():
    from treelab._engine.splitter import newton_hist_sweep
    rng = np.random.default_rng(0)
    nvb = 40
    edges = np.sort(rng.normal(size=nvb - 1))
    scratch = np.empty((5, nvb + 1))
    seen = set()
    regimes = set()
    for it in range(3000):
        dens = (1.0, 0.5, 0.1, 0.05)[it % 4]
        # (counts up to 30 a bin: nodes with at least a row a bin and nodes with fewer)
        cnt = np.where(rng.random(nvb + 1) < dens, rng.integers(1, (3, 30)[it % 2] + 1,
                                                                   nvb + 1), 0)
        if it % 13 == 5:
            # every row in one bin (a constant feature), as many rows as bins or fewer
            cnt[:] = 0
            cnt[rng.integers(nvb)] = rng.integers(nvb - 5, nvb + 5)
        cnt[nvb] = rng.integers(1, 20) if it % 3 == 0 else 0          # the missing bin
        hist = np.zeros((nvb + 1, 3))
        hist[:, 0] = cnt * rng.uniform(0.05, 0.3, nvb + 1)
        hist[:, 1] = rng.normal(size=nvb + 1) * np.sqrt(cnt)
        hist[:, 2] = cnt
        # empty bins hold exactly 0.0, as the engine's histograms do (built ones are
        # never added to; subtractions and sparse default bins set them to 0:
        # test_subtraction_leaves_empty_bins_exactly_zero, test_sparse_hist): the
        # sweep adds them without a branch where a node has a row a bin
        hist[cnt == 0, :2] = 0.0
        if it % 11 == 0 and cnt[:nvb].any():
            hist[rng.choice(np.flatnonzero(cnt[:nvb])), 0] = np.nan   # a NaN Hessian sum
        parent = hist[cnt > 0].sum(0)
        n_parent = int(cnt.sum())
        cp = np.array([(0.0, 1.0)[it % 2], (0.0, 0.0, 0.4)[it % 3], (0.0, 0.05)[it % 5 == 0]])
        msl, mwl = (1, 5, 0, 0)[(it % 7 == 0) + 2 * (it % 17 == 3)], (0.0, 1.0, 4.0)[it % 3]
        want = _ref_hist_sweep(hist, cnt, nvb, edges, nvb, parent, cp, n_parent, msl, mwl)
        # with the scratch (three passes) and without it (one pass); the counts
        # from ``cnt`` and from statistic 2 (where the engine keeps no ``cnt``)
        for sc, cc in ((scratch, -1), (scratch[:0], -1), (scratch, 2), (scratch[:0], 2)):
            got = newton_hist_sweep(hist, cnt if cc < 0 else cnt * 0, nvb, edges, nvb, parent,
                                    cp, n_parent, msl, mwl, sc, cc)
            assert got[0] == want[0] and got[2] == want[2] and got[3] == want[3], (it, got, want)
            assert got[1] == want[1] or (math.isinf(got[1]) and math.isinf(want[1])), (it, got)
        seen.add((got[0], bool(cnt[nvb])))
        regimes.add((n_parent >= nvb, got[0]))
    assert seen >= {(1, False), (1, True), (-1, False), (0, False)}
    assert regimes >= {(True, -1), (True, 0), (True, 1), (False, -1), (False, 0), (False, 1)}
    # min_samples_leaf 0: the bins before the first row are no candidate, even
    # where every split scores the same (gradients 0: every gain is -gamma)
    cnt = np.zeros(nvb + 1, np.int64)
    cnt[3:nvb] = 2
    hist = np.zeros((nvb + 1, 3))
    hist[:, 0] = 0.1 * cnt
    hist[:, 2] = cnt
    parent = hist.sum(0)
    cp = np.array([1.0, 0.0, 0.05])
    want = _ref_hist_sweep(hist, cnt, nvb, edges, nvb, parent, cp, int(cnt.sum()), 0, 0.0)
    assert want[0] == 1 and want[2] == edges[3]
    for sc, cc in ((scratch, -1), (scratch[:0], -1), (scratch, 2)):
        got = newton_hist_sweep(hist, cnt, nvb, edges, nvb, parent, cp, int(cnt.sum()), 0,
                                0.0, sc, cc)
        assert got == want, (sc.shape, cc, got, want)


def test_subtraction_leaves_empty_bins_exactly_zero():
    """A parent's histogram minus a child's: every bin left without a row holds
    exactly 0.0 in every statistic, whatever rounding the subtraction left (the
    Newton sweep adds empty bins' sums, :func:`.splitter.newton_hist_sweep`),
    with the counts kept (``cnt``) and read off a statistic."""
    from treelab._engine.histogram import COUNT_NONE, hist_subtract
    rng = np.random.default_rng(1)
    d, B = 3, 33
    for cnt_col in (COUNT_NONE, 2):
        for _ in range(50):
            child_c = rng.integers(0, 4, (d, B))
            extra = np.where(rng.random((d, B)) < 0.5, rng.integers(1, 4, (d, B)), 0)
            par_c = child_c + extra
            # sums of ones and of random values, the child's a part of the parent's
            g_child = rng.normal(size=(d, B)) * child_c
            g_par = g_child + rng.normal(size=(d, B)) * extra
            h_child = 0.1 * child_c + 1e-3 * rng.random((d, B)) * (child_c > 0)
            h_par = h_child + 0.3 * extra
            # the parent's sums added in another order than the child's: rounding
            # residue where they hold the same rows
            res = (extra == 0) & (child_c > 0)
            g_par = g_par + res * rng.normal(size=(d, B)) * 1e-15
            h_par = h_par + res * rng.random((d, B)) * 1e-16
            par = np.stack([h_par, g_par, par_c.astype(float)], axis=2)
            child = np.stack([h_child, g_child, child_c.astype(float)], axis=2)
            pc = par_c.astype(np.int64).copy()
            hist_subtract(par, pc, child, child_c.astype(np.int64), None, cnt_col)
            empty = extra == 0
            assert (empty & (child_c > 0)).any() and (~empty).any()
            assert (par[empty] == 0.0).all()
            assert not np.signbit(par[empty]).any()
            np.testing.assert_allclose(par[~empty][:, 1], (g_par - g_child)[~empty])
