"""Issue 45's watched run: a synthetic run of many events through ``rlviz.watch`` in JupyterLab, the page following it.

``python -m benchmarks.bench_watched_run [--events N]`` prints the figures as JSON (``bench_issue45`` calls
``run`` for its three "watched run" rows).  The kernel runs ``live = rlviz.watch(plan)`` where ``plan`` is a
driver-only ``LocalIterator`` (a ``Synthetic`` source and two ``for_each`` ops: three events, two links, per item;
no Ray) and the widget is shown in chromium, following the run (its default).  The run has two phases:

* the burst: ``events`` events recorded at ``BURST_EVENTS_S`` events a second at most (faster, the driver's
  recorder, a million events by default, fills between two refreshes and lets events go before the store takes
  them: at the driver's top rate, some 700k events a second, the page got 1.07M of 10M);
* the paced tail: ``PACED_S`` more seconds at the rate of a run of ``events`` events over ``HOURS`` hours
  (about 930 events/s for 10M), so that the page's ``FOLLOW_MS`` window holds what it holds in such a run.

Measured while it runs: every ``SAMPLE_S`` the page's JS heap and array buffers after a forced garbage collection
(``bench_long_page.page_heap_mb``, as the saved-page heap row), the events the page counts, the kernel's resident
memory; ``FRAMES_S`` of ``requestAnimationFrame`` intervals as the run starts, near the burst's end (a burst
longer than a sample), and in the paced tail once the follow window holds only paced events; and, for each
event of the paced tail that ended after the window settled, the seconds from its end to the end of the first of
the page's ``rlviz:append`` measures that carried it (``bench_live_lab.event_lags``).

What this does and does not test.  The burst compresses "3 hours" into minutes (the driver records some 10^5
events/s, a 3-hour run of 10M some 10^3): it tests the page over the *number* of events (the heap as the run's
levels, extents and chunk list grow to 10M events, and frames while it follows a run growing that fast), not over
the *span of time*: whatever grows with wall-clock time or the count of refreshes (3 hours of refreshes every
``REFRESH_S`` are ~20,000 extents and ``rlviz:append``/``rlviz:draw`` performance measures; the burst sends some
hundreds) is not exercised.  During the burst the 30 s follow window holds millions of events, so the page draws
it from the levels and loads no chunk: no ``rlviz:append`` then, which is why the latency is measured in the paced
tail, at a 3-hour run's event density, after the page has held the whole burst.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_live_lab import APPENDS, FRAMES, browser_harness, cell_result, event_lags, rss_mb
from benchmarks.bench_long_page import page_heap_mb

__all__ = ["run", "heap_figure", "frame_figure", "spread", "main", "EVENTS_PER_ITEM", "FLAT_AFTER"]

HOURS = 3.0
EVENTS_PER_ITEM = 3              # the source's next() and each for_each's
FLAT_AFTER = 1_000_000           # the "flat after the first million"
SAMPLE_S = 10
FRAMES_S = 5
FOLLOW_S = 30                    # explorer_growing.js FOLLOW_MS: the window a following page shows
SETTLE_S = FOLLOW_S + 5          # paced seconds before the window holds paced events only
PACED_S = SETTLE_S + 30          # the paced tail: settle, then 30 s of events whose latency counts
BURST_EVENTS_S = 100_000         # the burst's rate at most: what the recording path takes without letting go

SETUP = """import json, os, time
import numpy as np
import rlviz
from rlviz.iter import LocalIterator

open({pid_file!r}, "w").write(str(os.getpid()))

def mark(path):
    with open(path + ".part", "w") as file:
        file.write(str(time.time_ns()))
    os.replace(path + ".part", path)

def synthetic(burst_items, burst_items_s, paced_items_s, paced_s):
    def items(timeout):
        mark({start_file!r})
        started = time.monotonic()
        for k in range(burst_items):
            wait = started + k / burst_items_s - time.monotonic() if k % 1000 == 0 else 0
            if wait > 0:
                time.sleep(wait)
            yield k
        mark({paced_file!r})
        started, k = time.monotonic(), 0
        while time.monotonic() - started < paced_s:
            wait = started + k / paced_items_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            yield burst_items + k
            k += 1
        mark({done_file!r})
    return LocalIterator(items, name="Synthetic").for_each(lambda x: x + 1).for_each(lambda x: x * 2)
