"""The ``treelab`` command line.

``treelab demo``: the data-mining course's teaching lab on the course slides'
tables (information gain, split information and gain ratio, ID3 and C4.5 trees
on the loan-approval table; play tennis; the regression-tree split search; the
buy_computer confusion matrix) and a CART tree with cost-complexity pruning on
scikit-learn's bundled breast-cancer data.  ``--language zh`` prints the
course's tables with their Chinese labels.

``treelab warmup``: compile every learner's kernels once (numba caches them
on disk), so no later first call is silent for half a minute; ``treelab demo``
runs it first.

``treelab ablation``: a grid of streaming learners x split rules x parameter
values x seeds on a stream (:mod:`treelab.experiment`), in parallel, writing a
tidy CSV and PNG plots, e.g.::

    treelab ablation --stream randcbt --stream-param n_leaves=50 \
        --stream-param m_per_leaf=1000 --merit gini --set grace_period=100 \
        --rule hoeffding:delta=1e-7,1e-3,0.1 --rule ctree:c=0.01,0.05,0.2 \
        --rule corrh:delta=1e-7,1e-3,0.1 --seeds 0,1 --n-jobs 2 --out results/ablation
"""
from __future__ import annotations

import argparse
import difflib
import inspect
import sys
import time


def _rule(title):
    print("\n" + title)
    print("=" * len(title))


def demo(args):
    """The course lab on the course's own tables (:mod:`treelab._demo`); the printed
    text is deterministic and pinned by a golden-output test."""
    from ._demo import run_demo
    run_demo(language=args.language)
    return 0


def _value(text):
    """A command-line value: int, float, bool, None or string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


# ------------------------------------------------------------------ one-line errors
class UsageError(Exception):
    """A command-line mistake: reported in one line on stderr, exit status 2."""


def _closest(name, valid):
    """`` (did you mean 'x'?)`` for the closest valid names (difflib), else ''."""
    near = difflib.get_close_matches(str(name), [str(v) for v in valid], n=3, cutoff=0.5)
    if not near:
        return ""
    return " (did you mean " + " or ".join(repr(v) for v in near) + "?)"


def _unknown(what, name, valid, hint=""):
    raise UsageError(f"unknown {what} {name!r}{_closest(name, valid)}; valid: "
                     f"{', '.join(str(v) for v in valid)}{hint}")


class _Parser(argparse.ArgumentParser):
    """argparse whose wrong calls print the usage, then the error in one line
    (exit status 2), with the closest valid names of a misspelt choice."""

    def error(self, message):
        choice = "invalid choice: "
        if choice in message:           # argparse's own choices: add the closest names
            bad = message.split(choice, 1)[1].split(" (choose from", 1)[0].strip("'\"")
            valid = [c for c in self._choices_in(message)]
            message += _closest(bad, valid)
        self.print_usage(sys.stderr)
        _fail(f"{self.prog}: error: {message}\n"
              f"(run '{self.prog} --help' for every option)", lines=True)

    @staticmethod
    def _choices_in(message):
        if "(choose from " not in message:
            return []
        inner = message.split("(choose from ", 1)[1].rsplit(")", 1)[0]
        return [c.strip(" '\"") for c in inner.split(",")]


def _fail(message, status=2, lines=False):
    """``message`` on stderr -- one line unless ``lines`` -- and exit ``status``."""
    text = str(message) if lines else " ".join(str(message).split("\n"))
    print(text, file=sys.stderr)
    raise SystemExit(status)


def _renamed(name, valid):
    """A former parameter name (:data:`treelab._params.RENAMED_PARAMETERS`) whose
    new name is valid: a one-line error naming the new one."""
    from ._params import RENAMED_PARAMETERS
    new = RENAMED_PARAMETERS.get(name)
    if new is not None and new in valid:
        raise UsageError(f"{name} was renamed {new}; use --set {new}=VALUE")


def _pairs(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"{what} must look like key=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = _value(v)
    return out


def _rule_grid(specs):
    """``NAME[:param=v1,v2[;param2=...]]`` -> {name: {param: [values]}}."""
    grid = {}
    for spec in specs or ["hoeffding"]:
        name, _, rest = spec.partition(":")
        params = {}
        for part in filter(None, rest.split(";")):
            if "=" not in part:
                raise UsageError(f"bad rule spec {spec!r} (expected NAME:param=v1,v2)")
            k, v = part.split("=", 1)
            params[k.strip()] = [_value(x) for x in v.split(",") if x.strip()]
        grid[name.strip()] = params
    return grid


# ------------------------------------------------------------ names the CLI accepts
def rule_names():
    """Rule names ``--rule`` accepts: the one registry's
    (:func:`treelab.split_criteria.rules.rule_names`)."""
    from .split_criteria.rules import rule_names as registry_names
    return list(registry_names())


def _rule_aliases():
    return {"vfdt": "hoeffding", "c-tree": "ctree", "t-test": "ttest"}


def merit_names():
    """Merit names ``--merit`` accepts."""
    from .split_criteria.impurity import CLASSIFICATION_CRITERIA
    return sorted(CLASSIFICATION_CRITERIA)


def _learner_class(name):
    from .learners import HoeffdingTreeClassifier, SGTClassifier
    return {"hoeffding": HoeffdingTreeClassifier, "sgt": SGTClassifier}[name]


def _init_params(cls, skip=("self", "random_state")):
    """``{name: default}`` of a constructor's keyword parameters."""
    out = {}
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        out[p.name] = None if p.default is p.empty else p.default
    return out


