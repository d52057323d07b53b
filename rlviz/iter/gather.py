"""How the driver pulls from shard actors: the sources behind the gather methods.

By default each gather makes Ray 1.x's calls: ``batch_across_shards`` and
``gather_sync`` are a lock-step barrier of one ``par_iter_next`` per live shard
per round; ``gather_async`` keeps ``num_async`` one-item ``par_iter_next_batch``
calls in flight per shard.  Faster patterns are opt-in and named in the trace:
``gather_sync(prefetch=N)`` streams N items per message, ``gather_async(coalesce_ms=x)``
lets a shard add items made within x ms to one answer (docs/performance.md).
Names are Ray's (``LocalIterator[ParallelIterator[...].gather_sync()]``); such
options are details of the gather's and the shards' nodes.
Each source lists the ids of the values it received, so traces link shard
events to driver events, and stops its streams when it is closed or dropped.

Each source also records the gauge ``GATHERS_IN_FLIGHT`` per shard (on the
shard's lane): the calls the driver keeps out to that shard, from the
gather's start until the shard ends or the gather is closed (then 0).  The
barrier keeps at most one per shard (each round's call is its own span on the
shard's lane, so the gauge does not repeat it round by round); ``num_async``
plain calls stay that many; a stream counts its back-pressure bound (the items
the shard may run ahead), since how far it really runs ahead is Ray's inside
knowledge.
"""
from __future__ import annotations

import itertools
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import ray

from rlviz.iter.actors import has_rlviz_groups
from rlviz.iter.chain import Chain, Details, NodeId, Serving, Source
from rlviz.iter.local import LocalIterator
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY
from rlviz.iter.shards import ShardSet
from rlviz.iter.worker import CONTROL_GROUP, STREAM_GROUP, STREAM_SLOTS, BatchRequest
from rlviz.trace import gauge
from rlviz.trace.gauges import GATHERS_IN_FLIGHT

__all__ = ["batch_across_shards", "gather_sync", "gather_async", "get_shard"]

_FILLED, _NOT_READY, _ENDED = "filled", "not ready", "ended"
_STREAM_TOKENS = itertools.count()
#: Streams open per actor (by this driver): past STREAM_SLOTS a feed falls back to plain calls.
_LIVE_STREAMS: Counter = Counter()


def batch_across_shards(shards: ShardSet, name: str) -> LocalIterator:
    """A list per round: one ``par_iter_next`` per live shard, all awaited together.

    ``name`` is the ``repr`` of the ParallelIterator gathered (so is it for the other gathers).
    """
    serving = Serving(NodeId.new(), "par_iter_next")

    def open_barrier(timeout, consumed: list) -> Iterator:
        return _rounds(shards, serving, timeout, consumed, flat=False)

    return _gathered(shards, serving, f"{name}.batch_across_shards()", "batch_across_shards", open_barrier)


def gather_sync(shards: ShardSet, name: str, prefetch: int | None) -> LocalIterator:
    """Items in strict round robin across shards.

    ``prefetch=None``: Ray's ``batch_across_shards().flatten()``, one
    ``par_iter_next`` per live shard per round.  ``prefetch=N``: each shard
    streams N items per ``par_iter_next_batch`` answer (opt-in, in the labels).
    """
    if prefetch is None:
        serving = Serving(NodeId.new(), "par_iter_next")

        def open_rounds(timeout, consumed: list) -> Iterator:
            return _rounds(shards, serving, timeout, consumed, flat=True)

        return _gathered(shards, serving, f"{name}.gather_sync()", "gather_sync", open_rounds)
    serving = Serving(NodeId.new(), "par_iter_next_batch", (("prefetch", prefetch),))
    request = BatchRequest(serving, chunk=prefetch)

    def open_prefetched(timeout, consumed: list) -> Iterator:
        with _feeds(shards, request, in_flight=1) as feeds:
            yield from _round_robin(feeds, timeout, consumed)

    return _gathered(shards, serving, f"{name}.gather_sync()", "gather_sync", open_prefetched,
                     details=serving.options)


