"""A long trace's gauge readings: each detail chunk carries the readings of its time (every reading once, in time
order) and the reading in force at its start; the overview sums each track up per bucket of every level (the last
value, the least, the greatest, the readings counted), so a spike shows however far the page zooms out."""

import numpy as np
import pytest

from benchmarks.synthetic import pipeline_trace, with_gauges
from rlviz.trace import Trace
from rlviz.trace.gauges import REPLAY_HELD, Gauge
from rlviz.viz.chunk_tables import read_tables
from rlviz.viz.explorer_long import encode_long, unpack_chunk, unpack_levels
from rlviz.viz.explorer_stream import encode_trace
from rlviz.viz.gauge_tracks import track_numbers

CHUNK = 4096


@pytest.fixture(scope="module")
def trace():
    """20,000 events over 10 minutes on 8 lanes and about 20,000 gauge readings, one of them a spike."""
    return with_gauges(pipeline_trace(20_000, 8, 600.0), per_event=1.0, spike_at=0.37)


def _columns(chunk: dict, buffers: list[bytes]) -> dict[str, np.ndarray]:
    return read_tables(chunk["tables"], buffers)


def _tracks(trace):
    """Each (name, where) track's readings, by time: time_ns, value."""
    out = {}
    for name, g in trace.gauges.items():
        for where in g.lanes():
            mine = g.on(where)
            out[(name, where)] = (mine.time_ns, mine.value)
    return out


def _units(long, time_ns):
    return (np.asarray(time_ns, np.int64) - int(long.meta["origin_ns"])) // long.meta["unit_ns"]


def test_each_detail_chunk_carries_the_readings_of_its_time_every_reading_once_in_time_order(trace):
    long = encode_long(trace, chunk_events=CHUNK)
    keys = [tuple(key) for key in long.meta["gauge_tracks"]]
    tracks = _tracks(trace)
    assert sorted(keys) == sorted(tracks), "the start meta lists every track"
    cuts_ns = trace.columns["start_ns"][CHUNK::CHUNK]           # each chunk's first start, but the first's
    expected = {k: [] for k in range(len(long.detail))}
    for key, (time_ns, value) in tracks.items():
        for k, t, v in zip(np.searchsorted(cuts_ns, time_ns, "right").tolist(), _units(long, time_ns).tolist(),
                           value.tolist()):
            expected[k].append((keys.index(key), float(t), v))
    seen = 0
    for k, (chunk, packed) in enumerate(zip(long.meta["detail"], long.detail)):
        assert "gauge_tracks" not in chunk, "a part of the stream opens no track: the start meta did"
        c = _columns(chunk, unpack_chunk(chunk, packed))
        got = list(zip(c["gauge_track"].tolist(), c["gauge_time"].tolist(), c["gauge_value"].tolist()))
        assert (np.diff(c["gauge_time"]) >= 0).all(), f"chunk {k}'s readings are in time order"
        assert sorted(got) == sorted(expected[k]), f"chunk {k} carries the readings of its time"
        seen += len(got)
        before = {} if k == 0 else {
            keys.index(key): (float(_units(long, time_ns[i - 1])), value[i - 1])
            for key, (time_ns, value) in tracks.items() if (i := np.searchsorted(time_ns, cuts_ns[k - 1])) > 0}
        carried = [c.get(f"gauge_before_{name}", np.zeros(0)).tolist() for name in ("track", "time", "value")]
        assert dict(zip(carried[0], zip(carried[1], carried[2]))) == before, \
            f"chunk {k} brings each track's reading in force at its start"
    assert seen == sum(len(g) for g in trace.gauges.values()), "every reading once"
    assert all(expected.values()), "every chunk carries some (the test means something)"


def _summaries(long):
    """The overview's gauge summaries per level, read with pyarrow alone: (count, last, low, high), each tracks x n."""
    overview = long.meta["overview"]
    return [tuple(columns[f"gauge_{name}"].reshape(overview["gauges"], level["n"])
                  for name in ("count", "last", "least", "greatest"))
            for level, columns in zip(overview["levels"], unpack_levels(overview, long.overview))]


@pytest.mark.parametrize("fraction, dtype", [(0.0, "<f4"), (0.1, "<f8")])
def test_the_overview_sums_each_track_up_per_bucket_so_a_spike_shows_at_every_level(trace, fraction, dtype):
    """Whole counts travel as float32 (exact), values that are not exactly float32 as float64."""
    gauges = {name: Gauge(g.time_ns, g.value + fraction, g.pid, g.where) for name, g in trace.gauges.items()}
    trace = Trace(trace.nodes, trace.columns, trace.texts, trace.dropped, trace.decisions, gauges)
    long = encode_long(trace, chunk_events=CHUNK)
    assert {str(last.dtype.str) for _, last, _, _ in _summaries(long)} == {dtype}
    keys = [tuple(key) for key in long.meta["gauge_tracks"]]
    origin_ns, unit_ns = int(long.meta["origin_ns"]), long.meta["unit_ns"]
    tracks = _tracks(trace)
    spike = float(trace.gauges[REPLAY_HELD].value.max())
    for level, (count, last, low, high) in zip(long.meta["overview"]["levels"], _summaries(long)):
        start_ns, width_ns, n = origin_ns + round(level["start"] * unit_ns), round(level["width"] * unit_ns), level["n"]
        for r, key in enumerate(keys):
            buckets: dict[int, list[float]] = {}
            for t, v in zip(*tracks[key]):
                buckets.setdefault(min(max((int(t) - start_ns) // width_ns, 0), n - 1), []).append(float(v))
            want = np.zeros(n, np.uint32)
            want[list(buckets)] = [len(v) for v in buckets.values()]
            assert count[r].tolist() == want.tolist(), f"{key}: readings per bucket, each once"
            assert {b: (last[r, b], low[r, b], high[r, b]) for b in buckets} == {
                b: (v[-1], min(v), max(v)) for b, v in buckets.items()}, f"{key}: last, least and greatest"
        held = keys.index((REPLAY_HELD, "driver"))
        assert high[held].max() == spike, f"the spike shows at the {level['width']}-unit level"
    coarsest = _summaries(long)[-1]
    assert spike not in coarsest[1][keys.index((REPLAY_HELD, "driver"))], "its last values alone would hide it"


def test_a_one_blob_page_opens_each_track_in_the_chunk_of_its_first_reading(trace):
    stream = encode_trace(trace, chunk_events=CHUNK)
    buffers, opened, readings = iter(stream.buffers), [], 0
    for chunk in stream.meta["chunks"]:
        opened += chunk.get("gauge_tracks", [])
        c = _columns(chunk, [next(buffers) for _ in chunk["tables"]])
        track = c.get("gauge_track", np.zeros(0, np.uint32))
        assert int(track.max(initial=0)) < len(opened), "a chunk names only tracks opened so far"
        readings += len(track)
    assert sorted(map(tuple, opened)) == sorted(_tracks(trace))
    assert readings == sum(len(g) for g in trace.gauges.values())


def test_a_live_chunk_numbers_its_readings_tracks_by_name_and_lane_opening_the_new_ones():
    tracks = {("rows", "driver"): 0}
    name = np.array(["rows", "version", "rows", "version", "version"], dtype=object)
    where = np.array(["driver", "w1", "driver", "w2", "w1"], dtype=object)
    numbers, opened = track_numbers(name, where, tracks)
    assert opened == [["version", "w1"], ["version", "w2"]]
    assert numbers.tolist() == [0, 1, 0, 2, 1] and numbers.dtype == np.dtype("<u4")
    assert track_numbers(name[:0], where[:0], tracks)[1] == []
