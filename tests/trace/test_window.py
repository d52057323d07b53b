"""A record() window keeps memory flat: the recorder and the mirrors behind the store let go of what left it."""
import time

import pytest

import rlviz
from rlviz.trace import Node, Recorder, get_recorder
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import CHUNK_EVENTS, ITEM
from rlviz.trace.store import merge_exports

_MS = 1_000_000


@pytest.fixture
def recorder():
    """The process's recorder, cleared before the test (the open chunks of earlier tests' writers would
    count in ``held``) and after it (its events are stamped up to a minute ahead)."""
    get_recorder().clear()
    yield get_recorder()
    get_recorder().clear()


def _fill(recorder, first, n, base_ns=0, step_ns=1):
    """``n`` items ``first..first+n-1``, item i running from ``base_ns + i*step_ns`` for one step."""
    node = recorder.register(Node("window-test", "for_each", "x.for_each()"))
    for i in range(first, first + n):
        recorder.record(node, base_ns + i * step_ns, base_ns + (i + 1) * step_ns, ITEM, i)


def test_a_recorder_forgets_only_handed_over_chunks_that_ended_before_the_cut():
    recorder = Recorder()
    _fill(recorder, 0, 5 * CHUNK_EVENTS)                 # item i ends at i + 1
    held = recorder.held
    cut = 2 * CHUNK_EVENTS + 1
    assert recorder.forget_ended_before(cut) >= 1
    items = [int(e.item.split()[1]) for e in merge_exports([recorder.export()]).events]
    first = items[0]
    assert 0 < first <= cut - 1 and items == list(range(first, 5 * CHUNK_EVENTS))   # everything ending at cut on stays
    assert recorder.held == held - first and recorder.dropped == 0                   # forgetting is not dropping
    handed_over = recorder.export_since(ExportCursor())["cursor"].chunks
    recorder.forget_ended_before(10**12)
    assert recorder.held > 0                                                         # the open chunk stays
    assert recorder.export_since(ExportCursor())["held_from"] == handed_over


def test_a_mirror_forgets_in_the_recorders_clock_and_goes_on_taking_increments():
    recorder, mirror = Recorder(), RecorderMirror()
    _fill(recorder, 0, 4 * CHUNK_EVENTS)
    mirror.update(recorder.export_since(mirror.cursor))
    assert mirror.forget_ended_before(CHUNK_EVENTS + 1) >= 1
    _fill(recorder, 4 * CHUNK_EVENTS, CHUNK_EVENTS)
    mirror.update(recorder.export_since(mirror.cursor))
    items = [int(e.item.split()[1]) for e in merge_exports([mirror.export()]).events]
    assert 0 < items[0] <= CHUNK_EVENTS and items == list(range(items[0], 5 * CHUNK_EVENTS))


def test_a_windowed_block_holds_about_the_window_however_long_it_runs(recorder):
    with rlviz.record(window_s=0.05) as trace:
        base = time.time_ns()
        held = []
        for first in range(0, 40 * CHUNK_EVENTS, CHUNK_EVENTS):      # 1 ms per event: 41 s of events
            _fill(recorder, first, CHUNK_EVENTS, base_ns=base, step_ns=_MS)
            trace.pull()
            held.append(recorder.held)
        assert max(held[5:]) <= 3 * CHUNK_EVENTS, held                # 50 events in the window, up to 3 chunks
        assert trace.store.dropped == 0
    items = [e.item for e in trace.events]
    assert items[-1] == f"int {40 * CHUNK_EVENTS - 1}" and 50 <= len(items) <= 52


def test_an_inner_block_keeps_the_buffers_whole_while_it_runs(recorder):
    with rlviz.record(window_s=0.05) as outer:
        with rlviz.record() as inner:
            base = time.time_ns()
            _fill(recorder, 0, 10 * CHUNK_EVENTS, base_ns=base, step_ns=_MS)
            outer.pull()
            assert len(inner) == 10 * CHUNK_EVENTS
        assert len(outer) <= 52
