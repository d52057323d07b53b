"""Past capacity, where the dropped events lay: the recorder's span of what it evicted, per process, into the
trace's ``gaps`` and the stream's meta; and ``capacity`` values that cannot bound anything are refused at the call."""
import time

import pytest

import rlviz
from rlviz.iter import LocalIterator, from_range
from rlviz.trace import Gap, Node, Recorder, get_recorder
from rlviz.trace.recorder import DEFAULT_CAPACITY
from rlviz.trace.rows import ITEM
from rlviz.trace.store import merge_exports
from rlviz.viz.explorer_stream import encode_trace
from rlviz.viz.growing_chunks import Extent, GrowingChunks


def _timed(recorder: Recorder, n: int) -> tuple[list[int], list[int]]:
    """``n`` events of one node, event i from 100 + 10 i to 105 + 10 i ns; their starts and ends."""
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    starts = [100 + 10 * i for i in range(n)]
    for i, start in enumerate(starts):
        recorder.record(node, start, start + 5, ITEM, i)
    return starts, [start + 5 for start in starts]


def test_the_recorder_knows_when_the_events_it_dropped_happened():
    recorder = Recorder(capacity=2048)
    starts, ends = _timed(recorder, 5000)
    dropped = 5000 - recorder.held
    assert recorder.dropped == dropped > 2000                 # the oldest went, whole chunks at a time
    assert recorder.gap_ns == (starts[0], ends[dropped - 1])
    assert recorder.export()["gap_ns"] == recorder.gap_ns
    trace = merge_exports([recorder.export()])
    assert trace.gaps == (Gap("driver", starts[0], ends[dropped - 1], dropped),)
    assert trace.start_ns == starts[dropped]                  # the held events begin where the gap ends


def test_a_new_block_starts_without_a_gap_and_nothing_dropped_means_no_gap():
    recorder = Recorder(capacity=2048)
    _timed(recorder, 5000)
    recorder.start_block(10**12)
    assert recorder.gap_ns is None and recorder.dropped == 0
    small = Recorder()
    _timed(small, 10)
    assert small.gap_ns is None and merge_exports([small.export()]).gaps == ()


def test_the_saved_stream_carries_the_gap_and_starts_its_clock_there():
    recorder = Recorder(capacity=2048)
    starts, ends = _timed(recorder, 5000)
    dropped = recorder.dropped
    meta = encode_trace(merge_exports([recorder.export()]), chunk_events=1024).meta
    assert meta["origin_ns"] == str(starts[0]) and meta["unit_ns"] == 1
    assert len(meta["chunks"]) > 1
    for chunk in meta["chunks"]:                              # every chunk brings the latest, as live chunks do
        assert chunk["gaps"] == [{"where": "driver", "from": 0, "to": ends[dropped - 1] - starts[0], "dropped": dropped}]
        assert chunk["dropped"] == dropped


def test_a_recorded_block_past_capacity_marks_the_gap_live_and_saved():
    before = time.time_ns()
    try:
        with rlviz.record(capacity=2048) as trace:
            source = GrowingChunks(trace.store)
            list(LocalIterator(lambda t: range(3000)).for_each(str))
            trace.pull()
            source.advance()
            extent, _ = source.extent(Extent())
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    final = trace.snapshot()
    (gap,) = final.gaps
    assert gap.where == "driver" and gap.dropped == final.dropped > 0
    assert before <= gap.start_ns <= gap.end_ns <= int(final.columns["end_ns"].max())
    (mark,) = extent["gaps"]
    assert mark["where"] == "driver" and mark["dropped"] == extent["dropped"] > 0
    assert 0 <= mark["from"] <= mark["to"]                    # units since the block started
    (saved,) = encode_trace(final).meta["chunks"][0]["gaps"]
    assert saved["dropped"] == final.dropped


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-5, ValueError), (2047, ValueError), (1.5, TypeError),
                                        ("10000", TypeError), (True, TypeError), (None, None)])
def test_record_refuses_a_capacity_that_cannot_bound_anything_before_its_block_runs(bad, error):
    if error is None:                                         # None: the default bound
        with rlviz.record(capacity=bad):
            pass
        return
    ran, capacity = [], get_recorder().capacity
    with pytest.raises(error, match="capacity"):
        with rlviz.record(capacity=bad):
            ran.append(True)
    assert ran == [] and get_recorder().capacity == capacity and not get_recorder().enabled


def test_a_shard_actors_gap_lies_on_its_own_lane_on_the_drivers_clock(ray_local):
    """Each process past its capacity has its own gap, on its lane, within the block (an actor's clock aligned)."""
    before = time.time_ns()
    try:
        with rlviz.record(capacity=2048) as trace:
            out = from_range(3_000, num_shards=1).gather_sync().take(3_000)
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    assert out == list(range(3_000))
    gaps = {gap.where: gap for gap in trace.gaps}
    (shard,) = {e.where for e in trace.events if e.where != "driver"}    # shard-0, or shard-0#2 beside an older one
    assert set(gaps) == {"driver", shard}, trace.gaps
    assert sum(gap.dropped for gap in gaps.values()) == trace.dropped
    assert gaps[shard].dropped > 0 and gaps["driver"].dropped > 0
    for gap in gaps.values():
        assert before <= gap.start_ns <= gap.end_ns <= int(trace.columns["end_ns"].max())
