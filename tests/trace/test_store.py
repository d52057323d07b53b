"""The growing store: increments from several recorders, stable ids, late arrivals, frozen views, two threads."""
import threading
import time

import numpy as np
import pytest

from rlviz.trace import Node, Recorder
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.rows import CHUNK_EVENTS, ITEM
from rlviz.trace.store import TraceStore, merge_exports


def _node(recorder, name="n1", parents=()):
    return recorder.register(Node(f"{name}@{recorder.where}", "for_each", f"{name}.for_each()", recorder.where,
                                  tuple(f"{p}@{recorder.where}" for p in parents)))


def _fill(recorder, first, n, node=None, text=False):
    node = _node(recorder) if node is None else node
    return [recorder.record(node, i, i + 1, ITEM, f"t{i}" if text else i) for i in range(first, first + n)]


class _Reader:
    """What a live view does: feed the store by cursor, then read everything since the last answer."""

    def __init__(self, store):
        self.store, self.cursors, self.next_id, self.next_input = store, {}, 0, 0
        self.items, self.ids, self.inputs = [], [], []

    def feed(self, recorder, offset_ns=0):
        increment = recorder.export_since(self.cursors.get(recorder.tag, _first_cursor()))
        self.store.add_increment(increment, offset_ns)
        self.cursors[recorder.tag] = increment["cursor"]

    def read(self):
        appended = self.store.since(self.next_id, self.next_input)
        self.ids.extend(range(appended.first_id, appended.next_id))
        self.items.extend(appended.columns["item_num"].tolist())
        self.inputs.extend(zip(appended.input_owner.tolist(), appended.input_id.tolist()))
        self.next_id, self.next_input = appended.next_id, appended.next_input
        return appended


def _first_cursor():
    from rlviz.trace.recorder import ExportCursor
    return ExportCursor()


def test_refreshes_lose_and_duplicate_nothing_across_hand_overs():
    recorder, reader = Recorder(), _Reader(TraceStore())
    for first in range(0, 5_000, 333):                  # open chunks re-sent many times, several hand-overs
        _fill(recorder, first, min(333, 5_000 - first))
        reader.feed(recorder)
        reader.read()
    assert reader.items == list(range(5_000))
    assert reader.ids == list(range(5_000))
    assert len(reader.store) == 5_000
    assert [e.item for e in reader.store.view().events] == [f"int {i}" for i in range(5_000)]


def test_an_events_id_never_changes_while_more_arrive():
    recorder, store = Recorder(), TraceStore()
    reader = _Reader(store)
    _fill(recorder, 100, 10)
    reader.feed(recorder)
    before = store.view()
    by_item = dict(zip((e.item for e in before.events), before.event_ids.tolist()))
    _fill(recorder, 0, 50)                              # these start earlier: they sort before, ids after
    reader.feed(recorder)
    after = store.view()
    again = dict(zip((e.item for e in after.events), after.event_ids.tolist()))
    assert all(again[item] == event_id for item, event_id in by_item.items())
    assert after.events[0].item == "int 0" and after.event_ids[0] == 10


def test_late_increments_from_another_process_land_before_the_tail_already_shown():
    driver, actor = Recorder(), Recorder(where="shard-0")
    reader = _Reader(TraceStore())
    _fill(driver, 1_000, 20)
    reader.feed(driver)
    shown = reader.read()
    _fill(actor, 500, 20)                               # recorded earlier, pulled later
    _fill(driver, 1_020, 5)
    reader.feed(driver)
    reader.feed(actor)
    late = reader.read()
    assert len(shown) == 20 and len(late) == 25
    assert late.first_id == shown.next_id
    trace = reader.store.view()
    assert [e.start_ns for e in trace.events] == sorted(e.start_ns for e in trace.events)
    assert trace.events[0].where == "shard-0" and trace.events[-1].where == "driver"
    assert sorted(reader.ids) == list(range(45)) and len(set(reader.ids)) == 45


def test_increments_taken_out_of_order_across_processes_give_one_consistent_trace():
    recorders = [Recorder(where=f"shard-{k}") for k in range(3)]
    for k, recorder in enumerate(recorders):
        _fill(recorder, k * 10_000, 3_000, text=k == 1)
    store = TraceStore()
    cursors = {}
    rng = np.random.default_rng(0)
    for _ in range(12):
        recorder = recorders[int(rng.integers(3))]
        increment = recorder.export_since(cursors.get(recorder.tag, _first_cursor()))
        store.add_increment(increment)
        cursors[recorder.tag] = increment["cursor"]
    for recorder in recorders:
        increment = recorder.export_since(cursors.get(recorder.tag, _first_cursor()))
        store.add_increment(increment)
    expected = merge_exports([r.export() for r in recorders])
    assert [e.item for e in store.view().events] == [e.item for e in expected.events]


