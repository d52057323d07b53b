"""Benchmark of a small saved page's first frame in real chromium: a run held whole, drawn once with its events.

Run ``python -m benchmarks.bench_small_page [--events N] [--runs R] [--bundle PATH]``.  The trace is
``benchmarks.synthetic.pipeline_trace`` (16 lanes over a minute), written by ``rlviz.viz.explorer_html``: every
saved page is a long trace's, and one of at most 15 chunks is held whole (it opens exact).  Each run opens the
file in a fresh Debian chromium through playwright and reads the page's own first-frame mark
(``rlviz:first-frame``: the timeline's first frame with everything its window needs), and how many times the
timeline drew before it (``rlviz:draw`` measures).  ``--bundle`` writes the page with another build of the
front end (``git show main:rlviz/viz/static/explorer.bundle.js > main.js``), to compare two builds on one trace.
"""
from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.synthetic import pipeline_trace
from rlviz.viz import explorer_html as html_module

__all__ = ["run", "main"]

REPO = Path(__file__).resolve().parent.parent
VIEWPORT = {"width": 1400, "height": 900}

_FIRST_FRAME = """() => {
  const first = performance.getEntriesByName("rlviz:first-frame")[0].startTime;
  const draws = performance.getEntriesByName("rlviz:draw").filter((draw) => draw.startTime <= first).length;
  return { ms: first, draws, events: window.rlvizExplorer.model.n };
}"""


def run(events: int = 50_000, runs: int = 5, bundle: Path | None = None) -> dict:
    """Write the page of ``events`` events (with ``bundle``'s front end, if given), open it ``runs`` times, and
    return the first frames (ms from navigation start), their median and the timeline's draws up to the first."""
    trace = pipeline_trace(events, 16, 60.0)
    page_text = _page(trace, bundle)
    harness = _harness()
    frames = []
    with tempfile.TemporaryDirectory(prefix="rlviz-small-page-") as folder:
        path = Path(folder) / "page.html"
        path.write_text(page_text, encoding="utf-8")
        for _ in range(runs):
            with harness.chromium() as browser:
                page = browser.new_page(viewport=VIEWPORT)
                page.goto(path.as_uri())
                page.wait_for_selector("[data-rlviz-ready='1']", timeout=120_000)
                frames.append(page.evaluate(_FIRST_FRAME))
    if any(frame["events"] != events for frame in frames):
        raise RuntimeError(f"a page opened with {[frame['events'] for frame in frames]} events, not {events}")
    return {"events": events, "first_frame_ms": [frame["ms"] for frame in frames],
            "median_ms": statistics.median(frame["ms"] for frame in frames),
            "draws_to_first_frame": [frame["draws"] for frame in frames], "load": os.getloadavg()}


def _page(trace, bundle: Path | None) -> str:
    """The saved page of ``trace``, its front end read from ``bundle`` when given."""
    if bundle is None:
        return html_module.explorer_html(trace)
    shipped = html_module.explorer_js
    html_module.explorer_js = lambda: bundle.read_text(encoding="utf-8")
    try:
        return html_module.explorer_html(trace)
    finally:
        html_module.explorer_js = shipped


def _harness():
    """The browser tests' harness (tests/browser_harness.py): Debian's chromium."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))
    return importlib.import_module("browser_harness")


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bundle", type=Path, default=None, help="the front end to write the page with")
    args = parser.parse_args(argv)
    result = run(args.events, args.runs, args.bundle)
    print(f"{result['events']:,} events: first frame {[round(ms) for ms in result['first_frame_ms']]} ms, "
          f"median {result['median_ms']:.0f} ms; timeline draws up to it {result['draws_to_first_frame']}; "
          f"load average {', '.join(f'{x:.1f}' for x in result['load'])}")
    return result


if __name__ == "__main__":
    main()
