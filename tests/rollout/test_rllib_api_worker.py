"""RolloutWorker and WorkerSet called the way RLlib's API reference and RLlib 1.x code call them."""
import threading

import gymnasium as gym
import numpy as np
import pytest
import ray

import rlviz
from rlviz.ops import ParallelRollouts, TrainOneStep
from rlviz.rollout.arena import MultiAgentArena
from rlviz.rollout.env_context import EnvContext
from rlviz.rollout.filters import MeanStdFilter, RunningStat
from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.random_policy import RandomPolicy
from rlviz.rollout.rollout_worker import RolloutWorker
from rlviz.rollout.worker_set import WorkerSet


def test_the_reference_example_builds_with_an_env_context_creator():
    contexts, validated = [], []

    def creator(env_context):
        contexts.append(env_context)
        return gym.make("CartPole-v1")

    worker = RolloutWorker(env_creator=creator, default_policy_class=PGPolicy, num_envs=2,
                           rollout_fragment_length=5, env_config={"size": 3}, worker_index=0, num_workers=4,
                           validate_env=lambda env, ctx: validated.append((env.spec.id, ctx.worker_index)))
    assert worker.sample().count == 10
    assert all(isinstance(ctx, EnvContext) and ctx == {"size": 3} and ctx.num_workers == 4 for ctx in contexts)
    assert [ctx.vector_index for ctx in contexts] == [0, 0, 1], "first env (checked, closed), then sub-envs 0, 1"
    assert validated == [("CartPole-v1", 0)]
    assert [ctx.vector_index for ctx in worker.foreach_env_with_context(lambda env, ctx: ctx)] == [0, 1]
    plain = RolloutWorker(env_creator=lambda _: gym.make("CartPole-v1"), default_policy_class=RandomPolicy)
    assert plain.config.rollout_fragment_length == 200 and plain.config.batch_mode == "truncate_episodes"
    assert plain.config.observation_filter == "NoFilter" and plain.config.input == "sampler"


def test_rllib_1x_keywords_and_config_dict_build_the_same_multi_agent_worker():
    seen = []

    def mapping(agent_id, episode, worker, **kwargs):
        seen.append(worker)
        return "red" if agent_id == "agent_0" else "blue"

    space = MultiAgentArena().observation_spaces["agent_0"]
    specs = {"red": (PGPolicy, space, None, {"lr": 0.5}), "blue": (RandomPolicy, None, None, None)}
    old = RolloutWorker(env_creator=lambda ctx: MultiAgentArena(**ctx), policy_spec=specs, policy_mapping_fn=mapping,
                        policies_to_train=["red"], rollout_fragment_length=4, env_config={"num_agents": 3},
                        policy_config={"gamma": 0.5, "num_workers": 2}, seed=0, callbacks=object,
                        input="sampler", output=None)
    new = RolloutWorker(env_creator="MultiAgentArena", config={
        "multiagent": {"policies": specs, "policy_mapping_fn": mapping, "policies_to_train": ["red"]},
        "rollout_fragment_length": 4, "env_config": {"num_agents": 3}, "seed": 0, "num_workers": 2,
        "framework": "torch", "input": "sampler", "input_config": {"k": 1}, "output": "/tmp/out",
        "output_config": {"format": "json"}})
    for worker in (old, new):
        assert worker.get_policy("red").config.lr == 0.5 and worker.get_policies_to_train() == {"red"}
        assert set(worker.sample().policy_batches) == {"red", "blue"}
        assert set(worker.learn_on_batch(worker.sample())) == {"red"}
    assert old.get_policy("red").config.gamma == 0.5 and old.stored_settings["callbacks"] is object
    assert new.num_workers == 2 and new.config.output == "/tmp/out" and new.config.input_config == {"k": 1}
    assert seen and all(w in (old, new) for w in seen), "policy_mapping_fn gets worker= the RolloutWorker"
    old.set_is_policy_to_train(lambda pid, batch=None: pid == "blue")
    assert old.get_policies_to_train() == {"blue"}
    old.set_policy_mapping_fn(lambda agent_id, episode, worker, **kw: "blue")
    assert set(old.sample().policy_batches) == {"blue"}


