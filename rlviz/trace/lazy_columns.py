"""A loaded trace's columns, each read from its file the first time it is asked for.

Both readers of trace files (``rlviz.trace.spill`` for the Arrow format,
``rlviz.trace.legacy`` for versions 2–4) hand a ``Trace`` such a mapping, so
that loading reads headers only and a query pays for the columns it touches.
What differs between them is only how a column comes out of the file; this
class holds what is the same: which names there are, what is held, and that
an assigned column stays in memory.
"""
from __future__ import annotations

from collections.abc import Iterator, MutableMapping

import numpy as np

from rlviz.trace.schema import COLUMNS

__all__ = ["LazyEventColumns", "INPUT_COLUMNS", "reordered_inputs"]

#: The two columns of each event's inputs (compressed sparse rows), read together.
INPUT_COLUMNS = ("input_offsets", "input_ids")


class LazyEventColumns(MutableMapping):
    """The event columns of ``rlviz.trace.schema.COLUMNS`` and the inputs, each read once, when first asked for.

    Subclasses say how: ``read_column(name)`` gives one column in the trace's
    order (by start, then end), ``read_inputs()`` the inputs' offsets and ids in
    that order, and ``events`` how many events the file holds.
    """

    def __init__(self) -> None:
        self._held: dict[str, np.ndarray] = {}

    def read_column(self, name: str) -> np.ndarray:
        """Column ``name`` of ``COLUMNS``, read from the file, in the trace's order."""
        raise NotImplementedError

    def read_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The inputs' ``input_offsets`` and ``input_ids``, read from the file, in the trace's order."""
        raise NotImplementedError

    @property
    def events(self) -> int:
        """How many events the file holds (from its headers or metadata: nothing is read)."""
        raise NotImplementedError

    def __len__(self) -> int:
        return len(COLUMNS) + len(INPUT_COLUMNS)

    def __iter__(self) -> Iterator[str]:
        return iter([*COLUMNS, *INPUT_COLUMNS])

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._held:
            if name in INPUT_COLUMNS:
                self._held["input_offsets"], self._held["input_ids"] = self.read_inputs()
            elif name in COLUMNS:
                self._held[name] = self.read_column(name)
            else:
                raise KeyError(name)
        return self._held[name]

    def __setitem__(self, name: str, values: np.ndarray) -> None:
        self._held[name] = values

    def __delitem__(self, name: str) -> None:
        raise TypeError("a loaded trace's columns cannot be deleted")

    @property
    def loaded(self) -> list[str]:
        """The columns read (or assigned) so far."""
        return list(self._held)


def reordered_inputs(counts: np.ndarray, ids: np.ndarray, order: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Inputs given in file order (``counts`` per event, ``ids`` flat) as CSR offsets and ids in the trace's
    order (``order``: file positions by start, then end; None if the file is in that order already)."""
    counts, ids = np.asarray(counts, np.int64), np.asarray(ids, np.int64)
    if order is None:
        return np.concatenate(([0], np.cumsum(counts))).astype(np.int64), ids
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    new_counts = counts[order]
    offsets = np.concatenate(([0], np.cumsum(new_counts))).astype(np.int64)
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], new_counts)
    return offsets, ids[np.repeat(starts[order], new_counts) + within]
