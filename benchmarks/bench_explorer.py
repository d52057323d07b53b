"""Benchmark of the Explorer in real chromium: open, zoom, pan, hover, step and memory at 1,000,000 events.

``python -m benchmarks.bench_explorer`` (``--events 100000 --runs 2`` for a
quick look; ``--no-docs`` leaves docs/performance.md alone).  The trace is
``benchmarks.synthetic.pipeline_trace`` (16 lanes, linked values) written with
``write_html`` and opened from file:// in Debian's /usr/bin/chromium through
playwright (never ``playwright install``).  The same run re-renders the
matplotlib timeline per zoom step for comparison, and sizes the standalone
file of a real DQN trace (``--demo-trace``, else ``rlviz-out/dqn.rlviz``,
else a 60-second DQN run recorded here, as `make demo` runs it; that needs Ray).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.docs_table import DOCS, write_table
from benchmarks.synthetic import pipeline_trace
from rlviz.trace import Trace
from rlviz.viz import write_html, write_report
from rlviz.viz.examples import sharded_trace
from rlviz.viz.explorer_stream import encode_trace

__all__ = ["run", "main", "record_dqn"]

EVENTS = 1_000_000
LANES = 16
RUNS = 5
VIEWPORT = {"width": 1400, "height": 900}
REPO = Path(__file__).resolve().parent.parent
DEMO_TRACE = REPO / "rlviz-out" / "dqn.rlviz"
SHOTS = REPO / "benchmarks" / "results"          # screenshots of the last run (not committed)
WHEEL_NOTCHES = 30          # in, then as many out: from 300 s down to about 40 ms and back
WHEEL_DELTA = 120           # one mouse-wheel notch
HOVERS = 300
STEPS = 40
MATPLOTLIB_ZOOMS = 5        # re-renders of plot_timeline, each window a quarter of the last


def run(events: int = EVENTS, runs: int = RUNS, demo_trace: Path | None = None, lab: bool = True) -> dict:
    """Open, interact with and size the Explorer of a synthetic trace; return the figures.

    Parameters
    ----------
    events : int, default 1_000_000
        Events in the synthetic trace (16 lanes).
    runs : int, default 5
        Browser runs (a fresh chromium each); medians are over runs for the
        open time and over all samples of all runs for frame, hit and step times.
    demo_trace : Path, optional
        A real DQN trace for the standalone-file size; see the module docstring.
    lab : bool, default True
        Also time ``TraceView`` in JupyterLab (cell run to first frame, bytes
        received over the kernel websocket), ``runs`` times in one kernel.

    Returns
    -------
    dict
        Per measurement its samples' median and p95 (ms, MB or bytes per event).
    """
    trace = pipeline_trace(events, LANES)
    with tempfile.TemporaryDirectory(prefix="rlviz-bench-explorer-") as folder:
        started = time.perf_counter()
        html = write_html(trace, Path(folder) / "explorer.html")
        result = {"events": len(trace), "lanes": LANES, "runs": runs,
                  "write_html_s": time.perf_counter() - started,
                  "load_average": list(os.getloadavg())}
        result.update(_payload_size(trace, html))
        small = write_html(sharded_trace(), Path(folder) / "small.html")
        per_run = [{**_browser_run(html), **_baseline_run(small)} for _ in range(runs)]
        result.update(_summarise(per_run))
        if lab:
            result.update(_lab_figures(events, runs, Path(folder)))
        result.update(_matplotlib_zooms(trace))
        result.update(_demo_sizes(demo_trace, Path(folder)))
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print its table, and write it into docs/performance.md.

    Parameters
    ----------
    argv : list of str, optional
        ``--events N``, ``--runs N``, ``--demo-trace PATH``, ``--no-docs``.

    Returns
    -------
    int
        0.
    """
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_explorer")
    parser.add_argument("--events", type=int, default=EVENTS, help=f"events in the synthetic trace ({EVENTS:,})")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"browser runs ({RUNS})")
    parser.add_argument("--demo-trace", type=Path, default=None, help="a real DQN trace (rlviz Trace JSON)")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/performance.md")
    parser.add_argument("--no-lab", action="store_true", help="skip the JupyterLab (TraceView) timing")
    args = parser.parse_args(argv)
    result = run(args.events, args.runs, args.demo_trace, lab=not args.no_lab)
    table = _table(result)
    print(json.dumps(result, indent=1, default=float))
    print(table)
    if not args.no_docs and args.events == EVENTS:
        write_table(DOCS / "performance.md", table, name="explorer")
    return 0


