"""Benchmark of a real long run: DQN trained for ``--minutes`` (default 30), recorded with ``record(spill=...)``.

Run ``python -m benchmarks.bench_dqn_long [--minutes M] [--baseline-minutes B] [--capacity N] [--out DIR]
[--no-docs]``, or ``--trace FILE`` to measure again a trace recorded earlier (with a newer writer, say)
without training again.

The run is ``make demo``'s: DQN on CartPole-v1 with two remote rollout
workers on an embedded Ray.  The same trainer first trains for
``--baseline-minutes`` (default 3) with recording off, then ``train()`` is
called until ``--minutes`` are up inside ``record(spill=...)``.  The trace in
memory at the end is saved (``Trace.save``) beside the spill file, with the
run's own figures in ``<trace>.run.json``.  Reported:

* events: in memory, spilled (evicted into the spill file, which also gets
  the held ones at the block's end), and lost (evicted but not spilled);
  events per second of recording;
* the driver's arrays per event held, every copy counted: the store's
  (``TraceStore.memory()``, one line per array: columns, links, decisions,
  gauges, pyramid, index), the driver recorder's and the mirrors' rows
  (``Recorder.nbytes``, ``RecorderMirror.nbytes``), read just before the
  block ends;
* the driver's RSS: its peak growth during the block (sampled every 0.2 s)
  over its RSS when the block started counts every copy, but also what
  training itself grows in the driver (the replay buffer fills in the first
  minutes).  Recording's share is that growth minus training's own, which
  the baseline measures in the same process: the slope of RSS (a least
  squares line) over the second half of the baseline, when the replay
  buffer has filled as it has during the block, times the block's
  duration.  The peak is read twice: before the block's exit (what
  recording holds while it runs) and after it (the exit also builds the
  frozen ``Trace`` the block yields: one more copy of every event);
* the driver's RSS per event held at the margin: while the store still
  grows (before the first eviction), over the second half of that time, the
  slope of RSS (training's growth taken out) against the events held, which
  leaves out recording's fixed costs;
* bytes per event of the saved trace, of the spill file, and of the saved
  HTML page (``rlviz.viz.write_html`` of the saved trace, with the writer of
  the rlviz that runs this; the time it took too).

Re-measuring with ``--trace`` reads ``<trace>.run.json`` for the run's
figures and measures the files again.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.docs_table import DOCS, write_table

__all__ = ["record_run", "measure_files", "main", "TARGET_HTML_BYTES_PER_EVENT", "TARGET_KERNEL_BYTES_PER_EVENT"]

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "dqn_long"
#: Issue 30's targets: saved HTML size, and the driver's memory for the events it holds.
TARGET_HTML_BYTES_PER_EVENT = 15
TARGET_KERNEL_BYTES_PER_EVENT = 60
_PAGE = os.sysconf("SC_PAGE_SIZE")


class _PeakRss:
    """Samples this process's resident set size in a thread; ``peak`` is the highest seen since ``start``.

    With ``held`` (a function giving the events held now and how many were
    evicted so far), each sample also notes them, for ``bytes_per_event_held``.
    """

    def __init__(self, every_s: float = 0.2, held: Callable[[], tuple[int, int]] = lambda: (0, 0)) -> None:
        self.every_s = every_s
        self.held = held
        self.start_bytes = self.peak = _rss()
        self.samples: list[tuple[float, int, tuple[int, int]]] = [(time.perf_counter(), self.start_bytes, held())]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-rss", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            rss = _rss()
            self.samples.append((time.perf_counter(), rss, self.held()))
            self.peak = max(self.peak, rss)

    def late_slope(self) -> float:
        """RSS growth in bytes per second over the second half of the samples (a least squares line)."""
        late = self.samples[len(self.samples) // 2:]
        return _slope([when for when, _, _ in late], [rss for _, rss, _ in late])

    def bytes_per_event_held(self, training_bytes_per_s: float) -> float | None:
        """RSS per event held while the store still grows: the slope of a least squares line of RSS, less
        training's own growth (``training_bytes_per_s`` times the time), against the events held, over the second
        half of the samples taken before the first eviction (None if there are too few).

        What one more event costs, whatever the fixed costs of recording
        (threads, tables, the first arrays): the figure a 10M-event run tends to.
        """
        growing = [sample for sample in self.samples if sample[2][1] == 0]
        late = growing[len(growing) // 2:]
        if len(late) < 10:
            return None
        return _slope([held for _, _, (held, _) in late],
                      [rss - training_bytes_per_s * (when - late[0][0]) for when, rss, _ in late])

    def stop(self) -> int:
        """Stop sampling (one last sample first); the peak growth in bytes."""
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())
        return self.peak - self.start_bytes


def _slope(x: list[float], y: list[float]) -> float:
    """The slope of the least squares line through the points ``(x, y)`` (0 if ``x`` does not vary)."""
    if len(x) < 2:
        return 0.0
    mean_x, mean_y = sum(x) / len(x), sum(y) / len(y)
    spread = sum((value - mean_x) ** 2 for value in x)
    return sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y)) / spread if spread else 0.0


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


def record_run(minutes: float, out: Path, capacity: int | None = None, workers: int = 2,
               baseline_minutes: float = 3.0) -> Path:
    """Train DQN for ``baseline_minutes`` unrecorded, then for ``minutes`` inside ``record(spill=...)``; save the
    trace; return its path.

    Writes ``out/dqn_long.rlviz`` (the trace in memory at the end),
    ``out/dqn_long.spill.rlviz`` (what the buffers evicted) and
    ``out/dqn_long.rlviz.run.json`` (the run's figures).  Earlier files of
    those names are replaced.
    """
    import rlviz
    from rlviz.plans import Trainer

    out.mkdir(parents=True, exist_ok=True)
    trace_path, spill_path = out / "dqn_long.rlviz", out / "dqn_long.spill.rlviz"
    spill_path.unlink(missing_ok=True)                 # a spill never overwrites
    rlviz.init()
    trainer = Trainer("dqn", env="CartPole-v1", num_workers=workers,
                      config={"seed": 0, "timesteps_per_iteration": 1000})
    calls, last = 0, {}
    try:
        baseline = _PeakRss()
        while time.perf_counter() - baseline.samples[0][0] < baseline_minutes * 60:
            trainer.train()
        baseline_growth = baseline.stop()
        store: list = []
        memory = _PeakRss(held=lambda: (len(store[0]), store[0].dropped) if store else (0, 0))
        started = time.perf_counter()
        with rlviz.record(capacity=capacity, spill=spill_path) as recorded:
            store.append(recorded.store)
            while time.perf_counter() - started < minutes * 60:
                last = trainer.train()
                calls += 1
            recorded.pull()
            held = _held_in_driver(recorded.store)
            growth_in_block = memory.peak - memory.start_bytes
        seconds = time.perf_counter() - started
        growth = memory.stop()
    finally:
        trainer.stop()
    trace = recorded.snapshot()
    store_bytes = recorded.store.nbytes
    trace.save(trace_path)
    from rlviz.trace import Trace
    in_file = Trace.load(spill_path).columns.events       # the whole run: the evicted events and the held rest
    spilled = in_file - len(trace)
    run = {"minutes": minutes, "seconds": round(seconds, 1), "train_calls": calls, "workers": workers,
           "capacity": capacity, "in_memory": len(trace), "spilled": spilled, "in_spill_file": in_file,
           "dropped": trace.dropped, "lost": max(trace.dropped - spilled, 0),
           "rss_start_bytes": memory.start_bytes, "rss_peak_growth_bytes": growth, "store_bytes": store_bytes,
           "rss_peak_growth_in_block_bytes": growth_in_block, "baseline_minutes": baseline_minutes,
           "baseline_rss_growth_bytes": baseline_growth, "training_rss_bytes_per_s": baseline.late_slope(),
           "rss_bytes_per_event_held_late": memory.bytes_per_event_held(max(baseline.late_slope(), 0.0)),
           **held, "gauge_readings": sum(len(g) for g in trace.gauges.values()), "links": len(trace.links()[0]),
           "decisions": len(trace.decisions) if trace.decisions is not None else 0,
           "sampled_steps": last.get("timesteps_total"), "trained_steps": last.get("num_steps_trained"),
           "return": last.get("episode_reward_mean"), "spill": spill_path.name,
           "ended": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "load_average": list(os.getloadavg())}
    Path(f"{trace_path}.run.json").write_text(json.dumps(run, indent=1))
    return trace_path


def _held_in_driver(store) -> dict:
    """What the driver holds for the block now: the store's arrays one by one, its recorder's and mirrors' rows."""
    from rlviz.iter.actors import COLLECTOR
    from rlviz.trace import get_recorder

    with COLLECTOR.lock:
        mirrors = sum(mirror.nbytes for mirror in COLLECTOR.mirrors.values())
    return {"store_memory": store.memory(), "recorder_bytes": get_recorder().nbytes, "mirror_bytes": mirrors,
            "store_held": len(store)}


def measure_files(trace_path: Path) -> dict:
    """The run's figures (``<trace>.run.json``) plus the files' sizes per event and a fresh saved HTML page.

    Raises
    ------
    FileNotFoundError
        If ``trace_path`` or its ``.run.json`` is missing (record a run first, without ``--trace``).
    """
    from rlviz.trace import Trace
    from rlviz.viz import write_html

    run_file = Path(f"{trace_path}.run.json")
    if not trace_path.exists() or not run_file.exists():
        raise FileNotFoundError(f"{trace_path} or {run_file.name} is missing: record a run first "
                                f"(python -m benchmarks.bench_dqn_long without --trace)")
    run = json.loads(run_file.read_text())
    spill_path = trace_path.parent / run["spill"]
    trace = Trace.load(trace_path)
    html_path = trace_path.with_suffix(".html")
    started = time.perf_counter()
    write_html(trace, html_path)
    html_s = time.perf_counter() - started
    total = run["in_memory"] + run["spilled"] + run["lost"]
    return {**run, **_recording_share(run), "events": total, "events_per_s": total / run["seconds"],
            "kernel_bytes_per_event": run["rss_peak_growth_bytes"] / max(total, 1),
            "store_bytes_per_event": run["store_bytes"] / max(run["in_memory"], 1),
            "trace_bytes_per_event": trace_path.stat().st_size / max(len(trace), 1),
            "spill_bytes_per_event": _spill_bytes_per_event(spill_path, run),
            "html_bytes_per_event": html_path.stat().st_size / max(len(trace), 1), "html_s": html_s,
            "html_bytes": html_path.stat().st_size}


def _spill_bytes_per_event(spill_path: Path, run: dict) -> float | None:
    """The spill file's bytes per event it holds (runs recorded before it held the whole run: the evicted ones)."""
    in_file = run.get("in_spill_file", run["spilled"])
    return spill_path.stat().st_size / in_file if in_file else None


def _recording_share(run: dict) -> dict:
    """The driver's bytes per event held: its arrays (every copy) and recording's share of its RSS growth.

    Empty for a run recorded before the baseline existed.
    """
    if "store_memory" not in run:
        return {}
    held = max(run["store_held"], 1)
    training = max(run["training_rss_bytes_per_s"], 0.0) * run["seconds"]
    arrays = sum(run["store_memory"].values()) + run["recorder_bytes"] + run["mirror_bytes"]
    return {"arrays_bytes_per_event": arrays / held,
            "breakdown_bytes_per_event": {**{name: size / held for name, size in run["store_memory"].items()},
                                          "recorder rows": run["recorder_bytes"] / held,
                                          "mirror rows": run["mirror_bytes"] / held},
            "training_rss_in_block_bytes": training,
            "recording_rss_bytes_per_event": (run["rss_peak_growth_in_block_bytes"] - training) / held,
            "recording_rss_with_view_bytes_per_event": (run["rss_peak_growth_bytes"] - training) / held}


def _table(result: dict, remeasured: bool) -> str:
    load = os.getloadavg()
    run_load = result["load_average"]
    when = f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}"
    lines = [f"Run of {result['minutes']:g} min ended {result['ended'][:16].replace('T', ' ')} UTC "
             f"(load average then {run_load[0]:.2f} / {run_load[1]:.2f} / {run_load[2]:.2f}); files measured "
             f"{when} UTC{' again, with this writer' if remeasured else ''} on {os.cpu_count()} CPUs, load average "
             f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min). {result['train_calls']} train() "
             f"calls, {result['sampled_steps']:,} steps sampled, {result['trained_steps']:,} trained, mean return "
             f"{result['return']:.1f}; capacity {result['capacity'] or 'default'}.", "",
             "| measure | value | target |", "|---|---|---|",
             f"| events recorded: in memory / spilled / lost | {result['in_memory']:,} / {result['spilled']:,} / "
             f"{result['lost']:,} | |",
             f"| events per second of recording | {result['events_per_s']:,.0f} | |",
             f"| driver peak RSS growth per event recorded (upper bound: training grows too) | "
             f"{result['kernel_bytes_per_event']:.1f} | |",
             f"| the store's arrays per event held | {result['store_bytes_per_event']:.1f} | |"]
    if "arrays_bytes_per_event" in result:
        lines += [f"| the driver's arrays per event held, every copy (store, recorder, mirrors) | "
                  f"{result['arrays_bytes_per_event']:.1f} | ≤ {TARGET_KERNEL_BYTES_PER_EVENT} |",
                  f"| recording's share of the driver's RSS growth per event held, before the block's exit: "
                  f"peak growth {result['rss_peak_growth_in_block_bytes'] / 2**20:.0f} MiB minus training's "
                  f"{result['training_rss_in_block_bytes'] / 2**20:.0f} MiB (baseline: "
                  f"{result['training_rss_bytes_per_s'] / 2**10:.1f} KiB/s over {result['baseline_minutes']:g} min "
                  f"unrecorded) | {result['recording_rss_bytes_per_event']:.1f} | "
                  f"≤ {TARGET_KERNEL_BYTES_PER_EVENT} |",
                  f"| the same after the exit, which builds the block's `Trace` (one more copy) | "
                  f"{result['recording_rss_with_view_bytes_per_event']:.1f} | |"]
    if result.get("rss_bytes_per_event_held_late") is not None:
        lines.append(f"| RSS per event held, at the margin: slope of the driver's RSS (training's growth taken out) "
                     f"against the events held, over the second half of the block before its first eviction | "
                     f"{result['rss_bytes_per_event_held_late']:.1f} | |")
    lines.append(f"| saved trace (`Trace.save`), bytes per event | {result['trace_bytes_per_event']:.1f} | |")
    spill = result["spill_bytes_per_event"]
    lines.append(f"| spill file, bytes per event | {'n/a (nothing spilled)' if spill is None else f'{spill:.1f}'} | |")
    lines.append(f"| saved HTML (`write_html` of the saved trace), bytes per event; written in "
                 f"{result['html_s']:.1f} s | {result['html_bytes_per_event']:.1f} | "
                 f"≤ {TARGET_HTML_BYTES_PER_EVENT} |")
    if "breakdown_bytes_per_event" in result:
        lines += ["", f"The driver's arrays at the block's end, bytes per event held ({result['store_held']:,} events, "
                      f"{result['links']:,} links, {result['decisions']:,} decisions, {result['gauge_readings']:,} "
                      f"gauge readings):", "", "| array | bytes per event held |", "|---|---|"]
        lines += [f"| {name} | {size:.2f} |" for name, size in result["breakdown_bytes_per_event"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    """Record (or, with ``--trace``, re-measure), print the figures, write the table into docs/performance.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to train and record (default 30)")
    parser.add_argument("--baseline-minutes", type=float, default=3.0,
                        help="how long to train unrecorded first, to measure training's own RSS growth (default 3)")
    parser.add_argument("--capacity", type=int, default=None, help="record()'s capacity (default: its default)")
    parser.add_argument("--workers", type=int, default=2, help="remote rollout workers (default 2)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the files (default {OUT})")
    parser.add_argument("--trace", type=Path, default=None,
                        help="measure this saved trace (and its .run.json) again instead of recording")
    parser.add_argument("--no-docs", action="store_true", help="do not write the table into docs/performance.md")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.minutes <= 0 or args.baseline_minutes <= 0:
        parser.error(f"--minutes and --baseline-minutes must be positive, got {args.minutes}, {args.baseline_minutes}")
    trace_path = args.trace or record_run(args.minutes, args.out, args.capacity, args.workers, args.baseline_minutes)
    result = measure_files(trace_path)
    print(json.dumps(result, indent=1))
    table = _table(result, remeasured=args.trace is not None)
    print(table)
    if not args.no_docs:
        write_table(DOCS / "performance.md", table, "dqn_long")
    return result


if __name__ == "__main__":
    main()
