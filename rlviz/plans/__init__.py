"""Execution plans: RLlib 1.x's PG, A2C, A3C, DQN and Ape-X dataflows, and the ``Trainer`` that drives them.

Each plan module has ``POLICY``, ``DEFAULT_CONFIG`` and
``execution_plan(workers, config) -> LocalIterator``, reading top to bottom.
"""
from __future__ import annotations

import importlib

#: Plan names, each the module ``rlviz.plans.<name>``; the one list the Trainer and the CLI offer.
PLANS = ("pg", "a2c", "a3c", "dqn", "apex")

__all__ = ["Trainer", "PLANS", "COMMON_CONFIG", *PLANS]


def __getattr__(name: str):
    if name in ("Trainer", "COMMON_CONFIG"):
        return getattr(importlib.import_module("rlviz.plans.trainer"), name)
    if name in PLANS:
        return importlib.import_module(f"rlviz.plans.{name}")
    raise AttributeError(f"module 'rlviz.plans' has no attribute {name!r}")
