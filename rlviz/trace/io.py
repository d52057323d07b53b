"""Saving and loading traces: data only, never code (no pickle).

``save_trace`` writes the rlviz trace format (``rlviz.trace.spill``, the one
a ``record(spill=...)`` file has, version 5): an Arrow IPC stream of the
trace's tables (``rlviz.trace.tables``), every column checksummed.
``read_trace`` reads it, the files of versions 2 to 4 (``rlviz.trace.legacy``)
and the JSON files of version 1; a spill file's decision rows become the
trace's decisions, and the readings the trace's gauges, the first time they
are asked for.  Loading checks every field, so an old, corrupt or foreign
file fails with a ``TraceFormatError`` naming the file, what is wrong and
what to do.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.decisions import Decisions
from rlviz.trace.event import OUTCOMES, Node
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import Gauge, gauges_from_json, merge_gauges, readings_of
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK
from rlviz.trace.rows import DECISION_ROW_FIELDS
from rlviz.trace.schema import COLUMNS, TraceFormatError
from rlviz.trace import legacy
from rlviz.trace.spill import VERSION, LazyColumns, is_arrow_trace, read_binary_trace, write_binary_trace

if TYPE_CHECKING:
    from rlviz.trace.trace import Trace

__all__ = ["save_trace", "read_trace", "FORMAT", "JSON_VERSION"]

#: The ``"format"`` field of a JSON trace (version ``JSON_VERSION``, read only: nothing writes it any more).
FORMAT = "rlviz-trace"
JSON_VERSION = 1


def save_trace(trace: "Trace", path: str | Path, version: int = VERSION) -> None:
    """Write ``trace`` to ``path`` in the rlviz trace format: its events, gaps, decisions and gauges.

    Every column is read before the file is written, so a trace loaded
    lazily from ``path`` can be saved back over it.  ``version`` 4 writes
    the layout before Arrow (``rlviz.trace.legacy``), for comparisons and
    for tests of old files; nothing else should ask for it.

    Raises
    ------
    ValueError
        If ``version`` is neither 4 nor ``VERSION``.
    """
    writers = {legacy.VERSION: legacy.write_binary_trace, VERSION: write_binary_trace}
    if version not in writers:
        raise ValueError(f"save_trace writes version {VERSION} (or {legacy.VERSION}, the layout before Arrow), "
                         f"not {version!r}")
    columns = {name: np.asarray(trace.columns[name]) for name in (*COLUMNS, "input_offsets", "input_ids")}
    extras = {}
    if trace.gaps:
        extras["gaps"] = [[gap.where, int(gap.start_ns), int(gap.end_ns), int(gap.dropped)] for gap in trace.gaps]
    if len(trace.decisions):
        extras["decisions"] = trace.decisions.to_json()
    writers[version](path, columns, trace.nodes, trace.texts, trace.dropped, extras, readings_of(trace.gauges))


def read_trace(path: str | Path) -> dict:
    """Read a trace written by ``save_trace`` or ``record(spill=...)``, or a JSON one: ``Trace(**read_trace(path))``.

    A file in the trace format has its columns read lazily, each the first time it is asked for.

    Returns
    -------
    dict
        The ``Trace`` constructor's arguments: ``nodes``, ``columns``, ``texts``, ``dropped``,
        ``decisions`` (the unions' scheduling decisions, empty in files that have none; for a spill file's
        decision rows, a function that builds them, since that reads the columns),
        ``gauges`` (``{name: Gauge}``, empty in files that have none; for readings kept as columns, a function
        that reads them), ``gaps`` (``Gap``s).

    Raises
    ------
    TraceFormatError
        If the file is of another format or version, or inconsistent.
    """
    reader = read_binary_trace if is_arrow_trace(path) else legacy.read_binary_trace \
        if legacy.is_binary_trace(path) else None
    if reader is not None:
        arguments = reader(path)
        extras = arguments.pop("extras")
        try:
            return {**arguments, **_parse_extras(extras, arguments["columns"], arguments["nodes"])}
        except TraceFormatError as err:
            raise TraceFormatError(f"{path}: {err}") from None
    try:
        document = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TraceFormatError(f"{path}: not an rlviz trace: it neither opens as an Arrow IPC stream (the "
                               f"trace format, version 5) nor with {legacy.MAGIC.decode()} (versions 2-4) nor can "
                               f"be read as JSON ({err}); expected a file written by Trace.save "
                               f"or record(spill=...)") from err
    try:
        return _parse(document)
    except TraceFormatError as err:
        raise TraceFormatError(f"{path}: {err}") from None


def _parse_extras(extras: dict, columns: LazyColumns, nodes: list[Node]) -> dict:
    """The decisions, gauges and gaps of a file in the trace format, from its headers' JSON (readings kept as
    columns: a function that reads them)."""
    if "decisions" in extras and "decision_rows" in extras:
        raise TraceFormatError("the file carries both a trace's \"decisions\" and a spill's \"decision_rows\"; "
                               "rlviz writes one or the other: the file was edited or is damaged")
    if "decision_rows" in extras:
        rows = _decision_rows(extras["decision_rows"], columns.events, len(nodes))
        decisions = partial(_decisions_of_rows, rows, columns, nodes)
    else:
        decisions = _decisions(extras["decisions"], columns.events) if "decisions" in extras else Decisions()
    if "gauges" in extras:                                   # version 3: the readings as JSON
        try:
            gauges = merge_gauges([gauges_from_json(part) for part in extras["gauges"]])
        except ValueError as err:
            raise TraceFormatError(str(err)) from None
    else:
        gauges = partial(_gauges_of_columns, columns)
    return {"decisions": decisions, "gauges": gauges, "gaps": _gaps(extras.get("gaps", []))}


def _gauges_of_columns(columns: LazyColumns) -> dict[str, Gauge]:
    """A file's gauges, from its readings' columns (read here)."""
    return columns.readings().to_gauges()


def _gaps(raw: object) -> tuple[Gap, ...]:
    shape = "a list of [where, start_ns, end_ns, dropped] lists (a str, then ints, dropped > 0)"
    if not isinstance(raw, list):
        raise TraceFormatError(f"\"gaps\" must be {shape}")
    for gap in raw:
        if not (isinstance(gap, list) and len(gap) == 4 and isinstance(gap[0], str)
                and all(type(v) is int for v in gap[1:]) and gap[1] <= gap[2] and gap[3] > 0):
            raise TraceFormatError(f"\"gaps\" has {gap!r}; it must be {shape}, start_ns <= end_ns")
    return tuple(Gap(*gap) for gap in raw)


def _decisions(raw: object, n_events: int) -> Decisions:
    try:
        decisions = Decisions.from_json(raw)
    except ValueError as err:
        raise TraceFormatError(str(err)) from None
    if len(decisions) and max(decisions.columns["event"].max(), decisions.columns["union_event"].max()) >= n_events:
        raise TraceFormatError("a decision refers to an event outside the trace")
    return decisions


def _decision_rows(segments: list, n_events: int, n_nodes: int) -> dict[str, np.ndarray]:
    """Every segment's decision rows, checked (``event`` a position in the file, ``union`` a node index)."""
    names = ("event", *DECISION_ROW_FIELDS)
    shape = f"an object of integer lists {', '.join(names)}, all of one length"
    parts = []
    for number, raw in enumerate(segments):
        if not isinstance(raw, dict) or set(raw) != set(names) or not all(
                _is_integers(raw[name]) for name in names) \
                or len({len(raw[name]) for name in names}) != 1:
            raise TraceFormatError(f"\"decision_rows\" of segment {number + 1} of those that carry them is not "
                                   f"{shape}; the file is damaged or not an rlviz trace")
        try:
            parts.append({name: np.array(raw[name], np.int64) for name in names})
        except OverflowError:
            raise TraceFormatError(f"\"decision_rows\" of segment {number + 1} of those that carry them holds a "
                                   f"number beyond int64; the file is damaged") from None
    rows = {name: np.concatenate([part[name] for part in parts]) for name in names}
    for name, limit, what in (("event", n_events, "events"), ("union", n_nodes, "nodes")):
        outside = np.flatnonzero((rows[name] < 0) | (rows[name] >= limit))
        if len(outside):
            raise TraceFormatError(f"a decision row names {name} {int(rows[name][outside[0]])}, outside the file's "
                                   f"{limit} {what}; the file is damaged")
    return rows


