"""Colour lookup tables shared by every view: one colour per process, one per op.

Tables, not branches (Dask's task-stream lesson), so the graph, the timeline
and the order strip agree on colours.
"""
from __future__ import annotations

from collections.abc import Iterable

from rlviz.trace import DRIVER
from rlviz.trace.lanes import lane_order

__all__ = ["DRIVER_COLOR", "ERROR_COLOR", "NOT_READY_COLOR", "RESTART_COLOR",
           "where_colors", "key_colors", "short_text"]

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


def short_text(text: str, limit: int = 22) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for on-figure labels.

    Parameters
    ----------
    text : str
        The full text (the long form belongs in tooltips and tables).
    limit : int, default 22
        Most characters kept, ellipsis included.

    Returns
    -------
    str
        ``text`` itself when it fits.
    """
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"
