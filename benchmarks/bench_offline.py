"""Benchmark of offline data: rows/s reading back a written CartPole file against rows/s sampling made them.

Run ``python -m benchmarks.bench_offline``; prints the figures and writes them
into docs/performance.md between the ``bench:offline`` markers.  One process, no Ray.
"""
from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main"]

ENV = "CartPole-v1"
FRAGMENT = 200
BATCHES = 40                     # batches sampled (and written) per repeat: 8,000 rows
REPEATS = 5


def run(repeats: int = REPEATS, batches: int = BATCHES) -> dict:
    """Rows/s of sampling, sampling with ``output=``, and reading back (medians of interleaved ``repeats``).

    Returns
    -------
    dict
        ``sample_rows_s`` (a RolloutWorker's ``sample()``, no output),
        ``sample_and_write_rows_s`` (the same with ``output=<dir>``),
        ``read_all_files_rows_s`` (``JsonReader.read_all_files()`` over the file written),
        ``reader_worker_rows_s`` (a RolloutWorker with ``input=<dir>``: its ``sample()``),
        the same two for a file written uncompressed (``*_uncompressed``), the file's
        ``bytes_per_row`` both ways, ``read_over_sample`` (reading back / sampling)
        and ``load_average`` at the start and end.
    """
    load_before = os.getloadavg()[0]
    rates: dict[str, list[float]] = {}
    bytes_per_row: dict[str, float] = {}
    for _ in range(repeats):                          # interleaved, so drift hits every measure
        rates.setdefault("sample", []).append(_sample_rate(None, batches))
        for kind, compress in (("", ("obs", "new_obs")), ("_uncompressed", ())):
            out = tempfile.mkdtemp(prefix="bench-offline-")
            try:
                rates.setdefault(f"sample_and_write{kind}", []).append(_sample_rate(out, batches, compress))
                rates.setdefault(f"read_all_files{kind}", []).append(_read_all_rate(out))
                rates.setdefault(f"reader_worker{kind}", []).append(_reader_worker_rate(out, batches))
                bytes_per_row[kind] = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)) \
                    / (batches * FRAGMENT)
            finally:
                shutil.rmtree(out, ignore_errors=True)
    figures = {f"{name}_rows_s": round(statistics.median(values)) for name, values in rates.items()}
    figures["bytes_per_row"] = round(bytes_per_row[""], 1)
    figures["bytes_per_row_uncompressed"] = round(bytes_per_row["_uncompressed"], 1)
    figures["read_over_sample"] = round(figures["read_all_files_rows_s"] / figures["sample_rows_s"], 2)
    figures["load_average"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    return figures


def main() -> dict:
    """Run, print and write the figures into docs/performance.md."""
    figures = run()
    table = _table(figures)
    print(table)
    write_table(DOCS / "performance.md", table, "offline")
    return figures


# -- measured work ------------------------------------------------------------
def _worker(**settings):
    from rlviz.rollout import RandomPolicy, RolloutWorker

    return RolloutWorker(ENV, RandomPolicy, rollout_fragment_length=FRAGMENT, seed=0, **settings)


def _sample_rate(out: str | None, batches: int, compress: tuple[str, ...] = ("obs", "new_obs")) -> float:
    worker = _worker(output=out, output_compress_columns=compress)
    worker.sample()                                   # warm up (first reset, first file)
    rows, start = 0, time.perf_counter()
    for _ in range(batches - 1):
        rows += worker.sample().count
    took = time.perf_counter() - start
    worker.stop()
    return rows / took


def _read_all_rate(out: str) -> float:
    from rlviz.rollout.offline import JsonReader

    reader = JsonReader(out)
    rows, start = 0, time.perf_counter()
    for batch in reader.read_all_files():
        rows += batch.count
    return rows / (time.perf_counter() - start)


def _reader_worker_rate(out: str, batches: int) -> float:
    worker = _worker(input=out)
    rows, start = 0, time.perf_counter()
    for _ in range(batches):
        rows += worker.sample().count
    took = time.perf_counter() - start
    worker.stop()
    return rows / took


def _table(f: dict) -> str:
    rows = ["| CartPole-v1, RandomPolicy, batches of 200 rows | rows/s |", "|---|---:|",
            f"| `sample()`, no output | {f['sample_rows_s']:,} |",
            f"| `sample()` with `output=<dir>` (obs, new_obs compressed) | {f['sample_and_write_rows_s']:,} |",
            f"| `sample()` with `output=<dir>`, nothing compressed | {f['sample_and_write_uncompressed_rows_s']:,} |",
            f"| `JsonReader.read_all_files()` over that file | **{f['read_all_files_rows_s']:,}** |",
            f"| the same, file written uncompressed | {f['read_all_files_uncompressed_rows_s']:,} |",
            f"| a worker with `input=<dir>`: its `sample()` | {f['reader_worker_rows_s']:,} |",
            f"| the same, file written uncompressed | {f['reader_worker_uncompressed_rows_s']:,} |"]
    notes = ["", f"- reading back / sampling: **{f['read_over_sample']}x**",
             f"- file size: {f['bytes_per_row']} bytes per row compressed, "
             f"{f['bytes_per_row_uncompressed']} uncompressed",
             f"- medians of {REPEATS} interleaved repeats of {BATCHES} batches, one process, load average "
             f"{f['load_average'][0]} at the start and {f['load_average'][1]} at the end on {os.cpu_count()} cores."]
    return "\n".join(rows + notes)


if __name__ == "__main__":
    main()
