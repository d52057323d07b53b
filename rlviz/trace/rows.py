"""The recorder's row format: how one event is packed into int64s, and how it is read back.

The only owner of the layout; the recorder, the hot path (``rlviz.iter.instrument``),
``Trace`` and the views use these names.  See docs/design.md for a picture.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence

from rlviz.trace.event import OUTCOMES

__all__ = ["ITEM", "NOT_READY", "STOP", "ERROR", "OUTCOME_CODES", "FIELDS", "ROW", "TWO_ROWS",
           "CONTINUATION", "HEADER", "NO_INPUT", "DROPPED", "CHUNK_EVENTS", "CHUNK_BYTES", "OUTCOME_BITS",
           "pack_code", "outcome_of", "kind_of", "header_row", "append_continuations", "mark_dropped",
           "input_id", "is_dropped", "last_end_ns"]

#: Outcome codes, in the order of ``OUTCOMES`` ("item", "not_ready", "stop", "error").
ITEM, NOT_READY, STOP, ERROR = OUTCOME_CODES = tuple(range(len(OUTCOMES)))
#: Low bits of a row's code field that hold the outcome; the summary kind sits above them.
OUTCOME_BITS = 2
_OUTCOME_MASK = (1 << OUTCOME_BITS) - 1

#: A row is FIELDS int64s.  An event row: start_ns (>= 0), end_ns, code, summary number, first input id.
FIELDS = 5
#: One row, packed as native int64s (what ``array("q")`` and ``numpy.frombuffer`` read back); two rows in one call.
ROW = struct.Struct(f"{FIELDS}q")
TWO_ROWS = struct.Struct(f"{2 * FIELDS}q")
#: First field of a row that carries more input ids of the event row just before it, FIELDS - 1 per row.
CONTINUATION = -1
#: First field of a chunk's header row: HEADER, node, id of the chunk's first item, 0, 0.
HEADER = -2
#: The input id that means "none" (also pads continuation rows).
NO_INPUT = -1
#: The bit set on an input id that the consuming call took and dropped (a filter's rejected item):
#: item ids stay below 2**62 (a recorder's tag is 22 bits shifted by 40), so the bit never
#: collides with an id and the marked value stays a positive int64.
DROPPED = 1 << 62
#: Item ids a chunk reserves, and rows (header included) after which a writer hands its chunk over.
CHUNK_EVENTS = 1024
CHUNK_BYTES = CHUNK_EVENTS * ROW.size

# The invariants the hot path relies on (checked in tests/trace/test_recorder.py):
# 1. The first field tells rows apart: >= 0 an event (a start time), CONTINUATION, or HEADER.
# 2. Every chunk opens with one header row; its n-th ITEM row (0-based) has the header's id + n,
#    so item rows never store their id.  A chunk reserves CHUNK_EVENTS ids and is handed over
#    when they are used up, or when its rows reach CHUNK_BYTES (continuation rows fill it early).
# 3. A writer's buffer is one bytearray for the writer's whole life, changed only in place
#    (``+=``, ``[:] =``, ``del [:]``), so the hot path may keep an alias of it across hand-overs;
#    ``Writer.rows`` is a read-only property.
# 4. The hot path may keep a writer's ``next_id`` / ``id_end`` in locals; it stores ``next_id``
#    back before calling any Writer method and reloads both after one.


def pack_code(outcome: int, kind: int) -> int:
    """The code field of an event row: the outcome in the low bits, the summary kind above."""
    return outcome | (kind << OUTCOME_BITS)


def outcome_of(code):
    """The outcome of a code field (an int or an int numpy array)."""
    return code & _OUTCOME_MASK


def kind_of(code):
    """The summary kind of a code field (an int or an int numpy array)."""
    return code >> OUTCOME_BITS


def header_row(node: int, first_id: int) -> bytes:
    """The header row opening a chunk of node ``node`` whose first item has id ``first_id``."""
    return ROW.pack(HEADER, node, first_id, 0, 0)


def append_continuations(rows: bytearray, ids: Sequence[int]) -> None:
    """Append continuation rows carrying ``ids`` to ``rows`` (in place), FIELDS - 1 per row, padded."""
    width = FIELDS - 1
    for at in range(0, len(ids), width):
        part = ids[at:at + width]
        rows += ROW.pack(CONTINUATION, *part, *([NO_INPUT] * (width - len(part))))


def mark_dropped(item_id: int) -> int:
    """An input id marked as consumed and dropped by the call that lists it."""
    return item_id | DROPPED


def input_id(value):
    """The item id of an input value, without its mark (an int or an int numpy array)."""
    return value & ~DROPPED


def is_dropped(value):
    """Whether an input value is marked as dropped (an int or an int numpy array)."""
    return (value & DROPPED) != 0


def last_end_ns(chunk: bytes | bytearray | memoryview) -> int:
    """The latest end time among a chunk's event rows (-1 if it has none): when the chunk's last event ended."""
    values = memoryview(chunk).cast("B").cast("q")
    ends = [end for start, end in zip(values[0::FIELDS], values[1::FIELDS]) if start >= 0]
    return max(ends, default=-1)
