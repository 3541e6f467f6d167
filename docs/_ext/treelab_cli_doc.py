"""The ``treelab`` parser as the documentation shows it.

:func:`treelab.cli.build_parser` builds the parser; its epilogs are plain text
laid out for a terminal (indented listings), so this copy turns each into a
literal block for sphinx-argparse, which parses epilogs as reStructuredText.
"""
from __future__ import annotations

import argparse
import textwrap


def _literal(text):
    return "::\n\n" + textwrap.indent(text, "    ") if text else text


def build_parser():
    """:func:`treelab.cli.build_parser` with every epilog as a literal block."""
    from treelab.cli import build_parser as cli_parser
    parser = cli_parser()
    stack = [parser]
    while stack:
        p = stack.pop()
        p.epilog = _literal(p.epilog)
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
    return parser
