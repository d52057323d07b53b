"""``record()``: turn recording on for a block and gather what every process saw.

Other layers plug in *collectors* (the iterator layer adds one that reaches
Ray actors), so this module stays free of Ray and matplotlib.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rlviz.checks import check_int, check_positive_number
from rlviz.trace.recorder import CHUNK_EVENTS, DEFAULT_CAPACITY, ExportCursor, get_recorder
from rlviz.trace.spill import SpillWriter
from rlviz.trace.store import TraceStore
from rlviz.trace.trace import Trace

__all__ = ["record", "Collector", "add_collector", "LiveTrace", "COLLECT_EVERY_S"]

_REFRESH_S = 0.5
#: How often, by default, a block pulls new events from other processes (seconds).
COLLECT_EVERY_S = 1.0


class Collector(Protocol):
    """Gathers recorder exports from processes other than this one."""

    def begin(self, capacity: int | None, collect_every_s: float | None) -> None:
        """Recording starts: switch remote recorders on; pull their events every ``collect_every_s`` (None: at the end)."""

    def collect(self, final: bool = False) -> list[dict]:
        """Exports of everything recorded remotely since ``begin``.

        ``final`` is the block's last read: it must hold everything recorded
        before it, so a collector that reuses a recent answer for live reads
        asks afresh.
        """

    def end(self) -> None:
        """Recording stops: switch remote recorders off."""

    def forget_ended_before(self, end_ns: int) -> None:
        """The block keeps no event that ended before ``end_ns`` (driver clock): drop held copies of older ones."""

    def release_taken(self, taken: Callable[[memoryview], bool]) -> None:
        """The block's store holds each chunk ``taken(chunk)`` is true of: copies of it held in this process
        may shrink to ``rlviz.trace.rows.released_stub`` (a collector whose copies live elsewhere does nothing)."""


_COLLECTORS: list[Collector] = []
_OPEN_SESSIONS: list["_Session"] = []      # the record() blocks running now, outermost first


def add_collector(collector: Collector) -> None:
    """Register a collector used by every later ``record()`` block."""
    if collector not in _COLLECTORS:
        _COLLECTORS.append(collector)


class LiveTrace(Trace):
    """The trace ``record()`` yields: refreshed on read while the block runs, fixed after.

    Every public read takes one snapshot (a frozen ``Trace`` of the block's
    store) and answers from it alone, so one call never mixes two refreshes;
    keep ``trace.snapshot()`` to read several times from the same one.
    """

    def __init__(self, session: "_Session") -> None:
        self._session = session
        self._snapshot = Trace.empty()
        self._stamp: tuple | None = None

    def snapshot(self) -> Trace:
        """The frozen ``Trace`` this live trace reads from now (refreshed at most every half second)."""
        if self._session.active:
            stamp = (get_recorder().held, int(time.monotonic() / _REFRESH_S))
            if stamp != self._stamp:
                self._adopt(self._session.collect(), stamp)
        return self._snapshot

    def _adopt(self, snapshot: Trace, stamp: tuple | None) -> None:
        self._snapshot, self._stamp = snapshot, stamp

    @property
    def store(self) -> TraceStore:
        """The block's growing store (``rlviz.trace.store``): what a live view appends from."""
        return self._session.store

    def pull(self) -> int:
        """Bring the store up to date now (the driver and every collector), without building a view.

        Returns
        -------
        int
            How many events arrived.  0 once the block has ended.
        """
        return self._session.pull() if self._session.active else 0

    def __len__(self) -> int:
        return len(self.snapshot())

    def __repr__(self) -> str:
        return repr(self.snapshot())

    nodes = property(lambda self: self.snapshot().nodes)
    columns = property(lambda self: self.snapshot().columns)
    texts = property(lambda self: self.snapshot().texts)
    dropped = property(lambda self: self.snapshot().dropped)
    gaps = property(lambda self: self.snapshot().gaps)
    event_ids = property(lambda self: self.snapshot().event_ids)
    events = property(lambda self: self.snapshot().events, doc=Trace.events.__doc__)
    start_ns = property(lambda self: self.snapshot().start_ns, doc=Trace.start_ns.__doc__)
    decisions = property(lambda self: self.snapshot().decisions)
    gauges = property(lambda self: self.snapshot().gauges)


def _delegate(name: str):
    method = getattr(Trace, name)

    def read(self, *args, **kwargs):
        return getattr(self.snapshot(), name)(*args, **kwargs)

    read.__name__, read.__doc__ = name, method.__doc__
    return read


for _name in ("event", "to_records", "item_summary", "why", "causes", "inputs_of", "links", "save", "to_chrome", "graph",
              "sequence", "op_stats", "summary"):
    setattr(LiveTrace, _name, _delegate(_name))


