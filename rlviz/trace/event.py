"""One recorded ``next()`` call, and the dataflow node that made it.

Plain data only, so traces can be read anywhere.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Event", "Node", "NodeTable", "OUTCOMES", "DRIVER", "RESTART_OP", "LOST_OP", "with_upstream"]

#: What a ``next()`` call can end in, in the order of their numeric codes.
OUTCOMES = ("item", "not_ready", "stop", "error")

#: The ``where`` of everything that runs in the driver process.
DRIVER = "driver"
#: The op of the event marking a lane's worker replaced by a new one (the views draw a line there).
RESTART_OP = "worker_restarted"
#: The op of the error event the driver records on a lane whose actor it found dead.
LOST_OP = "actor_lost"


@dataclass(frozen=True)
class Node:
    """A dataflow node: one step of an iterator chain, placed on one process.

    ``parents`` are the op_ids this node pulls from, so a set of nodes is a
    plain description of the dataflow graph.  ``label`` is the chain's name as
    Ray writes it (its ``repr``); ``details`` are ``(key, value)`` facts the
    label leaves out, shown by the inspector: ``round_robin_weights`` (one per
    parent), ``max_concurrency``, ``worker_class``, ``prefetch``, ...

    >>> node = Node("u", "union", "LocalIterator[LocalUnion[...]]", details=(("round_robin_weights", (1, "*")),))
    >>> node.weights, node.to_dict()["details"]
    ((1, '*'), {'round_robin_weights': [1, '*']})
    >>> Node.from_dict(node.to_dict()) == node
    True
    """

    op_id: str
    op: str
    label: str
    where: str = DRIVER
    parents: tuple[str, ...] = ()
    details: tuple[tuple[str, object], ...] = ()

    @property
    def weights(self) -> tuple | None:
        """The round-robin weights of a union node, one per parent (numbers or ``"*"``); None for other nodes."""
        return dict(self.details).get("round_robin_weights")

    def to_dict(self) -> dict:
        """The node as JSON-ready data (``details`` as an object, tuples as lists)."""
        out = {"op_id": self.op_id, "op": self.op, "label": self.label,
               "where": self.where, "parents": list(self.parents)}
        if self.details:
            out["details"] = {key: list(value) if isinstance(value, tuple) else value
                              for key, value in self.details}
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Node":
        """The node ``to_dict`` wrote; data from before ``details`` existed loads with none.

        Raises
        ------
        ValueError
            If ``details`` is not a JSON object.
        """
        details = data.get("details") or {}
        if not isinstance(details, dict):
            raise ValueError(f"node {data.get('op_id')!r} has details of type {type(details).__name__}; "
                             f"expected an object of key: value facts (save the trace again with this rlviz)")
        return cls(data["op_id"], data["op"], data["label"], data["where"], tuple(data.get("parents", ())),
                   tuple((key, tuple(value) if isinstance(value, list) else value) for key, value in details.items()))


class NodeTable:
    """The nodes that several processes' rows name, each once, by op_id: a node's index never changes.

    What a trace being built and a growing store both keep.  A node seen
    again with parents replaces one first seen without (a process that only
    consumed a value names its producer before the producer's own process does).

    >>> table = NodeTable()
    >>> table.add(Node("a", "src", "A")), table.add(Node("b", "map", "B", parents=("a",))), table.add(Node("a", "src", "A"))
    (0, 1, 0)
    """

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._index: dict[str, int] = {}

    def add(self, node: Node) -> int:
        """The index of ``node`` (by op_id), added if new."""
        index = self._index.get(node.op_id)
        if index is None:
            index = self._index[node.op_id] = len(self.nodes)
            self.nodes.append(node)
        elif node.parents and not self.nodes[index].parents:
            self.nodes[index] = node
        return index


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
