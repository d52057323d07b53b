"""Merging and splitting local streams: ``union`` (with round-robin weights) and ``duplicate``.

Both are sources: they pull from other chains and record which values they
took, so a trace shows the interleaving exactly.  Imports no Ray.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator

from rlviz.iter.chain import Source
from rlviz.iter.instrument import new_node_id
from rlviz.iter.local import LocalIterator
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY, NextValueNotReady
from rlviz.iter.validate import check_positive_int, check_weights
from rlviz.trace.event import DRIVER

__all__ = ["union", "duplicate", "STAR_MAX_PULL"]

#: How many items a "*" child may give in one turn before the next child's turn.
STAR_MAX_PULL = 100


def union(iterators: list[LocalIterator], deterministic: bool = False,
          round_robin_weights: list | None = None) -> LocalIterator:
    """Interleave ``iterators`` round by round.

    Each round every child is pulled up to its weight times (a fractional
    weight ``w`` gives ``int(w)`` pulls plus one more with probability
    ``w - int(w)``; ``"*"`` pulls without blocking, up to ``STAR_MAX_PULL``,
    until nothing is ready).  The first not-ready ends a child's turn; an
    exhausted child is dropped.  With weights, numeric children block and
    ``"*"`` children don't; without weights every weight is 1 and children
    block only if ``deterministic``.  All children share one metrics context.

    Raises
    ------
    TypeError
        If a child is not a LocalIterator.
    ValueError
        If the weights are not one per child, not > 0 or "*", or all "*".
    """
    for index, it in enumerate(iterators):
        if not isinstance(it, LocalIterator):
            raise TypeError(f"union() takes LocalIterators; argument {index} is a "
                            f"{type(it).__name__} (gather a ParallelIterator first)")
    if round_robin_weights is not None:
        check_weights(round_robin_weights, len(iterators))
        weights = list(round_robin_weights)
        timeouts = [0 if w == "*" else None for w in weights]
    else:
        weights = [1] * len(iterators)
        timeouts = [None if deterministic else 0] * len(iterators)
    shared = SharedMetrics(parents=[it.shared_metrics for it in iterators])
    children = [it._rebuilt(t, shared) for it, t in zip(iterators, timeouts)]
    detail = f", round_robin_weights={weights}" if round_robin_weights is not None else (
        ", deterministic=True" if deterministic else "")
    label = f"LocalUnion[{', '.join(map(str, iterators))}{detail}]"

    def open_union(timeout, consumed: list) -> Iterator:
        for child in children:
            child._build_once(consumer=consumed)
        return _round_robin(list(zip(weights, children)), timeout)

    def upstream():
        nodes = [node for child in children for node in child.dataflow(DRIVER)]
        return nodes, tuple(child._chain_nodes(DRIVER)[-1].op_id for child in children)

    return LocalIterator._create(Source("union", new_node_id(), label, open_union, upstream), shared)


def duplicate(parent: LocalIterator, n: int) -> list[LocalIterator]:
    """``n`` children that each see every item of ``parent``, in step.

    A child that is ahead of the slowest one yields not-ready until the others
    catch up, so memory stays bounded.
    """
    check_positive_int("n", n)
    queues: list[deque] = [deque() for _ in range(n)]
    produced_ids: list[int] = []

    def fill(timeout) -> None:
        parent.timeout = timeout
        parent._build_once(consumer=produced_ids)
        item = next(parent)
        item_id = produced_ids.pop() if produced_ids and not isinstance(item, NextValueNotReady) else -1
        for queue in queues:
            queue.append((item_id, item))

    def upstream():
        nodes = parent.dataflow(DRIVER)
        return nodes, (nodes[-1].op_id,)

    def make_open(index: int):
        def open_child(timeout, consumed: list) -> Iterator:
            mine = queues[index]
            while True:
                if len(mine) < max(len(q) for q in queues):
                    yield NOT_READY
                    continue
                if not mine:
                    try:
                        fill(timeout)
                    except StopIteration:
                        return
                item_id, item = mine.popleft()
                if item_id >= 0:
                    consumed.append(item_id)
                yield item
        return open_child

    return [LocalIterator._create(Source("duplicate", new_node_id(), f"{parent}.duplicate[{i}]",
                                         make_open(i), upstream), parent.shared_metrics)
            for i in range(n)]


def _pulls(weight) -> int:
    """How many items a child may give this round."""
    if weight == "*":
        return STAR_MAX_PULL
    whole = int(weight)
    return whole + (1 if random.random() < weight - whole else 0)


def _round_robin(active: list, timeout) -> Iterator:
    while active:
        for entry in list(active):
            weight, child = entry
            try:
                for _ in range(_pulls(weight)):
                    item = next(child)
                    if isinstance(item, NextValueNotReady):
                        if timeout is not None:
                            yield item
                        break
                    yield item
            except StopIteration:
                active.remove(entry)
