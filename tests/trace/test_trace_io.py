"""Traces as data: records, files (the trace format; JSON of version 1 still read; never pickle), Chrome export,
analysis."""
import json
import struct

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import rlviz
from rlviz.ops import Concurrently
from rlviz.trace import Gap, Gauge, Node, Trace, TraceFormatError, get_recorder
from rlviz.trace.recorder import DEFAULT_CAPACITY
from rlviz.trace.io import save_trace
from rlviz.trace.legacy import MAGIC
from rlviz.trace.spill import LazyColumns
from rlviz.trace.store import merge_exports
from rlviz.viz.explorer_stream import encode_trace


def _records():
    return [
        {"op": "from_range", "label": "P.from_range", "op_id": "s@shard-0", "where": "shard-0", "pid": 11,
         "start_ns": 100, "end_ns": 200, "outcome": "item", "item": "int 0", "item_id": 7, "inputs": []},
        {"op": "gather_sync", "label": "P.gather_sync()", "op_id": "g", "where": "driver", "pid": 10,
         "start_ns": 150, "end_ns": 300, "outcome": "item", "item": "int 0", "item_id": 8, "inputs": [7]},
        {"op": "gather_sync", "label": "P.gather_sync()", "op_id": "g", "where": "driver", "pid": 10,
         "start_ns": 310, "end_ns": 400, "outcome": "stop", "item": None, "item_id": None, "inputs": []},
    ]


def test_records_round_trip():
    trace = Trace.from_records(_records())
    assert trace.to_records() == _records()


def _json_v1(trace: Trace) -> dict:
    """``trace`` as the JSON of version 1 (what ``Trace.save`` wrote before the trace format): still read."""
    names = ("node", "pid", "start_ns", "end_ns", "outcome", "item_kind", "item_num", "item_id", "input_offsets",
             "input_ids")
    document = {"format": "rlviz-trace", "version": 1, "dropped": trace.dropped,
                "nodes": [node.to_dict() for node in trace.nodes], "texts": trace.texts,
                "columns": {name: np.asarray(trace.columns[name]).tolist() for name in names}}
    if len(trace.decisions):
        document["decisions"] = trace.decisions.to_json()
    return document


def _header(path) -> tuple[dict, int]:
    """The JSON header of the first segment of a file in the trace format, and the byte its length sits at."""
    data = path.read_bytes()
    at = len(MAGIC) + 4
    length = struct.unpack("<Q", data[at:at + 8])[0]
    return json.loads(data[at + 8:at + 8 + length]), at


def _rewrite_header(path, header: dict) -> None:
    """Put ``header`` in place of the first segment's header (its column bytes stay)."""
    data = path.read_bytes()
    at = len(MAGIC) + 4
    length = struct.unpack("<Q", data[at:at + 8])[0]
    encoded = json.dumps(header).encode()
    path.write_bytes(data[:at] + struct.pack("<Q", len(encoded)) + encoded + data[at + 8 + length:])


def _save_v4(trace: Trace, path) -> None:
    """``trace`` written in version 4's layout (before Arrow), as rlviz wrote it until version 5: still read."""
    save_trace(trace, path, version=4)


def _as_version(path, version: int, gauges: dict | None = None) -> None:
    """Rewrite a one-segment file saved without readings in the layout of ``version`` 2 or 3 (no gauge columns, no
    series table), its header carrying ``gauges`` as JSON if given (version 3's form: per name, four lists)."""
    header, _ = _header(path)
    assert header.pop("readings") == 0 and header.pop("series") == []
    header["columns"] = [entry for entry in header["columns"] if not entry[0].startswith("gauge_")]
    if gauges is not None:
        header["gauges"] = gauges
    _rewrite_header(path, header)
    path.write_bytes(MAGIC + struct.pack("<I", version) + path.read_bytes()[12:])


def _many_gauges() -> dict[str, Gauge]:
    """Readings of many series: names and lanes with quotes, backslashes and non-ASCII text, float64 values that
    no float32 holds, NaN and infinities, several processes."""
    rng, gauges = np.random.default_rng(3), {}
    for k in range(12):
        n = 50 + 17 * k
        value = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
        value[::7], value[3], value[5] = np.nan, np.inf, -0.0
        gauges[f'gauge "{k}" ü\\ {"é" * k}'] = Gauge(np.sort(rng.integers(0, 10**15, n)), value,
                                                     rng.integers(1, 4, n), np.array([f"lane {j} «ü»" for j in
                                                                                       rng.integers(0, 5, n)], object))
    return gauges


