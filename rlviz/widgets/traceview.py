"""``TraceView``: the Explorer in a notebook, an anywidget whose drawing happens in the browser.

Every trace, short or long, travels as a saved page holds it (a short trace
is a long trace of one chunk): the page gets its overview of levels
(``long_start``) and asks for the chunks its window needs, which the kernel
encodes when asked (``detail_chunk``), as binary column buffers of custom
messages (the format of ``rlviz.viz.explorer_payload``).  A run of a few
chunks is held whole, so a small trace opens exact and its zoom, hover,
click and step need no kernel round trip.  Selection, window and filters
are traits mirrored both ways.

The picture a reader without a kernel sees (``rlviz.widgets.picture``)
takes a second or more to draw, so a view shown in a notebook draws it only
after its page has drawn its first frame (the page says "drawn"; at most
``PICTURE_WAIT_S`` after the first data went out) and then left the kernel
alone for ``PICTURE_QUIET_S`` (no zoom, pan or chunk request: the picture
does not compete with someone's first looks either): in a thread, which then
keeps it in the ``_picture`` trait (the saved widget state) and puts it
into every output showing the view (``update_display``).
"""
from __future__ import annotations

import contextvars
import os
import threading
from concurrent.futures import Future
from typing import Any, Callable

import traitlets

from rlviz.trace import Event, Trace
from rlviz.viz.explorer_html import explorer_html
from rlviz.viz.explorer_long import detail_chunk, long_start
from rlviz.viz.explorer_payload import Payload
from rlviz.viz.explorer_stream import TraceChunks
from rlviz.widgets.explorer_host import ExplorerHost
from rlviz.widgets.picture import background_png, timeline_png

__all__ = ["TraceView", "STANDALONE_MIME", "EMBED_ENV", "PICTURE_WAIT_S", "PICTURE_QUIET_S"]

_TRAITS = ("selected", "window", "op", "where", "skip_not_ready")

#: The output type that carries the kernel-free Explorer page (``TraceView.standalone_html``).
STANDALONE_MIME = "application/vnd.rlviz.explorer+html"
#: Set this environment variable to 1 in a kernel, and every TraceView output also carries its
#: kernel-free page (what the documentation site shows; ~25 bytes per event in the notebook).
EMBED_ENV = "RLVIZ_EMBED_EXPLORER"
#: Seconds the picture waits, after the first data went out, for the page to say its first frame is drawn.
PICTURE_WAIT_S = 10.0
#: Seconds without a word from the page (a window change, a chunk asked for) before the picture is drawn.
PICTURE_QUIET_S = 2.0


