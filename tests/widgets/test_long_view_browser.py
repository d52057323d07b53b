"""TraceView of a 10M-event trace in a real JupyterLab: the page gets the overview, never the whole stream, counts
each node and lane as Python does, and asks its kernel for the chunks a 1 ms window needs, whose exact events it
draws with their tooltips.

The kernel builds the same trace as the ``long_trace`` fixture (``benchmarks.synthetic.pipeline_trace`` is seeded),
so the tooltips are checked against it.  Loopback only; screenshots go to the ``artifacts`` folder the test prints.
"""
from pathlib import Path

import numpy as np
import pytest
from browser_harness import chromium_page, open_notebook, run_cell, write_notebook
from explorer_checks import Expected, hover_a_span, shot, wait_ready
from page_counts import assert_page_counts_as_python

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SHOW = f"""import sys
sys.path.insert(0, {str(REPO)!r})
from benchmarks.synthetic import pipeline_trace
from rlviz.widgets import TraceView
view = TraceView(pipeline_trace(10_000_000, 64, 3 * 3600.0))         # as the long_trace fixture
view"""
SENT = """print("sent", sum(len(b) for b in view._payload.buffers), len(view._payload.meta["detail"]))"""
_API = "document.querySelector('[data-rlviz=explorer]').rlvizExplorer"


def test_a_ten_million_event_view_asks_its_kernel_for_the_window_it_shows(long_trace, shared_lab, tmp_path):
    from playwright.sync_api import expect

    artifacts = tmp_path / "artifacts"
    print(f"screenshots in {artifacts}")
    with shared_lab.folder() as root_dir, chromium_page(1400, 1200) as page:
        write_notebook(root_dir / "long.ipynb", [SHOW, SENT])
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_notebook(page, shared_lab.url, f"{root_dir.name}/long.ipynb")
        run_cell(page, 0, timeout_ms=300_000)
        root = wait_ready(page, timeout_ms=300_000)
        page.evaluate(f"{_API}.levelsReady")
        timeline = root.locator('[data-rlviz="timeline"]')
        expect(timeline).to_have_attribute("data-rlviz-level", "levels")
        assert page.evaluate(f"{_API}.model.n") == 0
        assert_page_counts_as_python(root, long_trace)          # node table, node boxes, lanes: as Python counts
        shot(root, artifacts, "1-overview")
        cell = run_cell(page, 1)
        sent = cell.locator(".jp-OutputArea").inner_text().split()
        assert sent[0] == "sent" and int(sent[1]) < 20e6, f"the page got more than its overview: {sent}"

        c = long_trace.columns
        middle = int(np.searchsorted(c["start_ns"], (int(c["start_ns"][0]) + int(c["end_ns"].max())) // 2))
        at_ms = (int(c["start_ns"][middle]) - long_trace.start_ns) / 1e6
        page.evaluate(f"{_API}.setWindow([{at_ms - 0.5}, {at_ms + 0.5}])")
        expect(timeline).to_have_attribute("data-rlviz-level", "exact", timeout=60_000)
        assert 0 < page.evaluate(f"{_API}.model.n") <= 4 * 65_536, "only the chunks the window needs"
        colors = page.evaluate(f"{_API}.model.meta.nodes.map((node) => node.color)")
        index, _ = hover_a_span(page, root, Expected(long_trace, colors, np.zeros(0, np.int64)), "for_each")
        event = long_trace.event(index)
        assert event.end_ns >= long_trace.start_ns + (at_ms - 0.5) * 1e6
        assert event.start_ns <= long_trace.start_ns + (at_ms + 0.5) * 1e6
        shot(root, artifacts, "2-millisecond")
    assert errors == [], f"the page raised errors: {errors}"
