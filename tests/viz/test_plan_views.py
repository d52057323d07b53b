"""The views on execution plans: the DQN plan recorded with 2 remote workers, and Ape-X's graph."""
import pytest
from viz_helpers import texts_overlapping

import rlviz
from rlviz.viz import plot_graph, plot_order, plot_timeline

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


def test_apex_plan_graph_is_readable(ray_local):
    trainer = rlviz.Trainer("apex", num_workers=2, config={"learning_starts": 32})
    try:
        ax = plot_graph(trainer)
    finally:
        trainer.stop()
    shown = {t.get_text() for t in ax.texts if t.get_gid() == "rlviz-op"}
    assert {"Enqueue", "Dequeue", "Concurrently"} <= shown
    assert texts_overlapping(ax) == []