def _is_integers(values: object) -> bool:
    """True for a list of ints (a version 4 header's) or an int64 array (a version 5 file's column)."""
    if isinstance(values, np.ndarray):
        return values.dtype == np.int64
    return isinstance(values, list) and all(type(v) is int for v in values)


def _decisions_of_rows(rows: dict[str, np.ndarray], columns: LazyColumns, nodes: list[Node]) -> Decisions:
    """A spill file's decisions, from its rows: each event's position in the file becomes its place in the trace."""
    return Decisions.from_rows({**rows, "event": columns.positions(rows["event"])}, columns, nodes)


def _parse(document: object) -> dict:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TraceFormatError(f"not an rlviz trace (no \"format\": \"{FORMAT}\" field)")
    if document.get("version") != JSON_VERSION:
        raise TraceFormatError(f"JSON trace version {document.get('version')!r} is not supported; this rlviz "
                               f"reads the JSON of version {JSON_VERSION} and the trace format (an Arrow stream): "
                               f"open it with the rlviz that wrote it, or save it again with this one")
    nodes = [_parse_node(raw, i) for i, raw in enumerate(_field(document, "nodes", list))]
    texts = _field(document, "texts", list)
    if not all(isinstance(t, str) for t in texts):
        raise TraceFormatError("\"texts\" must be a list of strings")
    raw_columns = _field(document, "columns", dict)
    columns = {name: _column(raw_columns, name, dtype) for name, dtype in
               {**COLUMNS, "input_offsets": np.int64, "input_ids": np.int64}.items()}
    _check_consistent(columns, len(nodes), len(texts))
    n_events = len(columns["node"])
    dropped = document.get("dropped", 0)
    if not isinstance(dropped, int) or dropped < 0:
        raise TraceFormatError(f"\"dropped\" must be a non-negative int, got {dropped!r}")
    decisions = _decisions(document["decisions"], n_events) if "decisions" in document else Decisions()
    try:
        gauges = gauges_from_json(document.get("gauges", {}))
    except ValueError as err:
        raise TraceFormatError(str(err)) from None
    return {"nodes": nodes, "columns": columns, "texts": texts, "dropped": dropped, "decisions": decisions,
            "gauges": gauges}


