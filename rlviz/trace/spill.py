"""The rlviz trace format (version 5): an Apache Arrow IPC stream of the trace's tables, checked, read lazily.

One format for every trace file: ``Trace.save`` writes it, and a
``record(spill=path)`` block appends to such a file what its bounded buffers
evict, instead of losing it; ``Trace.load`` reads either back.  The file is
an Arrow IPC *stream* (docs/design.md, "The trace format", says why not the
Arrow *file* format) of one schema, ``rlviz.trace.tables.FILE_SCHEMA``: each
record batch holds rows of one table (its ``table`` column names which), the
other tables' columns null.  So pyarrow (``pa.ipc.open_stream``), polars
(``pl.read_ipc_stream``), pandas (through pyarrow) and DuckDB (over that
table) read it with no rlviz code: filter on ``table``.

* The schema's metadata says ``rlviz.format`` = ``rlviz-trace``,
  ``rlviz.version`` = ``5`` and ``rlviz.written`` = ``save`` or ``spill``.
* Each batch's custom metadata gives its ``rlviz.table``, ``rlviz.rows``,
  ``rlviz.crc32_prefix`` (zlib's crc32 of the schema and dictionary
  messages) and ``rlviz.crc32_message`` (the crc32 of its whole message,
  taken with that value's ten characters as ``@``), checked the first time
  the batch is read.  An ``events`` batch also gives ``rlviz.dropped``
  (the last one's is the file's).
* Buffers are compressed with zstd (pyarrow and polars read it).
* A spill writes one segment per eviction: the nodes, texts and gauge series
  first seen since the segment before, then its events, readings, decision
  rows (``row_event`` a position in the file) and gaps.  Node, text and
  series numbers count across segments.  ``close`` ends the stream (Arrow's
  end-of-stream marker): a file without one is cut.  A cut spill file loads
  its whole batches, with a warning; a cut saved file is refused.

Loading memory-maps the file and reads its small tables and each batch's
metadata, no event column: ``events`` and ``readings`` batches carry
``rlviz.bounds`` (the least and greatest node, outcome, item kind, named
text or series, the first and last (start, end), whether the events are in
that order), from which a value outside its table is refused at load and a
saved trace's order taken without a sort.  Each column is decoded the
first time it is asked for: then its batches' checksums are checked, its
values against their tables and the order against the metadata.  Nothing
in a file is code.
"""
from __future__ import annotations

import json
import os
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from rlviz.trace.event import OUTCOMES, Node
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import Readings
from rlviz.trace.lazy_columns import LazyEventColumns, reordered_inputs
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, KINDS, SIZED_NAME_MASK
from rlviz.trace.schema import COLUMNS, TraceFormatError
from rlviz.trace.tables import (FILE_SCHEMA, TABLE_NAMES, TABLES, batches, event_columns,
                                gap_columns, kind_dictionary, node_columns)

__all__ = ["VERSION", "FORMAT", "EXTRAS", "ADDED_UP", "ROWS_PER_BATCH", "SpillWriter", "write_binary_trace",
           "is_arrow_trace", "read_binary_trace", "LazyColumns"]

#: The version this rlviz writes as an Arrow stream, and the ``rlviz.format`` its schema names.
VERSION = 5
FORMAT = "rlviz-trace"
#: What a segment may carry beside its events: a whole trace's ``decisions`` (``Decisions.to_json()`` data), a
#: spill segment's ``decision_rows`` (integer lists, ``event`` a position in the file), ``gaps`` (lists of
#: ``[where, start_ns, end_ns, dropped]``).
EXTRAS = ("gaps", "decisions", "decision_rows")
#: The extras each segment adds to; for the others the last segment that carries one gives it.
ADDED_UP = frozenset({"decision_rows"})
#: The most rows one record batch holds.
ROWS_PER_BATCH = 1 << 20
_OPTIONS = pa.ipc.IpcWriteOptions(compression="zstd")
_END = b"\xff\xff\xff\xff\x00\x00\x00\x00"                      # Arrow's end-of-stream marker
_READ_ERRORS = (pa.ArrowException, OSError, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError)
_PLACEHOLDER = b"@" * 10                                         # a message's crc32 before it is known
_TIMES = ("start_ns", "end_ns")


def _schema(written: str) -> pa.Schema:
    return FILE_SCHEMA.with_metadata({"rlviz.format": FORMAT, "rlviz.version": str(VERSION),
                                      "rlviz.written": written})


