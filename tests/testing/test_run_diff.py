"""rlviz.diff: per-op counts side by side, the first order divergence, its text and its figure."""
import pytest
from trace_runs import record_concurrently
from matplotlib.colors import to_hex
from matplotlib.text import Text

import rlviz
from rlviz.testing import OpDiff, TraceDiff, diff
from rlviz.testing.strip_figure import CELLS_GID, DIFFERS_GID, ROW_GID
from rlviz.trace import Trace
from rlviz.viz.palette import key_colors

OPS = ["for_each", "train"]


@pytest.fixture(scope="module")
def runs():
    return record_concurrently([1, 2], items=30), record_concurrently([1, 3], items=30)


def test_diff_is_exposed_at_top_level():
    assert rlviz.diff is diff


def test_counts_side_by_side(runs):
    result = diff(*runs, ops=OPS, names=("w12", "w13"))
    assert isinstance(result, TraceDiff)
    stats_a = {r["op"]: r for r in runs[0].op_stats()}           # each op is one node in these runs
    stats_b = {r["op"]: r for r in runs[1].op_stats()}
    row = result["Concurrently"]
    assert row.items == (30, 30)
    assert result["store"].items == (stats_a["store"]["items"], stats_b["store"]["items"])   # LocalIterator(name=)
    assert result["for_each"] == OpDiff("for_each", (stats_a["for_each"]["calls"],
                                                     stats_b["for_each"]["calls"]),
                                        (10, 8), (stats_a["for_each"]["busy_ns"],
                                                  stats_b["for_each"]["busy_ns"]))
    with pytest.raises(KeyError, match="no op 'Replay' in either run; ops: Concurrently"):
        result["Replay"]


def test_first_divergence_and_text(runs):
    result = diff(*runs, ops=OPS, names=("w12", "w13"))
    assert result.sequences[0][:6] == ["for_each", "train", "train"] * 2
    assert result.divergence == 3
    text = repr(result)
    assert text.splitlines()[0] == "TraceDiff(w12 vs w13)"
    assert "order of ops for_each, train: diverges at index 3: w12 made for_each, w13 made train" \
        in text
    assert "w12     F T T F T T F" in text and "w13     F T T T F T T" in text
    assert text.splitlines()[-2].endswith("^ first divergence, index 3")


def test_same_order_reports_no_divergence(runs):
    again = record_concurrently([1, 2], items=12)
    result = diff(runs[0], again, ops=OPS)
    assert result.divergence is None
    assert repr(result).splitlines()[-1] == ("order of ops for_each, train: the same for all 12 items "
                                             "both runs made (A made 30, B made 12)")


def test_default_order_is_the_drivers_ops_by_name(dqn_trace, runs):
    result = diff(dqn_trace, runs[0], names=("dqn", "local"))
    assert set(result.sequences[0]) >= {"StoreToReplayBuffer", "TrainOneStep", "Concurrently"}
    assert not any(name.startswith("n") and name[1:].isdigit() for name in result.sequences[0])
    assert result.divergence == 0
    assert result["sample @ " + next(n.where for n in dqn_trace.nodes if n.op == "sample")].items[1] == 0


def test_figure_aligns_the_two_strips(runs):
    result = diff(*runs, ops=OPS, names=("w12", "w13"))
    ax = result.plot(max_items=20)
    (cells,) = [c for c in ax.collections if c.get_gid() == CELLS_GID]
    colors = key_colors(OPS)
    by_color = {colors[name]: name for name in OPS}
    drawn = [by_color[to_hex(c)] for c in cells.get_facecolors()]
    assert drawn == result.sequences[0][:20] + result.sequences[1][:20]     # start is 3 - 20 // 3 < 0 -> 0
    (marks,) = [c for c in ax.collections if c.get_gid() == DIFFERS_GID]
    differs = [k for k in range(20) if result.sequences[0][k] != result.sequences[1][k]]
    assert [round(x - 0.5) for x, _ in marks.get_offsets()] == differs
    assert any(t.get_text() == "first divergence (index 3)" for t in ax.texts)
    assert [t.get_text() for t in ax.texts if t.get_gid() == ROW_GID] == ["w12", "w13"]


def test_figure_draws_names_literally():
    def run(op):
        return Trace.from_records([{"op": op, "label": op, "op_id": op, "where": "driver", "pid": 1,
                                    "start_ns": k, "end_ns": k + 1, "outcome": "item"} for k in range(3)])
    result = diff(run("cost_$x$"), run("cost_$y$"), names=("$a$", "b_1"))
    ax = result.plot()
    ax.figure.canvas.draw()
    texts = [t for t in ax.figure.findobj(Text) if t.get_text()]
    assert "$a$" in [t.get_text() for t in texts]
    assert [t.get_text() for t in texts if t.get_parse_math() and not t.get_text().isdigit()] == []
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cost_$x$", "cost_$y$"]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"trace_a": None}, TypeError, "trace_a must be a Trace"),
    ({"names": ["a", "b"]}, TypeError, "names must be a tuple of two str"),
    ({"ops": "train"}, TypeError, "not the string"),
    ({"ops": ["Replay"]}, ValueError, "matches no node"),
])
def test_bad_arguments_are_named(runs, kwargs, error, match):
    arguments = {"trace_a": runs[0], "trace_b": runs[1], **kwargs}
    with pytest.raises(error, match=match):
        diff(arguments.pop("trace_a"), arguments.pop("trace_b"), **arguments)


def test_plot_checks_max_items(runs):
    with pytest.raises(ValueError, match="max_items must be an int >= 1"):
        diff(*runs).plot(max_items=0)
