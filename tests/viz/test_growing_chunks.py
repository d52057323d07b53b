"""A watched run as a growing long trace: its arrivals cut into chunks, its levels and counts (no Ray, no browser)."""
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest

import rlviz
from rlviz.iter import LocalIterator
from rlviz.iter.sentinel import NOT_READY
from rlviz.ops import Concurrently
from rlviz.trace import Node, Recorder
from rlviz.trace.analysis import op_stats, order_notes
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM, mark_dropped
from rlviz.trace.store import TraceStore
from rlviz.viz import growing_chunks
from rlviz.viz.explorer_payload import Payload, decode_payload
from rlviz.viz.explorer_long import unpack_levels
from rlviz.viz.explorer_stream import LIVE_UNIT_NS
from rlviz.viz.gauge_tracks import GaugeLog
from rlviz.viz.growing_chunks import Extent, GrowingChunks


def _feed(store, recorder, cursor):
    increment = recorder.export_since(cursor)
    store.add_increment(increment)
    return increment["cursor"]


class _Page:
    """What a page holds of a growing run: its meta, brought up to date by each extent, as the page's code does."""

    def __init__(self, source):
        self.source, self.sent = source, Extent()
        self.meta, self.levels = source.start(self.sent)

    def refresh(self, final=False):
        self.source.advance(final=final)
        extent, buffers = self.source.extent(self.sent)
        self.meta["detail"][extent["detail_from"]:] = extent["detail"]
        for entry in self.meta["detail"][:extent["first_chunk"]]:
            entry["gone"] = True
        self.meta["texts"].extend(extent["texts"])
        self.meta.update(extent.get("structure", {}))
        self.meta.update({key: extent[key] for key in ("counts", "events", "orders") if key in extent})
        return extent, buffers

    def columns(self, k):
        chunk = self.source.chunk(k)
        entry = self.meta["detail"][k]
        assert (chunk.meta["first_id"], chunk.meta["count"]) == (entry["first_id"], entry["count"])
        assert chunk.meta["calls"] == entry["calls"], "the calls per node the page was sent are the chunk's"
        if chunk.meta["count"] or "gauges" in [table["name"] for table in chunk.meta["tables"]]:
            assert chunk.meta["time_range"] == entry["time_range"], "the entry the page was sent is the chunk's"
        return chunk, decode_payload(chunk)


def _body_bytes(chunk: Payload) -> int:
    """Bytes of a chunk's Arrow record batch bodies (its columns' values, padded to 8), headers left out."""
    return sum(message.body.size for data in chunk.buffers for message in pa.ipc.MessageReader.open_stream(data))


def test_the_tail_grows_by_each_refresh_with_links_by_id_and_a_structure_when_nodes_appear():
    recorder = Recorder()
    source = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    page = _Page(GrowingChunks(store))
    assert page.meta["growing"] and page.meta["long"] and page.meta["unit_ns"] == LIVE_UNIT_NS
    assert page.meta["nodes"] == [] and page.meta["detail"] == [{"first_id": 0, "count": 0, "time_range": [0, 0],
                                                                "calls": []}]
    made = [recorder.record(source, 1_000 * i, 1_000 * i + 500, ITEM, i) for i in range(10)]
    cursor = _feed(store, recorder, ExportCursor())
    extent, _ = page.refresh()
    assert [n["op"] for n in extent["structure"]["nodes"]] == ["from_range"]
    assert page.meta["detail"] == [{"first_id": 0, "count": 10, "time_range": [0, 9], "calls": [10]}]
    consumer = recorder.register(Node("b", "for_each", "x.for_each()", parents=("a",)))
    for i in range(10):
        recorder.record(consumer, 20_000 + 1_000 * i, 20_000 + 1_000 * i + 100, ITEM, 2.5 * i, made[i])
    _feed(store, recorder, cursor)
    extent, _ = page.refresh()
    assert extent["detail_from"] == 0, "the tail (chunk 0) changed: it is sent again"
    assert {n["op"] for n in extent["structure"]["nodes"]} == {"from_range", "for_each"}
    chunk, columns = page.columns(0)
    assert chunk.meta["count"] == 20
    assert columns["inputs"].tolist() == list(range(10))                   # each event's producer, by id
    assert columns["input_count"].tolist() == [0] * 10 + [1] * 10 and "late_consumer" not in columns
    assert columns["item"].tolist()[10:] == [2.5 * i for i in range(10)]     # floats travel as values
    assert extent["counts"]["calls"] == [10, 10] and extent["events"] == 20
    assert page.meta["detail"][0]["calls"] == [10, 10], "each node's calls in the chunk (a diff page counts on them)"
    extent, _ = page.refresh()
    assert "structure" not in extent and extent["detail"] == [page.meta["detail"][0]]
    assert _body_bytes(chunk) / 20 <= 24                                     # the columns' own bytes


