"""A driver-side mirror of a recorder, kept current by increments (no Ray needed)."""
import pytest

from rlviz.trace import Node, Recorder
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.rows import CHUNK_EVENTS, ITEM
from rlviz.trace.store import merge_exports


def _fill(recorder, first, n, text=False):
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    for i in range(first, first + n):
        recorder.record(node, i, i + 1, ITEM, f"text {i}" if text else i)


def _pull(mirror, recorder):
    increment = recorder.export_since(mirror.cursor)
    mirror.update(increment)
    return increment


def _items(export):
    return [e.item for e in merge_exports([export]).events]


def test_a_mirror_fed_increments_holds_what_the_recorder_holds():
    recorder, mirror = Recorder(), RecorderMirror()
    for start in range(0, 5_000, 1_250):                  # crosses several chunk hand-overs
        _fill(recorder, start, 1_250, text=start % 2500 == 0)
        _pull(mirror, recorder)
        assert _items(mirror.export()) == _items(recorder.export())
    assert len(_items(mirror.export())) == 5_000


def test_an_increment_sends_only_chunks_adopted_after_the_cursor():
    recorder, mirror = Recorder(), RecorderMirror()
    _fill(recorder, 0, 3 * CHUNK_EVENTS)
    first = _pull(mirror, recorder)
    _fill(recorder, 3 * CHUNK_EVENTS, 10)                  # only the open chunk changes
    second = _pull(mirror, recorder)
    assert len(first["chunks"]) >= 2 and second["chunks"] == []
    assert second["texts"] == [] and second["texts_from"] == first["cursor"].texts
    assert _items(mirror.export())[-1] == f"int {3 * CHUNK_EVENTS + 9}"


def test_the_open_chunk_is_replaced_not_appended():
    recorder, mirror = Recorder(), RecorderMirror()
    _fill(recorder, 0, 5)
    _pull(mirror, recorder)
    _fill(recorder, 5, 5)
    _pull(mirror, recorder)
    assert _items(mirror.export()) == [f"int {i}" for i in range(10)]


def test_chunks_the_recorder_evicted_leave_the_mirror_and_count_as_dropped():
    recorder, mirror = Recorder(capacity=4 * CHUNK_EVENTS), RecorderMirror()
    _fill(recorder, 0, 2 * CHUNK_EVENTS)
    _pull(mirror, recorder)
    _fill(recorder, 2 * CHUNK_EVENTS, 20 * CHUNK_EVENTS)   # evicts chunks the mirror never saw
    _pull(mirror, recorder)
    export = mirror.export()
    assert _items(export) == _items(recorder.export())
    assert export["dropped"] == recorder.dropped > 0
    assert len(_items(export)) + export["dropped"] == 22 * CHUNK_EVENTS


def test_a_mirror_keeps_its_copy_when_the_recorder_is_gone():
    recorder, mirror = Recorder(), RecorderMirror()
    _fill(recorder, 0, 100, text=True)
    _pull(mirror, recorder)
    del recorder
    assert _items(mirror.export()) == [f"str 'text {i}'" for i in range(100)]


def test_an_increment_from_another_cursor_is_refused():
    recorder, mirror = Recorder(), RecorderMirror()
    _fill(recorder, 0, 10, text=True)
    _pull(mirror, recorder)
    stale = recorder.export_since(type(mirror.cursor)())
    with pytest.raises(ValueError, match="cannot extend a mirror"):
        mirror.update(stale)


def test_an_empty_mirror_says_it_mirrors_nothing():
    with pytest.raises(ValueError, match="no increment yet"):
        RecorderMirror().export()
