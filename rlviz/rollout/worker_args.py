"""RLlib's ``RolloutWorker`` arguments (the reference's 2.x keywords and 1.x's) turned into rlviz settings.

RLlib 1.x code passes ``policy_spec``, ``rollout_fragment_length``,
``num_envs`` ... as keywords; 2.x code passes one ``config``. Both end here as
one ``RolloutConfig``, one policy spec and the settings rlviz stores but does
not act on. An unknown keyword is a ``TypeError`` naming RLlib's nearest one.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlviz.rollout.config import RolloutConfig, make_config, unknown_key_message
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID

__all__ = ["WorkerArgs", "resolve_worker_args", "LEGACY_KEYWORDS", "STORED_KEYWORDS", "FIXED_KEYWORDS"]

#: RLlib 1.x keywords that map onto a ``RolloutConfig`` field (1.x name -> field).
LEGACY_KEYWORDS = {"policy_mapping_fn": "policy_mapping_fn", "policies_to_train": "policies_to_train",
                   "rollout_fragment_length": "rollout_fragment_length", "batch_mode": "batch_mode",
                   "num_envs": "num_envs_per_worker", "observation_filter": "observation_filter",
                   "env_config": "env_config", "seed": "seed",
                   # offline data: RLlib passes these in its config; as keywords they save a dict
                   "input": "input", "input_config": "input_config", "output": "output",
                   "output_config": "output_config"}
#: RLlib 1.x keywords rlviz accepts and keeps in ``creation_args()`` without acting on them
#: (TensorFlow, logging, models built by the policy class itself ...).
STORED_KEYWORDS = ("tf_session_creator", "preprocessor_pref", "model_config", "record_env", "log_level",
                   "callbacks", "input_evaluation", "extra_python_environs", "monitor_path",
                   "disable_env_checking", "input_creator", "output_creator", "count_steps_by")
#: RLlib 1.x keywords for features rlviz does not have: accepted at RLlib's default, refused otherwise.
FIXED_KEYWORDS = {"episode_horizon": None, "sample_async": False, "compress_observations": False,
                  "observation_fn": None, "clip_rewards": None, "normalize_actions": True,
                  "clip_actions": False, "remote_worker_envs": False, "remote_env_batch_wait_ms": 0,
                  "soft_horizon": False, "no_done_at_end": False, "fake_sampler": False}
#: Keys of an RLlib config dict that belong to the trainer, not to one worker: accepted and kept.
TRAINER_KEYS = ("env", "framework", "num_workers", "num_gpus", "model", "callbacks", "log_level")
#: Config-dict names given as keywords -> the keyword RLlib's RolloutWorker has for them.
CONFIG_KEY_KEYWORDS = {"num_envs_per_worker": "num_envs", "policies": "policy_spec",
                       "policy_class": "default_policy_class", "logdir": "log_dir"}
_KEYWORD_CONFIG_KEYS = {keyword: key for key, keyword in CONFIG_KEY_KEYWORDS.items()}
#: The keyword names of ``RolloutWorker.__init__`` itself (the reference's signature plus 1.x's).
SIGNATURE = ("env_creator", "validate_env", "config", "worker_index", "num_workers", "recreated_worker",
             "log_dir", "spaces", "default_policy_class", "dataset_shards", "policy_spec", "policy",
             "policy_config", *LEGACY_KEYWORDS, *STORED_KEYWORDS, *FIXED_KEYWORDS)


@dataclass
class WorkerArgs:
    """What a RolloutWorker is built from, whichever way its arguments were written."""

    rollout: RolloutConfig
    """Sampling settings."""
    policies: dict[str, tuple[type, Any, Any, Any]]
    """Policy id -> (class, observation space or None, action space or None, config or None)."""
    num_workers: int | None = None
    """From ``config["num_workers"]`` when the keyword was not given."""
    stored: dict = field(default_factory=dict)
    """Accepted settings rlviz does not act on (``creation_args`` keeps them)."""


def resolve_worker_args(config: Any, default_policy_class: type | None, legacy: Mapping[str, Any]) -> WorkerArgs:
    """Merge ``config`` (RolloutConfig, RLlib config dict or object with ``to_dict``) and 1.x keywords.

    Raises
    ------
    TypeError
        For a keyword RLlib's RolloutWorker does not have (naming the nearest),
        or a missing policy class.
    ValueError
        For an unknown config key, or a 1.x feature rlviz lacks set away from its default.
    """
    for key in legacy:
        if key in CONFIG_KEY_KEYWORDS:
            raise TypeError(f"unknown RolloutWorker keyword {key!r}; did you mean {CONFIG_KEY_KEYWORDS[key]!r}? "
                            f"({key!r} is the config key, {CONFIG_KEY_KEYWORDS[key]!r} RolloutWorker's keyword; "
                            f"or pass config={{{key!r}: ...}})")
        if key not in SIGNATURE:
            raise TypeError(unknown_key_message("RolloutWorker", key, list(SIGNATURE), kind="keyword"))
    for key, default in FIXED_KEYWORDS.items():
        if key in legacy and legacy[key] != default:
            raise ValueError(f"{key}={legacy[key]!r}: rlviz does not implement RLlib's {key}; leave it at "
                             f"RLlib's default {default!r} (docs/behaviour.md lists what differs)")
    rollout_settings, spec, policy_settings, stored = _split_config(config, default_policy_class)
    rollout_settings.update({LEGACY_KEYWORDS[k]: v for k, v in legacy.items() if k in LEGACY_KEYWORDS})
    spec = legacy.get("policy_spec", legacy.get("policy", spec))
    if "policy_config" in legacy:
        policy_settings.update(legacy["policy_config"] or {})
    stored.update({k: v for k, v in legacy.items() if k in STORED_KEYWORDS})
    rollout = make_config(RolloutConfig, rollout_settings)
    policies = _normalize_policies(spec if spec is not None else default_policy_class, default_policy_class)
    policies = {pid: (cls, obs, act, _policy_config(cls, cfg, policy_settings))
                for pid, (cls, obs, act, cfg) in policies.items()}
    return WorkerArgs(rollout, policies, stored.pop("num_workers", None), stored)


# -- helpers ------------------------------------------------------------------
def _split_config(config: Any, default_policy_class: type | None) -> tuple[dict, Any, dict, dict]:
    """(rollout settings, policies spec or None, policy settings, stored trainer keys) of a config."""
    if config is None:
        return {}, None, {}, {}
    if isinstance(config, RolloutConfig):
        return {f.name: getattr(config, f.name) for f in dataclasses.fields(RolloutConfig)}, None, {}, {}
    if hasattr(config, "to_dict") and not isinstance(config, Mapping):
        config = config.to_dict()
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a RolloutConfig, an RLlib config dict or an object with to_dict(), "
                        f"not {type(config).__name__}")
    settings = dict(config)
    multiagent = dict(settings.pop("multiagent", None) or {})
    for key in ("policies", "policy_mapping_fn", "policies_to_train"):
        if key in settings:
            multiagent[key] = settings.pop(key)
    spec = multiagent.pop("policies", None)
    rollout_fields = [f.name for f in dataclasses.fields(RolloutConfig)]
    policy_fields = _config_fields(default_policy_class)
    rollout, policy, stored = {}, {}, {}
    for key, value in {**settings, **multiagent}.items():
        if key in rollout_fields:
            rollout[key] = value
        elif key in policy_fields:
            policy[key] = value
        elif key in TRAINER_KEYS:
            stored[key] = value
        elif key in _KEYWORD_CONFIG_KEYS:
            raise ValueError(f"unknown RolloutWorker config key {key!r}; did you mean {_KEYWORD_CONFIG_KEYS[key]!r}? "
                             f"({key!r} is the keyword, {_KEYWORD_CONFIG_KEYS[key]!r} the config key)")
        else:
            raise ValueError(unknown_key_message("RolloutWorker config", key,
                                                 rollout_fields + policy_fields + list(TRAINER_KEYS)))
    return rollout, spec, policy, stored


def _config_fields(policy_class: type | None) -> list[str]:
    config_class = getattr(policy_class, "config_class", None)
    return [f.name for f in dataclasses.fields(config_class)] if dataclasses.is_dataclass(config_class) else []


def _policy_config(cls: type, config: Any, shared: dict) -> Any:
    """The shared settings its config class knows, overridden by the policy's own (RLlib merges them so)."""
    if config is not None and not isinstance(config, Mapping):
        return config                                   # a config dataclass instance: complete already
    fields = _config_fields(cls)
    return {**{k: v for k, v in shared.items() if k in fields}, **(config or {})} or None