class TraceView(ExplorerHost):
    """An interactive trace viewer: timeline, dataflow graph, order strip and inspector, linked.

    Wheel to zoom, drag to pan, hover for a tooltip, click a span to select
    it (its producers and consumers are drawn with arrows), click a graph
    node to filter the timeline, ←/→ or Play to step in completion order,
    and search op or item text.  Without a live kernel (nbconvert, GitHub)
    the output falls back to a PNG of the matplotlib timeline; a notebook
    saved with its widget state shows the same picture in the view.  Shown
    in a notebook, the view draws that picture only after its page drew its
    first frame and then paused (``PICTURE_QUIET_S``), so the picture never
    delays the page; ``wait_for_picture`` waits for it.

    Parameters
    ----------
    trace : Trace
        A recorded trace (live or ``Trace.load``-ed); may be empty.
    selected : int, default -1
        Trace index of the selected event; -1 for none.
    window : tuple of two floats, optional
        Visible range in ms since the trace start; by default all of it.
    op : str, optional
        Show only this op's spans (and step through them only).
    where : str, optional
        Show only this lane's (process's) spans.
    skip_not_ready : bool, default False
        ←/→ and Play step over calls that returned "not ready" (the page's
        "skip not-ready" box), so each step made, ended or failed something.

    Attributes
    ----------
    selected, window, op, where, skip_not_ready
        Traits mirrored with the page: set them to move the view; clicks,
        zooms and steps in the page set them.
    event : Event or None
        The selected event.

    Raises
    ------
    TypeError
        If ``trace`` is not a Trace or an unknown keyword is given.
    traitlets.TraitError
        If ``op`` or ``where`` names no op or lane of the trace (the message
        lists the valid ones), ``selected`` is out of range or ``window`` is
        not an increasing pair.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> view = TraceView(sharded_trace(), op="gather_sync")
    >>> view.event is None, view.op
    (True, 'gather_sync')
    """

    selected = traitlets.Int(-1).tag(sync=True)
    window = traitlets.Tuple(traitlets.Float(), traitlets.Float(), default_value=(0.0, 0.0)).tag(sync=True)
    op = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    where = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    skip_not_ready = traitlets.Bool(False).tag(sync=True)

    def __init__(self, trace: Trace, **kwargs: Any) -> None:
        if not isinstance(trace, Trace):
            raise TypeError(f"TraceView(trace=...) needs an rlviz.trace.Trace, not {type(trace).__name__}; "
                            f"hint: `with rlviz.record() as trace:` or Trace.load(path)")
        unknown = sorted(set(kwargs) - set(_TRAITS))
        if unknown:
            raise TypeError(f"TraceView got an unknown keyword argument {unknown[0]!r}; "
                            f"it accepts {', '.join(_TRAITS)}")
        self._trace = trace
        self._ops = sorted({n.op for n in trace.nodes})
        self._wheres = sorted({n.where for n in trace.nodes})
        self._payload = None
        self._chunks: TraceChunks | None = None       # the trace's stream, chunk by chunk
        self._picturing: threading.Thread | None = None  # draws the picture once the page drew its first frame
        self._drawn = threading.Event()                     # a page said its first frame is on screen
        self._heard = threading.Event()                     # the page moved or asked since the picture last looked
        self._closed = threading.Event()                    # close() was called: no picture is drawn any more
        self._answer: Future | None = None                  # the first answer, worked out while the page loads
        super().__init__()
        for name, value in kwargs.items():
            setattr(self, name, value)

    @property
    def trace(self) -> Trace:
        """The trace shown."""
        return self._trace

    @property
    def event(self) -> Event | None:
        """The selected event, or None."""
        return self._trace.event(self.selected) if self.selected >= 0 else None

    # -- validation: a bad value raises and the trait keeps its last good value
    @traitlets.validate("selected")
    def _check_selected(self, proposal: dict) -> int:
        value = proposal["value"]
        if not -1 <= value < len(self._trace):
            raise traitlets.TraitError(f"selected must be -1 (none) or a trace index in 0..{len(self._trace) - 1}, "
                                       f"got {value}")
        return value

    @traitlets.validate("window")
    def _check_window(self, proposal: dict) -> tuple[float, float]:
        a, b = proposal["value"]
        if (a, b) != (0.0, 0.0) and not a < b:
            raise traitlets.TraitError(f"window must be (t0_ms, t1_ms) with t0_ms < t1_ms, got {(a, b)!r}; "
                                       f"hint: view.window = (0, 50) shows the first 50 ms")
        return a, b

    @traitlets.observe("window")
    def _window_moved(self, _change: dict) -> None:
        self._heard.set()

    @traitlets.validate("op")
    def _check_op(self, proposal: dict) -> str | None:
        return self._shown(_check_choice, "op", proposal["value"], self._ops)

    @traitlets.validate("where")
    def _check_where(self, proposal: dict) -> str | None:
        return self._shown(_check_choice, "where", proposal["value"], self._wheres)

    def _shown(self, check, *args):
        """Run ``check``; its error is also shown in the page, then raised."""
        try:
            return check(*args)
        except traitlets.TraitError as err:
            self.show_error(str(err))
            raise

    # -- messages (the protocol: rlviz.widgets.explorer_host) ----------------
    def _page_spoke(self) -> None:
        self._heard.set()                       # any word from the page puts the picture off (``PICTURE_QUIET_S``)

    def _handlers(self) -> dict[str, Callable[[dict], None]]:
        return {"ready": lambda content: self.send_payload(content.get("view")),
                # the page's window needs a chunk
                "detail": lambda content: self.send_detail(content.get("chunk"), content.get("view")),
                "drawn": lambda _content: self._drawn.set()}      # the page's first frame: picture now

    def send_payload(self, view: str | None = None) -> None:
        """Send the trace's start to the page: its meta and packed overview (each view asks for it when it is drawn).

        Parameters
        ----------
        view : str, optional
            The asking view's token; other views of this widget ignore the answer.
        """
        try:
            if self._payload is None:
                self._payload, self._chunks = (self._answer.result() if self._answer is not None
                                               else _first_answer(self._trace))
        except Exception as err:          # shown in the widget, not lost in a log
            self.show_error(f"{type(err).__name__}: {err}")
            raise
        self.send({"type": "payload", "view": view, "meta": self._payload.meta}, self._payload.buffers)
        self._picture_soon()

    def send_detail(self, chunk: object, view: str | None = None) -> None:
        """Send chunk ``chunk`` of the trace's stream to the page that asked (its window meets it).

        Parameters
        ----------
        chunk : int
            The chunk's number, as the page's start meta lists it (``detail``).
        view : str, optional
            The asking view's token; other views of this widget ignore the answer.
        """
        if self._chunks is None or not isinstance(chunk, int) or not 0 <= chunk < len(self._chunks):
            count = len(self._chunks) if self._chunks is not None else 0
            self.show_error(f"the page asked for chunk {chunk!r} of a trace that has {count} "
                            f"(chunks are numbered from 0 once the page has the start): reload the view")
            return
        payload = detail_chunk(self._chunks, chunk)
        self.send({"type": "detail", "view": view, "chunk": chunk, "meta": payload.meta}, payload.buffers)

    # -- static fallback ---------------------------------------------------
    def standalone_html(self) -> str:
        """This view as a kernel-free page (``rlviz.viz.write_html``'s), opening where the view stands.

        Returns
        -------
        str
            The page: trace embedded, no network request; it opens on this
            view's window, selection, filter and skip-not-ready setting.
        """
        window = list(self.window) if self.window[1] > self.window[0] else None
        view = {"window": window, "selected": self.selected, "op": self.op, "where": self.where,
                "skip_not_ready": self.skip_not_ready}
        return explorer_html(self._trace, view=view)

    def _picture_for_repr(self) -> bytes:
        if not self._picture:                  # asked for outside a notebook's display: the picture is drawn now
            self._picture = timeline_png(self._trace)
        return self._picture

    def _ipython_display_(self) -> None:
        """Show the view with a display id and start working out its first answer while the page loads; its
        picture (if not drawn yet) follows once the page drew its first frame, or when the next cell runs if no
        page asked for data by then (nbconvert and nbclient have none)."""
        from IPython import get_ipython

        super()._ipython_display_()
        if self._payload is None and self._answer is None:     # the page takes a moment to load: start meanwhile
            self._answer = _in_thread(_first_answer, self._trace)
        shell = get_ipython()
        if shell is not None and not self._picture and self._payload is None:
            shell.events.register("pre_run_cell", self._picture_if_unasked)

    def _picture_if_unasked(self, *_: Any) -> None:
        """The next cell runs and no page has asked for this view's data: draw the picture now (in that cell, whose
        output messages a notebook runner without a browser still reads), so the outputs carry it."""
        from IPython import get_ipython

        get_ipython().events.unregister("pre_run_cell", self._picture_if_unasked)
        if self._payload is None and not self._picture:
            self._keep_picture()

    def _text(self) -> str:
        return f"TraceView of {self._trace!r}"

    def _extra_outputs(self) -> dict:
        """The kernel-free page, when the kernel's ``EMBED_ENV`` asks for it."""
        return {STANDALONE_MIME: self.standalone_html()} if os.environ.get(EMBED_ENV) == "1" else {}

    def _picture_soon(self) -> None:
        """The first data went out: draw the picture in a thread (once) after the page's first frame, then put it
        into the outputs."""
        if self._picture or self._picturing is not None:
            return
        context = contextvars.copy_context()          # the asking message's parent header: ipykernel 7 routes by it
        self._picturing = threading.Thread(target=context.run, args=(self._draw_picture,), name="rlviz-picture",
                                           daemon=True)
        self._picturing.start()

    def _draw_picture(self) -> None:
        """Once the page drew its first frame (or ``PICTURE_WAIT_S`` passed) and was then quiet for
        ``PICTURE_QUIET_S``, draw and keep the picture."""
        self._drawn.wait(PICTURE_WAIT_S)
        self._heard.clear()
        while self._heard.wait(PICTURE_QUIET_S) and not self._closed.is_set():
            self._heard.clear()
        if not self._closed.is_set():
            self._keep_picture()

    def close(self) -> None:
        """Close the view (its page goes blank); a picture not drawn yet is not drawn, so nothing keeps the trace."""
        for event in (getattr(self, name, None) for name in ("_closed", "_drawn", "_heard")):
            if event is not None:                # None: __init__ refused its arguments before making them
                event.set()
        super().close()

    def _keep_picture(self) -> None:
        """Draw the picture, keep it in the synced trait (saved widget state) and in every output showing the view."""
        try:
            picture = background_png(self._trace)
        except Exception as err:                    # the view stays; only the saved picture is missing
            self.show_error(f"drawing the saved picture failed: {type(err).__name__}: {err}")
            return
        if picture is not None:                     # None: the process is exiting
            self._picture = picture
            self.update_outputs()

    def wait_for_picture(self, timeout: float | None = None) -> bool:
        """Wait until the picture drawn after the page's first frame is done (what a save then keeps).

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most; None waits as long as it takes.

        Returns
        -------
        bool
            Whether the view has its picture now.
        """
        if self._picturing is not None:
            self._picturing.join(timeout)
        return bool(self._picture)


def _first_answer(trace: Trace) -> tuple[Payload, TraceChunks]:
    """What a page showing ``trace`` gets first: the start meta and packed overview (and the chunks it will ask for).

    Worked out for each view, not kept per trace: the chunks hold their
    trace, so any table of answers would keep every trace it saw.
    """
    chunks = TraceChunks(trace)
    meta, overview = long_start(chunks)
    return Payload(meta, [overview]), chunks


def _in_thread(work: Any, *args: Any) -> Future:
    """``work(*args)`` run in a new daemon thread; its result (or error) in the returned future."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(work(*args))
        except BaseException as err:      # handed to whoever waits for the result
            future.set_exception(err)

    threading.Thread(target=run, name="rlviz-first-answer", daemon=True).start()
    return future


def _check_choice(name: str, value: str | None, valid: list[str]) -> str | None:
    if value is None or value in valid:
        return value
    raise traitlets.TraitError(f"{name}={value!r} is not in this trace; valid values: "
                               f"{', '.join(map(repr, valid)) or '(none: the trace is empty)'}, or None for all")

