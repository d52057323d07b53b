"""The trace format of version 5: an Arrow IPC stream that pyarrow, polars, pandas and DuckDB read without rlviz;
a damaged, cut, foreign or newer file never loads as a different trace; files of versions 2-4 still load."""
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import rlviz
from rlviz.ops import Concurrently
from rlviz.trace import Gap, Gauge, Trace, TraceFormatError, get_recorder
from rlviz.trace.io import save_trace
from rlviz.trace.recorder import DEFAULT_CAPACITY
from rlviz.trace import spill
from rlviz.trace.spill import SpillWriter
from rlviz.trace.tables import FILE_SCHEMA, TABLES

V4_FIXTURE = Path(__file__).with_name("data") / "v4_union_run.rlviz"


def _op(name):
    from rlviz.iter import LocalIterator

    return LocalIterator(lambda timeout: (f"{name} ü{i}" for i in range(10**6)), name=name).named(name)


def _sample() -> Trace:
    """A real union run (decisions, links, a filter's dropped inputs) with unicode op names and items, plus gauges
    of NaN, infinities and -0.0 on unicode lanes, and gaps."""
    plan = Concurrently([_op("Störe «α»"), _op("Train 列")], round_robin_weights=[2, 1]).filter(lambda x: "1" in x)
    try:
        with rlviz.record(capacity=4096) as recorded:
            plan.take(60)
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    trace = recorded.snapshot()
    value = np.array([1.5, np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1.7976931348623157e308])
    trace.gauges = {'rows "held" ü': Gauge(np.arange(8) * 1000 + trace.start_ns, value, np.full(8, 7),
                                           np.array(["lane «ü»", "driver"] * 4, object))}
    trace.gaps = (Gap("shard-0 ü", trace.start_ns, trace.start_ns + 10, 3),)
    return trace


def _same(a: Trace, b: Trace) -> None:
    """Everything a trace holds, compared bit for bit."""
    assert a.to_records() == b.to_records()
    assert a.nodes == b.nodes and a.texts == b.texts and a.dropped == b.dropped and a.gaps == b.gaps
    for name in (*a.columns, "input_offsets", "input_ids"):
        assert np.asarray(a.columns[name]).tobytes() == np.asarray(b.columns[name]).tobytes(), name
    assert sorted(a.gauges) == sorted(b.gauges)
    for name, gauge in a.gauges.items():
        other = b.gauges[name]
        assert gauge.value.tobytes() == other.value.tobytes() and gauge.time_ns.tolist() == other.time_ns.tolist()
        assert gauge.where.tolist() == other.where.tolist() and gauge.pid.tolist() == other.pid.tolist()
    assert a.decisions.specs == b.decisions.specs
    assert {k: v.tolist() for k, v in a.decisions.columns.items()} == \
           {k: v.tolist() for k, v in b.decisions.columns.items()}
    assert [tuple(x.tolist()) for x in a.links()] == [tuple(x.tolist()) for x in b.links()]
    assert a.links().dropped.tolist() == b.links().dropped.tolist()
    assert [a.why(i) for i in range(len(a))] == [b.why(i) for i in range(len(b))]


@pytest.fixture(scope="module")
def sample():
    return _sample()


def test_a_trace_round_trips_bit_exact_and_as_version_4_did(sample, tmp_path):
    assert len(sample.decisions) and sample.links().dropped.any() and sample.gaps
    path, old = tmp_path / "t.rlviz", tmp_path / "t4.rlviz"
    sample.save(path)
    save_trace(sample, old, version=4)
    loaded = Trace.load(path)
    _same(loaded, sample)
    _same(loaded, Trace.load(old))


def test_to_arrow_and_to_pandas_give_the_tables_of_their_declared_schemas(sample):
    tables = sample.to_arrow()
    assert set(tables) == set(TABLES) - {"decision_rows"}
    for name, table in tables.items():
        assert table.schema.equals(TABLES[name]), name
    events = tables["events"]
    offsets, ids = sample.columns["input_offsets"], sample.columns["input_ids"]
    assert events.num_rows == len(sample) and events.column("inputs").to_pylist() == \
        [ids[offsets[i]:offsets[i + 1]].tolist() for i in range(len(sample))]
    assert tables["readings"].column("reading_value").to_numpy().tobytes() == \
        sample.gauges['rows "held" ü'].value.tobytes()
    frames = sample.to_pandas()
    ops = frames["nodes"]["op"].to_numpy()[frames["events"]["node"].to_numpy()]
    assert sorted(set(ops)) == sorted({e.op for e in sample.events})
    assert frames["decisions"].shape[0] == len(sample.decisions)


