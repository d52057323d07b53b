"""Recorded local Concurrently runs for the assertion and diff tests (no Ray needed)."""
import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently


def _endless(name):
    def items(timeout):
        i = 0
        while True:
            yield f"{name}{i}"
            i += 1
    return LocalIterator(items, name=name)


def record_concurrently(weights, items=30):
    """``Concurrently([store.for_each(), train], round_robin_weights=weights)`` over local iterators, recorded."""
    with rlviz.record() as trace:
        Concurrently([_endless("store").for_each(lambda x: x), _endless("train")],
                     round_robin_weights=list(weights)).take(items)
    return trace


def record_with_learning_starts(weights, learning_starts=3, items=30):
    """``Concurrently([store, train])`` where ``train`` is not ready until ``store`` made ``learning_starts`` items."""
    from rlviz.iter import NextValueNotReady

    stored = []

    def store(timeout):
        while True:
            stored.append(len(stored))
            yield f"S{len(stored)}"

    def train(timeout):
        i = 0
        while True:
            if len(stored) < learning_starts:
                yield NextValueNotReady()
                continue
            yield f"T{i}"
            i += 1

    ops = [LocalIterator(source, name=source.__name__).named(source.__name__) for source in (store, train)]
    with rlviz.record() as trace:
        Concurrently(ops, mode="round_robin", round_robin_weights=list(weights)).take(items)
    return trace
