"""Why each pull of a union happened: its scheduling decisions, recorded as data, and the sentence they make.

A round-robin or async union (and so ``Concurrently``) writes one decision
row per pull of a child into the child's own rows, right after the event of
that pull (``rlviz.trace.rows.DECISION``): the round, whose turn it is,
which pull of how many that round allows, and flags (a ``"*"`` turn that
hit its cap, a turn ended by not-ready).  So decisions travel with the
events they explain, through the same cursor and mirrors, from every
process.  ``Decisions`` is a trace's table of them, each tied to the events
of its pull by identity; ``why_sentence`` turns one into the sentence
``Event.why`` shows.  This module owns the flag bits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlviz.trace.event import OUTCOMES, Node
from rlviz.trace.rows import input_id

__all__ = ["DECISION_FIELDS", "CAP", "STAR", "TURN_ENDED", "DROPPED", "Decisions", "why_sentence", "union_spec"]

#: The columns of a decision, as int64s in this order.  ``union`` indexes the specs, ``child`` the union's
#: children, ``pull`` counts from 1 within the turn, ``allowed`` is how many pulls the turn allows
#: (the weight drawn this round; the cap for "*"), ``outcome`` indexes ``OUTCOMES``, ``start_ns`` and
#: ``end_ns`` bracket the child's ``next()`` call (all but ``union`` read from the child's event).
DECISION_FIELDS = ("union", "round", "child", "pull", "allowed", "outcome", "flags", "start_ns", "end_ns")
#: Flag bits of a decision.  The recorder writes STAR, CAP and TURN_ENDED; DROPPED (an item that
#: ``output_indexes`` leaves out) is read from the union's node when the trace is built.
STAR, CAP, TURN_ENDED, DROPPED = 1, 2, 4, 8

_ITEM, _NOT_READY, _STOP = (OUTCOMES.index(name) for name in ("item", "not_ready", "stop"))


@dataclass
class Decisions:
    """A trace's decisions, one per pull a union made, tied to the events of that pull.

    ``columns`` has one int64 array per name in ``DECISION_FIELDS`` plus
    ``event`` (the child's event of the pull: the decision row follows it in
    the recorder) and ``union_event`` (the union's own event that yielded the
    pull's item, -1 when the union yielded nothing for it, e.g. a not-ready
    that ended a blocking turn).  ``specs`` describes each union, from its
    node: ``op_id``, ``op``, ``children`` (op names), ``child_ids`` (each
    child's chain of node ids, its top last), ``weights`` and ``output_indexes``.
    """

    specs: list[dict] = field(default_factory=list)
    columns: dict[str, np.ndarray] = field(default_factory=lambda: _empty_columns())
    _by_event: dict[int, int] | None = field(default=None, repr=False)
    _next_child: np.ndarray | None = field(default=None, repr=False)
    _previous: np.ndarray | None = field(default=None, repr=False)
    _sentences: dict[int, str] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.columns["round"])

    @classmethod
    def from_rows(cls, rows: dict[str, np.ndarray], trace_columns: dict, nodes: list[Node]) -> "Decisions":
        """Decisions from decoded decision rows of a built trace.

        Parameters
        ----------
        rows : dict of int64 arrays
            ``event`` (the position in the trace of the event each row
            follows) and the ``rlviz.trace.rows.DECISION_ROW_FIELDS``, with
            ``union`` as an index into ``nodes``; in any order (they are
            sorted by their events, so in the order they were made).
        trace_columns : dict
            The trace's columns (``node``, ``outcome``, times, items, inputs).
        nodes : list of Node
            The trace's nodes.
        """
        order = np.argsort(np.asarray(rows["event"], np.int64), kind="stable")    # in the order they were made
        rows = {name: np.asarray(values, np.int64)[order] for name, values in rows.items()}
        used = np.unique(rows["union"]) if len(rows["union"]) else np.zeros(0, np.int64)
        specs = [union_spec(nodes, int(union)) for union in used.tolist()]
        event = np.asarray(rows["event"], np.int64)
        columns = {"union": np.searchsorted(used, rows["union"]).astype(np.int64),
                   **{name: np.asarray(rows[name], np.int64) for name in ("round", "child", "pull", "allowed")},
                   "outcome": trace_columns["outcome"][event].astype(np.int64),
                   "flags": np.asarray(rows["flags"], np.int64),
                   "start_ns": trace_columns["start_ns"][event].astype(np.int64),
                   "end_ns": trace_columns["end_ns"][event].astype(np.int64), "event": event}
        columns["flags"] |= _dropped_flags(columns, specs)
        columns["union_event"] = _union_events(columns, used, trace_columns)
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
                "next_op": self._next_op(row), "after_not_ready": self._after_not_ready(row)}

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

    def previous_rows(self) -> np.ndarray:
        """Per row, the same union's row just before it (-1 for its first); computed once."""
        if self._previous is None:
            union = self.columns["union"]
            before = np.full(len(union), -1, np.int64)
            for one in np.unique(union):
                rows = np.flatnonzero(union == one)
                before[rows[1:]] = rows[:-1]
            self._previous = before
        return self._previous

    def _after_not_ready(self, row: int) -> str | None:
        """The op whose not-ready ended the turn just before row ``row``'s turn began (None if that is not so)."""
        c = self.columns
        before = int(self.previous_rows()[row])
        if c["pull"][row] != 1 or before < 0 or c["outcome"][before] != _NOT_READY:
            return None
        return _name(self.specs[int(c["union"][row])], int(c["child"][before]))


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
    if record.get("after_not_ready"):
        text += f", after {record['after_not_ready']} was not ready"
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


def union_spec(nodes: list[Node], union: int) -> dict:
    """What the views need to know of the union ``nodes[union]``: its children's names and chains, weights, output_indexes.

    Children are the node's parents, in order; their names are the union
    node's ``children`` detail if an op built on it gave one (``Concurrently``
    names the ops it was given), else the parents' ops.

    >>> from rlviz.trace import Node
    >>> nodes = [Node("a", "Store", "A"), Node("b", "Replay", "B"),
    ...          Node("u", "union", "U", parents=("a", "b"), details=(("round_robin_weights", (1, "*")),))]
    >>> union_spec(nodes, 2)["children"], union_spec(nodes, 2)["weights"]
    (['Store', 'Replay'], [1, '*'])
    """
    node = nodes[union]
    details = dict(node.details)
    by_id = {n.op_id: n for n in nodes}
    parents = list(node.parents)
    names = details.get("children") or [by_id[p].op if p in by_id else p for p in parents]
    weights = details.get("round_robin_weights") or [1] * len(parents)
    indexes = details.get("output_indexes")
    return {"op_id": node.op_id, "op": node.op, "children": list(names),
            "child_ids": [_chain_of(by_id, parent, node.where) for parent in parents], "weights": list(weights),
            "output_indexes": None if indexes is None else list(indexes)}


def _chain_of(by_id: dict[str, Node], top: str, where: str) -> list[str]:
    """The node ids of the chain ending at ``top`` on process ``where``, its source first: first parents, up to a merge."""
    chain = [top]
    node = by_id.get(top)
    while node is not None and len(node.parents) == 1 and node.parents[0] in by_id \
            and by_id[node.parents[0]].where == where and node.parents[0] not in chain:
        chain.append(node.parents[0])
        node = by_id[node.parents[0]]
    return chain[::-1]


def _dropped_flags(columns: dict, specs: list[dict]) -> np.ndarray:
    """DROPPED where a pull's item came from a child that the union's ``output_indexes`` leaves out."""
    flags = np.zeros(len(columns["union"]), np.int64)
    for union, spec in enumerate(specs):
        keep = spec["output_indexes"]
        if keep is None:
            continue
        left_out = np.isin(columns["child"], [i for i in range(len(spec["children"])) if i not in keep])
        flags[(columns["union"] == union) & (columns["outcome"] == _ITEM) & left_out] = DROPPED
    return flags


def _union_events(columns: dict, unions: np.ndarray, trace: dict) -> np.ndarray:
    """Per decision, the union's event that passed its pull on (-1 if none), each union event named once.

    An item goes on by identity: the union's event lists the child's item id
    as its input.  A not-ready goes on only from a union that does not block
    (``"*"`` or async): the union's not-ready call that encloses the child's
    call on the same thread; a blocking union's call ends with its last pull.
    """
    result = np.full(len(columns["event"]), -1, np.int64)
    node, outcome = trace["node"], trace["outcome"]
    offsets, inputs = trace["input_offsets"], input_id(trace["input_ids"])
    for union, node_index in enumerate(unions.tolist()):
        mine = columns["union"] == union
        events = np.flatnonzero(node == node_index)
        has_input = offsets[events + 1] > offsets[events]
        takers, taken = events[has_input], inputs[offsets[events[has_input]]]
        order = np.argsort(taken)
        items = np.flatnonzero(mine & (columns["outcome"] == _ITEM))
        child_ids = trace["item_id"][columns["event"][items]]
        slot = np.minimum(np.searchsorted(taken[order], child_ids), max(len(order) - 1, 0))
        found = (taken[order][slot] == child_ids) if len(order) else np.zeros(len(items), bool)
        result[items[found]] = takers[order][slot[found]]
        waits = np.flatnonzero(mine & (columns["outcome"] == _NOT_READY))
        passed = events[outcome[events] == _NOT_READY]
        if len(waits) and len(passed):
            starts = trace["start_ns"][passed]
            slot = np.maximum(np.searchsorted(starts, columns["start_ns"][waits], "right") - 1, 0)
            ok = (starts[slot] <= columns["start_ns"][waits]) & (trace["end_ns"][passed][slot] >= columns["end_ns"][waits])
            result[waits[ok]] = passed[slot[ok]]
    return _last_per_event(result)
