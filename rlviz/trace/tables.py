"""The trace's tables as Apache Arrow: each row kind's columns declared once, and a trace turned into them.

A trace is several tables: its ``events`` (the ``inputs`` of each, the values
it consumed, a list column), the ``nodes`` and ``texts`` the events' integer
columns index, the gauge ``series`` and their ``readings``, the unions'
scheduling ``decisions`` (and their ``unions``, each spec as JSON) or, in a
spill file, the ``decision_rows`` that leave with their events, and the
``gaps``.  ``TABLES`` gives each table's schema; the trace file
(``rlviz.trace.spill``), ``Trace.to_arrow()`` and the checks at load follow
from it.  Column names differ across tables, so the file can hold them all
in one schema (``FILE_SCHEMA``: a ``table`` column naming each row's kind,
and every table's columns, null in the rows of the other kinds).

Integers are as narrow as their range allows (an outcome or an item kind is
a ``uint8``, a node index an ``int32`` like the ``Trace`` column); times and
ids stay ``int64``.  Repeated strings are dictionary-encoded (``table``);
the strings of ``nodes``, ``texts`` and ``series`` are each a table of
distinct entries that the integer columns index, so those integers are the
dictionary encoding.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from rlviz.trace.decisions import DECISION_FIELDS, Decisions
from rlviz.trace.event import Node
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import Readings
from rlviz.trace.rows import DECISION_ROW_FIELDS

__all__ = ["TABLES", "TABLE_NAMES", "FILE_SCHEMA", "kind_dictionary", "event_columns", "node_columns",
           "reading_columns", "decision_columns", "gap_columns", "to_table", "batches"]

_INT = {"union": pa.int32(), "outcome": pa.uint8()}
#: Each table's columns, in file order.  A column's name is unique across tables.
TABLES: dict[str, pa.Schema] = {
    "nodes": pa.schema([("op_id", pa.utf8()), ("op", pa.utf8()), ("label", pa.utf8()), ("where", pa.utf8()),
                        ("parents", pa.list_(pa.utf8())), pa.field("details", pa.utf8(), nullable=True)]),
    "texts": pa.schema([("text", pa.utf8())]),
    "series": pa.schema([("series_name", pa.utf8()), ("series_pid", pa.int64()), ("series_where", pa.utf8())]),
    "events": pa.schema([("node", pa.int32()), ("pid", pa.int64()), ("start_ns", pa.int64()), ("end_ns", pa.int64()),
                         ("outcome", pa.uint8()), ("item_kind", pa.uint8()), ("item_num", pa.int64()),
                         ("item_id", pa.int64()), ("inputs", pa.list_(pa.int64()))]),
    "readings": pa.schema([("reading_series", pa.uint32()), ("reading_time_ns", pa.int64()),
                           ("reading_value", pa.float64())]),
    "decisions": pa.schema([(f"decision_{name}", _INT.get(name, pa.int64()))
                            for name in (*DECISION_FIELDS, "event", "union_event")]),
    "unions": pa.schema([("union_spec", pa.utf8())]),
    "decision_rows": pa.schema([(f"row_{name}", _INT.get(name, pa.int64()))
                                for name in ("event", *DECISION_ROW_FIELDS)]),
    "gaps": pa.schema([("gap_where", pa.utf8()), ("gap_start_ns", pa.int64()), ("gap_end_ns", pa.int64()),
                       ("gap_dropped", pa.int64())]),
}
TABLES = {name: pa.schema([f if f.name == "details" else f.with_nullable(False) for f in schema])
          for name, schema in TABLES.items()}                     # only a node's details may be missing
TABLE_NAMES = tuple(TABLES)


@functools.cache
def kind_dictionary() -> pa.Array:
    """The ``table`` column's dictionary: the table names, in ``TABLES`` order.

    Built on first use, not at import: any ``pa.array`` call imports pandas
    (half a second), which every Ray worker importing ``rlviz`` would pay."""
    return pa.array(TABLE_NAMES, pa.utf8())


#: The trace file's one schema: ``table`` (dictionary-encoded), then every table's columns, nullable.
FILE_SCHEMA = pa.schema([pa.field("table", pa.dictionary(pa.int8(), pa.utf8()), nullable=False),
                         *(field.with_nullable(True) for schema in TABLES.values() for field in schema)])
_LISTS = {"inputs", "parents"}


def event_columns(columns: dict) -> dict:
    """The ``events`` table's columns from a ``Trace``'s (``inputs`` as its CSR pair ``(offsets, ids)``)."""
    names = TABLES["events"].names[:-1]
    return {**{name: np.asarray(columns[name]) for name in names},
            "inputs": (np.asarray(columns["input_offsets"]), np.asarray(columns["input_ids"]))}


def node_columns(nodes: Sequence[Node]) -> dict:
    """The ``nodes`` table's columns (``details`` as a JSON object, null for a node without)."""
    raw = [node.to_dict() for node in nodes]
    return {"op_id": [n["op_id"] for n in raw], "op": [n["op"] for n in raw], "label": [n["label"] for n in raw],
            "where": [n["where"] for n in raw], "parents": [n["parents"] for n in raw],
            "details": [json.dumps(n["details"]) if "details" in n else None for n in raw]}


