"""Sampling speed of two source trees of rlviz, measured alternately on the same machine in the same run.

A change to the rollout layer must not slow sampling down (target: after /
before >= 0.95).  This script puts each tree first on ``PYTHONPATH`` in turn
and measures, in fresh processes, alternating which tree goes first:

* ``worker_sample``: env steps/s of a local ``RolloutWorker.sample()`` loop
  (no Ray; CartPole x 4 envs x 200 steps, ``RandomPolicy``);
* ``gather_async_n1``: env steps/s pulled by ``gather_async(num_async=1)``
  from 2 remote workers of the same kind (a local Ray per process).

Run ``python -m benchmarks.compare_trees OLD_TREE [NEW_TREE]`` (NEW_TREE is
this checkout by default), for example with ``git worktree add /tmp/old
461263d``.  It prints the medians and the ratios.  It is not part of
``make bench`` because it needs a second tree.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

__all__ = ["measure", "compare", "main"]

ROUNDS = 6
REPEATS = 4                      # timed pulls per process; each lasts SECONDS
SECONDS = 2.0

#: What one measuring process runs: builds the workers with the keyword form
#: of the tree it finds (RLlib's, or the older positional one) and prints one
#: JSON list of env steps/s.
_MEASURE = r"""
import json, sys, time
from rlviz.rollout import RandomPolicy, RolloutWorker, WorkerSet
kind, repeats, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
SETTINGS = {"num_envs_per_worker": 4, "rollout_fragment_length": 200}

def timed(pull):
    pull(seconds / 4)
    return [pull(seconds) for _ in range(repeats)]

def pulling(next_batch):
    def pull(limit):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < limit:
            steps += next_batch().count
        return steps / (time.perf_counter() - start)
    return pull

if kind == "worker_sample":
    try:
        worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, config=SETTINGS, seed=0)
    except TypeError:
        worker = RolloutWorker("CartPole-v1", RandomPolicy, seed=0, **SETTINGS)
    rates = timed(pulling(worker.sample))
else:
    import ray, rlviz
    from rlviz.iter import from_actors
    rlviz.init(num_cpus=8)
    try:
        workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy, config=SETTINGS,
                            num_workers=2)
    except TypeError:
        workers = WorkerSet("CartPole-v1", RandomPolicy, num_workers=2, **SETTINGS)
    stream = iter(from_actors(workers.remote_workers()).gather_async(num_async=1))
    rates = timed(pulling(lambda: next(stream)))
    workers.stop()
    ray.shutdown()
print("RATES", json.dumps(rates))
"""


def measure(tree: Path, kind: str, repeats: int = REPEATS, seconds: float = SECONDS) -> list[float]:
    """Env steps/s of ``kind`` (``worker_sample`` or ``gather_async_n1``) with ``tree``'s rlviz, one process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", _MEASURE, kind, str(repeats), str(seconds)], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RATES ")]
    if done.returncode or not lines:
        raise RuntimeError(f"measuring {kind} in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(lines[-1][len("RATES "):])


def compare(before: Path, after: Path, rounds: int = ROUNDS) -> dict:
    """Medians of each kind for both trees, and after / before, from ``rounds`` alternating processes each."""
    figures = {}
    for kind in ("worker_sample", "gather_async_n1"):
        rates: dict[str, list[float]] = {"before": [], "after": []}
        for round_ in range(rounds):
            order = [("before", before), ("after", after)]
            for name, tree in (order if round_ % 2 == 0 else order[::-1]):
                rates[name] += measure(tree, kind)
        medians = {name: statistics.median(values) for name, values in rates.items()}
        figures[kind] = {"before_steps_s": round(medians["before"]), "after_steps_s": round(medians["after"]),
                         "ratio": round(medians["after"] / medians["before"], 3), "samples": len(rates["after"])}
    return figures


def main(argv: list[str] | None = None) -> dict:
    """Parse the two trees, compare them, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older source tree (its rlviz/ is imported)")
    parser.add_argument("after", type=Path, nargs="?", default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    for tree in (args.before, args.after):
        if not (tree / "rlviz" / "__init__.py").exists():
            parser.error(f"{tree} holds no rlviz package: pass the root of a checkout (e.g. a git worktree)")
    figures = compare(args.before.resolve(), args.after.resolve(), args.rounds)
    for kind, row in figures.items():
        print(f"{kind}: before {row['before_steps_s']:,} after {row['after_steps_s']:,} steps/s, "
              f"after / before {row['ratio']} ({row['samples']} timings each)")
    return figures


if __name__ == "__main__":
    main()
