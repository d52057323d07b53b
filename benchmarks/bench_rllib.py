"""RLlib 2.x, recorded and as a peer: recording overhead, sampling throughput, DQN time to a return of 150.

Same run, same machine, medians.  Three figures:

* recording overhead: env steps per second of an instrumented PPO's
  ``train()`` inside ``rlviz.record()`` over the same algorithm outside it,
  and an instrumented PPO outside ``record()`` over a plain one;
* sampling: rlviz's ``WorkerSet`` + ``gather_async`` over RLlib's
  ``synchronous_parallel_sample(EnvRunnerGroup)`` (what PPO's
  ``training_step`` calls; ``EnvRunnerGroup`` has no ``sample()`` of its
  own), CartPole-v1, 2 remote samplers, the same fragment length and envs per
  sampler, each with its own small torch policy sampling actions;
* wall-clock time to a mean return of 150: rlviz's DQN plan against RLlib
  2.x's DQN with the settings of RLlib's tuned CartPole DQN example.

CPU-heavy: ``python -m benchmarks.bench_rllib --seeds 1 --cap-s 300`` is the
smallest honest run of all three; ``--seeds 0`` leaves the DQN race out.  Results go to ``benchmarks/results/rllib.json`` and the
table to docs/rllib2.md.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main", "TARGET_RETURN"]

ROOT = Path(__file__).resolve().parents[1]
ENV = "CartPole-v1"
NUM_SAMPLERS = 2
FRAGMENT = 100
ENVS_PER_SAMPLER = 1
#: The mean return both DQNs race to.
TARGET_RETURN = 150.0


def run(repeats: int = 5, seeds: int = 3, cap_s: float = 600.0) -> dict:
    """Measure the three figures; ``cap_s`` bounds each training run (a run that hits it counts as not reached)."""
    import ray

    import rlviz

    rlviz.init(num_cpus=8)
    figures = {"load_before": os.getloadavg()[0]}
    try:
        figures["overhead"] = _overhead(repeats)
        figures["sampling"] = _sampling(repeats)
        figures["dqn"] = _dqn_race(seeds, cap_s)
    finally:
        figures["load_after"] = os.getloadavg()[0]
        ray.shutdown()
    return figures


def main(argv: list[str] | None = None) -> dict:
    """Run, print and save the figures, and write the table into docs/rllib2.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--cap-s", type=float, default=600.0)
    args = parser.parse_args([] if argv is None else argv)     # ``python -m benchmarks`` calls main() bare
    figures = run(args.repeats, args.seeds, args.cap_s)
    table = _table(figures)
    print(table)
    (ROOT / "benchmarks" / "results").mkdir(exist_ok=True)
    (ROOT / "benchmarks" / "results" / "rllib.json").write_text(json.dumps(figures, indent=1))
    write_table(DOCS / "rllib2.md", table)
    return figures


# -- recording overhead ------------------------------------------------------
def _ppo_config():
    from ray.rllib.algorithms.ppo import PPOConfig

    return (PPOConfig().environment(ENV)
            .env_runners(num_env_runners=NUM_SAMPLERS, rollout_fragment_length=FRAGMENT,
                         num_envs_per_env_runner=ENVS_PER_SAMPLER)
            .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=1))


def _overhead(repeats: int) -> dict:
    """Env steps/s of train(): recorded vs not (same instrumented algo), instrumented vs plain, interleaved."""
    import rlviz
    import rlviz.rllib

    plain = _ppo_config().build_algo()
    recorded = rlviz.rllib.instrument(_ppo_config()).build_algo()
    rates: dict[str, list[float]] = {"plain": [], "off": [], "on": []}
    try:
        for algo in (plain, recorded):
            algo.train()                                  # warm-up
        for _ in range(repeats):
            rates["plain"].append(_steps_per_s(plain))
            rates["off"].append(_steps_per_s(recorded))
            with rlviz.record():
                rates["on"].append(_steps_per_s(recorded))
    finally:
        plain.stop()
        recorded.stop()
    medians = {key: round(statistics.median(values)) for key, values in rates.items()}
    return {**{f"{key}_steps_s": value for key, value in medians.items()},
            "recorded_over_not": round(medians["on"] / medians["off"], 3),
            "instrumented_off_over_plain": round(medians["off"] / medians["plain"], 3)}


def _steps_per_s(algo) -> float:
    started = time.perf_counter()
    result = algo.train()
    return result["env_runners"]["num_env_steps_sampled"] / (time.perf_counter() - started)


