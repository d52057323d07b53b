"""Past capacity the page marks where the gap is and how much was dropped: the same mark on a live page (the run's
``GrowingChunks``) and on the page ``write_html`` saved, in chromium."""

import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready
from growing_page import GrowingPage

import rlviz
from rlviz.iter import LocalIterator
from rlviz.trace import get_recorder
from rlviz.trace.recorder import DEFAULT_CAPACITY
from rlviz.viz import write_html
from rlviz.viz.growing_chunks import GrowingChunks

pytestmark = pytest.mark.browser

def _run_past_capacity():
    """A driver pipeline of 3,000 items recorded with room for 2,048 events: the live page's source and the trace."""
    try:
        with rlviz.record(capacity=2048) as trace:
            source = GrowingChunks(trace.store)
            list(LocalIterator(lambda t: range(3000)).for_each(str))
            trace.pull()
            source.advance(final=True)
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    return source, trace.snapshot()


def _check_mark(page, dropped: int) -> None:
    from playwright.sync_api import expect

    mark = page.locator('[data-rlviz="gap"]')
    expect(mark).to_have_count(1)
    expect(mark).to_be_visible()
    expect(mark).to_have_attribute("data-rlviz-dropped", str(dropped))
    expect(mark).to_have_attribute("data-rlviz-where", "driver")
    title = mark.get_attribute("title")
    assert title.startswith(f"{dropped:,} events of driver dropped here, between 0:00:0") and "capacity=" in title
    box = mark.bounding_box()
    lanes = page.locator('[data-rlviz="lanes"]').bounding_box()
    assert box["width"] >= 3 and lanes["x"] <= box["x"] < lanes["x"] + lanes["width"]
    assert lanes["y"] <= box["y"] and box["y"] + box["height"] <= lanes["y"] + lanes["height"] + 1
    mark.hover()                                                # its title is what the pointer shows


def test_the_live_and_the_saved_page_mark_the_gap_with_how_many_were_dropped(tmp_path):
    source, final = _run_past_capacity()
    (gap,) = final.gaps
    assert gap.dropped == final.dropped > 0
    saved_html = write_html(final, tmp_path / "saved.html")
    with chromium_page(1400, 1000) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(saved_html.as_uri())
        wait_ready(page)
        _check_mark(page, final.dropped)
        meta = GrowingPage(page, source).mount()
        wait_ready(page)
        assert meta["dropped"] == final.dropped
        _check_mark(page, final.dropped)
        assert errors == []
