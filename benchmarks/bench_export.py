"""Benchmark of the Chrome/Perfetto export: bytes per event on disk for a real DQN trace.

Run ``python -m benchmarks.bench_export [--demo-trace PATH] [--seconds S]``.  The
trace is ``make demo``'s (``rlviz-out/dqn.rlviz``) if there is one, else a
DQN run recorded here.  The baseline, written in the same run, is the format
the export had before (every event repeating its node's label, absolute
timestamps, default JSON separators), so the ratio says what the change bought.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_explorer import record_dqn
from benchmarks.docs_table import DOCS, write_table
from rlviz.trace import Trace
from rlviz.trace.chrome import chrome_events, write_chrome

__all__ = ["run", "main"]

REPO = Path(__file__).resolve().parent.parent
DEMO_TRACE = REPO / "rlviz-out" / "dqn.rlviz"
TARGET_BYTES_PER_EVENT = 100


def run(demo_trace: Path | None = None, seconds: float = 60.0) -> dict:
    """Sizes of the export of one real trace: the baseline format, plain JSON and gzip.

    Parameters
    ----------
    demo_trace : Path, optional
        A saved rlviz trace; default ``make demo``'s, or a DQN run recorded here.
    seconds : float, default 60
        How long to record DQN when there is no saved trace.

    Returns
    -------
    dict
        Events, flows, bytes per event of each format, seconds to write each.
    """
    trace, source = _trace(demo_trace, seconds)
    with tempfile.TemporaryDirectory() as folder:
        sizes = {}
        for name, write in (("baseline", _write_baseline), ("json", write_chrome), ("json.gz", write_chrome)):
            path = Path(folder) / f"trace.chrome.{name.replace('baseline', 'old.json')}"
            start = time.perf_counter()
            write(trace, path)
            sizes[name] = (path.stat().st_size, time.perf_counter() - start)
    n = len(trace)
    return {"source": source, "events": n, "flows": len(trace.links()[0]),
            **{f"{name}_bytes_per_event": size / n for name, (size, _) in sizes.items()},
            **{f"{name}_write_s": seconds for name, (_, seconds) in sizes.items()},
            "gz_vs_baseline": sizes["json.gz"][0] / sizes["baseline"][0],
            "load_average": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict:
    """Run, print the table and write it into docs/performance.md (the ``export`` markers)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_export")
    parser.add_argument("--demo-trace", type=Path, default=None)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv if argv is not None else [])
    figures = run(args.demo_trace, args.seconds)
    table = _table(figures)
    print(table)
    write_table(DOCS / "performance.md", table, name="export")
    return figures


def _trace(demo_trace: Path | None, seconds: float) -> tuple[Trace, str]:
    path = demo_trace or (DEMO_TRACE if DEMO_TRACE.exists() else None)
    if path is not None:
        return Trace.load(str(path)), f"`{path.name}`"
    return record_dqn(seconds), f"DQN on CartPole-v1, 2 remote workers, {seconds:g} s (as `make demo`), recorded by this run"


def _write_baseline(trace: Trace, path: Path) -> None:
    """The export's earlier format: label and outcome in every event's args, absolute times, spaced JSON."""
    events = chrome_events(trace)
    origin_us = trace.start_ns / 1000
    labels = {(e["pid"], e["tid"]): e["args"]["name"].split("  ", 1)[1] for e in events if e["name"] == "thread_name"}
    for event in events:
        if event["ph"] in "Xsf":
            event["ts"] += origin_us
        if event["ph"] == "X":
            event["args"] = {"label": labels[event["pid"], event["tid"]], "outcome": event["cat"],
                             **event.get("args", {})}
    path.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}))


def _table(f: dict) -> str:
    today = datetime.date.today().isoformat()
    return "\n".join([
        f"{f['source']}: {f['events']:,} events and {f['flows']:,} value flows; "
        f"{today}, load average {f['load_average']:.1f} on 2 cores.",
        "",
        "| file | bytes per event | write time | target |",
        "|---|---:|---:|---|",
        f"| earlier format (label repeated, absolute times), baseline | {f['baseline_bytes_per_event']:.0f} "
        f"| {f['baseline_write_s']:.1f} s | |",
        f"| `.chrome.json` (compact) | {f['json_bytes_per_event']:.0f} | {f['json_write_s']:.1f} s | |",
        f"| `.chrome.json.gz` (what `rlviz demo` writes) | {f['json.gz_bytes_per_event']:.0f} "
        f"| {f['json.gz_write_s']:.1f} s | <= {TARGET_BYTES_PER_EVENT} "
        f"{'met' if f['json.gz_bytes_per_event'] <= TARGET_BYTES_PER_EVENT else '**not met**'} |",
        "",
        f"The gzip file is {f['gz_vs_baseline']:.2f}x the baseline's size.",
    ])


if __name__ == "__main__":
    main(sys.argv[1:])
