"""A watched run as a long trace that grows: the store's arrivals cut into chunks, and levels of the whole run.

A live page is the long page of every other trace (``rlviz.viz.explorer_long``):
it holds levels of the whole run and the detail chunks its window needs, and
asks for those by number.  ``GrowingChunks`` is its source while the run
goes on.  Once per refresh ``advance`` takes what arrived in the
``TraceStore`` since the last look (``TraceStore.since``: ids consecutive,
nothing twice) and adds it to the open **tail chunk**; a tail that reaches
``chunk_events`` events is closed: encoded once and kept packed (about 6
bytes an event), so the page can ask for it however long ago it closed, and
what it shows stays what was recorded even after the processes' bounded
recorders let those events go.  Inputs that arrive after their consumer's
chunk closed travel as ``late`` links of the chunk they arrive in, as on
any stream.

The same refresh counts the new events into the source's own
``Pyramid`` (per lane and time bucket) and per node (``node_counts``:
``op_stats``' rule), and its gauge readings into a ``GaugeLog``.  A page
mounts with ``start`` (the structure, the chunks so far, the levels, the
texts and notes) and then takes, per refresh, an **extent**
(``Extent.since``): the chunks that changed (the tail, and any that closed),
the new texts, the node counts, and, at most every ``LEVELS_S`` seconds,
the levels again.  So a refresh costs what arrived plus, now and then, the
levels (in proportion to the run's length in time, not its events), never
a pass over everything held.

A run shown with ``window_s`` keeps only its last seconds: chunks whose
every event left the store's window are let go (``first_chunk``), and the
page drops them.

Notes (``rlviz.trace.analysis.order_notes``: where a scheduling rule
dominates) are worked out again when decisions arrived, at most every
``NOTES_S`` seconds and no more often than ``NOTES_COST_SHARE`` times what
working them out took, outside the store's lock.
"""
from __future__ import annotations

import itertools
import threading
import time
import zlib
from dataclasses import dataclass, field

import numpy as np

from rlviz.trace import Trace
from rlviz.trace.analysis import node_counts, order_notes
from rlviz.trace.event import Node, with_upstream
from rlviz.trace.pyramid import Pyramid
from rlviz.trace.rows import is_dropped
from rlviz.trace.store import TraceStore
from rlviz.viz.explorer_long import OVERVIEW_DEFLATE_LEVEL, pack_chunk, pyramid_tables, unpack_chunk
from rlviz.viz.explorer_payload import Payload, order_ratio, trace_structure
from rlviz.viz.explorer_stream import (LIVE_UNIT_NS, SAVED_CHUNK_EVENTS, ChunkPart, encode_chunk, gap_marks,
                                       node_calls, start_meta, time_range, time_spans)
from rlviz.viz.gauge_tracks import GaugeLog

__all__ = ["GrowingChunks", "Extent", "LEVELS_S", "LEVELS_BYTES_PER_S", "NOTES_S", "NOTES_COST_SHARE"]

#: The levels of a growing run are worked out again at most this often (seconds) ...
LEVELS_S = 2.0
#: ... and no more often than this many times what working them out took ...
LEVELS_COST_SHARE = 20
#: ... and so that sending them again takes at most this many bytes a second of a page's connection.  The levels
#: of a run grow with its length in time (3.0 MB packed for 10M events over 3 hours on 64 lanes: then every 15 s),
#: so what a zoomed-out page lags behind stays about the same share of the run it shows, 0.14 % at 3 hours.
LEVELS_BYTES_PER_S = 200_000
#: A live page's notes are worked out again at most this often (seconds), when new decisions arrived.
NOTES_S = 3.0
#: ... and no more often than this many times what working them out took (so at most 2% of one core).
NOTES_COST_SHARE = 50

_STREAMS = itertools.count(1)           # growing streams of this process, each named by its number
_COUNTS = ("calls", "items", "not_ready", "errors", "busy_ns")


