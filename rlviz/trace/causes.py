"""Why a call was not ready, read from the gauges its op recorded during the call.

An op that answers "not ready" because of some state records that state as
gauges inside the call (``Replay`` records the rows added and
``learning_starts``; ``Enqueue`` its queue's size and capacity when it is
full; ``Dequeue`` its queue's size when it is empty), so the cause is found
by time, on the event's lane, whatever the user named the op.  The Explorer applies the same rule in
``explorer_gauges.js`` (``causeOf``); a parity test runs both.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.gauges import LEARNING_STARTS, QUEUE_CAPACITY, QUEUE_EMPTY, QUEUE_HELD, REPLAY_ADDED, Gauge
from rlviz.trace.rows import NOT_READY

__all__ = ["not_ready_causes", "cause_sentence", "with_cause", "CAUSES"]


def cause_sentence(added: float, needed: float) -> str:
    """The cause of a Replay that is not ready yet.

    >>> cause_sentence(812, 1000)
    'replay buffer has 812 of the 1,000 rows learning_starts needs'
    """
    return f"replay buffer has {int(added):,} of the {int(needed):,} rows learning_starts needs"


def _queue_full(capacity: float, held: float) -> str:
    return f"its queue is full: {int(held):,} of {int(capacity):,} items"


def _queue_empty(held: float) -> str:
    return "its queue is empty"


#: The causes, in the order they are tried: the gauges a call must have recorded, and the sentence they make.
#: ``explorer_gauges.js`` (``CAUSES``) holds the same table.
CAUSES = (
    ((LEARNING_STARTS, REPLAY_ADDED), lambda needed, added: cause_sentence(added, needed)),
    ((QUEUE_CAPACITY, QUEUE_HELD), _queue_full),
    ((QUEUE_EMPTY,), _queue_empty),
)


def with_cause(decision: str | None, cause: str | None) -> str | None:
    """An event's whole why: the union's decision, its cause, both, or None.

    >>> with_cause("round 2: Replay not ready: its turn ends", "replay buffer has 8 of the 16 rows learning_starts needs")
    'round 2: Replay not ready: its turn ends (replay buffer has 8 of the 16 rows learning_starts needs)'
    """
    if cause is None:
        return decision
    return f"not ready: {cause}" if decision is None else f"{decision} ({cause})"


def not_ready_causes(columns: Mapping[str, np.ndarray], nodes: list[Node], gauges: Mapping[str, Gauge]) -> dict[int, str]:
    """Per not-ready event (its index), the cause its op recorded during the call, where it recorded one.

    A cause of ``CAUSES`` applies when each of its gauges has a reading on
    the event's lane between the event's start and its end (the latest
    counts); the first that applies is the event's.
    """
    events = np.flatnonzero(columns["outcome"] == NOT_READY)
    rules = [(names, sentence) for names, sentence in CAUSES if all(name in gauges for name in names)]
    if not len(events) or not rules:
        return {}
    where = np.array([node.where for node in nodes] or [""], dtype=object)[columns["node"][events]]
    causes: dict[int, str] = {}
    for names, sentence in rules:
        lanes = set.intersection(*(set(gauges[name].where.tolist()) for name in names))
        for lane in sorted(lanes):
            mine = events[where == lane]
            starts, ends = columns["start_ns"][mine], columns["end_ns"][mine]
            values = np.stack([_within(gauges[name].on(lane), starts, ends) for name in names], axis=1)
            for event, row in zip(mine.tolist(), values.tolist()):
                if event not in causes and all(v == v for v in row):     # every gauge read during the call
                    causes[event] = sentence(*row)
    return causes


def _within(gauge: Gauge, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per call, the gauge's latest reading from its start to its end (NaN where it has none)."""
    at = np.searchsorted(gauge.time_ns, ends, side="right") - 1
    found = (at >= 0) & (gauge.time_ns[np.maximum(at, 0)] >= starts) if len(gauge) else np.zeros(len(ends), bool)
    return np.where(found, gauge.value[np.maximum(at, 0)] if len(gauge) else np.nan, np.nan)
