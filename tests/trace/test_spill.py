"""record(spill=path): evicted events, their decisions and gauge readings go to a trace file (an Arrow stream), the held rest at the block's end; read back lazily as the whole run; bad files fail clearly, cut ones load their whole part with a warning."""
import json
import struct
import time

import numpy as np
import pyarrow as pa
import pytest

from rlviz.trace import Node, Trace, TraceFormatError, get_recorder, record
from rlviz.trace.event import OUTCOMES
from rlviz.trace.rows import ITEM
from rlviz.trace.legacy import MAGIC
from rlviz.trace.spill import LazyColumns, SpillWriter


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
    """The evicted events go to the file as they leave, the held rest at the block's exit: the file is the run."""
    path = tmp_path / "run.rlviz"
    trace = _run(recorder, path)
    back = Trace.load(path)
    assert isinstance(back.columns, LazyColumns) and back.columns.events == trace.dropped + len(trace)
    assert trace.dropped > 0 and len(trace) > 0 and back.dropped == 0
    assert back.columns["item_num"].tolist() == list(range(12_000))  # nothing lost, nothing twice, in order
    assert np.array_equal(back.columns["start_ns"][-len(trace):], trace.columns["start_ns"])
    producers, consumers = back.links()
    assert len(producers) == len(back) - 1                            # the chain's links, across segments
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


