"""``instrument(config)``: a copy of an RLlib 2.x ``AlgorithmConfig`` whose algorithm records into rlviz."""
from __future__ import annotations

import importlib

import ray
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

from rlviz.rllib.driver import recorded_algorithm_class
from rlviz.rllib.learner import recorded_learner_class
from rlviz.rllib.runners import RecordedMultiAgentEnvRunner, RecordedSingleAgentEnvRunner, recorded_runner_class

__all__ = ["instrument", "TESTED_RAY_VERSIONS", "SUPPORTED_ALGORITHMS", "check_ray_version"]

#: The Ray/RLlib releases (major.minor) the bridge was tested on.
TESTED_RAY_VERSIONS = ("2.60",)
#: The RLlib algorithms the bridge records (and subclasses of them), by class name -> module.
SUPPORTED_ALGORITHMS = {"PPO": "ray.rllib.algorithms.ppo", "APPO": "ray.rllib.algorithms.appo",
                        "IMPALA": "ray.rllib.algorithms.impala", "DQN": "ray.rllib.algorithms.dqn",
                        "SAC": "ray.rllib.algorithms.sac"}


def check_ray_version(version: str | None = None) -> None:
    """Fail unless ``version`` (default: the installed Ray's) is one the bridge was tested on.

    Raises
    ------
    RuntimeError
        Naming the installed version, the tested ones and how to install one.
    """
    version = ray.__version__ if version is None else version
    if ".".join(version.split(".")[:2]) not in TESTED_RAY_VERSIONS:
        tested = ", ".join(f"{v}.x" for v in TESTED_RAY_VERSIONS)
        raise RuntimeError(f"rlviz.rllib was tested with Ray/RLlib {tested}, but Ray {version} is installed; "
                           f"RLlib's internals change between releases, so install a tested one: "
                           f"pip install 'rlviz[rllib]' (which pins ray[rllib]=={TESTED_RAY_VERSIONS[-1]}.0)")


def instrument(config: AlgorithmConfig) -> AlgorithmConfig:
    """A copy of ``config`` whose algorithm records into rlviz inside ``rlviz.record()``.

    The copy's EnvRunners record ``sample``, ``get_state``, ``set_state`` and
    ``get_metrics`` on lanes ``EnvRunner-1``, ``EnvRunner-2``, ...; its
    Learner records each ``update`` (lane ``Learner``); its Algorithm records
    ``training_step()`` and the calls it makes into the EnvRunnerGroup and the
    LearnerGroup on the driver's lane.  Episodes carry the id of the last
    recorded call that handled them, so a batch is followed from a runner's
    ``sample`` to the ``update`` that trained on it.  ``config`` is unchanged.

    Parameters
    ----------
    config : ray.rllib.algorithms.algorithm_config.AlgorithmConfig
        A config on RLlib's new API stack (``PPOConfig()``, ``DQNConfig()``, ...).

    Returns
    -------
    AlgorithmConfig
        The instrumented copy; build it as usual (``.build_algo()``).

    Raises
    ------
    TypeError
        If ``config`` is not an ``AlgorithmConfig``.
    ValueError
        If ``config`` builds no algorithm of ``SUPPORTED_ALGORITHMS`` (a base
        ``AlgorithmConfig``, BC, ...), is on the old API stack, or uses
        aggregator actors (``num_aggregator_actors_per_learner > 0``).
    RuntimeError
        If the installed Ray is not a version the bridge was tested on.

    Examples
    --------
    >>> from ray.rllib.algorithms.ppo import PPOConfig
    >>> import rlviz.rllib
    >>> config = rlviz.rllib.instrument(PPOConfig().environment("CartPole-v1").env_runners(num_env_runners=2))
    >>> config.env_runner_cls.__name__, config.algo_class.__name__
    ('RecordedSingleAgentEnvRunner', 'RecordedPPO')
    """
    check_ray_version()
    if not isinstance(config, AlgorithmConfig):
        raise TypeError(f"config must be an RLlib AlgorithmConfig (PPOConfig(), DQNConfig(), ...), got "
                        f"{type(config).__name__} {config!r:.80}; build one with e.g. "
                        f"PPOConfig().environment('CartPole-v1')")
    algo_class = _supported_algo_class(config)
    if not (config.enable_rl_module_and_learner and config.enable_env_runner_and_connector_v2):
        raise ValueError(f"config must be on RLlib's new API stack, but {type(config).__name__} has "
                         f"enable_rl_module_and_learner={config.enable_rl_module_and_learner}, "
                         f"enable_env_runner_and_connector_v2={config.enable_env_runner_and_connector_v2}; "
                         f"turn it on with config.api_stack(enable_rl_module_and_learner=True, "
                         f"enable_env_runner_and_connector_v2=True)")
    _check_supported_combination(config)
    copy = config.copy(copy_frozen=False)
    copy.env_runners(env_runner_cls=_runner_class(config))
    copy.learners(learner_class=recorded_learner_class(config.learner_class))
    copy.algo_class = recorded_algorithm_class(algo_class)
    return copy


def _check_supported_combination(config: AlgorithmConfig) -> None:
    """Refuse a combination whose data path rlviz cannot follow, naming what it records."""
    if getattr(config, "num_aggregator_actors_per_learner", 0):
        raise ValueError(f"rlviz.rllib does not record aggregator actors: with num_aggregator_actors_per_learner="
                         f"{config.num_aggregator_actors_per_learner} the episodes reach the Learner through "
                         f"actors rlviz cannot instrument, so no sample would link to its update; it records "
                         f"{', '.join(SUPPORTED_ALGORITHMS)} with their EnvRunners (0 or more) feeding a local "
                         f"or remote Learner directly (see docs/rllib2.md); set "
                         f"config.learners(num_aggregator_actors_per_learner=0)")


def _runner_class(config: AlgorithmConfig) -> type:
    base = config.env_runner_cls
    if base is None:
        return RecordedMultiAgentEnvRunner if config.is_multi_agent else RecordedSingleAgentEnvRunner
    if isinstance(base, type) and issubclass(base, (SingleAgentEnvRunner, MultiAgentEnvRunner)):
        return recorded_runner_class(base)
    raise TypeError(f"env_runner_cls must be a subclass of SingleAgentEnvRunner or MultiAgentEnvRunner to be "
                    f"recorded, got {base!r}; derive your runner from one of them, or leave env_runner_cls unset")


def _supported_algo_class(config: AlgorithmConfig) -> type:
    """The config's Algorithm class, if it is one of ``SUPPORTED_ALGORITHMS`` or a subclass of one."""
    algo = config.algo_class
    if isinstance(algo, str):
        from ray.tune.registry import get_trainable_cls

        algo = get_trainable_cls(algo)
    supported = tuple(getattr(importlib.import_module(module), name) for name, module in SUPPORTED_ALGORITHMS.items())
    if isinstance(algo, type) and issubclass(algo, supported):
        return algo
    builds = "names no algorithm (algo_class is None)" if algo is None else f"builds {getattr(algo, '__name__', algo)}"
    raise ValueError(f"rlviz.rllib records {', '.join(SUPPORTED_ALGORITHMS)} and subclasses of them, but this "
                     f"{type(config).__name__} {builds}; start from one of their configs, e.g. "
                     f"PPOConfig().environment('CartPole-v1')")
