"""Questions asked of a trace: per-node statistics, the dataflow graph, item order.

Small functions over the columns of a ``Trace``; networkx is imported only by
``trace_graph``.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.decisions import CAP, STAR
from rlviz.trace.event import OUTCOMES
from rlviz.trace.lanes import lane_key
from rlviz.trace.words import counted

if TYPE_CHECKING:
    import networkx as nx

    from rlviz.trace.trace import Trace

__all__ = ["op_stats", "node_counts", "summary_table", "trace_graph", "item_sequence", "edge_counts", "SEQUENCE_BY",
           "order_notes", "NOT_READY_SHARE", "CAP_SHARE", "RATIO_OFF"]

#: ``order_notes`` speaks up when an op was not ready in more than this share of its polls,
NOT_READY_SHARE = 0.2
#: when a "*" op hit its cap in more than this share of its turns,
CAP_SHARE = 0.5
#: and when a measured ratio is further than this (relative) from the weights.
RATIO_OFF = 0.25

_ITEM, _NOT_READY, _STOP, _ERROR = range(len(OUTCOMES))


def op_stats(trace: "Trace") -> list[dict]:
    """One row per node: op, label, where, calls, items, not_ready, errors, busy_ns.

    ``busy_ns`` sums the durations of every call of the node, not-ready polls
    included: a poll that waits 2 ms kept the op busy for those 2 ms.  The
    Explorer's node counters are these counts, carried in the page's start
    meta (docs/design.md, "Rules written twice").
    """
    counts = node_counts(trace.columns, len(trace.nodes))
    return [{"op_id": n.op_id, "op": n.op, "label": n.label, "where": n.where,
             **{name: int(counts[name][i]) for name in ("calls", "items", "not_ready", "errors", "busy_ns")}}
            for i, n in enumerate(trace.nodes)]


def node_counts(columns: dict[str, np.ndarray], n_nodes: int) -> dict[str, np.ndarray]:
    """Per node (``n_nodes`` of them), over the events of ``columns``: ``calls``, ``items``, ``not_ready``,
    ``errors`` (int64) and ``busy_ns`` (float64: every call's duration, not-ready polls included).

    Counts over two sets of events add up, so a growing stream keeps them by adding each increment's.
    """
    node = columns["node"].astype(np.int64)
    counts = {name: np.bincount(node[columns["outcome"] == code], minlength=n_nodes)
              for code, name in ((_ITEM, "items"), (_NOT_READY, "not_ready"), (_ERROR, "errors"))}
    counts["calls"] = np.bincount(node, minlength=n_nodes)
    counts["busy_ns"] = np.bincount(node, weights=(columns["end_ns"] - columns["start_ns"]).astype(np.float64),
                                    minlength=n_nodes)
    return counts


def summary_table(trace: "Trace") -> str:
    """A fixed-width table of ``op_stats``, lanes in lane order, busiest nodes first within a lane."""
    rows = sorted(op_stats(trace), key=lambda r: (lane_key(r["where"]), -r["busy_ns"]))
    where_width = max([len("where"), *(len(r["where"]) for r in rows)])
    op_width = max([len("op"), *(len(r["op"]) for r in rows)])
    header = (f"{'where':<{where_width}} {'op':<{op_width}} {'calls':>8} {'items':>8} {'not_rdy':>8} "
              f"{'errors':>6} {'busy ms':>9}")
    lines = [repr(trace), header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r['where']:<{where_width}} {r['op']:<{op_width}} {r['calls']:>8} {r['items']:>8} "
                     f"{r['not_ready']:>8} {r['errors']:>6} {r['busy_ns'] / 1e6:>9.2f}")
    if trace.dropped:
        lines.append(f"({counted(trace.dropped, 'event')} dropped by the bounded buffers; "
                     f"raise rlviz.record(capacity=...) to keep them)")
    notes = order_notes(trace)
    if notes:
        lines += ["", "notes (where a scheduling rule dominates; see trace.decisions):", *(f"* {n}" for n in notes)]
    return "\n".join(lines)


def order_notes(trace: "Trace") -> list[str]:
    """Sentences for each union whose order one rule dominates: a "*" op at its cap, an op mostly not ready, a ratio far from the weights.

    Read from the trace's scheduling decisions (``trace.decisions``); empty
    when no union ran or nothing stands out.

    Examples
    --------
    >>> from rlviz.trace import Trace
    >>> order_notes(Trace.empty())
    []
    """
    d = trace.decisions
    notes: list[str] = []
    if not len(d):
        return notes
    causes = {event: cause for event, (cause, not_ready) in trace.causes().items() if not_ready}
    c = d.columns
    for union, spec in enumerate(d.specs):
        mine = c["union"] == union
        if not mine.any():
            continue
        items = []
        for child, name in enumerate(spec["children"]):
            rows = mine & (c["child"] == child)
            polls, items_made = int(rows.sum()), int((rows & (c["outcome"] == _ITEM)).sum())
            items.append(items_made)
            not_ready = int((rows & (c["outcome"] == _NOT_READY)).sum())
            cause = _dominant_cause([causes.get(int(e)) for e in c["event"][rows & (c["outcome"] == _NOT_READY)]])
            if polls and (not_ready > NOT_READY_SHARE * polls or cause):
                notes.append(f"{name} was not ready in {not_ready} of {polls} polls ({not_ready / polls:.0%}); "
                             f"each ends its turn, so it ran less often than its weight says{cause}")
            turns = np.unique(c["round"][rows & ((c["flags"] & STAR) > 0)])
            capped = np.unique(c["round"][rows & ((c["flags"] & CAP) > 0)])
            if len(turns) and len(capped) > CAP_SHARE * len(turns):
                notes.append(f"{name} ('*') hit its cap of {int(c['allowed'][rows].max())} pulls in {len(capped)} of "
                             f"{len(turns)} turns: it is always ready, so each turn takes the cap and the other "
                             f"ops run far less often; give it a number instead of '*'")
        notes += _ratio_note(spec, items)
    return notes


#: A number in a cause's sentence ("812", "1,000", "0.5").
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _dominant_cause(causes: list[str | None]) -> str:
    """The cause most of these not-ready polls share (counts aside), as a note's ending; "" if none has one.

    A count that varied across them is given as its range ("between 406 and 812 of the 1,000 rows"), one that
    did not as itself: quoting the latest poll alone would say the state stood still.
    """
    kinds = Counter(_NUMBER.sub("#", cause) for cause in causes if cause)
    if not kinds:
        return ""
    kind, count = kinds.most_common(1)[0]
    readings = [[float(n.replace(",", "")) for n in _NUMBER.findall(cause)]
                for cause in causes if cause and _NUMBER.sub("#", cause) == kind]
    parts = kind.split("#")
    sentence = parts[0] + "".join(_value_or_range([r[k] for r in readings]) + part
                                  for k, part in enumerate(parts[1:]))
    return f"; the cause (in {count} of them): {sentence}"


def _value_or_range(values: list[float]) -> str:
    low, high = min(values), max(values)
    return _number(low) if low == high else f"between {_number(low)} and {_number(high)}"


def _number(value: float) -> str:
    return f"{int(value):,}" if value.is_integer() else f"{value:,g}"


def _ratio_note(spec: dict, items: list[int]) -> list[str]:
    """A note when the items per op are far from the numeric weights (relative to the first numeric op)."""
    weights = spec["weights"]
    numeric = [k for k, w in enumerate(weights) if w != "*"]
    if len(numeric) < 2 or not items[numeric[0]]:
        return []
    base_items, base_weight = items[numeric[0]], weights[numeric[0]]
    off = [k for k in numeric[1:]
           if abs(items[k] / base_items - weights[k] / base_weight) > RATIO_OFF * weights[k] / base_weight]
    if not off:
        return []
    measured = " : ".join(str(n) for n in items)
    return [f"measured {measured} items for {', '.join(spec['children'])}, far from the weights "
            f"{' : '.join(str(w) for w in weights)}"]


def edge_counts(trace: "Trace") -> dict[tuple[str, str], int]:
    """Values passed from producer node to consumer node, counted from the links."""
    producers, consumers = trace.links()
    node = trace.columns["node"].astype(np.int64)
    width = max(len(trace.nodes), 1)
    # One int per (producer node, consumer node) pair, counted in a table of width**2 cells (no sort of 10M links:
    # 0.05 s instead of 0.3 s); np.unique sorts them when there are so many nodes that the table would be large.
    keys = node[producers] * width + node[consumers]
    if width * width <= max(len(keys), 1 << 16):
        counts = np.bincount(keys, minlength=width * width)
        pairs = np.flatnonzero(counts)
        counts = counts[pairs]
    else:
        pairs, counts = np.unique(keys, return_counts=True)
    ids = [n.op_id for n in trace.nodes]
    return {(ids[a // width], ids[a % width]): int(k) for a, k in zip(pairs.tolist(), counts.tolist())}


def trace_graph(trace: "Trace") -> "nx.DiGraph":
    """The dataflow graph with what the trace saw on each node and edge.

    Nodes are op_ids with attributes op, label, where, calls, items,
    not_ready, errors and busy_ns; an edge u -> v means v pulls values from
    u, with ``items`` the number of values seen passing along it.
    """
    import networkx as nx

    graph = nx.DiGraph()
    for row in op_stats(trace):
        graph.add_node(row.pop("op_id"), **row)
    for node in trace.nodes:
        for parent in node.parents:
            if parent in graph:
                graph.add_edge(parent, node.op_id, items=0)
    for (producer, consumer), count in edge_counts(trace).items():
        if producer != consumer:
            graph.add_edge(producer, consumer, items=count)
    return graph


#: What ``item_sequence`` can name each item by.
SEQUENCE_BY = ("label", "op", "op_id")


def item_sequence(trace: "Trace", ops: Iterable[str] | None = None, by: str = "label") -> list[str]:
    """The nodes of item-producing events in completion order (by end time), named ``by`` their label, op or op_id.

    Raises
    ------
    TypeError
        If ``ops`` is a single string.
    ValueError
        If ``by`` is not one of ``SEQUENCE_BY``.

    Examples
    --------
    >>> from rlviz.viz.examples import concurrently_trace
    >>> trace = concurrently_trace((1, 2), rounds=1, warmup=0)
    >>> trace.sequence(["StoreToReplayBuffer", "TrainOneStep"], by="op")
    ['StoreToReplayBuffer', 'TrainOneStep', 'TrainOneStep']
    """
    if by not in SEQUENCE_BY:
        raise ValueError(f"by must be one of {list(SEQUENCE_BY)}, got {by!r}; hint: by=\"op\" names items "
                         f"by op name (TrainOneStep), by=\"label\" by the full label")
    if isinstance(ops, str):
        raise TypeError(f"ops must be a list of op names, labels or op_ids, not the string {ops!r}; "
                        f"hint: ops=[{ops!r}]")
    c = trace.columns
    keep = c["outcome"] == _ITEM
    if ops is not None:
        wanted = set(ops)
        chosen = np.array([bool({n.op, n.label, n.op_id} & wanted) for n in trace.nodes] or [False])
        keep &= chosen[c["node"]]
    indices = np.flatnonzero(keep)
    order = indices[np.argsort(c["end_ns"][indices], kind="stable")]
    labels = [getattr(n, by) for n in trace.nodes]
    return [labels[i] for i in c["node"][order].tolist()]
