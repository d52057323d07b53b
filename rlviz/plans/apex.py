"""Ape-X: async sampling into replay actors, a learner thread fed through queues, three ops run concurrently.

store_op: ParallelRollouts(async) -> StoreToReplayBuffer(actors) -> send that
worker new weights; replay_op: Replay(actors) -> Enqueue(learner in-queue);
update_op: Dequeue(learner out-queue) -> priorities -> UpdateTargetNetwork.
Concurrently(output_indexes=[2]): async, or round robin with weights + ["*"]
when ``training_intensity`` is set (docs/plans.md, "Ape-X").
"""
from __future__ import annotations

import queue
import threading
from typing import Any

import numpy as np

from rlviz.iter import LocalIterator, release_actor, track_actor
from rlviz.ops import (Concurrently, Dequeue, Enqueue, ParallelRollouts, Replay, ReplayActor,
                       StandardMetricsReporting, StoreToReplayBuffer, UpdateTargetNetwork, calculate_rr_weights)
from rlviz.ops.names import LEARNER_INFO, STEPS_SAMPLED_COUNTER, STEPS_TRAINED_COUNTER, \
    STEPS_TRAINED_THIS_ITER_COUNTER
from rlviz.rollout.dqn_policy import DQNPolicy
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, SampleBatch
from rlviz.rollout.weight_sync import weight_sync
from rlviz.rollout.threads import torch_threads

__all__ = ["POLICY", "DEFAULT_CONFIG", "execution_plan", "LearnerThread", "stop"]

POLICY = DQNPolicy

DEFAULT_CONFIG: dict[str, Any] = {
    "rollout_fragment_length": 50,
    "train_batch_size": 64,
    "training_intensity": None,          # None: async Concurrently; a number: round robin [w0, w1, "*"]
    "num_replay_shards": 2,
    "buffer_size": 50_000,
    "prioritized_replay_alpha": 0.6,     # RLlib's DQN defaults, passed to each ReplayActor
    "prioritized_replay_beta": 0.4,
    "prioritized_replay_eps": 1e-6,
    "learning_starts": 1000,
    "target_network_update_freq": 2000,
    "max_weight_sync_delay": 200,
    "learner_queue_size": 4,
    "timesteps_per_iteration": 1000,
    "lr": 5e-4,
    "hidden_sizes": (64, 64),
    "epsilon_timesteps": 10_000,
    "final_epsilon": 0.02,
    "double_q": True,
    "n_step": 3,                         # RLlib's Ape-X default
}

_RUNNING: dict[int, tuple] = {}


def execution_plan(workers: Any, config: dict) -> LocalIterator:
    """The Ape-X dataflow: one ``next()`` is one training iteration's metrics (needs remote workers)."""
    import ray

    # ------------------------------------------------------------------ ALGO LOGIC
    replay_actors = [ReplayActor.remote(num_shards=config["num_replay_shards"],
                                        learning_starts=config["learning_starts"],
                                        buffer_size=config["buffer_size"],
                                        replay_batch_size=config["train_batch_size"],
                                        prioritized_replay_alpha=config["prioritized_replay_alpha"],
                                        prioritized_replay_beta=config["prioritized_replay_beta"],
                                        prioritized_replay_eps=config["prioritized_replay_eps"])
                     for _ in range(config["num_replay_shards"])]
    for i, actor in enumerate(replay_actors):
        track_actor(actor, f"ReplayActor-{i}", control_group=True)
    learner = LearnerThread(workers.local_worker(), config["learner_queue_size"], config["num_cpus_for_driver"])
    learner.start()
    _RUNNING[id(workers)] = (learner, replay_actors)

    # 1. sample asynchronously, store into a replay actor, refresh that worker's weights now and then
    store_op = (ParallelRollouts(workers, mode="async", num_async=2)
                .for_each(StoreToReplayBuffer(actors=replay_actors))
                .zip_with_source_actor()
                .for_each(UpdateWorkerWeights(learner, config["max_weight_sync_delay"])))

    # 2. replayed batches (with the actor they came from) go into the learner thread's queue
    replay_op = (Replay(actors=replay_actors, num_async=4)
                 .zip_with_source_actor()
                 .for_each(Enqueue(learner.inqueue)))

    # 3. what the learner finished: new priorities back to the replay actor, count, target update
    update_op = (Dequeue(learner.outqueue, check=learner.is_alive)
                 .for_each(UpdatePriorities())
                 .for_each(UpdateTargetNetwork(workers, config["target_network_update_freq"],
                                               by_steps_trained=True, lock=learner.lock)))

    if config.get("training_intensity"):
        train_op = Concurrently([store_op, replay_op, update_op], mode="round_robin", output_indexes=[2],
                                round_robin_weights=calculate_rr_weights(config) + ["*"])
    else:
        train_op = Concurrently([store_op, replay_op, update_op], mode="async", output_indexes=[2])
    return StandardMetricsReporting(train_op, workers, config)


