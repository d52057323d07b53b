"""``HeldLinks``: the input pairs and scheduling decisions a ``TraceStore`` holds, both keyed by store id.

An input pair names the consuming event and the consumed value's item id;
a decision names the event it explains.  Both arrive with the events' rows
and leave with their events (an eviction or a window), so this part keeps
them, counts those that left (a reader's cursor numbers every one taken),
and answers them per event: as CSR arrays of inputs, or as decision rows
naming each event by its position in a list of ids.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.held import HeldColumns
from rlviz.trace.rows import DECISION_ROW_FIELDS, FIELDS, NO_INPUT, decision_columns

__all__ = ["HeldLinks", "DECISION_TYPES", "index_in"]

#: How the store holds a decision's fields (``rlviz.trace.rows.decision_columns`` decodes them as int64): ``event``
#: is a store id (below ``rlviz.trace.held_events.MAX_ID``); ``union`` a node index (a list of 2**32 nodes could not
#: be held); ``child`` and ``allowed`` are masked to 24 and 32 bits, and ``flags`` is the top half of an int64, so
#: each fits as typed; ``round`` and ``pull`` (the 40 bits above ``child``) stay int64.
DECISION_TYPES = {"event": np.uint32, "union": np.uint32, "round": np.int64, "child": np.uint32, "pull": np.int64,
                  "allowed": np.uint32, "flags": np.int32}
#: How the store holds an input pair: the consumer's store id and the value's item id.
_LINK_TYPES = {"owner": np.uint32, "value": np.int64}


class HeldLinks:
    """Input pairs and decisions of the held events; ``inputs_gone`` and ``decisions_gone`` count those that left."""

    def __init__(self) -> None:
        self.links = HeldColumns(_LINK_TYPES)           # per input pair: the consumer's id and the value's id
        self.decisions = HeldColumns(DECISION_TYPES)    # "event": a store id
        self.inputs_gone = 0
        self.decisions_gone = 0

    @property
    def input_count(self) -> int:
        """Input pairs taken so far (those that left included): the number the next one gets."""
        return self.inputs_gone + len(self.links)

    @property
    def decision_count(self) -> int:
        """Decisions taken so far (those that left included): the number the next one gets."""
        return self.decisions_gone + len(self.decisions)

    # -- taking ------------------------------------------------------------------
    def add_inputs(self, rows: np.ndarray, is_event: np.ndarray, row_owner: np.ndarray, first_id: int) -> int:
        """Keep the input pairs of ``rows`` whose consumer (``row_owner``, per row) is held (its id at least
        ``first_id``); return how many."""
        first = np.where(is_event, rows[:, 4], NO_INPUT)
        extra = np.where(is_event[:, None], NO_INPUT, rows[:, 1:])
        values = np.concatenate((first[:, None], extra), axis=1)       # per row: its inputs in order
        owners = np.repeat(row_owner[:, None], FIELDS, axis=1)
        real = (values != NO_INPUT) & (owners >= first_id)
        count = int(real.sum())
        self.links.append({"owner": owners[real], "value": values[real]}, count)
        return count

    def add_decisions(self, owner: np.ndarray, rows: np.ndarray, node_map: list[int], first_id: int) -> int:
        """Keep the decision rows whose event the store holds (``owner``: its id, -1 if none; held from
        ``first_id``), the union's node mapped through ``node_map``; return how many."""
        held = owner >= first_id
        if not held.any():
            return 0
        fields = decision_columns(rows[held])
        local = np.minimum(fields["union"], len(node_map) - 1)
        fields["union"] = np.asarray(node_map, np.int64)[local]
        count = int(held.sum())
        self.decisions.append({"event": owner[held], **{name: fields[name] for name in DECISION_ROW_FIELDS}}, count)
        return count

    # -- answering ---------------------------------------------------------------
    def csr(self, ids: np.ndarray, among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Inputs of the events ``ids`` (in that order) as CSR arrays, each event's inputs in arrival order.

        ``among``: the positions of the input pairs to look among (every pair held if None), when they are known
        to hold all of these events' pairs: a spill's old events need not copy every held pair.
        """
        owner, value = self.links.column("owner"), self.links.column("value")
        if among is not None:
            owner, value = owner[among], value[among]
        at = index_in(ids, owner.astype(np.int64))
        kept = at >= 0
        at, value = at[kept], value[kept]
        by_owner = np.argsort(at, kind="stable")
        counts = np.bincount(at, minlength=len(ids))
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), value[by_owner].astype(np.int64)

    def of_events(self, ids: np.ndarray, among: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The decisions of the events ``ids`` (in that order): ``event`` as a position in ``ids``; only those
        at positions ``among`` of the held decisions if given."""
        def field_of(name: str) -> np.ndarray:
            return self.decided(name) if among is None else self.decisions.column(name)[among].astype(np.int64)

        at = index_in(ids, field_of("event"))
        kept = at >= 0
        return {"event": at[kept], **{name: field_of(name)[kept] for name in DECISION_ROW_FIELDS}}

    def decided(self, name: str) -> np.ndarray:
        """Decision field ``name`` of every decision held, as int64 (a copy)."""
        return self.decisions.column(name).astype(np.int64)

    # -- letting go --------------------------------------------------------------
    def drop_events(self, gone: np.ndarray, links: int, decisions: int) -> None:
        """Take out the pairs and decisions of the events ``gone`` (ids, ascending), at most ``links`` and
        ``decisions`` of them (found from the front)."""
        self.inputs_gone += self.links.drop_in("owner", gone, links)
        self.decisions_gone += self.decisions.drop_in("event", gone, decisions)

    def drop_before(self, first_id: int) -> None:
        """Take out the pairs and decisions of the events with ids below ``first_id`` (they left a window)."""
        self.inputs_gone += self.links.compact(self.links.column("owner") >= first_id)
        self.decisions_gone += self.decisions.compact(self.decisions.column("event") >= first_id)

    def memory(self) -> dict[str, int]:
        """Bytes held: ``"links"`` and ``"decisions"``, as allocated."""
        return {"links": sum(self.links.memory().values()), "decisions": sum(self.decisions.memory().values())}


def index_in(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` sits in ``ids`` (distinct values), -1 where absent."""
    order = np.argsort(ids, kind="stable")
    keys = ids[order].astype(np.int64)
    at = np.searchsorted(keys, wanted)
    inside = at < len(keys)
    found = np.zeros(len(wanted), bool)
    found[inside] = keys[at[inside]] == wanted[inside]
    at = order[np.minimum(at, max(len(keys) - 1, 0))] if len(keys) else at
    return np.where(found, at, -1)
