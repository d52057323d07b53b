"""What rlviz.record() sees from real shards: lanes, ops, links between processes, bounds."""
import pytest

import rlviz
from rlviz.iter import LocalIterator, from_range

pytestmark = pytest.mark.usefixtures("ray_local")


def test_record_collects_driver_and_shard_events_with_links():
    with rlviz.record() as trace:
        out = from_range(6, num_shards=2).for_each(lambda x: x + 1).gather_sync().for_each(lambda x: x * 2).take(6)
    assert out == [2, 8, 4, 10, 6, 12]
    events = trace.events
    lanes = {e.where for e in events}
    assert "driver" in lanes and len(lanes - {"driver"}) == 2
    ops = {(e.where != "driver", e.op) for e in events}
    assert {(True, "from_range"), (True, "for_each"), (True, "par_iter_next"),
            (False, "gather_sync"), (False, "for_each")} <= ops
    gathered = [e for e in events if e.op == "gather_sync" and e.outcome == "item"]
    assert [e.item for e in gathered] == ["int 1", "int 4", "int 2", "int 5", "int 3", "int 6"]
    producers = {e.item_id: e for e in events if e.item_id is not None}
    # every value the driver gathered was produced by a shard's serving call
    for event in gathered:
        (source,) = event.inputs
        assert producers[source].op == "par_iter_next" and producers[source].where != "driver"
    graph = trace.graph()
    gather = next(n for n, d in graph.nodes(data=True) if d["op"] == "gather_sync")
    assert sum(graph.edges[u, gather]["items"] for u in graph.predecessors(gather)) == 6


@pytest.mark.parametrize("every", [2, 4, 7])
def test_a_filter_event_lists_every_item_it_consumed(every):
    """2 inputs take the inline path, 4 and 7 one or two continuation rows."""
    with rlviz.record() as trace:
        kept = list(LocalIterator(lambda t: range(3 * every)).filter(lambda x: x % every == every - 1))
    assert kept == [every - 1, 2 * every - 1, 3 * every - 1]
    value_of = {e.item_id: int(e.item.split()[1]) for e in trace.events
                if e.op == "source" and e.outcome == "item"}
    filtered = [e for e in trace.events if e.op == "filter" and e.outcome == "item"]
    assert [[value_of[i] for i in e.inputs] for e in filtered] == [
        list(range(k * every, (k + 1) * every)) for k in range(3)]


def test_local_events_carry_item_summaries_and_times():
    with rlviz.record() as trace:
        list(LocalIterator(lambda t: range(4)).batch(3))
    batches = [e for e in trace.events if e.op == "batch" and e.outcome == "item"]
    assert [e.item for e in batches] == ["list[3]", "list[1]"]
    assert all(e.end_ns >= e.start_ns > 0 for e in trace.events)
    assert trace.events[-1].outcome == "stop"


def test_nothing_is_recorded_outside_a_block():
    list(LocalIterator(lambda t: range(3)).for_each(str))
    with rlviz.record() as trace:
        pass
    assert len(trace) == 0


def test_live_trace_fills_while_the_block_runs():
    it = LocalIterator(lambda t: range(10)).for_each(str)
    with rlviz.record() as trace:
        next(it)
        seen_early = len(trace)
        list(it)
    assert 0 < seen_early < len(trace)


def test_capacity_keeps_the_newest_and_counts_drops():
    with rlviz.record(capacity=10_000) as trace:
        list(LocalIterator(lambda t: range(20_000)).for_each(str))
    assert len(trace) <= 10_000
    assert trace.dropped >= 40_000 - 10_000
    assert trace.events[-1].outcome == "stop"
    assert "dropped" in trace.summary()
    rlviz.trace.get_recorder().set_capacity(1_000_000)


