"""A page's Arrow tables (rlviz.viz.chunk_tables): declared once, written as IPC, read back by pyarrow and the page.

``tests/js/chunk_fixture.json`` is a chunk of every table as this module
writes it, ``tests/js/level_fixture.json`` an overview level of both its
tables; ``tests/js/explorer_arrow.test.mjs`` decodes them with the page's
reader (flechette).  The tests here keep the files what the writer writes.
"""
import base64
import json
import re
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from rlviz.trace.rows import DECISION_ROW_FIELDS
from rlviz.viz.chunk_tables import (CHUNK_TABLES, DELTA_KEY, LEVEL_TABLES, SHIFT_KEY, read_tables,
                                    write_chunk_tables, write_level_tables)
from rlviz.viz.explorer_html import decode_blob, explorer_html
from rlviz.viz.examples import sharded_trace

FIXTURE = Path(__file__).parents[1] / "js" / "chunk_fixture.json"
LEVEL_FIXTURE = Path(__file__).parents[1] / "js" / "level_fixture.json"


def fixture_columns() -> dict[str, np.ndarray]:
    """One value or more of every declared column: narrow and wide kinds, a start that wraps past 2**32 - 1."""
    rows = 4
    columns = {"start": np.array([7, 3, 0xFFFFFFFF, 12], "<u4"), "duration": np.array([1.5e10, 2, 3, 4], "<f8"),
               "node": np.array([0, 300, 2, 1], "<u2"), "flags": np.array([4, 5, 8, 12], "|u1"),
               "item": np.array([1, -2, 3, 2 ** 31 - 1], "<i4"), "input_count": np.array([0, 2, 0, 1], "|u1"),
               "inputs": np.array([5, 2, 9], "<u4"), "input_dropped": np.array([0, 1, 0], "|u1"),
               "late_consumer": np.array([1], "<u4"), "late_producer": np.array([0], "<u4"),
               "late_dropped": np.array([1], "|u1"), "decision_event": np.array([1, 3], "<u4")}
    columns.update((f"decision_{name}", np.array([k, 70_000 + k], "<u4")) for k, name in enumerate(DECISION_ROW_FIELDS))
    for prefix in ("gauge", "gauge_before"):
        columns.update({f"{prefix}_track": np.arange(rows - 1, dtype="<u4"), f"{prefix}_time": np.array([0.0, 2.5, 9.0]),
                        f"{prefix}_value": np.array([1.0, -0.25, 1e300])})
    return columns


def level_columns() -> dict[str, np.ndarray]:
    """Two lanes of three buckets and one gauge track of three: narrow counts, busy times of 9 significant bits up
    to past 2**24 units (a coarse bucket's sum), gauge values that are not float32."""
    busy = np.array([0.0, 1.5, 511.0, 2.0 ** 30, 3 * 2.0 ** -20, 257 * 2.0 ** 20], "<f4")
    return {"count": np.array([0, 2, 300, 1, 0, 7], "<u2"), "busiest": np.array([0, 1, 3, 2, 0, 2], "|u1"),
            "errors": np.array([0, 0, 1, 0, 0, 0], "|u1"), "not_ready": np.array([0, 5, 0, 0, 0, 1], "|u1"),
            "busy": busy, "gauge_last": np.array([0.1, 2.0, -3.5]), "gauge_least": np.array([0.1, 1.0, -7.25]),
            "gauge_greatest": np.array([0.2, 9.0, 1e300]), "gauge_count": np.array([2, 3, 70_000], "<u4")}


def _fixture() -> dict:
    tables, buffers = write_chunk_tables(fixture_columns())
    return {"tables": tables, "buffers": [base64.b64encode(data).decode() for data in buffers],
            "columns": {name: values.tolist() for name, values in fixture_columns().items()}}


def _level_fixture() -> dict:
    tables, buffers = write_level_tables(level_columns())
    return {"tables": tables, "buffers": [base64.b64encode(data).decode() for data in buffers],
            "columns": {name: values.tolist() for name, values in level_columns().items()}}


