"""What a spill costs: file bytes per event (decisions included) and the time of an evicting pull, in-process.

``python -m benchmarks bench_spill`` (or ``python -m benchmarks.bench_spill [--items N] [--capacity C]``)
runs a driver-only plan with a ``Concurrently`` of three ops (weights 2, 1
and "*", two of them not ready now and then, so there are decisions) and a
step after it, pulling the store every ``PULL_EVERY`` items, three times:
with ``record(capacity=C, spill=path)``, with the same capacity and no
spill, and with no capacity bound.  Each item also takes ``readings`` gauge
readings (``--readings``, default 1: about one per event, as a DQN run
records).  Reported: the spill file's bytes per event, the share of it its
decision rows take, the median time of a pull that evicted (spill or not)
and of one that evicted nothing, and the bytes per event of ``Trace.save``
of the unbounded run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

__all__ = ["run", "main", "PULL_EVERY"]

#: Items pulled between two pulls of the store.
PULL_EVERY = 2_000


def _source(name: str, not_ready_every: int = 0):
    from rlviz.iter import LocalIterator
    from rlviz.iter.sentinel import NOT_READY

    def items(timeout):
        i = 0
        while True:
            if not_ready_every and i % not_ready_every == not_ready_every - 1:
                yield NOT_READY
            yield i
            i += 1
    return LocalIterator(items, name=name).named(name)


def _run(items: int, capacity: int | None, spill: Path | None, readings: int = 0, save: Path | None = None) -> dict:
    """One recorded run (``readings`` gauge readings per item); the pulls' times (ms), split by whether they
    evicted, and the block's counts; the trace held at the end is saved to ``save`` if given."""
    import rlviz
    from rlviz.ops import Concurrently

    plan = Concurrently([_source("Store"), _source("Train", 3), _source("Log", 4)],
                        round_robin_weights=[2, 1, "*"]).for_each(lambda item: item)
    evicting, quiet = [], []
    with rlviz.record(capacity=capacity, spill=spill, collect_every_s=3600) as trace:   # pulls are ours only
        it = iter(plan)
        for i in range(1, items + 1):
            next(it)
            for k in range(readings):
                rlviz.gauge(f"bench reading {k}", float(i))
            if i % PULL_EVERY == 0:
                dropped = trace.store.dropped
                started = time.perf_counter()
                trace.pull()
                elapsed = (time.perf_counter() - started) * 1e3
                (evicting if trace.store.dropped > dropped else quiet).append(elapsed)
        held, dropped = len(trace.store), trace.store.dropped
    if save is not None:
        trace.snapshot().save(save)
    return {"evicting_ms": evicting, "quiet_ms": quiet, "held": held, "dropped": dropped,
            "decisions": trace.store.decision_count}


def _decision_bytes(path: Path) -> tuple[int, int]:
    """The bytes of every ``decision_rows`` record batch (whole messages, compressed), and the segments (one
    ``events`` batch each), of a trace file: read with pyarrow alone."""
    import pyarrow as pa

    data = path.read_bytes()
    source = pa.BufferReader(data)
    sizes, at = [], 0
    for message in pa.ipc.MessageReader.open_stream(source):
        if message.type == "record batch":
            sizes.append(source.tell() - at)
        at = source.tell()
    reader = pa.ipc.open_stream(pa.BufferReader(data), options=pa.ipc.IpcReadOptions(included_fields=[0]))
    tables = []
    while True:
        try:
            tables.append(reader.read_next_batch_with_custom_metadata()[1][b"rlviz.table"].decode())
        except StopIteration:
            break
    total = sum(size for size, table in zip(sizes, tables) if table == "decision_rows")
    return total, tables.count("events")


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def run(items: int = 60_000, capacity: int = 32_768, readings: int = 1) -> dict:
    """Record the plan three ways and measure; returns the figures (``main`` prints them)."""
    from rlviz.trace import Trace

    with tempfile.TemporaryDirectory() as folder:
        path, saved = Path(folder) / "run.rlviz", Path(folder) / "saved.rlviz"
        spilled = _run(items, capacity, path, readings)
        events = Trace.load(path).columns.events
        size = path.stat().st_size
        decision_bytes, segments = _decision_bytes(path)
        bounded = _run(items, capacity, None, readings)
        unbounded = _run(items, None, None, readings, saved)
        saved_events, saved_size = Trace.load(saved).columns.events, saved.stat().st_size
    return {"items": items, "capacity": capacity, "events": events, "readings": items * readings,
            "segments": segments, "saved_bytes_per_event": round(saved_size / saved_events, 2),
            "decisions": spilled["decisions"], "file_bytes_per_event": round(size / events, 2),
            "decision_rows_bytes_per_event": round(decision_bytes / events, 2),
            "decision_rows_bytes_per_decision": round(decision_bytes / max(spilled["decisions"], 1), 2),
            "evicting_pull_ms_spill": _median(spilled["evicting_ms"]),
            "evicting_pull_ms_no_spill": _median(bounded["evicting_ms"]),
            "quiet_pull_ms_no_bound": _median(unbounded["quiet_ms"]),
            "evicting_pulls": len(spilled["evicting_ms"]), "load_average": [round(v, 2) for v in os.getloadavg()]}


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=60_000, help="items pulled from the plan (default 60,000)")
    parser.add_argument("--capacity", type=int, default=32_768, help="record(capacity=...) (default 32,768)")
    parser.add_argument("--readings", type=int, default=1, help="gauge readings per item (default 1)")
    args = parser.parse_args(argv if argv is not None else [])
    figures = run(args.items, args.capacity, args.readings)
    print(json.dumps(figures, indent=1))
    return figures


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
