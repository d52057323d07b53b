"""plot_graph: accepted inputs, layout, colours, trace annotations, readable labels."""
import networkx as nx
import pytest
from matplotlib.colors import to_hex
from viz_helpers import a2c_like_nodes, box_problems, one_call_each, texts_overlapping

from rlviz.trace import Node, Trace
from rlviz.viz import plot_graph
from rlviz.viz.examples import apex_nodes, concurrently_trace, sharded_trace
from rlviz.viz.explorer_payload import trace_structure
from rlviz.viz.graph import NODE_GID, dataflow_graph, graph_boxes
from rlviz.viz.layout import BoxStyle, graph_geometry, graph_layout
from rlviz.viz.palette import DRIVER_COLOR, where_colors

SHARDED = [Node("a", "from_range", "from_range(8)[0]", "shard-0"),
           Node("b", "from_range", "from_range(8)[1]", "shard-1"),
           Node("c", "gather_sync", "ParallelIterator[from_range].gather_sync()", parents=("a", "b")),
           Node("d", "for_each", "LocalIterator[...].for_each(<lambda>)", parents=("c",))]


def _texts(ax, gid):
    return [t.get_text() for t in ax.texts if t.get_gid() == gid]


def _node_boxes(ax):
    return {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("rlviz-node-")}


def test_node_list_shows_short_op_names_and_actor_groups():
    ax = plot_graph(SHARDED)
    assert sorted(_texts(ax, "rlviz-op")) == ["for_each", "from_range", "from_range", "gather_sync"]
    assert sorted(_texts(ax, "rlviz-actor")) == ["shard-0", "shard-1"]
    assert not any("ParallelIterator" in t.get_text() for t in ax.texts)   # long label kept out
    assert ax.get_title(loc="left") == "Dataflow: 4 nodes on 3 processes"


