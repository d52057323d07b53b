"""WorkerSet on local Ray: weight sync, async calls, crashes and recreation, recording, gather_async."""
import numpy as np
import pytest
from waits import wait_until_dead
import ray

import rlviz
from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.random_policy import RandomPolicy
from rlviz.rollout.worker_set import WorkerCrashedError, WorkerSet


@pytest.fixture(scope="module")
def pg_workers(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 8, "num_envs_per_worker": 2, "seed": 0},
                        num_workers=2)
    yield workers
    workers.stop()


def _first_bias(weights):
    return weights["default_policy"]["pi.0.bias"].copy()


def test_every_worker_samples(pg_workers):
    batches = pg_workers.foreach_worker(lambda w: w.sample())
    assert [b.count for b in batches] == [16, 16, 16]
    ids = pg_workers.foreach_worker_with_id(lambda i, w: (i, w.worker_index))
    assert ids == [(0, 0), (1, 1), (2, 2)]
    assert pg_workers.foreach_worker(lambda w: w.ping(), local_worker=False) == ["pong", "pong"]


def test_sync_weights_reaches_every_remote_worker(pg_workers):
    local = pg_workers.local_worker()
    local.get_policy().model["pi"][0].bias.data += 0.5
    wanted = _first_bias(local.get_weights())
    assert not np.allclose(_first_bias(ray.get(pg_workers.remote_workers()[0].get_weights.remote())), wanted)
    pg_workers.sync_weights(global_vars={"timestep": 77})
    for weights in pg_workers.foreach_worker(lambda w: w.get_weights()):
        assert np.allclose(_first_bias(weights), wanted)
    assert pg_workers.foreach_worker(lambda w: w.get_policy().global_timestep) == [77, 77, 77]


def test_async_requests(pg_workers):
    assert pg_workers.foreach_worker_async(lambda w: w.sample().count) == 2
    results = []
    while pg_workers.num_in_flight_async_reqs():
        results += pg_workers.fetch_ready_async_reqs(timeout_seconds=10)
    assert sorted(results) == [(1, 16), (2, 16)]


def test_remote_errors_keep_their_type(pg_workers):
    def fail(worker):
        raise ValueError("bad worker input")

    with pytest.raises(ValueError, match="bad worker input"):
        pg_workers.foreach_worker(fail, local_worker=False)


def test_bad_settings_fail_before_any_actor_starts(ray_local):
    with pytest.raises(ValueError, match="did you mean 'recreate_failed_workers'"):
        WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                  config={"recreate_failed_worker": True}, num_workers=1)
    with pytest.raises(ValueError, match="num_workers must be an int >= 0"):
        WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_workers=-1)


@pytest.mark.slow  # starts and kills torch actors: ~15 s on 2 cores
def test_killed_worker_raises_a_clear_error_then_probe_replaces_it(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 4}, num_workers=2)
    try:
        doomed = workers.remote_workers()[1]
        ray.kill(doomed)
        wait_until_dead(doomed)            # ray.kill is asynchronous
        with pytest.raises(WorkerCrashedError, match=r"RolloutWorker-2(#\d+)? died: .*recreate_failed_workers=True") as info:
            workers.foreach_worker(lambda w: w.sample())
        assert info.value.worker_index == 2 and info.value.results[1].count == 4, "live results are kept"
        assert workers.num_healthy_remote_workers() == 1
        assert len(workers.foreach_worker(lambda w: w.ping())) == 2
        assert workers.probe_unhealthy_workers() == [2]
        assert workers.num_healthy_remote_workers() == 2
    finally:
        workers.stop()


@pytest.mark.slow  # starts and kills torch actors: ~15 s on 2 cores
def test_killed_worker_is_recreated_with_weights_and_recorded(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 4, "recreate_failed_workers": True}, num_workers=2)
    try:
        workers.local_worker().get_policy().model["pi"][0].bias.data += 1.0
        workers.sync_weights()
        wanted = _first_bias(workers.local_worker().get_weights())
        collected = [b for b in workers.foreach_worker(lambda w: w.sample())]
        doomed = workers.remote_workers()[0]
        ray.kill(doomed)
        wait_until_dead(doomed)            # ray.kill is asynchronous
        with rlviz.record() as trace:
            during = workers.foreach_worker(lambda w: w.sample())
            after = workers.foreach_worker(lambda w: w.sample())
        collected += during + after
        assert len(during) == 2 and len(after) == 3, "the crash costs one batch, later calls get all three"
        assert all(b.count == 4 for b in collected)
        assert workers.num_restarts == 1 and workers.num_healthy_remote_workers() == 2
        for weights in workers.foreach_worker(lambda w: w.get_weights()):
            assert np.allclose(_first_bias(weights), wanted)
        restarts = [e for e in trace.events if e.op == "worker_restarted"]
        assert len(restarts) == 1 and restarts[0].where == "driver" and "RolloutWorker-1" in restarts[0].item
    finally:
        workers.stop()


def test_remote_sample_is_recorded_on_the_worker_lane(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                        config={"rollout_fragment_length": 5}, num_workers=2)
    try:
        with rlviz.record() as trace:
            workers.foreach_worker(lambda w: w.sample())
        samples = {(e.where, e.item) for e in trace.events if e.op == "sample"}
        assert samples == {(where, "SampleBatch(5: obs, actions, rewards, ...)")
                           for where in ("driver", *workers.lanes())}
    finally:
        workers.stop()


def test_workers_stopped_inside_a_recording_keep_their_lanes(ray_local):
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                        config={"rollout_fragment_length": 5}, num_workers=2)
    stopped = False
    expected = {"driver", *workers.lanes()}
    try:
        with rlviz.record() as trace:
            workers.foreach_worker(lambda w: w.sample())
            workers.stop()
            stopped = True
        lanes = {e.where for e in trace.events if e.op == "sample"}
        assert lanes == expected and len(expected) == 3
    finally:
        if not stopped:
            workers.stop()


def test_two_live_worker_sets_get_their_own_lanes(ray_local):
    first = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                      config={"rollout_fragment_length": 3}, num_workers=1)
    second = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                       config={"rollout_fragment_length": 4}, num_workers=1)
    try:
        with rlviz.record() as trace:
            first.foreach_worker(lambda w: w.sample())
            second.foreach_worker(lambda w: w.sample())
        remote = {(e.where, e.item) for e in trace.events if e.op == "sample" and e.where != "driver"}
        (a,), (b,) = first.lanes(), second.lanes()
        assert a.startswith("RolloutWorker-1") and b.startswith("RolloutWorker-1#") and a != b
        assert remote == {(a, "SampleBatch(3: obs, actions, rewards, ...)"),
                          (b, "SampleBatch(4: obs, actions, rewards, ...)")}
    finally:
        first.stop()
        second.stop()


def test_gather_async_over_remote_workers(ray_local):
    from rlviz.iter import from_actors

    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                        config={"rollout_fragment_length": 5}, num_workers=2)
    try:
        stream = from_actors(workers.remote_workers()).gather_async().zip_with_source_actor()
        pairs = stream.take(6)
        assert [b.count for _, b in pairs] == [5] * 6
        while len({actor for actor, _ in pairs}) < 2 and len(pairs) < 500:   # arrival order is not fixed
            pairs += stream.take(1)
        assert {actor for actor, _ in pairs} == set(workers.remote_workers()), "both workers contribute"
    finally:
        workers.stop()
