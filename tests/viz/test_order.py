"""plot_order: one cell per item in completion order, colours per group, weights vs measured ratio."""
import numpy as np
import pytest
from matplotlib.colors import to_hex
from viz_helpers import record

from rlviz.trace import Trace
from rlviz.viz import plot_order
from rlviz.viz.examples import concurrently_trace, sharded_trace
from rlviz.viz.order import order_cells
from rlviz.viz.palette import op_colors


def _cells(ax):
    (cells,) = [c for c in ax.collections if c.get_gid() == "rlviz-order-cells"]
    return cells


def _notes(ax):
    return [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-note"]


def test_one_cell_per_item_in_completion_order():
    trace = concurrently_trace((1, 2), rounds=12, warmup=3)
    ax = plot_order(trace, ops=["store", "train"], weights=[1, 2])
    colors = op_colors(n.op for n in trace.nodes)          # the timeline's colour of each op
    by_color = {colors["StoreToReplayBuffer"]: "store", colors["TrainOneStep"]: "train"}
    drawn = [by_color[to_hex(c)] for c in _cells(ax).get_facecolors()]
    expected = ["store" if op == "StoreToReplayBuffer" else "train"
                for op in trace.sequence(["store", "train"], by="op")]
    assert drawn == expected
    assert len(drawn) == 12 + 2 * (12 - 3)
    assert drawn[-6:] == ["store", "train", "train"] * 2          # the 1 : 2 rhythm after warm-up


def test_title_sets_weights_beside_measured_ratio():
    ax = plot_order(concurrently_trace((1, 2), rounds=12, warmup=3), ops=["store", "train"],
                    weights=[1, 2])
    title = ax.get_title(loc="left")
    assert title == ("Completion order: 30 items from 2 groups\n"
                     "weights 1 : 2  ·  measured 12 : 18 = 1 : 1.50")
    # the groups were chosen by op_id; the legend names their ops, never the ids
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["StoreToReplayBuffer (12)",
                                                                    "TrainOneStep (18)"]


def test_ops_match_op_name_label_or_op_id():
    trace = sharded_trace(items=5, shards=2)
    by_id = order_cells(trace, ["map0", "map1"])
    by_op = order_cells(trace, ["for_each"])
    assert by_id.counts.tolist() == [5, 5]
    assert by_op.counts.tolist() == [10]
    label = trace.nodes[0].label           # Ray names every shard's chain alike: a label selects them all
    assert order_cells(trace, [label]).counts.tolist() == [10]


def test_default_groups_are_the_nodes_that_produced_items():
    trace = Trace.from_records([record("a", 0, 1, item_id=1), record("b", 1, 2, outcome="not_ready"),
                                record("c", 2, 3, item_id=2, where="shard-0"), record("a", 3, 4, item_id=3)])
    cells = order_cells(trace)
    assert cells.names == ["a", "c @ shard-0"]
    assert cells.category.tolist() == [0, 1, 0]


def test_long_strips_wrap_in_whole_rounds_and_cap_at_max_items():
    trace = concurrently_trace((1, 3), rounds=40, warmup=0)
    ax = plot_order(trace, ops=["store", "train"], weights=[1, 3], max_items=100)
    verts = np.array([p.vertices[0] for p in _cells(ax).get_paths()])
    assert len(verts) == 100
    row_length = int(verts[:, 0].max() + 0.95)
    assert row_length % 4 == 0                        # a whole number of 1 + 3 rounds per row
    assert "first 100 of 160 items" in ax.get_xlabel()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"ops": "store"}, TypeError, "not the string"),
    ({"ops": ["nope"]}, ValueError, "matches no node"),
    ({"ops": ["store", "train"], "weights": [1]}, ValueError, "one per ops entry"),
    ({"ops": ["store", "train"], "weights": [1, 0]}, ValueError, r"weights\[1\] must be a finite number > 0"),
    ({"ops": ["store", "train"], "weights": [1, float("inf")]}, ValueError, r"weights\[1\] .*got inf"),
    ({"ops": ["store", "train"], "weights": [1, True]}, TypeError, r"weights\[1\] .*got bool"),
    ({"max_items": True}, TypeError, "max_items must be an int"),
    ({"ops": ["store", "train"], "weights": "12"}, TypeError, "weights must be a sequence"),
    ({"max_items": 0}, ValueError, "max_items"),
])
def test_bad_arguments_are_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_order(concurrently_trace(), **kwargs)


def test_star_weight_is_accepted():
    ax = plot_order(concurrently_trace(), ops=["store", "train"], weights=[1, "*"])
    assert "weights 1 : *" in ax.get_title(loc="left")


def test_empty_trace_draws_a_note():
    ax = plot_order(Trace.empty(), ops=["anything"])
    assert _notes(ax) == ["empty trace: no items to order"]
    assert ax.get_title(loc="left") == "Completion order: 0 items from 1 group"


def test_selection_without_items_draws_a_note():
    trace = Trace.from_records([record("a", 0, 1, outcome="not_ready")])
    ax = plot_order(trace, ops=["a"])
    assert _notes(ax) == ["the selected nodes produced no items"]


def test_recorded_concurrently_is_drawn_by_round_with_not_ready_polls_hatched():
    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY
    from rlviz.ops import Concurrently

    def op(name, not_ready_first=0):
        def items(timeout):
            yield from [NOT_READY] * not_ready_first
            yield from (f"{name}{i}" for i in range(1000))
        return LocalIterator(items, name=name).named(name)

    with rlviz.record() as trace:
        Concurrently([op("Store"), op("Train", 9), op("Log")], round_robin_weights=[1, 1, 1]).take(95)
    ax = plot_order(trace, ops=["Store", "Train", "Log"])
    title = " ".join(ax.get_title(loc="left").split())                # wrapped to the figure's width
    assert title.startswith("Completion order by round: 35 rounds, Store (35 items) · Train (26 items, 9 not ready)")
    assert "note: Train was not ready in 9 of 35 polls (26%)" in title
    (hatched,) = [c for c in ax.collections if c.get_gid() == "rlviz-order-not-ready"]
    assert len(hatched.get_paths()) == 9
    rows = sorted({round(p.vertices[0, 1] - 0.05) for p in _cells(ax).get_paths()})
    assert rows == list(range(35))                                     # one row per round
    colors = op_colors(n.op for n in trace.nodes)
    assert to_hex(_cells(ax).get_facecolors()[0]) == colors["Store"]   # the timeline's colour for Store
    flat = plot_order(trace, ops=["Store", "Train", "Log"], rounds=False)
    assert len(_cells(flat).get_paths()) == 95
    with pytest.raises(ValueError, match="rounds=True needs the scheduling decisions"):
        plot_order(concurrently_trace(), ops=["store", "train"], rounds=True)
