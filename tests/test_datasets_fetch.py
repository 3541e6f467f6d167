"""treelab.datasets' fetchers against a local HTTP server.

The server (127.0.0.1, a thread, stopped by each test and at the latest after
two minutes) serves each data set in its source's own format -- MOA's zipped
ARFF, MNIST's gzipped idx files, UCI's ``.data`` files (MUSK compressed with
Unix ``compress``), Andrews et al.'s tar archive, the CoIL text file -- written
by the tests from the project's reference copies of the data.  The fetchers'
URL table is pointed at it.  Checked: download, checksums, cache hits with the
server stopped, the one-line error offline without a copy, and that a
corrupted download leaves nothing in the data folder.  Skipped when the
reference copies are absent.
"""
from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import http.server
import io
import random
import tarfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REF = Path(__file__).resolve().parents[2] / "shared" / "data"
if not (REF / "mnist_t10k.npz").is_file():
    pytest.skip(f"the reference copies of the data sets are absent ({REF} not found)",
                allow_module_level=True)

from treelab import datasets  # noqa: E402
from treelab.datasets import _fetch as F  # noqa: E402
from treelab.datasets import ChecksumError, DatasetUnavailableError  # noqa: E402


# ---------------------------------------------------------------- source formats
def compress_lzw(data, maxbits=16):
    """Unix ``compress`` (.Z) of ``data``: LZW in block mode; when the table is
    full a clear code starts a new one."""
    codes, table = [], {}
    next_code, limit, w = 257, 1 << maxbits, -1
    for c in data:
        if w < 0:
            w = c
            continue
        nxt = table.get((w << 8) | c)
        if nxt is not None:
            w = nxt
            continue
        codes.append(w)
        if next_code < limit:
            table[(w << 8) | c] = next_code
            next_code += 1
        else:
            codes.append(256)
            table.clear()
            next_code = 257
        w = c
    if w >= 0:
        codes.append(w)
    # the widths as a decoder derives them; 8 codes make a group of ``bits``
    # bytes, padded to full length before a change of width and after a clear
    out = bytearray(b"\x1f\x9d" + bytes((0x80 | maxbits,)))
    bits, end = 9, 256
    acc = nacc = ingroup = 0

    def flush(full):
        nonlocal acc, nacc, ingroup
        if ingroup:
            out.extend(acc.to_bytes(bits if full else (nacc + 7) // 8, "little"))
        acc = nacc = ingroup = 0

    for i, code in enumerate(codes):
        if i and end >= (1 << bits) - 1 and bits < maxbits:
            flush(True)
            bits += 1
        acc |= code << nacc
        nacc += bits
        ingroup += 1
        if code == 256 and i:
            flush(True)
            bits, end = 9, 255
            continue
        if i and end < (1 << bits) - 1:
            end += 1
        if ingroup == 8:
            flush(True)
    flush(False)
    return bytes(out)


def _idx(a):
    head = bytes((0, 0, 8, a.ndim)) + np.asarray(a.shape, ">u4").tobytes()
    return gzip.compress(head + np.ascontiguousarray(a, np.uint8).tobytes(), compresslevel=1,
                         mtime=0)


def _musk_text(frame):
    """UCI's layout: molecule name, conformation name, 166 integers, class ``1.`` / ``0.``."""
    label, bag = frame[0].astype(int), frame[1].astype(int)
    out = pd.DataFrame({
        "molecule": np.where(label == 1, "MUSK-", "NON-MUSK-") + bag.astype(str),
        "conformation": bag.astype(str) + "_" + (frame.groupby(1).cumcount() + 1).astype(str)
        + "+1"})
    out = pd.concat([out, frame.iloc[:, 2:].astype(int), label.astype(str) + "."], axis=1)
    return out.to_csv(header=False, index=False, lineterminator="\n").encode()


def _svm_text(frame):
    lines = []
    for i, row in enumerate(frame.itertuples(index=False)):
        label, bag, feats = int(row[0]), int(row[1]), row[2:]
        pairs = " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(feats) if v != 0)
        lines.append(f"{i}:{bag}:{1 if label else -1} {pairs}")
    return ("\n".join(lines) + "\n").encode()


def _tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A folder holding every source file, in its source's format, and the
    reference data each fetcher should return."""
    root = tmp_path_factory.mktemp("server")
    files, expected = {}, {}

    expected["electricity"] = F._read_electricity(REF / "elecNormNew.arff.gz")
    arff = gzip.decompress((REF / "elecNormNew.arff.gz").read_bytes())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("elecNormNew.arff", arff)
    files["elecNormNew.arff.zip"] = buf.getvalue()

    with np.load(REF / "mnist_t10k.npz") as d:
        X, y = d["X"].reshape(-1, 28, 28), d["y"]
    expected["mnist"] = (X.reshape(len(X), -1), y)
    files["t10k-images-idx3-ubyte.gz"] = files["train-images-idx3-ubyte.gz"] = _idx(X)
    files["t10k-labels-idx1-ubyte.gz"] = files["train-labels-idx1-ubyte.gz"] = _idx(y)

    mil = {k: pd.read_csv(REF / "mil" / f"{k}.csv.gz", header=None)
           for k in ("musk1", "musk2", "elephant")}
    for k, f in mil.items():
        expected[k] = (f.iloc[:, 2:].to_numpy(np.float64), f.iloc[:, 0].to_numpy(),
                       f.iloc[:, 1].to_numpy())
    files["clean1.data.Z"] = compress_lzw(_musk_text(mil["musk1"]))
    files["clean2.data.Z"] = compress_lzw(_musk_text(mil["musk2"]))
    files["MIL-Data-2002-Musk-Corel-Trec9.tgz"] = _tar({
        "MilData/Musk/musk1norm.svm": b"0:0:1 1:0.5\n",
        "MilData/Elephant/data_100x100.svm": _svm_text(mil["elephant"]),
        "MilData/Fox/data_100x100.svm": b"0:0:1 1:0.5\n",
    })

    spam = pd.read_csv(REF / "spambase.csv.gz", **F._EXACT)
    expected["spambase"] = (spam.iloc[:, :-1].to_numpy(np.float64), spam.iloc[:, -1].to_numpy())
    files["spambase.data"] = spam.to_csv(header=False, index=False,
                                         lineterminator="\n").encode()

    car = pd.read_csv(REF / "caravan.csv.gz")
    ycar = (car.pop("Purchase") == "Yes").to_numpy().astype(int)
    expected["caravan"] = (car.to_numpy(), ycar)
    files["ticdata2000.txt"] = car.assign(CARAVAN=ycar).to_csv(
        sep="\t", header=False, index=False, lineterminator="\r\n").encode()

    for name, data in files.items():
        (root / name).write_bytes(data)
    return root, files, expected


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server:
    """An HTTP server on 127.0.0.1 serving ``root``, in a thread; ``stop()``
    ends it (so does a two-minute guard)."""

    def __init__(self, root):
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.guard = threading.Timer(120, self.httpd.shutdown)
        self.guard.daemon = True
        self.guard.start()
        self.running = True

    def stop(self):
        if self.running:
            self.running = False
            self.guard.cancel()
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(5)


@pytest.fixture
def server(served, monkeypatch):
    """The server, with every source of the URL table pointed at it; MNIST's
    published checksums are those of the served files, and the "training set"
    served is the test set again."""
    root, files, _ = served
    srv = Server(root)
    for key, src in list(F.SOURCES.items()):
        new = dataclasses.replace(src, urls=(srv.url + src.filename,))
        if key.startswith("mnist"):
            digest = F.SOURCES[key.replace("train", "test")].content_sha256
            new = dataclasses.replace(new, sha256=hashlib.sha256(files[src.filename]).hexdigest(),
                                      shape=(10000,) + src.shape[1:], content_sha256=digest)
        monkeypatch.setitem(F.SOURCES, key, new)
    monkeypatch.delenv("TREELAB_DATA", raising=False)
    yield srv
    srv.stop()


def _files(folder):
    return sorted(p.name for p in Path(folder).iterdir()) if Path(folder).exists() else []


FETCHERS = {
    "electricity": (datasets.fetch_electricity, ["elecNormNew.arff.zip"]),
    "mnist": (datasets.fetch_mnist, ["t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]),
    "musk1": (datasets.fetch_musk1, ["clean1.data.Z"]),
    "musk2": (datasets.fetch_musk2, ["clean2.data.Z"]),
    "elephant": (datasets.fetch_elephant, ["MIL-Data-2002-Musk-Corel-Trec9.tgz"]),
    "spambase": (datasets.fetch_spambase, ["spambase.data"]),
    "caravan": (datasets.fetch_caravan, ["ticdata2000.txt"]),
}


def _check_result(name, got, expected):
    if name == "electricity":
        X, y = got
        ref = expected["electricity"]
        pd.testing.assert_frame_equal(X, ref[0])
        pd.testing.assert_series_equal(y, ref[1])
        assert X["day"].dtype == "category" and X.shape == (45312, 8)
        return
    assert len(got) == len(expected[name])
    for a, b in zip(got, expected[name]):
        np.testing.assert_array_equal(a, b)
    if name == "mnist":
        assert got[0].dtype == np.uint8 and got[0].shape == (10000, 784)
    elif name in ("musk1", "musk2", "elephant"):
        assert got[0].dtype == np.float64 and got[1].dtype == got[2].dtype == np.int64


@pytest.mark.parametrize("name", list(FETCHERS))
def test_download_then_offline_from_the_cache(name, served, server, tmp_path, capsys):
    fetch, names = FETCHERS[name]
    home = tmp_path / "data"
    first = fetch(data_home=home)
    assert "downloading " + server.url in capsys.readouterr().err
    _check_result(name, first, served[2])
    assert _files(home) == sorted(names)        # the source files, nothing else
    server.stop()
    again = fetch(data_home=home, download_if_missing=False)
    _check_result(name, again, served[2])
    assert capsys.readouterr().err == ""         # no download


def test_mnist_subsets_and_mirror_fallback(server, tmp_path, monkeypatch):
    for key in ("mnist-train-images", "mnist-train-labels"):
        src = F.SOURCES[key]
        monkeypatch.setitem(F.SOURCES, key, dataclasses.replace(
            src, urls=(server.url + "missing/" + src.filename,) + src.urls))
    Xtr, ytr = datasets.fetch_mnist("train", data_home=tmp_path)
    Xall, yall = datasets.fetch_mnist("all", data_home=tmp_path)
    assert Xall.shape == (20000, 784) and yall.shape == (20000,)
    np.testing.assert_array_equal(Xall[:10000], Xtr)
    with pytest.raises(ValueError, match="subset"):
        datasets.fetch_mnist("validation", data_home=tmp_path)


def test_as_frame(server, tmp_path):
    X, y = datasets.fetch_spambase(data_home=tmp_path, as_frame=True)
    assert list(X.columns) == datasets.SPAMBASE_FEATURES and y.name == "spam"
    assert X.shape == (4601, 57) and int(y.sum()) == 1813
    X, y = datasets.fetch_caravan(data_home=tmp_path, as_frame=True)
    assert list(X.columns) == datasets.CARAVAN_FEATURES and y.name == "CARAVAN"
    assert int(y.sum()) == 348
    X, y = datasets.fetch_electricity(data_home=tmp_path, as_frame=False)
    assert X.dtype == np.float64 and X.shape == (45312, 8) and set(X[:, 1]) == set(range(1, 8))
    assert set(y) == {"UP", "DOWN"}


def test_offline_without_a_copy_one_line(server, tmp_path, monkeypatch):
    server.stop()
    home = tmp_path / "nothing here"
    url = F.SOURCES["musk1"].urls[0]
    with pytest.raises(DatasetUnavailableError) as err:
        datasets.fetch_musk1(data_home=home)
    msg = str(err.value)
    assert "\n" not in msg and url in msg and str(home) in msg and "clean1.data.Z" in msg
    assert isinstance(err.value, OSError)
    assert not home.exists()                    # not even an empty folder is left
    with pytest.raises(DatasetUnavailableError, match="download_if_missing") as err:
        datasets.fetch_spambase(data_home=home, download_if_missing=False)
    assert "\n" not in str(err.value) and F.SOURCES["spambase"].urls[0] in str(err.value)
    # the folder comes from TREELAB_DATA when no data_home is given
    monkeypatch.setenv("TREELAB_DATA", str(home))
    with pytest.raises(DatasetUnavailableError, match="nothing here"):
        datasets.fetch_caravan()


def _serve_bad(served, server, monkeypatch, key, data):
    root = served[0]
    src = F.SOURCES[key]
    (root / "bad").mkdir(exist_ok=True)
    (root / "bad" / src.filename).write_bytes(data)
    monkeypatch.setitem(F.SOURCES, key, dataclasses.replace(
        src, urls=(server.url + "bad/" + src.filename,)))


@pytest.mark.parametrize("key,fetch,damage", [
    ("spambase", datasets.fetch_spambase,
     lambda b: b.replace(b"0.64,0.64", b"0.64,0.65", 1)),           # one value changed
    ("musk1", datasets.fetch_musk1, lambda b: b[:len(b) // 2]),       # truncated
    ("electricity", datasets.fetch_electricity, lambda b: b[:100]),  # not a zip any more
    ("mnist-test-labels", datasets.fetch_mnist, lambda b: b + b"\0"),  # published SHA-256
    ("caravan", datasets.fetch_caravan, lambda b: b"<html>moved</html>"),
])
def test_corrupted_download_leaves_nothing(key, fetch, damage, served, server, tmp_path,
                                           monkeypatch):
    _serve_bad(served, server, monkeypatch, key, damage(served[1][F.SOURCES[key].filename]))
    home = tmp_path / "data"
    with pytest.raises(ChecksumError) as err:
        fetch(data_home=home)
    assert "\n" not in str(err.value) and "nothing was kept" in str(err.value)
    assert [n for n in _files(home) if n == F.SOURCES[key].filename or n.startswith(".")] == []


def test_corrupted_copy_in_the_folder(served, server, tmp_path):
    (tmp_path / "spambase.data").write_bytes(
        served[1]["spambase.data"].replace(b"0.64,0.64", b"0.64,0.65", 1))
    with pytest.raises(ChecksumError, match="delete it") as err:
        datasets.fetch_spambase(data_home=tmp_path)
    assert str(tmp_path / "spambase.data") in str(err.value)


def test_converted_copies_are_used(monkeypatch, tmp_path):
    """Copies already converted to treelab's layouts (ARFF, MIL CSV, npz, CSV
    with a header) in the data folder are read and checked like the sources."""
    for key, src in list(F.SOURCES.items()):
        monkeypatch.setitem(F.SOURCES, key, dataclasses.replace(src, urls=("http://127.0.0.1:9/",)))
    monkeypatch.setenv("TREELAB_DATA", str(REF))
    X, y, bags = datasets.fetch_elephant(download_if_missing=False)
    assert X.shape == (1391, 230) and len(np.unique(bags)) == 200
    X, y = datasets.fetch_mnist(download_if_missing=False)
    assert X.shape == (10000, 784) and int((y == 4).sum()) == 982
    X, y = datasets.fetch_caravan(download_if_missing=False)
    assert X.shape == (5822, 85) and int(y.sum()) == 348


def test_unlzw_clear_codes_and_small_tables():
    rng = random.Random(0)
    text = (REF / "README.md").read_bytes()
    for data in (b"", b"a", b"abababababab" * 40, rng.randbytes(20000), text * 5):
        for bits in (10, 12, 16):
            assert F._unlzw(compress_lzw(data, bits)) == data
    with pytest.raises(ValueError, match="compress"):
        F._unlzw(b"plain text")
