"""One recorded ``next()`` call, and the dataflow node that made it.

Plain data only, so traces can be read anywhere.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Event", "Node", "OUTCOMES", "DRIVER", "with_upstream"]

#: What a ``next()`` call can end in, in the order of their numeric codes.
OUTCOMES = ("item", "not_ready", "stop", "error")

#: The ``where`` of everything that runs in the driver process.
DRIVER = "driver"


@dataclass(frozen=True)
class Node:
    """A dataflow node: one step of an iterator chain, placed on one process.

    ``parents`` are the op_ids this node pulls from, so a set of nodes is a
    plain description of the dataflow graph.
    """

    op_id: str
    op: str
    label: str
    where: str = DRIVER
    parents: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The node as JSON-ready data."""
        return {"op_id": self.op_id, "op": self.op, "label": self.label,
                "where": self.where, "parents": list(self.parents)}


def with_upstream(indices: Iterable[int], nodes: Sequence[Node]) -> list[int]:
    """``indices`` into ``nodes`` and every node upstream of them (by ``parents``), sorted.

    >>> nodes = [Node("a", "from_range", "src"), Node("b", "for_each", "f", parents=("a",)), Node("c", "x", "x")]
    >>> with_upstream([1], nodes)
    [0, 1]
    """
    by_id = {node.op_id: i for i, node in enumerate(nodes)}
    keep = set(indices)
    frontier = list(keep)
    while frontier:
        for parent in nodes[frontier.pop()].parents:
            index = by_id.get(parent)
            if index is not None and index not in keep:
                keep.add(index)
                frontier.append(index)
    return sorted(keep)


@dataclass(frozen=True)
class Event:
    """One ``next()`` call on one dataflow node.

    Times are epoch nanoseconds on the driver's clock; ``item`` is a short
    summary of the value produced, ``item_id`` names that value so its
    consumers can list it in ``inputs``.  ``why`` is the scheduling decision
    behind a union's pull (round, whose turn, which pull; see
    ``rlviz.trace.decisions``), None for other calls.  ``dropped`` lists the
    inputs the call consumed but did not pass on (a filter's rejected items);
    the value it produced came from the others.
    """

    op: str
    label: str
    op_id: str
    where: str
    pid: int
    start_ns: int
    end_ns: int
    outcome: str
    item: str | None = None
    item_id: int | None = None
    inputs: tuple[int, ...] = field(default=())
    why: str | None = None
    dropped: tuple[int, ...] = field(default=())

    @property
    def kept_inputs(self) -> tuple[int, ...]:
        """The inputs the produced value came from: ``inputs`` without ``dropped``."""
        return tuple(i for i in self.inputs if i not in self.dropped)

    @property
    def duration_ns(self) -> int:
        """How long the call took."""
        return self.end_ns - self.start_ns
