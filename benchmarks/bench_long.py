"""Benchmark of a long run held in the kernel: bytes per event, and one window query.

Run ``python -m benchmarks.bench_long [--events N] [--lanes L] [--hours H] [--no-docs]``.
The synthetic pipeline of ``benchmarks.synthetic`` (items drawn like the DQN
demo's: shard sources and maps, a driver gathering and batching by eight,
not-ready polls, rare errors) is replayed through the real recording path:
one ``Recorder`` per lane, recorded in end order; each actor lane's
increments go through a ``RecorderMirror`` and the driver lane's straight
into a ``TraceStore``, every ten simulated seconds, as a ``record()`` block's
pulls do (with the release of taken chunks when this rlviz has it).

Bytes per event are the growth of the process's resident set while the run
is fed, minus what the actor lanes' own recorders hold at the end (in a
real run they live in other processes): every copy in the driver counts
(its recorder, the mirrors, the store's columns, links, pyramid and index).
tracemalloc cannot count them: the store's large arrays live in mappings of
their own (``rlviz.trace.growing``), which it does not see.  The window query is timed as a
median of repeats against a full scan of the held columns in the same run.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.docs_table import DOCS, write_table
from benchmarks.synthetic import pipeline_trace
from rlviz.trace import Recorder
from rlviz.trace.mirror import RecorderMirror
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.items import KIND_INT, KIND_SIZED
from rlviz.trace.store import TraceStore

__all__ = ["run", "main", "feed"]

TARGET_BYTES_PER_EVENT = 60
TARGET_WINDOW_MS = 50
_ROUND_NS = 10 * 10**9
_PIXELS = 1200
_REPEATS = 7


def feed(events: int, lanes: int, span_s: float, seed: int = 0) -> tuple[TraceStore, list[Recorder], int]:
    """Replay the synthetic run through recorders, mirrors and a store; return the store, the actor lanes'
    recorders (what lives outside the driver in a real run) and the growth of the resident set while feeding."""
    trace = pipeline_trace(events, lanes, span_s, seed)
    columns = {name: values for name, values in trace.columns.items()}
    wheres = sorted({node.where for node in trace.nodes}, key=lambda w: (w != "driver", w))
    real_ids = np.full(len(columns["node"]) + 2, -1, np.int64)     # synthetic item id -> recorded item id
    by_end = np.argsort(columns["end_ns"], kind="stable")
    rounds = np.searchsorted(columns["end_ns"][by_end], np.arange(0, int(span_s * 1e9) + 2 * _ROUND_NS, _ROUND_NS))
    _give_back_freed()                  # the replay's own temporaries above are not the driver's memory
    rss_before = _rss()
    recorders = {where: Recorder(capacity=max(4 * events, 4096), where=where) for where in wheres}
    local = [recorders[node.where].register(node) for node in trace.nodes]
    where_of = [node.where for node in trace.nodes]
    mirrors = {where: RecorderMirror() for where in wheres if where != "driver"}
    store = TraceStore()
    cursor = ExportCursor()
    for recorder in recorders.values():
        recorder.enabled = True
    for lo, hi in zip(rounds[:-1].tolist(), rounds[1:].tolist()):
        _record(by_end[lo:hi], columns, recorders, local, where_of, real_ids)
        cursor = _pull(store, recorders, mirrors, cursor)
    return store, [r for where, r in recorders.items() if where != "driver"], _rss() - rss_before


def _give_back_freed() -> None:
    """Have glibc return the heap memory freed so far (else the run would reuse it and look smaller)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _rss() -> int:
    """This process's resident set size in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _record(order: np.ndarray, columns: dict, recorders: dict, local: list, where_of: list,
            real_ids: np.ndarray) -> None:
    """Record the events ``order`` (positions in the synthetic columns), in that order."""
    offsets = columns["input_offsets"]
    for at, node, start, end, outcome, kind, number, item in zip(
            order.tolist(), columns["node"][order].tolist(), columns["start_ns"][order].tolist(),
            columns["end_ns"][order].tolist(), columns["outcome"][order].tolist(),
            columns["item_kind"][order].tolist(), columns["item_num"][order].tolist(),
            columns["item_id"][order].tolist()):
        inputs = real_ids[columns["input_ids"][offsets[at]:offsets[at + 1]]].tolist() or None
        value = number if kind == KIND_INT else [0] * 8 if kind == KIND_SIZED else \
            "ValueError('bad value')" if outcome == 3 else None
        recorder = recorders[where_of[node]]
        got = recorder.record(local[node], start, end, outcome, value, inputs) if value is not None else \
            recorder.record(local[node], start, end, outcome, inputs=inputs)
        if item >= 0:
            real_ids[item] = got


def _pull(store: TraceStore, recorders: dict, mirrors: dict, cursor: ExportCursor) -> ExportCursor:
    """One pull, as a ``record()`` block makes it: the driver by cursor, each actor through its mirror."""
    increment = recorders["driver"].export_since(cursor)
    store.add_increment(increment)
    for where, mirror in mirrors.items():
        mirror.update(recorders[where].export_since(mirror.cursor))
        store.add_export(mirror.export_parts())
    if hasattr(store, "taken"):            # this rlviz releases what the store took (older ones hold it twice)
        recorders["driver"].release_taken(store.taken)
        for where, mirror in mirrors.items():
            mirror.release_taken(store.taken)
            recorders[where].release_taken(lambda chunk: True)   # the actor's own buffer: not the driver's memory
    return increment["cursor"]


def _full_scan(columns: dict, lane: np.ndarray, lanes: int, start_ns: int, end_ns: int, pixels: int) -> np.ndarray:
    """The baseline: read every held event, keep those meeting the window, count them per lane and pixel."""
    inside = (columns["start_ns"] < end_ns) & (columns["end_ns"] >= start_ns)
    pixel = np.clip((columns["start_ns"][inside] - start_ns) * pixels // (end_ns - start_ns), 0, pixels - 1)
    return np.bincount(lane[inside] * pixels + pixel, minlength=lanes * pixels)


def _median_ms(call, repeats: int = _REPEATS) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times)


def run(events: int = 10_000_000, lanes: int = 64, hours: float = 3.0, seed: int = 0) -> dict:
    """Bytes per event held in the driver, and window query times, for one synthetic long run.

    Returns
    -------
    dict
        ``events``, ``bytes_per_event`` (resident set growth, actors' own buffers left out), ``store_bytes_per_event``
        (the store's arrays alone, when this rlviz reports them), ``feed_s``, and per window
        ``window_<name>_ms`` and ``scan_<name>_ms`` (the full-scan baseline).
    """
    started = time.perf_counter()
    store, actors, grown = feed(events, lanes, hours * 3600, seed)
    feed_s = time.perf_counter() - started
    actor_bytes = sum(len(recorder.export()["data"]) for recorder in actors)
    held = len(store)
    result = {"events": held, "lanes": lanes, "hours": hours, "feed_s": round(feed_s, 1),
              "bytes_per_event": (grown - actor_bytes) / held,
              "store_bytes_per_event": getattr(store, "nbytes", 0) / held}
    if hasattr(store, "window"):
        result.update(_windows(store))
    return result


def _windows(store: TraceStore) -> dict:
    """Median window query times, and the full scan's, for a whole-run, a minute, a second and a millisecond window."""
    trace = store.view()
    columns = trace.columns
    names = sorted({node.where for node in trace.nodes})
    lane = np.asarray([names.index(node.where) for node in trace.nodes], np.int64)[columns["node"]]
    first, last = int(columns["start_ns"].min()), int(columns["end_ns"].max())
    middle = (first + last) // 2
    out = {}
    for name, width in (("run", last - first + 1), ("minute", 60 * 10**9), ("second", 10**9), ("ms", 10**6)):
        start = first if name == "run" else middle
        out[f"window_{name}_ms"] = _median_ms(lambda: store.window(start, start + width, _PIXELS))
        out[f"scan_{name}_ms"] = _median_ms(lambda: _full_scan(columns, lane, len(names), start, start + width, _PIXELS))
        answer = store.window(start, start + width, _PIXELS)
        out[f"window_{name}_exact_lanes"] = sum(lane_answer.events is not None for lane_answer in answer.lanes)
    return out


def _table(result: dict, before: dict | None) -> str:
    load = os.getloadavg()
    lines = [f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {os.cpu_count()} CPUs, "
             f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min); "
             f"{result['events']:,} events over {result['hours']:g} h and {result['lanes']} lanes, "
             f"fed in {result['feed_s']:.0f} s.", "",
             "| measure | before | now | target |", "|---|---|---|---|"]
    was = f"{before['bytes_per_event']:.0f}" if before else "n/a"
    lines.append(f"| driver bytes per event, every copy (resident set growth) | {was} | {result['bytes_per_event']:.1f} | "
                 f"≤ {TARGET_BYTES_PER_EVENT} |")
    lines.append(f"| of which the store's arrays (columns, links, pyramid, index) | | "
                 f"{result['store_bytes_per_event']:.1f} | |")
    for name, label in (("run", f"whole run ({result['hours']:g} h)"), ("minute", "one minute"),
                        ("second", "one second"), ("ms", "one millisecond")):
        if f"window_{name}_ms" in result:
            lines.append(f"| window query, {label}, {_PIXELS} px, median of {_REPEATS} (ms); "
                         f"lanes answered exactly: {result[f'window_{name}_exact_lanes']} | full scan "
                         f"{result[f'scan_{name}_ms']:.1f} | {result[f'window_{name}_ms']:.1f} | "
                         f"≤ {TARGET_WINDOW_MS} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark, print it, write its table into docs/performance.md (unless ``--no-docs``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--lanes", type=int, default=64)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--before", type=float, default=None,
                        help="bytes per event measured with the code before this change (same command)")
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    result = run(args.events, args.lanes, args.hours)
    print(result)
    if not args.no_docs and "window_run_ms" in result:
        before = {"bytes_per_event": args.before} if args.before else None
        write_table(DOCS / "performance.md", _table(result, before), "long")
    return result


if __name__ == "__main__":
    main()
