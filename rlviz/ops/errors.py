"""The one exception class the ops add: a wrong type that is also a ``ValueError``.

Ray 1.x raised ``ValueError`` for bad op inputs of the wrong type; rlviz's rule
is ``TypeError``.  ``OpInputError`` is both, so either ``except`` works.
"""
from __future__ import annotations

__all__ = ["OpInputError"]


class OpInputError(TypeError, ValueError):
    """An op argument of the wrong type (catchable as TypeError or ValueError)."""
