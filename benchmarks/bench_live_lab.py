"""The live view as a person uses it: ``rlviz.watch`` of DQN in JupyterLab, the page open in chromium.

``python -m benchmarks.bench_live_lab`` (``--quick``: 20 s runs, one pair, a
2-minute memory run; ``--no-docs`` leaves docs/live.md alone).  Three figures,
same run, medians:

* throughput: env steps per second of DQN with 2 remote workers, watched for
  ``SECONDS`` with the ``LiveView`` shown in the page and refreshing, over the
  same watch not shown (same thread, same recording, no page): interleaved
  pairs, a fresh ``Trainer`` (seed 0) for each run;
* latency: for every event recorded on a remote worker during the shown runs,
  from its end (driver clock) to the end of the first model of the page's
  window that held it (the Explorer's ``rlviz:append`` performance measure names the event ids
  it carried); browser and kernel share the machine's clock;
* where the time goes: CPU seconds per process group (the kernel, Ray's
  workers, chromium, the Jupyter server, Ray's own services) over each run,
  from ``/proc``, and the page's main-thread task time (Chrome's
  ``Performance.getMetrics``) over each shown run;
* memory: a ``MEMORY_S`` watch with ``window_s=60``, shown: the kernel's
  resident memory and the page's JS heap (after a forced garbage collection)
  sampled every ``SAMPLE_S``; start, peak and end;
* frame times in JupyterLab: during that watch, ``FRAMES_S`` of
  ``requestAnimationFrame`` intervals after the first sample and again at the
  end (not during the throughput runs: a frame loop is work for the page).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main", "browser_harness", "cell_result", "event_lags", "rss_mb", "CpuMeter", "APPENDS", "FRAMES"]

REPO = Path(__file__).resolve().parent.parent
SECONDS = 60
PAIRS = 5
MEMORY_S = 600
SAMPLE_S = 30
FRAMES_S = 10
WINDOW_S = 60
SHOTS = REPO / "benchmarks" / "results" / "live_lab"

SETUP = """import json, os, time
import numpy as np
import rlviz
rlviz.init(num_cpus=8)

def trainer():
    return rlviz.Trainer("dqn", env="CartPole-v1", num_workers=2, config={{"seed": 0, "timesteps_per_iteration": 1000}})

