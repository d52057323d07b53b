"""Replay ops: ``StoreToReplayBuffer``, ``Replay``, ``WaitUntilTimestepsElapsed``, ``SimpleReplayBuffer``, ``MixInReplay``.

How experience goes into buffers and comes back out as training batches.
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from rlviz.checks import check_int, check_number
from rlviz.iter import LocalIterator, from_actors
from rlviz.iter.sentinel import NOT_READY
from rlviz.ops.buffers import ReplayBuffer
from rlviz.ops.errors import OpInputError
from rlviz.ops.names import STEPS_SAMPLED_COUNTER

__all__ = ["StoreToReplayBuffer", "Replay", "WaitUntilTimestepsElapsed", "SimpleReplayBuffer", "MixInReplay"]


class StoreToReplayBuffer:
    """For ``for_each``: add each batch to a local buffer or to one of several replay actors, pass it on.

    Parameters
    ----------
    local_buffer : ReplayBuffer, optional
        A buffer in this process.
    actors : list of actor handles, optional
        ``ReplayActor``s; each batch goes to one of them, in turn (fire and forget).

    Raises
    ------
    ValueError
        Unless exactly one of ``local_buffer`` and ``actors`` is given.

    Examples
    --------
    >>> from rlviz.rollout import SampleBatch
    >>> buf = ReplayBuffer(capacity=10, learning_starts=0)
    >>> StoreToReplayBuffer(local_buffer=buf)(SampleBatch(t=[0, 1]))
    SampleBatch(2: ['t'])
    >>> len(buf)
    2
    """

    __rlviz_op__ = "StoreToReplayBuffer"

    def __init__(self, *, local_buffer: ReplayBuffer | None = None, actors: list | None = None) -> None:
        _exactly_one(local_buffer, actors)
        self.local_buffer = local_buffer
        self.actors = list(actors) if actors is not None else None
        self._turn = 0

    def __call__(self, batch: Any) -> Any:
        if self.local_buffer is not None:
            self.local_buffer.add_batch(batch)
        else:
            actor = self.actors[self._turn % len(self.actors)]
            self._turn += 1
            actor.add_batch.remote(batch)
        return batch


def Replay(*, local_buffer: ReplayBuffer | None = None, actors: list | None = None,
           num_async: int = 4) -> LocalIterator:
    """Replayed batches, from a local buffer or gathered from replay actors.

    Yields ``NextValueNotReady`` while the buffer has fewer than its
    ``learning_starts`` rows (a local buffer; each such call records the
    ``"replay rows added"`` and ``"learning_starts"`` gauges, the cause its
    ``Event.why`` names), or drops the actors' ``None``s.

    Parameters
    ----------
    local_buffer : ReplayBuffer, optional
        A buffer in this process.
    actors : list of actor handles, optional
        ``ReplayActor``s, gathered with ``gather_async(num_async)`` (so
        ``zip_with_source_actor`` knows which actor sent a batch).
    num_async : int
        Replay calls in flight per actor.

    Returns
    -------
    LocalIterator
        Ending in a node named ``"Replay"``.

    Raises
    ------
    ValueError
        Unless exactly one of ``local_buffer`` and ``actors`` is given.

    Examples
    --------
    >>> from rlviz.rollout import SampleBatch
    >>> buf = ReplayBuffer(capacity=10, learning_starts=2, replay_batch_size=3, seed=0)
    >>> replay = Replay(local_buffer=buf)
    >>> next(replay)
    NextValueNotReady()
    >>> buf.add_batch(SampleBatch(t=[0, 1])); next(replay).count
    3
    """
    _exactly_one(local_buffer, actors)
    if local_buffer is not None:
        def replayed(timeout) -> Iterator:
            while True:
                batch = local_buffer.replay()
                if batch is None:
                    local_buffer.record_progress()      # the cause, inside this not-ready call
                    yield NOT_READY
                else:
                    yield batch

        return LocalIterator(replayed, name="Replay")
    check_int("num_async", num_async, minimum=1)
    return from_actors(list(actors)).gather_async(num_async=num_async).filter(_is_batch).named("Replay")


class WaitUntilTimestepsElapsed:
    """For ``filter``: let items through once ``num_steps_sampled`` reached ``target_num_timesteps``."""

    __rlviz_op__ = "WaitUntilTimestepsElapsed"

    def __init__(self, target_num_timesteps: int) -> None:
        check_int("target_num_timesteps", target_num_timesteps, minimum=0)
        self.target = target_num_timesteps

    def __call__(self, item: Any) -> bool:
        return LocalIterator.get_metrics().counters[STEPS_SAMPLED_COUNTER] >= self.target


class SimpleReplayBuffer:
    """Whole batches in ``num_slots`` slots (oldest overwritten); ``replay()`` returns a random one.

    Examples
    --------
    >>> buf = SimpleReplayBuffer(2)
    >>> buf.replay() is None
    True
    >>> for x in "abc": buf.add_batch(x)
    >>> sorted(buf.replay_batches)
    ['b', 'c']
    """

    def __init__(self, num_slots: int, seed: int | None = None) -> None:
        check_int("num_slots", num_slots, minimum=1)
        self.num_slots = num_slots
        self.replay_batches: list = []
        self.replay_index = 0
        self.rng = random.Random(seed)

    def add_batch(self, batch: Any) -> None:
        """Store ``batch``, overwriting the oldest when full."""
        if len(self.replay_batches) < self.num_slots:
            self.replay_batches.append(batch)
        else:
            self.replay_batches[self.replay_index] = batch
            self.replay_index = (self.replay_index + 1) % self.num_slots

    def replay(self) -> Any:
        """A random stored batch, or None when empty."""
        return self.rng.choice(self.replay_batches) if self.replay_batches else None

    def __len__(self) -> int:
        return len(self.replay_batches)


class MixInReplay:
    """For ``combine``: store each batch, then return ``[batch] + replays``, on average ``replay_proportion`` replays.

    While a random draw stays below the remaining proportion, one replayed
    batch is added and the proportion drops by 1 (so 0.5 -> 0 or 1 replays,
    2.0 -> 2 or more).

    Examples
    --------
    >>> mix = MixInReplay(num_slots=4, replay_proportion=1.0, seed=0)
    >>> mix("a")
    ['a', 'a']
    """

    __rlviz_op__ = "MixInReplay"

    def __init__(self, num_slots: int, replay_proportion: float, seed: int | None = None) -> None:
        check_number("replay_proportion", replay_proportion, minimum=0)
        self.buffer = SimpleReplayBuffer(num_slots, seed)
        self.replay_proportion = replay_proportion
        self.rng = random.Random(seed)

    def __call__(self, batch: Any) -> list:
        self.buffer.add_batch(batch)
        out = [batch]
        f = self.replay_proportion
        while self.rng.random() < f:
            f -= 1
            out.append(self.buffer.replay())
        return out


def _is_batch(item: Any) -> bool:
    return item is not None


def _exactly_one(local_buffer: object, actors: object) -> None:
    if (local_buffer is None) == (actors is None):
        raise ValueError("pass exactly one of local_buffer= (a ReplayBuffer here) or actors= (replay actors), "
                         f"got local_buffer={local_buffer!r}, actors={actors!r}")
    if local_buffer is not None and not hasattr(local_buffer, "add_batch"):
        raise OpInputError(f"local_buffer must be a ReplayBuffer, got {type(local_buffer).__name__}")
    if actors is not None and (not isinstance(actors, (list, tuple)) or not actors):
        raise ValueError(f"actors must be a non-empty list of replay actor handles, got {actors!r}")
