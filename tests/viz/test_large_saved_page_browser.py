"""A saved page of 300k events, each with its own item text and a link across lanes, opens and draws in chromium.

The shape the "Maximum call stack size exceeded" fault showed on (16 lanes, 112 nodes): a chunk's item texts
went through a spread, and past about 150k of them the page failed before its first frame.  The trace is
built straight into ``Trace`` columns (no Ray), so the test costs the page and the browser only.
"""
import numpy as np
import pytest
from browser_harness import chromium
from explorer_checks import wait_ready

from rlviz.trace import Node, Trace
from rlviz.trace.items import KIND_TEXT
from rlviz.viz import write_html

pytestmark = pytest.mark.browser

EVENTS = 300_000
LANES, NODES_PER_LANE = 16, 7

_INKED = """() => {
  const canvas = document.querySelector('[data-rlviz=lanes]');
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0;
  for (let at = 0; at < pixels.length; at += 4) if (pixels[at + 3] && pixels[at] + pixels[at + 1] + pixels[at + 2] < 600) inked++;
  return inked;
}"""


def distinct_text_trace(events: int) -> Trace:
    """``events`` calls round-robin over 112 nodes on 16 lanes, each with its own string item, each consuming the
    value of the call seven before it (on the lane before)."""
    nodes = [Node(f"op{k}", "for_each", f"op {k}", "driver" if k < NODES_PER_LANE else f"shard-{k // NODES_PER_LANE}",
                  (f"op{k - 1}",) if k else ()) for k in range(LANES * NODES_PER_LANE)]
    index = np.arange(events, dtype=np.int64)
    period = 1_000_000                                   # 1 ms apart: a 300 s run
    linked = index >= NODES_PER_LANE
    columns = {"node": (index % len(nodes)).astype(np.int32), "pid": 1000 + (index % len(nodes)) // NODES_PER_LANE,
               "start_ns": index * period, "end_ns": index * period + period // 2,
               "outcome": np.zeros(events, np.uint8), "item_kind": np.full(events, KIND_TEXT, np.uint8),
               "item_num": index + 1, "item_id": index + 1,
               "input_offsets": np.concatenate([[0], np.cumsum(linked)]).astype(np.int64),
               "input_ids": index[linked] - NODES_PER_LANE + 1}
    return Trace(nodes, columns, texts=["(summary table full)"] + [f"str 'value {k}'" for k in range(events)])


def test_a_saved_page_of_300k_distinct_item_texts_opens_draws_and_names_its_last_item(tmp_path):
    from playwright.sync_api import expect

    html = write_html(distinct_text_trace(EVENTS), tmp_path / "large.html")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri(), timeout=120_000)
        root = wait_ready(page)
        shown_ms = page.evaluate("() => performance.now()")
        expect(root.locator('[data-rlviz="error"]')).to_be_hidden()
        assert root.locator('[data-rlviz="timeline"]').get_attribute("data-rlviz-level") == "exact"
        assert page.evaluate(_INKED) > 1000, "the lanes canvas is blank"
        page.evaluate(f"() => window.rlvizExplorer.setSelected({EVENTS - 1})")
        expect(root.locator('[data-rlviz="inspector"]')).to_contain_text(f"str 'value {EVENTS - 1}'")
    print(f"{EVENTS:,} events: shown {shown_ms / 1000:.2f} s after navigation")
    assert errors == [], f"the page raised: {errors}"
