"""A long run's memory: the store's arrays stay narrow, and the buffers behind it keep no second copy."""
import time

import numpy as np
import pytest

from rlviz.trace import Node, Recorder, get_recorder, record
from rlviz.trace.items import TextTable, summarize
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM, NOT_READY
from rlviz.trace.store import EVENT_BYTES, TraceStore

#: Bytes per event the store's arrays may take at 100k events: narrow columns, links, pyramid, index.
STORE_BOUND = 48
#: Bytes per event a buffer may keep of events the store took: its stubs only.
STUB_BOUND = 1


@pytest.fixture
def recorder():
    get_recorder().clear()
    yield get_recorder()
    get_recorder().clear()


def _lanes(store, events=100_000, lanes=8, seconds=100):
    """Feed ``events`` from ``lanes`` recorders through mirrors in ten pulls; each value feeds the next one's call."""
    recorders = [Recorder(capacity=1 << 20, where=f"w{k}") for k in range(lanes)]
    nodes = [r.register(Node(f"n{k}", "for_each", f"n{k}", f"w{k}")) for k, r in enumerate(recorders)]
    mirrors = [RecorderMirror() for _ in recorders]
    step = seconds * 10**9 // events
    previous = [None] * lanes
    for part in np.array_split(np.arange(events), 10):
        for i in part.tolist():
            k = i % lanes
            outcome = NOT_READY if i % 30 == 0 else ITEM
            got = recorders[k].record(nodes[k], i * step, i * step + step // 2, outcome,
                                      i if outcome == ITEM else None, inputs=previous[k])
            previous[k] = got if got >= 0 else previous[k]
        for recorder, mirror in zip(recorders, mirrors):
            mirror.update(recorder.export_since(mirror.cursor))
            store.add_export(mirror.export_parts())
            mirror.release_taken(store.taken)
    return mirrors


def test_the_store_holds_100k_events_in_narrow_arrays():
    store = TraceStore()
    _lanes(store)
    assert len(store) == 100_000
    assert store.nbytes / len(store) <= STORE_BOUND, f"{store.nbytes / len(store):.1f} B/event"


def test_mirrors_keep_stubs_of_what_the_store_took_and_the_store_still_reads_them():
    store = TraceStore()
    mirrors = _lanes(store, events=40_000)
    kept = sum(len(b"".join(mirror.export_parts()["parts"][:-1])) for mirror in mirrors)
    assert kept / 40_000 <= STUB_BOUND, f"{kept / 40_000:.1f} B/event kept by the mirrors"
    for mirror in mirrors:                                  # stubs read as the chunks taken: nothing leaves
        store.add_export(mirror.export_parts())
    assert len(store) == 40_000
    # every call consumed its lane's last value, but each lane's first, and lane 0's second (its first was not ready)
    assert len(store.view().links()[0]) == 40_000 - 9


def test_a_record_block_leaves_the_driver_recorder_only_stubs_of_what_it_took(recorder):
    with record() as trace:
        node = recorder.register(Node("memory-test", "for_each", "x.for_each()"))
        start = time.time_ns()
        for i in range(20_000):
            recorder.record(node, start + i, start + i + 1, ITEM, i)
        trace.pull()
        held = len(recorder.export()["data"])
        assert held / 20_000 <= STUB_BOUND + 2, f"{held / 20_000:.1f} B/event"    # + the open chunk
    assert sorted(trace.columns["item_num"].tolist()) == list(range(20_000))


def test_a_released_chunk_still_counts_toward_capacity_and_as_dropped_when_evicted(recorder):
    with record(capacity=4096) as trace:
        node = recorder.register(Node("capacity-test", "for_each", "x.for_each()"))
        start = time.time_ns()
        for i in range(20_000):
            recorder.record(node, start + i, start + i + 1, ITEM, i)
            if i % 1000 == 0:
                trace.pull()
    assert len(trace) + trace.dropped == 20_000
    assert 3000 <= len(trace) <= 4096 + 1024
    assert trace.columns["item_num"].tolist() == list(range(20_000 - len(trace), 20_000))


