"""Why a call was not ready, read from the gauges its op recorded during the call.

An op that answers "not ready" because of some state records that state as
gauges inside the call (``Replay`` records the rows added and
``learning_starts``), so the cause is found by time, on the event's lane,
whatever the user named the op.  The Explorer applies the same rule in
``explorer_gauges.js`` (``causeOf``); a parity test runs both.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.gauges import LEARNING_STARTS, REPLAY_ADDED, Gauge
from rlviz.trace.rows import NOT_READY

__all__ = ["not_ready_causes", "cause_sentence", "with_cause"]


def cause_sentence(added: float, needed: float) -> str:
    """The cause of a Replay that is not ready yet.

    >>> cause_sentence(812, 1000)
    'replay buffer has 812 of the 1,000 rows learning_starts needs'
    """
    return f"replay buffer has {int(added):,} of the {int(needed):,} rows learning_starts needs"


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

    The cause is the latest reading of ``learning_starts`` and of
    ``replay rows added`` on the event's lane between its start and its end.
    """
    needed, added = gauges.get(LEARNING_STARTS), gauges.get(REPLAY_ADDED)
    if needed is None or added is None:
        return {}
    events = np.flatnonzero(columns["outcome"] == NOT_READY)
    if not len(events):
        return {}
    where = np.array([node.where for node in nodes] or [""], dtype=object)[columns["node"][events]]
    causes = {}
    for lane in np.unique(needed.where).tolist():
        mine = events[where == lane]
        starts, ends = columns["start_ns"][mine], columns["end_ns"][mine]
        need_value = _within(needed.on(lane), starts, ends)
        added_value = _within(added.on(lane), starts, ends)
        for event, need, have in zip(mine.tolist(), need_value.tolist(), added_value.tolist()):
            if need == need and have == have:           # both read during the call (NaN: not)
                causes[event] = cause_sentence(have, need)
    return causes


def _within(gauge: Gauge, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per call, the gauge's latest reading from its start to its end (NaN where it has none)."""
    at = np.searchsorted(gauge.time_ns, ends, side="right") - 1
    found = (at >= 0) & (gauge.time_ns[np.maximum(at, 0)] >= starts) if len(gauge) else np.zeros(len(ends), bool)
    return np.where(found, gauge.value[np.maximum(at, 0)] if len(gauge) else np.nan, np.nan)
