"""A live page that misses an extent, or gets one twice, asks the kernel for the run again and ends exact.

The page is the widget's own entry point (``render``) in headless chromium,
with a stand-in for anywidget's model; the kernel is a real ``LiveView``
watching a driver-only pipeline, its messages carried to the page by the
test, which loses one extent and delivers another twice on the way.  The
page must skip the repeat, notice the loss, send ``ready`` again, take the
new start, and end with exactly the events the kernel holds: none twice,
none missing.
"""
import base64
import threading
import time

import numpy as np
import pytest
from browser_harness import chromium_page

import rlviz
from rlviz.iter.local import LocalIterator
from rlviz.viz.explorer_html import explorer_js

pytestmark = pytest.mark.browser

_WIDGET = """
window.kernel = { outbox: [], handlers: {} };
const traits = { selected: -1, window: null, op: null, where: null, skip_not_ready: false, _picture: null };
const model = {
  get: (name) => traits[name],
  set: (name, value) => { traits[name] = value; },
  save_changes: () => {},
  send: (message) => window.kernel.outbox.push(message),
  on: (event, handler) => { window.kernel.handlers[event] = handler; },
  off: (event) => { delete window.kernel.handlers[event]; },
};
window.kernel.deliver = (messages) => {
  for (const [content, buffers] of messages) {
    window.kernel.handlers["msg:custom"](content, buffers.map((text) => base64Bytes(text)));
  }
};
window.kernel.view = () => document.querySelector('[data-rlviz="explorer"]')?.rlvizExplorer ?? null;
explorer_default.render({ model, el: document.getElementById("rlviz-root") });
"""


def _numbers():
    i = 0
    while True:
        time.sleep(0.002)
        yield i
        i += 1


def _pump(page, live, sent: list, lock: threading.Lock, faults: dict) -> int:
    """Carry the page's messages to the kernel and the kernel's to the page, with ``faults`` on the first
    start's extents (``{"drop": k, "repeat": j}``: the k-th is lost, the j-th arrives twice); returns how
    many messages moved."""
    moved = 0
    for message in page.evaluate("() => window.kernel.outbox.splice(0)"):
        live._handle_custom_msg(message, [])
        faults["ready"] += message.get("type") == "ready"
        moved += 1
    with lock:
        batch, sent[:] = list(sent), []
    out = []
    for content, buffers in batch:
        copies = 1
        if content["type"] == "extent" and faults["ready"] == 1:      # the first start's extents only
            faults["extents"] += 1
            copies = {faults["drop"]: 0, faults["repeat"]: 2}.get(faults["extents"], 1)
        elif content["type"] == "extent":
            faults["after"] += 1
        encoded = [base64.b64encode(bytes(b)).decode() for b in buffers]
        out += [[content, encoded]] * copies
    if out:
        page.evaluate("(messages) => window.kernel.deliver(messages)", out)
    return moved + len(batch)


def test_a_lost_extent_is_asked_for_again_a_repeated_one_skipped_and_the_page_ends_with_exactly_the_kernels_events():
    live = rlviz.watch(LocalIterator(lambda timeout: _numbers(), name="numbers").for_each(lambda x: x * 2),
                       seconds=120)
    sent, lock = [], threading.Lock()

    def capture(content, buffers=None):
        with lock:
            sent.append((content, list(buffers or [])))

    live.send = capture
    faults = {"drop": 3, "repeat": 2, "extents": 0, "ready": 0, "after": 0}
    with chromium_page(1280, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_content("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>"
                         "<div id='rlviz-root' style='width:1200px'></div>"
                         f"<script type='module'>{explorer_js()}\n{_WIDGET}</script></body></html>")
        page.wait_for_function("typeof window.kernel === 'object' && window.kernel.outbox.length > 0")
        deadline = time.monotonic() + 90
        while faults["after"] < 3 and time.monotonic() < deadline:    # the new stream is under way: stop the run
            _pump(page, live, sent, lock, faults)
            page.wait_for_timeout(100)
        live.stop()
        live._refresher.join(timeout=60)             # its last refresh is sent
        for _ in range(100):                         # the last refresh, and any answer still on its way
            page.wait_for_timeout(100)
            if _pump(page, live, sent, lock, faults) == 0 and faults["ready"] >= 2:
                break
        page.evaluate("() => window.kernel.view().lod.pending")
        shown = page.evaluate("""() => { const m = window.kernel.view().model;
            return { n: m.n, start: Array.from(m.start.subarray(0, m.n)), node: Array.from(m.node.subarray(0, m.n)),
                     ops: m.nodes.map((node) => node.op),
                     error: document.querySelector('[data-rlviz="error"]')?.textContent ?? "" }; }""")
    assert faults["extents"] > faults["drop"], f"the run sent too few extents to lose one: {faults}"
    assert faults["ready"] == 2, f"the page asked for the stream {faults['ready'] - 1} times after the gap"
    trace = live.trace
    origin = live._live.store.since_ns
    assert shown["n"] == len(trace), "the page holds exactly as many events as the kernel"
    page_events = sorted(zip([shown["ops"][k] for k in shown["node"]], shown["start"]))
    kernel_starts = ((trace.columns["start_ns"] - origin) // 1000).astype(np.int64).tolist()
    kernel_events = sorted(zip([trace.nodes[k].op for k in trace.columns["node"].tolist()], kernel_starts))
    assert page_events == kernel_events
    assert shown["error"] == "" and errors == []