def _assert_same_gauges(got: dict[str, Gauge], expected: dict[str, Gauge]) -> None:
    assert list(got) == sorted(expected)
    for name, g in expected.items():
        order = np.lexsort((g.time_ns,))
        assert np.array_equal(got[name].time_ns, g.time_ns[order]), name
        assert got[name].value.tobytes() == g.value[order].tobytes(), name          # every bit, NaN and -0.0
        assert got[name].pid.tolist() == g.pid[order].tolist()
        assert got[name].where.tolist() == g.where[order].tolist()


def test_gauge_readings_are_columns_that_round_trip_exactly_and_are_read_only_when_used(tmp_path):
    trace, path = Trace.from_records(_records()), tmp_path / "t.rlviz"
    trace.gauges = _many_gauges()
    trace.save(path)
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_stream(source).read_all()
    kinds = table.column("table").to_pylist()
    assert kinds.count("readings") == sum(len(g) for g in trace.gauges.values())
    assert kinds.count("series") > 12 and table.schema.field("reading_value").type == pa.float64()
    loaded = Trace.load(path)
    assert loaded.columns.loaded == []                 # loading reads no reading into the trace's columns
    _assert_same_gauges(loaded.gauges, trace.gauges)
    loaded.save(path)                                  # and a loaded trace saves its readings back
    _assert_same_gauges(Trace.load(path).gauges, trace.gauges)
    _save_v4(trace, path)                              # version 4 kept them as columns too, read when used
    old = Trace.load(path)
    assert old.columns.loaded == []
    _assert_same_gauges(old.gauges, trace.gauges)
    assert set(old.columns.loaded) == {"gauge_series", "gauge_time_ns", "gauge_value"}


def test_a_version_3_file_loads_with_its_json_gauges(tmp_path):
    path = tmp_path / "v3.rlviz"
    _save_v4(Trace.from_records(_records()), path)
    _as_version(path, 3, {"rows": {"time_ns": [5, 9], "value": [1.5, 2.0], "pid": [1, 1], "where": ["driver", "w"]}})
    loaded = Trace.load(path)
    assert loaded.to_records() == _records()
    assert loaded.gauges["rows"].value.tolist() == [1.5, 2.0] and loaded.gauges["rows"].where.tolist() == ["driver",
                                                                                                           "w"]


def _damage_gauges(path, change) -> None:
    header, _ = _header(path)
    change(header)
    _rewrite_header(path, header)


@pytest.mark.parametrize("change, match", [
    (lambda h: h["columns"][-1].__setitem__(1, "<f4"), "column 'gauge_value' as '<f4'.*damaged or not an rlviz"),
    (lambda h: h.update(readings=h["readings"] + 1),
     "column 'gauge_series' as '<u4', 8 bytes; 3 readings need '<u4', 12 bytes"),
    (lambda h: h["series"].append(["x", "not a pid", "driver"]), r'"series" that is not a list of \[name, pid'),
    (lambda h: h.update(gauges={}), "version 4 keeps readings in columns"),
    (lambda h: h.pop("series"), "lacks one of"),
    (lambda h: h["columns"].pop(), "has columns .*expected .*gauge_value"),
])
def test_a_damaged_gauge_header_is_refused_at_load_naming_the_file_and_the_byte(tmp_path, change, match):
    path = tmp_path / "bad.rlviz"
    trace = Trace.from_records(_records())
    trace.gauges = {"g": Gauge(np.array([1, 2]), np.array([0.5, 1.5]), np.array([1, 1]), np.array(["a", "b"], object))}
    _save_v4(trace, path)
    _damage_gauges(path, change)
    with pytest.raises(TraceFormatError, match=match) as info:
        Trace.load(path)
    assert "bad.rlviz" in str(info.value) and "at byte 12" in str(info.value)


