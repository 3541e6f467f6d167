"""Readers for the stream and multi-instance data sets used in the experiments.

Pure pandas / NumPy, no extra dependency:

* :func:`load_arff` reads a dense ARFF file (plain, gzipped or zipped), e.g. the MOA
  Electricity stream ``elecNormNew.arff.gz``: numeric attributes become
  ``float64`` columns, nominal attributes pandas ``category`` columns with the
  categories declared in the header (in declared order), ``?`` a missing value.
* :func:`load_mil` reads the multi-instance CSV layout of the MIL sets (musk1, ...):
  no header, column 0 the bag label, column 1 the bag id, the rest features.

Data files do not ship with treelab (:mod:`treelab.datasets` downloads the
real data sets on first use).  Both readers take a path; a relative
path that does not exist from the working directory is looked up in the
folder named by the ``TREELAB_DATA`` environment variable
(:func:`data_path`), so ``load_arff("elecNormNew.arff.gz")`` works from
anywhere once ``TREELAB_DATA`` points at the folder holding it.
"""
from __future__ import annotations

import csv
import gzip
import io
import os
import zipfile

import numpy as np
import pandas as pd

__all__ = ["load_arff", "load_mil", "data_path", "DATA_SOURCES"]

#: where to get the data files the experiments use (they are not shipped)
DATA_SOURCES = {
    "elecNormNew.arff.gz": "MOA's Electricity stream, https://moa.cms.waikato.ac.nz/datasets/ "
                           "(elecNormNew.arff; gzip it or use it as is; "
                           "treelab.datasets.fetch_electricity() downloads it)",
}


def data_path(path):
    """Resolve a data file: ``path`` itself when it exists, else (for a relative
    path) ``$TREELAB_DATA/path``.  Raises a FileNotFoundError saying where to
    get the file and how to point treelab at it."""
    p = os.fspath(path)
    if os.path.exists(p):
        return p
    folder = os.environ.get("TREELAB_DATA")
    if folder and not os.path.isabs(p):
        q = os.path.join(folder, p)
        if os.path.exists(q):
            return q
    name = os.path.basename(p)
    where = DATA_SOURCES.get(name)
    raise FileNotFoundError(
        f"{p} not found" + (f" (nor in TREELAB_DATA={folder})" if folder else "")
        + (f"; get it from {where}" if where else "")
        + "; pass its full path or set the environment variable TREELAB_DATA to the "
        "folder holding it")

_NUMERIC_TYPES = {"numeric", "real", "integer"}


