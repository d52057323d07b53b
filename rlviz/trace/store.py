"""``TraceStore``: a trace that grows by increments from every process, with stable event ids.

Each recorder's rows arrive as chunks (``rlviz.trace.rows``), whole or as
the growing copy of a chunk still open; the store keeps, per chunk, how many
rows it has taken, so a chunk seen again adds only its new rows, and events
that started long ago but arrive late (an actor's, a pull after the
driver's) simply get the next ids.  An event's id is its arrival number: it
never changes as more arrive, and links name ids, not positions.  ``view()``
is a frozen ``Trace`` of what is held; ``since(event_id)`` is what arrived
after an id, for a page that appends.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from rlviz.trace.decisions import Decisions
from rlviz.trace.event import Node, NodeTable, with_upstream
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import GaugeParts
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK, TextTable
from rlviz.trace.rows import (AFTER_PREVIOUS, DECISION_ROW_FIELDS, FIELDS, HEADER, ITEM, NO_INPUT, decision_columns,
                              input_id, kind_of, outcome_of, split_decisions, split_gauges)
from rlviz.trace.schema import COLUMNS
from rlviz.trace.trace import Trace

__all__ = ["TraceStore", "Appended", "merge_exports"]

_ROW_BYTES = FIELDS * 8
_STORED = {**COLUMNS, "chunk": np.int64}


@dataclass
class Appended:
    """Events that arrived after an id, in arrival order: what a growing view appends.

    ``first_id`` is the id of ``columns``' first entry (ids are consecutive);
    ``input_owner`` / ``input_id`` pair each consumed value's id with the id
    of the event that consumed it (owners may be events sent earlier, when an
    event's later inputs arrive after it); ``decisions`` are the scheduling
    decisions that arrived (``event``: the id of the event each explains, and
    ``rlviz.trace.rows.DECISION_ROW_FIELDS``, ``union`` a node index); ``nodes``
    and ``texts`` are the whole tables, which only ever grow.
    """

    first_id: int
    columns: dict[str, np.ndarray]
    input_owner: np.ndarray
    input_id: np.ndarray
    nodes: list[Node]
    texts: list[str]
    dropped: int
    next_id: int
    next_input: int
    decisions: dict[str, np.ndarray] = field(default_factory=dict)
    next_decision: int = 0

    def __len__(self) -> int:
        return len(self.columns["node"])


@dataclass
class _Chunk:
    """What the store took of one chunk: body rows read, items numbered, the event its next continuation extends."""

    index: int
    rows: int = 0
    items: int = 0
    last_event: int = -1
    item_events: list = field(default_factory=list)   # arrays: the store id of each item, in rank order (-1: left out)

    def item_event(self, rank: int) -> int:
        """The store id of this chunk's item number ``rank`` (-1 if not taken)."""
        if len(self.item_events) > 1:
            self.item_events = [np.concatenate(self.item_events)]
        events = self.item_events[0] if self.item_events else ()
        return int(events[rank]) if 0 <= rank < len(events) else -1


@dataclass
class _Source:
    """One recorder (one process): its node and text maps into the store's tables, and its latest drop count."""

    nodes: list[int] = field(default_factory=list)
    texts: list[int] = field(default_factory=list)
    pid: int = 0
    where: str = ""
    dropped: int = 0
    gap_ns: tuple[int, int] | None = None                   # where the dropped events lay (the recorder's clock)
    offset_ns: int = 0
    sequence: dict[int, int] = field(default_factory=dict)   # handed-over chunk -> its sequence number
    open_keys: set[int] = field(default_factory=set)         # chunks still open at the latest increment
    chunk_keys: set[int] = field(default_factory=set)        # every chunk of this recorder the store holds


class TraceStore:
    """An append-only store of events from several processes.

    Parameters
    ----------
    since_ns : int, default 0
        Events that started before this (driver clock) are left out.
    window_ns : int, optional
        Keep only events that ended within this many nanoseconds of the
        latest end seen; older ones leave from the front (lowest ids first).
        None keeps everything.
    Notes
    -----
    Safe to feed from one thread while another reads: every method takes
    the store's lock, and ``view()`` returns a ``Trace`` that later
    increments never change.
    """

    def __init__(self, since_ns: int = 0, window_ns: int | None = None) -> None:
        self.since_ns = int(since_ns)
        self.window_ns = window_ns
        self.lock = threading.RLock()
        self._node_table = NodeTable()
        self.nodes = self._node_table.nodes
        self.texts = TextTable(capacity=SIZED_NAME_MASK + 1)
        self._sources: dict[tuple, _Source] = {}
        self._chunks: dict[int, _Chunk] = {}      # by the chunk's first item id, unique across processes
        self._dead_chunks: set[int] = set()
        self._chunk_count = 0
        self._keys: np.ndarray | None = None        # sorted chunk keys, for finding a value's producer
        self._columns = {name: np.zeros(1024, dtype) for name, dtype in _STORED.items()}
        self._alive = np.ones(1024, bool)
        self._first = 0                            # id of the first event held
        self._next = 0                             # id the next event gets
        self._inputs_owner = _Growing()
        self._inputs_value = _Growing()
        self._inputs_gone = 0                      # input pairs that left with their owners (window)
        self._latest_end = 0
        self._version = 0
        self._view: tuple[int, Trace] | None = None
        self._decisions = {name: _Growing() for name in ("event", *DECISION_ROW_FIELDS)}   # "event": a store id
        self._decisions_gone = 0                   # decisions that left with their events (window)
        self._gauges = GaugeParts()                # texts already mapped to the store's table

    # -- feeding -------------------------------------------------------------
    def add_export(self, export: dict) -> int:
        """Take a ``Recorder.export()`` (or a mirror's, ``parts`` form too): only rows not taken before are added.

        Chunks of this process the store took earlier but the export no
        longer holds were evicted by the recorder: their events leave the
        store too (they are counted in the export's ``dropped``).

        Returns
        -------
        int
            How many events were added.
        """
        with self.lock:
            source = self._source(export)
            added, listed = self._add_rows(source, export["parts"] if "parts" in export else [export["data"]])
            for key in source.chunk_keys.difference(listed):
                self._retire(source, key)
            return added

    def add_increment(self, increment: dict, offset_ns: int = 0) -> int:
        """Take a ``Recorder.export_since(cursor)`` answer (the reader keeps the cursor).

        Returns
        -------
        int
            How many events were added.
        """
        with self.lock:
            source = self._source({**increment, "offset_ns": offset_ns}, texts_from=increment["texts_from"])
            added, seen = self._add_rows(source, [*increment["chunks"], increment["open_rows"]])
            first = increment["cursor"].chunks - len(increment["chunks"])
            source.sequence.update(zip(seen[:len(increment["chunks"])], range(first, increment["cursor"].chunks)))
            gone = [key for key, number in source.sequence.items() if number < increment["held_from"]]
            for key in gone:
                del source.sequence[key]
            # a chunk seen open that is neither open now nor among the chunks sent was handed over and evicted
            # between two increments (or discarded by a clear): it is gone as well
            gone.extend(source.open_keys.difference(seen))
            source.open_keys = set(seen[len(increment["chunks"]):])
            for key in gone:
                if key in self._chunks:
                    self._retire(source, key)
            return added

    # -- reading -------------------------------------------------------------
    def __len__(self) -> int:
        with self.lock:
            return int(self._alive[:self._next - self._first].sum())

    @property
    def next_id(self) -> int:
        """The id the next event will get (every id below it was given once)."""
        return self._next

    @property
    def first_id(self) -> int:
        """The lowest id still held (ids below it left through the window)."""
        return self._first

    @property
    def window_start_ns(self) -> int | None:
        """Events that ended before this (driver clock) have left or will leave the window; None without a window."""
        if self.window_ns is None:
            return None
        with self.lock:
            return self._latest_end - self.window_ns

    @property
    def dropped(self) -> int:
        """Events the processes' bounded recorders evicted (their latest counts, summed)."""
        with self.lock:
            return sum(source.dropped for source in self._sources.values())

    @property
    def decision_count(self) -> int:
        """Decisions the store took so far (those that left through the window included)."""
        with self.lock:
            return self._decisions_gone + self._decisions["event"].size

    @property
    def gaps(self) -> tuple[Gap, ...]:
        """Where each process's dropped events lay, on the driver's clock (from ``since_ns`` on), by lane."""
        with self.lock:
            gaps = [Gap(source.where, max(source.gap_ns[0] + source.offset_ns, self.since_ns),
                        max(source.gap_ns[1] + source.offset_ns, self.since_ns), source.dropped)
                    for source in self._sources.values() if source.dropped > 0 and source.gap_ns is not None]
            return tuple(sorted(gaps))

    def view(self) -> Trace:
        """A frozen ``Trace`` of every held event, ordered by start (cached until something is added)."""
        with self.lock:
            if self._view is not None and self._view[0] == self._version:
                return self._view[1]
            held = self._next - self._first
            alive = np.flatnonzero(self._alive[:held])
            columns = {name: self._columns[name][alive] for name in COLUMNS}
            ids = alive + self._first
            order = np.lexsort((columns["end_ns"], columns["start_ns"]))
            columns = {name: values[order] for name, values in columns.items()}
            columns["input_offsets"], columns["input_ids"] = self._csr(ids[order])
            trace = _trace(self.nodes, columns, list(self.texts.texts), self.dropped, ids[order],
                           self._held_decisions(ids[order]))
            trace.gauges = self._gauges.build(self.window_start_ns)
            trace.gaps = self.gaps
            self._view = (self._version, trace)
            return trace

    def decided(self) -> Trace:
        """A ``Trace`` of the held events a scheduling decision explains, with those decisions, the gauges and no links.

        What the decisions' analyses read (``rlviz.trace.analysis.order_notes``,
        whose causes come from the gauges), in time proportional to the
        decisions and gauges held rather than to the events.
        """
        with self.lock:
            events = self._decisions["event"].values()
            held = events >= self._first
            ids = np.unique(events[held])
            ids = ids[self._alive[ids - self._first]]
            columns = {name: self._columns[name][ids - self._first] for name in COLUMNS}
            order = np.lexsort((columns["end_ns"], columns["start_ns"]))
            columns = {name: values[order] for name, values in columns.items()}
            columns["input_offsets"] = np.zeros(len(ids) + 1, np.int64)
            columns["input_ids"] = np.zeros(0, np.int64)
            position = np.empty(len(ids), np.int64)
            position[order] = np.arange(len(ids))
            at = np.searchsorted(ids, events[held])
            kept = at < len(ids)
            kept[kept] = ids[at[kept]] == events[held][kept]
            rows = {"event": position[at[kept]],
                    **{name: self._decisions[name].values()[held][kept] for name in DECISION_ROW_FIELDS}}
            trace = _trace(self.nodes, columns, list(self.texts.texts), self.dropped, ids[order], rows)
            trace.gauges = self._gauges.build(self.window_start_ns)
            return trace

    def since(self, event_id: int = 0, input_from: int = 0, decision_from: int = 0) -> Appended:
        """Events with ids from ``event_id`` on (arrival order), the input pairs from number ``input_from`` on,
        and the decisions from number ``decision_from`` on.

        Pass the previous answer's ``next_id``, ``next_input`` and
        ``next_decision`` to get exactly what arrived since it: nothing twice,
        nothing skipped.

        Raises
        ------
        ValueError
            If ``event_id`` or ``input_from`` is negative or beyond what the store gave.
        """
        with self.lock:
            if not 0 <= event_id <= self._next:
                raise ValueError(f"event_id={event_id} is not an id this store gave; expected 0..{self._next} "
                                 f"(pass the previous Appended.next_id)")
            if not 0 <= input_from <= self._inputs_gone + self._inputs_owner.size:
                raise ValueError(f"input_from={input_from} is beyond the {self._inputs_gone + self._inputs_owner.size} "
                                 f"input pairs this store took (pass the previous Appended.next_input)")
            start = max(event_id, self._first) - self._first
            stop = self._next - self._first
            columns = {name: self._columns[name][start:stop].copy() for name in COLUMNS}
            fresh = max(input_from - self._inputs_gone, 0)
            decided = max(decision_from - self._decisions_gone, 0)
            return Appended(first_id=start + self._first, columns=columns,
                            input_owner=self._inputs_owner.values()[fresh:].copy(),
                            input_id=self._inputs_value.values()[fresh:].copy(), nodes=list(self.nodes),
                            texts=list(self.texts.texts), dropped=self.dropped, next_id=self._next,
                            next_input=self._inputs_gone + self._inputs_owner.size,
                            decisions={name: column.values()[decided:].copy()
                                       for name, column in self._decisions.items()},
                            next_decision=self._decisions_gone + self._decisions["event"].size)

    def gauges_since(self, reading: int = 0) -> tuple[tuple[np.ndarray, ...], int]:
        """The gauge readings from number ``reading`` on, in arrival order (name, time_ns, value, pid, where
        columns), and the number to pass next time."""
        with self.lock:
            columns = self._gauges.readings(reading)
            return columns, self._gauges.gone + len(self._gauges)

    def producers(self, item_ids: np.ndarray) -> np.ndarray:
        """The store id of the event that produced each value in ``item_ids`` (-1 where it is not held).

        Input ids may carry the consumer's ``DROPPED`` mark (``rlviz.trace.rows``); it is ignored here.
        """
        with self.lock:
            if self._keys is None:
                self._keys = np.array(sorted(self._chunks), np.int64)
            item_ids = input_id(np.asarray(item_ids, np.int64))
            slots = np.searchsorted(self._keys, item_ids, side="right") - 1
            found = np.full(len(item_ids), -1, np.int64)
            for j, (value, slot) in enumerate(zip(item_ids.tolist(), slots.tolist())):
                if slot >= 0:
                    key = int(self._keys[slot])
                    found[j] = self._chunks[key].item_event(value - key)
            found[found < self._first] = -1
            return found

    # -- helpers ---------------------------------------------------------------
    def _source_key(self, export: dict) -> tuple:
        return (export["tag"], export["pid"])

    def _source(self, export: dict, texts_from: int = 0) -> _Source:
        key = self._source_key(export)
        source = self._sources.get(key)
        if source is None:
            source = self._sources[key] = _Source(pid=int(export["pid"]))
        source.dropped = int(export.get("dropped", 0))
        source.where = str(export.get("where", ""))
        source.gap_ns = tuple(export["gap_ns"]) if export.get("gap_ns") else None
        source.offset_ns = int(export.get("offset_ns", 0))
        source.nodes = [self._node(d) for d in export["nodes"]]
        texts = export["texts"]
        known = len(source.texts) - texts_from       # texts of this answer already mapped
        for text in texts[max(known, 0):]:
            source.texts.append(self.texts.intern(text))
        return source

    def _node(self, data: dict) -> int:
        return self._node_table.add(Node.from_dict(data))

    def _add_rows(self, source: _Source, parts: list[bytes]) -> tuple[int, list[int]]:
        """Add the rows of ``parts`` (each whole chunks, opened by their headers) not taken before.

        Returns how many events were added and the keys of the chunks listed, in order.
        """
        seen, added = [], 0
        for data in parts:
            if not self._taken_whole(data, seen):
                added += self._add_chunks(source, data, seen)
        if added:
            self._apply_window()
        self._version += 1
        return added, seen

    def _taken_whole(self, data: bytes, seen: list[int]) -> bool:
        """True (its key noted in ``seen``) if ``data`` is exactly one chunk whose every row the store took.

        A part holding more chunks is longer than its first chunk's rows, so it is never mistaken for one.
        """
        if len(data) < _ROW_BYTES:
            return not data
        head = np.frombuffer(data, dtype=np.int64, count=FIELDS)
        chunk = self._chunks.get(int(head[2]))
        if head[0] != HEADER or chunk is None or chunk.rows != len(data) // _ROW_BYTES - 1:
            return False
        seen.append(int(head[2]))
        return True

    def _add_chunks(self, source: _Source, data: bytes, seen: list[int]) -> int:
        """Add the new rows of each chunk in ``data``; note every chunk's key in ``seen``; return events added."""
        rows = np.frombuffer(data, dtype=np.int64, count=len(data) // _ROW_BYTES * FIELDS).reshape(-1, FIELDS)
        heads = np.flatnonzero(rows[:, 0] == HEADER)
        bounds = np.append(heads, len(rows))
        added = 0
        for at, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            key = int(rows[at, 2])
            seen.append(key)
            if key in self._dead_chunks:
                continue
            chunk = self._chunks.get(key)
            if chunk is None:
                chunk = self._chunks[key] = _Chunk(index=self._chunk_count)
                source.chunk_keys.add(key)
                self._chunk_count += 1
                self._keys = None
            body = rows[at + 1:end]
            if len(body) > chunk.rows:
                added += self._take(source, chunk, key, int(rows[at, 1]), body[chunk.rows:])
                chunk.rows = len(body)
        return added

    def _take(self, source: _Source, chunk: _Chunk, key: int, node: int, rows: np.ndarray) -> int:
        """Append the new rows of one chunk: events get the next ids; continuation and decision rows belong
        to the event before them."""
        rows, gauge_rows = split_gauges(rows)
        self._add_gauges(source, gauge_rows)
        rows, decision_owner, decision_rows = split_decisions(rows)
        is_event = rows[:, 0] >= 0
        events = rows[is_event]
        is_item = outcome_of(events[:, 2]) == ITEM
        item_id = np.where(is_item, key + chunk.items + np.cumsum(is_item) - 1, -1)
        chunk.items += int(is_item.sum())
        start = events[:, 0] + source.offset_ns
        keep = start >= self.since_ns
        n_kept = int(keep.sum())
        ids = np.full(len(events), -1, np.int64)
        ids[keep] = np.arange(self._next, self._next + n_kept)
        owner_of_row = np.cumsum(is_event) - 1            # -1: continuation rows of the event taken before
        padded = np.append(ids, chunk.last_event)          # index -1 reads the event taken before
        row_owner = padded[owner_of_row]
        decided = np.full(len(decision_owner), -1, np.int64)           # the id of each decision's event
        decided[decision_owner == AFTER_PREVIOUS] = chunk.last_event
        inside = decision_owner >= 0
        decided[inside] = ids[decision_owner[inside]]
        self._add_decisions(source, decided, decision_rows)
        if len(events):
            chunk.last_event = int(ids[-1])
            chunk.item_events.append(ids[is_item])
        self._add_inputs(rows, is_event, row_owner)
        if n_kept:
            self._append_events(source, events[keep], item_id[keep], node, chunk.index)
        return n_kept

    def _add_gauges(self, source: _Source, rows: np.ndarray) -> None:
        """Keep gauge rows, their name and lane texts mapped to the store's table."""
        if not len(rows):
            return
        rows = rows.copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        rows[:, 3:5] = text_map[np.minimum(rows[:, 3:5], len(text_map) - 1)]
        self._gauges.add(rows, source.pid, self.texts.texts, source.offset_ns, self.since_ns)

    def _add_decisions(self, source: _Source, owner: np.ndarray, rows: np.ndarray) -> None:
        """Keep the decision rows whose event the store holds (``owner``: its id, -1 if none), the union's node mapped."""
        held = owner >= self._first
        if not held.any():
            return
        fields = decision_columns(rows[held])
        local = np.minimum(fields["union"], len(source.nodes) - 1)
        fields["union"] = np.asarray(source.nodes, np.int64)[local]
        self._decisions["event"].extend(owner[held])
        for name in DECISION_ROW_FIELDS:
            self._decisions[name].extend(fields[name])

    def _held_decisions(self, ids: np.ndarray) -> dict[str, np.ndarray]:
        """The decisions of the events ``ids`` (in that order): ``event`` as a position in ``ids``."""
        position = np.full(self._next - self._first + 1, -1, np.int64)
        position[ids - self._first] = np.arange(len(ids))
        events = self._decisions["event"].values()
        at = position[np.where(events >= self._first, events - self._first, -1)]
        kept = at >= 0
        return {"event": at[kept], **{name: self._decisions[name].values()[kept] for name in DECISION_ROW_FIELDS}}

    def _add_inputs(self, rows: np.ndarray, is_event: np.ndarray, row_owner: np.ndarray) -> None:
        first = np.where(is_event, rows[:, 4], NO_INPUT)
        extra = np.where(is_event[:, None], NO_INPUT, rows[:, 1:])
        values = np.concatenate((first[:, None], extra), axis=1)       # per row: its inputs in order
        owners = np.repeat(row_owner[:, None], FIELDS, axis=1)
        real = (values != NO_INPUT) & (owners >= self._first)
        self._inputs_owner.extend(owners[real])
        self._inputs_value.extend(values[real])

    def _append_events(self, source: _Source, events: np.ndarray, item_id: np.ndarray, node: int,
                       chunk_index: int) -> None:
        n = len(events)
        kind = kind_of(events[:, 2]).astype(np.uint8)
        number = events[:, 3].copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        is_text = kind == KIND_TEXT
        number[is_text] = text_map[np.minimum(number[is_text], len(text_map) - 1)]
        is_sized = kind == KIND_SIZED
        names = np.minimum(number[is_sized] & SIZED_NAME_MASK, len(text_map) - 1)
        number[is_sized] = (number[is_sized] & ~SIZED_NAME_MASK) | text_map[names]
        values = {"node": np.full(n, source.nodes[node] if node < len(source.nodes) else 0),
                  "pid": np.full(n, source.pid), "start_ns": events[:, 0] + source.offset_ns,
                  "end_ns": events[:, 1] + source.offset_ns, "outcome": outcome_of(events[:, 2]),
                  "item_kind": kind, "item_num": number, "item_id": item_id, "chunk": np.full(n, chunk_index)}
        at = self._next - self._first
        self._reserve(at + n)
        for name, column in values.items():
            self._columns[name][at:at + n] = column
        self._alive[at:at + n] = True
        self._next += n
        self._latest_end = max(self._latest_end, int(values["end_ns"].max()))

    def _reserve(self, size: int) -> None:
        capacity = len(self._alive)
        if size <= capacity:
            return
        while capacity < size:
            capacity *= 2
        for name, column in self._columns.items():
            grown = np.zeros(capacity, column.dtype)
            grown[:len(column)] = column
            self._columns[name] = grown
        alive = np.ones(capacity, bool)
        alive[:len(self._alive)] = self._alive
        self._alive = alive

    def _retire(self, source: _Source, key: int) -> None:
        """``source``'s recorder evicted chunk ``key``: its events leave the store."""
        chunk = self._chunks.pop(key)
        source.chunk_keys.discard(key)
        self._dead_chunks.add(key)
        self._keys = None
        held = self._next - self._first
        self._alive[:held] &= self._columns["chunk"][:held] != chunk.index
        self._version += 1

    def _apply_window(self) -> None:
        """Drop the oldest ids while they ended before the window (the front only, so ids stay consecutive)."""
        if self.window_ns is None:
            return
        self._gauges.let_go_before(self._latest_end - self.window_ns)
        held = self._next - self._first
        old = self._columns["end_ns"][:held] < self._latest_end - self.window_ns
        cut = int(np.argmin(old)) if not old.all() else held
        if cut == 0:
            return
        for name, column in self._columns.items():
            column[:held - cut] = column[cut:held]
        self._alive[:held - cut] = self._alive[cut:held]
        self._first += cut
        owner = self._inputs_owner.values()
        kept = owner >= self._first
        self._inputs_gone += int((~kept).sum())
        self._inputs_owner.keep(kept)
        self._inputs_value.keep(kept)
        decided = self._decisions["event"].values() >= self._first
        self._decisions_gone += int((~decided).sum())
        for column in self._decisions.values():
            column.keep(decided)

    def _csr(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inputs of the events ``ids`` (in that order) as CSR arrays, each event's inputs in arrival order."""
        owner, value = self._inputs_owner.values(), self._inputs_value.values()
        position = np.full(self._next - self._first + 1, -1, np.int64)
        position[ids - self._first] = np.arange(len(ids))
        at = position[np.maximum(owner - self._first, -1)]     # owners that left map to the -1 slot
        kept = at >= 0
        at, value = at[kept], value[kept]
        by_owner = np.argsort(at, kind="stable")
        counts = np.bincount(at, minlength=len(ids))
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), value[by_owner].astype(np.int64)


def merge_exports(exports: Iterable[dict], since_ns: int = 0) -> Trace:
    """One ``Trace`` of finished ``Recorder.export()`` results (or mirrors' ``export_parts()``) from several processes.

    The same decoder as a live block's: the exports go into a ``TraceStore``
    and its view is returned.  Events that started before ``since_ns``
    (driver clock) are left out.

    Examples
    --------
    >>> from rlviz.trace.recorder import Recorder
    >>> len(merge_exports([Recorder().export()]))
    0
    """
    store = TraceStore(since_ns)
    for export in exports:
        store.add_export(export)
    return store.view()


class _Growing:
    """An int64 array that grows by doubling."""

    def __init__(self) -> None:
        self._data = np.zeros(1024, np.int64)
        self._size = 0

    @property
    def size(self) -> int:
        return self._size

    def values(self) -> np.ndarray:
        return self._data[:self._size]

    def extend(self, values: np.ndarray) -> None:
        end = self._size + len(values)
        if end > len(self._data):
            grown = np.zeros(max(end, 2 * len(self._data)), np.int64)
            grown[:self._size] = self._data[:self._size]
            self._data = grown
        self._data[self._size:end] = values
        self._size = end

    def keep(self, mask: np.ndarray) -> None:
        kept = self._data[:self._size][mask]
        self._data[:len(kept)] = kept
        self._size = len(kept)


def _trace(nodes: list[Node], columns: dict, texts: list[str], dropped: int, ids: np.ndarray,
           decisions: dict[str, np.ndarray]) -> Trace:
    """A Trace of the nodes that have events or decisions (and everything upstream of them), with the events' store ids."""
    used = np.unique(np.concatenate((columns["node"], decisions["union"]))).tolist() if len(columns["node"]) \
        else range(len(nodes))
    ordered = with_upstream(used, nodes)
    remap = np.zeros(max(len(nodes), 1), np.int64)
    remap[ordered] = np.arange(len(ordered))
    columns["node"] = remap[columns["node"]].astype(np.int32)
    kept_nodes = [nodes[i] for i in ordered]
    decisions["union"] = remap[decisions["union"]]
    trace = Trace(kept_nodes, columns, texts, dropped, Decisions.from_rows(decisions, columns, kept_nodes))
    trace.event_ids = ids
    return trace
