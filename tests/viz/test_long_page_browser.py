"""A long trace's saved page in headless chromium: 10M events open on their overview, and a 1 ms window shows its
exact events with their tooltips; a damaged long file says so.

The 10M-event trace (``benchmarks.synthetic.pipeline_trace``: 64 lanes over 3 hours, drawn like the DQN demo's;
the ``long_trace`` fixture) and its file are built once per session.  The timeline's ``data-rlviz-level`` says what its lanes drew: ``levels``
(the overview's buckets), ``exact`` (the events of the detail chunks loaded for the window) or ``mixed``.
"""
import re
import time

import numpy as np
import pytest
from browser_harness import chromium
from explorer_checks import Expected, hover_a_span, shot, wait_ready

from benchmarks.synthetic import pipeline_trace
from rlviz.viz.explorer_html import explorer_html

pytestmark = pytest.mark.browser

EVENTS = 10_000_000


@pytest.fixture(scope="session")
def long_page(long_trace, tmp_path_factory):
    """The 10M-event trace (tests/conftest.py) and its saved page, written once per session."""
    path = tmp_path_factory.mktemp("long") / "long.html"
    path.write_text(explorer_html(long_trace), encoding="utf-8")
    return long_trace, path


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(120_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(path.as_uri(), timeout=120_000)
    return page, errors


def test_ten_million_events_open_on_their_overview_and_a_millisecond_shows_exact_events(long_page, tmp_path):
    from playwright.sync_api import expect

    trace, path = long_page
    artifacts = tmp_path / "artifacts"
    print(f"{path.stat().st_size / EVENTS:.1f} bytes per event; screenshots in {artifacts}")
    assert path.stat().st_size / EVENTS <= 15
    with chromium() as browser:
        page, errors = _open(browser, path)
        root = wait_ready(page)
        page.evaluate("window.rlvizExplorer.levelsReady")
        timeline = root.locator('[data-rlviz="timeline"]')
        expect(timeline).to_have_attribute("data-rlviz-level", "levels")
        assert page.evaluate("window.rlvizExplorer.model.n") == 0, "no event decoded for the overview"
        shot(root, artifacts, "1-overview")

        c = trace.columns
        middle = int(np.searchsorted(c["start_ns"], c["start_ns"][0] + (c["end_ns"].max() - c["start_ns"][0]) // 2))
        at_ms = (int(c["start_ns"][middle]) - trace.start_ns) / 1e6
        started = time.monotonic()
        page.evaluate(f"window.rlvizExplorer.setWindow([{at_ms - 0.5}, {at_ms + 0.5}])")
        assert page.evaluate("window.rlvizExplorer.lod.pending") is True
        expect(timeline).to_have_attribute("data-rlviz-level", "exact")
        print(f"1 ms window drawn exactly after {time.monotonic() - started:.2f} s")
        loaded = page.evaluate("window.rlvizExplorer.model.n")
        assert 0 < loaded <= 4 * 65_536, "only the chunks the window needs"

        colors = page.evaluate("window.rlvizExplorer.model.meta.nodes.map((node) => node.color)")
        index, _ = hover_a_span(page, root, Expected(trace, colors, np.zeros(0, np.int64)), "for_each")
        event = trace.event(index)
        assert event.start_ns <= trace.start_ns + (at_ms + 0.5) * 1e6 and event.end_ns >= trace.start_ns + (at_ms - 0.5) * 1e6
        shot(root, artifacts, "2-millisecond")

        page.evaluate("window.rlvizExplorer.setWindow([0, 10800000])")
        expect(timeline).to_have_attribute("data-rlviz-level", "levels")
    assert errors == [], f"the page raised or logged errors: {errors}"


_LEVEL_TOOLTIP = re.compile(r"^(?P<ops>.+) @ (?P<lane>\S+)\n(?P<count>[\d,]+) calls? here.*\n"
                            r"(?P<start>\S+) to (?P<end>\S+), counted by the overview's levels")


def _seconds(clock: str) -> float:
    """``h:mm:ss.ffffff`` (the tooltip's start text) in seconds."""
    hours, minutes, seconds = clock.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def test_hovering_the_zoomed_out_overview_names_the_op_and_how_many_calls_the_levels_count(long_page):
    """Fully zoomed out, no event is decoded; the tooltip still names the lane's busiest op there and how many
    calls start in the buckets under the pointer, which the trace's own columns confirm."""
    from playwright.sync_api import expect

    trace, path = long_page
    with chromium() as browser:
        page, errors = _open(browser, path)
        root = wait_ready(page)
        page.evaluate("window.rlvizExplorer.levelsReady")
        expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "levels")
        lanes, tooltip = root.locator('[data-rlviz="lanes"]'), root.locator('[data-rlviz="tooltip"]')
        lanes.scroll_into_view_if_needed()
        box = lanes.bounding_box()
        for y in range(2, int(min(box["height"], 400)), 3):          # down the middle of the plot to a counted row
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + y)
            if tooltip.is_visible():
                break
        expect(tooltip).to_be_visible()
        text = tooltip.inner_text()
    assert errors == [], f"the page raised or logged errors: {errors}"
    found = _LEVEL_TOOLTIP.match(text)
    assert found, f"the overview's tooltip does not say '<op> @ <lane>' and 'N calls here': {text!r}"
    lane_nodes = np.array([k for k, node in enumerate(trace.nodes) if node.where == found["lane"]])
    assert set(found["ops"].split(", ")) <= {trace.nodes[k].op for k in lane_nodes}, text
    c, slack_ns = trace.columns, 1_000                  # the tooltip's times are rounded to the microsecond
    start_ns, end_ns = (trace.start_ns + round(_seconds(found[key]) * 1e9) for key in ("start", "end"))
    on_lane = np.isin(c["node"], lane_nodes)
    least = int(np.count_nonzero(on_lane & (c["start_ns"] >= start_ns + slack_ns) & (c["start_ns"] < end_ns - slack_ns)))
    most = int(np.count_nonzero(on_lane & (c["start_ns"] >= start_ns - slack_ns) & (c["start_ns"] < end_ns + slack_ns)))
    assert least <= int(found["count"].replace(",", "")) <= most, (text, least, most)
    assert least > 0, f"the hovered buckets hold no call of {found['lane']}: {text!r}"


@pytest.fixture(scope="module")
def small_long_page(tmp_path_factory):
    """1,100,000 events saved as a long trace: 17 detail chunks, more than a page holds whole (it checks each when a
    window first needs it; a page held whole checks them all at once: test_damaged_page_browser)."""
    trace = pipeline_trace(1_100_000, 8, 600.0)
    path = tmp_path_factory.mktemp("small-long") / "long.html"
    path.write_text(explorer_html(trace), encoding="utf-8")
    return trace, path


def test_a_long_file_cut_short_or_changed_says_it_is_damaged(small_long_page, tmp_path):
    from playwright.sync_api import expect

    trace, path = small_long_page
    text = path.read_text(encoding="utf-8")
    cut = tmp_path / "cut.html"
    cut.write_text(text[:text.index('id="rlviz-detail-0"') + 200], encoding="utf-8")
    start = text.index('id="rlviz-detail-0"')
    body = text.index(">", start) + 1
    changed = tmp_path / "changed.html"
    flipped = "1" if text[body + 50] != "1" else "2"
    changed.write_text(text[:body + 50] + flipped + text[body + 51:], encoding="utf-8")
    with chromium() as browser:
        page, _ = _open(browser, cut)
        expect(page.locator('[data-rlviz="damaged"]')).to_contain_text("cut short")
        page, _ = _open(browser, changed)
        root = wait_ready(page)
        page.evaluate("window.rlvizExplorer.levelsReady")
        early_ms = (int(trace.columns["start_ns"][100]) - trace.start_ns) / 1e6      # in the changed first chunk
        page.evaluate(f"window.rlvizExplorer.setWindow([{early_ms - 1}, {early_ms + 1}])")
        expect(root.locator('[data-rlviz="damaged"]')).to_contain_text("checksum")      # as what is checked at once
        expect(root.locator('[data-rlviz="inspector"] [data-rlviz="unloaded"]')).to_contain_text("could not be loaded")


def test_a_saved_selection_is_a_trace_index_that_survives_other_chunks_loading(tmp_path):
    """1,100,000 events (17 detail chunks, more than a page holds whole): the saved view's ``selected`` in the eleventh
    chunk restores at the overview, waits while a window loads the first chunk, and comes back with the same call when
    its chunk is loaded again."""
    from playwright.sync_api import expect

    trace = pipeline_trace(1_100_000, 8, 600.0)
    chosen = 700_000
    event, start = trace.event(chosen), trace.columns["start_ns"] - trace.start_ns
    path = tmp_path / "selected.html"
    path.write_text(explorer_html(trace, view={"selected": chosen}), encoding="utf-8")
    with chromium() as browser:
        page, errors = _open(browser, path)
        root = wait_ready(page)
        inspector = root.locator('[data-rlviz="inspector"]')
        expect(root).to_have_attribute("data-rlviz-selected", str(chosen))
        expect(inspector.locator('[data-rlviz="event"]')).to_contain_text(f"#{chosen} ")
        expect(inspector.locator('[data-rlviz="op"]')).to_have_text(event.op)
        expect(inspector.locator('[data-rlviz="lane"]')).to_have_text(event.where)
        early_ms = float(start[10]) / 1e6
        page.evaluate(f"window.rlvizExplorer.setWindow([{early_ms}, {early_ms + 5}])")
        page.evaluate("window.rlvizExplorer.lod.pending")
        expect(inspector.locator('[data-rlviz="away"]')).to_contain_text(f"#{chosen} is selected")
        expect(root).to_have_attribute("data-rlviz-selected", str(chosen))
        at_ms = float(start[chosen]) / 1e6
        page.evaluate(f"window.rlvizExplorer.setWindow([{at_ms - 2}, {at_ms + 2}])")
        expect(inspector.locator('[data-rlviz="event"]')).to_contain_text(f"#{chosen} ")
        expect(inspector.locator('[data-rlviz="op"]')).to_have_text(event.op)
        expect(inspector.locator('[data-rlviz="item"]')).to_have_text(event.item if event.item is not None else "(none)")
        page.evaluate(f"window.rlvizExplorer.setSelected({chosen + 3})")
        expect(root).to_have_attribute("data-rlviz-selected", str(chosen + 3))
        expect(inspector.locator('[data-rlviz="op"]')).to_have_text(trace.event(chosen + 3).op)
        assert not errors, errors
