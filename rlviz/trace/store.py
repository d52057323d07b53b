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
from rlviz.trace.gauges import GaugeParts, Readings
from rlviz.trace.growing import COMPACT_BLOCK, GrowingArray
from rlviz.trace.held import HeldColumns
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK, TextTable
from rlviz.trace.pyramid import BLOCK, BLOCK_SHIFT, BlockIndex, Buckets, Pyramid
from rlviz.trace.rows import (AFTER_PREVIOUS, DECISION_ROW_FIELDS, ERROR, FIELDS, HEADER, ITEM, NO_INPUT,
                              NOT_READY,
                              OUTCOME_BITS, RELEASED, decision_columns, input_id, kind_of, outcome_of, split_decisions,
                              split_gauges)
from rlviz.trace.schema import COLUMNS
from rlviz.trace.spill import SpillWriter
from rlviz.trace.trace import Trace

__all__ = ["TraceStore", "Appended", "Window", "LaneWindow", "merge_exports", "EXACT_PER_PIXEL", "SCAN_BUDGET",
           "EVENT_BYTES"]

_ROW_BYTES = FIELDS * 8
#: What the store keeps per event, narrower than a ``Trace``'s columns (docs/design.md, "Long runs"): ``code`` packs
#: the outcome and the summary kind as a row's code field does; ``duration`` is in ns, ``_LONG`` marking one kept
#: apart; ``chunk`` numbers the chunk (its key and pid are kept per chunk); ``rank`` is the item's number in its
#: chunk (``_NO_ITEM``: none), so the item id is the chunk's key plus the rank; ``item_num`` holds the summary
#: number when it fits an int32 (small ints, text indexes, sized values under 128 long), ``_WIDE`` marking one kept
#: apart (floats' bits, large ints); ``id`` is the event's store id (ids stay below ``_MAX_ID``, so uint32 holds
#: them), ascending by position: rows of evicted events are compacted away.
_STORED = {"start_ns": np.int64, "duration": np.uint32, "node": np.uint16, "code": np.uint8, "item_num": np.int32,
           "chunk": np.uint32, "rank": np.uint16, "id": np.uint32}
#: Bytes the store holds per event in its columns, growth room aside.
EVENT_BYTES = sum(np.dtype(dtype).itemsize for dtype in _STORED.values())
_LONG = np.iinfo(np.uint32).max
_WIDE, _INT32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
_NO_ITEM = np.iinfo(np.uint16).max
_NO_READING = np.iinfo(np.int64).min      # a chunk's latest gauge reading when it holds none
_MAX_ID = np.iinfo(np.uint32).max - 1
#: How the store holds a decision's fields (``rlviz.trace.rows.decision_columns`` decodes them as int64): ``event``
#: is a store id (below ``_MAX_ID``); ``union`` a node index (a list of 2**32 nodes could not be held); ``child``
#: and ``allowed`` are masked to 24 and 32 bits, and ``flags`` is the top half of an int64, so each fits as typed;
#: ``round`` and ``pull`` (the 40 bits above ``child``) stay int64.
_DECISION_TYPES = {"event": np.uint32, "union": np.uint32, "round": np.int64, "child": np.uint32, "pull": np.int64,
                   "allowed": np.uint32, "flags": np.int32}
#: How the store holds an input pair: the consumer's store id and the value's item id.
_LINK_TYPES = {"owner": np.uint32, "value": np.int64}
#: A window query answers a lane with its exact events when it holds at most this many per pixel.
EXACT_PER_PIXEL = 4
#: At most this many held events a window query reads one by one; lanes beyond it are answered from the pyramid.
SCAN_BUDGET = 1 << 19


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
class LaneWindow:
    """One lane's answer to ``TraceStore.window``: its exact events, or aggregates per time bucket.

    ``events`` (when the lane holds few events in the window) has a
    ``Trace``'s columns plus ``event_id`` (store ids), ordered by start, the
    ``node`` column indexing the store's node table; ``buckets`` otherwise
    (``rlviz.trace.pyramid.Buckets``: per bucket its count, busiest node,
    errors and not-ready calls).  ``count`` is the events the answer stands
    for: exact for ``events`` and for buckets counted from the events
    themselves, the pyramid's count of events starting in the buckets otherwise.
    """

    lane: str
    count: int
    events: dict[str, np.ndarray] | None = None
    buckets: Buckets | None = None

    def to_json(self) -> dict:
        """The lane's answer as JSON-ready lists (what a page asks the kernel for)."""
        out: dict = {"lane": self.lane, "count": self.count}
        if self.events is not None:
            out["events"] = {name: values.tolist() for name, values in self.events.items()}
        if self.buckets is not None:
            b = self.buckets
            out["buckets"] = {"width_ns": b.width_ns, "start_ns": b.start_ns.tolist(), "count": b.count.tolist(),
                              "busiest": b.busiest.tolist(), "errors": b.errors.tolist(),
                              "not_ready": b.not_ready.tolist()}
        return out


@dataclass
class Window:
    """What ``TraceStore.window`` answers: per lane (in the store's lane order) exact events or buckets."""

    start_ns: int
    end_ns: int
    pixels: int
    lanes: list[LaneWindow]
    nodes: list[Node]

    def lane(self, name: str) -> LaneWindow:
        """The answer for lane ``name`` (``KeyError`` if the store has no such lane)."""
        for lane in self.lanes:
            if lane.lane == name:
                return lane
        raise KeyError(f"no lane {name!r} in this window; lanes: {[lane.lane for lane in self.lanes]}")

    def to_json(self) -> dict:
        """The whole answer as JSON-ready data: nodes as ``Node.to_dict``, lanes as ``LaneWindow.to_json``."""
        return {"start_ns": self.start_ns, "end_ns": self.end_ns, "pixels": self.pixels,
                "nodes": [node.to_dict() for node in self.nodes], "lanes": [lane.to_json() for lane in self.lanes]}


