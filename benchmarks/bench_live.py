"""Benchmark of the live view: refresh cost against events held, bytes per event, page append cost, latency.

``python -m benchmarks.bench_live`` (``--quick`` for a small run; ``--no-docs``
leaves docs/live.md alone; ``--no-ray`` skips the latency run).  Same-run
ratios and medians:

* refresh: one driver increment of ``NEW`` events taken into a ``TraceStore``
  holding 10,000 or 1,000,000 events, then taken by the run's
  ``GrowingChunks`` (``advance``) and sent to a following page: its extent
  and the rest of the tail chunk it asks for; the time per refresh, and its ratio;
* actor refresh: the same for an actor's events, which reach the driver's
  store through its ``RecorderMirror``: one increment applied to the mirror,
  the mirror's chunks (``export_parts``) taken into the store, then encoded;
  and, as the baseline, the same with the mirror's joined ``export()`` (how
  the collector fed the store before: a copy and a scan of all held);
* bytes sent per new event: the extents, the tail's new parts (a following
  page asks for the rest of the tail it holds), and the levels when due;
* page: the model of the tail chunk built (``openStream`` + ``liveModel`` of
  ``explorer_live.js``, and the completion order) under node, the tail as
  long as the refreshes make it on average (what a following page does per
  refresh, however much the run holds);
* latency (needs Ray): a ``rlviz.watch`` of a two-shard pipeline; for each
  shard event, from its end to the moment the tail chunk carrying it was sent.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.docs_table import DOCS, write_table
from rlviz.trace import Node, Recorder
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM
from rlviz.trace.store import TraceStore
from rlviz.viz.explorer_stream import SAVED_CHUNK_EVENTS
from rlviz.viz.growing_chunks import Extent, GrowingChunks

__all__ = ["run", "main"]

HELD = (10_000, 1_000_000)
NEW = 5_000
REPEATS = 7
REPO = Path(__file__).resolve().parent.parent


def run(held: tuple[int, ...] = HELD, repeats: int = REPEATS, ray: bool = True, page: bool = True) -> dict:
    """Measure; return the figures (medians over ``repeats``); ``page``: the page append under node too."""
    result: dict = {"load_average": list(os.getloadavg()), "new_events": NEW, "repeats": repeats}
    for count in held:
        seconds, per_event = _refresh(count, repeats)
        result[f"refresh_ms_{count}"] = 1e3 * statistics.median(seconds)
        result[f"bytes_per_event_{count}"] = per_event
        for form in ("parts", "joined"):
            result[f"actor_refresh_ms_{form}_{count}"] = 1e3 * statistics.median(_actor_refresh(count, repeats, form))
        appended = _page_append(count, 3 * repeats) if page else None
        if appended is not None:
            result[f"page_append_ms_{count}"] = appended
    small, large = held[0], held[-1]
    result["refresh_ratio"] = result[f"refresh_ms_{large}"] / result[f"refresh_ms_{small}"]
    for form in ("parts", "joined"):
        result[f"actor_refresh_ratio_{form}"] = (result[f"actor_refresh_ms_{form}_{large}"]
                                                 / result[f"actor_refresh_ms_{form}_{small}"])
    if f"page_append_ms_{large}" in result:
        result["page_ratio"] = result[f"page_append_ms_{large}"] / result[f"page_append_ms_{small}"]
    if ray:
        result.update(_latency())
    return result


def _filled(count: int) -> tuple[Recorder, TraceStore, "_Page", ExportCursor]:
    recorder = Recorder(capacity=max(2 * count, 4096))
    source = recorder.register(Node("n1", "from_range", "from_range(n)"))
    consumer = recorder.register(Node("n2", "for_each", "x.for_each()", parents=("n1",)))
    store = TraceStore()
    encoder = _Page(GrowingChunks(store))
    cursor = ExportCursor()
    for i in range(0, count, 2):
        made = recorder.record(source, 10 * i, 10 * i + 5, ITEM, i)
        recorder.record(consumer, 10 * i + 6, 10 * i + 9, ITEM, i, made)
    increment = recorder.export_since(cursor)
    store.add_increment(increment)
    encoder.refresh()
    return recorder, store, encoder, increment["cursor"]


class _Page:
    """What a refresh sends one following page: the extent, the levels when due, and the tail chunk it asks for."""

    def __init__(self, source: GrowingChunks) -> None:
        self.source, self.sent = source, Extent()
        self.source.start(self.sent)
        self.tail: tuple[int, int] | None = None       # the tail chunk held, and up to which of its parts

    def refresh(self) -> int:
        """Advance the source; return the bytes this page is sent (extent, levels, the rest of the tail chunk)."""
        self.source.advance()
        extent, buffers = self.source.extent(self.sent)
        k = len(self.source) - 1
        held = self.tail[1] if self.tail is not None and self.tail[0] == k else None
        piece = self.source.chunk(k, held)
        self.tail = (k, piece.meta["parts"][1])
        return len(json.dumps(extent)) + sum(len(b) for b in buffers) + piece.nbytes + len(json.dumps(piece.meta))


def _refresh(count: int, repeats: int) -> tuple[list[float], float]:
    recorder, store, encoder, cursor = _filled(count)
    source, consumer = 0, 1
    at = 10 * count
    seconds, sent, events = [], 0, 0
    for _ in range(repeats):
        for i in range(0, NEW, 2):
            made = recorder.record(source, at, at + 5, ITEM, i)
            recorder.record(consumer, at + 6, at + 9, ITEM, i, made)
            at += 10
        started = time.perf_counter()
        increment = recorder.export_since(cursor)
        store.add_increment(increment)
        sent += encoder.refresh()
        seconds.append(time.perf_counter() - started)
        cursor = increment["cursor"]
        events += NEW
    return seconds, sent / events


def _actor_refresh(count: int, repeats: int, form: str) -> list[float]:
    """Seconds per refresh of an actor's ``NEW`` events through its mirror, ``count`` held (``form``: how the store is fed)."""
    recorder, mirror, store = Recorder(capacity=max(2 * count, 4096), where="RolloutWorker-1"), RecorderMirror(), TraceStore()
    encoder = _Page(GrowingChunks(store))
    node = recorder.register(Node("a1", "sample", "RolloutWorker-1.sample()", where="RolloutWorker-1"))
    at = 0

    def record(n: int) -> None:
        nonlocal at
        for i in range(n):
            recorder.record(node, at, at + 5, ITEM, i)
            at += 10

    def refresh() -> None:
        mirror.update(recorder.export_since(mirror.cursor))
        store.add_export(mirror.export_parts() if form == "parts" else mirror.export())
        encoder.refresh()

    record(count)
    refresh()
    seconds = []
    for _ in range(repeats):
        record(NEW)
        started = time.perf_counter()
        refresh()
        seconds.append(time.perf_counter() - started)
    return seconds


