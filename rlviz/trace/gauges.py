"""Gauges: values that go up and down over a run (rows in a replay buffer, the weights version a worker holds).

``gauge(name, value)`` records one reading from any process, as a GAUGE row
(``rlviz.trace.rows``) in the same chunks as events, so remote readings reach
the driver through the same mirrors and the page through the same stream.
``Trace.gauges`` maps each name to a ``Gauge``: its readings as arrays.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rlviz.trace.growing import COMPACT_BLOCK
from rlviz.trace.held import HeldColumns
from rlviz.trace.recorder import get_recorder

_RECORDER = get_recorder()          # the process's one recorder (never replaced)

__all__ = ["Gauge", "GaugeParts", "Readings", "gauge", "gauges_by_name", "merge_gauges",
           "gauges_from_json", "readings_of",
           "REPLAY_ADDED", "REPLAY_HELD", "LEARNING_STARTS", "WEIGHTS_VERSION", "EPISODES_FINISHED", "QUEUE_HELD",
           "QUEUE_CAPACITY", "QUEUE_EMPTY", "GATHERS_IN_FLIGHT"]

#: The built-in gauges' names (ops record them without user code).
REPLAY_ADDED, REPLAY_HELD, LEARNING_STARTS = "replay rows added", "replay rows held", "learning_starts"
WEIGHTS_VERSION, EPISODES_FINISHED = "weights version", "episodes finished"
#: Calls the driver has outstanding to one shard for a gather (recorded on the driver, ``where`` the shard's lane).
GATHERS_IN_FLIGHT = "gathers in flight"
#: What ``Enqueue`` records when its queue is full, and ``Dequeue`` when its queue is empty.
QUEUE_HELD, QUEUE_CAPACITY, QUEUE_EMPTY = "Enqueue queue held", "Enqueue queue capacity", "Dequeue queue held"


@dataclass(frozen=True)
class Gauge:
    """One gauge's readings, ordered by time: when, what value, from which OS process and which lane."""

    time_ns: np.ndarray
    value: np.ndarray
    pid: np.ndarray
    where: np.ndarray

    def __len__(self) -> int:
        """How many readings."""
        return len(self.time_ns)

    def lanes(self) -> list[str]:
        """The lanes (``where``) that recorded this gauge, in order of first reading."""
        return list(dict.fromkeys(self.where.tolist()))

    def on(self, where: str) -> "Gauge":
        """The readings of one lane."""
        keep = self.where == where
        return Gauge(self.time_ns[keep], self.value[keep], self.pid[keep], self.where[keep])


class Readings(NamedTuple):
    """Readings as columns, the trace format's form: each names its series, a ``(name, pid, where)`` of ``table``.

    ``series`` (int64 numbers into ``table``), ``time_ns`` (int64) and ``value`` (float64) are parallel arrays.
    """

    table: list[tuple[str, int, str]]
    series: np.ndarray
    time_ns: np.ndarray
    value: np.ndarray

    def to_gauges(self) -> dict[str, Gauge]:
        """The readings as ``{name: Gauge}`` (names sorted, readings by time)."""
        if not self.table:
            return {}
        names, pids, wheres = zip(*self.table)
        name, pid, where = np.array(names, object), np.array(pids, np.int64), np.array(wheres, object)
        return gauges_by_name(name[self.series], self.time_ns, self.value, pid[self.series], where[self.series])


