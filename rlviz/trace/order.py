"""The order items completed in, and the rounds of a union: what the strips show, worked out from a trace.

Analysis only (no drawing): ``rlviz.viz.order`` draws these as the
round-robin strip, the Explorer's order pane draws the same rounds, and
``rlviz.testing`` asserts on them.  ``op_groups`` turns the ops a reader
names into groups of nodes; ``completion_categories`` lists the group of
each item in completion order; ``round_cells`` reads a union's scheduling
decisions round by round; ``merge_nodes`` finds the nodes that merge streams.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.items import short_text
from rlviz.trace.trace import Trace

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Rounds", "Completion", "op_groups", "completion_categories", "round_cells", "stream_op", "merge_inputs",
           "merge_nodes"]

_ITEM = 0
_WRAPPER = re.compile(r"tag\[\d+\]")   # Concurrently tags each child's stream with its index


@dataclass
class Rounds:
    """The strip by round, from a union's scheduling decisions: one entry per poll of a selected op.

    ``round[k]``, ``category[k]`` (group) and ``not_ready[k]`` describe the
    k-th poll; ``not_ready_counts`` counts the polls per group that found it
    not ready; ``union`` indexes ``trace.decisions.specs``.
    """

    round: np.ndarray
    category: np.ndarray
    not_ready: np.ndarray
    not_ready_counts: np.ndarray
    union: int


@dataclass
class Completion:
    """The items of the selected groups in completion (end time) order: ``category[k]`` is the group of the k-th.

    ``names`` are the groups' short names (op names, never internal
    op_ids), ``labels`` their full node labels, ``counts`` the items per
    group, ``group`` the group of each node (-1: not selected), ``event[k]``
    the trace index of the event that made the k-th item.
    """

    category: np.ndarray
    names: list[str]
    counts: np.ndarray
    labels: list[str]
    group: np.ndarray
    event: np.ndarray


def completion_categories(trace: Trace, ops: Iterable[str] | None = None) -> Completion:
    """Group item events by the ops named and list their groups in completion (end time) order.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : iterable of str, optional
        Op names, labels or op_ids, one group each; None: one group per
        node, keeping only nodes that produced something.

    Returns
    -------
    Completion

    Raises
    ------
    TypeError
        If ``ops`` is a single string.
    ValueError
        If an ``ops`` entry matches no node of a non-empty trace.
    """
    c = trace.columns
    group, names, labels = op_groups(trace, ops)
    is_item = c["outcome"] == _ITEM
    cat = group[c["node"]] if len(group) else np.zeros(len(trace), np.int64)
    picked = np.flatnonzero(is_item & (cat >= 0))
    picked = picked[np.argsort(c["end_ns"][picked], kind="stable")]
    category = cat[picked]
    counts = np.bincount(category, minlength=len(names))
    if ops is None:                          # keep only nodes that produced something
        keep = np.flatnonzero(counts)
        remap = np.full(len(names), -1)
        remap[keep] = np.arange(len(keep))
        category, names, counts = remap[category], [names[k] for k in keep], counts[keep]
        labels, group = [labels[k] for k in keep], np.where(group >= 0, remap[np.maximum(group, 0)], -1)
    return Completion(category, names, counts, labels, group, picked)


def round_cells(trace: Trace, ops: Iterable[str]) -> Rounds | None:
    """The selected ops' polls by round, from the decisions of the union that pulls most of them.

    Parameters
    ----------
    trace : Trace
        A recorded trace.
    ops : iterable of str
        See ``plot_order``.

    Returns
    -------
    Rounds or None
        None when no recorded union pulls two or more of the selected ops.
    """
    group, names, _ = op_groups(trace, ops)
    d = trace.decisions
    node_of = {node.op_id: i for i, node in enumerate(trace.nodes)}
    best = None
    for union, spec in enumerate(d.specs):
        child_group = []
        for ids in spec["child_ids"]:
            hits = [int(group[node_of[i]]) for i in reversed(ids) if i in node_of and group[node_of[i]] >= 0]
            child_group.append(hits[0] if hits else -1)
        mapped = sum(g >= 0 for g in child_group)
        if mapped >= 2 and (best is None or mapped > best[0]):
            best = (mapped, union, np.array(child_group))
    if best is None:
        return None
    _, union, child_group = best
    c = d.columns
    polls = np.flatnonzero((c["union"] == union) & (c["outcome"] <= 1) & (child_group[c["child"]] >= 0)) \
        if len(c["union"]) else np.zeros(0, np.int64)
    category = child_group[c["child"][polls]]
    not_ready = c["outcome"][polls] == 1
    counts = np.bincount(category[not_ready], minlength=len(names))
    return Rounds(c["round"][polls], category, not_ready, counts, union)


def stream_op(node: Node, by_id: dict[str, Node]) -> str:
    """The op name of the stream ``node`` makes; a ``Concurrently`` wrapper (``tag[k]``) names the op it wraps.

    Parameters
    ----------
    node : Node
        A dataflow node.
    by_id : dict of str to Node
        Every node of the dataflow by op_id, to look parents up.

    Returns
    -------
    str

    Examples
    --------
    >>> store = Node("n4", "StoreToReplayBuffer", "...for_each(StoreToReplayBuffer)")
    >>> tag = Node("n8", "tag[0]", "...", parents=("n4",))
    >>> stream_op(tag, {"n4": store, "n8": tag})
    'StoreToReplayBuffer'
    """
    seen = set()
    while _WRAPPER.fullmatch(node.op) and len(node.parents) == 1 and node.parents[0] in by_id:
        seen.add(node.op_id)
        node = by_id[node.parents[0]]
        if node.op_id in seen:
            break
    return node.op


def merge_inputs(graph: "nx.DiGraph") -> tuple[str, list[str]] | None:
    """The most downstream node that merges several streams of items, and the op_ids it pulls from.

    Parameters
    ----------
    graph : networkx.DiGraph
        A trace's dataflow graph (``Trace.graph()``), nodes annotated with ``items``.

    Returns
    -------
    tuple of (str, list of str) or None
        The merging node's op_id and its inputs' op_ids; None if no node
        merges streams or the graph has a cycle.

    Examples
    --------
    >>> import networkx as nx
    >>> graph = nx.DiGraph([("store", "union"), ("train", "union")])
    >>> nx.set_node_attributes(graph, {"store": 3, "train": 2, "union": 5}, "items")
    >>> merge_inputs(graph)
    ('union', ['store', 'train'])
    """
    merges = merge_nodes(graph)
    if not merges:
        return None
    return merges[-1], list(graph.predecessors(merges[-1]))


def merge_nodes(graph: "nx.DiGraph") -> list[str]:
    """Every node that merges several streams of items, most upstream first (topological depth, then items).

    Parameters
    ----------
    graph : networkx.DiGraph
        A trace's dataflow graph (``Trace.graph()``), nodes annotated with ``items``.

    Returns
    -------
    list of str
        Op ids; empty when no node merges streams or the graph has a cycle.
    """
    import networkx as nx

    merges = [n for n in graph.nodes if graph.in_degree(n) >= 2 and graph.nodes[n].get("items")]
    if not merges or not nx.is_directed_acyclic_graph(graph):
        return []
    depth = {n: i for i, gen in enumerate(nx.topological_generations(graph)) for n in gen}
    return sorted(merges, key=lambda n: (depth[n], graph.nodes[n]["items"]))


def op_groups(trace: Trace, ops: Iterable[str] | None) -> tuple[np.ndarray, list[str], list[str]]:
    """Group index per node (-1 = not selected), the groups' short names and their full labels.

    Each entry of ``ops`` (an op name, a label or an op_id) is one group of
    the nodes it matches; None makes one group per node.
    """
    nodes = trace.nodes
    if ops is None:
        names = [short_text(n.op, 24) + ("" if n.where == "driver" else f" @ {n.where}") for n in nodes]
        return np.arange(len(nodes)), names, [n.label for n in nodes]
    if isinstance(ops, str):
        raise TypeError(f"ops must be a list of op names, labels or op_ids, not the string {ops!r}; "
                        f"hint: ops=[{ops!r}]")
    wanted = list(ops)
    group = np.full(len(nodes), -1)
    names, labels = [], []
    by_id = {n.op_id: n for n in nodes}
    for k, entry in enumerate(wanted):
        hits = [i for i, n in enumerate(nodes) if entry in (n.op, n.label, n.op_id) and group[i] < 0]
        if not hits and nodes:
            known = sorted({n.op for n in nodes})
            raise ValueError(f"ops entry {entry!r} matches no node's op, label or op_id; ops in this trace: "
                             f"{', '.join(known)} (a node's full label or op_id from trace.nodes also works)")
        group[hits] = k
        chosen = [nodes[i] for i in hits]
        names.append(_group_name(entry, chosen, by_id))
        labels.append("; ".join(dict.fromkeys(n.label for n in chosen)) or str(entry))
    repeated = {name for name in names if names.count(name) > 1}
    names = [f"{name} #{k + 1}" if name in repeated else name for k, name in enumerate(names)]
    return group, names, labels


def _group_name(entry: str, hits: list, by_id: dict) -> str:
    """An op name for the strip: an op name or short label entry names itself; an op_id (``n8``) or a
    long label is shown as its node's op (and lane if needed)."""
    readable = any(entry == n.op for n in hits) or (len(entry) <= 24 and any(entry == n.label for n in hits))
    if not hits or readable:
        return short_text(str(entry), 24)
    ops = {stream_op(n, by_id) for n in hits}
    wheres = {n.where for n in hits}
    name = short_text(" / ".join(sorted(ops)), 24)
    return name if wheres == {"driver"} else f"{name} @ {', '.join(sorted(wheres))}"
