"""The Explorer's inspector says why each call happened, word for word as Event.why (JS from the payload's decisions
and gauges)."""
import queue
import random

import pytest
from page_replay import NODE, named_op as _op, replay_in_node

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently, Dequeue, Enqueue, Replay, ReplayBuffer
from rlviz.rollout import SampleBatch

IMPORTS = """import { decisionIndex } from "%(static)s/explorer_core.js";
import { eventWhy } from "%(static)s/explorer_gauges.js";"""
BODY = """
const decisions = model.meta.decisions, index = decisionIndex(decisions);
const out = [];
for (let i = 0; i < model.n; i++) out.push(eventWhy(model, decisions, index, i));
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_page_and_python_give_the_same_why_for_every_event(tmp_path):
    random.seed(3)
    with rlviz.record() as trace:
        Concurrently([_op("Store"), _op("Train", not_ready_first=3), _op("Log")],
                     round_robin_weights=[2, 1, "*"], output_indexes=[1]).take(5)
        Concurrently([_op("A"), _op("B", gaps=True)], round_robin_weights=[1, 0.5]).take(30)
        Concurrently([_op("C"), _op("D", gaps=True)], round_robin_weights=[1, "*"]).take(20)
    page = _page_whys(trace, tmp_path)
    python = [trace.why(i) for i in range(len(trace))]
    assert page == python
    sentences = {s for s in python if s}
    assert any("the cap — it is always ready" in s for s in sentences)
    assert any("Train not ready: its turn ends" in s for s in sentences)
    assert any("drew" in s for s in sentences) and any("not ready after" in s for s in sentences)
    assert any("dropped by output_indexes" in s for s in sentences)
    assert any(", after Train was not ready" in s for s in sentences)          # the turn that follows says why


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_replay_not_ready_says_its_cause_on_the_page_as_in_python(tmp_path):
    buffer = ReplayBuffer(capacity=100, learning_starts=1000, replay_batch_size=2, seed=0)

    def store(batch):
        buffer.add_batch(batch)
        return batch

    samples = LocalIterator(lambda timeout: (SampleBatch(t=list(range(406))) for _ in range(99)), name="Sample")
    with rlviz.record() as trace:
        Concurrently([samples.for_each(store).named("Store"), Replay(local_buffer=buffer).named("Learn")],
                     mode="round_robin", output_indexes=[0]).take(12)
    whys = [trace.why(i) for i in range(len(trace))]
    assert _page_whys(trace, tmp_path) == whys
    causes = [why for event, why in zip(trace.events, whys) if event.op == "Learn" and event.outcome == "not_ready"]
    assert causes == ["not ready: replay buffer has 406 of the 1,000 rows learning_starts needs",
                      "not ready: replay buffer has 812 of the 1,000 rows learning_starts needs"]
    assert any(why and why.endswith("Learn not ready: its turn ends, Store next (replay buffer has 812 of the "
                                    "1,000 rows learning_starts needs)") for why in whys)
    # 2 of 11 polls is below the 20% share that notes a mostly-not-ready op, yet the summary names the cause
    assert ("* Learn was not ready in 2 of 11 polls (18%); each ends its turn, so it ran less often than its weight "
            "says; the cause (in 2 of them): replay buffer has between 406 and 812 of the 1,000 rows "
            "learning_starts needs"
            in trace.summary())


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_full_enqueue_and_an_empty_dequeue_say_their_cause_on_the_page_as_in_python(tmp_path):
    full, ready = queue.Queue(maxsize=1), queue.Queue()
    for item in ("a", "b", "c"):
        ready.put(item)
    with rlviz.record() as trace:
        Concurrently([_op("Items").for_each(Enqueue(full)).named("Put"), Dequeue(ready).named("Get")],
                     mode="round_robin").take(4)
        Dequeue(queue.Queue()).named("Idle").take(2)
    whys = [trace.why(i) for i in range(len(trace))]
    assert _page_whys(trace, tmp_path) == whys
    by_op = {}
    for event, why in zip(trace.events, whys):
        if event.outcome == "not_ready":
            by_op.setdefault(event.op, []).append(why)
    assert len(by_op["Put"]) == 2 and all(why.endswith("not ready: its turn ends, Get next (its queue is full: 1 of 1 "
                                                         "items)") for why in by_op["Put"]), by_op["Put"]
    assert by_op["Idle"] == ["not ready: its queue is empty"] * 2


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_filter_that_drops_a_replay_shards_none_says_the_shards_state(tmp_path):
    buffer = ReplayBuffer(capacity=100, learning_starts=30, replay_batch_size=2, seed=0)

    def shard(timeout):                                  # a replay shard: None (and its state) until learning_starts
        while True:
            buffer.add_batch(SampleBatch(t=list(range(10))))
            batch = buffer.replay()
            if batch is None:
                buffer.record_progress()
            yield batch

    with rlviz.record() as trace:
        LocalIterator(shard, name="ReplayShard").filter(lambda batch: batch is not None).take(2)
    whys = [trace.why(i) for i in range(len(trace))]
    assert _page_whys(trace, tmp_path) == whys
    filtered = [why for event, why in zip(trace.events, whys) if event.op == "filter"]
    assert filtered[0] == "dropped an input: replay buffer has 20 of the 30 rows learning_starts needs"
    assert filtered[1] is None                          # the second pull dropped nothing


def _page_whys(trace, tmp_path) -> list:
    """Every event's why as the page says it, from the trace's stream replayed in node."""
    return replay_in_node(trace, tmp_path, IMPORTS, BODY, chunk_events=64)   # several chunks: decisions arrive with theirs
