"""``MixedInput``: each ``next()`` reads from one of several inputs, chosen at random with given probabilities."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.offline.json_reader import JsonReader
from rlviz.rollout.offline.recording import op_id_here, read_recorded, reader_op
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["MixedInput"]


class MixedInput(InputReader):
    """Mixes inputs, e.g. ``{"sampler": 0.5, "/tmp/cartpole-out": 0.5}`` (RLlib's ``input`` as a dict).

    Parameters
    ----------
    dist : dict
        Input -> probability.  An input is ``"sampler"`` (the worker's envs,
        ``ioctx.default_sampler_input()``), a path, glob or list for a
        ``JsonReader``, or a callable ``ioctx -> InputReader``.  The
        probabilities must add up to 1.
    ioctx : IOContext
        Passed to the inputs; its ``seed`` (plus the worker index) seeds the choice.

    Raises
    ------
    ValueError
        If the probabilities are negative or do not add up to 1, or ``"sampler"``
        is asked for without a worker.

    Each read is recorded as a span of the chosen input's node (``SyncSampler``,
    ``JsonReader``, ...), so the trace shows which source every batch came from.
    """

    def __init__(self, dist: Mapping[Any, float], ioctx: IOContext) -> None:
        _check_distribution(dist)
        self.choices: list[InputReader] = [_input_for(source, ioctx) for source in dist]
        self.p = [float(p) for p in dist.values()]
        seed = ioctx.config.get("seed")
        self._random = np.random.default_rng(None if seed is None else seed + 1000 * ioctx.worker_index + 7)
        #: The item id of the last source read (-1 when nothing is recorded).
        self.last_read = -1

    def next(self) -> SampleBatch | MultiAgentBatch:
        """The next batch of one input, drawn with the given probabilities."""
        source = self.choices[self._random.choice(len(self.choices), p=self.p)]
        batch, self.last_read = read_recorded(source)
        return batch

    def source_ops(self) -> tuple[str, ...]:
        """The op_ids of the inputs' nodes in this process: the parents of this reader's node."""
        return tuple(dict.fromkeys(op_id_here(reader_op(choice)) for choice in self.choices))

    def __repr__(self) -> str:
        parts = ", ".join(f"{reader_op(c)}: {p:g}" for c, p in zip(self.choices, self.p))
        return f"MixedInput({{{parts}}})"


def _check_distribution(dist: Mapping[Any, float]) -> None:
    if not isinstance(dist, Mapping) or not dist:
        raise ValueError(f"MixedInput needs a dict input -> probability, e.g. {{'sampler': 0.5, '/tmp/out': 0.5}}; "
                         f"got {dist!r}")
    for source, p in dist.items():
        if not isinstance(p, (int, float)) or p < 0:
            raise ValueError(f"MixedInput's probability for {source!r} is {p!r}; give a number >= 0")
    total = sum(dist.values())
    if not math.isclose(total, 1.0, abs_tol=1e-6):
        raise ValueError(f"MixedInput's probabilities add up to {total:g}, not 1: {dict(dist)}")


def _input_for(source: Any, ioctx: IOContext) -> InputReader:
    if isinstance(source, str) and source == "sampler":
        sampler = ioctx.default_sampler_input()
        if sampler is None:
            raise ValueError("MixedInput's 'sampler' input needs an IOContext with a worker; "
                             "a worker builds it from config={'input': {...}}")
        return sampler
    if callable(source):
        return _call_input(source, ioctx)
    return JsonReader(source, ioctx)


def _call_input(make: Callable[[IOContext], InputReader], ioctx: IOContext) -> InputReader:
    reader = make(ioctx)
    if not isinstance(reader, InputReader):
        raise TypeError(f"the input callable {make!r} returned {type(reader).__name__}; it must return an "
                        f"InputReader (subclass rlviz.rollout.offline.InputReader)")
    return reader
