"""Tree learners: batch (ID3 / C4.5 / CART) and streaming (SGT, Hoeffding trees)."""
from .decision_tree import (
    C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
    DecisionTreeRegressor, ID3Classifier,
)
from .export import export_text
from .hoeffding import HoeffdingTreeClassifier
from .plot import plot_tops, plot_tree
from .tops import ToPsClassifier, ToPsRegressor, export_tops_text
from .sgt import SGTClassifier, SGTMultiInstanceClassifier, SGTRegressor, TTestRule

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier",
           "C45Classifier", "CARTClassifier", "CARTRegressor", "export_text",
           "SGTClassifier", "SGTRegressor", "SGTMultiInstanceClassifier", "TTestRule",
           "HoeffdingTreeClassifier", "ToPsClassifier", "ToPsRegressor", "export_tops_text",
           "plot_tops", "plot_tree"]
