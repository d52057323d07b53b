"""A page's tables as Apache Arrow: a chunk's and a level's tables, declared once, written and read as IPC streams.

One chunk of the Explorer's stream (``rlviz.viz.explorer_stream``) holds
tables of different lengths: its ``events``, their ``inputs`` (the producer
of each value consumed, in consumer order), the ``late`` links of events sent
in an earlier chunk, the scheduling ``decisions`` that explain its events,
the ``gauges`` readings that arrived and the ``gauges_before`` (per track,
the reading in force at its start).  ``CHUNK_TABLES`` declares each table's
columns.  One level of a page's overview (``rlviz.viz.explorer_long``) holds
two: per lane and bucket what it counted (``lanes``), and per gauge track and
bucket a summary of its readings (``gauge_summaries``); ``LEVEL_TABLES``
declares them.  Each table travels as one Arrow IPC stream of one record
batch, and the JSON meta lists the tables (``tables``: name, rows, bytes) in
the order of its buffers.  The page reads them with a maintained Arrow reader
(flechette, ``explorer_arrow.js``); ``read_tables`` is the same in Python,
with pyarrow.

Integers are as narrow as each table's values allow, so a column declares a
*kind* rather than one Arrow type: ``uint`` (uint8, uint16 or uint32,
whatever the values need), ``time`` (uint32 units after the chunk's time
base, or float64 when a chunk spans more than 2**32 units), ``item`` (int32,
or float64 values), ``value`` (float32 when every value is exactly one, else
float64), or one fixed type.  Two kinds travel in another type than the one
read, which the field's metadata names, and every reader undoes:

- a column declared ``delta`` (starts and producer ids, which grow) travels
  as differences when it is uint32: each value minus the one before, modulo
  2**32, so deflate finds small numbers (``DELTA_KEY``);
- a ``short_f4`` column (a level's busy time: non-negative float32 values
  rounded to 9 significant bits) travels as the uint16 high half of each
  value's bits (``SHIFT_KEY``: the bits shifted out, 15), half the bytes and
  none lost.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from rlviz.trace.rows import DECISION_ROW_FIELDS

__all__ = ["TableColumn", "CHUNK_TABLES", "LEVEL_TABLES", "DELTA_KEY", "SHIFT_KEY", "write_chunk_tables",
           "write_level_tables", "write_tables", "read_tables", "narrowest_uint"]

#: Field metadata key of a column written as differences (value: the type they wrap in, ``uint32``).
DELTA_KEY = "rlviz.delta"
#: Field metadata key of a ``short_f4`` column: float32 bits shifted right by the value (``15``) into uint16.
SHIFT_KEY = "rlviz.float32_shift"
_SHIFT = 15

_ARROW = {"<u1": pa.uint8(), "|u1": pa.uint8(), "<u2": pa.uint16(), "<u4": pa.uint32(), "<i4": pa.int32(),
          "<f4": pa.float32(), "<f8": pa.float64()}
#: The numpy dtypes each column kind may travel as.
_KINDS = {"uint": ("|u1", "<u2", "<u4"), "time": ("<u4", "<f8"), "item": ("<i4", "<f8"), "u1": ("|u1",),
          "u4": ("<u4",), "f8": ("<f8",), "value": ("<f4", "<f8"), "short_f4": ("<f4",)}


@dataclass(frozen=True)
class TableColumn:
    """One declared column of a page table: its ``name`` (unique across the tables), ``kind`` (see the module),
    whether a chunk may leave it out (``optional``) and whether it travels as differences (``delta``)."""

    name: str
    kind: str
    optional: bool = False
    delta: bool = False


def _readings(prefix: str) -> tuple[TableColumn, ...]:
    return (TableColumn(f"{prefix}_track", "u4"), TableColumn(f"{prefix}_time", "f8"),
            TableColumn(f"{prefix}_value", "f8"))


#: Each chunk table's columns, in the order a chunk's buffers carry the tables.
CHUNK_TABLES: dict[str, tuple[TableColumn, ...]] = {
    "events": (TableColumn("start", "time", delta=True), TableColumn("duration", "time"), TableColumn("node", "uint"),
               TableColumn("flags", "u1"), TableColumn("item", "item"), TableColumn("input_count", "uint")),
    "inputs": (TableColumn("inputs", "u4", delta=True), TableColumn("input_dropped", "u1", optional=True)),
    "late": (TableColumn("late_consumer", "u4"), TableColumn("late_producer", "u4"), TableColumn("late_dropped", "u1")),
    "decisions": (TableColumn("decision_event", "u4"),
                  *(TableColumn(f"decision_{name}", "uint") for name in DECISION_ROW_FIELDS)),
    "gauges": _readings("gauge"),
    "gauges_before": _readings("gauge_before"),
}

#: Each overview level's tables, lane (or track) after lane, each bucket after bucket: per lane the calls
#: counted, the busiest node + 1 (0: none), errors, not-ready calls and busy time (time units: the summed
#: durations of the calls that are not not-ready polls); per gauge track its last, least and greatest
#: reading and the readings counted.
LEVEL_TABLES: dict[str, tuple[TableColumn, ...]] = {
    "lanes": (TableColumn("count", "uint"), TableColumn("busiest", "uint"), TableColumn("errors", "uint"),
              TableColumn("not_ready", "uint"), TableColumn("busy", "short_f4")),
    "gauge_summaries": (TableColumn("gauge_last", "value"), TableColumn("gauge_least", "value"),
                        TableColumn("gauge_greatest", "value"), TableColumn("gauge_count", "uint")),
}


def write_chunk_tables(columns: dict[str, np.ndarray]) -> tuple[list[dict], list[bytes]]:
    """``columns`` (by declared name) as a chunk's tables (``CHUNK_TABLES``); see ``write_tables``."""
    return write_tables(columns, CHUNK_TABLES)


