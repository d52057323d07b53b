"""Issue 45's "Numbers" table in one run: each measure, its target, the figure measured now, and whether it passes.

``python -m benchmarks bench_issue45`` (``make bench`` runs it too) or ``python -m benchmarks.bench_issue45
[--events N]``; ``RLVIZ_BENCH_EVENTS`` sets the largest size when no argument does (default 10,000,000; 1,000,000
is a quick run).  The traces are ``benchmarks.synthetic.pipeline_trace`` with timestamps spanning 3 hours (nothing
waits 3 hours) and the hard shape: 64 lanes, a distinct item and a link per event.  Each row reuses the benchmark
that owns the measure: ``bench_long_page.run`` (saved page in chromium: bytes per event, first frame, heap; and the
notebook's ``TraceView`` in JupyterLab: first frame from the Shift+Enter that runs its cell),
``bench_format.measure`` (file bytes per event against version 4, load to the first query), ``bench_live.run``
(kernel refresh at the largest size held against 10,000 held), ``bench_watched_run.run`` (the watched-run rows: a
synthetic plan through ``rlviz.watch`` in JupyterLab, the page following it in chromium: its heap after the first
million events, its median frame, and event-to-page latency; ``--watched-events``, by default the largest size, 0
skips it).  The latency row is the watched run's (event end to the page's ``rlviz:append`` carrying it); only when
the watched run is skipped is it ``bench_live``'s (event end to the kernel's send of the chunk carrying it, no page).
Driver bytes per event held: a ``Recorder`` filled with a two-op chain's events and taken into a ``TraceStore``,
both ``nbytes`` over the events.  The real DQN run's saved page: ``bench_dqn_long.record_run`` (``make demo``'s
DQN on CartPole-v1, two remote workers, recorded for ``--dqn-minutes``, 0 to skip) and ``measure_files``.
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks import bench_dqn_long, bench_format, bench_live, bench_long_page, bench_watched_run
from benchmarks.synthetic import pipeline_trace
from rlviz.trace import Node, Recorder
from rlviz.trace.recorder import ExportCursor
from rlviz.trace.rows import ITEM
from rlviz.trace.store import TraceStore
from rlviz.viz.explorer_html import explorer_html

__all__ = ["Row", "run", "rows", "table", "main"]

DEFAULT_EVENTS = 10_000_000
LANES = 64
HOURS = 3.0
SMALL_HELD = 10_000
#: Minutes the real DQN run is recorded for its saved page (about 1,500 events a second here).
DQN_MINUTES = 5.0


@dataclass(frozen=True)
class Row:
    """One line of the table: what is measured, its target (``limit`` is the most the figure may be), the figure."""

    measure: str
    limit: float
    measured: float | None

    @property
    def passed(self) -> bool | None:
        """Whether the figure meets its target; None when it was not measured."""
        return None if self.measured is None else self.measured <= self.limit


def sizes(largest: int) -> list[int]:
    """The synthetic sizes of the bytes-per-event rows: 100k, 1M, 10M, those up to ``largest`` (at least one)."""
    return [n for n in (100_000, 1_000_000, 10_000_000) if n <= largest] or [largest]


def run(events: int = DEFAULT_EVENTS, browser_runs: int = 1, latency: bool = True, notebook: bool = True,
        dqn_minutes: float = DQN_MINUTES, watched_events: int | None = None) -> dict:
    """Measure every row at ``events`` (the largest size) and return the figures by name.

    ``latency``: bench_live's run through ``rlviz.watch``, on Ray; ``notebook``: the TraceView in JupyterLab;
    ``dqn_minutes``: the real DQN run (0: not run); ``watched_events``: the watched run's size (None: ``events``;
    0: not run, its rows not measured).
    """
    watched_events = events if watched_events is None else watched_events
    figures: dict = {"events": events, "lanes": LANES, "hours": HOURS, "load_average": list(os.getloadavg()),
                     "watched_events": watched_events}
    for n in sizes(events)[:-1]:
        figures[f"html_bytes_per_event_{n}"] = len(explorer_html(pipeline_trace(n, LANES, HOURS * 3600))
                                                   .encode("utf-8")) / n
    page = bench_long_page.run(events, LANES, HOURS, runs=browser_runs, notebook=notebook)
    figures[f"html_bytes_per_event_{events}"] = page["bytes_per_event"]
    figures.update(saved_first_frame_s=page["first_frame_s"], saved_heap_mb=page["heap_mb"],
                   kernel_first_s=page["kernel_first_s"], notebook_first_frame_s=page.get("lab_pressed_frame_s"))
    with tempfile.TemporaryDirectory(prefix="rlviz-issue45-") as folder:
        fmt = bench_format.measure(pipeline_trace(events, LANES, HOURS * 3600), Path(folder), "issue45")
    figures.update(file_v5_over_v4=fmt["v5_over_v4"], load_to_first_query_s=fmt["v5_load_to_first_query_s"])
    live = bench_live.run((SMALL_HELD, events), repeats=3, ray=latency, page=False)
    figures["refresh_ratio"] = live["refresh_ratio"]
    figures["latency_median_s"] = live.get("latency_median_s")
    if dqn_minutes:
        figures.update(dqn_html(dqn_minutes))
    if watched_events:
        figures.update(watched_rows(bench_watched_run.run(watched_events, hours=HOURS)))
    figures.update(held_bytes(min(events, 1_000_000)))
    figures["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                       text=True, capture_output=True).stdout.strip()
    return figures


def watched_rows(watched: dict) -> dict:
    """The watched run's figures for its rows, when its page got every event of the burst; otherwise none (the rows
    stay "not measured": they would describe a smaller run), the run's figures kept under ``watched`` either way."""
    if watched["page_events"] < watched["burst_events"]:
        return {"watched": watched}
    return {"watched": watched, "live_heap_mb": watched["live_heap_mb"], "live_frame_ms": watched["live_frame_ms"],
            **({"latency_median_s": watched["latency_median_s"]} if "latency_median_s" in watched else {})}


