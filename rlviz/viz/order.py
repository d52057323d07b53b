"""``plot_order``: the round-robin strip, one cell per item in the order items completed.

The figure of how Concurrently and union interleave their children: colours
by op (the timeline's colours), weights next to the measured ratio.  When the
trace holds the union's scheduling decisions, each row is one round and a
poll that found its op not ready is a hatched cell.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rlviz.checks import check_int, check_round_robin_weights
from rlviz.trace import Trace
from rlviz.trace.analysis import order_notes
from rlviz.trace.order import Rounds, completion_categories, round_cells, stream_op
from rlviz.viz.canvas import check_axes, check_trace, draw_note, literal_text
from rlviz.viz.palette import key_colors, op_colors, short_text
from rlviz.trace.words import counted

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_order", "order_cells", "stream_colors", "Cells", "MAX_ITEMS"]

#: Cells drawn at most; later items are counted in the ratio but not drawn.
MAX_ITEMS = 2000
_ONE_ROW = 60            # strips up to this long stay on one row
_ROW = 50                # otherwise wrap near this many cells per row


@dataclass
class Cells:
    """The strip's data: ``category[k]`` is the group of the k-th item to complete.

    ``names`` are the groups' short names, the op names of their nodes
    (never internal op_ids), ``labels`` their full node labels for where
    the long form is needed, ``counts`` items per group over the whole
    trace (including items past ``MAX_ITEMS``).
    """

    category: np.ndarray
    names: list[str]
    counts: np.ndarray
    labels: list[str] = field(default_factory=list)
    colors: list[str] = field(default_factory=list)


def plot_order(trace: Trace, ops: Iterable[str] | None = None,
               weights: Sequence[float | str] | None = None, ax: "Axes | None" = None, *,
               max_items: int = MAX_ITEMS, title: str | None = None, rounds: bool | None = None) -> "Axes":
    """Draw one cell per item produced by the selected nodes, in completion order.

    Reading left to right, then row by row, shows which child a union or
    ``Concurrently`` pulled from at each step; the title sets the weights
    beside the ratio of item counts actually measured.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ops : iterable of str, optional
        One group per entry, each selecting nodes by op name, label or op_id
        (the rule of ``Trace.sequence``).  By default every node that
        produced items is its own group.
    weights : sequence of float or "*", optional
        The round-robin weights, one per group, shown next to the measured ratio.
    ax : matplotlib Axes, optional
        Axes to draw on; by default a new figure.
    max_items : int, default 2000
        Cells drawn at most (the ratio still counts every item).
    title : str, optional
        Title; by default item counts, weights and measured ratio (with
        not-ready polls and the notes of ``order_notes`` when drawn by round).
        ``""`` for none.
    rounds : bool, optional
        One row per round, not-ready polls as hatched cells.  By default on
        when the trace holds the scheduling decisions of a union that pulls
        the selected ops (a recorded ``Concurrently``).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace, ``ops`` is a single string, or ``ax`` is not an Axes.
    ValueError
        If an ``ops`` entry matches no node, ``weights`` has the wrong length
        or a bad entry, or ``max_items`` is below 1.

    Examples
    --------
    >>> from rlviz.viz.examples import concurrently_trace
    >>> ax = plot_order(concurrently_trace((1, 2)), ops=["store", "train"], weights=[1, 2])
    >>> "weights 1 : 2" in ax.get_title(loc="left")
    True
    """
    trace = check_trace(trace, "plot_order")
    check_axes(ax)
    check_int("max_items", max_items, minimum=1)
    cells = order_cells(trace, ops)
    weights = _check_weights(weights, len(cells.names))
    by_round = round_cells(trace, ops) if rounds is not False and ops is not None else None
    if rounds and by_round is None:
        raise ValueError("rounds=True needs the scheduling decisions of a union pulling the selected ops "
                         "(record a Concurrently or union with rlviz.record()); hint: rounds=None draws "
                         "rounds when they are there")
    if by_round is not None:
        return _plot_rounds(trace, cells, by_round, weights, ax, max_items, title)
    shown = cells.category[:max_items]
    length = _row_length(len(shown), weights)
    rows = max(1, -(-len(shown) // length))
    if ax is None:
        import matplotlib.pyplot as plt

        width = min(13.0, max(6.0, 0.26 * length + 2.5))
        _, ax = plt.subplots(figsize=(width, 1.5 + rows * (width - 2.5) / length), layout="constrained")
    if title is None:
        title = _title(cells, weights)
    if title:
        ax.set_title(literal_text(title), fontsize=10, loc="left")
    _frame(ax, length, rows)
    if len(trace) == 0:
        draw_note(ax, "empty trace: no items to order")
    elif len(shown) == 0:
        draw_note(ax, "the selected nodes produced no items")
    else:
        _draw_cells(ax, cells, shown, length)
        if len(cells.category) > len(shown):
            ax.set_xlabel(f"completion order (first {len(shown):,} of {len(cells.category):,} items "
                          f"drawn; the ratio counts all)")
    return ax


def order_cells(trace: Trace, ops: Iterable[str] | None = None) -> Cells:
    """``rlviz.trace.order.completion_categories`` (same parameters and errors), with each group's colour.

    The colours are the ops' timeline colours (``stream_colors``), so the strip and the timeline agree.
    """
    done = completion_categories(trace, ops)
    colors = _op_colors(trace, done.group, len(done.names))
    return Cells(done.category, done.names, done.counts, done.labels, stream_colors(colors, done.names))


def stream_colors(colors: list[str], names: list[str]) -> list[str]:
    """The colours of merged streams: each op's timeline colour, unless two share one (then one per name).

    Parameters
    ----------
    colors : list of str
        Each stream's op colour (``op_colors`` over the trace's ops, as the timeline colours nodes).
    names : list of str
        Each stream's name, distinct.

    Returns
    -------
    list of str
        ``colors`` when they are distinct, else ``key_colors(names)`` in order (the Explorer's order
        pane and ``plot_order`` use this one rule, so a stream keeps its colour in both).

    Examples
    --------
    >>> stream_colors(["#111111", "#222222"], ["a", "b"])
    ['#111111', '#222222']
    """
    if len(set(colors)) == len(colors):
        return list(colors)
    table = key_colors(names)
    return [table[name] for name in names]


def _op_colors(trace: Trace, group: np.ndarray, count: int) -> list[str]:
    """Each group's colour: its op's colour in the timeline (which colours every node by its op)."""
    table = op_colors(n.op for n in trace.nodes)
    by_id = {n.op_id: n for n in trace.nodes}
    colors = []
    for k in range(count):
        members = np.flatnonzero(group == k)
        op = stream_op(trace.nodes[int(members[-1])], by_id) if len(members) else None
        colors.append(table.get(op, key_colors([f"group {k}"] * (k + 1))[f"group {k}"]))
    return colors


def _plot_rounds(trace: Trace, cells: Cells, by_round: Rounds, weights: list | None, ax: "Axes | None",
                 max_items: int, title: str | None) -> "Axes":
    """The strip with one row per round; not-ready polls hatched."""
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba_array
    from matplotlib.patches import Patch

    labels, first = np.unique(by_round.round, return_index=True)
    row = np.searchsorted(labels, by_round.round)
    column = np.arange(len(row)) - first[row]
    drawn = np.flatnonzero(np.arange(len(row)) < max_items)
    row, column = row[drawn], column[drawn]
    rows = int(row.max()) + 1 if len(row) else 1
    length = min(int(column.max()) + 1 if len(column) else 1, 120)
    keep = column < length
    if ax is None:
        import matplotlib.pyplot as plt

        width = min(13.0, max(6.0, 0.26 * length + 2.5))
        cell = min((width - 2.5) / length, 0.3)          # a few pulls per round: rows stay small
        _, ax = plt.subplots(figsize=(width, 2.2 + min(rows * cell, 9.0)), layout="constrained")
        ax.set_anchor("NW")                              # a narrow strip sits left, under its title
    if title is None:                                    # wrapped to the figure: it must not run off its edge
        title = _round_title(trace, cells, by_round, weights, int((ax.figure.get_figwidth() - 1.2) * 14))
    if title:
        ax.set_title(literal_text(title), fontsize=9, loc="left")
    _frame(ax, length, rows)
    ax.set_xlabel("pulls in each round →\n(one row per round, top to bottom)", loc="left", fontsize=8)
    ax.set_yticks([k + 0.5 for k in range(0, rows, max(1, rows // 12))],
                  [f"round {int(labels[k])}" for k in range(0, rows, max(1, rows // 12))], fontsize=7)
    table = to_rgba_array(cells.colors)
    category, hatched = by_round.category[drawn][keep], by_round.not_ready[drawn][keep]
    x, y = column[keep].astype(float), row[keep].astype(float)
    for gid, which, options in (("rlviz-order-cells", ~hatched, {"linewidths": 0}),
                                ("rlviz-order-not-ready", hatched, {"hatch": "////", "linewidths": 0.8})):
        verts = _squares(x[which], y[which])
        face = table[category[which]].copy()
        if gid == "rlviz-order-not-ready":
            options["edgecolors"] = face.copy()
            face[:, 3] = 0.15
        ax.add_collection(PolyCollection(verts, facecolors=face, gid=gid, **options), autolim=False)
    if (column >= length).any():
        ax.text(length, -0.2, f"rounds longer than {length} pulls are cut", fontsize=7, ha="right", va="bottom")
    handles = [Patch(color=color, label=literal_text(_group_count(name, items, not_ready)))
               for name, color, items, not_ready in zip(cells.names, cells.colors, cells.counts.tolist(),
                                                        by_round.not_ready_counts.tolist())]
    handles.append(Patch(facecolor="white", edgecolor="#555555", hatch="////", label="not ready (turn ends)"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
              borderaxespad=0.0)
    return ax


def _squares(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    verts = np.empty((len(x), 4, 2))
    verts[:, 0, 0] = verts[:, 3, 0] = x + 0.05
    verts[:, 1, 0] = verts[:, 2, 0] = x + 0.95
    verts[:, 0, 1] = verts[:, 1, 1] = y + 0.05
    verts[:, 2, 1] = verts[:, 3, 1] = y + 0.95
    return verts


def _group_count(name: str, items: int, not_ready: int) -> str:
    return f"{name} ({counted(items, 'item')}" + (f", {not_ready:,} not ready)" if not_ready else ")")


def _round_title(trace: Trace, cells: Cells, by_round: Rounds, weights: list | None, chars: int) -> str:
    rounds = len(np.unique(by_round.round))
    head = f"Completion order by round: {counted(rounds, 'round')}, " + " · ".join(
        _group_count(name, items, not_ready) for name, items, not_ready in
        zip(cells.names, cells.counts.tolist(), by_round.not_ready_counts.tolist()))
    spec = trace.decisions.specs[by_round.union]
    shown = weights if weights is not None else spec["weights"]
    lines = [head, f"weights {' : '.join(str(w) for w in shown)}  ·  measured "
             f"{' : '.join(f'{n:,}' for n in cells.counts.tolist())}"]
    children = set(spec["children"])
    lines += [f"note: {note}" for note in order_notes(trace) if any(note.startswith(name) for name in children)
              or note.startswith("measured")]
    return "\n".join(textwrap.fill(line, max(chars, 40), subsequent_indent="  ") for line in lines)


def _check_weights(weights: Sequence[float | str] | None, groups: int) -> list | None:
    if weights is None:
        return None
    return check_round_robin_weights("weights", weights, groups, what="ops entry")


def _row_length(count: int, weights: list | None) -> int:
    """One row for short strips; otherwise a width that is a whole number of rounds."""
    if count <= _ONE_ROW:
        return max(count, 1)
    if weights and all(isinstance(w, int) for w in weights):
        cycle = sum(weights)
        return cycle * max(1, round(_ROW / cycle))
    return _ROW


def _title(cells: Cells, weights: list | None) -> str:
    counts = cells.counts.tolist()
    head = f"Completion order: {counted(sum(counts), 'item')} from {counted(len(counts), 'group')}"
    if not counts or counts[0] == 0:
        return head
    measured = f"measured {' : '.join(f'{n:,}' for n in counts)}"
    if len(counts) > 1:
        measured += f" = 1 : {' : '.join(f'{n / counts[0]:.2f}' for n in counts[1:])}"
    if weights:
        return f"{head}\nweights {' : '.join(str(w) for w in weights)}  ·  {measured}"
    return f"{head}\n{measured}"


def _frame(ax: "Axes", length: int, rows: int) -> None:
    ax.set_xlim(-0.1, length + 0.1)
    ax.set_ylim(rows + 0.05, -0.05)
    ax.set_aspect("equal", adjustable="box")
    ax.set_yticks([])
    ax.set_xlabel("completion order \u2192 (left to right, then row by row)")
    if length <= _ONE_ROW and rows == 1:
        ticks = [t for t in range(0, length, 5)]
        ax.set_xticks([t + 0.5 for t in ticks], [str(t + 1) for t in ticks], fontsize=7)
    else:
        ax.set_xticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _draw_cells(ax: "Axes", cells: Cells, shown: np.ndarray, length: int) -> None:
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba_array
    from matplotlib.patches import Patch

    colors = dict(zip(cells.names, cells.colors))
    table = to_rgba_array(cells.colors)
    k = np.arange(len(shown))
    x, y = (k % length).astype(float), (k // length).astype(float)
    verts = np.empty((len(k), 4, 2))
    verts[:, 0, 0] = verts[:, 3, 0] = x + 0.05
    verts[:, 1, 0] = verts[:, 2, 0] = x + 0.95
    verts[:, 0, 1] = verts[:, 1, 1] = y + 0.05
    verts[:, 2, 1] = verts[:, 3, 1] = y + 0.95
    ax.add_collection(PolyCollection(verts, facecolors=table[shown], linewidths=0,
                                     gid="rlviz-order-cells"), autolim=False)
    handles = [Patch(color=colors[n], label=literal_text(f"{n} ({count:,})")) for n, count in
               zip(cells.names, cells.counts.tolist())]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False, borderaxespad=0.0)
