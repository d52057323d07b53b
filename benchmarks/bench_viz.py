"""Benchmark of the views: timeline and graph drawing time and memory, against plain matplotlib.

Run ``python -m benchmarks.bench_viz`` (``--images`` also redraws the pictures
in docs/images).  Uses synthetic traces from ``rlviz.viz.examples``, so it
needs no Ray; must not import ray unless ``--images`` finds rlviz.iter.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.docs_table import DOCS, write_table  # noqa: E402
from rlviz.viz import plot_graph, plot_order, plot_timeline  # noqa: E402
from rlviz.viz.examples import apex_nodes, concurrently_trace, large_trace, sharded_trace  # noqa: E402

__all__ = ["run", "main"]

EVENTS = 100_000
REPEATS = 5
DPI = 100


def run(events: int = EVENTS, repeats: int = REPEATS) -> dict:
    """Time (median of ``repeats``) and peak memory of the views against plain matplotlib.

    Parameters
    ----------
    events : int, default 100_000
        Events in the synthetic trace drawn by ``plot_timeline``.
    repeats : int, default 5
        Timed runs per measurement; the median is reported.

    Returns
    -------
    dict
        Seconds (``timeline_s``, ``baseline_s``, ``graph_s``), their ratios
        (targets: timeline/baseline <= 1.5, graph/timeline <= 0.3) and peak
        traced memory in MB while drawing and saving.
    """
    trace = large_trace(events)
    size = _timeline_png(trace)[1]
    nodes = apex_nodes()
    timeline, baseline, graph = [], [], []
    for _ in range(repeats):            # interleaved, so load from other processes hits all three
        timeline.append(_timed(_timeline_png, trace))
        baseline.append(_timed(_baseline_png, events, size))
        graph.append(_timed(_graph_png, nodes))
    result = {
        "events": events, "repeats": repeats, "png_inches": [round(float(v), 2) for v in size],
        "graph_nodes": len(nodes),
        "timeline_s": statistics.median(timeline), "baseline_s": statistics.median(baseline),
        "graph_s": statistics.median(graph),
        "timeline_peak_mb": _peak_mb(_timeline_png, trace),
        "baseline_peak_mb": _peak_mb(_baseline_png, events, size),
        "graph_peak_mb": _peak_mb(_graph_png, nodes),
    }
    result["timeline_vs_baseline"] = result["timeline_s"] / result["baseline_s"]
    result["graph_vs_timeline"] = result["graph_s"] / result["timeline_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print it, and write the table into docs/views.md.

    Parameters
    ----------
    argv : list of str, optional
        ``--images`` also redraws docs/images; ``--no-docs`` skips the page update.

    Returns
    -------
    int
        0.
    """
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_viz")
    parser.add_argument("--images", action="store_true", help="redraw the pictures in docs/images")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/views.md")
    args = parser.parse_args(argv)
    if args.images:
        for path in write_images(DOCS / "images"):
            print("wrote", path)
    result = run()
    table = _table(result)
    print(table)
    if not args.no_docs:
        write_table(DOCS / "views.md", table)
    return 0


def write_images(folder: Path) -> list[Path]:
    """Draw the pictures used by docs/views.md (a real 2-shard run when rlviz.iter and Ray work)."""
    folder.mkdir(parents=True, exist_ok=True)
    real = _real_trace()
    conc = concurrently_trace((1, 2), rounds=12, warmup=3)
    apex = apex_nodes()
    drawings = {
        "graph_plan.png": lambda: plot_graph(apex),
        "graph_trace.png": lambda: plot_graph(real if real is not None else sharded_trace()),
        "graph_concurrently.png": lambda: plot_graph(conc),
        "timeline_run.png": lambda: plot_timeline(real if real is not None else sharded_trace()),
        "timeline_concurrently.png": lambda: plot_timeline(conc),
        "timeline_large.png": lambda: plot_timeline(large_trace(EVENTS)),
        "timeline_window.png": lambda: plot_timeline(large_trace(EVENTS), window=(500, 520)),
        "order_concurrently.png": lambda: plot_order(conc, ops=["store", "train"], weights=[1, 2]),
    }
    written = []
    for name, draw in drawings.items():
        ax = draw()
        ax.figure.savefig(folder / name, dpi=DPI, metadata={"Software": None})
        plt.close(ax.figure)
        written.append(folder / name)
    return written


# -- measured work ----------------------------------------------------------
def _timeline_png(trace) -> tuple[int, np.ndarray]:
    ax = plot_timeline(trace)
    size = ax.figure.get_size_inches()
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=DPI)
    plt.close(ax.figure)
    return buffer.tell(), size


def _baseline_png(events: int, size) -> tuple[int, None]:
    """Plain matplotlib: ``events`` random rectangles as one PolyCollection, same PNG size."""
    from matplotlib.collections import PolyCollection

    rng = np.random.default_rng(1)
    x = np.sort(rng.random(events)) * 2000
    w = rng.random(events) * 0.4
    y = rng.integers(0, 17, events).astype(float)
    verts = np.empty((events, 4, 2))
    verts[:, 0, 0] = verts[:, 3, 0] = x
    verts[:, 1, 0] = verts[:, 2, 0] = x + w
    verts[:, 0, 1] = verts[:, 1, 1] = y - 0.4
    verts[:, 2, 1] = verts[:, 3, 1] = y + 0.4
    fig, ax = plt.subplots(figsize=size)
    colors = plt.get_cmap("tab10")(y.astype(int) % 10)
    ax.add_collection(PolyCollection(verts, facecolors=colors, linewidths=0))
    ax.autoscale_view()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    plt.close(fig)
    return buffer.tell(), None


def _graph_png(nodes) -> tuple[int, None]:
    ax = plot_graph(nodes)
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=DPI)
    plt.close(ax.figure)
    return buffer.tell(), None


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _peak_mb(fn, *args) -> float:
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _real_trace():
    """A trace of from_range(...).for_each().gather_sync() on 2 shards, or None without rlviz.iter."""
    try:
        import rlviz
        from rlviz.iter import from_range
    except ImportError:
        return None
    rlviz.init(num_cpus=4)
    with rlviz.record() as trace:
        from_range(16, num_shards=2).for_each(lambda x: x * 2).gather_sync().batch(4).take(4)
    return trace


def _table(r: dict) -> str:
    inches = "x".join(f"{v:g}" for v in r["png_inches"])
    return "\n".join([
        f"| measurement (median of {r['repeats']}, PNG at {DPI} dpi) | seconds | peak MB | ratio | target |",
        "|---|---:|---:|---:|---|",
        f"| `plot_timeline`, {r['events']:,} events, {inches} in PNG | {r['timeline_s']:.3f} | "
        f"{r['timeline_peak_mb']:.0f} | {r['timeline_vs_baseline']:.2f}x baseline | <= 1.5x |",
        f"| baseline: matplotlib, {r['events']:,} rectangles in one PolyCollection, same PNG size | "
        f"{r['baseline_s']:.3f} | {r['baseline_peak_mb']:.0f} | 1.00x | |",
        f"| `plot_graph`, {r['graph_nodes']}-node plan | {r['graph_s']:.3f} | {r['graph_peak_mb']:.1f} | "
        f"{r['graph_vs_timeline']:.2f}x timeline | <= 0.3x |",
    ])


if __name__ == "__main__":
    sys.exit(main())
