"""``plot_timeline``: every recorded call as a span, one lane per process, one sub-lane per node.

Works on the trace's numpy columns (no Python object per event): one
PolyCollection per outcome kind, one LineCollection of value flows.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlviz.checks import check_int
from rlviz.trace import Trace
from rlviz.trace.event import RESTART_OP
from rlviz.trace.rows import OUTCOME_CODES
from rlviz.viz.canvas import check_trace, draw_note, literal_text, new_axes
from rlviz.viz.palette import ERROR_COLOR, NOT_READY_COLOR, RESTART_COLOR, op_colors, short_text, where_colors
from rlviz.viz.timeaxis import duration_text, start_text, time_axis
from rlviz.trace.words import counted

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_timeline", "timeline_lanes", "Lanes", "event_times_ms", "pixel_ms", "MAX_FLOWS"]

#: Events of nodes with this op are marked with a vertical line across all lanes.
#: Value flows drawn at most; more are thinned evenly.
MAX_FLOWS = 500

_LANE_GAP = 0.6          # rows of space between two processes
_ITEM, _NOT_READY, _STOP, _ERROR = OUTCOME_CODES
# outcome code -> (collection gid, bottom and top of the span within its row)
_KINDS = {_ITEM: ("item", -0.4, 0.4), _NOT_READY: ("not_ready", 0.1, 0.4),
          _STOP: ("stop", -0.4, 0.4), _ERROR: ("error", -0.45, 0.45)}


@dataclass
class Lanes:
    """Row positions for a timeline: ``row[node]`` is node's y (NaN if it has no events).

    ``names`` are the processes top to bottom, ``spans[i]`` the (top, bottom)
    y of process i's band, ``ticks``/``labels`` the sub-lane centres and op names.
    """

    row: np.ndarray
    names: list[str]
    spans: list[tuple[float, float]]
    ticks: list[float]
    labels: list[str]

    @property
    def figure_height(self) -> float:
        """Inches a timeline of these lanes needs: 0.3 per row, 0.15 per process, 3 at least."""
        return max(3.0, 1.3 + 0.3 * len(self.ticks) + 0.15 * len(self.names))


def plot_timeline(trace: Trace, ax: "Axes | None" = None, window: tuple[float, float] | None = None,
                  *, max_flows: int = MAX_FLOWS, title: str | None = None) -> "Axes":
    """Draw each call as a span on its process's lane, with value flows between them.

    Spans are coloured by op; not-ready calls are light marks in the lower
    part of the row (a spinning async union shows as a grey haze), errors
    red, stops dark.  Calls shorter than a pixel are widened to one pixel.
    A ``worker_restarted`` event draws a vertical line.  Lines join the call
    that produced a value to the call that consumed it.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    ax : matplotlib Axes, optional
        Axes to draw on; by default a new figure 12 inches wide.
    window : tuple of two floats, optional
        ``(t0_ms, t1_ms)`` since the trace start to zoom into.
    max_flows : int, default 500
        At most this many value flows are drawn, evenly thinned.
    title : str, optional
        Title; by default event, process and duration counts.  ``""`` for none.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace, ``ax`` not an Axes, or ``window`` not a pair of numbers.
    ValueError
        If ``window`` does not have ``t0_ms < t1_ms`` or ``max_flows`` is negative.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> ax = plot_timeline(sharded_trace(items=4))
    >>> [c.get_gid() for c in ax.collections]
    ['rlviz-spans-item', 'rlviz-spans-not_ready', 'rlviz-spans-stop', 'rlviz-flows']
    """
    trace = check_trace(trace, "plot_timeline")
    window = _check_window(window)
    check_int("max_flows", max_flows, minimum=0)
    c = trace.columns
    lanes = timeline_lanes(trace)
    ax = new_axes(ax, (12, lanes.figure_height))
    origin = trace.start_ns
    end_ms = float(c["end_ns"].max() - origin) / 1e6 if len(trace) else 0.0
    _frame(ax, lanes, trace, window, end_ms, title)
    if len(trace) == 0:
        draw_note(ax, "empty trace: nothing was recorded")
        return ax
    start, end = event_times_ms(trace)
    t0, t1 = window if window else ax.get_xlim()
    shown = np.flatnonzero((end >= t0) & (start <= t1))
    if len(shown) == 0:
        draw_note(ax, f"no events between {t0:g} and {t1:g} ms; "
                      f"the trace spans 0 to {end_ms:.3g} ms")
        return ax
    _draw_spans(ax, trace, lanes, start, end, shown)
    _draw_flows(ax, trace, lanes, start, end, (t0, t1), max_flows)
    _draw_restarts(ax, trace, start, shown)
    _draw_legend(ax)
    return ax


def timeline_lanes(trace: Trace) -> Lanes:
    """One band per process (driver first, actors in natural order), one row per node.

    Parameters
    ----------
    trace : Trace
        The recorded trace; nodes without events get no row.

    Returns
    -------
    Lanes
    """
    by_where: dict[str, list[int]] = {where: [] for where in trace.processes}
    for i in trace.used_nodes():
        by_where[trace.nodes[i].where].append(i)
    names = list(by_where)
    row = np.full(len(trace.nodes), np.nan)
    spans, ticks, labels = [], [], []
    y = 0.0
    for where in names:
        top = y - 0.5
        seen: dict[str, int] = {}
        for i in by_where[where]:
            op = trace.nodes[i].op
            seen[op] = seen.get(op, 0) + 1
            row[i] = y
            ticks.append(y)
            labels.append(short_text(op, 20) + (f" #{seen[op]}" if seen[op] > 1 else ""))
            y += 1.0
        spans.append((top, y - 0.5))
        y += _LANE_GAP
    return Lanes(row, names, spans, ticks, labels)


def event_times_ms(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Each event's start and end in ms since the trace started: the timeline's x coordinates.

    Parameters
    ----------
    trace : Trace
        The recorded trace.

    Returns
    -------
    tuple of two float arrays
        ``(start_ms, end_ms)``, one entry per event.
    """
    c = trace.columns
    return (c["start_ns"] - trace.start_ns) / 1e6, (c["end_ns"] - trace.start_ns) / 1e6


