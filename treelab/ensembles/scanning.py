"""Multi-grained scanning: gcForest's feature transformation (slides 6.10,
"The gcForest approach"; Zhou & Feng, IJCAI 2017), and ``GcForestClassifier``
(scanning followed by a cascade).

Sliding windows of several sizes ("grains") run over a sequence (window sizes
floor(d/16), floor(d/8), floor(d/4) by default, stride 1) or over an image
(square s x s windows, stride 2 as the original code's 7x7, 10x10, 13x13 on
28x28 digits).  Every window of a training example is an instance labelled
with the example's class; per window size, one random forest and one
completely-random tree forest learn from these instances, and the class
vectors of all windows (every forest, every position) are concatenated into
the transformed representation, optionally pooled over neighbouring positions.

Choices stated here (the slides, the stored source text, give no numbers for them):

* **Window instances are subsampled for training** (``max_train_windows`` per
  window size and fold): 8,000 MNIST images give 968,000 7x7 windows.  This is
  a treelab choice: the original code (kingfengji/gcForest, ``FGWinLayer``)
  trains on every window, and the stored texts say nothing about subsampling;
  the whole set of windows is still transformed.  ``max_train_windows=None``
  uses every window, as the original code.
* **Scanning forests with ``min_samples_leaf=10``** (the default ``forests``):
  taken from the original code's MNIST configuration
  (kingfengji/gcForest ``examples/demo_mnist-gc.json``: per window size one
  ExtraTrees and one random forest of 20 trees, ``max_depth=10``,
  ``min_samples_leaf=10``, 3 folds, stride 2, 2x2 average pooling), not from
  the stored texts; treelab keeps ``max_depth=None``.
* **Cross-fitting**: as in the original code's scanning layer, the class vectors
  that ``fit_transform`` returns for the training examples come from k-fold
  models that did not see the example (folds over *examples*, not windows), so
  a cascade placed after the scanning is not trained on over-confident vectors;
  ``transform`` on new data averages the k fold models.  ``n_folds=None``
  fits one model per forest and returns in-sample vectors (cheaper, leaky).
* **Chunks**: window instances are cut for at most ``chunk_size`` windows at a
  time (at least one example's windows), predicted and dropped, so the full
  (examples x positions x window) array never exists.
"""
from __future__ import annotations

import numbers

import numpy as np

from .._params import check_int
from .._progress import progress_bar
from .._sklearn_compat import BaseEstimator, ClassifierMixin, check_is_fitted
from ..data import (
    check_classification_targets, check_random_state, encode_X, fit_encode_X,
    set_fitted_encoding,
)
from .cascade import (
    CascadeForestClassifier, _clone, _default_forests, _fold_ids, _reseed, _slot_vectors,
)

__all__ = ["MultiGrainedScanning", "GcForestClassifier"]

_SEED_MAX = np.iinfo(np.int32).max


def _extract_windows(X, rows, base, offs):
    """Window instances of examples ``rows``: ``X[r, base[p] + offs]`` for every
    row ``r`` and position ``p`` -> array (len(rows) * len(base), len(offs)).
    (The only place windows are materialised; tests watch it.)"""
    idx = base[:, None] + offs[None, :]
    return X[rows[:, None, None], idx[None, :, :]].reshape(rows.shape[0] * base.shape[0],
                                                          offs.shape[0])


