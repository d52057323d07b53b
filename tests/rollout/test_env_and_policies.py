"""Env creation, the multi-agent arena, and the policies' acting, postprocessing and learning."""
import gymnasium
import numpy as np
import pytest
import torch

from rlviz.rollout.arena import MultiAgentArena
from rlviz.rollout.config import RolloutConfig, make_config
from rlviz.rollout.dqn_policy import DQNPolicy
from rlviz.rollout.env import make_env_creator
from rlviz.rollout.pg_policy import A2CPolicy, PGPolicy
from rlviz.rollout.random_policy import RandomPolicy
from rlviz.rollout.rollout_worker import RolloutWorker
from rlviz.rollout.sample_batch import SampleBatch

CARTPOLE = gymnasium.make("CartPole-v1")


def test_env_creator_from_id_and_callable():
    assert make_env_creator("CartPole-v1")().spec.id == "CartPole-v1"
    assert isinstance(make_env_creator(lambda ctx: MultiAgentArena(**ctx), {"num_agents": 3})(), MultiAgentArena)
    assert len(make_env_creator("MultiAgentArena", {"num_agents": 3})().possible_agents) == 3


def test_arena_episode_ends_for_everyone():
    env = MultiAgentArena(num_agents=2, max_steps=4)
    env.reset(seed=0)
    for _ in range(4):
        _, _, terminateds, truncateds, _ = env.step({"agent_0": 1, "agent_1": 1})
    assert terminateds["__all__"] or truncateds["__all__"]
    assert len({truncateds["agent_0"], truncateds["agent_1"], truncateds["__all__"]}) == 1


@pytest.mark.parametrize("make, error, match", [
    (lambda: make_env_creator("CartPol-v1"), ValueError, r"unknown env id 'CartPol-v1'; close matches: \['CartPole-v1'"),
    (lambda: make_env_creator(42), TypeError, "gymnasium id string or a callable"),
    (lambda: RolloutWorker(env_creator="NoSuchEnv-v9", default_policy_class=RandomPolicy), ValueError,
     "unknown env id 'NoSuchEnv-v9'"),
    (lambda: RolloutWorker(env_creator="FrozenLake-v1", default_policy_class=PGPolicy), ValueError,
     r"PGPolicy supports 1-D Box observation spaces, got Discrete\(16\)"),
    (lambda: RolloutWorker(env_creator="Pendulum-v1", default_policy_class=DQNPolicy), ValueError,
     "DQNPolicy supports Discrete action spaces, got Box"),
    (lambda: RolloutWorker(env_creator="MultiAgentArena",
                           policy_spec={"a": (PGPolicy, None), "b": (PGPolicy, None)},
                           policy_mapping_fn=lambda agent_id, episode, worker, **kwargs: "c"), ValueError,
     "maps agent 'agent_0' to policy 'c', which is not one of the policies"),
    (lambda: RolloutWorker(env_creator="MultiAgentArena",
                           policy_spec={"a": (PGPolicy, None), "b": (PGPolicy, None)}), ValueError,
     "needs policy_mapping_fn"),
    (lambda: RolloutWorker(env_creator="CartPole-v1", policy_spec="PGPolicy"), TypeError,
     "policy must be a Policy subclass"),
    (lambda: RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy, num_envs_per_worker=2),
     TypeError, "unknown RolloutWorker keyword 'num_envs_per_worker'; did you mean 'num_envs'"),
    (lambda: RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                           config={"num_envs": 2}), ValueError,
     "unknown RolloutWorker config key 'num_envs'; did you mean 'num_envs_per_worker'"),
    (lambda: RolloutWorker(env_creator="CartPole-v1", default_policy_class=RandomPolicy,
                           rollout_fragment_length=0), ValueError,
     "rollout_fragment_length must be an int >= 1, got 0"),
    (lambda: RolloutWorker(env_creator="CartPole-v1", policy_spec=(PGPolicy, {"lrr": 0.1})), TypeError,
     "policy must be"),
    (lambda: PGPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, {"lrr": 0.1}), ValueError,
     "unknown PGConfig key 'lrr'; did you mean 'lr'"),
    (lambda: make_config(RolloutConfig, "fast"), TypeError, "config must be a RolloutConfig, a dict or None"),
])
def test_bad_inputs(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_pg_returns_and_a2c_bootstrap():
    pg = PGPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, {"gamma": 0.5})
    seg = SampleBatch(rewards=[1.0, 1.0], terminateds=[False, False])
    assert pg.postprocess_trajectory(seg)["advantages"].tolist() == [1.5, 1.0]
    a2c = A2CPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, {"gamma": 0.5, "lambda_": 1.0}, seed=0)
    obs = np.zeros((2, 4), np.float32)
    _, extra = a2c.compute_actions(obs)
    seg = SampleBatch(obs=obs, new_obs=obs, rewards=[1.0, 1.0], vf_preds=extra["vf_preds"],
                      terminateds=[False, False])
    out = a2c.postprocess_trajectory(seg)
    v = float(extra["vf_preds"][0])          # obs are all zeros, so every value prediction is v
    assert np.allclose(out["value_targets"], [1 + 0.5 + 0.25 * v, 1 + 0.5 * v], atol=1e-5)


def test_gradients_cross_between_policy_copies_and_weights_round_trip():
    a = PGPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, seed=1)
    b = PGPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, seed=2)
    b.set_weights(a.get_weights())
    batch = SampleBatch(obs=np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32),
                        actions=[0, 1] * 4, advantages=np.linspace(-1, 1, 8, dtype=np.float32))
    grads, info = a.compute_gradients(batch)
    assert all(isinstance(g, np.ndarray) for g in grads) and "loss" in info
    a.apply_gradients(grads)
    b.apply_gradients(grads)
    assert all(np.allclose(a.get_weights()[k], b.get_weights()[k]) for k in a.get_weights())
    with pytest.raises(ValueError, match="expects"):
        b.set_weights({"nope": np.zeros(1)})


