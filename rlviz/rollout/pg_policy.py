"""``PGPolicy`` and ``A2CPolicy``: policy gradient with discounted returns, optionally with a critic and GAE.

PG weights each log-probability by the return that followed; A2C adds a value
head and uses advantages.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from rlviz.rollout.policy import check_box_obs, check_discrete_actions
from rlviz.rollout.sample_batch import SampleBatch
from rlviz.rollout.torch_policy import TorchPolicy, mlp, seeded_init

__all__ = ["PGPolicy", "PGConfig", "A2CPolicy", "A2CConfig", "discount_cumsum"]


@dataclass
class PGConfig:
    """Settings of PGPolicy (REINFORCE; set use_critic for A2C)."""

    lr: float = 0.01
    """Adam learning rate."""
    gamma: float = 0.99
    """Discount factor."""
    hidden_sizes: tuple[int, ...] = (32,)
    """Hidden layer sizes of the policy (and value) MLP."""
    use_critic: bool = False
    """Learn a value head and use advantages instead of raw returns (A2C)."""
    use_gae: bool = True
    """With a critic: generalized advantage estimation (else n-step returns minus the value)."""
    lambda_: float = 1.0
    """GAE lambda (1.0: Monte-Carlo advantages, 0.0: one-step TD)."""
    vf_loss_coeff: float = 0.5
    """Weight of the value loss in the total loss."""
    entropy_coeff: float = 0.0
    """Weight of the entropy bonus (subtracted from the loss)."""
    standardize_advantages: bool = True
    """Rescale advantages to mean 0, std 1 within each training batch."""


@dataclass
class A2CConfig(PGConfig):
    """Settings of A2CPolicy: PGConfig with the critic switched on."""

    use_critic: bool = True
    """Learn a value head and use advantages instead of raw returns (A2C)."""
    entropy_coeff: float = 0.01
    """Weight of the entropy bonus (subtracted from the loss)."""


class PGPolicy(TorchPolicy):
    """A categorical policy trained by policy gradient on Box-observation, Discrete-action envs.

    Parameters
    ----------
    observation_space : gymnasium.spaces.Box
        1-D observations.
    action_space : gymnasium.spaces.Discrete
        The actions.
    config : PGConfig or dict, optional
        Settings (defaults: ``PGConfig()``).
    seed : int, optional
        Seeds the network initialisation and action sampling.

    Raises
    ------
    ValueError
        If a space is not supported (the message names it).

    Examples
    --------
    >>> import gymnasium, numpy as np
    >>> env = gymnasium.make("CartPole-v1")
    >>> policy = PGPolicy(env.observation_space, env.action_space, {"lr": 0.02}, seed=0)
    >>> actions, extra = policy.compute_actions(np.zeros((2, 4), np.float32))
    >>> actions.shape, sorted(extra)
    ((2,), ['action_logp'])
    """

    config_class = PGConfig

    def __init__(self, observation_space: Any, action_space: Any, config: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(observation_space, action_space, config, seed)
        name = type(self).__name__
        n_obs = check_box_obs(name, observation_space)
        self.num_actions = check_discrete_actions(name, action_space)
        sizes = [n_obs, *self.config.hidden_sizes]
        critic = self.config.use_critic

        def build() -> nn.Module:
            heads = {"pi": mlp([*sizes, self.num_actions])}
            if critic:
                heads["vf"] = mlp([*sizes, 1])
            return nn.ModuleDict(heads)

        self.set_model(seeded_init(seed, build), self.config.lr)

    # -- acting ---------------------------------------------------------------
    def compute_actions(self, obs_batch: np.ndarray, explore: bool = True) -> tuple[np.ndarray, dict]:
        """Sample actions from the softmax of the logits (argmax if not exploring).

        Returns ``action_logp`` and, with a critic, ``vf_preds`` as extra columns.
        """
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(obs_batch), dtype=torch.float32)
            probs = torch.softmax(self.model["pi"](obs), dim=-1).numpy().astype(np.float64)
            values = self.model["vf"](obs).squeeze(-1).numpy() if self.config.use_critic else None
        if explore:
            u = self.rng.random((len(probs), 1))
            actions = np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), self.num_actions - 1)
        else:
            actions = probs.argmax(axis=1)
        self.global_timestep += len(actions)
        logp = np.log(probs[np.arange(len(actions)), actions] + 1e-12).astype(np.float32)
        extra = {SampleBatch.ACTION_LOGP: logp}
        if values is not None:
            extra[SampleBatch.VF_PREDS] = values.astype(np.float32)
        return actions, extra

    def postprocess_trajectory(self, batch: SampleBatch) -> SampleBatch:
        """Add ``advantages`` and ``value_targets`` to one episode segment.

        Without a critic both are the discounted returns (a segment cut by the
        fragment boundary bootstraps with 0, as RLlib's PG does).  With a
        critic, an unfinished or truncated segment bootstraps with V(last new_obs).

        Examples
        --------
        >>> import gymnasium
        >>> policy = PGPolicy(gymnasium.spaces.Box(-1, 1, (1,)), gymnasium.spaces.Discrete(2), {"gamma": 0.5})
        >>> seg = SampleBatch(rewards=[1.0, 1.0, 1.0], terminateds=[False, False, True])
        >>> policy.postprocess_trajectory(seg)["advantages"].tolist()
        [1.75, 1.5, 1.0]
        """
        rewards = np.asarray(batch[SampleBatch.REWARDS], dtype=np.float64)
        gamma = self.config.gamma
        out = SampleBatch(batch)
        if not self.config.use_critic:
            returns = discount_cumsum(rewards, gamma).astype(np.float32)
            out[SampleBatch.ADVANTAGES] = returns
            out[SampleBatch.VALUE_TARGETS] = returns
            return out
        values = np.asarray(batch[SampleBatch.VF_PREDS], dtype=np.float64)
        last_value = 0.0 if bool(batch[SampleBatch.TERMINATEDS][-1]) else self._value(batch[SampleBatch.NEXT_OBS][-1])
        if self.config.use_gae:
            next_values = np.append(values[1:], last_value)
            deltas = rewards + gamma * next_values - values
            advantages = discount_cumsum(deltas, gamma * self.config.lambda_)
            targets = advantages + values
        else:
            targets = discount_cumsum(np.append(rewards, last_value), gamma)[:-1]
            advantages = targets - values
        out[SampleBatch.ADVANTAGES] = advantages.astype(np.float32)
        out[SampleBatch.VALUE_TARGETS] = targets.astype(np.float32)
        return out

    # -- learning -------------------------------------------------------------
    def loss(self, batch: SampleBatch) -> tuple[torch.Tensor, dict]:
        """-mean(logp * advantage), plus the value loss and entropy bonus with a critic."""
        obs = self.column_tensor(batch, SampleBatch.OBS)
        actions = self.column_tensor(batch, SampleBatch.ACTIONS, torch.int64)
        advantages = self.column_tensor(batch, SampleBatch.ADVANTAGES)
        if self.config.standardize_advantages and len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        log_probs = torch.log_softmax(self.model["pi"](obs), dim=-1)
        logp = log_probs.gather(1, actions.unsqueeze(1)).squeeze(1)
        entropy = -(log_probs.exp() * log_probs).sum(-1).mean()
        policy_loss = -(logp * advantages).mean()
        total = policy_loss - self.config.entropy_coeff * entropy
        info = {"policy_loss": float(policy_loss.detach()), "entropy": float(entropy.detach())}
        if self.config.use_critic:
            values = self.model["vf"](obs).squeeze(-1)
            vf_loss = 0.5 * ((values - self.column_tensor(batch, SampleBatch.VALUE_TARGETS)) ** 2).mean()
            total = total + self.config.vf_loss_coeff * vf_loss
            info["vf_loss"] = float(vf_loss.detach())
        return total, info

    def _value(self, obs: np.ndarray) -> float:
        with torch.no_grad():
            return float(self.model["vf"](torch.as_tensor(np.asarray(obs), dtype=torch.float32)[None])[0, 0])


class A2CPolicy(PGPolicy):
    """PGPolicy with a value head and GAE advantages by default (``A2CConfig``).

    Examples
    --------
    >>> import gymnasium, numpy as np
    >>> policy = A2CPolicy(gymnasium.spaces.Box(-1, 1, (4,)), gymnasium.spaces.Discrete(2), seed=0)
    >>> sorted(policy.compute_actions(np.zeros((1, 4), np.float32))[1])
    ['action_logp', 'vf_preds']
    """

    config_class = A2CConfig


def discount_cumsum(values: np.ndarray, gamma: float) -> np.ndarray:
    """``out[t] = values[t] + gamma * out[t + 1]``, computed backwards.

    Examples
    --------
    >>> discount_cumsum(np.array([1.0, 1.0, 1.0]), 0.5).tolist()
    [1.75, 1.5, 1.0]
    """
    out = np.empty(len(values), dtype=np.float64)
    running = 0.0
    for i in range(len(values) - 1, -1, -1):
        running = values[i] + gamma * running
        out[i] = running
    return out
