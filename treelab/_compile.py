"""Visible, once-per-install compilation of treelab's kernels.

treelab's kernels are compiled by numba on first use and cached on disk
(``__pycache__`` beside each module, or numba's cache folder); later processes
load them in a fraction of a second.  ``import treelab`` compiles nothing.  On
a fresh install (or after the code kernels are built from changed, see
:mod:`treelab._engine.cache`) the first call of each learner family compiles
the kernels of its configuration (figures per family in :data:`FAMILIES`).
This module

* tells the user, in **one line on stderr**, when such a compilation starts
  (:func:`announce`, called by the learners before their first kernel call) -- only when
  numba's on-disk cache is really cold for that family (its index files are
  missing, stale or of another numba version), never when it only loads;
* compiles every learner's kernels at once (:func:`warmup`, ``treelab
  warmup``, also run by ``treelab demo``), so that no later first call is
  silent for half a minute.

``TREELAB_COMPILE_NOTICE=0`` silences the notices.
"""
from __future__ import annotations

import os
import pickle
import sys
import time
import warnings
from pathlib import Path

__all__ = ["announce", "family_is_cached", "warmup", "FAMILIES",
           "warm_learner", "njit_maybe_cached"]

_ROOT = Path(os.path.abspath(__file__)).parent     # (as numba names the files)

#: learner families: what their first call compiles, the kernels whose on-disk
#: cache decides whether it is cold (``(file, qualname prefix)``), and the cold
#: compile time (seconds, wall) measured by ``treelab warmup`` in a clean-clone CI
#: run on 2 shared cores (2026-11-28; ``core``: ``benchmarks/bench_start.py``;
#: gradient boosting scaled by 119 / 192 s, its compile after the decision trees'
#: before and after the drivers shared one node step, 2026-12-05)
FAMILIES = {
    "decision_tree": dict(
        label="decision-tree kernels (ID3 / C4.5 / CART)", seconds=175,
        kernels=[("_engine/builder.py", "grow_depth_first"), ("_engine/tree.py", "predict_value"),
                 ("_engine/pruning.py", "cost_complexity")]),
    "sgt": dict(
        label="Stochastic Gradient Tree kernels", seconds=90,
        kernels=[("_engine/sgt.py", "_learn_py"), ("_engine/tree.py", "pack_raw"),
                 ("_engine/streaming.py", "_codes_serial")]),
    "gradient_boosting": dict(
        label="gradient-boosting kernels", seconds=250,
        kernels=[("_engine/builder.py", "grow_depth_first"),
                 ("_engine/best_first.py", "grow_best_first"),
                 ("_engine/splitter.py", "newton_hist_sweep"),
                 ("_engine/tree.py", "pack_raw"), ("_engine/loss_kernels.py", "")]),
    "forests": dict(
        label="forest kernels on bins (splitter=\"hist\", \"exact\" on data of few values, cascades)",
        seconds=220,
        kernels=[("_engine/column_builder.py", "grow_codes"),
                 ("_engine/tree.py", "forest_sum"), ("_engine/tree.py", "forest_sum_walk")]),
    "hoeffding": dict(
        label="Hoeffding tree kernels", seconds=45,
        kernels=[("_engine/hoeffding.py", "_learn_py"),
                 ("_engine/hoeffding.py", "_predict_proba_py"),
                 ("_engine/streaming.py", "_codes_serial")]),
}

#: learner module -> family (a learner's family is that of the first class in
#: its MRO defined in one of these modules)
_MODULE_FAMILY = {
    "treelab.learners.decision_tree": "decision_tree",
    "treelab.learners.sgt": "sgt",
    "treelab.learners.hoeffding": "hoeffding",
    "treelab.ensembles.gradient_boosting": "gradient_boosting",
}

_announced: set = set()


def _enabled():
    return os.environ.get("TREELAB_COMPILE_NOTICE", "1").strip().lower() not in (
        "0", "no", "false", "off")


def _cache_dir(py_file):
    """The folder numba caches ``py_file``'s kernels in and the source stamp it
    checks (:func:`treelab._engine.cache.locator_for`)."""
    from ._engine.cache import locator_for
    loc = locator_for(py_file)
    if loc is None:
        return None, None
    return Path(loc.get_cache_path()), loc.get_source_stamp()


