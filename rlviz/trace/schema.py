"""What a ``Trace`` holds: its per-event columns, and the error for data that does not fit them.

Shared by ``Trace`` and the JSON reader (``rlviz.trace.io``), which builds a
Trace's parts without importing ``Trace``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["COLUMNS", "TraceFormatError"]

#: The per-event columns and their dtypes.
COLUMNS = {
    "node": np.int32, "pid": np.int64, "start_ns": np.int64, "end_ns": np.int64,
    "outcome": np.uint8, "item_kind": np.uint8, "item_num": np.int64, "item_id": np.int64,
}


class TraceFormatError(ValueError):
    """A trace file or record list is not a valid rlviz trace."""