@dataclass
class Extent:
    """What one page was sent of a growing stream: where its next extent starts."""

    chunks: int = 0                      # chunks the page knows closed (every later one is sent again)
    texts: int = 0
    levels: int = -1                     # the levels' version the page holds
    notes: int = -1
    structure: int = -1
    tracks: int = 0
    seq: int = 0                         # extents sent (the start's counts as one): each extent is numbered


@dataclass
class _Levels:
    """The run's levels as a page takes them: the overview's meta and packed tables, and their version."""

    meta: dict
    packed: bytes
    version: int


@dataclass
class _Tail:
    """The open chunk: the parts that arrived since the last chunk closed, and the spans of their events and
    readings (units since the origin), so its page entry needs no encoding of it."""

    parts: list[ChunkPart] = field(default_factory=list)
    events: int = 0
    readings: int = 0                           # gauge readings
    event_span: tuple[int, int] | None = None
    reading_span: tuple[int, int] | None = None
    calls: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))     # per node (``node_calls``)

    def add(self, part: ChunkPart, origin_ns: int, unit_ns: int) -> None:
        """Append ``part``, counting its events, calls per node and readings, and widening the spans."""
        self.parts.append(part)
        self.events += len(part.columns["node"])
        self.readings += len(part.gauges[0])
        added = np.asarray(node_calls(part.columns["node"]), np.int64)
        if len(added) > len(self.calls):
            self.calls = np.concatenate([self.calls, np.zeros(len(added) - len(self.calls), np.int64)])
        self.calls[:len(added)] += added
        events, readings = time_spans(part.columns, part.gauges, origin_ns, unit_ns)
        self.event_span, self.reading_span = _wider(self.event_span, events), _wider(self.reading_span, readings)


