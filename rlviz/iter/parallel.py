"""``ParallelIterator``: a set of shard actors plus the transforms each one applies.

Transforms are lazy and run remotely, per shard; nothing moves until a
gather method turns the shards into a ``LocalIterator`` on the driver.  It
cannot be iterated directly: that is the first thing the error explains.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ray

from rlviz.checks import check_int
from rlviz.iter import gather, transforms
from rlviz.iter.chain import Details, NodeId, Step
from rlviz.iter.local import LocalIterator
from rlviz.iter.shards import ShardSet
from rlviz.iter.validate import check_batch_ms, check_coalesce_ms, check_concurrency, check_prefetch
from rlviz.trace.event import Node

__all__ = ["ParallelIterator"]

_NOT_ITERABLE = ("a ParallelIterator is a set of shards living on {n} actors, not a stream; "
                 "gather it into a LocalIterator first: .gather_sync() (strict round robin, "
                 "deterministic) or .gather_async() (items as they are ready). Each gathered "
                 "next() calls par_iter_next on the shards, which run their transforms remotely.")


class ParallelIterator:
    """Shards on Ray actors, transformed lazily and remotely.

    Build one with ``from_items``, ``from_range``, ``from_iterators`` or
    ``from_actors``; turn it into a local stream with ``gather_sync``,
    ``gather_async`` or ``batch_across_shards``.

    Examples
    --------
    >>> from rlviz.iter import from_range
    >>> it = from_range(8, num_shards=2).for_each(lambda x: x * 10)
    >>> it
    ParallelIterator[from_range[8, shards=2].for_each()]
    >>> it.gather_sync().take(4)
    [0, 40, 10, 50]

    ``name`` is Ray's name of the iterator, ``repr`` Ray's string around it
    (``ParallelIterator[<name>]``); both are what traces label its nodes with.
    """

    def __init__(self, shard_set: ShardSet, name: str, parent_iterators: Iterable = ()) -> None:
        self.shard_set = shard_set
        self.name = name
        self.parent_iterators = list(parent_iterators)

    def __repr__(self) -> str:
        return f"ParallelIterator[{self.name}]"

    __str__ = __repr__

    def __iter__(self):
        raise TypeError(_NOT_ITERABLE.format(n=self.num_shards()))

    def __next__(self):
        raise TypeError(_NOT_ITERABLE.format(n=self.num_shards()))

    # -- remote, per-shard transforms ------------------------------------------
    def for_each(self, fn: Callable, max_concurrency: int = 1, resources: dict | None = None) -> "ParallelIterator":
        """Apply ``fn`` to each item on each shard (``max_concurrency != 1``: as Ray tasks)."""
        check_concurrency(max_concurrency)
        if max_concurrency == 1:
            return self._with_step("for_each", ".for_each()", lambda up, shared: transforms.for_each(up, fn, shared))
        return self._with_step("for_each", ".for_each()",
                               lambda up, shared: transforms.for_each_concurrent(up, fn, max_concurrency, resources),
                               details=(("max_concurrency", max_concurrency),))

    def filter(self, fn: Callable[[Any], bool]) -> "ParallelIterator":
        """Keep items for which ``fn(item)`` is true, on each shard."""
        return self._with_step("filter", ".filter()", lambda up, shared: transforms.filter_items(up, fn, shared),
                               drops=True)

    def batch(self, n: int) -> "ParallelIterator":
        """Group each shard's items into lists of ``n``."""
        check_int("n", n, minimum=1)
        return self._with_step("batch", f".batch({n})", lambda up, shared: transforms.batch(up, n))

    def flatten(self) -> "ParallelIterator":
        """Yield the elements of each item, on each shard."""
        return self._with_step("flatten", ".flatten()", lambda up, shared: transforms.flatten(up))

    def combine(self, fn: Callable[[Any], Iterable]) -> "ParallelIterator":
        """``fn(item)`` returns a list whose elements are yielded (for_each + flatten)."""
        return self._with_step("combine", ".combine()",
                               lambda up, shared: transforms.flatten(transforms.for_each(up, fn, shared)))

    def transform(self, fn: Callable) -> "ParallelIterator":
        """Apply ``fn(iterator) -> iterator`` to each shard's stream."""
        return self._with_step("transform", ".transform()", lambda up, shared: iter(fn(up)))

    def local_shuffle(self, shuffle_buffer_size: int, seed: int | None = None) -> "ParallelIterator":
        """Shuffle each shard's items through a buffer of ``shuffle_buffer_size``."""
        check_int("shuffle_buffer_size", shuffle_buffer_size, minimum=1)
        return self._with_step("local_shuffle", f".local_shuffle(shuffle_buffer_size={shuffle_buffer_size}, "
                               f"seed={seed})", lambda up, shared: transforms.shuffle(up, shuffle_buffer_size, seed))

    def repartition(self, num_partitions: int, batch_ms: float = 0) -> "ParallelIterator":
        """New shards: shard ``i`` pulls every ``num_partitions``-th item (offset ``i``) from every old shard."""
        check_int("num_partitions", num_partitions, minimum=1)
        check_batch_ms(batch_ms)
        old = self.shard_set.start()
        partitions = [_partition_items(old, num_partitions, i, batch_ms) for i in range(num_partitions)]
        name = f"{self.name}.repartition[num_partitions={num_partitions}]"
        return ParallelIterator(ShardSet.launch(partitions, False, "repartition", name), name, [self])

    # -- gathering into a LocalIterator ----------------------------------------
    def batch_across_shards(self) -> LocalIterator:
        """A barrier: one ``par_iter_next`` per live shard per round, the round's items as a list."""
        return gather.batch_across_shards(self.shard_set, repr(self))

    def gather_sync(self, prefetch: int | None = None) -> LocalIterator:
        """Items in strict round robin across shards (deterministic order).

        By default this is Ray's ``batch_across_shards().flatten()``: one
        ``par_iter_next`` per live shard per round, each round awaited whole.
        ``prefetch=N`` (opt-in, faster for cheap items) lets each shard stream
        N items per ``par_iter_next_batch`` answer and run up to twice that
        far ahead of the driver; the nodes' details (the inspector) show it.
        """
        check_prefetch(prefetch)
        return gather.gather_sync(self.shard_set, repr(self), prefetch)

    def gather_async(self, batch_ms: float = 0, num_async: int = 1,
                     coalesce_ms: float | None = None) -> LocalIterator:
        """Items as they arrive from any shard; ``num_async`` ``par_iter_next_batch`` calls in flight per shard.

        As in Ray, each call returns the items a shard makes in ``batch_ms``
        milliseconds, exactly one with ``batch_ms=0``.  ``coalesce_ms=x``
        (opt-in, with ``batch_ms=0``) lets a shard add items made within x ms
        of the first to one answer: a ``from_range`` shard then answers with
        dozens of ints per round trip, a sampling worker still one batch; the
        nodes' details show it.  The gathered iterator's metrics record, as
        ``current_actor``, the shard that produced the latest item
        (``zip_with_source_actor`` uses it).
        """
        check_batch_ms(batch_ms)
        check_int("num_async", num_async, minimum=1)
        check_coalesce_ms(coalesce_ms, batch_ms)
        return gather.gather_async(self.shard_set, repr(self), batch_ms, num_async, coalesce_ms)

    def get_shard(self, shard_index: int, batch_ms: float = 0, num_async: int = 1) -> LocalIterator:
        """The items of one shard, in order."""
        self._check_index("shard_index", shard_index)
        check_batch_ms(batch_ms)
        check_int("num_async", num_async, minimum=1)
        return gather.get_shard(self.shard_set, self.name, shard_index, batch_ms, num_async)

    def shards(self) -> list[LocalIterator]:
        """One LocalIterator per shard."""
        return [self.get_shard(i) for i in range(self.num_shards())]

    def take(self, n: int) -> list:
        """The first ``n`` items in round-robin order."""
        return self.gather_sync().take(n)

    def show(self, n: int = 20) -> None:
        """Print the first ``n`` items."""
        self.gather_sync().show(n)

    # -- shard sets ------------------------------------------------------------
    def union(self, other: "ParallelIterator") -> "ParallelIterator":
        """The shards of both iterators, each keeping its own transforms."""
        if not isinstance(other, ParallelIterator):
            raise TypeError(f"union() takes a ParallelIterator, got {type(other).__name__}; "
                            f"to merge local streams use LocalIterator.union")
        return ParallelIterator(self.shard_set.union(other.shard_set), f"ParallelUnion[{self}, {other}]",
                                self.parent_iterators + other.parent_iterators)

    def select_shards(self, shards_to_keep: list[int]) -> "ParallelIterator":
        """Only the listed shards."""
        if len(self.shard_set.groups) > 1:
            raise ValueError("select_shards() cannot follow union(): select on each iterator first")
        if not shards_to_keep:
            raise ValueError("shards_to_keep is empty; select at least one shard index")
        for index in shards_to_keep:
            self._check_index("shards_to_keep", index)
        return ParallelIterator(self.shard_set.select(shards_to_keep),
                                f"{self}.select_shards({len(shards_to_keep)} total)",
                                self.parent_iterators)

    def num_shards(self) -> int:
        """How many shard actors back this iterator."""
        return len(self.shard_set)

    def dataflow(self) -> list[Node]:
        """Every shard's chain as plain ``Node``s (nothing runs)."""
        return self.shard_set.dataflow()

    # -- helpers ----------------------------------------------------------------
    def _with_step(self, op: str, suffix: str, build: Callable, drops: bool = False,
                   details: Details = ()) -> "ParallelIterator":
        step = Step(op, NodeId.new(), self.name + suffix, build, drops, details)
        return ParallelIterator(self.shard_set.then(step), self.name + suffix, self.parent_iterators)

    def _check_index(self, name: str, index: object) -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"{name} must be an int shard index, got {type(index).__name__}")
        if not 0 <= index < self.num_shards():
            raise ValueError(f"{name} has shard index {index}, but this iterator has "
                             f"{self.num_shards()} shards (0..{self.num_shards() - 1})")


def _partition_items(actors: list, step: int, start: int, batch_ms: float) -> Callable[[], Iterator[Any]]:
    """The item generator of one new partition: slices of every old shard, as they arrive."""
    def items():
        pending = {a.rlviz_slice_batch.remote(step, start, batch_ms): a for a in actors}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                actor = pending.pop(ref)
                try:
                    _, batch = ray.get(ref)
                except StopIteration:
                    continue
                pending[actor.rlviz_slice_batch.remote(step, start, batch_ms)] = actor
                yield from batch
    return items
