"""Ensembles on treelab's engine."""
from .forest import (CompletelyRandomForestClassifier, CompletelyRandomForestRegressor,  # noqa: F401
                     ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                     RandomForestRegressor)
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]
__all__ += ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor", "CompletelyRandomForestClassifier", "CompletelyRandomForestRegressor"]
