"""``plot_graph``: the dataflow graph, left to right, actors stacked and coloured by process.

Draws a Trace (annotated with calls, items per edge, busy time, not-ready
counts), an iterator or plan (anything with ``.dataflow()``), or a list of
``Node``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rlviz.trace import DRIVER, Node, Trace
from rlviz.trace.lanes import lane_order
from rlviz.viz.canvas import check_axes, draw_note, literal_text, text_width
from rlviz.viz.layout import BoxStyle, Geometry, Layout, graph_geometry, graph_layout
from rlviz.viz.palette import ERROR_COLOR, duration_text, short_text, where_colors
from rlviz.trace.words import counted

if TYPE_CHECKING:
    import networkx as nx
    from matplotlib.axes import Axes

__all__ = ["plot_graph", "dataflow_graph", "graph_boxes", "NODE_GID"]

#: SVG id of node i's box is ``NODE_GID.format(i)`` (i indexes the graph's nodes),
#: so an HTML report can attach the long label as a tooltip.
NODE_GID = "rlviz-node-{}"

# Sizes in inches: one data unit is one inch on a figure made here.
_BOX_W = 2.0                            # narrowest node box; wider when its text needs it
_TEXT_PAD = 0.2                         # room left and right of a box's text
_STYLE = {stats: BoxStyle(height={True: 0.68, False: 0.36}[stats], row_pitch={True: 1.12, False: 0.78}[stats],
                          column_gap=0.4, band_gap=0.14, group_pad=(0.1, 0.1, 0.24))
          for stats in (True, False)}   # with / without trace statistics
_MARGIN = 0.3
_TITLE_H = 0.45
_LEGEND_ROW_H = 0.3


def plot_graph(obj: object, ax: "Axes | None" = None, *, title: str | None = None) -> "Axes":
    """Draw a dataflow graph left to right, one colour per process.

    Nodes on actors (``where`` other than ``"driver"``) are drawn in a box per
    actor, stacked, with their edges fanning in to the node that gathers them.
    Each node shows its short op name; the full label is kept for tooltips
    (SVG id ``NODE_GID.format(i)``) and report tables.

    Parameters
    ----------
    obj : Trace, object with ``.dataflow()``, or list of Node
        A recorded ``rlviz.trace.Trace`` (nodes are annotated with calls,
        items, busy time and not-ready counts, edges with the items seen
        passing along them), an iterator or plan whose ``dataflow()``
        returns a list of ``Node``, or such a list itself.
    ax : matplotlib Axes, optional
        Axes to draw on; by default a new figure sized so that ~30 nodes
        stay readable (one data unit = one inch).
    title : str, optional
        Title; by default a count of nodes and processes.  ``""`` for none.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    Raises
    ------
    TypeError
        If ``obj`` is none of the accepted kinds, or ``ax`` is not an Axes.

    Examples
    --------
    >>> from rlviz.trace import Node
    >>> nodes = [Node("a", "from_range", "from_range[0:4]", "shard-0"),
    ...          Node("b", "from_range", "from_range[4:8]", "shard-1"),
    ...          Node("c", "gather_sync", "ParallelIterator.gather_sync()", parents=("a", "b"))]
    >>> ax = plot_graph(nodes)
    >>> sorted(t.get_text() for t in ax.texts if t.get_gid() == "rlviz-op")
    ['from_range', 'from_range', 'gather_sync']
    """
    check_axes(ax)
    graph = dataflow_graph(obj)
    stats = isinstance(obj, Trace)
    layout, geometry = graph_boxes(graph, stats)
    ax = _axes(ax, graph, geometry)
    if title is None:
        title = _default_title(graph, obj)
    if title:
        # a fixed y skips matplotlib's title placement, which lays out the hidden ticks
        ax.set_title(literal_text(title), fontsize=11, loc="left", y=1.0, pad=8,
                     x=0.12 / ax.get_figure().get_figwidth())
    if graph.number_of_nodes() == 0:
        draw_note(ax, "no dataflow nodes to draw (empty trace or plan)")
        return ax
    colors = where_colors(graph.nodes[n]["where"] for n in graph.nodes)
    _draw_groups(ax, geometry, colors)
    _draw_edges(ax, graph, layout, geometry, stats)
    _draw_nodes(ax, graph, geometry, colors, stats)
    _draw_legend(ax, graph, colors)
    return ax


def dataflow_graph(obj: object) -> "nx.DiGraph":
    """The dataflow of ``obj`` as a networkx graph (edge u -> v: v pulls from u).

    Parameters
    ----------
    obj : Trace, object with ``.dataflow()``, or list of Node
        See ``plot_graph``.

    Returns
    -------
    networkx.DiGraph
        Nodes are op_ids with attributes op, label, where (and for a Trace
        calls, items, not_ready, errors, busy_ns; edges carry ``items``).

    Raises
    ------
    TypeError
        If ``obj`` is none of the accepted kinds.
    """
    import networkx as nx

    if isinstance(obj, Trace):
        return obj.graph()
    nodes = _nodes_of(obj)
    graph = nx.DiGraph()
    for node in nodes:
        graph.add_node(node.op_id, op=node.op, label=node.label, where=node.where)
    for node in nodes:
        graph.add_edges_from((p, node.op_id) for p in node.parents if p in graph)
    return graph


def graph_boxes(graph: "nx.DiGraph", stats: bool) -> tuple[Layout, Geometry]:
    """The layout of ``graph`` and the boxes ``plot_graph`` draws for it, in inches (y downward).

    Each box is as wide as the text it shows (its op name and, with
    ``stats``, the trace statistics), at least 2 inches.

    Parameters
    ----------
    graph : networkx.DiGraph
        What ``dataflow_graph`` returned.
    stats : bool
        Whether the boxes show trace statistics (taller, two more lines).

    Returns
    -------
    tuple of Layout and Geometry
    """
    layout = graph_layout(graph)
    widths = {node: _box_width(graph.nodes[node], stats) for node in graph.nodes}
    return layout, graph_geometry(layout, widths, _STYLE[stats])


def _box_width(data: dict, stats: bool) -> float:
    name, size = _name_text(data["op"])
    lines = [text_width(name, size, bold=True)]
    if stats:
        lines += [text_width(line, 7) for line in _stats_text(data).split("\n")]
    return max(_BOX_W, max(lines) / 72 + 2 * _TEXT_PAD)


def _name_text(op: str) -> tuple[str, float]:
    """The op name a box shows and its font size in points."""
    name = short_text(op, 24)
    return name, 9 if len(name) < 20 else 8


# -- input ------------------------------------------------------------------
def _nodes_of(obj: object) -> list[Node]:
    accepted = ("an rlviz.trace.Trace, an iterator or plan with a .dataflow() method, "
                "or a list of rlviz.trace.Node")
    dataflow = getattr(obj, "dataflow", None)
    if callable(dataflow):
        nodes = dataflow()
        if not _is_node_list(nodes):
            raise TypeError(f"plot_graph: {type(obj).__name__}.dataflow() returned "
                            f"{type(nodes).__name__}, expected a list of rlviz.trace.Node")
        return list(nodes)
    if _is_node_list(obj):
        return list(obj)
    raise TypeError(f"plot_graph(obj) accepts {accepted}; got {type(obj).__name__}")


def _is_node_list(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, Node) for v in value)


def _default_title(graph: "nx.DiGraph", obj: object) -> str:
    wheres = {graph.nodes[n]["where"] for n in graph.nodes}
    text = f"Dataflow: {counted(graph.number_of_nodes(), 'node')} on {counted(len(wheres), 'process')}"
    if isinstance(obj, Trace):
        text += f"  ·  {counted(len(obj), 'call')} recorded"
        if obj.dropped:
            text += f"  ·  {counted(obj.dropped, 'event')} dropped"
    return text


# -- geometry ---------------------------------------------------------------
def _centre(geometry: Geometry, node: str) -> tuple[float, float]:
    """A node box's centre in data units (y upward)."""
    x0, y0, x1, y1 = geometry.node[node]
    return (x0 + x1) / 2, -(y0 + y1) / 2


