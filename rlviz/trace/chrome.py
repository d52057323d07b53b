"""Export a trace as Chrome trace-event JSON, which Perfetto and chrome://tracing open.

Each process is a Perfetto process, each dataflow node its own thread track
(named after the node, so events need not repeat the label), each event a
complete ("X") event whose category is its outcome, and each value passed on
a flow arrow from producer to consumer, and each gauge reading a counter
("C") event of its process named ``"<gauge> @ <lane>"`` (one track per gauge
and lane).  Times are microseconds from the
trace's first event (``otherData.start_ns`` keeps the epoch), which keeps the
numbers short.  A path ending in ``.gz`` is written gzip-compressed; both
viewers open ``.json.gz`` as it is.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

from rlviz.trace.event import OUTCOMES

if TYPE_CHECKING:
    from rlviz.trace.trace import Trace

__all__ = ["chrome_events", "write_chrome"]

#: Name and category of every flow event; a viewer pairs an "s" with its "f" by (category, name, id).
FLOW_NAME, FLOW_CATEGORY = "value", "flow"


def chrome_events(trace: "Trace") -> list[dict]:
    """The trace as a list of Chrome trace events (microseconds since the trace's first event)."""
    c = trace.columns
    origin = trace.start_ns
    pids, nodes = c["pid"].tolist(), c["node"].tolist()
    start_ns, end_ns = c["start_ns"].tolist(), c["end_ns"].tolist()
    starts, ends = [_us(ns - origin) for ns in start_ns], [_us(ns - origin) for ns in end_ns]
    outcomes = c["outcome"].tolist()
    ops = [node.op for node in trace.nodes]
    events = _metadata(trace, pids, nodes)
    for i in range(len(trace)):
        event = {"name": ops[nodes[i]], "cat": OUTCOMES[outcomes[i]], "ph": "X", "ts": starts[i],
                 "dur": _us(end_ns[i] - start_ns[i]), "pid": pids[i], "tid": nodes[i]}
        item = trace.item_summary(i)
        if item is not None:
            event["args"] = {"item": item}
        events.append(event)
    producers, consumers = trace.links()
    for flow_id, (p, q) in enumerate(zip(producers.tolist(), consumers.tolist())):
        events.append({"name": FLOW_NAME, "cat": FLOW_CATEGORY, "ph": "s", "id": flow_id, "ts": ends[p],
                       "pid": pids[p], "tid": nodes[p]})
        events.append({"name": FLOW_NAME, "cat": FLOW_CATEGORY, "ph": "f", "bp": "e", "id": flow_id,
                       "ts": max(starts[q], ends[p]), "pid": pids[q], "tid": nodes[q]})
    events.extend(_counters(trace, origin))
    return events


def write_chrome(trace: "Trace", path: str | Path) -> None:
    """Write ``chrome_events(trace)`` to ``path`` as compact JSON, gzip-compressed if it ends in ``.gz``."""
    document = {"traceEvents": chrome_events(trace), "displayTimeUnit": "ms",
                "otherData": {"producer": "rlviz", "start_ns": trace.start_ns, "dropped_events": trace.dropped}}
    data = json.dumps(document, separators=(",", ":")).encode()
    path = Path(path)
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)


def _us(ns: int) -> float:
    """Nanoseconds as microseconds, to the nanosecond (3 decimals)."""
    return round(ns / 1000, 3)


def _counters(trace: "Trace", origin: int) -> list[dict]:
    """Each gauge reading as a counter event of its process ("C": Perfetto draws one track per name and pid)."""
    events = []
    for name, gauge in trace.gauges.items():
        for time_ns, value, pid, where in zip(gauge.time_ns.tolist(), gauge.value.tolist(), gauge.pid.tolist(),
                                              gauge.where.tolist()):
            events.append({"name": f"{name} @ {where}", "ph": "C", "ts": _us(time_ns - origin), "pid": pid,
                           "args": {"value": value}})
    return events


def _metadata(trace: "Trace", pids: list[int], nodes: list[int]) -> list[dict]:
    """Process names (where) and thread names (node labels) for each track used."""
    events, named = [], set()
    for pid, node_index in sorted(set(zip(pids, nodes))):
        node = trace.nodes[node_index]
        if pid not in named:
            named.add(pid)
            events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": node.where}})
        events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": node_index,
                       "args": {"name": f"{node.op}  {node.label}"}})
    return events
