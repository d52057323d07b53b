"""ParallelIterator on real Ray actors: constructors, gathers, shard sets, errors."""
import pytest
import ray
from ray.util import iter as ray_iter

from rlviz.iter import (CONCURRENCY_GROUPS, LocalIterator, NextValueNotReady, ParallelIteratorWorker,
                        from_actors, from_items, from_iterators, from_range, track_actor)

pytestmark = pytest.mark.usefixtures("ray_local")


def test_from_items_deals_item_i_to_shard_i_mod_n():
    it = from_items(list(range(7)), num_shards=3)
    assert [list(s) for s in it.shards()] == [[0, 3, 6], [1, 4], [2, 5]]


def test_from_range_chunks_with_remainder_on_last_shard():
    it = from_range(10, num_shards=3)
    assert [list(s) for s in it.shards()] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]


def test_gather_sync_order_matches_ray():
    ours = from_range(11, num_shards=3).for_each(lambda x: x * 2).gather_sync()
    theirs = ray_iter.from_range(11, num_shards=3).for_each(lambda x: x * 2).gather_sync()
    assert list(ours) == list(theirs)


def test_batch_across_shards_drops_exhausted_shards_with_a_partial_round():
    rounds = list(from_items([0, 1, 2, 3, 4], num_shards=2).batch_across_shards())
    assert rounds == [[0, 1], [2, 3], [4]]


def test_gather_async_yields_everything_and_names_the_source_actor():
    it = from_range(20, num_shards=2)
    gathered = it.gather_async(num_async=2).zip_with_source_actor()
    pairs = list(gathered)
    assert sorted(item for _, item in pairs) == list(range(20))
    shard_of = {item: actor for actor, item in pairs}
    actors = it.shard_set.actors
    assert all(shard_of[i] == actors[0] for i in range(10))
    assert all(shard_of[i] == actors[1] for i in range(10, 20))


def test_source_actors_stay_right_when_unioned_streams_share_one_metrics_context():
    """Items arrive in bursts; the other stream's items must not relabel the rest of a burst (Ape-X's replay)."""
    left, right = from_range(200, num_shards=2), from_range(200, num_shards=2)
    merged = left.gather_async().zip_with_source_actor().union(
        right.for_each(lambda x: -x - 1).gather_async().zip_with_source_actor())
    pairs = merged.take(400)
    left_actors, right_actors = set(left.shard_set.actors), set(right.shard_set.actors)
    assert {actor for actor, item in pairs if item >= 0} == left_actors
    assert {actor for actor, item in pairs if item < 0} == right_actors
    for actor, item in pairs:
        shard = (item if item >= 0 else -item - 1) // 100
        assert actor == (left if item >= 0 else right).shard_set.actors[shard]


def test_gather_async_with_batch_ms_still_yields_all_items():
    assert sorted(from_range(30, num_shards=2).gather_async(batch_ms=5).take(30)) == list(range(30))


def test_remote_transforms_run_per_shard():
    it = from_range(8, num_shards=2).filter(lambda x: x % 2 == 0).batch(2)
    assert [list(s) for s in it.shards()] == [[[0, 2]], [[4, 6]]]
    # a list or range shard is read afresh by each new gather, as in Ray (a generator would go on)
    assert list(it.gather_sync()) == [[0, 2], [4, 6]]
    spent = from_iterators([lambda: iter(range(3))])
    assert list(spent.gather_sync()) == [0, 1, 2] and list(spent.gather_sync()) == []
    again = from_range(8, num_shards=2).filter(lambda x: x % 2 == 0).batch(2)
    assert sorted(again.flatten().combine(lambda x: [x, x]).gather_sync()) == [0, 0, 2, 2, 4, 4, 6, 6]
    assert sorted(from_range(6, 2).local_shuffle(3, seed=0).gather_sync()) == list(range(6))


def test_for_each_with_max_concurrency_runs_ray_tasks():
    out = list(from_range(6, 2).for_each(lambda x: x + 100, max_concurrency=2).gather_sync())
    assert sorted(out) == list(range(100, 106))


def test_repartition_deals_items_round_robin_to_new_shards():
    it = from_range(8, num_shards=2).repartition(3)
    assert it.num_shards() == 3
    shards = [sorted(s) for s in it.shards()]
    assert shards == [[0, 3, 4, 7], [1, 5], [2, 6]]


def test_union_select_shards_and_names():
    a, b = from_range(4, 2), from_items(["x", "y"], 1)
    both = a.union(b)
    assert both.num_shards() == 3
    assert sorted(both.gather_sync(), key=str) == [0, 1, 2, 3, "x", "y"]
    assert repr(both) == ("ParallelIterator[ParallelUnion[ParallelIterator[from_range[4, shards=2]], "
                          "ParallelIterator[from_items[str, 2, shards=1]]]]")
    assert list(from_range(4, 2).select_shards([1]).gather_sync()) == [2, 3]
    assert repr(a.for_each(str).batch(2)) == "ParallelIterator[from_range[4, shards=2].for_each().batch(2)]"


def test_from_iterators_with_callables_and_repeat():
    it = from_iterators([lambda: iter([1, 2]), [10]], repeat=True)
    assert it.gather_sync().take(6) == [1, 10, 2, 10, 1, 10]


def test_iterating_a_parallel_iterator_explains_what_to_do():
    it = from_range(4, 2)
    with pytest.raises(TypeError, match="gather_sync.*gather_async"):
        iter(it)
    with pytest.raises(TypeError, match="par_iter_next"):
        next(it)


def test_errors_in_shards_keep_their_type():
    def boom(x):
        if x == 3:
            raise KeyError("three")
        return x

    with pytest.raises(KeyError):
        list(from_range(6, 2).for_each(boom).gather_sync())
    with pytest.raises(KeyError):
        list(from_range(6, 2).for_each(boom).gather_async())


