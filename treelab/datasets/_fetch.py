"""Real data sets on demand: downloaded from their public source on first use,
checked, kept in a data folder and read from there afterwards (offline too).

The data folder is ``data_home`` when given, else the folder named by the
environment variable ``TREELAB_DATA``, else ``~/treelab_data``
(:func:`get_data_home`).  Each source file is kept there under its own name and
in its own format (the MNIST ``idx`` files, the UCI ``.data`` files, MOA's
zipped ARFF, ...), so a file downloaded by hand can simply be put there.

Every file is checked, both when it is downloaded and when it is read from the
folder: against its published SHA-256 where one is known, and against the
SHA-256 of its parsed content (the values, row order aside for the tables and
multi-instance sets) and its shape.  A download goes to a temporary file in the
data folder and is renamed into place only once it passed the checks, so a
corrupted download raises :class:`ChecksumError` and leaves nothing behind.
Without a copy and without network the fetchers raise
:class:`DatasetUnavailableError`, one line naming the URL and the folder.

:data:`SOURCES` lists the files (name, URLs, checks); tests point its URLs at a
local server.  Only the standard library (``urllib``) and NumPy / pandas are
used.
"""
from __future__ import annotations

import dataclasses
import gzip
import hashlib
import http.client
import io
import os
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["fetch_electricity", "fetch_mnist", "fetch_musk1", "fetch_musk2", "fetch_elephant",
           "fetch_caravan", "fetch_spambase", "get_data_home", "DatasetUnavailableError",
           "ChecksumError", "SOURCES", "Source", "SPAMBASE_FEATURES", "CARAVAN_FEATURES"]

#: seconds a download may stall before it is given up
TIMEOUT = 60


class DatasetUnavailableError(FileNotFoundError):
    """A data file is neither in the data folder nor downloadable (no network,
    or ``download_if_missing=False``); the message names the URL and the folder."""


class ChecksumError(OSError):
    """A data file does not hold the published data (wrong SHA-256 or content)."""


@dataclasses.dataclass(frozen=True)
class Source:
    """One source file of a data set.

    Attributes
    ----------
    filename : str
        Its name in the data folder.
    urls : tuple of str
        Where to download it: the source, then mirrors serving the same file.
    sha256 : str or None
        The published SHA-256 of the file, when one is known.
    shape : tuple
        The shape of the parsed content (rows first).
    content_sha256 : str or None
        SHA-256 of the parsed content (see ``_digest``), when known.
    """
    filename: str
    urls: tuple
    sha256: str | None = None
    shape: tuple = ()
    content_sha256: str | None = None


_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
_MNIST_MIRRORS = ("https://storage.googleapis.com/cvdf-datasets/mnist/",
                  "https://ossci-datasets.s3.amazonaws.com/mnist/",
                  "http://yann.lecun.com/exdb/mnist/")


def _mnist(name, sha256, shape, content_sha256=None):
    return Source(name, tuple(m + name for m in _MNIST_MIRRORS), sha256, shape, content_sha256)


