"""Ablation runner: a grid of streaming learners x split rules x parameter values x seeds.

Researchers compare split-decision rules (Hoeffding / VFDT, McDiarmid, C-Tree,
CorrH-Tree, t-test) on the same tree by changing one parameter; this module
runs such a grid on a stream, in parallel (joblib) with a progress bar (tqdm),
and returns a tidy table with one row per run and checkpoint::

    stream, learner, rule, param, value, merit, seed, instances, accuracy,
    accuracy_window, n_leaves, n_nodes, seconds, compile_seconds, wall_seconds

``seconds`` is the time inside the learner's predict / learn calls (cumulative
per checkpoint) **without compilation**: each run first compiles (or loads)
its kernels on a throwaway copy, timed as ``compile_seconds``.  The settings
(stream, its parameters and length, grid, learner parameters) are written
beside the CSV as ``<name>.json``.

:func:`plot_ablation` draws the learning curves and the C-Tree paper's view
(De Rosa & Cesa-Bianchi, Figures 2 and 3): online accuracy against the number
of leaves, one point per configuration, one line per rule across its parameter
values.  ``treelab ablation ...`` on the command line does both and writes the
CSV and PNGs.

Example::

    from treelab.experiment import run_ablation
    df = run_ablation(
        stream="randcbt", stream_params=dict(n_leaves=50, n_features=5, m_per_leaf=1000),
        rules={"hoeffding": {"delta": [1e-7, 1e-3, 0.1]},
               "ctree": {"c": [0.01, 0.05, 0.2]},
               "corrh": {"delta": [1e-7, 1e-3, 0.1]}},
        learner_params=dict(criterion="gini", grace_period=100), seeds=[0, 1], n_jobs=2)
"""
from __future__ import annotations

import itertools
import json
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ._progress import progress_bar
from .split_criteria.rules.registry import make_rule, rule_aliases, rule_names

__all__ = ["run_ablation", "plot_ablation", "make_rule", "load_stream", "permute_stream",
           "final_points", "best_per_leaf_bin", "LEARNERS", "RULES", "STREAMS",
           "ablation_settings", "describe_settings", "stream_label"]

#: learner names understood by the runner
LEARNERS = ("hoeffding", "sgt")
#: rule names understood by the runner: the one registry's
#: (:mod:`treelab.split_criteria.rules.registry`; ``corrh`` = Hoeffding rule on
#: the classification-error merit, the CorrH-Tree baseline of the C-Tree paper)
RULES = rule_names()
#: built-in streams (``river:<Generator>`` uses river's synthetic generators)
STREAMS = ("randcbt", "electricity", "river:<Name>")


# --------------------------------------------------------------------------- streams
def _default_data_dir():
    """The data folder of :mod:`treelab.datasets`: ``$TREELAB_DATA``, else
    ``~/treelab_data``."""
    from .datasets import get_data_home
    return get_data_home()


