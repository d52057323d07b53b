"""The views on traces recorded from a real run: from_range(8, num_shards=2) on two Ray actors."""
import pytest
from viz_helpers import texts_overlapping

import rlviz
from rlviz.trace.lanes import lane_order
from rlviz.viz import plot_graph, plot_order, plot_timeline, report_main
from rlviz.viz.order import order_cells


@pytest.fixture(scope="module")
def run(ray_local):
    from rlviz.iter import from_range

    with rlviz.record() as trace:
        shards = from_range(8, num_shards=2)
        it = shards.for_each(lambda x: x * 2).gather_sync()
        out = it.take(8)
    assert sorted(out) == [2 * i for i in range(8)]
    return it, trace


@pytest.fixture(scope="module")
def lanes(run):
    """The two shards' lane labels (shard-0#2, ... while other tests' shard sets live, so read them from the trace)."""
    _, trace = run
    return lane_order(n.where for n in trace.nodes if n.where != "driver")


def _gather(trace):
    (node,) = [n for n in trace.nodes if n.op == "gather_sync"]
    return node


def test_graph_stacks_the_two_shards_and_fans_in(run, lanes):
    _, trace = run
    ax = plot_graph(trace)
    assert len(lanes) == 2
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() == "rlviz-actor") == sorted(lanes)
    edges = trace.graph().edges(data=True)
    fan_in = [d["items"] for u, v, d in edges if v == _gather(trace).op_id]
    assert fan_in == [4, 4]
    counts = [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-edge-count"]
    assert counts.count("4") == len(edges)
    assert texts_overlapping(ax) == []


def test_graph_of_the_iterator_matches_the_trace(run):
    it, trace = run
    ax = plot_graph(it)
    names = sorted(t.get_text() for t in ax.texts if t.get_gid() == "rlviz-op")
    assert names == sorted(n.op for n in trace.nodes)


def test_timeline_has_a_lane_per_process_and_a_span_per_item(run, lanes):
    _, trace = run
    ax = plot_timeline(trace)
    assert [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-lane-name"] == ["driver", *lanes]
    (items,) = [c for c in ax.collections if c.get_gid() == "rlviz-spans-item"]
    assert len(items.get_paths()) == int((trace.columns["outcome"] == 0).sum())
    (flows,) = [c for c in ax.collections if c.get_gid() == "rlviz-flows"]
    assert len(flows.get_segments()) == len(trace.links()[0]) > 0


def test_gather_sync_takes_one_item_from_each_shard_per_round(run, lanes):
    _, trace = run
    parents = list(_gather(trace).parents)
    cells = order_cells(trace, parents)
    assert cells.counts.tolist() == [4, 4]
    # shards may run ahead of the driver, so check the rounds on the gather's side:
    # the values it passed on, in order, came from shard 0, 1, 0, 1, ...
    producers, consumers = trace.links()
    node = trace.columns["node"]
    gather = trace.nodes.index(_gather(trace))
    mine = consumers[node[consumers] == gather]
    order = mine.argsort(kind="stable")
    sources = [trace.nodes[k].where for k in node[producers[node[consumers] == gather][order]]]
    assert sources == lanes * 4
    ax = plot_order(trace, ops=parents, weights=[1, 1])
    assert "measured 4 : 4 = 1 : 1.00" in ax.get_title(loc="left")


def test_saved_trace_makes_a_report(run, tmp_path):
    _, trace = run
    trace.save(tmp_path / "run.json")
    assert report_main([str(tmp_path / "run.json"), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "LocalIterator[ParallelIterator[from_range[8, shards=2].for_each()].gather_sync()]" in page