#: The source files: name in the data folder, URLs, published SHA-256 (MNIST:
#: as recorded by TensorFlow Datasets), shape and SHA-256 of the parsed content.
SOURCES = {
    "electricity": Source(
        "elecNormNew.arff.zip",
        ("https://sourceforge.net/projects/moa-datastream/files/Datasets/Classification/"
         "elecNormNew.arff.zip/download",),
        shape=(45312, 9),
        content_sha256="a7ff0144333e939240cfe1fb6befd0358b310639a6f22fd47aa2554a0b1f5837"),
    "mnist-test-images": _mnist(
        "t10k-images-idx3-ubyte.gz",
        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", (10000, 784),
        "8f13d1c17a8bad80594cfb51a30dc6a7b3d9f7beb121815fb2b26af99839029e"),
    "mnist-test-labels": _mnist(
        "t10k-labels-idx1-ubyte.gz",
        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", (10000,),
        "6a90c4ebf8538b9b76438e5dddb0f5afc42d636e8e259d894485f9314cdad47d"),
    "mnist-train-images": _mnist(
        "train-images-idx3-ubyte.gz",
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", (60000, 784)),
    "mnist-train-labels": _mnist(
        "train-labels-idx1-ubyte.gz",
        "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", (60000,)),
    "musk1": Source(
        "clean1.data.Z", (_UCI + "musk/clean1.data.Z",), shape=(476, 166),
        content_sha256="ffb6257ac4d179cf6e200b4d994654edc016faf496465d9e5b0db97b0e558f6d"),
    "musk2": Source(
        "clean2.data.Z", (_UCI + "musk/clean2.data.Z",), shape=(6598, 166),
        content_sha256="8050111d7987326c508b13cb9fbf0192007aec790fc41dc990725e92629a5453"),
    "elephant": Source(
        "MIL-Data-2002-Musk-Corel-Trec9.tgz",
        ("https://www.cs.columbia.edu/~andrews/mil/data/MIL-Data-2002-Musk-Corel-Trec9.tgz",),
        shape=(1391, 230),
        content_sha256="5617434b0571befc8aa8bfea8f4c7ed2a2a2578343df14cee64cd54ff75c0bec"),
    "spambase": Source(
        "spambase.data", (_UCI + "spambase/spambase.data",), shape=(4601, 57),
        content_sha256="d816d560c7a6821dde6264e796c94379e4909152fcd6a789322170e257e11f20"),
    "caravan": Source(
        "ticdata2000.txt", (_UCI + "tic-mld/ticdata2000.txt",), shape=(5822, 85),
        content_sha256="7a8b7ec6468cb8512a2f3655f5e70ae03760b22158cae363f037e38ba6805018"),
}

_TITLES = {"electricity": "Electricity", "mnist-test-images": "MNIST",
           "mnist-test-labels": "MNIST", "mnist-train-images": "MNIST",
           "mnist-train-labels": "MNIST", "musk1": "MUSK1", "musk2": "MUSK2",
           "elephant": "Elephant", "spambase": "Spambase", "caravan": "Caravan"}


# ----------------------------------------------------------------------- data folder
def get_data_home(data_home=None):
    """The data folder: ``data_home``, else ``$TREELAB_DATA``, else ``~/treelab_data``.

    Parameters
    ----------
    data_home : str or path-like, optional
        The folder to use; ``~`` is expanded.

    Returns
    -------
    pathlib.Path
        The folder (not created here: a download creates it).
    """
    if data_home is None:
        data_home = os.environ.get("TREELAB_DATA") or os.path.join("~", "treelab_data")
    return Path(os.path.expanduser(os.fspath(data_home)))


# ------------------------------------------------------------------------ checksums
def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _le(a):
    """``a`` as a C-contiguous little-endian array (the same bytes on every machine)."""
    a = np.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder("<"), copy=False)


