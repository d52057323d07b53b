"""A long trace's saved page: an overview of per-lane levels, and detail chunks the page inflates when it needs them.

A page cannot hold ten million events and stay quick, and a file of them
written as one blob makes the page decode all of it before the first frame.
So every page holds its trace in two parts, a saved page's, a notebook
view's and a watched run's alike (a short trace is a long trace of one
chunk, which the page opens on; a watched run's grows:
``rlviz.viz.growing_chunks``, whose levels come from ``pyramid_tables``):

* the **overview**: per level of ``rlviz.trace.pyramid.Pyramid`` (bucket
  widths 2**29 ns, about 0.54 s, times 4**level) that is worth keeping (its
  lanes x buckets do not outnumber the events), the level's Arrow tables
  (``rlviz.viz.chunk_tables.LEVEL_TABLES``): ``lanes``, per page lane (in its
  order) and bucket the events counted, the busiest node + 1 (0 where the
  bucket is empty), errors, not-ready calls and busy time; and, when the
  trace has gauges, ``gauge_summaries``, per gauge track
  (``rlviz.viz.gauge_tracks``: one per gauge name and lane, numbered as the
  start meta's ``gauge_tracks`` lists them) and bucket the last reading's
  value, the least, the greatest and the readings counted.  All levels'
  tables are deflated together.  The page draws the whole run, and any
  window that needs more than a few detail chunks, from these: a gauge
  track as a step line through each bucket's last value with a bar from its
  least to its greatest, so a spike shows at every zoom.
* the **detail chunks**: the stream's own chunks (``encode_trace``: the one
  wire format, cut every ``SAVED_CHUNK_EVENTS`` events by start, each with its
  ``time_range`` and own time base), each its Arrow IPC tables deflated
  together (their starts and producer ids already travel as differences:
  ``rlviz.viz.chunk_tables``).  The page inflates a chunk with the browser's
  ``DecompressionStream`` when its window meets it, and feeds it through the
  same decoder into the same model as any chunk.  Each chunk carries the
  gauge readings of its time, and the reading in force at its start.

The texts a page needs (the first chunk's) and the notes move into the start
meta, since the page may never load those chunks.  ``rlviz.viz.explorer_html``
writes each part into its own element, so the page decodes only what it
shows; a notebook's ``TraceView`` sends the start (``long_start``) and
answers the page's requests for chunks (``detail_chunk``), unpacked.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from rlviz.trace import Trace
from rlviz.trace.analysis import order_notes
from rlviz.trace.pyramid import LEVELS, Pyramid
from rlviz.viz.chunk_tables import narrowest_uint, read_tables, write_level_tables
from rlviz.viz.explorer_payload import Payload
from rlviz.viz.explorer_stream import SAVED_CHUNK_EVENTS, TraceChunks
from rlviz.viz.gauge_tracks import GaugeTracks

__all__ = ["LongPayload", "encode_long", "long_start", "detail_chunk", "overview_tables", "pyramid_tables", "pack_chunk",
           "unpack_chunk", "unpack_levels",
           "OVERVIEW_DEFLATE_LEVEL", "DEFLATE_LEVEL"]

#: Significant bits the overview keeps of each bucket's busy time (``overview_tables``).
_BUSY_BITS = 9
#: zlib's compression level for the packed detail chunks (level 6 packed a 1M-event page's Arrow chunks 2 % smaller
#: in 2.7 times as long), and for the overview (worked out while a notebook's page waits for its first frame: level 1
#: is ten times quicker there, for twice the bytes, under a megabyte at 10M events).
DEFLATE_LEVEL, OVERVIEW_DEFLATE_LEVEL = 4, 1


@dataclass
class LongPayload:
    """A long trace encoded for its saved page: the start meta, the packed overview, the packed detail chunks.

    ``meta`` is ``long_start``'s, its ``detail`` holding each chunk's whole
    meta with ``packed`` (its packed ``bytes`` and its ``delta`` columns);
    ``overview`` holds ``lanes``, ``gauges`` (the gauge tracks), ``levels``
    (per level its bucket ``width`` and first bucket's ``start`` in time
    units since the origin, its bucket count ``n`` and its ``tables``, each
    ``{"name", "rows", "bytes"}`` in the order of the overview's bytes) and
    ``packed`` (the packed size).
    """

    meta: dict
    overview: bytes
    detail: list[bytes]

    @property
    def nbytes(self) -> int:
        """Bytes of the packed parts."""
        return len(self.overview) + sum(len(chunk) for chunk in self.detail)


def long_start(chunks: TraceChunks) -> tuple[dict, bytes]:
    """The start meta of a long trace's page and its packed overview, without encoding any chunk.

    The meta is the stream's start meta with ``long: True``, ``events`` (the
    trace's length: the page holds a part), every text and the notes,
    ``gauge_tracks`` (every gauge track, each ``[name, where]``: the chunks
    open none), ``overview`` (see ``LongPayload``) and ``detail``: per chunk its
    ``first_id``, ``count`` and ``time_range`` (what a page needs to know
    which chunks a window meets).  A notebook's page asks its kernel for the chunks
    themselves; a saved page finds them in the file (``encode_long``).

    Parameters
    ----------
    chunks : TraceChunks
        The trace's stream, chunk by chunk.

    Returns
    -------
    tuple of (dict, bytes)
    """
    trace, meta = chunks.trace, dict(chunks.meta)
    ranges = chunks.time_ranges().tolist()
    size = chunks.chunk_events
    detail = [{"first_id": k * size, "count": min(size, len(trace) - k * size), "time_range": ranges[k]}
              for k in range(len(ranges))]
    overview, tables = overview_tables(trace, [lane["name"] for lane in meta["lanes"]],
                                       [lane["nodes"] for lane in meta["lanes"]], chunks.origin_ns, chunks.unit_ns,
                                       chunks.gauges)
    packed = zlib.compress(tables, OVERVIEW_DEFLATE_LEVEL)
    meta.update(long=True, events=len(trace), texts=chunks.texts, notes=order_notes(trace), chunks=[], detail=detail,
                gauge_tracks=chunks.gauges.keys, overview={**overview, "packed": len(packed)})
    return meta, packed


def detail_chunk(chunks: TraceChunks, k: int) -> Payload:
    """Chunk ``k`` as a long trace's page takes it: the stream's chunk, its texts and gauge tracks left to the start
    meta, no ``seq`` (a part of the stream, not its start)."""
    chunk = chunks.chunk(k)
    meta = {key: value for key, value in chunk.meta.items() if key not in ("seq", "gauge_tracks")}
    meta["texts"] = []
    return Payload(meta, chunk.buffers)


def encode_long(trace: Trace, chunk_events: int = SAVED_CHUNK_EVENTS) -> LongPayload:
    """Encode ``trace`` as a long trace's saved page carries it: an overview of levels and packed detail chunks.

    Parameters
    ----------
    trace : Trace
        The trace, of any length (``explorer_html`` writes every page with it).
    chunk_events : int, default SAVED_CHUNK_EVENTS
        Events per detail chunk.

    Returns
    -------
    LongPayload

    Raises
    ------
    ValueError
        If ``chunk_events`` is below 1.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> long = encode_long(sharded_trace(), chunk_events=32)
    >>> long.meta["long"], len(long.meta["detail"]), long.meta["overview"]["lanes"]
    (True, 3, 3)
    """
    chunks = TraceChunks(trace, chunk_events)
    meta, overview = long_start(chunks)
    detail, packed = [], []
    for k in range(len(chunks)):
        chunk = detail_chunk(chunks, k)
        data = pack_chunk(chunk.meta, chunk.buffers)
        detail.append({**chunk.meta, "packed": {"bytes": len(data)}})
        packed.append(data)
    meta["detail"] = detail
    return LongPayload(meta, overview, packed)


def pack_chunk(chunk: dict, buffers: list[bytes]) -> bytes:
    """One chunk's tables (one Arrow IPC stream each, in ``chunk["tables"]`` order) deflated together.

    The streams carry their own delta-coded columns (``rlviz.viz.chunk_tables``), so packing is deflate alone.
    """
    return zlib.compress(b"".join(bytes(data) for data in buffers), DEFLATE_LEVEL)


def unpack_chunk(chunk: dict, data: bytes) -> list[bytes]:
    """What the page does with a packed chunk, in Python: inflate, split into the IPC streams of its tables.

    Raises
    ------
    ValueError
        If the inflated bytes are not as many as the chunk's tables announce.
    """
    raw = zlib.decompress(data)
    sizes = [spec["bytes"] for spec in chunk["tables"]]
    if sum(sizes) != len(raw):
        raise ValueError(f"a packed chunk inflates to {len(raw)} bytes where its tables announce {sum(sizes)}")
    ends = np.cumsum([0, *sizes])
    return [raw[a:b] for a, b in zip(ends[:-1], ends[1:])]


def unpack_levels(overview: dict, data: bytes) -> list[dict[str, np.ndarray]]:
    """What the page does with a packed overview, in Python: inflate, read each level's tables (``LEVEL_TABLES``)
    with pyarrow alone, finest level first as written: per level its columns by name, each as long as its table.

    Raises
    ------
    ValueError
        If the inflated bytes are not as many as the levels' tables announce.
    """
    raw, at, levels = zlib.decompress(data), 0, []
    for level in overview["levels"]:
        sizes = [spec["bytes"] for spec in level["tables"]]
        levels.append(read_tables(level["tables"], [raw[at + sum(sizes[:k]):at + sum(sizes[:k + 1])]
                                                    for k in range(len(sizes))]))
        at += sum(sizes)
    if at != len(raw):
        raise ValueError(f"a packed overview inflates to {len(raw)} bytes where its levels announce {at}")
    return levels


def overview_tables(trace: Trace, lanes: list[str], lane_nodes: list[list[int]], origin_ns: int,
                    unit_ns: int, gauges: GaugeTracks | None = None) -> tuple[dict, bytes]:
    """The overview's levels: per level of a ``Pyramid`` of ``trace`` worth keeping, its ``LEVEL_TABLES``.

    The busy time (per lane and bucket, the durations of the calls starting
    there that are not not-ready polls) is what the page shades a crowded lane
    by, as it does from loaded events.  It is float32 in time units (a sum of
    nested calls can pass the bucket's width, so it is no fraction), rounded
    to 9 significant bits (``_BUSY_BITS``): within 2**-9 of the sum, under half a
    step of a pixel's 8-bit opacity, and the zero low bits deflate to almost
    nothing; rounded, a value travels in two bytes (a ``short_f4`` column).

    Parameters
    ----------
    trace : Trace
    lanes : list of str
        The page's lanes, in its order.
    lane_nodes : list of list of int
        Each lane's nodes (indices into ``trace.nodes``).
    origin_ns, unit_ns : int
        The page's time origin and unit: levels' widths and starts are in units since the origin.
    gauges : GaugeTracks, optional
        The trace's gauge tracks (``TraceChunks.gauges``); none without.

    Returns
    -------
    tuple of (dict, bytes)
        ``{"lanes": len(lanes), "gauges": len(gauges), "levels": [{"width", "start", "n", "tables"}, ...]}``
        and the levels' Arrow IPC streams, level after level, each level's in its ``tables`` order: ``lanes``
        (lanes x n rows, lane after lane) and, with gauge tracks, ``gauge_summaries`` (tracks x n rows; the
        values float32 when every one is exactly a float32, else float64).
    """
    c = trace.columns
    if not len(trace):
        return {"lanes": len(lanes), "gauges": len(gauges) if gauges is not None else 0, "levels": []}, b""
    lane_of = {name: k for k, name in enumerate(lanes)}
    node_lane = np.array([lane_of.get(node.where, 0) for node in trace.nodes], np.int64)
    node = c["node"].astype(np.int64)
    pyramid = Pyramid()
    pyramid.add(c["start_ns"], node, node_lane[node], c["outcome"], c["end_ns"] - c["start_ns"])
    first, last = int(c["start_ns"].min()), int(c["start_ns"].max()) + 1
    return pyramid_tables(pyramid, list(range(len(lanes))), lane_nodes, (first, last), origin_ns, unit_ns, gauges)


def pyramid_tables(pyramid: Pyramid, lane_rows: list[int], lane_nodes: list[list[int]], span_ns: tuple[int, int],
                   origin_ns: int, unit_ns: int, gauges: GaugeTracks | None = None) -> tuple[dict, bytes]:
    """The overview's levels (``overview_tables`` says what they hold) read from ``pyramid`` over ``span_ns``.

    Parameters
    ----------
    pyramid : Pyramid
        Counts of the events (a finished trace's, or a growing store's own).
    lane_rows : list of int
        Per page lane (in the page's order), its lane number in ``pyramid``.
    lane_nodes : list of list of int
        Each page lane's nodes (indices into the node table ``pyramid`` counts by).
    span_ns : tuple of int
        ``(first, stop)``: the starts the levels cover, on the driver's clock.
    origin_ns, unit_ns : int
        The page's time origin and unit.
    gauges : GaugeTracks, optional
        The gauge tracks summed up per bucket; none without.

    Returns
    -------
    tuple of (dict, bytes)
        As ``overview_tables``.
    """
    first, last = span_ns
    nodes = [np.asarray(row, np.int64) for row in lane_nodes]
    levels = []
    for level in range(pyramid.first_level, LEVELS if pyramid.origin_ns is not None else 0):
        buckets = [pyramid.buckets(level, first, last, nodes[k], row) for k, row in enumerate(lane_rows)]
        if not buckets:
            break
        levels.append((level, buckets))
    levels = _worth_keeping(levels)
    spans = [(int(buckets[0].start_ns[0]), Pyramid.width(level), len(buckets[0])) for level, buckets in levels]
    summaries = gauges.summary(spans) if gauges is not None and len(gauges) and spans else [{} for _ in spans]
    metas, data = [], []
    for (level, buckets), (start_ns, width_ns, n), summary in zip(levels, spans, summaries):
        tables, buffers = write_level_tables({**_lane_columns(buckets, unit_ns), **_summary_columns(summary)})
        metas.append({"width": width_ns / unit_ns, "start": (start_ns - origin_ns) / unit_ns, "n": n, "tables": tables})
        data += buffers
    return ({"lanes": len(lane_rows), "gauges": len(gauges) if gauges is not None else 0, "levels": metas},
            b"".join(data))


def _worth_keeping(levels: list[tuple[int, list]]) -> list[tuple[int, list]]:
    """The levels from the finest whose buckets (lanes x buckets) do not outnumber the events counted, else the
    coarsest: a finer one would be as large as the events themselves, which the page loads instead when a window
    is that narrow (a 100k-event run over 3 hours on 64 lanes keeps 4 of its 6 levels, 1.7 of its 10.8 bytes an
    event; at 10M events it keeps all)."""
    if not levels:
        return levels
    events = sum(int(b.count.sum()) for b in levels[-1][1])
    kept = [(level, buckets) for level, buckets in levels if len(buckets) * len(buckets[0].count) <= events]
    return kept or levels[-1:]


def _lane_columns(buckets: list, unit_ns: int) -> dict[str, np.ndarray]:
    """A level's ``lanes`` table (``LEVEL_TABLES``) from each lane's buckets, lane after lane."""
    def joined(name: str, shift: int = 0) -> np.ndarray:
        return narrowest_uint(np.concatenate([getattr(b, name) + shift for b in buckets]))
    busy = _rounded(np.concatenate([b.busy_ns for b in buckets]) / unit_ns, _BUSY_BITS)
    return {"count": joined("count"), "busiest": joined("busiest", 1), "errors": joined("errors"),
            "not_ready": joined("not_ready"), "busy": busy}


def _summary_columns(summary: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A level's ``gauge_summaries`` table (``LEVEL_TABLES``) from ``GaugeTracks.summary``'s (none without)."""
    if not summary:
        return {}
    values = {f"gauge_{name}": summary[key] for name, key in (("last", "last"), ("least", "low"), ("greatest", "high"))}
    dtype = "<f4" if all(np.array_equal(v.astype("<f4"), v, equal_nan=True) for v in values.values()) else "<f8"
    return {**{name: v.astype(dtype).ravel() for name, v in values.items()},
            "gauge_count": narrowest_uint(summary["count"].ravel())}


def _rounded(values: np.ndarray, bits: int) -> np.ndarray:
    """Non-negative ``values`` as little-endian float32 rounded (half up) to ``bits`` significant bits."""
    drop = 24 - bits
    word = values.astype("<f4").view("<u4")
    return ((word + np.uint32(1 << (drop - 1))) >> drop << drop).astype("<u4").view("<f4")
