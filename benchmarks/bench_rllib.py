"""RLlib 2.x, recorded and as a peer: recording overhead, sampling throughput, DQN time to a return of 150.

Same run, same machine, medians.  The figures:

* recording overhead: env steps per second of an instrumented PPO's and
  APPO's ``train()`` inside ``rlviz.record()`` over the plain algorithm's, as
  the median of ``--pairs`` interleaved pairs (target >= 0.95x), and an
  instrumented PPO outside ``record()`` over a plain one;
* ``record()`` entry plus exit around a block of at most 10,000 events with
  an instrumented PPO's 2 remote EnvRunners reporting (target <= 0.2 s);
* APPO's driver events per second over ``--appo-s`` seconds of training
  (target <= 278/s, so an hour fits the default capacity of 1,000,000);
* sampling: rlviz's ``WorkerSet`` + ``gather_async`` over RLlib's
  ``synchronous_parallel_sample(EnvRunnerGroup)`` (what PPO's
  ``training_step`` calls; ``EnvRunnerGroup`` has no ``sample()`` of its
  own), CartPole-v1, 2 remote samplers, the same fragment length and envs per
  sampler, each with its own small torch policy sampling actions;
* wall-clock time to a mean return of 150: rlviz's DQN plan against RLlib
  2.x's DQN with the settings of RLlib's tuned CartPole DQN example.

CPU-heavy, and meaningful only on a quiet machine: ``python -m
benchmarks.bench_rllib`` (7 pairs, a 5-minute APPO run, 3 DQN seeds) is the
full run; ``--pairs 1 --appo-s 20 --seeds 0 --record-repeats 2`` is a smoke
run that only shows it works (add ``--no-write`` to keep its figures out of the docs).  Results go to ``benchmarks/results/rllib.json``;
the overhead table to docs/performance.md, the sampling and DQN table to
docs/rllib2.md.
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
#: The targets of the overhead figures (issue 31).
MIN_RATIO, MAX_RECORD_S, MAX_DRIVER_EVENTS_S, MAX_BLOCK_EVENTS = 0.95, 0.2, 278, 10_000


#: The two halves of the benchmark, each written to its own docs table.
PARTS = ("overhead", "peer")


def run(repeats: int = 5, seeds: int = 3, cap_s: float = 600.0, pairs: int = 7, appo_s: float = 300.0,
        record_repeats: int = 7, parts: tuple[str, ...] = PARTS) -> dict:
    """Measure the figures of ``parts``; ``cap_s`` bounds each DQN training run (one that hits it counts as not reached).

    ``"overhead"``: what recording costs (docs/performance.md); ``"peer"``:
    rlviz against RLlib, sampling and DQN (docs/rllib2.md).
    """
    import ray

    import rlviz

    rlviz.init(num_cpus=8)
    figures = {"load_before": os.getloadavg()[0], "pairs": pairs, "appo_s": appo_s}
    try:
        if "overhead" in parts:
            figures["overhead"] = _overhead(pairs)
            figures["record"] = _record_cost(record_repeats)
            figures["appo_events"] = _appo_driver_events(appo_s)
        if "peer" in parts:
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
    parser.add_argument("--pairs", type=int, default=7, help="interleaved plain/recorded pairs per algorithm")
    parser.add_argument("--appo-s", type=float, default=300.0, help="seconds of recorded APPO training")
    parser.add_argument("--record-repeats", type=int, default=7)
    parser.add_argument("--part", choices=PARTS, action="append",
                        help="measure only this half (repeatable; default: both)")
    parser.add_argument("--no-write", action="store_true", help="print only: leave the results file and docs alone")
    args = parser.parse_args([] if argv is None else argv)     # ``python -m benchmarks`` calls main() bare
    parts = tuple(args.part or PARTS)
    figures = run(args.repeats, args.seeds, args.cap_s, args.pairs, args.appo_s, args.record_repeats, parts)
    tables = {"overhead": (_overhead_table, DOCS / "performance.md", "rllib"), "peer": (_table, DOCS / "rllib2.md", None)}
    written = {part: tables[part][0](figures) for part in parts}
    print(*written.values(), sep="\n\n")
    if args.no_write:
        return figures
    results = ROOT / "benchmarks" / "results" / "rllib.json"
    results.parent.mkdir(exist_ok=True)
    kept = json.loads(results.read_text()) if results.exists() else {}
    results.write_text(json.dumps({**kept, **{part: figures for part in parts}}, indent=1))
    for part, text in written.items():
        _, page, name = tables[part]
        write_table(page, text, name)
    return figures


# -- recording overhead ------------------------------------------------------
def _ppo_config():
    from ray.rllib.algorithms.ppo import PPOConfig

    return (PPOConfig().environment(ENV)
            .env_runners(num_env_runners=NUM_SAMPLERS, rollout_fragment_length=FRAGMENT,
                         num_envs_per_env_runner=ENVS_PER_SAMPLER)
            .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=1))


def _appo_config():
    from ray.rllib.algorithms.appo import APPOConfig

    return (APPOConfig().environment(ENV)
            .env_runners(num_env_runners=NUM_SAMPLERS, rollout_fragment_length=FRAGMENT // 2,
                         num_envs_per_env_runner=ENVS_PER_SAMPLER)
            .training(train_batch_size_per_learner=500)
            .reporting(min_time_s_per_iteration=5))


def _overhead(pairs: int) -> dict:
    """PPO's and APPO's env steps/s of train(), instrumented inside record() over plain, in interleaved pairs."""
    figures = {name: _pairs(make, pairs) for name, make in (("ppo", _ppo_config), ("appo", _appo_config))}
    figures["ppo_off"] = _instrumented_off(pairs)
    return figures


def _pairs(make_config, pairs: int) -> dict:
    import rlviz
    import rlviz.rllib

    plain = make_config().build_algo()
    recorded = rlviz.rllib.instrument(make_config()).build_algo()
    rates: dict[str, list[float]] = {"plain": [], "on": []}
    try:
        for algo in (plain, recorded):
            _warm_up(algo)
        for _ in range(pairs):
            rates["plain"].append(_steps_per_s(plain))
            with rlviz.record():
                rates["on"].append(_steps_per_s(recorded))
    finally:
        plain.stop()
        recorded.stop()
    ratios = [on / plain for on, plain in zip(rates["on"], rates["plain"]) if plain]
    return {"plain_steps_s": round(statistics.median(rates["plain"])), "on_steps_s": round(statistics.median(rates["on"])),
            "on_over_plain": round(statistics.median(ratios), 3) if ratios else None,
            "pair_ratios": [round(r, 3) for r in ratios]}


def _instrumented_off(pairs: int) -> dict:
    """An instrumented PPO outside record() over a plain one: what the recorded classes cost when not recording."""
    import rlviz.rllib

    plain = _ppo_config().build_algo()
    instrumented = rlviz.rllib.instrument(_ppo_config()).build_algo()
    rates: dict[str, list[float]] = {"plain": [], "off": []}
    try:
        for algo in (plain, instrumented):
            algo.train()
        for _ in range(pairs):
            rates["plain"].append(_steps_per_s(plain))
            rates["off"].append(_steps_per_s(instrumented))
    finally:
        plain.stop()
        instrumented.stop()
    plain_rate, off_rate = statistics.median(rates["plain"]), statistics.median(rates["off"])
    return {"plain_steps_s": round(plain_rate), "off_steps_s": round(off_rate),
            "off_over_plain": round(off_rate / plain_rate, 3)}


def _warm_up(algo, within_s: float = 180.0) -> None:
    """Train until the Learner trained once (APPO samples nothing until its state server's process runs)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        result = algo.train()
        if result.get("learners", {}).get("__all_modules__", {}).get("num_env_steps_trained_lifetime", 0) > 0:
            return
    raise RuntimeError(f"{type(algo).__name__} trained nothing in {within_s:.0f} s of warm-up")


def _steps_per_s(algo) -> float:
    started = time.perf_counter()
    result = algo.train()
    return result["env_runners"].get("num_env_steps_sampled", 0) / (time.perf_counter() - started)


# -- record() entry and exit -----------------------------------------------------
def _record_cost(repeats: int) -> dict:
    """record() entry plus exit with an instrumented PPO's 2 remote EnvRunners reporting, a block of <= 10k events.

    The block holds one train() (the runners' and Learner's events) and driver spans up to 10,000 events in all.
    """
    import rlviz
    import rlviz.rllib
    from rlviz.trace.spans import span

    algo = rlviz.rllib.instrument(_ppo_config()).build_algo()
    entries, exits, sizes = [], [], []
    try:
        algo.train()
        for _ in range(repeats):
            block = rlviz.record()
            started = time.perf_counter()
            trace = block.__enter__()
            entries.append(time.perf_counter() - started)
            algo.train()
            for _ in range(MAX_BLOCK_EVENTS // 2):
                with span("bench_filler", "a driver span filling the block"):
                    pass
            started = time.perf_counter()
            block.__exit__(None, None, None)
            exits.append(time.perf_counter() - started)
            sizes.append(len(trace.events))
    finally:
        algo.stop()
    totals = [entry + exit for entry, exit in zip(entries, exits)]
    return {"entry_s": round(statistics.median(entries), 4), "exit_s": round(statistics.median(exits), 4),
            "entry_plus_exit_s": round(statistics.median(totals), 4), "block_events": max(sizes)}


# -- APPO's driver event rate ------------------------------------------------------
def _appo_driver_events(seconds: float) -> dict:
    """Driver events per second while an instrumented APPO with 2 remote EnvRunners trains for ``seconds``."""
    import rlviz
    import rlviz.rllib

    algo = rlviz.rllib.instrument(_appo_config()).build_algo()
    try:
        _warm_up(algo)
        started = time.perf_counter()
        with rlviz.record() as trace:
            while time.perf_counter() - started < seconds:
                algo.train()
        took = time.perf_counter() - started
    finally:
        algo.stop()
    events = trace.events
    driver = sum(1 for event in events if event.where == "driver")
    samples = sum(1 for event in events if event.op == "sample")
    updates = sum(1 for event in events if event.op == "update")
    return {"seconds": round(took, 1), "driver_events": driver, "driver_events_s": round(driver / took, 1),
            "all_events_s": round(len(events) / took, 1), "samples": samples, "updates": updates}


# -- sampling throughput -------------------------------------------------------
def _sampling(repeats: int, seconds: float = 5.0) -> dict:
    """Env steps/s: rlviz WorkerSet + gather_async(num_async=1) against RLlib's synchronous_parallel_sample."""
    from rlviz.iter import from_actors
    from rlviz.rollout import WorkerSet
    from rlviz.rollout.pg_policy import PGPolicy

    workers = WorkerSet(env_creator=ENV, default_policy_class=PGPolicy,
                        config={"num_envs_per_worker": ENVS_PER_SAMPLER, "rollout_fragment_length": FRAGMENT},
                        num_workers=NUM_SAMPLERS)
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
def _overhead_table(f: dict) -> str:
    o, r, a = f["overhead"], f["record"], f["appo_events"]

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    def pair(name: str, label: str) -> str:
        ratio, spread = o[name]["on_over_plain"], o[name]["pair_ratios"]
        return (f"| {label} env steps/s, instrumented inside `record()` / plain (median of {f['pairs']} pairs) | "
                f"{ratio} ({o[name]['on_steps_s']} / {o[name]['plain_steps_s']}; pairs {min(spread)}–{max(spread)}) | "
                f">= {MIN_RATIO} | "
                f"{met(ratio is not None and ratio >= MIN_RATIO)} |")

    return "\n".join([
        f"Measured {time.strftime('%Y-%m-%d')} by `benchmarks/bench_rllib.py`, CartPole-v1, 2 remote EnvRunners, "
        f"load average {f['load_before']:.1f} at the start and {f['load_after']:.1f} at the end on "
        f"{os.cpu_count()} cores.",
        "",
        "| figure | measured | target | |",
        "|---|---|---|---|",
        pair("ppo", "PPO"),
        pair("appo", "APPO"),
        f"| PPO env steps/s, instrumented outside `record()` / plain | {o['ppo_off']['off_over_plain']} "
        f"({o['ppo_off']['off_steps_s']} / {o['ppo_off']['plain_steps_s']}) | ~1.0 | |",
        f"| `record()` entry + exit, 2 remote EnvRunners, block of {r['block_events']:,} events (median) | "
        f"{r['entry_plus_exit_s']} s (entry {r['entry_s']} s, exit {r['exit_s']} s) | <= {MAX_RECORD_S} s | "
        f"{met(r['entry_plus_exit_s'] <= MAX_RECORD_S and r['block_events'] <= MAX_BLOCK_EVENTS)} |",
        f"| APPO driver events/s over {a['seconds']} s of training ({a['samples']} samples, {a['updates']} updates "
        f"kept) | {a['driver_events_s']} (all lanes {a['all_events_s']}) | <= {MAX_DRIVER_EVENTS_S} | "
        f"{met(a['driver_events_s'] <= MAX_DRIVER_EVENTS_S)} |",
    ])


def _table(f: dict) -> str:
    s, d = f["sampling"], f["dqn"]

    def race(name: str) -> str:
        if not d[name]["seconds"]:
            return "not run (--seeds 0)"
        runs = ", ".join("not reached" if r is None else f"{r} s" for r in d[name]["seconds"])
        return f"{d[name]['median_s'] or 'n/a'} s median ({runs})"

    return "\n".join([
        "| figure | measured | target |",
        "|---|---|---|",
        f"| sampling: rlviz `WorkerSet` + `gather_async` / RLlib `synchronous_parallel_sample` | {s['rlviz_over_rllib']} ({s['rlviz_gather_async_steps_s']} / {s['rllib_sample_steps_s']} env steps/s) | >= 1.0 |",
        f"| time to a mean return of 150, rlviz DQN | {race('rlviz')} | faster than RLlib |",
        f"| time to a mean return of 150, RLlib 2.x DQN | {race('rllib')} | |",
        "",
        f"Load average {f['load_before']:.1f} before, {f['load_after']:.1f} after (2 cores, shared).",
    ])


if __name__ == "__main__":
    main(sys.argv[1:])
