"""The per-process recorder: cheap appends, a hard bound, ids and cursors."""
import pytest

from rlviz.trace import Node, Recorder, Trace
from rlviz.trace.recorder import ITEM, NOT_READY


def _fill(recorder, n):
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    return [recorder.record(node, i, i + 1, ITEM, i) for i in range(n)]


def test_capacity_bounds_held_events_and_counts_drops():
    recorder = Recorder(capacity=1000)
    _fill(recorder, 5000)
    assert recorder.held <= 1000
    assert recorder.dropped + recorder.held == 5000
    trace = Trace.from_exports([recorder.export()])
    assert len(trace) == recorder.held
    # the newest events survive
    assert trace.events[-1].item == "int 4999"


def test_export_since_cursor_and_reports_drops_since_then():
    recorder = Recorder(capacity=80)
    _fill(recorder, 50)
    cursor = recorder.seq
    _fill(recorder, 30)
    export = recorder.export(since=cursor)
    trace = Trace.from_exports([export])
    assert [e.item for e in trace.events][:2] == ["int 0", "int 1"]
    assert len(trace) == 30 and export["dropped"] == 0


def test_ids_are_unique_and_link_inputs():
    recorder = Recorder()
    a = recorder.register(Node("a", "source", "s"))
    b = recorder.register(Node("b", "batch", "s.batch(2)", parents=("a",)))
    ids = [recorder.record(a, i, i + 1, ITEM, i) for i in range(2)]
    recorder.record(b, 3, 4, ITEM, [0, 1], tuple(ids))
    recorder.record(b, 5, 6, NOT_READY)
    trace = Trace.from_exports([recorder.export()])
    assert len(set(ids)) == 2
    assert trace.events[2].inputs == tuple(ids)
    assert trace.events[3].item_id is None and trace.events[3].outcome == "not_ready"
    assert trace.graph().edges["a", "b"]["items"] == 2


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-5, ValueError), (1.5, TypeError), ("10", TypeError)])
def test_bad_capacity_is_rejected(bad, error):
    with pytest.raises(error, match="capacity"):
        Recorder(capacity=bad)


def test_memory_per_event_is_bounded():
    recorder = Recorder(capacity=200_000)
    _fill(recorder, 200_000)
    held_bytes = sum(c.buffer_info()[1] * c.itemsize for c in recorder._full) + len(recorder._chunk) * 8
    assert held_bytes / recorder.held <= 100
