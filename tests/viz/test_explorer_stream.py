"""The live wire format: a growing store's new events as appended chunks (no Ray, no browser)."""
import numpy as np
import pyarrow as pa
import pytest

from rlviz.trace import Node, Recorder
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM, mark_dropped
from rlviz.trace.store import TraceStore
from rlviz.viz.explorer_payload import Payload, decode_payload
from rlviz.viz.explorer_stream import LIVE_UNIT_NS, LiveEncoder


def _feed(store, recorder, cursor):
    increment = recorder.export_since(cursor)
    store.add_increment(increment)
    return increment["cursor"]


def test_chunks_carry_every_event_once_with_links_by_id_and_structure_when_nodes_appear():
    recorder = Recorder()
    source = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    encoder = LiveEncoder(store)
    start = encoder.start()
    assert start["live"] and start["unit_ns"] == LIVE_UNIT_NS and start["nodes"] == []
    cursor = ExportCursor()
    made = [recorder.record(source, 1_000 * i, 1_000 * i + 500, ITEM, i) for i in range(10)]
    cursor = _feed(store, recorder, cursor)
    first = encoder.next_chunk()
    assert first.meta["first_id"] == 0 and first.meta["count"] == 10
    assert [n["op"] for n in first.meta["structure"]["nodes"]] == ["from_range"]
    consumer = recorder.register(Node("b", "for_each", "x.for_each()", parents=("a",)))
    for i in range(10):
        recorder.record(consumer, 20_000 + 1_000 * i, 20_000 + 1_000 * i + 100, ITEM, 2.5 * i, made[i])
    cursor = _feed(store, recorder, cursor)
    second = encoder.next_chunk()
    assert second.meta["first_id"] == 10 and second.meta["count"] == 10
    assert {n["op"] for n in second.meta["structure"]["nodes"]} == {"from_range", "for_each"}
    columns = decode_payload(Payload(second.meta, second.buffers))
    assert columns["inputs"].tolist() == list(range(10))                   # each event's producer, by id
    assert columns["input_count"].tolist() == [1] * 10 and "late_consumer" not in columns
    assert columns["item"].tolist() == [2.5 * i for i in range(10)]          # floats travel as values
    assert second.meta["time_base"] == 20                                   # microseconds since the origin
    assert columns["start"].tolist() == list(range(10))                      # microseconds since the time base
    assert encoder.next_chunk() is None
    _feed(store, recorder, cursor)
    assert encoder.next_chunk() is None                                    # nothing new: nothing sent
    per_event = (_body_bytes(first) + _body_bytes(second)) / 20                # the columns' own bytes
    assert per_event <= 24, per_event
    framing = [chunk.nbytes - _body_bytes(chunk) for chunk in (first, second)]
    assert max(framing) <= 1_500, framing          # Arrow's schema and batch headers: per chunk, not per event


def _body_bytes(chunk: Payload) -> int:
    """Bytes of a chunk's Arrow record batch bodies (its columns' values, padded to 8), headers left out."""
    return sum(message.body.size for data in chunk.buffers for message in pa.ipc.MessageReader.open_stream(data))


def test_a_link_whose_consumer_dropped_the_value_travels_marked():
    recorder = Recorder()
    replay = recorder.register(Node("a", "par_iter_next_batch", "replay"))
    kept = recorder.register(Node("b", "filter", "x.filter()", parents=("a",)))
    none, batch = (recorder.record(replay, 1_000 * i, 1_000 * i + 500, ITEM, i) for i in range(2))
    recorder.record(kept, 5_000, 6_000, ITEM, 1, (mark_dropped(none), batch))
    store = TraceStore()
    encoder = LiveEncoder(store)
    _feed(store, recorder, ExportCursor())
    chunk = encoder.next_chunk()
    columns = decode_payload(Payload(chunk.meta, chunk.buffers))
    first = chunk.meta["first_id"]
    produced = [int(columns["item"][producer - first]) for producer in columns["inputs"]]
    dropped_by_item = dict(zip(produced, columns["input_dropped"].tolist()))
    assert dropped_by_item == {0: 1, 1: 0}, "the None (item 0) is marked dropped, the batch (item 1) is not"


