"""Traces as data: records, JSON files (never pickle), Chrome export, analysis."""
import json

import pytest

from rlviz.trace import Node, Trace, TraceFormatError
from rlviz.trace.store import merge_exports


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


def test_save_and_load_round_trip(tmp_path):
    trace = Trace.from_records(_records())
    path = tmp_path / "t.json"
    trace.save(path)
    assert Trace.load(path).to_records() == _records()


def test_node_details_survive_save_and_load_and_older_files_load_without_them(tmp_path):
    union = Node("u", "Concurrently", "LocalIterator[LocalUnion[LocalIterator[a], LocalIterator[b]]]",
                 parents=("a", "b"), details=(("round_robin_weights", (1, "*")), ("deterministic", False)))
    nodes = [Node("a", "a", "LocalIterator[a]"), Node("b", "b", "LocalIterator[b]"), union]
    records = [{"op": n.op, "label": n.label, "op_id": n.op_id, "where": "driver", "pid": 1, "start_ns": i,
                "end_ns": i + 1, "outcome": "item"} for i, n in enumerate(nodes)]
    path = tmp_path / "t.json"
    Trace.from_records(records, nodes).save(path)
    loaded = Trace.load(path)
    assert loaded.nodes == nodes and loaded.nodes[2].weights == (1, "*")
    saved = json.loads(path.read_text())
    assert saved["nodes"][2]["details"] == {"round_robin_weights": [1, "*"], "deterministic": False}
    for node in saved["nodes"]:        # as written before nodes had details
        node.pop("details", None)
    path.write_text(json.dumps(saved))
    assert [n.details for n in Trace.load(path).nodes] == [(), (), ()]
    saved["nodes"][2]["details"] = [1, 2]
    path.write_text(json.dumps(saved))
    with pytest.raises(TraceFormatError, match="node 2.*details of type list"):
        Trace.load(path)


@pytest.mark.parametrize("content, match", [
    ("not json at all", "cannot read as JSON"),
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
    trace.save(path)
    document = json.loads(path.read_text())
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
    Trace.from_records(_records()).save(path)
    document = json.loads(path.read_text())
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