def test_inputs_link_by_id_even_when_continuation_rows_arrive_after_their_event():
    recorder = Recorder()
    a = _node(recorder, "a")
    b = _node(recorder, "b", parents=("a",))
    ids = _fill(recorder, 0, 12, node=a)
    reader = _Reader(TraceStore())
    recorder.record(b, 20, 30, ITEM, "batch", tuple(ids))
    rows = recorder._thread.writers[b].rows
    cut = bytes(rows[:2 * 40])                          # header and event row, not yet its continuation rows
    del rows[2 * 40:]
    reader.feed(recorder)
    first = reader.read()
    rows += _continuations(ids[1:])
    reader.feed(recorder)
    second = reader.read()
    assert cut and len(second) == 0 and len(second.input_owner) == 11
    b_index = [node.op_id for node in first.nodes].index("b@driver")
    consumer = first.first_id + int(np.flatnonzero(first.columns["node"] == b_index)[0])
    assert [value for owner, value in reader.inputs if owner == consumer] == ids
    trace = reader.store.view()
    batch = next(e for e in trace.events if e.op_id == "b@driver")
    assert batch.inputs == tuple(ids)
    producers, consumers = trace.links()
    assert len(producers) == 12 and set(consumers.tolist()) == {trace.events.index(batch)}


def _continuations(values):
    from rlviz.trace.rows import append_continuations
    out = bytearray()
    append_continuations(out, values)
    return bytes(out)


def test_a_worker_restart_keeps_the_dead_workers_events_and_adds_the_new_ones():
    old, new = Recorder(where="RolloutWorker-1"), Recorder(where="RolloutWorker-1")
    store, mirror = TraceStore(), RecorderMirror()
    _fill(old, 0, 1_500)
    mirror.update(old.export_since(mirror.cursor))
    store.add_export(mirror.export())
    _fill(old, 1_500, 100)                              # recorded after the last pull: lost with the worker
    del old
    store.add_export(mirror.export())                   # the dead worker's mirror, as the collector keeps it
    _fill(new, 2_000, 700)
    fresh = RecorderMirror()
    for _ in range(2):
        fresh.update(new.export_since(fresh.cursor))
        store.add_export(fresh.export())
        store.add_export(mirror.export())
    items = [e.item for e in store.view().events]
    assert items == [f"int {i}" for i in [*range(1_500), *range(2_000, 2_700)]]
    assert len(store) == 2_200


def test_a_mirrors_parts_feed_the_store_as_its_joined_export_does_and_a_repeat_adds_nothing():
    recorder, mirror = Recorder(where="RolloutWorker-1"), RecorderMirror()
    joined, parted = TraceStore(), TraceStore()
    for first in range(0, 5_000, 1_250):                # chunks handed over, open chunks growing
        _fill(recorder, first, 1_250, text=first == 0)
        mirror.update(recorder.export_since(mirror.cursor))
        joined.add_export(mirror.export())
        assert parted.add_export(mirror.export_parts()) == 1_250
        assert parted.add_export(mirror.export_parts()) == 0
    assert [e.item for e in parted.view().events] == [e.item for e in joined.view().events]
    assert len(parted) == 5_000 and parted.view().events[0].item == "str 't0'"


def test_evicted_chunks_leave_the_store_and_count_as_dropped_once():
    recorder, store = Recorder(capacity=4 * CHUNK_EVENTS), TraceStore()
    reader = _Reader(store)
    _fill(recorder, 0, 2 * CHUNK_EVENTS)
    reader.feed(recorder)
    _fill(recorder, 2 * CHUNK_EVENTS, 10 * CHUNK_EVENTS)
    reader.feed(recorder)
    trace = store.view()
    assert len(trace) + trace.dropped == 12 * CHUNK_EVENTS
    assert [e.item for e in trace.events] == [e.item for e in merge_exports([recorder.export()]).events]


def test_a_view_is_frozen_while_the_store_grows():
    recorder, store = Recorder(), TraceStore()
    reader = _Reader(store)
    _fill(recorder, 0, 100)
    reader.feed(recorder)
    view = store.view()
    columns = {name: values.copy() for name, values in view.columns.items()}
    _fill(recorder, 100, 5_000)
    reader.feed(recorder)
    assert len(view) == 100 and all(np.array_equal(view.columns[k], v) for k, v in columns.items())
    assert len(store.view()) == 5_100


def test_a_window_keeps_the_last_seconds_and_ids_stay_consecutive():
    recorder, store = Recorder(), TraceStore(window_ns=1_000)
    reader = _Reader(store)
    for first in range(0, 10_000, 500):
        _fill(recorder, first, 500)
        reader.feed(recorder)
        reader.read()
    trace = store.view()
    assert trace.events[0].start_ns >= 10_000 - 1_002 and trace.events[-1].item == "int 9999"
    assert store.first_id > 0 and store.next_id == 10_000
    assert trace.event_ids.tolist() == list(range(store.first_id, 10_000))
    assert reader.ids == list(range(10_000))


def test_since_refuses_ids_it_never_gave():
    store = TraceStore()
    with pytest.raises(ValueError, match="event_id=5"):
        store.since(5)
    with pytest.raises(ValueError, match="input_from=3"):
        store.since(0, 3)


