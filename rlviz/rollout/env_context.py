"""``EnvContext``: the env config dict an env creator receives, plus where the env runs.

RLlib calls every env creator with one ``EnvContext``, so a creator can seed
or shard its env by ``worker_index`` and ``vector_index``; rlviz does the same.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["EnvContext"]


class EnvContext(dict):
    """The env config (a dict) plus ``worker_index``, ``num_workers``, ``vector_index`` and ``remote``.

    Parameters
    ----------
    env_config : dict
        The user's env settings; the context *is* this dict.
    worker_index : int
        0 for the local worker, 1.. for remote ones.
    num_workers : int
        Remote workers in the set.
    vector_index : int
        Which sub-env of the worker's vector this is.
    remote : bool
        Whether sub-envs run as their own Ray actors (never in rlviz).

    Examples
    --------
    >>> ctx = EnvContext({"size": 5}, worker_index=2, num_workers=3)
    >>> ctx["size"], ctx.worker_index, ctx.vector_index
    (5, 2, 0)
    >>> ctx.copy_with_overrides(vector_index=1).vector_index
    1
    """

    def __init__(self, env_config: Mapping[str, Any] | None = None, worker_index: int = 0,
                 num_workers: int = 0, vector_index: int = 0, remote: bool = False) -> None:
        super().__init__(env_config or {})
        self.worker_index = worker_index
        self.num_workers = num_workers
        self.vector_index = vector_index
        self.remote = remote

    def copy_with_overrides(self, env_config: Mapping[str, Any] | None = None, worker_index: int | None = None,
                            vector_index: int | None = None, remote: bool | None = None,
                            num_workers: int | None = None) -> "EnvContext":
        """A new context: this one with the given fields replaced (None keeps a field)."""
        return EnvContext(dict(self) if env_config is None else env_config,
                          self.worker_index if worker_index is None else worker_index,
                          self.num_workers if num_workers is None else num_workers,
                          self.vector_index if vector_index is None else vector_index,
                          self.remote if remote is None else remote)

    def __reduce__(self) -> tuple:
        return EnvContext, (dict(self), self.worker_index, self.num_workers, self.vector_index, self.remote)
