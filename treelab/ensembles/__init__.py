"""Ensembles on treelab's engine."""
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]
