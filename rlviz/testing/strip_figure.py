"""Order strips of several runs drawn one above another, item k of each in column k.

matplotlib is imported inside ``draw_strips``; every text is drawn literally
(no mathtext), so op names with ``$`` or ``_`` show as written.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rlviz.viz.canvas import new_axes
from rlviz.viz.palette import ERROR_COLOR, key_colors, short_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["draw_strips", "DIFFERS_GID", "CELLS_GID", "ROW_GID"]

#: gids of the cell collection, the marks under columns where the strips differ, and the row titles.
CELLS_GID, DIFFERS_GID, ROW_GID = "rlviz-diff-cells", "rlviz-diff-differs", "rlviz-diff-row"


def draw_strips(ax: "Axes | None", rows: Sequence[tuple[str, Sequence[str]]], start: int, count: int,
                divergence: int | None, title: str) -> "Axes":
    """Draw ``rows`` (title, op name per item) from item ``start``, ``count`` columns at most.

    Parameters
    ----------
    ax : matplotlib Axes or None
        Axes to draw on; None makes a new figure.
    rows : sequence of (str, sequence of str)
        Each run's title and the op that made each of its items.
    start : int
        First item drawn.
    count : int
        Columns drawn at most.
    divergence : int or None
        Item index marked as the first divergence.
    title : str
        The axes title.

    Returns
    -------
    matplotlib Axes
    """
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba_array
    from matplotlib.patches import Patch

    stop = min(start + count, max((len(cells) for _, cells in rows), default=0))
    columns = max(stop - start, 1)
    width = min(13.0, max(6.0, 0.22 * columns + 3.0))
    ax = new_axes(ax, (width, 1.4 + 0.45 * len(rows)))
    names = list(dict.fromkeys(name for _, cells in rows for name in cells[start:stop]))
    colors = key_colors(names)
    table = to_rgba_array([colors[n] for n in names]) if names else np.zeros((0, 4))
    verts, faces = [], []
    for y, (_, cells) in enumerate(rows):
        for x, name in enumerate(cells[start:stop]):
            verts.append([(x + 0.05, y + 0.1), (x + 0.95, y + 0.1), (x + 0.95, y + 0.9), (x + 0.05, y + 0.9)])
            faces.append(table[names.index(name)])
    if verts:
        ax.add_collection(PolyCollection(verts, facecolors=faces, linewidths=0, gid=CELLS_GID), autolim=False)
    differs = [x for x in range(stop - start)
               if len({cells[start + x] if start + x < len(cells) else None for _, cells in rows}) > 1]
    ax.scatter([x + 0.5 for x in differs], [len(rows) + 0.15] * len(differs), marker="^", s=18,
               color=ERROR_COLOR, gid=DIFFERS_GID)
    if divergence is not None and start <= divergence < stop:
        x = divergence - start
        ax.axvline(x, color=ERROR_COLOR, linewidth=1.2)
        ax.text(x + 0.1, -0.15, f"first divergence (index {divergence})", color=ERROR_COLOR,
                fontsize=8, va="bottom", parse_math=False)
    ax.set_xlim(-0.1, columns + 0.1)
    ax.set_ylim(len(rows) + 0.45, -0.6)
    ax.set_yticks([])
    for y, (row_title, _) in enumerate(rows):
        ax.text(-0.3, y + 0.5, short_text(row_title, 16), ha="right", va="center", fontsize=9,
                parse_math=False, gid=ROW_GID)
    ticks = list(range(0, columns, 10))
    ax.set_xticks([t + 0.5 for t in ticks], [str(start + t) for t in ticks], fontsize=7)
    ax.set_xlabel("item index in completion order (\u25b2 = the runs differ)", parse_math=False)
    ax.set_title(title, fontsize=10, loc="left", parse_math=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if names:
        legend = ax.legend(handles=[Patch(color=colors[n], label=short_text(n, 28)) for n in names],
                           loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        for text in legend.get_texts():
            text.set_parse_math(False)
    return ax
