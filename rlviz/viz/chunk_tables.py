"""A page's chunk as Apache Arrow: the tables of one chunk declared once, written and read as IPC streams.

One chunk of the Explorer's stream (``rlviz.viz.explorer_stream``) holds
tables of different lengths: its ``events``, their ``inputs`` (the producer
of each value consumed, in consumer order), the ``late`` links of events sent
in an earlier chunk, the scheduling ``decisions`` that explain its events,
the ``gauges`` readings that arrived and the ``gauges_before`` (per track,
the reading in force at its start).  ``CHUNK_TABLES`` declares each table's
columns; each table travels as one Arrow IPC stream of one record batch, and
the chunk's JSON meta lists the tables (``tables``: name, rows, bytes) in the
order of its buffers.  The page reads them with a maintained Arrow reader
(flechette, ``explorer_arrow.js``); ``read_chunk_tables`` is the same in
Python, with pyarrow.

Integers are as narrow as each chunk's values allow, so a column declares a
*kind* rather than one Arrow type: ``uint`` (uint8, uint16 or uint32,
whatever the chunk needs), ``time`` (uint32 units after the chunk's time
base, or float64 when a chunk spans more than 2**32 units), ``item`` (int32,
or float64 values), or one fixed type.  A column declared ``delta`` (starts
and producer ids, which grow) travels as differences when it is uint32:
each value minus the one before, modulo 2**32, so deflate finds small
numbers; its Arrow field then carries the metadata ``DELTA_KEY`` and every
reader adds them up again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from rlviz.trace.rows import DECISION_ROW_FIELDS

__all__ = ["ChunkColumn", "CHUNK_TABLES", "DELTA_KEY", "write_chunk_tables", "read_chunk_tables"]

#: Field metadata key of a column written as differences (value: the type they wrap in, ``uint32``).
DELTA_KEY = "rlviz.delta"

_ARROW = {"<u1": pa.uint8(), "|u1": pa.uint8(), "<u2": pa.uint16(), "<u4": pa.uint32(), "<i4": pa.int32(),
          "<f8": pa.float64()}
#: The numpy dtypes each column kind may travel as.
_KINDS = {"uint": ("|u1", "<u2", "<u4"), "time": ("<u4", "<f8"), "item": ("<i4", "<f8"), "u1": ("|u1",),
          "u4": ("<u4",), "f8": ("<f8",)}


@dataclass(frozen=True)
class ChunkColumn:
    """One declared column of a chunk table: its ``name`` (unique across the tables), ``kind`` (see the module),
    whether a chunk may leave it out (``optional``) and whether it travels as differences (``delta``)."""

    name: str
    kind: str
    optional: bool = False
    delta: bool = False


def _readings(prefix: str) -> tuple[ChunkColumn, ...]:
    return (ChunkColumn(f"{prefix}_track", "u4"), ChunkColumn(f"{prefix}_time", "f8"),
            ChunkColumn(f"{prefix}_value", "f8"))


#: Each chunk table's columns, in the order a chunk's buffers carry the tables.
CHUNK_TABLES: dict[str, tuple[ChunkColumn, ...]] = {
    "events": (ChunkColumn("start", "time", delta=True), ChunkColumn("duration", "time"), ChunkColumn("node", "uint"),
               ChunkColumn("flags", "u1"), ChunkColumn("item", "item"), ChunkColumn("input_count", "uint")),
    "inputs": (ChunkColumn("inputs", "u4", delta=True), ChunkColumn("input_dropped", "u1", optional=True)),
    "late": (ChunkColumn("late_consumer", "u4"), ChunkColumn("late_producer", "u4"), ChunkColumn("late_dropped", "u1")),
    "decisions": (ChunkColumn("decision_event", "u4"),
                  *(ChunkColumn(f"decision_{name}", "uint") for name in DECISION_ROW_FIELDS)),
    "gauges": _readings("gauge"),
    "gauges_before": _readings("gauge_before"),
}
_DECLARED = {column.name: column for table in CHUNK_TABLES.values() for column in table}


def write_chunk_tables(columns: dict[str, np.ndarray]) -> tuple[list[dict], list[bytes]]:
    """``columns`` (by declared name) as the chunk's tables: each an Arrow IPC stream of one record batch.

    A table is written when any of its columns is given (then all its
    required ones must be); the others are left out.

    Returns
    -------
    tuple of (list of dict, list of bytes)
        Per table written, ``{"name", "rows", "bytes"}``, and its IPC bytes, in ``CHUNK_TABLES`` order.

    Raises
    ------
    ValueError
        If a column is not declared, not of its declared kind, missing from its table, or of another length.
    """
    unknown = sorted(set(columns) - set(_DECLARED))
    if unknown:
        raise ValueError(f"chunk columns {unknown} are not declared: add them to rlviz.viz.chunk_tables.CHUNK_TABLES")
    specs, buffers = [], []
    for table, declared in CHUNK_TABLES.items():
        present = [column for column in declared if column.name in columns]
        if present:
            data = _table_stream(table, declared, columns)
            specs.append({"name": table, "rows": len(columns[present[0].name]), "bytes": len(data)})
            buffers.append(data)
    return specs, buffers


def read_chunk_tables(specs: list[dict], buffers: list) -> dict[str, np.ndarray]:
    """The columns of a chunk's tables (``specs`` as ``write_chunk_tables`` lists them, one IPC stream each), read
    with pyarrow alone, differences added up again: what the page decodes.

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
            raise ValueError(f"chunk table {spec['name']!r}: got {len(data)} bytes, the meta announces {spec['bytes']}")
        table = pa.ipc.open_stream(data).read_all()
        if table.num_rows != spec["rows"]:
            raise ValueError(f"chunk table {spec['name']!r}: {table.num_rows} rows, the meta announces {spec['rows']}")
        for field in table.schema:
            values = table.column(field.name).combine_chunks().to_numpy(zero_copy_only=False)
            if field.metadata and DELTA_KEY.encode() in field.metadata:
                values = np.cumsum(values, dtype=np.uint64).astype(np.uint32)
            columns[field.name] = values
    return columns


