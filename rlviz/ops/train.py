"""Learning ops: ``TrainOneStep``, ``ComputeGradients``, ``AverageGradients``, ``ApplyGradients``, ``UpdateTargetNetwork``.

Each is a callable for ``for_each`` that updates the local worker's policies,
counts trained steps and broadcasts weights.
"""
from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from rlviz.checks import check_int
from rlviz.iter import LocalIterator
from rlviz.ops.names import (AGENT_STEPS_TRAINED_COUNTER, APPLY_GRADS_TIMER, COMPUTE_GRADS_TIMER,
                             LAST_TARGET_UPDATE_TS, LEARN_ON_BATCH_TIMER, LEARNER_INFO, NUM_TARGET_UPDATES,
                             STEPS_SAMPLED_COUNTER, STEPS_TRAINED_COUNTER, STEPS_TRAINED_THIS_ITER_COUNTER,
                             WORKER_UPDATE_TIMER)
from rlviz.rollout.sample_batch import SampleBatch
from rlviz.rollout.weight_sync import weight_sync

__all__ = ["TrainOneStep", "ComputeGradients", "AverageGradients", "ApplyGradients", "UpdateTargetNetwork",
           "sync_all_weights", "broadcast_weights"]


class TrainOneStep:
    """For ``for_each``: learn on the batch with the local worker, count it, broadcast the new weights.

    Parameters
    ----------
    workers : WorkerSet
        Its local worker learns; its remote workers get the weights (and the
        global ``timestep`` = ``num_steps_sampled``, which DQN's epsilon reads)
        with ``broadcast_weights``: one ``ray.put``, fire and forget, as RLlib 1.x.
    num_sgd_iter : int
        Passes over the batch.
    sgd_minibatch_size : int
        Rows per minibatch (0: the whole batch at once).

    Returns
    -------
    callable
        ``batch -> (batch, learner_info)``.
    """

    __rlviz_op__ = "TrainOneStep"

    def __init__(self, workers: Any, num_sgd_iter: int = 1, sgd_minibatch_size: int = 0) -> None:
        check_int("num_sgd_iter", num_sgd_iter, minimum=1)
        check_int("sgd_minibatch_size", sgd_minibatch_size, minimum=0)
        self.workers = workers
        self.num_sgd_iter = num_sgd_iter
        self.sgd_minibatch_size = sgd_minibatch_size

    def __call__(self, batch: Any) -> tuple[Any, dict]:
        metrics = LocalIterator.get_metrics()
        local = self.workers.local_worker()
        with metrics.timers[LEARN_ON_BATCH_TIMER] as timer:
            if self.num_sgd_iter == 1 and not self.sgd_minibatch_size:
                info = local.learn_on_batch(batch)
            else:
                info = self._minibatch_sgd(local, batch)
            timer.push_units_processed(batch.count)
        metrics.counters[STEPS_TRAINED_COUNTER] += batch.env_steps()
        metrics.counters[STEPS_TRAINED_THIS_ITER_COUNTER] += batch.env_steps()
        metrics.counters[AGENT_STEPS_TRAINED_COUNTER] += batch.agent_steps()
        metrics.info[LEARNER_INFO] = info
        broadcast_weights(self.workers, metrics)
        return batch, info

    def _minibatch_sgd(self, local: Any, batch: Any) -> dict:
        info: dict = {}
        rng = np.random.default_rng()
        for _ in range(self.num_sgd_iter):
            if not isinstance(batch, SampleBatch) or not self.sgd_minibatch_size:
                info = local.learn_on_batch(batch)
                continue
            shuffled = batch.copy(shallow=True).shuffle(rng)   # in place, on a copy: the batch passes on
            for start in range(0, shuffled.count, self.sgd_minibatch_size):
                info = local.learn_on_batch(shuffled.slice(start, min(start + self.sgd_minibatch_size,
                                                                      shuffled.count)))
        return info


class ComputeGradients:
    """For ``for_each``: the local worker's gradients on the batch, without applying them.

    Returns ``(grads, env_steps)``; the learner statistics go to the metrics' info.
    """

    __rlviz_op__ = "ComputeGradients"

    def __init__(self, workers: Any) -> None:
        self.workers = workers

    def __call__(self, batch: Any) -> tuple[Any, int]:
        metrics = LocalIterator.get_metrics()
        with metrics.timers[COMPUTE_GRADS_TIMER]:
            grads, info = self.workers.local_worker().compute_gradients(batch)
        metrics.info[LEARNER_INFO] = info
        return grads, batch.env_steps()


class AverageGradients:
    """For ``for_each`` after ``batch(k)``: the element-wise mean of k ``(grads, count)`` items.

    Returns ``(mean grads, summed count)``.  RLlib 1.x's ``AverageGradients``
    *summed* the gradients without dividing (despite its name), which scales
    the step size by k; rlviz averages, so the learning rate means the same
    with or without microbatching.

    Examples
    --------
    >>> AverageGradients()([([np.array([1.0])], 2), ([np.array([3.0])], 2)])
    ([array([2.])], 4)
    """

    __rlviz_op__ = "AverageGradients"

    def __call__(self, items: list[tuple[Any, int]]) -> tuple[Any, int]:
        if not items:
            raise ValueError("AverageGradients got an empty list; put it after .batch(k) with k >= 1")
        grads = [g for g, _ in items]
        count = sum(c for _, c in items)
        if isinstance(grads[0], dict):
            return {pid: _mean([g[pid] for g in grads]) for pid in grads[0]}, count
        return _mean(grads), count


