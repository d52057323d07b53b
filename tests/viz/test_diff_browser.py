"""The page of two compared runs (``write_html(rlviz.diff(a, b), path)``) in headless chromium, offline.

Two ``[data-rlviz=run]`` Explorers, one above the other, their lanes
labelled with the run names; the first divergence marked in each run at the
time its item was made; the button brings both runs to it; a wheel zoom or a
step in one run moves the other.  With ``RLVIZ_DOCS_PICTURES=1`` the test
also rewrites docs/images/diff_explorer.png, the picture docs/comparing-runs.md shows.
A cell ending in a diff shows the same page in JupyterLab.
"""
import os
from pathlib import Path

import pytest
from browser_harness import chromium, chromium_page, open_notebook, run_cell, write_notebook
from explorer_checks import diff_roots, shot, window_of

from rlviz.testing import diff
from rlviz.viz import write_html
from rlviz.viz.examples import concurrently_trace
from rlviz.viz.explorer_diff import divergence_in

pytestmark = pytest.mark.browser

DOCS_PICTURE = Path(__file__).resolve().parents[2] / "docs" / "images" / "diff_explorer.png"
NAMES = ("weights 1:2", "weights 1:3 <b>")
CELL = f"""import rlviz
from rlviz.viz.examples import concurrently_trace
rlviz.diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), ops=["store", "train"], names={NAMES!r})"""
GUTTER_PX = 190                     # the lane labels' width (GUTTER in rlviz/viz/static/explorer_dom.js)


def _mark_x(root, mark) -> float:
    """Where the divergence line stands, in px from the left edge of the run's lanes canvas."""
    return mark.bounding_box()["x"] - root.locator('[data-rlviz="lanes"]').bounding_box()["x"]


def _x_of(root, ms: float) -> float:
    """Where the timeline draws ``ms`` in its current window (as panes/timeline.js's frameOf)."""
    a, b = window_of(root)
    width = root.locator('[data-rlviz="timeline"]').evaluate("e => e.clientWidth")
    return GUTTER_PX + (ms - a) / (b - a) * int(width - GUTTER_PX - 8)


def test_two_linked_runs_with_their_first_divergence(tmp_path):
    from playwright.sync_api import expect

    compared = diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), ops=["store", "train"],
                    names=NAMES)
    places = [divergence_in(compared, k) for k in (0, 1)]
    path = write_html(compared, tmp_path / "diff.html")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 1400})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(path.as_uri())
        runs = page.locator('[data-rlviz="run"]')
        expect(runs).to_have_count(2)
        roots = [runs.nth(k).locator('[data-rlviz="explorer"]') for k in (0, 1)]
        for k, root in enumerate(roots):
            expect(root).to_have_attribute("data-rlviz-ready", "1")
            expect(runs.nth(k).locator('[data-rlviz="run-name"]')).to_have_text(NAMES[k])
            labels = root.evaluate("root => root.rlvizExplorer.model.meta.lanes.map((lane) => lane.label)")
            assert labels and all(label.startswith(f"{NAMES[k]} · ") for label in labels), labels

        marks = [runs.nth(k).locator('[data-rlviz="divergence"]') for k in (0, 1)]
        for root, mark, place in zip(roots, marks, places):
            expect(mark).to_have_count(1)
            assert float(mark.get_attribute("data-rlviz-ms")) == pytest.approx(place["ms"])
            assert _mark_x(root, mark) == pytest.approx(_x_of(root, place["ms"]), abs=2)

        page.locator('[data-rlviz="to-divergence"]').click()
        spans = [trace.columns["end_ns"].max() - trace.start_ns for trace in compared.traces]
        for root, mark, place, span in zip(roots, marks, places, spans):
            expect(root).to_have_attribute("data-rlviz-selected", str(place["event"]))
            a, b = window_of(root)
            assert a < place["ms"] < b and b - a < 0.2 * span / 1e6, (a, b, place)
            expect(mark).to_be_visible()
            assert _mark_x(root, mark) == pytest.approx(_x_of(root, place["ms"]), abs=2)
            label, ruler = mark.locator("span").bounding_box(), root.locator('[data-rlviz="ruler"]').bounding_box()
            assert label["y"] >= ruler["y"] + ruler["height"], "the divergence label sits under the ruler's ticks"
        offset = places[1]["ms"] - places[0]["ms"]
        expect(page.locator('[data-rlviz="alignment"]')).to_contain_text("to line up the first divergence")

        announced = roots[1].get_attribute("data-rlviz-window")
        before = window_of(roots[0])
        lanes = roots[0].locator('[data-rlviz="lanes"]')
        box = lanes.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + 10)
        for _ in range(3):
            page.mouse.wheel(0, -300)
        expect(roots[1]).not_to_have_attribute("data-rlviz-window", announced, timeout=5000)
        page.wait_for_timeout(200)
        (a0, b0), (a1, b1) = window_of(roots[0]), window_of(roots[1])
        assert b0 - a0 < 0.5 * (before[1] - before[0]), "the wheel zoomed the first run in"
        assert (a1, b1) == pytest.approx((a0 + offset, b0 + offset), abs=2e-3), "the second run follows, shifted"

        roots[0].focus()
        page.keyboard.press("ArrowRight")                   # a step in the first run selects the same op's call
        expect(roots[0]).not_to_have_attribute("data-rlviz-selected", str(places[0]["event"]))
        expect(roots[1]).not_to_have_attribute("data-rlviz-selected", str(places[1]["event"]))
        picked = [int(root.get_attribute("data-rlviz-selected")) for root in roots]
        assert [trace.event(i).op for trace, i in zip(compared.traces, picked)] == [
            compared.traces[0].event(picked[0]).op] * 2
        roots[0].locator('[data-rlviz="node"][data-op="TrainOneStep"]').click()     # filter the first run's timeline
        expect(roots[1].locator('[data-rlviz="filter"]')).to_have_text("showing TrainOneStep @ driver")
        shot(page.locator('[data-rlviz="diff"]'), tmp_path / "artifacts", "diff")
        if os.environ.get("RLVIZ_DOCS_PICTURES") == "1":
            _docs_picture(page, tmp_path)
    assert errors == [], f"the page raised or logged errors: {errors}"


