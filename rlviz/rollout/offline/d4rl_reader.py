"""``D4RLReader``: one row per ``next()`` from a D4RL dataset (needs the optional ``d4rl`` package)."""
from __future__ import annotations

import importlib
from typing import Any

from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.sample_batch import SampleBatch

__all__ = ["D4RLReader"]

INSTALL_HINT = ("pip install git+https://github.com/Farama-Foundation/d4rl (it needs gym and mujoco); "
                "or convert the dataset to JsonWriter's JSON lines and read it with input='/path/to/dir'")


class D4RLReader(InputReader):
    """Reads a D4RL dataset (``d4rl.qlearning_dataset``) one transition per ``next()``, from the start again at its end.

    Parameters
    ----------
    inputs : str
        The D4RL env id, e.g. ``"hopper-medium-v0"`` (``input="d4rl.hopper-medium-v0"`` on a worker).
    ioctx : IOContext, optional
        Unused beyond being kept, as in RLlib.

    Raises
    ------
    ImportError
        At construction when ``d4rl`` (or the ``gym`` it registers its envs in)
        is not installed, naming the package and how to install it.
    """

    def __init__(self, inputs: str, ioctx: IOContext | None = None) -> None:
        d4rl, gym = _import_d4rl()
        self.ioctx = ioctx or IOContext()
        self.env = gym.make(inputs)
        self.dataset = _to_batch(d4rl.qlearning_dataset(self.env))
        self.counter = 0

    def next(self) -> SampleBatch:
        """The next transition as a one-row batch."""
        if self.counter >= self.dataset.count:
            self.counter = 0
        row = self.dataset.slice(self.counter, self.counter + 1)
        self.counter += 1
        return row


def _import_d4rl() -> tuple[Any, Any]:
    try:
        return importlib.import_module("d4rl"), importlib.import_module("gym")
    except ImportError as error:
        raise ImportError(f"D4RLReader needs the 'd4rl' package, which is not installed here ({error}); "
                          f"{INSTALL_HINT}") from None


def _to_batch(dataset: dict) -> SampleBatch:
    return SampleBatch({SampleBatch.OBS: dataset["observations"], SampleBatch.ACTIONS: dataset["actions"],
                        SampleBatch.NEXT_OBS: dataset["next_observations"], SampleBatch.REWARDS: dataset["rewards"],
                        SampleBatch.TERMINATEDS: dataset["terminals"]})