def test_a_reading_of_a_series_the_file_does_not_list_is_refused_when_the_readings_are_read(tmp_path):
    path = tmp_path / "bad.rlviz"
    trace = Trace.from_records(_records())
    trace.gauges = {"g": Gauge(np.array([1, 2]), np.array([0.5, 1.5]), np.array([1, 1]), np.array(["a", "b"], object))}
    _save_v4(trace, path)
    _damage_gauges(path, lambda h: h["series"].pop())
    loaded = Trace.load(path)                          # the header alone looks whole
    with pytest.raises(TraceFormatError, match="bad.rlviz: a gauge reading in the segment whose columns start at "
                                               "byte .* names series 1, but the file lists 1 by then; the file is "
                                               "damaged"):
        loaded.gauges


def test_save_and_load_round_trip(tmp_path):
    trace = Trace.from_records(_records())
    path = tmp_path / "t.rlviz"
    trace.save(path)
    assert Trace.load(path).to_records() == _records()


def test_save_writes_the_trace_format_a_spill_has_and_load_reads_it_lazily(tmp_path):
    path = tmp_path / "t.rlviz"
    Trace.from_records(_records()).save(path)
    with pa.memory_map(str(path)) as source:
        assert pa.ipc.open_stream(source).schema.metadata[b"rlviz.version"] == b"5"
    loaded = Trace.load(path)
    assert isinstance(loaded.columns, LazyColumns) and loaded.columns.loaded == []
    assert loaded.to_records() == _records()
    assert not list(tmp_path.glob("*.partial")), "the file is written beside, then renamed"


def test_a_loaded_trace_saves_back_over_its_own_file(tmp_path):
    path = tmp_path / "t.rlviz"
    Trace.from_records(_records()).save(path)
    Trace.load(path).save(path)                  # every column is read before the file is replaced
    assert Trace.load(path).to_records() == _records()


def test_save_and_load_keep_the_gaps_the_gauges_the_decisions_and_the_clock(tmp_path):
    plan = Concurrently([_op(name) for name in ("Store", "Train")], round_robin_weights=[2, 1])
    try:
        with rlviz.record(capacity=2048) as recorded:
            for _ in range(30):
                plan.take(200)
                rlviz.gauge("rows", 7)
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    trace = recorded.snapshot()
    assert trace.gaps and trace.dropped and len(trace.decisions) and trace.gauges, "the run went past capacity"
    path = tmp_path / "run.rlviz"
    trace.save(path)
    loaded = Trace.load(path)
    assert loaded.gaps == trace.gaps and all(isinstance(gap, Gap) for gap in loaded.gaps)
    assert loaded.dropped == trace.dropped and loaded.to_records() == trace.to_records()
    assert loaded.gauges["rows"].time_ns.tolist() == trace.gauges["rows"].time_ns.tolist()
    assert [loaded.why(i) for i in range(len(loaded))] == [trace.why(i) for i in range(len(trace))]
    saved, original = encode_trace(loaded).meta, encode_trace(trace).meta
    assert saved["origin_ns"] == original["origin_ns"] == str(min(gap.start_ns for gap in trace.gaps))
    assert [chunk["gaps"] for chunk in saved["chunks"]] == [chunk["gaps"] for chunk in original["chunks"]]


def _op(name):
    from rlviz.iter import LocalIterator

    return LocalIterator(lambda timeout: (f"{name}{i}" for i in range(10**6)), name=name).named(name)


def test_json_files_of_version_1_still_load(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_json_v1(Trace.from_records(_records()))))
    assert Trace.load(path).to_records() == _records()


@pytest.mark.parametrize("change, match", [
    (lambda h: h.update(gaps=[["driver", 5, 1, 3]]), "\"gaps\" has .*start_ns <= end_ns"),
    (lambda h: h.update(gaps={"driver": 3}), "\"gaps\" must be a list of"),
    (lambda h: h["columns"][0].__setitem__(1, "|O"), "column 'node' as '\\|O'.*damaged or not an rlviz trace"),
    (lambda h: h["columns"][2].__setitem__(2, 8), "column 'start_ns' as '<i8', 8 bytes; 3 events need"),
    (lambda h: h.update(decisions={"specs": []}), "\"decisions\" must be an object"),
])
def test_a_damaged_header_is_refused_naming_the_file_and_the_field(tmp_path, change, match):
    path = tmp_path / "bad.rlviz"
    _save_v4(Trace.from_records(_records()), path)
    header, _ = _header(path)
    change(header)
    _rewrite_header(path, header)
    with pytest.raises(TraceFormatError, match=match) as info:
        Trace.load(path)
    assert "bad.rlviz" in str(info.value)


