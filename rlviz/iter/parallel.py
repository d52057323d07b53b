"""``ParallelIterator``: a set of shard actors plus the transforms each one applies.

Transforms are lazy and run remotely, per shard; nothing moves until a
gather method turns the shards into a ``LocalIterator`` on the driver.  It
cannot be iterated directly: that is the first thing the error explains.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import ray

from rlviz.iter import gather, transforms
from rlviz.iter.chain import Source, Step, no_upstream, serve_node
from rlviz.iter.instrument import new_node_id
from rlviz.iter.local import LocalIterator
from rlviz.iter.validate import check_batch_ms, check_concurrency, check_positive_int
from rlviz.iter.worker import ShardSpec
from rlviz.trace.event import Node

__all__ = ["ParallelIterator", "ActorSet"]

_NOT_ITERABLE = ("a ParallelIterator is a set of shards living on {n} actors, not a stream; "
                 "gather it into a LocalIterator first: .gather_sync() (strict round robin, "
                 "deterministic) or .gather_async() (items as they are ready). Each gathered "
                 "next() calls par_iter_next on the shards, which run their transforms remotely.")


@dataclass(frozen=True)
class ActorSet:
    """Shard actors sharing one source and one list of transforms."""

    actors: tuple
    labels: tuple[str, ...]
    source_op: str
    source_id: str
    source_label: str
    steps: tuple[Step, ...] = ()

    def chain(self) -> LocalIterator:
        """The shard-side chain, as a description (it is built on the actors)."""
        source = Source(self.source_op, self.source_id, self.source_label, lambda t, c: iter(()), no_upstream)
        return LocalIterator._create(source, steps=self.steps)

    def spec(self) -> ShardSpec:
        return ShardSpec(self.source_op, self.source_id, self.source_label, self.steps)


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
    ParallelIterator[from_range[8, shards=2]].for_each()
    >>> it.gather_sync().take(4)
    [0, 40, 10, 50]
    """

    def __init__(self, actor_sets: list[ActorSet], name: str, parent_iterators: Iterable = ()) -> None:
        self.actor_sets = list(actor_sets)
        self.name = name
        self.parent_iterators = list(parent_iterators)

    def __repr__(self) -> str:
        return self.name

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
        return self._with_step("for_each", f".for_each(max_concurrency={max_concurrency})",
                               lambda up, shared: transforms.for_each_concurrent(up, fn, max_concurrency, resources))

    def filter(self, fn: Callable[[Any], bool]) -> "ParallelIterator":
        """Keep items for which ``fn(item)`` is true, on each shard."""
        return self._with_step("filter", ".filter()", lambda up, shared: transforms.filter_items(up, fn, shared))

    def batch(self, n: int) -> "ParallelIterator":
        """Group each shard's items into lists of ``n``."""
        check_positive_int("n", n)
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
        check_positive_int("shuffle_buffer_size", shuffle_buffer_size)
        return self._with_step("local_shuffle", f".local_shuffle(shuffle_buffer_size={shuffle_buffer_size}, "
                               f"seed={seed})", lambda up, shared: transforms.shuffle(up, shuffle_buffer_size, seed))

    def repartition(self, num_partitions: int, batch_ms: float = 0) -> "ParallelIterator":
        """New shards: shard ``i`` pulls every ``num_partitions``-th item (offset ``i``) from every old shard."""
        from rlviz.iter.constructors import repartition
        check_positive_int("num_partitions", num_partitions)
        check_batch_ms(batch_ms)
        return repartition(self, num_partitions, batch_ms)

    # -- gathering into a LocalIterator ----------------------------------------
    def batch_across_shards(self) -> LocalIterator:
        """A barrier: one item from every live shard per round, as a list."""
        return gather.batch_across_shards(self)

    def gather_sync(self, prefetch: int = 16) -> LocalIterator:
        """Items in strict round robin across shards (deterministic order).

        The order is that of ``batch_across_shards().flatten()``.  Each shard
        streams up to ``prefetch`` items per message and may run up to twice
        that far ahead of the driver; for a strict lock-step barrier (no look
        ahead, as RLlib's bulk-sync sampling needs) use ``batch_across_shards``.
        """
        check_positive_int("prefetch", prefetch)
        return gather.gather_sync(self, prefetch)

    def gather_async(self, batch_ms: float = 0, num_async: int = 1) -> LocalIterator:
        """Items as they arrive from any shard; ``num_async`` batches in flight per shard.

        With ``batch_ms=0`` a batch is one item, as in Ray, except that a shard
        whose items take well under a round trip (under 0.2 ms together) sends
        them together: a sampling worker still answers one batch at a time, a
        ``from_range`` shard answers with dozens of ints per round trip.  The
        gathered iterator's metrics record, as ``current_actor``, the shard
        that produced the latest item (``zip_with_source_actor`` uses it).
        """
        check_batch_ms(batch_ms)
        check_positive_int("num_async", num_async)
        return gather.gather_async(self, batch_ms, num_async)

    def get_shard(self, shard_index: int, batch_ms: float = 0, num_async: int = 1) -> LocalIterator:
        """The items of one shard, in order."""
        self._check_index("shard_index", shard_index)
        check_batch_ms(batch_ms)
        check_positive_int("num_async", num_async)
        return gather.get_shard(self, shard_index, batch_ms, num_async)

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
        return ParallelIterator(self.actor_sets + other.actor_sets, f"ParallelUnion[{self}, {other}]",
                                self.parent_iterators + other.parent_iterators)

    def select_shards(self, shards_to_keep: list[int]) -> "ParallelIterator":
        """Only the listed shards."""
        if len(self.actor_sets) > 1:
            raise ValueError("select_shards() cannot follow union(): select on each iterator first")
        if not shards_to_keep:
            raise ValueError("shards_to_keep is empty; select at least one shard index")
        for index in shards_to_keep:
            self._check_index("shards_to_keep", index)
        old = self.actor_sets[0]
        chosen = replace(old, actors=tuple(old.actors[i] for i in shards_to_keep),
                         labels=tuple(old.labels[i] for i in shards_to_keep))
        return ParallelIterator([chosen], f"{self}.select_shards({len(shards_to_keep)} total)",
                                self.parent_iterators)

    def num_shards(self) -> int:
        """How many shard actors back this iterator."""
        return sum(len(s.actors) for s in self.actor_sets)

    def dataflow(self) -> list[Node]:
        """Every shard's chain as plain ``Node``s (nothing runs)."""
        return [node for s in self.actor_sets for label in s.labels for node in s.chain()._chain_nodes(label)]

    # -- helpers for the gather sources ----------------------------------------
    def _with_step(self, op: str, suffix: str, build: Callable) -> "ParallelIterator":
        step = Step(op, new_node_id(), self.name + suffix, build)
        sets = [replace(s, steps=s.steps + (step,)) for s in self.actor_sets]
        return ParallelIterator(sets, self.name + suffix, self.parent_iterators)

    def _placed(self) -> list[tuple[Any, str, ActorSet]]:
        return [(actor, label, s) for s in self.actor_sets for actor, label in zip(s.actors, s.labels)]

    def _start_shards(self, indices: list[int] | None = None) -> list:
        """Send each (chosen) shard its transforms; return the actor handles in shard order."""
        placed = self._placed()
        chosen = [placed[i] for i in indices] if indices is not None else placed
        ray.get([actor._rlviz_init.remote(s.spec()) for actor, _, s in chosen])
        return [actor for actor, _, _ in chosen]

    def _shard_nodes(self, serve: str, indices: list[int] | None = None) -> tuple[list[Node], tuple[str, ...]]:
        """Nodes of the (chosen) shards' chains plus their serving nodes, and the serving ids."""
        placed = self._placed()
        chosen = [placed[i] for i in indices] if indices is not None else placed
        nodes, parents = [], []
        for _, label, s in chosen:
            chain = s.chain()._chain_nodes(label)
            last = serve_node(serve, chain[-1])
            nodes += chain + [last]
            parents.append(last.op_id)
        return nodes, tuple(parents)

    def _check_index(self, name: str, index: object) -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"{name} must be an int shard index, got {type(index).__name__}")
        if not 0 <= index < self.num_shards():
            raise ValueError(f"{name} has shard index {index}, but this iterator has "
                             f"{self.num_shards()} shards (0..{self.num_shards() - 1})")
