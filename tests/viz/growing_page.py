"""A watched run's page in chromium without a kernel: a ``GrowingChunks`` in this process answers it.

``GrowingPage`` mounts the page the way a ``LiveView``'s widget does
(``mountLong`` on the start meta and levels of ``GrowingChunks.start``), answers
the chunks the page asks for (a function the page calls, as the widget sends
"detail" messages), and hands it each refresh's extent (``refresh``), so the
tests drive the real data path of a live page step by step.  Imported by name
(pytest puts this folder on sys.path).
"""
import base64

from rlviz.viz.explorer_html import explorer_js
from rlviz.viz.growing_chunks import Extent, GrowingChunks

_DRIVER = """
const textBytes = (texts) => texts.map((text) => base64Bytes(text));
window.rlvizGrowing = {
  mount(meta, levels) {
    const source = { chunk: async (k, after) => {
      const answer = await window.rlvizChunk(k, after && after.parts ? after.parts[1] : null);
      return { chunk: answer.meta, buffers: textBytes(answer.buffers) };
    } };
    const view = window.view = mountLong(document.getElementById("rlviz-root"), meta, base64Bytes(levels), source);
    window.passes = 0;
    view.store.subscribe(() => { window.passes++; });
  },
  extend(extent, buffers) { window.view.extend(extent, textBytes(buffers)); },
  setLive(status) { window.view.setLive(status); },
  settled: async () => { await window.view.levelsReady; await window.view.lod.pending; },
  frames: (n) => new Promise((done) => {
    const next = (k) => (k === 0 ? done() : requestAnimationFrame(() => next(k - 1)));
    next(n);
  }),
};
"""


def page_html() -> str:
    """A blank page holding the Explorer's bundle and the driver."""
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>"
            "<div id='rlviz-root' style='width:1200px'></div>"
            f"<script type='module'>{explorer_js()}\n{_DRIVER}</script></body></html>")


def _texts(buffers) -> list[str]:
    return [base64.b64encode(bytes(b)).decode() for b in buffers]


class GrowingPage:
    """A chromium page showing ``source`` (a ``GrowingChunks``) as a live view's page shows it."""

    def __init__(self, page, source: GrowingChunks) -> None:
        self.page, self.source, self.sent = page, source, Extent()
        self.asked: list[int] = []                 # the chunks the page asked for, in order
        self.pieces: list[bool] = []               # for each: whether it asked for the rest of a tail it held
        page.expose_function("rlvizChunk", self._chunk)
        page.set_content(page_html())
        page.wait_for_function("typeof window.rlvizGrowing === 'object'")

    def _chunk(self, k: int, from_part: int | None) -> dict:
        self.asked.append(k)
        self.pieces.append(from_part is not None)
        payload = self.source.chunk(k, from_part)
        return {"meta": payload.meta, "buffers": _texts(payload.buffers)}

    def mount(self) -> dict:
        """Mount the page on the run so far; returns the start meta."""
        meta, levels = self.source.start(self.sent)
        self.page.evaluate("([meta, levels]) => window.rlvizGrowing.mount(meta, levels)",
                           [meta, base64.b64encode(levels).decode()])
        self.settle()
        return meta

    def refresh(self, final: bool = False, status: dict | None = None) -> dict:
        """What a live view's refresher does: take what arrived, send the page its extent (and the status)."""
        self.source.advance(final=final)
        extent, buffers = self.source.extent(self.sent)
        self.page.evaluate("([extent, buffers]) => window.rlvizGrowing.extend(extent, buffers)",
                           [extent, _texts(buffers)])
        if status is not None:
            self.page.evaluate("(status) => window.rlvizGrowing.setLive(status)", status)
        self.settle()
        return extent

    def settle(self) -> None:
        """Wait until the page has the chunks its window asked for, and drew them."""
        self.page.evaluate("() => window.rlvizGrowing.settled()")
        self.page.evaluate("() => window.rlvizGrowing.frames(3)")
