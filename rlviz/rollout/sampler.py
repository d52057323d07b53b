"""Samplers: step environments with policies and cut the experience into batches with correct episode bookkeeping.

``VectorSampler`` drives a gymnasium vector env for one policy;
``MultiAgentSampler`` drives a list of ``MultiAgentEnv``.
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
        self.finished = 0                             # episodes finished since the sampler started

    def finish(self, i: int) -> None:
        """Env ``i``'s episode ended: record it and start a new one."""
        self._record(float(self.returns[i]), int(self.t[i]))
        self.eps_id[i] = self._ids.integers(0, 2**62)
        self.t[i] = 0
        self.returns[i] = 0.0

    def advance(self, rewards: np.ndarray, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Label T steps of N envs at once: ``(eps_id, t)`` columns, shape (T, N).

        ``ended[s, i]`` says env ``i``'s episode ended at step ``s``; the next
        step starts a new episode.  Finished episodes are recorded in step
        order, and the running ids, counters and returns carry over to the
        next fragment.  One vectorised pass instead of per-step bookkeeping.
        """
        T, N = ended.shape
        envs = np.arange(N)
        episode = np.cumsum(ended, axis=0) - ended           # episodes ended before each step
        ids = self._ids.integers(0, 2**62, size=(int(episode.max(initial=0)) + 2, N))
        ids[0] = self.eps_id
        steps = np.arange(T)[:, None]
        starts = np.diff(episode, axis=0, prepend=0) > 0             # first step of each new episode
        first_step = np.maximum.accumulate(np.where(starts, steps, 0), axis=0)
        carried = episode == 0                               # steps of the episode running at the start
        t = np.where(carried, self.t + steps, steps - first_step)
        before = np.cumsum(rewards, axis=0, dtype=np.float64) - rewards
        returns = before + rewards - np.take_along_axis(before, first_step, axis=0) + np.where(carried, self.returns, 0.0)
        for step, i in np.argwhere(ended):
            self._record(float(returns[step, i]), int(t[step, i]) + 1)
        last_ended = ended[-1]
        self.eps_id = ids[episode[-1] + last_ended, envs]
        self.t = np.where(last_ended, 0, t[-1] + 1)
        self.returns = np.where(last_ended, 0.0, returns[-1])
        return ids[episode, envs], t

    def pop(self) -> list[EpisodeMetrics]:
        out = list(self.done)
        self.done.clear()
        return out

    def _record(self, episode_return: float, length: int) -> None:
        self.finished += 1
        if len(self.done) == self.done.maxlen:
            self.dropped += 1
        self.done.append(EpisodeMetrics(episode_return, length, self.worker_index))


def make_vector_env(env_creator: Callable[[], Any] | list[Callable[[], Any]], num_envs: int) -> Any:
    """A ``SyncVectorEnv`` of ``num_envs`` copies in SAME_STEP autoreset mode.

    ``env_creator`` is one zero-argument function called ``num_envs`` times,
    or a list of ``num_envs`` of them (one per sub-env, e.g. each with its own
    ``vector_index``).

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

    env_fns = list(env_creator) if isinstance(env_creator, list) else [env_creator] * num_envs
    return SyncVectorEnv(env_fns, copy=False, autoreset_mode=AutoresetMode.SAME_STEP)


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
    obs_filter : callable, optional
        ``obs_filter(obs_batch)`` applied to every observation the envs return
        (reset, step and final observations) before the policy or the batch
        sees it; RLlib's ``observation_filter``.
    """

    def __init__(self, vector_env: Any, policy: Policy, fragment_length: int,
                 seed: int | None = None, worker_index: int = 0, obs_filter: Callable[[Any], Any] | None = None
                 ) -> None:
        self.env = vector_env
        self.obs_filter = obs_filter or _unfiltered
        self.policy = policy
        self.fragment_length = fragment_length
        self.num_envs = vector_env.num_envs
        self.episodes = _Episodes(self.num_envs, worker_index)
        obs, _ = vector_env.reset(seed=seed)
        self.obs = np.array(self.obs_filter(obs))
        self._postprocess = type(policy).postprocess_trajectory is not Policy.postprocess_trajectory

    def sample(self) -> SampleBatch:
        """Step every sub-env ``fragment_length`` times; return the rows, postprocessed per episode.

        The loop only acts, steps and copies into preallocated (T, N) arrays;
        episode ids, step counters and returns are labelled afterwards in one
        vectorised pass (``_Episodes.advance``).
        """
        T = self.fragment_length
        obs = np.empty((T + 1, *self.obs.shape), self.obs.dtype)
        obs[0] = self.obs
        rewards = np.empty((T, self.num_envs), np.float32)
        terminateds = np.empty((T, self.num_envs), bool)
        truncateds = np.empty((T, self.num_envs), bool)
        final_obs: dict[tuple[int, int], np.ndarray] = {}
        outputs: dict[str, np.ndarray] = {}
        for step in range(T):
            actions, extra = self.policy.compute_actions(obs[step])
            _store_policy_outputs(outputs, step, T, actions, extra)
            next_obs, rewards[step], terminateds[step], truncateds[step], infos = self.env.step(actions)
            obs[step + 1] = self.obs_filter(next_obs)
            if "final_obs" in infos:                 # SAME_STEP: next_obs[i] is already the reset obs
                for i in np.flatnonzero(infos["_final_obs"]):
                    final_obs[step, i] = self.obs_filter(infos["final_obs"][i])
        self.obs = obs[T].copy()
        new_obs = obs[1:].copy()
        for (step, i), last in final_obs.items():
            new_obs[step, i] = last
        eps_id, t = self.episodes.advance(rewards, terminateds | truncateds)
        columns = {SB.OBS: obs[:T], SB.ACTIONS: outputs.pop(SB.ACTIONS), SB.REWARDS: rewards,
                   SB.TERMINATEDS: terminateds, SB.TRUNCATEDS: truncateds, SB.NEXT_OBS: new_obs, SB.EPS_ID: eps_id,
                   SB.AGENT_INDEX: np.zeros_like(t), SB.T: t, **outputs}
        batch = SampleBatch({key: _env_major(value) for key, value in columns.items()})
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


def _unfiltered(obs: Any) -> Any:
    return obs


def _store_policy_outputs(outputs: dict, step: int, T: int, actions: Any, extra: dict) -> None:
    """Copy one step's actions and extra policy outputs into (T, ...) arrays, allocated at the first step."""
    for key, value in ((SB.ACTIONS, actions), *extra.items()):
        if key not in outputs:
            value = np.asarray(value)
            outputs[key] = np.empty((T, *value.shape), value.dtype)
        outputs[key][step] = value


def _env_major(steps_by_env: np.ndarray) -> np.ndarray:
    """(T, N, ...) -> (N * T, ...): each sub-env's steps become contiguous rows."""
    T, N = steps_by_env.shape[:2]
    return steps_by_env.swapaxes(0, 1).reshape(T * N, *steps_by_env.shape[2:])