def write_level_tables(columns: dict[str, np.ndarray]) -> tuple[list[dict], list[bytes]]:
    """``columns`` (by declared name) as an overview level's tables (``LEVEL_TABLES``); see ``write_tables``."""
    return write_tables(columns, LEVEL_TABLES)


def write_tables(columns: dict[str, np.ndarray], declared: dict[str, tuple[TableColumn, ...]]
                 ) -> tuple[list[dict], list[bytes]]:
    """``columns`` (by name) as the ``declared`` tables: each an Arrow IPC stream of one record batch.

    A table is written when any of its columns is given (then all its
    required ones must be); the others are left out.

    Returns
    -------
    tuple of (list of dict, list of bytes)
        Per table written, ``{"name", "rows", "bytes"}``, and its IPC bytes, in ``declared`` order.

    Raises
    ------
    ValueError
        If a column is not declared, not of its declared kind, missing from its table, or of another length.
    """
    names = {column.name for table in declared.values() for column in table}
    unknown = sorted(set(columns) - names)
    if unknown:
        raise ValueError(f"columns {unknown} are not declared: add them to their tables in rlviz.viz.chunk_tables")
    specs, buffers = [], []
    for table, table_columns in declared.items():
        present = [column for column in table_columns if column.name in columns]
        if present:
            data = _table_stream(table, table_columns, columns)
            specs.append({"name": table, "rows": len(columns[present[0].name]), "bytes": len(data)})
            buffers.append(data)
    return specs, buffers


