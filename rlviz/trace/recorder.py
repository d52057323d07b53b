"""The per-process event buffer: cheap to append to, bounded, exportable.

Every process that runs rlviz iterators (the driver and each actor) has one
``Recorder``.  Each recorded stage writes through its own ``Writer`` onto a
private ``bytearray`` of rows (``rlviz.trace.rows`` owns their layout), handed
to the recorder as an int64 array once a chunk is full.  Past ``capacity``
held events the oldest chunks are dropped and counted, never an unbounded list.
"""
from __future__ import annotations

import os
import random
import threading
import time
import weakref
from array import array
from numbers import Real
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from rlviz.checks import check_int, describe_value
from rlviz.trace.event import DRIVER, Node
from rlviz.trace.items import TextTable, summarize
from rlviz.trace.rows import (CHUNK_BYTES, CHUNK_EVENTS, FIELDS, GAUGE, GAUGE_ROW, ITEM, NO_INPUT, ROW,
                              append_continuations, decision_row, header_row, last_end_ns, outcome_of, pack_code,
                              body_rows, event_rows, released_stub, stub_events, stub_span)

__all__ = ["Recorder", "Writer", "ExportCursor", "get_recorder", "DEFAULT_CAPACITY", "ROWS_PER_EVENT"]

DEFAULT_CAPACITY = 1_000_000
#: Rows of every kind (events, gauge readings, link continuations, decisions) a buffer holds at most, per event of
#: ``capacity``: ``capacity`` counts events, and this bounds the rest.
ROWS_PER_EVENT = 3
_pack_gauge, _now = GAUGE_ROW.pack, time.time_ns    # module globals: the gauge path skips two attribute lookups
_ID_SHIFT = 40
_NO_VALUE = object()


class ExportCursor(NamedTuple):
    """How far a reader of ``Recorder.export_since`` got: the next chunk's sequence number, texts read."""

    chunks: int = 0
    texts: int = 0


