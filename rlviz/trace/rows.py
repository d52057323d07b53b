"""The recorder's row format: how one event is packed into int64s, and how it is read back.

The only owner of the layout; the recorder, the hot path (``rlviz.iter.instrument``),
``Trace`` and the views use these names.  See docs/design.md for a picture.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from rlviz.trace.event import OUTCOMES

__all__ = ["ITEM", "NOT_READY", "STOP", "ERROR", "OUTCOME_CODES", "FIELDS", "ROW", "TWO_ROWS",
           "CONTINUATION", "HEADER", "DECISION", "RELEASED", "released_stub", "stub_events", "stub_span", "body_rows", "event_rows", "DECISION_ROW_FIELDS", "GAUGE", "GAUGE_ROW", "NO_INPUT", "DROPPED", "CHUNK_EVENTS",
           "CHUNK_BYTES", "OUTCOME_BITS",
           "pack_code", "outcome_of", "kind_of", "header_row", "append_continuations", "decision_row",
           "decision_columns", "split_decisions", "split_gauges", "AFTER_PREVIOUS", "ORPHAN", "mark_dropped", "input_id", "is_dropped", "last_end_ns"]

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
#: First field of a chunk's header row: HEADER, node, id of the chunk's first item, 0 (a released stub: its events' earliest
#: start), 0.
HEADER = -2
#: First field of a row that carries the scheduling decision behind the event row just before it (after
#: that event's continuation rows): DECISION, the union's node, round, child | pull << 24, allowed | flags << 32.
#: A union writes it into its child's chunk right after the child's call returns, so the decision names the
#: event by where it sits, never by matching times (``rlviz.trace.decisions`` reads the flags).
DECISION = -3
#: First field of a gauge row: GAUGE, time_ns, value (a float64 in the int64's bytes), name text, where text.
#: The two texts index the recorder's text table.  Gauge rows belong to no event: a thread writes them
#: through its own gauge writer, so they never sit between an event and its continuation or decision rows.
GAUGE = -4
#: One gauge row, packed with its value as a native float64 (``numpy`` reads it back with ``view``).
GAUGE_ROW = struct.Struct("qqdqq")
#: First field of the one row that follows a released chunk's header: RELEASED, the latest end among its
#: events and gauge readings, the latest start among its events, how many events it had, how many body rows.
#: A reader that took a chunk whole (``rlviz.trace.store.TraceStore``) lets its buffer keep only this stub, so
#: each event is held once; a reader that did not take it finds no events in it.
RELEASED = -5
#: What a decision row holds, in the order ``decision_columns`` returns them.
DECISION_ROW_FIELDS = ("union", "round", "child", "pull", "allowed", "flags")
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
# 1. The first field tells rows apart: >= 0 an event (a start time), CONTINUATION, DECISION, GAUGE or HEADER.
#    Continuation and decision rows belong to the event row before them, in the same chunk; gauge rows
#    stand alone (readers take them out first, with ``split_gauges``).
# 2. Every chunk opens with one header row; its n-th ITEM row (0-based) has the header's id + n,
#    so item rows never store their id.  A chunk reserves CHUNK_EVENTS ids and is handed over
#    when they are used up, or when its rows reach CHUNK_BYTES (continuation rows fill it early).
#    A writer hands over only before it writes an event, never right after one, so the rows that
#    follow an event (its continuations, a decision about it) always land in the event's chunk; a
#    chunk may therefore pass CHUNK_BYTES by the rows of one event and one decision per item.
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


_CHILD_BITS, _FLAG_SHIFT = 24, 32


def decision_row(union_node: int, round_: int, child: int, pull: int, allowed: int, flags: int) -> bytes:
    """The row recording why a union pulled its child ``child``: which round, which pull of ``allowed``, and flags."""
    return ROW.pack(DECISION, union_node, round_, child | (pull << _CHILD_BITS), allowed | (flags << _FLAG_SHIFT))


def decision_columns(rows) -> dict:
    """The ``DECISION_ROW_FIELDS`` of decision rows (an int64 array of shape (n, FIELDS)), one int64 array each."""
    child_pull, allowed_flags = rows[:, 3], rows[:, 4]
    return {"union": rows[:, 1].copy(), "round": rows[:, 2].copy(),
            "child": child_pull & ((1 << _CHILD_BITS) - 1), "pull": child_pull >> _CHILD_BITS,
            "allowed": allowed_flags & ((1 << _FLAG_SHIFT) - 1), "flags": allowed_flags >> _FLAG_SHIFT}


#: ``split_decisions`` owners: the event before the rows given (read earlier), or none (a chunk's first row).
AFTER_PREVIOUS, ORPHAN = -1, -2


def split_decisions(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Take the decision rows out of ``rows`` (int64, shape (n, FIELDS), headers allowed).

    Returns the other rows; per decision row, the number of the event row it
    follows, counting event rows of ``rows`` from 0 (``AFTER_PREVIOUS`` when
    it follows the last event of rows read before these, ``ORPHAN`` when it
    follows a header: its event was cleared away); and the decision rows.
    """
    is_decision = rows[:, 0] == DECISION
    if not is_decision.any():
        return rows, np.zeros(0, np.int64), rows[:0]
    is_event = rows[:, 0] >= 0
    opens = is_event | (rows[:, 0] == HEADER)
    last_open = np.maximum.accumulate(np.where(opens, np.arange(len(rows)), -1))
    at = np.flatnonzero(is_decision)
    before = last_open[at]
    owner = np.where(before < 0, AFTER_PREVIOUS, (np.cumsum(is_event) - 1)[at])
    owner[(before >= 0) & ~is_event[np.maximum(before, 0)]] = ORPHAN
    return rows[~is_decision], owner.astype(np.int64), rows[is_decision]


