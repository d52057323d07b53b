"""``TorchPolicy``: the torch plumbing shared by PG, A2C and DQN (gradients and weights as numpy).

A subclass builds ``self.model`` and writes ``loss(batch)``; this module turns
that into compute/apply gradients and numpy weights.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import nn

from rlviz.rollout.policy import Policy
from rlviz.rollout.sample_batch import SampleBatch

__all__ = ["TorchPolicy", "mlp", "seeded_init"]


def mlp(sizes: list[int]) -> nn.Sequential:
    """A tanh MLP with the given layer sizes (no activation after the last layer).

    Examples
    --------
    >>> mlp([4, 8, 2])
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): Tanh()
      (2): Linear(in_features=8, out_features=2, bias=True)
    )
    """
    layers: list[nn.Module] = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class TorchPolicy(Policy):
    """A policy whose parameters live in ``self.model`` and learn with one Adam optimizer.

    Subclasses call ``super().__init__``, then ``self.set_model(model, lr)``, and
    implement ``loss(batch) -> (loss tensor, info dict)``.  Gradients cross
    actors as a list of numpy arrays in ``self.model.parameters()`` order.
    """

    def set_model(self, model: nn.Module, lr: float) -> None:
        """Use ``model`` (its parameters learn with one Adam optimizer at learning rate ``lr``)."""
        self.model = model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def loss(self, batch: SampleBatch) -> tuple[torch.Tensor, dict]:
        """The scalar loss on ``batch`` and statistics to report."""
        raise NotImplementedError

    def compute_gradients(self, batch: SampleBatch) -> tuple[list[np.ndarray], dict]:
        """Gradients of ``loss(batch)`` as numpy arrays (one per parameter) and statistics.

        Examples
        --------
        >>> import gymnasium, numpy as np
        >>> from rlviz.rollout.pg_policy import PGPolicy
        >>> policy = PGPolicy(gymnasium.spaces.Box(-1, 1, (4,)), gymnasium.spaces.Discrete(2), seed=0)
        >>> batch = SampleBatch(obs=np.zeros((3, 4), np.float32), actions=[0, 1, 0], advantages=[1.0, -1.0, 0.5])
        >>> grads, info = policy.compute_gradients(batch)
        >>> len(grads) == len(list(policy.model.parameters())), "policy_loss" in info
        (True, True)
        """
        self.optimizer.zero_grad()
        loss, info = self.loss(batch)
        loss.backward()
        grads = [np.zeros(tuple(p.shape), np.float32) if p.grad is None else p.grad.detach().numpy().copy()
                 for p in self.model.parameters()]
        info["loss"] = float(loss.detach())
        return grads, info

    def apply_gradients(self, gradients: list[np.ndarray]) -> None:
        """One optimizer step with ``gradients`` in ``model.parameters()`` order.

        Raises
        ------
        ValueError
            If the number of gradients does not match the parameters.
        """
        params = list(self.model.parameters())
        if len(gradients) != len(params):
            raise ValueError(f"got {len(gradients)} gradients for {len(params)} parameters of "
                             f"{type(self).__name__}; were they computed by the same policy class?")
        for param, grad in zip(params, gradients):
            param.grad = torch.as_tensor(np.asarray(grad), dtype=param.dtype).reshape(param.shape)
        self.optimizer.step()

    def get_weights(self) -> dict[str, np.ndarray]:
        """``model.state_dict()`` as numpy arrays (copies)."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.model.state_dict().items()}

    def set_weights(self, weights: dict[str, np.ndarray]) -> None:
        """Load numpy weights from ``get_weights``.

        Raises
        ------
        ValueError
            If the keys do not match this model's parameters.
        """
        own = self.model.state_dict()
        if set(weights) != set(own):
            raise ValueError(f"weights have keys {sorted(weights)} but {type(self).__name__} expects "
                             f"{sorted(own)}; were they taken from the same policy class?")
        self.model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()})

    def get_state(self) -> dict:
        """``Policy.get_state`` plus the optimizer's state as RLlib's ``_optimizer_variables`` (a deep copy)."""
        return {**super().get_state(), "_optimizer_variables": copy.deepcopy(self.optimizer.state_dict())}

    def set_state(self, state: dict) -> None:
        """Load weights, timestep and (when present) the optimizer's state."""
        super().set_state(state)
        if "_optimizer_variables" in state:
            self.optimizer.load_state_dict(copy.deepcopy(state["_optimizer_variables"]))

    def column_tensor(self, batch: SampleBatch, key: str, dtype: Any = torch.float32) -> torch.Tensor:
        """Column ``key`` of ``batch`` as a tensor of ``dtype``."""
        return torch.as_tensor(np.asarray(batch[key]), dtype=dtype)


def seeded_init(seed: int | None, build):
    """Call ``build()`` with torch's global RNG seeded, leaving the global state as it was."""
    if seed is None:
        return build()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()
