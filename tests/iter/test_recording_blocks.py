"""Bookkeeping across record() blocks: own drops only, a capacity that lasts one block, nesting."""
import pytest
from waits import mirrored_events, wait_for, wait_until_dead

import rlviz
from rlviz.iter import LocalIterator, from_range

pytestmark = pytest.mark.usefixtures("ray_local")


def _run_local(n):
    """2 events per item (the source and a for_each), plus the two stop events."""
    list(LocalIterator(lambda t: range(n)).for_each(str))


def test_dropped_counts_only_the_blocks_own_events():
    with rlviz.record(capacity=8192) as first:
        _run_local(3_000)
    with rlviz.record(capacity=8192) as second:
        _run_local(3_000)                       # room is made by evicting the first block's events
    assert first.dropped == 0
    assert len(second) == 6_002 and second.dropped == 0


def test_a_block_that_overflows_still_counts_its_own_drops():
    with rlviz.record(capacity=8192) as trace:
        _run_local(10_000)
    assert len(trace) + trace.dropped == 20_002


def test_a_small_capacity_lasts_for_its_block_only():
    with rlviz.record(capacity=8192):
        _run_local(10)
    with rlviz.record() as trace:
        _run_local(25_000)
        out = from_range(4_000, num_shards=1).gather_sync().take(4_000)
    assert out == list(range(4_000))
    assert trace.dropped == 0
    assert len([e for e in trace.events if e.where != "driver"]) >= 4_000      # the shard kept its 4,000 too
    assert len([e for e in trace.events if e.where == "driver"]) >= 50_002


def test_a_nested_capacity_is_refused_early():
    with rlviz.record():
        with pytest.raises(ValueError, match="capacity=8192 was given to a record\\(\\) block nested"):
            with rlviz.record(capacity=8192):
                pass


def test_the_outer_block_keeps_shard_events_after_an_inner_block_ends():
    with rlviz.record() as outer:
        with rlviz.record() as inner:
            assert from_range(10, num_shards=1).gather_sync().take(10) == list(range(10))
        later = from_range(10, num_shards=2).gather_sync().take(10)    # new shards, after the inner block
    assert sorted(later) == list(range(10))
    inner_end = max(e.end_ns for e in inner.events)
    shard_items_after = [e for e in outer.events if e.where.startswith("shard") and e.start_ns > inner_end
                         and e.outcome == "item" and e.op == "from_range"]
    assert len(shard_items_after) == 10
    assert len([e for e in inner.events if e.where.startswith("shard") and e.op == "from_range"
                and e.outcome == "item"]) == 10


def test_a_killed_shards_lane_keeps_what_it_recorded_before_it_died():
    import ray

    pi = from_range(400, num_shards=2)
    doomed_actor, doomed_label = pi.shard_set.actors[0], pi.shard_set.labels[0]
    it = pi.gather_sync()
    with rlviz.record() as trace:
        assert len(it.take(20)) == 20
        before = len([e for e in trace.events if e.where == doomed_label])     # a live read collects
        ray.kill(doomed_actor)
        wait_until_dead(doomed_actor)                        # it is gone before the block ends
    assert before > 0
    kept = [e for e in trace.events if e.where == doomed_label]
    assert len(kept) >= before


def _collector_threads():
    import threading

    return [t for t in threading.enumerate() if t.name == "rlviz-collector"]


def test_a_killed_shard_keeps_what_the_periodic_pull_saw_without_any_read():
    import ray

    pi = from_range(400, num_shards=2)
    doomed_actor, doomed_label = pi.shard_set.actors[0], pi.shard_set.labels[0]
    it = pi.gather_sync()
    with rlviz.record(collect_every_s=0.1) as trace:
        assert len(it.take(40)) == 40
        wait_for(lambda: len(_served(mirrored_events(doomed_label, trace))) == 20,
                 "the periodic pulls to mirror the 20 items the doomed shard served")   # no read of the trace
        ray.kill(doomed_actor)
        wait_until_dead(doomed_actor)                        # it is gone before the block ends
    served = _served(e for e in trace.events if e.where == doomed_label)
    assert len(served) == 20, "each of the 20 items the dead shard served is on its lane"


def _served(events):
    return [e for e in events if e.outcome == "item" and e.op == "par_iter_next"]


def test_without_periodic_pulls_a_killed_shard_loses_its_lane():
    import ray

    pi = from_range(400, num_shards=2)
    doomed_actor, doomed_label = pi.shard_set.actors[0], pi.shard_set.labels[0]
    it = pi.gather_sync()
    with rlviz.record(collect_every_s=None) as trace:
        assert len(it.take(40)) == 40
        ray.kill(doomed_actor)
        wait_until_dead(doomed_actor)                        # it is gone before the block ends
    assert not [e for e in trace.events if e.where == doomed_label]
    assert [e for e in trace.events if e.where == pi.shard_set.labels[1]], "the live shard is collected"


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), ("1", TypeError)])
def test_a_bad_collect_interval_is_refused_before_recording(bad, error):
    with pytest.raises(error, match="collect_every_s"):
        with rlviz.record(collect_every_s=bad):
            pass
    assert not _collector_threads()


def test_the_collector_thread_ends_with_the_block_even_when_the_block_raises():
    from_range(4, num_shards=1).gather_sync().take(4)      # a tracked actor exists
    with rlviz.record(collect_every_s=0.05):
        assert _collector_threads()
    assert not _collector_threads()
    with pytest.raises(KeyboardInterrupt):
        with rlviz.record(collect_every_s=0.05) as trace:
            from_range(10, num_shards=1).gather_sync().take(5)
            raise KeyboardInterrupt
    assert not _collector_threads()
    assert len([e for e in trace.events if e.op == "gather_sync" and e.outcome == "item"]) >= 5
