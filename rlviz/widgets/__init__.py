"""Jupyter widgets over traces: explore or step through a recorded run, experiment with round-robin weights.

Built on ``rlviz.viz`` (pictures) and ``rlviz.trace`` (data); the playground
also runs small local iterators from ``rlviz.iter`` / ``rlviz.ops``.
ipywidgets loads when a widget is first used, so ``import rlviz.widgets`` is
cheap.
"""
from __future__ import annotations

import importlib

__all__ = ["TraceView", "LiveView", "watch", "TraceStepper", "RoundRobinPlayground", "run_round_robin",
           "RoundRobinRun"]

_HOMES = {"TraceView": "rlviz.widgets.traceview", "LiveView": "rlviz.widgets.live", "watch": "rlviz.widgets.live",
          "TraceStepper": "rlviz.widgets.stepper", "RoundRobinPlayground": "rlviz.widgets.playground",
          "run_round_robin": "rlviz.widgets.roundrobin", "RoundRobinRun": "rlviz.widgets.roundrobin"}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'rlviz.widgets' has no attribute {name!r}")
