"""Samplers: step environments with policies and cut the experience into batches with correct episode bookkeeping.

``VectorSampler`` drives a gymnasium vector env for one policy;
``MultiAgentSampler`` drives a list of ``MultiAgentEnv``.  Imports numpy and
gymnasium; must not import ray, torch or any other rlviz layer.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlviz.rollout.policy import Policy
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples

__all__ = ["EpisodeMetrics", "VectorSampler", "MultiAgentSampler", "make_vector_env"]

#: Completed-episode records kept between two ``pop_metrics`` calls (older ones are dropped and counted).
MAX_EPISODE_RECORDS = 10_000

SB = SampleBatch
_COLUMN_ORDER = (SB.OBS, SB.ACTIONS, SB.REWARDS, SB.TERMINATEDS, SB.TRUNCATEDS, SB.NEXT_OBS,
                 SB.EPS_ID, SB.AGENT_INDEX, SB.T)


@dataclass(frozen=True)
class EpisodeMetrics:
    """One completed episode: its return (summed over agents) and length in env steps."""

    episode_return: float
    episode_length: int
    worker_index: int = 0


class _Episodes:
    """Episode ids, per-episode step counters and returns; the record of finished episodes."""

    def __init__(self, n: int, worker_index: int) -> None:
        self.worker_index = worker_index
        self._ids = np.random.default_rng()          # ids only need to be unique, not reproducible
        self.eps_id = self._ids.integers(0, 2**62, size=n)
        self.t = np.zeros(n, dtype=np.int64)
        self.returns = np.zeros(n, dtype=np.float64)
        self.done: deque[EpisodeMetrics] = deque(maxlen=MAX_EPISODE_RECORDS)
        self.dropped = 0

    def finish(self, i: int) -> None:
        """Env ``i``'s episode ended: record it and start a new one."""
        if len(self.done) == self.done.maxlen:
            self.dropped += 1
        self.done.append(EpisodeMetrics(float(self.returns[i]), int(self.t[i]), self.worker_index))
        self.eps_id[i] = self._ids.integers(0, 2**62)
        self.t[i] = 0
        self.returns[i] = 0.0

    def pop(self) -> list[EpisodeMetrics]:
        out = list(self.done)
        self.done.clear()
        return out


def make_vector_env(env_creator: Callable[[], Any], num_envs: int) -> Any:
    """A ``SyncVectorEnv`` of ``num_envs`` copies in SAME_STEP autoreset mode.

    gymnasium 1.x vector envs default to NEXT_STEP autoreset: the step after an
    episode ends ignores the action and only resets, which would put a fake
    transition in every batch.  In SAME_STEP mode a finished sub-env resets
    inside the same ``step()``: the returned obs is the new episode's first
    obs and the true last obs is in ``info["final_obs"]``.

    Examples
    --------
    >>> import gymnasium
    >>> envs = make_vector_env(lambda: gymnasium.make("CartPole-v1"), 2)
    >>> envs.num_envs, envs.autoreset_mode.name
    (2, 'SAME_STEP')
    """
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    return SyncVectorEnv([env_creator] * num_envs, copy=False, autoreset_mode=AutoresetMode.SAME_STEP)


