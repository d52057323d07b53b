"""Demo: a ParallelIterator pipeline over remote shards, recorded and explained.

Two shard actors square numbers remotely; the driver gathers them in strict
round robin, batches them and unions that stream with a second, async-gathered
one under round-robin weights.  Everything is recorded, summarised, and
written as an rlviz trace, a Chrome/Perfetto trace and an HTML report.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rlviz.demos import wrote_list

__all__ = ["PipelineDemoConfig", "run"]


@dataclass
class PipelineDemoConfig:
    """Settings of the pipeline demo."""

    items: int = 40
    """How many numbers each source produces."""
    num_shards: int = 2
    """Shard actors per ParallelIterator."""
    weights: tuple = (2, 1)
    """Round-robin weights of the union (sync stream, async stream)."""
    out_dir: str = "rlviz-out"
    """Folder for the trace files and the report."""
    address: str | None = None
    """Ray cluster to join; None starts an embedded local Ray."""


def run(config: PipelineDemoConfig) -> dict:
    """Run the demo; return the paths written and the trace."""
    import rlviz
    from rlviz.iter import from_range

    rlviz.init(address=config.address)
    # ---------------------------------------------------------------- THE LESSON
    squares = from_range(config.items, num_shards=config.num_shards).for_each(lambda x: x * x)
    in_order = squares.gather_sync().batch(4)
    as_ready = from_range(config.items, num_shards=config.num_shards).for_each(lambda x: -x).gather_async()
    merged = in_order.union(as_ready, round_robin_weights=list(config.weights))
    print(f"plan: {merged}\n")
    started = time.perf_counter()
    with rlviz.record() as trace:
        produced = sum(1 for _ in merged)
    elapsed = time.perf_counter() - started
    # ------------------------------------------------------------- TRY NOT TO MODIFY
    print(f"{produced} items in {elapsed:.2f} s\n")
    print(trace.summary())
    return {"trace": trace, **_write_outputs(trace, Path(config.out_dir))}


def _write_outputs(trace, out_dir: Path) -> dict:
    """Write the rlviz trace, the Chrome trace and the HTML report; print where."""
    from rlviz.viz.report import write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"trace_file": out_dir / "pipeline.rlviz", "chrome_json": out_dir / "pipeline.chrome.json.gz",
             "report_html": out_dir / "pipeline.report.html"}
    trace.save(paths["trace_file"])
    trace.to_chrome(paths["chrome_json"])
    write_report(trace, paths["report_html"], title="rlviz pipeline demo")
    print("\n" + wrote_list(out_dir, [
        (paths["trace_file"], "rlviz trace (rlviz.Trace.load)"),
        (paths["chrome_json"], "open in https://ui.perfetto.dev or chrome://tracing"),
        (paths["report_html"], "self-contained HTML report: the interactive Explorer, then the printable views")]))
    return paths
