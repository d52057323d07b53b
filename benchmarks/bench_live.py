"""Benchmark of the live view: refresh cost against events held, bytes per event, page append cost, latency.

``python -m benchmarks.bench_live`` (``--quick`` for a small run; ``--no-docs``
leaves docs/live.md alone; ``--no-ray`` skips the latency run).  Same-run
ratios and medians:

* refresh: one driver increment of ``NEW`` events taken into a ``TraceStore``
  holding 10,000 or 1,000,000 events, then encoded for a page
  (``LiveEncoder.next_chunk``): the time per refresh, and its ratio;
* actor refresh: the same for an actor's events, which reach the driver's
  store through its ``RecorderMirror``: one increment applied to the mirror,
  the mirror's chunks (``export_parts``) taken into the store, then encoded;
  and, as the baseline, the same with the mirror's joined ``export()`` (how
  the collector fed the store before: a copy and a scan of all held);
* bytes per new event of those chunks;
* page: ``appendChunk`` + ``liveModel`` of ``explorer_live.js`` (and the
  completion order, which a page keeps) under node,
  with 10,000 or 1,000,000 events held (what a page does per refresh);
* latency (needs Ray): a ``rlviz.watch`` of a two-shard pipeline; for each
  shard event, from its end to the moment the chunk carrying it was sent.
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
from rlviz.viz.explorer_stream import LiveEncoder

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


def _filled(count: int) -> tuple[Recorder, TraceStore, LiveEncoder, ExportCursor]:
    recorder = Recorder(capacity=max(2 * count, 4096))
    source = recorder.register(Node("n1", "from_range", "from_range(n)"))
    consumer = recorder.register(Node("n2", "for_each", "x.for_each()", parents=("n1",)))
    store = TraceStore()
    encoder = LiveEncoder(store)
    cursor = ExportCursor()
    for i in range(0, count, 2):
        made = recorder.record(source, 10 * i, 10 * i + 5, ITEM, i)
        recorder.record(consumer, 10 * i + 6, 10 * i + 9, ITEM, i, made)
    increment = recorder.export_since(cursor)
    store.add_increment(increment)
    encoder.next_chunk()
    return recorder, store, encoder, increment["cursor"]


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
        chunk = encoder.next_chunk()
        seconds.append(time.perf_counter() - started)
        cursor = increment["cursor"]
        sent += chunk.nbytes + len(json.dumps(chunk.meta))
        events += chunk.meta["count"]
    return seconds, sent / events


def _actor_refresh(count: int, repeats: int, form: str) -> list[float]:
    """Seconds per refresh of an actor's ``NEW`` events through its mirror, ``count`` held (``form``: how the store is fed)."""
    recorder, mirror, store = Recorder(capacity=max(2 * count, 4096), where="RolloutWorker-1"), RecorderMirror(), TraceStore()
    encoder = LiveEncoder(store)
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
        encoder.next_chunk()

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
import { appendChunk, createLive, liveModel } from "%s";
import { completionOrder } from "%s";
const held = %d, fresh = %d, repeats = %d;
const structure = { live: true, unit_ns: 1000, origin_ns: "0", texts: [], order: null, edges: [[0, 1, 0, false]],
  nodes: [0, 1].map((k) => ({ op: "op" + k, label: "l" + k, where: "driver", short: "op" + k, color: "#1f77b4", column: k, row: 0 })),
  lanes: [{ name: "driver", color: "#333", nodes: [0, 1] }] };
function chunk(first, n) {
  const cols = { start: new Uint32Array(n), duration: new Uint32Array(n).fill(3), node: new Uint16Array(n),
    flags: new Uint8Array(n).fill(4), item: new Int32Array(n), input_count: new Uint8Array(n), inputs: new Uint32Array(n / 2) };
  for (let i = 0; i < n; i++) { cols.start[i] = (first + i) * 5; cols.node[i] = i %% 2; cols.item[i] = i; }
  for (let k = 0; k < n / 2; k++) { cols.input_count[2 * k + 1] = 1; cols.inputs[k] = first + 2 * k; }
  const dt = { start: "<u4", duration: "<u4", node: "<u2", flags: "|u1", item: "<i4", input_count: "|u1", inputs: "<u4" };
  return [{ first_id: first, count: n, held_from: 0, texts: [], dropped: 0,
    columns: Object.entries(cols).map(([name, v]) => ({ name, dtype: dt[name], length: v.length, chunks: [v.byteLength] })) },
    Object.values(cols).map((v) => v.buffer)];
}
const live = createLive(structure);
appendChunk(live, ...chunk(0, held));
completionOrder(liveModel(live));
// one warm-up append: the first after a build moves the indexes into growable arrays (once per build)
appendChunk(live, ...chunk(live.base + live.n, fresh));
completionOrder(liveModel(live));
const times = [];
for (let r = 0; r < repeats; r++) {
  const t = performance.now();
  appendChunk(live, ...chunk(live.base + live.n, fresh));
  completionOrder(liveModel(live));
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ median: times[times.length >> 1] }));
"""


def _page_append(count: int, repeats: int) -> float | None:
    node = shutil.which("node")
    if node is None:
        return None
    static = REPO / "rlviz" / "viz" / "static"
    module, core = (static / "explorer_live.js").as_uri(), (static / "explorer_core.js").as_uri()
    with tempfile.TemporaryDirectory(prefix="rlviz-bench-live-") as folder:
        script = Path(folder) / "bench.mjs"
        script.write_text(_NODE_BENCH % (module, core, count, NEW, repeats))
        out = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=600, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["median"])


def _latency(seconds: float = 8.0) -> dict:
    """Watch a two-shard pipeline; from each shard event's end to the send of the chunk that carried it."""
    import rlviz
    from rlviz.iter import from_range

    rlviz.init(num_cpus=8)
    live = rlviz.watch(from_range(10_000_000, num_shards=2).for_each(lambda x: x * 2).gather_sync(), seconds=seconds)
    lags: list[float] = []
    sent_at: list[tuple[float, dict]] = []

    def send(content, buffers=None):
        if content.get("type") == "append":
            sent_at.append((time.time_ns(), content["meta"], buffers))

    live.send = send
    live._handle_custom_msg({"type": "ready", "view": "bench"}, [])
    live.join(timeout=seconds + 120)
    from rlviz.viz.explorer_payload import Payload, decode_payload
    origin = live.trace.start_ns if len(live.trace) else 0
    store_origin = live._live.store.since_ns
    shard_nodes = {i for i, n in enumerate(live._live.store.nodes) if n.where != "driver"}
    for when, meta, buffers in sent_at:
        columns = decode_payload(Payload(meta, buffers))
        shard = np.isin(columns["node"], list(shard_nodes))
        starts = meta["time_base"] + columns["start"][shard].astype(np.int64)   # µs from the chunk's base
        ends = store_origin + (starts + columns["duration"][shard].astype(np.int64)) * 1000
        lags.extend(((when - ends) / 1e9).tolist())
    del origin
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
        rows.append(f"| page append + model grown + completion order ({NEW:,} new, node), median ms | "
                    f"{result[f'page_append_ms_{small}']:.1f} | {result[f'page_append_ms_{large}']:.1f} | "
                    f"{result['page_ratio']:.2f}x | <= 2x |")
    if "latency_median_s" in result:
        rows.append(f"| remote event to its chunk sent, median (p95) s | {result['latency_median_s']:.2f} "
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
