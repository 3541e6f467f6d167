"""README.md and the documentation pages say what runs.

* Every ```` ```python ```` block of README.md runs **on its own, in a fresh
  Python interpreter** (this one, ``sys.executable``: the project's virtual
  environment), from an empty working directory, with nothing predefined: a
  block that uses a name it does not define or import fails.  The checker,
  :func:`run_block`, is itself tested on planted broken blocks.

  These are the long-running tests of this module: each block is a new
  process, so it loads treelab's kernels from numba's disk cache, and when the
  cache is empty or stale (right after an install or a change to the sources,
  before ``treelab warmup``) it compiles the kernels it uses first -- up to a
  few minutes per block (a decision tree's about two).  Keep README blocks few,
  small and fast.
* Every ```` ```bash ```` block of README.md and of ``docs/**/*.md``: each
  ``treelab`` command parses with treelab's own parser (``treelab ablation``
  ones are also run with ``--dry-run``, which validates every name and value),
  ``python FILE`` names an existing file and ``pip install -e ".[extra]"`` an
  existing extra.
* README.md holds the two commands of the CI script ``.ci/run`` verbatim.
* The ```` ```python ```` blocks of the documentation pages compile, and the
  relative links of README.md and the pages point to existing files.
* ``docs/benchmarks.md`` names every benchmark script, and the benchmark and
  reproduction pages together name every experiment script.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOC_PAGES = sorted(DOCS.rglob("*.md")) if DOCS.is_dir() else []

#: seconds a README block may take (compiling kernels into an empty cache included)
BLOCK_TIMEOUT = 1800

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*$")


def md_blocks(text):
    """``[(language, first line number, code)]`` of the fenced blocks of a
    Markdown text, dedented by their fence's indentation."""
    lines = text.splitlines()
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


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def _blocks(path, langs):
    return [(f"{_rel(path)}:{line}", code)
            for lang, line, code in md_blocks(path.read_text(encoding="utf-8")) if lang in langs]


PY = ("python", "py")
SH = ("bash", "sh", "shell", "console")
README_PY = _blocks(README, PY)
README_SH = _blocks(README, SH)
DOCS_PY = [b for p in DOC_PAGES for b in _blocks(p, PY)]
DOCS_SH = [b for p in DOC_PAGES for b in _blocks(p, SH)]