class GrowingChunks:
    """A ``TraceStore`` that grows, as a long page's source: chunks of its arrivals, levels of the whole run.

    Parameters
    ----------
    store : TraceStore
        The growing store; its ``since_ns`` is the page's time origin.
    chunk_events : int, default SAVED_CHUNK_EVENTS
        Events after which the tail chunk closes; it closes too once it holds as many gauge readings (a run
        that records readings and few events would otherwise keep one tail, re-encoded whole, for good).

    Notes
    -----
    ``advance`` is called by one thread (a live view's refresher); ``start``,
    ``chunk`` and ``extent`` may be called from another (a page's message)
    meanwhile: a lock keeps them apart.
    """

    def __init__(self, store: TraceStore, chunk_events: int = SAVED_CHUNK_EVENTS) -> None:
        self.store, self.chunk_events = store, chunk_events
        self.origin_ns, self.unit_ns = store.since_ns, LIVE_UNIT_NS
        self.stream = next(_STREAMS)
        self.lock = threading.RLock()
        self._advancing = threading.Lock()       # one advance at a time (the refresher, or a page after the run)
        self.first_chunk = 0                     # chunks before it left the store's window
        self._closed: list[tuple[dict, bytes] | None] = []    # per closed chunk: its meta and packed tables
        self._tail = _Tail()
        self._tail_payload: Payload | None = None     # the tail encoded, until it changes
        self._dropped, self._gaps = 0, ()
        self._cursor = (0, 0, 0)                 # next id, input pair and decision to take from the store
        self._next_gauge = 0
        self._texts: list[str] = []
        self._pyramid = Pyramid()
        self._lane_names: list[str] = []
        self._node_lane = np.zeros(0, np.int64)
        self._counts = {name: np.zeros(0, np.float64 if name == "busy_ns" else np.int64) for name in _COUNTS}
        self._span = (None, None)                # first start, last end (ns) of every event taken
        self._gauges = GaugeLog()
        self._used: set[int] = set()
        self._structure: dict | None = None
        self._structure_version = 0
        self._levels: _Levels | None = None
        self._levels_due = (0.0, LEVELS_S)       # (when last worked out, seconds until the next)
        self._dirty = False                      # events arrived since the levels were worked out
        self._notes: list[str] = []
        self._notes_version = 0
        self._notes_from = 0                     # decisions taken into the notes
        self._notes_due = (-float("inf"), NOTES_S)

    # -- taking what arrived ---------------------------------------------------
    def advance(self, final: bool = False) -> bool:
        """Take what arrived in the store since the last call; True if anything did.

        ``final`` (the run ended) works the notes and levels out now, however
        recently they were.
        """
        with self._advancing:
            return self._advance(final)

    def _advance(self, final: bool) -> bool:
        decided = self._decided_if_due(final)
        notes = self._notes_of(decided)
        with self.store.lock:
            appended = self.store.since(*self._cursor)
            (name, time_ns, value, _, where), next_gauge = self.store.gauges_since(self._next_gauge)
            producers = self.store.producers(appended.input_id)
            nodes, texts, held_from = list(appended.nodes), appended.texts, self.store.first_id
            dropped, gaps = self.store.dropped, self.store.gaps
        with self.lock:
            changed = bool(len(appended) or len(appended.input_owner) or len(appended.decisions["event"])
                           or len(name) or notes is not None)
            self._cursor = (appended.next_id, appended.next_input, appended.next_decision)
            self._next_gauge = next_gauge
            self._texts, self._dropped, self._gaps = texts, dropped, gaps
            part = ChunkPart(appended.first_id, appended.columns, appended.input_owner, producers,
                             is_dropped(appended.input_id), appended.decisions, [], held_from, dropped,
                             gauges=self._gauges.take(name, time_ns, value, where), gaps=gaps)
            self._count(part, nodes)
            if changed:
                self._add(part)
            self._let_go(held_from)
            if notes is not None:
                self._notes, self._notes_version = notes, self._notes_version + 1
            if final or self._levels_are_due():
                self._work_out_levels()
            return changed

    def _count(self, part: ChunkPart, nodes: list[Node]) -> None:
        """Count the new events per node, per lane and time bucket; note the nodes seen (a new one: new structure)."""
        c = part.columns
        if not len(c["node"]):
            return
        node = c["node"].astype(np.int64)
        fresh = set(np.unique(node).tolist()) - self._used
        if fresh:
            self._used |= fresh
            self._structure = _store_structure(nodes, self._used)
            self._structure_version += 1
        added = node_counts(c, len(nodes))
        for name in _COUNTS:
            grown = np.zeros(len(nodes), self._counts[name].dtype)
            grown[:len(self._counts[name])] = self._counts[name]
            self._counts[name] = grown + added[name]
        lane = self._lanes_of(node, nodes)
        self._pyramid.add(c["start_ns"], node, lane, c["outcome"], c["end_ns"] - c["start_ns"])
        first, last = self._span
        self._span = (min(int(c["start_ns"].min()), first if first is not None else 1 << 62),
                      max(int(c["end_ns"].max()), last if last is not None else 0))
        self._dirty = True

    def _lanes_of(self, node: np.ndarray, nodes: list[Node]) -> np.ndarray:
        """Each node's lane (numbered by first sight of its ``where``), as the source's pyramid counts them."""
        if len(self._node_lane) < len(nodes):
            lanes = []
            for added in nodes[len(self._node_lane):]:
                if added.where not in self._lane_names:
                    self._lane_names.append(added.where)
                lanes.append(self._lane_names.index(added.where))
            self._node_lane = np.append(self._node_lane, np.asarray(lanes, np.int64))
        return self._node_lane[node]

    def _add(self, part: ChunkPart) -> None:
        """Add ``part`` to the tail; close the tail each time it reaches ``chunk_events`` events, and when it holds
        ``chunk_events`` gauge readings."""
        while self._tail.events + len(part.columns["node"]) >= self.chunk_events:
            head, part = _split(part, self.chunk_events - self._tail.events)
            self._tail.add(head, self.origin_ns, self.unit_ns)
            self._close()
        self._tail.add(part, self.origin_ns, self.unit_ns)
        self._tail_payload = None
        if self._tail.readings >= self.chunk_events:
            self._close()

    def _close(self) -> None:
        """Encode the tail once, keep it packed, and open a new one."""
        payload = self._encode(self._tail.parts)
        self._closed.append((payload.meta, pack_chunk(payload.meta, payload.buffers)))
        self._tail, self._tail_payload = _Tail(), None

    def _let_go(self, held_from: int) -> None:
        """Let go of the closed chunks whose every event left the store's window (ids below ``held_from``)."""
        while self.first_chunk < len(self._closed):
            meta = self._closed[self.first_chunk][0]
            if meta["first_id"] + meta["count"] > held_from:
                break
            self._closed[self.first_chunk] = None
            self.first_chunk += 1

    # -- answering pages ---------------------------------------------------------
    def __len__(self) -> int:
        """Chunks so far: the closed ones and the tail."""
        return len(self._closed) + 1

    def chunk(self, k: int, from_part: int | None = None) -> Payload:
        """Chunk ``k`` as a long page takes it (no texts: the start and the extents bring them).

        The tail's meta says which of its parts (one per refresh that brought
        something) it holds: ``parts`` = ``[first, stop)``.  A page that holds
        the tail up to part ``from_part`` gets only the parts after it (a
        piece it appends), so a following page is not sent the whole tail at
        every refresh; a ``from_part`` the tail does not have (it closed
        meanwhile) gets the whole chunk.

        Raises
        ------
        IndexError
            If there is no chunk ``k``, or it left the store's window.
        """
        with self.lock:
            if not self.first_chunk <= k <= len(self._closed):
                raise IndexError(f"chunk {k} is not held: chunks {self.first_chunk}..{len(self._closed)} are")
            if k < len(self._closed):
                meta, packed = self._closed[k]
                return Payload(meta, unpack_chunk(meta, packed))
            if from_part is not None and 0 < from_part <= len(self._tail.parts):
                return self._encode(self._tail.parts[from_part:], parts_range=(from_part, len(self._tail.parts)))
            return self._tail_encoded()

    def start(self, sent: Extent) -> tuple[dict, bytes]:
        """What a page mounts with: the meta of a long trace that grows (``growing``), and its packed levels.

        ``sent`` (a new ``Extent``) is brought up to what the page then holds.

        Returns
        -------
        tuple of (dict, bytes)
            The meta (``explorer_long.long_start``'s keys, ``growing: True``
            and the ``stream``'s number) and the packed overview.
        """
        with self.lock:
            if self._levels is None or self._dirty:
                self._work_out_levels()
            extent, _ = self.extent(sent)
            structure = extent.pop("structure", None) or _store_structure([], set())
            meta = {**start_meta(self.origin_ns, self.unit_ns, extent["dropped"], extent["span_ms"]), **structure,
                    "live": False, "long": True, "growing": True, "stream": self.stream, "chunks": [], **extent}
            meta.pop("detail_from")
            return meta, self._levels.packed

    def extent(self, sent: Extent) -> tuple[dict, list[bytes]]:
        """What page ``sent`` lacks: the chunks from the first that may have changed, and what else changed.

        ``sent`` is brought up to date.  The answer's keys: ``seq`` (this
        extent's number for the page: the start is 1, so a page sees one it
        lost, or one it got twice), ``events`` (ids
        given so far), ``count``, ``span_ms``, ``end`` (units), ``dropped``,
        ``gaps``, ``first_chunk`` (the chunks before it were let go),
        ``detail_from`` and ``detail`` (those chunks' ``first_id``, ``count``,
        ``time_range``; a chunk let go has ``gone``), ``texts_from``
        and ``texts``, ``counts`` (per node: calls, items, not_ready, errors,
        busy_ms), ``orders``; and when they changed ``structure``, ``notes``,
        ``gauge_tracks`` and ``overview`` (its packed tables the one buffer).
        """
        with self.lock:
            sent.seq += 1
            extent = self._facts()
            extent["seq"] = sent.seq
            extent["detail_from"] = sent.chunks
            extent["detail"] = [self._detail_entry(k) for k in range(sent.chunks, len(self))]
            extent["texts_from"], extent["texts"] = sent.texts, self._texts[sent.texts:]
            sent.chunks, sent.texts = len(self._closed), len(self._texts)
            if sent.structure != self._structure_version and self._structure is not None:
                extent["structure"], sent.structure = self._structure, self._structure_version
            if sent.notes != self._notes_version:
                extent["notes"], sent.notes = self._notes, self._notes_version
            if sent.tracks != len(self._gauges.keys):
                extent["gauge_tracks"], sent.tracks = self._gauges.keys, len(self._gauges.keys)
            buffers = []
            if self._levels is not None and sent.levels != self._levels.version:
                extent["overview"], sent.levels = self._levels.meta, self._levels.version
                buffers.append(self._levels.packed)
            return extent, buffers

    def _end_units(self) -> float:
        """The run's last end so far, in time units since the origin."""
        last = self._span[1]
        return (last - self.origin_ns) / self.unit_ns if last is not None else 0.0

    def _facts(self) -> dict:
        """The run's numbers every extent carries."""
        end = self._end_units()
        structure = self._structure or _store_structure([], set())
        counts = self._counts
        orders = [{**strip, "groups": [{**group, "items": int(counts["items"][group["node"]])}
                                       for group in strip["groups"]]} for strip in structure["orders"]]
        for strip in orders:
            strip["ratio"] = order_ratio([group["items"] for group in strip["groups"]])
        return {"events": self._cursor[0], "count": self._cursor[0], "end": end, "first_chunk": self.first_chunk,
                "span_ms": end * self.unit_ns / 1e6, "dropped": self._dropped,
                "gaps": gap_marks(self._gaps, self.origin_ns, self.unit_ns),
                "counts": {"calls": counts["calls"].tolist(), "items": counts["items"].tolist(),
                           "not_ready": counts["not_ready"].tolist(), "errors": counts["errors"].tolist(),
                           "busy_ms": (counts["busy_ns"] / 1e6).tolist()},
                "orders": orders, "order": orders[-1] if orders else None}

    def _detail_entry(self, k: int) -> dict:
        """What a page needs to know of chunk ``k`` to ask for it (``first_id``, ``count``, ``time_range``) and to
        find a node's k-th call of the run without it (``calls``: per node, its calls in the chunk)."""
        if k < self.first_chunk:
            return {"first_id": 0, "count": 0, "time_range": [0, 0], "calls": [], "gone": True}
        if k < len(self._closed):
            meta = self._closed[k][0]
            return {"first_id": meta["first_id"], "count": meta["count"], "time_range": meta["time_range"],
                    "calls": meta["calls"]}
        tail = self._tail
        first_id = tail.parts[0].first_id if tail.parts else self._cursor[0]
        if not tail.events and not tail.readings:           # an empty tail sits at the run's end
            end = int(self._end_units())
            return {"first_id": first_id, "count": 0, "time_range": [end, end], "calls": []}
        return {"first_id": first_id, "count": tail.events, "time_range": time_range(tail.event_span, tail.reading_span),
                "calls": tail.calls.tolist()}

    def _tail_encoded(self) -> Payload:
        """The open chunk encoded (kept until more arrives)."""
        if self._tail_payload is None:
            self._tail_payload = self._encode(self._tail.parts, parts_range=(0, len(self._tail.parts)))
        return self._tail_payload

    def _encode(self, parts: list[ChunkPart], parts_range: tuple[int, int] | None = None) -> Payload:
        """One chunk of ``parts`` (consecutive arrivals; none: nothing new) as the stream carries it, with the
        gauge readings in force at its first start; its texts and gauge tracks are left to the meta, and a piece
        of the tail says which of its parts it holds (``parts_range``)."""
        part = _joined(parts) if parts else _empty_part(self._cursor[0])
        starts = part.columns["start_ns"]
        if len(starts):
            part.gauges_before = self._gauges.before(int(starts.min()))
        payload = encode_chunk(part, self.origin_ns, self.unit_ns)
        payload.meta.pop("gauge_tracks", None)
        if parts_range is not None:
            payload.meta["parts"] = list(parts_range)
        return payload

    # -- levels and notes ----------------------------------------------------------
    def _levels_are_due(self) -> bool:
        """Events arrived since the levels were worked out, and ``LEVELS_S`` (or their cost in time or bytes) has
        passed since, or the levels have no events yet (a page's first events are drawn at once)."""
        when, every = self._levels_due
        first = self._levels is None or not self._levels.meta["levels"]
        return self._dirty and (first or time.monotonic() - when >= every)

    def _work_out_levels(self) -> None:
        """The overview of the whole run from the source's pyramid and gauge log (``explorer_long``'s tables)."""
        began = time.monotonic()
        structure = self._structure or _store_structure([], set())
        first, last = self._span
        lanes = structure["lanes"]
        rows = [self._lane_names.index(lane["name"]) if lane["name"] in self._lane_names else 0 for lane in lanes]
        gauges = self._gauges.tracks(np.zeros(0, np.int64)) if self._gauges.keys else None
        span = (first, last + 1) if first is not None else (0, 1)
        overview, tables = pyramid_tables(self._pyramid, rows, [lane["nodes"] for lane in lanes], span,
                                          self.origin_ns, self.unit_ns, gauges)
        packed = zlib.compress(tables, OVERVIEW_DEFLATE_LEVEL)
        version = self._levels.version + 1 if self._levels is not None else 0
        self._levels = _Levels({**overview, "packed": len(packed)}, packed, version)
        self._dirty = False
        now = time.monotonic()
        self._levels_due = (now, max(LEVELS_S, LEVELS_COST_SHARE * (now - began), len(packed) / LEVELS_BYTES_PER_S))

    def _decided_if_due(self, now: bool) -> Trace | None:
        """The store's decided events when the notes are due (decisions arrived, ``NOTES_S`` passed), else None."""
        decisions = self.store.decision_count
        when, every = self._notes_due
        if decisions == self._notes_from or not (now or time.monotonic() - when >= every):
            return None
        self._notes_from = decisions
        return self.store.decided()

    def _notes_of(self, decided: Trace | None) -> list[str] | None:
        """The notes of ``decided`` when they differ from the last, else None; times the work to space the next."""
        if decided is None:
            return None
        began = time.monotonic()
        notes = order_notes(decided)
        now = time.monotonic()
        self._notes_due = (now, max(NOTES_S, NOTES_COST_SHARE * (now - began)))
        return None if notes == self._notes else notes


