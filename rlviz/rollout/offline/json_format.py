"""One batch as one line of JSON, in RLlib's ``JsonWriter`` layout, and back.

A line is one JSON object: ``"type"`` (``"SampleBatch"`` or ``"MultiAgentBatch"``),
then one key per column holding the column as nested lists.  A
``MultiAgentBatch`` line holds ``"count"`` (env steps) and ``"policy_batches"``
(policy id -> columns).  A compressed column is the object
``{"ndarray": base64 of zlib-compressed raw bytes, "dtype": ..., "shape": ...}``
instead of RLlib's base64 of a pickle, so reading a file never runs code.
"""
from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Collection
from typing import Any

import numpy as np

from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["batch_to_json", "batch_from_json", "DEFAULT_COMPRESS_COLUMNS"]

#: The columns RLlib's ``output_compress_columns`` compresses by default.
DEFAULT_COMPRESS_COLUMNS = ("obs", "new_obs")

#: The key of a compressed column's object.
_PACKED = "ndarray"


def batch_to_json(batch: SampleBatch | MultiAgentBatch,
                  compress_columns: Collection[str] = DEFAULT_COMPRESS_COLUMNS) -> str:
    """``batch`` as one line of JSON (no newline), the columns in ``compress_columns`` compressed.

    Raises
    ------
    TypeError
        If ``batch`` is neither a ``SampleBatch`` nor a ``MultiAgentBatch``.

    Examples
    --------
    >>> batch_to_json(SampleBatch(actions=[1, 0]), compress_columns=())
    '{"type": "SampleBatch", "actions": [1, 0]}'
    """
    if isinstance(batch, MultiAgentBatch):
        policy_batches = {pid: _columns_to_json(part, compress_columns)
                          for pid, part in batch.policy_batches.items()}
        return json.dumps({"type": "MultiAgentBatch", "count": batch.count, "policy_batches": policy_batches})
    if isinstance(batch, SampleBatch):
        return json.dumps({"type": "SampleBatch", **_columns_to_json(batch, compress_columns)})
    raise TypeError(f"only a SampleBatch or MultiAgentBatch can be written as JSON, not {type(batch).__name__}")


def batch_from_json(line: str) -> SampleBatch | MultiAgentBatch:
    """The batch one JSON line holds (``batch_to_json``'s inverse; plain lists come back as numpy arrays).

    Raises
    ------
    ValueError
        If the line is not JSON, has no ``"type"``, or its type is unknown.

    Examples
    --------
    >>> batch_from_json('{"type": "SampleBatch", "actions": [1, 0]}')["actions"].tolist()
    [1, 0]
    """
    data = json.loads(line)
    if not isinstance(data, dict) or "type" not in data:
        raise ValueError("the JSON record has no 'type' field; each line must be one object written by JsonWriter")
    kind = data.pop("type")
    if kind == "SampleBatch":
        return SampleBatch(_columns_from_json(data))
    if kind == "MultiAgentBatch":
        parts = {pid: SampleBatch(_columns_from_json(columns)) for pid, columns in data["policy_batches"].items()}
        return MultiAgentBatch(parts, data["count"])
    raise ValueError(f"the JSON record's type {kind!r} is neither 'SampleBatch' nor 'MultiAgentBatch'")


def _columns_to_json(batch: SampleBatch, compress_columns: Collection[str]) -> dict[str, Any]:
    return {key: _pack(value) if key in compress_columns else _plain(value) for key, value in batch.items()}


def _columns_from_json(columns: dict[str, Any]) -> dict[str, np.ndarray]:
    return {key: _unpack(value) if isinstance(value, dict) and _PACKED in value else np.asarray(value)
            for key, value in columns.items()}


def _plain(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value


def _pack(value: Any) -> dict[str, Any]:
    array = np.ascontiguousarray(value)
    if array.dtype.hasobject:
        raise TypeError(f"a column of Python objects cannot be compressed; leave it out of compress_columns "
                        f"(dtype {array.dtype})")
    data = base64.b64encode(zlib.compress(array.tobytes(), 1)).decode("ascii")
    return {_PACKED: data, "dtype": array.dtype.str, "shape": list(array.shape)}


def _unpack(value: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(value["dtype"])
    if dtype.hasobject:
        raise ValueError(f"a compressed column may not hold Python objects (dtype {dtype})")
    raw = zlib.decompress(base64.b64decode(value[_PACKED]))
    return np.frombuffer(raw, dtype).reshape(value["shape"]).copy()
