"""``Policy``: the interface every rlviz policy implements, and the checks of the spaces it accepts.

Acting, postprocessing, learning and weights, as in RLlib 1.x.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np

from rlviz.rollout.config import make_config
from rlviz.rollout.sample_batch import SampleBatch

__all__ = ["Policy", "check_box_obs", "check_discrete_actions"]


class Policy:
    """Maps observations to actions and learns from batches; subclasses fill in the parts.

    Parameters
    ----------
    observation_space : gymnasium.spaces.Space
        What one observation looks like.
    action_space : gymnasium.spaces.Space
        What one action looks like.
    config : dataclass instance, dict or None
        Settings of type ``config_class`` (a dict is converted; None uses defaults).
    seed : int, optional
        Seeds this policy's own random generators.

    Notes
    -----
    ``global_timestep`` counts the env steps this policy acted on, and is
    overwritten by ``on_global_var_update({"timestep": ...})`` when a trainer
    broadcasts the global count (DQN's epsilon schedule reads it).
    """

    config_class: type = type(None)

    def __init__(self, observation_space: Any, action_space: Any, config: Any = None,
                 seed: int | None = None) -> None:
        self.observation_space = observation_space
        self.action_space = action_space
        self.config = make_config(self.config_class, config) if self.config_class is not type(None) else config
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.global_timestep = 0

    # -- acting ---------------------------------------------------------------
    def compute_actions(self, obs_batch: np.ndarray, explore: bool = True) -> tuple[np.ndarray, dict]:
        """Actions for a batch of observations, plus extra per-row outputs.

        Parameters
        ----------
        obs_batch : np.ndarray
            Observations stacked on axis 0.
        explore : bool
            Sample / explore (True) or act greedily (False).

        Returns
        -------
        actions : np.ndarray
            One action per row.
        extra : dict of str to np.ndarray
            Columns to store with the step, e.g. ``action_logp`` or ``q_values``.
        """
        raise NotImplementedError

    def postprocess_trajectory(self, batch: SampleBatch) -> SampleBatch:
        """Add computed columns (returns, advantages, ...) to one episode segment.

        Called once per episode segment; the segment may end mid-episode when
        the fragment ran out (neither terminated nor truncated).  The default
        returns the batch unchanged.
        """
        return batch

    # -- learning -------------------------------------------------------------
    def learn_on_batch(self, batch: SampleBatch) -> dict:
        """One update from ``batch``; returns learner statistics (``compute_gradients`` then ``apply_gradients``)."""
        grads, info = self.compute_gradients(batch)
        self.apply_gradients(grads)
        return info

    def compute_gradients(self, batch: SampleBatch) -> tuple[list[np.ndarray], dict]:
        """Gradients of the loss on ``batch`` as numpy arrays, plus statistics (does not update)."""
        return [], {}

    def apply_gradients(self, gradients: list[np.ndarray]) -> None:
        """Take one optimizer step with ``gradients`` (from this or another copy of the policy)."""

    # -- weights and global state ----------------------------------------------
    def get_weights(self) -> dict[str, np.ndarray]:
        """The parameters as a dict of numpy arrays (cheap to send between actors)."""
        return {}

    def set_weights(self, weights: dict[str, np.ndarray]) -> None:
        """Load parameters produced by ``get_weights``."""

    def get_state(self) -> dict:
        """Everything needed to rebuild this policy: RLlib's ``weights``, ``global_timestep`` and ``policy_spec``.

        ``policy_spec`` holds the class, spaces, config and seed (objects, kept in
        this process: a ``PolicyMap`` stashes states in memory); ``rng_state``
        (an rlviz addition) lets a restored policy go on drawing the same random
        numbers.  Subclasses add their parts (optimizer, target network).

        Examples
        --------
        >>> import gymnasium
        >>> from rlviz.rollout.random_policy import RandomPolicy
        >>> policy = RandomPolicy(gymnasium.spaces.Box(-1, 1, (2,)), gymnasium.spaces.Discrete(2), seed=0)
        >>> sorted(policy.get_state())
        ['global_timestep', 'policy_spec', 'rng_state', 'weights']
        """
        return {"weights": self.get_weights(), "global_timestep": self.global_timestep,
                "policy_spec": {"policy_class": type(self), "observation_space": self.observation_space,
                                "action_space": self.action_space, "config": self.config, "seed": self.seed},
                "rng_state": copy.deepcopy(self.rng.bit_generator.state)}

    def set_state(self, state: dict) -> None:
        """Load a ``get_state()`` result of a policy of the same class and spaces."""
        self.set_weights(state["weights"])
        self.global_timestep = int(state["global_timestep"])
        if "rng_state" in state:
            self.rng.bit_generator.state = copy.deepcopy(state["rng_state"])

    @classmethod
    def from_state(cls, state: dict) -> "Policy":
        """A new policy built from ``state["policy_spec"]`` and loaded with ``state``, as RLlib's ``Policy.from_state``.

        Raises
        ------
        ValueError
            If ``state`` has no ``policy_spec`` (it did not come from ``get_state``).
        """
        spec = state.get("policy_spec")
        if not spec:
            raise ValueError(f"Policy.from_state needs the 'policy_spec' a get_state() result holds; "
                             f"got keys {sorted(state)}")
        policy = spec["policy_class"](spec["observation_space"], spec["action_space"], spec["config"],
                                      seed=spec.get("seed"))
        policy.set_state(state)
        return policy

    def on_global_var_update(self, global_vars: dict) -> None:
        """Receive the trainer's global variables (``timestep``)."""
        if "timestep" in global_vars:
            self.global_timestep = int(global_vars["timestep"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(obs={self.observation_space}, actions={self.action_space})"


def check_box_obs(policy_name: str, space: Any) -> int:
    """The size of a 1-D ``Box`` observation space.

    Raises
    ------
    ValueError
        Naming the space and what is supported.

    Examples
    --------
    >>> import gymnasium
    >>> check_box_obs("PGPolicy", gymnasium.spaces.Box(-1, 1, (4,)))
    4
    >>> check_box_obs("PGPolicy", gymnasium.spaces.Discrete(16))
    Traceback (most recent call last):
    ...
    ValueError: PGPolicy supports 1-D Box observation spaces, got Discrete(16); ...
    """
    from gymnasium.spaces import Box

    if not isinstance(space, Box) or len(space.shape) != 1:
        raise ValueError(f"{policy_name} supports 1-D Box observation spaces, got {space}; "
                         f"flatten the observation (gymnasium.wrappers.FlattenObservation) "
                         f"or one-hot encode a Discrete one")
    return int(space.shape[0])


def check_discrete_actions(policy_name: str, space: Any) -> int:
    """The number of actions of a ``Discrete`` action space.

    Raises
    ------
    ValueError
        Naming the space and what is supported.

    Examples
    --------
    >>> import gymnasium
    >>> check_discrete_actions("DQNPolicy", gymnasium.spaces.Discrete(2))
    2
    """
    from gymnasium.spaces import Discrete

    if not isinstance(space, Discrete):
        raise ValueError(f"{policy_name} supports Discrete action spaces, got {space}; "
                         f"use an env with discrete actions (e.g. CartPole-v1) or RandomPolicy")
    return int(space.n)
