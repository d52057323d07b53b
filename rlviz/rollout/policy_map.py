"""``PolicyMap``: policy id -> Policy, holding at most ``capacity`` policies in memory, as RLlib's.

The least recently used policies beyond ``capacity`` are stashed as their
``get_state()`` and rebuilt (or swapped into an evicted policy object) when
next accessed; ``keys``/``values``/``items``/``len``/``in`` see stashed ones too.
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import ItemsView, Iterator, KeysView, ValuesView
from typing import Any

from rlviz.checks import check_int
from rlviz.rollout.policy import Policy

__all__ = ["PolicyMap"]

DEFAULT_CAPACITY = 100


class PolicyMap(dict):
    """Maps policy ids to ``Policy`` objects, keeping the ``capacity`` most recently used ones in memory.

    Parameters
    ----------
    capacity : int
        Policies held in memory (RLlib's default 100; None means that too); must be >= 1.
    policy_states_are_swappable : bool
        When True, a stashed policy comes back by loading its state into the
        object of the policy evicted to make room (all policies must share class
        and spaces), instead of building a new object.
    worker_index, num_workers, policy_config, session_creator, seed, path
        RLlib 1.x's keywords; kept as attributes (``create_policy`` uses
        ``policy_config``), otherwise unused: rlviz stashes in memory, never on disk.

    Raises
    ------
    ValueError
        If ``capacity`` is below 1 (or not an int).

    Examples
    --------
    >>> import gymnasium
    >>> from rlviz.rollout.random_policy import RandomPolicy
    >>> spaces = (gymnasium.spaces.Box(-1, 1, (2,)), gymnasium.spaces.Discrete(2))
    >>> policies = PolicyMap(capacity=1)
    >>> policies["a"], policies["b"] = RandomPolicy(*spaces), RandomPolicy(*spaces)
    >>> list(policies.keys()), len(policies), "a" in policies, policies.stashed_policy_ids()
    (['a', 'b'], 2, True, ['a'])
    """

    def __init__(self, *, capacity: int | None = DEFAULT_CAPACITY, policy_states_are_swappable: bool = False,
                 worker_index: int | None = None, num_workers: int | None = None, policy_config: Any = None,
                 session_creator: Any = None, seed: int | None = None, path: str | None = None) -> None:
        super().__init__()
        capacity = DEFAULT_CAPACITY if capacity is None else capacity
        check_int("capacity", capacity, minimum=1,
                  hint="a PolicyMap keeps at least one policy in memory; "
                       "use capacity=1 or more (RLlib's default is 100)")
        self.capacity = capacity
        self.policy_states_are_swappable = policy_states_are_swappable
        self.worker_index, self.num_workers = worker_index, num_workers
        self.policy_config, self.session_creator, self.seed, self.path = policy_config, session_creator, seed, path
        self.cache: dict[str, Policy] = {}
        self._valid_keys: dict[str, None] = {}          # every id, stashed or not, in insertion order
        self._deque: deque[str] = deque()               # in-memory ids, least recently used first
        self._policy_states: dict[str, dict] = {}       # stashed ids -> get_state()
        self._lock = threading.RLock()

    # -- the mapping --------------------------------------------------------
    def __getitem__(self, policy_id: str) -> Policy:
        with self._lock:
            if policy_id not in self._valid_keys:
                raise KeyError(f"PolicyID {policy_id!r} not found in this PolicyMap; it holds "
                               f"{list(self._valid_keys)}")
            if policy_id in self.cache:
                self._deque.remove(policy_id)
                self._deque.append(policy_id)
                return self.cache[policy_id]
            return self._restore(policy_id)

    def __setitem__(self, policy_id: str, policy: Policy) -> None:
        with self._lock:
            self._forget(policy_id)
            self._valid_keys[policy_id] = None
            self.cache[policy_id] = policy
            self._deque.append(policy_id)
            self._stash_beyond_capacity()

    def __delitem__(self, policy_id: str) -> None:
        with self._lock:
            if policy_id not in self._valid_keys:
                raise KeyError(f"PolicyID {policy_id!r} not found in this PolicyMap")
            self._forget(policy_id)

    def __contains__(self, policy_id: object) -> bool:
        return policy_id in self._valid_keys

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._valid_keys))

    def __len__(self) -> int:
        return len(self._valid_keys)

    def __bool__(self) -> bool:
        return bool(self._valid_keys)

    def keys(self) -> KeysView:
        """All policy ids, the stashed ones too."""
        return KeysView(self)

    def values(self) -> ValuesView:
        """All policies, the stashed ones too (each is brought back into memory as it is reached)."""
        return ValuesView(self)

    def items(self) -> ItemsView:
        """All ``(policy_id, policy)`` pairs, the stashed ones too (brought back as they are reached)."""
        return ItemsView(self)

    def get(self, policy_id: str, default: Any = None) -> Any:
        """The policy for ``policy_id``, or ``default``."""
        return self[policy_id] if policy_id in self._valid_keys else default

    def pop(self, policy_id: str, *default: Any) -> Any:
        """Remove and return the policy for ``policy_id`` (or ``default`` if given and absent)."""
        if policy_id not in self._valid_keys:
            if default:
                return default[0]
            raise KeyError(f"PolicyID {policy_id!r} not found in this PolicyMap")
        policy = self[policy_id]
        del self[policy_id]
        return policy

    def update(self, *others: Any, **more: Policy) -> None:
        """Insert every pair of ``others`` and ``more``, one by one (so capacity holds throughout)."""
        for other in others:
            for policy_id, policy in (other.items() if hasattr(other, "items") else other):
                self[policy_id] = policy
        for policy_id, policy in more.items():
            self[policy_id] = policy

    def __repr__(self) -> str:
        return f"<PolicyMap lru-caching-capacity={self.capacity} policy-IDs={list(self._valid_keys)}>"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a PolicyMap is not sent between processes; send policy states (get_state()) instead")

    # -- RLlib 1.x -------------------------------------------------------------
    def create_policy(self, policy_id: str, policy_cls: type, observation_space: Any, action_space: Any,
                      config_override: dict | None = None, merged_config: Any = None) -> Policy:
        """Build ``policy_cls(observation_space, action_space, config)`` and insert it, as RLlib 1.x's PolicyMap did.

        The config is ``merged_config`` if given, else ``policy_config`` updated
        with ``config_override`` (when both are dicts), else ``config_override``.
        """
        config = merged_config
        if config is None:
            base = self.policy_config if isinstance(self.policy_config, dict) else {}
            config = {**base, **(config_override or {})} or None
        self[policy_id] = policy_cls(observation_space, action_space, config, seed=self.seed)
        return self.cache[policy_id]

    def stashed_policy_ids(self) -> list[str]:
        """The ids whose policies are stashed (not in memory), oldest stash first."""
        return list(self._policy_states)

    # -- stashing -------------------------------------------------------------
    def _restore(self, policy_id: str) -> Policy:
        state = self._policy_states.pop(policy_id)
        if self.policy_states_are_swappable and len(self.cache) >= self.capacity:
            policy = self._stash(self._deque[0])
            policy.set_state(state)
        else:
            policy = state["policy_spec"]["policy_class"].from_state(state)
        self.cache[policy_id] = policy
        self._deque.append(policy_id)
        self._stash_beyond_capacity()
        return policy

    def _stash_beyond_capacity(self) -> None:
        while len(self.cache) > self.capacity:
            self._stash(self._deque[0])

    def _stash(self, policy_id: str) -> Policy:
        """Move ``policy_id``'s policy out of memory as its state; return the evicted object."""
        self._deque.remove(policy_id)
        policy = self.cache.pop(policy_id)
        self._policy_states[policy_id] = policy.get_state()
        return policy

    def _forget(self, policy_id: str) -> None:
        self._valid_keys.pop(policy_id, None)
        self._policy_states.pop(policy_id, None)
        if self.cache.pop(policy_id, None) is not None:
            self._deque.remove(policy_id)