def stream_parameters(stream):
    """``{parameter: default}`` of a named stream (``--stream-param`` keys)."""
    key = stream.lower()
    if key == "randcbt":
        from .streaming.generators import RandCBT
        return _init_params(RandCBT)
    if key in ("electricity", "elec", "elec2"):
        return {"path": None, "data_home": None}
    if key.startswith("river:"):
        try:
            from river.datasets import synth
        except ImportError:
            raise UsageError("river streams need river (pip install river)") from None
        gen = stream.split(":", 1)[1]
        names = sorted(n for n in dir(synth) if n[:1].isupper())
        cls = getattr(synth, gen, None)
        if cls is None or not isinstance(cls, type):
            _unknown("river generator", gen, names)
        return dict(_init_params(cls, skip=("self", "seed")), n=100_000)
    _unknown("stream", stream, ["randcbt", "electricity", "river:<Generator>"])


def _streams_help():
    lines = ["streams and their --stream-param keys (defaults):"]
    for name in ("randcbt", "electricity"):
        params = stream_parameters(name)
        lines.append(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in params.items()))
    lines[-1] += ("  (no path: downloaded once by treelab.datasets.fetch_electricity into "
                  "data_home, $TREELAB_DATA or ~/treelab_data)")
    lines.append("  river:<Generator>: the generator's own parameters, and n=100000 "
                 "(instances taken)")
    lines.append("rules (--rule NAME:param=v1,v2;param2=...): " + ", ".join(rule_names()))
    lines.append("merits (--merit): " + ", ".join(merit_names()))
    for name in ("hoeffding", "sgt"):
        params = _init_params(_learner_class(name))
        params.pop("rule", None)
        lines.append(f"{name} parameters (--set KEY=VALUE): "
                     + ", ".join(f"{k}={v}" for k, v in params.items()))
    return "\n".join(lines)