def test_dqn_epsilon_decays_with_global_timestep_and_target_updates():
    dqn = DQNPolicy(CARTPOLE.observation_space, CARTPOLE.action_space,
                    {"epsilon_timesteps": 100, "final_epsilon": 0.0}, seed=0)
    assert dqn.epsilon() == 1.0
    dqn.on_global_var_update({"timestep": 100})
    assert dqn.epsilon() == 0.0
    worker = RolloutWorker(env_creator="CartPole-v1", default_policy_class=DQNPolicy,
                           rollout_fragment_length=16, seed=0)
    batch = worker.sample()
    assert batch["q_values"].shape == (16, 2)
    policy = worker.get_policy()
    before = policy.target_model[0].weight.detach().clone()
    info = worker.learn_on_batch(batch)["default_policy"]["learner_stats"]
    assert {"loss", "mean_q", "epsilon"} <= set(info)
    assert np.allclose(before, policy.target_model[0].weight.detach())
    policy.update_target()
    assert np.allclose(policy.model[0].weight.detach(), policy.target_model[0].weight.detach())


def test_adjust_nstep_sums_discounted_rewards_within_one_segment():
    from rlviz.rollout.dqn_policy import N_STEPS, adjust_nstep

    # A segment cut by the fragment boundary (no episode end): the last rows sum fewer rewards.
    seg = SampleBatch(rewards=np.array([1.0, 10.0, 100.0, 1000.0], np.float32),
                      new_obs=np.arange(1, 5, dtype=np.float32)[:, None],
                      terminateds=np.zeros(4, bool), truncateds=np.zeros(4, bool))
    out = adjust_nstep(3, 0.5, seg)
    assert out["rewards"].tolist() == [1 + 5 + 25, 10 + 50 + 250, 100 + 500, 1000]
    assert out["rewards"].dtype == np.float32
    assert out["new_obs"][:, 0].tolist() == [3.0, 4.0, 4.0, 4.0]
    assert out[N_STEPS].tolist() == [3, 3, 2, 1]
    assert seg["rewards"].tolist() == [1, 10, 100, 1000]                 # input unchanged
    # n_step longer than the segment, episode terminates at its last row
    done = SampleBatch(rewards=[1.0, 1.0], new_obs=[[1.0], [2.0]], terminateds=[False, True],
                       truncateds=[False, False])
    out = adjust_nstep(5, 0.9, done)
    assert np.allclose(out["rewards"], [1.9, 1.0]) and out["terminateds"].tolist() == [True, True]
    assert out[N_STEPS].tolist() == [2, 1]
    with pytest.raises(ValueError, match="episode end before its last row"):
        adjust_nstep(2, 0.9, SampleBatch(rewards=[1.0, 1.0], new_obs=[[0.0], [0.0]],
                                         terminateds=[True, False], truncateds=[False, False]))


def test_dqn_n_step_targets_bootstrap_with_gamma_to_the_n_steps():
    config = {"n_step": 3, "gamma": 0.5, "double_q": False}
    dqn = DQNPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, config, seed=0)
    worker = RolloutWorker(env_creator="CartPole-v1", policy_spec={"default_policy": (DQNPolicy, config)},
                           rollout_fragment_length=16, seed=0)
    batch = worker.sample()
    assert "n_steps" in batch and set(batch["n_steps"].tolist()) <= {1, 2, 3}
    _, target = dqn._q_and_target(batch)
    with torch.no_grad():
        q_next = dqn.target_model(torch.as_tensor(batch["new_obs"])).max(dim=1).values.numpy()
    expected = batch["rewards"] + 0.5 ** batch["n_steps"] * (1 - batch["terminateds"]) * q_next
    assert np.allclose(target.numpy(), expected, atol=1e-6)
    plain = RolloutWorker(env_creator="CartPole-v1", default_policy_class=DQNPolicy, rollout_fragment_length=4,
                          seed=0).sample()
    assert "n_steps" not in plain and set(plain["rewards"].tolist()) == {1.0}   # n_step=1: unchanged
    with pytest.raises(ValueError, match="n_step must be an int >= 1, got 0"):
        DQNPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, {"n_step": 0})


def test_dqn_loss_weights_rows_by_prioritized_replay_importance_weights():
    dqn = DQNPolicy(CARTPOLE.observation_space, CARTPOLE.action_space, seed=0)
    rng = np.random.default_rng(0)
    batch = SampleBatch(obs=rng.normal(size=(4, 4)).astype(np.float32), actions=[0, 1, 0, 1],
                        rewards=np.array([1.0, 5.0, -3.0, 0.0], np.float32),
                        new_obs=rng.normal(size=(4, 4)).astype(np.float32),
                        terminateds=[False, True, False, False], truncateds=[False] * 4)
    plain, _ = dqn.loss(batch)
    ones, _ = dqn.loss(SampleBatch({**batch, "weights": np.ones(4, np.float32)}))
    first, _ = dqn.loss(SampleBatch({**batch, "weights": np.array([1, 0, 0, 0], np.float32)}))
    q_taken, target = dqn._q_and_target(batch)
    rows = torch.nn.functional.smooth_l1_loss(q_taken, target, reduction="none")
    assert torch.isclose(plain, ones) and torch.isclose(plain, rows.mean())
    assert torch.isclose(first, rows[0] / 4)
