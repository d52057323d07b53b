"""The sources that merge and split local chains: ``union`` (with round-robin weights) and ``duplicate``.

Both pull from other chains and record which values they took, so a trace
shows the interleaving exactly.  ``LocalIterator.union`` and
``LocalIterator.duplicate`` are their public faces.
"""
from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Iterator

from rlviz.iter.chain import Chain, Details, NodeId, Source
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY, NextValueNotReady
from rlviz.trace.decisions import CAP, DROPPED, STAR, TURN_ENDED, DecisionLog, get_decision_log
from rlviz.trace.event import DRIVER
from rlviz.trace.recorder import Recorder, get_recorder
from rlviz.trace.rows import ITEM, NOT_READY as NOT_READY_CODE, STOP

__all__ = ["union_source", "describe_union", "duplicate_sources", "STAR_MAX_PULL"]

#: How many items a "*" child may give in one turn before the next child's turn.
STAR_MAX_PULL = 100


def union_source(chains: list[Chain], weights: list, shared: SharedMetrics, name: str,
                 details: Details = ()) -> Source:
    """A source named ``name`` pulling ``chains`` round by round, child ``i`` up to ``weights[i]`` times per round.

    ``details`` (the weights as given, ``deterministic``) go on the union's node.
    The children run with ``shared`` metrics; their values' ids are what the
    union's own node consumed.  While recording, every pull of a child
    writes its scheduling decision to the process's ``DecisionLog``
    (``rlviz.trace.decisions``); ``describe_union`` adds what an op built on
    the union knows (its children's names, ``output_indexes``).
    """
    node_id = NodeId.new()
    log = get_decision_log()
    spec = log.describe(node_id.on(DRIVER), children=[chain.nodes(DRIVER)[-1].op for chain in chains],
                        child_ids=[[node.op_id for node in chain.nodes(DRIVER)] for chain in chains],
                        weights=list(weights))

    def open_union(timeout, consumed: list) -> Iterator:
        children = [chain.build(shared, consumer=consumed) for chain in chains]
        turns = [_Turn(i, weight, child) for i, (weight, child) in enumerate(zip(weights, children))]
        return _round_robin(turns, timeout, _Decider(get_recorder(), log, spec))

    def upstream():
        nodes = [node for chain in chains for node in chain.dataflow(DRIVER)]
        return nodes, tuple(chain.nodes(DRIVER)[-1].op_id for chain in chains)

    return Source("union", node_id, name, open_union, upstream, details)


def describe_union(union_op_id: str, **facts) -> None:
    """Tell the decision log more about the union ``union_op_id`` (``children`` names, ``output_indexes``)."""
    get_decision_log().describe(union_op_id, **facts)


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

    return [Source("duplicate", NodeId.new(), f"{parent.name}.duplicate[{i}]", make_open(i), upstream)
            for i in range(n)]


def _pulls(weight) -> int:
    """How many items a child may give this round."""
    if weight == "*":
        return STAR_MAX_PULL
    whole = int(weight)
    return whole + (1 if random.random() < weight - whole else 0)


class _Turn:
    """One child of a union: its index, weight and running iterator."""

    __slots__ = ("index", "weight", "child")

    def __init__(self, index: int, weight, child: Iterator) -> None:
        self.index, self.weight, self.child = index, weight, child


class _Decider:
    """Writes one decision row per pull while the recorder is on."""

    __slots__ = ("recorder", "log", "spec", "round", "dropped")

    def __init__(self, recorder: Recorder, log: DecisionLog, spec: int) -> None:
        self.recorder, self.log, self.spec, self.round = recorder, log, spec, 0
        keep = log.specs[spec]["output_indexes"]          # set when the op was built, before it runs
        self.dropped = frozenset(range(len(log.specs[spec]["children"]))) - frozenset(keep) if keep else frozenset()

    def note(self, turn: _Turn, pull: int, allowed: int, outcome: int, start_ns: int) -> None:
        if not self.recorder.enabled:
            return
        star = turn.weight == "*"
        flags = STAR if star else 0
        if outcome == NOT_READY_CODE:
            flags |= TURN_ENDED
        elif outcome == ITEM:
            if turn.index in self.dropped:
                flags |= DROPPED
            if star and pull == allowed:
                flags |= CAP
        self.log.add(self.spec, self.round, turn.index, pull, allowed, outcome, flags, start_ns, time.time_ns())


def _round_robin(active: list, timeout, decider: _Decider) -> Iterator:
    now = time.time_ns
    while active:
        decider.round += 1
        for turn in list(active):
            allowed = _pulls(turn.weight)
            pull = 0
            try:
                for pull in range(1, allowed + 1):
                    start = now()
                    item = next(turn.child)
                    if isinstance(item, NextValueNotReady):
                        decider.note(turn, pull, allowed, NOT_READY_CODE, start)
                        if timeout is not None:
                            yield item
                        break
                    decider.note(turn, pull, allowed, ITEM, start)
                    yield item
            except StopIteration:
                decider.note(turn, pull, allowed, STOP, start)
                active.remove(turn)
