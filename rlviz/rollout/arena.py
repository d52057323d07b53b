"""``MultiAgentArena``: a tiny multi-agent env where agents walk a shared line to a target.

Small enough to read in one go; exists so ``MultiAgentBatch`` is exercised for
real.
"""
from __future__ import annotations

import numpy as np

from rlviz.rollout.multi_agent import MultiAgentEnv

__all__ = ["MultiAgentArena"]

_MOVES = np.array([-0.1, 0.0, 0.1])


class MultiAgentArena(MultiAgentEnv):
    """Agents on the segment [-1, 1] step left, stay or right to reach a shared target.

    Each agent sees ``[own position, target, mean position of the others]``
    (a ``Box(3,)``) and picks ``Discrete(3)``: left, stay, right.  Its reward
    is how much closer it got to the target this step.  The episode ends for
    everyone together: terminated when all agents are within 0.1 of the
    target, truncated after ``max_steps``.

    Parameters
    ----------
    num_agents : int
        Agents in the arena, named ``"agent_0"``, ``"agent_1"``, ...
    max_steps : int
        Steps before the episode is truncated.

    Examples
    --------
    >>> env = MultiAgentArena(num_agents=2)
    >>> obs, _ = env.reset(seed=0)
    >>> sorted(obs), obs["agent_0"].shape
    (['agent_0', 'agent_1'], (3,))
    >>> _, rewards, terminateds, truncateds, _ = env.step({"agent_0": 2, "agent_1": 0})
    >>> sorted(terminateds)
    ['__all__', 'agent_0', 'agent_1']
    """

    def __init__(self, num_agents: int = 2, max_steps: int = 50) -> None:
        import gymnasium

        if num_agents < 1:
            raise ValueError(f"num_agents must be >= 1, got {num_agents}")
        self.possible_agents = [f"agent_{i}" for i in range(num_agents)]
        obs_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
        act_space = gymnasium.spaces.Discrete(3)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.max_steps = max_steps
        self._rng = np.random.default_rng()
        self._pos = np.zeros(num_agents)
        self._target = 0.0
        self._steps = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Place the agents and the target at random; return ``(obs, infos)``."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._pos = self._rng.uniform(-1, 1, size=len(self.possible_agents))
        self._target = float(self._rng.uniform(-1, 1))
        self._steps = 0
        return self._observe(), {a: {} for a in self.possible_agents}

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        """Move every agent by its action; everyone's episode ends together."""
        before = np.abs(self._pos - self._target)
        moves = np.array([_MOVES[int(actions[a])] for a in self.possible_agents])
        self._pos = np.clip(self._pos + moves, -1.0, 1.0)
        self._steps += 1
        after = np.abs(self._pos - self._target)
        done = bool(np.all(after < 0.1))
        cut = not done and self._steps >= self.max_steps
        rewards = {a: float(before[i] - after[i]) for i, a in enumerate(self.possible_agents)}
        terminateds = {a: done for a in self.possible_agents} | {"__all__": done}
        truncateds = {a: cut for a in self.possible_agents} | {"__all__": cut}
        return self._observe(), rewards, terminateds, truncateds, {a: {} for a in self.possible_agents}

    def _observe(self) -> dict:
        n = len(self.possible_agents)
        total = self._pos.sum()
        obs = {}
        for i, agent in enumerate(self.possible_agents):
            others = (total - self._pos[i]) / (n - 1) if n > 1 else 0.0
            obs[agent] = np.array([self._pos[i], self._target, others], dtype=np.float32)
        return obs

