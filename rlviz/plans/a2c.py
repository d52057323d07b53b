"""A2C: PG's lock-step sampling with an actor-critic policy; optional microbatches whose gradients are averaged.

Without ``microbatch_size``: ParallelRollouts(bulk_sync) -> ConcatBatches ->
TrainOneStep.  With it: ConcatBatches(microbatch) -> ComputeGradients ->
batch(k) -> AverageGradients -> ApplyGradients (docs/plans.md, "A2C").
"""
from __future__ import annotations

import math
from typing import Any

from rlviz.iter import LocalIterator
from rlviz.ops import (ApplyGradients, AverageGradients, ComputeGradients, ConcatBatches, ParallelRollouts,
                       StandardMetricsReporting, TrainOneStep)
from rlviz.rollout.pg_policy import A2CPolicy

__all__ = ["POLICY", "DEFAULT_CONFIG", "execution_plan"]

POLICY = A2CPolicy

DEFAULT_CONFIG: dict[str, Any] = {
    "rollout_fragment_length": 50,
    "train_batch_size": 200,
    "microbatch_size": None,
    "lr": 0.005,
}


def execution_plan(workers: Any, config: dict) -> LocalIterator:
    """The A2C dataflow: one ``next()`` is one training iteration's metrics."""
    # ------------------------------------------------------------------ ALGO LOGIC
    rollouts = ParallelRollouts(workers, mode="bulk_sync")
    microbatch_size = config.get("microbatch_size")
    if microbatch_size:
        num_microbatches = math.ceil(config["train_batch_size"] / microbatch_size)
        train_op = (rollouts
                    .combine(ConcatBatches(min_batch_size=microbatch_size))
                    .for_each(ComputeGradients(workers))      # (grads, count) per microbatch
                    .batch(num_microbatches)
                    .for_each(AverageGradients())               # mean, not Ray's sum
                    .for_each(ApplyGradients(workers)))
    else:
        train_op = (rollouts
                    .combine(ConcatBatches(min_batch_size=config["train_batch_size"]))
                    .for_each(TrainOneStep(workers)))
    return StandardMetricsReporting(train_op, workers, config)
