"""Execution ops: the building blocks of RLlib 1.x execution plans, as named dataflow nodes.

Each op is a ``LocalIterator`` or a callable for ``for_each``/``combine``/
``filter`` whose node is named after it in graphs and traces.  Imports
rlviz.trace, rlviz.iter and rlviz.rollout; never rlviz.plans, rlviz.viz or rlviz.widgets.
"""
from rlviz.ops.buffers import PrioritizedReplayBuffer, ReplayActor, ReplayBuffer
from rlviz.ops.concurrency import Concurrently, Dequeue, Enqueue
from rlviz.ops.errors import OpInputError
from rlviz.ops.metrics import CollectMetrics, OncePerTimeInterval, OncePerTimestepsElapsed, StandardMetricsReporting
from rlviz.ops.names import *  # noqa: F401,F403 - the counter and timer names
from rlviz.ops.names import __all__ as _names
from rlviz.ops.replay import MixInReplay, Replay, SimpleReplayBuffer, StoreToReplayBuffer, WaitUntilTimestepsElapsed
from rlviz.ops.rollouts import AsyncGradients, ConcatBatches, ParallelRollouts, SelectExperiences, StandardizeFields
from rlviz.ops.train import (ApplyGradients, AverageGradients, ComputeGradients, TrainOneStep,
                             UpdateTargetNetwork)
from rlviz.ops.weights import calculate_rr_weights, calculate_rr_weights_float, native_ratio

__all__ = ["Concurrently", "Enqueue", "Dequeue", "ParallelRollouts", "AsyncGradients", "ConcatBatches",
           "SelectExperiences", "StandardizeFields", "StoreToReplayBuffer", "Replay",
           "WaitUntilTimestepsElapsed", "SimpleReplayBuffer", "MixInReplay", "ReplayBuffer",
           "PrioritizedReplayBuffer", "ReplayActor", "TrainOneStep", "ComputeGradients", "ApplyGradients",
           "AverageGradients", "UpdateTargetNetwork", "StandardMetricsReporting", "CollectMetrics",
           "OncePerTimeInterval", "OncePerTimestepsElapsed", "calculate_rr_weights",
           "calculate_rr_weights_float", "native_ratio", "OpInputError", *_names]
