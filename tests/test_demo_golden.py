"""Golden output of ``treelab demo`` in English and Chinese (issue 14, item 6; issue 9,
item 7): the printed text is compared character for character with
``tests/golden/demo_{en,zh}.txt``.

After an intended change of the demo, regenerate the files with
``TREELAB_UPDATE_GOLDEN=1 python -m pytest tests/test_demo_golden.py`` and review the diff.
Besides the exact text, the numbers the course slides print are checked by value, and
the Chinese tables by display width (wide characters take two columns).
"""
import contextlib
import io
import os
import re
from pathlib import Path

import pytest

from treelab.cli import main
from treelab.teaching import display_width

GOLDEN = Path(__file__).resolve().parent / "golden"

# the slides' numbers for the loan table: H(D), then per attribute (age, spending-income
# ratio, outstanding loans) H(D|A), I(D;A), split information H_A(D), gain ratio
SLIDES_ROWS = {
    0: ("0.833", "0.085", "0.700", "0.122"),
    1: ("0.507", "0.411", "1.782", "0.231"),
    2: ("0.767", "0.151", "1.889", "0.080"),
}


_OUTPUT = {}


def _demo(language):
    """stdout of ``treelab demo --language <language>`` (run once per language)."""
    pytest.importorskip("sklearn")
    if language not in _OUTPUT:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["demo", "--language", language]) == 0
        _OUTPUT[language] = buf.getvalue()
    return _OUTPUT[language]


def _table_after(text, header_start):
    """The lines of the table whose header line starts with ``header_start``."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(header_start))
    out = []
    for line in lines[i:]:
        if not line.strip():
            break
        out.append(line)
    return out


@pytest.mark.parametrize("language", ["en", "zh"])
def test_demo_output_is_golden(language):
    out = _demo(language)
    path = GOLDEN / f"demo_{language}.txt"
    if os.environ.get("TREELAB_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_demo_prints_the_slides_numbers(language):
    out = _demo(language)
    assert "H(D) = 0.918" in out
    table = _table_after(out, "attribute   H(D|A)" if language == "zh" else "attribute              H(D|A)")
    assert table[0].split()[1:] == ["H(D|A)", "information", "gain", "I(D;A)", "split",
                                    "information", "H_A(D)", "gain", "ratio"]
    for i, expected in SLIDES_ROWS.items():
        assert tuple(table[1 + i].split()[1:]) == expected
    # the C4.5 tree puts the spending-income ratio at the root, as gain ratio says
    ratio = "消费收入比" if language == "zh" else "spending_income_ratio"
    c45 = out.split("C4.5 tree", 1)[1]
    first_split = next(line for line in c45.splitlines() if line.startswith("|--- "))
    assert first_split.startswith(f"|--- {ratio} = ")
    # the confusion matrix: recognition 99.34 % / 86.27 %, accuracy from the counts 95.42 %
    assert re.search(r"buy_computer=yes +6954 +46 +7000 +99\.34 %", out)
    assert re.search(r"buy_computer=no +412 +2588 +3000 +86\.27 %", out)
    assert re.search(r"total +7366 +2634 +10000 +95\.42 %", out)
    # the regression table's best split
    assert re.search(r"Smallest loss: (age|年龄) <= 35\.500 \(loss 529\.167", out)
    # labels print as plain values, no timing, no zero importances
    assert "np.int64" not in out and "np.float64" not in out and " s)" not in out
    assert not re.search(r"importances.*\b0\.000\b", out)


def test_demo_chinese_tables_align():
    out = _demo("zh")
    # right-aligned tables: every line as wide as its header, counting wide characters twice
    for header, n_lines in (("attribute   H(D|A)", 4), ("attribute   value  rows", 12)):
        lines = _table_after(out, header)[:n_lines]
        assert len(lines) == n_lines
        assert {display_width(line) for line in lines} == {display_width(lines[0])}, lines
    # the loan table (left-aligned text columns): each column starts at the same display
    # column on every row
    lines = _table_after(out, "序号")
    assert len(lines) == 16

    def starts(line):
        cols, pos, prev_space = [], 0, True
        for ch in line:
            if ch != " " and prev_space:
                cols.append(pos)
            prev_space = ch == " "
            pos += display_width(ch)
        return cols

    assert {tuple(starts(line)[1:]) for line in lines} == {tuple(starts(lines[0])[1:])}