def test_a_tail_that_reaches_chunk_events_closes_and_every_event_is_in_one_chunk_once():
    recorder = Recorder()
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    page = _Page(GrowingChunks(store, chunk_events=64))
    cursor, made = ExportCursor(), 0
    for size in (10, 100, 3, 200, 1):                # refreshes bring a few events, or several chunks' worth
        for i in range(size):
            recorder.record(node, made * 1_000, made * 1_000 + 10, ITEM, made)
            made += 1
        cursor = _feed(store, recorder, cursor)
        page.refresh()
    detail = page.meta["detail"]
    assert [entry["count"] for entry in detail] == [64] * 4 + [58]
    assert [entry["calls"] for entry in detail] == [[64]] * 4 + [[58]], "the one node's calls, closed chunks and tail"
    items = np.concatenate([page.columns(k)[1]["item"] for k in range(len(detail))])
    assert items.tolist() == list(range(made))
    asked = page.source.chunk(1)
    assert asked.meta == page.source.chunk(1).meta and asked.buffers == page.source.chunk(1).buffers, \
        "a closed chunk is the same each time it is asked for"
    with pytest.raises(IndexError, match="chunks 0..4 are"):
        page.source.chunk(5)


def test_a_link_whose_consumer_dropped_the_value_travels_marked():
    recorder = Recorder()
    replay = recorder.register(Node("a", "par_iter_next_batch", "replay"))
    kept = recorder.register(Node("b", "filter", "x.filter()", parents=("a",)))
    none, batch = (recorder.record(replay, 1_000 * i, 1_000 * i + 500, ITEM, i) for i in range(2))
    recorder.record(kept, 5_000, 6_000, ITEM, 1, (mark_dropped(none), batch))
    store = TraceStore()
    page = _Page(GrowingChunks(store))
    _feed(store, recorder, ExportCursor())
    page.refresh()
    chunk, columns = page.columns(0)
    produced = [int(columns["item"][producer - chunk.meta["first_id"]]) for producer in columns["inputs"]]
    dropped_by_item = dict(zip(produced, columns["input_dropped"].tolist()))
    assert dropped_by_item == {0: 1, 1: 0}, "the None (item 0) is marked dropped, the batch (item 1) is not"


def test_a_page_that_joins_late_gets_every_chunk_and_count_in_its_start():
    recorder = Recorder()
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    early = _Page(GrowingChunks(store, chunk_events=128))
    cursor = ExportCursor()
    for round_ in range(3):
        for i in range(100):
            recorder.record(node, round_ * 1_000_000 + i * 1_000, round_ * 1_000_000 + i * 1_000 + 1, ITEM, i)
        cursor = _feed(store, recorder, cursor)
        early.refresh()
    late = _Page(early.source)
    assert late.meta["detail"] == early.meta["detail"] and [d["count"] for d in late.meta["detail"]] == [128, 128, 44]
    assert late.meta["counts"]["calls"] == [300] and late.meta["events"] == 300
    starts = np.concatenate([late.columns(k)[0].meta["time_base"] + late.columns(k)[1]["start"].astype(np.int64)
                             for k in range(3)])
    assert np.all(np.diff(starts) >= 0)