def dqn_html(minutes: float) -> dict:
    """The saved page of a real run: DQN recorded for ``minutes`` (after a short unrecorded warm-up), its bytes per
    event and the events it holds."""
    import ray

    with tempfile.TemporaryDirectory(prefix="rlviz-issue45-dqn-") as folder:
        measured = bench_dqn_long.measure_files(bench_dqn_long.record_run(minutes, Path(folder), baseline_minutes=0.2))
    ray.shutdown()                   # the run started Ray its own way; what comes next starts it again as it needs
    return {"html_bytes_per_event_dqn": measured["html_bytes_per_event"], "dqn_events": measured["in_memory"]}


def held_bytes(count: int) -> dict:
    """Bytes per event the driver holds: a Recorder's rows, and a TraceStore's arrays after taking them."""
    recorder = Recorder(capacity=max(2 * count, 4096))
    source = recorder.register(Node("n1", "from_range", "from_range(n)"))
    consumer = recorder.register(Node("n2", "for_each", "x.for_each()", parents=("n1",)))
    for i in range(0, count, 2):
        made = recorder.record(source, 10 * i, 10 * i + 5, ITEM, i)
        recorder.record(consumer, 10 * i + 6, 10 * i + 9, ITEM, i, made)
    store = TraceStore()
    store.add_increment(recorder.export_since(ExportCursor()))
    return {"recorder_bytes_per_event": recorder.nbytes / count, "store_bytes_per_event": store.nbytes / count}


def rows(figures: dict) -> list[Row]:
    """The issue's rows, from ``run``'s figures (a figure missing from them is a row not measured)."""
    n = figures["events"]
    dqn = f" ({figures['dqn_events']:,} events)" if "dqn_events" in figures else ""
    html = [Row(f"saved HTML bytes/event, {k:,} synthetic events", 15, figures.get(f"html_bytes_per_event_{k}"))
            for k in sizes(n)]
    return [*html,
            Row(f"saved HTML bytes/event, a real DQN run{dqn}", 15, figures.get("html_bytes_per_event_dqn")),
            Row(f"watched run of {figures.get('watched_events') or n:,} events over 3 h: page heap (MB)", 300,
                figures.get("live_heap_mb")),
            Row("watched run: event-to-page latency, median (s)", 1.0, figures.get("latency_median_s")),
            Row("watched run: frame while following, median (ms)", 17, figures.get("live_frame_ms")),
            Row(f"kernel refresh cost, {n:,} held / {SMALL_HELD:,} held", 2, figures.get("refresh_ratio")),
            Row("notebook page: first frame (s)", 3, figures.get("notebook_first_frame_s")),
            Row("saved page: first frame (s)", 3, figures.get("saved_first_frame_s")),
            Row("saved page: JS heap (MB)", 300, figures.get("saved_heap_mb")),
            Row("trace file bytes/event, version 5 / version 4", 1.0, figures.get("file_v5_over_v4")),
            Row("Trace.load to the first query (s)", 1.0, figures.get("load_to_first_query_s")),
            Row("driver bytes per event held (store)", 50, figures.get("store_bytes_per_event")),
            Row("driver bytes per event held (recorder's rows)", 50, figures.get("recorder_bytes_per_event"))]


def table(figures: dict) -> str:
    """The markdown table: measure, target, measured, pass/fail; a header line says when, at what load, what size."""
    load = " / ".join(f"{v:.1f}" for v in figures["load_average"])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    lines = [f"Measured {when} UTC at commit {figures.get('commit', '?')}, {os.cpu_count()} CPUs, load average {load} "
             f"(1 / 5 / 15 min); largest size {figures['events']:,} events, {figures['lanes']} lanes over "
             f"{figures['hours']:g} h.", "", "| measure | target | measured | pass |", "|---|---|---|---|"]
    for row in rows(figures):
        shown = "not measured" if row.measured is None else f"{row.measured:.3g}"
        verdict = {None: "—", True: "pass", False: "**fail**"}[row.passed]
        lines.append(f"| {row.measure} | ≤ {row.limit:g} | {shown} | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    """Run at ``--events`` (or ``RLVIZ_BENCH_EVENTS``, or 10M), print the table, return the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=int(os.environ.get("RLVIZ_BENCH_EVENTS", DEFAULT_EVENTS)))
    parser.add_argument("--runs", type=int, default=1, help="browser runs of the saved page (median)")
    parser.add_argument("--no-ray", action="store_true", help="skip bench_live's latency run and the DQN run")
    parser.add_argument("--no-notebook", action="store_true", help="skip the TraceView in JupyterLab")
    parser.add_argument("--dqn-minutes", type=float, default=DQN_MINUTES, help="the real DQN run's minutes (0: skip)")
    parser.add_argument("--watched-events", type=int, default=None,
                        help="events of the watched run in JupyterLab (default: --events; 0 skips it)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    figures = run(args.events, args.runs, latency=not args.no_ray, notebook=not args.no_notebook,
                  dqn_minutes=0.0 if args.no_ray else args.dqn_minutes, watched_events=args.watched_events)
    print(table(figures))
    return figures


if __name__ == "__main__":
    main()