@pytest.mark.parametrize("gather", ["gather_sync", "gather_async"])
def test_items_computed_before_a_shard_error_arrive_before_it(gather):
    def boom(x):
        if x == 5:
            raise KeyError("five")
        return x

    got = []
    with pytest.raises(KeyError):
        for x in getattr(from_range(10, 1).for_each(boom), gather)():
            got.append(x)
    assert got == [0, 1, 2, 3, 4]


@ray.remote(num_cpus=0)
class Counter(ParallelIteratorWorker):
    def __init__(self, start):
        super().__init__(lambda: iter(range(start, start + 3)), repeat=False)


def test_from_actors_uses_custom_workers():
    it = from_actors([Counter.remote(0), Counter.remote(100)])
    assert repr(it) == "ParallelIterator[from_actors[shards=2]]"
    assert dict(it.dataflow()[0].details) == {"worker_class": "Counter"}     # the class: a detail, not the name
    assert list(it.gather_sync()) == [0, 100, 1, 101, 2, 102]


def test_par_iter_next_raises_stop_iteration_at_the_end():
    actor = Counter.remote(5)
    ray.get(actor.par_iter_init.remote([]))
    assert [ray.get(actor.par_iter_next.remote()) for _ in range(3)] == [5, 6, 7]
    with pytest.raises(StopIteration):
        ray.get(actor.par_iter_next.remote())


def test_timeout_makes_gather_non_blocking():
    import time

    def slow(x):
        time.sleep(0.2)
        return x

    it = from_range(2, 1).for_each(slow).gather_async()
    fast = LocalIterator.from_chain(it.chain.with_timeout(0.01), it.shared_metrics)
    first = next(fast)
    assert isinstance(first, NextValueNotReady)
    assert [x for x in fast if not isinstance(x, NextValueNotReady)] == [0, 1]


@ray.remote(num_cpus=0, concurrency_groups=CONCURRENCY_GROUPS)
class Sampler(ParallelIteratorWorker):
    """A worker that streams forever and has weights, like a RolloutWorker."""

    def __init__(self):
        super().__init__(lambda: self._samples(), repeat=False)
        self.weights = 0
        self.sampled = 0

    def _samples(self):
        while True:
            self.sampled += 1
            yield self.weights

    def samples_taken(self):
        return self.sampled

    def set_weights(self, weights):
        self.weights = weights
        return weights


def test_calls_reach_a_worker_while_its_stream_is_paused():
    actor = Sampler.remote()
    track_actor(actor, control_group=True)
    stream = from_actors([actor]).gather_async()
    assert stream.chain.source.upstream()[0][-1].op == "par_iter_next_batch"
    assert next(stream) == 0
    # the stream is now paused on back-pressure; the actor must still answer
    assert ray.get(actor.set_weights.remote(7), timeout=10) == 7
    computed_before = ray.get(actor.samples_taken.remote(), timeout=10)
    # the items computed before the new weights (fast ones share a batch) come first, then the new weights
    after = [next(stream) for _ in range(computed_before + 1)]
    assert 7 in after
    first_new = after.index(7)
    assert set(after[:first_new]) <= {0} and set(after[first_new:]) == {7}


def test_two_gathers_over_the_same_workers_do_not_hang():
    actors = [Sampler.remote(), Sampler.remote()]
    for actor in actors:
        track_actor(actor, control_group=True)
    first = from_actors(actors).gather_async()
    next(first)
    second = from_actors(actors).gather_async()
    assert next(second) == 0


def test_workers_without_rlviz_groups_use_plain_calls():
    it = from_actors([Counter.remote(0), Counter.remote(10)])
    assert sorted(it.gather_async(num_async=2)) == [0, 1, 2, 10, 11, 12]


def test_dropping_a_gather_stops_its_streams():
    import gc
    import time

    actor = Sampler.remote()
    track_actor(actor, control_group=True)
    for _ in range(6):  # more abandoned gathers than the stream group has threads
        stream = from_actors([actor]).gather_async()
        next(stream)
        del stream
        gc.collect()
    time.sleep(0.5)
    before = ray.get(actor.samples_taken.remote())
    time.sleep(0.5)
    assert ray.get(actor.samples_taken.remote()) == before  # no stream keeps sampling for nobody
    assert ray.get(actor.set_weights.remote(3), timeout=10) == 3
    assert next(from_actors([actor]).gather_async()) == 3


def test_a_fifth_live_gather_async_over_the_same_workers_works():
    """An actor serves 4 streams at once; a fifth live gather must not wait for a slot forever."""
    import threading

    actors = [Sampler.remote(), Sampler.remote()]
    for actor in actors:
        track_actor(actor, control_group=True)
    live = []
    for _ in range(4):
        live.append(from_actors(actors).gather_async())
        next(live[-1])
    fifth = from_actors(actors).gather_async()
    got = []
    puller = threading.Thread(target=lambda: got.append(next(fifth)), daemon=True)
    puller.start()
    puller.join(timeout=60)
    assert got == [0], "the fifth gather_async did not deliver within 60 s"
    assert next(live[0]) == 0                  # the four streams still flow


@pytest.mark.parametrize("gather", ["gather_sync", "gather_async", "batch_across_shards"])
def test_an_error_from_a_shard_names_its_lane(gather):
    def boom(x):
        if x == 2:
            raise KeyError("two")
        return x

    it = from_range(4, 1).for_each(boom)
    (lane,) = it.shard_set.labels
    with pytest.raises(KeyError) as caught:
        list(getattr(it, gather)())
    assert any(lane in note for note in getattr(caught.value, "__notes__", [])), caught.value
