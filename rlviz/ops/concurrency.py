"""``Concurrently``, ``Enqueue`` and ``Dequeue``: running several ops as one stream, and queues between threads.

``Concurrently`` is a union of its ops drawn as one node named "Concurrently".
"""
from __future__ import annotations

import queue as queue_module
from collections.abc import Callable, Iterator
from typing import Any

from rlviz.checks import check_distinct_indexes, check_round_robin_weights
from rlviz.iter import LocalIterator, NextValueNotReady
from rlviz.iter.sentinel import NOT_READY
from rlviz.trace import gauge
from rlviz.trace.event import DRIVER
from rlviz.trace.gauges import QUEUE_CAPACITY, QUEUE_EMPTY, QUEUE_HELD
from rlviz.ops.errors import OpInputError

__all__ = ["Concurrently", "Enqueue", "Dequeue", "MODES"]

#: The modes ``Concurrently`` accepts.
MODES = ("round_robin", "async")


def Concurrently(ops: list[LocalIterator], *, mode: str = "round_robin",
                 output_indexes: list[int] | None = None,
                 round_robin_weights: list | None = None) -> LocalIterator:
    """Run several ops as one stream, interleaving their ``next()`` calls.

    Parameters
    ----------
    ops : list of LocalIterator
        At least two ops (iterators).
    mode : {"round_robin", "async"}
        ``"round_robin"``: a deterministic union (each op blocks for its
        turn); ``"async"``: each op is polled without blocking and gives what
        is ready (order not deterministic; with nothing ready it spins).
    output_indexes : list of int, optional
        Pass on only the items of these ops; the others still run, their
        results are dropped.  Default: every op's items.
    round_robin_weights : sequence of int, float or "*", optional
        Round-robin mode only: pulls per op per round (``"*"``: everything
        ready, without blocking).  Not all ``"*"``.

    Returns
    -------
    LocalIterator
        One node named ``"Concurrently"`` fed by the ops (followed by an
        ``output_indexes`` node when those are given).

    Raises
    ------
    TypeError
        At construction, naming the argument: an op that is not a
        LocalIterator (``OpInputError``, also a ValueError), weights or
        output indexes that are not lists of numbers.
    ValueError
        At construction, naming the argument: fewer than 2 ops, an unknown
        mode, weights in async mode, weights of the wrong length, not finite
        and > 0, or all ``"*"``, output indexes out of range or repeated.

    Examples
    --------
    >>> from rlviz.iter import LocalIterator
    >>> a = LocalIterator(lambda timeout: iter("aaaa"), name="a")
    >>> b = LocalIterator(lambda timeout: iter("bbbb"), name="b")
    >>> "".join(Concurrently([a, b], round_robin_weights=[2, 1]).take(6))
    'aabaab'
    >>> Concurrently([a, b], output_indexes=[1]).take(3)
    ['b', 'b', 'b']
    """
    round_robin_weights = _check(ops, mode, output_indexes, round_robin_weights)
    children = list(ops)
    if output_indexes is not None:
        children = [op.for_each(_Tag(i)) for i, op in enumerate(ops)]
    union = children[0].union(*children[1:], deterministic=(mode == "round_robin"),
                              round_robin_weights=round_robin_weights)
    facts = (("children", tuple(op.chain.nodes(DRIVER)[-1].op for op in ops)),)
    if output_indexes is not None:
        facts += (("output_indexes", tuple(sorted(output_indexes))),)
    out = LocalIterator.from_chain(union.chain.with_details(facts), union.shared_metrics).named("Concurrently")
    if output_indexes is None:
        return out
    keep = frozenset(output_indexes)
    return out.transform(lambda upstream: _select(upstream, keep)).named("output_indexes")


