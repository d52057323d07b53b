"""``Ingest``: a ``TraceStore``'s one decoder of recorders' rows into its held events, links, decisions and gauges.

Each recorder's rows arrive as chunks (``rlviz.trace.rows``), whole or as
the growing copy of a chunk still open.  This part keeps, per recorder (a
``Source``), its node and text maps into the store's tables and its drop
count, and per chunk (a ``ChunkState``) how many rows it took, so a chunk
seen again adds only its new rows.  Events get the next store ids; the
continuation and decision rows after an event belong to it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlviz.trace.event import Node, NodeTable
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import GaugeParts
from rlviz.trace.held_events import NO_ITEM, NO_READING, HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK, TextTable
from rlviz.trace.rows import (AFTER_PREVIOUS, FIELDS, HEADER, ITEM, RELEASED, input_id, kind_of, outcome_of,
                              split_decisions, split_gauges)

__all__ = ["Ingest", "Source", "ChunkState"]

_ROW_BYTES = FIELDS * 8


@dataclass
class ChunkState:
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
class Source:
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
    readings_from: int = NO_READING                           # its older gauge readings left (``Eviction``)


class Ingest:
    """Rows to held events: the sources, the chunks taken, and the decoding of new rows.

    ``sources`` maps ``(tag, pid)`` to a ``Source``; ``chunks`` maps a
    chunk's key (its first item id, unique across processes) to the
    ``ChunkState`` of a chunk held.
    """

    def __init__(self, events: HeldEvents, links: HeldLinks, gauges: GaugeParts, nodes: NodeTable,
                 texts: TextTable, since_ns: int) -> None:
        self.events, self.links, self.gauges = events, links, gauges
        self.node_table, self.texts, self.since_ns = nodes, texts, since_ns
        self.sources: dict[tuple, Source] = {}
        self.chunks: dict[int, ChunkState] = {}
        self._dead_chunks: set[int] = set()
        self._chunk_count = 0                       # chunks ever taken: the next one's index
        self._keys: np.ndarray | None = None        # sorted chunk keys, for finding a value's producer

    # -- sources -----------------------------------------------------------------
    def source(self, export: dict, texts_from: int = 0) -> Source:
        """The ``Source`` of an export or increment, brought up to date with it (drops, gap, nodes, texts)."""
        key = (export["tag"], export["pid"])
        source = self.sources.get(key)
        if source is None:
            source = self.sources[key] = Source(pid=int(export["pid"]))
        source.dropped = int(export.get("dropped", 0))
        source.where = str(export.get("where", ""))
        source.gap_ns = tuple(export["gap_ns"]) if export.get("gap_ns") else None
        source.offset_ns = int(export.get("offset_ns", 0))
        source.nodes = [self.node_table.add(Node.from_dict(data)) for data in export["nodes"]]
        known = len(source.texts) - texts_from       # texts of this answer already mapped
        for text in export["texts"][max(known, 0):]:
            source.texts.append(self.texts.intern(text))
        return source

    @property
    def dropped(self) -> int:
        """Events the processes' bounded recorders evicted (their latest counts, summed)."""
        return sum(source.dropped for source in self.sources.values())

    def lost(self) -> dict[tuple, int]:
        """Per source (by key), the events its recorder evicted that the spill file does not hold."""
        return {key: max(source.dropped - source.spilled, 0) for key, source in self.sources.items()}

    def gaps(self, counts: dict[tuple, int] | None = None) -> tuple[Gap, ...]:
        """One ``Gap`` per source with a count above 0 in ``counts`` (by source key; None: each source's
        ``dropped``) and a known span."""
        if counts is None:
            counts = {key: source.dropped for key, source in self.sources.items()}
        gaps = [Gap(source.where, max(source.gap_ns[0] + source.offset_ns, self.since_ns),
                    max(source.gap_ns[1] + source.offset_ns, self.since_ns), counts[key])
                for key, source in self.sources.items() if counts[key] > 0 and source.gap_ns is not None]
        return tuple(sorted(gaps))

    # -- chunks ------------------------------------------------------------------
    def add_rows(self, source: Source, parts: list[bytes]) -> tuple[int, list[int]]:
        """Add the rows of ``parts`` (each whole chunks, opened by their headers) not taken before.

        Returns how many events were added and the keys of the chunks listed, in order.
        """
        seen, added = [], 0
        for data in parts:
            if not self.taken_whole(data, seen):
                added += self._add_chunks(source, data, seen)
        return added, seen

    def taken_whole(self, data: bytes | bytearray | memoryview, seen: list[int]) -> bool:
        """True (its key noted in ``seen``) if ``data`` is exactly one chunk whose every row the store took.

        A part holding more chunks is longer than its first chunk's rows, so it is never mistaken for one.
        """
        if len(data) < _ROW_BYTES:
            return not data
        head = np.frombuffer(data, dtype=np.int64, count=len(data) // 8)
        chunk = self.chunks.get(int(head[2]))
        rows = head[2 * FIELDS - 1] if len(head) == 2 * FIELDS and head[FIELDS] == RELEASED else len(head) // FIELDS - 1
        if head[0] != HEADER or chunk is None or chunk.rows != rows:
            return False
        seen.append(int(head[2]))
        return True

    def forget(self, source: Source, keys: list[int]) -> list[ChunkState]:
        """``source``'s recorder evicted the chunks ``keys``: stop holding them (rows seen again stay out); return
        what was taken of each."""
        chunks = []
        for key in keys:
            chunks.append(self.chunks.pop(key))
            source.chunk_keys.discard(key)
            self._dead_chunks.add(key)
        self._keys = None
        return chunks

    def producers(self, item_ids: np.ndarray) -> np.ndarray:
        """The store id of the event that produced each value in ``item_ids`` (-1 where it is not held)."""
        if self._keys is None:
            self._keys = np.array(sorted(self.chunks), np.int64)
        item_ids = input_id(np.asarray(item_ids, np.int64))
        slots = np.searchsorted(self._keys, item_ids, side="right") - 1
        found = np.full(len(item_ids), -1, np.int64)
        for slot in np.unique(slots[slots >= 0]).tolist():
            key = int(self._keys[slot])
            asked = np.flatnonzero(slots == slot)
            chunk = self.chunks[key]
            by_rank = (self.events.items_of(chunk.index, chunk.first_kept, chunk.last_kept) if chunk.first_kept >= 0
                       else np.zeros(0, np.int64))
            rank = item_ids[asked] - key
            inside = rank < len(by_rank)
            found[asked[inside]] = by_rank[rank[inside]]
        found[found < self.events.first_id] = -1
        return found

    def _add_chunks(self, source: Source, data: bytes, seen: list[int]) -> int:
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
            chunk = self.chunks.get(key)
            if chunk is None:
                chunk = self.chunks[key] = ChunkState(index=self._chunk_count)
                self.events.add_chunk(key, source.pid)
                self._chunk_count += 1
                source.chunk_keys.add(key)
                self._keys = None
            if len(body) > chunk.rows:
                added += self._take(source, chunk, int(rows[at, 1]), body[chunk.rows:])
                chunk.rows = len(body)
        return added

    def _take(self, source: Source, chunk: ChunkState, node: int, rows: np.ndarray) -> int:
        """Append the new rows of one chunk: events get the next ids; continuation and decision rows belong
        to the event before them."""
        rows, gauge_rows = split_gauges(rows)
        self._add_gauges(source, chunk.index, gauge_rows)
        rows, decision_owner, decision_rows = split_decisions(rows)
        is_event = rows[:, 0] >= 0
        events = rows[is_event]
        is_item = outcome_of(events[:, 2]) == ITEM
        rank = np.where(is_item, chunk.items + np.cumsum(is_item) - 1, NO_ITEM)
        chunk.items += int(is_item.sum())
        keep = events[:, 0] + source.offset_ns >= self.since_ns
        n_kept = int(keep.sum())
        ids = np.full(len(events), -1, np.int64)
        ids[keep] = np.arange(self.events.next_id, self.events.next_id + n_kept)
        owner_of_row = np.cumsum(is_event) - 1            # -1: continuation rows of the event taken before
        row_owner = np.append(ids, chunk.last_event)[owner_of_row]     # index -1 reads the event taken before
        decided = np.full(len(decision_owner), -1, np.int64)           # the id of each decision's event
        decided[decision_owner == AFTER_PREVIOUS] = chunk.last_event
        inside = decision_owner >= 0
        decided[inside] = ids[decision_owner[inside]]
        chunk.decisions += self.links.add_decisions(decided, decision_rows, source.nodes, self.events.first_id)
        if len(events):
            chunk.last_event = int(ids[-1])
            chunk.keep(ids[keep])
        chunk.links += self.links.add_inputs(rows, is_event, row_owner, self.events.first_id)
        if n_kept:
            self._append_events(source, events[keep], rank[keep], node, chunk.index)
        return n_kept

    def _add_gauges(self, source: Source, chunk_index: int, rows: np.ndarray) -> None:
        """Keep gauge rows, their name and lane texts mapped to the store's table; note the chunk's latest reading."""
        if not len(rows):
            return
        rows = rows.copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        rows[:, 3:5] = text_map[np.minimum(rows[:, 3:5], len(text_map) - 1)]
        self.gauges.add(rows, source.pid, self.texts.texts, source.offset_ns, self.since_ns)
        self.events.note_reading(chunk_index, int(rows[:, 1].max()) + source.offset_ns)

    def _append_events(self, source: Source, events: np.ndarray, rank: np.ndarray, node: int,
                       chunk_index: int) -> None:
        """Append event rows of one chunk, their texts and node mapped to the store's tables, on the driver's clock."""
        kind = kind_of(events[:, 2])
        number = events[:, 3].copy()
        text_map = np.asarray(source.texts or [0], np.int64)
        is_text = kind == KIND_TEXT
        number[is_text] = text_map[np.minimum(number[is_text], len(text_map) - 1)]
        is_sized = kind == KIND_SIZED
        names = np.minimum(number[is_sized] & SIZED_NAME_MASK, len(text_map) - 1)
        number[is_sized] = (number[is_sized] & ~SIZED_NAME_MASK) | text_map[names]
        node_index = source.nodes[node] if node < len(source.nodes) else 0
        self.events.append(events[:, 0] + source.offset_ns, events[:, 1] + source.offset_ns, node_index,
                           events[:, 2], number, chunk_index, rank)
