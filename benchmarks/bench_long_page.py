"""Benchmark of a long trace's saved page in real chromium: file size, first frame (overview), a 1 ms window's exact
events, wheel-zoom frames and memory, at 10M events.

Run ``python -m benchmarks.bench_long_page [--events N] [--lanes L] [--hours H] [--runs R] [--gauges G] [--no-docs]``
(``--gauges G``: G gauge readings per event, drawn like the DQN demo's by ``benchmarks.synthetic.with_gauges``).
The trace is ``benchmarks.synthetic.pipeline_trace`` (as ``bench_long``'s feed: 64 lanes over 3 hours, items
drawn like the DQN demo's), written by ``rlviz.viz.explorer_html`` (a long trace past 1M events:
``rlviz.viz.explorer_long``) and opened from file:// in Debian's chromium through playwright, a fresh browser per
run.  First frame: from navigation start to the frame after the overview's levels are drawn.  A 1 ms window: from
``setWindow`` to the frame after its detail chunks are decoded into the model and drawn exactly, at several places
of the run.  Wheel zoom: frame times while 20 wheel notches zoom in and out over the whole run.  The notebook's
kernel side (``TraceView``'s first answer and one detail chunk) is timed in this process.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.docs_table import DOCS, write_table
from benchmarks.synthetic import pipeline_trace, with_gauges
from rlviz.viz.explorer_html import explorer_html
from rlviz.viz.explorer_long import detail_chunk, long_start
from rlviz.viz.explorer_stream import TraceChunks

__all__ = ["run", "main", "page_heap_mb"]

TARGET_BYTES_PER_EVENT = 15
TARGET_FIRST_FRAME_S = 3.0
TARGET_EXACT_MS = 200
REPO = Path(__file__).resolve().parent.parent
VIEWPORT = {"width": 1400, "height": 900}
PLACES = 7                  # 1 ms windows per run, spread over the run
WHEEL_NOTCHES = 10

_FIRST_FRAME = """async () => {
  await window.rlvizExplorer.levelsReady;
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return performance.now();
}"""
_EXACT = """async ([a, b]) => {
  const started = performance.now();
  window.rlvizExplorer.setWindow([a, b]);
  await window.rlvizExplorer.lod.pending;
  await new Promise((resolve) => requestAnimationFrame(resolve));      // after the timeline's own frame callback
  const level = document.querySelector('[data-rlviz=timeline]').dataset.rlvizLevel;
  return { ms: performance.now() - started, level, events: window.rlvizExplorer.model.n };
}"""
_FRAMES = """async ([notches, delta]) => {
  const stamps = [];
  let on = true;
  const tick = (t) => { stamps.push(t); if (on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const canvas = document.querySelector('[data-rlviz=lanes]'), box = canvas.getBoundingClientRect();
  for (const sign of [-1, 1]) {
    for (let k = 0; k < notches; k++) {
      canvas.dispatchEvent(new WheelEvent("wheel", { deltaY: sign * delta, clientX: box.left + box.width * 0.6,
        clientY: box.top + 40, bubbles: true, cancelable: true }));
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  }
  on = false;
  return stamps.slice(1).map((t, k) => t - stamps[k]);
}"""


def run(events: int = 10_000_000, lanes: int = 64, hours: float = 3.0, runs: int = 3, notebook: bool = True,
        gauges: float = 0.0) -> dict:
    """Write the long trace's page (with ``gauges`` readings per event), open it ``runs`` times, show it once in
    JupyterLab (``notebook``, without gauges), and return the figures (medians over runs and places)."""
    trace = pipeline_trace(events, lanes, hours * 3600)
    if gauges:
        trace = with_gauges(trace, gauges)
    started = time.perf_counter()
    page = explorer_html(trace)
    write_s = time.perf_counter() - started
    c = trace.columns
    span_ms = (int(c["end_ns"].max()) - trace.start_ns) / 1e6
    places = np.linspace(0.05, 0.95, PLACES) * span_ms
    kernel = _kernel_figures(trace)
    with tempfile.TemporaryDirectory(prefix="rlviz-long-page-") as folder:      # 72 MB at 10M events: not left behind
        html = Path(folder) / "long.html"
        html.write_text(page, encoding="utf-8")
        size = html.stat().st_size
        per_run = [_browser_run(html, places) for _ in range(runs)]
    del trace, page, c                              # the notebook's kernel builds its own
    kernel.update(_notebook_figures(events, lanes, hours) if notebook else {})
    exact = [place["ms"] for one in per_run for place in one["exact"]]
    frames = [frame for one in per_run for frame in one["frames"]]
    return {"events": events, "lanes": lanes, "hours": hours, "runs": runs, "gauges": gauges, "write_s": round(write_s, 1),
            "bytes_per_event": size / events, "file_mb": size / 1e6,
            "first_frame_s": statistics.median(one["first_frame_ms"] for one in per_run) / 1e3,
            "exact_ms": statistics.median(exact), "exact_ms_max": max(exact),
            "exact_levels": sorted({place["level"] for one in per_run for place in one["exact"]}),
            "exact_events": statistics.median(place["events"] for one in per_run for place in one["exact"]),
            "zoom_frame_ms": statistics.median(frames), "zoom_frame_p95_ms": float(np.percentile(frames, 95)),
            "heap_mb": statistics.median(one["heap_mb"] for one in per_run), **kernel}


_NOTEBOOK_CELLS = [
    f"import sys\nsys.path.insert(0, {str(REPO)!r})\nfrom benchmarks.synthetic import pipeline_trace\n"
    "trace = pipeline_trace({events}, {lanes}, {seconds})",
    "from rlviz.widgets import TraceView\nview = TraceView(trace)\nview",
]
_LAB_PRESS = """() => {
  window.rlvizPressed = 0;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.shiftKey && !window.rlvizPressed) window.rlvizPressed = performance.now();
  }, true);
}"""
_LAB_FIRST_FRAME = """async () => {
  const explorer = () => document.querySelector('[data-rlviz=explorer]')?.rlvizExplorer;
  while (!explorer()?.levelsReady) await new Promise((resolve) => setTimeout(resolve, 20));
  await explorer().levelsReady;
  await new Promise((resolve) => requestAnimationFrame(resolve));
  return performance.now() - window.rlvizPressed;
}"""


def _notebook_figures(events: int, lanes: int, hours: float) -> dict:
    """TraceView of the trace in a real JupyterLab: from running the cell that shows it to the overview drawn (timed
    by this process from the harness's click into the cell, and by the page from the Shift+Enter that runs it), wheel
    zoom frames over the overview, and the tab's JS heap and array buffers (JupyterLab's own included)."""
    harness = _harness()
    with tempfile.TemporaryDirectory(prefix="rlviz-long-lab-") as folder:
        scratch = Path(folder)
        (scratch / "root").mkdir()
        cells = [_NOTEBOOK_CELLS[0].format(events=events, lanes=lanes, seconds=hours * 3600), _NOTEBOOK_CELLS[1]]
        harness.write_notebook(scratch / "root" / "long.ipynb", cells)
        with harness.jupyter_lab(scratch / "root", scratch) as url, \
                harness.chromium(["--enable-precise-memory-info"]) as browser:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(300_000)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            harness.open_notebook(page, url, "long.ipynb")
            harness.run_cell(page, 0, timeout_ms=600_000)
            page.evaluate(_LAB_PRESS)
            started = time.monotonic()
            harness.run_cell(page, 1, timeout_ms=300_000)
            pressed_ms = page.evaluate(_LAB_FIRST_FRAME)
            first_s = time.monotonic() - started
            frames = page.evaluate(_FRAMES, [WHEEL_NOTCHES, 120])
            return {"lab_first_frame_s": first_s, "lab_pressed_frame_s": pressed_ms / 1e3, "lab_zoom_frame_ms": statistics.median(frames),
                    "lab_zoom_frame_p95_ms": float(np.percentile(frames, 95)), "lab_heap_mb": page_heap_mb(cdp)}


def _kernel_figures(trace) -> dict:
    """What a notebook's TraceView costs in the kernel: its first answer (start meta and packed overview, sent
    instead of the stream) and one detail chunk a window asks for (median over chunks spread over the run)."""
    started = time.perf_counter()
    chunks = TraceChunks(trace)
    meta, overview = long_start(chunks)
    first_s = time.perf_counter() - started
    times = []
    for k in np.linspace(0, len(chunks) - 1, PLACES).astype(int).tolist():
        started = time.perf_counter()
        detail_chunk(chunks, k)
        times.append((time.perf_counter() - started) * 1e3)
    return {"kernel_first_s": first_s, "kernel_first_mb": (len(overview) + len(json.dumps(meta))) / 1e6,
            "kernel_chunk_ms": statistics.median(times[1:]), "kernel_first_chunk_ms": times[0]}


def _browser_run(html: Path, places: np.ndarray) -> dict:
    """One fresh chromium: open ``html``, time the overview's first frame, 1 ms windows at ``places``, wheel zooms."""
    harness = _harness()
    with harness.chromium(["--enable-precise-memory-info"]) as browser:
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(300_000)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(html.as_uri(), timeout=300_000)
        out = {"first_frame_ms": page.evaluate(_FIRST_FRAME)}
        out["frames"] = page.evaluate(_FRAMES, [WHEEL_NOTCHES, 120])
        out["exact"] = [page.evaluate(_EXACT, [float(at - 0.5), float(at + 0.5)]) for at in places]
        out["heap_mb"] = page_heap_mb(cdp)
        return out