def _axes(ax: "Axes | None", graph: "nx.DiGraph", geometry: Geometry) -> "Axes":
    """Set limits so one data unit is one inch when the figure is made here."""
    width = geometry.width + 2 * _MARGIN
    height = geometry.height + 2 * _MARGIN
    n_where = len({graph.nodes[n]["where"] for n in graph.nodes})
    legend_rows = -(-n_where // max(1, int(width // 1.7)))
    fig_w, fig_h = max(width, 4.0), height + _TITLE_H + legend_rows * _LEGEND_ROW_H
    if ax is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(fig_w, max(fig_h, 2.0)))
        ax = fig.add_axes((0, legend_rows * _LEGEND_ROW_H / fig.get_figheight(), 1,
                           height / fig.get_figheight()))
    left = -_MARGIN - (fig_w - width) / 2
    ax.set_xlim(left, left + fig_w)
    ax.set_ylim(-geometry.height - _MARGIN, _MARGIN)
    ax.set_axis_off()
    return ax


# -- drawing ----------------------------------------------------------------
def _draw_groups(ax: "Axes", geometry: Geometry, colors: dict) -> None:
    """One rounded box per actor around its nodes (one collection), named at its top-left."""
    from matplotlib.collections import PatchCollection
    from matplotlib.colors import to_rgb
    from matplotlib.patches import FancyBboxPatch

    boxes = []
    for where in lane_order(geometry.group):
        x0, top, x1, bottom = geometry.group[where]
        boxes.append(FancyBboxPatch((x0, -bottom), x1 - x0, bottom - top, boxstyle="round,pad=0,rounding_size=0.08",
                                    facecolor=(*to_rgb(colors[where]), 0.1), edgecolor=colors[where],
                                    linewidth=1.0))
        ax.text(x0 + 0.08, -top - 0.04, literal_text(short_text(where, 30)), ha="left", va="top", fontsize=7,
                color=colors[where], fontweight="bold", zorder=1, gid="rlviz-actor")
    if boxes:
        ax.add_collection(PatchCollection(boxes, match_original=True, zorder=0, gid="rlviz-actor-boxes"))


