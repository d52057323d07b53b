"""A run past capacity with ``spill=``, as docs/long-runs.md tells it, in headless chromium.

The block keeps the newest events and spills the evicted ones; the saved
trace (``Trace.save``) keeps the gap, so its page marks where the events went
and how many; the spill file (``Trace.load``) holds the whole run, those
events and the ones the block still held at its end, and its page shows
them all with no gap.  With ``RLVIZ_DOCS_PICTURES=1``
the test also rewrites docs/images/long_runs_gap.png and long_runs_spill.png,
the pictures docs/long-runs.md shows.
"""
import os
from pathlib import Path

import numpy as np
import pytest
from browser_harness import chromium_page
from explorer_checks import wait_ready

import rlviz
from rlviz.iter import LocalIterator
from rlviz.trace import Trace, get_recorder
from rlviz.trace.recorder import DEFAULT_CAPACITY
from rlviz.viz import write_html

pytestmark = pytest.mark.browser

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
ITEMS = 12_000


def _spilled_run(folder: Path) -> tuple[Trace, Path]:
    """A driver pipeline of ``ITEMS`` items with room for 4,096 events, spilling; its saved trace and spill file.

    Room for two chunks (2,048) would be too little to spill everything: with two nodes' chunks open, a chunk
    is evicted as soon as it is handed over, and what it got since the last pull never reaches the store."""
    spill = folder / "run.spill.rlviz"
    try:
        with rlviz.record(capacity=4096, spill=spill) as trace:
            for i, _ in enumerate(LocalIterator(lambda timeout: range(ITEMS)).for_each(str)):
                if i % 500 == 0:
                    trace.pull()                  # the store takes events before the buffer evicts them
    finally:
        get_recorder().set_capacity(DEFAULT_CAPACITY)
    trace.save(folder / "run.rlviz")
    return Trace.load(folder / "run.rlviz"), spill


def test_a_spilled_run_marks_its_gap_and_the_spill_file_holds_the_whole_run(tmp_path):
    from playwright.sync_api import expect

    saved, spill = _spilled_run(tmp_path)
    (gap,) = saved.gaps                           # kept by save and load
    spilled = Trace.load(spill)
    assert len(spilled) == gap.dropped + len(saved) and saved.dropped == gap.dropped > 0, \
        "every evicted event went to the file, and the held ones at the block's end"
    assert spilled.dropped == 0 and spilled.gaps == (), "and the file says nothing of it was lost"
    assert gap.start_ns <= int(spilled.columns["start_ns"].min())
    assert np.isin(saved.columns["start_ns"], spilled.columns["start_ns"]).all()
    pictures = os.environ.get("RLVIZ_DOCS_PICTURES") == "1"
    with chromium_page(1200, 900) as page:
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(write_html(saved, tmp_path / "saved.html").as_uri())
        root = wait_ready(page)
        assert root.locator(".rlviz-title").inner_text().startswith(f"{len(saved):,} calls")
        mark = root.locator('[data-rlviz="gap"]')
        expect(mark).to_have_count(1)
        expect(mark).to_have_attribute("data-rlviz-dropped", str(gap.dropped))
        assert mark.get_attribute("title").startswith(f"{gap.dropped:,} events of driver dropped here")
        if pictures:
            root.screenshot(path=str(IMAGES / "long_runs_gap.png"))
        page.goto(write_html(spilled, tmp_path / "spilled.html").as_uri())
        root = wait_ready(page)
        assert root.locator(".rlviz-title").inner_text().startswith(f"{len(spilled):,} calls")
        expect(root.locator('[data-rlviz="gap"]')).to_have_count(0)     # the file holds them: nothing is missing
        if pictures:
            root.screenshot(path=str(IMAGES / "long_runs_spill.png"))
        assert errors == []