def stop(workers: Any) -> None:
    """Stop the learner thread and replay actors the plan started for ``workers``."""
    import ray

    learner, actors = _RUNNING.pop(id(workers), (None, []))
    if learner is not None:
        learner.stopped = True
        learner.join(timeout=5)
    for actor in actors:
        release_actor(actor)        # else a later record() block finds it dead and records it as lost
        ray.kill(actor, no_restart=True)


class LearnerThread(threading.Thread):
    """Learns on the local worker from ``inqueue`` items ``(replay actor, batch)``.

    Puts ``(actor, {policy_id: (batch_indexes, td_errors)}, count, info)`` into ``outqueue``.
    ``lock`` is held while the weights change.
    """

    def __init__(self, local_worker: Any, queue_size: int, threads: int | None = 1) -> None:
        super().__init__(daemon=True, name="rlviz-apex-learner")
        self.local_worker = local_worker
        self.threads = threads                   # torch threads it learns with (rlviz.rollout.threads)
        self.inqueue: queue.Queue = queue.Queue(maxsize=queue_size)
        self.outqueue: queue.Queue = queue.Queue()
        self.lock = threading.Lock()
        self.stopped = False
        self.error: BaseException | None = None

    def run(self) -> None:
        with torch_threads(self.threads):
            self._learn_until_stopped()

    def _learn_until_stopped(self) -> None:
        try:
            while not self.stopped:
                try:
                    actor, batch = self.inqueue.get(timeout=0.1)
                except queue.Empty:
                    continue
                rows = batch.policy_batches[DEFAULT_POLICY_ID]                  # a ReplayActor's MultiAgentBatch
                rows = SampleBatch({k: np.array(v) for k, v in rows.items()})   # writable copies
                with self.lock:
                    info = self.local_worker.learn_on_batch(rows)
                    td = self.local_worker.get_policy().compute_td_error(rows)
                self.outqueue.put((actor, {DEFAULT_POLICY_ID: (rows["batch_indexes"], td)}, rows.count, info))
        except BaseException as err:  # noqa: BLE001 - reported by is_alive() -> Dequeue raises
            self.error = err
            raise


class UpdateWorkerWeights:
    """For ``for_each`` after ``zip_with_source_actor``: send the learner's weights to a worker every ``max_delay`` of its steps."""

    __rlviz_op__ = "UpdateWorkerWeights"

    def __init__(self, learner: LearnerThread, max_delay: int) -> None:
        self.learner = learner
        self.max_delay = max_delay
        self.steps_since: dict = {}

    def __call__(self, item: tuple) -> Any:
        actor, batch = item
        self.steps_since[actor] = self.steps_since.get(actor, 0) + batch.count
        if self.steps_since[actor] >= self.max_delay:
            metrics = LocalIterator.get_metrics()
            with weight_sync(self.learner.local_worker, lock=self.learner.lock) as weights:
                actor.set_weights.remote(weights, {"timestep": metrics.counters[STEPS_SAMPLED_COUNTER]})
            self.steps_since[actor] = 0
        return batch


class UpdatePriorities:
    """For ``for_each`` on the learner's results: priorities back to the replay actor, trained steps counted."""

    __rlviz_op__ = "UpdatePriorities"

    def __call__(self, item: tuple) -> tuple:
        actor, prio_dict, count, info = item
        actor.update_priorities.remote(prio_dict)
        metrics = LocalIterator.get_metrics()
        metrics.counters[STEPS_TRAINED_COUNTER] += count
        metrics.counters[STEPS_TRAINED_THIS_ITER_COUNTER] += count
        metrics.info[LEARNER_INFO] = info
        return item
