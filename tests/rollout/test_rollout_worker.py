"""RolloutWorker on one process: batch shapes, episode bookkeeping across fragments, multi-agent, learning."""
import numpy as np
import pytest

from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.random_policy import RandomPolicy
from rlviz.rollout.rollout_worker import RolloutWorker
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples

# CartPole terminates when |x| > 2.4 or |angle| > 12 degrees, so a terminal new_obs is out of bounds.
_X_LIMIT, _ANGLE_LIMIT = 2.4, 12 * 2 * np.pi / 360


def _sub_env_streams(batches, num_envs, fragment):
    """Per sub-env, its rows across consecutive batches (rows are sub-env-major within a batch)."""
    return [concat_samples([b.slice(i * fragment, (i + 1) * fragment) for b in batches]) for i in range(num_envs)]


def test_batch_shapes():
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_envs=3,
                           rollout_fragment_length=7, seed=0)
    batch, count = worker.sample_with_count()
    assert count == batch.count == 21
    assert batch["obs"].shape == batch["new_obs"].shape == (21, 4)
    for key in ("actions", "rewards", "terminateds", "truncateds", "eps_id", "t", "agent_index"):
        assert batch[key].shape == (21,), key


def test_episode_boundaries_are_consistent_across_fragments():
    num_envs, fragment = 3, 16
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_envs=num_envs,
                           rollout_fragment_length=fragment, seed=1, env_config={"max_episode_steps": 20})
    batches = [worker.sample() for _ in range(6)]
    ends = 0
    for stream in _sub_env_streams(batches, num_envs, fragment):
        done = stream["terminateds"] | stream["truncateds"]
        ends += int(done.sum())
        same_episode = stream["eps_id"][1:] == stream["eps_id"][:-1]
        assert np.array_equal(same_episode, ~done[:-1]), "eps_id must change exactly after an episode ends"
        assert np.all(stream["t"][1:][~done[:-1]] == stream["t"][:-1][~done[:-1]] + 1)
        assert np.all(stream["t"][1:][done[:-1]] == 0), "t restarts at 0"
        assert np.array_equal(stream["new_obs"][:-1][same_episode], stream["obs"][1:][same_episode])
        assert not np.array_equal(stream["new_obs"][:-1][~same_episode], stream["obs"][1:][~same_episode])
        terminal = stream["new_obs"][stream["terminateds"]]
        assert np.all((np.abs(terminal[:, 0]) > _X_LIMIT) | (np.abs(terminal[:, 2]) > _ANGLE_LIMIT)), \
            "at termination new_obs is the final obs, not the next episode's reset obs"
        assert stream["truncateds"].sum() >= 1 and np.all(stream["t"][stream["truncateds"]] == 19)
    lengths = [m.episode_length for m in worker.get_metrics()]
    assert len(lengths) == ends and worker.get_metrics() == []
    assert all(1 <= n <= 20 for n in lengths)


def test_seeded_workers_repeat_themselves():
    a = RolloutWorker(env_creator="CartPole-v1", default_policy_class=PGPolicy, rollout_fragment_length=10,
                      seed=3)
    b = RolloutWorker(env_creator="CartPole-v1", default_policy_class=PGPolicy, rollout_fragment_length=10,
                      seed=3)
    sa, sb = a.sample(), b.sample()
    assert np.array_equal(sa["obs"], sb["obs"]) and np.array_equal(sa["actions"], sb["actions"])


def _red_first(agent_id, episode, worker, **kwargs):
    return "red" if agent_id == "agent_0" else "blue"


def test_multi_agent_sampling_gives_per_policy_batches():
    worker = RolloutWorker(env_creator="MultiAgentArena",
                           policy_spec={"red": (PGPolicy, None), "blue": (RandomPolicy, None)},
                           env_config={"num_agents": 3, "max_steps": 6}, num_envs=2, rollout_fragment_length=10,
                           seed=0, policy_mapping_fn=_red_first)
    batch = worker.sample()
    assert isinstance(batch, MultiAgentBatch)
    assert batch.env_steps() == 20 and batch.agent_steps() == 60
    assert batch.policy_batches["red"].count == 20 and batch.policy_batches["blue"].count == 40
    assert "advantages" in batch.policy_batches["red"]
    assert set(batch.policy_batches["blue"]["agent_index"].tolist()) == {1, 2}
    for part in batch.policy_batches["red"].split_by_episode():
        assert part["t"].tolist() == list(range(part["t"][0], part["t"][0] + part.count))
    assert worker.get_metrics(), "episodes of 6 steps finish within 10"
    info = worker.learn_on_batch(batch)
    assert set(info) == {"red", "blue"}


def test_policy_management():
    worker = RolloutWorker(env_creator="MultiAgentArena", policy_spec={"red": (RandomPolicy, None)},
                           rollout_fragment_length=4)
    worker.add_policy("blue", PGPolicy, policy_mapping_fn=lambda agent_id, episode, worker, **kw: "blue", policies_to_train=["blue"])
    assert set(worker.sample().policy_batches) == {"blue"}
    assert worker.foreach_policy_to_train(lambda policy, pid: pid) == ["blue"]
    assert worker.for_policy(lambda policy: type(policy).__name__, "blue") == "PGPolicy"
    with pytest.raises(ValueError, match="maps agent 'agent_0' to policy 'blue'"):
        worker.remove_policy("blue")
    worker.remove_policy("blue", policy_mapping_fn=lambda agent_id, episode, worker, **kw: "red")
    assert sorted(worker.foreach_policy(lambda policy, pid: pid)) == ["red"]
    assert worker.get_policy("blue") is None, "RLlib's get_policy of an unknown id returns None"
    with pytest.raises(KeyError, match="no policy 'blue'"):
        worker.for_policy(lambda policy: policy, "blue")
    assert worker.ping() == "pong" and len(worker.foreach_env(lambda env: env)) == 1


def test_gradients_and_global_vars_on_the_worker():
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=PGPolicy, rollout_fragment_length=20,
                           seed=0)
    batch = worker.sample()
    grads, info = worker.compute_gradients(batch)
    assert info["batch_count"] == 20 and isinstance(grads, list)
    before = worker.get_weights()["default_policy"]["pi.0.weight"].copy()
    worker.apply_gradients(grads)
    assert not np.allclose(before, worker.get_weights()["default_policy"]["pi.0.weight"])
    worker.set_global_vars({"timestep": 123})
    assert worker.get_policy().global_timestep == 123 and worker.get_global_vars() == {"timestep": 123}


def test_pg_learns_on_cartpole():
    """A few hundred episodes of PG (a few seconds) lift the mean return well above random (~22)."""
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                           config={"num_envs_per_worker": 8, "rollout_fragment_length": 100,
                                                      "seed": 0})
    worker.get_policy().config.lr = 0.02
    returns = []
    for _ in range(25):
        worker.sample_and_learn()
        returns.append(np.mean([m.episode_return for m in worker.get_metrics()] or [np.nan]))
    first, last = np.nanmean(returns[:3]), np.nanmean(returns[-3:])
    assert last > 1.8 * first and last > 45, (first, last)


def test_get_global_worker_is_the_worker_of_this_process():
    from rlviz.rollout import RandomPolicy, RolloutWorker, get_global_worker

    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                           rollout_fragment_length=5)
    assert get_global_worker() is worker
