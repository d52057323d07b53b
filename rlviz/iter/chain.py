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

__all__ = ["NodeId", "Serving", "Source", "Step", "Chain", "Details", "no_upstream"]

#: Facts about a node that its label does not say (a worker class, a ``max_concurrency``,
#: round-robin weights), as ``(key, value)`` pairs; ``Node.details`` carries them to the views.
Details = tuple[tuple[str, object], ...]

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
    """Where a chain's values come from, named as Ray names it (``from_range[4, shards=2]``).

    ``open(timeout, consumed)`` returns the base iterator; it appends the ids
    of values it takes from recorded upstream nodes to ``consumed``.  None
    means "the shard's own items": such a chain runs only on its shard actor,
    which opens it with ``Chain.over``.  ``upstream()`` describes the nodes
    the source reads from: ``(all upstream nodes, parent ids)``.
    """

    op: str
    node_id: NodeId
    name: str
    open: Callable[[float | None, list], Iterator] | None
    upstream: Callable[[], tuple[list[Node], tuple[str, ...]]] = field(default=no_upstream)
    details: Details = ()


@dataclass(frozen=True)
class Step:
    """One transform: its op name, the chain's name after it (Ray's, ``....for_each()``), and its generator.

    ``build(upstream, shared_metrics)`` returns the transformed iterator.
    Calling a step on a ``LocalIterator`` appends it (Ray's ``par_iter_init``
    takes such callables).  ``drops`` marks a step that passes on only the
    last value it consumed for each item (a filter): the trace marks the
    others as dropped.  ``details`` are what the name leaves out (``max_concurrency``).
    """

    op: str
    node_id: NodeId
    name: str
    build: Callable[[Iterator, SharedMetrics], Iterator]
    drops: bool = False
    details: Details = ()

    def __call__(self, iterator):
        return iterator.then(self)


@dataclass(frozen=True)
class Serving:
    """What a gather asks every shard for: the call and its visible options.

    The shard records each such call on one node, placed after its chain's
    last node and labelled ``<chain>.<call>()``; an opt-in such as
    ``prefetch=16`` is one of the node's ``details``, so the inspector shows it.
    """

    gather: NodeId
    call: str
    options: Details = ()

    def node(self, chain_last: Node) -> Node:
        """The serving node on the process of ``chain_last``, fed by it."""
        where = chain_last.where
        return Node(replace(self.gather, serves=self.call).on(where), self.call,
                    f"{chain_last.label}.{self.call}()", where, (chain_last.op_id,), self.options)


@dataclass(frozen=True)
class Chain:
    """A source, its steps, and the timeout the source waits with (None blocks).

    ``kind`` is the class Ray's ``repr`` wraps the name in: ``LocalIterator``
    for a chain on one process, ``ParallelIterator`` for a shard set's chain.
    """

    source: Source
    steps: tuple[Step, ...] = ()
    timeout: float | None = None
    kind: str = "LocalIterator"

    @property
    def name(self) -> str:
        """Ray's name of the whole chain (``from_range[4, shards=2].for_each()``)."""
        return self.steps[-1].name if self.steps else self.source.name

    @property
    def label(self) -> str:
        """Ray's ``repr`` of the whole chain (``ParallelIterator[from_range[4, shards=2].for_each()]``)."""
        return f"{self.kind}[{self.name}]"

    def then(self, step: Step) -> "Chain":
        """This chain with ``step`` appended."""
        return replace(self, steps=self.steps + (step,))

    def with_timeout(self, timeout: float | None) -> "Chain":
        """This chain with another timeout."""
        return replace(self, timeout=timeout)

    def over(self, open_source: Callable[[float | None, list], Iterator]) -> "Chain":
        """This chain reading from ``open_source`` (how a shard actor plugs in its items)."""
        return replace(self, source=replace(self.source, open=open_source))

    def named(self, op: str) -> "Chain":
        """This chain with its last node shown as ``op`` (its label stays Ray's ``repr``)."""
        if self.steps:
            return replace(self, steps=self.steps[:-1] + (replace(self.steps[-1], op=op),))
        return replace(self, source=replace(self.source, op=op))

    def with_details(self, details: Details) -> "Chain":
        """This chain with ``details`` added to its last node's (what an op built on it knows, e.g. its children's names)."""
        if self.steps:
            last = self.steps[-1]
            return replace(self, steps=self.steps[:-1] + (replace(last, details=last.details + tuple(details)),))
        return replace(self, source=replace(self.source, details=self.source.details + tuple(details)))

    def nodes(self, where: str) -> list[Node]:
        """The source and step nodes as placed on ``where``, each labelled with Ray's ``repr`` up to it."""
        _, parents = self.source.upstream()
        source = self.source
        nodes = [Node(source.node_id.on(where), source.op, self._wrap(source.name), where, tuple(parents),
                      source.details)]
        for step in self.steps:
            nodes.append(Node(step.node_id.on(where), step.op, self._wrap(step.name), where, (nodes[-1].op_id,),
                              step.details))
        return nodes

    def _wrap(self, name: str) -> str:
        return f"{self.kind}[{name}]"

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
