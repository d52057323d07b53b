"""Reporting ops: ``StandardMetricsReporting``, ``CollectMetrics``, ``OncePerTimeInterval``, ``OncePerTimestepsElapsed``.

They decide how many train_op items one ``train()`` consumes, and what it returns.
"""
from __future__ import annotations

import collections
import math
import time
from collections.abc import Mapping
from typing import Any

from rlviz.checks import check_int, check_number
from rlviz.iter import LocalIterator
from rlviz.trace import gauge
from rlviz.ops.names import (AGENT_STEPS_SAMPLED_COUNTER, STEPS_SAMPLED_COUNTER, STEPS_TRAINED_COUNTER,
                             STEPS_TRAINED_THIS_ITER_COUNTER)

__all__ = ["StandardMetricsReporting", "CollectMetrics", "OncePerTimeInterval", "OncePerTimestepsElapsed"]


def StandardMetricsReporting(train_op: LocalIterator, workers: Any, config: Mapping) -> LocalIterator:
    """Filter ``train_op`` by timesteps elapsed and minimum time, then collect episode metrics.

    One item of the result is one ``train()`` result: it may consume many
    train_op items (until ``timesteps_per_iteration`` steps were sampled *and*
    ``min_iter_time_s`` passed).

    Parameters
    ----------
    train_op : LocalIterator
        The plan's training stream.
    workers : WorkerSet
        Where episode metrics come from.
    config : mapping
        ``timesteps_per_iteration`` (default 0), ``min_iter_time_s`` (default
        0), ``metrics_smoothing_episodes`` (default 100), ``counters_as_gauges``
        (default False: True records each of ``metrics.counters`` as the gauge
        ``"counter <name>"`` once per ``train()``).

    Returns
    -------
    LocalIterator
        Yields the metrics dicts of ``CollectMetrics``.
    """
    steps = OncePerTimestepsElapsed(int(config.get("timesteps_per_iteration", 0)))
    interval = OncePerTimeInterval(float(config.get("min_iter_time_s", 0)))
    return (train_op
            .filter(steps).named("OncePerTimestepsElapsed")
            .filter(interval).named("OncePerTimeInterval")
            .for_each(CollectMetrics(workers, min_history=int(config.get("metrics_smoothing_episodes", 100)),
                                     counters_as_gauges=bool(config.get("counters_as_gauges", False)))))


class OncePerTimeInterval:
    """For ``filter``: true at most once per ``delay`` seconds (0: always)."""

    __rlviz_op__ = "OncePerTimeInterval"

    def __init__(self, delay: float = 0.0) -> None:
        check_number("delay", delay, minimum=0, hint="a delay in seconds; 0 = always")
        self.delay = delay
        self.last_returned_true = 0.0

    def __call__(self, item: Any) -> bool:
        now = time.monotonic()
        if self.delay == 0 or now - self.last_returned_true >= self.delay:
            self.last_returned_true = now
            return True
        return False


class OncePerTimestepsElapsed:
    """For ``filter``: true once the steps counter advanced ``delay_steps`` since it was last true."""

    __rlviz_op__ = "OncePerTimestepsElapsed"

    def __init__(self, delay_steps: int, by_steps_trained: bool = False) -> None:
        check_int("delay_steps", delay_steps, minimum=0)
        self.delay = delay_steps
        self.counter = STEPS_TRAINED_COUNTER if by_steps_trained else STEPS_SAMPLED_COUNTER
        self.last_called = 0

    def __call__(self, item: Any) -> bool:
        now = LocalIterator.get_metrics().counters[self.counter]
        if now - self.last_called >= self.delay:
            self.last_called = now
            return True
        return False


class CollectMetrics:
    """For ``for_each``: the result dict of one training iteration.

    Gathers finished episodes from every worker, smooths over the last
    ``min_history`` episodes and adds the counters, timers and info; with
    ``counters_as_gauges``, records each counter as the gauge ``"counter <name>"``.

    Returns
    -------
    callable
        ``item -> dict`` with ``episode_reward_mean``, ``episode_reward_min``,
        ``episode_reward_max``, ``episode_len_mean``, ``episodes_this_iter``,
        ``episodes_total``, ``timesteps_total``, ``agent_timesteps_total``,
        ``num_steps_trained``, ``counters``, ``timers`` (``<name>_time_ms``,
        ``<name>_throughput``), ``info`` and ``time_this_iter_s``.
    """

    __rlviz_op__ = "CollectMetrics"

    def __init__(self, workers: Any, min_history: int = 100, counters_as_gauges: bool = False) -> None:
        check_int("min_history", min_history, minimum=1)
        self.workers = workers
        self.counters_as_gauges = counters_as_gauges
        self.history: collections.deque = collections.deque(maxlen=min_history)
        self.episodes_total = 0
        self.last_time = time.perf_counter()

    def __call__(self, item: Any) -> dict:
        metrics = LocalIterator.get_metrics()
        new = [ep for worker_eps in self.workers.foreach_worker(_pop_metrics) for ep in worker_eps]
        self.history.extend(new)
        self.episodes_total += len(new)
        returns = [ep.episode_return for ep in self.history]
        lengths = [ep.episode_length for ep in self.history]
        timers = {}
        for name, timer in metrics.timers.items():
            timers[f"{name}_time_ms"] = round(timer.mean_s * 1000, 3)
            if timer.units:
                timers[f"{name}_throughput"] = round(timer.mean_throughput, 3)
        now = time.perf_counter()
        result = {
            "episode_reward_mean": _mean(returns), "episode_reward_min": min(returns, default=math.nan),
            "episode_reward_max": max(returns, default=math.nan), "episode_len_mean": _mean(lengths),
            "episodes_this_iter": len(new), "episodes_total": self.episodes_total,
            "timesteps_total": metrics.counters[STEPS_SAMPLED_COUNTER],
            "agent_timesteps_total": metrics.counters[AGENT_STEPS_SAMPLED_COUNTER],
            "num_steps_trained": metrics.counters[STEPS_TRAINED_COUNTER],
            "counters": dict(metrics.counters), "timers": timers, "info": _plain(metrics.info),
            "time_this_iter_s": now - self.last_time,
        }
        self.last_time = now
        if self.counters_as_gauges:
            for name, value in metrics.counters.items():
                gauge(f"counter {name}", value)
        metrics.counters[STEPS_TRAINED_THIS_ITER_COUNTER] = 0
        return result


def _pop_metrics(worker: Any) -> list:
    return worker.get_metrics()


def _mean(values: list) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _plain(value: Any) -> Any:
    """Info as JSON-friendly data (numpy scalars -> float)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    return value
