"""Figure plumbing shared by the views: new axes, notes on empty figures, input checks, text widths."""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import TYPE_CHECKING

from rlviz.trace import Trace

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["new_axes", "draw_note", "check_trace", "check_axes", "literal_text", "text_width"]


def new_axes(ax: "Axes | None", figsize: tuple[float, float]) -> "Axes":
    """``ax`` itself, or the axes of a new figure of ``figsize`` inches.

    On the main thread the figure is pyplot's (a notebook shows it inline);
    on any other thread (a live view drawing its picture when its run ends)
    it is a plain Agg figure, since pyplot's figure registry is not
    thread-safe.

    Parameters
    ----------
    ax : matplotlib Axes or None
        Axes to draw on; None makes a new figure.
    figsize : tuple of float
        Width and height in inches of the new figure.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        If ``ax`` is neither None nor a matplotlib Axes.
    """
    check_axes(ax)
    if ax is not None:
        return ax
    if threading.current_thread() is not threading.main_thread():
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        figure = Figure(figsize=figsize, layout="constrained")
        FigureCanvasAgg(figure)
        return figure.add_subplot()
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def literal_text(text: object) -> str:
    """``text`` as a string matplotlib draws literally: every ``$`` escaped, so no mathtext is parsed.

    Every view passes the texts it draws (op names, labels, titles, legends,
    tick labels) through this: a trace is data, and an op named ``cost$\\bad{$``
    would otherwise be parsed as a formula and fail the whole figure.

    Parameters
    ----------
    text : object
        What to draw (converted with ``str``).

    Returns
    -------
    str

    Examples
    --------
    >>> literal_text("cost$x$")
    'cost\\\\$x\\\\$'
    """
    return str(text).replace("$", "\\$")


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` set in DejaVu Sans (matplotlib's font) at ``size``, in the unit of ``size``.

    Used to size boxes around text: at ``size`` points the width is in
    points, at ``size`` pixels in pixels.  DejaVu Sans is wider than most
    sans-serif fonts a browser picks, so a box sized with it holds the text.

    Parameters
    ----------
    text : str
        One line of text, drawn literally.
    size : float
        Font size.
    bold : bool, default False
        Bold weight.

    Returns
    -------
    float

    Examples
    --------
    >>> text_width("ab", 10) < text_width("abc", 10) < text_width("abc", 10, bold=True)
    True
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal", size=size)
    width, _, _ = TextToPath().get_text_width_height_descent(text, font, ismath=False)
    return float(width)


def check_axes(ax: object) -> None:
    """Raise ``TypeError`` unless ``ax`` is None or a matplotlib Axes.

    Parameters
    ----------
    ax : object
        The value passed as ``ax=``.

    Raises
    ------
    TypeError
        If ``ax`` is something else.
    """
    if ax is None:
        return
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, not {type(ax).__name__}; "
                        f"hint: fig, ax = plt.subplots(), then pass ax=ax")


def check_trace(trace: object, view: str) -> Trace:
    """Return ``trace`` if it is a ``Trace``, else raise a ``TypeError`` naming ``view``.

    Parameters
    ----------
    trace : object
        The value passed as the trace.
    view : str
        The calling function's name, for the message.

    Returns
    -------
    Trace

    Raises
    ------
    TypeError
        If ``trace`` is not an ``rlviz.trace.Trace``.
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"{view}(trace=...) needs an rlviz.trace.Trace, not {type(trace).__name__}; "
                        f"hint: `with rlviz.record() as trace:` or Trace.load(path)")
    return trace


def draw_note(ax: "Axes", text: str, where: str = "center") -> None:
    """Write ``text`` on ``ax`` in axes coordinates (centre, or top-left corner).

    Parameters
    ----------
    ax : matplotlib Axes
        The axes to write on.
    text : str
        The note (for empty figures, dropped events, thinned flows).
    where : {"center", "top"}, default "center"
        Centred in the axes, or in the top-left corner.

    Raises
    ------
    ValueError
        If ``where`` is another value.
    """
    spots = {"center": ((0.5, 0.5), "center", "center"), "top": ((0.005, 0.995), "left", "top")}
    if where not in spots:
        raise ValueError(f"where must be one of {', '.join(spots)}, got {where!r}")
    (x, y), ha, va = spots[where]
    ax.text(x, y, literal_text(text), transform=ax.transAxes, ha=ha, va=va, fontsize=9, color="#444444",
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "#fffbe6", "edgecolor": "#d9c27a"},
            zorder=10, gid="rlviz-note")
