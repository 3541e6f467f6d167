"""The text treelab ships speaks about the product, not about how it was made.

Scanned: README.md, every Markdown page under ``docs/``, every module of the
``treelab`` package (code, docstrings, comments and messages alike), the
``examples/`` folder when there is one, and the scripts and notes under
``benchmarks/`` and ``experiments/``.  A line is reported when it contains

* an issue number ("issue 12", "issues 10-11");
* a work period called a session ("session 44", "sessions 1-44", "this session",
  "the twenty-first session", "a later session", ...);
* a calendar date written as a run's date ("2026-12-05");
* a pointer to the development machine's shared folder ("../shared",
  "shared/data", "shared/papers");
* an absolute path of a machine ("/work/...", "/root/...", "/tmp/...", "/home/...").

``scan_text`` is the checker; ``test_scanner_catches_planted_lines`` plants such
lines in a temporary file to show that it fails on them.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_ORDINAL = (r"(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
            r"|tenth|eleventh|twelfth|\w+teenth|(?:\w+-)?(?:twent|thirt|fort|fift|sixt|sevent"
            r"|eight|ninet)\w*)")

#: (label, pattern) pairs; a line matching any of them is reported.
PATTERNS = [
    ("issue number", re.compile(r"\bissues?\s*#?\s*\d+", re.I)),
    ("work session", re.compile(
        r"\bsessions?\s*#?\s*\d+"                                   # session 44, sessions 1-44
        r"|session\d+"                                              # session44 in file names
        r"|\b" + _ORDINAL + r"[\s-]+sessions?\b"                    # the twenty-first session
        r"|\b(?:this|that|these|those|previous|next|last|later|earlier|same|current|past"
        r"|prior|following|each|every|one|another|other|a)\s+(?:work\s+)?sessions?\b"
        r"(?!\s+(?:of\s+)?(?:python|ipython|jupyter|interpreter|repl))"
        r"|\bsession's\b",
        re.I)),
    ("dated run", re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")),
    ("shared folder", re.compile(r"\.\./shared\b|\bshared/(?:data|papers)\b", re.I)),
    ("machine path", re.compile(r"(?<![\w.~-])/(?:work|root|tmp|home)/")),
]


def scan_text(text: str, name: str = "<text>"):
    """``[(name, line number, label, line)]`` for every line of ``text`` that
    speaks of the development history (see the module docstring)."""
    hits = []
    for no, line in enumerate(text.splitlines(), 1):
        for label, pattern in PATTERNS:
            if pattern.search(line):
                hits.append((name, no, label, line.strip()))
    return hits


def shipped_files(root: Path = ROOT):
    """The shipped text files, relative paths as strings, sorted."""
    out = []
    if (root / "README.md").is_file():
        out.append(root / "README.md")
    out += (root / "docs").rglob("*.md") if (root / "docs").is_dir() else []
    out += (root / "treelab").rglob("*.py") if (root / "treelab").is_dir() else []
    for folder in ("examples", "benchmarks", "experiments"):
        if (root / folder).is_dir():
            for ext in ("py", "md", "txt", "sh", "rst"):
                out += (root / folder).rglob(f"*.{ext}")
    rels = sorted({p.relative_to(root).as_posix() for p in out if "__pycache__" not in p.parts})
    return rels


def scan_files(root: Path, rels):
    hits = []
    for rel in rels:
        hits += scan_text((root / rel).read_text(encoding="utf-8", errors="replace"), rel)
    return hits


def _report(hits):
    return "\n".join(f"{n}:{no}: [{label}] {line[:160]}" for n, no, label, line in hits)


def test_shipped_text_has_no_development_history():
    files = shipped_files()
    assert "README.md" in files and any(f.startswith("treelab/") for f in files)
    hits = scan_files(ROOT, files)
    assert not hits, ("development history in shipped text (rewrite it as a statement "
                      "about the product):\n" + _report(hits))


def test_scanner_catches_planted_lines(tmp_path):
    (tmp_path / "README.md").write_text("# fine\n", encoding="utf-8")
    pkg = tmp_path / "treelab"
    pkg.mkdir()
    planted = pkg / "planted.py"
    planted.write_text(
        '"""A clean first line.\n'
        "\n"
        "Fixed in issue 12 of the tracker.\n"
        "Data from ../shared/data/elecNormNew.arff.gz as before.\n"
        "Re-run 2026-12-05 on a quiet machine: 0.52x.\n"
        '"""\n'
        "x = 1   # measured in the twenty-first session\n"
        'LOG = "/tmp/run.log"\n',
        encoding="utf-8")
    hits = scan_files(tmp_path, shipped_files(tmp_path))
    labels = {(no, label) for _, no, label, _ in hits}
    assert labels == {(3, "issue number"), (4, "shared folder"), (5, "dated run"),
                      (7, "work session"), (8, "machine path")}, _report(hits)
    with pytest.raises(AssertionError):
        assert not hits, _report(hits)


@pytest.mark.parametrize("line", [
    "see issue 15, item 4", "issues 10 and 11", "sessions 1-44", "session 44",
    "bench_boosting_all_session44.log", "measured this session", "the previous session's run",
    "Forty-third session", "the 3rd session", "a later session the same day",
    "log of 2026-11-28", '"2026-11-28"', "`../shared/papers/004_x.txt`", "shared/data/mil",
    "/work/main/treelab", "DATA = '/root/data'", "open('/tmp/x.py')", "/home/me/data",
])
def test_scanner_flags(line):
    assert scan_text(line), line


@pytest.mark.parametrize("line", [
    "functions without a file (interactive sessions) are compiled uncached",
    "a Python session or a Jupyter notebook", "Friedman #1 regression", "tissue 3",
    "version 0.1.0", "1996-1998", "shared memory", "the shared engine", "https://x.org/a/b",
    "relative path data/tmp/x", "~/data/mnist.npz",
])
def test_scanner_passes(line):
    assert not scan_text(line), line
