"""``Trace``: the recorded events of one ``rlviz.record()`` block, held as columns.

Columns are numpy arrays (one entry per event), so large traces are drawn and
analysed without building a Python object per event; ``events`` and
``to_records()`` materialise them on request.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.event import OUTCOMES, Event, Node, NodeTable
from rlviz.trace.causes import event_causes, with_cause
from rlviz.trace.decisions import Decisions
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import Gauge
from rlviz.trace.schema import COLUMNS, TraceFormatError
from rlviz.trace.items import KIND_TEXT, SIZED_NAME_MASK, TextTable, format_summary
from rlviz.trace.io import read_trace, save_trace
from rlviz.trace.lanes import lane_order
from rlviz.trace.rows import input_id, is_dropped, mark_dropped
from rlviz.trace.words import counted

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
    decisions : Decisions or callable, optional
        The scheduling decisions of the unions that ran (``rlviz.trace.decisions``),
        or a function of no arguments that returns them, called the first time
        they are read (a spill file's: building them reads its columns).
    gauges : dict of str to Gauge or callable, optional
        The gauges read during the run (``rlviz.trace.gauges``): per name,
        arrays ``time_ns``, ``value``, ``pid`` and ``where`` (the lane), by time;
        or a function of no arguments that returns them, called the first time
        they are read (a loaded file's: it reads the readings' columns).
    gaps : sequence of Gap, optional
        Where each process's ``dropped`` events lay (``rlviz.trace.gaps``),
        for a trace taken from recorders that evicted some; empty otherwise.

    Attributes
    ----------
    event_ids : ndarray or None
        For a view of a growing store (``rlviz.trace.store``), each event's
        stable id there, in this trace's order; None otherwise.
    """

    event_ids: np.ndarray | None = None

    def __init__(self, nodes: Sequence[Node], columns: dict[str, np.ndarray],
                 texts: Sequence[str] = (), dropped: int = 0,
                 decisions: Decisions | Callable[[], Decisions] | None = None,
                 gauges: dict[str, Gauge] | Callable[[], dict[str, Gauge]] | None = None, gaps: Sequence[Gap] = ()) -> None:
        self.nodes = list(nodes)
        self.columns = columns
        self.texts = list(texts)
        self.dropped = int(dropped)
        self._decisions = decisions if decisions is not None else Decisions()
        self._gauges = gauges if callable(gauges) else dict(gauges or {})
        self.gaps: tuple[Gap, ...] = tuple(gaps)
        self._events: list[Event] | None = None
        self._causes: dict[int, tuple[str, bool]] | None = None
        self._links: Links | None = None

    # -- construction ------------------------------------------------------
    @classmethod
    def empty(cls) -> "Trace":
        """A trace with no events."""
        columns = {name: np.zeros(0, dtype) for name, dtype in COLUMNS.items()}
        columns["input_offsets"] = np.zeros(1, np.int64)
        columns["input_ids"] = np.zeros(0, np.int64)
        return cls([], columns)

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
        return (f"Trace({counted(len(self), 'event')}, {counted(len(self.nodes), 'node')}, "
                f"{counted(len(self.processes), 'process')}, {self.dropped} dropped)")

    @property
    def gauges(self) -> dict[str, Gauge]:
        """The gauges read during the run, ``{name: Gauge}``; a loaded file's readings are read here, once."""
        if callable(self._gauges):
            self._gauges = self._gauges()
        return self._gauges

    @gauges.setter
    def gauges(self, gauges: dict[str, Gauge]) -> None:
        self._gauges = dict(gauges)

    @property
    def decisions(self) -> Decisions:
        """The unions' scheduling decisions (``rlviz.trace.decisions``); a loaded spill file's are built here, once."""
        if not isinstance(self._decisions, Decisions):
            self._decisions = self._decisions()
        return self._decisions

    @property
    def processes(self) -> list[str]:
        """The processes that recorded events, in lane order: the lanes the timeline and the Explorer draw.

        A process is a ``Node.where`` (``"driver"``, ``"shard-0"``,
        ``"RolloutWorker-1"``), not an OS process: lanes that share one OS
        process (RLlib 2.x's local env runner and learner beside the driver)
        count apart, and a restarted actor stays one process.
        """
        return lane_order(self.nodes[i].where for i in self.used_nodes())

    def used_nodes(self) -> list[int]:
        """The nodes (indices into ``nodes``) that have events, in index order.

        Counted in one pass (``bincount``), not sorted: 15 ms at 10M events.
        """
        node = self.columns["node"]
        return np.flatnonzero(np.bincount(node, minlength=len(self.nodes))).tolist() if len(node) else []

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
        Worked out once (seconds at 10M events), as ``events`` are.
        """
        if self._links is None:
            self._links = self._find_links()
        return self._links

    def _find_links(self) -> Links:
        c = self.columns
        counts = np.diff(c["input_offsets"])
        consumers = np.repeat(np.arange(len(self)), counts)
        marked = c["input_ids"]
        producers = _producers(c["item_id"], input_id(marked))
        found = producers >= 0
        return Links(producers[found], consumers[found], is_dropped(marked[found]))

    # -- views and exports (each lives in its own module) ------------------
    def save(self, path: str) -> None:
        """Write the trace in the rlviz trace format (``rlviz.trace.spill``; data only, never pickle).

        Events, gaps, decisions and gauges are kept; ``load`` reads them back.
        """
        save_trace(self, path)

    @classmethod
    def load(cls, path: str) -> "Trace":
        """Read a trace written by ``save`` or ``record(spill=...)`` (or a JSON one of version 1), columns lazily.

        Raises
        ------
        TraceFormatError
            If the file is not one, is of a version this rlviz does not read, or is damaged.
        """
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
    """Collects ``from_records`` dicts, then sorts them into a Trace.

    Recorders' rows are read by one decoder only, a store's
    (``rlviz.trace.ingest``; ``rlviz.trace.store.merge_exports`` for finished exports), never here.
    """

    def __init__(self) -> None:
        self.table = NodeTable()
        self.nodes = self.table.nodes
        self.texts = TextTable(capacity=SIZED_NAME_MASK + 1)
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in COLUMNS}
        self.count = 0                              # events added so far
        self.input_owner: list[np.ndarray] = []     # (event number, input id) pairs, in input order
        self.input_value: list[np.ndarray] = []

    def node_index(self, node: Node) -> int:
        return self.table.add(node)

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
        nodes, remap = self._seen_nodes(columns["node"])
        columns["node"] = remap[columns["node"]].astype(np.int32) if len(remap) else columns["node"]
        return Trace(nodes, columns, self.texts.texts)

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


def _producers(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Per wanted item id, the first event (lowest index) whose item has that id; -1 where none has.

    A recorder's ids are few for the events (each chunk reserves a run of
    them), so a table indexed by id answers without sorting; ids spread
    wider than that are found by a sort.
    """
    top = int(ids.max(initial=-1))
    if top < 4 * len(ids) + 1024 and int(wanted.min(initial=0)) >= 0:
        table = np.full(top + 2, -1, np.int64)              # the last slot answers every id past the top
        made = np.flatnonzero(ids >= 0)
        table[ids[made][::-1]] = made[::-1]                 # assigned last, the first event of an id wins
        return table[np.minimum(wanted, top + 1)]
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    slots = np.clip(np.searchsorted(sorted_ids, wanted), 0, max(len(sorted_ids) - 1, 0))
    found = (sorted_ids[slots] == wanted) if len(sorted_ids) else np.zeros(len(wanted), bool)
    return np.where(found, order[slots] if len(sorted_ids) else -1, -1)


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
