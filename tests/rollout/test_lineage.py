"""Lineage that reaches the lesson: from a driver round back to every worker's sample(), past dropped values."""
import pytest

import rlviz
from rlviz.iter import LocalIterator, from_actors
from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.worker_set import WorkerSet
from rlviz.trace import Trace


@pytest.fixture(scope="module")
def workers(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 8, "num_envs_per_worker": 1, "seed": 0},
                        num_workers=3)
    yield workers
    workers.stop()


def _walk_back(trace, start):
    """Every event a value of ``start`` came from, following only the links whose value was kept."""
    producers, consumers = trace.links().kept
    by_consumer = {}
    for p, c in zip(producers.tolist(), consumers.tolist()):
        by_consumer.setdefault(c, []).append(p)
    seen, frontier = set(), [start]
    while frontier:
        for producer in by_consumer.get(frontier.pop(), ()):
            if producer not in seen:
                seen.add(producer)
                frontier.append(producer)
    return [trace.event(i) for i in sorted(seen)]


def test_a_batch_across_shards_round_walks_back_to_sample_on_every_worker(workers):
    rounds = from_actors(workers.remote_workers()).batch_across_shards()
    with rlviz.record() as trace:
        batches = rounds.take(3)
    assert [len(b) for b in batches] == [3, 3, 3]
    worker_lanes = {e.where for e in trace.events if e.op == "par_iter_next"}
    assert len(worker_lanes) == 3
    for index in [i for i, e in enumerate(trace.events) if e.op == "batch_across_shards" and e.outcome == "item"]:
        origins = _walk_back(trace, index)
        samples = [e for e in origins if e.op == "sample"]
        assert {e.where for e in samples} == worker_lanes, "every worker's sample() is reached"
        assert all(e.item.startswith("SampleBatch") for e in samples), [e.item for e in samples]
        assert len(samples) == 3, "one sample() per worker per round, no more"


def test_sample_links_survive_save_and_load(workers, tmp_path):
    with rlviz.record() as trace:
        from_actors(workers.remote_workers()).gather_sync().take(3)
    trace.save(tmp_path / "t.json")
    loaded = Trace.load(tmp_path / "t.json")
    sample_ops = {i for i, e in enumerate(loaded.events) if e.op == "sample"}
    producers, consumers = loaded.links()
    assert len(sample_ops & set(producers.tolist())) == 3


def test_a_filter_marks_what_it_dropped_and_walks_follow_the_kept_value():
    """Like the Replay filter dropping a not-ready None: the kept batch, not the None, is what the item came from."""
    stream = [None, "batch-a", None, None, "batch-b", None]
    with rlviz.record() as trace:
        kept = list(LocalIterator(lambda t: iter(stream)).filter(lambda x: x is not None))
    assert kept == ["batch-a", "batch-b"]
    source = {e.item_id: e.item for e in trace.events if e.op == "source" and e.outcome == "item"}
    calls = [e for e in trace.events if e.op == "filter"]
    assert [e.outcome for e in calls] == ["item", "item", "stop"]
    first, second, end = calls
    assert [source[i] for i in first.inputs] == ["None", "str 'batch-a'"]
    assert [source[i] for i in first.dropped] == ["None"] and [source[i] for i in first.kept_inputs] == ["str 'batch-a'"]
    assert [source[i] for i in second.dropped] == ["None", "None"]
    assert [source[i] for i in second.kept_inputs] == ["str 'batch-b'"]
    assert [source[i] for i in end.dropped] == ["None"], "consumed before the end and dropped"
    links = trace.links()
    assert len(links.dropped) == len(links[0]) == 6 and links.dropped.sum() == 4
    for index in (trace.events.index(first), trace.events.index(second)):
        (origin,) = _walk_back(trace, index)
        assert origin.item.startswith("str 'batch")


def test_dropped_marks_survive_records_and_json(tmp_path):
    with rlviz.record() as trace:
        list(LocalIterator(lambda t: iter(range(6))).filter(lambda x: x % 3 == 2))
    trace.save(tmp_path / "f.json")
    for again in (Trace.load(tmp_path / "f.json"), Trace.from_records(trace.to_records(), trace.nodes)):
        assert [e.dropped for e in again.events] == [e.dropped for e in trace.events]
        assert again.links().dropped.tolist() == trace.links().dropped.tolist()
    assert sum(len(e.dropped) for e in trace.events) == 4


def test_a_shard_filter_marks_dropped_values_too(ray_local):
    from rlviz.iter import from_range

    with rlviz.record() as trace:
        assert sorted(from_range(8, num_shards=2).filter(lambda x: x % 2).gather_sync().take(4)) == [1, 3, 5, 7]
    filters = [e for e in trace.events if e.op == "filter" and e.outcome == "item"]
    assert len(filters) == 4 and all(len(e.dropped) == 1 and len(e.kept_inputs) == 1 for e in filters)
