"""``SpillHandoff``: what a ``TraceStore`` hands to its spill file before letting events go.

With ``record(spill=path)`` the events a recorder evicts are appended to a
``SpillWriter`` with their inputs, decisions and the gauge readings leaving
with them, instead of being lost; at the block's end ``finish`` appends what
is still held, so the file is the whole run (docs/design.md, "Spill").  This
part only reads the held events and links; taking them out is ``Eviction``'s.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.gauges import Readings
from rlviz.trace.held_events import HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.ingest import Ingest, Source
from rlviz.trace.items import TextTable
from rlviz.trace.spill import SpillWriter

__all__ = ["SpillHandoff"]


class SpillHandoff:
    """Writes held events to ``writer`` (None: no spill file, or it was finished) as segments of the trace format."""

    def __init__(self, writer: SpillWriter | None, events: HeldEvents, links: HeldLinks, ingest: Ingest,
                 nodes: list[Node], texts: TextTable) -> None:
        self.writer = writer
        self.events, self.links, self.ingest = events, links, ingest
        self.nodes, self.texts = nodes, texts

    def spill(self, source: Source, positions: np.ndarray, readings: Readings, links: int, decisions: int) -> None:
        """Append the held events of ``source`` at ``positions`` (they are leaving) to the spill file, with their
        inputs and decisions (the ``links`` input pairs and ``decisions`` their chunks took, found from the
        front), and the gauge readings leaving with them."""
        if not len(positions) and not len(readings.time_ns):
            return
        source.spilled += len(positions)
        ids = self.events.ids_at(positions)
        self._write_segment(positions, self.links.links.find_in("owner", ids, links),
                            self.links.decisions.find_in("event", ids, decisions), {}, readings)

    def finish(self, readings: Readings) -> None:
        """Append every held event as the last segment, with their links and decisions, the gauge ``readings``
        held and the gaps of what the file lacks; then write nothing more (``writer`` becomes None).

        Raises
        ------
        ValueError
            If there is no spill file (none was given, or this was called before).
        """
        if self.writer is None:
            raise ValueError("this TraceStore has no spill file to finish (none was given, or spill_rest was "
                             "called already): give one with TraceStore(spill=SpillWriter(path))")
        extras = {}
        gaps = self.ingest.gaps(self.ingest.lost())
        if gaps:
            extras["gaps"] = [[gap.where, int(gap.start_ns), int(gap.end_ns), int(gap.dropped)] for gap in gaps]
        self._write_segment(np.arange(len(self.events)), None, None, extras, readings)
        self.writer = None

    def _write_segment(self, positions: np.ndarray, links: np.ndarray | None, decisions: np.ndarray | None,
                       extras: dict, readings: Readings) -> None:
        """Append the held events at ``positions`` (ascending) to the spill file as one segment, with ``extras``
        and the gauge ``readings``.

        ``links`` and ``decisions``: where among the held input pairs and
        decisions to look for theirs (all of them if None).  Each decision
        names its event by its position in the file (the events of the
        segments before count first), so it survives the loader's reordering.
        The segment's ``dropped`` counts the evicted events the file does not
        hold (those evicted before the store took them), so a loaded spill
        file reports only what was really lost.
        """
        columns = self.events.columns(positions)
        ids = self.events.ids_at(positions)
        columns["input_offsets"], columns["input_ids"] = self.links.csr(ids, links)
        rows = self.links.of_events(ids, decisions)
        if len(rows["event"]):
            rows["event"] += self.writer.events
            extras = {**extras, "decision_rows": {name: values.tolist() for name, values in rows.items()}}
        self.writer.write(columns, self.nodes, self.texts.texts, sum(self.ingest.lost().values()), extras or None,
                          readings)