def _check_ablation(args):
    """Validate every name and value of ``treelab ablation`` before running
    anything; returns the arguments of :func:`treelab.experiment.run_ablation`.
    Raises :class:`UsageError` (one line, exit status 2) on a mistake."""
    from .experiment import make_rule
    learners = args.learner or ["hoeffding"]
    stream = args.stream
    valid_stream = stream_parameters(stream)
    stream_params = _pairs(args.stream_param, "--stream-param")
    for k in stream_params:
        if k not in valid_stream:
            _unknown(f"stream parameter of {stream}", k, list(valid_stream))
    if stream.lower() in ("electricity", "elec", "elec2") and stream_params.get("path"):
        from pathlib import Path
        path = Path(stream_params["path"])
        if not path.exists():
            raise UsageError(f"Electricity data not found at {path}; pass --stream-param "
                             "path=FILE of an existing elecNormNew.arff(.gz/.zip), or no path "
                             "to download it once into $TREELAB_DATA or ~/treelab_data")
    merits = args.merit or None
    valid_merits = merit_names()
    for m in merits or []:
        if m not in valid_merits:
            _unknown("merit", m, valid_merits)
    learner_params = _pairs(args.set, "--set")
    for name in learners:
        valid = _init_params(_learner_class(name))
        valid.pop("rule", None)
        if name == "sgt":
            valid["criterion"] = None    # a Hoeffding-tree setting, ignored by SGT
        for k in learner_params:
            if k not in valid:
                _renamed(k, valid)
                _unknown(f"parameter of {name}", k, list(valid),
                         "; rules go in --rule" if k == "rule" else "")
    rules = _rule_grid(args.rule)
    names = rule_names()
    for rname, grid in rules.items():
        key = _rule_aliases().get(rname.lower(), rname.lower())
        if key not in names:
            _unknown("rule", rname, names)
        for k, values in grid.items():
            if not values:
                raise UsageError(f"--rule {rname}: no values given for {k}")
        obj, _ = make_rule(key, (merits or [learner_params.get("criterion", "entropy")])[0])
        valid = [p for p in _init_params(type(obj)) if p != "criterion"]
        for k in grid:
            if k not in valid:
                _unknown(f"parameter of rule {rname}", k, valid)
    try:
        seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--seeds must be comma-separated integers, got {args.seeds!r}") \
            from None
    if not seeds:
        raise UsageError("--seeds is empty")
    for what, v in (("--chunk-size", args.chunk_size), ("--checkpoints", args.checkpoints)):
        if v < 1:
            raise UsageError(f"{what} must be >= 1, got {v}")
    # every configuration once, without data: bad values fail here, in one line
    lp = {k: v for k, v in learner_params.items() if k != "criterion"}
    for name in learners:
        for rname, grid in rules.items():
            key = _rule_aliases().get(rname.lower(), rname.lower())
            for combo in _combos(grid):
                for merit in (merits or [learner_params.get("criterion", "entropy")]):
                    try:
                        rule, merit_used = make_rule(key, merit, **combo)
                        kw = dict(lp, rule=rule)
                        if name == "hoeffding":
                            kw["criterion"] = merit_used
                        _learner_class(name)(**kw)._make_rule()
                    except (ValueError, TypeError) as exc:
                        cfg = ", ".join(f"{k}={v}" for k, v in combo.items())
                        raise UsageError(f"{name} with rule {rname}"
                                         f"{' (' + cfg + ')' if cfg else ''}: {exc}") from None
    return dict(stream=stream, rules=rules, learners=learners, merits=merits, seeds=seeds,
                stream_params=stream_params, learner_params=learner_params)


def _combos(grid):
    import itertools
    keys = list(grid)
    for vals in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, vals))


