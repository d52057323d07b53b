"""Env creation, the multi-agent arena, and the policies' acting, postprocessing and learning."""
import gymnasium
import numpy as np
import pytest

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
    assert isinstance(make_env_creator(MultiAgentArena, {"num_agents": 3})(), MultiAgentArena)
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
    (lambda: RolloutWorker("NoSuchEnv-v9", RandomPolicy), ValueError, "unknown env id 'NoSuchEnv-v9'"),
    (lambda: RolloutWorker("FrozenLake-v1", PGPolicy), ValueError,
     r"PGPolicy supports 1-D Box observation spaces, got Discrete\(16\)"),
    (lambda: RolloutWorker("Pendulum-v1", DQNPolicy), ValueError, "DQNPolicy supports Discrete action spaces, got Box"),
    (lambda: RolloutWorker("MultiAgentArena", {"a": (PGPolicy, None), "b": (PGPolicy, None)},
                           policy_mapping_fn=lambda agent: "c"), ValueError,
     "maps agent 'agent_0' to policy 'c', which is not one of the policies"),
    (lambda: RolloutWorker("MultiAgentArena", {"a": (PGPolicy, None), "b": (PGPolicy, None)}), ValueError,
     "needs policy_mapping_fn"),
    (lambda: RolloutWorker("CartPole-v1", "PGPolicy"), TypeError, "policy must be a Policy subclass"),
    (lambda: RolloutWorker("CartPole-v1", RandomPolicy, num_envs=2), ValueError,
     "unknown RolloutConfig key 'num_envs'; did you mean 'num_envs_per_worker'"),
    (lambda: RolloutWorker("CartPole-v1", RandomPolicy, rollout_fragment_length=0), ValueError,
     "rollout_fragment_length must be >= 1"),
    (lambda: RolloutWorker("CartPole-v1", (PGPolicy, {"lrr": 0.1})), TypeError, "policy must be"),
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
    worker = RolloutWorker("CartPole-v1", (DQNPolicy), rollout_fragment_length=16, seed=0)
    batch = worker.sample()
    assert batch["q_values"].shape == (16, 2)
    policy = worker.get_policy()
    before = policy.target_model[0].weight.detach().clone()
    info = worker.learn_on_batch(batch)["default_policy"]
    assert {"loss", "mean_q", "epsilon"} <= set(info)
    assert np.allclose(before, policy.target_model[0].weight.detach())
    policy.update_target()
    assert np.allclose(policy.model[0].weight.detach(), policy.target_model[0].weight.detach())