# -- one browser run ----------------------------------------------------------
_RECORD_FRAMES = """() => {
  window.rlvizBench = { stamps: [], on: true };
  const tick = (t) => {
    window.rlvizBench.stamps.push(t);
    if (window.rlvizBench.on) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  performance.clearMeasures();
}"""
_STOP_FRAMES = """() => {
  window.rlvizBench.on = false;
  const m = (name) => performance.getEntriesByName(name, "measure").map((e) => e.duration);
  const draws = performance.getEntriesByName("rlviz:draw", "measure").map((e) => e.startTime);
  return { stamps: window.rlvizBench.stamps, draw_starts: draws,
           draw: m("rlviz:draw"), hit: m("rlviz:hit"), step: m("rlviz:step") };
}"""


def _browser_run(html: Path) -> dict:
    """A fresh chromium opens ``html``; then zoom, pan, hover and step, timing each."""
    with _opened(html) as (page, cdp):
        root = page.locator('[data-rlviz="explorer"]')
        out = {"open_ms": page.evaluate("() => performance.getEntriesByName('rlviz:first-frame')[0].startTime"),
               "first_draw_ms": page.evaluate(
                   "() => performance.getEntriesByName('rlviz:draw', 'measure')[0].duration")}
        out.update(_memory(page, cdp, "open"))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "explorer-open.png"))
        lanes = root.locator('[data-rlviz="lanes"]').bounding_box()
        centre = (lanes["x"] + lanes["width"] * 0.6, lanes["y"] + min(lanes["height"], 500) / 2)
        page.mouse.move(*centre)
        out["zoom"] = _timed(page, lambda: [page.mouse.wheel(0, d) for d in
                                            [-WHEEL_DELTA] * WHEEL_NOTCHES + [WHEEL_DELTA] * WHEEL_NOTCHES])
        for _ in range(WHEEL_NOTCHES // 2):                 # pan at a 1/30 view: ~30,000 events visible
            page.mouse.wheel(0, -WHEEL_DELTA)
        page.wait_for_timeout(200)
        out["pan"] = _timed(page, lambda: _drag(page, centre))
        page.screenshot(path=str(SHOTS / "explorer-zoomed.png"))
        out["hover_zoomed"] = _timed(page, lambda: _hover_grid(page, lanes))
        root.locator('[data-rlviz="reset"]').click()
        out["hover_full"] = _timed(page, lambda: _hover_grid(page, lanes))
        page.mouse.move(lanes["x"] + 5, lanes["y"] - 40)            # off the canvas: no tooltip
        root.focus()
        out["steps_full"] = _timed(page, lambda: [page.keyboard.press("ArrowRight") for _ in range(STEPS)])
        root.locator('[data-rlviz="zoom-selection"]').click()
        root.focus()
        out["steps_zoomed"] = _timed(page, lambda: [page.keyboard.press("ArrowRight") for _ in range(STEPS)])
        page.screenshot(path=str(SHOTS / "explorer-stepped.png"))
        out.update(_memory(page, cdp, "after"))
        return out


def _baseline_run(html: Path) -> dict:
    """Memory of a fresh chromium showing the Explorer of a 62-event trace: what any page costs."""
    with _opened(html) as (page, cdp):
        return _memory(page, cdp, "baseline")


@contextlib.contextmanager
def _opened(html: Path):
    """A fresh headless chromium showing ``html`` once the Explorer has drawn; yields the page and a CDP session."""
    with _harness().chromium(["--enable-precise-memory-info"]) as browser:
        page = browser.new_page(viewport=VIEWPORT)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(html.as_uri())
        page.wait_for_function("() => document.querySelector('[data-rlviz=explorer]')"
                               "?.dataset.rlvizReady === '1'", timeout=120_000)
        yield page, cdp


def _harness():
    """The browser tests' harness (tests/browser_harness.py): Debian's chromium, a loopback JupyterLab."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))
    return importlib.import_module("browser_harness")


def _timed(page, act) -> dict:
    """Frame times and the Explorer's own measures while ``act()`` sends input.

    ``frames`` holds every requestAnimationFrame delta; ``busy_frames`` only
    those of frames in which the Explorer redrew (input that arrives slower
    than the frame rate leaves idle frames, which would flatter ``frames``).
    """
    page.evaluate(_RECORD_FRAMES)
    page.wait_for_timeout(50)
    act()
    page.wait_for_timeout(100)
    out = page.evaluate(_STOP_FRAMES)
    stamps = np.asarray(out.pop("stamps"))
    out["frames"] = np.diff(stamps).tolist()
    frame = np.searchsorted(stamps, np.asarray(out.pop("draw_starts")), side="right") - 1
    frame = np.unique(frame[(frame >= 0) & (frame < len(stamps) - 1)])
    out["busy_frames"] = (stamps[frame + 1] - stamps[frame]).tolist()
    return out


def _drag(page, start: tuple[float, float]) -> None:
    x, y = start
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 61):
        page.mouse.move(x - 8 * k, y)
    page.mouse.up()


def _hover_grid(page, lanes: dict) -> None:
    rng = np.random.default_rng(0)
    height = min(lanes["height"], 600)
    for _ in range(HOVERS):
        page.mouse.move(lanes["x"] + 200 + rng.random() * (lanes["width"] - 210), lanes["y"] + rng.random() * height)


def _memory(page, cdp, when: str) -> dict:
    """JS heap and ArrayBuffer memory after a garbage collection (CDP), and the tab's renderer process memory.

    The columns live in ArrayBuffers, which V8 keeps outside its heap:
    ``JSHeapUsedSize`` alone would miss them, so ``js_mb`` adds their backing
    stores (``Runtime.getHeapUsage``).
    """
    cdp.send("HeapProfiler.enable")
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    usage = cdp.send("Runtime.getHeapUsage")
    buffers = usage.get("backingStorageSize", 0) / 1e6
    return {f"heap_used_mb_{when}": metrics["JSHeapUsedSize"] / 1e6, f"array_buffers_mb_{when}": buffers,
            f"js_mb_{when}": metrics["JSHeapUsedSize"] / 1e6 + usage.get("embedderHeapUsedSize", 0) / 1e6 + buffers,
            f"renderer_mb_{when}": _renderer_mb()}


def _renderer_mb() -> float | None:
    """Unique memory (USS) of this process tree's chromium renderers: the tab's own pages, buffers, canvases."""
    try:
        import psutil
    except ImportError:
        return None
    total = 0
    for child in psutil.Process().children(recursive=True):
        try:
            if "--type=renderer" in " ".join(child.cmdline()):
                total += child.memory_full_info().uss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total / 1e6


# -- TraceView in JupyterLab ----------------------------------------------------
_LAB_SETUP = """import sys
sys.path.insert(0, {repo!r})
from benchmarks.synthetic import pipeline_trace
from rlviz.widgets import TraceView
trace = pipeline_trace({events}, {lanes})"""
# each run shows a new Trace of the same columns, as a freshly recorded trace is (nothing the view works out is
# kept on the trace today, but the runs should not depend on that)
_LAB_SHOW = """view = TraceView(type(trace)(trace.nodes, trace.columns, trace.texts, trace.dropped, trace.decisions,
                            trace.gauges, trace.gaps))
view"""


def _lab_figures(events: int, runs: int, folder: Path) -> dict:
    """Cell run -> first frame of ``TraceView(trace)`` and the websocket bytes it took, in a loopback JupyterLab.

    Uses the browser tests' harness (tests/browser_harness.py): 127.0.0.1,
    empty token, a kernel without this process's RAY_* settings.
    """
    harness = _harness()
    root = folder / "lab"
    root.mkdir()
    setup = _LAB_SETUP.format(repo=str(REPO), events=events, lanes=LANES)
    harness.write_notebook(root / "bench.ipynb", [setup, _LAB_SHOW])
    open_ms, received, marks = [], [], "performance.getEntriesByName('rlviz:first-frame')"
    with harness.jupyter_lab(root, folder) as url, harness.chromium() as browser:
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(120_000)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        frames = []
        cdp.on("Network.webSocketFrameReceived", lambda e: frames.append(e["response"]))
        harness.open_notebook(page, url, "bench.ipynb")
        harness.run_cell(page, 0, timeout_ms=300_000)
        cdp.send("Performance.enable")
        before = _memory(page, cdp, "lab_before")
        for _ in range(runs):
            cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
            cell.locator(".cm-content").click()
            seen = page.evaluate(f"() => {marks}.length")
            frames.clear()
            started = page.evaluate("() => performance.now()")
            page.keyboard.press("Shift+Enter")
            page.wait_for_function(f"() => {marks}.length > {seen}", timeout=300_000)
            open_ms.append(page.evaluate(f"() => {marks}.at(-1).startTime") - started)
            received.append(sum(_frame_bytes(f) for f in frames))
        after = _memory(page, cdp, "lab_after")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "explorer-lab.png"))
    return {"lab_open_ms": _stats(open_ms), "lab_ws_bytes_per_event": _stats([b / events for b in received]),
            "lab_js_mb_added": after["js_mb_lab_after"] - before["js_mb_lab_before"]}


def _frame_bytes(frame: dict) -> int:
    """Bytes of one websocket frame as CDP reports it (binary frames arrive base64-encoded)."""
    data = frame.get("payloadData", "")
    if frame.get("opcode") == 2:
        return len(data) * 3 // 4 - data[-2:].count("=")
    return len(data.encode())


# -- summaries --------------------------------------------------------------
def _summarise(per_run: list[dict]) -> dict:
    def pooled(key: str, field: str, skip_first: bool = False) -> list[float]:
        values = []
        for r in per_run:
            samples = r[key][field]
            values.extend(samples[1:] if skip_first else samples)
        return values

    out = {"open_ms": _stats([r["open_ms"] for r in per_run]),
           "first_draw_ms": _stats([r["first_draw_ms"] for r in per_run])}
    for phase in ("zoom", "pan"):
        out[f"{phase}_frame_ms"] = _stats(pooled(phase, "frames"))
        out[f"{phase}_busy_frame_ms"] = _stats(pooled(phase, "busy_frames"))
        out[f"{phase}_draw_ms"] = _stats(pooled(phase, "draw"))
    out["hit_ms_zoomed"] = _stats(pooled("hover_zoomed", "hit"))
    out["hit_ms_full"] = _stats(pooled("hover_full", "hit"))
    out["first_step_ms"] = _stats([r["steps_full"]["step"][0] for r in per_run])   # sorts completion order once
    out["step_ms_full"] = _stats(pooled("steps_full", "step", skip_first=True))
    out["step_ms_zoomed"] = _stats(pooled("steps_zoomed", "step"))
    for key in ("heap_used_mb_open", "heap_used_mb_after", "array_buffers_mb_after", "js_mb_open", "js_mb_after",
                "renderer_mb_open", "renderer_mb_after", "renderer_mb_baseline", "js_mb_baseline"):
        values = [r[key] for r in per_run if r[key] is not None]
        out[key] = _stats(values) if values else None
    return out


def _stats(values: list[float]) -> dict:
    array = np.asarray(values, float)
    return {"median": float(np.median(array)), "p95": float(np.percentile(array, 95)),
            "max": float(array.max()), "n": int(array.size)}


# -- sizes ------------------------------------------------------------------
def _payload_size(trace: Trace, html: Path) -> dict:
    """Bytes the notebook widget sends (binary columns plus JSON meta) and bytes of the standalone file."""
    payload = encode_trace(trace)
    meta = len(json.dumps(payload.meta, separators=(",", ":")).encode())
    return {"payload_bytes": payload.nbytes + meta, "payload_bytes_per_event": (payload.nbytes + meta) / len(trace),
            "payload_meta_bytes": meta, "html_bytes_per_event": html.stat().st_size / len(trace)}


def _demo_sizes(demo_trace: Path | None, folder: Path) -> dict:
    """Bytes per event of a real DQN trace's files (given, ``make demo``'s, or recorded here).

    ``write_html`` (the Explorer alone) and ``write_report`` (the Explorer
    plus the printable part: table and matplotlib pictures), as ``rlviz demo``
    and ``rlviz report`` write it.
    """
    path = demo_trace or (DEMO_TRACE if DEMO_TRACE.exists() else None)
    if path is not None:
        trace, source = Trace.load(str(path)), str(path)
    else:
        trace = record_dqn(seconds=60)
        source = "DQN on CartPole-v1, 2 remote workers, 60 s (as `make demo`), recorded by this run"
    html = write_html(trace, folder / "demo.html")
    report = write_report(trace, folder / "demo.report.html")
    return {"demo_source": source, "demo_events": len(trace),
            "demo_html_bytes_per_event": html.stat().st_size / len(trace),
            "demo_report_bytes_per_event": report.stat().st_size / len(trace)}


def record_dqn(seconds: float) -> Trace:
    """Record DQN on CartPole-v1 with 2 remote workers for ``seconds``, as ``make demo`` does, on a local Ray it stops."""
    import ray

    import rlviz

    rlviz.init(num_cpus=4)
    try:
        trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=2)
        with rlviz.record() as trace:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                trainer.train()
        trainer.stop()
        return trace
    finally:
        ray.shutdown()


# -- matplotlib for comparison ------------------------------------------------
def _matplotlib_zooms(trace: Trace) -> dict:
    """Seconds to re-render ``plot_timeline(trace, window=...)`` as a PNG per zoom step (each a quarter of the last)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rlviz.viz import plot_timeline

    span_ms = (int(trace.columns["end_ns"].max()) - trace.start_ns) / 1e6
    centre, width = span_ms * 0.6, span_ms
    seconds = []
    for _ in range(MATPLOTLIB_ZOOMS):
        width /= 4
        started = time.perf_counter()
        ax = plot_timeline(trace, window=(centre - width / 2, centre + width / 2))
        ax.figure.savefig(io.BytesIO(), format="png", dpi=100)
        seconds.append(time.perf_counter() - started)
        plt.close(ax.figure)
    return {"matplotlib_zoom_s": _stats(seconds), "matplotlib_zoom_samples_s": seconds}