def ablation(args):
    from .experiment import ablation_settings, describe_settings, final_points, run_ablation
    spec = _check_ablation(args)
    merits = spec["merits"] or [spec["learner_params"].get("criterion", "entropy")]
    lp = {k: v for k, v in spec["learner_params"].items() if k != "criterion"}
    settings = ablation_settings(spec["stream"], spec["stream_params"], spec["learners"],
                                 spec["rules"], merits, spec["seeds"], lp, args.chunk_size,
                                 args.checkpoints, n_jobs=args.n_jobs)
    print(describe_settings(settings), flush=True)
    if args.dry_run:
        print("(dry run: settings are valid; nothing was run)")
        return 0
    t0 = time.perf_counter()
    df = run_ablation(chunk_size=args.chunk_size, checkpoints=args.checkpoints,
                      n_jobs=args.n_jobs, progress=not args.no_progress, out_dir=args.out,
                      plot=not args.no_plot, name=args.name, **spec)
    pts = final_points(df)
    print(describe_settings(df.attrs["settings"]).splitlines()[0])
    print(pts.drop(columns=["stream"]).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"\n{df.groupby(['learner', 'rule', 'param', 'value', 'merit', 'seed'], dropna=False).ngroups}"
          f" runs in {time.perf_counter() - t0:.1f} s; wrote {args.out}/{args.name}.csv, "
          f"{args.name}.json"
          + ("" if args.no_plot else f", {args.name}_curves.png, {args.name}_leaves.png"))
    return 0


def warmup(args):
    from ._warmup import warmup as _warmup
    t0 = time.perf_counter()
    took = _warmup(force=args.force)
    print(f"treelab warmup: {sum(1 for v in took.values() if v)} of {len(took)} learner "
          f"families compiled in {time.perf_counter() - t0:.1f} s; later first calls load "
          "the compiled kernels from numba's disk cache", file=sys.stderr)
    return 0


def teach(args):
    """``treelab teach ensembles``: the slides' ensemble lessons."""
    from .teaching_ensembles import ensemble_lessons
    print(ensemble_lessons(png_dir=args.png_dir))
    return 0


def _demo_with_warmup(args):
    if args.warmup:
        from ._warmup import warmup as _warmup
        _warmup(verbose=True)       # progress on stderr; the demo's output is stdout
    return demo(args)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every default shown (options without a value, whose help says what they
    default to, excepted), epilogs kept as written."""

    def _get_help_string(self, action):
        if action.default is None or isinstance(action, argparse._StoreTrueAction):
            return action.help
        return super()._get_help_string(action)


_EPILOG = """examples:
  treelab demo                       the teaching lab (tables, ID3 / C4.5 / CART trees)
  treelab warmup                     compile every learner's kernels once
  treelab teach ensembles            the ensemble lessons as tables
  treelab ablation --dry-run         check an ablation grid without running it
  python -m treelab COMMAND --help   the options of COMMAND

