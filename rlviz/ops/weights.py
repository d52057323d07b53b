"""``calculate_rr_weights``: how DQN's ``training_intensity`` becomes Concurrently's round-robin weights.

Both rlviz's rounded rule and Ray 1.x's float variant, for teaching the
difference (docs/plans.md, "training_intensity -> round-robin weights").
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping

from rlviz.checks import check_positive_number, describe_value

__all__ = ["DQN_SAMPLING", "RR_KEYS", "native_ratio", "calculate_rr_weights", "calculate_rr_weights_float"]

#: DQN's sampling defaults, on the Trainer's default 2 workers: what ``training_intensity`` is measured
#: against unless a config says otherwise (``rlviz.plans.dqn`` and the round-robin playground read it).
DQN_SAMPLING = {"train_batch_size": 64, "rollout_fragment_length": 4, "num_envs_per_worker": 1,
                "num_workers": 2}


#: The config keys the weights are computed from (a full trainer config may hold others too).
RR_KEYS = ("training_intensity", "train_batch_size", "rollout_fragment_length", "num_envs_per_worker",
           "num_workers")
_REQUIRED = ("train_batch_size", "rollout_fragment_length")


def native_ratio(config: Mapping) -> float:
    """Trained / sampled steps when store and replay alternate 1:1.

    ``train_batch_size / (rollout_fragment_length * num_envs_per_worker * max(num_workers, 1))``

    Examples
    --------
    >>> native_ratio({"train_batch_size": 32, "rollout_fragment_length": 4,
    ...               "num_envs_per_worker": 1, "num_workers": 2})
    4.0
    >>> native_ratio(DQN_SAMPLING)
    8.0
    """
    _check_config(config, need_sampling=True)
    sampled = (config["rollout_fragment_length"] * config.get("num_envs_per_worker", 1)
               * max(config.get("num_workers", 0), 1))
    return config["train_batch_size"] / sampled


def calculate_rr_weights(config: Mapping) -> list[int]:
    """Round-robin weights ``[store, replay]`` that give ``training_intensity`` (rounded to ints).

    With no ``training_intensity`` the weights are ``[1, 1]``.  Otherwise
    ``w = training_intensity / native_ratio(config)``; ``w < 1`` gives
    ``[round(1 / w), 1]`` (store more often), else ``[1, round(w)]``.

    Parameters
    ----------
    config : mapping
        ``training_intensity`` (None or a number > 0), ``train_batch_size``,
        ``rollout_fragment_length``, ``num_envs_per_worker``, ``num_workers``.

    Returns
    -------
    list of int

    Raises
    ------
    TypeError
        If ``config`` is not a mapping, or ``training_intensity`` is not None or a number.
    ValueError
        If ``training_intensity`` is not finite and > 0 (NaN, infinity, 0); if a
        key looks like a misspelt ``RR_KEYS`` entry (``training_intesity``:
        "did you mean training_intensity?"), which would otherwise be ignored;
        if ``training_intensity`` is set and ``train_batch_size`` or
        ``rollout_fragment_length`` is missing (named).

    Examples
    --------
    >>> base = {"train_batch_size": 32, "rollout_fragment_length": 4, "num_workers": 2}
    >>> calculate_rr_weights({**base, "training_intensity": None})
    [1, 1]
    >>> calculate_rr_weights({**base, "training_intensity": 1}), calculate_rr_weights({**base, "training_intensity": 16})
    ([4, 1], [1, 4])
    """
    w = _ratio(config)
    if w is None:
        return [1, 1]
    return [round(1 / w), 1] if w < 1 else [1, round(w)]


def calculate_rr_weights_float(config: Mapping) -> list[float]:
    """Ray 1.x's variant: ``[1, w]`` as floats; the union then rounds ``w`` stochastically each round.

    A fractional weight ``w`` means ``int(w)`` pulls plus one more with
    probability ``w - int(w)``; since every round still pulls the store op
    once and the replay op ``int(w)`` times plus a coin flip, ``w < 1`` makes rounds
    with *no* replay, so the long-run ratio matches but any single round is noisy.

    Examples
    --------
    >>> base = {"train_batch_size": 32, "rollout_fragment_length": 4, "num_workers": 2}
    >>> calculate_rr_weights_float({**base, "training_intensity": 1})
    [1, 0.25]
    >>> calculate_rr_weights_float({**base, "training_intensity": None})
    [1, 1]
    """
    w = _ratio(config)
    return [1, 1] if w is None else [1, w]


def _ratio(config: Mapping) -> float | None:
    _check_config(config, need_sampling=False)
    intensity = config.get("training_intensity")
    if intensity is None:
        return None
    check_positive_number("training_intensity", intensity,
                          hint="None for the plan's native ratio, or e.g. 2 to train on each sample twice")
    return intensity / native_ratio(config)


def _check_config(config: object, *, need_sampling: bool) -> None:
    """A mapping without misspelt keys; with the sampling keys when they are needed."""
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a dict of config keys), got {describe_value(config)}; "
                        f"hint: config={{'training_intensity': 4, 'train_batch_size': 64, ...}}")
    for key in config:
        if isinstance(key, str) and key not in RR_KEYS:
            close = difflib.get_close_matches(key, RR_KEYS, n=1, cutoff=0.92)
            if close:
                raise ValueError(f"config key {key!r} is not one calculate_rr_weights reads, so it would be "
                                 f"ignored; did you mean {close[0]}? hint: rename it to {close[0]!r}")
    if need_sampling or config.get("training_intensity") is not None:
        missing = [key for key in _REQUIRED if key not in config]
        if missing:
            raise ValueError(f"config lacks {' and '.join(missing)}, needed to turn training_intensity into "
                             f"weights (trained / sampled steps); hint: add e.g. "
                             + ", ".join(f"{key!r}: {DQN_SAMPLING[key]}" for key in missing)
                             + " (DQN's defaults), or pass the trainer's whole config")
