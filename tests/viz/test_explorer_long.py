"""A long trace's saved page (``rlviz.viz.explorer_long``): its packed detail chunks are the stream's own chunks, its
overview counts every event once, and ``explorer_html`` writes each part in its own checksummed element."""
import json
import re
import zlib

import numpy as np
import pytest

from benchmarks.synthetic import pipeline_trace
from rlviz.trace.pyramid import LEVELS, Pyramid
from rlviz.trace.rows import ERROR, NOT_READY
from rlviz.viz.explorer_html import decode_blob, explorer_html
from rlviz.viz.explorer_long import encode_long, unpack_chunk, unpack_levels
from rlviz.viz.explorer_stream import encode_trace


@pytest.fixture(scope="module")
def trace():
    """20,000 events over 10 minutes on 8 lanes, drawn like the DQN demo's (errors and not-ready polls too)."""
    return pipeline_trace(20_000, 8, 600.0)


def test_detail_chunks_unpack_to_the_streams_own_chunks(trace):
    long = encode_long(trace, chunk_events=4096)
    stream = encode_trace(trace, chunk_events=4096)
    buffers = iter(stream.buffers)
    assert len(long.meta["detail"]) == len(stream.meta["chunks"]) == 5
    for chunk, packed, original in zip(long.meta["detail"], long.detail, stream.meta["chunks"]):
        own = [next(buffers) for _ in original["tables"]]
        assert chunk["packed"]["bytes"] == len(packed)
        assert unpack_chunk(chunk, packed) == own
        assert {k: v for k, v in chunk.items() if k not in ("packed", "texts")} == \
            {k: v for k, v in original.items() if k not in ("texts", "notes", "seq")}
    assert long.meta["texts"] == stream.meta["chunks"][0]["texts"], "every text in the start meta"
    assert long.meta["notes"] == stream.meta["chunks"][-1].get("notes", [])
    assert long.meta["chunks"] == [] and long.meta["long"] is True
    nodes = trace.columns["node"]
    for k, chunk in enumerate(long.meta["detail"]):
        calls = np.bincount(nodes[k * 4096:(k + 1) * 4096], minlength=len(chunk["calls"]))
        assert chunk["calls"] == calls.tolist(), f"chunk {k}: each node's calls in it"


def test_the_overview_counts_each_event_once_per_level_with_its_busiest_node_errors_polls_and_busy_time(trace):
    long = encode_long(trace)
    overview = long.meta["overview"]
    lanes = [lane["name"] for lane in long.meta["lanes"]]
    levels = unpack_levels(overview, long.overview)
    assert len(levels) >= 4, "the trace is dense enough to keep most levels"
    c = trace.columns
    lane_of = np.array([lanes.index(node.where) for node in trace.nodes])[c["node"]]
    busy = c["outcome"] != NOT_READY
    unit, origin = long.meta["unit_ns"], int(long.meta["origin_ns"])
    for level, columns in zip(overview["levels"], levels):
        size = overview["lanes"] * level["n"]
        count, busiest, errors, polls, busy_time = (columns[name].reshape(overview["lanes"], -1)
                                                    for name in ("count", "busiest", "errors", "not_ready", "busy"))
        assert count.sum(axis=1).tolist() == np.bincount(lane_of, minlength=len(lanes)).tolist()
        assert errors.sum(axis=1).tolist() == np.bincount(lane_of[c["outcome"] == ERROR], minlength=len(lanes)).tolist()
        assert polls.sum() == int((c["outcome"] == NOT_READY).sum())
        assert ((busiest == 0) == (count == 0)).all(), "busiest + 1 is 0 exactly where a bucket is empty"
        first_ns, width_ns = origin + round(level["start"] * unit), round(level["width"] * unit)
        cell = lane_of * level["n"] + (c["start_ns"] - first_ns) // width_ns
        recount = np.bincount(cell[busy], (c["end_ns"] - c["start_ns"])[busy], minlength=size) / unit
        assert np.allclose(busy_time.reshape(-1), recount, rtol=2**-9, atol=0), "per bucket, polls left out"
    finest = overview["levels"][0]
    driver = lanes.index("driver")
    bucket = ((c["start_ns"] - int(long.meta["origin_ns"])) / long.meta["unit_ns"] - finest["start"]) // finest["width"]
    on_driver = lane_of == driver
    k = int(np.bincount(bucket[on_driver].astype(int)).argmax())          # the driver's fullest bucket
    nodes = c["node"][on_driver & (bucket == k)]
    assert int(levels[0]["busiest"][driver * finest["n"] + k]) - 1 == np.bincount(nodes).argmax()


@pytest.mark.parametrize("events, lanes, kept", [(20_000, 8, 6), (2_000, 16, 2), (100, 64, 1)])
def test_the_overview_keeps_the_levels_whose_buckets_do_not_outnumber_the_events(events, lanes, kept):
    """A finer level would be as large as the events themselves (the page loads those when a window is that
    narrow); with too few events for any, the coarsest stays so the whole run still has levels."""
    meta = encode_long(pipeline_trace(events, lanes, 600.0 if events == 20_000 else 3 * 3600.0)).meta
    overview = meta["overview"]
    sizes = [overview["lanes"] * level["n"] for level in overview["levels"]]
    assert len(sizes) == kept
    assert all(size <= events for size in sizes) or kept == 1
    assert [level["width"] for level in overview["levels"]] == sorted(level["width"] for level in overview["levels"])
    assert round(overview["levels"][-1]["width"] * meta["unit_ns"]) == Pyramid.width(LEVELS - 1), "the coarsest stays"


def test_a_long_trace_is_written_as_an_overview_and_one_checksummed_element_per_detail_chunk(trace):
    page = explorer_html(trace)
    meta = json.loads(re.search(r'id="rlviz-meta">(.*?)</script>', page).group(1))
    assert meta["long"] and 'id="rlviz-data"' not in page
    parts = dict((name, (int(adler), text)) for name, adler, text in
                 re.findall(r'id="(rlviz-overview|rlviz-detail-\d+)" data-adler32="(\d+)">([^<]*)</script>', page))
    assert len(parts) == 1 + len(meta["detail"])
    for name, (adler, text) in parts.items():
        data = decode_blob(text)
        assert zlib.adler32(data) == adler
        expected = meta["overview"]["packed"] if name == "rlviz-overview" else \
            meta["detail"][int(name.rsplit("-", 1)[1])]["packed"]["bytes"]
        assert len(data) == expected
    assert page.index("mountSaved") < page.index('id="rlviz-overview"'), "the script before the data"
    short = explorer_html(pipeline_trace(100, 8, 60.0))
    assert 'id="rlviz-detail-0"' in short and 'id="rlviz-detail-1"' not in short, "a short trace: a long one of one chunk"


def test_a_long_page_takes_fewer_bytes_per_event_than_the_target(trace):
    """200,000 events over 216 s on 64 lanes, as dense as 10M events over 3 hours: at most 15 bytes per event."""
    dense = pipeline_trace(200_000, 64, 216.0)
    page = explorer_html(dense)
    assert len(page.encode()) / len(dense) <= 15
