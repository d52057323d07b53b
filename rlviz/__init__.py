"""rlviz: watch Ray/RLlib-style execution plans run.

``rlviz.iter`` re-creates ParallelIterator / LocalIterator on Ray actors and
records every ``next()`` call; ``rlviz.record()`` collects those records into a
``Trace`` that ``rlviz.viz`` draws.  Importing ``rlviz`` is cheap: Ray,
torch and matplotlib load only when a subpackage that needs them is used.
"""
from __future__ import annotations

import importlib

from rlviz.runtime import init
from rlviz.trace import Trace, gauge, record

__version__ = "0.1.0"
__all__ = ["init", "record", "gauge", "show", "watch", "Trace", "Trainer", "diff", "__version__"]

_SUBPACKAGES = {"iter", "rollout", "ops", "plans", "viz", "widgets", "trace", "testing", "rllib"}


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"rlviz.{name}")
    if name == "show":                          # lazily: widgets pull in ipywidgets
        return importlib.import_module("rlviz.widgets.show").show
    if name == "watch":                         # lazily, like show
        return importlib.import_module("rlviz.widgets.live").watch
    if name == "Trainer":                       # lazily: it pulls in Ray and torch
        return importlib.import_module("rlviz.plans.trainer").Trainer
    if name == "diff":                          # lazily, like the views it draws with
        return importlib.import_module("rlviz.testing.diff").diff
    raise AttributeError(f"module 'rlviz' has no attribute {name!r}")