def test_nodes_coloured_by_where_with_legend():
    ax = plot_graph(SHARDED)
    colors = where_colors(["driver", "shard-0", "shard-1"])
    boxes = _node_boxes(ax)
    for i, node in enumerate(SHARDED):
        assert to_hex(boxes[NODE_GID.format(i)].get_edgecolor()) == colors[node.where]
    assert colors["driver"] == DRIVER_COLOR and colors["shard-0"] != colors["shard-1"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["driver", "shard-0", "shard-1"]


def test_layout_runs_left_to_right_with_gather_between_its_shards():
    layout = graph_layout(dataflow_graph(SHARDED))
    assert layout.column == {"a": 0, "b": 0, "c": 1, "d": 2}
    assert layout.row["a"] < layout.row["c"] < layout.row["b"]
    assert layout.row["c"] == pytest.approx((layout.row["a"] + layout.row["b"]) / 2)
    assert layout.row["d"] == pytest.approx(layout.row["c"])


def test_sources_sit_next_to_their_first_consumer():
    nodes = [Node("a", "src", "a"), Node("b", "map", "b", parents=("a",)),
             Node("c", "map", "c", parents=("b",)), Node("late", "src", "late"),
             Node("u", "union", "u", parents=("c", "late"))]
    layout = graph_layout(dataflow_graph(nodes))
    assert layout.column["late"] == layout.column["u"] - 1 == 2


def test_cycle_is_drawn_with_a_dashed_back_edge():
    nodes = [Node("a", "x", "a", parents=("b",)), Node("b", "y", "b", parents=("a",))]
    layout = graph_layout(dataflow_graph(nodes))
    assert len(layout.back_edges) == 1
    ax = plot_graph(nodes)
    (back,) = [p for p in ax.patches if p.get_gid() == "rlviz-back-edge"]
    assert back.get_linestyle() == "--"
    (edges,) = [c for c in ax.collections if c.get_gid() == "rlviz-edges"]
    assert len(edges.get_segments()) == 1


def test_object_with_dataflow_method_is_accepted():
    class Plan:
        def dataflow(self):
            return list(SHARDED)

    ax = plot_graph(Plan())
    assert len(_texts(ax, "rlviz-op")) == 4


@pytest.mark.parametrize("bad", [42, "nodes", [1, 2], {"a": SHARDED[0]}, None])
def test_other_inputs_are_a_type_error_naming_what_is_accepted(bad):
    with pytest.raises(TypeError, match=r"accepts an rlviz.trace.Trace, an iterator or plan"):
        plot_graph(bad)


def test_dataflow_returning_something_else_is_a_type_error():
    class Broken:
        def dataflow(self):
            return "not nodes"

    with pytest.raises(TypeError, match=r"Broken.dataflow\(\) returned str"):
        plot_graph(Broken())


def test_bad_ax_is_a_type_error():
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot_graph(SHARDED, ax="left")


def test_trace_annotates_calls_items_busy_and_not_ready():
    trace = sharded_trace(items=12, shards=2, not_ready=2)
    ax = plot_graph(trace)
    stats = dict(zip(_texts(ax, "rlviz-op"), _texts(ax, "rlviz-stats")))
    assert stats["gather_sync"].startswith("25 calls · 24 items")     # 24 items + 1 stop
    assert "2 not ready" in stats["batch"]
    assert "ms busy" in stats["for_each"]
    # items passed along each edge: 12 per shard edge, 24 from gather to batch
    assert sorted(_texts(ax, "rlviz-edge-count")) == ["12", "12", "12", "12", "24"]
    assert "81 calls recorded" in ax.get_title(loc="left")


def test_edge_width_grows_with_items_passed():
    ax = plot_graph(sharded_trace(items=12))
    (edges,) = [c for c in ax.collections if c.get_gid() == "rlviz-edges"]
    (heads,) = [c for c in ax.collections if c.get_gid() == "rlviz-arrowheads"]
    assert len(edges.get_segments()) == len(heads.get_paths()) == 5
    widths = sorted(edges.get_linewidths())
    assert widths[0] < widths[-1]


def test_errors_outline_the_node_in_red():
    records = [{"op": "boom", "label": "boom", "op_id": "b", "where": "driver", "pid": 1,
                "start_ns": 0, "end_ns": 5, "outcome": "error"}]
    ax = plot_graph(Trace.from_records(records))
    assert to_hex(_node_boxes(ax)[NODE_GID.format(0)].get_edgecolor()) == "#d62728"
    assert "1 error" in _texts(ax, "rlviz-stats")[0]


@pytest.mark.parametrize("obj", [apex_nodes(), concurrently_trace(), sharded_trace(shards=6)])
def test_big_plans_have_no_overlapping_labels(obj):
    ax = plot_graph(obj)
    if isinstance(obj, list):
        assert len(obj) >= 28
    assert texts_overlapping(ax) == []
    renderer = ax.figure.canvas.get_renderer()
    figure_box = ax.figure.bbox
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1, text.get_text()


def test_op_names_fit_inside_their_boxes():
    ax = plot_graph(apex_nodes())
    renderer = ax.figure.canvas.get_renderer()
    boxes = _node_boxes(ax)
    names = [t for t in ax.texts if t.get_gid() == "rlviz-op"]
    assert len(names) == len(boxes)
    for name, box in zip(names, boxes.values()):
        assert box.get_window_extent(renderer).contains(*name.get_window_extent(renderer).p0)
        assert box.get_window_extent(renderer).contains(*name.get_window_extent(renderer).p1)


@pytest.mark.parametrize("empty", [Trace.empty(), []])
def test_empty_input_draws_a_note(empty):
    ax = plot_graph(empty)
    assert _texts(ax, "rlviz-note") == ["no dataflow nodes to draw (empty trace or plan)"]
    assert ax.get_title(loc="left").startswith("Dataflow: 0 nodes")


def test_box_sizes_that_would_overlap_are_a_value_error():
    layout = graph_layout(dataflow_graph(SHARDED))
    widths = dict.fromkeys(layout.column, 1.0)
    with pytest.raises(ValueError, match=r"row_pitch \(0.3\) must be at least its height \(0.5\)"):
        graph_geometry(layout, widths, BoxStyle(height=0.5, row_pitch=0.3, column_gap=0.1, band_gap=0.1,
                                                group_pad=(0, 0, 0)))
    with pytest.raises(ValueError, match="no box width for nodes"):
        graph_geometry(layout, {}, BoxStyle(0.5, 1, 0.1, 0.1, (0, 0, 0)))
    with pytest.raises(ValueError, match="must be >= 0"):
        graph_geometry(layout, widths, BoxStyle(0.5, 1, -0.1, 0.1, (0, 0, 0)))
    assert graph_geometry(graph_layout(nx.DiGraph()), {}, BoxStyle(0.5, 1, 0.1, 0.1, (0, 0, 0))).node == {}


def test_spans_without_edges_stay_inside_their_own_process_box():
    """A recorded trace also holds span nodes with no edges (a worker's sample, set_weights; the driver's
    learn_on_batch); placed apart from their process's chain, they stretched its box over other processes."""
    nodes = [Node(f"src{w}", "from_actors", "src", f"worker-{w}") for w in (1, 2)]
    nodes += [Node(f"next{w}", "par_iter_next_batch", "next", f"worker-{w}", parents=(f"src{w}",)) for w in (1, 2)]
    nodes += [Node("gather", "gather_async", "gather", parents=("next1", "next2")),
              Node("queue", "Dequeue", "Dequeue"), Node("union", "union", "union", parents=("gather", "queue"))]
    nodes += [Node(f"{op}{w}", op, op, f"worker-{w}") for w in (1, 2) for op in ("sample", "set_weights")]
    nodes += [Node("learn", "learn_on_batch", "learn_on_batch")]
    graph = dataflow_graph(nodes)
    layout = graph_layout(graph)
    where = {n.op_id: n.where for n in nodes}
    for w, actor in ((1, "worker-1"), (2, "worker-2")):
        mine = [n for n in where if where[n] == actor]
        columns = [layout.column[n] for n in mine]
        rows = [layout.row[n] for n in mine]
        inside = [n for n in where if where[n] != actor
                  and min(columns) <= layout.column[n] <= max(columns) and min(rows) <= layout.row[n] <= max(rows)]
        assert inside == [], actor
        assert layout.row[f"sample{w}"] == layout.row[f"set_weights{w}"] == layout.row[f"src{w}"]
    assert layout.row["learn"] == layout.row["queue"] and layout.column["learn"] == layout.column["queue"] - 1
    assert layout.columns == [sorted(col, key=layout.row.__getitem__) for col in layout.columns]
    assert sorted(n for col in layout.columns for n in col) == sorted(where)


def _as_trace(obj):
    return obj if isinstance(obj, Trace) else one_call_each(obj)


def _drawn(geometry, graph):
    return {n: (graph.nodes[n]["where"], geometry.node[n]) for n in graph.nodes}


@pytest.mark.parametrize("obj", [a2c_like_nodes(), apex_nodes(), sharded_trace(shards=6), concurrently_trace()],
                         ids=["a2c-like", "apex", "sharded", "concurrently"])
def test_no_node_box_overlaps_another_node_or_another_process_group(obj):
    for graph, stats in ((dataflow_graph(obj), isinstance(obj, Trace)), (dataflow_graph(_as_trace(obj)), True)):
        _, geometry = graph_boxes(graph, stats)          # plot_graph's boxes, in inches
        assert box_problems(_drawn(geometry, graph), geometry.group) == []
    structure = trace_structure(_as_trace(obj))         # the Explorer's boxes, in pixels
    nodes = {k: (n["where"], (n["x"], n["y"], n["x"] + n["w"], n["y"] + n["h"])) for k, n in enumerate(structure["nodes"])}
    groups = {g["where"]: (g["x"], g["y"], g["x"] + g["w"], g["y"] + g["h"]) for g in structure["graph"]["groups"]}
    assert box_problems(nodes, groups) == []
    assert sorted(groups) == sorted({where for where, _ in nodes.values()} - {"driver"})


def test_long_op_names_widen_their_boxes_and_cannot_overlap():
    long = "OncePerTimestepsElapsedAndThenSomeMore(" + "x" * 200 + ")"
    nodes = [*SHARDED, Node("e", long, long, parents=("d",)), Node("f", long, long, "shard-0")]
    graph = dataflow_graph(nodes)
    _, geometry = graph_boxes(graph, False)
    assert box_problems(_drawn(geometry, graph), geometry.group) == []
    x0, _, x1, _ = geometry.node["e"]
    assert 2.0 < x1 - x0 < 3.0                           # sized to the op name cut to 24 characters
    ax = plot_graph(nodes)
    assert texts_overlapping(ax) == []


def test_plot_graph_and_the_explorer_draw_one_layout():
    trace = sharded_trace(shards=3)
    graph = dataflow_graph(trace)
    _, inches = graph_boxes(graph, True)
    structure = trace_structure(trace)
    pixels = {node.op_id: structure["nodes"][k] for k, node in enumerate(trace.nodes)}
    by_inches = sorted(graph.nodes, key=lambda n: (inches.node[n][1], inches.node[n][0]))
    by_pixels = sorted(graph.nodes, key=lambda n: (pixels[n]["y"], pixels[n]["x"]))
    assert by_inches == by_pixels
    layout = graph_layout(graph)
    assert {n: (p["column"], p["row"]) for n, p in pixels.items()} == {n: (layout.column[n], layout.row[n]) for n in graph}
    ax = plot_graph(trace)                               # the patches drawn are the geometry's boxes
    boxes = _node_boxes(ax)
    for i, node in enumerate(graph.nodes):
        x0, y0, x1, y1 = inches.node[node]
        drawn = boxes[NODE_GID.format(i)]
        assert (drawn.get_x(), drawn.get_width(), -drawn.get_y() - drawn.get_height()) == pytest.approx((x0, x1 - x0, y0))


def test_each_process_is_one_band_of_rows():
    layout = graph_layout(dataflow_graph(apex_nodes()))
    spans = sorted(layout.band_rows.values())
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))      # bands never share a row
    assert [layout.band_rows[b] for b in layout.bands] == spans     # listed top to bottom
    for node, where in layout.where.items():
        first, last = layout.band_rows[where]
        assert first <= layout.row[node] <= last


def test_statistics_fit_inside_their_boxes():
    records = [{"op": "boom", "label": "boom", "op_id": "b", "where": "driver", "pid": 1, "start_ns": 0,
                "end_ns": 5_000_000_000, "outcome": outcome} for outcome in ["error"] * 12_345 + ["not_ready"] * 67_890]
    ax = plot_graph(Trace.from_records(records))
    renderer = ax.figure.canvas.get_renderer()
    (box,) = _node_boxes(ax).values()
    for text in ax.texts:
        if text.get_gid() in ("rlviz-op", "rlviz-stats"):
            extent = text.get_window_extent(renderer)
            assert box.get_window_extent(renderer).x0 <= extent.x0 and extent.x1 <= box.get_window_extent(renderer).x1