def gather_async(shards: ShardSet, name: str, batch_ms: float, num_async: int,
                 coalesce_ms: float | None) -> LocalIterator:
    """Items as they arrive from any shard; ``num_async`` ``par_iter_next_batch`` calls in flight per shard."""
    options: Details = (*((("batch_ms", batch_ms),) if batch_ms else ()),
                        *((("coalesce_ms", coalesce_ms),) if coalesce_ms is not None else ()))
    serving = Serving(NodeId.new(), "par_iter_next_batch", options)
    request = BatchRequest(serving, batch_ms=batch_ms,
                           coalesce_ns=int(coalesce_ms * 1e6) if coalesce_ms is not None else 0)
    shared = SharedMetrics()

    def open_as_ready(timeout, consumed: list) -> Iterator:
        with _feeds(shards, request, in_flight=num_async) as feeds:
            yield from _as_ready(list(feeds), timeout, consumed, shared)

    return _gathered(shards, serving, f"{name}.gather_async()", "gather_async", open_as_ready, shared,
                     details=options + ((("num_async", num_async),) if num_async != 1 else ()))


def get_shard(shards: ShardSet, name: str, index: int, batch_ms: float, num_async: int) -> LocalIterator:
    """The items of shard ``index``, in order (``name``: the ParallelIterator's name, as Ray's ``.shard[i]`` follows it)."""
    serving = Serving(NodeId.new(), "par_iter_next_batch", (("batch_ms", batch_ms),) if batch_ms else ())
    request = BatchRequest(serving, batch_ms=batch_ms)

    def open_one(timeout, consumed: list) -> Iterator:
        with _feeds(shards, request, in_flight=num_async, indices=[index]) as feeds:
            yield from _round_robin(feeds, timeout, consumed)

    return _gathered(shards, serving, f"{name}.shard[{index}]", f"get_shard[{index}]", open_one,
                     indices=[index])


def _gathered(shards: ShardSet, serving: Serving, name: str, op: str, open_source: Callable,
              shared: SharedMetrics | None = None, indices: list[int] | None = None,
              details: Details = ()) -> LocalIterator:
    """A LocalIterator named ``name`` whose source node ``op`` (the gather's node) pulls through ``serving``."""
    def upstream():
        return shards.serving_nodes(serving, indices)

    def open_checked(timeout, consumed: list) -> Iterator:
        items = open_source(timeout, consumed)
        try:
            while True:
                if not ray.is_initialized():
                    shards.check_ray()   # before Ray's calls to the gone shards start a new, default Ray by themselves
                try:
                    item = next(items)
                except StopIteration:
                    return
                except Exception:
                    shards.check_ray()   # after a restart Ray's own words are "Can't find actor": name the cause
                    raise
                yield item
        finally:
            items.close()

    source = Source(op, serving.gather, name, open_checked, upstream, details)
    return LocalIterator.from_chain(Chain(source), shared)


def _rounds(shards: ShardSet, serving: Serving, timeout, consumed: list, *, flat: bool) -> Iterator:
    """The barrier's rounds, as lists or (``flat``) item by item; each value's id goes to ``consumed`` as it is yielded."""
    for pairs in _barrier(shards, serving, timeout):
        if pairs is NOT_READY:
            yield pairs
        elif flat:
            for item_id, item in pairs:
                consumed.append(item_id)
                yield item
        else:
            consumed.extend(item_id for item_id, _ in pairs)
            yield [item for _, item in pairs]


def _barrier(shards: ShardSet, serving: Serving, timeout) -> Iterator:
    """Rounds of ``par_iter_next``: one call per live shard, all awaited; each round's ``(id, item)`` pairs."""
    actors = shards.start(serving=serving)
    lanes = list(shards.labels)
    futures = [a.rlviz_next.remote() for a in actors]
    _gauge_in_flight(lanes, 1)                            # at most one call out per shard, round after round
    try:
        while actors:
            if timeout is not None:
                ready, _ = ray.wait(futures, num_returns=len(futures), timeout=timeout)
                if len(ready) < len(futures):
                    yield NOT_READY
                    continue
            try:
                pairs = ray.get(futures)                  # the common round: one get, as Ray did
            except Exception:                             # a shard ended or failed: see which, one by one
                pairs = []
                for actor, lane, future in zip(list(actors), list(lanes), futures):
                    try:
                        pairs.append(_get(future, lane))
                    except StopIteration:
                        lanes.pop(actors.index(actor))
                        actors.remove(actor)
                        _gauge_in_flight([lane], 0)
            if pairs:
                yield pairs
            if timeout is not None:
                yield NOT_READY
            futures = [a.rlviz_next.remote() for a in actors]
    finally:
        _gauge_in_flight(lanes, 0)                        # ended or closed: the driver keeps no call out any more


