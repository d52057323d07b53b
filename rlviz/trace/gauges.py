"""Gauges: values that go up and down over a run (rows in a replay buffer, the weights version a worker holds).

``gauge(name, value)`` records one reading from any process, as a GAUGE row
(``rlviz.trace.rows``) in the same chunks as events, so remote readings reach
the driver through the same mirrors and the page through the same stream.
``Trace.gauges`` maps each name to a ``Gauge``: its readings as arrays.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rlviz.trace.growing import COMPACT_BLOCK
from rlviz.trace.held import HeldColumns
from rlviz.trace.recorder import get_recorder

_RECORDER = get_recorder()          # the process's one recorder (never replaced)

__all__ = ["Gauge", "GaugeParts", "gauge", "gauges_by_name", "merge_gauges", "gauges_to_json", "gauges_from_json",
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
        self.gone = 0                           # readings let go from the front (``let_go_before``)

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
        self._rows.append({"code": codes[inverse.reshape(-1)], "time_ns": time_ns, "value": value}, len(time_ns))

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
        """Readings number ``start`` up to ``stop`` (every one from ``start`` on by default; numbers count every
        reading taken, those let go included), in the order taken: name, time_ns, value, pid, where columns (new
        arrays, which later readings do not change)."""
        held = slice(max(start - self.gone, 0), len(self._rows) if stop is None else max(stop - self.gone, 0))
        code = self._rows.column("code")[held]
        time_ns, value = self._rows.column("time_ns")[held].copy(), self._rows.column("value")[held].astype(np.float64)
        if not self._series:
            empty = np.zeros(0, object)
            return empty, time_ns, value, np.zeros(0, np.int64), empty
        name, pid, where = zip(*self._series)
        return (np.array(name, object)[code], time_ns, value, np.array(pid, np.int64)[code],
                np.array(where, object)[code])

    def let_go_before(self, time_ns: int) -> None:
        """Let go of the leading readings taken before ``time_ns`` (a window moved on); ``gone`` counts them."""
        cut = self._leading_before(time_ns)
        self._rows.drop_front(cut)
        self.gone += cut

    def take_before(self, time_ns: int) -> dict[str, Gauge]:
        """Like ``let_go_before``, and return the readings let go as ``{name: Gauge}`` (for a spill file)."""
        cut = self._leading_before(time_ns)
        taken = gauges_by_name(*self.readings(self.gone, self.gone + cut))
        self.let_go_before(time_ns)
        return taken

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


def gauges_to_json(gauges: Mapping[str, Gauge]) -> dict:
    """``Trace.gauges`` as JSON-ready data: per name, its columns as lists."""
    return {name: {"time_ns": g.time_ns.tolist(), "value": g.value.tolist(), "pid": g.pid.tolist(),
                   "where": g.where.tolist()} for name, g in gauges.items()}


def gauges_from_json(data: object) -> dict[str, Gauge]:
    """What ``gauges_to_json`` wrote.

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
