"""Execution ops one by one: batching, buffers, replay, training, target updates, metrics, rr weights."""
import types

import numpy as np
import pytest

from rlviz.iter import LocalIterator, NextValueNotReady
from rlviz.ops import (AverageGradients, ConcatBatches, MixInReplay, OncePerTimestepsElapsed,
                       PrioritizedReplayBuffer, Replay, ReplayBuffer, SelectExperiences, StandardizeFields,
                       StoreToReplayBuffer, TrainOneStep, UpdateTargetNetwork, WaitUntilTimestepsElapsed,
                       calculate_rr_weights, calculate_rr_weights_float, names)
from rlviz.rollout import MultiAgentBatch, SampleBatch


def _stream(items):
    return LocalIterator(lambda timeout: iter(items))


def _batch(n, start=0):
    return SampleBatch(t=np.arange(start, start + n), obs=np.zeros((n, 2), np.float32))


def test_concat_batches_emits_once_enough_steps_are_collected():
    out = list(_stream([_batch(3), _batch(3), _batch(5), _batch(1)]).combine(ConcatBatches(6)))
    assert [b.count for b in out] == [6, 6]
    assert out[0]["t"].tolist() == [0, 1, 2, 0, 1, 2]
    with pytest.raises(ValueError, match="min_batch_size"):
        ConcatBatches(0)
    with pytest.raises(ValueError, match="count_steps_by"):
        ConcatBatches(4, count_steps_by="episodes")


def test_select_experiences_and_standardize_fields():
    multi = MultiAgentBatch({"red": SampleBatch(a=[1.0, 3.0]), "blue": SampleBatch(a=[0.0, 0.0])}, 2)
    assert list(SelectExperiences(["blue"])(multi).policy_batches) == ["blue"]
    red = StandardizeFields(["a"])(multi).policy_batches["red"]["a"]
    assert red.tolist() == pytest.approx([-1.0, 1.0])
    with pytest.raises(TypeError, match="list of policy ids"):
        SelectExperiences("red")


def test_replay_buffer_is_bounded_counts_evictions_and_waits_for_learning_starts():
    buf = ReplayBuffer(capacity=5, learning_starts=4, replay_batch_size=3, seed=0)
    buf.add_batch(_batch(3))
    assert buf.replay() is None
    buf.add_batch(_batch(4, start=3))
    assert len(buf) == 5 and buf.num_evicted == 2 and buf.num_added == 7
    assert set(buf.columns["t"].tolist()) == {2, 3, 4, 5, 6}
    assert buf.replay().count == 3


def test_prioritized_buffer_samples_by_priority_and_reports_weights():
    buf = PrioritizedReplayBuffer(capacity=10, learning_starts=0, replay_batch_size=1000, seed=1, alpha=1.0)
    buf.add_batch(_batch(4))
    buf.update_priorities(np.arange(4), np.array([1.0, 1.0, 1.0, 7.0]))
    batch = buf.replay()
    share = np.mean(batch["t"] == 3)
    assert 0.65 < share < 0.75                     # 7 / 10
    assert batch["weights"].max() == pytest.approx(1.0)
    assert set(batch["batch_indexes"].tolist()) <= {0, 1, 2, 3}


def test_store_and_replay_local_buffer_yield_not_ready_until_learning_starts():
    buf = ReplayBuffer(capacity=100, learning_starts=6, replay_batch_size=2, seed=0)
    stored = list(_stream([_batch(3), _batch(3)]).for_each(StoreToReplayBuffer(local_buffer=buf)))
    assert len(stored) == 2 and len(buf) == 6
    replay = Replay(local_buffer=ReplayBuffer(capacity=10, learning_starts=1))
    assert isinstance(next(replay), NextValueNotReady)
    assert Replay(local_buffer=buf).take(2)[0].count == 2
    assert Replay(local_buffer=buf).dataflow()[-1].op == "Replay"


@pytest.mark.parametrize("kwargs", [{}, {"local_buffer": ReplayBuffer(), "actors": ["x"]}])
def test_store_and_replay_need_exactly_one_target(kwargs):
    with pytest.raises(ValueError, match="exactly one"):
        StoreToReplayBuffer(**kwargs)
    with pytest.raises(ValueError, match="exactly one"):
        Replay(**kwargs)


def test_mix_in_replay_averages_the_replay_proportion():
    mix = MixInReplay(num_slots=10, replay_proportion=0.5, seed=3)
    lengths = [len(mix(i)) - 1 for i in range(4000)]
    assert np.mean(lengths) == pytest.approx(0.5, abs=0.06)
    assert mix(99)[0] == 99


def test_average_gradients_averages_and_sums_counts():
    grads, count = AverageGradients()([([np.array([1.0, 2.0])], 3), ([np.array([3.0, 6.0])], 5)])
    assert grads[0].tolist() == [2.0, 4.0] and count == 8
    assert "summed" in AverageGradients.__doc__


class _FakePolicy:
    def __init__(self):
        self.targets = 0

    def update_target(self):
        self.targets += 1


class _FakeLocal:
    def __init__(self):
        self.learned, self.policy, self.global_vars = [], _FakePolicy(), {}

    def learn_on_batch(self, batch):
        self.learned.append(batch.count)
        return {"default_policy": {"learner_stats": {"loss": 1.0}}}

    def foreach_policy_to_train(self, fn):
        return [fn(self.policy, "default_policy")]

    def set_global_vars(self, values):
        self.global_vars.update(values)


def _fake_workers():
    local = _FakeLocal()
    return types.SimpleNamespace(local_worker=lambda: local, remote_workers=lambda: [])


