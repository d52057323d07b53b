"""The guide "Are my ops called in the right order and frequency?" (docs/guide_op_order.md), as a user's test file.

Three ops under Concurrently over two real CartPole rollout workers: store,
train (replay below learning_starts is not ready) and an always-ready log op.
"""
import itertools

import pytest

import rlviz
from rlviz.iter import LocalIterator
from rlviz.ops import Concurrently, ParallelRollouts, Replay, ReplayBuffer, StoreToReplayBuffer, TrainOneStep
from rlviz.rollout import DQNPolicy, WorkerSet
from rlviz.testing import assert_order, assert_ratio
from rlviz.viz import plot_order

OPS = ["StoreToReplayBuffer", "TrainOneStep", "LogMetrics"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workers(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=DQNPolicy,
                        config={"lr": 1e-3, "epsilon_timesteps": 2000, "rollout_fragment_length": 4, "seed": 0},
                        num_workers=2)
    yield workers
    workers.stop()


def run(workers, weights, items=120):
    buffer = ReplayBuffer(capacity=10_000, learning_starts=64, replay_batch_size=32, seed=0)
    store_op = ParallelRollouts(workers, mode="bulk_sync").for_each(StoreToReplayBuffer(local_buffer=buffer))
    train_op = Replay(local_buffer=buffer).for_each(TrainOneStep(workers))
    log_op = LocalIterator(lambda timeout: itertools.count(), name="LogMetrics").named("LogMetrics")
    plan = Concurrently([store_op, train_op, log_op], mode="round_robin", round_robin_weights=weights)
    with rlviz.record() as trace:
        plan.take(items)
    return trace


def test_the_policy_got_its_config(workers):
    config = workers.local_worker().policy_map["default_policy"].config
    assert (config.lr, config.epsilon_timesteps) == (1e-3, 2000)


def test_equal_weights_give_one_of_each_per_round_once_replay_is_ready(workers):
    trace = run(workers, [1, 1, 1])
    assert_order(trace, OPS, ["StoreToReplayBuffer", "TrainOneStep?", "LogMetrics"])
    assert_order(trace, OPS, OPS, skip="warmup")
    assert_ratio(trace, OPS, [1, 1, 1], skip="warmup")
    with pytest.raises(AssertionError, match="expected 1 : 1 : 1 within 5%"):
        assert_ratio(trace, OPS, [1, 1, 1])              # the not-ready rounds count without skip
    polls = [e for e in trace.events if e.op == "TrainOneStep" and e.outcome == "not_ready"]
    assert len(polls) == 7                               # 7 rounds x 8 steps < learning_starts=64
    assert polls[0].why == ("round 1: TrainOneStep not ready: its turn ends, LogMetrics next "
                            "(replay buffer has 8 of the 64 rows learning_starts needs)")
    assert polls[2].why == ("round 3: TrainOneStep not ready: its turn ends, LogMetrics next "   # the guide's example
                            "(replay buffer has 24 of the 64 rows learning_starts needs)")
    title = plot_order(trace, ops=OPS).get_title(loc="left")
    assert "TrainOneStep (35 items, 7 not ready)" in title


def test_two_stores_per_round(workers):
    trace = run(workers, [2, 1, 1])
    one_round = ["StoreToReplayBuffer", "StoreToReplayBuffer", "TrainOneStep", "LogMetrics"]
    assert_order(trace, OPS, one_round, skip="warmup")
    assert_ratio(trace, OPS, [2, 1, 1], skip="warmup")
    assert sum(e.op == "TrainOneStep" and e.outcome == "not_ready" for e in trace.events) == 3


def test_an_always_ready_star_op_takes_the_cap_every_round(workers):
    trace = run(workers, [2, 1, "*"], items=250)          # rounds of 2 + 1 + 100: 2 whole rounds and a cut one
    assert_order(trace, OPS, ["StoreToReplayBuffer", "StoreToReplayBuffer", "TrainOneStep?", "LogMetrics*"])
    capped = [e.why for e in trace.events if e.op == "LogMetrics" and e.why and "the cap" in e.why]
    assert capped == [f"round {r}: LogMetrics ('*'): 100th pull this turn, the cap — it is always ready; "
                      f"next StoreToReplayBuffer" for r in (1, 2)]
    assert "LogMetrics ('*') hit its cap of 100 pulls in 2 of 3 turns" in trace.summary()
    with pytest.raises(AssertionError, match="recorded order leaves the pattern"):
        assert_order(trace, OPS, ["StoreToReplayBuffer", "StoreToReplayBuffer", "TrainOneStep?", "LogMetrics"])