class _Grain:
    """Geometry of one window size: flat pixel offsets of a window, top-left flat
    index of every position, the position grid shape and its pooling blocks."""

    def __init__(self, size, image_shape, d, stride, pool_size):
        self.size = size
        if image_shape is None:
            self.grid = ((d - size) // stride + 1,)
            self.base = np.arange(self.grid[0], dtype=np.int64) * stride
            self.offs = np.arange(size, dtype=np.int64)
            gr = [np.arange(self.grid[0])]
        else:
            H, W = image_shape
            ph, pw = (H - size) // stride + 1, (W - size) // stride + 1
            self.grid = (ph, pw)
            r, c = np.meshgrid(np.arange(ph) * stride, np.arange(pw) * stride, indexing="ij")
            self.base = (r * W + c).ravel().astype(np.int64)
            wr, wc = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
            self.offs = (wr * W + wc).ravel().astype(np.int64)
            gr = np.meshgrid(np.arange(ph), np.arange(pw), indexing="ij")
            gr = [g.ravel() for g in gr]
        self.n_positions = self.base.shape[0]
        if pool_size is None:
            self.block = np.arange(self.n_positions)
            self.n_blocks = self.n_positions
        else:
            dims = [-(-g // pool_size) for g in self.grid]
            blk = np.zeros(self.n_positions, np.int64)
            for g, dim in zip(gr, dims):
                blk = blk * dim + g // pool_size
            self.block = blk
            self.n_blocks = int(np.prod(dims))


def _pool(v, block, n_blocks, how):
    """(m, P, K) class vectors -> (m, n_blocks, K): mean or max over each block."""
    if n_blocks == v.shape[1] and how is None:
        return v
    m, _, K = v.shape
    out = np.zeros((m, n_blocks, K))
    if how == "max":
        out[:] = -np.inf
        for b in range(n_blocks):
            out[:, b] = v[:, block == b].max(axis=1)
    else:
        for b in range(n_blocks):
            out[:, b] = v[:, block == b].mean(axis=1)
    return out


class MultiGrainedScanning(BaseEstimator):
    """Multi-grained scanning transformer (see the module docstring).

    Parameters
    ----------
    window_sizes : list of int or None
        None: floor(d/16), floor(d/8), floor(d/4) for sequences (sizes below 1
        dropped); for images the original code's 7, 10, 13 on 28x28, scaled to
        the shorter side (round(side * 7/28), ...).
    image_shape : (height, width) or None
        Rows of ``X`` are flattened images (row-major) when given, else sequences.
    stride : int or None
        None: 1 for sequences, 2 for images (the original code).
    forests : list of classifier prototypes or None
        Per window size; None: one random forest + one completely-random tree
        forest of treelab with ``n_estimators`` trees each and ``min_samples_leaf=10``
        (the original code's MNIST scanning configuration, ``demo_mnist-gc.json``;
        window labels are noisy, and trees grown to purity on them are large -- on
        the digits, 30-tree scanning forests grown to purity took 1.7 GB).
    n_estimators : int, default=100
    n_folds : int or None, default=3
        Cross-fitting folds for ``fit_transform`` (None: one in-sample model).
    max_train_windows : int or None, default=50_000
        Window instances drawn (without replacement) to train each window size's
        forests (per fold); None uses every window.
    pooling : None, "mean" or "max"
        Pool class vectors over ``pool_size`` (x ``pool_size``) blocks of positions.
    pool_size : int, default=2
    chunk_size : int, default=50_000
        Most window instances materialised at once (at least one example's).
    n_jobs : int or None
        Threads fitting the (window size, forest, fold) models; same result whatever n_jobs.
    random_state : int, RandomState or None
    verbose : int, default=0
        A tqdm progress bar when > 0 (and tqdm is installed) over the (window size, fold)
        steps of fitting and, in ``fit_transform``, of the cross-fitted transform.

    Attributes
    ----------
    grains_ : list
        The window geometries.
    n_features_out_ : int
        The number of output features (class vectors of every window position).
    classes_ : ndarray
        The class labels.
    estimators_ : list of lists
        ``estimators_[g][f]`` lists the fold models of forest f for grain g.
    """

    def __init__(self, *, window_sizes=None, image_shape=None, stride=None, forests=None,
                 n_estimators=100, n_folds=3, max_train_windows=50_000, pooling=None, pool_size=2,
                 chunk_size=50_000, n_jobs=None, random_state=None, verbose=0):
        self.window_sizes = window_sizes
        self.image_shape = image_shape
        self.stride = stride
        self.forests = forests
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.max_train_windows = max_train_windows
        self.pooling = pooling
        self.pool_size = pool_size
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ---------------------------------------------------------- checks
    def _check(self, d):
        img = self.image_shape
        if img is not None:
            if (not isinstance(img, (tuple, list)) or len(img) != 2
                    or not all(isinstance(v, (numbers.Integral, np.integer)) and v > 0
                               for v in img)):
                raise ValueError(f"image_shape must be (height, width), got {img!r}")
            img = (int(img[0]), int(img[1]))
            if img[0] * img[1] != d:
                raise ValueError(f"image_shape {img} needs {img[0] * img[1]} features, X has {d}")
        stride = check_int("stride", self.stride, allow_none=True) or (1 if img is None else 2)
        if self.window_sizes is None:
            if img is None:
                sizes = [s for s in (d // 16, d // 8, d // 4) if s >= 1]
            else:
                side = min(img)
                sizes = sorted({max(1, int(round(side * k / 28))) for k in (7, 10, 13)})
            if not sizes:
                raise ValueError(f"X has {d} features: too few for the default window sizes "
                                 "floor(d/16), floor(d/8), floor(d/4); pass window_sizes")
        else:
            if not isinstance(self.window_sizes, (list, tuple)) or not self.window_sizes:
                raise ValueError(f"window_sizes must be a non-empty list of ints, "
                                 f"got {self.window_sizes!r}")
            sizes = [check_int("window size", s) for s in self.window_sizes]
        limit = d if img is None else min(img)
        for s in sizes:
            if s > limit:
                what = "sequence length" if img is None else "image side"
                raise ValueError(f"window size {s} exceeds the {what} {limit}")
        if self.pooling not in (None, "mean", "max"):
            raise ValueError(f"pooling must be None, 'mean' or 'max', got {self.pooling!r}")
        pool = check_int("pool_size", self.pool_size) if self.pooling else None
        p = {"img": img, "stride": stride, "sizes": sizes, "pool": pool,
             "n_estimators": check_int("n_estimators", self.n_estimators),
             "n_folds": check_int("n_folds", self.n_folds, 2, allow_none=True),
             "max_train_windows": check_int("max_train_windows", self.max_train_windows,
                                            allow_none=True),
             "chunk_size": check_int("chunk_size", self.chunk_size)}
        if self.forests is None:
            forests = _default_forests("classification", p["n_estimators"], None, 1, 1,
                                       min_samples_leaf=10)
        else:
            if not isinstance(self.forests, (list, tuple)) or not self.forests:
                raise TypeError("forests must be a non-empty list of classifier prototypes")
            forests = list(self.forests)
        for est in forests:
            if isinstance(est, type) or not hasattr(est, "fit") or not hasattr(
                    est, "predict_proba"):
                raise TypeError(f"every forest must be a classifier instance with fit and "
                                f"predict_proba, got {est!r}")
        p["forests"] = forests
        return p

    # ---------------------------------------------------------- fit
    def fit(self, X, y):
        """Train the scanning forests (the training transform is not computed)."""
        self._fit(X, y, False)
        return self

    def fit_transform(self, X, y):
        """Train and return the cross-fitted class vectors of the training examples
        (each from fold models that did not see the example)."""
        return self._fit(X, y, True)

    def _fit(self, X, y, want_out):
        from joblib import Parallel, delayed
        name = type(self).__name__
        Xf, enc = fit_encode_X(X, name, None, allow_nan=False)
        n, d = Xf.shape
        p = self._check(d)
        classes, codes = check_classification_targets(y, n)
        if classes.shape[0] < 2:
            raise ValueError(f"{name} needs samples of at least 2 classes in the data, but the "
                             f"data contain only one class: {classes[0]!r}")
        set_fitted_encoding(self, enc, d)
        self.classes_ = classes
        self.n_classes_ = K = classes.shape[0]
        rng = check_random_state(self.random_state)
        k = p["n_folds"]
        if k is not None and n < k:
            raise ValueError(f"{name} needs at least n_folds={k} samples, got n_samples = {n}")
        self.grains_ = [_Grain(s, p["img"], d, p["stride"], p["pool"]) for s in p["sizes"]]
        self._pooling = self.pooling
        self._chunk = p["chunk_size"]
        self.forests_ = p["forests"]
        F = len(self.forests_)
        n_models = 1 if k is None else k
        fold = np.zeros(n, np.int64) if k is None else _fold_ids(codes, k, rng, True)
        seeds = rng.randint(_SEED_MAX, size=(len(self.grains_), F, n_models))
        sample_seeds = rng.randint(_SEED_MAX, size=(len(self.grains_), n_models))

        def train_set(g, j):
            grain = self.grains_[g]
            imgs = np.arange(n) if k is None else np.flatnonzero(fold != j)
            total = imgs.shape[0] * grain.n_positions
            m = total if p["max_train_windows"] is None else min(total, p["max_train_windows"])
            pick = np.sort(np.random.RandomState(sample_seeds[g, j]).choice(
                total, size=m, replace=False))
            img, pos = imgs[pick // grain.n_positions], pick % grain.n_positions
            if np.unique(codes[img]).shape[0] < 2:
                where = "" if k is None else f", fold {j}"
                raise ValueError(
                    f"the {m} training window{'s' if m > 1 else ''} drawn for window size "
                    f"{grain.size}{where} {'come' if m > 1 else 'comes'} from one class only: "
                    f"a forest cannot learn from that (raise max_train_windows, now "
                    f"{p['max_train_windows']})")
            idx = grain.base[pos][:, None] + grain.offs[None, :]
            return Xf[img[:, None], idx], codes[img]

        def fit_one(g, f, j, data):
            est = _reseed(_clone(self.forests_[f]), seeds[g, f, j])
            return est.fit(data[0], data[1])

        G = len(self.grains_)
        bar = progress_bar(bool(self.verbose), G * n_models * (2 if want_out else 1), name,
                           unit="step")
        try:
            self.estimators_ = []
            for g in range(G):
                models = [[None] * n_models for _ in range(F)]
                for j in range(n_models):
                    data = train_set(g, j)     # one grain and fold's window sample at a time
                    fitted = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                        delayed(fit_one)(g, f, j, data) for f in range(F))
                    for f, est in enumerate(fitted):
                        models[f][j] = est
                    del data
                    bar.set_postfix(phase="fit", window=self.grains_[g].size)
                    bar.update(1)
                self.estimators_.append(models)
            self.n_features_out_ = sum(gr.n_blocks for gr in self.grains_) * F * K
            if not want_out:
                return None
            out = np.empty((n, self.n_features_out_))
            for j in range(n_models):
                rows = np.flatnonzero(fold == j)
                self._transform_rows(Xf, rows, out, fold_model=j, bar=bar)
            return out
        finally:
            bar.close()

    # ---------------------------------------------------------- transform
    def transform(self, X):
        """Class vectors of every window (fold models averaged), concatenated:
        columns ordered by window size, forest, (pooled) position, class."""
        return self._transform(X, type(self).__name__)

    def _transform(self, X, name):
        """:meth:`transform`, its input errors naming the estimator ``name``."""
        check_is_fitted(self, "estimators_")
        Xf = encode_X(X, self._encoding, name, allow_nan=False)
        out = np.empty((Xf.shape[0], self.n_features_out_))
        self._transform_rows(Xf, np.arange(Xf.shape[0]), out, fold_model=None)
        return out

    def _transform_rows(self, Xf, rows, out, fold_model, bar=None):
        K = self.n_classes_
        col = 0
        for g, grain in enumerate(self.grains_):
            P = grain.n_positions
            per = max(1, self._chunk // P)          # examples per chunk
            width = grain.n_blocks * K
            models = self.estimators_[g]
            for start in range(0, rows.shape[0], per):
                r = rows[start:start + per]
                W = _extract_windows(Xf, r, grain.base, grain.offs)
                for f, ests in enumerate(models):
                    use = ests if fold_model is None else [ests[fold_model]]
                    v = 0.0
                    for est in use:
                        v = v + _slot_vectors(est, W, "classification", K)
                    v = (v / len(use)).reshape(r.shape[0], P, K)
                    v = _pool(v, grain.block, grain.n_blocks, self._pooling)
                    c0 = col + f * width
                    out[r, c0:c0 + width] = v.reshape(r.shape[0], width)
                del W
            col += len(models) * width
            if bar is not None:
                bar.set_postfix(phase="transform", window=grain.size)
                bar.update(1)
        return out

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimators_")


class GcForestClassifier(ClassifierMixin, BaseEstimator):
    """gcForest: multi-grained scanning followed by a cascade forest (slides 6.10).

    The cascade is trained on the scanning's cross-fitted class vectors of the
    training examples (``MultiGrainedScanning.fit_transform``) and predicts from
    ``transform`` of new examples.  Scanning parameters as
    :class:`MultiGrainedScanning` (``scan_forests`` = its ``forests``), cascade
    parameters as :class:`~treelab.ensembles.CascadeForestClassifier`.

    Attributes
    ----------
    scanning_ : MultiGrainedScanning
        The fitted scanning transformer.
    cascade_ : CascadeForestClassifier
        The fitted cascade.
    """

    def __init__(self, *, image_shape=None, window_sizes=None, stride=None, scan_forests=None,
                 max_train_windows=50_000, pooling=None, pool_size=2, chunk_size=50_000,
                 forests=None, n_estimators=100, n_folds=3, class_vectors="kfold",
                 validation="holdout", max_levels=10, n_iter_no_change=1, tol=0.0,
                 final_estimator=None, max_bins=255, n_jobs=None, random_state=None,
                 verbose=0):
        self.image_shape = image_shape
        self.window_sizes = window_sizes
        self.stride = stride
        self.scan_forests = scan_forests
        self.max_train_windows = max_train_windows
        self.pooling = pooling
        self.pool_size = pool_size
        self.chunk_size = chunk_size
        self.forests = forests
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.class_vectors = class_vectors
        self.validation = validation
        self.max_levels = max_levels
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.final_estimator = final_estimator
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y):
        rng = check_random_state(self.random_state)
        s1, s2 = (int(v) for v in rng.randint(_SEED_MAX, size=2))
        scan = MultiGrainedScanning(
            window_sizes=self.window_sizes, image_shape=self.image_shape, stride=self.stride,
            forests=self.scan_forests, n_estimators=self.n_estimators, n_folds=self.n_folds,
            max_train_windows=self.max_train_windows, pooling=self.pooling,
            pool_size=self.pool_size, chunk_size=self.chunk_size, n_jobs=self.n_jobs,
            random_state=s1, verbose=self.verbose)
        Z = scan.fit_transform(X, y)
        casc = CascadeForestClassifier(
            forests=self.forests, n_estimators=self.n_estimators, n_folds=self.n_folds or 3,
            class_vectors=self.class_vectors, validation=self.validation,
            max_levels=self.max_levels, n_iter_no_change=self.n_iter_no_change,
            tol=self.tol, final_estimator=self.final_estimator, max_bins=self.max_bins,
            n_jobs=self.n_jobs, random_state=s2, verbose=self.verbose)
        casc.fit(Z, y)
        self.scanning_ = scan
        self.cascade_ = casc
        self.classes_ = casc.classes_
        self.n_features_in_ = scan.n_features_in_
        if hasattr(scan, "feature_names_in_"):
            self.feature_names_in_ = scan.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def predict_proba(self, X):
        check_is_fitted(self, "cascade_")
        return self.cascade_.predict_proba(self.scanning_._transform(X, type(self).__name__))

    def predict(self, X):
        check_is_fitted(self, "cascade_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_is_fitted__(self):
        return hasattr(self, "cascade_")
