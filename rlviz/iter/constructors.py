"""Making ParallelIterators: from items, a range, generators, or existing actors.

Every constructor ends in ``from_actors``-style shard sets, each named as
Ray names it (``from_range[4, shards=2]``); the name is the trace label.  Arguments are checked before
any actor starts.
"""
from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Sequence

from rlviz.iter.actors import track_actor
from rlviz.iter.parallel import ParallelIterator
from rlviz.iter.ray_compat import actor_class_name
from rlviz.iter.shards import ShardSet
from rlviz.checks import check_int
from rlviz.runtime import ensure_ray

__all__ = ["from_items", "from_range", "from_iterators", "from_actors"]


def from_items(items: Sequence, num_shards: int = 2, repeat: bool = False) -> ParallelIterator:
    """Shard a list of items: item ``i`` goes to shard ``i % num_shards``.

    Examples
    --------
    >>> from_items([1, 2, 3, 4], num_shards=2).gather_sync().take(4)
    [1, 2, 3, 4]
    """
    check_int("num_shards", num_shards, minimum=1)
    items = list(items)
    shards = [items[i::num_shards] for i in range(num_shards)]
    kind = type(items[0]).__name__ if items else "None"      # Ray's word for an empty list
    name = f"from_items[{kind}, {len(items)}, shards={num_shards}{', repeat=True' if repeat else ''}]"
    return _from_shards(shards, repeat, name, "from_items")


def from_range(n: int, num_shards: int = 2, repeat: bool = False) -> ParallelIterator:
    """Shard ``range(n)`` into contiguous chunks of ``n // num_shards``; the last takes the rest.

    Examples
    --------
    >>> from_range(5, num_shards=2).get_shard(1).take(5)
    [2, 3, 4]
    """
    check_int("n", n, minimum=0)
    check_int("num_shards", num_shards, minimum=1)
    size = n // num_shards
    shards = [range(i * size, n if i == num_shards - 1 else (i + 1) * size) for i in range(num_shards)]
    name = f"from_range[{n}, shards={num_shards}{', repeat=True' if repeat else ''}]"
    return _from_shards(shards, repeat, name, "from_range")


def from_iterators(generators: Sequence[Iterable | Callable[[], Iterable]], repeat: bool = False,
                   name: str | None = None) -> ParallelIterator:
    """One shard actor per entry: an iterable, or a zero-argument callable returning one.

    Raises
    ------
    TypeError
        For a generator object (it cannot be sent to an actor): pass a lambda.
    ValueError
        For ``repeat=True`` with a one-shot iterator.
    """
    generators = list(generators)
    if not generators:
        raise ValueError("generators is empty; give at least one iterable or callable")
    for index, entry in enumerate(generators):
        if isinstance(entry, types.GeneratorType):
            raise TypeError(f"generators[{index}] is a generator object, which cannot be sent to an "
                            f"actor; pass a function that makes it instead, e.g. lambda: gen()")
        if repeat and iter(entry) is entry if not callable(entry) else False:
            raise ValueError(f"generators[{index}] is a one-shot iterator and cannot repeat; "
                             f"pass the iterable or a lambda returning a fresh iterator")
        if not callable(entry) and not isinstance(entry, Iterable):
            raise TypeError(f"generators[{index}] is a {type(entry).__name__}; expected an iterable "
                            f"or a zero-argument callable returning one")
    label = name or f"from_iterators[shards={len(generators)}{', repeat=True' if repeat else ''}]"
    return _from_shards(generators, repeat, label, "from_iterators")


def from_actors(actors: Sequence, name: str | None = None) -> ParallelIterator:
    """Use existing actors whose class subclasses ``ParallelIteratorWorker`` as shards.

    Raises
    ------
    TypeError
        If an entry is not an actor handle of a ParallelIteratorWorker subclass.
    """
    actors = list(actors)
    if not actors:
        raise ValueError("actors is empty; give at least one actor handle")
    for index, actor in enumerate(actors):
        if not hasattr(actor, "rlviz_init"):
            raise TypeError(f"actors[{index}] ({actor!r}) is not an actor of a "
                            f"ParallelIteratorWorker subclass; subclass rlviz.iter.ParallelIteratorWorker "
                            f"and call its __init__(item_generator, repeat)")
    ensure_ray()
    labels = tuple(track_actor(actor) for actor in actors)
    class_name = actor_class_name(actors[0])
    name = name or f"from_actors[shards={len(actors)}]"
    details = (("worker_class", class_name),)
    return ParallelIterator(ShardSet.of_actors(actors, labels, "from_actors", name, details), name)


def _from_shards(shards: list, repeat: bool, name: str, op: str) -> ParallelIterator:
    """Start one shard actor per entry, as one shard set."""
    return ParallelIterator(ShardSet.launch(shards, repeat, op, name), name)