def _field(document: dict, key: str, kind: type):
    value = document.get(key)
    if not isinstance(value, kind):
        raise TraceFormatError(f"field \"{key}\" must be a {kind.__name__}, "
                               f"got {type(value).__name__}")
    return value


def _parse_node(raw: object, index: int) -> Node:
    keys = ("op_id", "op", "label", "where")
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in keys):
        raise TraceFormatError(f"node {index} must be an object with string fields "
                               f"{', '.join(keys)}")
    parents = raw.get("parents", [])
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise TraceFormatError(f"node {index} has parents {parents!r}; expected a list of op_ids")
    try:
        return Node.from_dict(raw)
    except ValueError as error:
        raise TraceFormatError(f"node {index}: {error}") from None


def _column(raw: dict, name: str, dtype) -> np.ndarray:
    values = raw.get(name)
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise TraceFormatError(f"column \"{name}\" must be a list of integers")
    limits = np.iinfo(dtype)
    try:
        wide = np.array(values, dtype=np.int64)
        outside = np.flatnonzero((wide < limits.min) | (wide > limits.max))
    except OverflowError:                            # beyond int64 itself: find it the slow way
        outside = [next(i for i, v in enumerate(values) if not limits.min <= v <= limits.max)]
    if len(outside):
        position = int(outside[0])
        raise TraceFormatError(f"column \"{name}\" record {position} is {values[position]}, outside the "
                               f"column's {np.dtype(dtype).name} range {limits.min}..{limits.max}; "
                               f"the file was not written by Trace.save or was edited")
    return wide.astype(dtype)


def _check_consistent(columns: dict, n_nodes: int, n_texts: int) -> None:
    n = len(columns["node"])
    for name in COLUMNS:
        if len(columns[name]) != n:
            raise TraceFormatError(f"column \"{name}\" has {len(columns[name])} entries, "
                                   f"\"node\" has {n}")
    offsets = columns["input_offsets"]
    if (len(offsets) != n + 1 or (n and offsets[0] != 0) or np.any(np.diff(offsets) < 0)
            or offsets[-1] != len(columns["input_ids"])):
        raise TraceFormatError("\"input_offsets\" does not index \"input_ids\" "
                               "(needs n + 1 rising offsets ending at len(input_ids))")
    if n and (columns["node"].min() < 0 or columns["node"].max() >= n_nodes):
        raise TraceFormatError(f"column \"node\" refers to a node outside the {n_nodes} listed")
    if n and columns["outcome"].max() >= len(OUTCOMES):
        raise TraceFormatError(f"column \"outcome\" has a code outside 0..{len(OUTCOMES) - 1}")
    kinds, numbers = columns["item_kind"], columns["item_num"]
    text_refs = np.concatenate((numbers[kinds == KIND_TEXT], numbers[kinds == KIND_SIZED] & SIZED_NAME_MASK))
    if len(text_refs) and (text_refs.min() < 0 or text_refs.max() >= n_texts):
        raise TraceFormatError("an item summary refers to a text outside \"texts\"")
    if n and np.any(columns["end_ns"] < columns["start_ns"]):
        raise TraceFormatError("an event ends before it starts (end_ns < start_ns)")