class Enqueue:
    """A ``for_each`` function that puts each item into a queue without blocking.

    While the queue is full it returns ``NextValueNotReady``, recording the
    queue's size and capacity as gauges (the cause its ``Event.why`` names);
    ``for_each`` yields that and retries the same item on the next pull
    (back-pressure).
    The item itself is passed on.

    Parameters
    ----------
    queue : queue.Queue
        Where items go (typically a learner thread's in-queue).

    Raises
    ------
    OpInputError
        If ``queue`` has no ``put_nowait`` (also a TypeError / ValueError).

    Examples
    --------
    >>> import queue
    >>> q = queue.Queue(maxsize=1)
    >>> put = Enqueue(q)
    >>> put(1), put(2)
    (1, NextValueNotReady())
    """

    __rlviz_op__ = "Enqueue"

    def __init__(self, queue: queue_module.Queue) -> None:
        if not hasattr(queue, "put_nowait"):
            raise OpInputError(f"queue must be a queue.Queue (with put_nowait), got {type(queue).__name__}")
        self.queue = queue

    def __call__(self, item: Any) -> Any:
        try:
            self.queue.put_nowait(item)
        except queue_module.Full:
            gauge(QUEUE_HELD, self.queue.qsize())             # the cause, inside this not-ready call
            gauge(QUEUE_CAPACITY, self.queue.maxsize)
            return NOT_READY
        return item


def Dequeue(queue: queue_module.Queue, check: Callable[[], bool] = lambda: True) -> LocalIterator:
    """An iterator over what another thread puts into ``queue``.

    Yields each item, ``NextValueNotReady`` while the queue is empty (recording
    its size as a gauge, the cause its ``Event.why`` names), and
    raises ``RuntimeError`` once ``check()`` returns false (e.g. the learner
    thread died).

    Parameters
    ----------
    queue : queue.Queue
        Where items come from (typically a learner thread's out-queue).
    check : callable, optional
        Called before each attempt; false ends the stream with an error.

    Returns
    -------
    LocalIterator
        A source node named ``"Dequeue"``.

    Raises
    ------
    OpInputError
        If ``queue`` has no ``get_nowait`` or ``check`` is not callable.

    Examples
    --------
    >>> import queue
    >>> q = queue.Queue()
    >>> q.put("x")
    >>> Dequeue(q).take(2)
    ['x', NextValueNotReady()]
    """
    if not hasattr(queue, "get_nowait"):
        raise OpInputError(f"queue must be a queue.Queue (with get_nowait), got {type(queue).__name__}")
    if not callable(check):
        raise OpInputError(f"check must be a callable returning bool, got {type(check).__name__}")

    def items(timeout) -> Iterator:
        while check():
            try:
                item = queue.get_nowait()
            except queue_module.Empty:
                gauge(QUEUE_EMPTY, queue.qsize())              # the cause, inside this not-ready call
                yield NOT_READY
            else:
                yield item
        raise RuntimeError("Dequeue: check() returned False (the thread feeding the queue has stopped)")

    return LocalIterator(items, name="Dequeue")


# -- helpers ------------------------------------------------------------------
class _Tag:
    """Pairs each item with its op's index (for output_indexes)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.__rlviz_op__ = f"tag[{index}]"

    def __call__(self, item: Any) -> tuple[int, Any]:
        return self.index, item


def _select(upstream: Iterator, keep: frozenset) -> Iterator:
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
        elif item[0] in keep:
            yield item[1]


def _check(ops: object, mode: object, output_indexes: object, weights: object) -> list | None:
    """Check the arguments; return the weights as a list of Python numbers and "*" (or None)."""
    if not isinstance(ops, (list, tuple)):
        raise OpInputError(f"ops must be a list of LocalIterators, got {type(ops).__name__}")
    if len(ops) < 2:
        raise ValueError(f"ops must hold at least 2 ops to run concurrently, got {len(ops)}; "
                         f"a single op needs no Concurrently")
    for i, op in enumerate(ops):
        if not isinstance(op, LocalIterator):
            raise OpInputError(f"ops[{i}] must be a LocalIterator, got {type(op).__name__}; "
                               f"gather a ParallelIterator first (.gather_sync() / .gather_async())")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    if weights is not None:
        if mode != "round_robin":
            raise ValueError(f"round_robin_weights only apply in mode='round_robin', got mode={mode!r}; "
                             f"drop the weights or switch the mode")
        weights = check_round_robin_weights("round_robin_weights", weights, len(ops))
    if output_indexes is not None:
        check_distinct_indexes("output_indexes", output_indexes, len(ops))
    return weights
