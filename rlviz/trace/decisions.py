"""Why each pull of a union happened: its scheduling decisions, recorded as data, and the sentence they make.

A round-robin or async union (and so ``Concurrently``) writes one decision
row per pull of a child into this process's ``DecisionLog``: the round, whose
turn it is, which pull of how many that round allows, what the pull gave,
and flags (a ``"*"`` turn that hit its cap, a turn ended by not-ready, an
item dropped by ``output_indexes``).  ``Decisions`` is the trace's side
table of those rows, each tied to the events the pull made; ``why_sentence``
turns one row into the sentence ``Event.why`` shows.  This module is the
only owner of the layout (``DECISION_FIELDS``, the flag bits).
"""
from __future__ import annotations

import threading
from array import array
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from rlviz.trace.event import OUTCOMES

__all__ = ["DECISION_FIELDS", "CAP", "STAR", "TURN_ENDED", "DROPPED", "DecisionLog", "Decisions",
           "get_decision_log", "why_sentence", "DEFAULT_DECISION_CAPACITY"]

#: One decision row, as int64s in this order.  ``union`` indexes the specs, ``child`` the union's
#: children, ``pull`` counts from 1 within the turn, ``allowed`` is how many pulls the turn allows
#: (the weight drawn this round; the cap for "*"), ``outcome`` indexes ``OUTCOMES``, ``start_ns`` and
#: ``end_ns`` bracket the child's ``next()`` call.
DECISION_FIELDS = ("union", "round", "child", "pull", "allowed", "outcome", "flags", "start_ns", "end_ns")
#: Flag bits of a decision row.
STAR, CAP, TURN_ENDED, DROPPED = 1, 2, 4, 8
#: Decision rows a process keeps (the oldest go first).
DEFAULT_DECISION_CAPACITY = 1_000_000

_WIDTH = len(DECISION_FIELDS)
_ITEM, _NOT_READY, _STOP = (OUTCOMES.index(name) for name in ("item", "not_ready", "stop"))


class DecisionLog:
    """This process's decision rows (bounded) and the unions they belong to.

    A union describes itself once (``describe``) and then appends one row per
    pull (``add``); ``export`` hands both to ``Trace.from_exports``.
    """

    def __init__(self, capacity: int = DEFAULT_DECISION_CAPACITY) -> None:
        self.capacity = capacity
        self.specs: list[dict] = []
        self._spec_index: dict[str, int] = {}
        self._rows: deque[array] = deque()
        self._open = array("q")
        self._held = 0
        self.lock = threading.Lock()

    def describe(self, op_id: str, **facts) -> int:
        """Register (or add ``facts`` to) the union ``op_id``: children names, node ids, weights, output_indexes."""
        with self.lock:
            index = self._spec_index.get(op_id)
            if index is None:
                index = self._spec_index[op_id] = len(self.specs)
                self.specs.append({"op_id": op_id, "children": [], "child_ids": [], "weights": [],
                                   "output_indexes": None})
            self.specs[index].update(facts)
        return index

    def add(self, union: int, round_: int, child: int, pull: int, allowed: int, outcome: int, flags: int,
            start_ns: int, end_ns: int) -> None:
        """Append one decision row."""
        with self.lock:
            self._open.extend((union, round_, child, pull, allowed, outcome, flags, start_ns, end_ns))
            if len(self._open) >= 4096 * _WIDTH:
                self._rows.append(self._open)
                self._held += len(self._open) // _WIDTH
                self._open = array("q")
                while len(self._rows) > 1 and self._held > self.capacity:
                    self._held -= len(self._rows.popleft()) // _WIDTH

    def forget_ended_before(self, end_ns: int) -> int:
        """Let go of the oldest full blocks of rows whose every pull ended before ``end_ns``; return how many rows.

        For a ``record(window_s=...)`` block, whose trace keeps no older event to tie them to.
        """
        end = DECISION_FIELDS.index("end_ns")
        with self.lock:
            forgotten = 0
            while self._rows and max(self._rows[0][end::_WIDTH]) < end_ns:
                rows = len(self._rows.popleft()) // _WIDTH
                self._held -= rows
                forgotten += rows
            return forgotten

    def export(self) -> dict:
        """The specs and every held row (as one int64 array, ``DECISION_FIELDS`` per row)."""
        with self.lock:
            data = b"".join([*(part.tobytes() for part in self._rows), self._open.tobytes()])
            specs = [dict(spec) for spec in self.specs]
        return {"specs": specs, "rows": np.frombuffer(data, np.int64).reshape(-1, _WIDTH).copy()}


