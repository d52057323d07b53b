"""The rlviz trace format of versions 2 to 4 (before Arrow): segments of columns, each behind a JSON header.

rlviz reads these files (``rlviz.trace.io`` sends a file that opens with
``MAGIC`` here) and writes them only when asked by name: ``SpillWriter`` and
``write_binary_trace`` stay so that benchmarks and tests can compare version
4 with the Arrow format (``rlviz.trace.spill``) on the same trace, and make
old files to load.  The layout:

* the file opens with ``MAGIC`` (8 bytes) and the version as a little-endian
  uint32;
* then segments, each an 8-byte little-endian length, that many bytes of
  UTF-8 JSON (``events``, the ``nodes`` and ``texts`` added since the segment
  before, ``dropped``, and ``columns``: ``[name, numpy dtype string, nbytes]``
  in the order their bytes follow), then the column bytes;
* gauge readings are columns too (version 4): after the event columns come
  ``gauge_series`` (uint32, a number into the series table), ``gauge_time_ns``
  (int64) and ``gauge_value`` (float64), ``readings`` rows each; the header's
  ``series`` adds ``[name, pid, where]`` entries to the series table;
* a header may also carry ``EXTRAS``: ``gaps``, ``decisions`` and
  ``decision_rows`` as JSON (and ``gauges``, the readings as JSON lists, in
  version 3 files).  Readings and ``decision_rows`` add up across segments;
  for the other extras the last segment that carries one gives it.

Node indices, text numbers and series numbers count across segments.  These
files carry no checksum: a flipped byte in their columns goes unnoticed.
Loading reads the headers only; a column is read from every segment the
first time it is asked for.
"""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.gauges import Readings
from rlviz.trace.lazy_columns import INPUT_COLUMNS, LazyEventColumns, reordered_inputs
from rlviz.trace.schema import COLUMNS, TraceFormatError

__all__ = ["MAGIC", "VERSION", "READS", "EXTRAS", "ADDED_UP", "SpillWriter", "write_binary_trace", "is_binary_trace",
           "read_binary_trace", "LazyColumns"]

MAGIC = b"RLVIZTRC"
#: The version ``SpillWriter`` writes, and the versions read here.
VERSION = 4
READS = (2, 3, 4)
#: What a segment header may carry beside its events.  ``decisions`` is a whole trace's table (``Trace.save``),
#: ``decision_rows`` a segment's share of a spill's (its events' decisions, ``event`` a position in the file).
EXTRAS = ("gaps", "decisions", "decision_rows", "gauges")
#: The extras each segment adds to (a spill file's readings and decisions leave with their events); for the
#: others the last segment that carries one gives it.
ADDED_UP = frozenset({"gauges", "decision_rows"})
_LENGTH = struct.Struct("<Q")
_HEAD = struct.Struct("<I")
#: The readings' columns (version 4) and their dtypes, after the events'.
_GAUGE_COLUMNS = {"gauge_series": "<u4", "gauge_time_ns": "<i8", "gauge_value": "<f8"}
_DTYPES = {**{name: np.dtype(dtype).str for name, dtype in COLUMNS.items()},
           **dict.fromkeys(INPUT_COLUMNS, np.dtype("<i8").str), **_GAUGE_COLUMNS}
_NO_READINGS = Readings([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))


