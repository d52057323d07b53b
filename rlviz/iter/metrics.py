"""Metrics shared by the iterators of one dataflow: counters, timers, info, current actor.

``LocalIterator.get_metrics()`` reads the context of the function running now;
ops such as ``TrainOneStep`` count steps there.
"""
from __future__ import annotations

import collections
import threading
import time
from collections.abc import Iterable

__all__ = ["MetricsContext", "SharedMetrics", "Timer", "current_metrics", "CURRENT"]


class Timer:
    """Accumulates how long a repeated block takes (``with timer: ...``)."""

    def __init__(self) -> None:
        self.count = 0
        self.total_s = 0.0
        self.units = 0
        self._start = 0.0

    def __enter__(self) -> "Timer":
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.total_s += time.perf_counter() - self._start
        self.count += 1

    def push_units_processed(self, n: int) -> None:
        """Note that the last timed block processed ``n`` units (e.g. env steps)."""
        self.units += n

    @property
    def mean_s(self) -> float:
        """Mean seconds per block (0 before the first)."""
        return self.total_s / self.count if self.count else 0.0

    @property
    def mean_throughput(self) -> float:
        """Units processed per second of timed work."""
        return self.units / self.total_s if self.total_s else 0.0

    def __repr__(self) -> str:
        return f"Timer(count={self.count}, mean={self.mean_s * 1e3:.3f} ms)"


class MetricsContext:
    """Counters, timers and info of one dataflow, plus the actor that sent the last item."""

    def __init__(self) -> None:
        self.counters: collections.defaultdict[str, int] = collections.defaultdict(int)
        self.timers: collections.defaultdict[str, Timer] = collections.defaultdict(Timer)
        self.info: dict = {}
        self.current_actor = None

    def save(self) -> tuple:
        """The counters and info, as plain data to restore later."""
        return dict(self.counters), dict(self.info)

    def restore(self, values: tuple) -> None:
        """Restore what ``save`` returned."""
        counters, info = values
        self.counters.clear()
        self.counters.update(counters)
        self.info = dict(info)

    def __repr__(self) -> str:
        return f"MetricsContext(counters={dict(self.counters)}, info={self.info})"


class SharedMetrics:
    """One ``MetricsContext`` shared by every iterator derived from the same source.

    Passing ``parents`` merges them: the parents' contexts become this one,
    which is how ``union`` shares one context among its children.
    """

    def __init__(self, metrics: MetricsContext | None = None,
                 parents: Iterable["SharedMetrics"] = ()) -> None:
        self.metrics = metrics or MetricsContext()
        self.parents = list(parents)
        self.set(self.metrics)

    def set(self, metrics: MetricsContext) -> None:
        """Use ``metrics`` here and in every parent."""
        self.metrics = metrics
        for parent in self.parents:
            parent.set(metrics)

    def get(self) -> MetricsContext:
        """The shared context."""
        return self.metrics


class _Current(threading.local):
    """The metrics context of the iterator function running in this thread (None outside one)."""

    metrics: MetricsContext | None = None


#: Set around every ``for_each`` / ``filter`` function call, inline, because it runs per item.
CURRENT = _Current()


def current_metrics() -> MetricsContext:
    """The metrics of the iterator function running now in this thread."""
    metrics = CURRENT.metrics
    if metrics is None:
        raise ValueError("get_metrics() was called outside an iterator function; "
                         "call it inside a function passed to for_each/filter/union ops")
    return metrics
