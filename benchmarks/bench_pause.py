"""Benchmark of pausing a watched run: the breakpoint check's cost, how fast pause() and advance() act on DQN.

``python -m benchmarks.bench_pause`` (``--quick`` for a smoke run; ``--no-docs``
leaves docs/live.md alone):

* check: what every recorded ``next()`` pays for the gate while no
  breakpoint, pause or advance is set: one read of ``GATES.armed``
  (``rlviz.trace.gate``), timed as a loop doing that read minus the same
  loop without it, in ns per call (median of repeats);
* pause: a ``rlviz.watch`` of the DQN plan with 2 remote workers; from
  ``pause()`` to the run's thread waiting at an op boundary
  (``paused_at`` set), at random moments of training;
* advance: from ``advance()`` (one whole round of DQN's union: sample on
  both workers and store, then replay and train) to the run paused again;
  the pause falls mid-round, so a first advance ends that round untimed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
import timeit

from benchmarks.docs_table import DOCS, write_table
from rlviz.trace.gate import GATES

__all__ = ["run", "main"]

LOOP = 2_000_000
REPEATS = 7
TIMES = 10
DQN = {"learning_starts": 64, "timesteps_per_iteration": 200, "seed": 0}


def check_ns(loop: int = LOOP, repeats: int = REPEATS) -> float:
    """Median ns per call of the unarmed gate check (one attribute read and a branch)."""
    assert not GATES.armed, "a gate is armed: the check would do more than its read"
    setup = "from rlviz.trace.gate import GATES; gates = GATES; r = range(%d)" % loop
    checked = "for _ in r:\n    if gates.armed:\n        pass"
    bare = "for _ in r:\n    pass"
    costs = []
    for _ in range(repeats):
        with_check = min(timeit.repeat(checked, setup, number=1, repeat=3))
        without = min(timeit.repeat(bare, setup, number=1, repeat=3))
        costs.append(max(0.0, with_check - without) / loop * 1e9)
    return statistics.median(costs)


def dqn_pause_and_advance(times: int = TIMES) -> dict:
    """Seconds from pause() to paused, and per advance() round trip, on DQN with 2 remote workers."""
    import rlviz
    from rlviz.plans import Trainer

    rlviz.init(num_cpus=8)
    trainer = Trainer("dqn", num_workers=2, config=DQN)
    live = rlviz.watch(trainer)
    pauses, advances = [], []
    try:
        _wait(lambda: live.iterations >= 1, 300)            # past learning_starts: rounds train
        rng = random.Random(0)
        for _ in range(times):
            live.resume()
            time.sleep(rng.uniform(0.2, 0.6))
            asked = time.perf_counter()
            live.pause()
            _wait(lambda: live.paused_at is not None, 60)
            pauses.append(time.perf_counter() - asked)
            live.advance(timeout=60)                        # to the end of the round the pause fell in
            started = time.perf_counter()
            live.advance(timeout=60)                        # one whole round
            advances.append(time.perf_counter() - started)
    finally:
        live.stop()
        trainer.stop()
    return {"pause_s_median": statistics.median(pauses), "pause_s_max": max(pauses),
            "advance_s_median": statistics.median(advances), "advance_s_max": max(advances), "times": times}


def _wait(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s")
        time.sleep(0.001)


def run(quick: bool = False) -> dict:
    """Measure; return the figures."""
    result: dict = {"load_average": list(os.getloadavg())}
    result["check_ns"] = check_ns(LOOP // 10 if quick else LOOP, 3 if quick else REPEATS)
    result.update(dqn_pause_and_advance(3 if quick else TIMES))
    result["load_average_after"] = list(os.getloadavg())
    return result


def _table(result: dict) -> str:
    load = ", ".join(f"{v:.1f}" for v in result["load_average"])
    after = ", ".join(f"{v:.1f}" for v in result["load_average_after"])
    return "\n".join([
        "| measure | median | max | target |", "|---|---|---|---|",
        f"| breakpoint check per `next()`, none set (ns) | {result['check_ns']:.1f} | | <= 100 ns |",
        f"| `pause()` reaches the driver, DQN with 2 remote workers (s) | {result['pause_s_median']:.3f} | "
        f"{result['pause_s_max']:.3f} | <= 1 s |",
        f"| one `advance()` of a DQN union round, round trip (s) | {result['advance_s_median']:.3f} | "
        f"{result['advance_s_max']:.3f} | <= 1 s |",
        f"\nMeasured by `python -m benchmarks.bench_pause` on the shared 2-core VM (load average {load} before, "
        f"{after} after), {result['times']} pauses and advances."])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer loops, 3 pauses")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/live.md alone")
    args = parser.parse_args(argv)
    result = run(quick=args.quick)
    print(json.dumps(result, indent=1))
    if not args.no_docs and not args.quick:
        write_table(DOCS / "live.md", _table(result), "pause")
    return result


if __name__ == "__main__":
    main()
