"""``RandomPolicy``: picks uniformly random actions and never learns.

The cheapest policy, for throughput baselines and tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rlviz.rollout.policy import Policy

__all__ = ["RandomPolicy", "RandomConfig"]


@dataclass
class RandomConfig:
    """RandomPolicy has no settings; the class exists so every policy has a config type."""


class RandomPolicy(Policy):
    """Uniformly random actions from any gymnasium action space.

    Examples
    --------
    >>> import gymnasium, numpy as np
    >>> policy = RandomPolicy(gymnasium.spaces.Box(-1, 1, (4,)), gymnasium.spaces.Discrete(2), seed=0)
    >>> actions, extra = policy.compute_actions(np.zeros((3, 4)))
    >>> actions.shape, extra
    ((3,), {})
    """

    config_class = RandomConfig

    def __init__(self, observation_space: Any, action_space: Any, config: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(observation_space, action_space, config, seed)
        self.action_space.seed(seed)
        self._discrete_n = getattr(action_space, "n", None) if _is_discrete(action_space) else None

    def compute_actions(self, obs_batch: np.ndarray, explore: bool = True) -> tuple[np.ndarray, dict]:
        """One random action per row of ``obs_batch``; no extra outputs."""
        n = len(obs_batch)
        self.global_timestep += n
        if self._discrete_n is not None:
            return self.rng.integers(self._discrete_n, size=n), {}
        return np.stack([self.action_space.sample() for _ in range(n)]), {}


def _is_discrete(space: Any) -> bool:
    from gymnasium.spaces import Discrete

    return isinstance(space, Discrete) and int(space.start) == 0