class Writer:
    """One stage's private rows and ids (owned by a single thread).

    ``rows`` (one chunk of ``rlviz.trace.rows`` rows, opened by a header)
    and ``next_id``/``id_end`` are advanced directly by ``rlviz.iter.instrument``
    on the hot path, under the invariants stated in ``rlviz.trace.rows``;
    ``record`` is the general path.  ``rows`` is read-only: the buffer is one
    object for the writer's life, only ever changed in place.  A writer that is
    garbage-collected hands its last rows over, so a finished chain loses nothing.
    """

    __slots__ = ("recorder", "node", "_rows", "next_id", "id_end", "__weakref__")

    def __init__(self, recorder: "Recorder", node: int) -> None:
        self.recorder = recorder
        self.node = node
        self._rows = bytearray()
        self._open_chunk()

    @property
    def rows(self) -> bytearray:
        """This chunk's packed rows (the same bytearray for the writer's whole life)."""
        return self._rows

    def __del__(self) -> None:
        if len(self._rows) > ROW.size:
            self._adopt_rows()

    def record(self, start_ns: int, end_ns: int, outcome: int, value: object = _NO_VALUE,
               inputs: int | tuple | list | None = None) -> int:
        """Append one event; return the new value's id (-1 if the call produced none)."""
        if len(self._rows) >= CHUNK_BYTES:       # before writing: what follows an event stays in its chunk
            self.hand_over()
        if value is _NO_VALUE:
            kind = number = 0
        else:
            kind, number = summarize(value, self.recorder.texts)
        if outcome == ITEM:
            if self.next_id >= self.id_end:
                self.hand_over()
            item_id = self.next_id
            self.next_id = item_id + 1
        else:
            item_id = -1
        if inputs is None or type(inputs) is int:
            first, more = (NO_INPUT if inputs is None else inputs), ()
        else:
            first, more = (inputs[0] if inputs else NO_INPUT), tuple(inputs[1:])
        rows = self._rows
        rows += ROW.pack(start_ns, end_ns, pack_code(outcome, kind), number, first)
        append_continuations(rows, more)
        return item_id

    def upcoming_id(self) -> int:
        """The id the next item this writer records will take.

        A full chunk or id block is handed over first, so the promise holds
        for the next ``record`` unless other rows are written in between.
        """
        if len(self._rows) >= CHUNK_BYTES or self.next_id >= self.id_end:
            self.hand_over()
        return self.next_id

    def decide(self, union_node: int, round_: int, child: int, pull: int, allowed: int, flags: int) -> None:
        """Append the scheduling decision behind the event this writer wrote last (a union's pull of it).

        Called by the union on the thread that owns this writer, right after
        the pull returned, so the decision row follows its event in the chunk.
        """
        self._rows += decision_row(union_node, round_, child, pull, allowed, flags)
        self.recorder.last_decisions[union_node] = (round_, child, pull, allowed, flags)

    def hand_over(self) -> None:
        """Pack the collected rows into an int64 chunk for the recorder, and open a new chunk."""
        if len(self._rows) > ROW.size:
            self._adopt_rows()
        self._open_chunk()

    def discard(self) -> None:
        """Forget this chunk's rows; the ids they took stay used, so later items keep theirs."""
        rows = self._rows
        items = sum(1 for row in ROW.iter_unpack(rows[ROW.size:]) if row[0] >= 0 and outcome_of(row[2]) == ITEM)
        _, node, first_id, _, _ = ROW.unpack_from(rows)
        rows[:] = header_row(node, first_id + items)

    def _open_chunk(self) -> None:
        self.next_id, self.id_end = self.recorder.reserve_ids(CHUNK_EVENTS)
        self._rows[:] = header_row(self.node, self.next_id)

    def _adopt_rows(self) -> None:
        chunk = array("q")
        with self.recorder.lock:        # so a concurrent export sees the rows exactly once
            chunk.frombytes(self._rows)
            del self._rows[:]
            self.recorder.adopt(chunk)