class _Session:
    def __init__(self, capacity: int | None, spill: SpillWriter | None = None) -> None:
        self.capacity = capacity
        self.spill = spill
        self.active = False
        self.dropped_before = 0
        self.start_ns = time.time_ns()
        self.store = TraceStore()
        self.cursor = ExportCursor()
        self.lock = threading.Lock()
        self._stop_pulling = threading.Event()
        self._puller: threading.Thread | None = None

    def pull_every(self, every_s: float) -> None:
        """Pull in a background thread every ``every_s`` seconds until ``stop_pulling``: what a spill needs,
        since only events the store took can be written out when their buffer evicts them."""
        def loop() -> None:
            while not self._stop_pulling.wait(every_s):
                self.pull()

        self._puller = threading.Thread(target=loop, name="rlviz-spill-pull", daemon=True)
        self._puller.start()

    def stop_pulling(self) -> None:
        """Stop the background pulls (if any) and wait for the one under way."""
        self._stop_pulling.set()
        if self._puller is not None:
            self._puller.join()

    def begin(self, window_s: float | None = None) -> None:
        """Recording starts now: the store leaves out older events (and, with ``window_s``, events that old)."""
        self.start_ns = time.time_ns()
        self.store = TraceStore(since_ns=self.start_ns, window_ns=None if window_s is None else int(window_s * 1e9),
                                spill=self.spill)
        self.cursor = ExportCursor()

    def pull(self, final: bool = False) -> int:
        """Bring the store up to date: the driver by cursor, other processes by their collectors; events added.

        ``final``: the block's exit, which no collector answers from a cache.
        """
        with self.lock:
            increment = get_recorder().export_since(self.cursor)
            increment["dropped"] -= self.dropped_before
            added = self.store.add_increment(increment)
            self.cursor = increment["cursor"]
            for collector in _COLLECTORS:
                for export in collector.collect(final):
                    added += self.store.add_export(export)
            self._forget_outside_window()
            self._release_taken()
            return added

    def _forget_outside_window(self) -> None:
        """With a window, the buffers behind the store let go of what the window left: memory stays flat.

        Only while this is the one open block: another block reads the same buffers and may need more.
        """
        cutoff = self.store.window_start_ns
        if cutoff is None or _OPEN_SESSIONS != [self]:
            return
        get_recorder().forget_ended_before(cutoff)
        for collector in _COLLECTORS:
            collector.forget_ended_before(cutoff)

    def _release_taken(self) -> None:
        """The buffers in this process keep stubs of the chunks the store took whole: each event is held once.

        Only while this is the one open block (another block reads the same buffers and may need their rows).
        """
        if _OPEN_SESSIONS != [self]:
            return
        get_recorder().release_taken(self.store.taken)
        for collector in _COLLECTORS:
            collector.release_taken(self.store.taken)

    def collect(self, final: bool = False) -> Trace:
        """``pull`` (``final`` at the block's exit), then a frozen view of the store."""
        self.pull(final)
        return self.store.view()


@contextmanager
def record(capacity: int | None = None, collect_every_s: float | None = COLLECT_EVERY_S,
           window_s: float | None = None, spill: str | os.PathLike | None = None) -> Iterator[Trace]:
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
    window_s : float, optional
        Keep only events that ended within the last ``window_s`` seconds
        (of the newest event): the trace stays a fixed size however long the
        block runs.  None keeps everything.
    spill : str or path, optional
        A new file that receives, instead of losing them, the events the
        buffers evict past ``capacity`` (a binary trace, docs/design.md),
        with their links, scheduling decisions and gauge readings; at the
        block's end it gets the events still held too, so
        ``Trace.load(spill)`` reads back the whole run, lazily.  The
        evicted events still count in ``trace.dropped`` (they are not in
        the trace in memory).

    Yields
    ------
    Trace
        Reads inside the block see what has been recorded so far; after the
        block it holds everything from the driver and every actor that ran
        rlviz iterators.  ``dropped`` counts only this block's own events.

    Raises
    ------
    ValueError
        If ``collect_every_s`` or ``window_s`` is not a positive number, or if a nested block (one inside another ``record()``) gives a
        ``capacity``: nested blocks share the enclosing block's buffers.
    FileExistsError, FileNotFoundError
        If ``spill`` exists already, or its folder does not.

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
    if window_s is not None:
        check_positive_number("window_s", window_s, hint="seconds of events to keep, or None to keep every event")
    session = _Session(capacity, SpillWriter(spill) if spill is not None else None)
    trace = LiveTrace(session)
    session.begin(window_s)
    if outermost:
        recorder.set_capacity(DEFAULT_CAPACITY if capacity is None else capacity)
        recorder.start_block(session.start_ns)
        for collector in _COLLECTORS:
            collector.begin(DEFAULT_CAPACITY if capacity is None else capacity, collect_every_s)
    session.dropped_before = recorder.dropped
    was_enabled = recorder.enabled
    recorder.enabled = True
    session.active = True
    if spill is not None:
        session.pull_every(collect_every_s or COLLECT_EVERY_S)
    _OPEN_SESSIONS.append(session)
    try:
        yield trace
    finally:
        session.stop_pulling()
        _OPEN_SESSIONS.remove(session)
        if outermost:
            recorder.enabled = was_enabled
        try:
            trace._adopt(session.collect(final=True), None)
            if session.spill is not None:       # the file gets what is still held: it is then the whole run
                session.store.spill_rest()
        finally:                        # even if collecting fails or is interrupted, recording stops
            session.active = False
            if outermost:
                for collector in _COLLECTORS:
                    collector.end()