def load_stream(stream, seed=0, **params):
    """``(X, y)`` of a stream given by name, by a callable ``f(seed, **params)``
    or as an ``(X, y)`` pair.

    * ``"randcbt"``: :class:`treelab.streaming.generators.RandCBT` with
      ``params`` (n_leaves, n_features, q, m_per_leaf) and ``random_state=seed``
      (each seed is a new random tree and sample);
    * ``"electricity"``: ELEC2 in its time order (the seed is ignored: the
      stream is fixed), from ``params["path"]`` (an ``elecNormNew.arff``, plain,
      gzipped or zipped) or else :func:`treelab.datasets.fetch_electricity`
      (downloaded once into ``params["data_home"]``, ``$TREELAB_DATA`` or
      ``~/treelab_data``);
    * ``"river:<Name>"``: ``river.datasets.synth.<Name>(seed=seed, **params)``,
      the first ``n`` instances (``params["n"]``, default 100,000); non-numeric
      features become pandas categories (nominal attributes).

    ``permute=True`` (any stream) returns the rows in the random order
    ``numpy.random.default_rng(seed).permutation(n)``: the C-Tree paper's
    protocol on real data (Section VI-B, ten random permutations per data set).
    """
    params = dict(params)
    if params.pop("permute", False):
        return permute_stream(load_stream(stream, seed, **params), seed)
    if callable(stream):
        return stream(seed, **params)
    if isinstance(stream, tuple) and len(stream) == 2:
        return stream
    if not isinstance(stream, str):
        raise TypeError(f"stream must be a name, a callable or an (X, y) pair, got "
                        f"{type(stream).__name__}")
    name = stream.lower()
    if name == "randcbt":
        from .streaming.generators import RandCBT
        gen = RandCBT(random_state=seed, **params)
        return gen.generate()
    if name in ("electricity", "elec", "elec2"):
        if not params.get("path"):
            from .datasets import fetch_electricity
            return fetch_electricity(data_home=params.get("data_home"))
        from .streaming.datasets import load_arff
        path = Path(params["path"])
        if not path.exists():
            raise FileNotFoundError(
                f"Electricity data not found at {path}; pass the path of an existing "
                "elecNormNew.arff(.gz/.zip) (--stream-param path=... / stream_params="
                "{'path': ...}), or no path to use treelab.datasets.fetch_electricity(), "
                "which downloads it once into $TREELAB_DATA or ~/treelab_data")
        X, y = load_arff(path, return_X_y=True)
        return X, y
    if name.startswith("river:"):
        try:
            from river.datasets import synth
        except ImportError as exc:
            raise ImportError("river generators need river: pip install river") from exc
        gen_name = stream.split(":", 1)[1]
        cls = getattr(synth, gen_name, None)
        if cls is None:
            raise ValueError(f"river.datasets.synth has no generator {gen_name!r}")
        params = dict(params)
        n = int(params.pop("n", 100_000))
        rows, labels = [], []
        for x, yv in cls(seed=seed, **params).take(n):
            rows.append(x)
            labels.append(yv)
        X = pd.DataFrame(rows)
        for c in X.columns:
            if not pd.api.types.is_numeric_dtype(X[c].dtype):
                X[c] = X[c].astype("category")
        return X, np.asarray(labels)
    raise ValueError(f"unknown stream {stream!r}; choose one of {list(STREAMS)}, a callable, "
                     "or an (X, y) pair")


def permute_stream(data, seed):
    """``(X, y)`` with rows in the order ``default_rng(seed).permutation(n)``."""
    X, y = data
    perm = np.random.default_rng(seed).permutation(len(y))
    X = X.iloc[perm].reset_index(drop=True) if hasattr(X, "iloc") else np.asarray(X)[perm]
    y = y.iloc[perm].reset_index(drop=True) if hasattr(y, "iloc") else np.asarray(y)[perm]
    return X, y


# ----------------------------------------------------------------------------- rules
# make_rule(name, merit, **values) -> (rule, merit): the registry's
# (treelab.split_criteria.rules.registry.make_rule); corrh implies its merit.


def _make_learner(learner, rule, merit, params):
    from .learners import HoeffdingTreeClassifier, SGTClassifier
    if isinstance(learner, str):
        key = learner.lower()
        if key in ("hoeffding", "ht", "vfdt"):
            return HoeffdingTreeClassifier(rule=rule, criterion=merit, **params)
        if key == "sgt":
            return SGTClassifier(rule=rule, **params)
        raise ValueError(f"unknown learner {learner!r}; choose one of {list(LEARNERS)}")
    est = learner
    new = type(est)(**est.get_params())
    kw = {"rule": rule}
    if "criterion" in new.get_params():
        kw["criterion"] = merit
    return new.set_params(**kw, **params)


