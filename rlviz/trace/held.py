"""Rows held as parallel columns behind a movable front, so taking rows out near either end moves few others.

A store evicts its oldest rows, so the rows that leave sit near the front.
``HeldColumns.compact`` moves only the kept rows on the cheaper side of the
leaving ones: those before them slide towards the back and the front
advances, or those after them slide towards the front.  The dead rows before
the front are taken back when the columns must make room: moved down in
place when that frees enough, else with the growth's copy.
"""
from __future__ import annotations

import numpy as np

from rlviz.trace.growing import COMPACT_BLOCK, GROW, compact, zeros

__all__ = ["HeldColumns", "compact_back", "move", "RECLAIM"]

#: Dead front rows are moved out in place (not by growing) only if that leaves at least this share of the
#: columns free: each such move then buys that many appends, so it costs at most 1 / RECLAIM row copies per
#: row appended.
RECLAIM = 1 / 32


class HeldColumns:
    """Columns of held rows (positions ``0 .. len - 1``, in order) in arrays from ``rlviz.trace.growing.zeros``.

    Parameters
    ----------
    dtypes : dict
        Each column's name and dtype.

    Examples
    --------
    >>> rows = HeldColumns({"id": np.int64})
    >>> rows.append({"id": np.arange(5)}, 5)
    >>> rows.compact(np.array([False, True, False, True, True]))
    2
    >>> rows.column("id").tolist()
    [1, 3, 4]
    """

    def __init__(self, dtypes: dict[str, np.dtype | type]) -> None:
        self._arrays = {name: zeros(1024, dtype) for name, dtype in dtypes.items()}
        self._front = 0
        self._held = 0

    def __len__(self) -> int:
        return self._held

    @property
    def front(self) -> int:
        """Where the first held row sits in the arrays (the rows before it are dead)."""
        return self._front

    @property
    def capacity(self) -> int:
        """Rows the arrays have room for, the dead front included."""
        return len(next(iter(self._arrays.values())))

    @property
    def dtypes(self) -> dict[str, np.dtype]:
        """Each column's name and dtype (a new dict)."""
        return {name: array.dtype for name, array in self._arrays.items()}

    def column(self, name: str) -> np.ndarray:
        """Column ``name`` of the held rows (a view, valid until the rows change)."""
        return self._arrays[name][self._front:self._front + self._held]

    def append(self, values: dict, count: int) -> None:
        """Append ``count`` rows: ``values`` gives each column's values (arrays of ``count``, or one scalar).

        A column left out of ``values`` gets zeros.
        """
        self._reserve(count)
        end = self._front + self._held
        for name, array in self._arrays.items():
            array[end:end + count] = values.get(name, 0)
        self._held += count

    def compact(self, keep: np.ndarray, start: int = 0) -> int:
        """Take out the rows from position ``start`` on where ``keep`` is false (rows beyond ``keep`` stay).

        Only the kept rows on the cheaper side of the leaving ones move:
        those before the last leaving row towards it (the front advances),
        or those after the first leaving row towards it.

        Parameters
        ----------
        keep : numpy.ndarray
            One flag per row from ``start`` on (at most to the last held row).
        start : int, default 0
            The position of ``keep``'s first flag.

        Returns
        -------
        int
            How many rows left.

        Raises
        ------
        ValueError
            If ``keep`` reaches past the held rows.
        """
        if not 0 <= start <= start + len(keep) <= self._held:
            raise ValueError(f"keep covers rows {start}..{start + len(keep) - 1} but {self._held} rows are held; "
                             f"pass one flag per held row from start on")
        leaving = np.flatnonzero(~keep)
        if not len(leaving):
            return 0
        first, last = start + int(leaving[0]), start + int(leaving[-1])
        inside = keep[first - start:last + 1 - start]
        if first <= self._held - 1 - last:
            self._close_from_front(first, last, inside)
        else:
            self._close_from_back(first, last, inside)
        self._held -= len(leaving)
        return len(leaving)

    def drop_in(self, name: str, values: np.ndarray, most: int) -> int:
        """Take out the rows whose column ``name`` holds one of ``values`` (ascending ints), at most ``most`` rows
        (found by ``find_in``, so only the rows up to the last of them are read).

        Returns
        -------
        int
            How many rows left.
        """
        hits = self.find_in(name, values, most)
        if not len(hits):
            return 0
        keep = np.ones(int(hits[-1]) + 1 - int(hits[0]), bool)
        keep[hits - hits[0]] = False
        return self.compact(keep, int(hits[0]))

    def find_in(self, name: str, values: np.ndarray, most: int) -> np.ndarray:
        """The positions (ascending) of the rows whose column ``name`` holds one of ``values`` (ascending ints).

        Reads block by block from the front, where old rows sit, and stops
        once ``most`` rows are found: finding old rows reads the held rows up
        to the last of them, not all of them, and no temporary is larger
        than a block.
        """
        if not most or not len(values):
            return np.zeros(0, np.int64)
        column, first = self.column(name), int(values[0])
        is_value = np.zeros(int(values[-1]) - first + 1, bool)
        is_value[np.asarray(values, np.int64) - first] = True
        found, count = [np.zeros(0, np.int64)], 0
        for at in range(0, len(column), COMPACT_BLOCK):
            offset = column[at:at + COMPACT_BLOCK].astype(np.int64) - first
            near = np.flatnonzero((offset >= 0) & (offset < len(is_value)))
            hits = at + near[is_value[offset[near]]]
            found.append(hits)
            count += len(hits)
            if count >= most:
                break
        return np.concatenate(found)

    def drop_front(self, count: int) -> None:
        """Take out the first ``count`` held rows (nothing moves).

        Raises
        ------
        ValueError
            If ``count`` is negative or more than the rows held.
        """
        if not 0 <= count <= self._held:
            raise ValueError(f"count={count} must be between 0 and the {self._held} rows held")
        self._front += count
        self._held -= count

    def memory(self) -> dict[str, int]:
        """Bytes each column's array holds, as allocated (the dead front and the spare room included)."""
        return {name: array.nbytes for name, array in self._arrays.items()}

    def _close_from_front(self, first: int, last: int, inside: np.ndarray) -> None:
        """Rows ``first..last`` (``inside`` flags which stay) close up towards ``last``; the rows before them follow."""
        gone = len(inside) - int(inside.sum())
        for array in self._arrays.values():
            held = array[self._front:self._front + last + 1]
            compact_back(held[first:], inside)
            move(held, 0, gone, first)
        self._front += gone

    def _close_from_back(self, first: int, last: int, inside: np.ndarray) -> None:
        """Rows ``first..last`` (``inside`` flags which stay) close up towards ``first``; the rows after them follow."""
        kept = int(inside.sum())
        after = self._held - 1 - last
        for array in self._arrays.values():
            held = array[self._front:self._front + self._held]
            compact(held[first:], len(inside), inside)
            move(held, last + 1, first + kept, after)

    def _reserve(self, count: int) -> None:
        """Make room for ``count`` more rows at the back: move the held rows down over the dead front when that
        leaves ``RECLAIM`` of the columns free, else grow them (the copy leaves the dead front behind).

        Rows that fill the columns grow them by ``GROW``; rows that fit but
        would leave too little free (a store holding about as many rows as
        its columns, its oldest leaving as new ones come) only to twice
        ``RECLAIM`` free, if that is less.
        """
        capacity, needed = self.capacity, self._held + count
        if self._front + needed <= capacity:
            return
        if needed <= capacity - int(capacity * RECLAIM):
            for array in self._arrays.values():
                move(array, self._front, 0, self._held)
        else:
            size = int(capacity * GROW) + 1
            if needed <= capacity:
                size = min(size, int(needed / (1 - 2 * RECLAIM)) + 1)
            size = max(size, needed)
            for name, array in self._arrays.items():
                bigger = zeros(size, array.dtype)
                bigger[:self._held] = array[self._front:self._front + self._held]
                self._arrays[name] = bigger
        self._front = 0


def compact_back(array: np.ndarray, keep: np.ndarray) -> int:
    """Move ``array``'s values where ``keep`` (one flag per value) is true to its back, in order; return how many.

    Block by block from the back: a block's kept values land at or after
    the block, so nothing is overwritten before it is read, and no temporary
    is larger than a block.
    """
    end = len(keep)
    for last in range(len(keep), 0, -COMPACT_BLOCK):
        first = max(last - COMPACT_BLOCK, 0)
        moved = array[first:last][keep[first:last]]
        array[end - len(moved):end] = moved
        end -= len(moved)
    return len(keep) - end


def move(array: np.ndarray, source: int, target: int, count: int) -> None:
    """Copy ``array[source:source + count]`` to ``array[target:target + count]``; the ranges may overlap.

    Block by block, in the order that reads each value before it is
    overwritten, with no temporary larger than a block.
    """
    if source == target or not count:
        return
    starts = range(0, count, COMPACT_BLOCK)
    for at in (starts if target < source else reversed(starts)):
        size = min(COMPACT_BLOCK, count - at)
        array[target + at:target + at + size] = array[source + at:source + at + size].copy()
