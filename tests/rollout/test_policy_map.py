"""PolicyMap as RLlib's: LRU capacity, stashing with get_state, restoring on access, keys/items/values."""
import gymnasium
import numpy as np
import pytest

from rlviz.rollout.dqn_policy import DQNPolicy
from rlviz.rollout.pg_policy import PGPolicy
from rlviz.rollout.policy import Policy
from rlviz.rollout.policy_map import PolicyMap
from rlviz.rollout.random_policy import RandomPolicy
from rlviz.rollout.sample_batch import SampleBatch

SPACES = (gymnasium.spaces.Box(-1, 1, (4,), np.float32), gymnasium.spaces.Discrete(2))
OBS = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def _trained_pg(seed):
    policy = PGPolicy(*SPACES, seed=seed)
    policy.learn_on_batch(SampleBatch(obs=OBS, actions=[0, 1, 1], advantages=[1.0, -0.5, 2.0]))
    policy.global_timestep = 100 + seed
    return policy


def test_least_recently_used_are_stashed_and_restored_with_their_state():
    policies = PolicyMap(capacity=2)
    originals = {f"p{i}": _trained_pg(i) for i in range(3)}
    for pid, policy in originals.items():
        policies[pid] = policy
    assert policies.stashed_policy_ids() == ["p0"] and list(policies.cache) == ["p1", "p2"]
    assert list(policies.keys()) == ["p0", "p1", "p2"] and len(policies) == 3 and "p0" in policies
    weights = originals["p0"].get_weights()
    restored = policies["p0"]                              # p1 is now the least recently used: stashed
    assert restored is not originals["p0"] and isinstance(restored, PGPolicy)
    assert all(np.array_equal(restored.get_weights()[k], weights[k]) for k in weights)
    assert restored.global_timestep == 100
    assert policies.stashed_policy_ids() == ["p1"]
    assert restored.optimizer.state_dict()["state"]          # Adam's moments came back too
    policies["p2"]                                          # touch p2: p0 becomes the LRU
    policies["p1"]
    assert policies.stashed_policy_ids() == ["p0"]


def test_items_and_values_include_the_stashed_ones():
    policies = PolicyMap(capacity=1)
    for i in range(3):
        policies[f"p{i}"] = RandomPolicy(*SPACES, seed=i)
    seen = dict(policies.items())
    assert list(seen) == ["p0", "p1", "p2"] and all(isinstance(p, RandomPolicy) for p in seen.values())
    assert len(list(policies.values())) == 3 and len(policies.cache) == 1
    assert dict(policies).keys() == {"p0", "p1", "p2"}
    assert isinstance(policies, dict)
    assert str(policies) == "<PolicyMap lru-caching-capacity=1 policy-IDs=['p0', 'p1', 'p2']>"


def test_a_restored_policy_acts_as_it_would_have():
    kept, stashed = DQNPolicy(*SPACES, seed=3), DQNPolicy(*SPACES, seed=3)
    kept.compute_actions(OBS)
    stashed.compute_actions(OBS)
    policies = PolicyMap(capacity=1)
    policies["dqn"] = stashed
    policies["other"] = RandomPolicy(*SPACES, seed=0)      # dqn is stashed now
    back = policies["dqn"]
    assert back is not stashed
    for _ in range(3):
        assert np.array_equal(back.compute_actions(OBS)[0], kept.compute_actions(OBS)[0])
    assert back.global_timestep == kept.global_timestep
    assert all(np.array_equal(a, b) for a, b in zip(back.target_model.state_dict().values(),
                                                      kept.target_model.state_dict().values()))


def test_swappable_states_reuse_the_evicted_object():
    policies = PolicyMap(capacity=1, policy_states_are_swappable=True)
    first, second = _trained_pg(1), _trained_pg(2)
    policies["a"], policies["b"] = first, second
    a = policies["a"]
    assert a is second                                      # b's object now carries a's state
    assert np.array_equal(a.get_weights()["pi.0.bias"], first.get_weights()["pi.0.bias"])
    assert a.global_timestep == 101 and policies.stashed_policy_ids() == ["b"]
    assert policies["b"].global_timestep == 102


def test_delete_pop_get_update_and_rllib_1x_create_policy():
    policies = PolicyMap(capacity=1, worker_index=0, num_workers=2, policy_config={"lr": 0.01})
    policies.update({"a": RandomPolicy(*SPACES)}, b=RandomPolicy(*SPACES))
    del policies["a"]                                       # a was stashed: it goes for good
    assert list(policies) == ["b"] and policies.get("a") is None and policies.stashed_policy_ids() == []
    pg = policies.create_policy("pg", PGPolicy, *SPACES, config_override={"gamma": 0.5})
    assert pg.config.lr == 0.01 and pg.config.gamma == 0.5 and policies["pg"] is pg
    assert isinstance(policies.pop("b"), RandomPolicy) and list(policies) == ["pg"]
    with pytest.raises(KeyError, match="'nope' not found"):
        policies["nope"]


@pytest.mark.parametrize("capacity, error", [(0, ValueError), (-3, ValueError), (1.5, TypeError)])
def test_capacity_below_one_is_refused_at_construction(capacity, error):
    with pytest.raises(error, match="capacity.*use capacity=1 or more"):
        PolicyMap(capacity=capacity)


def test_from_state_needs_a_policy_spec():
    with pytest.raises(ValueError, match="policy_spec"):
        Policy.from_state({"weights": {}})
