"""TraceStepper and its plain-data half, driven by setting widget values (no browser)."""
import numpy as np
import pytest

from rlviz.trace import Trace
from rlviz.viz.examples import sharded_trace
from rlviz.widgets.steps import Steps
from rlviz.widgets.stepper import TraceStepper


def _records():
    """shard-0 makes a value (id 1), the driver's gather takes it, then a batch takes the gather's (id 2)."""
    base = {"pid": 7, "inputs": []}
    return [
        {**base, "op": "from_items", "label": "from_items[0]", "op_id": "src", "where": "shard-0",
         "start_ns": 0, "end_ns": 1_000, "outcome": "item", "item": "int 5", "item_id": 1},
        {**base, "op": "gather_sync", "label": "it.gather_sync()", "op_id": "g", "where": "driver",
         "start_ns": 500, "end_ns": 2_000, "outcome": "item", "item": "int 5", "item_id": 2, "inputs": [1]},
        {**base, "op": "batch", "label": "it.gather_sync().batch(1)", "op_id": "b", "where": "driver",
         "start_ns": 400, "end_ns": 3_000, "outcome": "item", "item": "list[1]", "item_id": 3, "inputs": [2]},
        {**base, "op": "gather_sync", "label": "it.gather_sync()", "op_id": "g", "where": "driver",
         "start_ns": 3_100, "end_ns": 3_200, "outcome": "stop"},
    ]


@pytest.fixture
def small():
    return Trace.from_records(_records())


def test_steps_follow_completion_order_and_name_producers(small):
    steps = Steps(small)
    ops = [steps.event(i).op for i in steps.order]
    assert ops == ["from_items", "gather_sync", "batch", "gather_sync"]
    gather = steps.order[1]
    assert [steps.event(p).op for p in steps.producers(gather)] == ["from_items"]
    assert steps.describe(gather).splitlines() == [
        "#2 of 4 in completion order",
        "op       gather_sync",
        "label    it.gather_sync()",
        "where    driver (pid 7)",
        "outcome  item",
        "item     int 5",
        "time     0.001 -> 0.002 ms (1.5 µs)",
        "inputs   #1 from_items @ shard-0: int 5",
    ]
    assert steps.describe(steps.order[3]).splitlines()[-1] == "inputs   none"


def test_stepper_next_prev_play_and_slider_move_one_event(small):
    stepper = TraceStepper(small, views=())
    assert (stepper.index, stepper.event.op) == (0, "from_items")
    assert stepper.text.splitlines()[:2] == ["step 1 of 4", "#1 of 4 in completion order"]
    stepper.next_button.click()
    assert stepper.event.op == "gather_sync" and "inputs   #1 from_items @ shard-0: int 5" in stepper.text
    stepper.next_button.click()
    assert stepper.event.op == "batch" and "inputs   #2 gather_sync @ driver: int 5" in stepper.text
    stepper.prev_button.click()
    assert stepper.index == 1
    stepper.play.value = 3                       # Play drives the slider, which drives the stepper
    assert (stepper.slider.value, stepper.event.outcome) == (3, "stop")
    stepper.next_button.click()                  # clamped at the last step
    assert stepper.index == 3
    stepper.slider.value = 0
    assert stepper.play.value == 0 and stepper.event.op == "from_items"
    assert "op       from_items" in stepper.panel.value


def test_filters_by_op_and_lane_keep_the_place(small):
    stepper = TraceStepper(small, views=())
    stepper.slider.value = 2                     # the batch call, #3
    stepper.op_menu.value = "gather_sync"        # next gather at or after #3 is the stop, #4
    assert (stepper.slider.max, stepper.index, stepper.event.outcome) == (1, 1, "stop")
    assert stepper.text.splitlines()[0] == "step 2 of 2 (op gather_sync)"
    stepper.where_menu.value = "shard-0"         # no gather on shard-0
    assert stepper.event is None and stepper.text.startswith("step 0 of 0 (op gather_sync, lane shard-0)")
    stepper.op_menu.value = ""
    assert [stepper.event.where, stepper.slider.max] == ["shard-0", 0]


def test_views_highlight_the_current_event(small):
    stepper = TraceStepper(small)
    first = bytes(stepper.images["timeline"].value)
    assert first.startswith(b"\x89PNG") and bytes(stepper.images["graph"].value).startswith(b"\x89PNG")
    stepper.next_button.click()
    assert bytes(stepper.images["timeline"].value) != first
    timeline = stepper._frames["timeline"]
    gather = int(stepper.selection[1])
    x0, _ = timeline.box.get_xy()
    assert x0 <= timeline.start_ms[gather] and len(timeline.flows.get_segments()) == 1
    graph = stepper._frames["graph"]
    assert sum(ring.get_visible() for ring in graph.rings) == 2      # gather_sync and its producer


def test_follow_zooms_the_timeline_around_the_step():
    trace = sharded_trace(items=12)
    stepper = TraceStepper(trace, views=("timeline",), follow=True)
    timeline = stepper._frames["timeline"]
    stepper.slider.value = len(stepper.selection) // 2
    lo, hi = timeline.ax.get_xlim()
    assert (hi - lo) < (timeline.full_xlim[1] - timeline.full_xlim[0])
    stepper.follow_box.value = False
    assert timeline.ax.get_xlim() == timeline.full_xlim


