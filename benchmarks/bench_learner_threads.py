"""How many torch threads the learner should use: DQN's env steps per second with one thread against torch's default.

``python -m benchmarks.bench_learner_threads [--seconds S] [--pairs N] [--no-docs]``.
``make demo``'s DQN (CartPole-v1, two remote workers, seed 0) trains for
``--seconds`` with ``num_cpus_for_driver=1`` (the learner computes with one
torch thread, ``rlviz.rollout.threads``) and with ``num_cpus_for_driver=None``
(torch's default: one thread per core), in interleaved pairs, a fresh
``Trainer`` each run.  Reported: the median env steps per second of each, their
ratio, and the driver's CPU seconds per env step (time the learner's threads
spend waiting for each other shows up there).  The table goes into
docs/performance.md.
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time

from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main", "SECONDS", "PAIRS"]

SECONDS = 30
PAIRS = 3
#: The two settings compared: rlviz's default, and torch's own thread count.
SETTINGS = {"one thread (num_cpus_for_driver=1)": 1, "torch's default (num_cpus_for_driver=None)": None}


def run(seconds: float = SECONDS, pairs: int = PAIRS) -> dict:
    """Train DQN ``pairs`` times with each setting, interleaved; return steps per second and CPU per step."""
    import ray
    import torch

    import rlviz

    rlviz.init(num_cpus=8)
    load_before = os.getloadavg()
    runs: dict[str, list[dict]] = {name: [] for name in SETTINGS}
    try:
        for _ in range(pairs):
            for name, threads in SETTINGS.items():
                runs[name].append(_one_run(rlviz, threads, seconds))
    finally:
        ray.shutdown()
    return {"seconds": seconds, "pairs": pairs, "cores": os.cpu_count(), "torch_default": torch.get_num_threads(),
            "load_before": load_before, "load_after": os.getloadavg(), "runs": runs}


def _one_run(rlviz, threads: int | None, seconds: float) -> dict:
    trainer = rlviz.Trainer("dqn", env="CartPole-v1", num_workers=2,
                            config={"seed": 0, "timesteps_per_iteration": 1000, "num_cpus_for_driver": threads})
    try:
        started, cpu_started = time.perf_counter(), time.process_time()
        while time.perf_counter() - started < seconds:
            trainer.train()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        steps = trainer.last_result["timesteps_total"]
    finally:
        trainer.stop()
    return {"steps_s": steps / elapsed, "driver_cpu_ms_per_step": 1e3 * cpu / steps}


def _table(f: dict) -> str:
    (one, default) = SETTINGS
    median = {name: statistics.median(r["steps_s"] for r in f["runs"][name]) for name in SETTINGS}
    lines = ["| learner's torch threads | env steps/s, median (each run) | driver CPU ms per env step, median |",
             "|---|---|---|"]
    for name in SETTINGS:
        each = ", ".join(f"{r['steps_s']:.0f}" for r in f["runs"][name])
        cpu = statistics.median(r["driver_cpu_ms_per_step"] for r in f["runs"][name])
        lines.append(f"| {name} | {median[name]:.0f} ({each}) | {cpu:.2f} |")
    before, after = (" / ".join(f"{x:.1f}" for x in f[key]) for key in ("load_before", "load_after"))
    lines += ["", f"One thread trains at **{median[one] / median[default]:.2f}x** the steps per second of torch's "
              f"default ({f['torch_default']} threads on {f['cores']} cores). Measured "
              f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
              f"`python -m benchmarks.bench_learner_threads` ({f['pairs']} interleaved pairs of {f['seconds']:g} s runs; "
              f"load average {before} before, {after} after, 1 / 5 / 15 min)."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    """Run, print the table and write it into docs/performance.md (unless ``--no-docs``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_learner_threads")
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--pairs", type=int, default=PAIRS)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv if argv is not None else [])
    figures = run(args.seconds, args.pairs)
    table = _table(figures)
    print(table)
    if not args.no_docs:
        write_table(DOCS / "performance.md", table, name="learner_threads")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
