"""The trace file of version 5 (Arrow) against version 4: bytes per event, save time, and load to the first query.

``python -m benchmarks bench_format`` (or ``python -m benchmarks.bench_format [--events N ...]``) builds
synthetic traces (``benchmarks.synthetic``: a sharded pipeline with about one gauge reading per event) at
each size, and records a real in-process ``Concurrently`` run (decisions, not-ready polls, a gauge reading
per item), then saves each as version 4 (``save_trace(..., version=4)``, the layout before Arrow) and version
5 in the same run.  Reported per trace: bytes per event of each and their ratio (target <= 1.0), the save
times, and ``Trace.load`` to the first query (``trace.processes``: the lanes, which reads the node column)
for each version (target <= 1 s at 10M events), then the full scan after it (``trace.op_stats()``: every
column it needs decoded and checked).
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

__all__ = ["run", "main", "measure"]


def measure(trace, folder: Path, name: str) -> dict:
    """Save ``trace`` as versions 4 and 5 in ``folder``; their sizes, save times and load-to-first-query times."""
    from rlviz.trace import Trace
    from rlviz.trace.io import save_trace

    out = {"events": len(trace)}
    for version in (4, 5):
        path = folder / f"{name}.v{version}.rlviz"
        started = time.perf_counter()
        save_trace(trace, path, version=version)
        out[f"v{version}_save_s"] = round(time.perf_counter() - started, 2)
        out[f"v{version}_bytes_per_event"] = round(path.stat().st_size / len(trace), 2)
        started = time.perf_counter()
        loaded = Trace.load(path)
        lanes = loaded.processes
        out[f"v{version}_load_to_first_query_s"] = round(time.perf_counter() - started, 3)
        started = time.perf_counter()
        loaded.op_stats()
        out[f"v{version}_full_scan_s"] = round(time.perf_counter() - started, 3)
        assert len(loaded) == len(trace) and lanes == trace.processes
        path.unlink()
    out["v5_over_v4"] = round(out["v5_bytes_per_event"] / out["v4_bytes_per_event"], 3)
    return out


def _recorded(items: int):
    """A real in-process run: ``Concurrently`` of three ops (two not ready now and then) and a step after it."""
    import rlviz
    from benchmarks.bench_spill import _source
    from rlviz.ops import Concurrently

    plan = Concurrently([_source("Store"), _source("Train", 3), _source("Log", 4)],
                        round_robin_weights=[2, 1, "*"]).for_each(lambda item: item)
    with rlviz.record(capacity=None) as recorded:
        it = iter(plan)
        for i in range(items):
            next(it)
            rlviz.gauge("bench reading", float(i))
    return recorded.snapshot()


def run(sizes: tuple[int, ...] = (100_000, 1_000_000, 10_000_000), recorded_items: int = 100_000) -> dict:
    """Measure every synthetic size and the recorded run; returns the figures (``main`` prints them)."""
    from benchmarks.synthetic import pipeline_trace, with_gauges

    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for events in sizes:
            trace = with_gauges(pipeline_trace(events=events, lanes=16, span_s=3 * 3600.0))
            figures[f"synthetic_{events}"] = measure(trace, Path(folder), f"synthetic{events}")
            del trace
        if recorded_items:
            figures["recorded_concurrently"] = measure(_recorded(recorded_items), Path(folder), "recorded")
    figures["load_average"] = [round(v, 2) for v in os.getloadavg()]
    return figures


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="*", default=[100_000, 1_000_000, 10_000_000],
                        help="synthetic trace sizes (default 100k, 1M, 10M)")
    parser.add_argument("--recorded-items", type=int, default=100_000,
                        help="items of the recorded Concurrently run (0: none; default 100,000)")
    args = parser.parse_args(argv if argv is not None else [])
    figures = run(tuple(args.events), args.recorded_items)
    print(json.dumps(figures, indent=1))
    return figures


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