_LOG = DecisionLog()


def get_decision_log() -> DecisionLog:
    """This process's decision log."""
    return _LOG


@dataclass
class Decisions:
    """A trace's decision rows, one per pull a union made, tied to the events of that pull.

    ``columns`` has one int64 array per name in ``DECISION_FIELDS`` plus
    ``event`` (the child's top-node event of the pull, -1 if not in the trace)
    and ``union_event`` (the union's own event that yielded its result, -1
    when the union yielded nothing, e.g. a not-ready that ended a blocking turn).
    ``specs`` describes each union: ``op_id``, ``op``, ``children`` (op names),
    ``child_ids`` (node ids per child), ``weights`` and ``output_indexes``.
    """

    specs: list[dict] = field(default_factory=list)
    columns: dict[str, np.ndarray] = field(default_factory=lambda: _empty_columns())
    _by_event: dict[int, int] | None = field(default=None, repr=False)
    _next_child: np.ndarray | None = field(default=None, repr=False)
    _sentences: dict[int, str] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.columns["round"])

    @classmethod
    def resolve(cls, exports: list[dict], trace_columns: dict, nodes: list) -> "Decisions":
        """Decisions from ``DecisionLog.export()`` results, tied to the events of a built trace.

        Rows whose pull started before an export's ``since_ns`` (if given) are left out.
        """
        specs: list[dict] = []
        parts = []
        for export in exports:
            base = len(specs)
            specs.extend(dict(spec) for spec in export["specs"])
            rows = np.asarray(export["rows"], np.int64).reshape(-1, _WIDTH)
            rows = rows[rows[:, DECISION_FIELDS.index("start_ns")] >= export.get("since_ns", 0)].copy()
            rows[:, 0] += base
            parts.append(rows)
        rows = np.concatenate(parts) if parts else np.zeros((0, _WIDTH), np.int64)
        columns = {name: rows[:, i].copy() for i, name in enumerate(DECISION_FIELDS)}
        # the log is process-wide: keep only the unions that decided something in this trace
        used = np.unique(columns["union"])
        specs = [specs[i] for i in used.tolist()]
        columns["union"] = np.searchsorted(used, columns["union"]).astype(np.int64)
        node_of = {node.op_id: i for i, node in enumerate(nodes)}
        for spec in specs:
            spec["op"] = nodes[node_of[spec["op_id"]]].op if spec["op_id"] in node_of else "union"
        columns["event"] = _match(columns, specs, trace_columns, node_of, inside=True)
        columns["union_event"] = _last_per_event(_match(columns, specs, trace_columns, node_of, inside=False))
        return cls(specs, columns)

    def row_of(self, event: int) -> int | None:
        """The decision row behind event ``event`` (its child's pull, or the union's call that yielded it)."""
        if self._by_event is None:
            by_event = {int(e): row for row, e in enumerate(self.columns["union_event"].tolist()) if e >= 0}
            by_event.update((int(e), row) for row, e in enumerate(self.columns["event"].tolist()) if e >= 0)
            self._by_event = by_event
        return self._by_event.get(int(event))

    def record(self, row: int) -> dict:
        """Decision row ``row`` as a plain dict, with the union's op, the child's name and the flags spelled out."""
        values = {name: int(self.columns[name][row]) for name in self.columns}
        spec = self.specs[values["union"]]
        flags = values["flags"]
        return {**values, "union_op": spec.get("op", "union"), "op": _name(spec, values["child"]),
                "weight": spec["weights"][values["child"]] if values["child"] < len(spec["weights"]) else None,
                "outcome": OUTCOMES[values["outcome"]], "star": bool(flags & STAR), "cap": bool(flags & CAP),
                "turn_ended": bool(flags & TURN_ENDED), "dropped": bool(flags & DROPPED),
                "next_op": self._next_op(row)}

    def sentence(self, row: int) -> str:
        """``why_sentence`` of row ``row`` (kept: a pull's child call and the union's call share it)."""
        text = self._sentences.get(row)
        if text is None:
            text = self._sentences[row] = why_sentence(self.record(row))
        return text

    def to_json(self) -> dict:
        """JSON-ready data (``from_json`` reads it back)."""
        return {"specs": self.specs, "columns": {name: values.tolist() for name, values in self.columns.items()}}

    @classmethod
    def from_json(cls, data: dict) -> "Decisions":
        """Decisions from ``to_json`` data; ``ValueError`` if it does not have their shape."""
        if not isinstance(data, dict) or not isinstance(data.get("specs"), list) \
                or not isinstance(data.get("columns"), dict):
            raise ValueError("\"decisions\" must be an object with a \"specs\" list and a \"columns\" object")
        names = (*DECISION_FIELDS, "event", "union_event")
        raw = data["columns"]
        if set(raw) != set(names) or not all(isinstance(raw[n], list) and all(type(v) is int for v in raw[n])
                                             for n in names):
            raise ValueError(f"\"decisions\" columns must be integer lists named {', '.join(names)}")
        columns = {name: np.array(raw[name], np.int64) for name in names}
        if len({len(v) for v in columns.values()}) > 1:
            raise ValueError("\"decisions\" columns differ in length")
        specs = data["specs"]
        if len(columns["union"]) and (columns["union"].min() < 0 or columns["union"].max() >= len(specs)):
            raise ValueError("a decision refers to a union outside \"specs\"")
        for spec in specs:
            if not isinstance(spec, dict) or not isinstance(spec.get("children"), list) \
                    or not isinstance(spec.get("weights"), list):
                raise ValueError("each decision spec must be an object with \"children\" and \"weights\" lists")
        return cls(specs, columns)

    def rounds(self, union: int) -> list[dict]:
        """Union ``union``'s polls grouped by round, in the order they were made.

        The rule the Explorer's order pane draws (``roundRows`` in its
        ``explorer_core.js``; a parity test holds the two together): a poll is
        a decision row of that union whose outcome is an item or not-ready (a
        child that leaves the union is not a poll of a turn); consecutive
        polls with the same round number form one round.

        Parameters
        ----------
        union : int
            Index of the union in ``specs``.

        Returns
        -------
        list of dict
            One ``{"round": n, "cells": [{"child", "not_ready", "event"}, ...]}``
            per round; ``event`` is the child's call, else the union's, -1
            when neither is in the trace.

        Raises
        ------
        IndexError
            If ``union`` names no union of ``specs``.
        """
        if not 0 <= union < len(self.specs):
            raise IndexError(f"union {union} is not one of this trace's {len(self.specs)} unions "
                             f"(0..{len(self.specs) - 1})")
        c = self.columns
        polls = np.flatnonzero((c["union"] == union) & ((c["outcome"] == _ITEM) | (c["outcome"] == _NOT_READY)))
        rounds: list[dict] = []
        for row in polls.tolist():
            number = int(c["round"][row])
            if not rounds or rounds[-1]["round"] != number:
                rounds.append({"round": number, "cells": []})
            event = int(c["event"][row]) if c["event"][row] >= 0 else int(c["union_event"][row])
            rounds[-1]["cells"].append({"child": int(c["child"][row]),
                                        "not_ready": bool(c["outcome"][row] == _NOT_READY), "event": event})
        return rounds

    def next_children(self) -> np.ndarray:
        """Per row, the child the same union pulled next (-1 after its last row); computed once."""
        if self._next_child is None:
            union, child = self.columns["union"], self.columns["child"]
            following = np.full(len(union), -1, np.int64)
            for one in np.unique(union):
                rows = np.flatnonzero(union == one)
                following[rows[:-1]] = child[rows[1:]]
            self._next_child = following
        return self._next_child

    def _next_op(self, row: int) -> str | None:
        child = int(self.next_children()[row])
        return None if child < 0 else _name(self.specs[int(self.columns["union"][row])], child)