def readings_of(gauges: Mapping[str, Gauge]) -> Readings:
    """``{name: Gauge}`` (``Trace.gauges``) as ``Readings``: one series per name, process and lane."""
    table, series = [], []
    for name, g in gauges.items():
        pids, pid_at = np.unique(g.pid, return_inverse=True)
        wheres, where_at = np.unique(g.where.astype(str), return_inverse=True)
        pairs, code = np.unique(pid_at.reshape(-1) * len(wheres) + where_at.reshape(-1), return_inverse=True)
        series.append(len(table) + code.reshape(-1))
        table.extend((name, int(pids[pair // len(wheres)]), str(wheres[pair % len(wheres)])) for pair in pairs.tolist())
    if not series:
        return Readings([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))
    return Readings(table, np.concatenate(series).astype(np.int64),
                    np.concatenate([g.time_ns for g in gauges.values()]).astype(np.int64),
                    np.concatenate([g.value for g in gauges.values()]).astype(np.float64))


#: ``rlviz.gauge(name, value, where=None)``: the process recorder's ``Recorder.gauge``, bound once, so a
#: reading costs one call (a no-op unless recording).  Works in any process: a remote actor's readings reach
#: the driver with its events.
gauge = _RECORDER.gauge


class GaugeParts:
    """Collects gauge rows from exports (each with its own text table), then builds ``Trace.gauges``.

    A reading is held in 14 bytes: its time (int64), its value and the
    number of its series, one ``(name, pid, where)`` triple of a table kept
    once (uint16 while there are at most 65,536 series, uint32 past that).
    Values are float32 while every value taken is exactly a float32 (counts,
    versions, sizes below 2**24), and all become float64 at the first that is
    not: nothing is rounded.  The readings sit in ``HeldColumns`` (arrays of
    their own, grown by an eighth), so letting the oldest go moves nothing
    and taking more copies only what arrives: no pull copies every reading.
    """

    def __init__(self) -> None:
        self._rows = HeldColumns({"code": np.uint16, "time_ns": np.int64, "value": np.float32})
        self._series: list[tuple[str, int, str]] = []
        self._codes: dict[tuple[str, int, str], int] = {}
        self._held_per_series = np.zeros(0, np.int64)
        self.gone = 0                           # readings let go or taken out (``let_go_before``, ``take_before``)

    def add(self, rows: np.ndarray, pid: int, texts: Sequence[str], offset_ns: int = 0, since_ns: int = 0) -> None:
        """Take gauge rows (int64, shape (n, FIELDS)) of one process; readings before ``since_ns`` are left out."""
        if not len(rows):
            return
        time_ns = rows[:, 1] + offset_ns
        keep = time_ns >= since_ns
        if not keep.any():
            return
        rows, time_ns = rows[keep], time_ns[keep]
        pairs, inverse = np.unique(rows[:, 3:5], axis=0, return_inverse=True)
        last = len(texts) - 1
        named = [tuple(texts[min(i, last)] if 0 <= i and last >= 0 else "" for i in pair) for pair in pairs.tolist()]
        codes = np.array([self._code((name, int(pid), where)) for name, where in named], np.int64)
        value = np.ascontiguousarray(rows[:, 2]).view(np.float64)
        if not np.array_equal(value.astype(np.float32), value, equal_nan=True):
            self._widen("value", np.float64)
        self._widen("code", _code_dtype(len(self._series)))
        code = codes[inverse.reshape(-1)]
        self._rows.append({"code": code, "time_ns": time_ns, "value": value}, len(time_ns))
        self._count(code, +1)

    def _count(self, code: np.ndarray, sign: int) -> None:
        """Add (``sign`` +1) or take out (-1) readings of the series ``code`` from the per-series counts."""
        counts = np.bincount(code, minlength=len(self._series))
        if len(counts) > len(self._held_per_series):
            self._held_per_series = np.append(self._held_per_series,
                                              np.zeros(len(counts) - len(self._held_per_series), np.int64))
        self._held_per_series += sign * counts

    def _code(self, series: tuple[str, int, str]) -> int:
        code = self._codes.get(series)
        if code is None:
            code = self._codes[series] = len(self._series)
            self._series.append(series)
        return code

    def _widen(self, name: str, dtype: type) -> None:
        """Hold column ``name`` as ``dtype`` from now on, if that is wider than it is (every held value converted)."""
        dtypes = self._rows.dtypes
        if np.dtype(dtype).itemsize <= dtypes[name].itemsize:
            return
        old, dtypes[name] = self._rows, np.dtype(dtype)
        self._rows = HeldColumns(dtypes)
        self._rows.append({column: old.column(column) for column in dtypes}, len(old))

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def nbytes(self) -> int:
        """Bytes the readings' arrays hold, as allocated (the series table aside: one entry per name, process and
        lane)."""
        return sum(self._rows.memory().values())

    @property
    def bytes_per_reading(self) -> int:
        """Bytes one reading takes in the columns now: 14 while the values are float32 and the series fit uint16."""
        return sum(dtype.itemsize for dtype in self._rows.dtypes.values())

    def readings(self, start: int = 0, stop: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Readings number ``start`` up to ``stop`` (every one from ``start`` on by default), in the order taken:
        name, time_ns, value, pid, where columns (new arrays, which later readings do not change).

        Numbers count every reading taken, those let go or taken out
        included; they are exact for the readings after the last one taken
        out (``take_before`` may take some from between held ones).
        """
        return self._columns(slice(max(start - self.gone, 0),
                                   len(self._rows) if stop is None else max(stop - self.gone, 0)))

    def _columns(self, held: slice | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The held readings ``held`` (a slice or positions) as name, time_ns, value, pid, where columns."""
        code = self._rows.column("code")[held]
        time_ns, value = np.array(self._rows.column("time_ns")[held]), self._rows.column("value")[held].astype(np.float64)
        if not self._series:
            empty = np.zeros(0, object)
            return empty, time_ns, value, np.zeros(0, np.int64), empty
        name, pid, where = zip(*self._series)
        return (np.array(name, object)[code], time_ns, value, np.array(pid, np.int64)[code],
                np.array(where, object)[code])

    def let_go_before(self, time_ns: int) -> None:
        """Let go of the leading readings taken before ``time_ns`` (a window moved on); ``gone`` counts them."""
        cut = self._leading_before(time_ns)
        self._count(self._rows.column("code")[:cut], -1)
        self._rows.drop_front(cut)
        self.gone += cut

    def take_before(self, cutoffs: Mapping[int, int]) -> Readings:
        """Take out the readings each process took before its cut-off and return them as ``Readings``.

        ``cutoffs`` maps a process id to a time (ns): that process's readings
        before it leave (its oldest events left the store: its readings go
        with them, into a spill file).  Other processes keep theirs, so a
        process that records rarely does not hold back everyone's readings.
        """
        leaving = self._leaving(cutoffs)
        taken = self._readings(leaving)
        self._take_out(leaving)
        return taken

    def held(self, since_ns: int | None = None) -> Readings:
        """The held readings (those taken from ``since_ns`` on, if given) as ``Readings``, in the order taken."""
        times = self._rows.column("time_ns")
        return self._readings(np.arange(len(times)) if since_ns is None else np.flatnonzero(times >= since_ns))

    def _readings(self, held: np.ndarray) -> Readings:
        """The held readings at positions ``held`` as ``Readings`` over the series table (copied)."""
        return Readings(list(self._series), self._rows.column("code")[held].astype(np.int64),
                        np.array(self._rows.column("time_ns")[held], np.int64),
                        self._rows.column("value")[held].astype(np.float64))

    def drop_before(self, cutoffs: Mapping[int, int]) -> int:
        """Like ``take_before``, without returning the readings (nothing keeps them); return how many left."""
        leaving = self._leaving(cutoffs)
        self._take_out(leaving)
        return len(leaving)

    def _take_out(self, leaving: np.ndarray) -> None:
        """Take out the held readings at positions ``leaving`` (ascending)."""
        if not len(leaving):
            return
        self._count(self._rows.column("code")[leaving], -1)
        keep = np.ones(int(leaving[-1]) + 1, bool)
        keep[leaving] = False
        self._rows.compact(keep)
        self.gone += len(leaving)

    def _leaving(self, cutoffs: Mapping[int, int]) -> np.ndarray:
        """The positions (ascending) of the readings their process took before its cut-off.

        Reads a block at a time from the front, where old readings sit, and
        stops once each series with readings to find has shown one it keeps
        (a process's readings come in the order it took them) or has none
        left: the cost follows where the leaving readings lie, not what is
        held.  A reading a thread handed over late may wait for a later call.
        """
        cut = np.array([cutoffs.get(pid, _EARLIEST) for _, pid, _ in self._series], np.int64)
        left = np.where(cut > _EARLIEST, self._held_per_series[:len(cut)], 0)
        codes, times = self._rows.column("code"), self._rows.column("time_ns")
        found = [np.zeros(0, np.int64)]
        for at in range(0, len(times), COMPACT_BLOCK):
            if not left.any():
                break
            code = codes[at:at + COMPACT_BLOCK].astype(np.int64)
            before = times[at:at + COMPACT_BLOCK] < cut[code]
            found.append(at + np.flatnonzero(before))
            left = np.maximum(left - np.bincount(code, minlength=len(cut)), 0)
            left[code[~before]] = 0
        return np.concatenate(found)

    def _leading_before(self, time_ns: int) -> int:
        """How many readings, from the first held, were taken before ``time_ns`` (up to the first that was not).

        Reads from the front a block at a time and stops at the first later
        reading, so its cost follows the readings let go, not those held.
        """
        times = self._rows.column("time_ns")
        for at in range(0, len(times), COMPACT_BLOCK):
            later = np.flatnonzero(times[at:at + COMPACT_BLOCK] >= time_ns)
            if len(later):
                return at + int(later[0])
        return len(times)

    def build(self, since_ns: int | None = None) -> dict[str, Gauge]:
        """Every reading taken, as ``{name: Gauge}`` (names sorted, readings by time), optionally from ``since_ns`` on."""
        name, time_ns, value, pid, where = self.readings()
        if since_ns is not None:
            keep = time_ns >= since_ns
            name, time_ns, value, pid, where = name[keep], time_ns[keep], value[keep], pid[keep], where[keep]
        return gauges_by_name(name, time_ns, value, pid, where)


#: A cut-off no reading is before: the process keeps its readings.
_EARLIEST = np.iinfo(np.int64).min


def _code_dtype(series: int) -> type:
    """The narrowest unsigned type that numbers ``series`` series."""
    return np.uint16 if series <= 1 << 16 else np.uint32


def gauges_by_name(name: np.ndarray, time_ns: np.ndarray, value: np.ndarray, pid: np.ndarray,
                   where: np.ndarray) -> dict[str, Gauge]:
    """Readings given as parallel columns, grouped into ``{name: Gauge}`` (names sorted, readings by time)."""
    order = np.lexsort((time_ns, name.astype(str))) if len(name) else np.zeros(0, np.int64)
    name, time_ns, value, pid, where = name[order], time_ns[order], value[order], pid[order], where[order]
    out = {}
    for key in dict.fromkeys(name.tolist()):
        at = name == key
        out[key] = Gauge(time_ns[at].astype(np.int64), value[at].astype(np.float64), pid[at].astype(np.int64),
                         where[at].astype(object))
    return out


def merge_gauges(parts: Sequence[Mapping[str, Gauge]]) -> dict[str, Gauge]:
    """Several ``{name: Gauge}`` (a spill file's segments, say) as one: per name, every reading, by time."""
    columns = [[], [], [], [], []]
    for gauges in parts:
        for name, g in gauges.items():
            for column, values in zip(columns, (np.full(len(g.time_ns), name, object), g.time_ns, g.value, g.pid,
                                                g.where)):
                column.append(values)
    if not columns[0]:
        return {}
    return gauges_by_name(*(np.concatenate(column) for column in columns))


def gauges_from_json(data: object) -> dict[str, Gauge]:
    """Readings as version 3 files carry them in JSON: per name, lists ``time_ns``, ``value``, ``pid``, ``where``.

    Raises
    ------
    ValueError
        If ``data`` is not of that shape.
    """
    if not isinstance(data, dict):
        raise ValueError(f"\"gauges\" must be an object of name -> columns, got {type(data).__name__}")
    out = {}
    for name, raw in data.items():
        if not isinstance(raw, dict) or set(raw) != {"time_ns", "value", "pid", "where"}:
            raise ValueError(f"gauge {name!r} must hold the lists time_ns, value, pid and where")
        lengths = {len(raw[key]) if isinstance(raw[key], list) else -1 for key in raw}
        if len(lengths) != 1 or -1 in lengths:
            raise ValueError(f"gauge {name!r}: time_ns, value, pid and where must be lists of one length")
        if not all(isinstance(w, str) for w in raw["where"]) or not all(
                type(v) is int for v in (*raw["time_ns"], *raw["pid"])) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw["value"]):
            raise ValueError(f"gauge {name!r}: time_ns and pid must be ints, value numbers, where strings")
        out[name] = Gauge(np.array(raw["time_ns"], np.int64), np.array(raw["value"], np.float64),
                          np.array(raw["pid"], np.int64), np.array(raw["where"], dtype=object))
    return out