# -- sampling throughput -------------------------------------------------------
def _sampling(repeats: int, seconds: float = 5.0) -> dict:
    """Env steps/s: rlviz WorkerSet + gather_async(num_async=1) against RLlib's synchronous_parallel_sample."""
    from rlviz.iter import from_actors
    from rlviz.rollout import WorkerSet
    from rlviz.rollout.pg_policy import PGPolicy

    workers = WorkerSet(ENV, PGPolicy, num_workers=NUM_SAMPLERS, num_envs_per_worker=ENVS_PER_SAMPLER,
                        rollout_fragment_length=FRAGMENT)
    algo = _ppo_config().build_algo()
    group = algo.env_runner_group
    rates: dict[str, list[float]] = {"rlviz": [], "rllib": []}
    try:
        stream = from_actors(workers.remote_workers()).gather_async(num_async=1)
        _pull(stream, 1.0)
        _rllib_rate(group, 1.0)
        for _ in range(repeats):                           # interleaved, so drift hits both
            rates["rlviz"].append(_pull(stream, seconds))
            rates["rllib"].append(_rllib_rate(group, seconds))
        del stream
    finally:
        workers.stop()
        algo.stop()
    rlviz_rate, rllib_rate = (statistics.median(rates[k]) for k in ("rlviz", "rllib"))
    return {"rlviz_gather_async_steps_s": round(rlviz_rate), "rllib_sample_steps_s": round(rllib_rate),
            "rlviz_over_rllib": round(rlviz_rate / rllib_rate, 3)}


def _pull(stream, seconds: float) -> float:
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        steps += next(stream).count
    return steps / (time.perf_counter() - started)


def _rllib_rate(group, seconds: float) -> float:
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        episodes = synchronous_parallel_sample(worker_set=group, max_env_steps=FRAGMENT * NUM_SAMPLERS,
                                               _uses_new_env_runners=True)
        steps += sum(episode.env_steps() for episode in episodes)
    return steps / (time.perf_counter() - started)


# -- DQN: wall-clock time to a mean return of 150 --------------------------------
def _dqn_race(seeds: int, cap_s: float) -> dict:
    races = {"rlviz": [_rlviz_dqn(seed, cap_s) for seed in range(seeds)],
             "rllib": [_rllib_dqn(seed, cap_s) for seed in range(seeds)]}
    return {name: {"seconds": runs, "median_s": _median_or_none(runs)} for name, runs in races.items()}


def _rlviz_dqn(seed: int, cap_s: float) -> float | None:
    from rlviz.plans import Trainer

    trainer = Trainer("dqn", env=ENV, num_workers=NUM_SAMPLERS,
                      config={"seed": seed, "timesteps_per_iteration": 1000})
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < cap_s:
            if trainer.train()["episode_reward_mean"] >= TARGET_RETURN:
                return round(time.perf_counter() - started, 1)
    finally:
        trainer.stop()
    return None


def _rllib_dqn(seed: int, cap_s: float) -> float | None:
    """RLlib 2.x DQN with the settings of RLlib's tuned CartPole example (tuned_examples/dqn/cartpole_dqn.py)."""
    from ray.rllib.algorithms.dqn import DQNConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    config = (DQNConfig().environment(ENV).debugging(seed=seed)
              .env_runners(num_env_runners=NUM_SAMPLERS)
              .training(lr=0.0005, train_batch_size_per_learner=32, n_step=(2, 5), double_q=True, dueling=True,
                        epsilon=[(0, 1.0), (10000, 0.02)],
                        replay_buffer_config={"type": "PrioritizedEpisodeReplayBuffer", "capacity": 50000,
                                              "alpha": 0.6, "beta": 0.4})
              .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=[256], fcnet_activation="tanh",
                                                         head_fcnet_hiddens=[256])))
    algo = config.build_algo()
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < cap_s:
            mean = algo.train()["env_runners"].get("episode_return_mean", math.nan)
            if mean >= TARGET_RETURN:
                return round(time.perf_counter() - started, 1)
    finally:
        algo.stop()
    return None


def _median_or_none(runs: list) -> float | None:
    reached = [r for r in runs if r is not None]
    return statistics.median(reached) if len(reached) == len(runs) and runs else None


# -- the docs table -------------------------------------------------------------
def _table(f: dict) -> str:
    o, s, d = f["overhead"], f["sampling"], f["dqn"]

    def race(name: str) -> str:
        if not d[name]["seconds"]:
            return "not run (--seeds 0)"
        runs = ", ".join("not reached" if r is None else f"{r} s" for r in d[name]["seconds"])
        return f"{d[name]['median_s'] or 'n/a'} s median ({runs})"

    return "\n".join([
        "| figure | measured | target |",
        "|---|---|---|",
        f"| PPO env steps/s recorded / not recorded | {o['recorded_over_not']} ({o['on_steps_s']} / {o['off_steps_s']}) | >= 0.95 |",
        f"| PPO env steps/s instrumented, outside `record()` / plain | {o['instrumented_off_over_plain']} ({o['off_steps_s']} / {o['plain_steps_s']}) | ~1.0 |",
        f"| sampling: rlviz `WorkerSet` + `gather_async` / RLlib `synchronous_parallel_sample` | {s['rlviz_over_rllib']} ({s['rlviz_gather_async_steps_s']} / {s['rllib_sample_steps_s']} env steps/s) | >= 1.0 |",
        f"| time to a mean return of 150, rlviz DQN | {race('rlviz')} | faster than RLlib |",
        f"| time to a mean return of 150, RLlib 2.x DQN | {race('rllib')} | |",
        "",
        f"Load average {f['load_before']:.1f} before, {f['load_after']:.1f} after (2 cores, shared).",
    ])


if __name__ == "__main__":
    main(sys.argv[1:])
