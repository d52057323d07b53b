"""``InputReader``: the source of a worker's batches, whether it steps envs or reads stored experience."""
from __future__ import annotations

from abc import ABC, abstractmethod

from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["InputReader"]


class InputReader(ABC):
    """What a ``RolloutWorker``'s ``sample()`` pulls batches from (RLlib's ``config["input"]``).

    Subclass it and implement ``next()``; ``config={"input": lambda ioctx: MyReader(ioctx)}``
    makes a worker read from it.  RLlib's ``tf_input_ops`` (a TensorFlow queue
    fed by ``next()``) is left out: rlviz's policies are torch.

    Examples
    --------
    >>> class Ones(InputReader):
    ...     def next(self):
    ...         return SampleBatch(rewards=[1.0, 1.0])
    >>> Ones().next()["rewards"].tolist()
    [1.0, 1.0]
    """

    @abstractmethod
    def next(self) -> SampleBatch | MultiAgentBatch:
        """The next batch of experience."""
