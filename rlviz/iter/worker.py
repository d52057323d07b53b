"""``ParallelIteratorWorker``: the actor mixin that serves one shard of a ParallelIterator.

A shard actor holds an item generator and the transforms the driver sent;
the driver pulls items with plain calls (``par_iter_next``) or through one
streaming call per shard (``rlviz_stream``, Ray's streaming generators, with
back-pressure bounding how far the shard runs ahead).  Recording happens in
the actor's own bounded recorder; the driver collects it through the control
calls of ``RecorderControl``, run in their own concurrency group where the
class declares one.
"""
from __future__ import annotations

import collections
import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rlviz.iter.chain import Chain, NodeId, Serving, Source
from rlviz.iter.control import CONTROL_GROUP, RecorderControl
from rlviz.iter.local import LocalIterator
from rlviz.iter.metrics import SharedMetrics
from rlviz.trace.recorder import get_recorder
from rlviz.trace.rows import ERROR, ITEM, STOP

__all__ = ["ParallelIteratorWorker", "ShardWorker", "BatchRequest", "CONTROL_GROUP", "STREAM_GROUP",
           "STREAM_SLOTS", "CONCURRENCY_GROUPS", "serialized"]

#: The concurrency group streams run in, so a stream paused on back-pressure
#: leaves the actor's default queue free for its other calls (set_weights, ...).
STREAM_GROUP = "rlviz_stream"

#: How many streams one actor can serve at once (threads of its stream group).
STREAM_SLOTS = 4
#: Pass as ``ray.remote(concurrency_groups=CONCURRENCY_GROUPS)`` for worker classes,
#: then ``track_actor(handle, control_group=True)``.
CONCURRENCY_GROUPS = {CONTROL_GROUP: 1, STREAM_GROUP: STREAM_SLOTS}
#: The node of calls made straight to a shard (Ray's ``par_iter_next``), not through a gather.
_DIRECT = NodeId("direct")
#: The node of the slices a repartition's new shards pull.
_SLICE = Serving(NodeId("repartition"), "par_iter_slice")


@dataclass(frozen=True)
class BatchRequest:
    """How a shard answers one batch call.

    With ``batch_ms > 0`` it pulls for that many milliseconds (Ray's
    batching); otherwise it pulls ``chunk`` items, then, if ``coalesce_ns``
    is set, keeps pulling while the next item would still arrive within
    ``coalesce_ns`` of the first (rlviz's opt-in coalescing).
    """

    serving: Serving
    batch_ms: float = 0
    chunk: int = 1
    coalesce_ns: int = 0


def serialized(method: Callable) -> Callable:
    """Run ``method`` holding the actor's lock, one call at a time as in a plain Ray actor."""
    if getattr(method, "_rlviz_serialized", False) or inspect.isgeneratorfunction(method):
        return method

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self.rlviz_lock:
            return method(self, *args, **kwargs)

    locked._rlviz_serialized = True
    return locked


