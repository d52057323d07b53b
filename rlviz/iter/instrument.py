"""Recording each stage of a chain: one wrapper times every ``next()`` and links values.

Each stage's generator is wrapped by ``instrument``: it records one event per
call (item, not-ready, stop or error), hands the new value's id to the stage
downstream, and lists the ids its own stage consumed.  Imports no Ray.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

from rlviz.iter.sentinel import NextValueNotReady
from rlviz.trace.recorder import ERROR, ITEM, NOT_READY, STOP, Recorder

__all__ = ["Tap", "instrument", "new_node_id"]

_NODE_IDS = itertools.count(1)


def new_node_id() -> str:
    """A fresh id for a dataflow node created in this process (``n1``, ``n2``, ...)."""
    return f"n{next(_NODE_IDS)}"


class Tap:
    """The link between one stage and its recorder.

    ``pending`` collects the ids of values this stage consumed since its last
    event; ``downstream`` is the ``pending`` list of whoever consumes this
    stage's values (None if nobody records consumption).
    """

    __slots__ = ("recorder", "node", "pending", "downstream", "last_id")

    def __init__(self, recorder: Recorder, node: int, downstream: list | None) -> None:
        self.recorder = recorder
        self.node = node
        self.pending: list[int] = []
        self.downstream = downstream
        self.last_id = -1


def instrument(stage: Iterator, tap: Tap) -> Iterator:
    """Yield what ``stage`` yields, recording one event per ``next()`` call."""
    recorder = tap.recorder
    pending = tap.pending
    downstream = tap.downstream
    node = tap.node
    now = time.time_ns
    pull = stage.__next__
    while True:
        if not recorder.enabled:
            try:
                item = pull()
            except StopIteration:
                return
            pending.clear()
            yield item
            continue
        start = now()
        try:
            item = pull()
        except StopIteration:
            recorder.record(node, start, now(), STOP, inputs=_take(pending))
            return
        except BaseException:
            recorder.record(node, start, now(), ERROR, inputs=_take(pending))
            raise
        if isinstance(item, NextValueNotReady):
            recorder.record(node, start, now(), NOT_READY, inputs=_take(pending))
        else:
            item_id = tap.last_id = recorder.record(node, start, now(), ITEM, item, _take(pending))
            if downstream is not None:
                downstream.append(item_id)
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
