"""Bad input fails at construction, naming the argument, before any actor starts."""
import pytest

from rlviz.iter import LocalIterator, from_items, from_iterators, from_range

pytestmark = pytest.mark.usefixtures("ray_local")


def local():
    return LocalIterator(lambda t: range(3))


@pytest.mark.parametrize("make, error, match", [
    (lambda: from_items([1, 2], num_shards=0), ValueError, "num_shards"),
    (lambda: from_range(10, num_shards=-1), ValueError, "num_shards"),
    (lambda: from_range(10, num_shards=2.0), TypeError, "num_shards"),
    (lambda: from_range(-1), ValueError, "n must be"),
    (lambda: local().batch(0), ValueError, "n must be"),
    (lambda: local().shuffle(0), ValueError, "shuffle_buffer_size"),
    (lambda: local().for_each(str, max_concurrency=-1), ValueError, "max_concurrency"),
    (lambda: local().union(local(), round_robin_weights=[1]), ValueError, "2 entries, one per iterator"),
    (lambda: local().union(local(), round_robin_weights=["*", "*"]), ValueError, "all"),
    (lambda: local().union(local(), round_robin_weights=[1, -2]), ValueError, r"round_robin_weights\[1\]"),
    (lambda: local().union(local(), round_robin_weights=[1, float("nan")]), ValueError,
     r"round_robin_weights\[1\] must be a finite.*got nan"),
    (lambda: local().union(local(), round_robin_weights=[1, float("inf")]), ValueError,
     r"round_robin_weights\[1\] must be a finite.*got inf"),
    (lambda: local().union([1, 2]), TypeError, "LocalIterator"),
    (lambda: LocalIterator(range(3)), TypeError, "base_iterator"),
    (lambda: from_iterators([(x for x in range(3))]), TypeError, "generator object"),
    (lambda: from_iterators([iter([1])], repeat=True), ValueError, "one-shot"),
])
def test_bad_local_and_constructor_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.fixture(scope="module")
def shards():
    return from_range(4, num_shards=2)


@pytest.mark.parametrize("call, error, match", [
    (lambda it: it.gather_async(num_async=0), ValueError, "num_async"),
    (lambda it: it.gather_async(batch_ms=-1), ValueError, "batch_ms"),
    (lambda it: it.gather_async(batch_ms=float("inf")), ValueError, "batch_ms must be a finite"),
    (lambda it: it.gather_async(batch_ms=float("nan")), ValueError, "batch_ms must be a finite"),
    (lambda it: it.get_shard(0, batch_ms=float("inf")), ValueError, "batch_ms must be a finite"),
    (lambda it: it.repartition(2, batch_ms=float("inf")), ValueError, "batch_ms must be a finite"),
    (lambda it: it.gather_async(coalesce_ms=float("inf")), ValueError, "coalesce_ms"),
    (lambda it: it.gather_async(coalesce_ms=0), ValueError, "coalesce_ms"),
    (lambda it: it.gather_async(batch_ms=5, coalesce_ms=0.2), ValueError, "only with batch_ms=0"),
    (lambda it: it.gather_sync(prefetch=0), ValueError, "prefetch"),
    (lambda it: it.batch(0), ValueError, "n must be"),
    (lambda it: it.select_shards([2]), ValueError, "shard index 2"),
    (lambda it: it.select_shards([]), ValueError, "empty"),
    (lambda it: it.get_shard(5), ValueError, "shard_index"),
    (lambda it: it.repartition(0), ValueError, "num_partitions"),
    (lambda it: it.union([1]), TypeError, "ParallelIterator"),
])
def test_bad_parallel_arguments(shards, call, error, match):
    with pytest.raises(error, match=match):
        call(shards)
