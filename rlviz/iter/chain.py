"""The pieces a lazy chain is made of: a ``Source`` and the ``Step``s after it.

A chain is plain data until it runs: each piece knows its op name, its node id
and how to build its generator, so the same description serves ``next()``,
``dataflow()`` and shipping the chain to a shard actor.  Imports no Ray.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from rlviz.iter.metrics import SharedMetrics
from rlviz.trace.event import DRIVER, Node

__all__ = ["Source", "Step", "localize", "no_upstream", "serve_node"]


def no_upstream() -> tuple[list[Node], tuple[str, ...]]:
    """A source fed by nothing recorded: no upstream nodes, no parents."""
    return [], ()


@dataclass(frozen=True)
class Source:
    """Where a chain's values come from.

    ``open(timeout, consumed)`` returns the base iterator; it appends the ids
    of values it takes from recorded upstream nodes to ``consumed``.
    ``upstream()`` describes those nodes: ``(all upstream nodes, parent ids)``.
    """

    op: str
    node_id: str
    label: str
    open: Callable[[float | None, list], Iterator]
    upstream: Callable[[], tuple[list[Node], tuple[str, ...]]] = field(default=no_upstream)


@dataclass(frozen=True)
class Step:
    """One transform: its op name, the chain's label after it, and its generator.

    ``build(upstream, shared_metrics)`` returns the transformed iterator.
    Calling a step on a ``LocalIterator`` appends it (Ray's ``par_iter_init``
    takes such callables).
    """

    op: str
    node_id: str
    label: str
    build: Callable[[Iterator, SharedMetrics], Iterator]

    def __call__(self, iterator):
        return iterator._then(self)


def localize(node_id: str, where: str) -> str:
    """The id of a node as placed on ``where``: driver ids stay, actor ids get ``@where``."""
    return node_id if where == DRIVER else f"{node_id}@{where}"


def serve_node(serve_id: str, chain_last: Node) -> Node:
    """The node for a shard serving calls ``serve_id`` (``"<gather id>:<op>"``) after ``chain_last``."""
    op = serve_id.rsplit(":", 1)[-1]
    where = chain_last.where
    return Node(localize(serve_id, where), op, f"{chain_last.label}.{op}()", where, (chain_last.op_id,))
