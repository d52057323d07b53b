"""Rollouts: environments and policies sampling experience, locally or on Ray actors.

``RolloutWorker`` samples ``SampleBatch``es; ``WorkerSet`` runs one local and N
remote workers; torch loads only when a torch policy is used.  ``rlviz.rollout.offline``
holds what a worker samples from besides its envs (JSON files, mixes) and writes to.
"""
from __future__ import annotations

import importlib

__all__ = ["SampleBatch", "MultiAgentBatch", "concat_samples", "DEFAULT_POLICY_ID",
           "Policy", "RandomPolicy", "PGPolicy", "PGConfig", "A2CPolicy", "A2CConfig",
           "DQNPolicy", "DQNConfig", "MultiAgentEnv", "MultiAgentArena", "make_env_creator",
           "RolloutConfig", "RolloutWorker", "get_global_worker", "EpisodeMetrics", "WorkerSet",
           "WorkerCrashedError", "InputReader", "SamplerInput", "SyncSampler", "IOContext", "JsonReader",
           "JsonWriter", "MixedInput", "D4RLReader", "PolicyMap", "timeslice_along_seq_lens_with_overlap",
           "EnvContext", "MeanStdFilter", "NoFilter", "LEARNER_STATS_KEY"]

_WHERE = {
    "SampleBatch": "sample_batch", "MultiAgentBatch": "sample_batch", "concat_samples": "sample_batch",
    "DEFAULT_POLICY_ID": "sample_batch", "Policy": "policy", "RandomPolicy": "random_policy",
    "PGPolicy": "pg_policy", "PGConfig": "pg_policy", "A2CPolicy": "pg_policy", "A2CConfig": "pg_policy",
    "DQNPolicy": "dqn_policy", "DQNConfig": "dqn_policy", "MultiAgentEnv": "multi_agent",
    "make_env_creator": "env", "MultiAgentArena": "arena", "RolloutConfig": "config",
    "RolloutWorker": "rollout_worker", "get_global_worker": "rollout_worker", "EpisodeMetrics": "sampler", "WorkerSet": "worker_set",
    "WorkerCrashedError": "worker_set", "InputReader": "offline", "SamplerInput": "offline",
    "SyncSampler": "offline", "IOContext": "offline", "JsonReader": "offline", "JsonWriter": "offline",
    "MixedInput": "offline", "D4RLReader": "offline", "PolicyMap": "policy_map",
    "timeslice_along_seq_lens_with_overlap": "rnn_sequencing",
    "EnvContext": "env_context", "MeanStdFilter": "filters",
    "NoFilter": "filters", "LEARNER_STATS_KEY": "rollout_worker",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'rlviz.rollout' has no attribute {name!r}")
    return getattr(importlib.import_module(f"rlviz.rollout.{module}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