def why_sentence(record: dict) -> str:
    """The sentence for one ``Decisions.record()``: which round, whose turn, which pull, and what comes next.

    Examples
    --------
    >>> why_sentence({"round": 12, "op": "StoreToReplayBuffer", "pull": 2, "allowed": 2, "outcome": "item",
    ...               "star": False, "cap": False, "turn_ended": False, "dropped": False, "weight": 2,
    ...               "next_op": "TrainOneStep"})
    'round 12: StoreToReplayBuffer, pull 2 of 2; next TrainOneStep'
    """
    op, star = record["op"], record["star"]
    who = f"{op} ('*')" if star else op
    following = record["next_op"]
    if record["outcome"] == "not_ready":
        made = record["pull"] - 1
        done = f"after {made} item{'' if made == 1 else 's'} " if star and made else ""
        text = f"round {record['round']}: {who} not ready {done}: its turn ends".replace(" :", ":")
        return text + (f", {following} next" if following else "")
    if record["outcome"] == "stop":
        return f"round {record['round']}: {who} is exhausted and leaves the union" + \
            (f", {following} next" if following else "")
    if record["cap"]:
        text = f"round {record['round']}: {who}: {_ordinal(record['pull'])} pull this turn, the cap — it is always ready"
    elif star:
        text = f"round {record['round']}: {who}, pull {record['pull']} (up to {record['allowed']} while ready)"
    else:
        text = f"round {record['round']}: {op}, pull {record['pull']} of {record['allowed']}"
        weight = record.get("weight")
        if isinstance(weight, float) and not weight.is_integer():
            text += f" (weight {weight:g} drew {record['allowed']} this round)"
    if record["dropped"]:
        text += ", its item dropped by output_indexes"
    last_of_turn = record["cap"] or (not star and record["pull"] >= record["allowed"])
    if following and (last_of_turn or following != op):
        text += f"; next {following}"
    return text