def _stream(schema: pa.Schema, parts: list[tuple[pa.RecordBatch, dict]]) -> bytes:
    """``parts`` as one Arrow stream (schema, the ``table`` dictionary, the batches, the end marker)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema, options=_OPTIONS) as writer:
        for batch, metadata in parts:
            writer.write_batch(batch, custom_metadata=metadata)
    return sink.getvalue().to_pybytes()


def _crc_field(value: bytes) -> bytes:
    """How a 10-character metadata value sits in a message (a flatbuffer string: length, bytes, NUL)."""
    return len(value).to_bytes(4, "little") + value + b"\0"


def _message_crc(message: bytes | memoryview, value: bytes) -> int | None:
    """The crc32 of a whole record batch message whose ``rlviz.crc32_message`` is ``value``, taken with the
    placeholder in its place (so the value can sit in the bytes it checks); None if ``value`` is not there once."""
    field = _crc_field(value)
    head = bytes(message[:8 + int.from_bytes(message[4:8], "little")])       # marker, length, flatbuffer
    at = head.find(field)
    if at < 0 or head.find(field, at + 1) >= 0:
        return None
    crc = zlib.crc32(_crc_field(_PLACEHOLDER), zlib.crc32(message[:at]))
    return zlib.crc32(message[at + len(field):], crc)


def _sealed(messages: bytes) -> bytes:
    """Record batch messages (the stream's body, no prefix, no end) with each placeholder replaced by the
    message's crc32."""
    source, out, at = pa.BufferReader(messages), [], 0
    for _ in pa.ipc.MessageReader.open_stream(source):
        message = messages[at:source.tell()]
        crc = _message_crc(message, _PLACEHOLDER)
        out.append(message.replace(_crc_field(_PLACEHOLDER), _crc_field(f"{crc:010d}".encode())))
        at = source.tell()
    return b"".join(out)


def _prefix_length(data: bytes) -> int:
    """Where the first record batch message of the stream ``data`` starts (after its schema and dictionary)."""
    source = pa.BufferReader(data)
    reader = pa.ipc.MessageReader.open_stream(source)
    at = 0
    for message in reader:
        if message.type == "record batch":
            return at
        at = source.tell()
    return at


class SpillWriter:
    """Appends segments to a trace file (an Arrow stream); each write opens, appends and closes it.

    Parameters
    ----------
    path : str or Path
        The file to create.  Its folder must exist and the file must not.
    written : str
        ``"spill"`` (a run's file, appended to as it goes: a cut one loads its whole part) or ``"save"``.

    Raises
    ------
    FileExistsError
        If ``path`` exists (a spill never overwrites: pick a new name or delete it).
    FileNotFoundError
        If its folder does not exist.
    """

    def __init__(self, path: str | Path, written: str = "spill") -> None:
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"spill file {self.path} exists already; a spill never overwrites one: pass a new "
                                  f"path or delete it")
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"spill file {self.path}: folder {self.path.parent} does not exist; create it "
                                    f"or pass a path in an existing folder")
        self._schema = _schema(written)
        opening = _stream(self._schema, [(batch, {}) for batch in batches("events", event_columns(_NO_EVENTS), 1)])
        self._prefix = _prefix_length(opening)
        self.path.write_bytes(opening[:self._prefix])
        self._prefix_crc = zlib.crc32(opening[:self._prefix])
        self.events = 0
        self.closed = False
        self._nodes = 0
        self._texts = 0
        self._series: dict[tuple[str, int, str], int] = {}

    def write(self, columns: dict[str, np.ndarray], nodes: list[Node], texts: list[str], dropped: int = 0,
              extras: dict | None = None, readings: Readings | None = None) -> None:
        """Append one segment: ``columns`` (a ``Trace``'s, CSR input pair included) and the tables' new entries.

        ``extras`` maps names in ``EXTRAS`` to their data; ``readings`` are the segment's gauge readings (their
        series join the file's series table).

        Raises
        ------
        ValueError
            If ``extras`` names something not in ``EXTRAS``, a value does not fit its column, or the writer was
            closed.
        """
        if self.closed:
            raise ValueError(f"{self.path}: this trace file was closed; write a new one")
        unknown = sorted(set(extras or {}).difference(EXTRAS))
        if unknown:
            raise ValueError(f"extras {unknown} are not part of the trace format; a segment carries only {EXTRAS} "
                             f"(gauge readings go as readings=: rlviz.trace.gauges.readings_of makes them)")
        if {"decisions", "decision_rows"} <= set(extras or {}):
            raise ValueError("a segment carries a whole trace's decisions or a spill's decision_rows, not both")
        parts = self._tables(columns, nodes, texts, dropped, extras or {}, readings)
        encoded = _stream(self._schema, [(batch, {**metadata, "rlviz.crc32_prefix": str(self._prefix_crc),
                                                  "rlviz.crc32_message": _PLACEHOLDER.decode()})
                                         for batch, metadata in parts])
        with self.path.open("ab") as out:
            out.write(_sealed(encoded[self._prefix:-len(_END)]))
        self.events += len(columns["node"])
        self._nodes, self._texts = len(nodes), len(texts)

    def close(self) -> None:
        """End the stream: the file is then whole (a file without the end is read as cut)."""
        if not self.closed:
            with self.path.open("ab") as out:
                out.write(_END)
            self.closed = True

    def _tables(self, columns: dict, nodes: list[Node], texts: list[str], dropped: int, extras: dict,
                readings: Readings | None) -> list[tuple[pa.RecordBatch, dict]]:
        """The segment's batches with their metadata, small tables first (what the events index comes before
        them)."""
        known = len(self._series)
        numbers = self._numbers(readings) if readings is not None else np.zeros(0, np.int64)
        new_series = list(self._series)[known:]
        tables = [("nodes", node_columns(nodes[self._nodes:])), ("texts", {"text": list(texts[self._texts:])}),
                  ("series", {"series_name": [s[0] for s in new_series], "series_pid": [s[1] for s in new_series],
                              "series_where": [s[2] for s in new_series]}),
                  ("events", event_columns(columns))]
        if readings is not None:
            tables.append(("readings", {"reading_series": numbers, "reading_time_ns": np.asarray(readings.time_ns),
                                        "reading_value": np.asarray(readings.value)}))
        if "decision_rows" in extras:
            tables.append(("decision_rows", {f"row_{k}": _integers(v) for k, v in extras["decision_rows"].items()}))
        if "decisions" in extras:
            raw = extras["decisions"]
            tables.append(("decisions", {f"decision_{k}": _integers(v) for k, v in raw["columns"].items()}))
            tables.append(("unions", {"union_spec": [json.dumps(spec) for spec in raw["specs"]]}))
        if "gaps" in extras:
            tables.append(("gaps", gap_columns([Gap(*gap) for gap in extras["gaps"]])))
        parts = []
        for name, table in tables:
            if name != "events" and not _rows(table):
                continue
            for index, batch in enumerate(batches(name, table, ROWS_PER_BATCH)):
                metadata = {"rlviz.table": name, "rlviz.rows": str(batch.num_rows)}
                first = index * ROWS_PER_BATCH
                if name == "events":
                    metadata["rlviz.dropped"] = str(int(dropped))
                    metadata["rlviz.bounds"] = json.dumps(_event_bounds(columns, first, first + batch.num_rows))
                elif name == "readings":
                    metadata["rlviz.bounds"] = json.dumps(
                        {"reading_series": _span(table["reading_series"][first:first + batch.num_rows])})
                parts.append((batch, metadata))
        return parts

    def _numbers(self, readings: Readings) -> np.ndarray:
        """Each reading's series as a number into the file's series table, adding the series it lacks."""
        used = np.unique(readings.series)
        number = np.zeros(int(used[-1]) + 1 if len(used) else 0, np.int64)
        for code in used.tolist():
            name, pid, where = readings.table[code]
            number[code] = self._series.setdefault((str(name), int(pid), str(where)), len(self._series))
        return number[readings.series]