_READER = r'''
import json, sys
import duckdb, pandas as pd, polars as pl, pyarrow as pa, pyarrow.compute as pc
path = sys.argv[1]
with pa.memory_map(path) as source:                          # pyarrow
    table = pa.ipc.open_stream(source).read_all()
file_table = table
events = table.filter(pc.equal(table["table"], "events"))
nodes = table.filter(pc.equal(table["table"], "nodes"))
ops = nodes["op"].to_pylist()
by_pyarrow = {}
for node in events["node"].to_pylist():
    by_pyarrow[ops[node]] = by_pyarrow.get(ops[node], 0) + 1
frame = pl.read_ipc_stream(path)                             # polars
polars_ops = frame.filter(pl.col("table") == "nodes")["op"].to_list()
by_polars = {polars_ops[n]: c for n, c in frame.filter(pl.col("table") == "events").group_by("node").len().rows()}
df = events.to_pandas()                                      # pandas
busy_pandas = int((df["end_ns"] - df["start_ns"]).sum())
by_duckdb = dict(duckdb.sql(                                 # DuckDB, over the pyarrow table
    "select n.op, count(*) from (select node from file_table where \"table\" = 'events') e join "
    "(select row_number() over () - 1 as i, op from file_table where \"table\" = 'nodes') n on e.node = n.i "
    "group by n.op").fetchall())
values = pl.read_ipc_stream(path).filter(pl.col("table") == "readings")["reading_value"].to_list()
print(json.dumps({"pyarrow": by_pyarrow, "polars": by_polars, "duckdb": by_duckdb, "busy": busy_pandas,
                  "values": [repr(v) for v in values], "rlviz": "rlviz" in sys.modules}))
'''