# -- helpers ----------------------------------------------------------------
def _joined(parts: list[ChunkPart]) -> ChunkPart:
    """Consecutive parts (each starting where the one before stopped) as one."""
    if len(parts) == 1:
        return parts[0]
    first, last = parts[0], parts[-1]

    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(arrays)

    columns = {name: cat([p.columns[name] for p in parts]) for name in first.columns}
    decisions = {name: cat([p.decisions[name] for p in parts]) for name in first.decisions}
    gauges = tuple(cat([p.gauges[k] for p in parts]) for k in range(3))
    return ChunkPart(first.first_id, columns, cat([p.consumers for p in parts]), cat([p.producers for p in parts]),
                     cat([p.dropped for p in parts]), decisions, [], last.held_from, last.dropped_events,
                     gauges=gauges, gaps=last.gaps)


def _split(part: ChunkPart, events: int) -> tuple[ChunkPart, ChunkPart]:
    """``part``'s first ``events`` events (with their links, decisions, and the links of earlier events), and the rest.

    The gauge readings stay with the first piece (they arrived with it)."""
    cut = part.first_id + events
    head_links = part.consumers < cut
    head_decided = part.decisions["event"] < cut

    def piece(first_id: int, rows: slice, links: np.ndarray, decided: np.ndarray, gauges: tuple) -> ChunkPart:
        return ChunkPart(first_id, {name: values[rows] for name, values in part.columns.items()},
                         part.consumers[links], part.producers[links], part.dropped[links],
                         {name: values[decided] for name, values in part.decisions.items()}, [], part.held_from,
                         part.dropped_events, gauges=gauges, gaps=part.gaps)

    no_readings = tuple(values[:0] for values in part.gauges)
    return (piece(part.first_id, slice(0, events), head_links, head_decided, part.gauges),
            piece(cut, slice(events, None), ~head_links, ~head_decided, no_readings))