def reading_columns(readings: Readings, numbers: np.ndarray) -> dict:
    """The ``readings`` table's columns, each reading's series given by ``numbers`` (into the series table)."""
    return {"reading_series": numbers, "reading_time_ns": np.asarray(readings.time_ns),
            "reading_value": np.asarray(readings.value)}


def decision_columns(decisions: Decisions) -> tuple[dict, dict]:
    """The ``decisions`` and ``unions`` tables' columns of a whole trace's decisions."""
    table = {f"decision_{name}": np.asarray(values) for name, values in decisions.columns.items()}
    return table, {"union_spec": [json.dumps(spec) for spec in decisions.specs]}


def gap_columns(gaps: Sequence[Gap]) -> dict:
    """The ``gaps`` table's columns."""
    return {"gap_where": [gap.where for gap in gaps], "gap_start_ns": [int(gap.start_ns) for gap in gaps],
            "gap_end_ns": [int(gap.end_ns) for gap in gaps], "gap_dropped": [int(gap.dropped) for gap in gaps]}


def _rows(values) -> int:
    return len(values[0]) - 1 if isinstance(values, tuple) else len(values)


def _array(field: pa.Field, values, start: int, stop: int) -> pa.Array:
    """Rows ``start:stop`` of one column as a fresh array (not a slice, so its buffers are its own)."""
    if isinstance(values, tuple):                                     # a CSR pair: (offsets, flat values)
        offsets, flat = values
        base = offsets[start:stop + 1]
        return pa.ListArray.from_arrays(pa.array(base - base[0], pa.int32()),
                                        pa.array(flat[base[0]:base[-1]], field.type.value_type))
    return pa.array(values[start:stop], field.type)


def _nulls(kind: pa.DataType, rows: int, zeros: pa.Buffer) -> pa.Array:
    """A column of ``rows`` nulls of type ``kind`` whose buffers are all views of ``zeros`` (another table's
    column in a batch: compressed, it costs next to nothing)."""
    if pa.types.is_list(kind):
        return pa.Array.from_buffers(kind, rows, [zeros, zeros], null_count=rows,
                                     children=[pa.array([], kind.value_type)])
    if pa.types.is_string(kind):
        return pa.Array.from_buffers(kind, rows, [zeros, zeros, zeros], null_count=rows)
    return pa.Array.from_buffers(kind, rows, [zeros, zeros], null_count=rows)


def batches(name: str, columns: dict, rows_per_batch: int) -> list[pa.RecordBatch]:
    """Table ``name``'s rows as ``FILE_SCHEMA`` record batches of at most ``rows_per_batch`` rows; the other
    tables' columns are null.

    Raises
    ------
    ValueError
        If a column is missing, the columns differ in length, or a value does not fit its declared type.
    """
    schema = TABLES[name]
    missing = sorted(set(schema.names).difference(columns))
    if missing:
        raise ValueError(f"table {name!r} needs columns {schema.names}; {missing} missing")
    total = _rows(columns[schema.names[0]])
    if any(_rows(columns[field]) != total for field in schema.names):
        raise ValueError(f"table {name!r}: the columns differ in length")
    code = TABLE_NAMES.index(name)
    out = []
    for start in range(0, max(total, 1), rows_per_batch):
        stop = min(start + rows_per_batch, total)
        own = {field.name: _array(field, columns[field.name], start, stop) for field in schema}
        arrays = [pa.DictionaryArray.from_arrays(pa.array(np.full(stop - start, code, np.int8)), kind_dictionary())]
        zeros = pa.py_buffer(bytes(8 * (stop - start + 1)))          # shared by every null column: one allocation
        arrays += [own[field.name] if field.name in own else _nulls(field.type, stop - start, zeros)
                   for field in list(FILE_SCHEMA)[1:]]
        out.append(pa.record_batch(arrays, schema=FILE_SCHEMA))
    return out


def to_table(name: str, columns: dict) -> pa.Table:
    """Table ``name`` (its ``TABLES`` schema) from its columns, as ``Trace.to_arrow()`` gives it."""
    schema = TABLES[name]
    total = _rows(columns[schema.names[0]])
    return pa.Table.from_arrays([_array(field, columns[field.name], 0, total) for field in schema], schema=schema)
