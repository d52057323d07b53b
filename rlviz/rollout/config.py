"""Typed settings for rollout workers, and the one helper that turns dicts into config dataclasses.

Unknown keys fail with the closest valid name.
"""
from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rlviz.checks import check_int, check_number

__all__ = ["RolloutConfig", "make_config", "reconcile", "unknown_key_message", "BATCH_MODES"]

#: RLlib's batch modes; rlviz's samplers cut fragments, so only the first (RLlib's default) is built.
BATCH_MODES = ("truncate_episodes", "complete_episodes")

C = TypeVar("C")


@dataclass
class RolloutConfig:
    """How each rollout worker samples, and how a ``WorkerSet`` runs its workers.

    Examples
    --------
    >>> RolloutConfig(rollout_fragment_length=10).num_envs_per_worker
    1
    """

    num_envs_per_worker: int = 1
    """Sub-environments each worker steps together (one gymnasium SyncVectorEnv)."""
    rollout_fragment_length: int = 200
    """Steps taken in every sub-env per ``sample()``; a batch has this times num_envs_per_worker rows."""
    env_config: dict = field(default_factory=dict)
    """Keyword arguments for the env creator (``gymnasium.make(id, **env_config)``)."""
    policy_mapping_fn: Callable[..., str] | None = None
    """Multi-agent only: ``policy_mapping_fn(agent_id, episode, worker, **kwargs)`` -> policy id, as RLlib calls it
    (default: every agent uses the only policy)."""
    policies_to_train: tuple[str, ...] | Callable[..., bool] | None = None
    """Policy ids that learn_on_batch updates, or RLlib's ``is_policy_to_train(policy_id, batch)`` (None: all)."""
    seed: int | None = None
    """Base seed; worker i seeds its envs and policies with seed + 1000 * i."""
    num_cpus_per_worker: float = 0
    """CPUs each remote worker actor reserves (0 lets several share a small machine)."""
    custom_resources_per_worker: dict = field(default_factory=dict)
    """Ray custom resources each remote worker reserves, e.g. ``{"sampler": 1}`` to place workers on the
    cluster nodes started with ``--resources='{"sampler": 4}'`` (RLlib 1.x's key of the same name)."""
    recreate_failed_workers: bool = False
    """Replace a remote worker that died (restoring its weights) instead of raising."""
    batch_mode: str = "truncate_episodes"
    """RLlib's batch mode; ``"truncate_episodes"``: a batch is the fragment, episodes may continue in the next."""
    observation_filter: str = "NoFilter"
    """``"NoFilter"`` or ``"MeanStdFilter"`` (running mean/std normalisation of observations, per policy)."""
    input: Any = "sampler"
    """What ``sample()`` reads: ``"sampler"`` (the envs), a path, glob or list of JSON files, a dict
    input -> probability (``MixedInput``), ``"d4rl.<env id>"``, or a callable ``ioctx -> InputReader``."""
    input_config: dict = field(default_factory=dict)
    """Settings for a custom input, read by it from ``ioctx.input_config``."""
    output: Any = None
    """Where every sampled batch is written: None (nowhere), a directory (JSON lines), ``"logdir"``,
    or a callable ``ioctx -> OutputWriter``."""
    output_config: dict = field(default_factory=dict)
    """Settings for a custom output, read by it from ``ioctx.output_config``."""
    output_compress_columns: tuple[str, ...] = ("obs", "new_obs")
    """Columns a JSON output stores compressed (the rest as nested lists)."""
    output_max_file_size: int = 64 * 1024 * 1024
    """Bytes after which a JSON output starts its next file."""

    def __post_init__(self) -> None:
        check_int("num_envs_per_worker", self.num_envs_per_worker, minimum=1)
        check_int("rollout_fragment_length", self.rollout_fragment_length, minimum=1)
        if self.seed is not None:
            check_int("seed", self.seed, minimum=0)
        if not isinstance(self.env_config, Mapping):
            raise TypeError(f"env_config must be a dict of keyword arguments, not "
                            f"{type(self.env_config).__name__}")
        if self.policy_mapping_fn is not None and not callable(self.policy_mapping_fn):
            raise TypeError(f"policy_mapping_fn must be a callable agent_id -> policy_id, not "
                            f"{type(self.policy_mapping_fn).__name__}")
        if isinstance(self.policies_to_train, str):
            raise TypeError(f"policies_to_train must be a list of policy ids, not the string "
                            f"{self.policies_to_train!r}; write [{self.policies_to_train!r}]")
        if self.policies_to_train is not None and not callable(self.policies_to_train):
            self.policies_to_train = tuple(self.policies_to_train)
        check_number("num_cpus_per_worker", self.num_cpus_per_worker, minimum=0,
                     hint="0 lets several workers share a small machine")
        if not isinstance(self.custom_resources_per_worker, Mapping) or \
                not all(isinstance(key, str) for key in self.custom_resources_per_worker):
            raise TypeError(f"custom_resources_per_worker must be a dict of resource name -> amount, got "
                            f"{self.custom_resources_per_worker!r}; hint: {{'sampler': 1}}")
        for key, amount in self.custom_resources_per_worker.items():
            check_number(f"custom_resources_per_worker[{key!r}]", amount, above=0)
        if self.batch_mode not in BATCH_MODES:
            raise ValueError(f"unknown batch_mode {self.batch_mode!r}; RLlib's are {list(BATCH_MODES)}")
        if self.batch_mode != "truncate_episodes":
            raise ValueError("batch_mode='complete_episodes' is not built in rlviz: its samplers cut fixed "
                             "fragments; use RLlib's default 'truncate_episodes'")
        if self.observation_filter not in ("NoFilter", "MeanStdFilter"):
            raise ValueError(f"unknown observation_filter {self.observation_filter!r}; use 'NoFilter' "
                             f"(RLlib's default) or 'MeanStdFilter'")
        for name in ("input_config", "output_config"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(f"{name} must be a dict, not {type(getattr(self, name)).__name__}")
        check_int("output_max_file_size", self.output_max_file_size, minimum=1)


def make_config(config_cls: type[C], value: C | Mapping[str, Any] | None = None, **overrides: Any) -> C:
    """Build a ``config_cls`` dataclass from None, an instance or a dict, plus keyword overrides.

    Parameters
    ----------
    config_cls : type
        A dataclass type such as ``RolloutConfig``.
    value : config_cls, dict or None
        The starting point: an instance (copied), a dict of field values, or
        None for the defaults.
    **overrides
        Field values that replace those in ``value``.

    Returns
    -------
    config_cls
        A new instance; ``value`` is not changed.

    Raises
    ------
    TypeError
        If ``value`` is neither None, a dict nor a ``config_cls``.
    ValueError
        For an unknown key, naming the closest valid one.

    Examples
    --------
    >>> make_config(RolloutConfig, {"rollout_fragment_length": 5}).rollout_fragment_length
    5
    >>> make_config(RolloutConfig, {"rollout_fragment_lenght": 5})
    Traceback (most recent call last):
    ...
    ValueError: unknown RolloutConfig key 'rollout_fragment_lenght'; did you mean 'rollout_fragment_length'? ...
    """
    if value is None:
        settings: dict[str, Any] = {}
    elif isinstance(value, config_cls):
        settings = {f.name: getattr(value, f.name) for f in dataclasses.fields(config_cls)}
    elif isinstance(value, Mapping):
        settings = dict(value)
    else:
        raise TypeError(f"config must be a {config_cls.__name__}, a dict or None, not {type(value).__name__}")
    settings.update(overrides)
    valid = [f.name for f in dataclasses.fields(config_cls)]
    for key in settings:
        if key not in valid:
            raise ValueError(unknown_key_message(config_cls.__name__, key, valid))
    return config_cls(**settings)


def reconcile(name: str, argument: object, config: Mapping[str, Any], default: object) -> object:
    """One setting given as an argument, as an RLlib-style config key, or both (then they must agree).

    Parameters
    ----------
    name : str
        The argument's name, also the config key (``"num_workers"``).
    argument : object
        The argument's value; None when it was not given.
    config : mapping
        The config dict, which may hold ``name``.
    default : object
        The value when neither gives one.

    Returns
    -------
    object

    Raises
    ------
    ValueError
        If both are given and differ.

    Examples
    --------
    >>> reconcile("num_workers", None, {"num_workers": 3}, default=2)
    3
    >>> reconcile("num_workers", 2, {"num_workers": 3}, default=2)
    Traceback (most recent call last):
    ...
    ValueError: num_workers=2 contradicts config['num_workers']=3; give it once (either place works)
    """
    if name not in config:
        return default if argument is None else argument
    if argument is not None and argument != config[name]:
        raise ValueError(f"{name}={argument!r} contradicts config[{name!r}]={config[name]!r}; "
                         f"give it once (either place works)")
    return config[name]


def unknown_key_message(owner: str, key: str, valid: list[str], kind: str = "key") -> str:
    """``unknown <owner> <kind> 'x'; did you mean 'y'? valid <kind>s are [...]`` (the nearest name, if close)."""
    close = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown {owner} {kind} {key!r}; {hint}valid {kind}s are {valid}"