def test_an_unrelated_store_reads_no_events_from_stubs():
    recorder, mirror = Recorder(), RecorderMirror()
    node = recorder.register(Node("a", "for_each", "a"))
    for i in range(3000):
        recorder.record(node, i, i + 1, ITEM, i)
    mirror.update(recorder.export_since(ExportCursor()))
    first = TraceStore()
    first.add_export(mirror.export_parts())
    assert mirror.release_taken(first.taken) == 2
    other = TraceStore()
    other.add_export(mirror.export())
    assert 0 < len(other) < 3000 - 2000                    # only the open chunk's events: the stubs hold none
    assert other.view().columns["item_num"].tolist() == list(range(3000 - len(other), 3000))


def _evicting(store, events=60_000, small=4096):
    """Two lanes recorded in turn through mirrors: ``a`` evicts past ``small`` events, ``b`` keeps all; each
    event consumes its lane's previous value."""
    recorders = {"a": Recorder(capacity=small, where="a"), "b": Recorder(capacity=1 << 20, where="b")}
    nodes = {k: r.register(Node(f"n{k}", "for_each", f"n{k}", k)) for k, r in recorders.items()}
    mirrors = {k: RecorderMirror() for k in recorders}
    previous = {k: None for k in recorders}
    for part in np.array_split(np.arange(events), 30):
        for i in part.tolist():
            k = "ab"[i % 2]
            previous[k] = recorders[k].record(nodes[k], 10 * i, 10 * i + 5, ITEM, i, inputs=previous[k])
        for k, recorder in recorders.items():
            mirrors[k].update(recorder.export_since(mirrors[k].cursor))
            store.add_export(mirrors[k].export_parts())
            mirrors[k].release_taken(store.taken)
    return recorders


def test_rows_of_evicted_events_leave_the_store_arrays():
    store = TraceStore()
    recorders = _evicting(store)
    held = len(store)
    assert held + recorders["a"].dropped == 60_000 and recorders["a"].dropped > 20_000
    columns = sum(size for name, size in store.memory().items() if name.startswith("column ") or name == "alive")
    # growth room (1/8) and rows of evicted events not yet compacted (1/16), never the 26k rows evicted
    assert columns / held <= EVENT_BYTES * 1.2, f"{columns / held:.1f} B per held event, {EVENT_BYTES} per row"
    assert store.nbytes == sum(store.memory().values())


def test_after_compaction_views_links_producers_and_appends_agree():
    store = TraceStore()
    _evicting(store)
    view = store.view()
    assert len(view) == len(store) and np.all(np.diff(view.event_ids[np.argsort(view.event_ids)]) > 0)
    item_num = view.columns["item_num"]
    assert set(item_num[item_num % 2 == 1].tolist()) == set(range(1, 60_000, 2))      # lane b lost nothing
    producers, consumers = view.links()
    # each held event consumed its lane's previous value; a link is drawn where that producer is held too
    assert np.all(item_num[consumers] - item_num[producers] == 2)
    held_b = int((item_num % 2 == 1).sum())
    assert int((item_num[consumers] % 2 == 1).sum()) == held_b - 1
    ids = store.producers(view.columns["item_id"])
    assert np.array_equal(ids, view.event_ids)
    appended = store.since(0)
    assert appended.first_id > 0 and appended.next_id == store.next_id
    assert len(appended) == appended.next_id - appended.first_id            # consecutive ids, as a page needs
    by_id = np.argsort(view.event_ids)
    later = by_id[view.event_ids[by_id] >= appended.first_id]
    at = view.event_ids[later] - appended.first_id
    assert np.array_equal(appended.columns["item_num"][at], item_num[later])


def test_summary_numbers_too_wide_for_the_column_come_back_whole():
    recorder = Recorder()
    node = recorder.register(Node("wide", "for_each", "wide"))
    values = [1.5, -2.25, 2**40, -(2**31), 2**31 - 1, -(2**31) + 1, [0] * 200, [0] * 3, "text", 7]
    for i, value in enumerate(values):
        recorder.record(node, i, i + 1, ITEM, value)
    store = TraceStore()
    store.add_export(recorder.export())
    got = store.view().columns["item_num"].tolist()
    table = TextTable()
    for text in recorder.texts.texts:
        table.intern(text)
    assert got == [summarize(value, table)[1] for value in values]