def _gauge_in_flight(lanes: list[str], calls: int) -> None:
    """Record ``GATHERS_IN_FLIGHT`` = ``calls`` on each of ``lanes``."""
    for lane in lanes:
        gauge(GATHERS_IN_FLIGHT, calls, where=lane)


def _get(ref, lane: str):
    """``ray.get(ref)``; an error from the shard also names the shard's lane (Ray names only its actor id)."""
    try:
        return ray.get(ref)
    except StopIteration:
        raise
    except Exception as error:
        error.add_note(f"rlviz: raised by the shard on lane {lane!r}")
        raise


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


@contextmanager
def _feeds(shards: ShardSet, request: BatchRequest, *, in_flight: int, indices: list[int] | None = None):
    """A feed per (chosen) shard, closed when the block ends, however it ends (even on GeneratorExit)."""
    actors = shards.start(indices)
    lanes = [shards.lane(i) for i in indices] if indices is not None else list(shards.labels)
    feeds = [_Feed(actor, lane, request, in_flight) for actor, lane in zip(actors, lanes)]
    try:
        yield feeds
    finally:
        for feed in feeds:
            feed.close()


@dataclass
class _Feed:
    """Batches of ``(ids, items)`` from one shard, with at most ``in_flight`` requested ahead.

    Shards whose class declares rlviz's concurrency groups stream: one Ray
    streaming call whose back-pressure is ``in_flight``, running in its own
    group so the actor stays free for other calls.  Other actors, and actors
    whose stream slots are all taken by live gathers, get plain calls,
    ``in_flight`` of them outstanding, as Ray 1.x did.
    """

    actor: object
    lane: str
    request: BatchRequest
    in_flight: int

    def __post_init__(self) -> None:
        self._stream = None
        self._token = ""
        self._pending: deque = deque()
        self._closed = False
        if has_rlviz_groups(self.actor) and _LIVE_STREAMS[self.actor] < STREAM_SLOTS:
            _LIVE_STREAMS[self.actor] += 1
            self._token = f"{self.request.serving.gather.key}#{next(_STREAM_TOKENS)}"
            self._stream = self.actor.rlviz_stream.options(
                concurrency_group=STREAM_GROUP, _generator_backpressure_num_objects=self.in_flight,
            ).remote(self.request, self._token)
        else:
            self._pending.extend(self.actor.rlviz_next_batch.remote(self.request) for _ in range(self.in_flight))
        _gauge_in_flight([self.lane], self.in_flight)

    def waitable(self):
        """What ``ray.wait`` should watch for this feed's next batch."""
        return self._stream if self._stream is not None else self._pending[0]

    def take(self) -> tuple[list, list]:
        """The next batch (blocking); ``StopIteration`` when the shard has ended."""
        try:
            if self._stream is not None:
                return _get(next(self._stream), self.lane)
            batch = _get(self._pending.popleft(), self.lane)
        except StopIteration:
            self._settle()
            raise
        self._pending.append(self.actor.rlviz_next_batch.remote(self.request))
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

    def _settle(self) -> None:
        """Nothing is in flight to this shard any more (it ended, or the gather closed): gauge it once."""
        self._pending.clear()
        if not self._closed:
            self._closed = True
            _gauge_in_flight([self.lane], 0)

    def close(self) -> None:
        """Stop the shard's stream (so an abandoned gather does not keep it working).

        Runs when the gather is dropped, possibly after its actors were stopped or
        Ray shut down; then there is nothing left to stop.
        """
        stream, self._stream = self._stream, None
        self._settle()
        if stream is None:
            return
        _LIVE_STREAMS[self.actor] -= 1
        if _LIVE_STREAMS[self.actor] <= 0:
            del _LIVE_STREAMS[self.actor]
        if not ray.is_initialized():
            return
        try:
            self.actor.rlviz_stop_stream.options(concurrency_group=CONTROL_GROUP).remote(self._token)
        except Exception:  # Ray raises a bare Exception for an actor that no longer exists
            pass