def test_train_one_step_learns_counts_and_returns_batch_and_info():
    workers = _fake_workers()
    out = list(_stream([_batch(4), _batch(6)]).for_each(TrainOneStep(workers)))
    assert [b.count for b, _ in out] == [4, 6] and out[0][1] == {"default_policy": {"learner_stats": {"loss": 1.0}}}
    it = _stream([_batch(4)]).for_each(TrainOneStep(workers))
    next(it)
    assert it.shared_metrics.get().counters[names.STEPS_TRAINED_COUNTER] == 4
    assert it.dataflow()[-1].op == "TrainOneStep"
    mini = _fake_workers()
    list(_stream([_batch(10)]).for_each(TrainOneStep(mini, num_sgd_iter=2, sgd_minibatch_size=4)))
    assert mini.local_worker().learned == [4, 4, 2, 4, 4, 2]


def test_update_target_network_fires_every_freq_sampled_steps():
    workers = _fake_workers()

    def sampled(batch):
        LocalIterator.get_metrics().counters[names.STEPS_SAMPLED_COUNTER] += batch.count
        return batch

    it = _stream([_batch(4)] * 10).for_each(sampled).for_each(UpdateTargetNetwork(workers, 10))
    list(it)
    counters = it.shared_metrics.get().counters
    assert workers.local_worker().policy.targets == 3          # at 12, 24, 36 of 40 steps
    assert counters[names.NUM_TARGET_UPDATES] == 3 and counters[names.LAST_TARGET_UPDATE_TS] == 36


def test_timestep_filters():
    def sampled(batch):
        LocalIterator.get_metrics().counters[names.STEPS_SAMPLED_COUNTER] += batch.count
        return batch

    out = list(_stream([_batch(3)] * 6).for_each(sampled).filter(OncePerTimestepsElapsed(7)))
    assert len(out) == 2                                        # at 9 and 18
    out = list(_stream([_batch(3)] * 6).for_each(sampled).filter(WaitUntilTimestepsElapsed(10)))
    assert len(out) == 3                                        # 12, 15, 18


CONFIG = {"train_batch_size": 32, "rollout_fragment_length": 4, "num_envs_per_worker": 1, "num_workers": 2}


@pytest.mark.parametrize("intensity, rounded, floats", [
    (None, [1, 1], [1, 1]),
    (4, [1, 1], [1, 1.0]),
    (1, [4, 1], [1, 0.25]),
    (16, [1, 4], [1, 4.0]),
    (6, [1, 2], [1, 1.5]),      # round(1.5) == 2 (banker's rounding would also give 2)
])
def test_calculate_rr_weights_rounded_and_ray_float(intensity, rounded, floats):
    config = {**CONFIG, "training_intensity": intensity}
    assert calculate_rr_weights(config) == rounded
    assert calculate_rr_weights_float(config) == pytest.approx(floats)


def test_calculate_rr_weights_zero_workers_counts_as_one_and_bad_intensity():
    assert calculate_rr_weights({**CONFIG, "num_workers": 0, "training_intensity": 2}) == [4, 1]
    with pytest.raises(ValueError, match="training_intensity"):
        calculate_rr_weights({**CONFIG, "training_intensity": -1})


def test_counter_and_timer_names_are_the_spec_names():
    assert names.COUNTERS == ("num_steps_sampled", "num_agent_steps_sampled", "num_steps_trained",
                              "num_steps_trained_this_iter", "num_agent_steps_trained",
                              "last_target_update_ts", "num_target_updates")
    assert names.TIMERS == ("sample", "learn", "load", "compute_grads", "apply_grad", "grad_wait",
                            "synch_weights")


@pytest.mark.usefixtures("ray_local")
def test_train_one_step_broadcasts_weights_without_waiting_and_in_order(monkeypatch):
    import ray

    from rlviz.rollout import WorkerSet
    from rlviz.rollout.dqn_policy import DQNPolicy

    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=DQNPolicy,
                        config={"rollout_fragment_length": 8}, num_workers=1)
    try:
        remote = workers.remote_workers()[0]
        it = (LocalIterator(lambda timeout: iter([workers.local_worker().sample()] * 3))
              .for_each(TrainOneStep(workers)))
        with monkeypatch.context() as patch:           # no ray.get / ray.wait: nothing waits for the workers
            patch.setattr(ray, "get", _no_waiting)
            patch.setattr(ray, "wait", _no_waiting)
            for _ in range(3):
                next(it)
        # fire and forget: the next call the driver makes to the worker runs after set_weights
        got = ray.get(remote.get_weights.remote())["default_policy"]
        wanted = workers.local_worker().get_weights()["default_policy"]
        assert all(np.array_equal(got[k], wanted[k]) for k in wanted)
        assert ray.get(remote.get_global_vars.remote()) == {"timestep": 0}
        assert it.shared_metrics.get().timers[names.WORKER_UPDATE_TIMER].count == 3
    finally:
        workers.stop()


def _no_waiting(*args, **kwargs):
    raise AssertionError("TrainOneStep waited for a remote call")


def test_update_target_network_copies_while_holding_the_lock():
    class _Lock:
        held = False

        def __enter__(self):
            self.held = True

        def __exit__(self, *exc):
            self.held = False

    lock, held_during_update = _Lock(), []
    workers = _fake_workers()
    workers.local_worker().policy.update_target = lambda: held_during_update.append(lock.held)

    def sampled(batch):
        LocalIterator.get_metrics().counters[names.STEPS_SAMPLED_COUNTER] += batch.count
        return batch

    list(_stream([_batch(4)] * 3).for_each(sampled).for_each(UpdateTargetNetwork(workers, 4, lock=lock)))
    assert held_during_update == [True, True, True] and not lock.held