def _docs_picture(page, folder):
    """The picture of docs/comparing-runs.md: the same runs, plainly named, brought to their first divergence."""
    compared = diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), ops=["store", "train"],
                    names=("weights 1:2", "weights 1:3"))
    page.goto(write_html(compared, folder / "docs.html").as_uri())
    for run in page.locator('[data-rlviz="run"]').all():
        run.locator('[data-rlviz="explorer"][data-rlviz-ready="1"]').wait_for()
    page.locator('[data-rlviz="to-divergence"]').click()
    page.wait_for_timeout(300)                      # let both timelines draw their new window
    page.locator('[data-rlviz="diff"]').screenshot(path=str(DOCS_PICTURE))


def test_a_cell_ending_in_a_diff_shows_both_runs_in_jupyterlab(shared_lab):
    from playwright.sync_api import expect

    with shared_lab.folder() as root, chromium_page(1300, 1400) as page:
        write_notebook(root / "diff.ipynb", [CELL])
        open_notebook(page, shared_lab.url, f"{root.name}/diff.ipynb")
        run_cell(page, 0)
        frame = page.frame_locator(".jp-OutputArea-output iframe")
        runs = frame.locator('[data-rlviz="run"]')
        expect(runs).to_have_count(2)
        for k in (0, 1):
            expect(runs.nth(k).locator('[data-rlviz="explorer"]')).to_have_attribute("data-rlviz-ready", "1")
            expect(runs.nth(k).locator('[data-rlviz="run-name"]')).to_have_text(NAMES[k])
            expect(runs.nth(k).locator('[data-rlviz="divergence"]')).to_have_count(1)
        frame.locator('[data-rlviz="to-divergence"]').click()
        for k, place in enumerate(_places()):
            expect(runs.nth(k).locator('[data-rlviz="explorer"]')).to_have_attribute("data-rlviz-selected",
                                                                                   str(place["event"]))
        expect(frame.locator('[data-rlviz="alignment"]')).to_contain_text("to line up the first divergence")


def _places() -> list[dict]:
    """Where the first divergence of the notebook cell's diff lies in each run (the same synthetic runs, here)."""
    compared = diff(concurrently_trace((1, 2)), concurrently_trace((1, 3), seed=1), ops=["store", "train"],
                    names=NAMES)
    return [divergence_in(compared, k) for k in (0, 1)]


def test_two_runs_past_what_a_page_holds_whole_open_on_their_levels_and_load_both_for_a_window(tmp_path):
    """Two runs of 1,000,000 events (16 detail chunks each, past the 15 a page holds whole): both open on their
    levels with their counts, a zoom in the first loads the detail chunks of both runs for the window shown, the
    button brings both to their first divergence (selected by trace index), and a step there selects the same op's
    call in the second."""
    from playwright.sync_api import expect

    from benchmarks.synthetic import pipeline_trace

    events = 1_000_000
    compared = diff(pipeline_trace(events, 8, 300.0, seed=0), pipeline_trace(events, 8, 300.0, seed=1),
                    names=("first", "second"))
    places = [divergence_in(compared, k) for k in (0, 1)]
    path = write_html(compared, tmp_path / "long-diff.html")
    with chromium_page(1200, 1400) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        roots = diff_roots(page, timeout_ms=30_000)
        page.evaluate("window.rlvizDiff.levelsReady")
        assert page.evaluate("window.rlvizDiff.runs.map((run) => run.lod.loaded)") == [None, None], "no chunk yet"
        for root in roots:
            expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "levels")
            expect(root.locator(".rlviz-title")).to_contain_text("1,000,000 calls")

        lanes = roots[0].locator('[data-rlviz="lanes"]')
        box = lanes.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + 10)
        for _ in range(12):
            page.mouse.wheel(0, -300)
        for root in roots:
            expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "exact",
                                                                             timeout=20_000)
        loaded = page.evaluate("window.rlvizDiff.runs.map((run) => [run.lod.loaded, run.model.n])")
        assert all(chunks is not None and chunks[0] > 0 and n > 0 for chunks, n in loaded), loaded
        (a0, b0), (a1, b1) = window_of(roots[0]), window_of(roots[1])
        assert (a1, b1) == pytest.approx((a0, b0), abs=2e-3) and b0 - a0 < 0.2 * 300_000

        page.locator('[data-rlviz="to-divergence"]').click()
        for root, place in zip(roots, places):
            expect(root).to_have_attribute("data-rlviz-selected", str(place["event"]))
            expect(root.locator('[data-rlviz="timeline"]')).to_have_attribute("data-rlviz-level", "exact")
            assert window_of(root)[0] < place["ms"] < window_of(root)[1]
        assert page.evaluate("window.rlvizDiff.runs.map((run) => run.lod.loaded)") == [[0, 0], [0, 0]]
        roots[0].focus()
        page.keyboard.press("ArrowRight")
        expect(roots[0]).not_to_have_attribute("data-rlviz-selected", str(places[0]["event"]))
        expect(roots[1]).not_to_have_attribute("data-rlviz-selected", str(places[1]["event"]))
        picked = [int(root.get_attribute("data-rlviz-selected")) for root in roots]
        assert [trace.event(i).op for trace, i in zip(compared.traces, picked)] == [
            compared.traces[0].event(picked[0]).op] * 2
    assert errors == [], errors