def run_block(code, cwd, timeout=BLOCK_TIMEOUT):
    """Run ``code`` as a script in a fresh interpreter in ``cwd``; returns
    ``(returncode, combined output)``."""
    script = Path(cwd) / "readme_block.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONSTARTUP", None)
    proc = subprocess.run([sys.executable, script.name], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def check_block(where, code, cwd, timeout=BLOCK_TIMEOUT):
    """Fail (AssertionError) when the block does not run cleanly on its own."""
    rc, output = run_block(code, cwd, timeout)
    if rc != 0:
        tail = "\n".join(output.strip().splitlines()[-15:])
        hint = ""
        if "NameError" in output:
            hint = ("\n(every README block runs alone in a fresh interpreter: define or import "
                    "every name it uses)")
        raise AssertionError(f"{where}: the block exits with status {rc}:\n{tail}{hint}")


# ---------------------------------------------------------------- README python blocks
def test_readme_has_code_blocks():
    assert README_PY and README_SH


@pytest.mark.parametrize("where,code", README_PY, ids=[w for w, _ in README_PY])
def test_readme_python_block_runs_alone(where, code, tmp_path):
    check_block(where, code, tmp_path)


@pytest.mark.parametrize("code,expected", [
    ("print(X_train.shape)\n", "NameError"),                  # no injected placeholders
    ("import math\nmath.sqrt(-1)\n", "ValueError"),
    ("def f(:\n    pass\n", "SyntaxError"),
    ("import treelab_no_such_module\n", "ModuleNotFoundError"),
])
def test_checker_fails_on_a_planted_broken_block(code, expected, tmp_path):
    with pytest.raises(AssertionError, match=expected):
        check_block("planted.md:1", code, tmp_path, timeout=120)


def test_checker_passes_a_planted_good_block(tmp_path):
    check_block("planted.md:1", "import numpy as np\nprint(np.arange(3).sum())\n", tmp_path,
                timeout=120)


def test_blocks_do_not_share_a_namespace(tmp_path):
    check_block("planted.md:1", "shared_name = 1\n", tmp_path, timeout=120)
    with pytest.raises(AssertionError, match="NameError"):
        check_block("planted.md:5", "print(shared_name)\n", tmp_path, timeout=120)


# ---------------------------------------------------------------- shell commands
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


SH_COMMANDS = [(where, tokens) for where, code in README_SH + DOCS_SH
               for tokens in _commands(code)]


@pytest.mark.parametrize("where,tokens", SH_COMMANDS,
                         ids=[f"{w}:{' '.join(t)[:40]}" for w, t in SH_COMMANDS])
def test_shell_command_is_valid(where, tokens, capsys, tmp_path):
    from treelab.cli import build_parser, main
    argv = _treelab_argv(tokens)
    if argv is not None:
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            err = capsys.readouterr().err
            raise AssertionError(f"{where}: `treelab {' '.join(argv)}` does not parse: "
                                 f"{err.strip()}") from exc
        if argv and argv[0] == "ablation":
            try:
                rc = main(argv + ["--dry-run", "--no-progress", "--out", str(tmp_path)])
            except SystemExit as exc:
                rc = exc.code
            err = capsys.readouterr().err
            assert rc == 0, f"{where}: `treelab {' '.join(argv)}` is rejected: {err}"
        return
    exe = Path(tokens[0]).name
    if exe.startswith("python") and len(tokens) > 1 and tokens[1].endswith(".py"):
        assert (ROOT / tokens[1]).is_file(), f"{where}: no file {tokens[1]}"
    if exe == "pip" or (exe.startswith("python") and tokens[1:3] == ["-m", "pip"]):
        for tok in tokens:
            m = re.match(r"^\.?\[(?P<extras>[^\]]+)\]$", tok.replace("\"", ""))
            if m:
                text = (ROOT / "pyproject.toml").read_text()
                for extra in m.group("extras").split(","):
                    assert re.search(rf"^\s*{re.escape(extra.strip())}\s*=", text, re.M), \
                        f"{where}: pyproject.toml has no extra {extra!r}"


def test_block_extraction_and_command_splitting():
    text = "x\n```python\na = 1\n```\n* item\n\n  ```python\n  b = 2\n  ```\n```bash\nls\n```\n"
    assert md_blocks(text) == [("python", 3, "a = 1\n"), ("python", 8, "b = 2\n"),
                               ("bash", 11, "ls\n")]
    assert _commands("a && b \\\n  --x 1; c | d\n# note\n") == [
        ["a"], ["b", "--x", "1"], ["c"], ["d"]]
    assert _treelab_argv([".venv/bin/treelab", "demo"]) == ["demo"]
    assert _treelab_argv(["python", "-m", "treelab.cli", "warmup"]) == ["warmup"]
    assert _treelab_argv(["python", "x.py"]) is None


def test_readme_holds_the_ci_commands():
    """The commands ``.ci/run`` runs (each follows a ``# --- README command``
    line there) appear verbatim, each on a line of its own, in README.md."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [ci[i + 1].strip() for i, line in enumerate(ci)
                if line.startswith("# --- README command")]
    assert len(commands) == 2, commands
    readme_lines = {line.strip() for line in README.read_text(encoding="utf-8").splitlines()}
    missing = [c for c in commands if c not in readme_lines]
    assert not missing, f"README.md lacks the CI command(s): {missing}"


# ---------------------------------------------------------------- the documentation pages
@pytest.mark.parametrize("where,code", DOCS_PY, ids=[w for w, _ in DOCS_PY])
def test_docs_python_block_compiles(where, code):
    compile(code, where, "exec")


_LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def test_relative_links_resolve():
    broken = []
    for page in [README] + DOC_PAGES:
        text = page.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.S)        # not inside code blocks
        text = re.sub(r"`[^`\n]*`", "", text)                     # nor inline code
        for m in _LINK.finditer(text):
            target = m.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue                                           # URLs, anchors
            path = (page.parent / target.split("#")[0]).resolve()
            if not path.exists():
                broken.append(f"{_rel(page)}: {target}")
    assert not broken, "broken relative links:\n" + "\n".join(broken)


def test_docs_name_every_benchmark_and_experiment_script():
    """Scripts under ``benchmarks/`` are named in docs/benchmarks.md; scripts
    under ``experiments/`` in docs/benchmarks.md or docs/reproductions.md
    (helper modules, whose names start with ``_``, aside)."""
    bench = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    repro = (DOCS / "reproductions.md").read_text(encoding="utf-8")
    missing = [f"benchmarks/{p.name}" for p in sorted((ROOT / "benchmarks").glob("*.py"))
               if not p.name.startswith("_") and p.name not in bench]
    missing += [f"experiments/{p.name}" for p in sorted((ROOT / "experiments").glob("*.py"))
                if not p.name.startswith("_") and p.name not in bench + repro]
    assert not missing, f"not named in the benchmark / reproduction pages: {', '.join(missing)}"


def test_readme_links_the_result_pages():
    text = README.read_text(encoding="utf-8")
    for page in ("docs/benchmarks.md", "docs/reproductions.md"):
        assert f"]({page})" in text, page
