"""The views on execution plans: the DQN plan recorded with 2 remote workers, and Ape-X's graph."""
import pytest
from viz_helpers import box_problems, texts_overlapping

import rlviz
from rlviz.viz import plot_graph, plot_order, plot_timeline, write_html
from rlviz.viz.explorer_payload import trace_structure
from rlviz.viz.graph import dataflow_graph, graph_boxes

DQN_TINY = {"learning_starts": 16, "timesteps_per_iteration": 40, "train_batch_size": 32,
            "training_intensity": 16}   # native ratio 32 / (4 * 2) = 4 -> weights [1, 4]


@pytest.fixture(scope="module")
def dqn_run(ray_local):
    trainer = rlviz.Trainer("dqn", num_workers=2, config=DQN_TINY)
    try:
        trainer.train()
        with rlviz.record() as trace:
            trainer.train()
        nodes = trainer.dataflow()
    finally:
        trainer.stop()
    return nodes, trace


def test_dqn_plan_graph_names_its_ops_and_keeps_labels_apart(dqn_run):
    nodes, _ = dqn_run
    ax = plot_graph(nodes)
    shown = {t.get_text() for t in ax.texts if t.get_gid() == "rlviz-op"}
    assert {"StoreToReplayBuffer", "Replay", "TrainOneStep", "Concurrently"} <= shown
    actors = sorted(t.get_text() for t in ax.texts if t.get_gid() == "rlviz-actor")
    assert len(actors) == 2 and all(a.startswith("RolloutWorker-") for a in actors)
    assert texts_overlapping(ax) == []


def test_dqn_trace_timeline_has_a_lane_per_worker(dqn_run):
    _, trace = dqn_run
    ax = plot_timeline(trace)
    lanes = [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-lane-name"]
    assert lanes[0] == "driver" and len(lanes) == 3
    assert all(lane.startswith("RolloutWorker-") for lane in lanes[1:])


def test_dqn_order_strip_shows_the_round_robin_ratio(dqn_run):
    _, trace = dqn_run
    ops = ["StoreToReplayBuffer", "TrainOneStep"]
    stored, trained = (sum(1 for e in trace.events if e.op == op and e.outcome == "item") for op in ops)
    ax = plot_order(trace, ops=ops, weights=[1, 4])
    title = ax.get_title(loc="left")
    assert f"measured {stored:,} : {trained:,}" in title
    assert 3.0 <= trained / stored <= 4.5     # weights [1, 4]; recording may start mid-round


def test_dqn_order_strip_names_ops_never_node_ids(dqn_run):
    import re

    from matplotlib.text import Text

    from rlviz.viz.order import order_cells

    _, trace = dqn_run
    by_op = {n.op: n for n in trace.nodes}
    store, train = by_op["StoreToReplayBuffer"], by_op["TrainOneStep"]
    assert re.fullmatch(r"n\d+", store.op_id), "the plan's nodes have internal ids"
    for ops in ([store.op_id, train.op_id], [store.label, train.label], ["StoreToReplayBuffer", "TrainOneStep"]):
        ax = plot_order(trace, ops=ops, weights=[1, 4])
        legend = [t.get_text().rsplit(" (", 1)[0] for t in ax.get_legend().get_texts()]
        assert [entry for entry in legend if entry != "not ready"] == ["StoreToReplayBuffer", "TrainOneStep"]
        cells = order_cells(trace, ops)
        assert cells.labels == [store.label, train.label]          # the full names, for where they are needed
    ax = plot_order(trace)                                       # every node that produced items
    texts = [t.get_text() for t in ax.figure.findobj(Text) if t.get_text()]
    assert not [t for t in texts if re.search(r"\bn\d+\b", t)]
    assert any(t.startswith("TrainOneStep (") for t in texts)


@pytest.fixture(scope="module")
def apex_run(ray_local):
    """Ape-X with 2 workers and 2 replay actors: its plan, and one recorded train()."""
    trainer = rlviz.Trainer("apex", num_workers=2, config={"learning_starts": 32, "num_replay_shards": 2})
    try:
        nodes = trainer.dataflow()
        with rlviz.record() as trace:
            trainer.train()
    finally:
        trainer.stop()
    return nodes, trace


def test_apex_plan_graph_is_readable(apex_run):
    nodes, _ = apex_run
    ax = plot_graph(nodes)
    shown = {t.get_text() for t in ax.texts if t.get_gid() == "rlviz-op"}
    assert {"Enqueue", "Dequeue", "Concurrently"} <= shown
    assert texts_overlapping(ax) == []


@pytest.mark.parametrize("run", ["dqn_run", "apex_run"])
def test_plan_and_trace_graphs_have_no_overlapping_boxes(run, request):
    """plot_graph's boxes (inches) and the Explorer's (pixels), one layout: no node box overlaps another or
    another process's group box, on the plan and on the recorded trace (which adds span nodes)."""
    nodes, trace = request.getfixturevalue(run)
    for obj in (nodes, trace):
        graph = dataflow_graph(obj)
        _, geometry = graph_boxes(graph, obj is trace)
        drawn = {n: (graph.nodes[n]["where"], geometry.node[n]) for n in graph.nodes}
        assert box_problems(drawn, geometry.group) == []
        assert len(geometry.group) == len({graph.nodes[n]["where"] for n in graph.nodes} - {"driver"}) >= 2
    structure = trace_structure(trace)
    boxes = {k: (n["where"], (n["x"], n["y"], n["x"] + n["w"], n["y"] + n["h"])) for k, n in enumerate(structure["nodes"])}
    groups = {g["where"]: (g["x"], g["y"], g["x"] + g["w"], g["y"] + g["h"]) for g in structure["graph"]["groups"]}
    assert box_problems(boxes, groups) == []


@pytest.mark.browser
@pytest.mark.parametrize("run", ["dqn_run", "apex_run"])
def test_explorer_graph_boxes_of_a_recorded_run_never_overlap(run, request, tmp_path):
    from browser_harness import chromium_page
    from explorer_checks import graph_boxes_on_screen, wait_ready

    _, trace = request.getfixturevalue(run)
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        nodes, groups, outside = graph_boxes_on_screen(root)
        assert len(nodes) == len(trace.nodes)
        assert set(groups) == {n.where for n in trace.nodes} - {"driver"}
        assert box_problems(nodes, groups) == []
        assert outside == [], "every text stays inside its node's box"