def _cut_inside_the_last_events_batch(data: bytes) -> bytes:
    """``data`` (a spill file) cut in the middle of its last events batch with rows, found with pyarrow alone: how
    the spills split the events into batches depends on the clock, so a fixed fraction of the file may fall inside
    the first events batch and leave no event."""
    source = pa.BufferReader(data)
    ranges, at = [], 0
    for message in pa.ipc.MessageReader.open_stream(source):
        if message.type == "record batch":
            ranges.append((at, source.tell()))
        at = source.tell()
    reader = pa.ipc.open_stream(data)
    tables = [reader.read_next_batch_with_custom_metadata() for _ in ranges]
    events = [where for where, (batch, meta) in zip(ranges, tables)
              if meta[b"rlviz.table"] == b"events" and batch.num_rows]
    assert len(events) >= 2, "the run should spill at least once before its block's end"
    start, end = events[-1]
    return data[:(start + end) // 2]


def test_an_old_or_foreign_or_cut_file_fails_naming_the_problem_and_the_fix(recorder, tmp_path):
    newer = tmp_path / "newer.rlviz"
    newer.write_bytes(MAGIC + struct.pack("<I", 5))
    with pytest.raises(TraceFormatError, match="version 5 is not supported.*save it again"):
        Trace.load(newer)
    path = tmp_path / "run.rlviz"
    _run(recorder, path, n=5_000)
    cut = tmp_path / "cut.rlviz"
    cut.write_bytes(_cut_inside_the_last_events_batch(path.read_bytes()))
    with pytest.warns(UserWarning, match="cut.rlviz: this spill file is cut short .* loading its first"):
        part = Trace.load(cut)
    assert 0 < len(part) < 5_000 and part.columns["item_num"].tolist() == list(range(len(part)))
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
    held, in_file = trace.gauges["spill-gauge"].value, back.gauges["spill-gauge"].value
    assert len(held) < 300, f"{len(held)} of 1,200 readings held beside {len(trace)} events"
    assert in_file.tolist() == [float(i) for i in range(0, 12_000, 10)]      # the held ones added at the end
    assert trace.gauges["spill-gauge"].time_ns.min() >= trace.columns["start_ns"].min() - 10**9


def _tables(path) -> list[str]:
    """The table each record batch of a trace file holds, in file order (read with pyarrow alone)."""
    with pa.memory_map(str(path)) as source:
        return [batch.column(0)[0].as_py() for batch in pa.ipc.open_stream(source) if batch.num_rows]


def test_spilled_readings_are_columns_that_round_trip_exactly_and_load_only_when_asked_for(recorder, tmp_path):
    """Readings leave the store as binary columns (float64 exact, NaN kept, names and lanes of any text), the
    series table added to per segment; loading the file reads none of them until ``gauges`` is used."""
    path, n = tmp_path / "run.rlviz", 8_000
    names, lanes = ['rows "held"', "größe\\n"], ["lane ü", 'worker "2"']
    written = {name: [] for name in names}
    with record(capacity=2048, spill=path, collect_every_s=0.05) as trace:
        node = recorder.register(Node("spill-test", "for_each", "x.for_each()"))
        for i in range(n):
            now = time.time_ns()
            recorder.record(node, now, now + 100, ITEM, i)
            if i % 5 == 0:
                name, lane, value = names[i % 2], lanes[(i // 10) % 2], float("nan") if i % 35 == 0 else i + 0.1
                recorder.gauge(name, value, where=lane)
                written[name].append((lane, value))
            if i % 500 == 0:
                trace.pull()
    assert _tables(path).count("readings") > 2
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_stream(source).read_all()
    assert table.column("table").to_pylist().count("readings") == n // 5
    series = table.filter(pa.compute.equal(table.column("table"), "series")).select(["series_name", "series_where"])
    assert series.num_rows == len(set(zip(*series.to_pydict().values()))) == 4
    assert set(series.column("series_name").to_pylist()) == set(names)
    back = Trace.load(path)
    gauges = back.gauges
    for name in names:
        expected = np.array([value for _, value in written[name]])
        assert np.array_equal(gauges[name].value, expected, equal_nan=True), name
        assert gauges[name].where.tolist() == [lane for lane, _ in written[name]]
        assert set(gauges[name].pid.tolist()) == {recorder.pid}


def test_a_writer_refuses_readings_as_json_extras(tmp_path):
    trace = Trace.empty()
    with pytest.raises(ValueError, match=r"extras \['gauges'\] are not part of the trace format.*readings="):
        SpillWriter(tmp_path / "t.rlviz").write(trace.columns, [], [], extras={"gauges": {}})


def test_without_a_spill_file_gauge_readings_are_let_go_with_the_events(recorder):
    trace = _run(recorder)
    held = trace.gauges["spill-gauge"].value
    assert 0 < len(held) < 300 and held.max() == 11_990.0, "the newest readings stay, the oldest went"


# -- decisions travel with their events; the file is the whole run ----------------------------------------------
def _source(name, not_ready_every=0):
    """An op yielding items forever; every ``not_ready_every``-th poll it is not ready (recording replay gauges
    during that call, so its why has a cause)."""
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY
    from rlviz.trace.gauges import LEARNING_STARTS, REPLAY_ADDED

    def items(timeout):
        i = 0
        while True:
            if not_ready_every and i % not_ready_every == not_ready_every - 1:
                get_recorder().gauge(LEARNING_STARTS, 1000)
                get_recorder().gauge(REPLAY_ADDED, i)
                yield NOT_READY
            yield f"{name}{i}"
            i += 1
    return LocalIterator(items, name=name).named(name)


def _union_run(path=None, capacity=None, n=4_000):
    """A ``Concurrently`` of three ops (weights 2, 1, "*"; two of them not ready now and then) and a step after
    it, ``n`` items pulled with a pull of the store every 50: deterministic in everything but its times."""
    from rlviz.ops import Concurrently

    plan = Concurrently([_source("Store"), _source("Train", 3), _source("Log", 4)],
                        round_robin_weights=[2, 1, "*"]).for_each(lambda item: item)
    with record(capacity=capacity, spill=path, collect_every_s=0.05) as trace:
        it = iter(plan)
        for i in range(n):
            next(it)
            if i % 50 == 0:
                trace.pull()
    return trace


def _shape(trace):
    """What two runs of ``_union_run`` share, times aside: per event its op, lane, outcome, item and why; the
    links by event index; the decisions' records (times aside); the gauges' values by name and lane."""
    events = [(e.op, e.where, e.outcome, e.item, e.why) for e in trace.events]
    producers, consumers = trace.links()
    links = sorted(zip(producers.tolist(), consumers.tolist()))
    d = trace.decisions
    timeless = [{k: v for k, v in d.record(row).items() if k not in ("start_ns", "end_ns")} for row in range(len(d))]
    gauges = {name: (g.value.tolist(), g.where.tolist()) for name, g in trace.gauges.items()}
    specs = [{k: v for k, v in spec.items() if k not in ("op_id", "child_ids")} for spec in d.specs]  # ids: per plan
    return events, links, timeless, specs, gauges


def test_a_spilled_union_run_loads_as_the_whole_run_with_its_decisions(recorder, tmp_path):
    """The file holds every event, link, decision and gauge reading of the block, as a run without eviction has
    them: the decisions evicted mid-run went to the file with their events, and the held rest was added at exit."""
    from rlviz.trace.analysis import order_notes
    from rlviz.trace.spill import read_binary_trace

    path = tmp_path / "run.rlviz"
    spilled = _union_run(path, capacity=4096)
    whole = _union_run()
    assert spilled.dropped > 0 and whole.dropped == 0 and len(whole) > 3 * 4096
    back = Trace.load(path)
    assert back.columns.loaded == [] and back.dropped == 0 and back.gaps == ()
    assert _tables(path).count("decision_rows") > 2, "decisions were written with evicted events, not only at the end"
    assert len(back) == len(whole) == spilled.dropped + len(spilled)
    assert len(back.decisions) == len(whole.decisions) > 1000
    assert _shape(back) == _shape(whole)
    assert any("not ready" in (e.why or "") and "replay buffer has" in e.why for e in back.events)
    assert (back.decisions.columns["union_event"] >= 0).sum() == (whole.decisions.columns["union_event"] >= 0).sum()
    assert order_notes(back) == order_notes(whole) != []
    copy = tmp_path / "copy.rlviz"                # saved whole, the decisions go as one table
    back.save(copy)
    assert "decision_rows" not in read_binary_trace(copy)["extras"]
    assert _shape(Trace.load(copy)) == _shape(whole)
    assert len(spilled.decisions) < len(whole.decisions), "the trace in memory is still the block's, bounded"


def _batch_ends(path):
    """The byte at which each record batch of a trace file ends."""
    source = pa.BufferReader(path.read_bytes())
    reader, ends = pa.ipc.MessageReader.open_stream(source), []
    for message in reader:
        if message.type == "record batch":
            ends.append(source.tell())
    return ends


def test_a_spill_file_cut_before_its_last_segment_names_only_events_it_has(recorder, tmp_path):
    """A run killed before its block's exit leaves the evicted segments: their decisions load, each tied to its
    child's call in the file; a union's call that never reached the file is -1."""
    path = tmp_path / "run.rlviz"
    _union_run(path, capacity=4096, n=3_000)
    whole = Trace.load(path).decisions.columns
    item = OUTCOMES.index("item")
    assert (whole["union_event"][whole["outcome"] == item] >= 0).all(), \
        "in the whole file every item a child gave has the union's call that passed it on"
    missing = 0
    for number, end in enumerate(_batch_ends(path)[:-1]):            # as if killed after each batch written
        cut = tmp_path / f"cut{number}.rlviz"
        cut.write_bytes(path.read_bytes()[:end])
        with pytest.warns(UserWarning, match="cut short"):
            back = Trace.load(cut)
        c, node = back.decisions.columns, np.asarray(back.columns["node"])
        assert np.all((c["event"] >= 0) & (c["event"] < len(back)))
        assert {back.nodes[i].op for i in node[c["event"]].tolist()} <= {"Store", "Train", "Log"}
        assert {back.nodes[i].op for i in node[c["union_event"][c["union_event"] >= 0]].tolist()} <= {"Concurrently"}
        missing += int((c["union_event"][c["outcome"] == item] < 0).sum())
    assert missing > 0, "some items' union calls were still held when the file was cut"


_ROWS = {"event": [1], "union": [1], "round": [1], "child": [0], "pull": [1], "allowed": [1], "flags": [0]}


@pytest.mark.parametrize("extras, match", [
    ({"decision_rows": {**_ROWS, "event": [2]}}, "a decision row names event 2, outside the file's 2 events"),
    ({"decision_rows": {**_ROWS, "union": [-1]}}, "names union -1, outside the file's 2 nodes"),
])
def test_a_decision_row_outside_the_file_fails_at_load_naming_it(tmp_path, extras, match):
    trace = _two_node_trace()
    path = tmp_path / "bad.rlviz"
    _write_closed(path, trace, extras)
    with pytest.raises(TraceFormatError, match=match) as info:
        Trace.load(path)
    assert "bad.rlviz" in str(info.value)
    good = tmp_path / "good.rlviz"                # the same rows, whole, load and explain the union's child call
    _write_closed(good, trace, {"decision_rows": {**_ROWS, "event": [0]}})
    assert Trace.load(good).why(0) == "round 1: a, pull 1 of 1"


@pytest.mark.parametrize("extras, match", [
    ({"decision_rows": {"event": [0]}}, r"table 'decision_rows' needs columns \['row_event', 'row_union'"),
    ({"decision_rows": {**_ROWS, "round": [1, 2]}}, "the columns differ in length"),
    ({"decision_rows": {**_ROWS, "pull": [2**70]}}, "too large"),
    ({"decision_rows": _ROWS, "decisions": {"specs": [], "columns": {}}}, "decisions or a spill's decision_rows, not"),
])
def test_a_writer_refuses_decision_rows_that_do_not_fit_their_table_and_writes_nothing(tmp_path, extras, match):
    path = tmp_path / "bad.rlviz"
    writer = SpillWriter(path)
    size = path.stat().st_size
    with pytest.raises((ValueError, OverflowError), match=match):
        writer.write(*_two_node_trace_parts(), 0, extras)
    assert path.stat().st_size == size


def _two_node_trace():
    nodes = [Node("a", "a", "LocalIterator[a]"), Node("u", "union", "LocalIterator[union]", parents=("a",))]
    records = [{"op": n.op, "label": n.label, "op_id": n.op_id, "where": "driver", "pid": 1, "start_ns": i,
                "end_ns": i + 1, "outcome": "item"} for i, n in enumerate(nodes)]
    return Trace.from_records(records, nodes)


def _two_node_trace_parts():
    trace = _two_node_trace()
    return trace.columns, trace.nodes, trace.texts


def _write_closed(path, trace, extras):
    writer = SpillWriter(path)
    writer.write(trace.columns, trace.nodes, trace.texts, 0, extras)
    writer.close()


def test_a_store_finishes_its_spill_once_and_then_writes_nothing_more(tmp_path):
    from rlviz.trace.store import TraceStore

    store = TraceStore(spill=SpillWriter(tmp_path / "run.rlviz"))
    store.spill_rest()
    assert store.spill is None and len(Trace.load(tmp_path / "run.rlviz")) == 0
    with pytest.raises(ValueError, match="no spill file to finish.*called already"):
        store.spill_rest()
