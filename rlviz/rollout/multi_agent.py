"""The multi-agent env interface: dicts keyed by agent id in, dicts out (RLlib 1.x's MultiAgentEnv)."""
from __future__ import annotations

from typing import Any

__all__ = ["MultiAgentEnv"]


class MultiAgentEnv:
    """Interface of a multi-agent env: dicts keyed by agent id in, dicts out.

    Subclasses set ``possible_agents`` (a list of agent ids) and the dicts
    ``observation_spaces`` and ``action_spaces`` (agent id -> gymnasium
    space), and implement ``reset`` and ``step``.  ``step`` returns
    ``(obs, rewards, terminateds, truncateds, infos)``; ``terminateds`` and
    ``truncateds`` carry an extra key ``"__all__"`` that says whether the whole
    episode is over.  Only agents present in ``obs`` act on the next step.
    """

    possible_agents: list[str] = []
    observation_spaces: dict[str, Any] = {}
    action_spaces: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode; return ``(obs, infos)`` keyed by agent id."""
        raise NotImplementedError

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        """Apply one action per acting agent; return the five dicts."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (nothing by default)."""