def _table_stream(table: str, declared: tuple[ChunkColumn, ...], columns: dict[str, np.ndarray]) -> bytes:
    """One table's columns as an IPC stream (schema, one record batch)."""
    fields, arrays, rows = [], [], None
    for column in declared:
        if column.name not in columns:
            if not column.optional:
                raise ValueError(f"chunk table {table!r} lacks its column {column.name!r}")
            continue
        values, metadata = _typed(column, np.asarray(columns[column.name]))
        if rows is not None and len(values) != rows:
            raise ValueError(f"chunk table {table!r}: column {column.name!r} has {len(values)} rows, not {rows}")
        rows = len(values)
        fields.append(pa.field(column.name, _ARROW[values.dtype.str], nullable=False, metadata=metadata))
        arrays.append(pa.Array.from_buffers(fields[-1].type, rows, [None, pa.py_buffer(values)]))
    schema = pa.schema(fields)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
    return sink.getvalue().to_pybytes()


def _typed(column: ChunkColumn, values: np.ndarray) -> tuple[np.ndarray, dict | None]:
    """``values`` checked against the column's kind, little-endian and contiguous, differenced when declared so."""
    dtype = values.dtype.str
    if dtype not in _KINDS[column.kind]:
        raise ValueError(f"chunk column {column.name!r} is {dtype}; its kind {column.kind!r} takes "
                         f"{', '.join(_KINDS[column.kind])}")
    if column.delta and dtype == "<u4":
        return (np.diff(values.astype(np.int64), prepend=0) & 0xFFFFFFFF).astype("<u4"), {DELTA_KEY: "uint32"}
    return np.ascontiguousarray(values), None
