"""Gauge readings as a page's tracks: numbered, cut along a finished trace's chunks, summed up per time bucket.

A page draws one track per gauge name and lane (``where``).  A live stream
numbers its tracks as they come (``track_numbers``).  A finished trace
numbers them once, in the order of their first reading (``GaugeTracks``), so
any chunk can be encoded alone (a long trace's page asks for chunks in any
order) and still name its tracks by the numbers the page knows:

* ``GaugeTracks.chunk(k)``: the readings chunk ``k`` carries, in time order:
  those taken from its first event's start up to the next chunk's first
  start.  The first chunk also takes the readings before, the last the
  readings after, so every reading travels in exactly one chunk.
* ``GaugeTracks.before(k)``: per track, the reading in force when chunk
  ``k`` starts (the latest of an earlier chunk).  A page that loads chunks
  from ``k`` on draws each track from the window's left edge; it takes this
  reading only for a track that holds none yet.
* ``GaugeTracks.summary(levels)``: per track and per time bucket of each
  level, how many readings, the last value, the least and the greatest (a
  spike stays visible at any zoom): what a long trace's overview carries
  (``rlviz.viz.explorer_long``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rlviz.trace.gauges import Gauge

__all__ = ["GaugeTracks", "GaugeLog", "track_numbers", "factorize", "SUMMARY_TABLES"]

#: A summary level's tables: last, least, greatest value (float64, each tracks x buckets, 0 where a bucket has no
#: reading; the overview packs the three side by side), then the readings counted (uint32).
SUMMARY_TABLES = ("last", "low", "high", "count")


def factorize(values: np.ndarray) -> tuple[list, np.ndarray]:
    """The distinct values of ``values`` in order of first appearance, and each value's index among them (int64).

    One dict look-up per value: for strings held as objects (a gauge's
    lanes) that is about ten times quicker than ``np.unique``, which sorts
    them by comparison (2M readings: 0.13 s against 1.7 s).
    """
    table: dict = {}
    codes = np.fromiter((table.setdefault(value, len(table)) for value in values.tolist()), np.int64, len(values))
    return list(table), codes


def track_numbers(name: np.ndarray, where: np.ndarray,
                  tracks: dict[tuple[str, str], int]) -> tuple[np.ndarray, list[list[str]]]:
    """Each reading's track number; ``tracks`` (the stream's so far) gains the new pairs, returned as ``[name, where]``.

    One pass of dict look-ups over the ``(name, where)`` pairs, filled
    straight into the array: at 1M readings 0.10 s, where a look-up loop
    and a list took 0.20 s, and ``np.unique`` over the pairs' factorized
    codes 0.23 s (factorizing strings held as objects is itself a pass of
    look-ups; ``np.unique`` on the strings sorts them by comparison, 1.8 s).

    Parameters
    ----------
    name, where : numpy.ndarray
        The readings' gauge names and lanes (objects).
    tracks : dict
        ``(name, where)`` -> track number, for every track the stream opened; changed in place.

    Returns
    -------
    tuple of (numpy.ndarray, list)
        The track numbers (uint32) and the tracks opened here, in number order.
    """
    before = len(tracks)
    numbers = np.fromiter((tracks.setdefault(key, len(tracks)) for key in zip(name.tolist(), where.tolist())),
                          "<u4", len(name))
    return numbers, [list(key) for key in list(tracks)[before:]]


class GaugeTracks:
    """A finished trace's gauge readings as tracks, cut along its chunks.

    Parameters
    ----------
    gauges : mapping of str to Gauge
        ``Trace.gauges``.
    cuts_ns : numpy.ndarray
        The first start of every chunk but the first (nondecreasing): chunk
        ``k`` holds the readings from ``cuts_ns[k - 1]`` up to ``cuts_ns[k]``.

    Attributes
    ----------
    keys : list of [str, str]
        Track number -> ``[name, where]``, numbered by first reading (then name and lane).
    """

    def __init__(self, gauges: Mapping[str, Gauge], cuts_ns: np.ndarray) -> None:
        tracks = sorted(_split_by_lane(gauges), key=lambda track: (int(track[2][0]), track[0], track[1]))
        self._cut([[name, where] for name, where, _, _ in tracks], [time_ns for _, _, time_ns, _ in tracks],
                  [value for _, _, _, value in tracks], cuts_ns)

    @classmethod
    def of_tracks(cls, keys: list[list[str]], times: list[np.ndarray], values: list[np.ndarray],
                  cuts_ns: np.ndarray) -> "GaugeTracks":
        """Tracks already split and numbered (a growing stream's, ``GaugeLog``): per track its readings by time."""
        tracks = cls.__new__(cls)
        tracks._cut(keys, times, values, cuts_ns)
        return tracks

    def _cut(self, keys: list[list[str]], times: list[np.ndarray], values: list[np.ndarray],
             cuts_ns: np.ndarray) -> None:
        """Keep the tracks and where each chunk's readings start in each."""
        self.keys, self._times, self._values = keys, times, values
        edges = [np.concatenate([[0], np.searchsorted(time_ns, cuts_ns, "left"), [len(time_ns)]])
                 for time_ns in self._times]
        self._bounds = np.array(edges, np.int64).reshape(len(keys), len(cuts_ns) + 2)

    def __len__(self) -> int:
        """How many tracks."""
        return len(self.keys)

    def chunk(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[list[str]]]:
        """Chunk ``k``'s readings in time order: track numbers (uint32), time_ns, value; and the tracks whose first
        reading is among them (a page replaying the chunks in order opens them there)."""
        lo, hi = self._bounds[:, k], self._bounds[:, k + 1]
        track = np.repeat(np.arange(len(self.keys), dtype="<u4"), hi - lo)
        time_ns = np.concatenate([t[a:b] for t, a, b in zip(self._times, lo, hi)] or [np.zeros(0, np.int64)])
        value = np.concatenate([v[a:b] for v, a, b in zip(self._values, lo, hi)] or [np.zeros(0)])
        order = np.argsort(time_ns, kind="stable")
        opened = [self.keys[r] for r in np.flatnonzero((lo == 0) & (hi > 0)).tolist()]
        return track[order], time_ns[order], value[order], opened

    def before(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per track read before chunk ``k``, its latest such reading: track numbers (uint32), time_ns, value."""
        lo = self._bounds[:, k]
        read = np.flatnonzero(lo > 0)
        return (read.astype("<u4"), np.array([self._times[r][lo[r] - 1] for r in read.tolist()], np.int64),
                np.array([self._values[r][lo[r] - 1] for r in read.tolist()], np.float64))

    def summary(self, levels: Sequence[tuple[int, int, int]]) -> list[dict[str, np.ndarray]]:
        """Per level ``(start_ns, width_ns, n)`` (finest first, each bucket of a level a whole number of the one
        before's), the ``SUMMARY_TABLES`` of tracks x n buckets; a reading outside the buckets counts in the nearest.

        The finest level is summed up from the readings, each coarser one
        from the level before, so the cost follows the readings once.
        """
        out: list[dict[str, np.ndarray]] = []
        for start_ns, width_ns, n in levels:
            if not out:
                out.append(self._finest(start_ns, width_ns, n))
            else:
                out.append(_coarser(out[-1], levels[len(out) - 1], (start_ns, width_ns, n)))
        return out

    def _finest(self, start_ns: int, width_ns: int, n: int) -> dict[str, np.ndarray]:
        """The summary tables of one level, from the readings."""
        tables = _empty_summary(len(self.keys), n)
        for r, (time_ns, value) in enumerate(zip(self._times, self._values)):
            bucket = np.clip((time_ns - start_ns) // width_ns, 0, n - 1)
            first = np.flatnonzero(np.diff(bucket, prepend=-1))         # each bucket's first reading
            _put(tables, r, bucket[first], first, value)
        return tables


def _split_by_lane(gauges: Mapping[str, Gauge]) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """Each gauge's readings per lane: ``(name, where, time_ns, value)``, by time; lanes without readings left out."""
    out = []
    for name, g in gauges.items():
        lanes, code = factorize(g.where)
        rows = np.argsort(code, kind="stable")
        for lane, mine in zip(lanes, np.split(rows, np.cumsum(np.bincount(code, minlength=len(lanes)))[:-1])):
            time_ns, value = np.asarray(g.time_ns[mine], np.int64), np.asarray(g.value[mine], np.float64)
            if np.any(time_ns[1:] < time_ns[:-1]):                       # a Gauge is by time; one from JSON may not be
                by_time = np.argsort(time_ns, kind="stable")
                time_ns, value = time_ns[by_time], value[by_time]
            out.append((str(name), str(lane), time_ns, value))
    return out


def _empty_summary(tracks: int, n: int) -> dict[str, np.ndarray]:
    tables = {name: np.zeros((tracks, n), np.float64) for name in SUMMARY_TABLES[:3]}
    tables["count"] = np.zeros((tracks, n), np.uint32)
    return tables


def _put(tables: dict[str, np.ndarray], r: int, buckets: np.ndarray, first: np.ndarray, value: np.ndarray) -> None:
    """Row ``r``'s buckets ``buckets`` from runs of ``value`` starting at ``first`` (one run per bucket, in order)."""
    ends = np.append(first[1:], len(value))
    tables["count"][r, buckets] = ends - first
    tables["last"][r, buckets] = value[ends - 1]
    tables["low"][r, buckets] = np.minimum.reduceat(value, first)
    tables["high"][r, buckets] = np.maximum.reduceat(value, first)


def _coarser(fine: dict[str, np.ndarray], fine_level: tuple[int, int, int],
             level: tuple[int, int, int]) -> dict[str, np.ndarray]:
    """A coarser level's summary tables from a finer level's (its buckets nest in the coarser ones)."""
    (fine_start, fine_width, fine_n), (start_ns, width_ns, n) = fine_level, level
    bucket = np.clip((fine_start + np.arange(fine_n) * fine_width - start_ns) // width_ns, 0, n - 1)
    tables = _empty_summary(fine["count"].shape[0], n)
    for r in range(fine["count"].shape[0]):
        held = np.flatnonzero(fine["count"][r])
        if not len(held):
            continue
        at = bucket[held]
        first = np.flatnonzero(np.diff(at, prepend=-1))                 # each coarse bucket's first fine one
        cells, last = at[first], np.append(first[1:], len(held)) - 1
        tables["count"][r, cells] = np.add.reduceat(fine["count"][r, held], first)
        tables["last"][r, cells] = fine["last"][r, held][last]
        tables["low"][r, cells] = np.minimum.reduceat(fine["low"][r, held], first)
        tables["high"][r, cells] = np.maximum.reduceat(fine["high"][r, held], first)
    return tables


class _TrackReadings:
    """One track's readings in time order, in buffers that double when full: readings that come in time order
    (as a run's do) are added in time proportional to them, not to all held; a late one merges the track anew.

    ``time_ns`` and ``value`` are views of what is held; adding never changes what an earlier view shows.
    """

    def __init__(self) -> None:
        self._times, self._values, self.count = np.zeros(16, np.int64), np.zeros(16, np.float64), 0

    @property
    def time_ns(self) -> np.ndarray:
        return self._times[:self.count]

    @property
    def value(self) -> np.ndarray:
        return self._values[:self.count]

    def add(self, time_ns: np.ndarray, value: np.ndarray) -> None:
        """Add readings (any order)."""
        order = np.argsort(time_ns, kind="stable")
        time_ns, value = time_ns[order], value[order]
        if self.count and len(time_ns) and time_ns[0] < self._times[self.count - 1]:
            merged = np.concatenate([self.time_ns, time_ns])
            order = np.argsort(merged, kind="stable")
            self._times, self._values = merged[order], np.concatenate([self.value, value])[order]
            self.count = len(merged)
            return
        end = self.count + len(time_ns)
        if end > len(self._times):
            size = max(end, 2 * len(self._times))
            self._times = np.concatenate([self.time_ns, np.zeros(size - self.count, np.int64)])
            self._values = np.concatenate([self.value, np.zeros(size - self.count, np.float64)])
        self._times[self.count:end], self._values[self.count:end] = time_ns, value
        self.count = end


class GaugeLog:
    """A growing stream's gauge readings, per track, numbered as the tracks first arrive (so numbers never change).

    ``take`` adds readings as a store gives them (``TraceStore.gauges_since``);
    ``tracks`` cuts what is held along a growing page's chunks, as
    ``GaugeTracks`` does for a finished trace.
    """

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self._tracks: list[_TrackReadings] = []

    @property
    def keys(self) -> list[list[str]]:
        """Track number -> ``[name, where]``."""
        return [list(key) for key in self.numbers]

    def take(self, name: np.ndarray, time_ns: np.ndarray, value: np.ndarray,
             where: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Add readings (parallel columns, any order; a track read late is kept sorted by time); return them as
        a chunk carries them: track numbers (uint32), time_ns, value."""
        track, _ = track_numbers(name, where, self.numbers)
        time_ns, value = np.asarray(time_ns, np.int64), np.asarray(value, np.float64)
        while len(self._tracks) < len(self.numbers):
            self._tracks.append(_TrackReadings())
        for r in np.unique(track).tolist():
            mine = track == r
            self._tracks[r].add(time_ns[mine], value[mine])
        return track, time_ns, value

    def before(self, time_ns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per track read before ``time_ns``, its latest such reading: track numbers (uint32), time_ns, value."""
        at = [int(np.searchsorted(track.time_ns, time_ns, "left")) for track in self._tracks]
        read = [r for r, k in enumerate(at) if k > 0]
        return (np.asarray(read, "<u4"), np.array([self._tracks[r].time_ns[at[r] - 1] for r in read], np.int64),
                np.array([self._tracks[r].value[at[r] - 1] for r in read], np.float64))

    def tracks(self, cuts_ns: np.ndarray) -> GaugeTracks:
        """The readings held, cut along chunks that start at ``cuts_ns`` (see ``GaugeTracks``)."""
        return GaugeTracks.of_tracks(self.keys, [track.time_ns for track in self._tracks],
                                     [track.value for track in self._tracks], cuts_ns)