class VectorSampler:
    """Steps a vector env with one policy; each ``sample()`` returns the next fragment.

    Rows are ordered sub-env by sub-env (each sub-env's steps are contiguous),
    so within one ``eps_id`` run ``new_obs[t] == obs[t + 1]``.

    Parameters
    ----------
    vector_env : gymnasium.vector.VectorEnv
        Built by ``make_vector_env`` (SAME_STEP autoreset).
    policy : Policy
        Acts and postprocesses.
    fragment_length : int
        Steps per sub-env per ``sample()``.
    seed : int, optional
        Seed for the first reset (sub-env i gets seed + i).
    worker_index : int
        Stored with the episode metrics.
    """

    def __init__(self, vector_env: Any, policy: Policy, fragment_length: int,
                 seed: int | None = None, worker_index: int = 0) -> None:
        self.env = vector_env
        self.policy = policy
        self.fragment_length = fragment_length
        self.num_envs = vector_env.num_envs
        self.episodes = _Episodes(self.num_envs, worker_index)
        obs, _ = vector_env.reset(seed=seed)
        self.obs = np.array(obs)
        self._postprocess = type(policy).postprocess_trajectory is not Policy.postprocess_trajectory

    def sample(self) -> SampleBatch:
        """Step every sub-env ``fragment_length`` times; return the rows, postprocessed per episode."""
        T, N = self.fragment_length, self.num_envs
        eps = self.episodes
        obs = self.obs
        buf = {SB.OBS: np.empty((T, *obs.shape), obs.dtype), SB.NEXT_OBS: np.empty((T, *obs.shape), obs.dtype),
               SB.REWARDS: np.empty((T, N), np.float32), SB.TERMINATEDS: np.empty((T, N), bool),
               SB.TRUNCATEDS: np.empty((T, N), bool), SB.EPS_ID: np.empty((T, N), np.int64),
               SB.T: np.empty((T, N), np.int64)}
        for step in range(T):
            actions, extra = self.policy.compute_actions(obs)
            if step == 0:
                buf[SB.ACTIONS] = np.empty((T, *np.shape(actions)), np.asarray(actions).dtype)
                for key, value in extra.items():
                    buf[key] = np.empty((T, *np.shape(value)), np.asarray(value).dtype)
            buf[SB.OBS][step] = obs
            buf[SB.ACTIONS][step] = actions
            for key, value in extra.items():
                buf[key][step] = value
            buf[SB.EPS_ID][step] = eps.eps_id
            buf[SB.T][step] = eps.t
            next_obs, rewards, terminateds, truncateds, infos = self.env.step(actions)
            new_obs = buf[SB.NEXT_OBS][step]
            new_obs[:] = next_obs
            buf[SB.REWARDS][step] = rewards
            buf[SB.TERMINATEDS][step] = terminateds
            buf[SB.TRUNCATEDS][step] = truncateds
            eps.t += 1
            eps.returns += rewards
            ended = np.logical_or(terminateds, truncateds)
            if ended.any():
                for i in np.flatnonzero(ended):
                    new_obs[i] = infos["final_obs"][i]     # SAME_STEP: next_obs[i] is already the reset obs
                    eps.finish(i)
            obs = next_obs
        self.obs = np.array(obs)
        buf[SB.AGENT_INDEX] = np.zeros((T, N), np.int64)
        order = [*_COLUMN_ORDER, *(key for key in buf if key not in _COLUMN_ORDER)]
        batch = SampleBatch({key: _env_major(buf[key]) for key in order})
        if not self._postprocess:
            return batch
        return concat_samples([self.policy.postprocess_trajectory(seg) for seg in batch.split_by_episode()])

    def pop_metrics(self) -> list[EpisodeMetrics]:
        """Episodes completed since the last call."""
        return self.episodes.pop()

    def sub_envs(self) -> list[Any]:
        """The single envs inside the vector env."""
        return list(self.env.envs)

    def close(self) -> None:
        """Close the vector env."""
        self.env.close()