# -- the docs table -----------------------------------------------------------
def _lab_rows(r: dict) -> list[tuple[str, str, str]]:
    if "lab_open_ms" not in r:
        return []
    return [("JupyterLab: `TraceView(trace)` cell run to first frame",
             f"{r['lab_open_ms']['median']:,.0f} / {r['lab_open_ms']['p95']:,.0f} ms", "<= 3,000 ms"),
            ("JupyterLab: bytes per event received over the kernel websocket for that cell",
             f"{r['lab_ws_bytes_per_event']['median']:.1f}", "<= 24"),
            ("JupyterLab: page JS memory added by the view", f"{r['lab_js_mb_added']:.0f} MB", "<= 150 MB")]



def _table(r: dict) -> str:
    def ms(key: str, p95: bool = True) -> str:
        s = r[key]
        return f"{s['median']:.1f}" + (f" / {s['p95']:.1f}" if p95 else "")

    def mb(key: str) -> str:
        s = r.get(key)
        return f"{s['median']:.0f}" if s else "n/a"

    rows = [
        ("open from file:// to first frame", f"{ms('open_ms', False)} ms", "<= 3,000 ms"),
        ("wheel zoom: frame time (rAF delta, 60 Hz headless), all frames", f"{ms('zoom_frame_ms')} ms",
         "<= 16 / 33 ms"),
        ("wheel zoom: frame time of frames that redrew", f"{ms('zoom_busy_frame_ms')} ms", "<= 16 / 33 ms"),
        ("wheel zoom: `rlviz:draw`", f"{ms('zoom_draw_ms')} ms", ""),
        ("drag pan: frame time (rAF delta), all frames", f"{ms('pan_frame_ms')} ms", "<= 16 / 33 ms"),
        ("drag pan: frame time of frames that redrew", f"{ms('pan_busy_frame_ms')} ms", "<= 16 / 33 ms"),
        ("drag pan: `rlviz:draw`", f"{ms('pan_draw_ms')} ms", ""),
        ("hover hit-test `rlviz:hit`, zoomed / full view",
         f"{ms('hit_ms_zoomed')} · {ms('hit_ms_full')} ms", "<= 2 ms"),
        ("one step `rlviz:step`, zoomed / full view",
         f"{ms('step_ms_zoomed')} · {ms('step_ms_full')} ms", "<= 16 ms"),
        ("first step (sorts completion order once)", f"{ms('first_step_ms', False)} ms", ""),
        ("page JS memory (heap + ArrayBuffers, CDP, after GC), after open / after interaction",
         f"{mb('js_mb_open')} / {mb('js_mb_after')} MB", "<= 150 MB"),
        ("of which JS heap (`JSHeapUsedSize`) / ArrayBuffers, after interaction",
         f"{mb('heap_used_mb_after')} / {mb('array_buffers_mb_after')} MB", ""),
        ("renderer process unique memory (USS: also DOM, embedded text, canvases), after open / after interaction",
         f"{mb('renderer_mb_open')} / {mb('renderer_mb_after')} MB", ""),
        ("the same for the Explorer of a 62-event trace (what any page costs): JS / renderer",
         f"{mb('js_mb_baseline')} / {mb('renderer_mb_baseline')} MB", ""),
        *_lab_rows(r),
        ("bytes per event sent to the widget (columns + meta)", f"{r['payload_bytes_per_event']:.1f}", "<= 24"),
        ("bytes per event of this trace's standalone HTML", f"{r['html_bytes_per_event']:.1f}", ""),
        (f"bytes per event of a real DQN trace's standalone HTML ({r['demo_events']:,} events): "
         "`write_html` / `write_report` (Explorer + printable part, as `rlviz demo` writes it)",
         f"{r['demo_html_bytes_per_event']:.1f} / {r['demo_report_bytes_per_event']:.1f}", "<= 40"),
        ("matplotlib `plot_timeline(window=...)` + PNG, per zoom step",
         f"{r['matplotlib_zoom_s']['median'] * 1000:,.0f} / {r['matplotlib_zoom_s']['p95'] * 1000:,.0f} ms", ""),
    ]
    load = "/".join(f"{v:.1f}" for v in r["load_average"])
    head = (f"{r['events']:,} events, {r['lanes']} lanes; {r['runs']} fresh chromium runs; "
            f"median / p95 over all samples of all runs; load average {load} on 2 cores at the start\n\n"
            "| measurement | median / p95 | target |\n|---|---:|---|")
    return head + "\n" + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)


if __name__ == "__main__":
    sys.exit(main())