class Recorder:
    """A bounded buffer of this process's events, written through per-stage ``Writer``s.

    ``enabled`` is the one switch the hot path reads.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, where: str = DRIVER) -> None:
        _check_capacity(capacity)
        self.capacity = capacity
        self.where = where
        self.enabled = False
        self.pid = os.getpid()
        self.tag = random.getrandbits(22) | (1 << 21)   # nonzero, so ids never collide with -1
        self.dropped = 0
        self.count_from_ns = 0          # ``dropped`` counts evicted events that started at or after this
        #: Where the ``dropped`` events lay: (earliest start, latest end) in ns, None while nothing was dropped.
        self.gap_ns: tuple[int, int] | None = None
        self.texts = TextTable()
        self.nodes: list[Node] = []
        self._node_index: dict[str, int] = {}
        #: Per union node, its latest decision (round, child, pull, allowed, flags): where a paused run stands.
        self.last_decisions: dict[int, tuple[int, int, int, int, int]] = {}
        self._ids = 0
        self._full: deque[array] = deque()
        self._first_sequence = 0        # the sequence number of ``_full[0]``; each adopted chunk takes the next
        self._full_events: deque[int] = deque()   # per chunk in ``_full``: its events (what ``capacity`` counts)
        self._events_held = 0
        self._rows_held = 0
        self._unreleased = 0            # sequence number of the first handed-over chunk not yet released
        self._writers: weakref.WeakSet[Writer] = weakref.WeakSet()
        self._thread = threading.local()   # each thread's writer per node (``record``): writers are single-thread
        self.lock = threading.RLock()    # export may run on another thread; __del__ may re-enter

    @property
    def where(self) -> str:
        """This process's lane: what its nodes and gauges are drawn under (``"driver"``, ``"RolloutWorker-1"``)."""
        return self._where

    @where.setter
    def where(self, where: str) -> None:
        self._where = where
        self._gauge_codes: dict[str | tuple[str, str], tuple[int, int]] = {}   # name or (name, lane) -> texts
        # (cleared here: gauges named without a lane now go to the new one)

    # -- registration -------------------------------------------------------
    def register(self, node: Node) -> int:
        """Index of ``node`` in this recorder's node table (added once)."""
        index = self._node_index.get(node.op_id)
        if index is None:
            with self.lock:
                index = self._node_index.get(node.op_id)
                if index is None:
                    index = len(self.nodes)
                    self.nodes.append(node)
                    self._node_index[node.op_id] = index
        return index

    def index_of(self, op_id: str) -> int:
        """Index of the registered node ``op_id`` (``KeyError`` if it was never registered)."""
        return self._node_index[op_id]

    def writer(self, node: int) -> Writer:
        """A new private writer for one stage of node ``node``."""
        writer = Writer(self, node)
        self._writers.add(writer)
        return writer

    def reserve_ids(self, count: int) -> tuple[int, int]:
        """A block of ``count`` fresh item ids, as ``(first, end)``."""
        with self.lock:
            first = self._ids
            self._ids += count
        base = self.tag << _ID_SHIFT
        return base | first, base | (first + count)

    # -- the general path -----------------------------------------------------
    def record(self, node: int, start_ns: int, end_ns: int, outcome: int,
               value: object = _NO_VALUE, inputs: int | tuple | list | None = None) -> int:
        """Append one event of node ``node``; return the new value's id (or -1).

        Safe from several threads at once: each thread writes through its own
        writer of the node (a thread's writers hand their rows over when it ends).
        """
        return self._thread_writer(node).record(start_ns, end_ns, outcome, value, inputs)

    def upcoming_id(self, node: int) -> int:
        """The id the next item ``record(node, ...)`` on this thread will take (see ``Writer.upcoming_id``)."""
        return self._thread_writer(node).upcoming_id()

    def _thread_writer(self, node: int) -> Writer:
        """This thread's writer of node ``node`` (made on first use)."""
        writers = getattr(self._thread, "writers", None)
        if writers is None:
            writers = self._thread.writers = {}
        writer = writers.get(node)
        if writer is None:
            writer = writers[node] = self.writer(node)
        return writer

    def gauge(self, name: str, value: float, where: str | None = None) -> None:
        """Record that gauge ``name`` reads ``value`` now (a no-op unless recording): ``rlviz.gauge``.

        Each thread writes its readings through a writer of its own, into the
        same chunks (and so the same exports and mirrors) as events.

        Parameters
        ----------
        name : str
            The gauge, e.g. ``"replay rows held"``; one track per name and lane.
        value : float
            A real number (ints, floats, numpy scalars).
        where : str, optional
            The lane to draw it under (default: this process's lane, ``"driver"`` on the driver).

        Raises
        ------
        TypeError
            If ``name`` is not a str or ``value`` not a real number (checked while recording).

        Examples
        --------
        >>> import rlviz
        >>> with rlviz.record() as trace:
        ...     rlviz.gauge("queue length", 3)
        >>> trace.gauges["queue length"].value.tolist()
        [3.0]
        """
        if not self.enabled:
            return
        kind = type(value)
        if (kind is not float and kind is not int) or type(name) is not str:
            value = _checked_gauge(name, value)
        thread = self._thread
        try:
            writer = thread.gauges
        except AttributeError:
            writer = thread.gauges = self.writer(0)
        key = name if where is None else (name, where)
        codes = self._gauge_codes.get(key)
        if codes is None:
            codes = self._gauge_codes[key] = (self.texts.intern(name), self.texts.intern(where or self.where))
        rows = writer._rows
        if len(rows) >= CHUNK_BYTES:
            writer.hand_over()
        rows += _pack_gauge(GAUGE, _now(), value, codes[0], codes[1])

    def adopt(self, chunk: array) -> None:
        """Take a writer's full chunk; evict the oldest chunks while over capacity."""
        with self.lock:
            events = event_rows(chunk)
            self._full.append(chunk)
            self._full_events.append(events)
            self._events_held += events
            self._rows_held += len(chunk) // FIELDS - 1
            while len(self._full) > 1 and self._over_capacity():
                self._count_evicted(self._pop_oldest())

    def _over_capacity(self) -> bool:
        """Room for one more chunk of events is gone, or rows of other kinds (gauges, links, decisions) pass
        ``ROWS_PER_EVENT`` times ``capacity``: gauge-only chunks cannot pile up without bound."""
        return (self._events_held > self.capacity - CHUNK_EVENTS
                or self._rows_held > ROWS_PER_EVENT * self.capacity - CHUNK_EVENTS)

    def _pop_oldest(self) -> array:
        """Let go of the oldest handed-over chunk (its counts with it) and return it."""
        chunk = self._full.popleft()
        self._first_sequence += 1
        self._events_held -= self._full_events.popleft()
        self._rows_held -= body_rows(chunk)
        return chunk

    def _count_evicted(self, evicted: array) -> None:
        """Count an evicted chunk's events of this block in ``dropped`` and widen ``gap_ns`` to cover them."""
        since = self.count_from_ns      # header, continuation, decision and gauge rows start below 0: never counted
        stub = stub_events(evicted)
        if stub is None:
            spans = [(start, end) for start, end in zip(evicted[::FIELDS], evicted[1::FIELDS]) if start >= since]
            count = len(spans)
            span = (min(start for start, _ in spans), max(end for _, end in spans)) if spans else None
        elif stub[1] >= since:          # released in this block: it counted the events from ``since``
            count, span = stub[0], stub_span(evicted)
        else:
            return
        if not count:
            return
        self.dropped += count
        first, last = span
        if self.gap_ns is not None:
            first, last = min(first, self.gap_ns[0]), max(last, self.gap_ns[1])
        self.gap_ns = (first, last)

    def start_block(self, since_ns: int) -> None:
        """A ``record()`` block starts: count as ``dropped`` only evictions of events from ``since_ns`` on.

        Events an earlier block left in the buffer may still be evicted to make
        room, but they were never part of this block, so they are not its loss.
        """
        with self.lock:
            self.count_from_ns = since_ns
            self.dropped = 0
            self.gap_ns = None

    # -- reading ------------------------------------------------------------
    @property
    def held(self) -> int:
        """How many rows (events, gauge readings, continuation and decision rows; not headers) the buffer holds now."""
        return self._rows_held + sum(len(w.rows) // ROW.size - 1 for w in list(self._writers))

    @property
    def nbytes(self) -> int:
        """Bytes of rows the buffer holds: handed-over chunks (stubs of those a store took whole) and open chunks."""
        with self.lock:
            return sum(len(chunk) * chunk.itemsize for chunk in self._full) + sum(
                len(w.rows) for w in list(self._writers))

    def export(self) -> dict:
        """Everything held, as plain data that ``rlviz.trace.store.merge_exports`` reads.

        One bytes blob carries the numbers, so it crosses process boundaries cheaply.
        """
        with self.lock:
            chunks = [*(c.tobytes() for c in self._full),
                      *(bytes(w.rows) for w in list(self._writers) if len(w.rows) > ROW.size)]
            nodes = list(self.nodes)
            dropped, gap = self.dropped, self.gap_ns
        data = b"".join(chunks)
        return {"tag": self.tag, "pid": self.pid, "where": self.where, "dropped": dropped, "gap_ns": gap,
                "nodes": [n.to_dict() for n in nodes], "texts": list(self.texts.texts),
                "data": data, "offset_ns": 0}

    def export_since(self, cursor: ExportCursor) -> dict:
        """What changed since ``cursor``: chunks adopted after it, the open chunks, new texts.

        A ``RecorderMirror`` in another process applies these increments, so
        it holds what this recorder holds without copying everything each
        time, and keeps it when this process dies.  ``held_from`` is the
        oldest chunk still held: anything older was evicted (and counted in
        ``dropped``, its time span in ``gap_ns``).
        """
        with self.lock:
            first = max(cursor.chunks, self._first_sequence)
            chunks = [chunk.tobytes() for chunk in list(self._full)[first - self._first_sequence:]]
            open_rows = [bytes(w.rows) for w in list(self._writers) if len(w.rows) > ROW.size]
            next_sequence = self._first_sequence + len(self._full)
            held_from = self._first_sequence
            nodes = list(self.nodes)
            dropped, gap = self.dropped, self.gap_ns
        texts = self.texts.texts
        read = len(texts)               # after the rows: every text they name is in
        return {"tag": self.tag, "pid": self.pid, "where": self.where, "dropped": dropped, "gap_ns": gap,
                "nodes": [n.to_dict() for n in nodes], "texts_from": cursor.texts,
                "texts": texts[cursor.texts:read], "chunks": chunks, "open_rows": b"".join(open_rows),
                "held_from": held_from, "cursor": ExportCursor(next_sequence, read)}

    def forget_ended_before(self, end_ns: int) -> int:
        """Let go of the oldest handed-over chunks whose every event ended before ``end_ns``; return how many.

        For a reader that keeps only recent events (``record(window_s=...)``):
        the buffer then holds about the window, not ``capacity`` events.  What
        goes is not a loss the reader did not ask for, so it is not counted in
        ``dropped``; ``export_since`` reports it through ``held_from``.
        """
        with self.lock:
            forgotten = 0
            while self._full and last_end_ns(self._full[0]) < end_ns:
                self._pop_oldest()
                forgotten += 1
            return forgotten

    def release_taken(self, taken: Callable[[memoryview], bool]) -> int:
        """Keep only a stub (``rlviz.trace.rows.released_stub``) of each handed-over chunk ``taken`` says a
        reader holds whole; return how many were released.

        The one reader (a ``record()`` block's ``TraceStore``) then holds each
        event once.  The stub keeps the chunk's place, event count and end, so
        ``capacity`` and ``forget_ended_before`` act as before; a reader that
        had not taken the chunk finds no events in it.
        """
        with self.lock:
            released = 0
            start = max(self._unreleased, self._first_sequence)
            for at in range(start - self._first_sequence, len(self._full)):
                chunk = self._full[at]
                if stub_events(chunk) is not None:
                    continue
                if not taken(memoryview(chunk).cast("B")):
                    break
                self._full[at] = array("q", released_stub(chunk, self.count_from_ns))
                released += 1
            self._unreleased = start + released
            return released

    def set_capacity(self, capacity: int) -> None:
        """Change the bound (the oldest chunks go at the next hand-over)."""
        _check_capacity(capacity)
        self.capacity = capacity

    def clear(self) -> None:
        """Forget held events (the node table and the id counter stay)."""
        with self.lock:
            self._first_sequence += len(self._full)
            self._full.clear()
            self._full_events.clear()
            self._events_held = self._rows_held = 0
            for writer in list(self._writers):
                writer.discard()


def _checked_gauge(name: object, value: object) -> float:
    """A gauge's ``value`` as a float, or a TypeError naming what is wrong with it."""
    if type(name) is not str:
        raise TypeError(f"a gauge's name must be a str, got {describe_value(name)}")
    if not isinstance(value, Real):
        raise TypeError(f"gauge {name!r} needs a real number, got {describe_value(value)}")
    return float(value)


def _check_capacity(capacity: object) -> None:
    check_int("capacity", capacity, minimum=2 * CHUNK_EVENTS,
              hint=f"a number of events, at least two chunks; the default is {DEFAULT_CAPACITY:,}")


_RECORDER = Recorder()


def get_recorder() -> Recorder:
    """This process's recorder."""
    return _RECORDER
