"""Benchmark of the live Explorer page in chromium: append cost against events held, and frame times.

``python -m benchmarks.bench_page`` (``--quick`` for a short run; ``--no-docs``
leaves docs/live.md alone).  A standalone page mounts the bundled Explorer as a
live view, is filled with 10,000 or 1,000,000 events, then takes one chunk of
``NEW`` events twice a second (as ``rlviz.watch`` sends them) while
``requestAnimationFrame`` records every frame.  Reported, from one run:

* the JS time of one append drawn at once (``append()`` then ``drawNow()``: the
  model grown, the panes drawn), median, mean and slowest, at 10,000 and
  1,000,000 held, and under a window that moves by each append at 1,000,000;
* frame times while appending: median and 95th percentile.

The page has two processes, four rows, links and an order strip; nothing is
selected.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from benchmarks.docs_table import DOCS, write_table
from rlviz.viz.explorer_html import explorer_js

__all__ = ["run", "main"]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
HELD = (10_000, 1_000_000)
NEW = 5_000
SECONDS = 20.0

_DRIVER = """
const structure = { version: 1, live: true, count: 0, dropped: 0, unit_ns: 1000, origin_ns: "0", span_ms: 0,
  item_mode: "f64", texts: [], columns: [], edges: [[0, 1, 0, false]],
  order: { merge: "Concurrently", groups: [0, 2].map((node) => ({ node, op: "op" + node, weight: 1, items: 0 })) },
  nodes: [0, 1, 2, 3].map((k) => ({ op: "op" + k, label: "l" + k, where: k < 2 ? "driver" : "worker", short: "op" + k,
    color: "#1f77b4", column: k, row: 0, calls: 0, items: 0, not_ready: 0, errors: 0, busy_ms: 0 })),
  lanes: [{ name: "driver", color: "#333", nodes: [0, 1] }, { name: "worker", color: "#999", nodes: [2, 3] }] };