def _expand(rules):
    """``[(rule_name, param, value, kwargs)]`` from ``{name: {param: [values]}}``;
    ``param`` / ``value`` name the parameters that vary (fixed ones only go
    to the constructor)."""
    out = []
    for name, grid in rules.items():
        grid = grid or {}
        if not isinstance(grid, dict):
            raise TypeError(f"the grid of rule {name!r} must be a dict {{param: [values]}}")
        if not grid:
            out.append((name, "", np.nan, {}))
            continue
        keys = list(grid)
        lists = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in grid.values()]
        varying = [i for i, lst in enumerate(lists) if len(lst) > 1] or [0]
        label = ",".join(keys[i] for i in varying)
        for combo in itertools.product(*lists):
            kw = dict(zip(keys, combo))
            value = combo[varying[0]] if len(varying) == 1 else str(tuple(combo[i] for i in varying))
            out.append((name, label, value, kw))
    return out


def _learner_label(learner):
    return learner if isinstance(learner, str) else type(learner).__name__


def _one_run(spec, stream, stream_params, learner_params, chunk_size, checkpoints,
             classes, data):
    """One configuration on one seed (``data``: its ``(X, y)`` when loaded
    already); returns its tidy rows."""
    from .streaming.evaluation import prequential
    learner, (rname, pname, value, kw), merit, seed = spec
    X, y = data if data is not None else load_stream(stream, seed, **stream_params)
    rule, merit_used = make_rule(rname, merit, **kw)
    model = _make_learner(learner, rule, merit_used, learner_params)
    t0 = time.perf_counter()
    curve = prequential(model, X, y, chunk_size=chunk_size, checkpoints=checkpoints,
                        classes=classes if classes is not None else np.unique(y),
                        progress=False, api="chunk")
    curve.insert(0, "seed", seed)
    curve.insert(0, "merit", merit_used)
    curve.insert(0, "value", value)
    curve.insert(0, "param", pname)
    curve.insert(0, "rule", rname)
    curve.insert(0, "learner", _learner_label(learner))
    curve.insert(0, "stream", stream if isinstance(stream, str) else "custom")
    curve["compile_seconds"] = curve.attrs.get("compile_seconds", 0.0)
    curve["wall_seconds"] = time.perf_counter() - t0
    curve.attrs["n_features"] = int(X.shape[1])
    curve.attrs["n_instances"] = int(X.shape[0])
    return curve