def _normalize_policies(spec: Any, default_policy_class: type | None) -> dict[str, tuple[type, Any, Any, Any]]:
    """A class, a dict of RLlib policy specs, or a set of ids -> {id: (class, obs space, act space, config)}."""
    from rlviz.rollout.policy import Policy

    if spec is None:
        raise TypeError("RolloutWorker needs a policy: pass default_policy_class=SomePolicy (RLlib 2.x), "
                        "policy_spec=SomePolicy (RLlib 1.x) or config={'multiagent': {'policies': {...}}}")
    if isinstance(spec, type):
        spec = {DEFAULT_POLICY_ID: spec}
    if isinstance(spec, (set, frozenset, list, tuple)) and all(isinstance(p, str) for p in spec):
        spec = {pid: None for pid in spec}
    if not isinstance(spec, Mapping) or not spec:
        raise TypeError(f"policy must be a Policy subclass or a non-empty dict of policy id -> "
                        f"(Policy subclass, config), not {spec!r}")
    out = {}
    for pid, entry in spec.items():
        cls, obs, act, config = _one_spec(entry, default_policy_class)
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise TypeError(f"policy {pid!r}: expected a Policy subclass, got {cls!r}")
        out[pid] = (cls, obs, act, config)
    return out


def _one_spec(entry: Any, default_policy_class: type | None) -> tuple[Any, Any, Any, Any]:
    """RLlib's spec forms: a class, (class, config), (class, obs, act, config), a PolicySpec, or None."""
    if entry is None:
        return default_policy_class, None, None, None
    if isinstance(entry, type):
        return entry, None, None, None
    if hasattr(entry, "policy_class"):
        return (entry.policy_class or default_policy_class, entry.observation_space, entry.action_space,
                entry.config)
    entry = tuple(entry)
    if len(entry) == 2:
        return entry[0], None, None, entry[1]
    if len(entry) == 4:
        return (entry[0] or default_policy_class, *entry[1:])
    raise TypeError(f"a policy spec is (class, config) or (class, obs space, action space, config), got {entry!r}")