def _span(values: np.ndarray) -> list[int] | None:
    """The least and greatest of ``values`` (None if there are none)."""
    return [int(values.min()), int(values.max())] if len(values) else None


def _text_refs(kind: np.ndarray, number: np.ndarray) -> np.ndarray:
    """The texts that items of ``kind`` and ``number`` name (a text item's number, a sized item's name)."""
    return np.concatenate((number[kind == KIND_TEXT], number[kind == KIND_SIZED] & SIZED_NAME_MASK))


def _event_bounds(columns: dict, first: int, stop: int) -> dict:
    """What loading needs of events ``first..stop`` without decoding them: the least and greatest node,
    outcome, item kind and named text (the range checks), the first and last (start, end), and whether the
    events are in (start, end) order (a saved trace: then loading sorts nothing)."""
    node, outcome, kind, number, start, end = (np.asarray(columns[name][first:stop]) for name in
                                               ("node", "outcome", "item_kind", "item_num", "start_ns", "end_ns"))
    ordered = _in_order(start, end)
    return {"node": _span(node), "outcome": _span(outcome), "item_kind": _span(kind),
            "text": _span(_text_refs(kind, number)), "ordered": bool(ordered),
            "first": [int(start[0]), int(end[0])] if len(start) else None,
            "last": [int(start[-1]), int(end[-1])] if len(start) else None}


