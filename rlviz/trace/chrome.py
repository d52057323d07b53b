"""Export a trace as Chrome trace-event JSON, which Perfetto and chrome://tracing open.

Each process is a Perfetto process, each dataflow node its own thread track,
each event a complete ("X") event, and each value passed on a flow arrow from
producer to consumer.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from rlviz.trace.event import OUTCOMES

if TYPE_CHECKING:
    from rlviz.trace.trace import Trace

__all__ = ["chrome_events", "write_chrome"]


def chrome_events(trace: "Trace") -> list[dict]:
    """The trace as a list of Chrome trace events (times in microseconds)."""
    c = trace.columns
    pids = c["pid"].tolist()
    nodes = c["node"].tolist()
    starts, ends = c["start_ns"].tolist(), c["end_ns"].tolist()
    outcomes = c["outcome"].tolist()
    events = _metadata(trace, pids, nodes)
    for i in range(len(trace)):
        node = trace.nodes[nodes[i]]
        args = {"label": node.label, "outcome": OUTCOMES[outcomes[i]]}
        item = trace.item_summary(i)
        if item is not None:
            args["item"] = item
        events.append({"name": node.op, "cat": OUTCOMES[outcomes[i]], "ph": "X",
                       "ts": starts[i] / 1000, "dur": (ends[i] - starts[i]) / 1000,
                       "pid": pids[i], "tid": nodes[i], "args": args})
    producers, consumers = trace.links()
    for flow_id, (p, q) in enumerate(zip(producers.tolist(), consumers.tolist())):
        events.append({"name": "value", "cat": "flow", "ph": "s", "id": flow_id,
                       "ts": ends[p] / 1000, "pid": pids[p], "tid": nodes[p]})
        events.append({"name": "value", "cat": "flow", "ph": "f", "bp": "e", "id": flow_id,
                       "ts": max(starts[q], ends[p]) / 1000, "pid": pids[q], "tid": nodes[q]})
    return events


def write_chrome(trace: "Trace", path: str | Path) -> None:
    """Write ``chrome_events(trace)`` to ``path``."""
    document = {"traceEvents": chrome_events(trace), "displayTimeUnit": "ms",
                "otherData": {"producer": "rlviz", "dropped_events": trace.dropped}}
    Path(path).write_text(json.dumps(document))


def _metadata(trace: "Trace", pids: list[int], nodes: list[int]) -> list[dict]:
    """Process names (where) and thread names (node labels) for each track used."""
    events = []
    for pid, node_index in sorted(set(zip(pids, nodes))):
        node = trace.nodes[node_index]
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": node.where}})
        events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": node_index,
                       "args": {"name": f"{node.op}  {node.label}"}})
    return events
