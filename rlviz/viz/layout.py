"""Layered left-to-right placement of a dataflow graph, without graphviz.

Columns come from ``networkx.topological_generations``; rows are ordered by
barycentre sweeps and then relaxed so that chains line up and a gather sits
between the shards it pulls from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rlviz.trace import DRIVER
from rlviz.trace.lanes import lane_order

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Layout", "graph_layout"]

_SWEEPS = 3          # barycentre ordering passes (down then up)
_RELAX = 12          # row relaxation passes


@dataclass
class Layout:
    """Where each node goes: ``column`` (left to right) and ``row`` (top to bottom).

    ``back_edges`` are edges removed to make the graph acyclic (drawn dashed);
    ``columns`` lists the op_ids of each column top to bottom.
    """

    column: dict[str, int] = field(default_factory=dict)
    row: dict[str, float] = field(default_factory=dict)
    columns: list[list[str]] = field(default_factory=list)
    back_edges: list[tuple[str, str]] = field(default_factory=list)


def graph_layout(graph: "nx.DiGraph", row_gap: float = 1.0) -> Layout:
    """Place the nodes of a dataflow graph in columns and rows.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are op_ids with a ``where`` attribute; an edge u -> v means v
        pulls from u.  Cycles are allowed: enough edges to break them are
        reported in ``back_edges`` and ignored for placement.
    row_gap : float, default 1.0
        The smallest distance between two rows of one column.

    Returns
    -------
    Layout
        Column index and row coordinate (0 at the top, growing downward) per node.

    Raises
    ------
    ValueError
        If ``row_gap`` is not positive.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "c"), ("b", "c")])
    >>> nx.set_node_attributes(g, "driver", "where")
    >>> layout = graph_layout(g)
    >>> layout.column
    {'a': 0, 'b': 0, 'c': 1}
    >>> layout.row["c"] == (layout.row["a"] + layout.row["b"]) / 2
    True
    """
    if not row_gap > 0:
        raise ValueError(f"row_gap must be > 0, got {row_gap!r}")
    layout = Layout()
    if graph.number_of_nodes() == 0:
        return layout
    dag, layout.back_edges = _acyclic(graph)
    anchors = _anchors(dag)
    dag.remove_nodes_from(anchors)
    layout.column = _columns(dag)
    rank = _place_rank(graph)
    layout.columns = _order(dag, layout.column, rank)
    layout.row = _relax(dag, layout.columns, row_gap)
    _place_beside_anchors(layout, anchors)
    return layout


def _acyclic(graph: "nx.DiGraph") -> tuple["nx.DiGraph", list[tuple[str, str]]]:
    """A copy without self-loops and without the back edges of one depth-first search.

    Removing every back edge of a DFS breaks every cycle in one pass over the
    edges, so a dense trace graph (thousands of edges) is laid out quickly.
    """
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(graph.nodes(data=True))
    removed = [(u, v) for u, v in graph.edges if u == v]
    state: dict[str, int] = {}                  # 1 = on the DFS stack, 2 = finished
    for root in graph.nodes:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(graph.successors(root)))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif child == node:
                continue
            elif state.get(child) == 1:
                removed.append((node, child))
            else:
                dag.add_edge(node, child)
                if child not in state:
                    state[child] = 1
                    stack.append((child, iter(graph.successors(child))))
    return dag, removed


def _anchors(dag: "nx.DiGraph") -> dict[str, str]:
    """Nodes without edges (spans such as ``sample``) -> their process's leftmost connected node.

    Only for processes that have connected nodes; the others are laid out as usual.
    """
    import networkx as nx

    where = {n: dag.nodes[n].get("where", DRIVER) for n in dag}
    column = _columns(dag)
    leftmost: dict[str, str] = {}
    for node in nx.topological_sort(dag):
        if dag.degree(node) and (where[node] not in leftmost or column[node] < column[leftmost[where[node]]]):
            leftmost[where[node]] = node
    return {n: leftmost[where[n]] for n in dag if not dag.degree(n) and where[n] in leftmost}


def _place_beside_anchors(layout: Layout, anchors: dict[str, str]) -> None:
    """Put each process's nodes without edges in its anchor's row, one column each to the anchor's left.

    Kept in the row, they cannot stretch their process's box over another process's nodes.
    """
    if not anchors:
        return
    taken: dict[str, int] = {}
    for node, anchor in anchors.items():
        taken[anchor] = taken.get(anchor, 0) + 1
        layout.column[node] = layout.column[anchor] - taken[anchor]
        layout.row[node] = layout.row[anchor]
    low = min(layout.column.values())
    layout.column = {n: c - low for n, c in layout.column.items()}
    layout.columns = [[] for _ in range(max(layout.column.values()) + 1)]
    for node in sorted(layout.column, key=layout.row.__getitem__):
        layout.columns[layout.column[node]].append(node)


def _columns(dag: "nx.DiGraph") -> dict[str, int]:
    """Topological generations, with sources pulled right next to their first consumer."""
    import networkx as nx

    column = {n: i for i, generation in enumerate(nx.topological_generations(dag)) for n in generation}
    for node in reversed(list(nx.topological_sort(dag))):
        children = list(dag.successors(node))
        if children and dag.in_degree(node) == 0:
            column[node] = min(column[c] for c in children) - 1
    low = min(column.values())
    return {n: c - low for n, c in column.items()}


def _place_rank(graph: "nx.DiGraph") -> dict[str, tuple]:
    """Tie-break key: actors in lane order, then the driver, then insertion order."""
    index = {n: i for i, n in enumerate(graph.nodes)}
    wheres = {n: graph.nodes[n].get("where", DRIVER) for n in graph.nodes}
    lane = {w: i for i, w in enumerate(lane_order(wheres.values()))}
    return {n: (w == DRIVER, lane[w], index[n]) for n, w in wheres.items()}


def _order(dag: "nx.DiGraph", column: dict[str, int], rank: dict[str, tuple]) -> list[list[str]]:
    """Order each column by barycentre of its neighbours, sweeping down and up."""
    columns: list[list[str]] = [[] for _ in range(max(column.values()) + 1)]
    for node in sorted(column, key=rank.__getitem__):
        columns[column[node]].append(node)
    for _ in range(_SWEEPS):
        for sweep, neighbours in ((range(1, len(columns)), dag.predecessors),
                                  (range(len(columns) - 2, -1, -1), dag.successors)):
            position = {n: i for col in columns for i, n in enumerate(col)}
            for c in sweep:
                columns[c] = sorted(columns[c], key=lambda n: (_mean(
                    [position[m] for m in neighbours(n)], position[n]), rank[n]))
                position.update({n: i for i, n in enumerate(columns[c])})
    return columns


def _relax(dag: "nx.DiGraph", columns: list[list[str]], gap: float) -> dict[str, float]:
    """Move rows toward their neighbours' mean, keeping column order and ``gap``."""
    height = max(len(col) for col in columns)
    row = {n: (i + (height - len(col)) / 2) * gap for col in columns for i, n in enumerate(col)}
    for _ in range(_RELAX):
        for col in columns:
            wanted = [_mean([row[m] for m in (*dag.predecessors(n), *dag.successors(n))], row[n])
                      for n in col]
            row.update(zip(col, _keep_apart(wanted, gap)))
    top = min(row.values())
    return {n: r - top for n, r in row.items()}


def _keep_apart(wanted: list[float], gap: float) -> list[float]:
    """Closest rows to ``wanted`` (least squares) that keep order and ``gap`` (pool adjacent violators)."""
    shifted = [w - i * gap for i, w in enumerate(wanted)]
    blocks: list[list[float]] = []          # [mean, count]
    for value in shifted:
        blocks.append([value, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            total = blocks[-1][0] * blocks[-1][1] + mean * count
            blocks[-1][1] += count
            blocks[-1][0] = total / blocks[-1][1]
    flat = [mean for mean, count in blocks for _ in range(int(count))]
    return [v + i * gap for i, v in enumerate(flat)]


def _mean(values: list[float], default: float) -> float:
    return sum(values) / len(values) if values else default
