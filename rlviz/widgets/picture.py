"""The picture a widget leaves behind: its timeline as a PNG, for readers without a live kernel.

A widget's output carries this picture as ``image/png`` (nbconvert, GitHub,
the docs site), and the widget keeps the same bytes in a synced ``_picture``
trait, so a notebook saved with its widget state shows the picture when it is
reopened and no kernel answers the view.

Views draw it in a background (daemon) thread.  A process that exits while
such a thread is inside matplotlib's C++ code aborts: the thread is stopped
there and ``std::terminate`` ends the process (seen at the end of a test
session).  So a picture drawn in the background goes through
``background_png``: the process waits at exit for a drawing under way
(``EXIT_WAIT_S`` at most), and no new one starts once it is exiting.
"""
from __future__ import annotations

import atexit
import io
import threading

from rlviz.trace import Trace

__all__ = ["timeline_png", "background_png", "FALLBACK_EVENTS", "EXIT_WAIT_S"]

#: Seconds an exiting process waits for pictures being drawn in the background.
EXIT_WAIT_S = 30.0

#: The picture draws at most this many events (the earliest), so that showing a million-event view
#: does not wait ~12 s for matplotlib to draw a picture a live page never shows.
FALLBACK_EVENTS = 20_000


def timeline_png(trace: Trace) -> bytes:
    """The matplotlib timeline of ``trace`` as PNG bytes.

    A trace longer than ``FALLBACK_EVENTS`` is drawn up to the end of its
    first ``FALLBACK_EVENTS`` calls, and the title says so.

    Parameters
    ----------
    trace : Trace
        The trace to draw (may be empty).

    Returns
    -------
    bytes
        A PNG image.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> timeline_png(sharded_trace())[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from rlviz.viz import plot_timeline

    window, title = None, None
    if len(trace) > FALLBACK_EVENTS:
        cut_ns = np.partition(trace.columns["start_ns"], FALLBACK_EVENTS)[FALLBACK_EVENTS]
        window = (0.0, max(float(cut_ns - trace.start_ns) / 1e6, 1e-3))
        title = (f"The first {FALLBACK_EVENTS:,} of {len(trace):,} calls (a static picture; "
                 f"run the cell in a live kernel to explore them all)")
    ax = plot_timeline(trace, window=window, title=title)
    buffer = io.BytesIO()
    try:
        ax.figure.savefig(buffer, format="png", dpi=80)
    finally:
        plt.close(ax.figure)
    return buffer.getvalue()


class _Drawings:
    """How many pictures background threads are drawing, and whether the process is exiting."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.under_way = 0
        self.exiting = False

    def finish_before_exit(self) -> None:
        """At exit: refuse new drawings and wait for those under way."""
        with self.changed:
            self.exiting = True
            self.changed.wait_for(lambda: self.under_way == 0, timeout=EXIT_WAIT_S)


_DRAWINGS = _Drawings()
atexit.register(_DRAWINGS.finish_before_exit)


def background_png(trace: Trace) -> bytes | None:
    """``timeline_png(trace)`` for a background thread: None once the process is exiting (nothing is drawn), and
    an exit waits for the drawing to end."""
    with _DRAWINGS.changed:
        if _DRAWINGS.exiting:
            return None
        _DRAWINGS.under_way += 1
    try:
        return timeline_png(trace)
    finally:
        with _DRAWINGS.changed:
            _DRAWINGS.under_way -= 1
            _DRAWINGS.changed.notify_all()
