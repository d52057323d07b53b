"""``IOContext``: what an input reader or output writer is told about the worker it serves."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["IOContext"]


class IOContext:
    """The attributes RLlib passes to input and output constructors (``config["input"] = lambda ioctx: ...``).

    Parameters
    ----------
    log_dir : str, optional
        Where ``output="logdir"`` writes.
    config : dict or config dataclass, optional
        The worker's settings (``input_config``, ``output_config``, ``seed``, ...).
    worker_index : int
        0 for the local worker, 1.. for remote ones.
    worker : RolloutWorker, optional
        The worker the reader serves; ``default_sampler_input()`` samples its envs.

    Examples
    --------
    >>> ctx = IOContext(config={"input_config": {"format": "json"}}, worker_index=2)
    >>> ctx.worker_index, ctx.input_config
    (2, {'format': 'json'})
    """

    def __init__(self, log_dir: str | None = None, config: Any = None, worker_index: int = 0,
                 worker: Any = None) -> None:
        self.log_dir = log_dir
        self.config = _as_dict(config)
        self.worker_index = worker_index
        self.worker = worker

    @property
    def input_config(self) -> dict:
        """The ``input_config`` setting (``{}`` if unset)."""
        return dict(self.config.get("input_config") or {})

    @property
    def output_config(self) -> dict:
        """The ``output_config`` setting (``{}`` if unset)."""
        return dict(self.config.get("output_config") or {})

    def default_sampler_input(self) -> Any:
        """The worker's ``SamplerInput``: the input ``"sampler"`` stands for (None without a worker).

        Returns
        -------
        SyncSampler or None
            The same object on every call, so a ``MixedInput`` and the worker share one sampler.
        """
        if self.worker is None:
            return None
        return self.worker.sampler_input

    def __repr__(self) -> str:
        return f"IOContext(log_dir={self.log_dir!r}, worker_index={self.worker_index})"


def _as_dict(config: Any) -> dict:
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    if dataclasses.is_dataclass(config):
        return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    raise TypeError(f"IOContext's config must be a dict or a config object, not {type(config).__name__}")
