"""Ensembles on treelab's engine."""
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .cascade import CascadeForestClassifier, CascadeForestRegressor
from .scanning import GcForestClassifier, MultiGrainedScanning

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor",
           "CascadeForestClassifier", "CascadeForestRegressor", "MultiGrainedScanning",
           "GcForestClassifier"]