class MultiAgentSampler:
    """Steps ``MultiAgentEnv`` copies; each ``sample()`` returns a ``MultiAgentBatch``.

    All agents that map to the same policy are batched into one
    ``compute_actions`` call per step.  Rows of one agent in one episode are
    contiguous in its policy's batch.

    Parameters
    ----------
    envs : list of MultiAgentEnv
        The sub-envs (stepped one after the other).
    policies : dict of str to Policy
        The policy map (read at each step, so added policies are seen).
    agent_to_policy : callable
        Agent id -> policy id.
    fragment_length : int
        Env steps per sub-env per ``sample()``.
    seed : int, optional
        Seed for the first reset (sub-env i gets seed + i).
    worker_index : int
        Stored with the episode metrics.
    """

    def __init__(self, envs: list[Any], policies: dict[str, Policy], agent_to_policy: Callable[[str], str],
                 fragment_length: int, seed: int | None = None, worker_index: int = 0) -> None:
        self.envs = envs
        self.policies = policies
        self.agent_to_policy = agent_to_policy
        self.fragment_length = fragment_length
        self.episodes = _Episodes(len(envs), worker_index)
        self.obs = [env.reset(seed=None if seed is None else seed + i)[0] for i, env in enumerate(envs)]
        self._rows: dict[tuple[int, str], list[dict]] = {}

    def sample(self) -> MultiAgentBatch:
        """Step every sub-env ``fragment_length`` times; return per-policy batches."""
        segments: list[tuple[str, list[dict]]] = []
        for _ in range(self.fragment_length):
            actions, extras = self._act()
            for i, env in enumerate(self.envs):
                segments.extend(self._step_env(i, env, actions[i], extras[i]))
        for key in list(self._rows):
            segments.append((self.agent_to_policy(key[1]), self._rows.pop(key)))
        grouped: dict[str, list[SampleBatch]] = {}
        for pid, rows in segments:
            batch = SampleBatch({k: np.stack([r[k] for r in rows]) for k in rows[0]})
            grouped.setdefault(pid, []).append(self.policies[pid].postprocess_trajectory(batch))
        policy_batches = {pid: concat_samples(parts) for pid, parts in grouped.items()}
        return MultiAgentBatch(policy_batches, self.fragment_length * len(self.envs))

    def pop_metrics(self) -> list[EpisodeMetrics]:
        """Episodes completed since the last call."""
        return self.episodes.pop()

    def sub_envs(self) -> list[Any]:
        """The multi-agent envs."""
        return list(self.envs)

    def close(self) -> None:
        """Close every env."""
        for env in self.envs:
            env.close()

    # -- helpers ------------------------------------------------------------
    def _act(self) -> tuple[list[dict], list[dict]]:
        """One batched ``compute_actions`` per policy over every (env, agent) that acts now."""
        groups: dict[str, list[tuple[int, str]]] = {}
        for i, obs in enumerate(self.obs):
            for agent in obs:
                groups.setdefault(self.agent_to_policy(agent), []).append((i, agent))
        actions: list[dict] = [{} for _ in self.envs]
        extras: list[dict] = [{} for _ in self.envs]
        for pid, members in groups.items():
            obs_batch = np.stack([self.obs[i][agent] for i, agent in members])
            acts, extra = self.policies[pid].compute_actions(obs_batch)
            for row, (i, agent) in enumerate(members):
                actions[i][agent] = acts[row]
                extras[i][agent] = {k: v[row] for k, v in extra.items()}
        return actions, extras

    def _step_env(self, i: int, env: Any, actions: dict, extras: dict) -> list[tuple[str, list[dict]]]:
        eps = self.episodes
        obs = self.obs[i]
        next_obs, rewards, terminateds, truncateds, _ = env.step(actions)
        all_done = bool(terminateds.get("__all__", False) or truncateds.get("__all__", False))
        for index, agent in enumerate(getattr(env, "possible_agents", list(actions))):
            if agent not in actions:
                continue
            reward = float(rewards.get(agent, 0.0))
            eps.returns[i] += reward
            self._rows.setdefault((i, agent), []).append({
                SB.OBS: obs[agent], SB.ACTIONS: actions[agent], SB.REWARDS: np.float32(reward),
                SB.TERMINATEDS: bool(terminateds.get(agent, False) or terminateds.get("__all__", False)),
                SB.TRUNCATEDS: bool(truncateds.get(agent, False) or truncateds.get("__all__", False)),
                SB.NEXT_OBS: next_obs.get(agent, obs[agent]), SB.EPS_ID: eps.eps_id[i], SB.T: eps.t[i],
                SB.AGENT_INDEX: index, **extras[agent]})
        eps.t[i] += 1
        if not all_done:
            self.obs[i] = next_obs
            return []
        finished = [(self.agent_to_policy(agent), self._rows.pop((e, agent)))
                    for (e, agent) in list(self._rows) if e == i]
        eps.finish(i)
        self.obs[i] = env.reset()[0]
        return finished


def _env_major(steps_by_env: np.ndarray) -> np.ndarray:
    """(T, N, ...) -> (N * T, ...): each sub-env's steps become contiguous rows."""
    T, N = steps_by_env.shape[:2]
    return steps_by_env.swapaxes(0, 1).reshape(T * N, *steps_by_env.shape[2:])