class ParallelIteratorWorker(RecorderControl):
    """Mixin for actors that serve a shard; subclasses must call this ``__init__``.

    Streams run in their own concurrency group (where the class declares
    ``CONCURRENCY_GROUPS``), so a paused stream does not block the actor.  To
    keep Ray's one-call-at-a-time semantics, every public method of a subclass
    and every item a stream pulls take the same lock.

    Parameters
    ----------
    item_generator : iterable or callable
        The shard's items, or a zero-argument callable returning them (a
        callable keeps the actor's arguments serialisable).
    repeat : bool
        Cycle over the items forever.  A one-shot iterator cannot repeat.

    Raises
    ------
    ValueError
        If ``repeat`` is set for an iterator that can only be read once.
    """

    def __init__(self, item_generator: Iterable | Callable[[], Iterable], repeat: bool) -> None:
        if repeat and isinstance(item_generator, Iterator):
            raise ValueError(f"repeat=True needs something that can be iterated again, but "
                             f"{item_generator!r} is a one-shot iterator; pass the iterable "
                             f"or a lambda returning a fresh iterator")
        self._rlviz_items = _cycle(item_generator) if repeat else _items(item_generator)
        self._rlviz_local: Iterator | None = None
        self._rlviz_round_serving = Serving(_DIRECT, "par_iter_next")
        self.rlviz_lock = threading.RLock()   # public: subclasses' own generators take it too
        self._rlviz_stopped: set[str] = set()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and inspect.isfunction(member):
                setattr(cls, name, serialized(member))

    # -- Ray's public worker interface --------------------------------------
    def par_iter_init(self, transforms: list[Callable]) -> None:
        """Start a fresh local chain over the item generator with ``transforms``."""
        source = Source("item_generator", NodeId("items"), "items", None)
        it = LocalIterator.from_chain(Chain(source))
        for fn in transforms:
            it = fn(it)
        self._rlviz_set_chain(it.chain)

    def par_iter_next(self) -> Any:
        """The shard's next item; raises ``StopIteration`` at the end."""
        return self._rlviz_serve_one(Serving(_DIRECT, "par_iter_next"))[1]

    def par_iter_next_batch(self, batch_ms: float) -> list:
        """Items gathered for ``batch_ms`` milliseconds (0: exactly one)."""
        return self._rlviz_serve_batch(BatchRequest(Serving(_DIRECT, "par_iter_next_batch"), batch_ms))[1]

    def par_iter_slice(self, step: int, start: int) -> Any:
        """Every ``step``-th item starting at ``start`` (for repartition)."""
        return self._rlviz_slice(step, start)[1]

    def par_iter_slice_batch(self, step: int, start: int, batch_ms: float) -> list:
        """``par_iter_slice`` batched for ``batch_ms`` milliseconds."""
        return self.rlviz_slice_batch(step, start, batch_ms)[1]

    # -- rlviz's actor protocol: what its driver calls, values paired with their ids --
    def rlviz_init(self, chain: Chain, serving: Serving | None = None) -> None:
        """Serve ``chain`` (sent by the driver as it is) over this shard's items.

        ``serving`` is what argument-less ``rlviz_next()`` calls are recorded
        on: a gather's hot call then carries no argument, as Ray's
        ``par_iter_next`` did (each argument costs a Ray call ~0.1 ms here).
        """
        self._rlviz_set_chain(chain)
        self._rlviz_round_serving = serving or Serving(_DIRECT, "par_iter_next")

    def rlviz_next(self, serving: Serving | None = None) -> list:
        """``[id, item]``: the next item and its id, recorded on ``serving``'s node (default: the one ``rlviz_init`` named).

        A list, not a tuple: Ray sends a list of plain values with msgpack but
        pickles a tuple, which costs ~0.1 ms more per call here (docs/performance.md).
        """
        return self._rlviz_serve_one(serving or self._rlviz_round_serving)

    def rlviz_next_batch(self, request: BatchRequest) -> list:
        """One batch as a plain call: ``[ids, items]``."""
        return self._rlviz_serve_batch(request)

    def rlviz_stream(self, request: BatchRequest, token: str = ""):
        """Stream ``[ids, items]`` batches until the shard ends or the driver stops ``token``."""
        stopped = self._rlviz_stopped
        try:
            while token not in stopped:
                try:
                    yield self._rlviz_serve_batch(request)
                except StopIteration:
                    return
        finally:
            stopped.discard(token)

    def rlviz_stop_stream(self, token: str) -> None:
        """Make stream ``token`` end before its next pull (its consumer is gone)."""
        self._rlviz_stopped.add(token)

    def rlviz_slice_batch(self, step: int, start: int, batch_ms: float) -> list:
        """Ids and items of ``par_iter_slice`` for ``batch_ms`` milliseconds (what repartition pulls)."""
        return self._rlviz_batch(lambda: self._rlviz_slice(step, start), _SLICE, BatchRequest(_SLICE, batch_ms))

    def rlviz_made_from(self, *item_ids: int) -> None:
        """Say that the next item the item generator yields was made from these recorded values.

        Call it from the generator just before yielding: a ``RolloutWorker``
        passes the id of its ``sample()`` span, so the shard's source event
        lists that span as its producer and a walk back from the driver
        reaches ``sample()``.  Ids below 0 (nothing recorded) are ignored.
        """
        made_from = getattr(self, "_rlviz_made_from", None)
        if made_from is not None:
            made_from.extend(i for i in item_ids if i >= 0)

    # -- helpers -------------------------------------------------------------
    def _rlviz_set_chain(self, chain: Chain) -> None:
        """Serve ``chain`` from now on; its values' ids wait in one list for the next serving call."""
        items = self._rlviz_items

        def open_items(timeout: float | None, consumed: list) -> Iterator:
            self._rlviz_made_from = consumed
            return iter(items)      # a list or range starts again for each new chain, a generator goes on

        with self.rlviz_lock:
            self._rlviz_chain = chain.over(open_items)
            self._rlviz_consumed: list[int] = []
            self._rlviz_serve = {}
            self._rlviz_slices = None
            self._rlviz_held_errors: dict[Serving, BaseException] = {}
            self._rlviz_local = self._rlviz_chain.build(SharedMetrics(), consumer=self._rlviz_consumed)

    def _rlviz_serve_node(self, serving: Serving) -> int:
        """The recorder index of ``serving``'s node on this shard."""
        node = self._rlviz_serve.get(serving)
        if node is None:
            recorder = get_recorder()
            last = self._rlviz_chain.nodes(recorder.where)[-1]
            node = self._rlviz_serve[serving] = recorder.register(serving.node(last))
        return node

    def _rlviz_serve_one(self, serving: Serving) -> list:
        with self.rlviz_lock:
            return self._rlviz_serve_locked(serving)

    def _rlviz_serve_locked(self, serving: Serving) -> list:
        if self._rlviz_local is None:
            raise RuntimeError("par_iter_init() must be called before pulling items from this shard")
        node = self._rlviz_serve_node(serving)
        consumed = self._rlviz_consumed
        recorder = get_recorder()
        start = time.time_ns()
        try:
            item = next(self._rlviz_local)
        except StopIteration:
            if recorder.enabled:
                recorder.record(node, start, time.time_ns(), STOP, inputs=_drain(consumed))
            raise
        except BaseException:
            if recorder.enabled:
                recorder.record(node, start, time.time_ns(), ERROR, inputs=_drain(consumed))
            raise
        if not recorder.enabled:
            consumed.clear()
            return [-1, item]
        return [recorder.record(node, start, time.time_ns(), ITEM, item, _drain(consumed)), item]

    def _rlviz_serve_batch(self, request: BatchRequest) -> list:
        return self._rlviz_batch(lambda: self._rlviz_serve_one(request.serving), request.serving, request)

    def _rlviz_batch(self, pull: Callable[[], list], serving: Serving, request: BatchRequest) -> list:
        """A batch from ``pull``; an error after some items is held back and raised by the next batch."""
        held = self._rlviz_held_errors.pop(serving, None)
        if held is not None:
            raise held
        ids, items, error = _collect(pull, request.batch_ms, request.chunk, request.coalesce_ns)
        if error is not None:
            if not items:
                raise error
            self._rlviz_held_errors[serving] = error
        return [ids, items]

    def _rlviz_slice(self, step: int, start: int) -> list:
        if self._rlviz_slices is None:
            self._rlviz_slices = collections.defaultdict(collections.deque)
        buffers = self._rlviz_slices
        if not buffers[start]:
            for index in range(step):
                try:
                    buffers[index].append(self._rlviz_serve_one(_SLICE))
                except StopIteration:
                    break
            if not buffers[start]:
                raise StopIteration
        return buffers[start].popleft()


