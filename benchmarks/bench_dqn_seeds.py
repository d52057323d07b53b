"""DQN on held-out seeds: the evidence that the defaults reach a mean return of 150 within 50k steps.

DQN's defaults were tuned on seeds 0-2 (docs/plans.md), so those seeds cannot
also be the evidence.  This runs seeds the tuning never saw, each for the full
budget, and writes the table into docs/plans.md (the ``dqn-held-out``
markers).  Run ``python -m benchmarks.bench_dqn_seeds [--seeds 3 4 5]``.
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys

from benchmarks.bench_learning import DQN_BUDGET, DQN_TARGET, train_plan
from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main", "HELD_OUT_SEEDS"]

#: Seeds never used while choosing DQN's defaults (those were 0, 1 and 2).
HELD_OUT_SEEDS = (3, 4, 5)


def run(seeds: tuple[int, ...] = HELD_OUT_SEEDS) -> dict:
    """Train DQN (defaults, 2 remote workers) for ``DQN_BUDGET`` sampled steps per seed.

    Returns
    -------
    dict
        Per seed: the first sampled-step count at which the mean return
        reached ``DQN_TARGET`` (None if never), best and final return, seconds.
    """
    import ray

    import rlviz

    rlviz.init(num_cpus=8)
    try:
        rows = {}
        for seed in seeds:
            load = os.getloadavg()[0]
            out = train_plan("dqn", DQN_BUDGET, seed)
            curve = out["curve"]
            rows[seed] = {"crossed_at_steps": next((s for s, r in curve if r >= DQN_TARGET), None),
                          "best_return": max(r for _, r in curve), "final_return": curve[-1][1],
                          "seconds": out["seconds"], "load_average": round(load, 1)}
    finally:
        ray.shutdown()
    return {"seeds": rows}


def main(argv: list[str] | None = None) -> dict:
    """Run, print the table and write it into docs/plans.md."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dqn_seeds")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(HELD_OUT_SEEDS))
    args = parser.parse_args(argv if argv is not None else [])
    figures = run(tuple(args.seeds))
    table = _table(figures)
    print(table)
    write_table(DOCS / "plans.md", table, name="dqn-held-out")
    return figures


def _table(f: dict) -> str:
    rows = f["seeds"]
    reached = [r["crossed_at_steps"] for r in rows.values() if r["crossed_at_steps"] is not None]
    lines = [f"Held-out seeds, measured {datetime.date.today().isoformat()} by `benchmarks/bench_dqn_seeds.py` "
             f"(defaults, 2 remote workers, {DQN_BUDGET:,} sampled steps each):", "",
             f"| seed | steps to reach {DQN_TARGET:g} | best return | return at {DQN_BUDGET // 1000}k | seconds | load average |",
             "|---|---|---|---|---|---|"]
    for seed, r in rows.items():
        crossed = "not reached" if r["crossed_at_steps"] is None else f"{r['crossed_at_steps']:,}"
        lines.append(f"| {seed} | {crossed} | {r['best_return']:.1f} | {r['final_return']:.1f} | "
                     f"{r['seconds']:.0f} | {r['load_average']} |")
    lines += ["", f"{len(reached)} of {len(rows)} held-out seeds reached {DQN_TARGET:g} within "
              f"{DQN_BUDGET:,} steps" + (f"; median {statistics.median(reached):,.0f} steps." if reached else ".")]
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