def _kernel_cached(rel, prefix, root=_ROOT):
    """True when numba's on-disk cache holds a fresh compiled version of a function
    of ``<root>/<rel>`` (``root``: the treelab package) whose qualified name starts
    with ``prefix`` (any, when empty): an index file of this numba version,
    stamped with the current source, listing at least one compiled signature."""
    import numba
    py_file = Path(root) / rel
    folder, stamp = _cache_dir(py_file)
    if folder is None or not folder.is_dir():
        return False
    pattern = f"{py_file.stem}.{prefix}*.nbi"
    for index in folder.glob(pattern):
        try:
            with open(index, "rb") as f:
                version = pickle.load(f)
                if version != numba.__version__:
                    continue
                data = f.read()
            got_stamp, overloads = pickle.loads(data)
        except Exception:
            continue
        if got_stamp == stamp and overloads:
            return True
    return False


def family_is_cached(family):
    """True when every probe kernel of ``family`` is in numba's on-disk cache; None
    when that cannot be told (an unknown numba cache layout)."""
    try:
        return all(_kernel_cached(rel, prefix) for rel, prefix in FAMILIES[family]["kernels"])
    except Exception:
        return None


def _notice(family, extra=""):
    info = FAMILIES[family]
    print(f"treelab: compiling the {info['label']} (about {info['seconds']} s, once per "
          f"install; cached afterwards{extra}; `treelab warmup` compiles every learner)",
          file=sys.stderr, flush=True)


def family_of(estimator):
    for cls in type(estimator).__mro__:
        fam = _MODULE_FAMILY.get(getattr(cls, "__module__", ""))
        if fam is not None:
            return fam
    return None


def announce(estimator):
    """Before ``estimator``'s first kernel call in this process: one line on stderr
    when its family's kernels are not in numba's on-disk cache (they are about to
    be compiled).  Checked once per family and process (a few file reads).
    ``estimator`` may also be a family name (``"forests"``: the column builder,
    announced by the forests and cascades that are about to call it)."""
    fam = estimator if isinstance(estimator, str) else family_of(estimator)
    if fam is None or fam in _announced:
        return
    _announced.add(fam)
    if _enabled() and family_is_cached(fam) is False:
        _notice(fam)


def njit_maybe_cached(func, sig, cache=True):
    """``numba.njit(sig, cache=cache)(func)``; a function without a source file
    (defined in a REPL or by ``exec``) has no cache location and is compiled
    uncached instead of failing (used for users' criteria and losses)."""
    from ._engine.jit import njit
    py = getattr(func, "py_func", func)
    if cache:
        try:
            return njit(sig, cache=True)(py)
        except RuntimeError:  # numba: "no locator available for file ..."
            pass
    return njit(sig, cache=False)(py)


# --------------------------------------------------------------------------- warmup
def _small_classification(n=240, seed=0, n_classes=2):
    import numpy as np
    import pandas as pd
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"a": rng.rand(n), "b": rng.randn(n),
                      "c": pd.Categorical(rng.choice(["p", "q", "r"], n))})
    X.loc[rng.rand(n) < 0.05, "a"] = np.nan
    score = 3 * (X["a"].fillna(0.5) > 0.5) + (X["c"] == "q") + 0.3 * rng.randn(n)
    y = np.digitize(score, np.linspace(score.min(), score.max(), n_classes + 1)[1:-1])
    return X, y.astype(np.int64)


def _warm_decision_trees():
    import numpy as np
    from .learners import (C45Classifier, CARTClassifier, DecisionTreeClassifier,
                           DecisionTreeRegressor, ID3Classifier)
    from .split_criteria.impurity import CLASSIFICATION_CRITERIA
    X, y = _small_classification()
    Xn = X.assign(c=X["c"].cat.codes.astype(float))
    for crit in sorted(CLASSIFICATION_CRITERIA):
        for splitter in ("best", "hist"):
            for nominal_split in ("multiway", "binary"):
                m = DecisionTreeClassifier(criterion=crit, splitter=splitter, max_depth=4,
                                           nominal_split=nominal_split, random_state=0)
                m.fit(X, y).predict_proba(X)
    m = DecisionTreeClassifier(max_features=2, random_state=0).fit(Xn.to_numpy(), y)
    m.predict(Xn.to_numpy())
    m.apply(Xn.to_numpy())
    m.decision_path(Xn.to_numpy())
    from ._engine.tree import PARALLEL_MIN_ROWS        # large inputs take threaded kernels
    big = np.repeat(Xn.to_numpy(), PARALLEL_MIN_ROWS // len(y) + 1, axis=0)
    m.predict(big)
    m.apply(big)
    for splitter in ("best", "hist"):
        r = DecisionTreeRegressor(splitter=splitter, max_depth=4).fit(X, y * 1.5)
        r.predict(X)
    cart = CARTClassifier(random_state=0).fit(X, y)
    cart.cost_complexity_pruning_path(X, y)
    CARTClassifier(random_state=0, ccp_alpha=0.01).fit(X, y).score(X, y)
    C45Classifier().fit(X, y).export_text()
    ID3Classifier().fit(X.drop(columns=["a", "b"]), y).export_text()
    DecisionTreeClassifier(random_state=0).fit(X, y).prune_reduced_error(X, y)
    DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=np.ones(len(y)))