def _draw_edges(ax: "Axes", graph: "nx.DiGraph", layout: Layout, geometry: Geometry, stats: bool) -> None:
    """Lines (one collection) from a producer's right side to its consumer's left side, with
    arrowheads (one collection) and item counts; edges that close a cycle are dashed arcs."""
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import FancyArrowPatch

    counts = [graph.edges[e].get("items", 0) for e in graph.edges]
    most = max(counts, default=0) or 1
    back = set(layout.back_edges)
    lines, heads, widths = [], [], []
    for (u, v), count in zip(graph.edges, counts):
        (xu, yu), (xv, yv) = _centre(geometry, u), _centre(geometry, v)
        half = _STYLE[stats].height / 2
        if (u, v) in back or u == v:
            ax.add_patch(FancyArrowPatch((xu, yu - half), (xv, yv - half),
                                         arrowstyle="-|>", mutation_scale=9, color="#555555",
                                         linestyle="--", connectionstyle="arc3,rad=0.4", zorder=1,
                                         gid="rlviz-back-edge"))
            continue
        start, end = (geometry.node[u][2], yu), (geometry.node[v][0], yv)
        head, neck = _arrowhead(start, end)
        lines.append((start, neck))
        heads.append(head)
        widths.append(0.8 + 2.2 * count / most if stats else 1.0)
        if stats:
            _edge_label(ax, start, end, geometry.column_right[layout.column[u]] + _STYLE[stats].column_gap / 2, count)
    if lines:
        ax.add_collection(LineCollection(lines, linewidths=widths, colors="#555555", zorder=1,
                                         gid="rlviz-edges", capstyle="butt"))
        ax.add_collection(PolyCollection(heads, facecolors="#555555", linewidths=0, zorder=1,
                                         gid="rlviz-arrowheads"))


