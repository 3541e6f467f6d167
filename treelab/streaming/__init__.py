"""Streaming utilities: synthetic stream generators (and prequential evaluation)."""
from .generators import RandCBT

__all__ = ["RandCBT"]