def read_tables(specs: list[dict], buffers: list) -> dict[str, np.ndarray]:
    """The columns of a chunk's or a level's tables (``specs`` as ``write_tables`` lists them, one IPC stream
    each), read with pyarrow alone, differences added up and short floats widened again: what the page decodes.

    Raises
    ------
    ValueError
        If a buffer is not the bytes, the table or the rows its spec announces.
    """
    if len(specs) != len(buffers):
        raise ValueError(f"a chunk announces {len(specs)} tables but brings {len(buffers)} buffers")
    columns: dict[str, np.ndarray] = {}
    for spec, data in zip(specs, buffers):
        data = bytes(data)
        if len(data) != spec["bytes"]:
            raise ValueError(f"table {spec['name']!r}: got {len(data)} bytes, the meta announces {spec['bytes']}")
        table = pa.ipc.open_stream(data).read_all()
        if table.num_rows != spec["rows"]:
            raise ValueError(f"table {spec['name']!r}: {table.num_rows} rows, the meta announces {spec['rows']}")
        for field in table.schema:
            values = table.column(field.name).combine_chunks().to_numpy(zero_copy_only=False)
            columns[field.name] = _as_written(values, field.metadata or {})
    return columns


def _table_stream(table: str, declared: tuple[TableColumn, ...], columns: dict[str, np.ndarray]) -> bytes:
    """One table's columns as an IPC stream (schema, one record batch)."""
    fields, arrays, rows = [], [], None
    for column in declared:
        if column.name not in columns:
            if not column.optional:
                raise ValueError(f"table {table!r} lacks its column {column.name!r}")
            continue
        values, metadata = _typed(column, np.asarray(columns[column.name]))
        if rows is not None and len(values) != rows:
            raise ValueError(f"table {table!r}: column {column.name!r} has {len(values)} rows, not {rows}")
        rows = len(values)
        fields.append(pa.field(column.name, _ARROW[values.dtype.str], nullable=False, metadata=metadata))
        arrays.append(pa.Array.from_buffers(fields[-1].type, rows, [None, pa.py_buffer(values)]))
    schema = pa.schema(fields)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
    return sink.getvalue().to_pybytes()


def narrowest_uint(values: np.ndarray) -> np.ndarray:
    """Non-negative ints in the narrowest of uint8, uint16, uint32 that holds them (a ``uint`` column's type)."""
    top = int(values.max(initial=0))
    return values.astype("<u1" if top <= 0xFF else "<u2" if top <= 0xFFFF else "<u4")


def _as_written(values: np.ndarray, metadata: dict[bytes, bytes]) -> np.ndarray:
    """A column's values as its writer had them: differences added up, a short float's high half widened."""
    if DELTA_KEY.encode() in metadata:
        return np.cumsum(values, dtype=np.uint64).astype(np.uint32)
    if SHIFT_KEY.encode() in metadata:
        return (values.astype(np.uint32) << np.uint32(int(metadata[SHIFT_KEY.encode()]))).view("<f4")
    return values


def _typed(column: TableColumn, values: np.ndarray) -> tuple[np.ndarray, dict | None]:
    """``values`` checked against the column's kind, little-endian and contiguous, differenced or shortened when
    declared so."""
    dtype = values.dtype.str
    if dtype not in _KINDS[column.kind]:
        raise ValueError(f"column {column.name!r} is {dtype}; its kind {column.kind!r} takes "
                         f"{', '.join(_KINDS[column.kind])}")
    if column.delta and dtype == "<u4":
        return (np.diff(values.astype(np.int64), prepend=0) & 0xFFFFFFFF).astype("<u4"), {DELTA_KEY: "uint32"}
    if column.kind == "short_f4":
        return _high_half(column.name, values), {SHIFT_KEY: str(_SHIFT)}
    return np.ascontiguousarray(values), None


def _high_half(name: str, values: np.ndarray) -> np.ndarray:
    """Non-negative float32 ``values`` of at most 9 significant bits as the uint16 high half of their bits."""
    bits = values.view("<u4")
    if (bits & ((1 << _SHIFT) - 1)).any() or (bits >> 31).any():
        raise ValueError(f"column {name!r} holds a negative float32 or one of more than 9 significant bits: "
                         "round it first (a short_f4 column travels as the high half of its bits)")
    return (bits >> _SHIFT).astype("<u2")
