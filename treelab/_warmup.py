"""``treelab warmup``: compile (or load) every learner family's kernels at once.

Each family's kernels are compiled on first use anyway (:mod:`treelab._compile`
says so in one line); this runs every learner on small data so that no later
first call pays its compilation -- for a course lab or a cluster's workers
before a timed run.
"""
from __future__ import annotations

import sys
import time
import warnings

from ._compile import FAMILIES, _announced, family_is_cached

__all__ = ["warmup", "warm_learner", "WARMERS"]


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
        HoeffdingTreeClassifier(criterion=merit, **kw).fit(X, y).predict(X)


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