@dataclass
class _Chunk:
    """What the store took of one chunk: body rows read, items numbered, the event its next continuation extends."""

    index: int
    rows: int = 0
    items: int = 0
    last_event: int = -1
    first_kept: int = -1        # the lowest and highest store ids of its events the store kept (-1: none yet)
    last_kept: int = -1
    links: int = 0              # input pairs and decisions taken with its events (bounds once a window cut some)
    decisions: int = 0

    def keep(self, ids: np.ndarray) -> None:
        """The store kept events of this chunk with these ids (ascending)."""
        if len(ids):
            self.first_kept = int(ids[0]) if self.first_kept < 0 else self.first_kept
            self.last_kept = int(ids[-1])


@dataclass
class _Source:
    """One recorder (one process): its node and text maps into the store's tables, and its latest drop count."""

    nodes: list[int] = field(default_factory=list)
    texts: list[int] = field(default_factory=list)
    pid: int = 0
    where: str = ""
    dropped: int = 0
    spilled: int = 0                                         # of them, the events the store wrote to its spill file
    gap_ns: tuple[int, int] | None = None                   # where the dropped events lay (the recorder's clock)
    offset_ns: int = 0
    sequence: dict[int, int] = field(default_factory=dict)   # handed-over chunk -> its sequence number
    open_keys: set[int] = field(default_factory=set)         # chunks still open at the latest increment
    chunk_keys: set[int] = field(default_factory=set)        # every chunk of this recorder the store holds
    readings_from: int = _NO_READING                          # its older gauge readings left (``_readings_from``)


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
    spill : SpillWriter, optional
        Where events go when their recorder evicts them past its capacity:
        appended to this binary trace file (``rlviz.trace.spill``) instead of
        lost, with their links, decisions and the gauge readings that leave
        with them; ``spill_rest`` adds what is still held at the end.

    Notes
    -----
    Safe to feed from one thread while another reads: every method takes
    the store's lock, and ``view()`` returns a ``Trace`` that later
    increments never change.
    """

    def __init__(self, since_ns: int = 0, window_ns: int | None = None, spill: SpillWriter | None = None) -> None:
        self.since_ns = int(since_ns)
        self.spill = spill
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
        self._rows = HeldColumns(_STORED)             # the held events, store ids ascending by position
        self._chunk_key = GrowingArray()               # per chunk index: its key (the first item id), and its pid
        self._chunk_pid = GrowingArray()
        self._chunk_reading = GrowingArray()           # per chunk index: its latest gauge reading (_NO_READING)
        self._long = _SideTable()                  # events whose duration does not fit the column
        self._wide = _SideTable()                  # events whose summary number does not fit the column
        self._lane_names: list[str] = []           # lanes (a node's where), in order of first sight
        self._node_lane = np.zeros(0, np.int64)    # per node: its lane
        self.pyramid = Pyramid()
        self._index = BlockIndex()
        self._first = 0                            # id of the first event held
        self._next = 0                             # id the next event gets
        self._compacted_to = 0                     # 1 + the highest id compacted away (since() starts at or after it)
        self._links = HeldColumns(_LINK_TYPES)        # per input pair: the consumer's id and the value's id
        self._inputs_gone = 0                      # input pairs that left with their owners (window)
        self._latest_end = 0
        self._version = 0
        self._view: tuple[int, Trace] | None = None
        self._decisions = HeldColumns(_DECISION_TYPES)     # "event": a store id
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
            self._retire(source, list(source.chunk_keys.difference(listed)))
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
            self._retire(source, [key for key in gone if key in self._chunks])
            return added

    # -- reading -------------------------------------------------------------
    def __len__(self) -> int:
        with self.lock:
            return len(self._rows)

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
            return self._decisions_gone + len(self._decisions)

    @property
    def gaps(self) -> tuple[Gap, ...]:
        """Where each process's dropped events lay, on the driver's clock (from ``since_ns`` on), by lane."""
        with self.lock:
            return self._gaps({key: source.dropped for key, source in self._sources.items()})

    def _gaps(self, counts: dict[tuple, int]) -> tuple[Gap, ...]:
        """One ``Gap`` per source with a count above 0 in ``counts`` (by source key) and a known span."""
        gaps = [Gap(source.where, max(source.gap_ns[0] + source.offset_ns, self.since_ns),
                    max(source.gap_ns[1] + source.offset_ns, self.since_ns), counts[key])
                for key, source in self._sources.items() if counts[key] > 0 and source.gap_ns is not None]
        return tuple(sorted(gaps))

    def _lost(self) -> dict[tuple, int]:
        """Per source (by key), the events its recorder evicted that the spill file does not hold."""
        return {key: max(source.dropped - source.spilled, 0) for key, source in self._sources.items()}

    def spill_rest(self) -> None:
        """Append every held event to the spill file as its last segment, with their links and decisions, the
        gauge readings held and the gaps of what the file lacks: the file then holds the whole run.

        The store keeps what it holds (its view does not change) and writes
        nothing more to the file: ``spill`` is None afterwards.  A block's
        exit calls this.

        Raises
        ------
        ValueError
            If the store has no spill file (never had one, or this was called before).
        """
        with self.lock:
            if self.spill is None:
                raise ValueError("this TraceStore has no spill file to finish (none was given, or spill_rest was "
                                 "called already): give one with TraceStore(spill=SpillWriter(path))")
            extras = {}
            gaps = self._gaps(self._lost())
            if gaps:
                extras["gaps"] = [[gap.where, int(gap.start_ns), int(gap.end_ns), int(gap.dropped)] for gap in gaps]
            self._write_segment(np.arange(len(self._rows)), None, None, extras, self._gauges.held(self.window_start_ns))
            self.spill.close()                      # the stream's end: a file without it reads as cut
            self.spill = None

    def view(self) -> Trace:
        """A frozen ``Trace`` of every held event, ordered by start (cached until something is added)."""
        with self.lock:
            if self._view is not None and self._view[0] == self._version:
                return self._view[1]
            held = np.arange(len(self._rows))
            columns = self._standard(held)
            ids = self._ids_at(held)
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
            events = self._decisions.column("event")
            held = events >= self._first
            ids = np.unique(events[held])
            positions = self._positions_of(ids)
            ids, positions = ids[positions >= 0], positions[positions >= 0]
            columns = self._standard(positions)
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
                    **{name: self._decided(name)[held][kept] for name in DECISION_ROW_FIELDS}}
            trace = _trace(self.nodes, columns, list(self.texts.texts), self.dropped, ids[order], rows)
            trace.gauges = self._gauges.build(self.window_start_ns)
            return trace

    def since(self, event_id: int = 0, input_from: int = 0, decision_from: int = 0) -> Appended:
        """Events with ids from ``event_id`` on (arrival order), the input pairs from number ``input_from`` on,
        and the decisions from number ``decision_from`` on.

        Pass the previous answer's ``next_id``, ``next_input`` and
        ``next_decision`` to get exactly what arrived since it: nothing twice,
        nothing skipped.  The answer's ids are consecutive, so it starts past
        the last event whose row was compacted away (evicted, then taken out):
        a reader that keeps up never meets one, as evictions take old chunks.

        Raises
        ------
        ValueError
            If ``event_id`` or ``input_from`` is negative or beyond what the store gave.
        """
        with self.lock:
            if not 0 <= event_id <= self._next:
                raise ValueError(f"event_id={event_id} is not an id this store gave; expected 0..{self._next} "
                                 f"(pass the previous Appended.next_id)")
            if not 0 <= input_from <= self._inputs_gone + len(self._links):
                raise ValueError(f"input_from={input_from} is beyond the {self._inputs_gone + len(self._links)} "
                                 f"input pairs this store took (pass the previous Appended.next_input)")
            first = max(event_id, self._first, self._compacted_to)
            start = int(self._search_ids([first])[0])
            columns = self._standard(np.arange(start, len(self._rows)))
            fresh = max(input_from - self._inputs_gone, 0)
            decided = max(decision_from - self._decisions_gone, 0)
            return Appended(first_id=first, columns=columns,
                            input_owner=self._links.column("owner")[fresh:].astype(np.int64),
                            input_id=self._links.column("value")[fresh:].copy(), nodes=list(self.nodes),
                            texts=list(self.texts.texts), dropped=self.dropped, next_id=self._next,
                            next_input=self._inputs_gone + len(self._links),
                            decisions={name: self._decided(name)[decided:] for name in _DECISION_TYPES},
                            next_decision=self._decisions_gone + len(self._decisions))

    def taken(self, chunk: bytes | bytearray | memoryview) -> bool:
        """True if the store took every row of ``chunk`` (one handed-over chunk, opened by its header).

        A buffer may then keep only ``rlviz.trace.rows.released_stub(chunk)``:
        the store recognises the stub as the chunk, and holds its events.
        """
        with self.lock:
            return self._taken_whole(chunk, [])

    @property
    def nbytes(self) -> int:
        """Bytes held by the store's arrays: events, links, decisions, gauges, the pyramid and the index (not the
        texts): the sum of ``memory()``."""
        return sum(self.memory().values())

    def memory(self) -> dict[str, int]:
        """Bytes held by each of the store's arrays, as allocated (growth room included).

        Keys: ``"column <name>"`` for each per-event column (``start_ns``,
        ``duration``, ``node``, ``code``, ``item_num``, ``chunk``, ``rank``,
        ``id``); ``"links"`` (consumer id, value id per
        input); ``"decisions"``; ``"gauges"``; ``"chunks"`` (key and pid per
        chunk); ``"side tables"`` (durations and summary numbers too wide for
        their column); ``"pyramid"`` and ``"index"``.  docs/long-runs.md has
        a table of them per event for a real run.
        """
        with self.lock:
            parts = {f"column {name}": size for name, size in self._rows.memory().items()}
            parts["links"] = sum(self._links.memory().values())
            parts["decisions"] = sum(self._decisions.memory().values())
            parts["gauges"] = self._gauges.nbytes
            parts["chunks"] = sum(array.nbytes for array in (self._chunk_key, self._chunk_pid, self._chunk_reading))
            parts["side tables"] = sum(part.nbytes for part in (*self._long.parts, *self._wide.parts))
            parts["pyramid"] = self.pyramid.nbytes
            parts["index"] = self._index.nbytes
            return parts

    @property
    def lanes(self) -> list[str]:
        """The lanes (the nodes' ``where``) that hold events, in order of first sight."""
        with self.lock:
            return list(self._lane_names)

    def window(self, start_ns: int, end_ns: int, pixels: int, exact_per_pixel: int = EXACT_PER_PIXEL,
               scan_budget: int = SCAN_BUDGET) -> Window:
        """What lies in ``[start_ns, end_ns]`` drawn ``pixels`` wide: per lane, its exact events or its buckets.

        A lane with at most ``exact_per_pixel * pixels`` events that meet the
        window (start before its end, end at or after its start) gets them
        exactly.  A lane with more gets one bucket per pixel counted from its
        events, as long as the events read stay within ``scan_budget``;
        beyond that the pyramid's level whose buckets are nearest one pixel
        (no wider, or its finest) answers.  Time grows with what lies in the
        window and with ``pixels``, not with what the store holds.

        Parameters
        ----------
        start_ns, end_ns : int
            The window, on the driver's clock (epoch ns), ``end_ns > start_ns``.
        pixels : int
            Its width on screen, at least 1.
        exact_per_pixel : int, default EXACT_PER_PIXEL
            Events per pixel up to which a lane is answered exactly.
        scan_budget : int, default SCAN_BUDGET
            Most held events read one by one.

        Returns
        -------
        Window

        Raises
        ------
        ValueError
            If the window is empty or reversed, or ``pixels``, ``exact_per_pixel`` or ``scan_budget`` is below 1.
        """
        _check_window(start_ns, end_ns, pixels, exact_per_pixel, scan_budget)
        with self.lock:
            lanes = len(self._lane_names)
            first_block = self._first >> BLOCK_SHIFT
            scanned = self._scan_lanes(start_ns, end_ns, scan_budget, first_block)
            positions = self._scan(scanned, start_ns, end_ns, first_block)
            lane_of = self._node_lane[self._rows.column("node")[positions].astype(np.int64)]
            by_lane = np.argsort(lane_of, kind="stable")          # each lane's positions stay by start
            bounds = np.searchsorted(lane_of[by_lane], np.arange(lanes + 1))
            level = self.pyramid.level_for((end_ns - start_ns) / pixels)
            answers = []
            for lane in range(lanes):
                nodes = np.flatnonzero(self._node_lane == lane)
                if lane in scanned:
                    mine = positions[by_lane[bounds[lane]:bounds[lane + 1]]]
                    answers.append(self._lane_from_events(lane, mine, start_ns, end_ns, pixels, exact_per_pixel))
                else:
                    buckets = self.pyramid.buckets(level, start_ns, end_ns, nodes, lane)
                    answers.append(LaneWindow(self._lane_names[lane], int(buckets.count.sum()), buckets=buckets))
            return Window(int(start_ns), int(end_ns), int(pixels), answers, list(self.nodes))

    def _scan_lanes(self, start_ns: int, end_ns: int, budget: int, first_block: int) -> set[int]:
        """The lanes answered from their events: the cheapest first, while the blocks to read stay within ``budget``."""
        reads = self._index.estimate(start_ns, end_ns, first_block)[:len(self._lane_names)]
        covered = np.zeros(0, np.int64)
        chosen: set[int] = set()
        for lane in np.argsort(reads, kind="stable").tolist():
            blocks = np.union1d(covered, self._index.blocks(np.array([lane]), start_ns, end_ns, first_block))
            if len(blocks) * BLOCK > budget and reads[lane] and self.pyramid.kept:     # else no other answer
                break
            covered = blocks
            chosen.add(lane)
        return chosen

    def _scan(self, lanes: set[int], start_ns: int, end_ns: int, first_block: int) -> np.ndarray:
        """Positions of the held events of ``lanes`` that meet the window, by start."""
        blocks = self._index.blocks(np.array(sorted(lanes), np.int64), start_ns, end_ns, first_block)
        if not len(blocks):
            return np.zeros(0, np.int64)
        bounds = self._search_ids(np.stack((blocks, blocks + 1)) * BLOCK)
        positions = np.concatenate([np.arange(lo, hi) for lo, hi in bounds.T.tolist()])
        start = self._rows.column("start_ns")[positions]
        positions = positions[start < end_ns]
        positions = positions[self._ends(positions) >= start_ns]
        wanted = np.zeros(max(len(self._lane_names), 1), bool)
        wanted[list(lanes)] = True
        positions = positions[wanted[self._node_lane[self._rows.column("node")[positions].astype(np.int64)]]]
        return positions[np.argsort(self._rows.column("start_ns")[positions], kind="stable")]

    def _lane_from_events(self, lane: int, positions: np.ndarray, start_ns: int, end_ns: int, pixels: int,
                          exact_per_pixel: int) -> LaneWindow:
        """One lane's answer from its events in the window (``positions``, by start): them, or a bucket per pixel."""
        name = self._lane_names[lane]
        if len(positions) <= exact_per_pixel * pixels:
            events = self._standard(positions)
            events["event_id"] = self._ids_at(positions)
            return LaneWindow(name, len(positions), events=events)
        span = end_ns - start_ns
        start = self._rows.column("start_ns")[positions]
        pixel = np.clip((start - start_ns) * pixels // span, 0, pixels - 1)
        node = self._rows.column("node")[positions].astype(np.int64)
        outcome = outcome_of(self._rows.column("code")[positions])
        per_node = np.bincount(pixel * len(self.nodes) + node, minlength=pixels * len(self.nodes))
        per_node = per_node.reshape(pixels, len(self.nodes))
        count = per_node.sum(axis=1)
        buckets = Buckets(span // pixels, start_ns + np.arange(pixels, dtype=np.int64) * span // pixels, count,
                          np.where(count > 0, per_node.argmax(axis=1), -1),
                          np.bincount(pixel[outcome == ERROR], minlength=pixels),
                          np.bincount(pixel[outcome == NOT_READY], minlength=pixels))
        return LaneWindow(name, len(positions), buckets=buckets)

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
            for slot in np.unique(slots[slots >= 0]).tolist():
                key = int(self._keys[slot])
                asked = np.flatnonzero(slots == slot)
                by_rank = self._items_of(self._chunks[key])
                rank = item_ids[asked] - key
                inside = rank < len(by_rank)
                found[asked[inside]] = by_rank[rank[inside]]
            found[found < self._first] = -1
            return found

    def _items_of(self, chunk: _Chunk) -> np.ndarray:
        """The store id of each item of ``chunk``, by its rank in the chunk (-1: not held)."""
        if chunk.first_kept < 0:
            return np.zeros(0, np.int64)
        lo, hi = self._search_ids([chunk.first_kept, chunk.last_kept + 1]).tolist()
        if hi <= lo:
            return np.zeros(0, np.int64)
        at = lo + np.flatnonzero(self._rows.column("chunk")[lo:hi] == chunk.index)
        rank = self._rows.column("rank")[at].astype(np.int64)
        is_item = rank != _NO_ITEM
        by_rank = np.full(int(rank[is_item].max(initial=-1)) + 1, -1, np.int64)
        by_rank[rank[is_item]] = self._ids_at(at[is_item])
        return by_rank

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
        seen, added, first_new = [], 0, len(self._rows)
        for data in parts:
            if not self._taken_whole(data, seen):
                added += self._add_chunks(source, data, seen)
        if added:
            self._count_in(first_new)
            self._apply_window()
        self._version += 1
        return added, seen

    def _taken_whole(self, data: bytes, seen: list[int]) -> bool:
        """True (its key noted in ``seen``) if ``data`` is exactly one chunk whose every row the store took.

        A part holding more chunks is longer than its first chunk's rows, so it is never mistaken for one.
        """
        if len(data) < _ROW_BYTES:
            return not data
        head = np.frombuffer(data, dtype=np.int64, count=len(data) // 8)
        chunk = self._chunks.get(int(head[2]))
        rows = head[2 * FIELDS - 1] if len(head) == 2 * FIELDS and head[FIELDS] == RELEASED else len(head) // FIELDS - 1
        if head[0] != HEADER or chunk is None or chunk.rows != rows:
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
            body = rows[at + 1:end]
            if key in self._dead_chunks or (len(body) and body[0, 0] == RELEASED):
                continue                # a released chunk's rows live in the store that took them
            chunk = self._chunks.get(key)
            if chunk is None:
                chunk = self._chunks[key] = _Chunk(index=self._chunk_count)
                self._chunk_key.extend(np.array([key]))
                self._chunk_pid.extend(np.array([source.pid]))
                self._chunk_reading.extend(np.array([_NO_READING]))
                source.chunk_keys.add(key)
                self._chunk_count += 1
                self._keys = None
            if len(body) > chunk.rows:
                added += self._take(source, chunk, key, int(rows[at, 1]), body[chunk.rows:])
                chunk.rows = len(body)
        return added

    def _take(self, source: _Source, chunk: _Chunk, key: int, node: int, rows: np.ndarray) -> int:
        """Append the new rows of one chunk: events get the next ids; continuation and decision rows belong
        to the event before them."""
        rows, gauge_rows = split_gauges(rows)
        self._add_gauges(source, chunk.index, gauge_rows)
        rows, decision_owner, decision_rows = split_decisions(rows)
        is_event = rows[:, 0] >= 0
        events = rows[is_event]
        is_item = outcome_of(events[:, 2]) == ITEM
        rank = np.where(is_item, chunk.items + np.cumsum(is_item) - 1, _NO_ITEM)
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
        chunk.decisions += self._add_decisions(source, decided, decision_rows)
        if len(events):
            chunk.last_event = int(ids[-1])
            chunk.keep(ids[keep])
        chunk.links += self._add_inputs(rows, is_event, row_owner)
        if n_kept:
            self._append_events(source, events[keep], rank[keep], node, chunk.index)
        return n_kept

    def _add_gauges(self, source: _Source, chunk_index: int, rows: np.ndarray) -> None:
        """Keep gauge rows, their name and lane texts mapped to the store's table; note the chunk's latest
        reading (``_retire``)."""
        if not len(rows):
            return
        rows = rows.copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        rows[:, 3:5] = text_map[np.minimum(rows[:, 3:5], len(text_map) - 1)]
        self._gauges.add(rows, source.pid, self.texts.texts, source.offset_ns, self.since_ns)
        latest = self._chunk_reading.values()
        latest[chunk_index] = max(int(latest[chunk_index]), int(rows[:, 1].max()) + source.offset_ns)

    def _add_decisions(self, source: _Source, owner: np.ndarray, rows: np.ndarray) -> int:
        """Keep the decision rows whose event the store holds (``owner``: its id, -1 if none), the union's node
        mapped; return how many."""
        held = owner >= self._first
        if not held.any():
            return 0
        fields = decision_columns(rows[held])
        local = np.minimum(fields["union"], len(source.nodes) - 1)
        fields["union"] = np.asarray(source.nodes, np.int64)[local]
        count = int(held.sum())
        self._decisions.append({"event": owner[held], **{name: fields[name] for name in DECISION_ROW_FIELDS}}, count)
        return count

    def _held_decisions(self, ids: np.ndarray, among: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The decisions of the events ``ids`` (in that order): ``event`` as a position in ``ids``; only those
        at positions ``among`` of the held decisions if given."""
        def field_of(name: str) -> np.ndarray:
            return self._decided(name) if among is None else self._decisions.column(name)[among].astype(np.int64)

        at = _index_in(ids, field_of("event"))
        kept = at >= 0
        return {"event": at[kept], **{name: field_of(name)[kept] for name in DECISION_ROW_FIELDS}}

    def _decided(self, name: str) -> np.ndarray:
        """Decision field ``name`` of every decision held, as int64 (a copy)."""
        return self._decisions.column(name).astype(np.int64)

    def _add_inputs(self, rows: np.ndarray, is_event: np.ndarray, row_owner: np.ndarray) -> int:
        """Keep the input pairs of ``rows`` whose consumer (``row_owner``, per row) is held; return how many."""
        first = np.where(is_event, rows[:, 4], NO_INPUT)
        extra = np.where(is_event[:, None], NO_INPUT, rows[:, 1:])
        values = np.concatenate((first[:, None], extra), axis=1)       # per row: its inputs in order
        owners = np.repeat(row_owner[:, None], FIELDS, axis=1)
        real = (values != NO_INPUT) & (owners >= self._first)
        count = int(real.sum())
        self._links.append({"owner": owners[real], "value": values[real]}, count)
        return count

    def _append_events(self, source: _Source, events: np.ndarray, rank: np.ndarray, node: int,
                       chunk_index: int) -> None:
        n = len(events)
        if self._next + n > _MAX_ID:
            raise OverflowError(f"a TraceStore gives at most {_MAX_ID:,} event ids; start a new record() block "
                                f"(or pass window_s) to record longer")
        kind = kind_of(events[:, 2])
        number = events[:, 3].copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        is_text = kind == KIND_TEXT
        number[is_text] = text_map[np.minimum(number[is_text], len(text_map) - 1)]
        is_sized = kind == KIND_SIZED
        names = np.minimum(number[is_sized] & SIZED_NAME_MASK, len(text_map) - 1)
        number[is_sized] = (number[is_sized] & ~SIZED_NAME_MASK) | text_map[names]
        start = events[:, 0] + source.offset_ns
        duration = events[:, 1] - events[:, 0]
        node_index = source.nodes[node] if node < len(source.nodes) else 0
        if node_index >= _NO_ITEM:
            raise OverflowError(f"a TraceStore holds at most {_NO_ITEM:,} dataflow nodes; this run made more")
        values = {"start_ns": start, "duration": np.minimum(duration, _LONG), "node": node_index,
                  "code": events[:, 2], "item_num": number, "chunk": chunk_index, "rank": rank}
        self._long.add(self._next, (duration >= _LONG) | (duration < 0), duration)
        wide = (number <= _WIDE) | (number > _INT32_MAX)
        self._wide.add(self._next, wide, number)
        values["item_num"] = np.where(wide, _WIDE, number)
        values["id"] = np.arange(self._next, self._next + n)
        self._rows.append(values, n)
        self._next += n
        self._latest_end = max(self._latest_end, int(events[:, 1].max()) + source.offset_ns)

    def _count_in(self, first_position: int) -> None:
        """Note the events at positions from ``first_position`` on (the ones just added, consecutive ids) in the
        pyramid and the block index."""
        positions = np.arange(first_position, len(self._rows))
        if not len(positions):
            return
        columns = self._standard(positions)
        node = columns["node"].astype(np.int64)
        lane = self._lanes_of(node)
        self.pyramid.add(columns["start_ns"], node, lane, columns["outcome"])
        self._index.add(int(self._rows.column("id")[first_position]), lane, columns["start_ns"], columns["end_ns"])

    def _lanes_of(self, node: np.ndarray) -> np.ndarray:
        """The lane of each node index in ``node`` (lanes are named by the nodes' ``where``)."""
        if len(self._node_lane) < len(self.nodes):
            known = len(self._node_lane)
            lanes = []
            for added in self.nodes[known:]:
                if added.where not in self._lane_names:
                    self._lane_names.append(added.where)
                lanes.append(self._lane_names.index(added.where))
            self._node_lane = np.append(self._node_lane, np.asarray(lanes, np.int64))
        return self._node_lane[np.asarray(node, np.int64)]

    def _ids_at(self, positions: np.ndarray) -> np.ndarray:
        """The store ids (int64) of the held rows at ``positions``."""
        return self._rows.column("id")[positions].astype(np.int64)

    def _positions_of(self, ids: np.ndarray) -> np.ndarray:
        """The position of each store id in ``ids`` among the held rows (-1 where it is not held)."""
        ids = np.asarray(ids, np.int64)
        held = self._rows.column("id")
        if not len(held):
            return np.full(len(ids), -1, np.int64)
        at = np.minimum(self._search_ids(ids), len(held) - 1)
        return np.where(held[at] == ids, at, -1)

    def _search_ids(self, ids: np.ndarray | list[int]) -> np.ndarray:
        """Where each store id in ``ids`` would sit among the held rows (searched in the id column's own dtype, so
        the column is not copied: searching it with int64 keys would cast it whole)."""
        wanted = np.clip(np.asarray(ids, np.int64), 0, _MAX_ID + 1).astype(np.uint32)
        return np.searchsorted(self._rows.column("id"), wanted)

    def _standard(self, positions: np.ndarray) -> dict[str, np.ndarray]:
        """The ``Trace`` columns (``rlviz.trace.schema.COLUMNS``) of the held events at ``positions``."""
        stored = {name: self._rows.column(name)[positions] for name in ("start_ns", "node", "code", "chunk", "rank")}
        start = stored["start_ns"]
        chunk = stored["chunk"].astype(np.int64)
        rank = stored["rank"].astype(np.int64)
        return {"node": stored["node"].astype(np.int32), "pid": self._chunk_pid.values()[chunk],
                "start_ns": start, "end_ns": self._ends(positions),
                "outcome": outcome_of(stored["code"]).astype(np.uint8),
                "item_kind": (stored["code"] >> OUTCOME_BITS).astype(np.uint8), "item_num": self._numbers(positions),
                "item_id": np.where(rank != _NO_ITEM, self._chunk_key.values()[chunk] + rank, -1)}

    def _ends(self, positions: np.ndarray) -> np.ndarray:
        """The end (ns) of each held event at ``positions``: its start plus its duration, long ones from the side table."""
        duration = self._rows.column("duration")[positions].astype(np.int64)
        long = np.flatnonzero(duration == _LONG)
        if len(long):
            duration[long] = self._long.lookup(self._ids_at(positions[long]))
        return self._rows.column("start_ns")[positions] + duration

    def _numbers(self, positions: np.ndarray) -> np.ndarray:
        """The summary number (int64) of each held event at ``positions``, wide ones from the side table."""
        number = self._rows.column("item_num")[positions].astype(np.int64)
        wide = np.flatnonzero(number == _WIDE)
        if len(wide):
            number[wide] = self._wide.lookup(self._ids_at(positions[wide]))
        return number

    def _spill(self, source: _Source, positions: np.ndarray, readings: Readings, links: int, decisions: int) -> None:
        """Append the held events of ``source`` at ``positions`` (they are leaving) to the spill file, with their
        inputs and decisions (the ``links`` input pairs and ``decisions`` their chunks took, found from the
        front), and the gauge readings leaving with them."""
        if not len(positions) and not len(readings.time_ns):
            return
        source.spilled += len(positions)
        ids = self._ids_at(positions)
        self._write_segment(positions, self._links.find_in("owner", ids, links),
                            self._decisions.find_in("event", ids, decisions), {}, readings)

    def _write_segment(self, positions: np.ndarray, links: np.ndarray | None, decisions: np.ndarray | None,
                       extras: dict, readings: Readings) -> None:
        """Append the held events at ``positions`` (ascending) to the spill file as one segment, with ``extras``
        and the gauge ``readings``.

        ``links`` and ``decisions``: where among the held input pairs and
        decisions to look for theirs (all of them if None).  Each decision
        names its event by its position in the file (the events of the
        segments before count first), so it survives the loader's reordering.
        The segment's ``dropped`` counts the evicted events the file does not
        hold (those evicted before the store took them), so a loaded spill
        file reports only what was really lost.
        """
        columns = self._standard(positions)
        ids = self._ids_at(positions)
        columns["input_offsets"], columns["input_ids"] = self._csr(ids, links)
        rows = self._held_decisions(ids, decisions)
        if len(rows["event"]):
            rows["event"] += self.spill.events
            extras = {**extras, "decision_rows": {name: values.tolist() for name, values in rows.items()}}
        self.spill.write(columns, self.nodes, self.texts.texts, sum(self._lost().values()), extras or None, readings)

    def _count_out(self, positions: np.ndarray) -> None:
        """Take the held events at ``positions`` out of the pyramid (they leave the store)."""
        if len(positions):
            node = self._rows.column("node")[positions].astype(np.int64)
            self.pyramid.add(self._rows.column("start_ns")[positions], node, self._lanes_of(node),
                             outcome_of(self._rows.column("code")[positions]), sign=-1)

    def _retire(self, source: _Source, keys: list[int]) -> None:
        """``source``'s recorder evicted the chunks ``keys``: their events leave the store (and its arrays).

        Only the rows between the chunks' first and last held events are
        read; the other rows stay, unread.
        """
        if not keys:
            return
        chunks = []
        for key in keys:
            chunks.append(self._chunks.pop(key))
            source.chunk_keys.discard(key)
            self._dead_chunks.add(key)
        self._keys = None
        lo, hi = self._span_of(chunks)
        indexes = [chunk.index for chunk in chunks]
        leaving = np.isin(self._rows.column("chunk")[lo:hi], indexes)
        cutoff = {source.pid: self._readings_from(source, indexes)}
        if self.spill is not None:                  # the process's gauge readings leave with its events, into the file
            self._spill(source, lo + np.flatnonzero(leaving), self._gauges.take_before(cutoff),
                        sum(chunk.links for chunk in chunks), sum(chunk.decisions for chunk in chunks))
        else:                                       # or are let go with them: capacity bounds both
            self._gauges.drop_before(cutoff)
        if leaving.any():
            self._count_out(lo + np.flatnonzero(leaving))
            self._compact(~leaving, lo, sum(chunk.links for chunk in chunks), sum(chunk.decisions for chunk in chunks))
        self._version += 1

    def _readings_from(self, source: _Source, retired: list[int]) -> int:
        """Where ``source``'s gauge readings held now begin, once the chunks ``retired`` (indexes) left: after the
        end of its dropped events (its gap) and after the latest reading those chunks held.

        A process's readings leave with its events by time: the gap mark
        the page draws covers them.  A node that records rarely keeps its
        old events, but not the readings of the time around them.
        """
        gap_end = source.gap_ns[1] + source.offset_ns if source.gap_ns is not None else _NO_READING
        latest = int(np.max(self._chunk_reading.values()[retired], initial=_NO_READING))
        source.readings_from = max(source.readings_from, gap_end, latest + 1 if latest != _NO_READING else latest)
        return source.readings_from

    def _span_of(self, chunks: list[_Chunk]) -> tuple[int, int]:
        """The positions ``lo, hi`` from the first to past the last held event of ``chunks`` (``0, 0``: none)."""
        spans = [(chunk.first_kept, chunk.last_kept) for chunk in chunks if chunk.first_kept >= 0]
        if not spans:
            return 0, 0
        first, last = min(span[0] for span in spans), max(span[1] for span in spans)
        lo, hi = self._search_ids([first, last + 1]).tolist()
        return lo, hi

    def _compact(self, keep: np.ndarray, start: int, links: int, decisions: int) -> None:
        """Take out the held rows from position ``start`` on where ``keep`` is false, with their links and decisions
        (at most ``links`` and ``decisions`` of them) and side entries; the held ids stay ascending, positions close
        up."""
        gone = self._rows.column("id")[start:start + len(keep)][~keep].astype(np.int64)
        self._rows.compact(keep, start)
        if not len(gone):
            return
        self._compacted_to = max(self._compacted_to, int(gone[-1]) + 1)
        self._inputs_gone += self._links.drop_in("owner", gone, links)
        self._decisions_gone += self._decisions.drop_in("event", gone, decisions)
        for side in (self._long, self._wide):
            side.keep(~np.isin(side.ids.values(), gone))

    def _apply_window(self) -> None:
        """Drop the oldest ids while they ended before the window (the front only, so ids stay consecutive)."""
        if self.window_ns is None:
            return
        self._gauges.let_go_before(self._latest_end - self.window_ns)
        held = len(self._rows)
        cut = self._leading_ended_before(self._latest_end - self.window_ns)
        if cut == 0:
            return
        self._count_out(np.arange(cut))
        self._first = int(self._rows.column("id")[cut]) if cut < held else self._next
        self._rows.drop_front(cut)
        self._inputs_gone += self._links.compact(self._links.column("owner") >= self._first)
        self._decisions_gone += self._decisions.compact(self._decisions.column("event") >= self._first)

    def _leading_ended_before(self, time_ns: int) -> int:
        """How many held events, from the first, ended before ``time_ns`` (up to the first that did not).

        Reads a block at a time from the front and stops at the first event
        still in the window: a pull's cost follows what leaves, not what is held.
        """
        held = len(self._rows)
        for at in range(0, held, COMPACT_BLOCK):
            staying = np.flatnonzero(self._ends(np.arange(at, min(at + COMPACT_BLOCK, held))) >= time_ns)
            if len(staying):
                return at + int(staying[0])
        return held

    def _csr(self, ids: np.ndarray, links: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Inputs of the events ``ids`` (in that order) as CSR arrays, each event's inputs in arrival order.

        ``links``: the positions of the input pairs to look among (every pair held if None), when they are known
        to hold all of these events' pairs: a spill's old events need not copy every held pair.
        """
        owner, value = self._links.column("owner"), self._links.column("value")
        if links is not None:
            owner, value = owner[links], value[links]
        owner = owner.astype(np.int64)
        at = _index_in(ids, owner)
        kept = at >= 0
        at, value = at[kept], value[kept]
        by_owner = np.argsort(at, kind="stable")
        counts = np.bincount(at, minlength=len(ids))
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), value[by_owner].astype(np.int64)


def _index_in(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` sits in ``ids`` (distinct values), -1 where absent."""
    order = np.argsort(ids, kind="stable")
    keys = ids[order].astype(np.int64)
    at = np.searchsorted(keys, wanted)
    inside = at < len(keys)
    found = np.zeros(len(wanted), bool)
    found[inside] = keys[at[inside]] == wanted[inside]
    at = order[np.minimum(at, max(len(keys) - 1, 0))] if len(keys) else at
    return np.where(found, at, -1)


def _check_window(start_ns: int, end_ns: int, pixels: int, exact_per_pixel: int, scan_budget: int) -> None:
    """Refuse a window query's bad arguments, naming the one at fault."""
    if not end_ns > start_ns:
        raise ValueError(f"window end_ns={end_ns} must be after start_ns={start_ns} (epoch ns, driver clock)")
    for name, value in (("pixels", pixels), ("exact_per_pixel", exact_per_pixel), ("scan_budget", scan_budget)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")


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


class _SideTable:
    """Values of the few events a narrow column cannot hold, by store id (ascending): what the column marks."""

    def __init__(self) -> None:
        self.ids = GrowingArray(np.uint32)
        self.values = GrowingArray()

    @property
    def parts(self) -> tuple[GrowingArray, GrowingArray]:
        """Its arrays (for ``nbytes``)."""
        return self.ids, self.values

    def add(self, first_id: int, kept_apart: np.ndarray, values: np.ndarray) -> None:
        """Keep ``values`` where ``kept_apart`` is true, for events with ids ``first_id, first_id + 1, ...``."""
        at = np.flatnonzero(kept_apart)
        if len(at):
            self.ids.extend(first_id + at)
            self.values.extend(values[at])

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """The values kept for ``ids`` (every one of them must have been kept)."""
        return self.values.values()[np.searchsorted(self.ids.values(), ids)]

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the entries where ``mask`` is true."""
        self.ids.keep(mask)
        self.values.keep(mask)


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
