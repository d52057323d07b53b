"""Ray's own unit tests of ``ray.util.iter``, run on both ``ray.util.iter`` and ``rlviz.iter``.

These are the 35 tests of ``python/ray/tests/test_iter.py`` in ray-project/ray
at commit 6a2a756f5e6a6969ba9e6c89919e821a04344b48 (the version that tests
``ray.util.iter``), written again here in our own words.  Each test takes the
iterator module as its ``iters`` fixture and checks it against the values Ray's
test expects: the same names (``repr``), items and ordering.  The ``ray`` case
runs while the installed Ray still ships ``ray.util.iter``; the ``rlviz`` case
must always pass.

Three changes from Ray's file, none touching what is checked: one Ray
session is shared by the whole test session (Ray started one per test); the
semaphore actor the concurrency tests use is defined here (Ray's came from
its private test utilities, which no longer have it); and the statistical
part of ``test_local_shuffle`` shuffles 2,000 coin flips instead of 20,000.
Its check (all four pairs 00, 01, 10, 11 follow each other somewhere) is as
certain with 2,000, and each item costs one Ray call per gathered item, which
made that one test take over a minute per module on a busy 2-core machine.

Where the time goes: starting actors.  Each iterator starts its own shard
actors, as in Ray's tests (about 110 per module; 24 in ``test_local_shuffle``,
5 or 6 in each repartition test), and each actor is a new Ray worker
process; the items themselves take seconds in all.  ``tests/conftest.py``
keeps slow imports (``rfc3987_syntax``, 3/4 of a worker's start-up CPU, and
two more of jsonschema's optional format checkers) out of those workers;
docs/performance.md has the measurements.
"""
import asyncio
import collections
import importlib
import time

import pytest
import ray

pytestmark = pytest.mark.usefixtures("ray_local")


def _ray_iter():
    try:
        return importlib.import_module("ray.util.iter")
    except ImportError:  # a Ray without the module: only rlviz's side can run
        pytest.skip("the installed Ray no longer ships ray.util.iter")


@pytest.fixture(params=["ray", "rlviz"])
def iters(request):
    """The iterator module under test: Ray's ``ray.util.iter`` or ``rlviz.iter``."""
    if request.param == "ray":
        return _ray_iter()
    return importlib.import_module("rlviz.iter")


@ray.remote(num_cpus=0)
class Gate:
    """A counting semaphore on an actor: tasks block on it and the test watches how many got in."""

    def __init__(self, value: int) -> None:
        self._sem = asyncio.Semaphore(value)

    async def acquire(self) -> None:
        await self._sem.acquire()

    async def release(self) -> None:
        self._sem.release()

    async def locked(self) -> bool:
        return self._sem.locked()


def test_workers_start_without_jsonschemas_costly_format_checkers():
    """Ray's workers here skip ``rfc3987_syntax`` (``tests/conftest.py``), whose import was 3/4 of each actor's start,
    and ``isoduration`` and ``rfc3986_validator``, another tenth.

    Every iterator below starts new shard actors, each a new worker process;
    with the grammar this file took ~2.5 times as long.
    """
    @ray.remote(num_cpus=0)
    def imported():
        import sys
        return ["jsonschema" in sys.modules] + [name in sys.modules for name in LEFT_OUT]

    assert ray.get(imported.remote()) == [True] + [False] * len(LEFT_OUT)


LEFT_OUT = ("rfc3987_syntax", "isoduration", "rfc3986_validator")


# -- constructors and their names ------------------------------------------------
def test_from_items(iters):
    it = iters.from_items([1, 2, 3, 4])
    assert repr(it) == "ParallelIterator[from_items[int, 4, shards=2]]"
    assert list(it.gather_sync()) == [1, 2, 3, 4]
    assert next(it.gather_sync()) == 1          # a second gather reads the items again


def test_from_items_repeat(iters):
    it = iters.from_items([1, 2, 3, 4], repeat=True)
    assert repr(it) == "ParallelIterator[from_items[int, 4, shards=2, repeat=True]]"
    assert it.take(8) == [1, 2, 3, 4, 1, 2, 3, 4]


def test_from_iterators(iters):
    it = iters.from_iterators([range(2), range(2)])
    assert repr(it) == "ParallelIterator[from_iterators[shards=2]]"
    assert list(it.gather_sync()) == [0, 0, 1, 1]


def test_from_range(iters):
    it = iters.from_range(4)
    assert repr(it) == "ParallelIterator[from_range[4, shards=2]]"
    assert list(it.gather_sync()) == [0, 2, 1, 3]