def test_sequence_shows_the_union_order():
    a = LocalIterator(lambda t: iter(["a"] * 4), name="A")
    b = LocalIterator(lambda t: iter(["b"] * 4), name="B")
    with rlviz.record() as trace:
        list(a.union(b, round_robin_weights=[1, 2]))
    assert trace.sequence(ops=["A", "B"], by="op") == ["A", "B", "B", "A", "B", "B", "A", "A"]
    assert trace.sequence(ops=["A"]) == ["LocalIterator[A]"] * 4        # labels: Ray's names


def test_dataflow_is_available_before_running():
    it = from_range(4, num_shards=2).for_each(str).gather_sync().batch(2)
    nodes = it.dataflow()
    by_where = {}
    for node in nodes:
        by_where.setdefault(node.where, []).append(node.op)
    assert by_where["driver"] == ["gather_sync", "batch"]
    assert sorted(len(ops) for where, ops in by_where.items() if where != "driver") == [3, 3]
    ids = {n.op_id for n in nodes}
    assert all(parent in ids for n in nodes for parent in n.parents)


def test_links_survive_clearing_the_recorder_mid_chain():
    from rlviz.iter import SharedMetrics
    from rlviz.trace import get_recorder
    from rlviz.trace.rows import CHUNK_EVENTS

    n = 3 * CHUNK_EVENTS                           # past the id block of the chunk left open by clear()
    chain = LocalIterator(lambda timeout=None: iter(range(n)), SharedMetrics()).for_each(lambda x: -x)
    with rlviz.record() as trace:
        head = [next(chain) for _ in range(100)]
        get_recorder().clear()
        tail = list(chain)
    assert head + tail == [-x for x in range(n)]
    producers = {e.item_id: e for e in trace.events if e.item_id is not None}
    assert len(producers) == sum(e.item_id is not None for e in trace.events), "item ids are unique"
    mapped = [e for e in trace.events if e.op == "for_each" and e.outcome == "item"]
    assert len(mapped) == n - 100, "events before clear() are gone, every later one is kept"
    for event in mapped:
        (source,) = event.inputs
        assert producers[source].item == "int " + event.item.split()[1].lstrip("-")


def _serving_events(trace):
    return [e for e in trace.events if e.where != "driver" and e.op.startswith("par_iter_next")]


def test_gather_sync_by_default_makes_one_par_iter_next_per_shard_per_round():
    """Ray 1.x's call pattern: a serving call yields exactly one item, and no shard runs ahead of a round."""
    with rlviz.record() as trace:
        gathered = from_range(12, num_shards=3).gather_sync()
        assert gathered.take(12) == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    served = [e for e in _serving_events(trace) if e.outcome == "item"]
    assert {e.op for e in served} == {"par_iter_next"} and len(served) == 12
    assert all(len(trace.inputs_of(i)) <= 1 for i in range(len(trace)))
    (node,) = [n for n in trace.nodes if n.op == "gather_sync"]
    assert node.label == "LocalIterator[ParallelIterator[from_range[12, shards=3]].gather_sync()]"


def test_prefetch_is_opt_in_and_a_detail_of_the_nodes_ray_names_kept():
    with rlviz.record() as trace:
        assert from_range(12, num_shards=2).gather_sync(prefetch=4).take(12) == [0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]
    serving = [n for n in trace.nodes if n.op == "par_iter_next_batch"]
    assert serving and all(n.label.endswith(".par_iter_next_batch()") for n in serving)
    assert all(dict(n.details) == {"prefetch": 4} for n in serving)
    (gather,) = [n for n in trace.nodes if n.op == "gather_sync"]
    assert gather.label == "LocalIterator[ParallelIterator[from_range[12, shards=2]].gather_sync()]"
    assert dict(gather.details) == {"prefetch": 4}