def run_ablation(stream="randcbt", rules=None, learners=("hoeffding",), merits=None,
                 seeds=(0,), stream_params=None, learner_params=None, chunk_size=1000,
                 checkpoints=20, classes=None, n_jobs=1, progress=True, out_dir=None,
                 plot=True, name="ablation"):
    """Run a grid of learners x rules x parameter values x merits x seeds on a stream.

    Parameters
    ----------
    stream : str, callable or (X, y)
        See :func:`load_stream`.
    rules : dict
        ``{rule name: {parameter: [values]}}``, e.g.
        ``{"hoeffding": {"delta": [1e-7, 1e-3]}, "ctree": {"c": [0.05, 0.2]}}``;
        names as in :data:`RULES`.  Default: Hoeffding at delta 1e-7.
    learners : sequence
        ``"hoeffding"`` (:class:`~treelab.HoeffdingTreeClassifier`), ``"sgt"``
        (:class:`~treelab.SGTClassifier`) or estimator instances (cloned).
    merits : sequence of str, optional
        Merits to cross with the rules (Hoeffding trees); default
        ``learner_params["criterion"]`` or "entropy".
    seeds : sequence of int
        Stream seeds (a new RandCBT tree and sample per seed).
    stream_params, learner_params : dict
        Passed to :func:`load_stream` / the learner's constructor.
    chunk_size, checkpoints, classes
        Passed to :func:`treelab.streaming.prequential`.
    n_jobs : int
        joblib workers (-1: all cores).  Each run is one process task.
    progress : bool
        tqdm progress bar over runs (when tqdm is installed).
    out_dir : path, optional
        Write ``<name>.csv``, the settings ``<name>.json`` (see
        :func:`ablation_settings`) and the PNG plots of :func:`plot_ablation` there.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per run and checkpoint; ``df.attrs["settings"]`` holds the
        settings written to ``<name>.json``.
    """
    from joblib import Parallel, delayed
    rules = {"hoeffding": {"delta": [1e-7]}} if rules is None else rules
    if not isinstance(rules, dict) or not rules:
        raise ValueError("rules must be a non-empty dict {rule name: {param: [values]}}")
    for r in rules:
        if not isinstance(r, str) or r.lower() not in rule_aliases():
            raise ValueError(f"unknown rule {r!r}; choose one of {list(RULES)}")
    learner_params = dict(learner_params or {})
    stream_params = dict(stream_params or {})
    if merits is None:
        merits = [learner_params.pop("criterion", "entropy")]
    else:
        learner_params.pop("criterion", None)
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    grid = [(lr, cfg, m, s) for lr in learners for cfg in _expand(rules) for m in merits
            for s in seeds]
    # SGT has no merit to vary: keep one merit for it
    grid = [g for g in grid if not (isinstance(g[0], str) and g[0].lower() == "sgt"
                                    and g[2] != merits[0])]
    # a fixed stream is loaded once and shared; generated streams are built in the workers
    fixed = not (isinstance(stream, str) and (stream.lower() == "randcbt"
                                               or stream.lower().startswith("river:"))) \
        and not callable(stream)
    cache = None
    if fixed:  # loaded once; with permute=True, one permutation per seed
        base_params = {k: v for k, v in stream_params.items() if k != "permute"}
        only = load_stream(stream, seeds[0], **base_params)
        cache = {s: permute_stream(only, s) if stream_params.get("permute") else only
                 for s in seeds}

    tasks = (delayed(_one_run)(spec, stream, stream_params, learner_params, chunk_size,
                               checkpoints, classes, None if cache is None else cache[spec[3]])
             for spec in grid)
    par = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    bar = progress_bar(progress, len(grid), name, unit="run")
    frames = []
    for frame in par(tasks):
        frames.append(frame)
        bar.update(1)
    bar.close()
    lengths = {}
    for frame in frames:
        lengths[int(frame["seed"].iloc[0])] = (frame.attrs.get("n_instances"),
                                               frame.attrs.get("n_features"))
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(["learner", "rule", "param", "value", "merit", "seed", "instances"],
                        kind="stable", na_position="first").reset_index(drop=True)
    df.attrs["settings"] = settings = ablation_settings(
        stream, stream_params, learners, rules, merits, seeds, learner_params, chunk_size,
        checkpoints, classes, n_jobs, lengths)
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        df.to_csv(out / f"{name}.csv", index=False)
        with open(out / f"{name}.json", "w", encoding="utf-8") as f:
            json.dump(settings, f, indent=2, default=_json_default)
        if plot:
            plot_ablation(df, out, name=name)
    return df


