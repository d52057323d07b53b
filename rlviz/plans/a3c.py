"""A3C: each worker computes gradients on its own samples; the driver applies them as they arrive.

AsyncGradients -> ApplyGradients(update_all=False) -> StandardMetricsReporting:
new weights go back only to the worker whose gradients were applied (docs/plans.md, "A3C").
"""
from __future__ import annotations

from typing import Any

from rlviz.iter import LocalIterator
from rlviz.ops import ApplyGradients, AsyncGradients, StandardMetricsReporting
from rlviz.rollout.pg_policy import A2CPolicy

__all__ = ["POLICY", "DEFAULT_CONFIG", "execution_plan"]

POLICY = A2CPolicy

DEFAULT_CONFIG: dict[str, Any] = {
    "rollout_fragment_length": 50,
    "timesteps_per_iteration": 400,
    "lr": 0.002,
}


def execution_plan(workers: Any, config: dict) -> LocalIterator:
    """The A3C dataflow: one ``next()`` is one training iteration's metrics (needs remote workers)."""
    # ------------------------------------------------------------------ ALGO LOGIC
    grads = AsyncGradients(workers)                       # (grads, count), from whichever worker is done
    train_op = grads.for_each(ApplyGradients(workers, update_all=False))
    return StandardMetricsReporting(train_op, workers, config)