def test_gather_async_by_default_answers_one_item_per_call_and_coalescing_is_opt_in():
    with rlviz.record() as trace:
        assert sorted(from_range(40, num_shards=2).gather_async()) == list(range(40))
    driver = [e for e in trace.events if e.op == "gather_async" and e.outcome == "item"]
    served = [e for e in _serving_events(trace) if e.outcome == "item"]
    assert len(served) == 40 and len(driver) == 40
    assert all(n.label.endswith(".par_iter_next_batch()") for n in trace.nodes if n.op == "par_iter_next_batch")
    with rlviz.record() as coalesced:
        assert sorted(from_range(40, num_shards=2).gather_async(coalesce_ms=50)) == list(range(40))
    nodes = [n for n in coalesced.nodes if n.op in ("par_iter_next_batch", "gather_async")]
    assert nodes and all(dict(n.details)["coalesce_ms"] == 50 for n in nodes)
    assert all(n.label.endswith(("gather_async()]", "par_iter_next_batch()")) for n in nodes)


def test_a_value_retried_after_not_ready_links_to_the_call_that_used_it():
    """An Enqueue on a full queue answers not-ready and is retried: the successful call lists the input."""
    import queue

    from rlviz.ops import Enqueue

    full = queue.Queue(maxsize=2)
    enqueue = Enqueue(full)
    it = LocalIterator(lambda t: range(4)).for_each(enqueue)
    with rlviz.record() as trace:
        pulls = [next(it), next(it), next(it)]          # 0 and 1 fit; 2 finds the queue full
        full.get_nowait()
        pulls.append(next(it))                          # the retry puts 2
    assert pulls[:2] == [0, 1] and pulls[3] == 2
    source_value = {e.item_id: e.item for e in trace.events if e.op == "source" and e.outcome == "item"}
    calls = [e for e in trace.events if e.op == "Enqueue"]
    assert [e.outcome for e in calls] == ["item", "item", "not_ready", "item"]
    assert calls[2].inputs == ()
    assert [source_value[i] for i in calls[3].inputs] == ["int 2"]


def _in_flight(trace) -> dict[str, list[float]]:
    """The 'gathers in flight' gauge's readings per shard lane, in time order."""
    from rlviz.trace.gauges import GATHERS_IN_FLIGHT
    readings = trace.gauges[GATHERS_IN_FLIGHT]
    lanes = dict.fromkeys(readings.where.tolist())
    return {lane: readings.value[readings.where == lane].tolist() for lane in lanes}


def test_the_barrier_gauges_at_most_one_call_in_flight_per_shard_until_its_shards_end():
    with rlviz.record() as trace:
        assert sorted(from_range(12, num_shards=3).gather_sync()) == list(range(12))
    in_flight = _in_flight(trace)
    assert set(in_flight) == {e.where for e in _serving_events(trace)}, "one track per shard, on the shard's lane"
    assert all(values == [1, 0] for values in in_flight.values()), in_flight


def test_gather_async_gauges_num_async_calls_in_flight_per_shard_until_it_ends():
    with rlviz.record() as trace:
        assert sorted(from_range(40, num_shards=2).gather_async(num_async=3)) == list(range(40))
    in_flight = _in_flight(trace)
    assert set(in_flight) == {e.where for e in _serving_events(trace)}
    assert all(values == [3, 0] for values in in_flight.values()), in_flight


def test_a_barrier_closed_mid_round_gauges_its_calls_as_no_longer_in_flight():
    """A gather given up while a round is out (a union pulled it without blocking) falls back to 0 calls in flight."""
    import gc
    import time

    with rlviz.record() as trace:
        slow = from_range(4, num_shards=2).for_each(lambda x: time.sleep(2) or x).gather_sync()
        union = iter(slow.union(LocalIterator(lambda timeout: iter(range(100)), name="fast")))
        assert next(union) == 0                          # the slow gather was not ready: its round is still out
        del union, slow
        gc.collect()                                      # the union and its gather are closed
        in_flight = _in_flight(trace)
    assert in_flight and all(values == [1, 0] for values in in_flight.values()), in_flight
