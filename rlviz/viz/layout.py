"""One layered placement of a dataflow graph for every view that draws it, without graphviz.

``graph_layout`` gives each node a column (left to right, from
``networkx.topological_generations``) and a row.  Each process is one
horizontal band of rows (its layer): the bands are stacked top to bottom in
the order the nodes would take without them, so a process's group box holds
its own nodes and nothing else.  Within a band, rows are ordered by
barycentre sweeps and relaxed so that chains line up and a gather sits
between the shards it pulls from.

``graph_geometry`` turns that placement into boxes, given the sizes a
renderer really draws (each node's width from the width of its text), so
``plot_graph`` (inches) and the Explorer (pixels) draw the same picture and
no two boxes overlap.

networkx has no layered (Sugiyama) layout beyond ``multipartite_layout``,
which neither orders rows nor keeps a process's nodes together; graphviz's
``dot`` would need a binary, so the placement is done here.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rlviz.trace import DRIVER
from rlviz.trace.lanes import lane_order

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Layout", "BoxStyle", "Geometry", "graph_layout", "graph_geometry"]

_SWEEPS = 3          # barycentre ordering passes (down then up)
_RELAX = 12          # row relaxation passes

Box = tuple[float, float, float, float]     # x0, y0, x1, y1 with y growing downward


@dataclass
class Layout:
    """Where each node goes: ``column`` (left to right) and ``row`` (top to bottom).

    ``bands`` lists the processes top to bottom; ``band_rows`` gives each
    process's first and last row (one empty row separates two bands).
    ``back_edges`` are edges removed to make the graph acyclic (drawn dashed);
    ``columns`` lists the op_ids of each column top to bottom.
    """

    column: dict[str, int] = field(default_factory=dict)
    row: dict[str, float] = field(default_factory=dict)
    columns: list[list[str]] = field(default_factory=list)
    back_edges: list[tuple[str, str]] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)
    bands: list[str] = field(default_factory=list)
    band_rows: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class BoxStyle:
    """The sizes a renderer draws a graph with, in its own unit (inches, pixels).

    ``height`` is a node box's height, ``row_pitch`` the distance between two
    rows of one band, ``column_gap`` the room between two columns,
    ``band_gap`` the room between two bands' boxes and ``group_pad`` the
    room around a process's nodes inside its group box: (sides, bottom, top,
    where the process's name is written).
    """

    height: float
    row_pitch: float
    column_gap: float
    band_gap: float
    group_pad: tuple[float, float, float]


@dataclass
class Geometry:
    """Boxes in a renderer's unit, y growing downward from 0 at the top.

    ``node`` holds each node's box, ``group`` the box around each process's
    nodes (every process but the driver), ``column_right`` the right edge
    of each column, ``width`` and ``height`` the extent of the whole drawing.
    """

    node: dict[str, Box] = field(default_factory=dict)
    group: dict[str, Box] = field(default_factory=dict)
    column_right: list[float] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


def graph_layout(graph: "nx.DiGraph") -> Layout:
    """Place the nodes of a dataflow graph in columns and rows, one band of rows per process.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are op_ids with a ``where`` attribute (the driver when absent);
        an edge u -> v means v pulls from u.  Cycles are allowed: enough
        edges to break them are reported in ``back_edges`` and ignored for
        placement.

    Returns
    -------
    Layout
        Column index and row (0 at the top, growing downward; rows one apart
        within a band) per node.

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
    layout = Layout()
    if graph.number_of_nodes() == 0:
        return layout
    layout.where = {n: graph.nodes[n].get("where", DRIVER) for n in graph.nodes}
    dag, layout.back_edges = _acyclic(graph)
    anchors = _anchors(dag)
    dag.remove_nodes_from(anchors)
    layout.column = _columns(dag)
    rank = _place_rank(graph)
    columns = _order(dag, layout.column, rank)
    layout.bands = _band_order(layout.where, _relax(dag, columns), rank)
    layout.row = _band_rows(dag, columns, layout)
    _place_beside_anchors(layout, anchors)
    layout.band_rows = {b: (min(rows), max(rows)) for b in layout.bands
                        for rows in [[layout.row[n] for n in layout.row if layout.where[n] == b]]}
    return layout