def test_nodes_of_an_earlier_plan_stay_in_the_list_hidden_and_out_of_the_layout():
    recorder = Recorder()
    old_source = recorder.register(Node("old-a", "from_range", "from_range(4)"))
    recorder.register(Node("old-b", "for_each", "old.for_each()", parents=("old-a",)))
    source = recorder.register(Node("a", "from_range", "from_range(9)"))
    consumer = recorder.register(Node("b", "gather_sync", "x.gather_sync()", parents=("a",)))
    store = TraceStore()
    page = _Page(GrowingChunks(store))
    made = recorder.record(source, 0, 500, ITEM, 1)
    recorder.record(consumer, 1_000, 1_500, ITEM, 1, made)
    _feed(store, recorder, ExportCursor())
    structure = page.refresh()[0]["structure"]
    ops = [(node["op"], node.get("hidden", False)) for node in structure["nodes"]]
    assert ops == [("from_range", True), ("for_each", True), ("from_range", False), ("gather_sync", False)]
    assert [edge[:2] for edge in structure["edges"]] == [[source, consumer]]     # store indices, this plan only
    assert sorted(k for lane in structure["lanes"] for k in lane["nodes"]) == [source, consumer]
    assert old_source not in {k for lane in structure["lanes"] for k in lane["nodes"]}


