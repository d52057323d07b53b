"""plot_timeline: lanes, one collection per outcome kind, flows, restarts, window, notes."""
import numpy as np
import pytest
from matplotlib.colors import to_hex
from viz_helpers import record

from rlviz.trace import Trace
from rlviz.viz import plot_timeline
from rlviz.viz.examples import large_trace, sharded_trace
from rlviz.viz.palette import ERROR_COLOR, NOT_READY_COLOR, op_colors
from rlviz.viz.timeline import timeline_lanes


def _collections(ax):
    return {c.get_gid(): c for c in ax.collections}


def _notes(ax):
    return [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-note"]


def _mixed_trace():
    """Driver and two shards; an error, a not-ready, a restart, one linked value."""
    return Trace.from_records([
        record("from_range", 0, 100, where="shard-0", op_id="s0", item_id=1, pid=2),
        record("from_range", 50, 120, where="shard-1", op_id="s1", item_id=2, pid=3),
        record("gather_sync", 110, 200, op_id="g", item_id=3, inputs=[1]),
        record("gather_sync", 200, 230, op_id="g", outcome="not_ready"),
        record("for_each", 240, 300, op_id="f", outcome="error"),
        record("worker_restarted", 400, 401, where="driver", op_id="r"),
        record("from_range", 500, 600, where="shard-1", op_id="s1", item_id=4, pid=4),
    ])


def test_one_lane_per_process_and_one_row_per_node():
    ax = plot_timeline(_mixed_trace())
    lanes = [p for p in ax.patches if p.get_gid() == "rlviz-lane"]
    assert len(lanes) == 3
    names = [t.get_text() for t in ax.texts if t.get_gid() == "rlviz-lane-name"]
    assert names == ["driver", "shard-0", "shard-1"]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["gather_sync", "for_each", "worker_restarted", "from_range", "from_range"]


def test_one_collection_per_kind_with_one_path_per_span():
    trace = sharded_trace(items=12, shards=2, not_ready=2)
    ax = plot_timeline(trace)
    outcome = trace.columns["outcome"]
    coll = _collections(ax)
    assert len(coll["rlviz-spans-item"].get_paths()) == int(np.sum(outcome == 0)) == 12 * 2 * 3 + 6
    assert len(coll["rlviz-spans-not_ready"].get_paths()) == 2
    assert len(coll["rlviz-spans-stop"].get_paths()) == 1
    assert "rlviz-spans-error" not in coll
    assert len(ax.collections) == 4                     # item, not_ready, stop, flows


def test_items_coloured_by_op_not_ready_light_error_red():
    trace = _mixed_trace()
    ax = plot_timeline(trace)
    coll = _collections(ax)
    ops = op_colors(n.op for n in trace.nodes)
    items = trace.columns["node"][trace.columns["outcome"] == 0]
    expected = [ops[trace.nodes[i].op] for i in items]
    assert [to_hex(c) for c in coll["rlviz-spans-item"].get_facecolors()] == expected
    assert to_hex(coll["rlviz-spans-not_ready"].get_facecolors()[0]) == NOT_READY_COLOR
    assert to_hex(coll["rlviz-spans-error"].get_facecolors()[0]) == ERROR_COLOR


def test_x_axis_is_time_since_trace_start():
    ax = plot_timeline(_mixed_trace())
    first = ax.collections[0].get_paths()[0].vertices
    assert first[:, 0].min() == pytest.approx(0.0)
    assert first[:, 0].max() == pytest.approx(0.1)      # 100 us
    assert ax.get_xlabel() == "time since the trace started"


def test_restart_draws_a_vertical_line_at_its_time():
    ax = plot_timeline(_mixed_trace())
    line = _collections(ax)["rlviz-restarts"]
    (segment,) = line.get_segments()
    assert segment[0, 0] == pytest.approx(0.4)
    assert "worker restarted" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_flows_join_producer_end_to_consumer_start():
    ax = plot_timeline(_mixed_trace())
    (segment,) = _collections(ax)["rlviz-flows"].get_segments()
    lanes = timeline_lanes(_mixed_trace())
    assert segment[0].tolist() == pytest.approx([0.1, lanes.row[0]])   # s0 ends at 100 us
    assert segment[1].tolist() == pytest.approx([0.11, lanes.row[2]])  # gather starts at 110 us


def test_many_flows_are_thinned_with_a_note():
    trace = large_trace(events=20_000)
    ax = plot_timeline(trace, max_flows=300)
    assert len(_collections(ax)["rlviz-flows"].get_segments()) == 300
    total = len(trace.links()[0])
    assert _notes(ax) == [f"showing 300 of {total:,} value flows"]


def test_window_zooms_and_keeps_only_overlapping_spans():
    ax = plot_timeline(_mixed_trace(), window=(0.35, 0.7))
    assert ax.get_xlim() == (0.35, 0.7)
    # the restart mark (400 us) and the last from_range (500-600 us)
    assert len(_collections(ax)["rlviz-spans-item"].get_paths()) == 2
    assert "window from 0:00:00.000350, 350 µs wide" in ax.get_title(loc="left")


def test_window_outside_the_trace_draws_empty_axes_with_a_note():
    ax = plot_timeline(_mixed_trace(), window=(50, 60))
    assert len(ax.collections) == 0
    assert _notes(ax) == ["no events between 50 and 60 ms; the trace spans 0 to 0.6 ms"]
    assert len([p for p in ax.patches if p.get_gid() == "rlviz-lane"]) == 3


@pytest.mark.parametrize("window, error", [((5, 1), ValueError), ((1, 1), ValueError),
                                           ("0-5", TypeError), ((1,), TypeError), (3, TypeError)])
def test_bad_window_is_rejected(window, error):
    with pytest.raises(error, match="window"):
        plot_timeline(_mixed_trace(), window=window)


def test_not_a_trace_is_a_type_error():
    with pytest.raises(TypeError, match=r"plot_timeline\(trace=...\) needs an rlviz.trace.Trace"):
        plot_timeline([1, 2, 3])


def test_dropped_events_are_shown():
    trace = _mixed_trace()
    trace.dropped = 1234
    ax = plot_timeline(trace)
    assert "1,234 events dropped" in ax.get_title(loc="left")


def test_empty_trace_draws_labelled_axes_with_a_note():
    ax = plot_timeline(Trace.empty())
    assert _notes(ax) == ["empty trace: nothing was recorded"]
    assert ax.get_xlabel() == "time since the trace started"
    assert ax.get_title(loc="left").startswith("Timeline: 0 calls")


def test_no_event_objects_are_built(monkeypatch):
    def refuse(self):
        raise AssertionError("plot_timeline built per-event objects")

    monkeypatch.setattr(Trace, "events", property(refuse))
    monkeypatch.setattr(Trace, "to_records", refuse)
    ax = plot_timeline(large_trace(events=5000))
    assert len(ax.collections[0].get_paths()) > 4000


def test_spans_shorter_than_a_pixel_are_widened_to_one():
    trace = Trace.from_records([record("a", 0, 1), record("a", 1_000_000, 1_000_001)])
    ax = plot_timeline(trace)
    widths = [np.ptp(p.vertices[:, 0]) for p in ax.collections[0].get_paths()]
    pixel = np.diff(ax.get_xlim())[0] / ax.get_window_extent().width
    assert min(widths) >= 0.8 * pixel * 0.999


def test_an_op_keeps_its_colour_in_two_timelines_of_different_traces():
    """Colour by op, stable: the same op is drawn in the same colour whatever else the trace holds."""
    from rlviz.viz.examples import sharded_trace

    one, other = _mixed_trace(), sharded_trace()
    shared = {n.op for n in one.nodes} & {n.op for n in other.nodes}
    assert shared
    first, second = (op_colors(n.op for n in t.nodes) for t in (one, other))
    assert {op: first[op] for op in shared} == {op: second[op] for op in shared}
    assert len(set(first.values())) == len(first), "distinct ops of one trace get distinct colours"


@pytest.mark.parametrize("title", [None, "The first 20,000 of 62,328 calls (a static picture; run the cell in a live "
                                         "kernel to explore them all)"])
def test_the_title_and_the_legend_do_not_overlap(title):
    """Both sit above the axes; a long title (a saved view's picture says it shows only the first calls) ran into
    the legend's entries."""
    from matplotlib.text import Text

    ax = plot_timeline(_mixed_trace(), title=title)
    ax.figure.canvas.draw()                                   # the title's place is settled when drawn
    renderer = ax.figure.canvas.get_renderer()
    shown = ax.get_title(loc="left")
    (title_text,) = [t for t in ax.get_children() if isinstance(t, Text) and t.get_text() == shown]
    title_box = title_text.get_window_extent(renderer)
    legend_box = ax.get_legend().get_window_extent(renderer)
    assert not title_box.overlaps(legend_box), (title_box, legend_box)