open({pid_file!r}, "w").write(str(os.getpid()))
print("ready")"""

HIDDEN = """t = trainer()
started = time.perf_counter()
live = rlviz.watch(t, seconds={seconds})
live.join()
rate = t.last_result["timesteps_total"] / (time.perf_counter() - started)
t.stop()
print("RESULT", json.dumps({{"steps_s": rate, "error": live.error}}))"""

SHOWN = """t = trainer()
started = time.perf_counter()
live = rlviz.watch(t, seconds={seconds}, window_s={window_s})
live"""

SHOWN_END = """live.join()
rate = t.last_result["timesteps_total"] / (time.perf_counter() - started)
t.stop()
trace = live.trace
remote = np.array([node.where != "driver" for node in trace.nodes])[trace.columns["node"]]
np.savez({events_file!r}, ids=trace.event_ids[remote], end_ns=trace.columns["end_ns"][remote])
print("RESULT", json.dumps({{"steps_s": rate, "error": live.error, "remote_events": int(remote.sum())}}))"""

STOP = """live.stop()
t.stop()
import ray
ray.shutdown()
print("stopped")"""

APPENDS = """() => performance.getEntriesByName('rlviz:append').map(
    (e) => [performance.timeOrigin + e.startTime + e.duration, e.detail.first_id, e.detail.count])"""


FRAMES = """(seconds) => new Promise((done) => {
  const frames = [];
  let last = performance.now();
  const stopAt = last + 1000 * seconds;
  const frame = (now) => {
    frames.push(now - last);
    last = now;
    if (now < stopAt) requestAnimationFrame(frame); else done(frames.slice(1));
  };
  requestAnimationFrame(frame);
})"""

SCRIPT_S = """() => ['rlviz:append', 'rlviz:draw'].map(
    (name) => performance.getEntriesByName(name).reduce((total, e) => total + e.duration, 0) / 1000)"""


def run(seconds: int = SECONDS, pairs: int = PAIRS, memory_s: int = MEMORY_S) -> dict:
    """Measure in a loopback JupyterLab and headless chromium; return the figures."""
    harness = browser_harness()
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"rlviz-live-lab-{os.getpid()}"
    root = folder / "lab"
    root.mkdir(parents=True)
    pid_file, events_file = str(folder / "kernel.pid"), str(folder / "events.npz")
    harness.write_notebook(root / "watch.ipynb", [
        SETUP.format(pid_file=pid_file), HIDDEN.format(seconds=seconds),
        SHOWN.format(seconds=seconds, window_s=None), SHOWN_END.format(events_file=events_file),
        SHOWN.format(seconds=memory_s, window_s=WINDOW_S), STOP])
    figures: dict = {"load_before": os.getloadavg()[0], "seconds": seconds, "pairs": pairs}
    with harness.jupyter_lab(root, folder) as url, harness.chromium(["--enable-precise-memory-info"]) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.set_default_timeout(300_000)
        cdp = page.context.new_cdp_session(page)
        harness.open_notebook(page, url, "watch.ipynb")
        cell_result(harness.run_cell(page, 0, timeout_ms=300_000))
        cdp.send("Performance.enable")
        kernel_pid = int(Path(pid_file).read_text())
        hidden, shown, lags, cpu_hidden, cpu_shown, page_task_s, page_script_s = [], [], [], [], [], [], []
        for _ in range(pairs):
            with CpuMeter(kernel_pid) as meter:
                hidden.append(cell_result(harness.run_cell(page, 1, timeout_ms=(seconds + 240) * 1000))["steps_s"])
            cpu_hidden.append(meter.seconds)
            page.evaluate("() => { performance.clearMeasures('rlviz:append'); performance.clearMeasures('rlviz:draw'); }")
            tasks_before = _page_task_s(cdp)
            with CpuMeter(kernel_pid) as meter:
                harness.run_cell(page, 2, timeout_ms=300_000)
                shown.append(cell_result(harness.run_cell(page, 3, timeout_ms=(seconds + 240) * 1000))["steps_s"])
            cpu_shown.append(meter.seconds)
            page_task_s.append(_page_task_s(cdp) - tasks_before)
            page_script_s.append(page.evaluate(SCRIPT_S))
            lags.extend(event_lags(page.evaluate(APPENDS), np.load(events_file)))
        figures["load_after"] = os.getloadavg()[0]                 # the throughput runs' end, before the memory run
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "watched.png"))
        figures["memory"] = _memory_run(page, cdp, kernel_pid, memory_s)
        page.screenshot(path=str(SHOTS / "watched-window.png"))
        harness.run_cell(page, 5, timeout_ms=120_000)
    figures.update({"hidden_steps_s": hidden, "shown_steps_s": shown,
                    "shown_over_hidden": statistics.median(shown) / statistics.median(hidden),
                    "latency_median_s": float(np.median(lags)), "latency_p95_s": float(np.percentile(lags, 95)),
                    "latency_events": len(lags),
                    "cpu_s_hidden": _median_by_group(cpu_hidden), "cpu_s_shown": _median_by_group(cpu_shown),
                    **{f"page_{name}_s": float(np.median([run[k] for run in page_task_s]))
                       for k, name in enumerate(PAGE_METRICS)},
                    "page_append_s": statistics.median(a for a, _ in page_script_s),
                    "page_draw_s": statistics.median(d for _, d in page_script_s)})
    return figures


class CpuMeter:
    """CPU seconds each group of processes used while the block ran, read from ``/proc`` every ``every_s``.

    Processes that start and end inside the block (a trainer's rollout
    workers) count up to their last sample; a process's earlier CPU is left out.
    """

    def __init__(self, kernel_pid: int, every_s: float = 0.5) -> None:
        self.kernel_pid, self.every_s = kernel_pid, every_s
        self.seconds: dict[str, float] = {}
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_done, daemon=True)

    def __enter__(self) -> "CpuMeter":
        self._first = {pid: cpu for pid, (_, cpu) in _processes(self.kernel_pid).items()}
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        self._sample()
        totals: dict[str, float] = {}
        for pid, (group, cpu) in self._last.items():
            totals[group] = totals.get(group, 0.0) + cpu - self._first.get(pid, 0.0)
        self.seconds = totals

    def _sample_until_done(self) -> None:
        while not self._done.wait(self.every_s):
            self._sample()

    def _sample(self) -> None:
        self._last.update(_processes(self.kernel_pid))


def _processes(kernel_pid: int) -> dict[int, tuple[str, float]]:
    """Every process's group and CPU seconds so far (user + system), by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:                         # it ended between the listing and the read
            continue
        fields = stat.rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick        # utime, stime
        found[int(entry.name)] = (_group(int(entry.name), command, kernel_pid), cpu)
    return found


