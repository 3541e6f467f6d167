"""treelab: a Numba-jitted tree-ensemble research framework.

One jitted tree engine (``treelab._engine``), interchangeable split criteria
(``treelab.split_criteria``) and learners built on them (``treelab.learners``).
"""
from .learners import (
    C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
    DecisionTreeRegressor, ID3Classifier, export_text,
)
from .split_criteria import Criterion

__version__ = "0.1.0"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier", "C45Classifier",
           "CARTClassifier", "CARTRegressor", "export_text", "Criterion", "__version__"]
