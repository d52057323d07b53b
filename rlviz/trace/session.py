"""``record()``: turn recording on for a block and gather what every process saw.

Other layers plug in *collectors* (the iterator layer adds one that reaches
Ray actors), so this module stays free of Ray and matplotlib.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rlviz.checks import check_int, check_positive_number
from rlviz.trace.decisions import get_decision_log
from rlviz.trace.recorder import CHUNK_EVENTS, DEFAULT_CAPACITY, get_recorder
from rlviz.trace.trace import Trace

__all__ = ["record", "Collector", "add_collector", "LiveTrace", "COLLECT_EVERY_S"]

_REFRESH_S = 0.5
#: How often, by default, a block pulls new events from other processes (seconds).
COLLECT_EVERY_S = 1.0


class Collector(Protocol):
    """Gathers recorder exports from processes other than this one."""

    def begin(self, capacity: int | None, collect_every_s: float | None) -> None:
        """Recording starts: switch remote recorders on; pull their events every ``collect_every_s`` (None: at the end)."""

    def collect(self) -> list[dict]:
        """Exports of everything recorded remotely since ``begin``."""

    def end(self) -> None:
        """Recording stops: switch remote recorders off."""


_COLLECTORS: list[Collector] = []
_OPEN_SESSIONS: list["_Session"] = []      # the record() blocks running now, outermost first


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
    decisions = property(lambda self: self._current().decisions)


class _Session:
    def __init__(self, capacity: int | None) -> None:
        self.capacity = capacity
        self.active = False
        self.dropped_before = 0
        self.start_ns = time.time_ns()

    def collect(self) -> Trace:
        local = get_recorder().export()
        local["dropped"] -= self.dropped_before
        local["decisions"] = get_decision_log().export()       # unions run on the driver
        exports = [local]
        for collector in _COLLECTORS:
            exports.extend(collector.collect())
        return Trace.from_exports(exports, since_ns=self.start_ns)


@contextmanager
def record(capacity: int | None = None, collect_every_s: float | None = COLLECT_EVERY_S) -> Iterator[Trace]:
    """Record every ``next()`` call made while the block runs.

    Parameters
    ----------
    capacity : int, optional
        Bound on the events each process holds during this block (default
        1,000,000, at least 2048: two chunks); past it the oldest are dropped
        and counted in ``trace.dropped``.  The bound lasts for this block only.
    collect_every_s : float or None, default 1.0
        How often the driver pulls new events from actors while the block
        runs.  An actor that dies abruptly keeps in the trace what it had
        recorded up to the last pull.  None: only when the block ends or the
        trace is read (what an actor recorded after that is lost if it dies).

    Yields
    ------
    Trace
        Reads inside the block see what has been recorded so far; after the
        block it holds everything from the driver and every actor that ran
        rlviz iterators.  ``dropped`` counts only this block's own events.

    Raises
    ------
    ValueError
        If ``collect_every_s`` is not a positive number, or if a nested block (one inside another ``record()``) gives a
        ``capacity``: nested blocks share the enclosing block's buffers.

    Notes
    -----
    Blocks nest: an inner block sees the events of its own time span, and the
    enclosing block goes on recording every process after the inner one ends.

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
    outermost = not _OPEN_SESSIONS
    if capacity is not None:
        check_int("capacity", capacity, minimum=2 * CHUNK_EVENTS,
                  hint=f"a number of events, at least two chunks; the default is {DEFAULT_CAPACITY:,}")
        if not outermost:
            raise ValueError(f"capacity={capacity} was given to a record() block nested in another one; "
                             f"nested blocks share the enclosing block's buffers, so give the capacity to "
                             f"the outermost block")
    if collect_every_s is not None:
        check_positive_number("collect_every_s", collect_every_s,
                              hint="seconds between pulls of actors' events, or None to pull only at the end")
    session = _Session(capacity)
    trace = LiveTrace(session)
    session.start_ns = time.time_ns()
    if outermost:
        recorder.set_capacity(DEFAULT_CAPACITY if capacity is None else capacity)
        recorder.start_block(session.start_ns)
        for collector in _COLLECTORS:
            collector.begin(DEFAULT_CAPACITY if capacity is None else capacity, collect_every_s)
    session.dropped_before = recorder.dropped
    was_enabled = recorder.enabled
    recorder.enabled = True
    session.active = True
    _OPEN_SESSIONS.append(session)
    try:
        yield trace
    finally:
        _OPEN_SESSIONS.remove(session)
        if outermost:
            recorder.enabled = was_enabled
        try:
            trace._adopt(session.collect(), None)
        finally:                        # even if collecting fails or is interrupted, recording stops
            session.active = False
            if outermost:
                for collector in _COLLECTORS:
                    collector.end()
