"""The shard set: the actors behind a ParallelIterator, grouped by the chain each group runs.

The gather code owns it: it starts a set (or a subset) by sending each actor
its group's ``Chain`` and names their nodes, including the node each shard
serves a gather's calls on.  See docs/design.md for the picture.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import ray

from rlviz.iter.actors import set_labels, track_actor
from rlviz.iter.chain import Chain, Details, NodeId, Serving, Source, Step
from rlviz.iter.worker import CONCURRENCY_GROUPS, ShardWorker
from rlviz.runtime import check_same_ray, ensure_ray, ray_session
from rlviz.trace.event import Node

__all__ = ["ShardGroup", "ShardSet"]

_SHARD_ACTOR = ray.remote(num_cpus=0, concurrency_groups=CONCURRENCY_GROUPS)(ShardWorker)


@dataclass(frozen=True)
class ShardGroup:
    """Shard actors (and their lane labels) that run one chain."""

    actors: tuple
    labels: tuple[str, ...]
    chain: Chain


@dataclass(frozen=True)
class ShardSet:
    """The shards of a ParallelIterator, in shard order, as one or more groups (after ``union``).

    ``session`` is the Ray the actors were started on (``ray_session()``):
    after a ``ray.shutdown()`` they are gone, and the set says so.
    """

    groups: tuple[ShardGroup, ...]
    session: tuple | None = None

    @classmethod
    def launch(cls, shards: Sequence, repeat: bool, op: str, name: str) -> "ShardSet":
        """Start one rlviz shard actor per entry of ``shards`` (its items) and track their lanes."""
        ensure_ray()
        actors = tuple(_SHARD_ACTOR.remote(shard, repeat) for shard in shards)
        labels = tuple(track_actor(actor, label, control_group=True)
                       for actor, label in zip(actors, set_labels("shard", len(actors))))
        return cls.of_actors(actors, labels, op, name)

    @classmethod
    def of_actors(cls, actors: Sequence, labels: Sequence[str], op: str, name: str,
                  details: Details = ()) -> "ShardSet":
        """One group over running ``actors`` whose source node is ``op``, named ``name`` (Ray's name)."""
        chain = Chain(Source(op, NodeId.new(), name, None, details=details), kind="ParallelIterator")
        return cls((ShardGroup(tuple(actors), tuple(labels), chain),), ray_session())

    # -- what the set is ------------------------------------------------------
    @property
    def actors(self) -> tuple:
        """Every shard actor, in shard order."""
        return tuple(actor for group in self.groups for actor in group.actors)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every shard's lane label, in shard order."""
        return tuple(label for group in self.groups for label in group.labels)

    def __len__(self) -> int:
        return sum(len(group.actors) for group in self.groups)

    def then(self, step: Step) -> "ShardSet":
        """Every group's chain with ``step`` appended."""
        return replace(self, groups=tuple(replace(group, chain=group.chain.then(step)) for group in self.groups))

    def union(self, other: "ShardSet") -> "ShardSet":
        """The shards of both sets, each group keeping its chain."""
        other.check_ray()
        return replace(self, groups=self.groups + other.groups)

    def select(self, indices: Sequence[int]) -> "ShardSet":
        """Only the shards at ``indices`` (of a set with one group)."""
        (group,) = self.groups
        return replace(self, groups=(replace(group, actors=tuple(group.actors[i] for i in indices),
                                             labels=tuple(group.labels[i] for i in indices)),))

    def check_ray(self) -> None:
        """Raise a clear ``RuntimeError`` if the Ray these shards were started on has shut down."""
        check_same_ray(self.session, f"The ParallelIterator over lanes {', '.join(self.labels)}")

    # -- what the gather code does with it -------------------------------------
    def start(self, indices: Sequence[int] | None = None, serving: Serving | None = None) -> list:
        """Send each (chosen) shard its group's chain; return their actors in shard order.

        ``serving`` names the node argument-less ``rlviz_next()`` calls are
        recorded on (a shard serves one gather at a time, as Ray's did).
        """
        self.check_ray()
        chosen = self._placed(indices)
        ray.get([actor.rlviz_init.remote(group.chain, serving) for actor, _, group in chosen])
        return [actor for actor, _, _ in chosen]

    def lane(self, index: int) -> str:
        """The lane label of shard ``index``."""
        return self.labels[index]

    def dataflow(self) -> list[Node]:
        """Every shard's chain as plain ``Node``s, placed on its lane (nothing runs)."""
        return [node for _, label, group in self._placed(None) for node in group.chain.nodes(label)]

    def serving_nodes(self, serving: Serving,
                      indices: Sequence[int] | None = None) -> tuple[list[Node], tuple[str, ...]]:
        """The (chosen) shards' chain nodes plus the node serving ``serving`` on each, and those nodes' ids."""
        nodes, parents = [], []
        for _, label, group in self._placed(indices):
            chain = group.chain.nodes(label)
            last = serving.node(chain[-1])
            nodes += chain + [last]
            parents.append(last.op_id)
        return nodes, tuple(parents)

    def _placed(self, indices: Sequence[int] | None) -> list[tuple[object, str, ShardGroup]]:
        placed = [(actor, label, group) for group in self.groups
                  for actor, label in zip(group.actors, group.labels)]
        return [placed[i] for i in indices] if indices is not None else placed