def _integers(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def _rows(table: dict) -> int:
    first = next(iter(table.values()))
    return len(first[0]) - 1 if isinstance(first, tuple) else len(first)


_NO_EVENTS = {**{name: np.zeros(0, dtype) for name, dtype in COLUMNS.items()},
              "input_offsets": np.zeros(1, np.int64), "input_ids": np.zeros(0, np.int64)}


def write_binary_trace(path: str | Path, columns: dict[str, np.ndarray], nodes: list[Node], texts: list[str],
                       dropped: int = 0, extras: dict | None = None, readings: Readings | None = None) -> None:
    """Write a whole trace to ``path`` as one segment, replacing any file there only once it is complete.

    The arguments are ``SpillWriter.write``'s.  The file is written beside
    ``path`` first (``<name>.partial``), so an interrupted save leaves the
    old file whole.
    """
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    writer = SpillWriter(partial, written="save")
    writer.write(columns, nodes, texts, dropped, extras, readings)
    writer.close()
    os.replace(partial, path)


def is_arrow_trace(path: str | Path) -> bool:
    """True if ``path`` opens as an Arrow IPC stream does (a continuation marker): a version 5 trace, or damaged."""
    try:
        with Path(path).open("rb") as source:
            return source.read(4) == _END[:4]
    except OSError:
        return False


@dataclass
class _Batch:
    """Where one record batch lies in the file, what its metadata says, and whether its crc32 was checked."""
    table: str
    rows: int
    crc: str
    start: int
    end: int
    dropped: int
    bounds: dict
    checked: bool = False


_BOUNDED = {"events": ("node", "outcome", "item_kind", "text", "first", "last", "ordered"),
            "readings": ("reading_series",)}


def _mapped(path: Path) -> pa.Buffer:
    """The file at ``path``, memory-mapped (its pages are read when used, nothing is copied)."""
    if path.stat().st_size == 0:
        return pa.py_buffer(b"")
    return pa.memory_map(str(path)).read_buffer()


class _File:
    """A version 5 file's batches, found and checked from their metadata; reads any table's columns, checked."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = _mapped(path)
        self.view = memoryview(self.data)
        self.ends_whole = bytes(self.view[-len(_END):]) == _END
        self.prefix, messages, complete = self._messages()
        self.schema = self._checked_schema()
        self.prefix_crc = zlib.crc32(self.view[:self.prefix])
        self.batches = self._batches(messages)
        if not complete or len(self.batches) < len(messages):
            self._cut(len(self.batches))

    def fail(self, what: str) -> TraceFormatError:
        return TraceFormatError(f"{self.path}: {what}")

    def _messages(self) -> tuple[int, list[tuple[int, int]], bool]:
        """The stream's prefix length, its record batch messages' byte ranges, and whether it ends as a stream
        ends (its end marker last)."""
        source = pa.BufferReader(self.data)
        ranges, prefix, at, complete = [], None, 0, False
        try:
            reader = pa.ipc.MessageReader.open_stream(source)
            while True:
                try:
                    message = reader.read_next_message()
                except StopIteration:
                    complete = self.ends_whole and source.tell() == self.data.size
                    break
                if message.type == "record batch":
                    prefix = at if prefix is None else prefix
                    ranges.append((at, source.tell()))
                elif message.type != "schema" and ranges:
                    raise self.fail(f"a {message.type} message at byte {at} after the first batch; the file is "
                                    f"damaged or not an rlviz trace")
                at = source.tell()
        except _READ_ERRORS as err:
            if isinstance(err, TraceFormatError):
                raise
        return (at if prefix is None else prefix), ranges, complete

    def _checked_schema(self) -> pa.Schema:
        try:
            schema = pa.ipc.open_stream(pa.BufferReader(bytes(self.view[:self.prefix]) + _END)).schema
        except _READ_ERRORS as err:
            raise self.fail(f"not a readable Arrow stream ({err}); expected an rlviz trace file written by "
                            f"Trace.save or record(spill=...)") from None
        meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (schema.metadata or {}).items()}
        if meta.get("rlviz.format") != FORMAT:
            raise self.fail(f"an Arrow stream, but not an rlviz trace: its schema's metadata has rlviz.format = "
                            f"{meta.get('rlviz.format')!r}, expected {FORMAT!r}")
        if meta.get("rlviz.version") != str(VERSION):
            raise self.fail(f"rlviz trace format version {meta.get('rlviz.version')!r} is not supported; this rlviz "
                            f"reads version {VERSION} (Arrow), versions 2, 3, 4 and the JSON of version 1: open it "
                            f"with the rlviz that wrote it (a newer one, if the version is higher), or save it "
                            f"again with this one")
        if meta.get("rlviz.written") not in ("save", "spill"):
            raise self.fail(f"rlviz.written is {meta.get('rlviz.written')!r}, expected 'save' or 'spill'; the "
                            f"file is damaged")
        if not schema.remove_metadata().equals(FILE_SCHEMA):
            raise self.fail(f"the schema is not version {VERSION}'s: {_difference(schema)}; the file is damaged or "
                            f"was written by another tool")
        self.written = meta["rlviz.written"]
        return schema

    def _batches(self, ranges: list[tuple[int, int]]) -> list[_Batch]:
        """The batches whose messages are whole, each checked against its metadata (its ``table`` column read;
        its crc32 is checked when its columns are first read)."""
        found = []
        try:
            reader = self._reader([0])
            for start, end in ranges:
                batch, metadata = reader.read_next_batch_with_custom_metadata()
                found.append(self._described(batch, metadata, start, end))
        except _READ_ERRORS as err:
            if isinstance(err, TraceFormatError) or self.written == "save" or self.ends_whole:
                raise (err if isinstance(err, TraceFormatError) else
                       self.fail(f"the batch at byte {ranges[len(found)][0]} cannot be read ({err}); the file is "
                                 f"damaged: copy it again, or re-record")) from None
        return found

    def _described(self, batch: pa.RecordBatch, metadata, start: int, end: int) -> _Batch:
        meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (metadata or {}).items()}
        try:
            table, rows, crc = meta["rlviz.table"], int(meta["rlviz.rows"]), meta["rlviz.crc32_message"]
            dropped, prefix = int(meta.get("rlviz.dropped", 0)), int(meta["rlviz.crc32_prefix"])
            bounds = json.loads(meta["rlviz.bounds"]) if table in _BOUNDED else {}
            if not isinstance(bounds, dict) or not set(_BOUNDED.get(table, ())) <= set(bounds):
                raise ValueError(f"rlviz.bounds lacks {_BOUNDED[table]}")
        except (KeyError, ValueError) as err:
            raise self.fail(f"the batch at byte {start} lacks valid rlviz metadata ({err!r}); the file is "
                            f"damaged") from None
        kinds = batch.column(0)
        if (table not in TABLES or rows != batch.num_rows or rows < 0 or dropped < 0 or prefix != self.prefix_crc
                or not kinds.dictionary.equals(kind_dictionary()) or kinds.null_count
                or (rows and not np.all(kinds.indices.to_numpy() == TABLE_NAMES.index(table)))):
            raise self.fail(f"the batch at byte {start} does not match its metadata (table {table!r}, {rows} rows, "
                            f"the crc32 of the schema before it); the file is damaged")
        return _Batch(table, rows, crc, start, end, dropped, bounds)

    def _check(self, batch: _Batch) -> None:
        """Refuse ``batch`` unless its whole message matches the crc32 its metadata gives."""
        if not batch.checked:
            if _message_crc(self.view[batch.start:batch.end], batch.crc.encode()) != \
                    (int(batch.crc) if batch.crc.isdigit() else -1):
                raise self.fail(f"the {batch.table} batch at byte {batch.start} does not match its crc32; the file "
                                f"is damaged: copy it again, or re-record")
            batch.checked = True

    def _cut(self, whole: int) -> None:
        if self.ends_whole:
            raise self.fail(f"the stream breaks off after {whole} whole batches, though the file ends as a whole "
                            f"stream does; the file is damaged: copy it again, or re-record")
        if self.written == "save":
            raise self.fail(f"the file is cut short (no end of stream after {whole} whole batches); a saved trace "
                            f"is written whole: copy it again, or save it again")
        events = sum(b.rows for b in self.batches if b.table == "events")
        warnings.warn(f"{self.path}: this spill file is cut short (the run writing it may have been killed, or the "
                      f"copy is partial): loading its first {whole} whole batches ({events} events); what followed "
                      f"is lost", stacklevel=4)

    def in_order(self) -> bool:
        """True if the events batches' metadata says the file holds its events in (start, end) order (each batch
        in order, and each starting where the one before ended); verified when ``start_ns`` is first read."""
        events = [b.bounds for b in self.batches if b.table == "events" and b.rows]
        if not all(bounds["ordered"] is True for bounds in events):
            return False
        try:
            return all(_pair(a["last"]) <= _pair(b["first"]) for a, b in zip(events, events[1:]))
        except ValueError as err:
            raise self.fail(f"{err}; the file is damaged") from None

    def refuse_outside(self, table: str, name: str, limit: int, what: str) -> None:
        """Refuse the file if a ``table`` batch's metadata gives values of ``name`` outside ``0..limit - 1``
        (nothing is decoded: the values are checked against the metadata when first read)."""
        for batch in self.batches:
            if batch.table == table and batch.rows:
                span = batch.bounds[name]
                valid = span is None or (isinstance(span, list) and len(span) == 2 and
                                         all(isinstance(v, int) for v in span))
                if not valid or (span is not None and (span[0] < 0 or span[1] >= limit)):
                    raise self.fail(f"the {table} batch at byte {batch.start} names {what} (from {span!r}); the "
                                    f"file is damaged: copy it again, or re-record")

    def _reader(self, fields: list[int]) -> pa.ipc.RecordBatchStreamReader:
        """A reader of the file's batches, in order, decoding only ``fields``; it reads the mapped file in place
        (no copy), so only the whole batches found (``self.batches``, or the ranges being described) are read."""
        return pa.ipc.open_stream(pa.BufferReader(self.data), options=pa.ipc.IpcReadOptions(included_fields=fields))

    def read(self, table: str, names: list[str]) -> dict[str, list[pa.Array]]:
        """Columns ``names`` of ``table``, a list of arrays per name (one per batch), each batch's message checked
        against its crc32 first.

        Raises
        ------
        TraceFormatError
            If a batch does not match its checksum, or cannot be decoded.
        """
        chosen = [b for b in self.batches if b.table == table]
        for batch in chosen:
            self._check(batch)
        out = {name: [] for name in names}
        if not chosen:
            return out
        fields = [FILE_SCHEMA.get_field_index(name) for name in names]
        try:
            reader = self._reader(fields)
            for described in self.batches[:self.batches.index(chosen[-1]) + 1]:
                batch = reader.read_next_batch()                # another table's: its null columns, skipped
                if described.table != table:
                    continue
                for name in names:
                    array = batch.column(name)
                    if len(array) != described.rows or (array.null_count and not TABLES[table].field(name).nullable):
                        raise self.fail(f"column {name!r} of the {table} batch at byte {described.start} has "
                                        f"{len(array)} rows, {array.null_count} null; its metadata says "
                                        f"{described.rows}: the file is damaged or was not written by rlviz")
                    out[name].append(array)
        except _READ_ERRORS as err:
            if isinstance(err, TraceFormatError):
                raise
            raise self.fail(f"the {table} batches cannot be read ({err}); the file is damaged") from None
        return out

    def table(self, name: str) -> dict[str, list]:
        """A small table's columns as Python lists."""
        read = self.read(name, TABLES[name].names)
        return {column: [v for array in arrays for v in array.to_pylist()] for column, arrays in read.items()}

    def numbers(self, table: str, name: str, dtype) -> np.ndarray:
        """A number column of ``table`` as one numpy array of ``dtype``."""
        return _joined(self.read(table, [name])[name], dtype)


