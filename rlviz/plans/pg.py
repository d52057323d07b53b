"""PG: sample from every worker in lock step, concatenate to a train batch, learn, report (docs/plans.md, "PG").

ParallelRollouts(bulk_sync) -> ConcatBatches -> TrainOneStep -> StandardMetricsReporting.
"""
from __future__ import annotations

from typing import Any

from rlviz.iter import LocalIterator
from rlviz.ops import ConcatBatches, ParallelRollouts, StandardMetricsReporting, TrainOneStep
from rlviz.rollout.pg_policy import PGPolicy

__all__ = ["POLICY", "DEFAULT_CONFIG", "execution_plan"]

#: The policy class the plan trains.
POLICY = PGPolicy

#: Plan settings, tuned for CartPole-v1 with 2 workers (policy settings: PGConfig fields).
DEFAULT_CONFIG: dict[str, Any] = {
    "rollout_fragment_length": 200,
    "train_batch_size": 400,
    "lr": 0.01,
}


def execution_plan(workers: Any, config: dict) -> LocalIterator:
    """The PG dataflow: one ``next()`` is one training iteration's metrics.

    Examples
    --------
    >>> from rlviz.plans import Trainer
    >>> trainer = Trainer("pg", num_workers=0, config={"rollout_fragment_length": 20, "train_batch_size": 20})
    >>> [n.op for n in trainer.dataflow()]
    ['source', 'ParallelRollouts', 'ConcatBatches', 'TrainOneStep', 'OncePerTimestepsElapsed', 'OncePerTimeInterval', 'CollectMetrics']
    >>> trainer.stop()
    """
    # ------------------------------------------------------------------ ALGO LOGIC
    rollouts = ParallelRollouts(workers, mode="bulk_sync")
    train_op = (rollouts
                .combine(ConcatBatches(min_batch_size=config["train_batch_size"]))
                .for_each(TrainOneStep(workers)))
    return StandardMetricsReporting(train_op, workers, config)
