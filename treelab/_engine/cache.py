"""numba's on-disk cache for treelab's kernels, keyed by the code they are built from.

numba validates a cached kernel against the file that defines it (a hash of its
bytes) and names the cache file after the function's first line.  Two things
follow for a package of kernels calling kernels in other modules: an edit to a
called module is not seen (a stale kernel runs), and an edit that only moves
lines -- a docstring, a comment -- recompiles every kernel below it.

:class:`EngineLocator` replaces both rules for the functions of this package:

* the **source stamp** of a module is a hash of the *code* of that module and of
  every treelab module it imports, directly or not (:func:`code_stamp`): each
  file compiled to bytecode with docstrings removed and hashed without line
  numbers, so comments, docstrings and moved lines change nothing, while a
  change of code anywhere a kernel can reach invalidates exactly the kernels
  that can reach it;
* the **file name** of a kernel's cache entry does not carry its line number.

Where the entries live is numba's choice, unchanged (the first of its own
locators that applies): ``NUMBA_CACHE_DIR`` when set, else the module's
``__pycache__`` when writable, else numba's per-user cache folder (a read-only
install).  Functions defined outside the package (a user's criterion or loss)
keep numba's own rules.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator

__all__ = ["EngineLocator", "EngineFunctionCache", "locator_for", "code_stamp", "code_hash", "module_imports",
           "PACKAGE_ROOT"]

#: the package folder as numba names files (``os.path.abspath``: links kept)
PACKAGE_ROOT = Path(os.path.abspath(__file__)).parent.parent

# ``from .x import a, b`` / ``from .. import (a,\n b)`` / ``import treelab.x``
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.+[\w.]*|treelab[\w.]*)[ \t]+import[ \t]+"
                   r"(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(treelab[\w.]*)", re.M)

_file_info: dict = {}
_stamp: dict = {}


def _hash_const(c, h):
    if hasattr(c, "co_code"):
        _hash_code(c, h)
    elif isinstance(c, (tuple, frozenset)):
        # (a frozenset's order follows the process's string hashing: sort it)
        items = sorted(c, key=repr) if isinstance(c, frozenset) else c
        h.update(b"(" if isinstance(c, tuple) else b"{")
        for x in items:
            _hash_const(x, h)
        h.update(b")")
    else:
        h.update(repr(c).encode())


def _hash_code(co, h):
    h.update(co.co_code)
    h.update(repr((co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars)).encode())
    for c in co.co_consts:
        _hash_const(c, h)


def code_hash(path, source):
    """Hash of ``source``'s bytecode without docstrings or line numbers."""
    h = hashlib.sha256()
    # optimize=2 drops docstrings (and asserts: treelab's kernels have none)
    _hash_code(compile(source, str(path), "exec", optimize=2, dont_inherit=True), h)
    return h.digest()


def _info(path, root):
    """(code hash, imported package modules) of the file at ``path``, read once
    per process."""
    got = _file_info.get(path)
    if got is None:
        source = path.read_bytes()
        got = _file_info[path] = (code_hash(path, source), module_imports(path, source, root))
    return got


def _module_file(parts, root):
    """The file of module ``parts`` (names below the package), or None."""
    base = root.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def module_imports(path, source, root=PACKAGE_ROOT):
    """The package's own module files imported by the module at ``path`` (relative
    imports, ``treelab.*`` imports, and ``from pkg import submodule``)."""
    rel = Path(path).relative_to(root)
    package = list(rel.parent.parts)          # the module's package, below the root
    text = source.decode("utf-8", "replace")
    found = []
    for mod, names in _FROM.findall(text):
        if mod.startswith("treelab"):
            parts = mod.split(".")[1:]
        else:
            level = len(mod) - len(mod.lstrip("."))
            if level - 1 > len(package):
                continue
            parts = package[:len(package) - (level - 1)] + [p for p in mod.lstrip(".").split(".") if p]
        target = _module_file(parts, root)
        if target is not None:
            found.append(target)
        for name in re.findall(r"\w+", names):
            sub = _module_file(parts + [name], root)
            if sub is not None:
                found.append(sub)
    for mod in _IMPORT.findall(text):
        target = _module_file(mod.split(".")[1:], root)
        if target is not None:
            found.append(target)
    return found


def code_stamp(py_file, root=PACKAGE_ROOT):
    """Hash of the code of ``py_file`` and every package module it imports,
    directly or not (the source stamp of its kernels' cache entries)."""
    py_file = Path(os.path.abspath(py_file))
    got = _stamp.get(py_file)
    if got is not None:
        return got
    # (this module locates caches: no kernel runs its code)
    seen, todo = {Path(os.path.abspath(__file__))}, [py_file]
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo.extend(_info(f, root)[1])
    seen.discard(Path(os.path.abspath(__file__)))
    h = hashlib.sha256()
    for f in sorted(seen):
        h.update(str(f.relative_to(root)).encode())
        h.update(_info(f, root)[0])
    got = _stamp[py_file] = "treelab-code:" + h.hexdigest()
    return got


class EngineLocator(_CacheLocator):
    """numba's cache locator for the package's kernels: numba's folder, the code
    stamp of :func:`code_stamp`, no line number in the file name."""

    #: numba's locators, in its order of preference, that pick the folder
    _folder_locators = tuple(CompileResultCacheImpl._locator_classes)

    def __init__(self, inner, py_file):
        self._inner = inner
        self._py_file = py_file

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        return code_stamp(self._py_file)

    def get_disambiguator(self):
        return "tl"

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(os.path.abspath(py_file)).relative_to(PACKAGE_ROOT)
        except ValueError:
            return None                    # not one of the package's files
        for loc_cls in cls._folder_locators:
            inner = loc_cls.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner, os.path.abspath(py_file))
        return None


class _EngineCacheImpl(CompileResultCacheImpl):
    _locator_classes = [EngineLocator] + list(CompileResultCacheImpl._locator_classes)


class EngineFunctionCache(FunctionCache):
    """numba's function cache with :class:`EngineLocator` first."""
    _impl_class = _EngineCacheImpl


def locator_for(py_file, py_func=None):
    """The locator a cached kernel of ``py_file`` gets (the package's files:
    :class:`EngineLocator`; others: numba's), or None."""
    py_func = py_func or locator_for
    for cls in _EngineCacheImpl._locator_classes:
        loc = cls.from_function(py_func, str(py_file))
        if loc is not None:
            return loc
    return None
