"""``DQNPolicy``: an epsilon-greedy Q network with a target network, Huber loss, optional double-Q and n-step returns.

Epsilon decays linearly with the global timestep a trainer broadcasts; n-step
returns are computed on the worker, per episode segment, before replay.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from rlviz.checks import check_int
from rlviz.rollout.policy import check_box_obs, check_discrete_actions
from rlviz.rollout.sample_batch import SampleBatch
from rlviz.rollout.torch_policy import TorchPolicy, mlp, seeded_init

__all__ = ["DQNPolicy", "DQNConfig", "adjust_nstep", "linear_schedule", "N_STEPS", "PRIO_WEIGHTS"]

#: Column added by ``adjust_nstep``: how many rewards each row's return sums (the bootstrap uses gamma ** n_steps).
N_STEPS = "n_steps"
#: Column of importance weights a prioritized replay buffer adds; the loss weights each row by it.
PRIO_WEIGHTS = "weights"


@dataclass
class DQNConfig:
    """Settings of DQNPolicy."""

    lr: float = 5e-4
    """Adam learning rate."""
    gamma: float = 0.99
    """Discount factor."""
    hidden_sizes: tuple[int, ...] = (64,)
    """Hidden layer sizes of the Q network."""
    double_q: bool = True
    """Pick the next action with the online net, value it with the target net."""
    initial_epsilon: float = 1.0
    """Exploration rate at timestep 0."""
    final_epsilon: float = 0.02
    """Exploration rate after epsilon_timesteps."""
    epsilon_timesteps: int = 10_000
    """Timesteps over which epsilon decays linearly."""
    grad_clip: float | None = 10.0
    """Clip the gradient norm to this (None: no clipping)."""
    n_step: int = 1
    """Rewards summed per target (RLlib's ``n_step``): r_t + ... + gamma^(n-1) r_(t+n-1) + gamma^n Q(s_(t+n))."""

    def __post_init__(self) -> None:
        check_int("n_step", self.n_step, minimum=1, hint="1 is plain one-step Q-learning")


class DQNPolicy(TorchPolicy):
    """Q-learning on Box-observation, Discrete-action envs.

    Parameters
    ----------
    observation_space : gymnasium.spaces.Box
        1-D observations.
    action_space : gymnasium.spaces.Discrete
        The actions.
    config : DQNConfig or dict, optional
        Settings (defaults: ``DQNConfig()``).
    seed : int, optional
        Seeds the network initialisation and exploration.

    Raises
    ------
    ValueError
        If a space is not supported (the message names it).

    Examples
    --------
    >>> import gymnasium, numpy as np
    >>> env = gymnasium.make("CartPole-v1")
    >>> policy = DQNPolicy(env.observation_space, env.action_space, {"epsilon_timesteps": 100}, seed=0)
    >>> policy.on_global_var_update({"timestep": 50})
    >>> round(policy.epsilon(), 2)
    0.51
    >>> actions, extra = policy.compute_actions(np.zeros((2, 4), np.float32))
    >>> extra["q_values"].shape
    (2, 2)
    """

    config_class = DQNConfig

    def __init__(self, observation_space: Any, action_space: Any, config: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(observation_space, action_space, config, seed)
        name = type(self).__name__
        n_obs = check_box_obs(name, observation_space)
        self.num_actions = check_discrete_actions(name, action_space)
        sizes = [n_obs, *self.config.hidden_sizes, self.num_actions]
        self.set_model(seeded_init(seed, lambda: mlp(sizes)), self.config.lr)
        self.target_model = copy.deepcopy(self.model).requires_grad_(False)
        self.num_target_updates = 0

    def epsilon(self) -> float:
        """The exploration rate at ``global_timestep``."""
        cfg = self.config
        return linear_schedule(cfg.initial_epsilon, cfg.final_epsilon, cfg.epsilon_timesteps, self.global_timestep)

    def compute_actions(self, obs_batch: np.ndarray, explore: bool = True) -> tuple[np.ndarray, dict]:
        """Greedy actions, each replaced by a random one with probability ``epsilon()`` when exploring.

        Returns ``q_values`` (rows x actions) as the extra column.
        """
        with torch.no_grad():
            q_values = self.model(torch.as_tensor(np.asarray(obs_batch), dtype=torch.float32)).numpy()
        actions = q_values.argmax(axis=1)
        if explore:
            n = len(actions)
            explore_rows = self.rng.random(n) < self.epsilon()
            actions = np.where(explore_rows, self.rng.integers(self.num_actions, size=n), actions)
            self.global_timestep += n
        return actions, {SampleBatch.Q_VALUES: q_values}

    def postprocess_trajectory(self, batch: SampleBatch) -> SampleBatch:
        """With ``n_step > 1``: n-step returns for one episode segment (``adjust_nstep``); else unchanged."""
        if self.config.n_step == 1:
            return batch
        return adjust_nstep(self.config.n_step, self.config.gamma, batch)

    def update_target(self) -> None:
        """Copy the online network's weights into the target network."""
        self.target_model.load_state_dict(self.model.state_dict())
        self.num_target_updates += 1

    def get_state(self) -> dict:
        """``TorchPolicy.get_state`` plus the target network's weights and update count."""
        target = {k: v.detach().cpu().numpy().copy() for k, v in self.target_model.state_dict().items()}
        return {**super().get_state(), "target_weights": target, "num_target_updates": self.num_target_updates}

    def set_state(self, state: dict) -> None:
        """Load ``get_state()``'s parts, the target network's among them."""
        super().set_state(state)
        if "target_weights" in state:
            self.target_model.load_state_dict({k: torch.from_numpy(np.array(v))
                                               for k, v in state["target_weights"].items()})
            self.num_target_updates = int(state["num_target_updates"])

    def loss(self, batch: SampleBatch) -> tuple[torch.Tensor, dict]:
        """Huber loss between Q(s, a) and r + gamma^k * (1 - terminated) * Q_target(s', a').

        k is the ``n_steps`` column that ``adjust_nstep`` wrote (1 without it).
        Rows from a prioritized buffer carry importance ``weights`` (``(N P(i))^-beta``
        over their max); the per-row losses are weighted by them before the mean,
        which undoes the bias of replaying high-TD-error rows more often.
        """
        q_taken, target = self._q_and_target(batch)
        per_row = nn.functional.smooth_l1_loss(q_taken, target, reduction="none")
        if PRIO_WEIGHTS in batch:
            per_row = per_row * self.column_tensor(batch, PRIO_WEIGHTS)
        loss = per_row.mean()
        return loss, {"mean_q": float(q_taken.mean().detach()),
                      "mean_td_error": float((q_taken - target).abs().mean().detach()),
                      "epsilon": self.epsilon()}

    def compute_td_error(self, batch: SampleBatch) -> np.ndarray:
        """Per-row TD errors ``Q(s, a) - target`` (for prioritized replay), without learning."""
        with torch.no_grad():
            q_taken, target = self._q_and_target(batch)
        return (q_taken - target).numpy()

    def compute_gradients(self, batch: SampleBatch) -> tuple[list[np.ndarray], dict]:
        """As ``TorchPolicy.compute_gradients``, with the gradient norm clipped to ``grad_clip``."""
        self.optimizer.zero_grad()
        loss, info = self.loss(batch)
        loss.backward()
        if self.config.grad_clip is not None:
            nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
        grads = [p.grad.detach().numpy().copy() for p in self.model.parameters()]
        info["loss"] = float(loss.detach())
        return grads, info

    def _q_and_target(self, batch: SampleBatch) -> tuple[torch.Tensor, torch.Tensor]:
        obs = self.column_tensor(batch, SampleBatch.OBS)
        new_obs = self.column_tensor(batch, SampleBatch.NEXT_OBS)
        actions = self.column_tensor(batch, SampleBatch.ACTIONS, torch.int64)
        rewards = self.column_tensor(batch, SampleBatch.REWARDS)
        not_done = 1.0 - self.column_tensor(batch, SampleBatch.TERMINATEDS)
        q_taken = self.model(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            q_next_target = self.target_model(new_obs)
            if self.config.double_q:
                best = self.model(new_obs).argmax(dim=1, keepdim=True)
                q_next = q_next_target.gather(1, best).squeeze(1)
            else:
                q_next = q_next_target.max(dim=1).values
            if N_STEPS in batch:
                discount = self.config.gamma ** self.column_tensor(batch, N_STEPS)
            else:
                discount = self.config.gamma
            target = rewards + discount * not_done * q_next
        return q_taken, target


def adjust_nstep(n_step: int, gamma: float, batch: SampleBatch) -> SampleBatch:
    """n-step returns for one episode segment, as RLlib's ``_adjust_nstep`` (with one correction).

    Row t gets ``rewards = r_t + gamma r_(t+1) + ... + gamma^(k-1) r_(t+k-1)``
    with ``k = min(n_step, len - t)``, and the ``new_obs``, ``terminateds`` and
    ``truncateds`` of row ``t + k - 1``; the new ``n_steps`` column holds k.
    The segment must be one episode's contiguous rows (the sampler calls
    ``postprocess_trajectory`` per segment), so only its last row may be
    terminal and no sum crosses an episode end.

    RLlib 1.x bootstrapped every row with ``gamma ** n_step``, also the last
    rows of a segment cut by the fragment boundary, whose sums are shorter;
    rlviz discounts each row's bootstrap by ``gamma ** k``, which is exact.

    Parameters
    ----------
    n_step : int
        Rewards summed per row (>= 1).
    gamma : float
        Discount factor.
    batch : SampleBatch
        One episode segment (not changed; a new batch is returned).

    Returns
    -------
    SampleBatch
        A copy with ``rewards``, ``new_obs``, ``terminateds``, ``truncateds``
        replaced and ``n_steps`` added.

    Raises
    ------
    ValueError
        If a row before the last is terminated or truncated (not one segment).

    Examples
    --------
    Three steps of an episode that terminates, n_step 2, gamma 0.5:

    >>> seg = SampleBatch(rewards=[1.0, 2.0, 4.0], new_obs=[[1.0], [2.0], [3.0]],
    ...                   terminateds=[False, False, True], truncateds=[False, False, False])
    >>> out = adjust_nstep(2, 0.5, seg)
    >>> out["rewards"].tolist(), out["new_obs"].tolist()
    ([2.0, 4.0, 4.0], [[2.0], [3.0], [3.0]])
    >>> out["terminateds"].tolist(), out["n_steps"].tolist()
    ([False, True, True], [2, 2, 1])
    """
    terminateds = np.asarray(batch[SampleBatch.TERMINATEDS], dtype=bool)
    truncateds = np.asarray(batch[SampleBatch.TRUNCATEDS], dtype=bool)
    n = len(terminateds)
    if (terminateds[:-1] | truncateds[:-1]).any():
        raise ValueError("adjust_nstep got a batch with an episode end before its last row; pass one episode "
                         "segment at a time (SampleBatch.split_by_episode)")
    rewards = np.asarray(batch[SampleBatch.REWARDS], dtype=np.float64)
    last = np.minimum(np.arange(n) + n_step - 1, n - 1)        # row whose new_obs/done each row takes
    summed = np.zeros(n)
    for j in range(n_step):
        rows = np.arange(n - j) if j < n else np.arange(0)
        summed[rows] += gamma ** j * rewards[rows + j]
    out = SampleBatch(batch)
    out[SampleBatch.REWARDS] = summed.astype(np.asarray(batch[SampleBatch.REWARDS]).dtype)
    out[SampleBatch.NEXT_OBS] = np.asarray(batch[SampleBatch.NEXT_OBS])[last]
    out[SampleBatch.TERMINATEDS] = terminateds[last]
    out[SampleBatch.TRUNCATEDS] = truncateds[last]
    out[N_STEPS] = (last - np.arange(n) + 1).astype(np.int64)
    return out


def linear_schedule(start: float, end: float, duration: int, t: int) -> float:
    """Linear interpolation from ``start`` to ``end`` over ``duration`` steps, then ``end``.

    Examples
    --------
    >>> linear_schedule(1.0, 0.0, 10, 5), linear_schedule(1.0, 0.0, 10, 50)
    (0.5, 0.0)
    """
    fraction = min(max(t, 0) / max(duration, 1), 1.0)
    return start + fraction * (end - start)
