"""Sampling ops: ``ParallelRollouts``, ``AsyncGradients``, ``ConcatBatches``, ``SelectExperiences``, ``StandardizeFields``.

Where experience enters a plan, and how batches are shaped before learning.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from rlviz.checks import check_int
from rlviz.iter import LocalIterator, ParallelIterator, from_actors
from rlviz.ops.errors import OpInputError
from rlviz.ops.names import (AGENT_STEPS_SAMPLED_COUNTER, GRAD_WAIT_TIMER, LEARNER_INFO,
                             STEPS_SAMPLED_COUNTER)
from rlviz.rollout.rollout_worker import get_global_worker
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch, concat_samples

__all__ = ["ParallelRollouts", "AsyncGradients", "ConcatBatches", "SelectExperiences",
           "StandardizeFields", "ROLLOUT_MODES"]

#: The modes ``ParallelRollouts`` accepts.
ROLLOUT_MODES = ("bulk_sync", "async", "raw")


def ParallelRollouts(workers: Any, *, mode: str = "bulk_sync", num_async: int = 1) -> LocalIterator | ParallelIterator:
    """Experience from a ``WorkerSet``'s remote workers (or its local worker if there are none).

    Syncs the local worker's weights to the remote workers first.

    Parameters
    ----------
    workers : WorkerSet
        The workers to sample with.
    mode : {"bulk_sync", "async", "raw"}
        ``"bulk_sync"``: one ``sample()`` from every remote worker per item
        (``batch_across_shards``), concatenated.  ``"async"``: batches as they
        arrive (``gather_async(num_async)``).  ``"raw"``: the
        ``ParallelIterator`` over the workers, for further remote transforms.
    num_async : int
        Async mode: ``sample()`` calls in flight per worker.

    Returns
    -------
    LocalIterator or ParallelIterator
        Local streams end in a node named ``"ParallelRollouts"`` that counts
        ``num_steps_sampled`` and ``num_agent_steps_sampled``.

    Raises
    ------
    ValueError
        Unknown mode, ``num_async < 1``, or ``"raw"`` without remote workers.
    """
    if mode not in ROLLOUT_MODES:
        raise ValueError(f"mode must be one of {list(ROLLOUT_MODES)}, got {mode!r}")
    check_int("num_async", num_async, minimum=1)
    workers.sync_weights()
    remote = workers.remote_workers()
    if not remote:
        if mode == "raw":
            raise ValueError("mode='raw' needs remote workers (num_workers >= 1): the local worker "
                             "is not a ParallelIterator shard")
        local = workers.local_worker()

        def sample_forever(timeout) -> Iterator:
            while True:
                yield local.sample()

        return LocalIterator(sample_forever).for_each(       # Ray's LocalIterator[unknown], as RLlib made it
            _count_sampled, name="ParallelRollouts")
    rollouts = from_actors(remote)
    if mode == "raw":
        return rollouts
    if mode == "bulk_sync":
        return rollouts.batch_across_shards().for_each(_concat_and_count, name="ParallelRollouts")
    return rollouts.gather_async(num_async=num_async).for_each(_count_sampled, name="ParallelRollouts")


def AsyncGradients(workers: Any) -> LocalIterator:
    """Each remote worker computes gradients on its own samples; ``(grads, count)`` as they arrive.

    The gradients are computed on the worker (a remote ``for_each`` on each
    shard), gathered with ``gather_async``, so the metrics' ``current_actor``
    is the worker that produced them (``ApplyGradients(update_all=False)``
    sends new weights back to just that one).

    Raises
    ------
    ValueError
        Without remote workers.
    """
    workers.sync_weights()
    remote = workers.remote_workers()
    if not remote:
        raise ValueError("AsyncGradients needs remote workers (num_workers >= 1)")
    grads = from_actors(remote).for_each(_samples_to_grads)
    return grads.gather_async().for_each(_RecordGradients(), name="AsyncGradients")


class ConcatBatches:
    """For ``combine``: collect batches until at least ``min_batch_size`` steps, then emit one.

    Parameters
    ----------
    min_batch_size : int
        Steps to collect before emitting.
    count_steps_by : {"env_steps", "agent_steps"}
        How steps are counted.

    Examples
    --------
    >>> concat = ConcatBatches(4)
    >>> concat(SampleBatch(t=[0, 1, 2])), concat(SampleBatch(t=[3, 4]))
    ([], [SampleBatch(5: ['t'])])
    """

    __rlviz_op__ = "ConcatBatches"

    def __init__(self, min_batch_size: int, count_steps_by: str = "env_steps") -> None:
        check_int("min_batch_size", min_batch_size, minimum=1)
        if count_steps_by not in ("env_steps", "agent_steps"):
            raise ValueError(f"count_steps_by must be 'env_steps' or 'agent_steps', got {count_steps_by!r}")
        self.min_batch_size = min_batch_size
        self.count_steps_by = count_steps_by
        self.buffer: list = []
        self.count = 0

    def __call__(self, batch: SampleBatch | MultiAgentBatch) -> list:
        self.buffer.append(batch)
        self.count += batch.env_steps() if self.count_steps_by == "env_steps" else batch.agent_steps()
        if self.count < self.min_batch_size:
            return []
        out = concat_samples(self.buffer)
        self.buffer, self.count = [], 0
        return [out]


class SelectExperiences:
    """For ``for_each``: keep only the listed policies' rows of a multi-agent batch.

    A single-agent ``SampleBatch`` passes if ``"default_policy"`` is listed, else
    becomes an empty ``MultiAgentBatch``.

    Examples
    --------
    >>> batch = MultiAgentBatch({"red": SampleBatch(t=[0]), "blue": SampleBatch(t=[0])}, 1)
    >>> SelectExperiences(["red"])(batch)
    MultiAgentBatch({'red': SampleBatch(1: ['t'])}, env_steps=1)
    """

    __rlviz_op__ = "SelectExperiences"

    def __init__(self, policy_ids: list[str]) -> None:
        if isinstance(policy_ids, str) or not isinstance(policy_ids, (list, tuple, set)):
            raise OpInputError(f"policy_ids must be a list of policy ids, got {policy_ids!r}")
        self.policy_ids = set(policy_ids)

    def __call__(self, batch: SampleBatch | MultiAgentBatch) -> SampleBatch | MultiAgentBatch:
        if isinstance(batch, SampleBatch):
            return batch if DEFAULT_POLICY_ID in self.policy_ids else MultiAgentBatch({}, batch.count)
        return MultiAgentBatch({pid: b for pid, b in batch.policy_batches.items() if pid in self.policy_ids},
                               batch.count)


class StandardizeFields:
    """For ``for_each``: rescale the given columns to mean 0, std 1 within each policy's batch.

    Examples
    --------
    >>> out = StandardizeFields(["advantages"])(SampleBatch(advantages=[1.0, 2.0, 3.0]))
    >>> [round(float(x), 3) for x in out["advantages"]]
    [-1.225, 0.0, 1.225]
    """

    __rlviz_op__ = "StandardizeFields"

    def __init__(self, fields: list[str]) -> None:
        if isinstance(fields, str) or not isinstance(fields, (list, tuple)):
            raise OpInputError(f"fields must be a list of column names, got {fields!r}")
        self.fields = list(fields)

    def __call__(self, batch: SampleBatch | MultiAgentBatch) -> SampleBatch | MultiAgentBatch:
        if isinstance(batch, SampleBatch):
            return self._standardize(batch)
        return MultiAgentBatch({pid: self._standardize(b) for pid, b in batch.policy_batches.items()},
                               batch.count)

    def _standardize(self, batch: SampleBatch) -> SampleBatch:
        out = batch.copy()
        for name in self.fields:
            values = np.asarray(out[name], dtype=np.float32)
            out[name] = (values - values.mean()) / max(float(values.std()), 1e-4)
        return out


# -- helpers ------------------------------------------------------------------
def _count_sampled(batch: SampleBatch | MultiAgentBatch) -> SampleBatch | MultiAgentBatch:
    metrics = LocalIterator.get_metrics()
    metrics.counters[STEPS_SAMPLED_COUNTER] += batch.env_steps()
    metrics.counters[AGENT_STEPS_SAMPLED_COUNTER] += batch.agent_steps()
    return batch


def _concat_and_count(batches: list) -> SampleBatch | MultiAgentBatch:
    return _count_sampled(concat_samples(batches))


def _samples_to_grads(batch: SampleBatch | MultiAgentBatch) -> tuple:
    """Runs on a RolloutWorker's actor: gradients of this worker's policy on its own batch."""
    grads, info = get_global_worker().compute_gradients(batch)
    return grads, info, batch.env_steps(), batch.agent_steps()


class _RecordGradients:
    """Count the steps behind each gradient and note how long the driver waited for it."""

    def __init__(self) -> None:
        self.last = None

    def __call__(self, item: tuple) -> tuple:
        grads, info, env_steps, agent_steps = item
        metrics = LocalIterator.get_metrics()
        metrics.counters[STEPS_SAMPLED_COUNTER] += env_steps
        metrics.counters[AGENT_STEPS_SAMPLED_COUNTER] += agent_steps
        metrics.info[LEARNER_INFO] = info
        now = time.perf_counter()
        timer = metrics.timers[GRAD_WAIT_TIMER]
        if self.last is not None:
            timer.total_s += now - self.last
            timer.count += 1
        self.last = now
        return grads, env_steps