_NODE_BENCH = """
import { readFileSync } from "node:fs";
import { appendChunk, createLive, liveModel } from "%s";
import { completionOrder } from "%s";
const repeats = %d;
const { start, chunk } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const bytes = new Uint8Array(readFileSync(process.argv[3]));
const buffers = [];
let at = 0;
for (const spec of chunk.tables) { buffers.push(bytes.subarray(at, at + spec.bytes)); at += spec.bytes; }
const times = [];
for (let r = 0; r < repeats + 1; r++) {
  const t = performance.now();
  const live = createLive(start);
  appendChunk(live, chunk, buffers);
  completionOrder(liveModel(live));
  if (r > 0) times.push(performance.now() - t);           // the first is a warm-up
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ median: times[times.length >> 1] }));
"""


def _page_append(count: int, repeats: int) -> float | None:
    """Median ms a following page takes per refresh to build the model of the tail chunk it asked again (half a
    chunk on average; ``count``, the events the run holds, does not change it: the page holds its window only)."""
    node = shutil.which("node")
    if node is None:
        return None
    recorder, store, page, _ = _filled(SAVED_CHUNK_EVENTS // 2)
    start, _ = page.source.start(Extent())
    tail = page.source.chunk(len(page.source) - 1)
    static = REPO / "rlviz" / "viz" / "static"
    module, core = (static / "explorer_live.js").as_uri(), (static / "explorer_core.js").as_uri()
    with tempfile.TemporaryDirectory(prefix="rlviz-bench-live-") as folder:
        script, meta, data = (Path(folder) / name for name in ("bench.mjs", "meta.json", "chunk.bin"))
        script.write_text(_NODE_BENCH % (module, core, repeats))
        meta.write_text(json.dumps({"start": start, "chunk": tail.meta}))
        data.write_bytes(b"".join(bytes(b) for b in tail.buffers))
        out = subprocess.run([node, str(script), str(meta), str(data)], capture_output=True, text=True, timeout=600,
                             check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["median"])


def _latency(seconds: float = 8.0) -> dict:
    """Watch a two-shard pipeline; from each shard event's end to the send of the chunk that carried it."""
    import rlviz
    from rlviz.iter import from_range

    rlviz.init(num_cpus=8)
    live = rlviz.watch(from_range(10_000_000, num_shards=2).for_each(lambda x: x * 2).gather_sync(), seconds=seconds)
    lags: list[float] = []
    sent_at: list[tuple[float, dict]] = []
    extents: list[dict] = []

    def send(content, buffers=None):
        if content.get("type") == "detail":
            sent_at.append((time.time_ns(), content["meta"], buffers))
        elif content.get("type") == "extent":
            extents.append(content["extent"])

    live.send = send
    live._handle_custom_msg({"type": "ready", "view": "bench"}, [])
    asked, tail = 0, (-1, None)                  # a following page: after each extent, the rest of the tail it holds
    while live.running or asked < len(extents):
        time.sleep(0.02)
        if asked == len(extents):
            continue
        asked = len(extents)
        k = extents[asked - 1]["detail_from"] + len(extents[asked - 1]["detail"]) - 1
        live._handle_custom_msg({"type": "detail", "view": "bench", "chunk": k,
                                 "from_part": tail[1] if tail[0] == k else None}, [])
        parts = sent_at[-1][1].get("parts") if sent_at else None
        tail = (k, parts[1]) if parts else (-1, None)
    live.join(timeout=seconds + 120)
    from rlviz.viz.explorer_payload import Payload, decode_payload
    store_origin = live._live.store.since_ns
    shard_nodes = {i for i, n in enumerate(live._live.store.nodes) if n.where != "driver"}
    seen = 0                                     # ids below it reached the page already (a closed chunk comes again)
    for when, meta, buffers in sent_at:
        columns = decode_payload(Payload(meta, buffers))
        fresh = np.arange(meta["first_id"], meta["first_id"] + meta["count"]) >= seen
        seen = max(seen, meta["first_id"] + meta["count"])
        shard = np.isin(columns["node"], list(shard_nodes)) & fresh
        starts = meta["time_base"] + columns["start"][shard].astype(np.int64)   # µs from the chunk's base
        ends = store_origin + (starts + columns["duration"][shard].astype(np.int64)) * 1000
        lags.extend(((when - ends) / 1e9).tolist())
    return {"latency_median_s": float(np.median(lags)) if lags else float("nan"),
            "latency_p95_s": float(np.percentile(lags, 95)) if lags else float("nan"),
            "latency_events": len(lags)}


def _table(result: dict) -> str:
    small, large = HELD
    rows = ["| measurement | 10,000 held | 1,000,000 held | ratio | target |", "|---|---|---|---|---|",
            f"| refresh in the driver ({NEW:,} new events: store + encode), median ms | "
            f"{result[f'refresh_ms_{small}']:.1f} | {result[f'refresh_ms_{large}']:.1f} | "
            f"{result['refresh_ratio']:.2f}x | <= 2x |",
            f"| refresh of an actor's events ({NEW:,} new: mirror + store + encode), median ms | "
            f"{result[f'actor_refresh_ms_parts_{small}']:.1f} | {result[f'actor_refresh_ms_parts_{large}']:.1f} | "
            f"{result['actor_refresh_ratio_parts']:.2f}x | <= 2x |",
            f"| the same, store fed the mirror's joined export (the old way; baseline) | "
            f"{result[f'actor_refresh_ms_joined_{small}']:.1f} | {result[f'actor_refresh_ms_joined_{large}']:.1f} | "
            f"{result['actor_refresh_ratio_joined']:.2f}x | |",
            f"| bytes sent per new event | {result[f'bytes_per_event_{small}']:.1f} | "
            f"{result[f'bytes_per_event_{large}']:.1f} | | <= 24 |"]
    if "page_ratio" in result:
        rows.append(f"| page: model of the tail chunk + completion order ({SAVED_CHUNK_EVENTS // 2:,} events, node), median ms | "
                    f"{result[f'page_append_ms_{small}']:.1f} | {result[f'page_append_ms_{large}']:.1f} | "
                    f"{result['page_ratio']:.2f}x | <= 2x |")
    if "latency_median_s" in result:
        rows.append(f"| remote event to the tail chunk carrying it sent, median (p95) s | {result['latency_median_s']:.2f} "
                    f"({result['latency_p95_s']:.2f}) | | | <= 1 s median |")
    load = ", ".join(f"{v:.1f}" for v in result["load_average"])
    rows.append(f"\nMeasured by `python -m benchmarks.bench_live` on the shared 2-core VM (load average {load}), "
                f"medians of {result['repeats']} refreshes ({3 * result['repeats']} page appends after one warm-up).")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="hold 10,000 and 100,000 events, 3 repeats")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/live.md alone")
    parser.add_argument("--no-ray", action="store_true", help="skip the latency run (needs Ray)")
    args = parser.parse_args(argv)
    held = (10_000, 100_000) if args.quick else HELD
    result = run(held, 3 if args.quick else REPEATS, ray=not args.no_ray)
    print(json.dumps(result, indent=1))
    if not args.no_docs and not args.quick:
        write_table(DOCS / "live.md", _table(result))
    return result


if __name__ == "__main__":
    main()