def test_from_actors(iters):
    @ray.remote
    class Shard(iters.ParallelIteratorWorker):
        def __init__(self, data):
            iters.ParallelIteratorWorker.__init__(self, data, False)

    it = iters.from_actors([Shard.remote([1, 2]), Shard.remote([3, 4])])
    assert repr(it) == "ParallelIterator[from_actors[shards=2]]"
    assert list(it.gather_sync()) == [1, 3, 2, 4]


# -- shard sets ---------------------------------------------------------------------
def test_select_shards(iters):
    it = iters.from_items([1, 2, 3, 4], num_shards=4)
    evens, odds = it.select_shards([0, 2]), it.select_shards([1, 3])
    assert evens.take(4) == [1, 3]
    assert odds.take(4) == [2, 4]


def test_union(iters):
    left = iters.from_items(["a", "b", "c"], 1)
    right = iters.from_items(["x", "y", "z"], 1)
    it = left.union(right)
    assert repr(it) == ("ParallelIterator[ParallelUnion[ParallelIterator[from_items[str, 3, shards=1]], "
                        "ParallelIterator[from_items[str, 3, shards=1]]]]")
    assert list(it.gather_sync()) == ["a", "x", "b", "y", "c", "z"]


def test_remote(iters):
    it = iters.from_iterators([[0, 1], [3, 4], [5, 6, 7]])
    assert it.num_shards() == 3

    @ray.remote
    def read_shard(parallel, i):
        return list(parallel.get_shard(i))

    assert ray.get([read_shard.remote(it, i) for i in range(3)]) == [[0, 1], [3, 4], [5, 6, 7]]

    @ray.remote
    def read_again(parallel):               # every shard is read a second time, from inside a task
        assert ray.get([read_shard.remote(parallel, i) for i in range(3)]) == [[0, 1], [3, 4], [5, 6, 7]]

    ray.get(read_again.remote(it))


# -- remote transforms ---------------------------------------------------------------
def test_transform(iters):
    def doubled(upstream):
        for x in upstream:
            yield x * 2

    def at_least_two(upstream):
        for x in upstream:
            if x >= 2:
                yield x

    it = iters.from_range(4).transform(doubled)
    assert repr(it) == "ParallelIterator[from_range[4, shards=2].transform()]"
    assert list(it.gather_sync()) == [0, 4, 2, 6]
    assert list(iters.from_range(4).gather_sync().transform(at_least_two)) == [2, 3]


def test_for_each(iters):
    it = iters.from_range(4).for_each(lambda x: x * 2)
    assert repr(it) == "ParallelIterator[from_range[4, shards=2].for_each()]"
    assert list(it.gather_sync()) == [0, 4, 2, 6]


def _gated_items(iters):
    """Eight items, each a task that signals ``started`` then waits for ``finish``, run 2 at a time per shard."""
    started, finish = Gate.remote(0), Gate.remote(0)

    def task(item):
        i, started, finish = item
        ray.get(started.release.remote())
        ray.get(finish.acquire.remote())
        return i + 10

    it = iters.from_items([(i, started, finish) for i in range(8)], num_shards=2)
    return it.for_each(task, max_concurrency=2, resources={"num_cpus": 0.01}), started, finish


@ray.remote(num_cpus=0.01)
def _drain(local):
    return list(local)


def test_for_each_concur_async(iters):
    it, started, finish = _gated_items(iters)
    result = _drain.remote(it.gather_async())
    for _ in range(4):                       # two shards, two tasks each
        ray.get(started.acquire.remote())
    assert ray.get(started.locked.remote()) is True, "more than 4 tasks ran at once"
    ray.get(finish.release.remote())         # one task ends: exactly one more starts
    ray.get(started.acquire.remote())
    assert ray.get(started.locked.remote()) is True, "more than 4 tasks ran at once"
    for _ in range(7):
        ray.get(finish.release.remote())
    assert repr(it) == "ParallelIterator[from_items[tuple, 8, shards=2].for_each()]"
    assert set(ray.get(result)) == set(range(10, 18))


def test_for_each_concur_sync(iters):
    it, started, finish = _gated_items(iters)
    result = _drain.remote(it.gather_sync())
    for _ in range(4):
        ray.get(started.acquire.remote())
    assert ray.get(started.locked.remote()) is True, "more than 4 tasks ran at once"
    for _ in range(8):
        ray.get(finish.release.remote())
    assert repr(it) == "ParallelIterator[from_items[tuple, 8, shards=2].for_each()]"
    assert set(ray.get(result)) == set(range(10, 18))


def test_combine(iters):
    it = iters.from_range(4, 1).combine(lambda x: [x, x])
    assert repr(it) == "ParallelIterator[from_range[4, shards=1].combine()]"
    assert list(it.gather_sync()) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_chain(iters):
    it = iters.from_range(4).for_each(lambda x: x * 2).for_each(lambda x: x * 2)
    assert repr(it) == "ParallelIterator[from_range[4, shards=2].for_each().for_each()]"
    assert list(it.gather_sync()) == [0, 8, 4, 12]