def _warm_streams(make_models, X, y, classes=None):
    import numpy as np
    from ._engine.streaming import _codes_parallel    # chunks of >= 20,000 rows
    d = X.shape[1]
    _codes_parallel(np.zeros((2, d)), np.zeros(d), np.ones(d), 4, np.zeros(d, np.bool_),
                    np.zeros(d, np.int64))
    rows = [dict(zip(X.columns, r)) for r in X.itertuples(index=False)]
    for m in make_models():
        m.partial_fit(X, y, classes=classes) if classes is not None else m.partial_fit(X, y)
        m.predict(X)
        if hasattr(m, "predict_proba"):
            m.predict_proba(X)
        for x, t in zip(rows[:40], y[:40]):
            m.predict_one(x)
            m.learn_one(x, t)
        m.predict_one(rows[0])
        m.n_leaves, m.n_nodes, m.depth
        m.export_text()


def _warm_sgt():
    import numpy as np
    from .learners import SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor
    kw = dict(grace_period=20, n_range_samples=50, delta=0.1)
    for k in (2, 3):
        X, y = _small_classification(n_classes=k)
        _warm_streams(lambda: [SGTClassifier(**kw)], X, y, classes=np.arange(k))
        SGTClassifier(**kw).fit(X, y).predict(X)
    X, y = _small_classification()
    _warm_streams(lambda: [SGTRegressor(**kw)], X, y.astype(float) + X["b"].to_numpy())
    SGTRegressor(**kw).fit(X, y.astype(float)).predict(X)
    bags = np.repeat(np.arange(len(y) // 4), 4)
    yb = np.repeat(y[::4], 4)                      # one label per bag
    mi = SGTMultiInstanceClassifier(**kw).fit(X, yb, bags)
    mi.predict(X, bags)
    mi.predict_proba(X, bags)


def _warm_hoeffding():
    from .learners import HoeffdingTreeClassifier
    from .learners.hoeffding import RULE_NAMES
    from .split_criteria.impurity import CLASSIFICATION_CRITERIA
    kw = dict(grace_period=20, n_range_samples=50, delta=0.1)
    for k in (2, 3):
        X, y = _small_classification(n_classes=k)
        # the C-Tree radii are binary-only (the paper's Sec. III): k = 2 only
        for rule in (r for r in RULE_NAMES if k == 2 or r != "ctree"):
            for mode in ("nba", "mc", "nb"):
                _warm_streams(lambda: [HoeffdingTreeClassifier(rule=rule, leaf_prediction=mode,
                                                               **kw)], X, y)
    for merit in sorted(CLASSIFICATION_CRITERIA):
        HoeffdingTreeClassifier(merit=merit, **kw).fit(X, y).predict(X)


def _warm_gradient_boosting():
    import numpy as np
    from .ensembles import GradientBoostingClassifier, GradientBoostingRegressor
    from ._engine.tree import PARALLEL_MIN_ROWS        # large inputs take threaded kernels
    for k in (2, 3):
        X, y = _small_classification(n_classes=k)
        big = X.iloc[np.arange(PARALLEL_MIN_ROWS) % len(y)]
        for policy in ("depthwise", "lossguide"):
            m = GradientBoostingClassifier(n_estimators=3, max_depth=3, max_leaves=6,
                                           grow_policy=policy, random_state=0)
            m.fit(X, y, eval_set=[(X, y)])
            m.predict_proba(big)
            list(m.staged_predict(X))
    X, y = _small_classification()
    for policy in ("depthwise", "lossguide"):
        r = GradientBoostingRegressor(n_estimators=3, max_depth=3, max_leaves=6,
                                      grow_policy=policy, subsample=0.8, random_state=0)
        r.fit(X, y * 1.5).predict(X)


def _warm_forests():
    import numpy as np
    from .ensembles import (CascadeForestClassifier, CompletelyRandomForestClassifier,
                            ExtraTreesClassifier, ExtraTreesRegressor,
                            RandomForestClassifier, RandomForestRegressor)
    from .ensembles.forest import _PARALLEL_MIN_WORK     # large inputs: threaded traversal
    X, y = _small_classification(n_classes=3)
    Xn = X.assign(c=X["c"].cat.codes.astype(float)).to_numpy()   # numeric: column builder
    big = Xn[np.arange(_PARALLEL_MIN_WORK // 4 + 1) % len(y)]
    for cls in (RandomForestClassifier, ExtraTreesClassifier,
                CompletelyRandomForestClassifier):
        with warnings.catch_warnings():
            # (4 trees leave some rows never out of bag: the warning says so, to no one)
            warnings.simplefilter("ignore", UserWarning)
            m = cls(n_estimators=4, splitter="hist", oob_score=cls is RandomForestClassifier,
                    n_jobs=1, random_state=0).fit(Xn, y)
        m.predict_proba(Xn)
        m.predict_proba(big)
    for cls in (RandomForestRegressor, ExtraTreesRegressor):
        cls(n_estimators=4, splitter="hist", n_jobs=1, random_state=0).fit(
            Xn, y * 1.5).predict(Xn)
    casc = CascadeForestClassifier(
        forests=[RandomForestClassifier(n_estimators=4, splitter="hist"),
                 CompletelyRandomForestClassifier(n_estimators=4, splitter="hist")],
        max_levels=2, n_jobs=1, random_state=0).fit(Xn, y)
    casc.predict(Xn)
    # (many rows on threads: the threaded walk of the cascade's uint8 code rows)
    casc.set_params(n_jobs=-1).predict(big)


#: family -> function compiling (or loading) its kernels on small data
WARMERS = {"decision_tree": _warm_decision_trees, "sgt": _warm_sgt,
           "hoeffding": _warm_hoeffding, "gradient_boosting": _warm_gradient_boosting,
           "forests": _warm_forests}


def warmup(families=None, force=False, verbose=True, file=None):
    """Compile (or load from numba's cache) the kernels of every learner family:
    batch decision trees (every criterion, both splitters, pruning), SGT
    classifier / regressor / multi-instance, the Hoeffding tree with every rule
    and merit, gradient boosting (both growth policies), histogram forests and
    cascades.  A family whose kernels are already cached is skipped unless
    ``force``.  Prints one line per family on stderr (``verbose``); returns
    ``{family: seconds}`` (0.0 for a skipped family)."""
    out = file if file is not None else sys.stderr
    families = list(WARMERS) if families is None else list(families)
    for fam in families:
        if fam not in WARMERS:
            raise ValueError(f"unknown learner family {fam!r}; choose from {sorted(WARMERS)}")
    took = {}
    for fam in families:
        _announced.add(fam)                     # no per-call notice while warming up
        if not force and family_is_cached(fam):
            took[fam] = 0.0
            if verbose:
                print(f"treelab warmup: {FAMILIES[fam]['label']}: already compiled",
                      file=out, flush=True)
            continue
        if verbose:
            print(f"treelab warmup: compiling the {FAMILIES[fam]['label']} "
                  f"(about {FAMILIES[fam]['seconds']} s) ...", file=out, flush=True)
        t0 = time.perf_counter()
        WARMERS[fam]()
        took[fam] = time.perf_counter() - t0
        if verbose:
            print(f"treelab warmup: {FAMILIES[fam]['label']}: done in {took[fam]:.1f} s",
                  file=out, flush=True)
    return took


def warm_learner(learner, X, y, classes=None, api="chunk"):
    """Compile (or load) the kernels ``learner`` will call, on a throwaway copy fed
    the first rows of ``(X, y)``, so that timing ``learner`` afterwards measures
    learning, not compilation.  Returns the seconds it took (0.0 for a learner
    that is not one of treelab's streaming trees)."""
    from .learners._streaming import StreamingTreeBase
    if not isinstance(learner, StreamingTreeBase):
        return 0.0
    import numpy as np
    import pandas as pd
    t0 = time.perf_counter()
    try:
        n = min(64, X.shape[0])
        params = learner.get_params(deep=False)
        params["n_range_samples"] = max(1, min(n // 2, int(params.get("n_range_samples", n))))
        copy = type(learner)(**params)
        Xs = X.iloc[:n] if isinstance(X, pd.DataFrame) else np.asarray(X)[:n]
        ys = np.asarray(y)[:n]
        if api == "one":
            frame = Xs if isinstance(Xs, pd.DataFrame) else pd.DataFrame(Xs)
            cols = list(frame.columns)
            for r, t in zip(frame.itertuples(index=False), ys):
                x = dict(zip(cols, r))
                copy.predict_one(x)
                copy.learn_one(x, t)
        else:
            kw = {}
            if "classes" in params:       # a classifier: every label, as the real run
                kw["classes"] = np.unique(np.asarray(y)) if classes is None else classes
            copy.partial_fit(Xs, ys, **kw)
            copy.predict(Xs)
    except Exception:
        pass      # the real run reports any problem with the learner or the data
    return time.perf_counter() - t0