def test_a_late_encoder_gets_every_held_event_in_its_first_chunk():
    recorder = Recorder()
    node = recorder.register(Node("a", "from_range", "from_range(9)"))
    store = TraceStore()
    early = LiveEncoder(store)
    cursor = ExportCursor()
    for round_ in range(3):
        for i in range(100):
            recorder.record(node, round_ * 1_000_000 + i * 1_000, round_ * 1_000_000 + i * 1_000 + 1, ITEM, i)
        cursor = _feed(store, recorder, cursor)
        early.next_chunk()
    late = LiveEncoder(store).next_chunk()
    assert late.meta["first_id"] == 0 and late.meta["count"] == 300
    assert np.all(np.diff(decode_payload(Payload(late.meta, late.buffers))["start"].astype(np.int64)) >= 0)


def test_nodes_of_an_earlier_plan_stay_in_the_list_hidden_and_out_of_the_layout():
    recorder = Recorder()
    old_source = recorder.register(Node("old-a", "from_range", "from_range(4)"))
    recorder.register(Node("old-b", "for_each", "old.for_each()", parents=("old-a",)))
    source = recorder.register(Node("a", "from_range", "from_range(9)"))
    consumer = recorder.register(Node("b", "gather_sync", "x.gather_sync()", parents=("a",)))
    store = TraceStore()
    encoder = LiveEncoder(store)
    made = recorder.record(source, 0, 500, ITEM, 1)
    recorder.record(consumer, 1_000, 1_500, ITEM, 1, made)
    _feed(store, recorder, ExportCursor())
    structure = encoder.next_chunk().meta["structure"]
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
    encoder = LiveEncoder(store)
    hours_ns = 3 * 3600 * 10**9
    recorder.record(source, hours_ns + 5_000, hours_ns + 12_000, ITEM, 1)
    recorder.record(source, hours_ns + 1_000_000, hours_ns + 1_002_000, ITEM, 2)
    cursor = _feed(store, recorder, ExportCursor())
    chunk = encoder.next_chunk()
    columns = decode_payload(Payload(chunk.meta, chunk.buffers))
    assert columns["start"].dtype == np.dtype("<u4")                          # 32 bits per start, still
    starts = chunk.meta["time_base"] + columns["start"].astype(np.int64)
    assert starts.tolist() == [hours_ns // 1_000 + 5, hours_ns // 1_000 + 1_000]
    assert columns["duration"].tolist() == [7, 2]
    days_ns = 3 * 24 * 3600 * 10**9
    recorder.record(source, hours_ns + 2_000_000, days_ns, ITEM, 3)            # a call of almost 3 days
    recorder.record(source, days_ns, days_ns + 1_000, ITEM, 4)
    _feed(store, recorder, cursor)
    chunk = encoder.next_chunk()
    columns = decode_payload(Payload(chunk.meta, chunk.buffers))
    assert columns["start"].dtype == columns["duration"].dtype == np.dtype("<f8")   # the chunk spans days
    starts = chunk.meta["time_base"] + columns["start"].astype(np.int64)
    assert starts.tolist() == [hours_ns // 1_000 + 2_000, days_ns // 1_000]
    assert columns["duration"].tolist() == [(days_ns - hours_ns - 2_000_000) // 1_000, 1]


def test_decisions_travel_in_the_chunk_that_brings_them_naming_their_events_by_id():
    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.ops import Concurrently

    def op(name):
        return LocalIterator(lambda timeout: (f"{name}{i}" for i in range(100)), name=name).named(name)

    with rlviz.record() as live:
        encoder = LiveEncoder(live.store)
        plan = iter(Concurrently([op("Store"), op("Train")], round_robin_weights=[2, 1]))
        for _ in range(6):
            next(plan)
        live.pull()
        chunk = encoder.next_chunk()
    columns = decode_payload(chunk)
    nodes = chunk.meta["structure"]["nodes"]
    events = columns["decision_event"].astype(np.int64) - chunk.meta["first_id"]
    ops = [nodes[int(columns["node"][e])]["op"] for e in events]
    assert sorted(ops) == ["Store"] * 4 + ["Train"] * 2
    (union,) = set(columns["decision_union"].tolist())
    assert nodes[union]["op"] == "Concurrently" and nodes[union]["union"]["children"] == ["Store", "Train"]
    assert nodes[union]["union"]["weights"] == [2, 1]
    assert sorted(columns["decision_round"].tolist()) == [1, 1, 1, 2, 2, 2]


def test_notes_come_when_they_change_at_most_every_notes_s_and_alone_when_nothing_else_is_new(monkeypatch):
    from types import SimpleNamespace

    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY
    from rlviz.ops import Concurrently
    from rlviz.trace.analysis import order_notes
    from rlviz.viz import explorer_stream

    clock, worked_out = [100.0], []
    monkeypatch.setattr(explorer_stream, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(explorer_stream, "order_notes", lambda trace: worked_out.append(1) or order_notes(trace))

    def op(name, not_ready_first=0):
        def items(timeout):
            yield from [NOT_READY] * not_ready_first
            yield from (f"{name}{i}" for i in range(10_000))
        return LocalIterator(items, name=name).named(name)

    plan = iter(Concurrently([op("Store"), op("Train", not_ready_first=60)], round_robin_weights=[1, 1]))
    with rlviz.record() as trace:
        encoder = LiveEncoder(trace.store)
        for _ in range(10):
            next(plan)
        trace.pull()
        first = encoder.next_chunk()
        notes = first.meta["notes"]
        assert notes == order_notes(trace.snapshot()) and any(note.startswith("Train was not ready") for note in notes)
        for _ in range(10):
            next(plan)
        trace.pull()
        clock[0] += explorer_stream.NOTES_S / 2
        second = encoder.next_chunk()
        assert second.meta["count"] > 0 and "notes" not in second.meta and len(worked_out) == 1   # not yet due
        clock[0] += explorer_stream.NOTES_S
        third = encoder.next_chunk()                   # nothing new but the notes: a chunk of no events brings them
        assert third.meta["count"] == 0 and third.meta["seq"] == 2
        assert third.meta["notes"] == order_notes(trace.snapshot()) != notes
        assert encoder.next_chunk() is None and encoder.next_chunk(notes_now=True) is None
        assert len(worked_out) == 2, "worked out again only when decisions arrived"
        assert first.meta["stream"] == third.meta["stream"] == encoder.start()["stream"] != LiveEncoder(trace.store).stream


def test_live_notes_name_the_cause_the_gauges_give_as_the_saved_notes_do():
    """A live page's notes are worked out from the decided events *and* the gauges, so a not-ready op's cause
    (Replay's rows against ``learning_starts``) reaches the live page as it reaches the saved one."""
    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY
    from rlviz.ops import Concurrently
    from rlviz.trace.analysis import order_notes
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
        encoder = LiveEncoder(trace.store)
        for _ in range(30):
            next(plan)
        trace.pull()
        live = encoder.next_chunk(notes_now=True).meta["notes"]
    saved = order_notes(trace.snapshot())
    assert live == saved
    assert any(note.startswith("Replay was not ready") and "learning_starts needs" in note for note in live), live


def test_notes_are_spaced_by_what_working_them_out_costs(monkeypatch):
    """Notes cost in proportion to the decisions held, so a long run spaces them out: at most 1/NOTES_COST_SHARE of a core."""
    from types import SimpleNamespace

    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.ops import Concurrently
    from rlviz.viz import explorer_stream

    clock = [100.0]
    monkeypatch.setattr(explorer_stream, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    def slow_notes(trace):                              # working the notes out takes 0.2 s of the clock
        clock[0] += 0.2
        return [f"{len(trace.decisions)} decisions"]
    monkeypatch.setattr(explorer_stream, "order_notes", slow_notes)

    plan = iter(Concurrently([LocalIterator(lambda timeout: iter(range(10_000)), name=name).named(name)
                              for name in ("A", "B")], round_robin_weights=[1, 1]))
    with rlviz.record() as trace:
        encoder = LiveEncoder(trace.store)
        next(plan)
        trace.pull()
        assert "notes" in encoder.next_chunk().meta
        assert encoder.notes_every == pytest.approx(explorer_stream.NOTES_COST_SHARE * 0.2)   # 10 s, not NOTES_S
        next(plan)
        trace.pull()
        clock[0] += explorer_stream.NOTES_S
        assert "notes" not in encoder.next_chunk().meta, "due only notes_every after the last working-out"
        clock[0] += encoder.notes_every
        next(plan)
        trace.pull()
        assert "notes" in encoder.next_chunk().meta
