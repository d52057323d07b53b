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
