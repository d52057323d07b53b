"""The Explorer's live wire format: what a growing ``TraceStore`` gained, as appended binary column chunks.

A live page first gets the structure (nodes, lanes, graph layout, order
strip, the time origin and unit, fixed for the run) and then, per refresh,
one chunk of the events that arrived since the last one: typed columns plus
links as (consumer id, producer id) pairs, about 20 bytes per event.  Event
ids are the store's, so a link to an event sent earlier stays right and the
page never re-sorts what it holds.

Each chunk carries its own time base (``time_base``, microseconds since the
origin): its starts are microseconds after that base, so a run of hours or
days keeps microsecond precision in 32 bits per event.  A column whose values
do not fit 32 bits (a chunk spanning more than 71 minutes, as the first chunk
of a page that joins a long run late) travels as float64 instead: times are
never clamped.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace import Trace
from rlviz.trace.event import with_upstream
from rlviz.trace.items import KIND_FLOAT
from rlviz.trace.rows import is_dropped
from rlviz.trace.store import TraceStore
from rlviz.viz.explorer_payload import FORMAT_VERSION, Payload, trace_structure

__all__ = ["LiveEncoder", "LIVE_UNIT_NS"]

#: Time unit of a live page's columns: 1 microsecond.
LIVE_UNIT_NS = 1_000
_UINT32_MAX = (1 << 32) - 1
_INT32 = np.iinfo(np.int32)


class LiveEncoder:
    """Encodes one page's view of a ``TraceStore``: the structure once, then each refresh's new events.

    Parameters
    ----------
    store : TraceStore
        The growing store; its ``since_ns`` is the page's time origin.

    Notes
    -----
    One encoder per page (each keeps its own cursor), so a page that
    joins late gets every held event in its first chunk.
    """

    def __init__(self, store: TraceStore) -> None:
        self.store = store
        self.origin_ns = store.since_ns
        self.next_id = 0
        self.next_input = 0
        self.texts_sent = 0
        self.used: set[int] = set()
        self.nodes_sent = -1

    def start(self) -> dict:
        """The meta a page mounts with (no events yet): the structure, the origin and unit, ``live: True``."""
        return {"version": FORMAT_VERSION, "live": True, "count": 0, "dropped": 0, "unit_ns": LIVE_UNIT_NS,
                "origin_ns": str(self.origin_ns), "span_ms": 0.0, "item_mode": "f64", "texts": [],
                "columns": [], **self._structure()}

    def next_chunk(self) -> Payload | None:
        """The events that arrived since the last chunk (None when nothing did)."""
        with self.store.lock:
            appended = self.store.since(self.next_id, self.next_input)
            if len(appended) == 0 and len(appended.input_owner) == 0:
                return None
            producers = self.store.producers(appended.input_id)
            texts = appended.texts[self.texts_sent:]
            self.texts_sent = len(appended.texts)
            self.next_id, self.next_input = appended.next_id, appended.next_input
            nodes = appended.columns["node"]
            fresh = set(np.unique(nodes).tolist()) - self.used
            structure = None
            if fresh or len(appended.nodes) != self.nodes_sent:
                self.used |= fresh
                structure = self._structure()
        c = appended.columns
        start = np.maximum((c["start_ns"] - self.origin_ns) // LIVE_UNIT_NS, 0)
        end = np.maximum((c["end_ns"] - self.origin_ns) // LIVE_UNIT_NS, start)
        time_base = int(start.min()) if len(start) else 0
        item, kinds = _items(c)
        linked = producers >= 0
        columns = {
            "start": _narrowest_time(start - time_base), "duration": _narrowest_time(end - start),
            "node": nodes.astype("<u2"), "flags": (c["outcome"].astype(np.uint8) | (kinds << 2)).astype("<u1"),
            "item": item,
            "in_consumer": appended.input_owner[linked].astype("<u4"),
            "in_producer": producers[linked].astype("<u4"),
            "in_dropped": is_dropped(appended.input_id[linked]).astype("<u1"),
        }
        specs, buffers = [], []
        for name, values in columns.items():
            data = values.tobytes()
            buffers.append(data)
            specs.append({"name": name, "dtype": values.dtype.str, "length": len(values), "chunks": [len(data)]})
        meta = {"first_id": appended.first_id, "count": len(appended), "held_from": self.store.first_id,
                "time_base": time_base, "texts": texts, "dropped": appended.dropped, "columns": specs}
        if structure is not None:
            meta["structure"] = structure
        return Payload(meta, buffers)

    def _structure(self) -> dict:
        """Lanes, nodes (in the store's node order), layout and order strip of the nodes seen so far.

        The store knows every node this process ever registered (earlier
        plans of a long-lived kernel included): only the nodes with events
        and those upstream of them are laid out; the others stay in the list,
        so node indices keep matching the store's, marked ``hidden``.
        """
        nodes = list(self.store.nodes)
        self.nodes_sent = len(nodes)
        used = sorted(i for i in self.used if i < len(nodes))
        shown = with_upstream(used, nodes)
        columns = {name: np.zeros(len(used), dtype) for name, dtype in
                   {"node": np.int32, "pid": np.int64, "start_ns": np.int64, "end_ns": np.int64,
                    "outcome": np.uint8, "item_kind": np.uint8, "item_num": np.int64, "item_id": np.int64}.items()}
        columns["node"][:] = [shown.index(i) for i in used]
        columns["item_id"][:] = -1
        columns["input_offsets"] = np.zeros(len(used) + 1, np.int64)
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


def _narrowest_time(microseconds: np.ndarray) -> np.ndarray:
    """Non-negative microsecond counts as uint32 when they all fit, else float64 (exact up to 2**53 µs)."""
    if microseconds.max(initial=0) <= _UINT32_MAX:
        return microseconds.astype("<u4")
    return microseconds.astype("<f8")


def _items(c: dict) -> tuple[np.ndarray, np.ndarray]:
    """The item column (int32 when every number fits, else float64 values) and the item kinds.

    Floats travel as their value.  Ints beyond 2**53 show rounded in a live
    page (the saved trace keeps them exact).
    """
    kinds = c["item_kind"].astype(np.uint8)
    number = c["item_num"]
    is_float = kinds == KIND_FLOAT
    wide = ~is_float & ((number < _INT32.min) | (number > _INT32.max))
    if not is_float.any() and not wide.any():
        return number.astype("<i4"), kinds
    values = number.astype("<f8")
    values[is_float] = number[is_float].astype("<i8").view("<f8")
    return values, kinds
