"""Why a call was not ready, or dropped an input, read from the gauges its op recorded during the call.

An op that answers "not ready" because of some state records that state as
gauges inside the call (``Replay`` records the rows added and
``learning_starts``; ``Enqueue`` its queue's size and capacity when it is
full; ``Dequeue`` its queue's size when it is empty), so the cause is found
by time, on the event's lane, whatever the user named the op.  A value a
consumer dropped (a filter dropping a replay shard's ``None``) carries the
cause its producer recorded while making it.  The Explorer applies the same rule in
``explorer_gauges.js`` (``causeOf``); a parity test runs both.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.gauges import LEARNING_STARTS, QUEUE_CAPACITY, QUEUE_EMPTY, QUEUE_HELD, REPLAY_ADDED, Gauge
from rlviz.trace.rows import NOT_READY

__all__ = ["event_causes", "state_causes", "cause_sentence", "with_cause", "CAUSES", "DROPPED_INPUT"]


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


#: What a dropped input's cause is prefixed with (its producer's state made the value the consumer dropped).
DROPPED_INPUT = "dropped an input"


def with_cause(decision: str | None, cause: str | None, not_ready: bool = True) -> str | None:
    """An event's whole why: the union's decision, its cause, both, or None.

    ``cause`` is a not-ready cause, or (``not_ready=False``) a dropped input's,
    already prefixed with ``DROPPED_INPUT``.

    >>> with_cause("round 2: Replay not ready: its turn ends", "replay buffer has 8 of the 16 rows learning_starts needs")
    'round 2: Replay not ready: its turn ends (replay buffer has 8 of the 16 rows learning_starts needs)'
    >>> with_cause(None, "dropped an input: replay buffer has 8 of the 16 rows learning_starts needs", not_ready=False)
    'dropped an input: replay buffer has 8 of the 16 rows learning_starts needs'
    """
    if cause is None:
        return decision
    if decision is not None:
        return f"{decision} ({cause})"
    return f"not ready: {cause}" if not_ready else cause


def event_causes(columns: Mapping[str, np.ndarray], nodes: list[Node], gauges: Mapping[str, Gauge],
                 dropped_links: tuple[np.ndarray, np.ndarray]) -> dict[int, tuple[str, bool]]:
    """Per event with a cause (its index): the cause, and whether it is a not-ready one.

    A not-ready event's cause is the state its op recorded during the call
    (``state_causes``).  An event that dropped an input (a filter dropping a
    replay shard's ``None``) has, failing that, the cause the producer of its
    latest dropped input recorded while it made the value: ``dropped_links`` are the
    (producer, consumer) event indices of the dropped values.
    """
    causes = {event: (cause, True) for event, cause in
              state_causes(columns, nodes, gauges, np.flatnonzero(columns["outcome"] == NOT_READY)).items()}
    producers, consumers = dropped_links
    made = state_causes(columns, nodes, gauges, np.unique(producers))
    for producer, consumer in zip(producers.tolist(), consumers.tolist()):      # in input order: the last wins
        if producer in made and not causes.get(consumer, ("", False))[1]:
            causes[consumer] = (f"{DROPPED_INPUT}: {made[producer]}", False)
    return causes


def state_causes(columns: Mapping[str, np.ndarray], nodes: list[Node], gauges: Mapping[str, Gauge],
                 events: np.ndarray) -> dict[int, str]:
    """Per event of ``events`` (indices), the state its op recorded during the call, where it recorded one.

    A cause of ``CAUSES`` applies when each of its gauges has a reading on
    the event's lane between the event's start and its end (the latest
    counts); the first that applies is the event's.
    """
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
