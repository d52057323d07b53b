"""The per-process event buffer: cheap to append to, bounded, exportable.

Every process that runs rlviz iterators (the driver and each actor) has one
``Recorder``.  An event is six int64s appended to a chunk; when the held
events pass ``capacity`` the oldest chunk is dropped and counted, never an
unbounded list (viztracer's lesson).  No Ray, no matplotlib.
"""
from __future__ import annotations

import os
import random
import threading
from array import array
from collections import deque

from rlviz.trace.event import DRIVER, OUTCOMES, Node
from rlviz.trace.items import TextTable, summarize

__all__ = ["Recorder", "get_recorder", "ITEM", "NOT_READY", "STOP", "ERROR",
           "DEFAULT_CAPACITY", "ID_SHIFT"]

ITEM, NOT_READY, STOP, ERROR = range(len(OUTCOMES))
DEFAULT_CAPACITY = 1_000_000
FIELDS = 6            # node, start_ns, end_ns, outcome | kind << 2, number, first input
ID_SHIFT = 40         # item_id = (process tag << 40) | event sequence number
_MAX_CHUNK = 32768
_NO_VALUE = object()


class Recorder:
    """A bounded, append-only buffer of this process's events.

    ``enabled`` is the one switch the hot path reads.  ``seq`` counts every
    event ever recorded and survives eviction, so readers can ask for
    everything since a cursor.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, where: str = DRIVER) -> None:
        _check_capacity(capacity)
        self.capacity = capacity
        self.where = where
        self.enabled = False
        self.pid = os.getpid()
        self.tag = random.getrandbits(22) | (1 << 21)   # nonzero, so ids never collide with -1
        self.seq = 0
        self.dropped = 0
        self.texts = TextTable()
        self.nodes: list[Node] = []
        self._node_index: dict[str, int] = {}
        self._chunk_len = FIELDS * max(1, min(_MAX_CHUNK, capacity // 8))
        self._full: deque[array] = deque()
        self._chunk = array("q")
        self._first_seq = 0
        self._more_inputs: dict[int, tuple[int, ...]] = {}
        self._lock = threading.Lock()   # export may run on another thread than recording

    # -- registration -------------------------------------------------------
    def register(self, node: Node) -> int:
        """Index of ``node`` in this recorder's node table (added once)."""
        index = self._node_index.get(node.op_id)
        if index is None:
            index = len(self.nodes)
            self.nodes.append(node)
            self._node_index[node.op_id] = index
        return index

    # -- the hot path -------------------------------------------------------
    def record(self, node: int, start_ns: int, end_ns: int, outcome: int,
               value: object = _NO_VALUE, inputs: int | tuple | list | None = None) -> int:
        """Append one event; return the new value's id (or -1 if no item)."""
        seq = self.seq
        self.seq = seq + 1
        if value is _NO_VALUE:
            kind = number = 0
        else:
            kind, number = summarize(value, self.texts)
        if inputs is None:
            first = -1
        elif type(inputs) is int:
            first = inputs
        else:
            first = inputs[0] if inputs else -1
            if len(inputs) > 1:
                self._more_inputs[seq] = tuple(inputs)
        chunk = self._chunk
        chunk.extend((node, start_ns, end_ns, outcome | (kind << 2), number, first))
        if len(chunk) >= self._chunk_len:
            self._roll()
        return (self.tag << ID_SHIFT) | seq if outcome == ITEM else -1

    # -- reading ------------------------------------------------------------
    @property
    def held(self) -> int:
        """How many events the buffer holds now."""
        return (sum(len(c) for c in self._full) + len(self._chunk)) // FIELDS

    def export(self, since: int = 0) -> dict:
        """Everything held with sequence number >= ``since``, as plain data.

        ``dropped`` counts the events since the cursor that eviction lost.

        The result is what ``Trace.from_exports`` reads; it crosses process
        boundaries cheaply (one bytes blob for the numbers).
        """
        with self._lock:
            chunks = (*self._full, self._chunk[:])
            first = max(since, self._first_seq)
            seq = self._first_seq
            nodes = list(self.nodes)
            more = dict(self._more_inputs)
        data = array("q")
        for chunk in chunks:
            n = len(chunk) // FIELDS
            if seq + n > first:
                data.extend(chunk[max(0, first - seq) * FIELDS:])
            seq += n
        return {
            "tag": self.tag, "pid": self.pid, "where": self.where,
            "first_seq": first, "next_seq": self.seq, "dropped": first - since,
            "nodes": [n.to_dict() for n in nodes], "texts": list(self.texts.texts),
            "data": data.tobytes(),
            "more_inputs": {s: ins for s, ins in more.items() if s >= first},
            "offset_ns": 0,
        }

    def set_capacity(self, capacity: int) -> None:
        """Change the bound; takes effect from the next chunk on."""
        _check_capacity(capacity)
        self.capacity = capacity
        self._chunk_len = FIELDS * max(1, min(_MAX_CHUNK, capacity // 8))

    def clear(self) -> None:
        """Forget held events (the node table and id counter stay)."""
        self._full.clear()
        self._chunk = array("q")
        self._more_inputs.clear()
        self._first_seq = self.seq

    # -- helpers ------------------------------------------------------------
    def _roll(self) -> None:
        """Close the current chunk; evict the oldest while over capacity."""
        with self._lock:
            self._full.append(self._chunk)
            self._chunk = array("q")
            room_for_next = self._chunk_len // FIELDS
            while self._full and self.held + room_for_next > self.capacity:
                evicted = len(self._full.popleft()) // FIELDS
                self.dropped += evicted
                self._first_seq += evicted
                self._forget_inputs_before(self._first_seq)

    def _forget_inputs_before(self, seq: int) -> None:
        more = self._more_inputs
        for key in [k for k in more if k < seq]:
            del more[key]


def _check_capacity(capacity: object) -> None:
    if not isinstance(capacity, int) or isinstance(capacity, bool):
        raise TypeError(f"capacity must be an int, not {type(capacity).__name__}")
    if capacity < 1:
        raise ValueError(f"capacity must be >= 1 event, got {capacity}; "
                         f"the default is {DEFAULT_CAPACITY:,}")


_RECORDER = Recorder()


def get_recorder() -> Recorder:
    """This process's recorder."""
    return _RECORDER