def test_pyarrow_polars_pandas_and_duckdb_read_the_file_with_no_rlviz_code(sample, tmp_path):
    path = tmp_path / "t.rlviz"
    sample.save(path)
    out = subprocess.run([sys.executable, "-c", _READER, str(path)],
                         capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin"})
    got = json.loads(out.stdout)
    counts = {}
    for event in sample.events:
        counts[event.op] = counts.get(event.op, 0) + 1
    assert not got["rlviz"]
    assert got["pyarrow"] == got["polars"] == got["duckdb"] == counts
    c = sample.columns
    assert got["busy"] == int((c["end_ns"] - c["start_ns"]).sum())
    assert got["values"] == [repr(float(v)) for v in sample.gauges['rows "held" ü'].value]


def _touch(trace: Trace) -> Trace:
    """Read everything a loaded trace holds (a damaged column fails only when read)."""
    for name in (*trace.columns, "input_offsets", "input_ids"):
        trace.columns[name]
    trace.gauges, trace.decisions
    return trace


def test_every_flipped_byte_fails_naming_the_file_or_changes_nothing(sample, tmp_path):
    """A sample of >= 200 seeded byte positions across a small saved file: each flip raises TraceFormatError at
    load or when the damaged column is read, or (a padding byte) loads as the very same trace; never another."""
    path = tmp_path / "t.rlviz"
    sample.save(path)
    data = path.read_bytes()
    rng = np.random.default_rng(45)
    positions = np.unique(np.concatenate([rng.choice(len(data), 240, replace=False), [0, 4, len(data) - 1]]))
    damaged, same = tmp_path / "damaged.rlviz", 0
    for position in positions.tolist():
        flipped = bytearray(data)
        flipped[position] ^= int(rng.integers(1, 256))
        damaged.write_bytes(bytes(flipped))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                loaded = _touch(Trace.load(damaged))
        except TraceFormatError as err:
            assert "damaged.rlviz" in str(err), (position, err)
            continue
        _same(loaded, sample)
        same += 1
    assert len(positions) >= 200 and same == 0, f"{same} of {len(positions)} flips went unnoticed"


def test_a_saved_file_cut_anywhere_is_refused_and_a_cut_spill_loads_its_whole_part_with_a_warning(sample, tmp_path):
    path = tmp_path / "t.rlviz"
    sample.save(path)
    data = path.read_bytes()
    cut = tmp_path / "cut.rlviz"
    for end in np.linspace(0, len(data) - 1, 60).astype(int).tolist():
        cut.write_bytes(data[:end])
        with pytest.raises(TraceFormatError, match="cut.rlviz"):
            _touch(Trace.load(cut))
    spill = tmp_path / "spill.rlviz"
    writer = SpillWriter(spill)
    half = len(sample) // 2
    first = {name: np.asarray(v)[:half] for name, v in sample.columns.items() if name not in ("input_offsets",
                                                                                               "input_ids")}
    offsets = np.asarray(sample.columns["input_offsets"])
    first["input_offsets"], first["input_ids"] = offsets[:half + 1], np.asarray(sample.columns["input_ids"])[
        :offsets[half]]
    writer.write(first, sample.nodes, sample.texts)
    whole_first = spill.stat().st_size
    writer.write(sample.columns, sample.nodes, sample.texts)
    writer.close()
    data = spill.read_bytes()
    for end in np.linspace(whole_first, len(data) - 1, 30).astype(int).tolist():
        cut.write_bytes(data[:end])
        with pytest.warns(UserWarning, match="cut.rlviz: this spill file is cut short"):
            part = _touch(Trace.load(cut))
        assert len(part) in (half, half + len(sample)), end
        in_file = np.concatenate((first["start_ns"], sample.columns["start_ns"]))[:len(part)]
        assert np.array_equal(part.columns["start_ns"], np.sort(in_file))


def _stream(path, schema, columns):
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(pa.record_batch(columns, schema=schema))


def test_a_newer_version_a_wrong_schema_or_a_foreign_stream_is_refused_naming_what_was_expected(tmp_path):
    meta = {"rlviz.format": "rlviz-trace", "rlviz.version": "6", "rlviz.written": "save"}
    newer = tmp_path / "newer.rlviz"
    _stream(newer, FILE_SCHEMA.with_metadata(meta), [pa.nulls(0, f.type) for f in FILE_SCHEMA])
    with pytest.raises(TraceFormatError, match="newer.rlviz: rlviz trace format version '6' is not supported; "
                                               "this rlviz reads version 5 .*versions 2, 3, 4"):
        Trace.load(newer)
    wrong = tmp_path / "wrong.rlviz"
    schema = pa.schema([("table", pa.dictionary(pa.int8(), pa.utf8())), ("node", pa.int64())],
                       metadata={**meta, "rlviz.version": "5"})
    _stream(wrong, schema, [pa.array(["events"]).dictionary_encode().cast(schema.field(0).type), pa.array([1])])
    with pytest.raises(TraceFormatError, match=r"wrong.rlviz: the schema is not version 5's: expected op_id: string "
                                               r"\(missing\).* node: int32 \(found int64\), pid: int64 \(missing\)"):
        Trace.load(wrong)
    foreign = tmp_path / "foreign.arrow"
    _stream(foreign, pa.schema([("x", pa.int64())]), [pa.array([1, 2])])
    with pytest.raises(TraceFormatError, match="foreign.arrow: an Arrow stream, but not an rlviz trace.*"
                                               "expected 'rlviz-trace'"):
        Trace.load(foreign)


def test_a_value_outside_its_table_is_refused_at_load(sample, tmp_path):
    columns = {name: np.array(sample.columns[name]) for name in (*sample.columns, "input_offsets", "input_ids")}
    for name, value, match in (("node", len(sample.nodes), "a node index outside"), ("outcome", 9, "an outcome code"),
                               ("item_kind", 200, "an item kind"), ("item_num", 10**6, "a text outside")):
        bad = {**columns, name: columns[name].copy()}
        at = int(np.flatnonzero(columns["item_kind"] == 4)[0]) if name == "item_num" else 0
        bad[name][at] = value
        path = tmp_path / f"{name}.rlviz"
        writer = SpillWriter(path, written="save")
        writer.write(bad, sample.nodes, sample.texts)
        writer.close()
        with pytest.raises(TraceFormatError, match=fr"{name}.rlviz: the events batch at byte \d+ names {match}"):
            Trace.load(path)


def test_a_value_its_batch_metadata_hides_is_refused_at_first_use(sample, tmp_path, monkeypatch):
    """Loading checks ranges from each batch's metadata only; if that metadata is wrong (here, written so), the
    column's values are still checked when first read, and loading the events raises."""
    columns = {name: np.array(sample.columns[name]) for name in (*sample.columns, "input_offsets", "input_ids")}
    columns["node"][0] = len(sample.nodes)
    honest = spill._event_bounds
    monkeypatch.setattr(spill, "_event_bounds", lambda *args: {**honest(*args), "node": [0, 0]})
    path = tmp_path / "hidden.rlviz"
    writer = SpillWriter(path, written="save")
    writer.write(columns, sample.nodes, sample.texts)
    writer.close()
    loaded = Trace.load(path)
    assert loaded.columns.loaded == []                     # nothing decoded at load
    with pytest.raises(TraceFormatError, match="hidden.rlviz: an event names a node index outside the 4 nodes"):
        len(loaded.events)


def test_a_version_4_file_written_before_arrow_still_loads(tmp_path):
    """A fixture written by the version 4 writer (a real union run, with gauges and gaps) loads, and saves to
    version 5 and back unchanged."""
    old = Trace.load(V4_FIXTURE)
    assert len(old) == 434 and len(old.decisions) == 187 and old.gaps and old.gauges
    assert {n.op for n in old.nodes} >= {"Störe «α»", "Train 列", "Concurrently"}
    path = tmp_path / "v5.rlviz"
    old.save(path)
    _same(Trace.load(path), Trace.load(V4_FIXTURE))


def test_an_order_its_batch_metadata_claims_falsely_is_refused_at_first_use(sample, tmp_path, monkeypatch):
    """A file whose metadata says its events are in (start, end) order loads without a sort; if they are not,
    reading the times raises instead of showing the events in the wrong order."""
    columns = {name: np.array(sample.columns[name]) for name in (*sample.columns, "input_offsets", "input_ids")}
    swap = [0, len(sample) - 1]
    for name in ("start_ns", "end_ns"):
        columns[name][swap] = columns[name][swap[::-1]]
    honest = spill._event_bounds
    monkeypatch.setattr(spill, "_event_bounds", lambda *args: {**honest(*args), "ordered": True})
    path = tmp_path / "unordered.rlviz"
    writer = SpillWriter(path, written="save")
    writer.write(columns, sample.nodes, sample.texts)
    writer.close()
    loaded = Trace.load(path)
    with pytest.raises(TraceFormatError, match="unordered.rlviz: the events are not in the .start, end. order"):
        len(loaded.events)
