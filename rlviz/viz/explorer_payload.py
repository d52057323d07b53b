"""The Explorer's wire format: a trace as typed little-endian columns plus a small JSON meta.

The same bytes feed the notebook widget (binary message buffers) and the
standalone HTML file (base64), so both views decode one format.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlviz.checks import check_int
from rlviz.trace import DRIVER, Trace
from rlviz.trace.items import KIND_FLOAT, KIND_INT, KIND_TEXT
from rlviz.viz.canvas import text_width
from rlviz.viz.graph import dataflow_graph
from rlviz.viz.layout import BoxStyle, Geometry, graph_geometry, graph_layout
from rlviz.viz.order import merge_nodes, stream_colors, stream_op
from rlviz.viz.palette import op_colors, short_text, where_colors
from rlviz.viz.timeline import RESTART_OP, timeline_lanes

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Payload", "encode_trace", "decode_payload", "trace_structure", "FORMAT_VERSION", "CHUNK_BYTES"]

#: Bumped whenever the column layout or the meta keys change.
FORMAT_VERSION = 2
#: Columns longer than this travel as several buffers (the browser joins them).
CHUNK_BYTES = 8 << 20

_UNITS_NS = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
_UINT32_MAX = (1 << 32) - 1
_INT32 = np.iinfo(np.int32)
# The graph pane's sizes in pixels (panes/graph.js draws what these place): the op name in 11 px bold,
# two lines of counters in 9 px below it, a process's name in 10 px bold above its group box.
_GRAPH_STYLE = BoxStyle(height=42, row_pitch=56, column_gap=28, band_gap=10, group_pad=(6, 6, 16))
_GRAPH_BOX_W = 156          # narrowest box: room for "99.9k calls · 99.9k items" in 9 px
_GRAPH_TEXT_PAD = 8         # room left and right of a box's op name


@dataclass
class Payload:
    """An encoded trace: ``meta`` (JSON-ready dict) and ``buffers`` (bytes, in ``meta["columns"]`` order).

    ``meta["columns"]`` lists, per column, its name, little-endian dtype,
    length and the byte sizes of its chunks; ``buffers`` holds every chunk of
    every column in that order.
    """

    meta: dict
    buffers: list[bytes]

    @property
    def nbytes(self) -> int:
        """Bytes of the binary columns (the meta excluded)."""
        return sum(len(b) for b in self.buffers)


def encode_trace(trace: Trace, chunk_bytes: int = CHUNK_BYTES) -> Payload:
    """Encode ``trace`` for the browser.

    Columns (one entry per event, in the trace's start order): ``start`` and
    ``duration`` as uint32 counts of ``meta["unit_ns"]`` nanoseconds since
    the trace start (the smallest power of ten that keeps the last end below
    2**32; times are floored to it), ``node`` (uint8 or uint16), ``flags``
    (uint8: outcome | item kind << 2), ``item`` (int32, or float64 when a
    float or a large int is present), ``input_count`` (uint8 or uint16) and
    ``inputs`` (uint32 event indices of the producers of each event's
    inputs, grouped by consumer), ``input_dropped`` (uint8, one per entry of
    ``inputs``: 1 where the consumer dropped that value, a filter's rejected item).

    Parameters
    ----------
    trace : Trace
        The trace to encode.
    chunk_bytes : int, default CHUNK_BYTES
        Largest buffer; longer columns are split.

    Returns
    -------
    Payload

    Raises
    ------
    ValueError
        If ``chunk_bytes`` is below 8.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> payload = encode_trace(sharded_trace())
    >>> payload.meta["count"], payload.meta["unit_ns"]
    (81, 1)
    """
    check_int("chunk_bytes", chunk_bytes, minimum=8)
    c = trace.columns
    origin = trace.start_ns
    span = int(c["end_ns"].max() - origin) if len(trace) else 0
    unit = next((u for u in _UNITS_NS if span // u <= _UINT32_MAX), None)
    if unit is None:
        raise ValueError(f"the trace spans {span / 1e9:.0f} s; the Explorer shows at most "
                         f"{_UINT32_MAX * _UNITS_NS[-1] / 1e9:.0f} s")
    start = (c["start_ns"] - origin) // unit
    end = (c["end_ns"] - origin) // unit
    item, item_mode, kinds, texts = _item_column(trace)
    links = trace.links()
    producers, consumers = links
    counts = np.bincount(consumers, minlength=len(trace))
    columns = {
        "start": start.astype("<u4"),
        "duration": (end - start).astype("<u4"),
        "node": c["node"].astype("<u1" if len(trace.nodes) <= 256 else "<u2"),
        "flags": (c["outcome"].astype(np.uint8) | (kinds << 2)).astype("<u1"),
        "item": item,
        "input_count": counts.astype("<u1" if counts.max(initial=0) <= 255 else "<u2"),
        "inputs": producers.astype("<u4"),
        "input_dropped": links.dropped.astype("<u1"),
    }
    specs, buffers = [], []
    for name, values in columns.items():
        data = values.tobytes()
        sizes = [len(data[i:i + chunk_bytes]) for i in range(0, len(data), chunk_bytes)]
        buffers.extend(data[i:i + chunk_bytes] for i in range(0, len(data), chunk_bytes))
        specs.append({"name": name, "dtype": values.dtype.str, "length": len(values), "chunks": sizes})
    meta = {"version": FORMAT_VERSION, "count": len(trace), "dropped": trace.dropped,
            "unit_ns": unit, "origin_ns": str(origin), "span_ms": span / 1e6,
            "item_mode": item_mode, "texts": texts, "columns": specs, **trace_structure(trace),
            "decisions": _decisions(trace)}
    return Payload(meta, buffers)


def _decisions(trace: Trace) -> dict:
    """The unions' scheduling decisions for the inspector's "why": specs and one list per column.

    ``next`` is the child pulled next by the same union (-1 at the end), so the
    page composes ``Event.why``'s sentence without searching.
    """
    d = trace.decisions
    c = d.columns
    following = d.next_children()
    names = ("event", "union_event", "union", "round", "child", "pull", "allowed", "outcome", "flags")
    node_of = {node.op_id: i for i, node in enumerate(trace.nodes)}
    return {"specs": [{"op": spec.get("op", "union"), "children": list(spec["children"]),
                       "weights": list(spec["weights"]), "output_indexes": spec.get("output_indexes"),
                       "node": node_of.get(spec.get("op_id"), -1)}
                      for spec in d.specs],
            "rows": {**{name: c[name].tolist() for name in names}, "next": following.tolist()}}


def decode_payload(payload: Payload) -> dict[str, np.ndarray]:
    """The columns of a ``Payload`` as numpy arrays (the browser's decoding, in Python).

    Parameters
    ----------
    payload : Payload
        What ``encode_trace`` returned (or the same meta and buffers received).

    Returns
    -------
    dict of str to ndarray
        One array per column named in ``payload.meta["columns"]``.

    Raises
    ------
    ValueError
        If the buffers do not match the sizes the meta announces.
    """
    chunks = iter(payload.buffers)
    columns = {}
    for spec in payload.meta["columns"]:
        data = b"".join(bytes(next(chunks)) for _ in spec["chunks"])
        if len(data) != sum(spec["chunks"]):
            raise ValueError(f"column {spec['name']!r}: got {len(data)} bytes, the meta announces "
                             f"{sum(spec['chunks'])}")
        columns[spec["name"]] = np.frombuffer(data, dtype=spec["dtype"], count=spec["length"])
    return columns


def _item_column(trace: Trace) -> tuple[np.ndarray, str, np.ndarray, list[str]]:
    """The item numbers, their mode ("i32" or "f64"), the item kinds, and the texts they index.

    Floats travel as their value, numbers beyond int32 (large ints, long
    sized values) switch the column to f64; ints beyond 2**53 would lose
    digits there, so they are re-kinded as text.
    """
    c = trace.columns
    kinds = c["item_kind"].astype(np.uint8)
    number = c["item_num"]
    texts = list(trace.texts)
    is_int = kinds == KIND_INT
    is_float = kinds == KIND_FLOAT
    wide = ~is_float & ((number < _INT32.min) | (number > _INT32.max))
    if not is_float.any() and not wide.any():
        return number.astype("<i4"), "i32", kinds, texts
    values = number.astype("<f8")
    values[is_float] = number[is_float].astype("<i8").view("<f8")
    huge = is_int & (np.abs(number) > (1 << 53))
    if huge.any():
        kinds = kinds.copy()
        table = {}
        for i in np.flatnonzero(huge).tolist():
            text = f"int {int(number[i])}"
            values[i] = table.setdefault(text, len(texts) + len(table))
        texts.extend(table)
        kinds[huge] = KIND_TEXT
    return values, "f64", kinds, texts


def trace_structure(trace: Trace) -> dict:
    """Lanes, nodes, graph layout, order strip: everything of the Explorer's meta but the per-event columns.

    Parameters
    ----------
    trace : Trace
        The trace (a live view passes one event per node seen, in its store's node order).

    Returns
    -------
    dict
        ``nodes``, ``edges``, ``lanes``, ``graph`` and ``order``, JSON-ready.
        Each node carries its graph box in pixels (``x``, ``y``, ``w``,
        ``h``, from ``rlviz.viz.layout``, the layout ``plot_graph`` draws) and
        ``graph`` the drawing's ``width``, ``height`` and each process's
        group box (``groups``).
    """
    lanes = timeline_lanes(trace)
    ops = op_colors(n.op for n in trace.nodes)
    process_colors = where_colors(n.where for n in trace.nodes)
    rows = sorted((int(r), i) for i, r in enumerate(np.nan_to_num(lanes.row, nan=-1)) if r >= 0)
    lane_rows: dict[str, list[int]] = {name: [] for name in lanes.names}
    for _, i in rows:
        lane_rows[trace.nodes[i].where].append(i)
    graph = dataflow_graph(trace)
    layout = graph_layout(graph)
    widths = {n: max(_GRAPH_BOX_W, text_width(short_text(graph.nodes[n]["op"], 22), 11, bold=True)
                     + 2 * _GRAPH_TEXT_PAD) for n in graph.nodes}
    geometry = graph_geometry(layout, widths, _GRAPH_STYLE)
    index = {n.op_id: i for i, n in enumerate(trace.nodes)}
    nodes = []
    for i, node in enumerate(trace.nodes):
        data = graph.nodes[node.op_id]
        nodes.append({"op": node.op, "label": node.label, "where": node.where, "details": node.to_dict().get("details", {}),
                      "short": short_text(node.op, 22), "color": ops[node.op],
                      "column": layout.column.get(node.op_id, 0), "row": layout.row.get(node.op_id, 0.0),
                      **_box(geometry.node[node.op_id]),
                      "calls": data["calls"], "items": data["items"], "not_ready": data["not_ready"],
                      "errors": data["errors"], "busy_ms": data["busy_ns"] / 1e6,
                      "restart": node.op == RESTART_OP})
    back = set(layout.back_edges)
    edges = [[index[u], index[v], data.get("items", 0), (u, v) in back]
             for u, v, data in graph.edges(data=True) if u in index and v in index]
    orders = [_order_strip(graph, merge, index, trace.nodes, ops) for merge in merge_nodes(graph)]
    return {"nodes": nodes, "edges": edges, "graph": _graph_extent(geometry, process_colors),
            "lanes": [{"name": name, "color": process_colors.get(name, "#5b6770"), "nodes": lane_rows[name]}
                      for name in lanes.names],
            "order": orders[-1] if orders else None, "orders": orders, "order_default": _default_order(orders)}


# -- helpers ----------------------------------------------------------------
def _box(box: tuple[float, float, float, float]) -> dict[str, float]:
    x0, y0, x1, y1 = box
    return {"x": round(x0, 1), "y": round(y0, 1), "w": round(x1 - x0, 1), "h": round(y1 - y0, 1)}


def _graph_extent(geometry: Geometry, colors: dict[str, str]) -> dict:
    """The graph drawing's size and each process's group box (pixels), for the graph pane."""
    return {"width": round(geometry.width, 1), "height": round(geometry.height, 1),
            "groups": [{"where": where, "color": colors.get(where, "#5b6770"), **_box(box)}
                       for where, box in geometry.group.items()]}


def _order_strip(graph: "nx.DiGraph", merge: str, index: dict[str, int], nodes: list, ops: dict[str, str]) -> dict:
    """The inputs of one node that merges several streams: op names, colours, weights, measured counts.

    ``groups[k]["color"]`` follows ``stream_colors`` (as ``plot_order``): the op's timeline colour;
    ``groups[k]["weight"]`` is the merging node's round-robin weight for that input (``Node.weights``), if any.
    """
    inputs = list(graph.predecessors(merge))
    by_id = {node.op_id: node for node in nodes}
    weights = _weights(by_id[merge])
    names = [stream_op(by_id[op_id], by_id) for op_id in inputs]
    labels = [name if names.count(name) == 1 else f"{name} @ {graph.nodes[op_id]['where']}"
              for name, op_id in zip(names, inputs)]
    colors = stream_colors([ops.get(name, "#5b6770") for name in names], labels)
    groups = [{"name": labels[k], "node": index[op_id], "items": graph.nodes[op_id]["items"],
               "weight": weights.get(op_id), "color": colors[k]} for k, op_id in enumerate(inputs)]
    first = groups[0]["items"]
    ratio = [round(g["items"] / first, 2) for g in groups] if first else None
    return {"merge": graph.nodes[merge]["op"], "label": graph.nodes[merge]["label"], "node": index[merge],
            "where": graph.nodes[merge]["where"], "groups": groups, "ratio": ratio}


def _default_order(orders: list[dict]) -> int:
    """The strip the order pane opens on: the merging node nearest the driver's end (-1 for none).

    ``orders`` runs upstream to downstream, so that is the last one on the driver, else the last one.
    """
    on_driver = [k for k, strip in enumerate(orders) if strip["where"] == DRIVER]
    return on_driver[-1] if on_driver else len(orders) - 1


def _weights(merge) -> dict:
    """The round-robin weight of each parent of the node ``merge``, by parent op_id (empty without weights)."""
    weights = merge.weights
    if weights is None or len(weights) != len(merge.parents):
        return {}
    return dict(zip(merge.parents, weights))
