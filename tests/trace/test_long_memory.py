"""A long run's memory: the store's arrays stay narrow, and the buffers behind it keep no second copy."""
import time

import numpy as np
import pytest

from rlviz.trace import Node, Recorder, get_recorder, record
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM, NOT_READY
from rlviz.trace.store import TraceStore

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
