"""Per-lane aggregates kept while recording: a pyramid of time buckets, and an index of where events sit.

A ``Pyramid`` counts events per node and time bucket at several levels
(bucket widths ``base_width_ns * 4**level``), and per lane the errors, the
not-ready calls and the busy time (the summed durations of the calls that
are not not-ready: how a crowded lane is shaded, docs/design.md, "Rules
written twice").  An event counts in the bucket of its start.  ``add`` takes
the new events only (and ``remove`` the ones that leave), so keeping it up to
date costs in proportion to what is new, never a sort of everything held.

A ``BlockIndex`` keeps, per block of ``BLOCK`` consecutive store ids and
per lane, how many events the block holds and the span they cover; a window
query reads only the blocks whose span meets the window (events arrive
roughly in time order, so a narrow window meets a few blocks).

Both belong to a store's ``rlviz.trace.windows.LaneIndex``; docs/design.md ("Long runs")
describes what a window query answers from them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlviz.trace.growing import zeros
from rlviz.trace.rows import ERROR, NOT_READY

__all__ = ["Pyramid", "Buckets", "BlockIndex", "BLOCK", "BLOCK_SHIFT", "BASE_WIDTH_NS", "FACTOR", "LEVELS"]

#: The finest bucket width (about 537 ms), the width ratio between levels, and the number of levels.
BASE_SHIFT, FACTOR_SHIFT, LEVELS = 29, 2, 6
BASE_WIDTH_NS, FACTOR = 1 << BASE_SHIFT, 1 << FACTOR_SHIFT
_TOP_SHIFT = BASE_SHIFT + FACTOR_SHIFT * (LEVELS - 1)     # every level's buckets nest in the top level's
#: Store ids per index block.
BLOCK_SHIFT = 14
BLOCK = 1 << BLOCK_SHIFT
#: Most cells (buckets x (nodes + 3 x lanes)) one level's tables may need; a level that would need more is let go
#: (the finest first), so a run of days or events stamped years apart (clocks mixed up) cannot fill the memory.
MAX_CELLS = 1 << 23
_GROW = 1.25


@dataclass
class Buckets:
    """One lane's aggregates over a window at one level: bucket ``k`` covers ``start_ns[k]`` to ``+ width_ns``.

    ``busiest`` is the node (index into the store's node table) with the most
    events starting in the bucket, -1 where the bucket is empty.  ``busy_ns``
    sums the durations of the calls starting in the bucket that are not
    not-ready polls; nested or overlapping calls may sum to more than the
    bucket's width.
    """

    width_ns: int
    start_ns: np.ndarray
    count: np.ndarray
    busiest: np.ndarray
    errors: np.ndarray
    not_ready: np.ndarray
    busy_ns: np.ndarray

    def __len__(self) -> int:
        return len(self.count)


def _grown(array: np.ndarray, rows: int, columns: int, left: int = 0) -> np.ndarray:
    """``array`` with at least ``rows`` rows and ``columns`` columns, its cells moved right by ``left`` columns.

    New cells are zero; a dimension that has to grow grows by a quarter more than asked, so growing
    one bucket at a time costs amortised constant time.
    """
    need_rows, need_columns = max(rows, array.shape[0]), max(columns, array.shape[1] + left)
    if need_rows == array.shape[0] and need_columns == array.shape[1] and not left:
        return array
    shape = (need_rows if need_rows == array.shape[0] else int(need_rows * _GROW) + 1,
             need_columns if need_columns == array.shape[1] + left else int(need_columns * _GROW) + 1)
    grown = zeros(shape, array.dtype)
    grown[:array.shape[0], left:left + array.shape[1]] = array
    return grown


class Pyramid:
    """Counts per node; errors, not-ready calls and busy time per lane; per time bucket, at ``LEVELS`` levels.

    Bucket ``b`` of level ``k`` covers ``origin_ns + b * width(k)`` on; the
    origin is a multiple of the top level's width, so buckets of all levels nest.
    Levels below ``first_level`` are not kept: their tables would pass
    ``MAX_CELLS`` (a run of months, or clocks mixed up); ``kept`` is False if no level is.
    Busy time is kept in int64 nanoseconds, exact while a bucket's sum stays
    under 2**53 ns (104 days), so adding events and taking them away again
    leaves no rounding behind.

    Examples
    --------
    >>> pyramid = Pyramid()
    >>> pyramid.add(np.array([0, 1, 3 * BASE_WIDTH_NS]), np.array([0, 1, 0]), np.array([0, 0, 0]), np.array([0, 3, 1]),
    ...             np.array([50, 20, 7]))
    >>> lane = pyramid.buckets(0, 0, 4 * BASE_WIDTH_NS, np.array([0, 1]), 0)
    >>> lane.count.tolist(), lane.errors.tolist(), lane.not_ready.tolist(), lane.busy_ns.tolist()
    ([2, 0, 0, 1], [1, 0, 0, 0], [0, 0, 0, 1], [70, 0, 0, 0])
    """

    def __init__(self) -> None:
        self.origin_ns: int | None = None
        self.first_level = 0
        self._counts = [np.zeros((0, 0), np.int32) for _ in range(LEVELS)]      # node x bucket
        self._errors = [np.zeros((0, 0), np.int32) for _ in range(LEVELS)]      # lane x bucket
        self._waiting = [np.zeros((0, 0), np.int32) for _ in range(LEVELS)]     # lane x bucket: not-ready calls
        self._busy = [np.zeros((0, 0), np.int64) for _ in range(LEVELS)]        # lane x bucket: busy ns

    @staticmethod
    def width(level: int) -> int:
        """The bucket width of ``level`` in nanoseconds."""
        return BASE_WIDTH_NS << (FACTOR_SHIFT * level)

    @property
    def kept(self) -> bool:
        """True while at least one level is kept."""
        return self.first_level < LEVELS

    def level_for(self, width_ns: float) -> int:
        """The coarsest kept level whose buckets are no wider than ``width_ns`` (the finest kept if all are)."""
        level = self.first_level
        while level + 1 < LEVELS and self.width(level + 1) <= width_ns:
            level += 1
        return level

    @property
    def nbytes(self) -> int:
        """Bytes the pyramid's arrays hold."""
        return sum(a.nbytes for a in (*self._counts, *self._errors, *self._waiting, *self._busy) if a is not None)

    def add(self, start_ns: np.ndarray, node: np.ndarray, lane: np.ndarray, outcome: np.ndarray,
            duration_ns: np.ndarray, sign: int = 1) -> None:
        """Count new events (``sign=-1``: take away events that left); all arrays have one entry per event.

        ``duration_ns`` (end minus start) adds to the busy time of the events that are not not-ready calls.
        """
        if not len(start_ns):
            return
        start_ns = np.asarray(start_ns, np.int64)
        self._cover(int(start_ns.min()), int(start_ns.max()), int(node.max()) + 1, int(lane.max()) + 1)
        base = (start_ns - self.origin_ns) >> BASE_SHIFT
        outcome = np.asarray(outcome)
        lane = np.asarray(lane, np.int64)
        waiting = outcome == NOT_READY
        busy = np.where(waiting, 0, np.asarray(duration_ns, np.int64))      # no masked copies: polls weigh 0
        for tables, rows, kept, weights in (
                (self._counts, np.asarray(node, np.int64), slice(None), None),
                (self._errors, lane, outcome == ERROR, None), (self._waiting, lane, waiting, None),
                (self._busy, lane, slice(None), busy)):
            _add_levels(tables[self.first_level:], self.first_level, rows[kept], base[kept], sign, weights)

    def buckets(self, level: int, start_ns: int, end_ns: int, nodes: np.ndarray, lane: int) -> Buckets:
        """Lane ``lane``'s buckets of ``level`` that meet ``[start_ns, end_ns)``; ``nodes`` are the lane's nodes.

        Raises
        ------
        ValueError
            If ``level`` is not kept (below ``first_level``).
        """
        if not self.first_level <= level < LEVELS:
            raise ValueError(f"level {level} is not kept; levels {self.first_level}..{LEVELS - 1} are")
        first, stop = self._span(level, start_ns, end_ns)
        width = self.width(level)
        starts = (self.origin_ns or 0) + np.arange(first, stop, dtype=np.int64) * width
        counts = self._counts[level]
        rows = nodes[nodes < counts.shape[0]]
        held = _window(counts[rows] if len(rows) else np.zeros((1, 0), np.int32), first, stop)
        total = held.sum(axis=0, dtype=np.int64)
        busiest = np.where(total > 0, rows[held.argmax(axis=0)] if len(rows) else -1, -1)
        errors, waiting, busy = (_window(marks[lane:lane + 1], first, stop)[0].astype(np.int64)
                                 for marks in (self._errors[level], self._waiting[level], self._busy[level]))
        return Buckets(width, starts, total, busiest.astype(np.int64), errors, waiting, busy)

    def _span(self, level: int, start_ns: int, end_ns: int) -> tuple[int, int]:
        """The bucket numbers of ``level`` meeting ``[start_ns, end_ns)``: ``(first, stop)``, possibly outside the arrays."""
        origin = self.origin_ns if self.origin_ns is not None else start_ns
        shift = BASE_SHIFT + FACTOR_SHIFT * level
        return (start_ns - origin) >> shift, ((max(end_ns, start_ns + 1) - 1 - origin) >> shift) + 1

    def _cover(self, low_ns: int, high_ns: int, nodes: int, lanes: int) -> None:
        """Grow the arrays so they hold ``nodes`` nodes, ``lanes`` lanes and starts from ``low_ns`` to ``high_ns``."""
        top = 1 << _TOP_SHIFT
        if self.origin_ns is None:
            self.origin_ns = (low_ns // top) * top
        left_tops = max(0, -((low_ns - self.origin_ns) // top))
        self.origin_ns -= left_tops * top
        for level in range(self.first_level, LEVELS):
            shift = FACTOR_SHIFT * (LEVELS - 1 - level)
            left = left_tops << shift
            columns = ((high_ns - self.origin_ns) >> (BASE_SHIFT + FACTOR_SHIFT * level)) + 1
            rows = max(nodes, self._counts[level].shape[0]) + 3 * max(lanes, self._errors[level].shape[0])
            if columns * rows > MAX_CELLS:
                self._counts[level] = self._errors[level] = self._waiting[level] = self._busy[level] = None
                self.first_level = level + 1
                continue
            self._counts[level] = _grown(self._counts[level], nodes, columns, left)
            for per_lane in (self._errors, self._waiting, self._busy):
                per_lane[level] = _grown(per_lane[level], lanes, columns, left)


def _add_levels(tables: list[np.ndarray], first_level: int, rows: np.ndarray, base: np.ndarray, sign: int,
                weights: np.ndarray | None = None) -> None:
    """Add ``sign`` times each event's weight (1 without ``weights``) to the tables of levels ``first_level,
    first_level + 1, ...``, summed per (row, level-0 bucket) pair first, in time proportional to the pairs.

    The sums pass through float64 (``bincount``'s weights), exact for integers below 2**53.
    """
    if not len(rows) or not tables:
        return
    width = int(base.max()) + 1
    cells, sums = _cell_sums(rows * width + base, weights)
    rows, base, amounts = cells // width, cells % width, (sign * sums).astype(tables[0].dtype)
    for level, table in enumerate(tables, first_level):
        flat, cells = table.reshape(-1), rows * table.shape[1] + (base >> (FACTOR_SHIFT * level))
        if 8 * len(cells) >= len(flat):                 # many cells for the table: one bincount beats add.at
            flat += np.bincount(cells, weights=amounts, minlength=len(flat)).astype(table.dtype)
        else:
            np.add.at(flat, cells, amounts)


def _cell_sums(keys: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (ascending) and per key its events counted, or their ``weights`` summed (by
    ``bincount`` when there are few cells for the events, else after a sort)."""
    span = int(keys.max()) + 1
    if span <= max(4 * len(keys), 1 << 16):           # few cells for the events: sum them without a sort
        sums = np.bincount(keys, weights, minlength=span)
        cells = np.flatnonzero(sums)
        return cells, sums[cells]
    if weights is None:
        return np.unique(keys, return_counts=True)
    cells, inverse = np.unique(keys, return_inverse=True)
    return cells, np.bincount(inverse, weights)


def _window(array: np.ndarray, first: int, stop: int) -> np.ndarray:
    """Columns ``first..stop-1`` of the 2-d ``array``, zeros where they lie outside it."""
    out = np.zeros((array.shape[0], max(stop - first, 0)), array.dtype)
    lo, hi = max(first, 0), min(stop, array.shape[1])
    if hi > lo:
        out[:, lo - first:hi - first] = array[:, lo:hi]
    return out


class BlockIndex:
    """Per block of ``BLOCK`` store ids and per lane: how many events, their earliest start and latest end.

    Blocks only grow: events that leave are not taken out, so a block's span
    is a bound, never too narrow.
    """

    def __init__(self) -> None:
        self._count = np.zeros((0, 0), np.int32)
        self._low = np.zeros((0, 0), np.int64)
        self._high = np.zeros((0, 0), np.int64)

    @property
    def nbytes(self) -> int:
        """Bytes the index's arrays hold."""
        return self._count.nbytes + self._low.nbytes + self._high.nbytes

    def add(self, first_id: int, lane: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray) -> None:
        """Note events with ids ``first_id, first_id + 1, ...`` (in order), one entry per event in each array."""
        if not len(lane):
            return
        block = (first_id + np.arange(len(lane), dtype=np.int64)) >> BLOCK_SHIFT
        blocks, lanes = int(block[-1]) + 1, int(lane.max()) + 1
        if blocks > self._count.shape[0] or lanes > self._count.shape[1]:
            old = self._count.shape
            self._count = _grown(self._count, blocks, lanes)
            low = np.full(self._count.shape, np.iinfo(np.int64).max, np.int64)
            low[:old[0], :old[1]] = self._low
            high = np.full(self._count.shape, np.iinfo(np.int64).min, np.int64)
            high[:old[0], :old[1]] = self._high
            self._low, self._high = low, high
        cell = (block, lane.astype(np.int64))
        np.add.at(self._count, cell, 1)
        np.minimum.at(self._low, cell, start_ns)
        np.maximum.at(self._high, cell, end_ns)

    def blocks(self, lanes: np.ndarray, start_ns: int, end_ns: int, first_block: int = 0) -> np.ndarray:
        """The blocks (from ``first_block`` on) where one of ``lanes`` has an event that may meet
        ``[start_ns, end_ns]`` (starts before ``end_ns``, ends at or after ``start_ns``)."""
        lanes = lanes[lanes < self._count.shape[1]]
        if not len(lanes):
            return np.zeros(0, np.int64)
        count, low, high = (a[first_block:, lanes] for a in (self._count, self._low, self._high))
        meets = (count > 0) & (low < end_ns) & (high >= start_ns)
        return first_block + np.flatnonzero(meets.any(axis=1))

    def estimate(self, start_ns: int, end_ns: int, first_block: int = 0) -> np.ndarray:
        """Per lane, the events of the blocks that may meet the window: what scanning them would read."""
        count, low, high = (a[first_block:] for a in (self._count, self._low, self._high))
        meets = (count > 0) & (low < end_ns) & (high >= start_ns)
        return np.where(meets, count, 0).sum(axis=0, dtype=np.int64)
