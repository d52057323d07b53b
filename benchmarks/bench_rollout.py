"""Benchmark of remote sampling: gather_async over 2 RolloutWorkers against a tight single-process loop.

Run ``python -m benchmarks.bench_rollout``; prints the figures and writes them
into docs/rollouts.md between the bench markers.  Starts a local Ray.
"""
from __future__ import annotations

import multiprocessing
import os
import statistics
import time

import numpy as np

from benchmarks.docs_table import DOCS, write_table

__all__ = ["run", "main"]

ENV = "CartPole-v1"
NUM_WORKERS = 2
NUM_ENVS = 4
FRAGMENT = 200
REPEATS = 5
SECONDS = 2.0                    # sampling time per repeat
NUM_ASYNC = (1, 2)               # batches requested ahead per worker: Ray's default, and Ape-X's


def run(repeats: int = REPEATS, seconds: float = SECONDS) -> dict:
    """Sampling throughput (env steps/s, medians of ``repeats``) and the ratios against the ceiling.

    Parameters
    ----------
    repeats : int
        Timed repeats per measurement; the median is reported.
    seconds : float
        Sampling time per repeat.

    Returns
    -------
    dict
        ``single_process_steps_s`` (tight loop, one process), ``ceiling_steps_s``
        (2x that), ``sampler_steps_s`` (one ``VectorSampler`` with its episode
        bookkeeping, one process), ``plain_tight_*`` and ``plain_sampler_*``
        (the same two loops in NUM_WORKERS plain processes at once, no Ray: what
        this machine gives parallel processes), then for ``num_async`` 1 (Ray's default)
        and 2: ``gather_async_n{k}_steps_s`` (recording off),
        ``gather_async_n{k}_recording_steps_s`` (inside ``rlviz.record()``) and
        ``fraction_of_ceiling_n{k}`` (recording on; target >= 0.8), and
        ``recording_slowdown`` (off / on time per step at num_async=1, target <= 1.05),
        and ``cpu_*``: where the two cores went during one num_async=2 run (shares
        of one core: the driver, each worker's sampling thread, each worker's
        other threads; empty where /proc is missing).
    """
    import ray

    import rlviz
    from rlviz.iter import from_actors
    from rlviz.rollout import RandomPolicy, WorkerSet

    single = statistics.median(_tight_loop(seconds) for _ in range(repeats))
    sampler = statistics.median(_sampler_loop(seconds) for _ in range(repeats))
    plain_tight = statistics.median(_in_parallel_processes(_tight_loop, seconds) for _ in range(repeats))
    plain_sampler = statistics.median(_in_parallel_processes(_sampler_loop, seconds) for _ in range(repeats))
    rlviz.init(num_cpus=8)
    workers = WorkerSet(env_creator=ENV, default_policy_class=RandomPolicy,
                        config={"num_envs_per_worker": NUM_ENVS, "rollout_fragment_length": FRAGMENT},
                        num_workers=NUM_WORKERS)
    rates: dict[str, list[float]] = {}
    try:
        for num_async in NUM_ASYNC:
            stream = from_actors(workers.remote_workers()).gather_async(num_async=num_async)
            _pull(stream, seconds / 4)                                # warm up the actors
            for _ in range(repeats):                                  # interleave so drift hits both
                rates.setdefault(f"n{num_async}_off", []).append(_pull(stream, seconds))
                with rlviz.record():
                    rates.setdefault(f"n{num_async}_on", []).append(_pull(stream, seconds))
            if num_async == NUM_ASYNC[-1]:
                cpu_share = _cpu_share(workers, lambda: _pull(stream, seconds))
            del stream
    finally:
        workers.stop()
        ray.shutdown()
    figures = {"single_process_steps_s": round(single), "ceiling_steps_s": round(NUM_WORKERS * single),
               "sampler_steps_s": round(sampler),
               "plain_tight_steps_s": round(plain_tight),
               "plain_tight_fraction": round(plain_tight / (NUM_WORKERS * single), 3),
               "plain_sampler_steps_s": round(plain_sampler),
               "plain_sampler_fraction": round(plain_sampler / (NUM_WORKERS * single), 3)}
    for num_async in NUM_ASYNC:
        off, on = statistics.median(rates[f"n{num_async}_off"]), statistics.median(rates[f"n{num_async}_on"])
        figures[f"gather_async_n{num_async}_steps_s"] = round(off)
        figures[f"gather_async_n{num_async}_recording_steps_s"] = round(on)
        figures[f"fraction_of_ceiling_n{num_async}"] = round(on / (NUM_WORKERS * single), 3)
    figures.update(cpu_share)
    figures["recording_slowdown"] = round(figures["gather_async_n1_steps_s"]
                                          / figures["gather_async_n1_recording_steps_s"], 3)
    return figures


def main() -> dict:
    """Run, print and write the figures into docs/rollouts.md."""
    figures = run()
    table = _table(figures)
    print(table)
    write_table(DOCS / "rollouts.md", table)
    return figures


