"""``HeldViews``: the frozen ``Trace`` objects a ``TraceStore`` answers with, built from what it holds.

``view`` is every held event ordered by start, with links, decisions,
gauges and gaps (cached until the store changes); ``decided`` is only the
events a scheduling decision explains, for the decisions' analyses, in time
that follows the decisions rather than the events.  Both keep the nodes
their events use and everything upstream, and name each event's store id.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.decisions import Decisions
from rlviz.trace.event import Node, with_upstream
from rlviz.trace.gauges import GaugeParts
from rlviz.trace.held_events import HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.ingest import Ingest
from rlviz.trace.items import TextTable
from rlviz.trace.rows import DECISION_ROW_FIELDS
from rlviz.trace.trace import Trace

__all__ = ["HeldViews", "build_trace"]


class HeldViews:
    """Builds ``Trace`` objects of the held events; ``changed()`` marks the cached view stale."""

    def __init__(self, events: HeldEvents, links: HeldLinks, ingest: Ingest, gauges: GaugeParts,
                 nodes: list[Node], texts: TextTable) -> None:
        self.events, self.links, self.ingest, self.gauges = events, links, ingest, gauges
        self.nodes, self.texts = nodes, texts
        self._version = 0
        self._view: tuple[int, Trace] | None = None

    def changed(self) -> None:
        """Something was added or left: the next ``view`` is built anew."""
        self._version += 1

    def view(self, window_start_ns: int | None) -> Trace:
        """A frozen ``Trace`` of every held event, ordered by start, gauges from ``window_start_ns`` on."""
        if self._view is not None and self._view[0] == self._version:
            return self._view[1]
        held = np.arange(len(self.events))
        columns = self.events.columns(held)
        ids = self.events.ids_at(held)
        order = np.lexsort((columns["end_ns"], columns["start_ns"]))
        columns = {name: values[order] for name, values in columns.items()}
        columns["input_offsets"], columns["input_ids"] = self.links.csr(ids[order])
        trace = build_trace(self.nodes, columns, list(self.texts.texts), self.ingest.dropped, ids[order],
                            self.links.of_events(ids[order]))
        trace.gauges = self.gauges.build(window_start_ns)
        trace.gaps = self.ingest.gaps()
        self._view = (self._version, trace)
        return trace

    def decided(self, window_start_ns: int | None) -> Trace:
        """A ``Trace`` of the held events a decision explains, with those decisions, the gauges and no links."""
        events = self.links.decisions.column("event")
        held = events >= self.events.first_id
        ids = np.unique(events[held])
        positions = self.events.positions_of(ids)
        ids, positions = ids[positions >= 0], positions[positions >= 0]
        columns = self.events.columns(positions)
        order = np.lexsort((columns["end_ns"], columns["start_ns"]))
        columns = {name: values[order] for name, values in columns.items()}
        columns["input_offsets"] = np.zeros(len(ids) + 1, np.int64)
        columns["input_ids"] = np.zeros(0, np.int64)
        position = np.empty(len(ids), np.int64)
        position[order] = np.arange(len(ids))
        at = np.searchsorted(ids, events[held])
        kept = at < len(ids)
        kept[kept] = ids[at[kept]] == events[held][kept]
        rows = {"event": position[at[kept]],
                **{name: self.links.decided(name)[held][kept] for name in DECISION_ROW_FIELDS}}
        trace = build_trace(self.nodes, columns, list(self.texts.texts), self.ingest.dropped, ids[order], rows)
        trace.gauges = self.gauges.build(window_start_ns)
        return trace


def build_trace(nodes: list[Node], columns: dict, texts: list[str], dropped: int, ids: np.ndarray,
                decisions: dict[str, np.ndarray]) -> Trace:
    """A Trace of the nodes that have events or decisions (and everything upstream of them), with the events' store ids."""
    used = np.unique(np.concatenate((columns["node"], decisions["union"]))).tolist() if len(columns["node"]) \
        else range(len(nodes))
    ordered = with_upstream(used, nodes)
    remap = np.zeros(max(len(nodes), 1), np.int64)
    remap[ordered] = np.arange(len(ordered))
    columns["node"] = remap[columns["node"]].astype(np.int32)
    kept_nodes = [nodes[i] for i in ordered]
    decisions["union"] = remap[decisions["union"]]
    trace = Trace(kept_nodes, columns, texts, dropped, Decisions.from_rows(decisions, columns, kept_nodes))
    trace.event_ids = ids
    return trace