@pytest.mark.parametrize("kwargs, error, match", [
    ({"rollout_fragment_lenght": 5}, TypeError,
     "unknown RolloutWorker keyword 'rollout_fragment_lenght'; did you mean 'rollout_fragment_length'"),
    ({"num_envs_per_worker": 2}, TypeError, "did you mean 'num_envs'"),
    ({"sample_async": True}, ValueError, "rlviz does not implement RLlib's sample_async"),
    ({"batch_mode": "complete_episodes"}, ValueError, "complete_episodes' is not built in rlviz"),
    ({"observation_filter": "MeanStd"}, ValueError, "unknown observation_filter 'MeanStd'"),
    ({"config": {"rollout_fragment_lenght": 5}}, ValueError,
     "unknown RolloutWorker config key 'rollout_fragment_lenght'; did you mean 'rollout_fragment_length'"),
])
def test_bad_keywords_fail_at_construction_naming_rllibs_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, **kwargs)
    with pytest.raises(TypeError, match="positional"):
        RolloutWorker("CartPole-v1", RandomPolicy)
    with pytest.raises(TypeError, match="needs a policy: pass default_policy_class"):
        RolloutWorker(env_creator="CartPole-v1")


def test_worker_methods_return_rllibs_shapes():
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=PGPolicy, rollout_fragment_length=8,
                           seed=1)
    batch = worker.sample()
    info = worker.learn_on_batch(batch)
    assert set(info) == {"default_policy"} and "policy_loss" in info["default_policy"]["learner_stats"]
    grads, grad_info = worker.compute_gradients(batch)
    assert "policy_loss" in grad_info["learner_stats"] and grad_info["batch_count"] == 8
    assert worker.get_policy("nope") is None
    state = worker.get_state()
    assert set(state) >= {"policy_states", "filters", "global_vars", "policies_to_train"}
    twin = RolloutWorker(**worker.creation_args())
    assert not np.allclose(twin.get_weights()["default_policy"]["pi.0.bias"],
                           worker.get_weights()["default_policy"]["pi.0.bias"])
    twin.set_state(state)
    assert all(np.array_equal(twin.get_weights()["default_policy"][k], v)
               for k, v in worker.get_weights()["default_policy"].items())
    worker.assert_healthy()
    port = worker.find_free_port()
    assert isinstance(port, int) and 0 < port < 65536
    worker.lock()
    entered = threading.Event()
    other = threading.Thread(target=lambda: (worker.lock(), entered.set(), worker.unlock()))
    other.start()
    assert not entered.wait(0.2), "lock() blocks another thread while held"
    worker.unlock()
    other.join(5)
    assert entered.is_set()


def test_mean_std_filter_normalises_and_syncs_like_rllibs_filter_manager():
    rows = np.random.default_rng(0).normal(3.0, 2.0, size=(50, 4))
    stat = RunningStat((4,))
    stat.push(rows[:20])
    rest = RunningStat((4,))
    rest.push(rows[20:])
    stat.update(rest)
    assert stat.n == 50 and np.allclose(stat.mean, rows.mean(0)) and np.allclose(stat.std, rows.std(0, ddof=1))

    local = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, rollout_fragment_length=50,
                          observation_filter="MeanStdFilter", seed=0)
    remote = RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                           rollout_fragment_length=50, observation_filter="MeanStdFilter", seed=0, worker_index=1)
    obs = np.concatenate([local.sample()["obs"] for _ in range(4)])
    assert abs(obs[100:].mean()) < 0.5 and 0.5 < obs[100:].std() < 1.5, "observations are normalised"
    sent = remote.get_filters(flush_after=True)["default_policy"]
    seen_remote = sent.buffer.n
    assert seen_remote > 0 and remote.get_filters()["default_policy"].buffer.n == 0, "flush_after clears the buffer"
    global_filter = local.filters["default_policy"]
    before = global_filter.running_stats.n
    global_filter.apply_changes(sent, with_buffer=False)
    assert global_filter.running_stats.n == before + seen_remote
    remote.sample()                                        # rows seen between the flush and the sync
    delta = remote.filters["default_policy"].buffer.n
    remote.sync_filters(local.get_filters())
    assert remote.filters["default_policy"].running_stats.n == before + seen_remote + delta, "delta is rebased"
    assert isinstance(remote.get_filters()["default_policy"], MeanStdFilter)


