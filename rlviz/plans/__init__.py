"""Execution plans: RLlib 1.x's PG, A2C, A3C, DQN and Ape-X dataflows, and the ``Trainer`` that drives them.

Each plan module has ``POLICY``, ``DEFAULT_CONFIG`` and
``execution_plan(workers, config) -> LocalIterator``, reading top to bottom.
Imports rlviz.ops and rlviz.rollout lazily; never rlviz.viz or rlviz.widgets.
"""
from __future__ import annotations

import importlib

__all__ = ["Trainer", "PLANS", "COMMON_CONFIG", "pg", "a2c", "a3c", "dqn", "apex"]


def __getattr__(name: str):
    if name in ("Trainer", "PLANS", "COMMON_CONFIG"):
        return getattr(importlib.import_module("rlviz.plans.trainer"), name)
    if name in ("pg", "a2c", "a3c", "dqn", "apex"):
        return importlib.import_module(f"rlviz.plans.{name}")
    raise AttributeError(f"module 'rlviz.plans' has no attribute {name!r}")
