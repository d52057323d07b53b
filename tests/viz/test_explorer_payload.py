"""A saved trace's stream of chunks decodes back to the trace it was made from."""
import json

import numpy as np
import pytest

from rlviz.trace import Node, Trace
from rlviz.trace.items import format_summary
from rlviz.viz.examples import concurrently_trace, large_trace, sharded_trace
from rlviz.viz.explorer_payload import Payload, decode_payload, decode_stream
from rlviz.viz.explorer_stream import encode_trace


def _format(columns, texts, i):
    """The item text the browser shows for event i, rebuilt from the decoded columns."""
    kind = int(columns["flags"][i]) >> 2
    number = columns["item"][i]
    if kind == 2:
        return f"float {float(number):.6g}"
    return format_summary(kind, int(number), texts)


@pytest.mark.parametrize("trace", [sharded_trace(), concurrently_trace(), large_trace(20_000, processes=16)],
                         ids=["sharded", "concurrently", "large"])
def test_columns_round_trip_exactly(trace):
    payload = encode_trace(trace, chunk_events=4_096)
    columns = decode_stream(payload)
    c = trace.columns
    unit = payload.meta["unit_ns"]
    origin = int(payload.meta["origin_ns"])
    np.testing.assert_array_equal(columns["start"].astype(np.int64) * unit + origin, c["start_ns"])
    end = (columns["start"] + columns["duration"]).astype(np.int64) * unit + origin
    np.testing.assert_array_equal(end, c["end_ns"])
    np.testing.assert_array_equal(columns["node"], c["node"])
    np.testing.assert_array_equal(columns["flags"] & 3, c["outcome"])
    producers, consumers = trace.links()
    np.testing.assert_array_equal(columns["producer"], producers)
    np.testing.assert_array_equal(columns["consumer"], consumers)
    texts = [t for chunk in payload.meta["chunks"] for t in chunk["texts"]]
    for i in range(0, len(trace), max(1, len(trace) // 200)):
        assert _format(columns, texts, i) == trace.item_summary(i)


def test_times_beyond_four_seconds_use_a_coarser_unit_and_floor_to_it():
    records = [{"op": "a", "label": "a", "op_id": "a", "where": "driver", "pid": 1, "start_ns": s,
                "end_ns": s + 1234, "outcome": "item"} for s in (0, 7_000_000_123, 9_999_999_999)]
    payload = encode_trace(Trace.from_records(records))
    columns = decode_stream(payload)
    assert payload.meta["unit_ns"] == 10
    np.testing.assert_array_equal(columns["start"], [0, 700_000_012, 999_999_999])
    np.testing.assert_array_equal(columns["duration"], [123, 123, 124])


def test_floats_and_wide_ints_switch_the_item_column_to_float64():
    records = [{"op": "a", "label": "a", "op_id": "a", "where": "driver", "pid": 1, "start_ns": i,
                "end_ns": i + 1, "outcome": "item", "item": None} for i in range(3)]
    records.append(dict(records[0], item="list"))
    trace = Trace.from_records(records)
    trace.columns["item_kind"][:] = [1, 1, 2, 5]                  # int, int, float, sized
    trace.columns["item_num"][:] = [1 << 40, (1 << 60) + 1, np.float64(2.5).view(np.int64),
                                    (300 << 24) | trace.texts.index("list")]
    payload = encode_trace(trace)
    (chunk,) = payload.meta["chunks"]
    assert decode_payload(Payload(chunk, payload.buffers))["item"].dtype == np.float64
    columns = decode_stream(payload)
    shown = [_format(columns, chunk["texts"], i) for i in range(4)]
    assert shown == [trace.item_summary(i) for i in range(4)]
    assert shown[1] == f"int {(1 << 60) + 1}" and shown[3] == "list[300]"     # exact, as text


def test_a_saved_trace_travels_as_chunks_each_with_its_time_range_and_base():
    trace = large_trace(5_000)
    payload = encode_trace(trace, chunk_events=1_024)
    chunks = payload.meta["chunks"]
    assert [chunk["count"] for chunk in chunks] == [1_024] * 4 + [5_000 - 4 * 1_024]
    assert [chunk["first_id"] for chunk in chunks] == list(range(0, 5_000, 1_024))
    starts = (trace.columns["start_ns"] - trace.start_ns) // payload.meta["unit_ns"]
    for chunk in chunks:
        first = chunk["first_id"]
        assert chunk["time_base"] == chunk["time_range"][0] == starts[first]
    np.testing.assert_array_equal(decode_stream(payload)["start"], starts)


def test_at_most_24_bytes_per_event_for_a_million_events():
    trace = large_trace(1_000_000, processes=16)
    payload = encode_trace(trace)
    meta = len(json.dumps(payload.meta).encode())
    assert (payload.nbytes + meta) / len(trace) <= 24


def test_meta_names_ops_and_lanes_never_node_ids():
    payload = encode_trace(concurrently_trace((1, 2)))
    meta = payload.meta
    order = meta["order"]
    assert [g["name"] for g in order["groups"]] == ["StoreToReplayBuffer", "TrainOneStep"]
    assert [g["weight"] for g in order["groups"]] == [1, 2]
    assert order["ratio"] == [1.0, 1.5]
    assert [lane["name"] for lane in meta["lanes"]] == ["driver", "RolloutWorker-1", "RolloutWorker-2"]
    assert all(not g["name"].startswith("n") or not g["name"][1:].isdigit() for g in order["groups"])


def test_lanes_follow_the_timeline_order_driver_first_then_natural():
    nodes = [Node(f"s{k}", "from_range", f"src {k}", f"shard-{k}") for k in (10, 2)] + [Node("d", "gather", "g")]
    records = [{"op": n.op, "label": n.label, "op_id": n.op_id, "where": n.where, "pid": 1, "start_ns": i,
                "end_ns": i + 5, "outcome": "item"} for i, n in enumerate(nodes)]
    meta = encode_trace(Trace.from_records(records, nodes)).meta
    assert [lane["name"] for lane in meta["lanes"]] == ["driver", "shard-2", "shard-10"]


def test_empty_trace_encodes_to_no_chunks():
    payload = encode_trace(Trace.empty())
    assert payload.meta["count"] == 0 and payload.nbytes == 0 and payload.meta["chunks"] == []


def test_bad_chunk_size_is_rejected():
    with pytest.raises(ValueError, match="chunk_events must be an int >= 1, got 0"):
        encode_trace(sharded_trace(), chunk_events=0)
    with pytest.raises(TypeError, match="chunk_events must be an int, got float 64.0"):
        encode_trace(sharded_trace(), chunk_events=64.0)


def test_order_strip_names_the_ops_under_concurrently_tags():
    nodes = [Node("n4", "StoreToReplayBuffer", "store"), Node("n8", "tag[0]", "store tagged", parents=("n4",)),
             Node("n7", "UpdateTargetNetwork", "update"), Node("n9", "tag[1]", "update tagged", parents=("n7",)),
             Node("n10", "Concurrently", "LocalIterator[LocalUnion[...]]",
                  parents=("n8", "n9"), details=(("round_robin_weights", (1, 2)),))]
    records, t = [], 0
    for k, tag in enumerate(["n8", "n9", "n9", "n8", "n9", "n9"]):
        node = nodes[1] if tag == "n8" else nodes[3]
        records.append({"op": node.op, "label": node.label, "op_id": tag, "where": "driver", "pid": 1,
                        "start_ns": t, "end_ns": t + 5, "outcome": "item", "item_id": 2 * k + 1})
        records.append({"op": "Concurrently", "label": nodes[4].label, "op_id": "n10", "where": "driver", "pid": 1,
                        "start_ns": t + 6, "end_ns": t + 8, "outcome": "item", "item_id": 2 * k + 2,
                        "inputs": [2 * k + 1]})
        t += 10
    order = encode_trace(Trace.from_records(records, nodes)).meta["order"]
    assert [(g["name"], g["weight"], g["items"]) for g in order["groups"]] == [
        ("StoreToReplayBuffer", 1, 2), ("UpdateTargetNetwork", 2, 4)]
    assert order["merge"] == "Concurrently" and order["ratio"] == [1.0, 2.0]


def test_every_merging_node_has_a_strip_in_plot_orders_colours_and_its_union_is_found():
    import rlviz
    from rlviz.iter import LocalIterator
    from rlviz.ops import Concurrently
    from rlviz.viz.order import order_cells

    def op(name):
        return LocalIterator(lambda timeout: (f"{name}{i}" for i in range(1000)), name=name).named(name)

    with rlviz.record() as trace:
        Concurrently([op("Store"), op("Train")], round_robin_weights=[2, 1]).take(12)
        Concurrently([op("Alpha"), op("Beta"), op("Gamma")], mode="round_robin").take(6)
    meta = encode_trace(trace).meta
    strips = {tuple(g["name"] for g in strip["groups"]): strip for strip in meta["orders"]}
    assert set(strips) == {("Store", "Train"), ("Alpha", "Beta", "Gamma")}
    assert meta["order"] is meta["orders"][meta["order_default"]]
    for names, strip in strips.items():
        cells = order_cells(trace, ops=list(names))
        assert [g["color"] for g in strip["groups"]] == cells.colors, "the pane and plot_order colour alike"
        assert [g["color"] for g in strip["groups"]] == [meta["nodes"][g["node"]]["color"] for g in strip["groups"]]
        assert tuple(meta["nodes"][strip["node"]]["union"]["children"]) == names
    assert meta["orders"][meta["order_default"]]["where"] == "driver"


def test_no_merging_node_means_no_strip():
    meta = encode_trace(large_trace(200, 1, 1)).meta             # one process, one op: nothing merges
    assert meta["orders"] == [] and meta["order"] is None and meta["order_default"] == -1