def test_a_file_of_another_version_or_format_names_the_problem_and_the_fix(tmp_path):
    newer = tmp_path / "newer.rlviz"
    newer.write_bytes(MAGIC + struct.pack("<I", 5))
    with pytest.raises(TraceFormatError, match="version 5 is not supported; this rlviz reads versions 2, 3, 4.*newer"):
        Trace.load(newer)
    older = tmp_path / "older.rlviz"             # version 2: a spill from before the headers carried gaps
    _save_v4(Trace.from_records(_records()), older)
    _as_version(older, 2)
    assert Trace.load(older).to_records() == _records() and Trace.load(older).gauges == {}
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    with pytest.raises(TraceFormatError, match="picture.png: not an rlviz trace: it neither opens as an Arrow IPC stream .* nor with RLVIZTRC"
                                               ".*written by Trace.save"):
        Trace.load(picture)


def test_node_details_survive_save_and_load_and_older_files_load_without_them(tmp_path):
    union = Node("u", "Concurrently", "LocalIterator[LocalUnion[LocalIterator[a], LocalIterator[b]]]",
                 parents=("a", "b"), details=(("round_robin_weights", (1, "*")), ("deterministic", False)))
    nodes = [Node("a", "a", "LocalIterator[a]"), Node("b", "b", "LocalIterator[b]"), union]
    records = [{"op": n.op, "label": n.label, "op_id": n.op_id, "where": "driver", "pid": 1, "start_ns": i,
                "end_ns": i + 1, "outcome": "item"} for i, n in enumerate(nodes)]
    path = tmp_path / "t.rlviz"
    trace = Trace.from_records(records, nodes)
    trace.save(path)
    loaded = Trace.load(path)
    assert loaded.nodes == nodes and loaded.nodes[2].weights == (1, "*")
    details = pl.read_ipc_stream(path).filter(pl.col("table") == "nodes")["details"].to_list()
    assert json.loads(details[2]) == {"round_robin_weights": [1, "*"], "deterministic": False}
    path = tmp_path / "t.json"
    saved = _json_v1(trace)
    for node in saved["nodes"]:        # as written before nodes had details
        node.pop("details", None)
    path.write_text(json.dumps(saved))
    assert [n.details for n in Trace.load(path).nodes] == [(), (), ()]
    saved["nodes"][2]["details"] = [1, 2]
    path.write_text(json.dumps(saved))
    with pytest.raises(TraceFormatError, match="node 2.*details of type list"):
        Trace.load(path)


@pytest.mark.parametrize("content, match", [
    ("not json at all", "not an rlviz trace.*nor can be read as JSON"),
    (json.dumps({"traceEvents": []}), "not an rlviz trace"),
    (json.dumps({"format": "rlviz-trace", "version": 99}), "version 99"),
    (json.dumps({"format": "rlviz-trace", "version": 1, "nodes": [], "texts": [],
                 "columns": {"node": [0]}}), "column"),
])
def test_corrupt_or_foreign_files_name_file_and_problem(tmp_path, content, match):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(TraceFormatError, match=match) as info:
        Trace.load(path)
    assert "bad.json" in str(info.value)


def test_node_index_out_of_range_is_caught(tmp_path):
    trace = Trace.from_records(_records())
    path = tmp_path / "t.json"
    document = _json_v1(trace)
    document["columns"]["node"][0] = 42
    path.write_text(json.dumps(document))
    with pytest.raises(TraceFormatError, match="node"):
        Trace.load(path)


@pytest.mark.parametrize("column, position, value", [
    ("node", 1, 2**32),                 # int32: would wrap to node 0
    ("node", 0, 2**31),
    ("outcome", 2, 256),                # uint8: would wrap to 0, "item"
    ("outcome", 0, -1),
    ("item_kind", 1, 300),
    ("start_ns", 0, 2**63),             # beyond int64 itself
    ("input_ids", 0, -(2**63) - 1),
])
def test_values_that_overflow_a_column_are_rejected_not_wrapped(tmp_path, column, position, value):
    path = tmp_path / "wraps.json"
    document = _json_v1(Trace.from_records(_records()))
    document["columns"][column][position] = value
    path.write_text(json.dumps(document))
    with pytest.raises(TraceFormatError, match=rf'wraps.json: column "{column}" record {position} is {value}, '
                                               rf"outside the column's \w+ range"):
        Trace.load(path)


