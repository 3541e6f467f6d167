"""The package's modules import each other without cycles.

Every ``import`` statement of the package counts, at module level or inside a
function (a deferred import still ties two modules together), and a package
``__init__`` is a module like the others.  Layering (DESIGN: data flows down)
means the import graph is acyclic; this test lists every cycle it finds.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "treelab"


def _module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts}


def _resolve(name, modules):
    """``name`` or its longest prefix that is a module of the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(modules=None):
    modules = modules or _modules()
    graph = {}
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
            for t in targets:
                if t.split(".")[0] != "treelab":
                    continue
                r = _resolve(t, modules)
                if r and r != mod:
                    edges.add(r)
        graph[mod] = edges
    return graph


def _parents_packages(mod):
    """A module's import runs its packages' ``__init__`` first: not an edge that
    makes a cycle by itself (a package importing its own submodules is the norm)."""
    parts = mod.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def find_cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w in _parents_packages(v) or v in _parents_packages(w):
                continue
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
    cycles = find_cycles(import_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_a_planted_cycle_is_found():
    graph = {"treelab.a": {"treelab.b"}, "treelab.b": {"treelab.c"},
             "treelab.c": {"treelab.a"}, "treelab.d": {"treelab.a"}}
    assert find_cycles(graph) == [["treelab.a", "treelab.b", "treelab.c"]]
