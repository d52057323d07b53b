"""Saving and loading traces as JSON: data only, never code (no pickle).

Loading checks every field, so a corrupt or foreign file fails with a
``TraceFormatError`` naming the file and what is wrong.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace.decisions import Decisions
from rlviz.trace.event import OUTCOMES, Node
from rlviz.trace.gauges import gauges_from_json, gauges_to_json
from rlviz.trace.items import KIND_SIZED, KIND_TEXT, SIZED_NAME_MASK
from rlviz.trace.schema import COLUMNS, TraceFormatError
from rlviz.trace.spill import is_binary_trace, read_binary_trace

if TYPE_CHECKING:
    from rlviz.trace.trace import Trace

__all__ = ["save_trace", "read_trace", "FORMAT", "VERSION"]

FORMAT = "rlviz-trace"
VERSION = 1


def save_trace(trace: "Trace", path: str | Path) -> None:
    """Write ``trace`` to ``path`` as columnar JSON."""
    columns = {name: trace.columns[name].tolist() for name in (*COLUMNS, "input_offsets", "input_ids")}
    document = {"format": FORMAT, "version": VERSION, "dropped": trace.dropped,
                "nodes": [node.to_dict() for node in trace.nodes], "texts": trace.texts,
                "columns": columns}
    if len(trace.decisions):
        document["decisions"] = trace.decisions.to_json()
    if trace.gauges:
        document["gauges"] = gauges_to_json(trace.gauges)
    Path(path).write_text(json.dumps(document, separators=(",", ":")))


def read_trace(path: str | Path) -> dict:
    """Read a trace written by ``save_trace`` (or a binary one, ``rlviz.trace.spill``): ``Trace(**read_trace(path))``.

    A binary trace's columns are read lazily, each the first time it is asked for.

    Returns
    -------
    dict
        The ``Trace`` constructor's arguments: ``nodes``, ``columns``, ``texts``, ``dropped``,
        ``decisions`` (the unions' scheduling decisions, empty in files that have none),
        ``gauges`` (``{name: Gauge}``, empty in files that have none).

    Raises
    ------
    TraceFormatError
        If the file is not JSON, not an rlviz trace, or inconsistent.
    """
    if is_binary_trace(path):
        return {**read_binary_trace(path), "decisions": Decisions(), "gauges": {}}
    try:
        document = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TraceFormatError(f"{path}: cannot read as JSON ({err}); "
                               f"expected a file written by Trace.save") from err
    try:
        return _parse(document)
    except TraceFormatError as err:
        raise TraceFormatError(f"{path}: {err}") from None


def _parse(document: object) -> dict:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TraceFormatError(f"not an rlviz trace (no \"format\": \"{FORMAT}\" field)")
    if document.get("version") != VERSION:
        raise TraceFormatError(f"trace format version {document.get('version')!r} is not "
                               f"supported; this rlviz reads version {VERSION}")
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
    decisions = Decisions()
    if "decisions" in document:
        try:
            decisions = Decisions.from_json(document["decisions"])
        except ValueError as err:
            raise TraceFormatError(str(err)) from None
        if len(decisions) and max(decisions.columns["event"].max(), decisions.columns["union_event"].max()) >= n_events:
            raise TraceFormatError("a decision refers to an event outside the trace")
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
