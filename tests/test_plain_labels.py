"""Error messages print labels as plain values (``2``, ``'yes'``, ``[0, 1]``), never as
``np.int64(2)`` or ``array([...])`` (issue 14, item 6)."""
import re

import numpy as np
import pandas as pd
import pytest

from treelab import DecisionTreeClassifier, HoeffdingTreeClassifier, SGTClassifier
from treelab._format import plain, plain_repr


def _no_numpy_repr(message):
    assert not re.search(r"np\.(int|float|str_|bool)|numpy\.|array\(", message), message


def test_plain_converts_numpy_scalars_and_arrays():
    assert plain_repr(np.int64(2)) == "2"
    assert plain_repr(np.float64(0.5)) == "0.5"
    assert plain_repr(np.str_("yes")) == "'yes'"
    assert plain_repr(np.array([0, 1])) == "[0, 1]"
    assert plain_repr([np.int64(1), np.int64(2)]) == "[1, 2]"
    assert plain(np.array(3)) == 3 and type(plain(np.array(3))) is int
    assert plain("a") == "a" and plain(None) is None


def test_single_class_message():
    with pytest.raises(ValueError) as e:
        DecisionTreeClassifier().fit(np.zeros((3, 1)), np.array([2, 2, 2]))
    assert "single class 2" in str(e.value)
    _no_numpy_repr(str(e.value))


def test_class_weight_message():
    with pytest.raises(ValueError) as e:
        DecisionTreeClassifier(class_weight={np.int64(7): 2.0}).fit(np.zeros((4, 1)), [0, 1, 0, 1])
    assert "names the class 7," in str(e.value)
    _no_numpy_repr(str(e.value))


def test_streaming_label_messages():
    X = pd.DataFrame({"a": np.arange(6, dtype=float)})
    m = HoeffdingTreeClassifier(classes=np.array([0, 1]))
    m.partial_fit(X, np.array([0, 1, 0, 1, 0, 1]))
    with pytest.raises(ValueError) as e:
        m.partial_fit(X, np.array([0, 1, 2, 1, 0, 1]))
    msg = str(e.value)
    assert "the label 2," in msg and "classes [0, 1]" in msg
    _no_numpy_repr(msg)
    with pytest.raises(ValueError) as e:
        HoeffdingTreeClassifier(classes=np.array([5])).partial_fit(X, np.full(6, 5))
    assert "got [5]" in str(e.value)
    _no_numpy_repr(str(e.value))
    with pytest.raises(ValueError) as e:
        SGTClassifier(n_range_samples=4).partial_fit(X, np.full(6, 3))
    assert "single class 3;" in str(e.value)
    _no_numpy_repr(str(e.value))
