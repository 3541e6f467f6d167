"""treelab: a Numba-jitted tree-ensemble research framework.

One jitted tree engine (``treelab._engine``), interchangeable split criteria
(``treelab.split_criteria``) and learners built on them (``treelab.learners``).
"""
from .learners import (
    C45Classifier, CARTClassifier, CARTRegressor, DecisionTreeClassifier,
    DecisionTreeRegressor, HoeffdingTreeClassifier, ID3Classifier, SGTClassifier, SGTMultiInstanceClassifier,
    SGTRegressor, ToPsClassifier, ToPsRegressor, export_text, export_tops_text, plot_tops,
    plot_tree,
)
from .split_criteria import Criterion
from .ensembles import GradientBoostingClassifier, GradientBoostingRegressor
from .ensembles import CascadeForestClassifier, CascadeForestRegressor
from .ensembles import GcForestClassifier, MultiGrainedScanning
from .ensembles import (CompletelyRandomForestClassifier, CompletelyRandomForestRegressor,
                        ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                        RandomForestRegressor)
from .ensembles import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                        BaggingRegressor)

__version__ = "0.1.0"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ID3Classifier", "C45Classifier",
           "CARTClassifier", "CARTRegressor", "export_text", "Criterion", "SGTClassifier",
           "SGTRegressor", "SGTMultiInstanceClassifier", "HoeffdingTreeClassifier",
           "ToPsClassifier", "ToPsRegressor", "export_tops_text", "plot_tops", "plot_tree",
           "GradientBoostingClassifier", "GradientBoostingRegressor",
           "CascadeForestClassifier", "CascadeForestRegressor", "MultiGrainedScanning",
           "GcForestClassifier", "RandomForestClassifier", "RandomForestRegressor",
           "ExtraTreesClassifier", "ExtraTreesRegressor", "CompletelyRandomForestClassifier",
           "CompletelyRandomForestRegressor", "BaggingClassifier", "BaggingRegressor", "AdaBoostClassifier",
           "AdaBoostRegressor", "__version__"]