print("ready")"""

SHOWN = """live = rlviz.watch(synthetic({burst_items}, {burst_items_s!r}, {paced_items_s!r}, {paced_s}))
live"""

END = """live.join()
trace = live.trace
started_ns, paced_ns, done_ns = (int(open(path).read()) for path in ({start_file!r}, {paced_file!r}, {done_file!r}))
end_ns = trace.columns["end_ns"]
late = end_ns >= paced_ns + {settle_s} * 10**9
np.savez({events_file!r}, ids=trace.event_ids[late], end_ns=end_ns[late])
print("RESULT", json.dumps({{"held_events": len(trace), "burst_s": (paced_ns - started_ns) / 1e9,
      "run_s": (done_ns - started_ns) / 1e9, "latency_events": int(late.sum()), "error": live.error}}))"""

STOP = """live.stop()
print("stopped")"""

FOLLOWING = """() => { const box = document.querySelector('[data-rlviz="follow-box"]'); return box ? box.checked : null; }"""


def run(events: int, paced_s: float = PACED_S, hours: float = HOURS) -> dict:
    """Watch ``events`` synthetic events (then ``paced_s`` at a ``hours``-long run's rate) in JupyterLab + chromium.

    Returns the figures: ``samples`` (each: seconds since the start, events the page counts, ``page_heap_mb``
    (``bench_long_page.page_heap_mb``: JS heap and array buffers, as the saved-page heap row), of which
    ``array_buffers_mb``, ``kernel_rss_mb``, whether the page follows, the live bar's state), ``page_events`` (the
    most events the page counted: short of ``burst_events`` when events were let go before the page got them, and
    then the rows do not hold for ``events``), ``frames`` (per window: where, median, p95, frames),
    ``latency_median_s`` / ``latency_p95_s`` / ``latency_events``, ``burst_events_s`` (events/s the driver
    recorded in the burst), ``burst_s`` and ``run_s`` (the run's real duration, from the source's first item
    to its end), ``held_events`` (what ``live.trace`` holds at the end: the driver recorder's ``capacity``, a
    million by default, bounds it; the page was sent every event), and the row figures ``live_heap_mb``
    (``heap_figure``), ``live_frame_ms`` (``frame_figure``).
    """
    harness = browser_harness()
    burst_items = math.ceil(events / EVENTS_PER_ITEM)
    paced_items_s = events / (hours * 3600) / EVENTS_PER_ITEM
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"rlviz-watched-run-{os.getpid()}"
    root = folder / "lab"
    root.mkdir(parents=True)
    pid_file, start_file, paced_file, done_file, events_file = (folder / name for name in (
        "kernel.pid", "start", "paced", "done", "events.npz"))
    marks = {"start_file": str(start_file), "paced_file": str(paced_file), "done_file": str(done_file)}
    harness.write_notebook(root / "watched.ipynb", [
        SETUP.format(pid_file=str(pid_file), **marks),
        SHOWN.format(burst_items=burst_items, burst_items_s=BURST_EVENTS_S / EVENTS_PER_ITEM,
                     paced_items_s=paced_items_s, paced_s=paced_s),
        END.format(**marks, settle_s=SETTLE_S, events_file=str(events_file)), STOP])
    figures: dict = {"events": events, "hours": hours, "paced_events_s": paced_items_s * EVENTS_PER_ITEM,
                     "paced_s": paced_s, "load_before": os.getloadavg()[0]}
    with harness.jupyter_lab(root, folder) as url, harness.chromium(["--enable-precise-memory-info"]) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.set_default_timeout(300_000)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        harness.open_notebook(page, url, "watched.ipynb")
        cell_result(harness.run_cell(page, 0, timeout_ms=300_000))
        kernel_pid = int(pid_file.read_text())
        started = time.monotonic()
        harness.run_cell(page, 1, timeout_ms=300_000)
        samples, frames = _follow(page, cdp, kernel_pid, burst_items * EVENTS_PER_ITEM, paced_file, done_file)
        result = cell_result(harness.run_cell(page, 2, timeout_ms=600_000))
        samples.append(_sample(page, cdp, kernel_pid))
        lags = event_lags(page.evaluate(APPENDS), np.load(events_file))
        figures["appends"] = page.evaluate("() => performance.getEntriesByName('rlviz:append').length")
        harness.run_cell(page, 3, timeout_ms=120_000)
    for sample in samples:
        sample["s"] = round(sample.pop("at") - started)
    figures.update(result, samples=samples, frames=frames, load_after=os.getloadavg()[0],
                   burst_events=burst_items * EVENTS_PER_ITEM,
                   burst_events_s=burst_items * EVENTS_PER_ITEM / result["burst_s"],
                   page_events=max(sample["events"] for sample in samples),
                   live_heap_mb=heap_figure(samples), live_frame_ms=frame_figure(frames))
    figures.pop("error", None)
    if lags:
        figures.update(latency_median_s=float(np.median(lags)), latency_p95_s=float(np.percentile(lags, 95)))
    return figures


def _follow(page, cdp, kernel_pid: int, burst_events: int, paced_file: Path, done_file: Path) -> tuple[list, list]:
    """Sample until the run's source is done (or the page says it stopped); frames right away, near the burst's
    end, and in the paced tail."""
    frames = [_frames(page, f"start ({_phase(paced_file)})")]
    samples: list[dict] = []
    while not done_file.exists():
        time.sleep(SAMPLE_S)
        samples.append(_sample(page, cdp, kernel_pid))
        if samples[-1]["state"].startswith("stopped"):
            break                               # before its source ended: the next cell shows why
        phase = _phase(paced_file)
        if phase == "burst" and samples[-1]["events"] >= 0.8 * burst_events and len(frames) == 1:
            frames.append(_frames(page, "burst end"))
        elif phase == "paced" and not done_file.exists() and not any(f["where"] == "paced" for f in frames):
            frames.append(_frames(page, "paced"))
    return samples, frames


def _phase(paced_file: Path) -> str:
    """Where the run is: "burst", "settling" (paced, the follow window still meets the burst), or "paced"."""
    if not paced_file.exists():
        return "burst"
    return "paced" if time.time_ns() - int(paced_file.read_text()) >= SETTLE_S * 10**9 else "settling"


def _sample(page, cdp, kernel_pid: int) -> dict:
    heap = page_heap_mb(cdp)
    count = page.locator('[data-rlviz="live-count"]').last.get_attribute("data-count")
    return {"at": time.monotonic(), "events": int(count or 0), "page_heap_mb": heap,
            "array_buffers_mb": cdp.send("Runtime.getHeapUsage").get("backingStorageSize", 0) / 1e6,
            "kernel_rss_mb": rss_mb(kernel_pid), "following": page.evaluate(FOLLOWING),
            "state": page.locator('[data-rlviz="live-state"]').last.inner_text()}


def _frames(page, where: str) -> dict:
    intervals = page.evaluate(FRAMES, FRAMES_S)
    events = page.locator('[data-rlviz="live-count"]').last.get_attribute("data-count")
    return {"where": where, "events_after": int(events or 0), **spread(intervals), "frames": len(intervals)}


def spread(values: list[float]) -> dict:
    """``median`` and ``p95`` of ``values`` (the p95 by linear interpolation, as numpy's percentile)."""
    return {"median": float(statistics.median(values)), "p95": float(np.percentile(values, 95))}


def heap_figure(samples: list[dict], after: int = FLAT_AFTER) -> float:
    """The page-heap row's figure: the largest ``page_heap_mb`` of the samples past ``after`` events, else the last.

    "Flat after the first million" bounds every reading once the run holds a million events, so the row takes
    the worst of those; a run that never got past ``after`` has only its end heap to offer.
    """
    if not samples:
        raise ValueError("no heap samples: the run ended before the first sample")
    past = [s["page_heap_mb"] for s in samples if s["events"] > after]
    return max(past) if past else samples[-1]["page_heap_mb"]


def frame_figure(frames: list[dict]) -> float:
    """The frame row's figure: the worst of the windows' median frame intervals (ms)."""
    if not frames:
        raise ValueError("no frame windows were measured")
    return max(f["median"] for f in frames)


def main(argv: list[str] | None = None) -> dict:
    """Run at ``--events`` (default 1,000,000) and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events of the burst")
    parser.add_argument("--paced-s", type=float, default=PACED_S, help="seconds of the paced tail")
    args = parser.parse_args([] if argv is None else argv)     # ``python -m benchmarks`` calls main() bare
    figures = run(args.events, args.paced_s)
    print(json.dumps(figures, indent=1))
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