def _group(pid: int, command: str, kernel_pid: int) -> str:
    if pid == kernel_pid:
        return "kernel"
    if command.startswith("ray::"):
        return "ray workers"
    if "chromium" in command:
        return "chromium"
    if "jupyter" in command:
        return "jupyter server"
    if any(part in command for part in ("/ray/", "raylet", "gcs_server")):
        return "ray services"
    return "other"


def _median_by_group(runs: list[dict[str, float]]) -> dict[str, float]:
    groups = sorted({group for run in runs for group in run})
    return {group: statistics.median(run.get(group, 0.0) for run in runs) for group in groups}


PAGE_METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def _page_task_s(cdp) -> np.ndarray:
    """The page's main-thread time so far (seconds) in ``PAGE_METRICS``, from Chrome's performance metrics."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return np.array([metrics[name] for name in PAGE_METRICS])


def browser_harness():
    """The browser tests' harness (tests/browser_harness.py): Debian's chromium, a loopback JupyterLab."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))
    return importlib.import_module("browser_harness")


def cell_result(cell) -> dict:
    """The JSON a cell printed after ``RESULT`` (or {} for a cell that prints none); a cell error raises."""
    text = cell.locator(".jp-OutputArea-output").all_inner_texts()
    joined = "\n".join(text)
    if "Traceback" in joined:
        raise RuntimeError(f"a benchmark cell failed:\n{joined[-2000:]}")
    for line in joined.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
            if result.get("error"):
                raise RuntimeError(f"the watched run failed: {result['error']}")
            return result
    return {}


def event_lags(appends: list, events) -> list[float]:
    """Seconds from each event's end to the end of the first page append that carried it.

    ``appends`` are ``APPENDS``'s ``[end ms since the epoch, first id, count]``; ``events`` maps ``ids`` and
    ``end_ns`` (ns since the epoch) to arrays.  Raises RuntimeError when an event never reached the page.
    """
    ids, end_ns = events["ids"], events["end_ns"]
    arrived = np.full(len(ids), np.nan)
    for at_ms, first_id, count in sorted(appends):    # a model of the window holds an event again and again:
        inside = (ids >= first_id) & (ids < first_id + count) & np.isnan(arrived)     # the first one counts
        arrived[inside] = at_ms
    missing = int(np.isnan(arrived).sum())
    if missing:
        raise RuntimeError(f"{missing} of {len(ids)} remote events never reached the page")
    return ((arrived * 1e6 - end_ns) / 1e9).tolist()


