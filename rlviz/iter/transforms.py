"""The transforms themselves, as plain generator functions over an upstream iterator.

Each passes ``NextValueNotReady`` through untouched.  Recording is not done
here (``instrument`` wraps every stage); Ray appears only in
``for_each_concurrent``, which runs items as Ray tasks.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from rlviz.iter.metrics import CURRENT, SharedMetrics
from rlviz.iter.sentinel import NextValueNotReady

__all__ = ["for_each", "for_each_concurrent", "filter_items", "batch", "flatten", "shuffle"]


def for_each(upstream: Iterator, fn: Callable, shared: SharedMetrics) -> Iterator:
    """``fn(item)`` for each item; a not-ready result is yielded and ``fn`` retried.

    ``shared``'s metrics are current while ``fn`` runs (set inline: this is per item).
    """
    current = CURRENT
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
            continue
        while True:
            outer, current.metrics = current.metrics, shared.metrics
            try:
                result = fn(item)
            finally:
                current.metrics = outer
            yield result
            if not isinstance(result, NextValueNotReady):
                break


def for_each_concurrent(upstream: Iterator, fn: Callable, max_concurrency: int,
                        resources: dict | None) -> Iterator:
    """``fn`` as Ray tasks, at most ``max_concurrency`` in flight (0: no bound); completion order."""
    import ray

    remote_fn = ray.remote(fn).options(**(resources or {})).remote
    in_flight: list = []
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
            continue
        if max_concurrency and len(in_flight) >= max_concurrency:
            done, in_flight = ray.wait(in_flight)
            yield from ray.get(done)
        in_flight.append(remote_fn(item))
    while in_flight:
        done, in_flight = ray.wait(in_flight)
        yield from ray.get(done)


def filter_items(upstream: Iterator, fn: Callable, shared: SharedMetrics) -> Iterator:
    """Items for which ``fn(item)`` is true, with ``shared``'s metrics current while ``fn`` runs."""
    current = CURRENT
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
            continue
        outer, current.metrics = current.metrics, shared.metrics
        try:
            keep = fn(item)
        finally:
            current.metrics = outer
        if keep:
            yield item


def batch(upstream: Iterator, n: int) -> Iterator:
    """Lists of ``n`` items; the last, partial list too."""
    buffer: list = []
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
            continue
        buffer.append(item)
        if len(buffer) >= n:
            yield buffer
            buffer = []
    if buffer:
        yield buffer


def flatten(upstream: Iterable) -> Iterator:
    """The elements of each item, one by one."""
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
        else:
            yield from item


def shuffle(upstream: Iterator, buffer_size: int, seed: int | None) -> Iterator:
    """Items in random order, drawn from a buffer of ``buffer_size``."""
    rng = random.Random(seed)
    buffer: list = []
    for item in upstream:
        if isinstance(item, NextValueNotReady):
            yield item
            continue
        buffer.append(item)
        if len(buffer) >= buffer_size:
            yield buffer.pop(rng.randrange(len(buffer)))
    while buffer:
        yield buffer.pop(rng.randrange(len(buffer)))