def _digest(*arrays):
    """SHA-256 of arrays in order (dtype, shape and bytes of each)."""
    h = hashlib.sha256()
    for a in arrays:
        a = _le(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _table_digest(X, y):
    """SHA-256 of the rows ``[X, y]`` (float64) sorted, so not of their order."""
    M = np.column_stack([np.asarray(X, np.float64), np.asarray(y, np.float64)])
    return _digest(M[np.lexsort(M.T[::-1])])


def _mil_digest(X, y, bags):
    """SHA-256 of a multi-instance set that depends neither on the order of the
    bags and instances nor on the bag ids: each bag is its instances' rows
    ``[label, features]`` (float64) sorted; the bags are hashed sorted."""
    M = _le(np.column_stack([np.asarray(y, np.float64), np.asarray(X, np.float64)]))
    codes = pd.factorize(np.asarray(bags))[0]
    blobs = []
    for b in range(codes.max() + 1 if len(codes) else 0):
        rows = M[codes == b]
        blobs.append(rows[np.lexsort(rows.T[::-1])].tobytes())
    h = hashlib.sha256(f"{M.shape}".encode())
    for blob in sorted(blobs):
        h.update(len(blob).to_bytes(8, "little"))
        h.update(blob)
    return h.hexdigest()


def _check(key, shape, digest):
    """Raise :class:`ChecksumError` unless the parsed content has the expected
    shape and digest (either unknown: not checked)."""
    src = SOURCES[key]
    if src.shape and tuple(shape) != tuple(src.shape):
        raise ChecksumError(f"{_TITLES[key]} ({src.filename}): parsed shape {tuple(shape)}, "
                            f"expected {tuple(src.shape)}")
    if src.content_sha256 and digest != src.content_sha256:
        raise ChecksumError(f"{_TITLES[key]} ({src.filename}): SHA-256 of the parsed content "
                            f"is {digest}, expected {src.content_sha256}")


# ---------------------------------------------------------------- finding / download
def _one_line(text):
    return " ".join(str(text).split())


def _unavailable(key, folder, why):
    src = SOURCES[key]
    url = src.urls[0] if src.urls else "(no URL)"
    return DatasetUnavailableError(
        f"{_TITLES[key]} data not found: {src.filename} is not in {folder} and {why}; "
        f"download {url} and save it as {folder / src.filename} (or set TREELAB_DATA to "
        "the folder holding it)")


def _verified(key, path, read, checksum=True):
    """``read(path)``, after the file's published SHA-256 when ``checksum``.
    Raises :class:`ChecksumError` whose message says what is wrong with it."""
    src = SOURCES[key]
    if checksum and src.sha256:
        got = _sha256_file(path)
        if got != src.sha256:
            raise ChecksumError(f"SHA-256 {got}, expected the published {src.sha256}")
    try:
        return read(path)
    except ChecksumError:
        raise
    except Exception as exc:    # not the expected format: a truncated or other file
        raise ChecksumError(f"cannot parse it: {_one_line(exc)}") from exc


def _read_cached(key, path, read, checksum=True):
    try:
        return _verified(key, path, read, checksum)
    except ChecksumError as exc:
        raise ChecksumError(f"{path} does not hold the {_TITLES[key]} data ({exc}); delete it "
                            "to download it again") from None


def _download_to(url, f):
    req = urllib.request.Request(url, headers={"User-Agent": "treelab-datasets (urllib)"})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
        while True:
            block = resp.read(1 << 20)
            if not block:
                break
            f.write(block)


def _download(key, folder, read):
    """Download ``SOURCES[key]`` into ``folder``: to a temporary file there,
    checked (published SHA-256, then ``read`` with its content checks), then
    renamed into place.  The URLs are tried in turn.  Returns ``read``'s result."""
    created = not folder.exists()
    try:
        return _download_first(key, folder, read)
    finally:
        if created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()      # a failed first download leaves no empty folder behind


def _download_first(key, folder, read):
    src = SOURCES[key]
    target = folder / src.filename
    failures, corrupted = [], []
    for url in src.urls:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{src.filename}.", suffix=".part", dir=folder)
        except OSError as exc:
            raise DatasetUnavailableError(f"{_TITLES[key]} data: cannot write to {folder} "
                                          f"({_one_line(exc)})") from None
        try:
            with os.fdopen(fd, "wb") as f:
                print(f"treelab: downloading {url} to {target}", file=sys.stderr)
                try:
                    _download_to(url, f)
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    failures.append(f"{url}: {_one_line(exc)}")
                    continue
            try:
                data = _verified(key, tmp, read)
            except ChecksumError as exc:
                corrupted.append(f"{_TITLES[key]} data: the file downloaded from {url} is "
                                 f"corrupted or not the expected one ({exc}); nothing was kept "
                                 f"in {folder}")
                continue
            os.replace(tmp, target)
            return data
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    if corrupted:
        raise ChecksumError(corrupted[0])
    raise _unavailable(key, folder, "downloading it failed (" + "; ".join(failures) + ")")


def _fetch(key, data_home, download_if_missing, read, converted=()):
    """The data of ``SOURCES[key]``: ``read`` of the file in the data folder,
    else of a converted copy there (``converted``: ``(name, reader)`` pairs, the
    content checked the same way), else of the file downloaded there."""
    folder = get_data_home(data_home)
    path = folder / SOURCES[key].filename
    if path.is_file():
        return _read_cached(key, path, read)
    for name, reader in converted:
        if (folder / name).is_file():
            return _read_cached(key, folder / name, reader, checksum=False)
    if not download_if_missing:
        raise _unavailable(key, folder, "download_if_missing is False")
    return _download(key, folder, read)


# ---------------------------------------------------------------------- file formats
def _unlzw(data):
    """Decompress a Unix ``compress`` (``.Z``, LZW) stream."""
    data = bytes(data)
    n = len(data)
    if n < 3 or data[0] != 0x1F or data[1] != 0x9D:
        raise ValueError("not a compress (.Z) stream")
    flags = data[2]
    if flags & 0x60:
        raise ValueError("unknown flags in the .Z header")
    maxbits = flags & 0x1F
    if not 9 <= maxbits <= 16:
        raise ValueError(f"code width {maxbits} in the .Z header")
    maxbits = max(maxbits, 10)          # compress(1): 9 bits means 10
    block = bool(flags & 0x80)
    table = [bytes((i,)) for i in range(256)] + [b""] * ((1 << maxbits) - 256)
    bits, mask = 9, 0x1FF
    end = 256 if block else 255         # the last code in use
    prev = -1
    out = []
    pos = 3
    while pos < n:
        # codes come in groups of 8 (``bits`` bytes); a change of width or a clear
        # code skips the rest of the group
        if end >= mask and bits < maxbits:
            bits += 1
            mask = (1 << bits) - 1
        group = data[pos:pos + bits]
        pos += bits
        val = int.from_bytes(group, "little")
        for k in range(len(group) * 8 // bits):
            if k and end >= mask and bits < maxbits:
                break
            code = val & mask
            val >>= bits
            if prev < 0:
                if code > 255:
                    raise ValueError("corrupt .Z stream: the first code is not a literal")
                out.append(table[code])
                prev = code
                continue
            if code == 256 and block:
                bits, mask, end = 9, 0x1FF, 255
                break
            if code > end:
                if code != end + 1:
                    raise ValueError("corrupt .Z stream: a code out of range")
                entry = table[prev] + table[prev][:1]
            else:
                entry = table[code]
            out.append(entry)
            if end < mask:
                end += 1
                table[end] = table[prev] + entry[:1]
            prev = code
    return b"".join(out)


def _raw(path):
    """The bytes of ``path``, un-gzipped or un-compressed (``.Z``) by magic bytes."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:2] == b"\x1f\x9d":
        return _unlzw(data)
    return data


def _read_idx(path):
    """An array from an ``idx`` file (MNIST's format), plain or gzipped."""
    raw = _raw(path)
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] != 0x08:
        raise ValueError("not an idx file of unsigned bytes")
    ndim = raw[3]
    dims = tuple(int(d) for d in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    data = np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"idx file of {data.size} bytes for the dimensions {dims}")
    return data.reshape(dims[0], -1).copy() if ndim > 1 else data.copy()


#: pandas < 3 parses decimals exactly only when asked to (pandas 3 always does)
_EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def _csv(data, **kw):
    return pd.read_csv(io.BytesIO(data), header=None, **_EXACT, **kw)


# ----------------------------------------------------------------------- Electricity
def _electricity_numeric(X, y):
    """The Electricity frame as numbers: ``day`` its value (1-7), class 0 = UP, 1 = DOWN."""
    cols = []
    for c in X.columns:
        s = X[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cols.append(pd.to_numeric(s.astype(str)).to_numpy(np.float64))
        else:
            cols.append(s.to_numpy(np.float64))
    Xn = np.column_stack(cols)
    yc = pd.Categorical(y, categories=["UP", "DOWN"]).codes.astype(np.int8)
    return Xn, yc


def _read_electricity(path):
    from ..streaming.datasets import load_arff
    X, y = load_arff(os.fspath(path), return_X_y=True)
    if list(X.columns) != ["date", "day", "period", "nswprice", "nswdemand", "vicprice",
                           "vicdemand", "transfer"] or list(y.cat.categories) != ["UP", "DOWN"]:
        raise ValueError(f"unexpected attributes {list(X.columns) + [y.name]}")
    Xn, yc = _electricity_numeric(X, y)
    _check("electricity", (len(X), X.shape[1] + 1), _digest(Xn, yc))
    return X, y


def fetch_electricity(data_home=None, download_if_missing=True, as_frame=True):
    """The Electricity stream (ELEC2): 45,312 half hours of the New South Wales
    electricity market, 7 May 1996 - 5 December 1998, in time order.

    MOA's normalised version, ``elecNormNew.arff`` (zipped, from MOA's data page
    on SourceForge).  Attributes ``date``, ``day`` (nominal, ``"1"``-``"7"``),
    ``period``, ``nswprice``, ``nswdemand``, ``vicprice``, ``vicdemand``,
    ``transfer``, all in [0, 1] but ``day``; class ``UP`` / ``DOWN``: the price
    relative to its moving average of the last 24 hours.  A stream with drift:
    keep the row order.

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).  A
        plain or gzipped ``elecNormNew.arff(.gz)`` there is used as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.
    as_frame : bool, default True
        ``X`` a DataFrame (``day`` a ``category`` column: a nominal attribute
        for treelab's learners) and ``y`` a categorical Series; else ``X`` a
        float64 array (``day`` its number) and ``y`` an array of ``"UP"`` /
        ``"DOWN"``.

    Returns
    -------
    X : DataFrame or ndarray of shape (45312, 8)
    y : Series or ndarray of shape (45312,)

    References
    ----------
    M. Harries, "SPLICE-2 comparative evaluation: electricity pricing",
    technical report UNSW-CSE-TR-9905, University of New South Wales, 1999.
    A. Bifet, G. Holmes, R. Kirkby, B. Pfahringer, "MOA: Massive Online
    Analysis", Journal of Machine Learning Research 11, 2010.
    """
    X, y = _fetch("electricity", data_home, download_if_missing, _read_electricity,
                  converted=[("elecNormNew.arff", _read_electricity),
                             ("elecNormNew.arff.gz", _read_electricity)])
    if as_frame:
        return X, y
    return _electricity_numeric(X, y)[0], np.asarray(y.astype(str), dtype=object)


# ----------------------------------------------------------------------------- MNIST
def _reader_idx(key):
    def read(path):
        a = _read_idx(path)
        _check(key, a.shape, _digest(a))
        return a
    return read


def _read_mnist_npz(key):
    def read(path):
        with np.load(path) as d:
            a = np.asarray(d["X" if key.endswith("images") else "y"], np.uint8)
        a = a.reshape(len(a), -1) if key.endswith("images") else a
        _check(key, a.shape, _digest(a))
        return a
    return read


def fetch_mnist(subset="test", data_home=None, download_if_missing=True):
    """MNIST handwritten digits: 28 x 28 grey levels (0-255), flattened.

    The official ``idx`` files (``t10k-*`` / ``train-*``, gzipped) from the
    mirror TensorFlow Datasets uses, else PyTorch's, else Yann LeCun's page;
    each checked against its published SHA-256.  The test set (10,000 images,
    the default) is what treelab's gcForest and ToPs experiments use.

    Parameters
    ----------
    subset : {"test", "train", "all"}, default "test"
        The 10,000 test images, the 60,000 training images, or both (training
        first).
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).  For
        the test set an ``mnist_t10k.npz`` there (arrays ``X`` and ``y``) is used
        as well.
    download_if_missing : bool, default True
        Download the files that are not in the data folder.

    Returns
    -------
    X : ndarray of shape (n, 784), uint8
    y : ndarray of shape (n,), uint8
        The digits 0-9.

    References
    ----------
    Y. LeCun, L. Bottou, Y. Bengio, P. Haffner, "Gradient-based learning applied
    to document recognition", Proceedings of the IEEE 86(11), 1998.
    """
    if subset not in ("test", "train", "all"):
        raise ValueError(f"subset must be 'test', 'train' or 'all', got {subset!r}")
    parts = ["train", "test"] if subset == "all" else [subset]
    Xs, ys = [], []
    for part in parts:
        got = []
        for what in ("images", "labels"):
            key = f"mnist-{part}-{what}"
            conv = [("mnist_t10k.npz", _read_mnist_npz(key))] if part == "test" else []
            got.append(_fetch(key, data_home, download_if_missing, _reader_idx(key), conv))
        if len(got[0]) != len(got[1]):
            raise ChecksumError(f"MNIST {part}: {len(got[0])} images but {len(got[1])} labels")
        Xs.append(got[0])
        ys.append(got[1])
    if len(parts) == 1:
        return Xs[0], ys[0]
    return np.concatenate(Xs), np.concatenate(ys)


# --------------------------------------------------------------- multi-instance sets
def _read_mil_csv(key):
    def read(path):
        from ..streaming.datasets import load_mil
        X, y, bags = load_mil(os.fspath(path))
        _check(key, X.shape, _mil_digest(X, y, bags))
        return X, y, bags
    return read


def _read_musk(key):
    """UCI's ``clean1.data`` / ``clean2.data`` (plain or ``.Z``): molecule name,
    conformation name, 166 features, class ``1.`` / ``0.``."""
    def read(path):
        frame = _csv(_raw(path))
        if frame.shape[1] != 169:
            raise ValueError(f"{frame.shape[1]} columns, expected 169")
        X = frame.iloc[:, 2:168].to_numpy(np.float64)
        y = frame.iloc[:, 168].to_numpy(np.float64)
        if not np.isin(y, (0.0, 1.0)).all():
            raise ValueError("class values other than 0 and 1")
        y = y.astype(np.int64)
        bags = pd.factorize(frame.iloc[:, 0].astype(str))[0].astype(np.int64) + 1
        _check(key, X.shape, _mil_digest(X, y, bags))
        return X, y, bags
    return read


def _read_andrews_svm(text):
    """Andrews et al.'s sparse format: ``instance:bag:label index:value ...``
    (indices from 1).  Returns X, the bag label of each instance (1 when any
    instance of the bag is labelled positive) and the bag ids 1, 2, ... in
    order of first appearance."""
    heads, feats = [], []
    n_features = 0
    for line in text.splitlines():
        tokens = line.split()
        if not tokens or tokens[0].startswith("#"):
            continue
        head = tokens[0].split(":")
        if len(head) != 3:
            raise ValueError(f"line starting {tokens[0]!r}: expected instance:bag:label")
        pairs = []
        for tok in tokens[1:]:
            i, v = tok.split(":")
            i = int(i)
            if i < 1:
                raise ValueError(f"feature index {i} (indices start at 1)")
            pairs.append((i - 1, float(v)))
            n_features = max(n_features, i)
        heads.append((head[1], float(head[2])))
        feats.append(pairs)
    X = np.zeros((len(feats), n_features))
    for r, pairs in enumerate(feats):
        for i, v in pairs:
            X[r, i] = v
    bags = pd.factorize(np.array([b for b, _ in heads], dtype=object))[0].astype(np.int64) + 1
    positive = np.array([lab > 0 for _, lab in heads])
    bag_pos = np.zeros(bags.max() + 1 if len(bags) else 1, bool)
    np.logical_or.at(bag_pos, bags, positive)
    return X, bag_pos[bags].astype(np.int64), bags


def _read_elephant(path):
    """The Elephant member (``*elephant*.svm``) of Andrews et al.'s archive, or
    such a file itself (plain or gzipped)."""
    if tarfile.is_tarfile(path):
        with tarfile.open(path, "r|*") as tf:
            for m in tf:
                name = m.name.lower()
                if m.isfile() and "elephant" in name and name.endswith(".svm"):
                    data = tf.extractfile(m).read()
                    break
            else:
                raise ValueError("no elephant .svm file in the archive")
    else:
        data = _raw(path)
    X, y, bags = _read_andrews_svm(data.decode("ascii"))
    _check("elephant", X.shape, _mil_digest(X, y, bags))
    return X, y, bags


def fetch_musk1(data_home=None, download_if_missing=True):
    """MUSK1 (UCI Musk, version 1): 92 molecules (47 musks) as bags of
    476 conformations, 166 features each; a multi-instance binary task.

    ``clean1.data.Z`` from the UCI Machine Learning Repository.

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).
        UCI's uncompressed ``clean1.data``, or ``mil/musk1.csv.gz`` in
        treelab's MIL CSV layout (:func:`treelab.streaming.load_mil`), is used
        as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.

    Returns
    -------
    X : ndarray of shape (476, 166), float64
        One row per instance.
    y : ndarray of shape (476,), int64
        The label of the instance's bag (1 = positive), as
        :meth:`treelab.SGTMultiInstanceClassifier.fit` takes it.
    bags : ndarray of shape (476,), int64
        The bag id of each instance, 1 to 92 in order of first appearance
        (the file lists the positive bags first).

    References
    ----------
    T. G. Dietterich, R. H. Lathrop, T. Lozano-Perez, "Solving the multiple
    instance problem with axis-parallel rectangles", Artificial Intelligence
    89(1-2), 1997.  D. Chapman, A. Jain, "Musk", UCI Machine Learning
    Repository, 1994.
    """
    return _fetch("musk1", data_home, download_if_missing, _read_musk("musk1"),
                  converted=[("clean1.data", _read_musk("musk1")),
                             ("mil/musk1.csv.gz", _read_mil_csv("musk1"))])


def fetch_musk2(data_home=None, download_if_missing=True):
    """MUSK2 (UCI Musk, version 2): 102 molecules (39 musks) as bags of
    6,598 conformations, 166 features each; a multi-instance binary task.

    ``clean2.data.Z`` from the UCI Machine Learning Repository.

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).
        UCI's uncompressed ``clean2.data``, or ``mil/musk2.csv.gz`` in
        treelab's MIL CSV layout (:func:`treelab.streaming.load_mil`), is used
        as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.

    Returns
    -------
    X : ndarray of shape (6598, 166), float64
        One row per instance.
    y : ndarray of shape (6598,), int64
        The label of the instance's bag (1 = positive), as
        :meth:`treelab.SGTMultiInstanceClassifier.fit` takes it.
    bags : ndarray of shape (6598,), int64
        The bag id of each instance, 1 to 102 in order of first appearance
        (the file lists the positive bags first).

    References
    ----------
    T. G. Dietterich, R. H. Lathrop, T. Lozano-Perez, "Solving the multiple
    instance problem with axis-parallel rectangles", Artificial Intelligence
    89(1-2), 1997.  D. Chapman, A. Jain, "Musk", UCI Machine Learning
    Repository, 1994.
    """
    return _fetch("musk2", data_home, download_if_missing, _read_musk("musk2"),
                  converted=[("clean2.data", _read_musk("musk2")),
                             ("mil/musk2.csv.gz", _read_mil_csv("musk2"))])


def fetch_elephant(data_home=None, download_if_missing=True):
    """Elephant (Corel images): 200 images (100 with an elephant) as bags of
    1,391 segments, 230 colour, texture and shape features each; a
    multi-instance binary task.

    The elephant file of Andrews et al.'s multi-instance archive
    ``MIL-Data-2002-Musk-Corel-Trec9.tgz``.

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).
        A ``mil/elephant.csv.gz`` in treelab's MIL CSV layout
        (:func:`treelab.streaming.load_mil`) is used as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.

    Returns
    -------
    X : ndarray of shape (1391, 230), float64
        One row per instance.
    y : ndarray of shape (1391,), int64
        The label of the instance's bag (1 = positive), as
        :meth:`treelab.SGTMultiInstanceClassifier.fit` takes it.
    bags : ndarray of shape (1391,), int64
        The bag id of each instance, 1 to 200 in order of first appearance
        (the file lists the positive bags first).

    References
    ----------
    S. Andrews, I. Tsochantaridis, T. Hofmann, "Support vector machines for
    multiple-instance learning", Advances in Neural Information Processing
    Systems 15, 2003.
    """
    return _fetch("elephant", data_home, download_if_missing, _read_elephant,
                  converted=[("mil/elephant.csv.gz", _read_mil_csv("elephant"))])


# ----------------------------------------------------------------- Spambase / Caravan
_SPAMBASE_WORDS = (
    "make address all 3d our over remove internet order mail receive will people report "
    "addresses free business email you credit your font 000 money hp hpl george 650 lab "
    "labs telnet 857 data 415 85 technology 1999 parts pm direct cs meeting original "
    "project re edu table conference").split()
#: Spambase's attribute names, as in UCI's ``spambase.names``.
SPAMBASE_FEATURES = ([f"word_freq_{w}" for w in _SPAMBASE_WORDS]
                     + [f"char_freq_{c}" for c in ";([!$#"]
                     + ["capital_run_length_average", "capital_run_length_longest",
                        "capital_run_length_total"])

#: Caravan's attribute names (the CoIL 2000 data dictionary; ISLR's too).
CARAVAN_FEATURES = (
    "MOSTYPE MAANTHUI MGEMOMV MGEMLEEF MOSHOOFD MGODRK MGODPR MGODOV MGODGE MRELGE MRELSA "
    "MRELOV MFALLEEN MFGEKIND MFWEKIND MOPLHOOG MOPLMIDD MOPLLAAG MBERHOOG MBERZELF MBERBOER "
    "MBERMIDD MBERARBG MBERARBO MSKA MSKB1 MSKB2 MSKC MSKD MHHUUR MHKOOP MAUT1 MAUT2 MAUT0 "
    "MZFONDS MZPART MINKM30 MINK3045 MINK4575 MINK7512 MINK123M MINKGEM MKOOPKLA PWAPART "
    "PWABEDR PWALAND PPERSAUT PBESAUT PMOTSCO PVRAAUT PAANHANG PTRACTOR PWERKT PBROM PLEVEN "
    "PPERSONG PGEZONG PWAOREG PBRAND PZEILPL PPLEZIER PFIETS PINBOED PBYSTAND AWAPART "
    "AWABEDR AWALAND APERSAUT ABESAUT AMOTSCO AVRAAUT AAANHANG ATRACTOR AWERKT ABROM ALEVEN "
    "APERSONG AGEZONG AWAOREG ABRAND AZEILPL APLEZIER AFIETS AINBOED ABYSTAND").split()


def _binary(y, what):
    y = np.asarray(y)
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{what} values other than 0 and 1")
    return y.astype(np.int64)


def _read_spambase(path):
    """UCI's ``spambase.data``: 57 attributes and the class (1 = spam), no header."""
    frame = _csv(_raw(path))
    if frame.shape[1] != 58:
        raise ValueError(f"{frame.shape[1]} columns, expected 58")
    X = frame.iloc[:, :57].to_numpy(np.float64)
    y = _binary(frame.iloc[:, 57], "class")
    _check("spambase", X.shape, _table_digest(X, y))
    return X, y


def _read_spambase_csv(path):
    """A CSV with a header row: the 57 attributes, then the class."""
    frame = pd.read_csv(path, **_EXACT)
    X = frame.iloc[:, :-1].to_numpy(np.float64)
    y = _binary(frame.iloc[:, -1], "class")
    _check("spambase", X.shape, _table_digest(X, y))
    return X, y


def _read_caravan(path):
    """CoIL 2000's ``ticdata2000.txt``: 86 whitespace-separated integer columns,
    the last ``CARAVAN`` (1 = has a caravan policy), no header."""
    frame = _csv(_raw(path), sep=r"\s+")
    if frame.shape[1] != 86:
        raise ValueError(f"{frame.shape[1]} columns, expected 86")
    X = frame.iloc[:, :85].to_numpy(np.int64)
    y = _binary(frame.iloc[:, 85], "CARAVAN")
    _check("caravan", X.shape, _table_digest(X, y))
    return X, y


def _read_caravan_csv(path):
    """ISLR's ``Caravan`` table as CSV: the 85 attributes and ``Purchase`` (Yes / No)."""
    frame = pd.read_csv(path)
    if "Purchase" not in frame.columns:
        raise ValueError("no Purchase column")
    y = frame.pop("Purchase").astype(str)
    if not y.isin(["Yes", "No"]).all():
        raise ValueError("Purchase values other than Yes and No")
    X = frame[CARAVAN_FEATURES].to_numpy(np.int64)
    y = (y == "Yes").to_numpy().astype(np.int64)
    _check("caravan", X.shape, _table_digest(X, y))
    return X, y


def fetch_spambase(data_home=None, download_if_missing=True, as_frame=False):
    """UCI Spambase: 4,601 e-mails (1,813 spam) described by 57 word / character
    frequencies and capital-run lengths.

    ``spambase.data`` from the UCI Machine Learning Repository.

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).  A
        ``spambase.csv.gz`` there (a header row, the attributes, then the class)
        is used as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.
    as_frame : bool, default False
        Return a DataFrame with UCI's attribute names (:data:`SPAMBASE_FEATURES`)
        and a Series ``spam`` instead of arrays.

    Returns
    -------
    X : ndarray of shape (4601, 57), float64, or DataFrame
    y : ndarray of shape (4601,), int64 (1 = spam), or Series

    References
    ----------
    M. Hopkins, E. Reeber, G. Forman, J. Suermondt, "Spambase", UCI Machine
    Learning Repository, 1999.
    """
    X, y = _fetch("spambase", data_home, download_if_missing, _read_spambase,
                  converted=[("spambase.csv.gz", _read_spambase_csv)])
    if as_frame:
        return pd.DataFrame(X, columns=SPAMBASE_FEATURES), pd.Series(y, name="spam")
    return X, y


def fetch_caravan(data_home=None, download_if_missing=True, as_frame=False):
    """Caravan insurance (CoIL Challenge 2000; ISLR's ``Caravan``): 5,822
    customers, 85 integer-coded socio-demographic and product-ownership
    attributes; who owns a caravan policy (348, 6 %).

    The CoIL training file ``ticdata2000.txt`` from the UCI Machine Learning
    Repository, the table ISLR's ``Caravan`` holds (its ``Purchase == "Yes"``
    is ``y == 1`` here).

    Parameters
    ----------
    data_home : str or path-like, optional
        The data folder (default ``$TREELAB_DATA``, else ``~/treelab_data``).  A
        ``caravan.csv.gz`` there (ISLR's table as CSV, with ``Purchase``) is
        used as well.
    download_if_missing : bool, default True
        Download the file when it is not in the data folder.
    as_frame : bool, default False
        Return a DataFrame with the data dictionary's attribute names
        (:data:`CARAVAN_FEATURES`) and a Series ``CARAVAN`` instead of arrays.

    Returns
    -------
    X : ndarray of shape (5822, 85), int64, or DataFrame
    y : ndarray of shape (5822,), int64 (1 = caravan policy), or Series

    References
    ----------
    P. van der Putten, M. van Someren (eds.), "CoIL Challenge 2000: The Insurance
    Company Case", technical report 2000-09, Leiden Institute of Advanced
    Computer Science, 2000.  G. James, D. Witten, T. Hastie, R. Tibshirani, "An
    Introduction to Statistical Learning", Springer, 2013.
    """
    X, y = _fetch("caravan", data_home, download_if_missing, _read_caravan,
                  converted=[("caravan.csv.gz", _read_caravan_csv)])
    if as_frame:
        return pd.DataFrame(X, columns=CARAVAN_FEATURES), pd.Series(y, name="CARAVAN")
    return X, y
