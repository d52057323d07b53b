"""Recording each stage of a chain: one wrapper times every ``next()`` and links values.

Each stage's generator is wrapped by ``instrument``: it records one event per
call (item, not-ready, stop or error) through the stage's own ``Writer``,
hands the new value's id to the stage downstream, and lists the ids its own
stage consumed.  A not-ready call lists none: the values it took stay pending
for the call that finally uses them (an ``Enqueue`` retried after a full
queue, a batch still filling), so links lead to the value they became.  A
stage that drops values (a filter) marks every input but the one it passed
on as dropped, so walks back follow the kept one.  The common case (an item,
at most one input) is written inline, without a function call, because it
runs for every item of every stage.  After recording, each call reads
``GATES.armed`` (``rlviz.trace.gate``): a watched run pauses there, at an op
boundary, when it is asked to or meets a breakpoint.
"""
from __future__ import annotations

import time
from collections.abc import Iterator

from rlviz.iter.sentinel import NextValueNotReady
from rlviz.trace.gate import GATES
from rlviz.trace.items import KIND_INT, KINDS, summarize
from rlviz.trace.recorder import Recorder
from rlviz.trace.rows import (CHUNK_BYTES, CONTINUATION, DROPPED, ERROR, ITEM, NO_INPUT, NOT_READY, ROW, STOP,
                              TWO_ROWS, append_continuations, pack_code)

__all__ = ["Tap", "instrument"]

#: The code field of an ITEM row, by summary kind (the hot path looks it up instead of shifting).
_ITEM_CODES = tuple(pack_code(ITEM, kind) for kind in KINDS)
_INT64 = (-(1 << 63), (1 << 63) - 1)


class Tap:
    """The link between one stage and its recorder.

    ``pending`` collects the ids of values this stage consumed since its last
    event; ``downstream`` is the ``pending`` list of whoever consumes this
    stage's values (None if nobody records consumption); ``failure`` is the
    exception (a user's function raising, Ctrl-C) that ended the stage, which
    a finished generator cannot tell later.  ``drops`` says the stage passes
    on only the last value it consumed for an item and drops the others (a
    filter): its events mark those inputs as dropped.  ``decided`` says a
    union pulls this stage and writes a decision after each of its calls.
    """

    __slots__ = ("recorder", "node", "writer", "pending", "downstream", "failure", "drops", "decided")

    def __init__(self, recorder: Recorder, node: int, downstream: list | None, drops: bool = False) -> None:
        self.drops = drops
        self.recorder = recorder
        self.node = node
        self.writer = recorder.writer(node)
        self.pending: list[int] = []
        self.downstream = downstream
        self.failure: BaseException | None = None
        self.decided = False


def instrument(stage: Iterator, tap: Tap) -> Iterator:
    """Yield what ``stage`` yields, recording one event per ``next()`` call."""
    recorder, writer = tap.recorder, tap.writer
    pending, push = tap.pending, (tap.downstream.append if tap.downstream is not None else None)
    drops = tap.drops
    texts, rows = recorder.texts, writer.rows
    pack, pack_two, hand_over = ROW.pack, TWO_ROWS.pack, writer.hand_over
    now = time.time_ns
    pull = stage.__next__
    low, high = _INT64
    not_ready_type, item_codes, chunk_bytes = NextValueNotReady, _ITEM_CODES, CHUNK_BYTES
    int_item, no_input = item_codes[KIND_INT], NO_INPUT
    next_id, id_end = writer.next_id, writer.id_end   # this chunk's ids, kept in locals on the hot path
    gates = GATES
    while True:
        if not recorder.enabled:
            try:
                item = pull()
            except StopIteration:
                return
            except BaseException as error:             # an exception costs nothing until raised
                tap.failure = error
                raise
            pending.clear()
            yield item
            continue
        start = now()
        try:
            item = pull()
        except StopIteration:
            writer.next_id = next_id
            if drops:                                 # what a filter consumed before the end, it dropped
                pending[:] = [value | DROPPED for value in pending]
            writer.record(start, now(), STOP, inputs=_take(pending))
            return
        except BaseException as error:
            writer.next_id = next_id
            writer.record(start, now(), ERROR, inputs=_take(pending))
            tap.failure = error
            if gates.armed:
                gates.reached(tap, start, now(), ERROR, None, -1)
            raise
        end = now()
        kind = type(item)
        if kind is not_ready_type:
            writer.next_id = next_id
            writer.record(start, end, NOT_READY)       # inputs stay pending: the call that uses them comes later
            next_id, id_end = writer.next_id, writer.id_end
            if gates.armed:
                gates.reached(tap, start, end, NOT_READY, item, -1)
            yield item
            continue
        if kind is int and low <= item <= high:
            code, number = int_item, item
        else:
            summary_kind, number = summarize(item, texts)
            code = item_codes[summary_kind]
        inputs = len(pending)
        if next_id >= id_end or (inputs > 2 and len(rows) >= chunk_bytes):   # full: hand over before writing
            writer.next_id = next_id
            hand_over()
            next_id, id_end = writer.next_id, writer.id_end
        item_id = next_id
        next_id += 1
        if inputs == 1:
            rows += pack(start, end, code, number, pending.pop())
        elif not inputs:
            rows += pack(start, end, code, number, no_input)
        elif inputs == 2:                             # a filter that dropped one item: inline
            rows += pack_two(start, end, code, number, pending[0] | DROPPED if drops else pending[0],
                             CONTINUATION, pending[1], no_input, no_input, no_input)
            pending.clear()
        else:                                         # many inputs (batch): rows may fill the chunk early
            if drops:
                pending[:-1] = [value | DROPPED for value in pending[:-1]]
            rows += pack(start, end, code, number, pending[0])
            append_continuations(rows, pending[1:])
            pending.clear()
        if push is not None:
            push(item_id)
        if gates.armed:
            gates.reached(tap, start, end, ITEM, item, item_id)
        yield item


def _take(pending: list) -> tuple | int | None:
    """Empty ``pending`` and return what it held, in the cheapest form."""
    if not pending:
        return None
    if len(pending) == 1:
        return pending.pop()
    taken = tuple(pending)
    pending.clear()
    return taken
