"""``HeldEvents``: the events a ``TraceStore`` holds, one narrow row each, found by store id.

The store keeps each event once, in columns narrower than a ``Trace``'s
(docs/design.md, "Long runs"); the few values a narrow column cannot hold
sit in side tables, and the pid and item id come from per-chunk tables.
This part owns those arrays and the ids: which id the next event gets, which
is the first still held, and where an id sits.  It knows nothing of chunks'
rows, of links or of what a page asks; the other parts of the store read
events through ``columns`` (a ``Trace``'s dtypes) and the raw ``column``.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.growing import COMPACT_BLOCK, GrowingArray
from rlviz.trace.held import HeldColumns
from rlviz.trace.rows import OUTCOME_BITS, outcome_of

__all__ = ["HeldEvents", "SideTable", "STORED", "EVENT_BYTES", "NO_ITEM", "NO_READING", "MAX_ID"]

#: What the store keeps per event, narrower than a ``Trace``'s columns (docs/design.md, "Long runs"): ``code`` packs
#: the outcome and the summary kind as a row's code field does; ``duration`` is in ns, ``_LONG`` marking one kept
#: apart; ``chunk`` numbers the chunk (its key and pid are kept per chunk); ``rank`` is the item's number in its
#: chunk (``NO_ITEM``: none), so the item id is the chunk's key plus the rank; ``item_num`` holds the summary
#: number when it fits an int32 (small ints, text indexes, sized values under 128 long), ``_WIDE`` marking one kept
#: apart (floats' bits, large ints); ``id`` is the event's store id (ids stay below ``MAX_ID``, so uint32 holds
#: them), ascending by position: rows of evicted events are compacted away.
STORED = {"start_ns": np.int64, "duration": np.uint32, "node": np.uint16, "code": np.uint8, "item_num": np.int32,
          "chunk": np.uint32, "rank": np.uint16, "id": np.uint32}
#: Bytes the store holds per event in its columns, growth room aside.
EVENT_BYTES = sum(np.dtype(dtype).itemsize for dtype in STORED.values())
#: ``rank`` of an event that is not an item; also one more than the most nodes the ``node`` column numbers.
NO_ITEM = np.iinfo(np.uint16).max
#: A chunk's latest gauge reading when it holds none.
NO_READING = np.iinfo(np.int64).min
#: Store ids stay below this, so the uint32 ``id`` column holds them.
MAX_ID = np.iinfo(np.uint32).max - 1
_LONG = np.iinfo(np.uint32).max
_WIDE, _INT32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


class SideTable:
    """Values of the few events a narrow column cannot hold, by store id (ascending): what the column marks."""

    def __init__(self) -> None:
        self.ids = GrowingArray(np.uint32)
        self.values = GrowingArray()

    @property
    def nbytes(self) -> int:
        """Bytes its arrays hold, growth room included."""
        return self.ids.nbytes + self.values.nbytes

    def add(self, first_id: int, kept_apart: np.ndarray, values: np.ndarray) -> None:
        """Keep ``values`` where ``kept_apart`` is true, for events with ids ``first_id, first_id + 1, ...``."""
        at = np.flatnonzero(kept_apart)
        if len(at):
            self.ids.extend(first_id + at)
            self.values.extend(values[at])

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """The values kept for ``ids`` (every one of them must have been kept)."""
        return self.values.values()[np.searchsorted(self.ids.values(), ids)]

    def forget(self, gone: np.ndarray) -> None:
        """Let go of the entries of the events ``gone`` (store ids)."""
        keep = ~np.isin(self.ids.values(), gone)
        self.ids.keep(keep)
        self.values.keep(keep)


class HeldEvents:
    """The held events (positions ``0 .. len - 1``, store ids ascending), their side tables and per-chunk tables.

    ``first_id`` is the lowest id still held (ids below it left through a
    window), ``next_id`` the id the next event gets, ``compacted_to`` one
    more than the highest id an eviction took out, ``latest_end_ns`` the
    latest end seen (driver clock).
    """

    def __init__(self) -> None:
        self.rows = HeldColumns(STORED)
        self.first_id = 0
        self.next_id = 0
        self.compacted_to = 0
        self.latest_end_ns = 0
        self._long = SideTable()                    # events whose duration does not fit the column
        self._wide = SideTable()                    # events whose summary number does not fit the column
        self._chunk_key = GrowingArray()            # per chunk index: its key (the first item id), and its pid
        self._chunk_pid = GrowingArray()
        self._chunk_reading = GrowingArray()        # per chunk index: its latest gauge reading (NO_READING)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> np.ndarray:
        """Stored column ``name`` (``STORED``) of the held rows, in its narrow dtype (a view)."""
        return self.rows.column(name)

    # -- chunks ----------------------------------------------------------------
    def add_chunk(self, key: int, pid: int) -> None:
        """Number the next chunk (its index is the count of chunks before it): its key and its process."""
        self._chunk_key.extend(np.array([key]))
        self._chunk_pid.extend(np.array([pid]))
        self._chunk_reading.extend(np.array([NO_READING]))

    def note_reading(self, chunk_index: int, time_ns: int) -> None:
        """Chunk ``chunk_index`` holds a gauge reading taken at ``time_ns`` (driver clock)."""
        latest = self._chunk_reading.values()
        latest[chunk_index] = max(int(latest[chunk_index]), time_ns)

    def latest_reading(self, chunk_indexes: list[int]) -> int:
        """The latest gauge reading the chunks ``chunk_indexes`` held (``NO_READING``: none)."""
        return int(np.max(self._chunk_reading.values()[chunk_indexes], initial=NO_READING))

    # -- appending ---------------------------------------------------------------
    def append(self, start_ns: np.ndarray, end_ns: np.ndarray, node: int, code: np.ndarray, number: np.ndarray,
               chunk_index: int, rank: np.ndarray) -> None:
        """Append events (driver clock, the store's node and text numbers): they get the next ids.

        Raises
        ------
        OverflowError
            If the ids or the node would not fit their columns.
        """
        n = len(start_ns)
        if self.next_id + n > MAX_ID:
            raise OverflowError(f"a TraceStore gives at most {MAX_ID:,} event ids; start a new record() block "
                                f"(or pass window_s) to record longer")
        if node >= NO_ITEM:
            raise OverflowError(f"a TraceStore holds at most {NO_ITEM:,} dataflow nodes; this run made more")
        duration = end_ns - start_ns
        self._long.add(self.next_id, (duration >= _LONG) | (duration < 0), duration)
        wide = (number <= _WIDE) | (number > _INT32_MAX)
        self._wide.add(self.next_id, wide, number)
        values = {"start_ns": start_ns, "duration": np.minimum(duration, _LONG), "node": node, "code": code,
                  "item_num": np.where(wide, _WIDE, number), "chunk": chunk_index, "rank": rank,
                  "id": np.arange(self.next_id, self.next_id + n)}
        self.rows.append(values, n)
        self.next_id += n
        self.latest_end_ns = max(self.latest_end_ns, int(end_ns.max()))

    # -- finding -----------------------------------------------------------------
    def ids_at(self, positions: np.ndarray) -> np.ndarray:
        """The store ids (int64) of the held rows at ``positions``."""
        return self.rows.column("id")[positions].astype(np.int64)

    def positions_of(self, ids: np.ndarray) -> np.ndarray:
        """The position of each store id in ``ids`` among the held rows (-1 where it is not held)."""
        ids = np.asarray(ids, np.int64)
        held = self.rows.column("id")
        if not len(held):
            return np.full(len(ids), -1, np.int64)
        at = np.minimum(self.search_ids(ids), len(held) - 1)
        return np.where(held[at] == ids, at, -1)

    def search_ids(self, ids: np.ndarray | list[int]) -> np.ndarray:
        """Where each store id in ``ids`` would sit among the held rows (searched in the id column's own dtype, so
        the column is not copied: searching it with int64 keys would cast it whole)."""
        wanted = np.clip(np.asarray(ids, np.int64), 0, MAX_ID + 1).astype(np.uint32)
        return np.searchsorted(self.rows.column("id"), wanted)

    def span_of(self, first_id: int, last_id: int) -> tuple[int, int]:
        """The positions ``lo, hi`` from the held id ``first_id`` (or the next held) to past ``last_id``."""
        lo, hi = self.search_ids([first_id, last_id + 1]).tolist()
        return lo, hi

    def items_of(self, chunk_index: int, first_id: int, last_id: int) -> np.ndarray:
        """The store id of each item of chunk ``chunk_index`` (its events held between ``first_id`` and
        ``last_id``), by its rank in the chunk (-1: not held)."""
        lo, hi = self.span_of(first_id, last_id)
        if hi <= lo:
            return np.zeros(0, np.int64)
        at = lo + np.flatnonzero(self.rows.column("chunk")[lo:hi] == chunk_index)
        rank = self.rows.column("rank")[at].astype(np.int64)
        is_item = rank != NO_ITEM
        by_rank = np.full(int(rank[is_item].max(initial=-1)) + 1, -1, np.int64)
        by_rank[rank[is_item]] = self.ids_at(at[is_item])
        return by_rank

    # -- reading -----------------------------------------------------------------
    def columns(self, positions: np.ndarray) -> dict[str, np.ndarray]:
        """The ``Trace`` columns (``rlviz.trace.schema.COLUMNS``) of the held events at ``positions``."""
        stored = {name: self.rows.column(name)[positions] for name in ("start_ns", "node", "code", "chunk", "rank")}
        chunk = stored["chunk"].astype(np.int64)
        rank = stored["rank"].astype(np.int64)
        return {"node": stored["node"].astype(np.int32), "pid": self._chunk_pid.values()[chunk],
                "start_ns": stored["start_ns"], "end_ns": self.ends(positions),
                "outcome": outcome_of(stored["code"]).astype(np.uint8),
                "item_kind": (stored["code"] >> OUTCOME_BITS).astype(np.uint8), "item_num": self.numbers(positions),
                "item_id": np.where(rank != NO_ITEM, self._chunk_key.values()[chunk] + rank, -1)}

    def ends(self, positions: np.ndarray) -> np.ndarray:
        """The end (ns) of each held event at ``positions``: its start plus its duration, long ones from the side table."""
        duration = self.rows.column("duration")[positions].astype(np.int64)
        long = np.flatnonzero(duration == _LONG)
        if len(long):
            duration[long] = self._long.lookup(self.ids_at(positions[long]))
        return self.rows.column("start_ns")[positions] + duration

    def numbers(self, positions: np.ndarray) -> np.ndarray:
        """The summary number (int64) of each held event at ``positions``, wide ones from the side table."""
        number = self.rows.column("item_num")[positions].astype(np.int64)
        wide = np.flatnonzero(number == _WIDE)
        if len(wide):
            number[wide] = self._wide.lookup(self.ids_at(positions[wide]))
        return number

    def leading_ended_before(self, time_ns: int) -> int:
        """How many held events, from the first, ended before ``time_ns`` (up to the first that did not).

        Reads a block at a time from the front and stops at the first event
        still in the window: a pull's cost follows what leaves, not what is held.
        """
        held = len(self.rows)
        for at in range(0, held, COMPACT_BLOCK):
            staying = np.flatnonzero(self.ends(np.arange(at, min(at + COMPACT_BLOCK, held))) >= time_ns)
            if len(staying):
                return at + int(staying[0])
        return held

    # -- letting go --------------------------------------------------------------
    def compact(self, keep: np.ndarray, start: int) -> np.ndarray:
        """Take out the held rows from position ``start`` on where ``keep`` is false, with their side entries; the
        held ids stay ascending, positions close up.  Returns the ids taken out (ascending)."""
        gone = self.rows.column("id")[start:start + len(keep)][~keep].astype(np.int64)
        self.rows.compact(keep, start)
        if len(gone):
            self.compacted_to = max(self.compacted_to, int(gone[-1]) + 1)
            self._long.forget(gone)
            self._wide.forget(gone)
        return gone

    def drop_front(self, count: int) -> None:
        """Take out the first ``count`` held rows (nothing moves); ``first_id`` becomes the next held id."""
        held = len(self.rows)
        self.first_id = int(self.rows.column("id")[count]) if count < held else self.next_id
        self.rows.drop_front(count)

    def memory(self) -> dict[str, int]:
        """Bytes held per array: ``"column <name>"`` per column, ``"chunks"`` and ``"side tables"``."""
        parts = {f"column {name}": size for name, size in self.rows.memory().items()}
        parts["chunks"] = sum(array.nbytes for array in (self._chunk_key, self._chunk_pid, self._chunk_reading))
        parts["side tables"] = self._long.nbytes + self._wide.nbytes
        return parts
