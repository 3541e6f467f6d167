"""Ensembles on treelab's engine."""
from .forest import (CompletelyRandomForestClassifier, CompletelyRandomForestRegressor,  # noqa: F401
                     ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                     RandomForestRegressor)
from .adaboost import AdaBoostClassifier, AdaBoostRegressor
from .bagging import BaggingClassifier, BaggingRegressor
from .gradient_boosting import (GradientBoostingClassifier, GradientBoostingRegressor,
                                XGBOOST_REGULARISATION)
from .cascade import CascadeForestClassifier, CascadeForestRegressor
from .scanning import GcForestClassifier, MultiGrainedScanning

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor",
           "RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor", "CompletelyRandomForestClassifier",
           "CompletelyRandomForestRegressor",
           "CascadeForestClassifier", "CascadeForestRegressor", "MultiGrainedScanning",
           "GcForestClassifier", "BaggingClassifier", "BaggingRegressor", "AdaBoostClassifier",
           "AdaBoostRegressor", "XGBOOST_REGULARISATION"]