def page_heap_mb(cdp) -> float:
    """A page's JS heap and array buffers after a forced garbage collection, in MB (10^6 bytes).

    ``cdp`` is a CDP session of the page that sent ``Performance.enable``.  Array buffers (the Explorer's chunk
    and level tables) live outside the JS heap, so the heap alone would leave most of a long run's data out.
    """
    cdp.send("HeapProfiler.enable")
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    usage = cdp.send("Runtime.getHeapUsage")
    return (metrics["JSHeapUsedSize"] + usage.get("backingStorageSize", 0)) / 1e6


def _harness():
    """The browser tests' harness (tests/browser_harness.py): Debian's chromium."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))
    return importlib.import_module("browser_harness")


def _table(r: dict) -> str:
    load = os.getloadavg()
    return "\n".join([
        f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
        f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min); {r['events']:,} events over "
        f"{r['hours']:g} h and {r['lanes']} lanes, page written in {r['write_s']:.0f} s; medians of {r['runs']} "
        f"browser runs ({PLACES} places each for the 1 ms window).", "",
        "| saved page | measure | now | target |", "|---|---|---|---|",
        f"| file | bytes per event ({r['file_mb']:.0f} MB) | {r['bytes_per_event']:.1f} | ≤ {TARGET_BYTES_PER_EVENT} |",
        f"| open | first frame, overview (s) | {r['first_frame_s']:.2f} | ≤ {TARGET_FIRST_FRAME_S:g} |",
        f"| zoom into 1 ms | exact events drawn, tooltips ready (ms; max {r['exact_ms_max']:.0f}; "
        f"{r['exact_events']:,.0f} events decoded) | {r['exact_ms']:.0f} | ≤ {TARGET_EXACT_MS} |",
        f"| wheel zoom over the overview | frame, median (p95 {r['zoom_frame_p95_ms']:.1f}) (ms) | "
        f"{r['zoom_frame_ms']:.1f} | |",
        f"| memory | JS heap and array buffers after the zooms (MB) | {r['heap_mb']:.0f} | ≤ 300 |",
        "", "| notebook (TraceView), in the kernel | measure | now | target |", "|---|---|---|---|",
        f"| first answer | start meta and packed overview, worked out (s) | {r['kernel_first_s']:.2f} | |",
        f"| first answer | bytes sent instead of the stream (MB) | {r['kernel_first_mb']:.1f} | |",
        f"| a window's chunk | one detail chunk encoded, median of {PLACES - 1} (ms; the first: "
        f"{r['kernel_first_chunk_ms']:.0f}) | {r['kernel_chunk_ms']:.0f} | ≤ 50 |",
        *([f"| page in JupyterLab | first frame: from the Shift+Enter that runs the cell showing the view to its "
           f"overview drawn (s; one run; {r['lab_first_frame_s']:.2f} from the harness's click into the cell) | "
           f"{r['lab_pressed_frame_s']:.2f} | ≤ 3 |",
           f"| page in JupyterLab | wheel-zoom frame, median (p95 {r['lab_zoom_frame_p95_ms']:.1f}) (ms) | "
           f"{r['lab_zoom_frame_ms']:.1f} | ≤ 17 |",
           f"| page in JupyterLab | the tab's JS heap and array buffers, JupyterLab's own included (MB) | "
           f"{r['lab_heap_mb']:.0f} | ≤ 300 |"] if "lab_first_frame_s" in r else []),
    ])


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark, print it, write its table into docs/performance.md (unless ``--no-docs``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--lanes", type=int, default=64)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gauges", type=float, default=0.0, help="gauge readings per event (DQN-like)")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--no-notebook", action="store_true", help="skip the JupyterLab (TraceView) run")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    result = run(args.events, args.lanes, args.hours, args.runs, notebook=not args.no_notebook, gauges=args.gauges)
    print(result)
    table = _table(result)
    print(table)
    if not args.no_docs and args.events == 10_000_000 and not args.gauges:
        write_table(DOCS / "performance.md", table, "long_page")
    return result


if __name__ == "__main__":
    main()
