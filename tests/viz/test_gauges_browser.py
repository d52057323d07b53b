"""A person finds the gauge tracks under the timeline, saved and live, and hovers one to read its value.

The run is a Concurrently plan whose Replay (a local buffer, learning_starts
1,000) is not ready for two rounds: the buffer records its rows as gauges,
and the not-ready calls name that cause in the inspector's why.
"""
import re

import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready
from growing_page import GrowingPage

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently, Replay, ReplayBuffer
from rlviz.rollout import SampleBatch
from rlviz.viz import write_html
from rlviz.viz.growing_chunks import GrowingChunks

pytestmark = pytest.mark.browser

def _plan():
    buffer = ReplayBuffer(capacity=5000, learning_starts=1000, replay_batch_size=2, seed=0)

    def store(batch):
        buffer.add_batch(batch)
        return batch

    samples = LocalIterator(lambda timeout: (SampleBatch(t=list(range(406))) for _ in range(99)), name="Sample")
    return Concurrently([samples.for_each(store).named("Store"), Replay(local_buffer=buffer)],
                        mode="round_robin", output_indexes=[0])


def _hover_last_value(page, root, name: str) -> int:
    """Hover the right end of gauge ``name``'s track; return the value it shows there, the latest (an int)."""
    from playwright.sync_api import expect

    track = root.locator(f'[data-rlviz="gauge"][data-rlviz-name="{name}"]')
    expect(track).to_have_count(1)
    box = track.locator("canvas").bounding_box()
    # past the plot's right end (its last 8 px are margin): a time after the window, so the reading in force
    # there is the latest, however close to the window's end it was taken (a quick run puts it in the last pixel)
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    value = track.locator('[data-rlviz="gauge-value"]')
    expect(value).to_have_text(re.compile(rf"^{name} @ driver: [\d,]+ \(since \d+:\d\d:\d\d\.\d{{6}}\)$"))
    return int(value.text_content().split(": ")[1].split(" ")[0].replace(",", ""))


def test_a_saved_page_draws_each_gauge_as_a_track_and_hover_reads_its_value(tmp_path):
    from playwright.sync_api import expect

    with rlviz.record() as trace:
        _plan().take(6)
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri())
        root = wait_ready(page)
        tracks = root.locator('[data-rlviz="gauge"]')
        expect(tracks).to_have_count(3)
        assert sorted(tracks.evaluate_all("els => els.map(e => e.dataset.rlvizName)")) == [
            "learning_starts", "replay rows added", "replay rows held"]
        assert _hover_last_value(page, root, "replay rows added") == 6 * 406     # each Store adds 406 rows
        search = root.locator('[data-rlviz="search"]')
        search.fill("op:Replay")
        search.press("Enter")
        expect(root.locator('[data-rlviz="inspector"] [data-rlviz="why"]')).to_have_text(
            "not ready: replay buffer has 406 of the 1,000 rows learning_starts needs")
        assert errors == []


def test_each_gauge_track_sits_under_its_own_lane_s_rows(tmp_path):
    from rlviz.trace import span

    with rlviz.record() as trace:
        _plan().take(3)
        for rows in (1, 2, 3):                      # a second lane, below the driver's: a worker's calls and gauge
            with span("sample", where="RolloutWorker-1"):
                rlviz.gauge("episodes finished", rows, where="RolloutWorker-1")
    html = write_html(trace, tmp_path / "run.html")
    with chromium_page(1400, 1000) as page:
        page.goto(html.as_uri())
        root = wait_ready(page)
        boxes = root.locator('[data-rlviz="gauge"]').evaluate_all(
            "els => els.map(e => [e.dataset.rlvizWhere, e.getBoundingClientRect().top, e.getBoundingClientRect().bottom])")
        lanes = root.locator('[data-rlviz="lanes"]').bounding_box()
    driver = [(top, bottom) for where, top, bottom in boxes if where == "driver"]
    worker = [(top, bottom) for where, top, bottom in boxes if where == "RolloutWorker-1"]
    assert len(driver) == 3 and len(worker) == 1, boxes
    # the driver's gauges come right under the driver's rows, then the worker's row, then the worker's gauge
    assert driver[0][0] > lanes["y"] + 13
    assert worker[0][0] - max(bottom for _, bottom in driver) >= 13, (driver, worker)
    assert worker[0][1] <= lanes["y"] + lanes["height"] + 1, "the room for it is part of the lanes canvas"


def test_a_live_page_grows_its_gauge_tracks_with_the_stream():
    from playwright.sync_api import expect

    stream = iter(_plan())
    with chromium_page(1280, 900) as page, rlviz.record() as live:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        shown = GrowingPage(page, GrowingChunks(live.store))
        shown.mount()
        next(stream)
        live.pull()
        shown.refresh()
        root = page.locator("#rlviz-root")
        assert _hover_last_value(page, root, "replay rows added") == 406
        next(stream)
        live.pull()
        before = shown.refresh()["end"]
        next(stream)
        live.pull()
        after = shown.refresh()["end"]
        expect(root.locator('[data-rlviz="gauge"]')).to_have_count(3)
        # zoom to the last refresh: its reading shows
        page.evaluate("([a, b]) => window.view.setWindow([a * window.view.model.unitMs, b * window.view.model.unitMs])",
                      [before, after + 1])
        shown.settle()
        page.mouse.move(5, 5)
        assert _hover_last_value(page, root, "replay rows added") == 1218
        assert errors == []
    stream.close()