def _in_order(start: np.ndarray, end: np.ndarray) -> bool:
    """True if events of ``start`` and ``end`` are in (start, end) order."""
    step = np.diff(start)
    return not np.any(step < 0) and not np.any(np.diff(end)[step == 0] < 0)


def _pair(value) -> tuple[int, int]:
    """A (start, end) pair from a batch's bounds (damaged metadata fails later, at its crc32, or here)."""
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise ValueError(f"a batch's first or last (start, end) is {value!r}")
    return value[0], value[1]


def _joined(arrays: list[pa.Array], dtype) -> np.ndarray:
    """Number arrays as one numpy array of ``dtype``."""
    if not arrays:
        return np.zeros(0, dtype)
    return np.concatenate([a.to_numpy(zero_copy_only=False) for a in arrays]).astype(dtype, copy=False)


def _difference(schema: pa.Schema) -> str:
    """What ``schema`` lacks or has otherwise than ``FILE_SCHEMA``, for an error message."""
    try:
        got = {f.name: str(f.type) for f in schema}
    except UnicodeDecodeError:
        return f"a column name is not UTF-8; expected the columns {', '.join(FILE_SCHEMA.names)}"
    wrong = [f"{f.name}: {f.type}" + (f" (found {got[f.name]})" if f.name in got else " (missing)")
             for f in FILE_SCHEMA if got.get(f.name) != str(f.type)]
    extra = sorted(set(got).difference(FILE_SCHEMA.names))
    return (f"expected {', '.join(wrong) or 'the same columns, in order and nullable as declared'}"
            f"{'; unexpected ' + ', '.join(extra) if extra else ''}")


