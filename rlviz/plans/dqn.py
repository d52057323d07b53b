"""DQN: a store op and a replay op run concurrently, with round-robin weights from ``training_intensity``.

store_op = ParallelRollouts(bulk_sync) -> StoreToReplayBuffer; replay_op =
Replay -> TrainOneStep -> UpdateTargetNetwork; Concurrently([store_op,
replay_op], round_robin, output_indexes=[1]) -> StandardMetricsReporting.
"""
from __future__ import annotations

from typing import Any

from rlviz.iter import LocalIterator
from rlviz.ops import (DQN_SAMPLING, Concurrently, ParallelRollouts, Replay, ReplayBuffer,
                       StandardMetricsReporting, StoreToReplayBuffer, TrainOneStep, UpdateTargetNetwork,
                       calculate_rr_weights)
from rlviz.rollout.dqn_policy import DQNPolicy

__all__ = ["POLICY", "DEFAULT_CONFIG", "execution_plan"]

POLICY = DQNPolicy

DEFAULT_CONFIG: dict[str, Any] = {
    # 4 and 64: native ratio 64 / (4 * 2 workers) = 8 trained per sampled step
    "rollout_fragment_length": DQN_SAMPLING["rollout_fragment_length"],
    "train_batch_size": DQN_SAMPLING["train_batch_size"],
    "training_intensity": None,          # None: weights [1, 1] (native ratio); a number: see calculate_rr_weights
    "buffer_size": 50_000,
    "learning_starts": 1000,
    "target_network_update_freq": 200,   # sampled steps (= 1600 trained rows at the native ratio 8)
    "timesteps_per_iteration": 1000,
    "lr": 1e-3,                          # 5e-4 with batch 32 was still at ~40 after 20k steps
    "hidden_sizes": (64, 64),
    "epsilon_timesteps": 5_000,
    "final_epsilon": 0.02,
    "double_q": True,
    "n_step": 3,                         # RLlib's tuned CartPole DQN; 1-step reached 135 at best in 50k steps
    # n_step 3 alone crossed 150 at 21k / never / 24k steps (seeds 0 / 1 / 2); with target updates every
    # 200 instead of 500 and epsilon over 5k instead of 10k: 23k / 25k / 28k (docs/plans.md)
}


def execution_plan(workers: Any, config: dict) -> LocalIterator:
    """The DQN dataflow: one ``next()`` is one training iteration's metrics."""
    # ------------------------------------------------------------------ ALGO LOGIC
    buffer = ReplayBuffer(capacity=config["buffer_size"], learning_starts=config["learning_starts"],
                          replay_batch_size=config["train_batch_size"], seed=config.get("seed"))

    # 1. sample from every worker, put the batch into the buffer
    store_op = (ParallelRollouts(workers, mode="bulk_sync")
                .for_each(StoreToReplayBuffer(local_buffer=buffer)))

    # 2. take a batch out of the buffer, learn on it, sometimes update the target network
    replay_op = (Replay(local_buffer=buffer)
                 .for_each(TrainOneStep(workers))
                 .for_each(UpdateTargetNetwork(workers, config["target_network_update_freq"])))

    # 3. alternate them: store_op w0 times, then replay_op w1 times; pass on only replay_op's results
    train_op = Concurrently([store_op, replay_op], mode="round_robin", output_indexes=[1],
                            round_robin_weights=calculate_rr_weights(config))
    return StandardMetricsReporting(train_op, workers, config)
