"""record(spill=path): what the buffers evict goes to a binary trace file, read back lazily; bad files fail clearly."""
import json
import struct
import time

import numpy as np
import pytest

from rlviz.trace import Node, Trace, TraceFormatError, get_recorder, record
from rlviz.trace.rows import ITEM
from rlviz.trace.spill import MAGIC, LazyColumns, SpillWriter


@pytest.fixture
def recorder():
    get_recorder().clear()
    yield get_recorder()
    get_recorder().clear()


def _run(recorder, path=None, n=12_000):
    """``n`` chained items through one node at the real clock, a gauge reading every 10, with capacity for about
    two chunks, spilling to ``path`` if given."""
    with record(capacity=2048, spill=path, collect_every_s=0.05) as trace:
        node = recorder.register(Node("spill-test", "for_each", "x.for_each()"))
        previous = None
        for i in range(n):
            now = time.time_ns()
            previous = recorder.record(node, now, now + 100, ITEM, i,
                                       inputs=previous if previous is not None and previous >= 0 else None)
            if i % 10 == 0:
                recorder.gauge("spill-gauge", float(i))
            if i % 500 == 0:
                trace.pull()
    return trace


def test_evicted_events_go_to_the_spill_file_and_load_back_lazily(recorder, tmp_path):
    path = tmp_path / "run.rlviz"
    trace = _run(recorder, path)
    back = Trace.load(path)
    assert isinstance(back.columns, LazyColumns) and back.columns.events == trace.dropped > 0
    items = np.concatenate([trace.columns["item_num"], back.columns["item_num"]])
    assert sorted(items.tolist()) == list(range(12_000))              # nothing lost, nothing twice
    assert np.all(np.diff(back.columns["start_ns"]) >= 0)
    producers, consumers = back.links()
    assert len(producers) == len(back) - 1                            # the chain's links inside the file
    assert back.events[0].op_id == "spill-test" and back.events[0].item == "int 0"


def test_loading_reads_only_the_headers_until_a_column_is_asked_for(recorder, tmp_path):
    path = tmp_path / "run.rlviz"
    _run(recorder, path, n=5_000)
    back = Trace.load(path)
    assert back.columns.loaded == []                  # nothing read yet
    assert len(back) == back.columns.events
    assert back.columns.loaded == ["node"]           # the length read one column


def test_a_spill_never_overwrites_and_needs_an_existing_folder(tmp_path):
    (tmp_path / "taken.rlviz").write_text("x")
    with pytest.raises(FileExistsError, match="never overwrites"):
        with record(spill=tmp_path / "taken.rlviz"):
            pass
    with pytest.raises(FileNotFoundError, match="does not exist"):
        SpillWriter(tmp_path / "missing" / "run.rlviz")


def test_an_old_or_foreign_or_cut_file_fails_naming_the_problem_and_the_fix(recorder, tmp_path):
    newer = tmp_path / "newer.rlviz"
    newer.write_bytes(MAGIC + struct.pack("<I", 4))
    with pytest.raises(TraceFormatError, match="version 4 is not supported.*save it again"):
        Trace.load(newer)
    path = tmp_path / "run.rlviz"
    _run(recorder, path, n=5_000)
    cut = tmp_path / "cut.rlviz"
    cut.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(TraceFormatError, match="cut short"):
        Trace.load(cut)
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"hello": 1}))
    with pytest.raises(TraceFormatError, match="not an rlviz trace"):
        Trace.load(foreign)
    garbled = tmp_path / "garbled.rlviz"
    garbled.write_bytes(MAGIC + struct.pack("<I", 3) + struct.pack("<Q", 4) + b"\xff{x}")
    with pytest.raises(TraceFormatError, match="not JSON"):
        Trace.load(garbled)


def test_gauge_readings_leave_with_the_evicted_events_into_the_spill_file(recorder, tmp_path):
    """Capacity bounds the gauges too: what the store lets go of goes to the spill file, nothing lost or twice."""
    path = tmp_path / "run.rlviz"
    trace = _run(recorder, path)
    back = Trace.load(path)
    held, spilled = trace.gauges["spill-gauge"].value, back.gauges["spill-gauge"].value
    assert len(held) < 300, f"{len(held)} of 1,200 readings held beside {len(trace)} events"
    assert sorted([*held.tolist(), *spilled.tolist()]) == [float(i) for i in range(0, 12_000, 10)]
    assert trace.gauges["spill-gauge"].time_ns.min() >= trace.columns["start_ns"].min() - 10**9


def test_without_a_spill_file_gauge_readings_are_let_go_with_the_events(recorder):
    trace = _run(recorder)
    held = trace.gauges["spill-gauge"].value
    assert 0 < len(held) < 300 and held.max() == 11_990.0, "the newest readings stay, the oldest went"
