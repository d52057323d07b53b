"""``Eviction``: how events leave a ``TraceStore``, with everything that belongs to them.

Events leave two ways.  A recorder evicts whole chunks past its capacity
(``retire``): their rows are taken out wherever they sit, with their links,
decisions, side-table entries and the process's gauge readings of that time,
after the spill file got them.  A ``window_ns`` lets the oldest events go
from the front (``apply_window``).  Either way they leave the pyramid too.
docs/design.md ("Evicted events leave the arrays") says why and at what cost.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.gauges import GaugeParts
from rlviz.trace.held_events import NO_READING, HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.ingest import ChunkState, Ingest, Source
from rlviz.trace.spill_handoff import SpillHandoff
from rlviz.trace.windows import LaneIndex

__all__ = ["Eviction"]


class Eviction:
    """Takes leaving events out of every part of a store; ``window_ns`` (None: keep all) bounds what stays."""

    def __init__(self, window_ns: int | None, events: HeldEvents, links: HeldLinks, gauges: GaugeParts,
                 ingest: Ingest, lanes: LaneIndex, handoff: SpillHandoff) -> None:
        self.window_ns = window_ns
        self.events, self.links, self.gauges = events, links, gauges
        self.ingest, self.lanes, self.handoff = ingest, lanes, handoff

    @property
    def window_start_ns(self) -> int | None:
        """Events that ended before this (driver clock) have left or will leave the window; None without a window."""
        return None if self.window_ns is None else self.events.latest_end_ns - self.window_ns

    def retire(self, source: Source, keys: list[int]) -> None:
        """``source``'s recorder evicted the chunks ``keys``: their events leave the store (and its arrays).

        Only the rows between the chunks' first and last held events are
        read; the other rows stay, unread.
        """
        if not keys:
            return
        chunks = self.ingest.forget(source, keys)
        lo, hi = _span_of(self.events, chunks)
        indexes = [chunk.index for chunk in chunks]
        leaving = np.isin(self.events.column("chunk")[lo:hi], indexes)
        cutoff = {source.pid: self._readings_from(source, indexes)}
        links, decisions = sum(chunk.links for chunk in chunks), sum(chunk.decisions for chunk in chunks)
        if self.handoff.writer is not None:     # the process's gauge readings leave with its events, into the file
            self.handoff.spill(source, lo + np.flatnonzero(leaving), self.gauges.take_before(cutoff), links, decisions)
        else:                                   # or are let go with them: capacity bounds both
            self.gauges.drop_before(cutoff)
        if leaving.any():
            self.lanes.count_out(lo + np.flatnonzero(leaving))
            gone = self.events.compact(~leaving, lo)
            if len(gone):
                self.links.drop_events(gone, links, decisions)

    def apply_window(self) -> None:
        """Drop the oldest ids while they ended before the window (the front only, so ids stay consecutive)."""
        if self.window_ns is None:
            return
        self.gauges.let_go_before(self.window_start_ns)
        cut = self.events.leading_ended_before(self.window_start_ns)
        if cut == 0:
            return
        self.lanes.count_out(np.arange(cut))
        self.events.drop_front(cut)
        self.links.drop_before(self.events.first_id)

    def _readings_from(self, source: Source, retired: list[int]) -> int:
        """Where ``source``'s gauge readings held now begin, once the chunks ``retired`` (indexes) left: after the
        end of its dropped events (its gap) and after the latest reading those chunks held.

        A process's readings leave with its events by time: the gap mark
        the page draws covers them.  A node that records rarely keeps its
        old events, but not the readings of the time around them.
        """
        gap_end = source.gap_ns[1] + source.offset_ns if source.gap_ns is not None else NO_READING
        latest = self.events.latest_reading(retired)
        source.readings_from = max(source.readings_from, gap_end, latest + 1 if latest != NO_READING else latest)
        return source.readings_from


def _span_of(events: HeldEvents, chunks: list[ChunkState]) -> tuple[int, int]:
    """The positions ``lo, hi`` from the first to past the last held event of ``chunks`` (``0, 0``: none)."""
    spans = [(chunk.first_kept, chunk.last_kept) for chunk in chunks if chunk.first_kept >= 0]
    if not spans:
        return 0, 0
    return events.span_of(min(span[0] for span in spans), max(span[1] for span in spans))