def _memory_run(page, cdp, kernel_pid: int, seconds: int) -> dict:
    """Watch for ``seconds`` with ``window_s``; sample kernel RSS and page JS heap every ``SAMPLE_S``."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(4)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    samples, frames = [], []
    started = time.monotonic()
    while time.monotonic() - started < seconds + SAMPLE_S:
        time.sleep(SAMPLE_S)
        if len(samples) == 1 or time.monotonic() - started >= seconds - SAMPLE_S and len(frames) < 2:
            frames.append(sorted(page.evaluate(FRAMES, FRAMES_S)))
        cdp.send("HeapProfiler.collectGarbage")
        heap = cdp.send("Runtime.getHeapUsage")["usedSize"] / 2**20
        count = page.locator('[data-rlviz="live-count"]').last.get_attribute("data-count")
        samples.append({"s": round(time.monotonic() - started), "kernel_rss_mb": rss_mb(kernel_pid),
                        "page_js_mb": heap, "events": int(count or 0)})
    kernel = [s["kernel_rss_mb"] for s in samples]
    js = [s["page_js_mb"] for s in samples]
    return {"samples": samples, "kernel_rss_mb": {"start": kernel[0], "peak": max(kernel), "end": kernel[-1]},
            "page_js_mb": {"start": js[0], "peak": max(js), "end": js[-1]},
            "frames_ms": [{"median": statistics.median(f), "p95": f[int(0.95 * (len(f) - 1))], "frames": len(f)}
                          for f in frames]}


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB, from ``/proc/<pid>/status``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def _table(f: dict) -> str:
    m = f["memory"]
    k, j = m["kernel_rss_mb"], m["page_js_mb"]
    hidden = ", ".join(f"{v:.0f}" for v in f["hidden_steps_s"])
    shown = ", ".join(f"{v:.0f}" for v in f["shown_steps_s"])
    minutes = m["samples"][-1]["s"] / 60
    return "\n".join([
        "| measurement (DQN, 2 remote workers, JupyterLab + chromium) | measured | target |",
        "|---|---|---|",
        f"| env steps/s, view shown / not shown (median of {f['pairs']} interleaved {f['seconds']} s runs each) | "
        f"**{f['shown_over_hidden']:.2f}x** ({shown} / {hidden}) | >= 0.95x |",
        f"| remote event to page (append done), median (p95) | **{f['latency_median_s']:.2f} s** "
        f"({f['latency_p95_s']:.2f} s, {f['latency_events']:,} events) | <= 1 s median |",
        f"| kernel memory over {minutes:.0f} min, `window_s={WINDOW_S}`: start / peak / end | "
        f"{k['start']:.0f} / {k['peak']:.0f} / {k['end']:.0f} MB | flat |",
        f"| page JS heap over {minutes:.0f} min (after GC): start / peak / end | "
        f"{j['start']:.1f} / {j['peak']:.1f} / {j['end']:.1f} MB | flat |",
        f"| frame time in JupyterLab while the watch appends, median / p95 (early; late) | "
        f"{_frames(m['frames_ms'])} | 16.7 / <= 33 ms |",
        "",
        "| CPU seconds per run (medians), by process | view shown | not shown |",
        "|---|---|---|",
        *(f"| {group} | {f['cpu_s_shown'].get(group, 0.0):.1f} | {f['cpu_s_hidden'].get(group, 0.0):.1f} |"
          for group in _groups(f)),
        f"| the page's main thread (chromium's task time) | {f['page_TaskDuration_s']:.1f} | |",
        f"| of which script / layout / style | {f['page_ScriptDuration_s']:.1f} / {f['page_LayoutDuration_s']:.1f} / "
        f"{f['page_RecalcStyleDuration_s']:.1f} | |",
        f"| of which the Explorer's appends / timeline draws | {f['page_append_s']:.2f} / {f['page_draw_s']:.2f} | |",
        "",
        f"Measured by `python -m benchmarks.bench_live_lab` on the shared 2-core VM (load average "
        f"{f['load_before']:.1f} before, {f['load_after']:.1f} after the throughput runs), "
        f"{time.strftime('%Y-%m-%d')}.",
    ])


def _frames(runs: list[dict]) -> str:
    return "; ".join(f"{r['median']:.1f} / {r['p95']:.1f} ms ({r['frames']} frames)" for r in runs)


def _groups(f: dict) -> list[str]:
    """Process groups with any CPU in either kind of run, busiest first."""
    groups = {*f["cpu_s_shown"], *f["cpu_s_hidden"]}
    return sorted(groups, key=lambda g: -(f["cpu_s_shown"].get(g, 0.0) + f["cpu_s_hidden"].get(g, 0.0)))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 s runs, one pair, 2 minutes of memory")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/live.md alone")
    parser.add_argument("--pairs", type=int, default=PAIRS, help=f"shown/not shown pairs (default {PAIRS})")
    args = parser.parse_args([] if argv is None else argv)     # ``python -m benchmarks`` calls main() bare
    figures = run(20, 1, 120) if args.quick else run(pairs=args.pairs)
    table = _table(figures)
    print(json.dumps(figures, indent=1))
    print(table)
    (REPO / "benchmarks" / "results").mkdir(exist_ok=True)
    (REPO / "benchmarks" / "results" / "live_lab.json").write_text(json.dumps(figures, indent=1))
    if not args.no_docs and not args.quick:
        write_table(DOCS / "live.md", table, "lab")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
