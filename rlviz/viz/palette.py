"""Colour lookup tables shared by every view: one colour per process, one per op.

Tables, not branches (Dask's task-stream lesson), so the graph, the timeline
and the order strip agree on colours.
"""
from __future__ import annotations

import zlib
from collections.abc import Iterable

from rlviz.trace import DRIVER
from rlviz.trace.items import short_text
from rlviz.trace.lanes import lane_order

__all__ = ["DRIVER_COLOR", "ERROR_COLOR", "NOT_READY_COLOR", "RESTART_COLOR", "middle_text",
           "where_colors", "key_colors", "op_colors", "short_text", "duration_text"]

#: The driver process: a neutral slate so the actors stand out.
DRIVER_COLOR = "#5b6770"
#: Failed calls.
ERROR_COLOR = "#d62728"
#: Calls that returned the not-ready sentinel: light, so spinning shows as a haze.
NOT_READY_COLOR = "#b8b8b8"
#: A worker restart.
RESTART_COLOR = "#c0392b"

# tab10 without its grey (the driver's) and red (errors), then tab20's lighter half.
_ACTOR_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                 "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5",
                 "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5")
_KEY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
               "#17becf", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39",
               "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363")


def where_colors(wheres: Iterable[str]) -> dict[str, str]:
    """One colour per process name: the driver slate, actors in natural order.

    Parameters
    ----------
    wheres : iterable of str
        Process names (``"driver"``, ``"shard-0"``, ...); repeats are fine.

    Returns
    -------
    dict of str to str
        Hex colour per distinct name.
    """
    actors = [w for w in lane_order(wheres) if w != DRIVER]
    colors = {name: _ACTOR_COLORS[i % len(_ACTOR_COLORS)] for i, name in enumerate(actors)}
    colors[DRIVER] = DRIVER_COLOR
    return colors


def key_colors(keys: Iterable[str]) -> dict[str, str]:
    """One colour per key (an op name, usually) in order of first appearance.

    Parameters
    ----------
    keys : iterable of str
        Keys in the order they should take colours; repeats are fine.

    Returns
    -------
    dict of str to str
        Hex colour per distinct key (colours repeat after 18 keys).
    """
    colors: dict[str, str] = {}
    for key in keys:
        if key not in colors:
            colors[key] = _KEY_COLORS[len(colors) % len(_KEY_COLORS)]
    return colors


def op_colors(ops: Iterable[str]) -> dict[str, str]:
    """One colour per op name, the same in every view and every trace.

    An op's colour follows from its name (a CRC of it picks a slot of the
    table), so ``TrainOneStep`` keeps its colour in two timelines of one
    notebook; only when two ops of one view land on the same slot does the
    later one (in sorted order) move to the next free slot.

    Parameters
    ----------
    ops : iterable of str
        Op names; repeats are fine.

    Returns
    -------
    dict of str to str
        Hex colour per distinct op.

    Examples
    --------
    >>> op_colors(["sample", "TrainOneStep"])["TrainOneStep"] == op_colors(["TrainOneStep"])["TrainOneStep"]
    True
    """
    colors: dict[str, str] = {}
    taken: set[int] = set()
    for op in sorted(set(ops)):
        slot = zlib.crc32(op.encode("utf-8")) % len(_KEY_COLORS)
        for shift in range(len(_KEY_COLORS)):
            if (slot + shift) % len(_KEY_COLORS) not in taken:
                slot = (slot + shift) % len(_KEY_COLORS)
                break
        taken.add(slot)
        colors[op] = _KEY_COLORS[slot]
    return colors


def duration_text(ns: float) -> str:
    """A duration in the unit that reads best: ``850 µs``, ``12.3 ms``, ``1.54 s``, ``2.5 min``.

    Parameters
    ----------
    ns : float
        Nanoseconds.

    Returns
    -------
    str
        Three significant digits (whole numbers from 100 up).

    Examples
    --------
    >>> duration_text(1.54e12 / 1e3), duration_text(7_320_000), duration_text(950)
    ('1.54 s', '7.32 ms', '950 ns')
    """
    for unit, size in (("min", 60e9), ("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= size:
            return f"{_three_digits(ns / size)} {unit}"
    return f"{_three_digits(ns)} ns"


def _three_digits(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def middle_text(text: str, limit: int = 48) -> str:
    """``text`` cut to ``limit`` characters in its middle, keeping both ends.

    For Ray's names, whose start says where the chain comes from and whose end
    says which step this is.

    >>> middle_text("LocalIterator[ParallelIterator[from_range[8, shards=2]].gather_sync().for_each()]", 40)
    'LocalIterator[Paral…r_sync().for_each()]'
    """
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (limit - 1 - head):]
