"""``LiveCursor``: what arrived in a ``TraceStore`` since a reader's last look, for a page that appends.

A reader passes back the previous answer's ``next_id``, ``next_input`` and
``next_decision`` and gets exactly what arrived since: nothing twice,
nothing skipped.  Ids are arrival numbers, input pairs and decisions are
numbered as taken (those that left included), so a cursor stays valid while
old events leave.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.held_events import HeldEvents
from rlviz.trace.held_links import DECISION_TYPES, HeldLinks
from rlviz.trace.ingest import Ingest
from rlviz.trace.items import TextTable

__all__ = ["LiveCursor", "Appended"]


@dataclass
class Appended:
    """Events that arrived after an id, in arrival order: what a growing view appends.

    ``first_id`` is the id of ``columns``' first entry (ids are consecutive);
    ``input_owner`` / ``input_id`` pair each consumed value's id with the id
    of the event that consumed it (owners may be events sent earlier, when an
    event's later inputs arrive after it); ``decisions`` are the scheduling
    decisions that arrived (``event``: the id of the event each explains, and
    ``rlviz.trace.rows.DECISION_ROW_FIELDS``, ``union`` a node index); ``nodes``
    and ``texts`` are the whole tables, which only ever grow.
    """

    first_id: int
    columns: dict[str, np.ndarray]
    input_owner: np.ndarray
    input_id: np.ndarray
    nodes: list[Node]
    texts: list[str]
    dropped: int
    next_id: int
    next_input: int
    decisions: dict[str, np.ndarray] = field(default_factory=dict)
    next_decision: int = 0

    def __len__(self) -> int:
        return len(self.columns["node"])


class LiveCursor:
    """Answers ``since`` from the held events and links; reads only what arrived after the cursor."""

    def __init__(self, events: HeldEvents, links: HeldLinks, ingest: Ingest, nodes: list[Node],
                 texts: TextTable) -> None:
        self.events, self.links, self.ingest = events, links, ingest
        self.nodes, self.texts = nodes, texts

    def since(self, event_id: int = 0, input_from: int = 0, decision_from: int = 0) -> Appended:
        """Events with ids from ``event_id`` on, input pairs from number ``input_from`` on, decisions from
        number ``decision_from`` on (``TraceStore.since`` says more).

        Raises
        ------
        ValueError
            If ``event_id`` or ``input_from`` is negative or beyond what the store gave.
        """
        events, links = self.events, self.links
        if not 0 <= event_id <= events.next_id:
            raise ValueError(f"event_id={event_id} is not an id this store gave; expected 0..{events.next_id} "
                             f"(pass the previous Appended.next_id)")
        if not 0 <= input_from <= links.input_count:
            raise ValueError(f"input_from={input_from} is beyond the {links.input_count} "
                             f"input pairs this store took (pass the previous Appended.next_input)")
        first = max(event_id, events.first_id, events.compacted_to)
        start = int(events.search_ids([first])[0])
        columns = events.columns(np.arange(start, len(events)))
        fresh = max(input_from - links.inputs_gone, 0)
        decided = max(decision_from - links.decisions_gone, 0)
        return Appended(first_id=first, columns=columns,
                        input_owner=links.links.column("owner")[fresh:].astype(np.int64),
                        input_id=links.links.column("value")[fresh:].copy(), nodes=list(self.nodes),
                        texts=list(self.texts.texts), dropped=self.ingest.dropped, next_id=events.next_id,
                        next_input=links.input_count,
                        decisions={name: links.decided(name)[decided:] for name in DECISION_TYPES},
                        next_decision=links.decision_count)