def split_gauges(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Take the gauge rows out of ``rows`` (int64, shape (n, FIELDS)): the other rows, and the gauge rows."""
    is_gauge = rows[:, 0] == GAUGE
    if not is_gauge.any():
        return rows, rows[:0]
    return rows[~is_gauge], rows[is_gauge]


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
    """The latest end time among a chunk's event rows and gauge readings (-1 if it has none)."""
    values = memoryview(chunk).cast("B").cast("q")
    ends = [end for start, end in zip(values[0::FIELDS], values[1::FIELDS])
            if start >= 0 or start == GAUGE or start == RELEASED]
    return max(ends, default=-1)


def released_stub(chunk: bytes | bytearray | memoryview, since_ns: int = 0) -> bytes:
    """The two rows a buffer keeps of a handed-over ``chunk`` once a reader took every row of it.

    The event count in it counts the events that started at or after ``since_ns``.

    >>> rows = header_row(3, 100) + ROW.pack(5, 9, ITEM, 0, NO_INPUT) + ROW.pack(7, 8, ITEM, 1, NO_INPUT)
    >>> stub_events(released_stub(rows)), last_end_ns(released_stub(rows))
    ((2, 7), 9)
    """
    values = np.frombuffer(chunk, np.int64).reshape(-1, FIELDS)
    starts = values[1:, 0]
    events = starts[starts >= 0]
    header = values[0].copy()
    header[3] = events.min() if len(events) else -1     # the header's free field: the earliest start (stub_span)
    return bytes(header.tobytes()) + ROW.pack(RELEASED, last_end_ns(chunk), int(events.max(initial=-1)),
                                              int((events >= since_ns).sum()), len(values) - 1)


def body_rows(chunk: bytes | bytearray | memoryview) -> int:
    """How many rows follow a chunk's header (for a released chunk's stub: how many followed it before)."""
    values = memoryview(chunk).cast("B").cast("q")
    if len(values) == 2 * FIELDS and values[FIELDS] == RELEASED:
        return values[2 * FIELDS - 1]
    return len(values) // FIELDS - 1


def event_rows(chunk: bytes | bytearray | memoryview) -> int:
    """How many of a chunk's rows are events (header, continuation, decision and gauge rows start below 0)."""
    starts = np.frombuffer(chunk, np.int64)[FIELDS::FIELDS]
    return int(np.count_nonzero(starts >= 0))


def stub_span(chunk: bytes | bytearray | memoryview) -> tuple[int, int] | None:
    """``(earliest start, latest end)`` of the events a released chunk's stub stands for; None if not a stub.

    >>> rows = header_row(3, 100) + ROW.pack(5, 9, ITEM, 0, NO_INPUT) + ROW.pack(7, 8, ITEM, 1, NO_INPUT)
    >>> stub_span(released_stub(rows)), stub_span(rows)
    ((5, 9), None)
    """
    if stub_events(chunk) is None:
        return None
    values = memoryview(chunk).cast("B").cast("q")
    return values[3], values[FIELDS + 1]


def stub_events(chunk: bytes | bytearray | memoryview) -> tuple[int, int] | None:
    """``(events, latest start)`` of a released chunk's stub; None if ``chunk`` is not one."""
    values = memoryview(chunk).cast("B").cast("q")
    if len(values) != 2 * FIELDS or values[FIELDS] != RELEASED:
        return None
    return values[FIELDS + 3], values[FIELDS + 2]
