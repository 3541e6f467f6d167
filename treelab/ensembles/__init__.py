"""Ensembles on treelab's engine."""
from .adaboost import AdaBoostClassifier, AdaBoostRegressor
from .bagging import BaggingClassifier, BaggingRegressor
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor",
           "BaggingClassifier", "BaggingRegressor", "AdaBoostClassifier", "AdaBoostRegressor"]
