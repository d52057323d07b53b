"""The binary trace format (version 2): segments of columns, each behind a JSON header; read lazily.

A ``record(spill=path)`` block appends to such a file what its bounded
buffers evict, instead of losing it, and ``Trace.load`` reads one back.  The
layout (docs/design.md, "The binary trace format"):

* the file opens with ``MAGIC`` (8 bytes) and the version as a little-endian
  uint32;
* then segments, each an 8-byte little-endian length, that many bytes of
  UTF-8 JSON (``events``, the ``nodes`` and ``texts`` added since the segment
  before, ``dropped``, and ``columns``: ``[name, numpy dtype string, nbytes]``
  in the order their bytes follow), then the column bytes.

Node indices and text numbers count across segments: each segment only adds
to the tables.  Nothing in it is code (no pickle).  Loading reads the
headers only; a column is read from every segment the first time it is
asked for.
"""
from __future__ import annotations

import json
import struct
from collections.abc import Iterator, MutableMapping
from pathlib import Path

import numpy as np

from rlviz.trace.event import Node
from rlviz.trace.schema import COLUMNS, TraceFormatError

__all__ = ["MAGIC", "VERSION", "SpillWriter", "is_binary_trace", "read_binary_trace", "LazyColumns"]

MAGIC = b"RLVIZTRC"
VERSION = 2
_LENGTH = struct.Struct("<Q")
_HEAD = struct.Struct("<I")
_CSR = ("input_offsets", "input_ids")


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

    def write(self, columns: dict[str, np.ndarray], nodes: list[Node], texts: list[str], dropped: int = 0) -> None:
        """Append one segment: ``columns`` (a ``Trace``'s, CSR input pair included) and the tables' new entries."""
        names = [*COLUMNS, *_CSR]
        blobs = [np.ascontiguousarray(columns[name]) for name in names]
        header = {"events": len(columns["node"]), "nodes": [node.to_dict() for node in nodes[self._nodes:]],
                  "texts": list(texts[self._texts:]), "dropped": int(dropped),
                  "columns": [[name, blob.dtype.str, blob.nbytes] for name, blob in zip(names, blobs)]}
        encoded = json.dumps(header, separators=(",", ":")).encode()
        with self.path.open("ab") as out:
            out.write(_LENGTH.pack(len(encoded)) + encoded)
            for blob in blobs:
                out.write(blob.tobytes())
        self.events += header["events"]
        self._nodes, self._texts = len(nodes), len(texts)


def is_binary_trace(path: str | Path) -> bool:
    """True if ``path`` opens with ``MAGIC`` (a binary trace of any version)."""
    try:
        with Path(path).open("rb") as source:
            return source.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_binary_trace(path: str | Path) -> dict:
    """The ``Trace`` constructor's arguments for a binary trace, its columns read lazily (``LazyColumns``).

    Raises
    ------
    TraceFormatError
        If the version is not ``VERSION``, a header is not valid JSON, or the
        file is cut short; the message names the file, the byte and the fix.
    """
    path = Path(path)
    segments, nodes, texts, dropped = [], [], [], 0
    with path.open("rb") as source:
        source.seek(len(MAGIC))
        raw = source.read(_HEAD.size)
        version = _HEAD.unpack(raw)[0] if len(raw) == _HEAD.size else None
        if version != VERSION:
            raise TraceFormatError(f"{path}: binary trace version {version} is not supported; this rlviz reads "
                                   f"version {VERSION} (and JSON version 1): open it with the rlviz that wrote it, "
                                   f"or save it again with this one")
        size = path.stat().st_size
        while source.tell() < size:
            at = source.tell()
            header = _segment_header(source, path, at, size)
            nodes.extend(_node(raw_node, path, at) for raw_node in header["nodes"])
            texts.extend(header["texts"])
            dropped = max(dropped, header["dropped"])
            segments.append((source.tell(), header))
            source.seek(sum(nbytes for _, _, nbytes in header["columns"]), 1)
    return {"nodes": nodes, "texts": texts, "dropped": dropped, "columns": LazyColumns(path, segments)}


def _segment_header(source, path: Path, at: int, size: int) -> dict:
    """The JSON header of the segment at byte ``at``, checked; ``source`` is left at its first column byte."""
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
    keys = {"events": int, "nodes": list, "texts": list, "dropped": int, "columns": list}
    if not isinstance(header, dict) or not all(isinstance(header.get(k), t) for k, t in keys.items()):
        raise TraceFormatError(f"{path}: the segment header at byte {at} lacks one of {sorted(keys)}; the file "
                               f"is damaged or not an rlviz trace")
    names = [entry[0] for entry in header["columns"] if isinstance(entry, list) and len(entry) == 3]
    if names != [*COLUMNS, *_CSR]:
        raise TraceFormatError(f"{path}: the segment at byte {at} has columns {names}, expected "
                               f"{[*COLUMNS, *_CSR]}; save the trace again with this rlviz")
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


class LazyColumns(MutableMapping):
    """A ``Trace``'s columns, each read from the file (every segment) the first time it is asked for.

    Events come ordered by start, then end, as a ``Trace``'s are; ``input_offsets``
    and ``input_ids`` follow that order.  Assigning a column keeps it in memory.
    """

    def __init__(self, path: Path, segments: list[tuple[int, dict]]) -> None:
        self._path = path
        self._segments = segments
        self._held: dict[str, np.ndarray] = {}
        self._order: np.ndarray | None = None

    def __len__(self) -> int:
        return len(COLUMNS) + len(_CSR)

    def __iter__(self) -> Iterator[str]:
        return iter([*COLUMNS, *_CSR])

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._held:
            if name not in COLUMNS and name not in _CSR:
                raise KeyError(name)
            if name in _CSR:
                self._held["input_offsets"], self._held["input_ids"] = self._inputs()
            else:
                self._held[name] = self._raw(name)[self._ordering()]
        return self._held[name]

    def __setitem__(self, name: str, values: np.ndarray) -> None:
        self._held[name] = values

    def __delitem__(self, name: str) -> None:
        raise TypeError("a loaded trace's columns cannot be deleted")

    @property
    def loaded(self) -> list[str]:
        """The columns read (or assigned) so far."""
        return list(self._held)

    @property
    def events(self) -> int:
        """How many events the file holds (from the headers: nothing is read)."""
        return sum(header["events"] for _, header in self._segments)

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
        return np.concatenate(parts) if parts else np.zeros(0, COLUMNS.get(name, np.int64))

    def _inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The CSR input pair of all segments, re-based and put in the events' order."""
        counts, ids = [], []
        with self._path.open("rb") as source:
            for start, header in self._segments:
                offset, found = start, {}
                for column, dtype, nbytes in header["columns"]:
                    if column in _CSR:
                        source.seek(offset)
                        found[column] = np.frombuffer(source.read(nbytes), dtype=np.dtype(dtype))
                    offset += nbytes
                counts.append(np.diff(found["input_offsets"]))
                ids.append(found["input_ids"])
        if not counts:
            return np.zeros(1, np.int64), np.zeros(0, np.int64)
        count, flat = np.concatenate(counts), np.concatenate(ids)
        starts = np.concatenate(([0], np.cumsum(count)[:-1]))
        order = self._ordering()
        new_count = count[order]
        offsets = np.concatenate(([0], np.cumsum(new_count))).astype(np.int64)
        within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], new_count)
        return offsets, flat[np.repeat(starts[order], new_count) + within].astype(np.int64)
