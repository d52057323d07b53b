"""Stepping through a trace: its events in completion order, filtered, each described in words.

The plain-data half of ``TraceStepper``, so what the widget shows can be
tested without a browser or a figure.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace import Event, Trace
from rlviz.trace.lanes import lane_order
from rlviz.trace.rows import NOT_READY
from rlviz.viz.canvas import check_trace

__all__ = ["Steps", "check_nonempty_trace"]


class Steps:
    """A trace's events in the order their ``next()`` calls completed, with filters and descriptions.

    Completion order (end time) is the order in which values became
    available: a gather's call completes after the shard call it consumed,
    so stepping in this order follows each value downstream.

    Parameters
    ----------
    trace : Trace
        A recorded trace with at least one event.

    Raises
    ------
    TypeError
        If ``trace`` is not an ``rlviz.trace.Trace``.
    ValueError
        If the trace has no events.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> steps = Steps(sharded_trace(items=2, not_ready=0))
    >>> steps.ops, steps.wheres
    (['batch', 'for_each', 'from_range', 'gather_sync'], ['driver', 'shard-0', 'shard-1'])
    >>> [steps.event(i).op for i in steps.select(where="shard-0")]
    ['from_range', 'for_each', 'from_range', 'for_each']
    """

    def __init__(self, trace: Trace) -> None:
        self.trace = check_nonempty_trace(trace, "Steps")
        c = trace.columns
        #: Event indices (the trace's start order) in completion order.
        self.order = np.argsort(c["end_ns"], kind="stable")
        #: ``rank[event]`` is the event's 0-based position in completion order.
        self.rank = np.empty(len(trace), np.int64)
        self.rank[self.order] = np.arange(len(trace))
        producers, consumers = trace.links()
        by_consumer = np.argsort(consumers, kind="stable")
        self._producers = producers[by_consumer]
        self._offsets = np.searchsorted(consumers[by_consumer], np.arange(len(trace) + 1))
        self._node_op = np.array([n.op for n in trace.nodes], dtype=object)
        self._node_where = np.array([n.where for n in trace.nodes], dtype=object)

    def __len__(self) -> int:
        return len(self.order)

    @property
    def ops(self) -> list[str]:
        """Op names that have events, sorted."""
        return sorted(set(self._node_op[np.unique(self.trace.columns["node"])].tolist()))

    @property
    def wheres(self) -> list[str]:
        """Lanes (processes) that have events, in lane order (driver first, ``shard-2`` before ``shard-10``)."""
        return lane_order(self._node_where[np.unique(self.trace.columns["node"])].tolist())

    def select(self, op: str | None = None, where: str | None = None, skip_not_ready: bool = False) -> np.ndarray:
        """Event indices, in completion order, of the events of ``op`` on lane ``where``.

        Parameters
        ----------
        op : str, optional
            Keep only this op name (None or ``""``: every op).
        where : str, optional
            Keep only this lane (None or ``""``: every lane).
        skip_not_ready : bool, default False
            Leave out calls that returned "not ready" (Ape-X's ``Dequeue``
            makes mostly those), so each step made, ended or failed something.

        Returns
        -------
        ndarray of int
            Possibly empty when no event has both.

        Raises
        ------
        ValueError
            If ``op`` or ``where`` names nothing in the trace.
        """
        keep = np.ones(len(self.trace.nodes), bool)
        for name, value, known, column in (("op", op, self.ops, self._node_op),
                                           ("where", where, self.wheres, self._node_where)):
            if value:
                if value not in known:
                    raise ValueError(f"{name}={value!r} has no events in this trace; "
                                     f"choose one of {known} (or None for all)")
                keep &= column == value
        chosen = self.order[keep[self.trace.columns["node"][self.order]]]
        if skip_not_ready:
            chosen = chosen[self.trace.columns["outcome"][chosen] != NOT_READY]
        return chosen

    def event(self, index: int) -> Event:
        """The event at trace index ``index``."""
        return self.trace.event(index)

    def producers(self, index: int) -> list[int]:
        """Trace indices of the events that produced the values event ``index`` consumed."""
        return self._producers[self._offsets[index]:self._offsets[index + 1]].tolist()

    def describe(self, index: int) -> str:
        """What event ``index`` was, as a few aligned lines of text.

        Lists op, label, lane, outcome, item, times (ms since the trace
        started), for each consumed value the event that produced it as
        ``#k`` (its 1-based place in completion order), and for a union's
        pull why it happened (``Event.why``).

        Examples
        --------
        >>> from rlviz.viz.examples import sharded_trace
        >>> steps = Steps(sharded_trace(items=1, shards=1, not_ready=0))
        >>> gather = steps.select(op="gather_sync")[0]
        >>> print(steps.describe(gather))      # doctest: +NORMALIZE_WHITESPACE
        #3 of 4 in completion order
        op       gather_sync
        label    LocalIterator[ParallelIterator[from_range[1, shards=1].for_each()].gather_sync()]
        where    driver (pid 0)
        outcome  item
        item     int 0
        time     0.692 -> 0.722 ms (30 µs)
        inputs   #2 for_each @ shard-0: int 0
        """
        event = self.event(index)
        origin = self.trace.start_ns
        start, end = (event.start_ns - origin) / 1e6, (event.end_ns - origin) / 1e6
        lines = [f"#{self.rank[index] + 1} of {len(self)} in completion order",
                 f"op       {event.op}",
                 f"label    {event.label}",
                 f"where    {event.where} (pid {event.pid})",
                 f"outcome  {event.outcome}",
                 f"item     {event.item if event.item is not None else '-'}",
                 f"time     {start:.3f} -> {end:.3f} ms ({_duration(event.duration_ns)})"]
        sources = self.producers(index)
        if sources:
            lines += [("inputs   " if k == 0 else "         ") + self._short(p) for k, p in enumerate(sources)]
        elif event.inputs:
            lines.append(f"inputs   {len(event.inputs)} value(s) whose producers were not recorded")
        else:
            lines.append("inputs   none")
        if event.why is not None:
            lines.append(f"why      {event.why}")
        return "\n".join(lines)

    def _short(self, index: int) -> str:
        event = self.event(index)
        item = f": {event.item}" if event.item is not None else ""
        return f"#{self.rank[index] + 1} {event.op} @ {event.where}{item}"


def check_nonempty_trace(trace: object, caller: str) -> Trace:
    """Return ``trace`` if it is a Trace with events; otherwise raise naming ``caller`` and the fix.

    Raises
    ------
    TypeError
        If ``trace`` is not an ``rlviz.trace.Trace``.
    ValueError
        If it has no events.
    """
    trace = check_trace(trace, caller)
    if len(trace) == 0:
        raise ValueError(f"{caller}(trace): the trace has no events, so there is nothing to step through; "
                         f"record some work first (`with rlviz.record() as trace: it.take(10)`), "
                         f"and run it inside the block")
    return trace


def _duration(ns: int) -> str:
    if ns >= 1_000_000:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1_000:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns} ns"