@pytest.mark.parametrize("record, match", [
    ({"op": "x"}, "lacks"),
    ({**_records()[0], "outcome": "maybe"}, "outcome"),
    ({**_records()[0], "start_ns": "soon"}, "start_ns"),
])
def test_bad_records_are_rejected(record, match):
    with pytest.raises(TraceFormatError, match=match):
        Trace.from_records([record])


@pytest.mark.parametrize("name", ["chrome.json", "chrome.json.gz"])
def test_chrome_export_loads_back_with_every_span_and_flow(tmp_path, name):
    import gzip

    trace = Trace.from_records(_records())
    path = tmp_path / name
    trace.to_chrome(path)
    data = path.read_bytes()
    document = json.loads(gzip.decompress(data) if name.endswith(".gz") else data)
    events = document["traceEvents"]
    assert document["otherData"]["start_ns"] == trace.start_ns
    names = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert names == {"shard-0", "driver"}
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    spans = [e for e in events if e["ph"] == "X"]
    assert len(spans) == len(trace)
    for span, event in zip(spans, trace.events):
        assert (span["name"], span["cat"], span.get("args", {}).get("item")) == (event.op, event.outcome, event.item)
        assert span["ts"] * 1000 == pytest.approx(event.start_ns - trace.start_ns, abs=1)
        assert span["dur"] * 1000 == pytest.approx(event.duration_ns, abs=1)
        assert event.label in tracks[span["pid"], span["tid"]], "the track names the node; spans do not repeat it"
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    producers, consumers = trace.links()
    assert len(starts) == len(finishes) == len(producers) == 1
    for flow_id, (p, q) in enumerate(zip(producers.tolist(), consumers.tolist())):
        assert (starts[flow_id]["pid"], starts[flow_id]["tid"]) == (spans[p]["pid"], spans[p]["tid"])
        assert (finishes[flow_id]["pid"], finishes[flow_id]["tid"]) == (spans[q]["pid"], spans[q]["tid"])
        assert finishes[flow_id]["bp"] == "e" and finishes[flow_id]["ts"] >= starts[flow_id]["ts"]


def test_graph_sequence_and_summary():
    trace = Trace.from_records(_records())
    graph = trace.graph()
    assert graph.edges["s@shard-0", "g"]["items"] == 1
    assert graph.nodes["g"]["calls"] == 2 and graph.nodes["g"]["items"] == 1
    assert trace.sequence() == ["P.from_range", "P.gather_sync()"]
    assert trace.sequence(ops=["gather_sync"]) == ["P.gather_sync()"]
    assert "gather_sync" in trace.summary()


def test_empty_trace_is_usable():
    trace = Trace.empty()
    assert len(trace) == 0 and trace.sequence() == [] and trace.graph().number_of_nodes() == 0
    assert "0 events" in trace.summary()


def test_summary_keeps_long_lane_names_apart():
    records = [{**_records()[0], "where": f"RolloutWorker-{i}", "op_id": f"s{i}", "pid": 20 + i}
               for i in (1, 2)]
    table = Trace.from_records(records).summary()
    assert "RolloutWorker-1" in table and "RolloutWorker-2" in table


def test_event_by_index_matches_events_without_building_them_all():
    from rlviz.trace import Node, Recorder
    from rlviz.trace.rows import ITEM

    recorder = Recorder()
    node = recorder.register(Node("n1", "for_each", "x.for_each()"))
    for i in range(5):
        recorder.record(node, i, i + 1, ITEM, i)
    trace = merge_exports([recorder.export()])
    picked = [trace.event(i) for i in (0, 4, -1)]
    assert trace._events is None, "single events do not materialise the list"
    assert picked == [trace.events[0], trace.events[4], trace.events[-1]]
    with pytest.raises(IndexError, match="out of range for a trace of 5 events"):
        trace.event(5)