def graph_geometry(layout: Layout, widths: Mapping[str, float], style: BoxStyle) -> Geometry:
    """The boxes a renderer draws for ``layout``, given each node's box width.

    Each column is as wide as its widest box (boxes are centred in it), each
    band as tall as its rows, with its group box around it; no two node
    boxes overlap and no group box reaches another process's node.

    Parameters
    ----------
    layout : Layout
        What ``graph_layout`` returned.
    widths : mapping of str to float
        Box width of every node of the layout (the renderer's text width of
        what the box shows, plus its padding).
    style : BoxStyle
        The renderer's other sizes, in the unit of ``widths``.

    Returns
    -------
    Geometry

    Raises
    ------
    ValueError
        If ``style.row_pitch`` is below ``style.height`` (boxes of one column
        would overlap), a size is negative, or a node has no width.
    """
    _check_style(style)
    missing = sorted(set(layout.column) - set(widths))
    if missing:
        raise ValueError(f"graph_geometry: no box width for nodes {missing[:5]}; pass one per node of the layout")
    geometry = Geometry()
    if not layout.column:
        return geometry
    side, bottom, top = style.group_pad
    column_width = [0.0] * (max(layout.column.values()) + 1)
    for node, c in layout.column.items():
        column_width[c] = max(column_width[c], float(widths[node]))
    left, x = [], side
    for width in column_width:
        left.append(x)
        geometry.column_right.append(x + width)
        x += width + style.column_gap
    band_top, y = {}, 0.0
    for band in layout.bands:
        first, last = layout.band_rows[band]
        framed = band != DRIVER
        band_top[band] = y + (top if framed else 0.0)
        y = band_top[band] + (last - first) * style.row_pitch + style.height + (bottom if framed else 0.0)
        y += style.band_gap
    for node, c in layout.column.items():
        centre = left[c] + column_width[c] / 2
        band = layout.where[node]
        y0 = band_top[band] + (layout.row[node] - layout.band_rows[band][0]) * style.row_pitch
        geometry.node[node] = (centre - widths[node] / 2, y0, centre + widths[node] / 2, y0 + style.height)
    for band in layout.bands:
        if band != DRIVER:
            boxes = [geometry.node[n] for n in layout.column if layout.where[n] == band]
            geometry.group[band] = (min(b[0] for b in boxes) - side, min(b[1] for b in boxes) - top,
                                    max(b[2] for b in boxes) + side, max(b[3] for b in boxes) + bottom)
    geometry.width = geometry.column_right[-1] + side
    geometry.height = y - style.band_gap
    return geometry


def _check_style(style: BoxStyle) -> None:
    sizes = {"height": style.height, "row_pitch": style.row_pitch, "column_gap": style.column_gap,
             "band_gap": style.band_gap, **dict(zip(("group_pad[0]", "group_pad[1]", "group_pad[2]"), style.group_pad))}
    negative = {k: v for k, v in sizes.items() if not v >= 0}
    if negative:
        raise ValueError(f"BoxStyle sizes must be >= 0, got {negative}")
    if style.row_pitch < style.height:
        raise ValueError(f"BoxStyle.row_pitch ({style.row_pitch}) must be at least its height "
                         f"({style.height}), or boxes of one column overlap")


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

    The anchor is its process's leftmost connected node, so these columns of
    the band are free, and the nodes stay inside their process's group box.
    """
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


def _band_order(where: dict[str, str], row: dict[str, float], rank: dict[str, tuple]) -> list[str]:
    """Processes top to bottom by the mean row their nodes take when placed without bands."""
    rows: dict[str, list[float]] = {}
    for node, r in row.items():
        rows.setdefault(where[node], []).append(r)
    first = {}
    for node in sorted(row, key=rank.__getitem__):
        first.setdefault(where[node], rank[node])
    return sorted(rows, key=lambda w: (_mean(rows[w], 0.0), first[w]))


def _band_rows(dag: "nx.DiGraph", columns: list[list[str]], layout: Layout) -> dict[str, float]:
    """Each process's nodes relaxed among themselves, bands stacked in ``layout.bands`` order, one row apart."""
    row: dict[str, float] = {}
    top = 0.0
    for band in layout.bands:
        mine = [[n for n in col if layout.where[n] == band] for col in columns]
        local = _relax(dag.subgraph(n for col in mine for n in col), mine)
        row.update((n, top + r) for n, r in local.items())
        top += max(local.values()) + 2.0
    return row


def _relax(dag: "nx.DiGraph", columns: list[list[str]]) -> dict[str, float]:
    """Move rows toward their neighbours' mean, keeping column order and one row between nodes."""
    height = max(len(col) for col in columns)
    row = {n: i + (height - len(col)) / 2 for col in columns for i, n in enumerate(col)}
    for _ in range(_RELAX):
        for col in columns:
            wanted = [_mean([row[m] for m in (*dag.predecessors(n), *dag.successors(n))], row[n])
                      for n in col]
            row.update(zip(col, _keep_apart(wanted, 1.0)))
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
