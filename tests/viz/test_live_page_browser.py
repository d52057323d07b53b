"""A live Explorer page in headless chromium draws what arrives once per frame, and loses none of it.

The chunks are the real wire format (``LiveEncoder``) of a recorded
Concurrently plan, delivered to a standalone page the way the widget's
messages arrive: several in one task, with the run's status among them.
"""
import base64

import pytest
from browser_harness import chromium_page

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently
from rlviz.viz.explorer_html import explorer_js
from rlviz.viz.explorer_stream import LiveEncoder

pytestmark = pytest.mark.browser

_DRIVER = """
window.rlvizLive = {
  mount(meta) {
    const view = window.view = mountExplorer(document.getElementById("rlviz-root"), meta, []);
    window.passes = 0;
    view.store.subscribe(() => { window.passes++; });
  },
  deliver(chunks, status) {
    const bytes = (text) => base64Bytes(text);
    for (const { meta, buffers } of chunks) window.view.append(meta, buffers.map(bytes));
    if (status) window.view.setLive(status);
  },
  frames: (n) => new Promise((done) => {
    const next = (k) => (k === 0 ? done() : requestAnimationFrame(() => next(k - 1)));
    next(n);
  }),
  appends: () => performance.getEntriesByName("rlviz:append").map((e) => e.detail),
};
"""


def _page() -> str:
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>"
            "<div id='rlviz-root' style='width:1200px'></div>"
            f"<script type='module'>{explorer_js()}\n{_DRIVER}</script></body></html>")


def _op(name):
    return LocalIterator(lambda timeout: (f"{name}{i}" for i in range(10**6)), name=name).named(name)


def _recorded_chunks(count: int) -> tuple[dict, list[dict]]:
    """The structure and ``count`` chunks a page gets while a Concurrently plan runs: one per pull."""
    plan = Concurrently([_op("Store"), _op("Train")], mode="round_robin")
    stream = iter(plan)
    with rlviz.record() as live:
        encoder = LiveEncoder(live.store)
        chunks = []
        for _ in range(count):
            for _ in range(40):
                next(stream)
            live.pull()
            chunk = encoder.next_chunk()
            chunks.append({"meta": chunk.meta,
                           "buffers": [base64.b64encode(bytes(b)).decode() for b in chunk.buffers]})
        structure = encoder.start()
    stream.close()
    return structure, chunks


def _status(events: int) -> dict:
    return {"running": True, "paused": False, "iterations": 3, "events": events, "events_per_s": 10.0,
            "error": None, "curve": None}


def test_chunks_and_status_arriving_together_are_drawn_in_one_pass_and_none_is_lost():
    structure, chunks = _recorded_chunks(14)
    total = sum(c["meta"]["count"] for c in chunks)
    with chromium_page(1280, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_content(_page())
        page.wait_for_function("typeof window.rlvizLive === 'object'")
        page.evaluate("(meta) => window.rlvizLive.mount(meta)", structure)
        page.evaluate("() => window.rlvizLive.frames(3)")
        page.evaluate("() => { window.passes = 0; }")

        first = chunks[:3]
        page.evaluate("([c, s]) => window.rlvizLive.deliver(c, s)",
                      [first, _status(sum(c["meta"]["count"] for c in first))])
        page.evaluate("() => window.rlvizLive.frames(3)")
        assert page.evaluate("() => window.passes") == 1, "three chunks and a status in one task: one pass of the panes"
        appends = page.evaluate("() => window.rlvizLive.appends()")
        assert appends == [{"first_id": 0, "count": sum(c["meta"]["count"] for c in first)}]
        count = page.locator('[data-rlviz="live-count"]')
        assert count.get_attribute("data-count") == str(sum(c["meta"]["count"] for c in first))

        rest = chunks[3:]                          # more than a page queues undrawn: taken in before the frame
        page.evaluate("([c, s]) => window.rlvizLive.deliver(c, s)", [rest, _status(total)])
        # within a second of the last draw, and the run's state unchanged: drawn once that second is over
        page.wait_for_function("() => window.passes >= 2", timeout=5_000)
        page.evaluate("() => window.rlvizLive.frames(3)")
        assert page.evaluate("() => window.passes") == 2
        assert page.evaluate("() => window.view.model.n") == total
        shown = page.evaluate("() => window.rlvizLive.appends()")[1]
        assert shown == {"first_id": appends[0]["count"], "count": total - appends[0]["count"]}
        assert count.get_attribute("data-count") == str(total)
        assert errors == []


def test_a_chunk_that_skips_one_is_shown_as_an_error_in_a_page_with_no_kernel_to_ask_again():
    structure, chunks = _recorded_chunks(3)
    with chromium_page(1280, 900) as page:
        page.set_content(_page())
        page.wait_for_function("typeof window.rlvizLive === 'object'")
        page.evaluate("(meta) => window.rlvizLive.mount(meta)", structure)
        page.evaluate("([c, s]) => window.rlvizLive.deliver(c, s)", [[chunks[0], chunks[2]], None])
        page.evaluate("() => window.rlvizLive.frames(3)")
        banner = page.locator('[data-rlviz="error"]')
        assert "chunk 2 arrived while chunk 1 was expected: one went missing" in banner.inner_text()


def test_a_live_page_draws_rounds_that_follow_the_run_and_says_why_each_pull_happened():
    """The live page is the full Explorer: the order pane follows the newest round, the inspector has the why."""
    structure, chunks = _recorded_chunks(6)
    with chromium_page(1280, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_content(_page())
        page.wait_for_function("typeof window.rlvizLive === 'object'")
        page.evaluate("(meta) => window.rlvizLive.mount(meta)", structure)
        order = page.locator('[data-rlviz="order"]')
        last_rounds, held = [], 0
        for chunk in chunks:
            page.evaluate("([c, s]) => window.rlvizLive.deliver(c, s)", [[chunk], None])
            held += chunk["meta"]["count"]
            # chunks are drawn at most once a second (explorer_feed.js DRAW_EVERY_MS): wait for this one's draw
            page.wait_for_function("(n) => window.view.model.n === n", arg=held, timeout=5_000)
            page.evaluate("() => window.rlvizLive.frames(3)")
            assert int(order.get_attribute("data-rlviz-rounds")) > 0
            last_rounds.append(int(order.get_attribute("data-rlviz-last-round")))
        assert last_rounds == sorted(last_rounds) and last_rounds[-1] > last_rounds[0]   # it follows the run
        assert last_rounds[-1] == 40 * len(chunks) // 2                                 # the newest round is drawn
        canvas = order.locator('[data-rlviz="order-rounds"]')
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + 34 + 3, box["y"] + box["height"] - 5)          # the newest round's first pull
        assert page.evaluate("() => window.view.state.selected") >= 0, "the click selected the pull"
        why = page.locator('[data-rlviz="why"]')
        assert why.inner_text(timeout=5_000).startswith(f"round {last_rounds[-1]}: Store, pull 1 of 1")
        assert errors == []
