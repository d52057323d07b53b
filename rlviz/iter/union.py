"""The sources that merge and split local chains: ``union`` (with round-robin weights) and ``duplicate``.

Both pull from other chains and record which values they took, so a trace
shows the interleaving exactly.  ``LocalIterator.union`` and
``LocalIterator.duplicate`` are their public faces.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator

from rlviz.iter.chain import Chain, NodeId, Source
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY, NextValueNotReady
from rlviz.trace.event import DRIVER

__all__ = ["union_source", "duplicate_sources", "STAR_MAX_PULL"]

#: How many items a "*" child may give in one turn before the next child's turn.
STAR_MAX_PULL = 100


def union_source(chains: list[Chain], weights: list, shared: SharedMetrics, label: str) -> Source:
    """A source pulling ``chains`` round by round, child ``i`` up to ``weights[i]`` times per round.

    The children run with ``shared`` metrics; their values' ids are what the
    union's own node consumed.
    """
    def open_union(timeout, consumed: list) -> Iterator:
        children = [chain.build(shared, consumer=consumed) for chain in chains]
        return _round_robin(list(zip(weights, children)), timeout)

    def upstream():
        nodes = [node for chain in chains for node in chain.dataflow(DRIVER)]
        return nodes, tuple(chain.nodes(DRIVER)[-1].op_id for chain in chains)

    return Source("union", NodeId.new(), label, open_union, upstream)


def duplicate_sources(parent: Chain, shared: SharedMetrics, n: int) -> list[Source]:
    """``n`` sources that each see every value of ``parent``, in step.

    ``parent`` runs once, with the timeout of the child that pulls first; a
    child ahead of the slowest one yields not-ready until the others catch up.
    """
    queues: list[deque] = [deque() for _ in range(n)]
    produced_ids: list[int] = []
    running: list[Iterator] = []

    def fill(timeout) -> None:
        if not running:
            running.append(parent.with_timeout(timeout).build(shared, consumer=produced_ids))
        item = next(running[0])
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

    return [Source("duplicate", NodeId.new(), f"{parent.label}.duplicate[{i}]", make_open(i), upstream)
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
