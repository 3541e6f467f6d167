"""treelab: a Numba-jitted tree-ensemble research framework."""
__version__ = "0.1.0"
