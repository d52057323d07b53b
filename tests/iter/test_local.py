"""LocalIterator: transforms, names, not-ready, metrics, union and duplicate (no Ray needed)."""
import pytest
from ray.util.iter import LocalIterator as RayLocalIterator
from ray.util.iter import SharedMetrics as RaySharedMetrics

from rlviz.iter import LocalIterator, NextValueNotReady, SharedMetrics


def local(items):
    return LocalIterator(lambda timeout: iter(items), SharedMetrics())


def ray_local(items):
    return RayLocalIterator(lambda timeout=None: iter(items), RaySharedMetrics())


CHAINS = {
    "for_each": lambda it: it.for_each(lambda x: x * 3),
    "filter": lambda it: it.filter(lambda x: x % 3 == 1),
    "batch": lambda it: it.batch(4),
    "batch_flatten": lambda it: it.batch(3).flatten(),
    "combine": lambda it: it.combine(lambda x: [x, -x]),
    "shuffle": lambda it: it.shuffle(5, seed=3),
    "transform": lambda it: it.transform(lambda up: (x + 1 for x in up)),
}


@pytest.mark.parametrize("name", CHAINS)
def test_transforms_match_ray(name):
    chain = CHAINS[name]
    ours = list(chain(local(range(17))))
    if name == "shuffle":  # same algorithm, our own RNG use: compare as multisets
        assert sorted(ours) == sorted(chain(ray_local(range(17))))
        assert ours != list(range(17))
    else:
        assert ours == list(chain(ray_local(range(17))))


def test_names_extend_with_each_step():
    it = local([1])
    assert repr(it) == "LocalIterator[unknown]"
    it = it.for_each(str)
    assert repr(it) == "LocalIterator[unknown.for_each()]"
    assert repr(it.batch(4).flatten()) == "LocalIterator[unknown.for_each().batch(4).flatten()]"
    assert repr(it.shuffle(3, seed=1)) == "LocalIterator[unknown.for_each().shuffle(shuffle_buffer_size=3, seed=1)]"


def test_transforms_do_not_mutate_their_parent():
    base = local(range(4))
    doubled = base.for_each(lambda x: x * 2)
    assert list(base) == [0, 1, 2, 3]
    assert list(doubled) == [0, 2, 4, 6]


def test_not_ready_passes_through_every_transform():
    not_ready = NextValueNotReady()
    items = [1, not_ready, 2, 3]
    out = list(local(items).for_each(lambda x: x * 10).filter(lambda x: x > 10).batch(5).flatten())
    assert out[0] is not_ready or isinstance(out[0], NextValueNotReady)
    assert out[1:] == [20, 30]


def test_for_each_retries_a_not_ready_result():
    attempts = []

    def flaky(x):
        attempts.append(x)
        return NextValueNotReady() if len(attempts) % 2 else x

    out = list(local([5, 6]).for_each(flaky))
    assert [type(v).__name__ for v in out] == ["NextValueNotReady", "int", "NextValueNotReady", "int"]
    assert [v for v in out if isinstance(v, int)] == [5, 6]
    assert attempts == [5, 5, 6, 6]


def test_get_metrics_inside_and_outside():
    def count(x):
        LocalIterator.get_metrics().counters["seen"] += 1
        return x

    it = local(range(3)).for_each(count)
    list(it)
    assert it.shared_metrics.get().counters["seen"] == 3
    with pytest.raises(ValueError, match="outside an iterator function"):
        LocalIterator.get_metrics()


def test_zip_with_source_actor_without_async_gather_is_a_clear_error():
    with pytest.raises(ValueError, match="gather_async"):
        next(local([1]).zip_with_source_actor())


def test_take_and_show(capsys):
    assert local(range(10)).take(3) == [0, 1, 2]
    assert local(range(2)).take(5) == [0, 1]
    local(["a", "b"]).show()
    assert capsys.readouterr().out == "a\nb\n"


def _interleave(weights, lengths=(6, 6)):
    iterators = [local([f"{chr(97 + k)}{i}" for i in range(n)]) for k, n in enumerate(lengths)]
    return list(iterators[0].union(*iterators[1:], round_robin_weights=weights))


@pytest.mark.parametrize("weights, expected_prefix", [
    ([1, 1], ["a0", "b0", "a1", "b1", "a2", "b2"]),
    ([2, 1], ["a0", "a1", "b0", "a2", "a3", "b1"]),
    ([1, 3], ["a0", "b0", "b1", "b2", "a1", "b3"]),
])
def test_union_round_robin_weights_interleave_exactly(weights, expected_prefix):
    out = _interleave(weights)
    assert out[:6] == expected_prefix
    assert sorted(out) == sorted([f"a{i}" for i in range(6)] + [f"b{i}" for i in range(6)])


def test_union_star_weight_drains_what_is_ready_without_blocking():
    out = _interleave([1, "*"], lengths=(3, 5))
    assert out == ["a0", "b0", "b1", "b2", "b3", "b4", "a1", "a2"]


def test_union_matches_ray_for_deterministic_weights():
    for weights in ([1, 1], [2, 1], [1, 3], [1, "*"]):
        ours = list(local(range(7)).union(local(range(100, 104)), round_robin_weights=weights))
        theirs = list(ray_local(range(7)).union(ray_local(range(100, 104)), round_robin_weights=weights))
        assert ours == theirs, weights


def test_union_fractional_weight_averages_out():
    out = list(local(["a"] * 3000).union(local(["b"] * 3000), round_robin_weights=[1, 0.5]))
    first = out[:1500]
    ratio = first.count("b") / first.count("a")
    assert 0.4 < ratio < 0.6


def test_union_shares_one_metrics_context():
    a, b = local([1]), local([2])
    merged = a.union(b, deterministic=True)
    list(merged)
    assert a.shared_metrics.get() is merged.shared_metrics.get() is b.shared_metrics.get()


def test_duplicate_children_see_everything_and_stay_in_step():
    first, second = local(range(3)).duplicate(2)
    assert next(first) == 0
    assert isinstance(next(first), NextValueNotReady)  # ahead: waits for the other child
    assert [next(second), next(second)] == [0, 1]
    assert [next(first), next(first)] == [1, 2]
    assert isinstance(next(first), NextValueNotReady)
    assert next(second) == 2
    with pytest.raises(StopIteration):
        next(first)
