"""The sources that merge and split local chains: ``union`` (with round-robin weights) and ``duplicate``.

Both pull from other chains and record which values they took, so a trace
shows the interleaving exactly.  ``LocalIterator.union`` and
``LocalIterator.duplicate`` are their public faces.
"""
from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator

from rlviz.iter.chain import Chain, Details, NodeId, Source
from rlviz.iter.metrics import SharedMetrics
from rlviz.iter.sentinel import NOT_READY, NextValueNotReady
from rlviz.trace.decisions import CAP, STAR, TURN_ENDED
from rlviz.trace.event import DRIVER
from rlviz.trace.gate import GATES
from rlviz.trace.recorder import Recorder, Writer, get_recorder
from rlviz.trace.rows import ITEM, NOT_READY as NOT_READY_CODE, STOP

__all__ = ["union_source", "duplicate_sources", "STAR_MAX_PULL"]

#: How many items a "*" child may give in one turn before the next child's turn.
STAR_MAX_PULL = 100


def union_source(chains: list[Chain], weights: list, shared: SharedMetrics, name: str,
                 details: Details = ()) -> Source:
    """A source named ``name`` pulling ``chains`` round by round, child ``i`` up to ``weights[i]`` times per round.

    ``details`` (the weights as given, ``deterministic``) go on the union's node.
    The children run with ``shared`` metrics; their values' ids are what the
    union's own node consumed.  While recording, every pull of a child
    writes its scheduling decision into the child's own rows, right after
    the event of that pull (``rlviz.trace.rows.DECISION``), so it travels
    with the events it explains.
    """
    node_id = NodeId.new()

    def open_union(timeout, consumed: list) -> Iterator:
        recorder = get_recorder()
        built = [chain.build_watched(shared, consumer=consumed) for chain in chains]
        for _, tap in built:
            tap.decided = True              # a pause at its call waits for the decision below (GATES.settle)
        turns = [_Turn(i, weight, child, tap.writer) for i, (weight, (child, tap)) in enumerate(zip(weights, built))]
        return _round_robin(turns, timeout, _Decider(recorder, recorder.index_of(node_id.on(recorder.where))))

    def upstream():
        nodes = [node for chain in chains for node in chain.dataflow(DRIVER)]
        return nodes, tuple(chain.nodes(DRIVER)[-1].op_id for chain in chains)

    return Source("union", node_id, name, open_union, upstream, details)


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
    """One child of a union: its index, weight, running iterator and the writer of its last stage."""

    __slots__ = ("index", "weight", "child", "writer")

    def __init__(self, index: int, weight, child: Iterator, writer: Writer) -> None:
        self.index, self.weight, self.child, self.writer = index, weight, child, writer


class _Decider:
    """Writes one decision row per pull, after the pull's event, while the recorder is on."""

    __slots__ = ("recorder", "node", "round")

    def __init__(self, recorder: Recorder, node: int) -> None:
        self.recorder, self.node, self.round = recorder, node, 0

    def note(self, turn: _Turn, pull: int, allowed: int, outcome: int, recording: bool) -> None:
        """Write the decision behind ``turn``'s pull, if recording was on for the whole pull (so its event exists)."""
        if recording and self.recorder.enabled:
            self._write(turn, pull, allowed, outcome)
        if GATES.armed:
            GATES.settle()

    def _write(self, turn: _Turn, pull: int, allowed: int, outcome: int) -> None:
        star = turn.weight == "*"
        flags = STAR if star else 0
        if outcome == NOT_READY_CODE:
            flags |= TURN_ENDED
        elif outcome == ITEM and star and pull == allowed:
            flags |= CAP
        turn.writer.decide(self.node, self.round, turn.index, pull, allowed, flags)


def _round_robin(active: list, timeout, decider: _Decider) -> Iterator:
    recorder = decider.recorder
    while active:
        decider.round += 1
        for turn in list(active):
            allowed = _pulls(turn.weight)
            pull = 0
            try:
                for pull in range(1, allowed + 1):
                    recording = recorder.enabled
                    item = next(turn.child)
                    if isinstance(item, NextValueNotReady):
                        decider.note(turn, pull, allowed, NOT_READY_CODE, recording)
                        if timeout is not None:
                            yield item
                        break
                    decider.note(turn, pull, allowed, ITEM, recording)
                    yield item
            except StopIteration:
                decider.note(turn, pull, allowed, STOP, recording)
                active.remove(turn)