# -- helpers ------------------------------------------------------------------
def _empty_columns() -> dict[str, np.ndarray]:
    return {name: np.zeros(0, np.int64) for name in (*DECISION_FIELDS, "event", "union_event")}


def _name(spec: dict, child: int) -> str:
    names = spec.get("children", [])
    return names[child] if child < len(names) else f"child {child}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _last_per_event(events: np.ndarray) -> np.ndarray:
    """Keep each event only on the last row that names it: a union's call that took several pulls yielded the last."""
    result = np.full(len(events), -1, np.int64)
    named = np.flatnonzero(events >= 0)
    reverse = named[::-1]
    _, first_from_end = np.unique(events[reverse], return_index=True)
    last = reverse[first_from_end]
    result[last] = events[last]
    return result


def _match(columns: dict, specs: list[dict], trace: dict, node_of: dict, *, inside: bool) -> np.ndarray:
    """Per decision, the event of the child's top node inside its pull window (``inside``), or the
    union's event around it (not ``inside``); -1 where there is none."""
    result = np.full(len(columns["round"]), -1, np.int64)
    node_column, starts, ends = trace["node"], trace["start_ns"], trace["end_ns"]
    for union, spec in enumerate(specs):
        for child in range(len(spec.get("child_ids", [])) if inside else 1):
            rows = np.flatnonzero((columns["union"] == union) & ((columns["child"] == child) if inside else True))
            op_id = spec["child_ids"][child][-1] if inside else spec["op_id"]
            if not len(rows) or op_id not in node_of:
                continue
            events = np.flatnonzero(node_column == node_of[op_id])
            t0, t1 = columns["start_ns"][rows], columns["end_ns"][rows]
            if inside:      # the first event of the node starting at or after t0 that ends by t1
                slot = np.searchsorted(starts[events], t0, "left")
                ok = slot < len(events)
                found = events[np.minimum(slot, max(len(events) - 1, 0))] if len(events) else slot
                ok &= (starts[found] <= t1) & (ends[found] <= t1) if len(events) else ok
            else:           # the last union event starting by t0 that ends at or after t1
                slot = np.searchsorted(starts[events], t0, "right") - 1
                ok = slot >= 0
                found = events[np.maximum(slot, 0)] if len(events) else slot
                ok &= (ends[found] >= t1) if len(events) else ok
            result[rows[ok]] = found[ok]
    return result
