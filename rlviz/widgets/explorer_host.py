"""``ExplorerHost``: what every kernel-side Explorer (``TraceView``, ``LiveView``) shares with its page.

One anywidget carrying the Explorer's front end, and one message protocol
between the kernel and the page.  The page sends ``{"type": ..., "view":
token}`` messages: ``ready`` (a view was drawn and wants its data), ``ping``
(is the kernel there?) and whatever the host's ``_handlers()`` take (a
finished trace's ``detail`` and ``drawn``, a live run's ``command``).  The
host answers ``pong`` to a ping, and a message ``{"type": "error",
"message": ...}`` shows an error in the page (``show_error``).

The output a notebook keeps is the widget, a text line and a picture of the
timeline (``image/png``) for a reader without a kernel.  The host shows it
with a display id, so that a later picture (once drawn, or once a run ended)
replaces the first one in every output showing the view
(``update_outputs``); the page then moves the Explorer it already shows into
the new output (``_view_key`` names it) rather than asking for all of it
again.  The picture is kept in the ``_picture`` trait, which a notebook saved
with its widget state shows when reopened.
"""
from __future__ import annotations

import base64
import uuid
from typing import Any, Callable

import anywidget
import traitlets

from rlviz.viz.explorer_html import explorer_js

__all__ = ["ExplorerHost"]


class ExplorerHost(anywidget.AnyWidget):
    """The Explorer's widget, its message protocol and its outputs; ``TraceView`` and ``LiveView`` build on it.

    A subclass says what its page's messages do (``_handlers``), what any
    page message means to it (``_page_spoke``), and what its outputs show
    (``_text``, ``_extra_outputs``, ``_picture_for_repr``, ``_picture_shown``);
    the picture is its ``_picture`` trait.
    """

    _esm = traitlets.Unicode().tag(sync=True)
    # the picture shown when no kernel answers (saved with the widget state)
    _picture = traitlets.Bytes(b"").tag(sync=True)
    # names this view's Explorer in the page, so an output re-rendered by a picture's update moves it, not rebuilds it
    _view_key = traitlets.Unicode().tag(sync=True)

    def __init__(self) -> None:
        super().__init__(_esm=explorer_js(), _view_key=uuid.uuid4().hex)
        self._display_ids: list[str] = []          # the outputs showing this view (``_ipython_display_``)
        self.on_msg(self._receive)

    # -- the message protocol ------------------------------------------------
    def show_error(self, message: str) -> None:
        """Show ``message`` as an error in every page of this view (the kernel side goes on)."""
        self.send({"type": "error", "message": message})

    def _handlers(self) -> dict[str, Callable[[dict], None]]:
        """What each type of page message does (``ready`` included), by type; ``ping`` is answered here."""
        return {}

    def _page_spoke(self) -> None:
        """Called for every message of the page, before it is handled."""

    def _receive(self, _widget: object, content: object, _buffers: list) -> None:
        self._page_spoke()
        if not isinstance(content, dict):
            return
        if content.get("type") == "ping":           # the page asks if the kernel is there (explorer_kernel.js)
            self.send({"type": "pong", "view": content.get("view")})
            return
        handler = self._handlers().get(content.get("type"))
        if handler is not None:
            handler(content)

    # -- outputs -------------------------------------------------------------
    def _text(self) -> str:
        """The output's text line."""
        return repr(self)

    def _extra_outputs(self) -> dict:
        """More outputs by MIME type (none by default)."""
        return {}

    def _picture_for_repr(self) -> bytes:
        """The picture a bare ``_repr_mimebundle_`` shows (outside a notebook's display): the kept one by default."""
        return self._picture

    def _outputs(self, picture: bytes, **kwargs: Any) -> tuple[dict, dict]:
        """The widget's output with its text line, ``picture`` (none when empty) and the extra outputs."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = {**data, "text/plain": self._text()}
        if picture:
            data["image/png"] = base64.b64encode(picture).decode("ascii")
        return {**data, **self._extra_outputs()}, meta

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        return self._outputs(self._picture_for_repr(), **kwargs)

    def _picture_shown(self) -> bytes:
        """The picture an output showing this view shows now: the kept one by default."""
        return self._picture

    def _now_shown(self) -> tuple[dict, dict]:
        """What an output showing this view shows now."""
        return self._outputs(self._picture_shown())

    def _ipython_display_(self) -> None:
        """Show the view with a display id, so that a later picture can replace this output's."""
        from IPython.display import display

        data, meta = self._now_shown()
        handle = display(data, metadata=meta, raw=True, display_id=True)
        self._display_ids.append(handle.display_id)

    def update_outputs(self) -> bool:
        """Put what the view shows now (its latest picture) into every output showing it.

        Returns
        -------
        bool
            Whether any output shows the view (False: nothing was shown, nothing updated).
        """
        if not self._display_ids:
            return False
        from IPython.display import update_display

        data, meta = self._now_shown()
        for display_id in self._display_ids:
            update_display(data, metadata=meta, raw=True, display_id=display_id)
        return True
