"""No import cycles between treelab's modules.

The graph is read from the sources (module-level imports, including those under
``if`` / ``try`` at module level; imports inside functions are run-time imports
and are not edges).  ``from . import x`` is an edge to the submodule ``x``; a
package's ``__init__`` importing its own submodules is not a cycle with them.
"""
import ast
from pathlib import Path

import treelab

ROOT = Path(treelab.__file__).resolve().parent


def _modules(root):
    mods = {}
    for p in root.rglob("*.py"):
        parts = ("treelab",) + p.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


def _module_level(tree):
    """The import statements that run when the module is imported."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                todo.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            todo.extend(node.body)


def import_graph(root=ROOT):
    """{module: set of treelab modules it imports at import time}."""
    mods = _modules(root)
    graph = {m: set() for m in mods}
    for m, path in mods.items():
        package = m if path.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in _module_level(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                # ("from pkg import submodule": the submodule; else the module itself)
                targets = subs if subs and node.module is None else [target] + subs
            graph[m].update(t for t in targets if t in mods and t != m)
    return graph


def find_cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    graph = import_graph()
    assert "treelab._engine.build" in graph
    assert "treelab._engine.builder" in graph["treelab._engine.build"]
    assert find_cycles(graph) == []


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("try:\n    from .c import g\nexcept ImportError:\n    pass\n")
    (pkg / "c.py").write_text("from . import a\n\ndef g():\n    from .b import f\n")
    (pkg / "d.py").write_text("def h():\n    from .a import f\n")
    cycles = find_cycles(import_graph(pkg))
    assert cycles == [["treelab.a", "treelab.b", "treelab.c"]]
