"""The Explorer's payloads: Arrow IPC tables plus a small JSON meta, and the structure a page mounts with.

``rlviz.viz.explorer_stream`` cuts a trace into such payloads (the chunks of
one stream, live or saved); the same bytes feed the notebook widget (binary
message buffers) and the standalone HTML file (base64).  This module holds
what both ends share: ``Payload``, the structure (lanes, nodes, graph
layout, order strips, unions), and the decoding, in Python, that the
browser does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace import DRIVER, Trace
from rlviz.trace.event import RESTART_OP
from rlviz.trace.decisions import union_spec
from rlviz.viz.canvas import text_width
from rlviz.viz.chunk_tables import read_tables
from rlviz.viz.graph import dataflow_graph
from rlviz.viz.layout import BoxStyle, Geometry, graph_geometry, graph_layout
from rlviz.trace.order import merge_nodes, stream_op
from rlviz.viz.order import stream_colors
from rlviz.viz.palette import op_colors, short_text, where_colors
from rlviz.viz.timeline import timeline_lanes

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Payload", "decode_payload", "decode_stream", "trace_structure", "order_ratio", "FORMAT_VERSION"]

#: Bumped whenever the column layout or the meta keys change.  3: one stream of chunks, live and saved;
#: 4: a chunk's columns are Arrow IPC tables (``rlviz.viz.chunk_tables``).
FORMAT_VERSION = 4

# The graph pane's sizes in pixels (panes/graph.js draws what these place): the op name in 11 px bold,
# two lines of counters in 9 px below it, a process's name in 10 px bold above its group box.
_GRAPH_STYLE = BoxStyle(height=42, row_pitch=56, column_gap=28, band_gap=10, group_pad=(6, 6, 16))
_GRAPH_BOX_W = 156          # narrowest box: room for "99.9k calls · 99.9k items" in 9 px
_GRAPH_TEXT_PAD = 8         # room left and right of a box's op name


@dataclass
class Payload:
    """An encoded trace: ``meta`` (JSON-ready dict) and ``buffers`` (bytes).

    A chunk's ``meta["tables"]`` lists its tables (name, rows, bytes), each
    an Arrow IPC stream in ``buffers``, in that order; a stream's meta lists
    its chunks' metas (``meta["chunks"]``) and ``buffers`` holds their
    tables, chunk after chunk.
    """

    meta: dict
    buffers: list[bytes]

    @property
    def nbytes(self) -> int:
        """Bytes of the binary columns (the meta excluded)."""
        return sum(len(b) for b in self.buffers)


def decode_payload(payload: Payload) -> dict[str, np.ndarray]:
    """The columns of one chunk (a ``Payload`` whose meta lists ``tables``) as numpy arrays, read with pyarrow.

    Parameters
    ----------
    payload : Payload
        One chunk, as ``explorer_stream.encode_chunk`` returns it (or the same meta and buffers received).

    Returns
    -------
    dict of str to ndarray
        One array per column of the chunk's tables (``rlviz.viz.chunk_tables``), differences added up.

    Raises
    ------
    ValueError
        If the buffers do not match the tables the meta announces.
    """
    return read_tables(payload.meta["tables"], payload.buffers)


def decode_stream(payload: Payload) -> dict[str, np.ndarray]:
    """What a page holds after replaying a stream (``encode_trace``'s payload), as numpy arrays.

    Returns
    -------
    dict of str to ndarray
        Per event: ``start`` (units since the origin, each chunk's time base
        added), ``duration``, ``node``, ``flags``, ``item``; per link:
        ``consumer``, ``producer``, ``dropped``; per decision: ``decision_event``
        and ``decision_<field>``; per gauge reading: ``gauge_track``, ``gauge_time``, ``gauge_value``.
    """
    buffers = iter(payload.buffers)
    parts: dict[str, list[np.ndarray]] = {}
    for meta in payload.meta["chunks"]:
        chunk = decode_payload(Payload(meta, [next(buffers) for _ in meta["tables"]]))
        for name, values in _page_terms(meta, chunk).items():
            parts.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in parts.items()}


def _page_terms(meta: dict, chunk: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One decoded chunk as the page reads it: absolute starts, links as (consumer, producer, dropped) triples."""
    count = meta["count"]
    inputs = chunk["inputs"]
    consumers = np.repeat(np.arange(meta["first_id"], meta["first_id"] + count), chunk["input_count"])
    dropped = chunk.get("input_dropped", np.zeros(len(inputs), np.uint8))
    out = {"start": chunk["start"].astype(np.float64) + meta["time_base"],
           "duration": chunk["duration"].astype(np.float64), "node": chunk["node"], "flags": chunk["flags"],
           "item": chunk["item"].astype(np.float64),
           "consumer": np.concatenate((consumers, chunk.get("late_consumer", np.zeros(0, np.uint32)))),
           "producer": np.concatenate((inputs, chunk.get("late_producer", np.zeros(0, np.uint32)))),
           "dropped": np.concatenate((dropped, chunk.get("late_dropped", np.zeros(0, np.uint8))))}
    out.update((name, values) for name, values in chunk.items() if name.startswith(("decision_", "gauge_")))
    return out


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
        group box (``groups``).  A node that merges streams (a union) also
        carries ``union``: its children's names, weights and
        ``output_indexes`` (``rlviz.trace.decisions.union_spec``), what the
        page's "why" and rounds read.
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
    for i, node in enumerate(trace.nodes):
        if len(node.parents) > 1 or node.weights is not None:
            spec = union_spec(list(trace.nodes), i)
            nodes[i]["union"] = {key: spec[key] for key in ("children", "weights", "output_indexes")}
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
    return {"merge": graph.nodes[merge]["op"], "label": graph.nodes[merge]["label"], "node": index[merge],
            "where": graph.nodes[merge]["where"], "groups": groups, "ratio": order_ratio([g["items"] for g in groups])}


def order_ratio(items: list[int]) -> list[float] | None:
    """Each input's items over the first input's, to 2 decimals (None while the first has none): the order
    strip's measured ratio, set beside the round-robin weights."""
    first = items[0] if items else 0
    return [round(count / first, 2) for count in items] if first else None


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