def _collect(pull: Callable[[], list], batch_ms: float, chunk: int,
             budget_ns: int) -> tuple[list, list, Exception | None]:
    """Pull ``[id, item]`` pairs, and say which error (if any) ended the batch early.

    With ``batch_ms > 0``, pull for that many milliseconds (Ray's batching).
    Otherwise pull ``chunk`` pairs, then keep pulling while the next one, if it
    takes as long as the last, would still arrive within ``budget_ns`` of the
    first pull: fast items share one round trip, a slow item goes alone
    (``budget_ns=0``: exactly ``chunk`` items, Ray's pattern).
    """
    ids: list[int] = []
    items: list = []
    first = last = time.perf_counter_ns()
    deadline = first + int(batch_ms * 1e6) if batch_ms > 0 else None
    while True:
        try:
            item_id, item = pull()
        except StopIteration:
            if not items:
                raise
            break
        except Exception as error:
            return ids, items, error
        ids.append(item_id)
        items.append(item)
        now = time.perf_counter_ns()
        if deadline is not None:
            if now >= deadline:
                break
        elif len(items) >= chunk and 2 * now - last - first > budget_ns:
            break
        last = now
    return ids, items, None


def _drain(consumed: list) -> tuple | None:
    if not consumed:
        return None
    taken = tuple(consumed)
    consumed.clear()
    return taken


def _items(item_generator) -> Iterable:
    """What the shard iterates: the iterable itself (read afresh by each chain), or what the callable returns."""
    return item_generator() if callable(item_generator) else item_generator


def _cycle(item_generator) -> Iterator:
    while True:
        yield from _items(item_generator)


class ShardWorker(ParallelIteratorWorker):
    """The actor behind ``from_items``/``from_range``/``from_iterators``: just a shard."""

    def __init__(self, item_generator: Iterable | Callable[[], Iterable], repeat: bool) -> None:
        super().__init__(item_generator, repeat)