def pixel_ms(ax: "Axes") -> float:
    """Milliseconds per screen pixel of a timeline's axes at its current limits (0 before it has a size).

    Parameters
    ----------
    ax : matplotlib Axes
        Axes drawn by ``plot_timeline``.

    Returns
    -------
    float
    """
    lo, hi = ax.get_xlim()
    width = ax.get_window_extent().width
    return (hi - lo) / width if width > 0 else 0.0


# -- checks -----------------------------------------------------------------
def _check_window(window: object) -> tuple[float, float] | None:
    if window is None:
        return None
    try:
        t0, t1 = (float(v) for v in window)  # type: ignore[union-attr]
    except (TypeError, ValueError) as err:
        raise TypeError(f"window must be a pair (t0_ms, t1_ms) of numbers, got {window!r}; "
                        f"hint: window=(0, 50) shows the first 50 ms") from err
    if not t0 < t1:
        raise ValueError(f"window must have t0_ms < t1_ms, got {window!r}")
    return t0, t1


# -- drawing ----------------------------------------------------------------
def _frame(ax: "Axes", lanes: Lanes, trace: Trace, window: tuple | None, end_ms: float,
           title: str | None) -> None:
    """Axes limits, lane bands, row labels, process names and title."""
    import matplotlib.transforms as mtransforms

    colors = where_colors(lanes.names)
    side = mtransforms.blended_transform_factory(ax.transAxes, ax.transData)
    for name, (top, bottom) in zip(lanes.names, lanes.spans):
        ax.axhspan(top, bottom, color=colors[name], alpha=0.08, linewidth=0, gid="rlviz-lane")
        ax.text(1.005, (top + bottom) / 2, literal_text(short_text(name, 18)), transform=side, ha="left",
                va="center", fontsize=8, fontweight="bold", color=colors[name], gid="rlviz-lane-name")
    ax.set_yticks(lanes.ticks, [literal_text(label) for label in lanes.labels], fontsize=8)
    ax.set_ylim(lanes.spans[-1][1] + 0.1 if lanes.spans else 1, -0.6)
    ax.set_xlim(window if window else (0, max(end_ms, 1e-3) * 1.01))
    time_axis(ax)
    ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
    if title is None:
        title = (f"Timeline: {counted(len(trace), 'call')} on {counted(len(lanes.names), 'process')} over "
                 f"{duration_text(end_ms)}")
        if window:
            title += f"  (window from {start_text(window[0])}, {duration_text(window[1] - window[0])} wide)"
    if trace.dropped:
        title += f"  ·  {counted(trace.dropped, 'event')} dropped (oldest first)"
    if title:
        ax.set_title(literal_text(title), fontsize=10, loc="left")


def _draw_spans(ax: "Axes", trace: Trace, lanes: Lanes, start: np.ndarray, end: np.ndarray,
                shown: np.ndarray) -> None:
    """One PolyCollection per outcome kind; items coloured by op."""
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba_array

    c = trace.columns
    ops = op_colors(n.op for n in trace.nodes)
    node_rgba = to_rgba_array([ops[n.op] for n in trace.nodes] or ["k"])
    fixed = {_NOT_READY: NOT_READY_COLOR, _STOP: "#333333", _ERROR: ERROR_COLOR}
    pixel = pixel_ms(ax)
    outcome = c["outcome"][shown]
    for code, (kind, low, high) in _KINDS.items():
        idx = shown[outcome == code]
        if len(idx) == 0:
            continue
        y = lanes.row[c["node"][idx]]
        x0 = start[idx]
        x1 = np.maximum(end[idx], x0 + (pixel * (0.4 if code == _STOP else 0.8)))
        colors = node_rgba[c["node"][idx]] if code == _ITEM else fixed[code]
        ax.add_collection(PolyCollection(_rects(x0, x1, y + low, y + high), facecolors=colors,
                                         linewidths=0, gid=f"rlviz-spans-{kind}",
                                         zorder=2 if code == _ITEM else 3), autolim=False)


