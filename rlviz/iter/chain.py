"""The chain: one plain value holding a source, the steps after it and the source's timeout.

A ``Chain`` is a description until it runs: it names its dataflow nodes for
the process it runs in, builds the running (recorded) iterator for a consumer,
and is what the driver sends a shard actor, as it is.  See docs/design.md.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from rlviz.iter.instrument import Tap, instrument
from rlviz.iter.metrics import SharedMetrics
from rlviz.trace.event import DRIVER, Node
from rlviz.trace.recorder import get_recorder

__all__ = ["NodeId", "Serving", "Source", "Step", "Chain", "no_upstream"]

_SERIALS = itertools.count(1)


@dataclass(frozen=True)
class NodeId:
    """The identity of a dataflow node, before it is placed on a process.

    ``key`` is unique in the process that made it (``n7``); ``serves`` names
    the call a shard serves for a gather (``par_iter_next``), empty otherwise.
    """

    key: str
    serves: str = ""

    @classmethod
    def new(cls) -> "NodeId":
        """A fresh id for a node made in this process (``n1``, ``n2``, ...)."""
        return cls(f"n{next(_SERIALS)}")

    def on(self, where: str) -> str:
        """The id as placed on ``where``, as traces store it: ``n7``, ``n7:par_iter_next@shard-0``."""
        text = f"{self.key}:{self.serves}" if self.serves else self.key
        return text if where == DRIVER else f"{text}@{where}"


def no_upstream() -> tuple[list[Node], tuple[str, ...]]:
    """A source fed by nothing recorded: no upstream nodes, no parents."""
    return [], ()


@dataclass(frozen=True)
class Source:
    """Where a chain's values come from.

    ``open(timeout, consumed)`` returns the base iterator; it appends the ids
    of values it takes from recorded upstream nodes to ``consumed``.  None
    means "the shard's own items": such a chain runs only on its shard actor,
    which opens it with ``Chain.over``.  ``upstream()`` describes the nodes
    the source reads from: ``(all upstream nodes, parent ids)``.
    """

    op: str
    node_id: NodeId
    label: str
    open: Callable[[float | None, list], Iterator] | None
    upstream: Callable[[], tuple[list[Node], tuple[str, ...]]] = field(default=no_upstream)


@dataclass(frozen=True)
class Step:
    """One transform: its op name, the chain's label after it, and its generator.

    ``build(upstream, shared_metrics)`` returns the transformed iterator.
    Calling a step on a ``LocalIterator`` appends it (Ray's ``par_iter_init``
    takes such callables).  ``drops`` marks a step that passes on only the
    last value it consumed for each item (a filter): the trace marks the
    others as dropped.
    """

    op: str
    node_id: NodeId
    label: str
    build: Callable[[Iterator, SharedMetrics], Iterator]
    drops: bool = False

    def __call__(self, iterator):
        return iterator.then(self)


@dataclass(frozen=True)
class Serving:
    """What a gather asks every shard for: the call and its visible options.

    The shard records each such call on one node, placed after its chain's
    last node and labelled ``<chain>.<call>(<options>)``, so an opt-in such as
    ``prefetch=16`` is visible in the trace.
    """

    gather: NodeId
    call: str
    options: str = ""

    def node(self, chain_last: Node) -> Node:
        """The serving node on the process of ``chain_last``, fed by it."""
        where = chain_last.where
        return Node(replace(self.gather, serves=self.call).on(where), self.call,
                    f"{chain_last.label}.{self.call}({self.options})", where, (chain_last.op_id,))


@dataclass(frozen=True)
class Chain:
    """A source, its steps, and the timeout the source waits with (None blocks)."""

    source: Source
    steps: tuple[Step, ...] = ()
    timeout: float | None = None

    @property
    def label(self) -> str:
        """The readable name of the whole chain."""
        return self.steps[-1].label if self.steps else self.source.label

    def then(self, step: Step) -> "Chain":
        """This chain with ``step`` appended."""
        return replace(self, steps=self.steps + (step,))

    def with_timeout(self, timeout: float | None) -> "Chain":
        """This chain with another timeout."""
        return replace(self, timeout=timeout)

    def over(self, open_source: Callable[[float | None, list], Iterator]) -> "Chain":
        """This chain reading from ``open_source`` (how a shard actor plugs in its items)."""
        return replace(self, source=replace(self.source, open=open_source))

    def named(self, op: str, label: str | None = None) -> "Chain":
        """This chain with its last node shown as ``op`` (and ``label``)."""
        if self.steps:
            last = self.steps[-1]
            return replace(self, steps=self.steps[:-1] + (replace(last, op=op, label=label or last.label),))
        return replace(self, source=replace(self.source, op=op, label=label or self.source.label))

    def nodes(self, where: str) -> list[Node]:
        """The source and step nodes as placed on ``where``."""
        _, parents = self.source.upstream()
        nodes = [Node(self.source.node_id.on(where), self.source.op, self.source.label, where, tuple(parents))]
        for step in self.steps:
            nodes.append(Node(step.node_id.on(where), step.op, step.label, where, (nodes[-1].op_id,)))
        return nodes

    def dataflow(self, where: str = DRIVER) -> list[Node]:
        """Every node feeding this chain's end, upstream ones first."""
        upstream, _ = self.source.upstream()
        return upstream + self.nodes(where)

    def build(self, shared: SharedMetrics, consumer: list | None = None) -> Iterator:
        """The running iterator, every stage recorded; ids of the values it yields go to ``consumer``."""
        return self.build_watched(shared, consumer)[0]

    def build_watched(self, shared: SharedMetrics, consumer: list | None = None) -> tuple[Iterator, Tap]:
        """``build``, plus the last stage's ``Tap``, whose ``failure`` is the exception that ended the run, if any."""
        if self.source.open is None:
            raise RuntimeError(f"{self.label} runs on its shard actors; gather it into a LocalIterator first")
        recorder = get_recorder()
        drops = (False, *(step.drops for step in self.steps))
        taps = [Tap(recorder, recorder.register(node), None, drop)
                for node, drop in zip(self.nodes(recorder.where), drops)]
        for tap, after in zip(taps, taps[1:]):
            tap.downstream = after.pending
        taps[-1].downstream = consumer
        built = instrument(iter(self.source.open(self.timeout, taps[0].pending)), taps[0])
        for step, tap in zip(self.steps, taps[1:]):
            built = instrument(iter(step.build(built, shared)), tap)
        return built, taps[-1]