def test_static_fallback_has_text_and_png(small):
    bundle = TraceStepper(small)._repr_mimebundle_()
    assert bundle["text/plain"].startswith("step 1 of 4") and "image/png" in bundle
    assert "application/vnd.jupyter.widget-view+json" in bundle


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((Trace.empty(),), {}, ValueError, "the trace has no events.*record some work first"),
    (([],), {}, TypeError, r"needs an rlviz.trace.Trace, not list.*rlviz.record\(\)"),
    ((None,), {"views": "timeline"}, TypeError, "needs an rlviz.trace.Trace"),
    (("small",), {"views": "timeline"}, TypeError, r"not the string 'timeline'; hint: views=\('timeline',\)"),
    (("small",), {"views": ["gantt"]}, ValueError, r"views has 'gantt'; allowed views are \['timeline', 'graph'\]"),
    (("small",), {"op": "Replay"}, ValueError, r"op='Replay' has no events.*choose one of \['batch'"),
    (("small",), {"where": "shard-9"}, ValueError, r"where='shard-9' has no events.*'shard-0'"),
    (("small",), {"skip_not_ready": "yes"}, TypeError, r"skip_not_ready must be True or False, got 'yes'"),
])
def test_bad_input_fails_at_construction(small, args, kwargs, error, match):
    args = tuple(small if a == "small" else a for a in args)
    with pytest.raises(error, match=match):
        TraceStepper(*args, **kwargs)


def test_bad_trait_values_name_the_attribute(small):
    import traitlets

    stepper = TraceStepper(small, views=())
    with pytest.raises(traitlets.TraitError, match=r"TraceStepper.index must be in 0..3"):
        stepper.index = 9
    with pytest.raises(traitlets.TraitError, match=r"TraceStepper.op='nope' has no events"):
        stepper.op = "nope"


def test_selection_is_completion_order_of_a_larger_trace():
    trace = sharded_trace(items=5, shards=3)
    stepper = TraceStepper(trace, views=(), where="shard-2")
    ends = trace.columns["end_ns"][stepper.selection]
    assert np.all(np.diff(ends) >= 0) and {stepper.steps.event(i).where for i in stepper.selection} == {"shard-2"}


def test_lane_menu_lists_lanes_in_the_views_order():
    """Driver first, then natural order: shard-2 before shard-10, as in the timeline's bands."""
    from rlviz.viz.timeline import timeline_lanes

    trace = sharded_trace(items=1, shards=11, not_ready=0)
    stepper = TraceStepper(trace, views=())
    lanes = [value for _, value in stepper.where_menu.options[1:]]
    assert lanes[:4] == ["driver", "shard-0", "shard-1", "shard-2"] and lanes[-1] == "shard-10"
    assert lanes == stepper.steps.wheres == timeline_lanes(trace).names


def test_skip_not_ready_steps_only_over_calls_that_made_ended_or_failed_something():
    trace = sharded_trace(items=4, not_ready=3)
    stepper = TraceStepper(trace, views=(), op="batch")
    everything = [stepper.steps.event(i).outcome for i in stepper.selection]
    assert everything.count("not_ready") == 3
    stepper.skip_box.value = True                          # what a click on the checkbox does
    assert stepper.skip_not_ready
    kept = [stepper.steps.event(i).outcome for i in stepper.selection]
    assert "not_ready" not in kept and len(kept) == len(everything) - 3
    for _ in range(len(kept)):
        assert stepper.event.outcome != "not_ready"
        stepper.next_button.click()
    assert "not-ready skipped" in stepper.text.splitlines()[0]
    stepper.skip_not_ready = False
    assert [stepper.steps.event(i).outcome for i in stepper.selection] == everything


def test_skip_not_ready_keeps_the_place_when_switched_on():
    trace = sharded_trace(items=4, not_ready=3)
    stepper = TraceStepper(trace, views=(), op="batch")
    stepper.index = int(np.flatnonzero([stepper.steps.event(i).outcome == "not_ready"
                                        for i in stepper.selection])[0])
    rank = int(stepper.steps.rank[stepper.event_index])
    stepper.skip_not_ready = True
    assert stepper.event.outcome != "not_ready"
    assert int(stepper.steps.rank[stepper.event_index]) > rank, "moved on to the next call that made something"


def test_stepper_says_why_a_union_pulled_each_op():
    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY
    from rlviz.ops import Concurrently

    def op(name, not_ready_first=0):
        def items(timeout):
            yield from [NOT_READY] * not_ready_first
            yield from (f"{name}{i}" for i in range(1000))
        return LocalIterator(items, name=name).named(name)

    plan = Concurrently([op("Store"), op("Train", not_ready_first=1), op("Log")], round_robin_weights=[2, 1, "*"])
    with rlviz.record() as trace:
        plan.take(110)
    stepper = TraceStepper(trace, views=(), op="Train")
    assert "why      round 1: Train not ready: its turn ends, Log next" in stepper.text
    stepper.op = "Log"
    while "the cap" not in stepper.text and stepper.index < len(stepper.selection) - 1:
        stepper.step(1)
    assert "why      round 1: Log ('*'): 100th pull this turn, the cap — it is always ready; next Store" \
        in stepper.text