def test_the_js_fixture_is_what_the_writer_writes_and_reads_back():
    fixture = json.loads(FIXTURE.read_text())
    assert fixture == _fixture(), "regenerate tests/js/chunk_fixture.json with _fixture() (see this module)"
    assert [spec["name"] for spec in fixture["tables"]] == list(CHUNK_TABLES), "every table, in declared order"
    read = read_tables(fixture["tables"], [base64.b64decode(data) for data in fixture["buffers"]])
    assert {name: values.tolist() for name, values in read.items()} == fixture["columns"]
    assert read["node"].dtype == np.uint16 and read["flags"].dtype == np.uint8, "narrow integers stay narrow"


def test_the_js_level_fixture_is_what_the_writer_writes_and_reads_back():
    fixture = json.loads(LEVEL_FIXTURE.read_text())
    assert fixture == _level_fixture(), "regenerate tests/js/level_fixture.json with _level_fixture() (see this module)"
    assert [spec["name"] for spec in fixture["tables"]] == list(LEVEL_TABLES), "both tables, in declared order"
    read = read_tables(fixture["tables"], [base64.b64decode(data) for data in fixture["buffers"]])
    assert {name: values.tolist() for name, values in read.items()} == fixture["columns"]
    assert read["busy"].dtype == np.float32 and read["count"].dtype == np.uint16


def test_a_busy_time_travels_in_two_bytes_and_only_when_rounded():
    _, buffers = write_level_tables(level_columns())
    lanes = pa.ipc.open_stream(buffers[0]).read_all()
    assert lanes.schema.field("busy").type == pa.uint16() and lanes.schema.field("busy").metadata == {
        SHIFT_KEY.encode(): b"15"}
    for unrounded in (np.float32(1 + 2.0 ** -9), np.float32(-1.0)):
        columns = {**level_columns(), "busy": np.full(6, unrounded, "<f4")}
        with pytest.raises(ValueError, match="'busy' holds a negative float32 or one of more than 9 significant"):
            write_level_tables(columns)


def test_delta_is_a_declared_property_of_uint32_columns_only():
    tables, buffers = write_chunk_tables(fixture_columns())
    events = pa.ipc.open_stream(buffers[0]).read_all()
    assert events.schema.field("start").metadata == {DELTA_KEY.encode(): b"uint32"}
    assert events.column("start").to_pylist() == [7, (3 - 7) % 2 ** 32, (0xFFFFFFFF - 3), (12 - 0xFFFFFFFF) % 2 ** 32]
    assert events.schema.field("duration").metadata is None
    wide = {**fixture_columns(), "start": np.array([7.0, 3.0, 1e12, 12.0])}
    _, buffers = write_chunk_tables(wide)
    assert pa.ipc.open_stream(buffers[0]).read_all().schema.field("start").metadata is None   # float64: as it is


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(extra=np.zeros(4, "<u4")), r"\['extra'\] are not declared"),
    (lambda c: c.update(flags=c["flags"].astype("<u2")), r"'flags' is <u2; its kind 'u1' takes \|u1"),
    (lambda c: c.pop("duration"), r"'events' lacks its column 'duration'"),
    (lambda c: c.update(node=c["node"][:3]), r"column 'node' has 3 rows, not 4"),
])
def test_bad_columns_are_refused_naming_the_column(change, message):
    columns = fixture_columns()
    change(columns)
    with pytest.raises(ValueError, match=message):
        write_chunk_tables(columns)


def test_a_saved_pages_chunk_inflates_to_ipc_streams_pyarrow_reads_alone():
    page = explorer_html(sharded_trace())
    meta = json.loads(re.search(r'id="rlviz-meta">(.*?)</script>', page, re.S).group(1))
    (chunk,) = meta["detail"]
    raw = zlib.decompress(decode_blob(re.search(r'id="rlviz-detail-0"[^>]*>(.*?)</script>', page, re.S).group(1)))
    events = pa.ipc.open_stream(raw[:chunk["tables"][0]["bytes"]]).read_all()
    assert chunk["tables"][0]["name"] == "events" and events.num_rows == chunk["count"] == 81
    assert events.column_names == ["start", "duration", "node", "flags", "item", "input_count"]
    assert pa.types.is_unsigned_integer(events.schema.field("node").type)
