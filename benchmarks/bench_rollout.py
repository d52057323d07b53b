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
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rollouts.md"
_START, _END = "<!-- bench:start -->", "<!-- bench:end -->"


def run(repeats: int = REPEATS, seconds: float = SECONDS) -> dict:
    """Sampling throughput (env steps/s, medians of ``repeats``) and the two ratios.

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
        (2x that), ``gather_async_steps_s`` (recording off),
        ``gather_async_recording_steps_s`` (inside ``rlviz.record()``),
        ``fraction_of_ceiling`` (target >= 0.8) and ``recording_slowdown``
        (off / on time per step, target <= 1.05).
    """
    import ray

    import rlviz
    from rlviz.iter import from_actors
    from rlviz.rollout import RandomPolicy, WorkerSet

    single = statistics.median(_tight_loop(seconds) for _ in range(repeats))
    rlviz.init(num_cpus=8)
    workers = WorkerSet(ENV, RandomPolicy, num_workers=NUM_WORKERS, num_envs_per_worker=NUM_ENVS,
                        rollout_fragment_length=FRAGMENT)
    try:
        stream = from_actors(workers.remote_workers()).gather_async()
        _pull(stream, seconds / 4)                                    # warm up the actors
        off, on = [], []
        for _ in range(repeats):                                      # interleave so drift hits both
            off.append(_pull(stream, seconds))
            with rlviz.record():
                on.append(_pull(stream, seconds))
    finally:
        workers.stop()
        ray.shutdown()
    remote, recorded = statistics.median(off), statistics.median(on)
    return {
        "single_process_steps_s": round(single),
        "ceiling_steps_s": round(NUM_WORKERS * single),
        "gather_async_steps_s": round(remote),
        "gather_async_recording_steps_s": round(recorded),
        "fraction_of_ceiling": round(remote / (NUM_WORKERS * single), 3),
        "recording_slowdown": round(remote / recorded, 3),
    }


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


def _pull(stream, seconds: float) -> float:
    """Env steps/s of batches taken from ``stream`` for ``seconds``."""
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += next(stream).count
    return steps / (time.perf_counter() - start)


def _table(f: dict) -> str:
    return "\n".join([
        f"| measurement ({ENV}, random policy, {NUM_ENVS} envs/worker, fragment {FRAGMENT}) | env steps/s |",
        "|---|---|",
        f"| one process, tight loop (no bookkeeping) | {f['single_process_steps_s']:,} |",
        f"| ceiling: {NUM_WORKERS} x one process | {f['ceiling_steps_s']:,} |",
        f"| gather_async over {NUM_WORKERS} remote RolloutWorkers, recording off | {f['gather_async_steps_s']:,} |",
        f"| the same inside rlviz.record() | {f['gather_async_recording_steps_s']:,} |",
        "",
        f"- fraction of ceiling: **{f['fraction_of_ceiling']}** (target >= 0.8)",
        f"- recording slowdown (off / on): **{f['recording_slowdown']}x** (target <= 1.05)",
    ])


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
