"""Frames for stepping: a view drawn once, then only a highlight redrawn per step (blitting).

``TimelineFrame`` and ``GraphFrame`` draw ``plot_timeline`` / ``plot_graph``
on an off-screen Agg figure, keep the rendered pixels, and for each step
restore them and draw a few highlight artists on top before encoding a PNG,
so a step costs a PNG encode, not a redraw of every span.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np

from rlviz.trace import Trace
from rlviz.viz import plot_graph, plot_timeline
from rlviz.viz.graph import NODE_GID
from rlviz.viz.timeline import event_times_ms, pixel_ms, timeline_lanes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TimelineFrame", "GraphFrame", "HIGHLIGHT_COLOR"]

#: Outline colour of the current event and of the events it consumed.
HIGHLIGHT_COLOR = "#d100d1"


class _BlitFrame:
    """A figure whose static part is rendered once; ``png()`` adds the animated artists."""

    def __init__(self, figure: "Figure", dpi: float) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure = figure
        self.figure.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(figure)
        self.animated: list = []
        self._background = None

    def _animate(self, artist):
        artist.set_animated(True)
        self.animated.append(artist)
        return artist

    @property
    def width_px(self) -> int:
        """Width of the PNG frames in pixels."""
        return round(self.figure.get_figwidth() * self.figure.dpi)

    def redraw_background(self) -> None:
        """Render the static artists again (after limits changed)."""
        self.canvas.draw()
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)

    def png(self) -> bytes:
        """The background plus the visible animated artists, as PNG bytes."""
        if self._background is None:
            self.redraw_background()
        self.canvas.restore_region(self._background)
        for artist in self.animated:
            if artist.get_visible():
                artist.axes.draw_artist(artist)
        pixels = np.asarray(self.canvas.buffer_rgba())
        buffer = io.BytesIO()
        from matplotlib.image import imsave

        imsave(buffer, pixels, format="png", pil_kwargs={"compress_level": 1})
        return buffer.getvalue()


class TimelineFrame(_BlitFrame):
    """``plot_timeline`` of a trace with the current event outlined and its input flows drawn bold.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    width : float, default 10
        Figure width in inches.
    dpi : float, default 80
        Pixels per inch of the PNG frames.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> frame = TimelineFrame(sharded_trace(items=2))
    >>> frame.show(3, producers=[1]).startswith(b"\\x89PNG")
    True
    """

    def __init__(self, trace: Trace, width: float = 10.0, dpi: float = 80) -> None:
        from matplotlib.collections import LineCollection
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        self.trace = trace
        self.lanes = timeline_lanes(trace)
        figure = Figure(figsize=(width, self.lanes.figure_height), layout="constrained")
        super().__init__(figure, dpi)
        self.ax = figure.add_subplot()
        plot_timeline(trace, ax=self.ax)
        self.full_xlim = self.ax.get_xlim()
        self.start_ms, self.end_ms = event_times_ms(trace)
        self.box = self._animate(self.ax.add_patch(Rectangle((0, 0), 0, 0, facecolor=(0.82, 0, 0.82, 0.18),
                                                             edgecolor=HIGHLIGHT_COLOR, linewidth=2.0,
                                                             zorder=6, gid="rlviz-current")))
        self.cursor = self._animate(self.ax.axvline(0, color=HIGHLIGHT_COLOR, linewidth=1.0,
                                                    linestyle="--", zorder=6, gid="rlviz-cursor"))
        self.flows = self._animate(self.ax.add_collection(
            LineCollection([], colors=HIGHLIGHT_COLOR, linewidths=2.0, zorder=7, gid="rlviz-current-flows"),
            autolim=False))
        self.sources = self._animate(self.ax.add_collection(
            LineCollection([], colors=HIGHLIGHT_COLOR, linewidths=2.5, zorder=7, gid="rlviz-current-sources"),
            autolim=False))

    def show(self, index: int | None, producers: list[int] = (), window: tuple[float, float] | None = None) -> bytes:
        """A PNG with event ``index`` (None: nothing) highlighted and its producers linked to it.

        ``window`` (ms) zooms the time axis; None shows the whole trace.
        """
        xlim = window or self.full_xlim
        if tuple(self.ax.get_xlim()) != tuple(xlim):
            self.ax.set_xlim(xlim)
            self.redraw_background()
        for artist in self.animated:
            artist.set_visible(index is not None)
        if index is None:
            return self.png()
        row = self.lanes.row[self.trace.columns["node"]]
        pixel = 3 * pixel_ms(self.ax)
        x0, x1 = self.start_ms[index], max(self.end_ms[index], self.start_ms[index] + pixel)
        self.box.set_bounds(x0 - pixel / 3, row[index] - 0.5, x1 - x0 + 2 * pixel / 3, 1.0)
        self.cursor.set_xdata([self.end_ms[index]] * 2)
        self.flows.set_segments([((self.end_ms[p], row[p]), (self.start_ms[index], row[index]))
                                 for p in producers])
        self.sources.set_segments([((self.start_ms[p], row[p]), (max(self.end_ms[p], self.start_ms[p] + pixel),
                                                                 row[p])) for p in producers])
        return self.png()

    def window_around(self, indices: np.ndarray, position: int, radius: int = 10) -> tuple[float, float]:
        """Time window (ms) covering the events ``radius`` steps before and after ``indices[position]``."""
        lo, hi = max(position - radius, 0), min(position + radius, len(indices) - 1)
        t0 = float(self.start_ms[indices[lo:hi + 1]].min())
        t1 = float(self.end_ms[indices[lo:hi + 1]].max())
        pad = max((t1 - t0) * 0.05, 1e-3)
        return t0 - pad, t1 + pad


class GraphFrame(_BlitFrame):
    """``plot_graph`` of a trace with the current event's node and its producers' nodes outlined.

    Parameters
    ----------
    trace : Trace
        The recorded trace.
    dpi : float, default 80
        Pixels per inch of the PNG frames (the graph figure is sized in inches by ``plot_graph``).

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> frame = GraphFrame(sharded_trace(items=2))
    >>> frame.show(3, producers=[1]).startswith(b"\\x89PNG")
    True
    """

    def __init__(self, trace: Trace, dpi: float = 80) -> None:
        import matplotlib.pyplot as plt

        self.trace = trace
        ax = plot_graph(trace)              # sizes its own figure: one data unit is one inch
        plt.close(ax.figure)                # never shown by pyplot; we render it ourselves
        super().__init__(ax.figure, dpi)
        self.ax = ax
        boxes = {p.get_gid(): p for p in ax.patches}
        self.boxes = [boxes.get(NODE_GID.format(i)) for i in range(len(trace.nodes))]
        #: rings[0] outlines the current node, the others its producers' nodes.
        self.rings = [self._animate(ax.add_patch(_ring(3.5)))]

    def show(self, index: int | None, producers: list[int] = ()) -> bytes:
        """A PNG with the node of event ``index`` outlined thick and its producers' nodes thin."""
        node = self.trace.columns["node"]
        current = [] if index is None else [int(node[index])]
        sources = sorted({int(node[p]) for p in producers} - set(current))
        while len(self.rings) < 1 + max(len(sources), 1):
            self.rings.append(self._animate(self.ax.add_patch(_ring(2.0))))
        for ring in self.rings:
            ring.set_visible(False)
        if current:
            self._place(self.rings[0], current[0])
        for ring, n in zip(self.rings[1:], sources):
            self._place(ring, n)
        return self.png()

    def _place(self, ring, node: int) -> None:
        box = self.boxes[node]
        if box is None:
            return
        pad = 0.06
        ring.set_bounds(box.get_x() - pad, box.get_y() - pad, box.get_width() + 2 * pad, box.get_height() + 2 * pad)
        ring.set_visible(True)


def _ring(linewidth: float):
    """An unfilled highlight rectangle, placed later."""
    from matplotlib.patches import Rectangle

    return Rectangle((0, 0), 0, 0, fill=False, edgecolor=HIGHLIGHT_COLOR, linewidth=linewidth, zorder=6)