# -- helpers ------------------------------------------------------------------
def _tight_loop(seconds: float) -> float:
    """Env steps/s of one process stepping the same vector env with the same policy, no bookkeeping."""
    from rlviz.rollout.env import make_env_creator
    from rlviz.rollout.random_policy import RandomPolicy
    from rlviz.rollout.sampler import make_vector_env

    envs = make_vector_env(make_env_creator(ENV), NUM_ENVS)
    policy = RandomPolicy(envs.single_observation_space, envs.single_action_space, seed=0)
    obs, _ = envs.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(FRAGMENT):
            actions, _ = policy.compute_actions(obs)
            obs, *_ = envs.step(actions)
        steps += FRAGMENT * NUM_ENVS
    return steps / (time.perf_counter() - start)


def _sampler_loop(seconds: float) -> float:
    """Env steps/s of one ``VectorSampler`` (the worker's loop with episode bookkeeping), one process."""
    from rlviz.rollout.env import make_env_creator
    from rlviz.rollout.random_policy import RandomPolicy
    from rlviz.rollout.sampler import VectorSampler, make_vector_env

    envs = make_vector_env(make_env_creator(ENV), NUM_ENVS)
    sampler = VectorSampler(envs, RandomPolicy(envs.single_observation_space, envs.single_action_space, seed=0),
                            FRAGMENT, seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += sampler.sample().count
    return steps / (time.perf_counter() - start)


def _in_parallel_processes(loop, seconds: float) -> float:
    """Total env steps/s of ``loop`` run in NUM_WORKERS plain processes at once (no Ray, no driver)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(NUM_WORKERS) as pool:
        pool.map(loop, [seconds / 4] * NUM_WORKERS)                 # warm up: imports, env creation
        return sum(pool.map(loop, [seconds] * NUM_WORKERS, chunksize=1))


def _cpu_share(workers, run) -> dict:
    """Shares of one core used during ``run()``: driver, workers' sampling threads, their other threads."""
    pids = [os.getpid(), *workers.foreach_worker(lambda w: os.getpid(), local_worker=False)]
    if not os.path.exists(f"/proc/{pids[0]}/task"):
        return {}
    before, start = [_thread_cpu(pid) for pid in pids], time.perf_counter()
    run()
    after, elapsed = [_thread_cpu(pid) for pid in pids], time.perf_counter() - start
    used = [{tid: (t1 - b.get(tid, 0.0)) / elapsed for tid, t1 in a.items()} for b, a in zip(before, after)]
    busiest = [max(u.values()) for u in used[1:]]
    return {"cpu_driver": round(sum(used[0].values()), 3),
            "cpu_sampling_threads": [round(b, 3) for b in busiest],
            "cpu_worker_other_threads": [round(sum(u.values()) - b, 3) for u, b in zip(used[1:], busiest)]}


def _thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of each thread of ``pid``, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:                   # the thread ended meanwhile
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _pull(stream, seconds: float) -> float:
    """Env steps/s of batches taken from ``stream`` for ``seconds``."""
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += next(stream).count
    return steps / (time.perf_counter() - start)


def _table(f: dict) -> str:
    rows = [f"| measurement ({ENV}, random policy, {NUM_ENVS} envs/worker, fragment {FRAGMENT}) | env steps/s "
            f"| of ceiling |", "|---|---|---|",
            f"| one process, tight loop (no bookkeeping) | {f['single_process_steps_s']:,} | |",
            f"| ceiling: {NUM_WORKERS} x one process | {f['ceiling_steps_s']:,} | 1 |",
            f"| one process, VectorSampler (with episode bookkeeping) | {f['sampler_steps_s']:,} | |",
            f"| {NUM_WORKERS} plain processes at once, tight loop (no Ray) | {f['plain_tight_steps_s']:,} "
            f"| {f['plain_tight_fraction']} |",
            f"| {NUM_WORKERS} plain processes at once, VectorSampler (no Ray) | {f['plain_sampler_steps_s']:,} "
            f"| {f['plain_sampler_fraction']} |"]
    for num_async in NUM_ASYNC:
        rows += [f"| gather_async(num_async={num_async}) over {NUM_WORKERS} remote RolloutWorkers, recording off "
                 f"| {f[f'gather_async_n{num_async}_steps_s']:,} | |",
                 f"| the same inside rlviz.record() | {f[f'gather_async_n{num_async}_recording_steps_s']:,} "
                 f"| **{f[f'fraction_of_ceiling_n{num_async}']}** |"]
    notes = ["", "- target: >= 0.8 of the ceiling, recording on",
             f"- recording slowdown at num_async=1 (off / on): **{f['recording_slowdown']}x** (target <= 1.05)"]
    if "cpu_driver" in f:
        notes.append(f"- CPU during one num_async={NUM_ASYNC[-1]} run, in cores: driver {f['cpu_driver']}, "
                     f"workers' sampling threads {' + '.join(map(str, f['cpu_sampling_threads']))}, "
                     f"workers' other threads {' + '.join(map(str, f['cpu_worker_other_threads']))}")
    return "\n".join(rows + notes)


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