def _wider(span: tuple[int, int] | None, other: tuple[int, int] | None) -> tuple[int, int] | None:
    """The smallest span holding both (either may be None: none)."""
    if span is None or other is None:
        return span or other
    return min(span[0], other[0]), max(span[1], other[1])


def _empty_part(first_id: int) -> ChunkPart:
    """A chunk of no events yet (a run that has not recorded anything)."""
    columns = {"start_ns": np.zeros(0, np.int64), "end_ns": np.zeros(0, np.int64), "node": np.zeros(0, np.int32),
               "outcome": np.zeros(0, np.uint8), "item_kind": np.zeros(0, np.uint8), "item_num": np.zeros(0, np.int64)}
    none = np.zeros(0, np.int64)
    return ChunkPart(first_id, columns, none, none, np.zeros(0, bool), {"event": none}, [], first_id, 0,
                     gauges=(np.zeros(0, "<u4"), none, np.zeros(0)))


def _store_structure(nodes: list[Node], used: set[int]) -> dict:
    """Lanes, nodes (in the store's node order), layout and order strip of the nodes ``used`` and those upstream.

    The store knows every node this process ever registered (earlier plans
    of a long-lived kernel included): only the nodes with events and those
    upstream of them are laid out; the others stay in the list, so node
    indices keep matching the store's, marked ``hidden``.
    """
    used_nodes = sorted(i for i in used if i < len(nodes))
    shown = with_upstream(used_nodes, nodes)
    columns = {name: np.zeros(len(used_nodes), dtype) for name, dtype in
               {"node": np.int32, "pid": np.int64, "start_ns": np.int64, "end_ns": np.int64,
                "outcome": np.uint8, "item_kind": np.uint8, "item_num": np.int64, "item_id": np.int64}.items()}
    columns["node"][:] = [shown.index(i) for i in used_nodes]
    columns["item_id"][:] = -1
    columns["input_offsets"] = np.zeros(len(used_nodes) + 1, np.int64)
    columns["input_ids"] = np.zeros(0, np.int64)
    structure = trace_structure(Trace([nodes[i] for i in shown], columns))
    return _in_store_order(structure, shown, nodes)


def _in_store_order(structure: dict, shown: list[int], nodes: list) -> dict:
    """``structure`` (of the ``shown`` nodes) with every node index turned into the store's; others hidden."""
    full = [{"op": node.op, "label": node.label, "where": node.where, "details": node.to_dict().get("details", {}),
             "short": node.op, "color": "#cccccc", "column": 0, "row": 0.0, "x": 0, "y": 0, "w": 0, "h": 0,
             "calls": 0, "items": 0, "not_ready": 0, "errors": 0, "busy_ms": 0.0,
             "restart": False, "hidden": True} for node in nodes]
    for j, entry in enumerate(structure["nodes"]):
        full[shown[j]] = entry

    def strip(order: dict) -> dict:
        return {**order, "node": shown[order["node"]],
                "groups": [{**group, "node": shown[group["node"]]} for group in order["groups"]]}

    orders = [strip(order) for order in structure["orders"]]
    return {**structure, "nodes": full,
            "edges": [[shown[u], shown[v], count, back] for u, v, count, back in structure["edges"]],
            "lanes": [{**lane, "nodes": [shown[j] for j in lane["nodes"]]} for lane in structure["lanes"]],
            "orders": orders, "order": orders[-1] if orders else None}