function chunk(first, n, heldFrom = 0) {
  const cols = { start: new Uint32Array(n), duration: new Uint32Array(n).fill(3), node: new Uint16Array(n),
    flags: new Uint8Array(n).fill(4), item: new Int32Array(n), input_count: new Uint8Array(n),
    inputs: new Uint32Array(n / 2) };
  for (let i = 0; i < n; i++) { cols.start[i] = (first + i) * 5; cols.node[i] = i % 4; cols.item[i] = i; }
  for (let k = 0; k < n / 2; k++) { cols.input_count[2 * k + 1] = 1; cols.inputs[k] = first + 2 * k; }
  const dt = { start: "<u4", duration: "<u4", node: "<u2", flags: "|u1", item: "<i4", input_count: "|u1", inputs: "<u4" };
  return [{ first_id: first, count: n, held_from: heldFrom, texts: [], dropped: 0,
    columns: Object.entries(cols).map(([name, v]) => ({ name, dtype: dt[name], length: v.length, chunks: [v.byteLength] })) },
    Object.values(cols).map((v) => v.buffer)];
}
window.rlvizBench = async (held, fresh, seconds, windowed) => {
  const host = document.getElementById("rlviz-root");
  host.replaceChildren();
  const view = mountExplorer(host, structure, []);
  // under a window the sender holds the newest `held`; the page keeps a quarter more before it trims
  const fill = windowed ? Math.round(held * 1.25) : held;
  for (let at = 0; at < fill; at += 100000) {
    const size = Math.min(100000, fill - at);
    view.append(...chunk(at, size, windowed ? Math.max(0, at + size - held) : 0));
  }
  view.drawNow();
  let next = fill;
  await new Promise((done) => setTimeout(done, 1000));
  const frames = [], appends = [];
  let last = performance.now(), running = true;
  const frame = (now) => { frames.push(now - last); last = now; if (running) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  const timer = setInterval(() => {
    const message = chunk(next, fresh, windowed ? next + fresh - held : 0);
    const t = performance.now();
    view.append(...message);
    view.drawNow();                       // timed with its drawing (a page draws it at its next frame)
    appends.push(performance.now() - t);
    next += fresh;
  }, 500);
  await new Promise((done) => setTimeout(done, seconds * 1000));
  clearInterval(timer);
  running = false;
  view.destroy();
  return { frames: frames.slice(1), appends, held: view.model.n };
};
"""


def _page_html() -> str:
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>"
            "<div id='rlviz-root' style='width:1200px'></div>"
            f"<script type='module'>{explorer_js()}\n{_DRIVER}</script></body></html>")


def run(held: tuple[int, ...] = HELD, seconds: float = SECONDS) -> dict:
    """Append ``NEW`` events twice a second for ``seconds`` into a page holding each of ``held``.

    The last size runs twice: with everything kept, and under a window that
    moves by each append (the sender's ``held_from``), the page filled to just
    below its trim point so that a trim (a model rebuild) falls in the run.
    """
    from playwright.sync_api import sync_playwright

    cases = [(count, False) for count in held] + [(held[-1], True)]
    result = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_content(_page_html())
            page.wait_for_function("typeof window.rlvizBench === 'function'")
            for count, windowed in cases:
                out = page.evaluate("([h, f, s, w]) => window.rlvizBench(h, f, s, w)", [count, NEW, seconds, windowed])
                frames, appends = sorted(out["frames"]), sorted(out["appends"])
                result["window" if windowed else count] = {
                    "append_ms": statistics.median(appends), "append_mean_ms": statistics.fmean(appends),
                    "append_max_ms": appends[-1], "appends": len(appends), "held_at_end": out["held"],
                    "frame_median_ms": statistics.median(frames),
                    "frame_p95_ms": frames[int(0.95 * (len(frames) - 1))], "frames": len(frames)}
        finally:
            browser.close()
    return result


def _table(result: dict, seconds: float) -> str:
    small, big, window = result[HELD[0]], result[HELD[1]], result["window"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = [
        "| measurement (chromium, 5,000 new events per append, twice a second) | 10,000 held | 1,000,000 held "
        "| ratio | 1,000,000 held, window moving | target |",
        "|---|---|---|---|---|---|",
        f"| page append (drawn at once), median ms | {small['append_ms']:.1f} | {big['append_ms']:.1f} "
        f"| {big['append_ms'] / small['append_ms']:.2f}x | {window['append_ms']:.1f} | <= 2x |",
        f"| page append, mean ms (a trim rebuilds the model) | {small['append_mean_ms']:.1f} "
        f"| {big['append_mean_ms']:.1f} | | {window['append_mean_ms']:.1f} | |",
        f"| page append, slowest ms | {small['append_max_ms']:.1f} | {big['append_max_ms']:.1f} | "
        f"| {window['append_max_ms']:.1f} | |",
        f"| frame time while appending, median ms | {small['frame_median_ms']:.1f} | {big['frame_median_ms']:.1f} "
        f"| | {window['frame_median_ms']:.1f} | 16.7 (60 Hz) |",
        f"| frame time while appending, p95 ms | {small['frame_p95_ms']:.1f} | {big['frame_p95_ms']:.1f} | "
        f"| {window['frame_p95_ms']:.1f} | <= 33 |",
        "",
        f"Measured by `python -m benchmarks.bench_page` in headless chromium (software rendering) on the shared "
        f"2-core VM (load average {load}): {seconds:.0f} s of appends per case, "
        f"{big['appends']} appends and {big['frames']} frames at 1,000,000 held. With the window moving, the "
        f"sender holds the last 1,000,000 events and the page trims its front once what left the window is a "
        f"quarter of what it holds (filled to just below that point, so one trim falls in the run; "
        f"{window['held_at_end']:,} held at the end).",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> dict:
    """Run the page benchmark, print its table and (unless ``--no-docs``) write it into docs/live.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 s per size instead of 20 s")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/live.md alone")
    args = parser.parse_args(argv)
    seconds = 5.0 if args.quick else SECONDS
    result = run(seconds=seconds)
    table = _table(result, seconds)
    print(table)
    print(json.dumps(result))
    if not args.no_docs:
        write_table(DOCS / "live.md", table, name="page")
    return result


if __name__ == "__main__":
    main()
