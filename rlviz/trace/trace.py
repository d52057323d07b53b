"""``Trace``: the recorded events of one ``rlviz.record()`` block, held as columns.

Columns are numpy arrays (one entry per event), so large traces are drawn and
analysed without building a Python object per event; ``events`` and
``to_records()`` materialise them on request.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.event import OUTCOMES, Event, Node, NodeTable
from rlviz.trace.causes import event_causes, with_cause
from rlviz.trace.decisions import Decisions
from rlviz.trace.gauges import Gauge, GaugeParts
from rlviz.trace.schema import COLUMNS, TraceFormatError
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK, TextTable, format_summary
from rlviz.trace.io import read_trace, save_trace
from rlviz.trace.lanes import lane_order
from rlviz.trace.rows import (DECISION_ROW_FIELDS, FIELDS, HEADER, ITEM, NO_INPUT, decision_columns, input_id, is_dropped, kind_of,
                              mark_dropped, outcome_of, split_decisions, split_gauges)

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Trace", "Links", "TraceFormatError", "COLUMNS"]

_RECORD_KEYS = ("op", "label", "op_id", "where", "pid", "start_ns", "end_ns", "outcome")


class Links(tuple):
    """``(producers, consumers)`` event indices of every value passed on, plus ``dropped``.

    ``dropped[k]`` is true when consumer ``k`` took the value and dropped it
    (a filter's rejected item): a walk back from a value follows the links
    that are not dropped.  Unpacks as a pair, so ``producers, consumers =
    trace.links()`` reads every link.
    """

    def __new__(cls, producers: np.ndarray, consumers: np.ndarray, dropped: np.ndarray) -> "Links":
        links = super().__new__(cls, (producers, consumers))
        links.dropped = dropped
        return links

    @property
    def kept(self) -> tuple[np.ndarray, np.ndarray]:
        """``(producers, consumers)`` of the links whose value was passed on."""
        keep = ~self.dropped
        return self[0][keep], self[1][keep]


class Trace:
    """Recorded events plus the dataflow nodes that made them.

    Parameters
    ----------
    nodes : list of Node
        The dataflow nodes; the ``node`` column indexes this list.
    columns : dict of str to ndarray
        One array per name in ``COLUMNS``, all the same length, plus the CSR
        pair ``input_offsets`` (length n + 1) and ``input_ids`` (ids of dropped
        inputs carry ``rlviz.trace.rows.DROPPED``).
    texts : list of str
        Interned item summaries, indexed by ``item_num`` for text kinds.
    dropped : int
        Events the bounded buffers evicted before this trace was taken.
    decisions : Decisions, optional
        The scheduling decisions of the unions that ran (``rlviz.trace.decisions``).
    gauges : dict of str to Gauge, optional
        The gauges read during the run (``rlviz.trace.gauges``): per name,
        arrays ``time_ns``, ``value``, ``pid`` and ``where`` (the lane), by time.

    Attributes
    ----------
    event_ids : ndarray or None
        For a view of a growing store (``rlviz.trace.store``), each event's
        stable id there, in this trace's order; None otherwise.
    """

    event_ids: np.ndarray | None = None

    def __init__(self, nodes: Sequence[Node], columns: dict[str, np.ndarray],
                 texts: Sequence[str] = (), dropped: int = 0, decisions: Decisions | None = None,
                 gauges: dict[str, Gauge] | None = None) -> None:
        self.nodes = list(nodes)
        self.columns = columns
        self.texts = list(texts)
        self.dropped = int(dropped)
        self.decisions = decisions if decisions is not None else Decisions()
        self.gauges = dict(gauges or {})
        self._events: list[Event] | None = None
        self._causes: dict[int, tuple[str, bool]] | None = None

    # -- construction ------------------------------------------------------
    @classmethod
    def empty(cls) -> "Trace":
        """A trace with no events."""
        columns = {name: np.zeros(0, dtype) for name, dtype in COLUMNS.items()}
        columns["input_offsets"] = np.zeros(1, np.int64)
        columns["input_ids"] = np.zeros(0, np.int64)
        return cls([], columns)

    @classmethod
    def from_exports(cls, exports: Iterable[dict], since_ns: int = 0) -> "Trace":
        """Merge ``Recorder.export()`` results (or mirrors' ``export_parts()``) from several processes.

        Events that started before ``since_ns`` (driver clock) are left out.
        """
        builder = _Builder()
        for export in exports:
            builder.add_export(export, since_ns)
        return builder.build()

    @classmethod
    def from_records(cls, records: Iterable[dict], nodes: Iterable[Node] = ()) -> "Trace":
        """Build a trace from ``to_records()``-style dicts (one per event).

        Raises
        ------
        TraceFormatError
            If a record lacks a field or has a value of the wrong kind.
        """
        builder = _Builder()
        for node in nodes:
            builder.node_index(node)
        for position, record in enumerate(records):
            builder.add_record(record, position)
        return builder.build()

    # -- reading -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self.columns["node"])

    def __repr__(self) -> str:
        return (f"Trace({len(self)} events, {len(self.nodes)} nodes, "
                f"{len(self.processes)} processes, {self.dropped} dropped)")

    @property
    def processes(self) -> list[str]:
        """The processes that recorded events, in lane order: the lanes the timeline and the Explorer draw.

        A process is a ``Node.where`` (``"driver"``, ``"shard-0"``,
        ``"RolloutWorker-1"``), not an OS process: lanes that share one OS
        process (RLlib 2.x's local env runner and learner beside the driver)
        count apart, and a restarted actor stays one process.
        """
        used = np.unique(self.columns["node"]).tolist()
        return lane_order(self.nodes[i].where for i in used)

    @property
    def events(self) -> list[Event]:
        """The events as ``Event`` objects, ordered by start time."""
        if self._events is None:
            self._events = [self._event(i) for i in range(len(self))]
        return self._events

    def event(self, index: int) -> Event:
        """Event ``index`` (in ``events`` order), built alone: stepping through a big trace stays cheap.

        Raises
        ------
        IndexError
            If ``index`` is not in ``range(len(trace))``.
        """
        if not -len(self) <= index < len(self):
            raise IndexError(f"event index {index} out of range for a trace of {len(self)} events")
        if self._events is not None:
            return self._events[index]
        return self._event(index % len(self))

    def to_records(self) -> list[dict]:
        """The events as plain dicts, the inverse of ``from_records`` (``why`` only where there is one)."""
        records = []
        for event in self.events:
            record = dict(event.__dict__)
            record["inputs"] = list(event.inputs)
            if record["why"] is None:
                del record["why"]
            if event.dropped:                       # only filters drop: other records stay as they were
                record["dropped"] = list(event.dropped)
            else:
                del record["dropped"]
            records.append(record)
        return records

    def item_summary(self, index: int) -> str | None:
        """The short text of event ``index``'s item, or None."""
        c = self.columns
        return format_summary(int(c["item_kind"][index]), int(c["item_num"][index]), self.texts)

    def why(self, index: int) -> str | None:
        """Why event ``index`` happened: a union's scheduling decision, the state that made it not ready or made
        the input it dropped (read from the gauges, ``rlviz.trace.causes``), both, or None."""
        row = self.decisions.row_of(index)
        cause, not_ready = self.causes().get(index, (None, True))
        return with_cause(None if row is None else self.decisions.sentence(row), cause, not_ready)

    def causes(self) -> dict[int, tuple[str, bool]]:
        """Per event with a cause (its index): the state behind its not-ready or its dropped input, read from the
        gauges (``rlviz.trace.causes.event_causes``), and whether it is a not-ready cause; computed once."""
        if self._causes is None:
            links = self.links()
            dropped = (links[0][links.dropped], links[1][links.dropped])
            self._causes = event_causes(self.columns, self.nodes, self.gauges, dropped) if self.gauges else {}
        return self._causes

    def inputs_of(self, index: int) -> tuple[int, ...]:
        """Ids of the values event ``index`` consumed (dropped ones included)."""
        offsets = self.columns["input_offsets"]
        return tuple(int(v) for v in input_id(self.columns["input_ids"][offsets[index]:offsets[index + 1]]))

    def dropped_of(self, index: int) -> tuple[int, ...]:
        """Ids of the values event ``index`` consumed and dropped (a filter's rejected items)."""
        offsets = self.columns["input_offsets"]
        values = self.columns["input_ids"][offsets[index]:offsets[index + 1]]
        return tuple(int(v) for v in input_id(values[is_dropped(values)]))

    @property
    def start_ns(self) -> int:
        """Start of the earliest event (0 for an empty trace)."""
        starts = self.columns["start_ns"]
        return int(starts.min()) if len(starts) else 0

    def links(self) -> Links:
        """Producer and consumer event indices for every value passed on, and which were dropped.

        A value is linked when both the event that produced it and an event
        that consumed it are in the trace.  ``links().dropped`` marks the
        links whose consumer dropped the value; ``links().kept`` leaves them out.
        """
        c = self.columns
        counts = np.diff(c["input_offsets"])
        consumers = np.repeat(np.arange(len(self)), counts)
        marked = c["input_ids"]
        wanted = input_id(marked)
        ids = c["item_id"]
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        slots = np.searchsorted(sorted_ids, wanted)
        slots = np.clip(slots, 0, max(len(sorted_ids) - 1, 0))
        found = (sorted_ids[slots] == wanted) if len(sorted_ids) else np.zeros(len(wanted), bool)
        return Links(order[slots[found]], consumers[found], is_dropped(marked[found]))

    # -- views and exports (each lives in its own module) ------------------
    def save(self, path: str) -> None:
        """Write the trace as JSON (never pickle)."""
        save_trace(self, path)

    @classmethod
    def load(cls, path: str) -> "Trace":
        """Read a trace written by ``save``; raises ``TraceFormatError`` if it is not one."""
        return cls(**read_trace(path))

    def to_chrome(self, path: str) -> None:
        """Write Chrome trace-event JSON that Perfetto and chrome://tracing open (gzip-compressed if ``path`` ends in ``.gz``)."""
        from rlviz.trace.chrome import write_chrome
        write_chrome(self, path)

    def graph(self) -> "nx.DiGraph":
        """The dataflow graph annotated with what the trace saw (networkx)."""
        from rlviz.trace.analysis import trace_graph
        return trace_graph(self)

    def sequence(self, ops: Iterable[str] | None = None, by: str = "label") -> list[str]:
        """Labels (``by="op"``: op names) of item-producing events in completion order.

        ``ops`` keeps only nodes whose op name, label or op_id is listed.
        """
        from rlviz.trace.analysis import item_sequence
        return item_sequence(self, ops, by)

    def op_stats(self) -> list[dict]:
        """Per-node counts and busy time, one dict per node."""
        from rlviz.trace.analysis import op_stats
        return op_stats(self)

    def summary(self) -> str:
        """A printable per-node table: calls, items, not-ready, errors, time."""
        from rlviz.trace.analysis import summary_table
        return summary_table(self)

    # -- helpers -----------------------------------------------------------
    def _event(self, i: int) -> Event:
        c = self.columns
        node = self.nodes[c["node"][i]]
        item_id = int(c["item_id"][i])
        return Event(op=node.op, label=node.label, op_id=node.op_id, where=node.where,
                     pid=int(c["pid"][i]), start_ns=int(c["start_ns"][i]), end_ns=int(c["end_ns"][i]),
                     outcome=OUTCOMES[c["outcome"][i]], item=self.item_summary(i),
                     item_id=item_id if item_id >= 0 else None, inputs=self.inputs_of(i),
                     dropped=self.dropped_of(i), why=self.why(i))


class _Builder:
    """Collects events from exports or records, then sorts them into a Trace."""

    def __init__(self) -> None:
        self.table = NodeTable()
        self.nodes = self.table.nodes
        self.texts = TextTable(capacity=SIZED_NAME_MASK + 1)
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in COLUMNS}
        self.count = 0                              # events added so far
        self.input_owner: list[np.ndarray] = []     # (event number, input id) pairs, in input order
        self.input_value: list[np.ndarray] = []
        self.dropped = 0
        self.decisions: list[dict] = []             # decoded decision rows: "event" (event number), the fields
        self.gauges = GaugeParts()

    def node_index(self, node: Node) -> int:
        return self.table.add(node)

    def add_export(self, export: dict, since_ns: int = 0) -> None:
        """Add one process's rows: headers name nodes and ids, continuation rows become inputs; old events are left out.

        The rows are ``export["data"]``, or the joined ``export["parts"]`` of ``RecorderMirror.export_parts()``.
        """
        data = b"".join(export["parts"]) if "parts" in export else export["data"]
        rows = np.frombuffer(data, dtype=np.int64).reshape(-1, FIELDS)
        rows, gauge_rows = split_gauges(rows)
        self.gauges.add(gauge_rows, int(export["pid"]), export["texts"], int(export.get("offset_ns", 0)), since_ns)
        rows, decision_owner, decision_rows = split_decisions(rows)
        rows, row_node, row_item_id = _split_headers(rows)
        rows, owner, value, event_rows = _split_continuations(rows)
        row_node, row_item_id = row_node[event_rows], row_item_id[event_rows]
        offset = int(export.get("offset_ns", 0))
        keep = rows[:, 0] + offset >= since_ns
        rows, row_node, row_item_id = rows[keep], row_node[keep], row_item_id[keep]
        renumber = np.cumsum(keep) - 1
        kept_input = keep[owner]
        self._add_inputs(renumber[owner[kept_input]], value[kept_input])
        self.dropped += int(export.get("dropped", 0))
        node_map = np.array([self.node_index(Node.from_dict(d)) for d in export["nodes"]] or [0], np.int32)
        self._add_decisions(decision_owner, decision_rows, keep, renumber, node_map)
        text_map = np.array([self.texts.intern(t) for t in export["texts"]] or [0], np.int64)
        outcome = outcome_of(rows[:, 2]).astype(np.uint8)
        kind = kind_of(rows[:, 2]).astype(np.uint8)
        number = rows[:, 3].copy()
        is_text = kind == KIND_TEXT
        number[is_text] = text_map[number[is_text]]
        is_sized = kind == KIND_SIZED
        mask = SIZED_NAME_MASK
        number[is_sized] = (number[is_sized] & ~mask) | text_map[number[is_sized] & mask]
        n = len(rows)
        self._append(node=node_map[row_node], pid=np.full(n, export["pid"]),
                     start_ns=rows[:, 0] + offset, end_ns=rows[:, 1] + offset,
                     outcome=outcome, item_kind=kind, item_num=number, item_id=row_item_id)
        self.count += n

    def add_record(self, record: dict, position: int) -> None:
        _check_record(record, position)
        node = Node(record["op_id"], record["op"], record["label"], record["where"])
        outcome = OUTCOMES.index(record["outcome"])
        item = record.get("item")
        item_id = record.get("item_id")
        self._append(node=[self.node_index(node)], pid=[record["pid"]],
                     start_ns=[record["start_ns"]], end_ns=[record["end_ns"]], outcome=[outcome],
                     item_kind=[KIND_TEXT if item is not None else 0],
                     item_num=[self.texts.intern(str(item)) if item is not None else 0],
                     item_id=[item_id if item_id is not None else -1])
        dropped = {int(v) for v in record.get("dropped", ())}
        inputs = [mark_dropped(int(v)) if int(v) in dropped else int(v) for v in record.get("inputs", ())]
        self._add_inputs(np.zeros(len(inputs), np.int64), np.array(inputs, np.int64))
        self.count += 1

    def build(self) -> Trace:
        columns = {name: (np.concatenate(parts).astype(COLUMNS[name]) if parts
                          else np.zeros(0, COLUMNS[name]))
                   for name, parts in self.parts.items()}
        order = np.lexsort((columns["end_ns"], columns["start_ns"]))
        columns = {name: values[order] for name, values in columns.items()}
        columns["input_offsets"], columns["input_ids"] = self._inputs_csr(order)
        decisions = {name: np.concatenate([part[name] for part in self.decisions]) if self.decisions
                     else np.zeros(0, np.int64) for name in ("event", *DECISION_ROW_FIELDS)}
        nodes, remap = self._seen_nodes(np.concatenate((columns["node"], decisions["union"])))
        columns["node"] = remap[columns["node"]].astype(np.int32) if len(remap) else columns["node"]
        position = np.empty(len(order), np.int64)
        position[order] = np.arange(len(order))
        decisions["event"], decisions["union"] = position[decisions["event"]], remap[decisions["union"]]
        return Trace(nodes, columns, self.texts.texts, self.dropped, Decisions.from_rows(decisions, columns, nodes),
                     self.gauges.build())

    def _add_decisions(self, owner: np.ndarray, rows: np.ndarray, keep: np.ndarray, renumber: np.ndarray,
                       node_map: np.ndarray) -> None:
        """Note the decision rows whose event was kept: its number among all events, and the union's node."""
        valid = owner >= 0
        valid[valid] = keep[owner[valid]]
        if not valid.any():
            return
        fields = decision_columns(rows[valid])
        fields["union"] = node_map[fields["union"]].astype(np.int64)
        self.decisions.append({"event": renumber[owner[valid]] + self.count, **fields})

    def _seen_nodes(self, used: np.ndarray) -> tuple[list[Node], np.ndarray]:
        """Nodes that have events, plus everything upstream of them; and the index remap."""
        by_id = {node.op_id: i for i, node in enumerate(self.nodes)}
        keep = set(np.unique(used).tolist()) if self.parts["node"] else set(range(len(self.nodes)))
        frontier = list(keep)
        while frontier:
            for parent in self.nodes[frontier.pop()].parents:
                index = by_id.get(parent)
                if index is not None and index not in keep:
                    keep.add(index)
                    frontier.append(index)
        ordered = sorted(keep)
        remap = np.zeros(len(self.nodes), np.int64)
        remap[ordered] = np.arange(len(ordered))
        return [self.nodes[i] for i in ordered], remap

    def _add_inputs(self, local_owner: np.ndarray, value: np.ndarray) -> None:
        """Record that event ``self.count + local_owner[i]`` consumed ``value[i]``."""
        self.input_owner.append(np.asarray(local_owner, np.int64) + self.count)
        self.input_value.append(np.asarray(value, np.int64))

    def _inputs_csr(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inputs as CSR arrays (offsets, ids) for events in ``order``, input order kept."""
        owner = np.concatenate(self.input_owner) if self.input_owner else np.zeros(0, np.int64)
        value = np.concatenate(self.input_value) if self.input_value else np.zeros(0, np.int64)
        new_position = np.empty(len(order), np.int64)
        new_position[order] = np.arange(len(order))
        owner = new_position[owner]
        by_owner = np.argsort(owner, kind="stable")
        counts = np.bincount(owner, minlength=len(order))
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), value[by_owner]

    def _append(self, **values) -> None:
        for name, value in values.items():
            self.parts[name].append(np.asarray(value))


def _split_headers(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows without chunk headers, with each row's node and (for item rows) its id.

    A header opens every chunk; the chunk's n-th item row has the header's
    first id plus n.
    """
    is_header = rows[:, 0] == HEADER
    chunk = np.cumsum(is_header) - 1
    headers = rows[is_header]
    is_item = (rows[:, 0] >= 0) & (outcome_of(rows[:, 2]) == ITEM)
    items_so_far = np.cumsum(is_item)
    rank = items_so_far - items_so_far[is_header][chunk] - 1
    item_id = np.where(is_item, headers[chunk, 2] + rank, -1)
    body = ~is_header
    return rows[body], headers[chunk[body], 1], item_id[body]


def _split_continuations(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Event rows, every input as a pair (event number, input id) in input order, and the event rows' positions.

    An event's first input is in its own row; continuation rows after it
    carry the rest (padded with -1).
    """
    is_event = rows[:, 0] >= 0
    event_rows = np.flatnonzero(is_event)
    events = rows[event_rows]
    first = events[:, 4]
    has_first = np.flatnonzero(first != NO_INPUT)
    owner_of_row = np.cumsum(is_event) - 1
    extra_rows = np.flatnonzero(~is_event)
    extra = rows[extra_rows, 1:]
    extra_owner = np.repeat(owner_of_row[extra_rows], extra.shape[1])
    extra = extra.ravel()
    real = extra != NO_INPUT
    owner = np.concatenate((has_first, extra_owner[real]))
    value = np.concatenate((first[has_first], extra[real]))
    # first inputs come before continuation inputs of the same event, which stay in row order
    rank = np.concatenate((np.zeros(len(has_first), np.int64), np.arange(1, real.sum() + 1)))
    order = np.lexsort((rank, owner))
    return events, owner[order], value[order], event_rows


def _check_record(record: object, position: int) -> None:
    if not isinstance(record, dict):
        raise TraceFormatError(f"record {position} is a {type(record).__name__}, expected a dict "
                               f"with keys {', '.join(_RECORD_KEYS)}")
    missing = [key for key in _RECORD_KEYS if key not in record]
    if missing:
        raise TraceFormatError(f"record {position} lacks {', '.join(missing)}; "
                               f"every record needs {', '.join(_RECORD_KEYS)}")
    if record["outcome"] not in OUTCOMES:
        raise TraceFormatError(f"record {position} has outcome {record['outcome']!r}; "
                               f"expected one of {', '.join(OUTCOMES)}")
    for key in ("pid", "start_ns", "end_ns"):
        if not isinstance(record[key], int) or isinstance(record[key], bool):
            raise TraceFormatError(f"record {position} has {key}={record[key]!r}; expected an int")
    for key in ("op", "label", "op_id", "where"):
        if not isinstance(record[key], str):
            raise TraceFormatError(f"record {position} has {key}={record[key]!r}; expected a str")
