"""``span()``: record one call that is not an iterator step (a worker's ``sample()``,
a weight sync, a learn step) on this process's recorder.

Costs one attribute read when recording is off.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rlviz.trace.event import Node
from rlviz.trace.recorder import get_recorder
from rlviz.trace.rows import ERROR, ITEM, STOP

__all__ = ["span", "Span"]

_UNSET = object()


class Span:
    """The handle ``span()`` yields: say what the call produced and consumed."""

    __slots__ = ("value", "inputs", "item_id", "_promise")

    def __init__(self, promise: Callable[[], int] | None = None) -> None:
        self.value: object = _UNSET
        self.inputs: tuple[int, ...] | None = None
        self.item_id = -1
        self._promise = promise

    def produced(self, value: object) -> None:
        """The call produced ``value``; the event shows its summary."""
        self.value = value

    def consumed(self, *item_ids: int) -> None:
        """The call consumed the values with these ids."""
        self.inputs = item_ids

    def upcoming_id(self) -> int:
        """The id this call's value will take, known before the call ends (-1 when nothing is recorded).

        So a call can hand its own id to the calls it starts elsewhere (a
        weight sync tags the weights it sends, and each worker's
        ``set_weights`` lists the sync as its input).  Exact as long as the
        block records no other span of the same op on the same thread.
        """
        return -1 if self._promise is None else self._promise()


@contextmanager
def span(op: str, label: str | None = None, where: str | None = None,
         parents: tuple[str, ...] = ()) -> Iterator[Span]:
    """Record the enclosed block as one event of node ``op`` on this process.

    Parameters
    ----------
    op : str
        The call's name, e.g. ``"sample"``; also the node's op.
    label : str, optional
        A longer description for the node (defaults to ``op``).
    where : str, optional
        The lane to show it on (defaults to this process's recorder label).
    parents : tuple of str, optional
        The op_ids (``"<op>@<lane>"``) of the nodes this call takes its input
        from, so a graph of the trace draws the edges.

    Examples
    --------
    >>> from rlviz.trace import record, span
    >>> with record() as trace:
    ...     with span("sample") as call:
    ...         call.produced([1, 2, 3])
    >>> trace.events[0].item
    'list[3]'
    """
    recorder = get_recorder()
    if not recorder.enabled:
        yield Span()
        return
    place = where or recorder.where
    node = recorder.register(Node(f"{op}@{place}", op, label or op, place, tuple(parents)))
    handle = Span(lambda: recorder.upcoming_id(node))
    start = time.time_ns()
    try:
        yield handle
    except StopIteration:
        recorder.record(node, start, time.time_ns(), STOP, inputs=handle.inputs)
        raise
    except BaseException:
        recorder.record(node, start, time.time_ns(), ERROR, inputs=handle.inputs)
        raise
    if handle.value is _UNSET:
        handle.item_id = recorder.record(node, start, time.time_ns(), ITEM, inputs=handle.inputs)
    else:
        handle.item_id = recorder.record(node, start, time.time_ns(), ITEM, handle.value, handle.inputs)