def read_binary_trace(path: str | Path) -> dict:
    """A version 5 trace's ``nodes``, ``texts``, ``dropped``, ``columns`` (read lazily, ``LazyColumns``) and
    ``extras`` (``gaps`` and ``decisions`` as ``EXTRAS`` data; ``decision_rows`` a list of one dict of int64
    arrays), every value that indexes a table checked against it.

    Raises
    ------
    TraceFormatError
        If the file is damaged, cut (a saved one), of another version or schema; the message names the file,
        what was expected and what to do.  A cut spill file warns and loads its whole batches.
    """
    source = _File(Path(path))
    nodes = _nodes(source)
    texts = source.table("texts")["text"]
    series = source.table("series")
    table = list(zip(series["series_name"], series["series_pid"], series["series_where"]))
    events = [b for b in source.batches if b.table == "events"]
    columns = LazyColumns(source, table)
    columns.check(len(nodes), len(texts))
    extras = {}
    gaps = source.table("gaps")
    if gaps["gap_where"]:
        extras["gaps"] = [list(gap) for gap in zip(*gaps.values())]
    decisions = source.table("decisions")
    if decisions["decision_union"]:
        extras["decisions"] = {"specs": [json.loads(s) for s in source.table("unions")["union_spec"]],
                               "columns": {k[len("decision_"):]: v for k, v in decisions.items()}}
    if any(b.table == "decision_rows" for b in source.batches):
        extras["decision_rows"] = [{name[len("row_"):]: source.numbers("decision_rows", name, np.int64)
                                    for name in TABLES["decision_rows"].names}]
    return {"nodes": nodes, "texts": texts, "dropped": events[-1].dropped if events else 0, "columns": columns,
            "extras": extras}