class SpillWriter:
    """Appends segments to a binary trace file; each write opens, appends and closes it.

    Parameters
    ----------
    path : str or Path
        The file to create.  Its folder must exist and the file must not.

    Raises
    ------
    FileExistsError
        If ``path`` exists (a spill never overwrites: pick a new name or delete it).
    FileNotFoundError
        If its folder does not exist.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"spill file {self.path} exists already; a spill never overwrites one: pass a new "
                                  f"path or delete it")
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"spill file {self.path}: folder {self.path.parent} does not exist; create it "
                                    f"or pass a path in an existing folder")
        self.path.write_bytes(MAGIC + _HEAD.pack(VERSION))
        self.events = 0
        self._nodes = 0
        self._texts = 0
        self._series: dict[tuple[str, int, str], int] = {}

    def write(self, columns: dict[str, np.ndarray], nodes: list[Node], texts: list[str], dropped: int = 0,
              extras: dict | None = None, readings: Readings | None = None) -> None:
        """Append one segment: ``columns`` (a ``Trace``'s, CSR input pair included) and the tables' new entries.

        ``extras`` maps names in ``EXTRAS`` to JSON-ready data that the header carries as is; ``readings`` are
        the segment's gauge readings, written as columns (their series join the file's series table).

        Raises
        ------
        ValueError
            If ``extras`` names something not in ``EXTRAS``, or ``gauges`` (version 3's JSON readings).
        """
        unknown = sorted(set(extras or {}).difference(EXTRAS))
        if unknown:
            raise ValueError(f"extras {unknown} are not part of the trace format; a header carries only {EXTRAS}")
        if "gauges" in (extras or {}):
            raise ValueError("gauge readings are written as columns since version 4: pass them as readings= "
                             "(rlviz.trace.gauges.readings_of turns {name: Gauge} into them), not as extras")
        readings = _NO_READINGS if readings is None else readings
        known = len(self._series)
        series = self._numbers(readings)
        columns = {**columns, "gauge_series": series, "gauge_time_ns": readings.time_ns, "gauge_value": readings.value}
        names = [*COLUMNS, *INPUT_COLUMNS, *_GAUGE_COLUMNS]
        blobs = [np.ascontiguousarray(columns[name], dtype=_DTYPES[name]) for name in names]
        header = {"events": len(columns["node"]), "nodes": [node.to_dict() for node in nodes[self._nodes:]],
                  "texts": list(texts[self._texts:]), "dropped": int(dropped), "readings": len(series),
                  "series": [list(entry) for entry in list(self._series)[known:]],
                  "columns": [[name, blob.dtype.str, blob.nbytes] for name, blob in zip(names, blobs)],
                  **(extras or {})}
        encoded = json.dumps(header, separators=(",", ":")).encode()
        with self.path.open("ab") as out:
            out.write(_LENGTH.pack(len(encoded)) + encoded)
            for blob in blobs:
                out.write(blob.tobytes())
        self.events += header["events"]
        self._nodes, self._texts = len(nodes), len(texts)

    def _numbers(self, readings: Readings) -> np.ndarray:
        """Each reading's series as a number into the file's series table, adding the series it lacks."""
        used = np.unique(readings.series)
        number = np.zeros(int(used[-1]) + 1 if len(used) else 0, np.int64)
        for code in used.tolist():
            name, pid, where = readings.table[code]
            number[code] = self._series.setdefault((str(name), int(pid), str(where)), len(self._series))
        return number[readings.series]


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
    SpillWriter(partial).write(columns, nodes, texts, dropped, extras, readings)
    os.replace(partial, path)


def is_binary_trace(path: str | Path) -> bool:
    """True if ``path`` opens with ``MAGIC`` (a binary trace of any version)."""
    try:
        with Path(path).open("rb") as source:
            return source.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_binary_trace(path: str | Path) -> dict:
    """A binary trace's ``nodes``, ``texts``, ``dropped``, ``columns`` (read lazily, ``LazyColumns``) and ``extras``.

    ``extras`` holds what the headers carry of ``EXTRAS`` as read (JSON data,
    unchecked: the caller parses it): each from the last segment that has it,
    but for those in ``ADDED_UP``, a list of every segment's.  The gauge
    readings of a version 4 file are ``columns.readings()`` (read when asked).

    Raises
    ------
    TraceFormatError
        If the version is not one of ``READS``, a header is not valid JSON, or
        the file is cut short; the message names the file, the byte and the fix.
    """
    path = Path(path)
    segments, nodes, texts, dropped, extras = [], [], [], 0, {}
    with path.open("rb") as source:
        source.seek(len(MAGIC))
        raw = source.read(_HEAD.size)
        version = _HEAD.unpack(raw)[0] if len(raw) == _HEAD.size else None
        if version not in READS:
            raise TraceFormatError(f"{path}: rlviz trace format version {version} is not supported; this rlviz "
                                   f"reads versions {', '.join(map(str, READS))} in this layout ({MAGIC.decode()}), "
                                   f"version 5 as an Arrow IPC stream and the JSON of version 1: open "
                                   f"it with the rlviz that wrote it (a newer one, if the version is higher), or "
                                   f"save it again with this one")
        size = path.stat().st_size
        while source.tell() < size:
            at = source.tell()
            header = _segment_header(source, path, at, size, version)
            nodes.extend(_node(raw_node, path, at) for raw_node in header["nodes"])
            texts.extend(header["texts"])
            dropped = header["dropped"]                  # the last segment's count is the file's
            extras.update((key, header[key]) for key in EXTRAS if key in header and key not in ADDED_UP)
            for key in ADDED_UP.intersection(header):
                extras.setdefault(key, []).append(header[key])
            segments.append((source.tell(), header))
            source.seek(sum(nbytes for _, _, nbytes in header["columns"]), 1)
    return {"nodes": nodes, "texts": texts, "dropped": dropped, "columns": LazyColumns(path, segments),
            "extras": extras}


def _segment_header(source, path: Path, at: int, size: int, version: int) -> dict:
    """The JSON header of the segment at byte ``at`` of a file of ``version``, checked; ``source`` is left at its
    first column byte."""
    raw = source.read(_LENGTH.size)
    length = _LENGTH.unpack(raw)[0] if len(raw) == _LENGTH.size else size
    if at + _LENGTH.size + length > size:
        raise TraceFormatError(f"{path}: the segment at byte {at} is cut short (the file ends at byte {size}); "
                               f"the run writing it may have been killed: copy the file again, or re-record")
    try:
        header = json.loads(source.read(length))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TraceFormatError(f"{path}: the segment header at byte {at} is not JSON ({err}); the file is "
                               f"damaged or not an rlviz trace") from None
    keys = {"events": int, "nodes": list, "texts": list, "dropped": int, "columns": list,
            **({"readings": int, "series": list} if version >= 4 else {})}
    if not isinstance(header, dict) or not all(isinstance(header.get(k), t) for k, t in keys.items()):
        raise TraceFormatError(f"{path}: the segment header at byte {at} lacks one of {sorted(keys)}; the file "
                               f"is damaged or not an rlviz trace")
    if version >= 4 and (header["readings"] < 0 or "gauges" in header or not all(
            isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) and type(entry[1]) is int
            and isinstance(entry[2], str) for entry in header["series"])):
        raise TraceFormatError(f"{path}: the segment header at byte {at} has a \"series\" that is not a list of "
                               f"[name, pid, where] (str, int, str), a negative \"readings\" or JSON \"gauges\" "
                               f"(version 4 keeps readings in columns); the file is damaged or not an rlviz trace")
    expected = [*COLUMNS, *INPUT_COLUMNS, *(_GAUGE_COLUMNS if version >= 4 else ())]
    names = [entry[0] for entry in header["columns"] if isinstance(entry, list) and len(entry) == 3]
    if names != expected:
        raise TraceFormatError(f"{path}: the segment at byte {at} has columns {names}, expected "
                               f"{expected}; save the trace again with this rlviz")
    for name, dtype, nbytes in header["columns"]:
        rows = header["readings"] if name in _GAUGE_COLUMNS else header["events"] + (name == "input_offsets")
        counted = f"{header['readings']} readings" if name in _GAUGE_COLUMNS else f"{header['events']} events"
        if dtype != _DTYPES[name] or not isinstance(nbytes, int) or nbytes < 0 or (
                name != "input_ids" and nbytes != rows * np.dtype(_DTYPES[name]).itemsize):
            raise TraceFormatError(f"{path}: the segment at byte {at} gives column {name!r} as {dtype!r}, "
                                   f"{nbytes!r} bytes; {counted} need {_DTYPES[name]!r}, "
                                   f"{rows * np.dtype(_DTYPES[name]).itemsize} bytes: the file is damaged or "
                                   f"not an rlviz trace")
    end = source.tell() + sum(nbytes for _, _, nbytes in header["columns"])
    if end > size:
        raise TraceFormatError(f"{path}: the segment at byte {at} needs {end - size} bytes more than the file "
                               f"has; the file was cut short: copy it again, or re-record")
    return header


def _node(raw: object, path: Path, at: int) -> Node:
    try:
        return Node.from_dict(raw)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise TraceFormatError(f"{path}: a node in the segment at byte {at} is not valid ({err!r})") from None


class LazyColumns(LazyEventColumns):
    """A ``Trace``'s columns, each read from the file (every segment) the first time it is asked for.

    Events come ordered by start, then end, as a ``Trace``'s are; ``input_offsets``
    and ``input_ids`` follow that order.  Assigning a column keeps it in memory.
    """

    def __init__(self, path: Path, segments: list[tuple[int, dict]]) -> None:
        super().__init__()
        self._path = path
        self._segments = segments
        self._table = [tuple(entry) for _, header in segments for entry in header.get("series", [])]
        self._order: np.ndarray | None = None

    def read_column(self, name: str) -> np.ndarray:
        return self._raw(name)[self._ordering()]

    @property
    def events(self) -> int:
        """How many events the file holds (from the headers: nothing is read)."""
        return sum(header["events"] for _, header in self._segments)

    def readings(self) -> Readings:
        """The gauge readings of every segment (version 4; none in older files), read the first time.

        Raises
        ------
        TraceFormatError
            If a reading names a series beyond those its segment and the ones before listed.
        """
        if "gauge_series" not in self.loaded:             # held beside the events' columns, once read
            for name in ("gauge_time_ns", "gauge_value"):
                self[name] = self._raw(name)
            self["gauge_series"] = self._checked_series()
        return Readings(self._table, self["gauge_series"], self["gauge_time_ns"], self["gauge_value"])

    def _checked_series(self) -> np.ndarray:
        """The ``gauge_series`` column (int64), each number checked against the table as far as its segment."""
        series = self._raw("gauge_series").astype(np.int64)
        at, known = 0, 0
        for start, header in self._segments:
            known += len(header.get("series", []))
            part = series[at:at + header.get("readings", 0)]
            if len(part) and int(part.max()) >= known:
                raise TraceFormatError(f"{self._path}: a gauge reading in the segment whose columns start at byte "
                                       f"{start} names series {int(part.max())}, but the file lists {known} by "
                                       f"then; the file is damaged: copy it again, or re-record")
            at += len(part)
        return series

    def positions(self, in_file: np.ndarray) -> np.ndarray:
        """Where the events numbered ``in_file`` (in file order, counted across segments) sit in the columns'
        order (by start, then end); reads ``start_ns`` and ``end_ns``."""
        order = self._ordering()
        where = np.empty(len(order), np.int64)
        where[order] = np.arange(len(order))
        return where[np.asarray(in_file, np.int64)]

    def _ordering(self) -> np.ndarray:
        if self._order is None:
            self._order = np.lexsort((self._raw("end_ns"), self._raw("start_ns")))
        return self._order

    def _raw(self, name: str) -> np.ndarray:
        """Column ``name`` of every segment, in file order."""
        parts = []
        with self._path.open("rb") as source:
            for start, header in self._segments:
                offset = start
                for column, dtype, nbytes in header["columns"]:
                    if column == name:
                        source.seek(offset)
                        parts.append(np.frombuffer(source.read(nbytes), dtype=np.dtype(dtype)))
                    offset += nbytes
        return np.concatenate(parts) if parts else np.zeros(0, _DTYPES[name])

    def read_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The CSR input pair of all segments, re-based and put in the events' order."""
        counts, ids = [], []
        with self._path.open("rb") as source:
            for start, header in self._segments:
                offset, found = start, {}
                for column, dtype, nbytes in header["columns"]:
                    if column in INPUT_COLUMNS:
                        source.seek(offset)
                        found[column] = np.frombuffer(source.read(nbytes), dtype=np.dtype(dtype))
                    offset += nbytes
                counts.append(np.diff(found["input_offsets"]))
                ids.append(found["input_ids"])
        if not counts:
            return np.zeros(1, np.int64), np.zeros(0, np.int64)
        return reordered_inputs(np.concatenate(counts), np.concatenate(ids), self._ordering())