def test_filter(iters):
    it = iters.from_range(4).filter(lambda x: x < 3)
    assert repr(it) == "ParallelIterator[from_range[4, shards=2].filter()]"
    assert list(it.gather_sync()) == [0, 2, 1]


def test_batch(iters):
    it = iters.from_range(4, 1).batch(2)
    assert repr(it) == "ParallelIterator[from_range[4, shards=1].batch(2)]"
    assert list(it.gather_sync()) == [[0, 1], [2, 3]]


def test_flatten(iters):
    it = iters.from_items([[1, 2], [3, 4]], 1).flatten()
    assert repr(it) == "ParallelIterator[from_items[list, 2, shards=1].flatten()]"
    assert list(it.gather_sync()) == [1, 2, 3, 4]


def test_local_shuffle(iters):
    it = iters.from_range(8, num_shards=2).local_shuffle(shuffle_buffer_size=2)
    assert repr(it) == "ParallelIterator[from_range[8, shards=2].local_shuffle(shuffle_buffer_size=2, seed=None)]"
    assert set(it.get_shard(0)) == {0, 1, 2, 3}          # nothing lost, nothing moves between shards
    assert set(it.get_shard(1)) == {4, 5, 6, 7}

    first = iters.from_range(100, num_shards=10).local_shuffle(shuffle_buffer_size=5)
    second = iters.from_range(100, num_shards=10).local_shuffle(shuffle_buffer_size=5)
    assert list(first.gather_sync()) != list(second.gather_sync())

    one = iters.from_range(10, num_shards=1).local_shuffle(shuffle_buffer_size=1)
    assert list(one.gather_sync()) == list(range(10))   # a buffer of one cannot reorder

    coins = iters.from_items([0, 1] * 1000, num_shards=1).local_shuffle(shuffle_buffer_size=100)
    text = "".join(coins.gather_sync().for_each(str))
    pairs = collections.Counter(zip(text[:-1], text[1:]))
    assert len(pairs) == 4                               # 00, 01, 10 and 11 all occur
    assert all(count / len(pairs) > 0.2 for count in pairs.values())


# -- repartition ---------------------------------------------------------------------
def test_repartition_less(iters):
    it = iters.from_range(9, num_shards=3).repartition(2).for_each(lambda x: 2 * x)
    assert repr(it) == "ParallelIterator[from_range[9, shards=3].repartition[num_partitions=2].for_each()]"
    assert it.num_shards() == 2
    assert set(it.get_shard(0)) == {0, 4, 6, 10, 12, 16}
    assert set(it.get_shard(1)) == {2, 8, 14}


def test_repartition_more(iters):
    it = iters.from_range(100, 2).repartition(3)
    assert it.num_shards() == 3
    for i in range(3):
        assert set(it.get_shard(i)) == set(range(i, 50, 3)) | set(range(50 + i, 100, 3))


def test_repartition_consistent(iters):
    first = iters.from_range(9, num_shards=1).repartition(2)
    second = iters.from_range(9, num_shards=1).repartition(2)
    both = first.union(second)
    assert (first.num_shards(), second.num_shards(), both.num_shards()) == (2, 2, 4)
    assert set(first.get_shard(0)) == set(second.get_shard(0))
    assert set(first.get_shard(1)) == set(second.get_shard(1))
    assert set(both.gather_async()) == set(first.gather_async()) | set(second.gather_async())


# -- gathers -------------------------------------------------------------------------
def test_gather_sync(iters):
    it = iters.from_range(4).gather_sync()
    assert repr(it) == "LocalIterator[ParallelIterator[from_range[4, shards=2]].gather_sync()]"
    assert sorted(it) == [0, 1, 2, 3]


def test_gather_async(iters):
    it = iters.from_range(4).gather_async()
    assert repr(it) == "LocalIterator[ParallelIterator[from_range[4, shards=2]].gather_async()]"
    assert sorted(it) == [0, 1, 2, 3]


def test_gather_async_optimized(iters):
    it = iters.from_range(100).gather_async(batch_ms=100, num_async=4)
    assert sorted(it) == list(range(100))


def test_get_shard_optimized(iters):
    it = iters.from_range(6, num_shards=3)
    shards = [it.get_shard(shard_index=0, batch_ms=25, num_async=2),
              it.get_shard(shard_index=1, batch_ms=15, num_async=3),
              it.get_shard(shard_index=2, batch_ms=5, num_async=4)]
    assert [list(s) for s in shards] == [[0, 1], [2, 3], [4, 5]]


def test_batch_across_shards(iters):
    it = iters.from_iterators([[0, 1], [2, 3]]).batch_across_shards()
    assert repr(it) == "LocalIterator[ParallelIterator[from_iterators[shards=2]].batch_across_shards()]"
    assert sorted(it) == [[0, 2], [1, 3]]