Mistakes are reported in one line; --debug shows the full traceback."""


def build_parser():
    """The full ``treelab`` argument parser: every command and option (also read
    by the documentation's command-line page).  Wrong calls print the usage and
    a one-line error (exit status 2); every default is shown in ``--help``."""
    from . import __version__
    debug = argparse.ArgumentParser(add_help=False)
    debug.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the full traceback of an error")
    parser = _Parser(prog="treelab", formatter_class=_Formatter, epilog=_EPILOG,
                     description="treelab command line: the course's teaching lab, "
                                 "kernel warm-up, lessons and streaming ablation grids.")
    parser.add_argument("--version", action="version", version=f"treelab {__version__}")
    parser.add_argument("--debug", action="store_true", default=False,
                        help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                title="commands", metavar="COMMAND")
    p = sub.add_parser("demo", help="teaching lab and a CART example on built-in data",
                       formatter_class=_Formatter, parents=[debug],
                       description="The teaching lab and a pruned CART tree; compiles the "
                                   "kernels it uses (once per install).")
    p.add_argument("--language", choices=["en", "zh"], default="en",
                   help="labels of the course's loan and regression tables: English or "
                        "the slides' Chinese")
    p.add_argument("--warmup", action="store_true",
                   help="compile every learner's kernels first (treelab warmup)")
    p.add_argument("--no-warmup", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=_demo_with_warmup)
    p = sub.add_parser("warmup", help="compile every learner's kernels now (once per install)",
                       formatter_class=_Formatter, parents=[debug],
                       description="Compile the kernels of every learner (decision trees, "
                                   "SGT, Hoeffding trees, gradient boosting, histogram forests "
                                   "and cascades) into numba's disk cache, so that no later "
                                   "first call pays its compilation (5-16 minutes on 2 "
                                   "cores for all of them, depending on the machine).")
    p.add_argument("--force", action="store_true",
                   help="run every learner even when its kernels are already cached")
    p.set_defaults(func=warmup)
    p = sub.add_parser("teach", help="the course's lessons as tables (ensembles)",
                       formatter_class=_Formatter, parents=[debug],
                       description="Print a lesson of the course: 'ensembles' = majority-vote "
                                   "error of independent classifiers, bootstrap rounds, AdaBoost "
                                   "round by round, out-of-bag error against the number of trees.")
    p.add_argument("topic", choices=["ensembles"], help="lesson")
    p.add_argument("--png-dir", default=None,
                   help="also write the lesson's PNG plots into this folder")
    p.set_defaults(func=teach)
    p = sub.add_parser("ablation", help="grid of streaming learners x split rules x values x seeds",
                       formatter_class=_Formatter, epilog=_streams_help(), parents=[debug],
                       description="Run learners x rules x parameter values x merits x seeds "
                                   "on a stream (prequential), write a CSV, its settings (JSON) "
                                   "and PNG plots.")
    p.add_argument("--stream", default="randcbt",
                   help="randcbt, electricity or river:<Generator> (parameters below)")
    p.add_argument("--stream-param", action="append", metavar="KEY=VALUE",
                   help="stream parameter, e.g. n_leaves=50 (repeatable; default: the "
                        "stream's defaults, listed below)")
    p.add_argument("--learner", action="append", choices=["hoeffding", "sgt"],
                   help="learner (repeatable; default: hoeffding)")
    p.add_argument("--rule", action="append", metavar="NAME[:PARAM=V1,V2]",
                   help="rule and its values: " + ", ".join(rule_names())
                        + " (repeatable; several parameters separated by ';'; default: "
                          "hoeffding at the learner's delta)")
    p.add_argument("--merit", action="append",
                   help="split criterion (merit) of Hoeffding trees (repeatable): " + ", ".join(merit_names())
                        + " (default: entropy)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="learner parameter, e.g. grace_period=100 (repeatable; default: the "
                        "learner's defaults, listed below)")
    p.add_argument("--seeds", default="0", help="comma-separated stream seeds")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel runs (-1: all cores)")
    p.add_argument("--chunk-size", type=int, default=1000,
                   help="instances per predict / partial_fit call")
    p.add_argument("--checkpoints", type=int, default=20, help="points per learning curve")
    p.add_argument("--out", default="results/ablation", help="output folder")
    p.add_argument("--name", default="ablation", help="file name stem of the outputs")
    p.add_argument("--no-plot", action="store_true", help="write no PNG plots")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true",
                   help="check every name and value, print the settings, run nothing")
    p.set_defaults(func=ablation)
    return parser


def main(argv=None):
    """Run ``treelab`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit
    status.  Without arguments: the help, exit status 2.  A mistake -- a wrong
    name or value, a missing file or optional package -- ends in a one-line
    error without traceback (exit status 2 for the command line's own checks,
    1 otherwise); ``--debug`` shows the traceback instead."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        return args.func(args)
    except UsageError as exc:
        if debug:
            raise
        _fail(f"treelab {args.command}: error: {exc}")
    except KeyboardInterrupt:
        if debug:
            raise
        _fail(f"treelab {args.command}: interrupted", 130)
    except BrokenPipeError:             # e.g. treelab demo | head
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:            # noqa: BLE001 - one line, the traceback on --debug
        if debug:
            raise
        _fail(f"treelab {args.command}: error: {type(exc).__name__}: {exc} "
              "(--debug shows the traceback)", 1)


if __name__ == "__main__":
    sys.exit(main())
