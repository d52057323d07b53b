"""``TraceStore``: a trace that grows by increments from every process, with stable event ids.

Each recorder's rows arrive as chunks (``rlviz.trace.rows``), whole or as
the growing copy of a chunk still open; the store keeps, per chunk, how many
rows it has taken, so a chunk seen again adds only its new rows, and events
that started long ago but arrive late (an actor's, a pull after the
driver's) simply get the next ids.  An event's id is its arrival number: it
never changes as more arrive, and links name ids, not positions.  ``view()``
is a frozen ``Trace`` of what is held; ``since(event_id)`` is what arrived
after an id, for a page that appends.

The store only composes its parts, each in a module of its own
(docs/design.md, "The store's parts"): ``Ingest`` decodes rows,
``HeldEvents`` and ``HeldLinks`` hold what was taken, ``LaneIndex`` keeps the
pyramid and answers windows, ``Eviction`` and ``SpillHandoff`` let events go,
``HeldViews`` and ``LiveCursor`` answer readers.  The store's lock guards them all.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np

from rlviz.trace.event import Node, NodeTable
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import GaugeParts
from rlviz.trace.held_events import EVENT_BYTES, HeldEvents
from rlviz.trace.held_links import HeldLinks
from rlviz.trace.held_views import HeldViews
from rlviz.trace.eviction import Eviction
from rlviz.trace.ingest import Ingest, Source
from rlviz.trace.items import SIZED_NAME_MASK, TextTable
from rlviz.trace.live_cursor import Appended, LiveCursor
from rlviz.trace.pyramid import Pyramid
from rlviz.trace.spill import SpillWriter
from rlviz.trace.spill_handoff import SpillHandoff
from rlviz.trace.trace import Trace
from rlviz.trace.windows import EXACT_PER_PIXEL, SCAN_BUDGET, LaneIndex, LaneWindow, Window, check_window

__all__ = ["TraceStore", "Appended", "Window", "LaneWindow", "merge_exports", "EXACT_PER_PIXEL", "SCAN_BUDGET",
           "EVENT_BYTES"]


class TraceStore:
    """An append-only store of events from several processes.

    Parameters
    ----------
    since_ns : int, default 0
        Events that started before this (driver clock) are left out.
    window_ns : int, optional
        Keep only events that ended within this many nanoseconds of the
        latest end seen; older ones leave from the front (lowest ids first).
        None keeps everything.
    spill : SpillWriter, optional
        Where events go when their recorder evicts them past its capacity:
        appended to this binary trace file (``rlviz.trace.spill``) instead of
        lost, with their links, decisions and the gauge readings that leave
        with them; ``spill_rest`` adds what is still held at the end.

    Notes
    -----
    Safe to feed from one thread while another reads: every method takes
    the store's lock, and ``view()`` returns a ``Trace`` that later
    increments never change.
    """

    def __init__(self, since_ns: int = 0, window_ns: int | None = None, spill: SpillWriter | None = None) -> None:
        self.since_ns = int(since_ns)
        self.lock = threading.RLock()
        node_table = NodeTable()
        self.nodes: list[Node] = node_table.nodes
        self.texts = TextTable(capacity=SIZED_NAME_MASK + 1)
        gauges = GaugeParts()                       # texts already mapped to the store's table
        self._events = HeldEvents()
        self._links = HeldLinks()
        self._gauges = gauges
        self._ingest = Ingest(self._events, self._links, gauges, node_table, self.texts, self.since_ns)
        self._lanes = LaneIndex(self._events, self.nodes)
        self._handoff = SpillHandoff(spill, self._events, self._links, self._ingest, self.nodes, self.texts)
        self._eviction = Eviction(window_ns, self._events, self._links, gauges, self._ingest, self._lanes,
                                  self._handoff)
        self._views = HeldViews(self._events, self._links, self._ingest, gauges, self.nodes, self.texts)
        self._cursor = LiveCursor(self._events, self._links, self._ingest, self.nodes, self.texts)

    # -- feeding -------------------------------------------------------------
    def add_export(self, export: dict) -> int:
        """Take a ``Recorder.export()`` (or a mirror's, ``parts`` form too): only rows not taken before are added.

        Chunks of this process the store took earlier but the export no
        longer holds were evicted by the recorder: their events leave the
        store too (they are counted in the export's ``dropped``).

        Returns
        -------
        int
            How many events were added.
        """
        with self.lock:
            source = self._ingest.source(export)
            added, listed = self._add_rows(source, export["parts"] if "parts" in export else [export["data"]])
            self._retire(source, list(source.chunk_keys.difference(listed)))
            return added

    def add_increment(self, increment: dict, offset_ns: int = 0) -> int:
        """Take a ``Recorder.export_since(cursor)`` answer (the reader keeps the cursor).

        Returns
        -------
        int
            How many events were added.
        """
        with self.lock:
            source = self._ingest.source({**increment, "offset_ns": offset_ns}, texts_from=increment["texts_from"])
            added, seen = self._add_rows(source, [*increment["chunks"], increment["open_rows"]])
            first = increment["cursor"].chunks - len(increment["chunks"])
            source.sequence.update(zip(seen[:len(increment["chunks"])], range(first, increment["cursor"].chunks)))
            gone = [key for key, number in source.sequence.items() if number < increment["held_from"]]
            for key in gone:
                del source.sequence[key]
            # a chunk seen open that is neither open now nor among the chunks sent was handed over and evicted
            # between two increments (or discarded by a clear): it is gone as well
            gone.extend(source.open_keys.difference(seen))
            source.open_keys = set(seen[len(increment["chunks"]):])
            self._retire(source, [key for key in gone if key in self._ingest.chunks])
            return added

    def taken(self, chunk: bytes | bytearray | memoryview) -> bool:
        """True if the store took every row of ``chunk`` (one handed-over chunk, opened by its header).

        A buffer may then keep only ``rlviz.trace.rows.released_stub(chunk)``:
        the store recognises the stub as the chunk, and holds its events.
        """
        with self.lock:
            return self._ingest.taken_whole(chunk, [])

    def spill_rest(self) -> None:
        """Append every held event to the spill file as its last segment, with their links and decisions, the
        gauge readings held and the gaps of what the file lacks: the file then holds the whole run.

        The store keeps what it holds (its view does not change) and writes
        nothing more to the file: ``spill`` is None afterwards.  A block's
        exit calls this.

        Raises
        ------
        ValueError
            If the store has no spill file (never had one, or this was called before).
        """
        with self.lock:
            self._handoff.finish(self._gauges.held(self.window_start_ns))

    # -- what it holds -------------------------------------------------------
    def __len__(self) -> int:
        with self.lock:
            return len(self._events)

    @property
    def spill(self) -> SpillWriter | None:
        """The spill file events go to when evicted (None: none, or ``spill_rest`` finished it)."""
        return self._handoff.writer

    @property
    def window_ns(self) -> int | None:
        """How long (ns) an event stays after the latest end seen; None keeps everything."""
        return self._eviction.window_ns

    @property
    def next_id(self) -> int:
        """The id the next event will get (every id below it was given once)."""
        return self._events.next_id

    @property
    def first_id(self) -> int:
        """The lowest id still held (ids below it left through the window)."""
        return self._events.first_id

    @property
    def window_start_ns(self) -> int | None:
        """Events that ended before this (driver clock) have left or will leave the window; None without a window."""
        with self.lock:
            return self._eviction.window_start_ns

    @property
    def dropped(self) -> int:
        """Events the processes' bounded recorders evicted (their latest counts, summed)."""
        with self.lock:
            return self._ingest.dropped

    @property
    def decision_count(self) -> int:
        """Decisions the store took so far (those that left through the window included)."""
        with self.lock:
            return self._links.decision_count

    @property
    def gaps(self) -> tuple[Gap, ...]:
        """Where each process's dropped events lay, on the driver's clock (from ``since_ns`` on), by lane."""
        with self.lock:
            return self._ingest.gaps()

    @property
    def lanes(self) -> list[str]:
        """The lanes (the nodes' ``where``) that hold events, in order of first sight."""
        with self.lock:
            return list(self._lanes.lane_names)

    @property
    def pyramid(self) -> Pyramid:
        """The per-lane, per-time-bucket counts and busy time of the held events (``rlviz.trace.pyramid.Pyramid``)."""
        return self._lanes.pyramid

    @property
    def nbytes(self) -> int:
        """Bytes held by the store's arrays: events, links, decisions, gauges, the pyramid and the index (not the
        texts): the sum of ``memory()``."""
        return sum(self.memory().values())

    def memory(self) -> dict[str, int]:
        """Bytes held by each of the store's arrays, as allocated (growth room included).

        Keys: ``"column <name>"`` for each per-event column (``start_ns``,
        ``duration``, ``node``, ``code``, ``item_num``, ``chunk``, ``rank``,
        ``id``); ``"links"`` (consumer id, value id per
        input); ``"decisions"``; ``"gauges"``; ``"chunks"`` (key and pid per
        chunk); ``"side tables"`` (durations and summary numbers too wide for
        their column); ``"pyramid"`` and ``"index"``.  docs/long-runs.md has
        a table of them per event for a real run.
        """
        with self.lock:
            events = self._events.memory()
            chunks, side = events.pop("chunks"), events.pop("side tables")
            return {**events, **self._links.memory(), "gauges": self._gauges.nbytes, "chunks": chunks,
                    "side tables": side, **self._lanes.memory()}

    # -- reading -------------------------------------------------------------
    def view(self) -> Trace:
        """A frozen ``Trace`` of every held event, ordered by start (cached until something is added)."""
        with self.lock:
            return self._views.view(self.window_start_ns)

    def decided(self) -> Trace:
        """A ``Trace`` of the held events a scheduling decision explains, with those decisions, the gauges and no links.

        What the decisions' analyses read (``rlviz.trace.analysis.order_notes``,
        whose causes come from the gauges), in time proportional to the
        decisions and gauges held rather than to the events.
        """
        with self.lock:
            return self._views.decided(self.window_start_ns)

    def since(self, event_id: int = 0, input_from: int = 0, decision_from: int = 0) -> Appended:
        """Events with ids from ``event_id`` on (arrival order), the input pairs from number ``input_from`` on,
        and the decisions from number ``decision_from`` on.

        Pass the previous answer's ``next_id``, ``next_input`` and
        ``next_decision`` to get exactly what arrived since it: nothing twice,
        nothing skipped.  The answer's ids are consecutive, so it starts past
        the last event whose row was compacted away (evicted, then taken out):
        a reader that keeps up never meets one, as evictions take old chunks.

        Raises
        ------
        ValueError
            If ``event_id`` or ``input_from`` is negative or beyond what the store gave.
        """
        with self.lock:
            return self._cursor.since(event_id, input_from, decision_from)

    def window(self, start_ns: int, end_ns: int, pixels: int, exact_per_pixel: int = EXACT_PER_PIXEL,
               scan_budget: int = SCAN_BUDGET) -> Window:
        """What lies in ``[start_ns, end_ns]`` drawn ``pixels`` wide: per lane, its exact events or its buckets.

        A lane with at most ``exact_per_pixel * pixels`` events that meet the
        window (start before its end, end at or after its start) gets them
        exactly.  A lane with more gets one bucket per pixel counted from its
        events, as long as the events read stay within ``scan_budget``;
        beyond that the pyramid's level whose buckets are nearest one pixel
        (no wider, or its finest) answers.  Time grows with what lies in the
        window and with ``pixels``, not with what the store holds.

        Parameters
        ----------
        start_ns, end_ns : int
            The window, on the driver's clock (epoch ns), ``end_ns > start_ns``.
        pixels : int
            Its width on screen, at least 1.
        exact_per_pixel : int, default EXACT_PER_PIXEL
            Events per pixel up to which a lane is answered exactly.
        scan_budget : int, default SCAN_BUDGET
            Most held events read one by one.

        Returns
        -------
        Window

        Raises
        ------
        ValueError
            If the window is empty or reversed, or ``pixels``, ``exact_per_pixel`` or ``scan_budget`` is below 1.
        """
        check_window(start_ns, end_ns, pixels, exact_per_pixel, scan_budget)
        with self.lock:
            return self._lanes.window(start_ns, end_ns, pixels, exact_per_pixel, scan_budget)

    def gauges_since(self, reading: int = 0) -> tuple[tuple[np.ndarray, ...], int]:
        """The gauge readings from number ``reading`` on, in arrival order (name, time_ns, value, pid, where
        columns), and the number to pass next time."""
        with self.lock:
            return self._gauges.readings(reading), self._gauges.gone + len(self._gauges)

    def producers(self, item_ids: np.ndarray) -> np.ndarray:
        """The store id of the event that produced each value in ``item_ids`` (-1 where it is not held).

        Input ids may carry the consumer's ``DROPPED`` mark (``rlviz.trace.rows``); it is ignored here.
        """
        with self.lock:
            return self._ingest.producers(item_ids)

    # -- coordination ----------------------------------------------------------
    def _add_rows(self, source: Source, parts: list[bytes]) -> tuple[int, list[int]]:
        """Ingest ``parts``; count what arrived into the index and pyramid, then let the window act."""
        first_new = len(self._events)
        added, seen = self._ingest.add_rows(source, parts)
        if added:
            self._lanes.count_in(first_new)
            self._eviction.apply_window()
        self._views.changed()
        return added, seen

    def _retire(self, source: Source, keys: list[int]) -> None:
        """``source``'s recorder evicted the chunks ``keys``: their events leave every part."""
        if keys:
            self._eviction.retire(source, keys)
            self._views.changed()


def merge_exports(exports: Iterable[dict], since_ns: int = 0) -> Trace:
    """One ``Trace`` of finished ``Recorder.export()`` results (or mirrors' ``export_parts()``) from several processes.

    The same decoder as a live block's: the exports go into a ``TraceStore``
    and its view is returned.  Events that started before ``since_ns``
    (driver clock) are left out.

    Examples
    --------
    >>> from rlviz.trace.recorder import Recorder
    >>> len(merge_exports([Recorder().export()]))
    0
    """
    store = TraceStore(since_ns)
    for export in exports:
        store.add_export(export)
    return store.view()
