"""How the driver pulls from shard actors: the sources behind the gather methods.

``batch_across_shards`` is a lock-step barrier of plain calls; ``gather_sync``,
``gather_async`` and ``get_shard`` pull through a ``_Feed`` per shard: one Ray
streaming call whose back-pressure bounds how far the shard runs ahead.  Each
source lists the ids of the values it received, so traces link shard events
to driver events, and stops its streams when it is closed or dropped.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import ray

from rlviz.iter.actors import has_rlviz_groups
from rlviz.iter.chain import Source
from rlviz.iter.instrument import new_node_id
from rlviz.iter.local import LocalIterator
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY
from rlviz.iter.worker import CONTROL_GROUP, STREAM_GROUP

if TYPE_CHECKING:
    from rlviz.iter.parallel import ParallelIterator

__all__ = ["batch_across_shards", "gather_sync", "gather_async", "get_shard"]

_FILLED, _NOT_READY, _ENDED = "filled", "not ready", "ended"
#: How long a shard may keep adding fast items to one answer of gather_async or
#: get_shard (ns): well under a round trip, so a batch arrives no later than
#: its first item's round trip would have taken, and items slower than this go one by one.
COALESCE_NS = 200_000
_STREAM_TOKENS = itertools.count()


def batch_across_shards(parallel: "ParallelIterator") -> LocalIterator:
    """A list per round: one ``par_iter_next`` per live shard, all awaited together."""
    gather_id = new_node_id()
    serve = f"{gather_id}:par_iter_next"

    def open_barrier(timeout, consumed: list) -> Iterator:
        actors = parallel._start_shards()
        futures = [a._rlviz_next.remote(serve) for a in actors]
        while actors:
            ready, _ = ray.wait(futures, num_returns=len(futures), timeout=timeout)
            if len(ready) < len(futures):
                yield NOT_READY
                continue
            batch, live = [], []
            for actor, future in zip(actors, futures):
                try:
                    item_id, item = ray.get(future)
                except StopIteration:
                    continue
                consumed.append(item_id)
                batch.append(item)
                live.append(actor)
            actors = live
            if batch:
                yield batch
            if timeout is not None:
                yield NOT_READY
            futures = [a._rlviz_next.remote(serve) for a in actors]

    return _gathered(parallel, "batch_across_shards", gather_id, serve, open_barrier, SharedMetrics())


def gather_sync(parallel: "ParallelIterator", prefetch: int) -> LocalIterator:
    """Items in strict round robin across shards, each shard streaming ``prefetch`` at a time."""
    gather_id = new_node_id()
    serve = f"{gather_id}:par_iter_next_batch"

    def open_round_robin(timeout, consumed: list) -> Iterator:
        with _feeds(parallel._start_shards(), serve, 0, prefetch, 0, 1) as feeds:
            yield from _round_robin(feeds, timeout, consumed)

    return _gathered(parallel, "gather_sync", gather_id, serve, open_round_robin, SharedMetrics())


def gather_async(parallel: "ParallelIterator", batch_ms: float, num_async: int) -> LocalIterator:
    """Items as they arrive from any shard; ``num_async`` batches in flight per shard."""
    gather_id = new_node_id()
    serve = f"{gather_id}:par_iter_next_batch"
    shared = SharedMetrics()

    def open_as_ready(timeout, consumed: list) -> Iterator:
        with _feeds(parallel._start_shards(), serve, batch_ms, 1, COALESCE_NS, num_async) as feeds:
            yield from _as_ready(list(feeds), timeout, consumed, shared)

    return _gathered(parallel, "gather_async", gather_id, serve, open_as_ready, shared)


def get_shard(parallel: "ParallelIterator", index: int, batch_ms: float, num_async: int) -> LocalIterator:
    """The items of one shard, in order."""
    gather_id = new_node_id()
    serve = f"{gather_id}:par_iter_next_batch"

    def open_one(timeout, consumed: list) -> Iterator:
        with _feeds(parallel._start_shards([index]), serve, batch_ms, 1, COALESCE_NS, num_async) as feeds:
            yield from _round_robin(feeds, timeout, consumed)

    return _gathered(parallel, f"get_shard[{index}]", gather_id, serve, open_one, SharedMetrics(),
                     shards=[index])


def _round_robin(feeds: list["_Feed"], timeout, consumed: list) -> Iterator:
    """One item from each live feed in turn, in feed order; ended feeds drop out."""
    buffers = [deque() for _ in feeds]
    active = list(range(len(feeds)))
    turn = 0
    while active:
        turn %= len(active)
        shard = active[turn]
        if not buffers[shard]:
            state = feeds[shard].refill(buffers[shard], timeout)
            if state is _ENDED:
                active.pop(turn)
                continue
            if state is _NOT_READY:
                yield NOT_READY
                continue
        item_id, item = buffers[shard].popleft()
        consumed.append(item_id)
        yield item
        turn += 1


def _as_ready(feeds: list["_Feed"], timeout, consumed: list, shared: SharedMetrics) -> Iterator:
    """Items from whichever feed is ready first, noting the actor that sent them."""
    while feeds:
        waiting = {feed.waitable(): feed for feed in feeds}
        ready, _ = ray.wait(list(waiting), num_returns=1, timeout=timeout)
        for handle in ready:
            feed = waiting[handle]
            try:
                ids, items = feed.take()
            except StopIteration:
                feeds.remove(feed)
                continue
            for item_id, item in zip(ids, items):
                consumed.append(item_id)
                shared.get().current_actor = feed.actor      # per item: other branches may have reset it
                yield item
        if timeout is not None:
            yield NOT_READY


def _gathered(parallel, op: str, gather_id: str, serve: str, open_fn, shared: SharedMetrics,
              shards: list[int] | None = None) -> LocalIterator:
    """A LocalIterator whose source node ``op`` pulls through serving nodes on the shards."""
    def upstream():
        return parallel._shard_nodes(serve, shards)

    label = f"{parallel}.{op}()" if not op.startswith("get_shard") else f"{parallel}.shard[{shards[0]}]"
    return LocalIterator._create(Source(op, gather_id, label, open_fn, upstream), shared)


@contextmanager
def _feeds(actors: list, serve: str, batch_ms: float, chunk: int, budget_ns: int, in_flight: int):
    """A feed per actor, closed when the block ends, however it ends (even on GeneratorExit)."""
    feeds = [_Feed(actor, (serve, batch_ms, chunk, budget_ns), in_flight) for actor in actors]
    try:
        yield feeds
    finally:
        for feed in feeds:
            feed.close()


class _Feed:
    """Batches of ``(ids, items)`` from one shard, with at most ``in_flight`` requested ahead.

    ``request`` is what the shard batches by: ``(serve_id, batch_ms, chunk, budget_ns)``.

    Shards whose class declares rlviz's concurrency groups stream: one Ray
    streaming call whose back-pressure is ``in_flight``, running in its own
    group so the actor stays free for other calls.  Other actors get plain
    calls, ``in_flight`` of them outstanding, as Ray 1.x did.
    """

    def __init__(self, actor, request: tuple[str, float, int, int], in_flight: int) -> None:
        self.actor = actor
        self._request = request
        self._stream = None
        self._token = ""
        self._pending: deque = deque()
        if has_rlviz_groups(actor):
            self._token = f"{request[0]}#{next(_STREAM_TOKENS)}"
            self._stream = actor._rlviz_stream.options(
                concurrency_group=STREAM_GROUP, _generator_backpressure_num_objects=in_flight,
            ).remote(*self._request, self._token)
        else:
            self._pending.extend(actor._rlviz_next_batch.remote(*self._request) for _ in range(in_flight))

    def waitable(self):
        """What ``ray.wait`` should watch for this feed's next batch."""
        return self._stream if self._stream is not None else self._pending[0]

    def take(self) -> tuple[list, list]:
        """The next batch (blocking); ``StopIteration`` when the shard has ended."""
        if self._stream is not None:
            return ray.get(next(self._stream))
        batch = ray.get(self._pending.popleft())
        self._pending.append(self.actor._rlviz_next_batch.remote(*self._request))
        return batch

    def refill(self, buffer: deque, timeout) -> str:
        """Move the next batch into ``buffer``; say whether it came, isn't ready, or ended."""
        if timeout is not None:
            ready, _ = ray.wait([self.waitable()], num_returns=1, timeout=timeout)
            if not ready:
                return _NOT_READY
        try:
            ids, items = self.take()
        except StopIteration:
            return _ENDED
        buffer.extend(zip(ids, items))
        return _FILLED

    def close(self) -> None:
        """Stop the shard's stream (so an abandoned gather does not keep it working).

        Runs when the gather is dropped, possibly after its actors were stopped or
        Ray shut down; then there is nothing left to stop.
        """
        stream, self._stream = self._stream, None
        self._pending.clear()
        if stream is None or not ray.is_initialized():
            return
        try:
            self.actor._rlviz_stop_stream.options(concurrency_group=CONTROL_GROUP).remote(self._token)
        except Exception:  # Ray raises a bare Exception for an actor that no longer exists
            pass