def test_two_threads_recording_into_one_node_lose_nothing():
    recorder = Recorder()
    node = _node(recorder)
    per_thread = 20_000
    barrier = threading.Barrier(2)
    results = {}

    def work(k):
        barrier.wait()
        results[k] = [recorder.record(node, k * per_thread + i, k * per_thread + i + 1, ITEM, f"s{k}-{i % 50}")
                      for i in range(per_thread)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    del threads
    all_ids = results[0] + results[1]
    assert len(set(all_ids)) == 2 * per_thread
    trace = merge_exports([recorder.export()])
    assert len(trace) == 2 * per_thread
    by_start = {e.start_ns: e for e in trace.events}
    for k in range(2):
        for i in (0, 1, per_thread - 1):
            assert by_start[k * per_thread + i].item == f"str 's{k}-{i % 50}'"
    assert sorted(e.item_id for e in trace.events) == sorted(all_ids)


def test_a_reader_thread_and_a_recording_thread_see_every_event_once():
    recorder, store = Recorder(), TraceStore()
    reader = _Reader(store)
    node = _node(recorder)
    done = threading.Event()

    def produce():
        for i in range(30_000):
            recorder.record(node, i, i + 1, ITEM, i)
        done.set()

    thread = threading.Thread(target=produce)
    thread.start()
    while not done.is_set():
        reader.feed(recorder)
        reader.read()
    thread.join(timeout=60)
    del thread
    import gc
    gc.collect()                                        # the finished thread's writer hands its rows over
    reader.feed(recorder)
    reader.read()
    assert reader.items == list(range(30_000))


def test_producers_name_the_store_ids_of_the_events_that_made_each_value():
    recorder, store = Recorder(), TraceStore()
    reader = _Reader(store)
    a = _node(recorder, "a")
    ids = _fill(recorder, 0, 3_000, node=a)
    reader.feed(recorder)
    found = store.producers(np.array([ids[0], ids[1_500], ids[-1], 12345]))
    assert found.tolist() == [0, 1_500, 2_999, -1]


def test_evictions_from_interleaved_processes_and_nodes_leave_what_a_fresh_merge_holds():
    # each recorder's oldest chunks leave, but chunks of other nodes and processes sit between them, so the rows
    # that leave are never a prefix of the store's rows; links must follow their events
    # (a's events each carry a decision, which must leave with them too)
    recorders = [Recorder(capacity=3 * CHUNK_EVENTS, where=f"shard-{k}") for k in range(2)]
    nodes = [(_node(r, "a"), _node(r, "b", parents=("a",))) for r in recorders]
    writers = [r.writer(a) for r, (a, _) in zip(recorders, nodes)]
    reader = _Reader(TraceStore())
    store = reader.store
    rng = np.random.default_rng(3)
    time = 0
    for _ in range(60):
        k = int(rng.integers(0, 2))
        a, b = nodes[k]
        for _ in range(int(rng.integers(1, CHUNK_EVENTS // 2))):
            value = writers[k].record(time, time + 1, ITEM, time)
            writers[k].decide(b, time, 0, 1, 1, 0)
            recorders[k].record(b, time + 1, time + 2, ITEM, -time, value)
            time += 2
        reader.feed(recorders[k])
    trace = store.view()
    assert trace.dropped > 0
    fresh = merge_exports([r.export() for r in recorders])
    assert [(e.op_id, e.item, e.inputs) for e in trace.events] == [(e.op_id, e.item, e.inputs) for e in fresh.events]
    assert len(store.since().input_owner) == sum(len(e.inputs) for e in trace.events)
    assert sorted(trace.decisions.columns["round"].tolist()) == sorted(fresh.decisions.columns["round"].tolist())
    assert len(store.since().decisions["event"]) == len(fresh.decisions) > 0


def test_after_a_window_cut_an_eviction_lets_go_of_readings_older_than_every_event_that_stays():
    # chunk b's first event leaves through the window; its second, started after the reading, stays; an eviction of
    # chunk a then lets go of the reading: b's earliest start was found again when the window cut it
    recorder, reader = Recorder(capacity=2 * CHUNK_EVENTS), _Reader(TraceStore(window_ns=5 * 10**9))
    recorder.enabled = True
    a, b = _node(recorder, "a"), _node(recorder, "b")
    now = time.time_ns()
    recorder.record(b, now - 10 * 10**9, now - 10 * 10**9 + 1_000, ITEM, 0)
    recorder.gauge("reading", 1.0)
    recorder.record(b, now + 10**9, now + 10**9 + 1_000, ITEM, 1)
    reader.feed(recorder)
    assert len(reader.store) == 1 and reader.store.view().gauges["reading"].value.tolist() == [1.0]
    for first in range(0, 4 * CHUNK_EVENTS, 500):
        for i in range(first, first + 500):
            recorder.record(a, now + 2 * 10**9 + i * 1_000, now + 2 * 10**9 + i * 1_000 + 500, ITEM, i)
        reader.feed(recorder)
    trace = reader.store.view()
    assert trace.dropped > 0 and "b@driver" in {e.op_id for e in trace.events}
    assert "reading" not in trace.gauges
