"""The RLlib 2.x bridge: record a real RLlib algorithm (new API stack) into the same traces.

``instrument(config)`` returns a copy of an ``AlgorithmConfig`` whose
EnvRunners, Learner and ``training_step()`` record inside ``rlviz.record()``.
Needs RLlib: ``pip install 'rlviz[rllib]'``.
"""
from __future__ import annotations

try:
    import ray.rllib.algorithms.algorithm_config  # noqa: F401 - fails early when RLlib's dependencies are missing
except ImportError as err:
    raise ImportError(f"rlviz.rllib needs RLlib, which is not installed ({err}); install it with "
                      f"pip install 'rlviz[rllib]' (ray[rllib] at the version of your ray)") from err

from rlviz.iter.reporter import HubCollector
from rlviz.rllib.instrument import SUPPORTED_ALGORITHMS, TESTED_RAY_VERSIONS, instrument
from rlviz.trace.session import add_collector

__all__ = ["instrument", "TESTED_RAY_VERSIONS", "SUPPORTED_ALGORITHMS"]

add_collector(HubCollector())
