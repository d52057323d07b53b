"""Iterators: Ray's ParallelIterator / LocalIterator dataflow, re-created and recorded.

Lazy chains of transforms over shards on Ray actors (``ParallelIterator``)
and over local streams (``LocalIterator``); every ``next()`` call, on the
driver or in a shard, is recorded inside ``rlviz.record()``.
"""
from rlviz.iter.actors import release_actor, track_actor
from rlviz.iter.constructors import from_actors, from_items, from_iterators, from_range
from rlviz.iter.local import LocalIterator
from rlviz.iter.metrics import MetricsContext, SharedMetrics
from rlviz.iter.parallel import ParallelIterator
from rlviz.iter.sentinel import NextValueNotReady
from rlviz.iter.worker import CONCURRENCY_GROUPS, ParallelIteratorWorker

__all__ = ["from_items", "from_range", "from_iterators", "from_actors", "ParallelIterator",
           "LocalIterator", "ParallelIteratorWorker", "SharedMetrics", "MetricsContext",
           "NextValueNotReady", "track_actor", "release_actor", "CONCURRENCY_GROUPS"]
