"""The Explorer's one wire format: a trace as chunks of events, each a small JSON meta and Arrow tables.

A page mounts with the structure (nodes, lanes, graph layout, order strip,
each union's children and weights, the time origin and unit) and takes
chunks of events, each one a ``Payload``: a small JSON meta and the chunk's
tables, each an Apache Arrow IPC stream (``rlviz.viz.chunk_tables`` declares
them; the meta's ``tables`` lists them, with their rows and bytes).
``encode_chunk`` writes one from a ``ChunkPart``.  A finished ``Trace`` is
cut by start into chunks of ``SAVED_CHUNK_EVENTS`` (``TraceChunks``; ids are
positions), a watched run's store by arrival (``rlviz.viz.growing_chunks``;
ids are the store's); every page feeds the chunks its window needs through
the same decoder into the same model (``rlviz.viz.explorer_long``).

What one chunk carries, by event id:

* the events from ``first_id`` on: ``start`` (after the chunk's own
  ``time_base``, so hours or days into a run keep full precision in 32
  bits; float64 when a chunk spans more than 2**32 units: times are never
  clamped), ``duration``, ``node``, ``flags`` (outcome | item kind << 2),
  ``item`` (int32, or float64 values);
* their links: ``input_count`` per event and ``inputs`` (producer ids),
  ``input_dropped`` where a consumer dropped the value, and ``late_consumer``
  / ``late_producer`` for inputs of events of an earlier chunk;
* the scheduling decisions that explain them: ``decision_event`` and the
  fields of ``rlviz.trace.rows.DECISION_ROW_FIELDS`` (``decision_union``, ...);
* gauge readings (``rlviz.trace.gauges``): ``gauge_track`` (an index into
  the stream's tracks, each a ``[name, where]`` pair), ``gauge_time`` (units
  since the origin, float64) and ``gauge_value`` (float64).  A saved trace's
  chunk carries the readings taken from its first start up to the next
  chunk's (``rlviz.viz.gauge_tracks``), a growing run's those that arrived
  with its events; and ``gauge_before_track``, ``gauge_before_time``,
  ``gauge_before_value``: per track read earlier, the reading in force when
  it starts, which a page takes only for a track that holds no reading yet
  (one that loads a part of the chunks).

``dropped`` counts the events the processes' bounded recorders evicted, and
``gaps`` says where they lay: per process that dropped some, its lane
(``where``), ``from`` and ``to`` (units since the origin) and ``dropped``.
``time_range`` (first start, last end, in units since the origin) addresses
a chunk by time.  ``encode_trace`` (a whole trace's chunks at once, the
stream replayed) gives its last chunk the trace's notes
(``rlviz.trace.analysis.order_notes``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlviz.checks import check_int
from rlviz.trace import Trace
from rlviz.trace.analysis import order_notes
from rlviz.trace.gaps import Gap
from rlviz.trace.items import KIND_FLOAT, KIND_INT, KIND_TEXT
from rlviz.trace.rows import DECISION_ROW_FIELDS
from rlviz.viz.chunk_tables import narrowest_uint, write_chunk_tables
from rlviz.viz.explorer_payload import FORMAT_VERSION, Payload, trace_structure
from rlviz.viz.gauge_tracks import GaugeTracks

__all__ = ["ChunkPart", "TraceChunks", "encode_trace", "encode_chunk", "node_calls", "start_meta", "gap_marks",
           "time_spans", "time_range", "LIVE_UNIT_NS", "SAVED_CHUNK_EVENTS"]

#: Time unit of a live page's columns: 1 microsecond.
LIVE_UNIT_NS = 1_000
#: Events per chunk of a saved trace.
SAVED_CHUNK_EVENTS = 1 << 16
_UNITS_NS = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
_UINT32_MAX = (1 << 32) - 1
_INT32 = np.iinfo(np.int32)
_EVENT_COLUMNS = ("start_ns", "end_ns", "node", "outcome", "item_kind", "item_num")   # what a chunk reads of a trace


@dataclass
class ChunkPart:
    """What one chunk carries, before encoding: events from ``first_id``, their links and decisions, by id."""

    first_id: int
    columns: dict[str, np.ndarray]          # start_ns, end_ns, node, outcome, item_kind, item_num
    consumers: np.ndarray                   # ids, each link once; producers -1 where not held
    producers: np.ndarray
    dropped: np.ndarray
    decisions: dict[str, np.ndarray]        # "event" ids and DECISION_ROW_FIELDS
    texts: list[str]                        # the texts new since the previous chunk
    held_from: int
    dropped_events: int
    huge_texts: dict[int, int] | None = None   # ints beyond float64's exact range -> their text's index
    gauges: tuple = ()                      # readings: track number, time_ns, value columns (empty: none)
    gauge_tracks: tuple = ()                # the tracks these readings open, each [name, where]
    gauges_before: tuple = ()               # per track read before the chunk, the reading in force (saved: see above)
    gaps: tuple[Gap, ...] = ()              # where each process's dropped events lay


class TraceChunks:
    """A finished trace as the chunks of its stream, each encoded when asked for.

    ``encode_trace`` encodes every chunk; a long trace's page
    (``rlviz.viz.explorer_long``) gets only those its window needs.  Chunk
    ``k`` holds the events at positions ``k * chunk_events`` on (a trace is
    in start order, so each chunk covers one time range; ids are positions).

    Parameters
    ----------
    trace : Trace
        The finished trace.
    chunk_events : int, default SAVED_CHUNK_EVENTS
        Events per chunk.

    Attributes
    ----------
    meta : dict
        The stream's start meta (structure, origin, unit; ``chunks`` empty).
    origin_ns, unit_ns : int
        The page's time origin (the first start, or an earlier gap's) and unit.

    Raises
    ------
    ValueError
        If ``chunk_events`` is below 1.
    """

    def __init__(self, trace: Trace, chunk_events: int = SAVED_CHUNK_EVENTS) -> None:
        check_int("chunk_events", chunk_events, minimum=1)
        self.trace, self.chunk_events = trace, chunk_events
        c = trace.columns
        self.origin_ns = min([trace.start_ns, *(gap.start_ns for gap in trace.gaps)]) if len(trace) else 0
        span = int(c["end_ns"].max() - self.origin_ns) if len(trace) else 0
        self.unit_ns = next((u for u in _UNITS_NS if span // u <= _UINT32_MAX), _UNITS_NS[-1])
        self.meta = {**start_meta(self.origin_ns, self.unit_ns, trace.dropped, span / 1e6), "live": False,
                     "count": len(trace), **trace_structure(trace), "chunks": []}
        self._shared: tuple | None = None           # links and decisions: worked out when a chunk is first asked for
        self._text_table: tuple | None = None       # huge ints' texts and every text: worked out when first asked for
        self._gauges: GaugeTracks | None = None      # the gauge readings cut along the chunks: when first asked for

    def __len__(self) -> int:
        return len(range(0, len(self.trace) or (1 if self.trace.gauges else 0), self.chunk_events))   # gauges alone: one

    @property
    def texts(self) -> list[str]:
        """Every text the chunks' items name (the first chunk brings them), ints past float64's exact range included."""
        return self._texts()[1]

    def time_ranges(self) -> np.ndarray:
        """Per chunk, its first start and last end in units since the origin (its meta's ``time_range``), as k x 2."""
        c = self.trace.columns
        firsts = np.arange(0, len(self.trace), self.chunk_events)
        if not len(firsts):
            return np.zeros((len(self), 2), np.int64)
        start = np.maximum((c["start_ns"][firsts] - self.origin_ns) // self.unit_ns, 0)
        ends = np.maximum(np.maximum.reduceat(c["end_ns"], firsts), np.maximum.reduceat(c["start_ns"], firsts))
        return np.stack([start, np.maximum((ends - self.origin_ns) // self.unit_ns, start)], axis=1)

    @property
    def gauges(self) -> GaugeTracks:
        """The trace's gauge readings as tracks, numbered for the whole stream and cut along its chunks."""
        if self._gauges is None:
            firsts = np.arange(self.chunk_events, len(self.trace), self.chunk_events)
            self._gauges = GaugeTracks(self.trace.gauges, self.trace.columns["start_ns"][firsts])
        return self._gauges

    def chunk(self, k: int) -> Payload:
        """Chunk ``k`` encoded (``seq`` = ``k``); the first brings every text, each the gauge readings of its time."""
        first = k * self.chunk_events
        if not 0 <= k < len(self):
            raise IndexError(f"chunk {k} is not in this stream of {len(self)} chunks")
        c = self.trace.columns
        links, decisions = self._links()
        huge_texts, texts = self._texts()
        producers, consumers = links
        last = min(first + self.chunk_events, len(self.trace))
        lo, hi = np.searchsorted(consumers, [first, last])
        mine = slice(*np.searchsorted(decisions["event"], [first, last]))
        *readings, opened = self.gauges.chunk(k)
        part = ChunkPart(first, {name: c[name][first:last] for name in _EVENT_COLUMNS}, consumers[lo:hi],
                     producers[lo:hi], links.dropped[lo:hi], {key: v[mine] for key, v in decisions.items()},
                     texts if first == 0 else [], 0, self.trace.dropped, huge_texts, tuple(readings), tuple(opened),
                     self.gauges.before(k), self.trace.gaps)
        chunk = encode_chunk(part, self.origin_ns, self.unit_ns)
        chunk.meta["seq"] = k
        return chunk

    def _links(self) -> tuple:
        """The trace's links and decisions, which every chunk reads from: worked out once, when first needed."""
        if self._shared is None:
            self._shared = (self.trace.links(), _trace_decisions(self.trace))
        return self._shared

    def _texts(self) -> tuple[dict[int, int], list[str]]:
        """Ints past float64's exact range -> the index of their text, and every text (the trace's, then theirs)."""
        if self._text_table is None:
            c = self.trace.columns
            huge = sorted(set(c["item_num"][_huge_ints(c)].tolist()))
            self._text_table = ({value: len(self.trace.texts) + k for k, value in enumerate(huge)},
                                [*self.trace.texts, *(f"int {value}" for value in huge)])
        return self._text_table


def encode_trace(trace: Trace, chunk_events: int = SAVED_CHUNK_EVENTS) -> Payload:
    """Encode a finished ``trace`` as the stream a page replays: the start meta, then its chunks.

    The chunks are the live format's, cut every ``chunk_events`` events (in
    start order, so each covers one time range: ``TraceChunks``);
    ``meta["chunks"]`` lists their metas and ``buffers`` holds their buffers,
    chunk after chunk.

    Parameters
    ----------
    trace : Trace
        The trace to encode.
    chunk_events : int, default SAVED_CHUNK_EVENTS
        Events per chunk.

    Returns
    -------
    Payload

    Raises
    ------
    ValueError
        If ``chunk_events`` is below 1.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> payload = encode_trace(sharded_trace())
    >>> payload.meta["count"], payload.meta["unit_ns"], len(payload.meta["chunks"])
    (81, 1, 1)
    """
    chunks = TraceChunks(trace, chunk_events)
    meta = {**chunks.meta, "chunks": []}
    buffers: list[bytes] = []
    for k in range(len(chunks)):
        chunk = chunks.chunk(k)
        meta["chunks"].append(chunk.meta)
        buffers.extend(chunk.buffers)
    notes = order_notes(trace)
    if notes and meta["chunks"]:
        meta["chunks"][-1]["notes"] = notes            # as of the trace's end, as a live page gets them last
    return Payload(meta, buffers)


def encode_chunk(part: ChunkPart, origin_ns: int, unit_ns: int) -> Payload:
    """One chunk of the stream: ``part``'s events, links, decisions and gauge readings as the Arrow tables of
    ``rlviz.viz.chunk_tables``, times in ``unit_ns``."""
    c = part.columns
    start = np.maximum((c["start_ns"] - origin_ns) // unit_ns, 0)
    end = np.maximum((c["end_ns"] - origin_ns) // unit_ns, start)
    time_base = int(start.min()) if len(start) else 0
    item, kinds = _items(c, part.huge_texts)
    linked = part.producers >= 0
    consumers, producers, dropped = part.consumers[linked], part.producers[linked], part.dropped[linked]
    inside = consumers >= part.first_id
    order = np.argsort(consumers[inside], kind="stable")
    counts = np.bincount(consumers[inside] - part.first_id, minlength=len(start))
    columns = {
        "start": _narrowest_time(start - time_base), "duration": _narrowest_time(end - start),
        "node": narrowest_uint(c["node"]), "flags": (c["outcome"].astype(np.uint8) | (kinds << 2)).astype("<u1"),
        "item": item, "input_count": narrowest_uint(counts), "inputs": producers[inside][order].astype("<u4"),
    }
    if dropped.any():
        columns["input_dropped"] = dropped[inside][order].astype("<u1")
    if not inside.all():
        columns["late_consumer"] = consumers[~inside].astype("<u4")
        columns["late_producer"] = producers[~inside].astype("<u4")
        columns["late_dropped"] = dropped[~inside].astype("<u1")
    if len(part.decisions["event"]):
        columns["decision_event"] = part.decisions["event"].astype("<u4")
        for name in DECISION_ROW_FIELDS:
            columns[f"decision_{name}"] = narrowest_uint(part.decisions[name])
    _gauge_columns(columns, "gauge", part.gauges, origin_ns, unit_ns)
    _gauge_columns(columns, "gauge_before", part.gauges_before, origin_ns, unit_ns)
    tables, buffers = write_chunk_tables(columns)
    meta = {"first_id": part.first_id, "count": len(start), "held_from": part.held_from, "time_base": time_base,
            "time_range": time_range(*time_spans(c, part.gauges, origin_ns, unit_ns)), "texts": part.texts,
            "dropped": part.dropped_events, "gaps": gap_marks(part.gaps, origin_ns, unit_ns), "tables": tables,
            "calls": node_calls(c["node"])}
    if part.gauge_tracks:
        meta["gauge_tracks"] = list(part.gauge_tracks)
    return Payload(meta, buffers)


def node_calls(nodes: np.ndarray) -> list[int]:
    """How many calls each node makes among events of nodes ``nodes`` (index: node; nodes past the last one called
    are left out): a chunk's meta carries it, so a diff page finds a run's k-th call of a node among chunks it has
    not loaded (``counterpart`` in explorer_diff.js)."""
    return np.bincount(np.asarray(nodes, np.int64)).tolist() if len(nodes) else []


def time_spans(columns: dict, readings: tuple, origin_ns: int, unit_ns: int) -> tuple:
    """The spans, in units since the origin, of a chunk's events (first start, last end) and of its gauge readings
    (first, last), each None when it has none: what its ``time_range`` is made of."""
    start = np.maximum((columns["start_ns"] - origin_ns) // unit_ns, 0)
    end = np.maximum((columns["end_ns"] - origin_ns) // unit_ns, start)
    events = (int(start.min()), int(end.max())) if len(start) else None
    if not readings or not len(readings[0]):
        return events, None
    times = np.maximum((np.asarray(readings[1], np.int64) - origin_ns) // unit_ns, 0)
    return events, (int(times.min()), int(times.max()))


def time_range(events: tuple | None, readings: tuple | None) -> list[int]:
    """A chunk's ``time_range`` from its ``time_spans``: its events' span, or for a chunk of gauge readings and no
    event (a growing run's), its readings'; [0, 0] for an empty one."""
    return list(events or readings or (0, 0))


def _gauge_columns(columns: dict, prefix: str, readings: tuple, origin_ns: int, unit_ns: int) -> None:
    """Add ``readings`` (track number, time_ns, value) to ``columns`` as ``<prefix>_track``, ``_time`` (units since
    the origin, floored as event times are) and ``_value``, when there are any."""
    if not readings or not len(readings[0]):
        return
    track, time_ns, value = readings
    columns[f"{prefix}_track"] = np.asarray(track, "<u4")
    columns[f"{prefix}_time"] = ((np.asarray(time_ns, np.int64) - origin_ns) // unit_ns).astype("<f8")
    columns[f"{prefix}_value"] = np.asarray(value, "<f8")


def gap_marks(gaps: tuple[Gap, ...], origin_ns: int, unit_ns: int) -> list[dict]:
    """Each process's gap as the page marks it: its lane, ``from`` and ``to`` (units since the origin), ``dropped``."""
    return [{"where": gap.where, "from": (gap.start_ns - origin_ns) // unit_ns, "to": (gap.end_ns - origin_ns) // unit_ns,
             "dropped": gap.dropped} for gap in gaps]


# -- helpers ----------------------------------------------------------------
def start_meta(origin_ns: int, unit_ns: int, dropped: int, span_ms: float) -> dict:
    """The meta keys every page starts from (no events yet)."""
    return {"version": FORMAT_VERSION, "count": 0, "dropped": dropped, "unit_ns": unit_ns,
            "origin_ns": str(origin_ns), "span_ms": span_ms, "texts": []}


def _trace_decisions(trace: Trace) -> dict[str, np.ndarray]:
    """A finished trace's decisions as the stream carries them: the explained event, the union's node, the fields."""
    d = trace.decisions
    node_of = {node.op_id: i for i, node in enumerate(trace.nodes)}
    union_nodes = np.array([node_of.get(spec["op_id"], 0) for spec in d.specs] or [0], np.int64)
    c = d.columns
    order = np.argsort(c["event"], kind="stable")
    fields = {"event": c["event"][order], "union": union_nodes[c["union"][order]] if len(order) else c["union"]}
    fields.update((name, c[name][order]) for name in DECISION_ROW_FIELDS if name != "union")
    return fields


def _narrowest_time(units: np.ndarray) -> np.ndarray:
    """Non-negative time counts as uint32 when they all fit, else float64 (exact up to 2**53 units)."""
    if units.max(initial=0) <= _UINT32_MAX:
        return units.astype("<u4")
    return units.astype("<f8")


def _items(c: dict, huge_texts: dict[int, int] | None) -> tuple[np.ndarray, np.ndarray]:
    """The item column (int32 when every number fits, else float64 values) and the item kinds.

    Floats travel as their value.  Ints beyond 2**53 would lose digits as
    float64: with ``huge_texts`` (int value -> index of its text ``"int N"``)
    they travel as that text; a live page, which gets texts as the store
    interns them, shows them rounded (the saved trace keeps them exact).
    """
    kinds = c["item_kind"].astype(np.uint8)
    number = c["item_num"]
    is_float = kinds == KIND_FLOAT
    wide = ~is_float & ((number < _INT32.min) | (number > _INT32.max))
    if not is_float.any() and not wide.any():
        return number.astype("<i4"), kinds
    values = number.astype("<f8")
    values[is_float] = number[is_float].astype("<i8").view("<f8")
    huge = _huge_ints(c)
    if huge_texts is not None and huge.any():
        kinds = kinds.copy()
        values[huge] = [huge_texts[int(v)] for v in number[huge].tolist()]
        kinds[huge] = KIND_TEXT
    return values, kinds


def _huge_ints(c: dict) -> np.ndarray:
    """Where an int item is beyond what float64 holds exactly."""
    return (c["item_kind"] == KIND_INT) & (np.abs(c["item_num"]) > (1 << 53))