def test_zip_with_source_actor(iters):
    per_actor = collections.Counter(
        actor for actor, _ in iters.from_items([1, 2, 3, 4], num_shards=2).gather_async().zip_with_source_actor())
    assert len(per_actor) == 2
    assert set(per_actor.values()) == {2}


# -- local iterators: metrics, union, duplicate, serialisation -----------------------
def _counter(iters, key, amount=None):
    """A for_each function adding ``amount`` (the item if None) to counter ``key``; it returns the counter."""
    def add(x):
        counters = iters.LocalIterator.get_metrics().counters
        counters[key] += x if amount is None else amount
        return counters[key]
    return add


def _checks_shared(iters, keys):
    """A for_each function that, from the ``len(keys)``-th item on, sees every counter in ``keys``."""
    def check(x):
        counters = iters.LocalIterator.get_metrics().counters
        counters["n"] += 1
        if counters["n"] >= len(keys):
            assert all(key in counters for key in keys), dict(counters)
        return x
    return check


def test_metrics(iters):
    one = iters.from_items([1, 2, 3, 4], num_shards=1).gather_sync().for_each(_counter(iters, "foo"))
    two = iters.from_items([1, 2, 3, 4], num_shards=1).gather_sync().for_each(_counter(iters, "foo"))
    assert one.take(4) == [1, 3, 6, 10]      # each chain has its own metrics context
    assert two.take(4) == [1, 3, 6, 10]


def test_metrics_union(iters):
    one = iters.from_items([1, 2, 3, 4], num_shards=1).gather_async().for_each(_counter(iters, "foo"))
    two = iters.from_items([1, 2, 3, 4], num_shards=1).gather_async().for_each(_counter(iters, "bar", 100))
    merged = one.union(two, deterministic=True).for_each(_checks_shared(iters, ["foo", "bar"]))
    assert merged.take(10) == [1, 100, 3, 200, 6, 300, 10, 400]


def test_metrics_union_recursive(iters):
    parts = [iters.from_items([1, 2, 3, 4], num_shards=1).gather_async().for_each(_counter(iters, key, 1))
             for key in ("foo", "bar", "baz")]
    nested = parts[0].union(parts[1], deterministic=True).union(parts[2], deterministic=True)
    out = nested.for_each(_checks_shared(iters, ["foo", "bar", "baz"]))
    assert out.take(20) == [1, 1, 1, 2, 2, 3, 2, 4, 3, 3, 4, 4]


def test_union_local(iters):
    letters = iters.from_items(["a", "b", "c"], 1).gather_async()
    digits = iters.from_range(5, 2).for_each(str).gather_async()
    assert sorted(letters.union(digits)) == ["0", "1", "2", "3", "4", "a", "b", "c"]


def _tagged_generators(iters):
    """A fast (50 ms) and a slow (300 ms) one-shard iterator of ten items each, tagged by speed."""
    def fast():
        for i in range(10):
            time.sleep(0.05)
            yield i

    def slow():
        for i in range(10):
            time.sleep(0.3)
            yield i

    return (iters.from_iterators([fast]).for_each(lambda x: ("fast", x)),
            iters.from_iterators([slow]).for_each(lambda x: ("slow", x)))


def test_union_async(iters):
    fast, slow = _tagged_generators(iters)
    results = list(fast.union(slow).gather_async())
    assert all(tag == "slow" for tag, _ in results[-3:]), results


def test_union_local_async(iters):
    fast, slow = _tagged_generators(iters)
    it = fast.gather_async().union(slow.gather_async())
    assert repr(it) == ("LocalIterator[LocalUnion[LocalIterator[ParallelIterator[from_iterators[shards=1]"
                        ".for_each()].gather_async()], LocalIterator[ParallelIterator["
                        "from_iterators[shards=1].for_each()].gather_async()]]]")
    results = list(it)
    assert all(tag == "slow" for tag, _ in results[-3:]), results


def test_duplicate(iters):
    first, second = iters.from_range(5, num_shards=1).gather_sync().duplicate(2)
    merged = first.batch(2).union(second, deterministic=False)
    assert merged.take(20) == [0, [0, 1], 1, 2, [2, 3], 3, 4, [4]]


def test_serialization(iters):
    it = (iters.from_items([1, 2, 3, 4]).gather_sync()
          .for_each(lambda x: x).filter(lambda x: True).batch(2).flatten())
    assert repr(it) == ("LocalIterator[ParallelIterator[from_items[int, 4, shards=2]].gather_sync()"
                        ".for_each().filter().batch(2).flatten()]")

    @ray.remote
    def read(local):
        return list(local)

    assert ray.get(read.remote(it)) == [1, 2, 3, 4]