def test_times_are_never_clamped_a_chunk_carries_its_own_base_and_wide_spans_travel_as_float64():
    """Events 3 hours into a run keep microsecond precision; a chunk spanning 3 days is exact too."""
    recorder = Recorder()
    source = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore(since_ns=0)
    page = _Page(GrowingChunks(store, chunk_events=2))
    hours_ns = 3 * 3600 * 10**9
    recorder.record(source, hours_ns + 5_000, hours_ns + 12_000, ITEM, 1)
    recorder.record(source, hours_ns + 1_000_000, hours_ns + 1_002_000, ITEM, 2)
    cursor = _feed(store, recorder, ExportCursor())
    page.refresh()
    chunk, columns = page.columns(0)
    assert columns["start"].dtype == np.dtype("<u4")                          # 32 bits per start, still
    starts = chunk.meta["time_base"] + columns["start"].astype(np.int64)
    assert starts.tolist() == [hours_ns // 1_000 + 5, hours_ns // 1_000 + 1_000]
    assert columns["duration"].tolist() == [7, 2]
    days_ns = 3 * 24 * 3600 * 10**9
    recorder.record(source, hours_ns + 2_000_000, days_ns, ITEM, 3)            # a call of almost 3 days
    recorder.record(source, days_ns, days_ns + 1_000, ITEM, 4)
    _feed(store, recorder, cursor)
    page.refresh()
    chunk, columns = page.columns(1)
    assert columns["start"].dtype == columns["duration"].dtype == np.dtype("<f8")   # the chunk spans days
    starts = chunk.meta["time_base"] + columns["start"].astype(np.int64)
    assert starts.tolist() == [hours_ns // 1_000 + 2_000, days_ns // 1_000]
    assert columns["duration"].tolist() == [(days_ns - hours_ns - 2_000_000) // 1_000, 1]


def _op(name, not_ready_first=0, count=10_000):
    def items(timeout):
        yield from [NOT_READY] * not_ready_first
        yield from (f"{name}{i}" for i in range(count))
    return LocalIterator(items, name=name).named(name)


def test_decisions_travel_in_the_chunk_of_their_events_naming_them_by_id():
    with rlviz.record() as live:
        page = _Page(GrowingChunks(live.store))
        plan = iter(Concurrently([_op("Store"), _op("Train")], round_robin_weights=[2, 1]))
        for _ in range(6):
            next(plan)
        live.pull()
        page.refresh()
    chunk, columns = page.columns(0)
    nodes = page.meta["nodes"]
    events = columns["decision_event"].astype(np.int64) - chunk.meta["first_id"]
    ops = [nodes[int(columns["node"][e])]["op"] for e in events]
    assert sorted(ops) == ["Store"] * 4 + ["Train"] * 2
    (union,) = set(columns["decision_union"].tolist())
    assert nodes[union]["op"] == "Concurrently" and nodes[union]["union"]["children"] == ["Store", "Train"]
    assert nodes[union]["union"]["weights"] == [2, 1]
    assert sorted(columns["decision_round"].tolist()) == [1, 1, 1, 2, 2, 2]


def test_counts_and_order_ratio_are_the_whole_runs_as_op_stats_counts_them():
    plan = iter(Concurrently([_op("Store"), _op("Train", not_ready_first=5)], round_robin_weights=[2, 1]))
    with rlviz.record() as live:
        page = _Page(GrowingChunks(live.store, chunk_events=16))
        for _ in range(30):
            next(plan)
        live.pull()
        extent, _ = page.refresh(final=True)
        trace = live.snapshot()
    stats = {row["op"]: row for row in op_stats(trace) if row["calls"]}
    nodes = page.meta["nodes"]
    for k, node in enumerate(nodes):
        if not node.get("hidden"):                      # nodes of earlier plans in this process are hidden
            row = stats[node["op"]]
            assert [extent["counts"][name][k] for name in ("calls", "items", "not_ready")] == \
                   [row["calls"], row["items"], row["not_ready"]]
            assert extent["counts"]["busy_ms"][k] == pytest.approx(row["busy_ns"] / 1e6)
    (strip,) = extent["orders"]
    items = [group["items"] for group in strip["groups"]]
    assert items == [stats["Store"]["items"], stats["Train"]["items"]]
    assert strip["ratio"] == [1.0, round(items[1] / items[0], 2)]


def test_levels_count_every_event_per_lane_and_come_again_when_due(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(growing_chunks, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    recorder = Recorder()
    nodes = [recorder.register(Node(f"n{k}", "op", f"op{k}", where=where)) for k, where in enumerate(("driver", "w"))]
    store = TraceStore()
    page = _Page(GrowingChunks(store))
    cursor = ExportCursor()
    for i in range(50):
        recorder.record(nodes[i % 2], i * 10**6, i * 10**6 + 1_000, ITEM, i)
    cursor = _feed(store, recorder, cursor)
    first, buffers = page.refresh()
    assert buffers and first["overview"]["lanes"] == 2, "levels were due: none had been worked out with events"
    second, buffers = page.refresh()
    assert not buffers and "overview" not in second, "nothing new: the same levels"
    recorder.record(nodes[0], 60 * 10**6, 61 * 10**6, ITEM, 60)
    _feed(store, recorder, cursor)
    third, buffers = page.refresh()
    assert not buffers, f"new events, but the levels are not due before {growing_chunks.LEVELS_S} s"
    clock[0] += growing_chunks.LEVELS_S
    fourth, buffers = page.refresh()
    assert buffers, "due now"
    for level, columns in zip(fourth["overview"]["levels"], unpack_levels(fourth["overview"], buffers[0])):
        assert columns["count"].reshape(2, level["n"]).sum(axis=1).tolist() == [26, 25], "each level counts them all"


def test_large_levels_come_again_less_often_so_their_bytes_a_second_stay_bounded(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(growing_chunks, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    recorder = Recorder()
    node = recorder.register(Node("n0", "op", "op0"))
    store, cursor = TraceStore(), ExportCursor()
    page = _Page(GrowingChunks(store))
    for i in range(2_000):
        recorder.record(node, i * 10**9, i * 10**9 + 1_000, ITEM, i)      # over half an hour: levels of many buckets
    cursor = _feed(store, recorder, cursor)
    _, buffers = page.refresh()
    packed = len(buffers[0])
    monkeypatch.setattr(growing_chunks, "LEVELS_BYTES_PER_S", packed / (4 * growing_chunks.LEVELS_S))
    recorder.record(node, 2_000 * 10**9, 2_000 * 10**9 + 1, ITEM, 0)
    _feed(store, recorder, cursor)
    clock[0] += growing_chunks.LEVELS_S
    _, buffers = page.refresh()
    assert buffers, "worked out with the old rate: due after LEVELS_S"
    recorder.record(node, 2_001 * 10**9, 2_001 * 10**9 + 1, ITEM, 0)
    _feed(store, recorder, cursor)
    clock[0] += 2 * growing_chunks.LEVELS_S
    assert not page.refresh()[1], "at this many bytes a second, they wait four times LEVELS_S"
    clock[0] += 2 * growing_chunks.LEVELS_S
    assert page.refresh()[1], "and then come"


def test_notes_come_when_they_change_at_most_every_notes_s(monkeypatch):
    clock, worked_out = [100.0], []
    monkeypatch.setattr(growing_chunks, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(growing_chunks, "order_notes", lambda trace: worked_out.append(1) or order_notes(trace))
    plan = iter(Concurrently([_op("Store"), _op("Train", not_ready_first=60)], round_robin_weights=[1, 1]))
    with rlviz.record() as trace:
        page = _Page(GrowingChunks(trace.store))
        for _ in range(10):
            next(plan)
        trace.pull()
        first, _ = page.refresh()
        notes = first["notes"]
        assert notes == order_notes(trace.snapshot()) and any(note.startswith("Train was not ready") for note in notes)
        for _ in range(10):
            next(plan)
        trace.pull()
        clock[0] += growing_chunks.NOTES_S / 2
        second, _ = page.refresh()
        assert second["events"] > first["events"] and "notes" not in second and len(worked_out) == 1  # not yet due
        clock[0] += growing_chunks.NOTES_S
        third, _ = page.refresh()                      # nothing new but the notes
        assert third["events"] == second["events"]
        assert third["notes"] == order_notes(trace.snapshot()) != notes
        assert "notes" not in page.refresh()[0] and "notes" not in page.refresh(final=True)[0]
        assert len(worked_out) == 2, "worked out again only when decisions arrived"


def test_live_notes_name_the_cause_the_gauges_give_as_the_saved_notes_do():
    """A live page's notes are worked out from the decided events *and* the gauges, so a not-ready op's cause
    (Replay's rows against ``learning_starts``) reaches the live page as it reaches the saved one."""
    from rlviz.trace.gauges import LEARNING_STARTS, REPLAY_ADDED

    def replay(timeout):
        for added in range(0, 1000, 50):                # twenty not-readies while the buffer fills
            rlviz.gauge(REPLAY_ADDED, added)
            rlviz.gauge(LEARNING_STARTS, 1000)
            yield NOT_READY
        yield from range(10_000)

    store = LocalIterator(lambda timeout: iter(range(10_000)), name="Store").named("Store")
    plan = iter(Concurrently([store, LocalIterator(replay, name="Replay").named("Replay")], round_robin_weights=[1, 1]))
    with rlviz.record() as trace:
        page = _Page(GrowingChunks(trace.store))
        for _ in range(30):
            next(plan)
        trace.pull()
        live = page.refresh(final=True)[0]["notes"]
    saved = order_notes(trace.snapshot())
    assert live == saved
    assert any(note.startswith("Replay was not ready") and "learning_starts needs" in note for note in live), live
    chunk, columns = page.columns(0)
    tracks = page.source.extent(Extent())[0]["gauge_tracks"]
    assert sorted(name for name, _ in tracks) == sorted([LEARNING_STARTS, REPLAY_ADDED])
    assert len(columns["gauge_value"]) == 40 and set(columns["gauge_track"].tolist()) == {0, 1}


def test_notes_are_spaced_by_what_working_them_out_costs(monkeypatch):
    """Notes cost in proportion to the decisions held, so a long run spaces them out: at most 1/NOTES_COST_SHARE of a core."""
    clock = [100.0]
    monkeypatch.setattr(growing_chunks, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    def slow_notes(trace):                              # working the notes out takes 0.2 s of the clock
        clock[0] += 0.2
        return [f"{len(trace.decisions)} decisions"]
    monkeypatch.setattr(growing_chunks, "order_notes", slow_notes)

    plan = iter(Concurrently([_op("A"), _op("B")], round_robin_weights=[1, 1]))
    with rlviz.record() as trace:
        page = _Page(GrowingChunks(trace.store))
        next(plan)
        trace.pull()
        assert "notes" in page.refresh()[0]
        next(plan)
        trace.pull()
        clock[0] += growing_chunks.NOTES_S
        assert "notes" not in page.refresh()[0], "due only NOTES_COST_SHARE x 0.2 s = 10 s after the last working-out"
        clock[0] += growing_chunks.NOTES_COST_SHARE * 0.2
        next(plan)
        trace.pull()
        assert "notes" in page.refresh()[0]


def test_chunks_whose_every_event_left_the_stores_window_are_let_go():
    recorder = Recorder()
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore(window_ns=10_000)
    page = _Page(GrowingChunks(store, chunk_events=8))
    cursor = ExportCursor()
    for i in range(40):
        recorder.record(node, i * 1_000, i * 1_000 + 100, ITEM, i)
        if i % 8 == 7:
            cursor = _feed(store, recorder, cursor)
            page.refresh()
    detail = page.meta["detail"]
    gone = [k for k, entry in enumerate(detail) if entry.get("gone")]
    assert gone == [0, 1, 2] and store.first_id > 8 * 3 - 1
    with pytest.raises(IndexError, match="not held"):
        page.source.chunk(0)
    assert page.columns(3)[1]["item"].tolist() == list(range(24, 32)), "a chunk partly in the window stays whole"
    assert page.meta["events"] == 40 and page.meta["counts"]["calls"] == [40]


def test_a_page_holding_the_tail_gets_only_its_new_parts_and_a_closed_one_whole():
    recorder = Recorder()
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    page = _Page(GrowingChunks(store, chunk_events=50))
    cursor, made = ExportCursor(), 0

    def refresh(count):
        nonlocal cursor, made
        for _ in range(count):
            recorder.record(node, made * 1_000, made * 1_000 + 10, ITEM, made)
            made += 1
        cursor = _feed(store, recorder, cursor)
        page.refresh()

    refresh(10)
    whole = page.source.chunk(0)
    assert whole.meta["parts"] == [0, 1] and whole.meta["count"] == 10
    refresh(15)
    piece = page.source.chunk(0, from_part=1)
    assert piece.meta["parts"] == [1, 2] and (piece.meta["first_id"], piece.meta["count"]) == (10, 15)
    assert decode_payload(piece)["item"].tolist() == list(range(10, 25))
    nothing = page.source.chunk(0, from_part=2)
    assert nothing.meta["parts"] == [2, 2] and (nothing.meta["first_id"], nothing.meta["count"]) == (25, 0)
    refresh(30)                                        # the tail closes at 50 events
    closed = page.source.chunk(0, from_part=2)
    assert "parts" not in closed.meta and (closed.meta["first_id"], closed.meta["count"]) == (0, 50)
    assert page.source.chunk(1).meta["parts"][0] == 0 and page.source.chunk(1).meta["count"] == 5


def test_a_gauge_log_keeps_each_track_in_time_order_and_what_it_gave_before_unchanged():
    """Readings in time order are appended (past the first buffer: it doubles); a late one is merged in order; the
    readings a page's chunk was cut from earlier stay as they were."""
    log = GaugeLog()
    log.take(np.array(["held", "held", "lr"]), np.array([30, 10, 5]), np.array([3.0, 1.0, 0.5]),
             np.array(["driver"] * 3))
    earlier = log.tracks(np.zeros(1, np.int64))            # a page's chunk is cut from these later
    for k in range(40):
        log.take(np.array(["held"]), np.array([100 + k]), np.array([float(k)]), np.array(["driver"]))
    assert log.keys == [["held", "driver"], ["lr", "driver"]]
    track, time_ns, value = log.before(10**6)
    assert track.tolist() == [0, 1] and time_ns.tolist() == [139, 5] and value.tolist() == [39.0, 0.5]
    log.take(np.array(["held"]), np.array([20]), np.array([2.0]), np.array(["driver"]))     # late: merged in order
    assert log.before(25)[1].tolist() == [20, 5] and log.before(11)[1].tolist() == [10, 5]
    _, time_ns, value, _ = earlier.chunk(1)                          # the readings from the cut at 0 on
    assert time_ns.tolist() == [5, 10, 30] and value.tolist() == [0.5, 1.0, 3.0], "an earlier cut is unchanged"


def test_a_tail_of_gauge_readings_closes_too_and_keeps_every_reading_once():
    """A run that records readings and hardly an event: its tail closes once it holds ``chunk_events`` readings, so
    a refresh does not re-encode an ever longer tail, and each reading is in one chunk, in the order taken."""
    recorder = Recorder()
    recorder.enabled = True
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    page = _Page(GrowingChunks(store, chunk_events=64))
    cursor = ExportCursor()
    recorder.record(node, 0, 10, ITEM, 0)
    for refresh in range(100):
        for k in range(5):
            recorder.gauge("buffer", float(5 * refresh + k))
        cursor = _feed(store, recorder, cursor)
        page.refresh()
    detail = page.meta["detail"]
    assert len(detail) == 500 // 64 + 1, "a chunk closed per 64 readings, the tail open"
    assert [entry["count"] for entry in detail] == [1] + [0] * (len(detail) - 1), "the event is in the first chunk"
    columns = [page.columns(k)[1] for k in range(len(detail))]
    assert np.concatenate([c["gauge_value"] for c in columns]).tolist() == [float(v) for v in range(500)]
    for entry, c in list(zip(detail, columns))[1:]:
        assert entry["time_range"] == [c["gauge_time"].min(), c["gauge_time"].max()], \
            "a chunk of readings alone spans them, so a window there asks for it"
    assert page.source.chunk(len(detail) - 1, None).meta["parts"][1] <= 64 // 5 + 1, "the open tail stays short"