class ApplyGradients:
    """For ``for_each``: apply ``(grads, count)`` on the local worker, then send its weights out.

    Parameters
    ----------
    workers : WorkerSet
        Its local worker applies the gradients.
    update_all : bool
        True: send every remote worker the weights (``broadcast_weights``,
        without waiting, as RLlib 1.x).  False: send the weights only
        to the worker that produced the gradients (the metrics'
        ``current_actor``, set by ``gather_async``), without waiting: A3C.

    Raises
    ------
    ValueError
        (When called) with ``update_all=False`` but no ``current_actor`` known.
    """

    __rlviz_op__ = "ApplyGradients"

    def __init__(self, workers: Any, update_all: bool = True) -> None:
        self.workers = workers
        self.update_all = bool(update_all)

    def __call__(self, item: tuple[Any, int]) -> tuple[Any, int]:
        grads, count = item
        metrics = LocalIterator.get_metrics()
        local = self.workers.local_worker()
        with metrics.timers[APPLY_GRADS_TIMER]:
            local.apply_gradients(_writable(grads))
        metrics.counters[STEPS_TRAINED_COUNTER] += count
        metrics.counters[STEPS_TRAINED_THIS_ITER_COUNTER] += count
        if self.update_all:
            broadcast_weights(self.workers, metrics)
            return item
        actor = metrics.current_actor
        if actor is None:
            raise ValueError("ApplyGradients(update_all=False) needs the worker that sent the gradients "
                             "(metrics.current_actor); gather them with gather_async (AsyncGradients)")
        global_vars = {"timestep": metrics.counters[STEPS_SAMPLED_COUNTER]}
        local.set_global_vars(global_vars)
        with metrics.timers[WORKER_UPDATE_TIMER], weight_sync(local) as weights:
            actor.set_weights.remote(weights, global_vars)
        return item


class UpdateTargetNetwork:
    """For ``for_each``: copy online into target networks once the step counter advanced by ``target_update_freq``.

    Parameters
    ----------
    workers : WorkerSet
        The local worker's trainable policies (with ``update_target()``) are updated.
    target_update_freq : int
        Steps between updates.
    by_steps_trained : bool
        Count ``num_steps_trained`` instead of ``num_steps_sampled``.
    lock : threading.Lock, optional
        Held while copying, when another thread changes the online weights
        (Ape-X's learner thread); without it a copy could mix two updates.
    """

    __rlviz_op__ = "UpdateTargetNetwork"

    def __init__(self, workers: Any, target_update_freq: int, by_steps_trained: bool = False,
                 lock: Any = None) -> None:
        check_int("target_update_freq", target_update_freq, minimum=1)
        self.workers = workers
        self.target_update_freq = target_update_freq
        self.counter = STEPS_TRAINED_COUNTER if by_steps_trained else STEPS_SAMPLED_COUNTER
        self.lock = lock if lock is not None else contextlib.nullcontext()

    def __call__(self, item: Any) -> Any:
        metrics = LocalIterator.get_metrics()
        now = metrics.counters[self.counter]
        if now - metrics.counters[LAST_TARGET_UPDATE_TS] >= self.target_update_freq:
            with self.lock:
                self.workers.local_worker().foreach_policy_to_train(lambda policy, pid: policy.update_target())
            metrics.counters[NUM_TARGET_UPDATES] += 1
            metrics.counters[LAST_TARGET_UPDATE_TS] = now
        return item


def broadcast_weights(workers: Any, metrics: Any) -> None:
    """Send the local weights and ``timestep = num_steps_sampled`` to every remote worker, without waiting (timed).

    One ``ray.put`` of the weights, then ``set_weights.remote`` per worker, as
    RLlib 1.x's ``TrainOneStep`` did.  Nothing is lost by not waiting: a Ray
    actor runs the calls of one caller in submission order, so each worker
    loads the weights before it runs the next ``sample()`` the driver asks
    for.  A worker that died is noticed at that next call.  Waiting
    (``sync_all_weights``) cost ~10 ms per train step on 2 cores, a large
    share of a DQN step that learns on 64 rows.  Recorded as one driver call ``sync_weights``
    (``rlviz.rollout.weight_sync``) that each worker's ``set_weights`` links to.
    """
    global_vars = {"timestep": metrics.counters[STEPS_SAMPLED_COUNTER]}
    local = workers.local_worker()
    remote = workers.remote_workers()
    if not remote:
        local.set_global_vars(global_vars)
        return
    with metrics.timers[WORKER_UPDATE_TIMER]:
        local.set_global_vars(global_vars)
        with weight_sync(local) as weights:
            for handle in remote:
                handle.set_weights.remote(weights, global_vars)


def sync_all_weights(workers: Any, metrics: Any) -> None:
    """Send the local weights and ``timestep = num_steps_sampled`` to every remote worker and wait (timed)."""
    global_vars = {"timestep": metrics.counters[STEPS_SAMPLED_COUNTER]}
    if workers.remote_workers():
        with metrics.timers[WORKER_UPDATE_TIMER]:
            workers.sync_weights(global_vars=global_vars)
    else:
        workers.local_worker().set_global_vars(global_vars)


def _writable(grads: Any) -> Any:
    """Copies of gradients that arrived as read-only (zero-copy) arrays from another actor."""
    if isinstance(grads, dict):
        return {pid: _writable(g) for pid, g in grads.items()}
    return [np.array(g) for g in grads]


def _mean(grads: list[list[np.ndarray]]) -> list[np.ndarray]:
    return [np.mean(np.stack(parts), axis=0) for parts in zip(*grads)]


