"""Every code block of README.md runs as written (issue 14, item 1).

* ```` ```python ```` blocks (indented ones inside lists too) run **in README
  order in one namespace**, as a reader pasting them into one session would.
  Placeholders a snippet may use without defining them come from the fixture
  namespace :func:`fixture_namespace`:

  - ``X_train, y_train, X_val, y_val, X_test, y_test``: scikit-learn's
    breast-cancer data (shipped with scikit-learn), split 60 / 20 / 20,
    stratified, as numpy arrays;
  - ``chunks``: a list of ``(X_chunk, y_chunk)`` pairs, a binary stream (labels
    0 / 1, 5 numeric features, 2,000 rows in chunks of 250) from treelab's
    ``RandCBT`` generator.

  A name neither defined by an earlier block nor in that namespace fails the
  block's test with a message saying so.
* ```` ```bash ```` / ```` ```sh ```` blocks: every ``treelab`` command (``treelab``,
  ``.venv/bin/treelab``, ``python -m treelab.cli``) must parse with treelab's
  own parser; ``treelab ablation`` commands are also checked with
  ``--dry-run`` (every rule, merit, stream and parameter name and value is
  validated, nothing is run).  ``python FILE`` commands must name an existing
  file and ``pip install -e ".[extra]"`` an existing extra.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*$")


def readme_blocks(text=None):
    """``[(language, first line number, code)]`` of the fenced blocks of README.md,
    dedented by their fence's indentation."""
    lines = (README.read_text(encoding="utf-8") if text is None else text).splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group("lang"):
            i += 1
            continue
        indent, lang, start = m.group("indent"), m.group("lang").lower(), i + 2
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^[ \t]*```[ \t]*$", lines[i]):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        out.append((lang, start, "\n".join(body) + "\n"))
        i += 1
    return out


def fixture_namespace():
    """Names README snippets may use as placeholders (see the module docstring)."""
    from sklearn.datasets import load_breast_cancer

    from treelab.evaluation import stratified_kfold
    from treelab.streaming.generators import RandCBT

    X, y = load_breast_cancer(return_X_y=True)
    folds = stratified_kfold(y, n_splits=5, random_state=0)
    rest, test = folds[0]
    val = folds[1][1]
    train = np.setdiff1d(rest, val)
    Xs, ys = RandCBT(n_leaves=4, n_features=5, m_per_leaf=500, random_state=0).generate()
    chunks = [(Xs[a:a + 250], ys[a:a + 250]) for a in range(0, len(ys), 250)]
    return {"__name__": "__readme__", "X_train": X[train], "y_train": y[train],
            "X_val": X[val], "y_val": y[val], "X_test": X[test], "y_test": y[test],
            "chunks": chunks}


PY_BLOCKS = [b for b in readme_blocks() if b[0] in ("python", "py")]
SH_BLOCKS = [b for b in readme_blocks() if b[0] in ("bash", "sh", "shell", "console")]


@pytest.fixture(scope="module")
def session():
    return {"ns": None, "done": 0, "errors": {}}


def _run_until(session, i):
    if session["ns"] is None:
        session["ns"] = fixture_namespace()
    while session["done"] <= i:
        j = session["done"]
        session["done"] += 1
        _, line, code = PY_BLOCKS[j]
        try:
            exec(compile(code, f"README.md:{line}", "exec"), session["ns"])
        except Exception as exc:     # noqa: BLE001 - reported by the block's own test
            session["errors"][j] = exc


def test_readme_has_code_blocks():
    assert PY_BLOCKS and SH_BLOCKS


@pytest.mark.parametrize("i", range(len(PY_BLOCKS)),
                         ids=[f"README.md:{b[1]}" for b in PY_BLOCKS])
def test_python_block_runs(i, session, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)           # a snippet writing files writes them here
    _run_until(session, i)
    exc = session["errors"].get(i)
    if exc is None:
        return
    earlier = [PY_BLOCKS[j][1] for j in session["errors"] if j < i]
    hint = ""
    if isinstance(exc, NameError):
        hint = (" -- define it in the snippet (or an earlier one), or add a placeholder to "
                "fixture_namespace() in tests/test_readme.py and to its docstring")
    if earlier:
        hint += f" (earlier blocks failed too, at README.md lines {earlier})"
    raise AssertionError(f"README.md python block at line {PY_BLOCKS[i][1]} failed: "
                         f"{type(exc).__name__}: {exc}{hint}") from exc


def _commands(code):
    """Shell commands of a block: continuation lines joined, split at && || ; |."""
    text = re.sub(r"\\\n", " ", code)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("$ "):
            line = line[2:]
        for part in re.split(r"&&|\|\||;|\|", line):
            try:
                tokens = shlex.split(part, comments=True)
            except ValueError:
                tokens = part.split()
            while tokens and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
                tokens = tokens[1:]          # VAR=value prefixes
            if tokens:
                out.append(tokens)
    return out


def _treelab_argv(tokens):
    """The treelab arguments of a command, or None when it is not a treelab command."""
    if Path(tokens[0]).name == "treelab":
        return tokens[1:]
    if Path(tokens[0]).name.startswith("python") and tokens[1:3] in (["-m", "treelab.cli"],
                                                                    ["-m", "treelab"]):
        return tokens[3:]
    return None


SH_COMMANDS = [(line, tokens) for _, line, code in SH_BLOCKS for tokens in _commands(code)]


@pytest.mark.parametrize("line,tokens", SH_COMMANDS,
                         ids=[f"README.md:{ln}:{' '.join(t)[:40]}" for ln, t in SH_COMMANDS])
def test_shell_command_is_valid(line, tokens, capsys, tmp_path):
    from treelab.cli import build_parser, main
    argv = _treelab_argv(tokens)
    if argv is not None:
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            err = capsys.readouterr().err
            raise AssertionError(f"README.md:{line}: `treelab {' '.join(argv)}` does not parse: "
                                 f"{err.strip()}") from exc
        if argv and argv[0] == "ablation":
            try:
                rc = main(argv + ["--dry-run", "--no-progress", "--out", str(tmp_path)])
            except SystemExit as exc:
                rc = exc.code
            err = capsys.readouterr().err
            assert rc == 0, f"README.md:{line}: `treelab {' '.join(argv)}` is rejected: {err}"
        return
    exe = Path(tokens[0]).name
    if exe.startswith("python") and len(tokens) > 1 and tokens[1].endswith(".py"):
        assert (ROOT / tokens[1]).is_file(), f"README.md:{line}: no file {tokens[1]}"
    if exe == "pip" or (exe.startswith("python") and tokens[1:3] == ["-m", "pip"]):
        for tok in tokens:
            m = re.match(r"^\.?\[(?P<extras>[^\]]+)\]$", tok.replace("\"", ""))
            if m:
                text = (ROOT / "pyproject.toml").read_text()
                for extra in m.group("extras").split(","):
                    assert re.search(rf"^\s*{re.escape(extra.strip())}\s*=", text, re.M), \
                        f"README.md:{line}: pyproject.toml has no extra {extra!r}"


def test_block_extraction_handles_indented_fences():
    text = "x\n```python\na = 1\n```\n* item\n\n  ```python\n  b = 2\n  ```\n```bash\nls\n```\n"
    assert readme_blocks(text) == [("python", 3, "a = 1\n"), ("python", 8, "b = 2\n"),
                                   ("bash", 11, "ls\n")]
    assert _commands("a && b \\\n  --x 1; c | d\n# note\n") == [
        ["a"], ["b", "--x", "1"], ["c"], ["d"]]
    assert _treelab_argv([".venv/bin/treelab", "demo"]) == ["demo"]
    assert _treelab_argv(["python", "-m", "treelab.cli", "warmup"]) == ["warmup"]
    assert _treelab_argv(["python", "x.py"]) is None


def test_every_benchmark_and_experiment_script_is_named_in_the_readme():
    """A script under ``benchmarks/`` or ``experiments/`` (helper modules, whose
    names start with ``_``, aside) is named in README.md, so that a reader of
    its "Benchmarks and experiments" finds every one of them."""
    text = README.read_text(encoding="utf-8")
    missing = [f"{p.parent.name}/{p.name}"
               for folder in ("benchmarks", "experiments")
               for p in sorted((ROOT / folder).glob("*.py"))
               if not p.name.startswith("_") and p.name not in text]
    assert not missing, f"not named in README.md: {', '.join(missing)}"


def test_readme_links_the_benchmark_record():
    """README's "Benchmarks and experiments" points to the dated record, which
    exists and names the README section it summarises."""
    text = README.read_text(encoding="utf-8")
    assert "docs/benchmarks.md" in text
    record = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert 'README.md, "Benchmarks and experiments"' in record