@pytest.mark.usefixtures("ray_local")
def test_as_remote_actors_in_a_worker_set_from_existing_workers_are_recorded():
    local = RolloutWorker(env_creator=lambda _: gym.make("CartPole-v1"), default_policy_class=PGPolicy,
                          rollout_fragment_length=5)
    actor_cls = RolloutWorker.as_remote(num_cpus=0)
    twin_args = {k: v for k, v in local.creation_args().items() if k not in ("worker_index", "num_workers")}
    remotes = [actor_cls.remote(**twin_args, worker_index=i, num_workers=2) for i in (1, 2)]
    batch_ref, count_ref = remotes[0].sample_with_count.remote()
    assert ray.get(count_ref) == 5 and ray.get(batch_ref).count == 5
    workers = WorkerSet._from_existing(local, remotes)
    try:
        assert workers.num_healthy_workers() == 3 and workers.num_remote_worker_restarts() == 0
        with rlviz.record() as trace:
            ray.get([h.sample.remote() for h in workers.remote_workers()])
        assert {"RolloutWorker-1", "RolloutWorker-2"} <= {e.where for e in trace.events if e.op == "sample"}
        assert workers.foreach_policy(lambda policy, pid: pid) == ["default_policy"] * 3
        assert workers.foreach_policy_to_train(lambda policy, pid: pid) == ["default_policy"] * 3
        assert [len(envs) for envs in workers.foreach_env(lambda env: env.spec.id)] == [1, 1, 1]
        assert [ctx[0].worker_index for ctx in workers.foreach_env_with_context(lambda env, ctx: ctx)] == [0, 1, 2]
        workers.reset(remotes[:1])
        assert workers.num_healthy_remote_workers() == 1 and workers.lanes() == ["RolloutWorker-1"]
    finally:
        workers.stop()
        ray.kill(remotes[1])


@pytest.mark.usefixtures("ray_local")
def test_worker_set_from_a_config_and_its_pass_throughs():
    workers = WorkerSet(env_creator="MultiAgentArena", default_policy_class=RandomPolicy,
                        config={"num_workers": 1, "rollout_fragment_length": 3, "env_config": {"num_agents": 2}})
    try:
        assert workers.num_healthy_workers() == 2
        workers.add_policy("pg", PGPolicy, policy_mapping_fn=lambda agent_id, episode, worker, **kw: "pg",
                           policies_to_train=["pg"])
        assert workers.foreach_policy_to_train(lambda policy, pid: pid) == ["pg", "pg"]
        assert [set(b.policy_batches) for b in workers.foreach_worker(lambda w: w.sample())] == [{"pg"}, {"pg"}]
        with pytest.raises(TypeError, match="unexpected keyword"):
            WorkerSet(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_worker=2)
    finally:
        workers.stop()


@pytest.mark.slow
@pytest.mark.usefixtures("ray_local")
def test_torch_data_parallel_group_of_two_remote_workers():
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 4}, num_workers=2)
    try:
        first, second = workers.remote_workers()
        host = ray.get(first.get_node_ip.remote())
        port = ray.get(first.find_free_port.remote())
        url = f"tcp://{host}:{port}"
        ray.get([h.setup_torch_data_parallel.remote(url, rank, 2, "gloo") for rank, h in enumerate((first, second))])

        def all_reduce(worker):
            import torch
            import torch.distributed as dist

            value = torch.tensor([float(worker.worker_index)])
            dist.all_reduce(value)
            return dist.get_world_size(), float(value)

        assert ray.get([h.apply.remote(all_reduce) for h in (first, second)]) == [(2, 3.0), (2, 3.0)]
        ray.get([h.stop.remote() for h in (first, second)])
        assert ray.get(first.apply.remote(lambda w: __import__("torch.distributed").distributed.is_initialized())) \
            is False, "stop() leaves the process group"
    finally:
        workers.stop()


@pytest.mark.usefixtures("ray_local")
def test_ops_record_rllibs_counters_timers_and_learner_info():
    workers = WorkerSet(env_creator="CartPole-v1", default_policy_class=PGPolicy,
                        config={"rollout_fragment_length": 6})
    try:
        plan = ParallelRollouts(workers, mode="bulk_sync").for_each(TrainOneStep(workers))
        _, info = next(plan)
        metrics = plan.shared_metrics.get()
        assert metrics.counters["num_steps_sampled"] == 6 and metrics.counters["num_agent_steps_sampled"] == 6
        assert metrics.counters["num_steps_trained"] == 6 and metrics.counters["num_agent_steps_trained"] == 6
        assert metrics.timers["learn"].count == 1
        assert "policy_loss" in metrics.info["learner"]["default_policy"]["learner_stats"]
        assert info is metrics.info["learner"]
    finally:
        workers.stop()


def test_a_workers_policies_live_in_rllibs_policy_map():
    """``worker.policy_map`` is a ``PolicyMap`` (RLlib's), and the worker's own calls go through it."""
    from rlviz.rollout import PolicyMap

    worker = RolloutWorker(env_creator=lambda _: gym.make("CartPole-v1"), default_policy_class=RandomPolicy,
                           rollout_fragment_length=4)
    assert isinstance(worker.policy_map, PolicyMap) and list(worker.policy_map) == ["default_policy"]
    assert worker.get_policy() is worker.policy_map["default_policy"]
    assert len(worker.sample()) == 4
