"""Streaming utilities: synthetic stream generators, prequential evaluation and
readers for the stream / multi-instance data sets."""
from .datasets import data_path, load_arff, load_mil
from .evaluation import is_river_learner, prequential
from .generators import RandCBT

__all__ = ["RandCBT", "prequential", "is_river_learner", "load_arff", "load_mil", "data_path"]
