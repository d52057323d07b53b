"""A person opens a long trace's saved page and finds its gauge tracks drawn at the first frame, from the overview's
summaries (a spike shows, and hovering says it reads a summary, over what time), then zooms in and reads the exact
readings there, the value in force at the window's start included.

The trace: 1,100,000 events over 10 minutes on 8 lanes (``benchmarks.synthetic.pipeline_trace``), saved as a long
trace (17 detail chunks: more than a page holds whole, so it opens on its overview) with a reading per 50 events (``with_gauges``): the driver's replay rows
held, with one reading a thousand times the rest, and each shard's weights version, a step every few seconds.
"""
import re

import numpy as np
import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready

from benchmarks.synthetic import pipeline_trace, with_gauges
from rlviz.trace.gauges import REPLAY_HELD, WEIGHTS_VERSION
from rlviz.viz.explorer_html import explorer_html

pytestmark = pytest.mark.browser

GUTTER = 190                # explorer_dom.js: the plot starts this far right of a track's left edge
_INK = """canvas => {
  const ctx = canvas.getContext("2d"), { width, height } = canvas;
  const data = ctx.getImageData(0, 0, width, height).data;
  let inked = 0, top = height, topX = -1;
  for (let y = 0; y < height; y++) for (let x = %d; x < width; x++) {
    const k = 4 * (y * width + x);
    if (data[k + 2] - data[k] > 30) { inked++; if (y < top) { top = y; topX = x; } }
  }
  return { inked, top, topX };
}""" % GUTTER


@pytest.fixture(scope="module")
def long_page(tmp_path_factory):
    trace = with_gauges(pipeline_trace(1_100_000, 8, 600.0), per_event=0.02, spike_at=0.5)
    path = tmp_path_factory.mktemp("long-gauges") / "long.html"
    path.write_text(explorer_html(trace), encoding="utf-8")
    return trace, path


def _ink(page, track) -> dict:
    """What gauge ``track``'s canvas shows in its plot, once scrolled into sight (only tracks in sight are drawn)."""
    track.scroll_into_view_if_needed()
    page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    return track.locator("canvas").evaluate(_INK)


def _track(root, name, where):
    return root.locator(f'[data-rlviz="gauge"][data-rlviz-name="{name}"][data-rlviz-where="{where}"]')


def _hover_at(page, track, t_ms):
    """Hover gauge ``track`` at ``t_ms`` (ms since the trace start) and return what it says."""
    track.scroll_into_view_if_needed()
    box = track.locator("canvas").bounding_box()
    a, b = page.evaluate("(() => { const e = window.rlvizExplorer; return e.state.window.map((t) => t * e.model.unitMs); })()")
    plot_w = page.evaluate("window.rlvizExplorer.state.width") - GUTTER - 8
    page.mouse.move(box["x"] + GUTTER + (t_ms - a) / (b - a) * plot_w, box["y"] + box["height"] / 2)
    return track.locator('[data-rlviz="gauge-value"]').text_content()


def test_gauge_tracks_show_at_the_first_frame_from_the_overview_and_exactly_once_zoomed_in(long_page):
    from playwright.sync_api import expect

    trace, path = long_page
    held, versions = trace.gauges[REPLAY_HELD], trace.gauges[WEIGHTS_VERSION]
    spike = int(np.argmax(held.value))
    spike_ms = (int(held.time_ns[spike]) - trace.start_ns) / 1e6
    with chromium_page(1400, 1000) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        root = wait_ready(page)
        page.evaluate("window.rlvizExplorer.levelsReady")
        expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "levels")
        assert page.evaluate("window.rlvizExplorer.model.n") == 0, "no chunk loaded: the first frame is the overview's"
        tracks = root.locator('[data-rlviz="gauge"]')
        expect(tracks).to_have_count(1 + len(versions.lanes()))
        assert set(tracks.evaluate_all("els => els.map((e) => e.dataset.rlvizLevel)")) == {"levels"}
        for k in range(tracks.count()):
            assert _ink(page, tracks.nth(k))["inked"] > 100, "each track drawn over the run"

        rows = _track(root, REPLAY_HELD, "driver")
        ink = _ink(page, rows)
        assert ink["top"] <= 4, "the spike reaches the top of its track, though every other reading is far below"
        text = _hover_at(page, rows, spike_ms)
        assert re.fullmatch(rf"{REPLAY_HELD} @ driver: last [\d,]+, min [\d,]+, max {int(held.value[spike]):,} "
                            r"\(a summary of [\d,]+ readings?, \d+:\d\d:\d\d\.\d{6} to \d+:\d\d:\d\d\.\d{6}\)", text), text

        middle_ms = (int(trace.columns["start_ns"][600_000]) - trace.start_ns) / 1e6     # in the tenth chunk
        where = versions.lanes()[0]
        mine = versions.on(where)
        in_force = int(np.searchsorted(mine.time_ns, trace.start_ns + int(middle_ms * 1e6)) - 1)
        page.evaluate(f"window.rlvizExplorer.setWindow([{middle_ms - 1}, {middle_ms + 1}])")
        assert page.evaluate("window.rlvizExplorer.lod.pending") is True
        expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "exact")
        expect(tracks.first).to_have_attribute("data-rlviz-level", "exact")
        assert set(tracks.evaluate_all("els => els.map((e) => e.dataset.rlvizLevel)")) == {"exact"}
        version = _track(root, WEIGHTS_VERSION, where)
        text = _hover_at(page, version, middle_ms - 0.9)
        since = re.fullmatch(rf"{WEIGHTS_VERSION} @ {where}: ([\d,]+) \(since (\d+):(\d\d):(\d\d\.\d{{6}})\)", text)
        assert since, text
        assert int(since[1].replace(",", "")) == int(mine.value[in_force]), "the value in force, read before the chunk"
        since_ms = (int(since[2]) * 3600 + int(since[3]) * 60 + float(since[4])) * 1e3
        assert since_ms == pytest.approx((int(mine.time_ns[in_force]) - trace.start_ns) / 1e6, abs=0.002)
        assert since_ms < middle_ms - 1, "a reading from before the window (and before the chunks loaded)"
        assert _ink(page, version)["inked"] > 100, "drawn across the window from its left edge"
    assert errors == []