def _draw_flows(ax: "Axes", trace: Trace, lanes: Lanes, start: np.ndarray, end: np.ndarray,
                window: tuple[float, float], max_flows: int) -> None:
    """Producer end -> consumer start lines, thinned evenly to ``max_flows``."""
    from matplotlib.collections import LineCollection

    producers, consumers = trace.links()
    if len(producers) == 0 or max_flows == 0:
        return
    x0, x1 = end[producers], np.maximum(start[consumers], end[producers])
    keep = np.flatnonzero((x1 >= window[0]) & (x0 <= window[1]))
    total = len(keep)
    if total > max_flows:
        keep = keep[np.linspace(0, total - 1, max_flows).astype(np.int64)]
        draw_note(ax, f"showing {max_flows} of {total:,} value flows", where="top")
    node = trace.columns["node"]
    segments = np.empty((len(keep), 2, 2))
    segments[:, 0, 0], segments[:, 1, 0] = x0[keep], x1[keep]
    segments[:, 0, 1] = lanes.row[node[producers[keep]]]
    segments[:, 1, 1] = lanes.row[node[consumers[keep]]]
    ax.add_collection(LineCollection(segments, colors="#555555", linewidths=0.6, alpha=0.45,
                                     gid="rlviz-flows", zorder=4), autolim=False)


def _draw_restarts(ax: "Axes", trace: Trace, start: np.ndarray, shown: np.ndarray) -> None:
    restart_nodes = [i for i, n in enumerate(trace.nodes) if n.op == RESTART_OP]
    if not restart_nodes:
        return
    hits = shown[np.isin(trace.columns["node"][shown], restart_nodes)]
    if len(hits):
        ax.vlines(start[hits], 0, 1, transform=ax.get_xaxis_transform(), colors=RESTART_COLOR,
                  linestyles="--", linewidths=1.2, gid="rlviz-restarts", zorder=5)


def _draw_legend(ax: "Axes") -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    present = {c.get_gid() for c in ax.collections}
    entries = [("rlviz-spans-item", Patch(color="#1f77b4", label="item (colour = op)")),
               ("rlviz-spans-not_ready", Patch(color=NOT_READY_COLOR, label="not ready")),
               ("rlviz-spans-stop", Patch(color="#333333", label="stop")),
               ("rlviz-spans-error", Patch(color=ERROR_COLOR, label="error")),
               ("rlviz-flows", Line2D([], [], color="#555555", linewidth=0.8, label="value passed on")),
               ("rlviz-restarts", Line2D([], [], color=RESTART_COLOR, linestyle="--",
                                         label="worker restarted"))]
    handles = [h for gid, h in entries if gid in present]
    legend = ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(handles),
                       fontsize=7, frameon=False, borderaxespad=0.2, handlelength=1.4, columnspacing=1.0)
    _lift_title_over(ax, legend)


def _lift_title_over(ax: "Axes", legend) -> None:
    """Raise the left title above ``legend`` when a long title reaches under it (both sit above the axes).

    A saved view's picture has such a title ("The first 20,000 of ... calls
    (a static picture; ...)"), and so may a window's and a dropped count's.
    """
    import matplotlib as mpl
    from matplotlib.text import Text

    title = ax.get_title(loc="left")
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)      # Agg-based canvases, which all rlviz uses
    if not title or get_renderer is None:
        return
    renderer = get_renderer()
    text = next(t for t in ax.get_children() if isinstance(t, Text) and t.get_text() == title
                and t.get_horizontalalignment() == "left")
    title_box, legend_box = text.get_window_extent(renderer), legend.get_window_extent(renderer)
    if title_box.x1 <= legend_box.x0:
        return
    lift_points = legend_box.height * 72.0 / ax.figure.dpi
    ax.set_title(title, fontsize=10, loc="left", pad=mpl.rcParams["axes.titlepad"] + lift_points)


def _rects(x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, y1: np.ndarray) -> np.ndarray:
    """(n, 4, 2) rectangle corners from column arrays."""
    verts = np.empty((len(x0), 4, 2))
    verts[:, 0, 0] = verts[:, 3, 0] = x0
    verts[:, 1, 0] = verts[:, 2, 0] = x1
    verts[:, 0, 1] = verts[:, 1, 1] = y0
    verts[:, 2, 1] = verts[:, 3, 1] = y1
    return verts
