"""Demo: DQN on CartPole-v1 with 2 remote workers, recorded, for a bounded time (the main ``rlviz demo``).

One ``train()`` is one ``next()`` of the DQN plan: ``Concurrently`` alternates
a store op (sample on the workers -> replay buffer) and a replay op (buffer ->
learn -> target update).  At the end: a return curve, per-op counts from the
trace, the trained/sampled ratio, and the trace files plus an HTML report.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rlviz.demos import wrote_list

__all__ = ["DQNDemoConfig", "run"]


@dataclass
class DQNDemoConfig:
    """Settings of the DQN demo."""

    plan: str = "dqn"
    """Which plan to run: one of ``rlviz.plans.PLANS``."""
    num_workers: int = 2
    """Remote rollout workers."""
    time_budget_s: float = 60.0
    """Stop after the train() call that crosses this many seconds."""
    max_timesteps: int = 50_000
    """... or once this many env steps were sampled."""
    timesteps_per_iteration: int = 1000
    """Env steps sampled per train() (the metrics filter)."""
    training_intensity: float | None = None
    """DQN/Ape-X: trained/sampled steps wanted (None: the plan's native ratio)."""
    seed: int = 0
    """Seed of workers and policies."""
    out_dir: str = "rlviz-out"
    """Folder for the curve, the trace files and the report."""
    address: str | None = None
    """Ray cluster to join; None starts an embedded local Ray."""


def run(config: DQNDemoConfig) -> dict:
    """Run the demo; return the results, the paths written and the trace."""
    import rlviz
    from rlviz.plans import Trainer

    rlviz.init(address=config.address)
    settings = {"seed": config.seed, "timesteps_per_iteration": config.timesteps_per_iteration}
    if config.plan in ("dqn", "apex"):
        settings["training_intensity"] = config.training_intensity
    trainer = Trainer(config.plan, env="CartPole-v1", num_workers=config.num_workers, config=settings)
    workers = str(trainer.workers)                         # as the run had them: after stop() none are remote
    print(f"plan: {config.plan}, {workers}, budget {config.time_budget_s:g} s "
          f"or {config.max_timesteps} steps\n")
    # ---------------------------------------------------------------- THE LESSON
    results = []
    started = time.perf_counter()
    try:
        with rlviz.record() as trace:                      # collects from the workers on exit: stop them after
            while True:
                result = trainer.train()                   # one next() of the plan
                results.append(result)
                elapsed = time.perf_counter() - started
                _progress(f"iter {result['training_iteration']:3d}  {elapsed:5.1f} s  "
                          f"sampled {result['timesteps_total']:6d}  trained {result['num_steps_trained']:7d}  "
                          f"return {result['episode_reward_mean']:6.1f}")
                if elapsed >= config.time_budget_s or result["timesteps_total"] >= config.max_timesteps:
                    break
    finally:
        trainer.stop()
    print("\n" if sys.stdout.isatty() else "")
    # ------------------------------------------------------------- TRY NOT TO MODIFY
    last = results[-1]
    ratio = last["num_steps_trained"] / max(last["timesteps_total"], 1)
    print(trace.summary())
    print(f"\ntrained/sampled steps: {last['num_steps_trained']}/{last['timesteps_total']} = {ratio:.2f}")
    print(f"final mean return (last {min(100, last['episodes_total'])} episodes): "
          f"{last['episode_reward_mean']:.1f}")
    run_facts = {"plan": f"{config.plan} on CartPole-v1", "workers": workers,
                 "training_intensity": config.training_intensity if config.plan in ("dqn", "apex") else "-",
                 "timesteps_per_iteration": config.timesteps_per_iteration,
                 "train_batch_size": trainer.config.get("train_batch_size", "-"),
                 "rollout_fragment_length": trainer.config.get("rollout_fragment_length", "-"),
                 "train() calls": len(results), "trained / sampled": f"{ratio:.2f}"}
    paths = _write_outputs(trace, results, config, run_facts)
    return {"results": results, "trace": trace, "ratio": ratio, **paths}


def _progress(line: str) -> None:
    """One line per iteration in a log or a notebook; on a terminal the line is rewritten in place."""
    if sys.stdout.isatty():
        print(f"\r{line}", end="", flush=True)
    else:
        print(line, flush=True)


def _write_outputs(trace, results: list[dict], config: DQNDemoConfig, run_facts: dict) -> dict:
    """The return curve PNG, the rlviz trace, the Chrome trace and the HTML report."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rlviz.viz.report import write_report

    out_dir = Path(config.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = config.plan
    paths = {"curve_png": out_dir / f"{stem}.return.png", "trace_file": out_dir / f"{stem}.rlviz",
             "chrome_json": out_dir / f"{stem}.chrome.json.gz", "report_html": out_dir / f"{stem}.report.html"}
    fig, ax = plt.subplots(figsize=(6, 3.5))
    xs = [r["timesteps_total"] for r in results if not math.isnan(r["episode_reward_mean"])]
    ys = [r["episode_reward_mean"] for r in results if not math.isnan(r["episode_reward_mean"])]
    ax.plot(xs, ys, marker="o", markersize=3)
    ax.set_xlabel("env steps sampled")
    ax.set_ylabel("mean episode return (last 100)")
    ax.set_title(f"{config.plan} on CartPole-v1, {config.num_workers} workers")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(paths["curve_png"], dpi=100)
    plt.close(fig)
    trace.save(paths["trace_file"])
    trace.to_chrome(paths["chrome_json"])
    write_report(trace, paths["report_html"], title=f"rlviz {config.plan} demo", run=run_facts,
                 returns=list(zip(xs, ys)))
    print("\n" + wrote_list(out_dir, [
        (paths["curve_png"], "return curve"),
        (paths["trace_file"], "rlviz trace (rlviz.Trace.load)"),
        (paths["chrome_json"], "open in https://ui.perfetto.dev or chrome://tracing"),
        (paths["report_html"], "self-contained HTML report: the interactive Explorer, then the printable views")]))
    return paths