def _open_text(path):
    """Open ``path`` as text, transparently un-gzipping or reading the ``.arff``
    member of a zip archive (by magic bytes, not the name)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    if magic == b"PK\x03\x04":
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist()
                     if not n.endswith("/") and not n.startswith("__MACOSX/")]
            arff = [n for n in names if n.lower().endswith(".arff")]
            if len(arff) != 1:
                raise ValueError(f"{path}: a zip archive should hold one .arff file, it holds "
                                 f"{names}")
            text = zf.read(arff[0]).decode("utf-8")
        return io.StringIO(text, newline="")
    return open(path, "r", encoding="utf-8", newline="")


def _split_values(text):
    """Comma-separated values honouring ARFF quoting ('...' or "...")."""
    row = next(csv.reader([text], quotechar="'", skipinitialspace=True))
    out = []
    for v in row:
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] == '"':
            v = v[1:-1]
        out.append(v)
    return out


def _parse_attribute(line, lineno):
    """``@attribute name type`` -> (name, kind, categories or None)."""
    rest = line[len("@attribute"):].strip()
    if not rest:
        raise ValueError(f"line {lineno}: @attribute without a name")
    if rest[0] in "'\"":
        q = rest[0]
        end = rest.find(q, 1)
        if end < 0:
            raise ValueError(f"line {lineno}: unterminated quoted attribute name")
        name, typ = rest[1:end], rest[end + 1:].strip()
    else:
        parts = rest.split(None, 1)
        if len(parts) < 2:
            # "name{a,b}" with no space before the brace
            b = rest.find("{")
            if b < 0:
                raise ValueError(f"line {lineno}: @attribute {rest!r} has no type")
            parts = [rest[:b], rest[b:]]
        name, typ = parts[0], parts[1].strip()
    if typ.startswith("{"):
        if not typ.endswith("}"):
            raise ValueError(f"line {lineno}: nominal attribute {name!r} lacks a closing '}}'")
        cats = [c for c in _split_values(typ[1:-1])] if typ[1:-1].strip() else []
        return name, "nominal", cats
    low = typ.split()[0].lower()
    if low in _NUMERIC_TYPES:
        return name, "numeric", None
    if low == "string":
        return name, "string", None
    if low == "date":
        return name, "date", None
    raise ValueError(f"line {lineno}: attribute {name!r} has an unsupported type {typ!r}")


def load_arff(path, return_X_y=False):
    """Read a dense ARFF file (plain, gzipped or zipped) into a pandas DataFrame.

    Parameters
    ----------
    path : str or path-like
        The file; gzip compression, or a zip archive holding one ``.arff``
        file, is detected from its first bytes.  A relative
        path not found from the working directory is looked up in
        ``$TREELAB_DATA`` (:func:`data_path`).
    return_X_y : bool, default False
        Return ``(X, y)`` instead, ``y`` being the last attribute (the ARFF
        convention for the class) as a Series and ``X`` the others.

    Returns
    -------
    pandas.DataFrame (or ``(X, y)``)
        One column per ``@attribute`` in header order.  Numeric / real /
        integer attributes are ``float64``; nominal attributes are ``category``
        columns whose categories are exactly the declared values, in declared
        order (so numeric-looking values such as ``{1,2,3}`` stay the strings
        ``'1', '2', '3'``); string and date attributes are left as strings.
        ``?`` is a missing value (NaN).  The relation name is in
        ``frame.attrs["relation"]``.

    Raises
    ------
    ValueError
        On a malformed header, a sparse ``{...}`` data row, a row with the wrong
        number of values, or a nominal value that the header does not declare.
    """
    path = data_path(path)
    names, kinds, cats = [], [], []
    relation = None
    with _open_text(path) as f:
        lineno = 0
        for raw in f:
            lineno += 1
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            low = line.lower()
            if low.startswith("@relation"):
                relation = line[len("@relation"):].strip().strip("'\"")
            elif low.startswith("@attribute"):
                n, k, c = _parse_attribute(line, lineno)
                names.append(n)
                kinds.append(k)
                cats.append(c)
            elif low.startswith("@data"):
                break
            else:
                raise ValueError(f"line {lineno}: unexpected header line {line[:60]!r}")
        else:
            raise ValueError(f"{os.fspath(path)}: no @data section")
        if not names:
            raise ValueError(f"{os.fspath(path)}: no @attribute declared")
        body = f.read()

    if len(set(names)) != len(names):
        raise ValueError(f"duplicate attribute names in {names}")
    for ln in io.StringIO(body):
        ln = ln.strip()
        if ln and not ln.startswith("%"):
            if ln.startswith("{"):
                raise ValueError("sparse ARFF data rows ({index value, ...}) are not supported")
            break
    # every column read as text first, so that nominal values keep their spelling
    frame = pd.read_csv(io.StringIO(body), header=None, names=list(range(len(names))),
                        dtype=str, keep_default_na=False, na_filter=False, quotechar="'",
                        skipinitialspace=True, comment="%", skip_blank_lines=True,
                        engine="c", on_bad_lines="error")
    if frame.shape[1] != len(names):
        raise ValueError(f"data rows have {frame.shape[1]} values, the header declares "
                         f"{len(names)} attributes")
    cols = {}
    for j, (name, kind, c) in enumerate(zip(names, kinds, cats)):
        s = frame[j].str.strip()
        missing = s.eq("?") | s.eq("")
        if kind == "numeric":
            vals = pd.to_numeric(s.mask(missing), errors="coerce")
            bad = vals.isna() & ~missing
            if bad.any():
                raise ValueError(f"attribute {name!r}: non-numeric value {s[bad].iloc[0]!r} "
                                 f"(data row {int(np.flatnonzero(bad.to_numpy())[0]) + 1})")
            cols[name] = vals.astype(np.float64)
        elif kind == "nominal":
            s = s.str.replace(r'^"(.*)"$', r"\1", regex=True)
            bad = ~s.isin(c) & ~missing
            if bad.any():
                raise ValueError(f"attribute {name!r}: value {s[bad].iloc[0]!r} is not one of "
                                 f"the declared categories {c}")
            col = pd.Categorical(s.mask(missing), categories=c)
            cols[name] = col
        else:
            cols[name] = s.mask(missing)
    out = pd.DataFrame(cols)
    out.attrs["relation"] = relation
    if return_X_y:
        return out.iloc[:, :-1], out.iloc[:, -1]
    return out


def load_mil(path):
    """Read a multi-instance data set in treelab's MIL CSV layout.

    No header; column 0 is the bag label (the same on every instance of a bag),
    column 1 the bag id, columns 2.. the instance features.  Plain or
    compressed (``.gz`` etc., inferred from the name).

    Returns
    -------
    X : ndarray of shape (n_instances, n_features), float64
    y : ndarray of shape (n_instances,)
        The bag label of each instance (int when the labels are integral).
    bags : ndarray of shape (n_instances,)
        The bag id of each instance.

    Raises
    ------
    ValueError
        When there are fewer than three columns or a bag has mixed labels.
    """
    path = data_path(path)
    frame = pd.read_csv(path, header=None)
    if frame.shape[1] < 3:
        raise ValueError(f"{os.fspath(path)}: expected bag label, bag id and >= 1 feature "
                         f"columns, got {frame.shape[1]} columns")
    y = frame.iloc[:, 0].to_numpy()
    if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    bags = frame.iloc[:, 1].to_numpy()
    X = frame.iloc[:, 2:].to_numpy(dtype=np.float64)
    per_bag = pd.Series(y).groupby(bags).nunique()
    if (per_bag > 1).any():
        raise ValueError(f"bag {per_bag.index[per_bag.to_numpy() > 1][0]!r} has instances "
                         "with different labels")
    return X, y, bags