def _arrowhead(start: tuple, end: tuple, length: float = 0.11, half: float = 0.045) -> tuple:
    """A triangle with its tip at ``end``, and the point where the line should stop."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    norm = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / norm, dy / norm
    bx, by = x1 - ux * length, y1 - uy * length
    triangle = [(x1, y1), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
    return triangle, (x1 - ux * length * 0.7, y1 - uy * length * 0.7)


def _edge_label(ax: "Axes", start: tuple, end: tuple, x: float, count: int) -> None:
    """The item count at ``x``, in the gap just right of the producer's column."""
    (x0, y0), (x1, y1) = start, end
    y = y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 != x0 else (y0 + y1) / 2
    ax.text(x, y, _compact(count), ha="center", va="center", fontsize=7, color="#333333", zorder=2,
            gid="rlviz-edge-count",
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})


def _draw_nodes(ax: "Axes", graph: "nx.DiGraph", geometry: Geometry, colors: dict, stats: bool) -> None:
    """A rounded box per node: short op name, then (for a trace) what it did."""
    from matplotlib.patches import FancyBboxPatch

    for i, node in enumerate(graph.nodes):
        data = graph.nodes[node]
        x0, top, x1, bottom = geometry.node[node]
        x, y = _centre(geometry, node)
        idle = stats and data.get("calls", 0) == 0
        edge = ERROR_COLOR if data.get("errors") else colors[data["where"]]
        ax.add_patch(FancyBboxPatch((x0, -bottom), x1 - x0, bottom - top, boxstyle="round,pad=0,rounding_size=0.06",
                                    facecolor="white", edgecolor=edge, linewidth=1.6,
                                    alpha=0.5 if idle else 1.0, zorder=3, gid=NODE_GID.format(i)))
        name, size = _name_text(data["op"])
        ax.text(x, -top - 0.2 if stats else y, literal_text(name), ha="center", va="center", fontsize=size,
                fontweight="bold", color="#222222", zorder=4, gid="rlviz-op")
        if stats:
            ax.text(x, y - 0.1, literal_text(_stats_text(data)), ha="center", va="center", fontsize=7,
                    color="#444444", linespacing=1.25, zorder=4, gid="rlviz-stats")


def _stats_text(data: dict) -> str:
    line1 = f"{counted(data['calls'], 'call', shown=_compact)} · {counted(data['items'], 'item', shown=_compact)}"
    extras = [f"{duration_text(data['busy_ns'])} busy"]
    if data["not_ready"]:
        extras.append(f"{_compact(data['not_ready'])} not ready")
    if data["errors"]:
        extras.append(counted(data['errors'], 'error', shown=_compact))
    return line1 + "\n" + " · ".join(extras)


def _draw_legend(ax: "Axes", graph: "nx.DiGraph", colors: dict) -> None:
    from matplotlib.patches import Patch

    handles = [Patch(facecolor="white", edgecolor=colors[w], linewidth=1.6, label=literal_text(short_text(w, 24)))
               for w in lane_order(graph.nodes[n]["where"] for n in graph.nodes)]
    width_in = ax.get_figure().get_figwidth()
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False,
              ncol=max(1, min(len(handles), int(width_in // 1.7))), fontsize=8,
              handlelength=1.2, columnspacing=1.2, borderaxespad=0.1)


def _compact(value: int) -> str:
    """12, 1.2k, 3.4M: short counts for small labels."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= 10 * size:
            return f"{value / size:.0f}{suffix}"
        if value >= size:
            return f"{value / size:.1f}{suffix}"
    return str(value)