def _nodes(source: _File) -> list[Node]:
    raw = source.table("nodes")
    nodes = []
    for index, values in enumerate(zip(*raw.values())):
        entry = dict(zip(raw, values))
        try:
            entry["details"] = json.loads(entry["details"]) if entry["details"] is not None else None
            nodes.append(Node.from_dict(entry))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise source.fail(f"node {index} is not valid ({err!r}); the file is damaged") from None
    return nodes


class LazyColumns(LazyEventColumns):
    """A ``Trace``'s columns, each read from the file (every events batch) the first time it is asked for.

    Events come ordered by start, then end, as a ``Trace``'s are; ``input_offsets``
    and ``input_ids`` follow that order.  Assigning a column keeps it in memory.
    """

    def __init__(self, source: _File, series: list[tuple]) -> None:
        super().__init__()
        self._source = source
        self._table = series
        self._raw_held: dict[str, np.ndarray] = {}
        self._order: np.ndarray | None = None
        self._ordered = False
        self._limits: dict[str, tuple[int, str]] = {}

    def read_column(self, name: str) -> np.ndarray:
        order = self._ordering()
        return self._raw(name) if order is None else self._raw(name)[order]

    @property
    def events(self) -> int:
        """How many events the file holds (from the batches' metadata: nothing is read)."""
        return sum(b.rows for b in self._source.batches if b.table == "events")

    def check(self, nodes: int, texts: int) -> None:
        """Refuse a node index, an outcome code, an item kind, a text number or a gauge series outside its table,
        from the batches' metadata (nothing is decoded); each column's values are checked when first read."""
        self._limits = {"node": (nodes, f"a node index outside the {nodes} nodes"),
                        "outcome": (len(OUTCOMES), f"an outcome code outside 0..{len(OUTCOMES) - 1}"),
                        "item_kind": (len(KINDS), f"an item kind outside 0..{len(KINDS) - 1}"),
                        "text": (texts, f"a text outside the {texts} texts")}
        for name, (limit, what) in self._limits.items():
            self._source.refuse_outside("events", name, limit, what)
        self._source.refuse_outside("readings", "reading_series", len(self._table),
                                    f"a gauge series outside the {len(self._table)} series")

    def readings_series(self) -> np.ndarray:
        """The ``reading_series`` column (int64), each number checked against the series table when first read."""
        if "reading_series" not in self._raw_held:
            series = self._source.numbers("readings", "reading_series", np.int64)
            if len(series) and series.max() >= len(self._table):
                raise self._source.fail(f"a gauge reading names series {int(series.max())}, but the file lists "
                                        f"{len(self._table)}; the file is damaged: copy it again, or re-record")
            self._raw_held["reading_series"] = series
        return self._raw_held["reading_series"]

    def readings(self) -> Readings:
        """The gauge readings of every segment, read the first time."""
        return Readings(self._table, self.readings_series(),
                        self._source.numbers("readings", "reading_time_ns", np.int64),
                        self._source.numbers("readings", "reading_value", np.float64))

    def positions(self, in_file: np.ndarray) -> np.ndarray:
        """Where the events numbered ``in_file`` (in file order) sit in the columns' order (by start, then end);
        reads ``start_ns`` and ``end_ns``."""
        order = self._ordering()
        if order is None:
            return np.asarray(in_file, np.int64)
        where = np.empty(len(order), np.int64)
        where[order] = np.arange(len(order))
        return where[np.asarray(in_file, np.int64)]

    def _ordering(self) -> np.ndarray | None:
        """The events' order by start, then end, as positions in the file; None if the file has them in that
        order already (a saved trace: no sort, no copy)."""
        if not self._ordered:
            if not self._source.in_order():
                start, end = self._raw("start_ns"), self._raw("end_ns")
                if not _in_order(start, end):
                    self._order = np.lexsort((end, start))
            self._ordered = True
        return self._order

    def _raw(self, name: str) -> np.ndarray:
        """Column ``name`` of every events batch, in file order, its values checked against their table (the
        ones that order the events kept)."""
        if name in self._raw_held:
            return self._raw_held[name]
        if name in _TIMES:
            self._raw_held.update(self._times())
            return self._raw_held[name]
        values = self._source.numbers("events", name, COLUMNS[name])
        if name in self._limits or (name == "item_num" and "text" in self._limits):
            limit, what = self._limits["text" if name == "item_num" else name]
            named = _text_refs(self._raw("item_kind"), values) if name == "item_num" else values
            if len(named) and (named.min() < 0 or named.max() >= limit):
                raise self._source.fail(f"an event names {what}; the file is damaged")
            if name == "item_kind":
                self._raw_held[name] = values
        return values

    def _times(self) -> dict[str, np.ndarray]:
        """``start_ns`` and ``end_ns`` in file order, refused if an event ends before it starts or if the
        metadata said the events were in order and they are not."""
        start = self._source.numbers("events", "start_ns", COLUMNS["start_ns"])
        end = self._source.numbers("events", "end_ns", COLUMNS["end_ns"])
        if np.any(end < start):
            raise self._source.fail("an event ends before it starts (end_ns < start_ns); the file is damaged")
        if self._source.in_order() and not _in_order(start, end):
            raise self._source.fail("the events are not in the (start, end) order the batches' metadata gives; "
                                    "the file is damaged")
        return {"start_ns": start, "end_ns": end}

    def read_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The CSR input pair of all batches, re-based and put in the events' order."""
        lists = self._source.read("events", ["inputs"])["inputs"]
        if not lists:
            return np.zeros(1, np.int64), np.zeros(0, np.int64)
        counts = np.concatenate([np.diff(a.offsets.to_numpy()) for a in lists])
        return reordered_inputs(counts, np.concatenate([a.values.to_numpy() for a in lists]), self._ordering())
