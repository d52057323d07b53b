"""``record()``: turn recording on for a block and gather what every process saw.

Other layers plug in *collectors* (the iterator layer adds one that reaches
Ray actors), so this module stays free of Ray and matplotlib.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rlviz.trace.recorder import get_recorder
from rlviz.trace.trace import Trace

__all__ = ["record", "Collector", "add_collector", "LiveTrace"]

_REFRESH_S = 0.5


class Collector(Protocol):
    """Gathers recorder exports from processes other than this one."""

    def begin(self, capacity: int | None) -> None:
        """Recording starts: switch remote recorders on and note their cursors."""

    def collect(self) -> list[dict]:
        """Exports of everything recorded remotely since ``begin``."""

    def end(self) -> None:
        """Recording stops: switch remote recorders off."""


_COLLECTORS: list[Collector] = []


def add_collector(collector: Collector) -> None:
    """Register a collector used by every later ``record()`` block."""
    if collector not in _COLLECTORS:
        _COLLECTORS.append(collector)


class LiveTrace(Trace):
    """The trace ``record()`` yields: refreshed on read while the block runs, fixed after."""

    def __init__(self, session: "_Session") -> None:
        self._session = session
        self._snapshot = Trace.empty()
        self._stamp: tuple | None = None
        self._events = None

    def _current(self) -> Trace:
        if self._session.active:
            stamp = (get_recorder().held, int(time.monotonic() / _REFRESH_S))
            if stamp != self._stamp:
                self._adopt(self._session.collect(), stamp)
        return self._snapshot

    def _adopt(self, snapshot: Trace, stamp: tuple | None) -> None:
        self._snapshot, self._stamp, self._events = snapshot, stamp, None

    nodes = property(lambda self: self._current().nodes)
    columns = property(lambda self: self._current().columns)
    texts = property(lambda self: self._current().texts)
    dropped = property(lambda self: self._current().dropped)


class _Session:
    def __init__(self, capacity: int | None) -> None:
        self.capacity = capacity
        self.active = False
        self.dropped_before = 0
        self.start_ns = time.time_ns()

    def collect(self) -> Trace:
        local = get_recorder().export()
        local["dropped"] -= self.dropped_before
        exports = [local]
        for collector in _COLLECTORS:
            exports.extend(collector.collect())
        return Trace.from_exports(exports, since_ns=self.start_ns)


@contextmanager
def record(capacity: int | None = None) -> Iterator[Trace]:
    """Record every ``next()`` call made while the block runs.

    Parameters
    ----------
    capacity : int, optional
        Bound on the events each process holds (default 1,000,000, at least
        2048: two chunks); past it the oldest are dropped and counted in ``trace.dropped``.

    Yields
    ------
    Trace
        Reads inside the block see what has been recorded so far; after the
        block it holds everything from the driver and every actor that ran
        rlviz iterators.

    Examples
    --------
    >>> import rlviz
    >>> from rlviz.iter import from_items
    >>> with rlviz.record() as trace:
    ...     _ = from_items([1, 2, 3], num_shards=1).gather_sync().take(3)
    >>> "gather_sync" in {event.op for event in trace.events}
    True
    """
    recorder = get_recorder()
    if capacity is not None:
        recorder.set_capacity(capacity)
    session = _Session(capacity)
    trace = LiveTrace(session)
    session.dropped_before = recorder.dropped
    session.start_ns = time.time_ns()
    was_enabled = recorder.enabled
    for collector in _COLLECTORS:
        collector.begin(capacity)
    recorder.enabled = True
    session.active = True
    try:
        yield trace
    finally:
        recorder.enabled = was_enabled
        final = session.collect()
        session.active = False
        for collector in _COLLECTORS:
            collector.end()
        trace._adopt(final, None)
