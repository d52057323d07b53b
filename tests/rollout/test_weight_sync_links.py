"""Weight sync as a traced call: the driver's ``sync_weights`` links a learner's update to every worker's
``set_weights``, and each worker's later ``sample`` to the ``set_weights`` it acts with."""
import pytest

import rlviz
from rlviz.plans import Trainer
from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.worker_set import WorkerSet
from rlviz.trace import record, span


def _by_item(trace):
    return {e.item_id: e for e in trace.events if e.item_id is not None and e.item_id >= 0}


def _descendants(trace, start_id):
    """The events reached from item ``start_id`` by following links forward (kept values only)."""
    producers, consumers = trace.links().kept
    events = trace.events
    by_producer = {}
    for p, c in zip(producers.tolist(), consumers.tolist()):
        by_producer.setdefault(events[p].item_id, []).append(events[c])
    seen, frontier = {}, [start_id]
    while frontier:
        for event in by_producer.get(frontier.pop(), ()):
            if event.item_id not in seen:
                seen[event.item_id] = event
                frontier.append(event.item_id)
    return list(seen.values())


def test_a_span_knows_its_id_before_it_ends():
    with record() as trace:
        with span("send") as call:
            promised = call.upcoming_id()
        with span("receive") as receiver:
            receiver.consumed(promised)
    send, receive = trace.events
    assert send.item_id == promised == call.item_id and receive.inputs == (promised,)
    with span("off") as idle:
        assert idle.upcoming_id() == -1, "nothing recorded, no id"


@pytest.fixture(scope="module")
def pg_workers(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy, num_workers=2,
                        config={"rollout_fragment_length": 8, "seed": 0})
    yield workers
    workers.stop()


def test_worker_set_sync_weights_is_a_driver_call_each_set_weights_links_to(pg_workers):
    local = pg_workers.local_worker()
    with rlviz.record() as trace:
        local.learn_on_batch(local.sample())
        pg_workers.sync_weights()
    learn = next(e for e in trace.events if e.op == "learn_on_batch")
    syncs = [e for e in trace.events if e.op == "sync_weights"]
    assert [(s.where, s.inputs) for s in syncs] == [("driver", (learn.item_id,))], "one sync, fed by the update"
    assert syncs[0].item.startswith(f"weights v{local.weights_version}")
    sets = [e for e in trace.events if e.op == "set_weights"]
    assert sorted(e.where for e in sets) == pg_workers.lanes()
    assert all(e.inputs == (syncs[0].item_id,) for e in sets), [e.inputs for e in sets]
    graph = trace.graph()
    assert all(graph.has_edge("sync_weights@driver", f"set_weights@{lane}") for lane in pg_workers.lanes())


@pytest.mark.slow  # a DQN trainer with two torch workers: ~10 s on 2 cores
def test_dqn_syncs_link_each_update_to_the_workers_and_their_next_samples(ray_local):
    trainer = Trainer("dqn", num_workers=2, config={"learning_starts": 16, "timesteps_per_iteration": 48,
                                                    "train_batch_size": 16, "seed": 0})
    try:
        with rlviz.record() as trace:
            trainer.train()
        lanes = trainer.workers.lanes()
    finally:
        trainer.stop()
    events = trace.events
    items = _by_item(trace)
    learns = [e for e in events if e.op == "learn_on_batch"]
    syncs = [e for e in events if e.op == "sync_weights"]
    assert learns and all(s.where == "driver" for s in syncs)
    # TrainOneStep broadcasts once per update: each update feeds exactly one sync, in order
    fed = [s for s in syncs if s.inputs]
    assert [items[s.inputs[0]].op for s in fed] == ["learn_on_batch"] * len(learns)
    assert [s.inputs[0] for s in fed] == [e.item_id for e in learns]
    # every sync reaches each remote worker's set_weights, and nothing else feeds a set_weights
    sets = [e for e in events if e.op == "set_weights"]
    for sync in fed:
        assert sorted(e.where for e in sets if e.inputs == (sync.item_id,)) == lanes
    assert all(items[e.inputs[0]].op == "sync_weights" for e in sets)
    # lineage: from the first update forward to a later sample() on every worker
    reached = _descendants(trace, learns[0].item_id)
    later_samples = {e.where for e in reached if e.op == "sample" and e.start_ns > learns[0].end_ns}
    assert later_samples == set(lanes)
    # the Explorer's inspector reads these links: set_weights' inputs and learn_on_batch's outputs are not empty
    producers, consumers = trace.links().kept
    linked_from = {events[p].op for p in producers.tolist()}
    linked_to = {events[c].op for c in consumers.tolist()}
    assert {"learn_on_batch", "sync_weights", "set_weights"} <= linked_from
    assert {"sync_weights", "set_weights", "sample"} <= linked_to
