"""Execution ops: the building blocks of RLlib 1.x execution plans, as named dataflow nodes.

Each op is a ``LocalIterator`` or a ``for_each``/``combine``/``filter`` callable whose node is named after
it; each name loads its module on first use, so Ray-free modules (``rlviz.ops.weights``) import without Ray.
"""
from __future__ import annotations

import importlib

from rlviz.ops.names import *  # noqa: F401,F403 - the counter and timer names
from rlviz.ops.names import __all__ as _names

_HOMES = {
    "buffers": ("PrioritizedReplayBuffer", "ReplayBuffer"),
    "concurrency": ("Concurrently", "Dequeue", "Enqueue"),
    "errors": ("OpInputError",),
    "metrics": ("CollectMetrics", "OncePerTimeInterval", "OncePerTimestepsElapsed", "StandardMetricsReporting"),
    "replay_buffer": ("LocalReplayBuffer", "ReplayActor"),
    "replay": ("MixInReplay", "Replay", "SimpleReplayBuffer", "StoreToReplayBuffer", "WaitUntilTimestepsElapsed"),
    "rollouts": ("AsyncGradients", "ConcatBatches", "ParallelRollouts", "SelectExperiences", "StandardizeFields"),
    "train": ("ApplyGradients", "AverageGradients", "ComputeGradients", "TrainOneStep", "UpdateTargetNetwork"),
    "weights": ("calculate_rr_weights", "calculate_rr_weights_float", "native_ratio", "DQN_SAMPLING"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [*_MODULE_OF, *_names]


def __getattr__(name: str):
    if name in _HOMES:
        return importlib.import_module(f"rlviz.ops.{name}")
    if name in _MODULE_OF:
        return getattr(importlib.import_module(f"rlviz.ops.{_MODULE_OF[name]}"), name)
    raise AttributeError(f"module 'rlviz.ops' has no attribute {name!r}")
