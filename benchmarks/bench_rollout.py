"""Benchmark of remote sampling: gather_async over 2 RolloutWorkers against a tight single-process loop.

Run ``python -m benchmarks.bench_rollout``; prints the figures and writes them
into docs/rollouts.md between the bench markers.  Starts a local Ray.
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

__all__ = ["run", "main"]

ENV = "CartPole-v1"
NUM_WORKERS = 2
NUM_ENVS = 4
FRAGMENT = 200
REPEATS = 5
SECONDS = 2.0                    # sampling time per repeat
NUM_ASYNC = (1, 2)               # batches requested ahead per worker: Ray's default, and Ape-X's
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rollouts.md"
_START, _END = "<!-- bench:start -->", "<!-- bench:end -->"


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
        bookkeeping, one process), then for ``num_async`` 1 (Ray's default)
        and 2: ``gather_async_n{k}_steps_s`` (recording off),
        ``gather_async_n{k}_recording_steps_s`` (inside ``rlviz.record()``) and
        ``fraction_of_ceiling_n{k}`` (recording on; target >= 0.8), and
        ``recording_slowdown`` (off / on time per step at num_async=1, target <= 1.05).
    """
    import ray

    import rlviz
    from rlviz.iter import from_actors
    from rlviz.rollout import RandomPolicy, WorkerSet

    single = statistics.median(_tight_loop(seconds) for _ in range(repeats))
    sampler = statistics.median(_sampler_loop(seconds) for _ in range(repeats))
    rlviz.init(num_cpus=8)
    workers = WorkerSet(ENV, RandomPolicy, num_workers=NUM_WORKERS, num_envs_per_worker=NUM_ENVS,
                        rollout_fragment_length=FRAGMENT)
    rates: dict[str, list[float]] = {}
    try:
        for num_async in NUM_ASYNC:
            stream = from_actors(workers.remote_workers()).gather_async(num_async=num_async)
            _pull(stream, seconds / 4)                                # warm up the actors
            for _ in range(repeats):                                  # interleave so drift hits both
                rates.setdefault(f"n{num_async}_off", []).append(_pull(stream, seconds))
                with rlviz.record():
                    rates.setdefault(f"n{num_async}_on", []).append(_pull(stream, seconds))
            del stream
    finally:
        workers.stop()
        ray.shutdown()
    figures = {"single_process_steps_s": round(single), "ceiling_steps_s": round(NUM_WORKERS * single),
               "sampler_steps_s": round(sampler)}
    for num_async in NUM_ASYNC:
        off, on = statistics.median(rates[f"n{num_async}_off"]), statistics.median(rates[f"n{num_async}_on"])
        figures[f"gather_async_n{num_async}_steps_s"] = round(off)
        figures[f"gather_async_n{num_async}_recording_steps_s"] = round(on)
        figures[f"fraction_of_ceiling_n{num_async}"] = round(on / (NUM_WORKERS * single), 3)
    figures["recording_slowdown"] = round(figures["gather_async_n1_steps_s"]
                                          / figures["gather_async_n1_recording_steps_s"], 3)
    return figures


def main() -> dict:
    """Run, print and write the figures into docs/rollouts.md."""
    figures = run()
    table = _table(figures)
    print(table)
    _write_docs(table)
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
            f"| one process, VectorSampler (with episode bookkeeping) | {f['sampler_steps_s']:,} | |"]
    for num_async in NUM_ASYNC:
        rows += [f"| gather_async(num_async={num_async}) over {NUM_WORKERS} remote RolloutWorkers, recording off "
                 f"| {f[f'gather_async_n{num_async}_steps_s']:,} | |",
                 f"| the same inside rlviz.record() | {f[f'gather_async_n{num_async}_recording_steps_s']:,} "
                 f"| **{f[f'fraction_of_ceiling_n{num_async}']}** |"]
    return "\n".join(rows + ["", "- target: >= 0.8 of the ceiling, recording on",
                              f"- recording slowdown at num_async=1 (off / on): **{f['recording_slowdown']}x** "
                              "(target <= 1.05)"])


def _write_docs(table: str) -> None:
    if not DOCS.exists():
        return
    text = DOCS.read_text()
    if _START in text and _END in text:
        head, rest = text.split(_START, 1)
        tail = rest.split(_END, 1)[1]
        DOCS.write_text(f"{head}{_START}\n{table}\n{_END}{tail}")


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
