"""``SamplerInput`` and ``SyncSampler``: an ``InputReader`` that steps the worker's envs.

``SyncSampler`` wraps rlviz's ``VectorSampler`` / ``MultiAgentSampler``
(``rlviz.rollout.sampler``): each ``get_data()`` is one of their ``sample()`` calls.
"""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch, concat_samples
from rlviz.rollout.sampler import EpisodeMetrics, MultiAgentSampler, VectorSampler

__all__ = ["SamplerInput", "SyncSampler"]

#: RLlib's SyncSampler keywords rlviz accepts only at these values (its samplers have no such option).
_FIXED = {"clip_rewards": (None, False), "count_steps_by": ("env_steps",), "callbacks": (None,),
          "multiple_episodes_in_batch": (True,), "horizon": (None,), "soft_horizon": (False,),
          "no_done_at_end": (False,), "observation_fn": (None,), "sample_collector_class": (None,),
          "render": (False,), "preprocessors": (None,), "obs_filters": (None,), "tf_sess": (None,),
          "normalize_actions": (True, False), "clip_actions": (False,)}


class SamplerInput(InputReader):
    """An ``InputReader`` that samples: ``next()`` is ``get_data()`` plus ``get_extra_batches()``, concatenated."""

    def next(self) -> SampleBatch | MultiAgentBatch:
        """One ``get_data()`` batch, with any extra batches concatenated to it."""
        batches = [self.get_data(), *self.get_extra_batches()]
        return batches[0] if len(batches) == 1 else concat_samples(batches)

    @abstractmethod
    def get_data(self) -> SampleBatch | MultiAgentBatch:
        """The next batch the envs produced."""

    @abstractmethod
    def get_extra_batches(self) -> list[SampleBatch | MultiAgentBatch]:
        """Batches produced besides ``get_data()``'s since the last call."""

    @abstractmethod
    def get_metrics(self) -> list[EpisodeMetrics]:
        """Episodes completed since the last call."""


class SyncSampler(SamplerInput):
    """Steps the envs when ``get_data()`` is called, in the caller's thread (RLlib's ``SyncSampler``).

    Parameters
    ----------
    worker : RolloutWorker
        Gives the policies (``policy_map``), the seed and the worker index.
    env : gymnasium vector env or list of MultiAgentEnv
        A vector env from ``make_vector_env`` (single agent), or multi-agent envs.
    rollout_fragment_length : int
        Steps per sub-env per ``get_data()``.
    policy_mapping_fn : callable, optional
        Multi-agent: agent id -> policy id (required for a list of envs).
    policies : dict, optional
        Policy id -> Policy (default: the worker's ``policy_map``).
    **rllib_options
        RLlib's other keywords (``clip_rewards``, ``horizon``, ``callbacks``,
        ...), accepted at the values that mean "off".

    Raises
    ------
    NotImplementedError
        For an RLlib option set to a value rlviz's samplers do not implement.
    TypeError
        For a keyword RLlib's SyncSampler does not have.

    Examples
    --------
    >>> import gymnasium
    >>> from rlviz.rollout import RolloutWorker, RandomPolicy
    >>> from rlviz.rollout.sampler import make_vector_env
    >>> worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, seed=0)
    >>> sampler = SyncSampler(worker=worker, env=make_vector_env(lambda: gymnasium.make("CartPole-v1"), 2),
    ...                       rollout_fragment_length=4)
    >>> sampler.next().count
    8
    """

    def __init__(self, *, worker: Any, env: Any, rollout_fragment_length: int,
                 policy_mapping_fn: Callable[..., str] | None = None, policies: dict | None = None,
                 **rllib_options: Any) -> None:
        _check_options(rllib_options)
        policies = worker.policy_map if policies is None else policies
        seed, index = getattr(worker, "seed", None), getattr(worker, "worker_index", 0)
        if isinstance(env, (list, tuple)):
            if policy_mapping_fn is None:
                raise TypeError("SyncSampler over multi-agent envs needs policy_mapping_fn=agent_id -> policy_id")
            sampler: VectorSampler | MultiAgentSampler = MultiAgentSampler(
                list(env), policies, policy_mapping_fn, rollout_fragment_length, seed, index)
        else:
            sampler = VectorSampler(env, policies[DEFAULT_POLICY_ID], rollout_fragment_length, seed, index)
        self.worker = worker
        self.sampler = sampler

    @classmethod
    def wrapping(cls, sampler: VectorSampler | MultiAgentSampler, worker: Any = None) -> "SyncSampler":
        """A ``SyncSampler`` over an existing rlviz sampler (how a ``RolloutWorker`` builds its own)."""
        wrapper = cls.__new__(cls)
        wrapper.worker = worker
        wrapper.sampler = sampler
        return wrapper

    def get_data(self) -> SampleBatch | MultiAgentBatch:
        """Step every sub-env ``rollout_fragment_length`` times: one fragment."""
        return self.sampler.sample()

    def get_extra_batches(self) -> list[SampleBatch | MultiAgentBatch]:
        """Always empty: rlviz has no callbacks that add custom batches."""
        return []

    def get_metrics(self) -> list[EpisodeMetrics]:
        """Episodes completed since the last call (shared with ``RolloutWorker.get_metrics``)."""
        return self.sampler.pop_metrics()

    def __repr__(self) -> str:
        return f"SyncSampler({type(self.sampler).__name__}, fragment={self.sampler.fragment_length})"


def _check_options(options: dict[str, Any]) -> None:
    for name, value in options.items():
        if name not in _FIXED:
            raise TypeError(f"SyncSampler() got an unexpected keyword {name!r}; RLlib's keywords are "
                            f"worker, env, rollout_fragment_length, policy_mapping_fn, policies, {', '.join(_FIXED)}")
        if not any(value is allowed or value == allowed for allowed in _FIXED[name]):
            raise NotImplementedError(f"SyncSampler({name}={value!r}) is not implemented in rlviz; "
                                      f"leave {name} at {_FIXED[name][0]!r}")