def _json_default(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return repr(v)


def stream_label(stream, stream_params=None):
    """``randcbt(n_leaves=50, m_per_leaf=1000)``: a stream's name and parameters."""
    name = stream if isinstance(stream, str) else (
        getattr(stream, "__name__", None) or "custom")
    params = ", ".join(f"{k}={v}" for k, v in (stream_params or {}).items())
    return f"{name}({params})" if params else name


def ablation_settings(stream, stream_params, learners, rules, merits, seeds, learner_params,
                      chunk_size, checkpoints, classes=None, n_jobs=1, lengths=None):
    """The settings of an ablation run as a JSON-able dict (written beside the CSV
    as ``<name>.json`` and kept in ``df.attrs["settings"]``): the stream, its
    parameters and, per seed, its length and number of features; the learners,
    rules, merits, learner parameters, prequential settings and versions."""
    import numba
    from . import __version__
    out = {
        "stream": stream if isinstance(stream, str) else stream_label(stream),
        "stream_params": dict(stream_params or {}),
        "learners": [_learner_label(lr) for lr in learners],
        "rules": {k: dict(v or {}) for k, v in rules.items()},
        "merits": list(merits),
        "seeds": list(seeds),
        "learner_params": dict(learner_params or {}),
        "chunk_size": int(chunk_size),
        "checkpoints": checkpoints if isinstance(checkpoints, int) else list(checkpoints),
        "classes": None if classes is None else list(np.asarray(classes).tolist()),
        "n_jobs": n_jobs,
        "seconds": ("time inside predict / partial_fit per checkpoint, cumulative; "
                    "compilation excluded (compile_seconds: warming the kernels before "
                    "timing, per run)"),
        "treelab": __version__, "numba": numba.__version__,
        "written": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    if lengths:
        out["stream_length"] = {str(s): n for s, (n, _) in sorted(lengths.items())}
        out["n_features"] = {str(s): d for s, (_, d) in sorted(lengths.items())}
    return out


def describe_settings(settings):
    """A few lines describing an ablation's settings (for printing)."""
    lines = [f"stream: {stream_label(settings['stream'], settings['stream_params'])}"]
    if "stream_length" in settings:
        ns = sorted(set(v for v in settings["stream_length"].values() if v is not None))
        ds = sorted(set(v for v in settings["n_features"].values() if v is not None))
        lines[0] += (f", {'/'.join(f'{n:,}' for n in ns)} instances x "
                     f"{'/'.join(str(d) for d in ds)} features")
    lines.append(f"learners: {', '.join(settings['learners'])}; merits: "
                 f"{', '.join(map(str, settings['merits']))}; learner parameters: "
                 f"{settings['learner_params'] or 'defaults'}")
    lines.append("rules: " + "; ".join(
        name + (" " + ", ".join(f"{k}={v}" for k, v in grid.items()) if grid else "")
        for name, grid in settings["rules"].items()))
    lines.append(f"seeds: {settings['seeds']}; chunk_size {settings['chunk_size']}, "
                 f"checkpoints {settings['checkpoints']}; seconds exclude compilation")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ plots
def _config_label(row):
    val = row["value"]
    if isinstance(val, float) and math.isnan(val):
        return f"{row['rule']}"
    if isinstance(val, (float, np.floating)):
        val = f"{val:g}"
    return f"{row['rule']} {row['param']}={val}"


def final_points(df):
    """Per configuration (mean over seeds) at the last checkpoint of each run:
    online accuracy, leaves, nodes, seconds."""
    keys = ["stream", "learner", "rule", "param", "value", "merit"]
    last = df.loc[df.groupby(keys + ["seed"], dropna=False)["instances"].idxmax()]
    extra = {"compile_seconds": ("compile_seconds", "mean")} \
        if "compile_seconds" in last.columns else {}
    agg = last.groupby(keys, dropna=False).agg(
        accuracy=("accuracy", "mean"), accuracy_std=("accuracy", "std"),
        n_leaves=("n_leaves", "mean"), n_nodes=("n_nodes", "mean"),
        seconds=("seconds", "mean"), **extra, seeds=("seed", "nunique")).reset_index()
    return agg


def best_per_leaf_bin(points, bins):
    """The C-Tree paper's Figure 3 view: per learner / rule / merit and per bin of
    the number of leaves, the best mean online accuracy among the configurations
    (parameter values) whose trees end in that bin.

    ``points`` is :func:`final_points`'s table; ``bins`` the bin edges (a
    configuration with ``edges[i] <= n_leaves < edges[i+1]`` falls in bin i).
    Returns one row per non-empty bin: ``learner, rule, merit, bin_lo, bin_hi,
    n_leaves, accuracy, value`` (the leaves and parameter value of the best
    configuration in the bin).
    """
    edges = np.asarray(bins, dtype=float)
    if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("bins must be at least two increasing edges")
    pts = points.copy()
    idx = np.searchsorted(edges, pts["n_leaves"].to_numpy(float), side="right") - 1
    pts = pts[(idx >= 0) & (idx < len(edges) - 1)].assign(bin=idx[(idx >= 0)
                                                                    & (idx < len(edges) - 1)])
    rows = []
    for (learner, rule, merit, b), g in pts.groupby(["learner", "rule", "merit", "bin"],
                                                    sort=True):
        best = g.loc[g["accuracy"].idxmax()]
        rows.append(dict(learner=learner, rule=rule, merit=merit, bin_lo=edges[b],
                         bin_hi=edges[b + 1], n_leaves=best["n_leaves"],
                         accuracy=best["accuracy"], value=best["value"]))
    return pd.DataFrame(rows, columns=["learner", "rule", "merit", "bin_lo", "bin_hi",
                                       "n_leaves", "accuracy", "value"])


def plot_ablation(df, out_dir, name="ablation"):
    """Write ``<name>_curves.png`` (accuracy vs instances, mean over seeds) and
    ``<name>_leaves.png`` (final online accuracy vs number of leaves, one line
    per rule and merit across its parameter values, as in the C-Tree paper's
    Figures 2-3).  Returns the paths written (empty without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    keys = ["learner", "rule", "param", "value", "merit"]
    paths = []

    settings = df.attrs.get("settings") or {}
    stream = df["stream"].iloc[0] if "stream" in df.columns and len(df) else "stream"
    what = stream_label(settings.get("stream", stream), settings.get("stream_params"))
    n_seeds = df["seed"].nunique() if "seed" in df.columns else 1

    fig, ax = plt.subplots(figsize=(8, 5))
    for cfg, g in df.groupby(keys, dropna=False, sort=False):
        stats = g.groupby("instances")["accuracy"].agg(["mean", "min", "max"])
        row = dict(zip(keys, cfg))
        label = f"{row['learner']} {row['merit']} " + _config_label(row)
        line, = ax.plot(stats.index, stats["mean"].values, label=label, lw=1)
        if g["seed"].nunique() > 1:     # spread over seeds: min-max band
            ax.fill_between(stats.index, stats["min"].values, stats["max"].values,
                            color=line.get_color(), alpha=0.15, lw=0)
    ax.set_xlabel("instances")
    ax.set_ylabel("online accuracy (prequential)")
    spread = f"mean over {n_seeds} seeds, band: min-max" if n_seeds > 1 else "one seed"
    ax.set_title(f"{name}: learning curves on {what}\n({spread})", fontsize=10)
    ax.grid(alpha=0.3)
    if df.groupby(keys, dropna=False).ngroups <= 16:
        ax.legend(fontsize=7)
    fig.tight_layout()
    p = out / f"{name}_curves.png"
    fig.savefig(p, dpi=120)
    plt.close(fig)
    paths.append(p)

    pts = final_points(df)
    fig, ax = plt.subplots(figsize=(7, 5))
    for (learner, rule, merit), g in pts.groupby(["learner", "rule", "merit"], sort=False):
        g = g.sort_values("n_leaves")
        line, = ax.plot(g["n_leaves"], g["accuracy"], marker="o",
                        label=f"{learner} {rule} ({merit})")
        for _, r in g.iterrows():       # each point labelled with its parameter value
            v = r["value"]
            if isinstance(v, float) and math.isnan(v):
                continue
            text = f"{r['param']}={v:g}" if isinstance(v, (float, np.floating)) \
                else f"{r['param']}={v}"
            ax.annotate(text, (r["n_leaves"], r["accuracy"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=7, color=line.get_color())
    ax.set_xlabel("number of leaves (end of stream)")
    ax.set_ylabel("online accuracy (end of stream)")
    ax.set_title(f"{name}: online accuracy vs leaves on {what}\n"
                 f"(mean over {n_seeds} seed{'s' if n_seeds > 1 else ''})", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = out / f"{name}_leaves.png"
    fig.savefig(p, dpi=120)
    plt.close(fig)
    paths.append(p)
    return paths
