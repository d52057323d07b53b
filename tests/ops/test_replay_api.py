"""RLlib 1.x's replay API: LocalReplayBuffer's keywords and return shapes, ReplayActor.remote, prioritized sampling."""
import numpy as np
import pytest

from rlviz.ops import LocalReplayBuffer, Replay, ReplayActor, StoreToReplayBuffer
from rlviz.ops.segment_tree import SumMinTree
from rlviz.rollout.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch


def _rows(n, start=0, eps_id=0):
    return SampleBatch(obs=np.arange(start, start + n, dtype=np.float32)[:, None], actions=np.zeros(n, int),
                       rewards=np.ones(n), eps_id=np.full(n, eps_id), t=np.arange(n))


def test_rllib_1x_keywords_sharding_and_return_shapes():
    # RLlib 1.x's DQN built it like this (execution_plan of dqn.py)
    buffer = LocalReplayBuffer(num_shards=2, learning_starts=100, buffer_size=1000, replay_batch_size=32,
                               prioritized_replay_alpha=0.6, prioritized_replay_beta=0.4,
                               prioritized_replay_eps=1e-6, replay_mode="independent", replay_sequence_length=1,
                               replay_burn_in=0, replay_zero_init_states=True, seed=0)
    assert (buffer.replay_starts, buffer.buffer_size) == (50, 500)       # per shard
    buffer.add_batch(_rows(40))
    assert buffer.replay() is None                                       # 40 < 50 steps added
    buffer.add(_rows(20, start=40))
    replayed = buffer.replay()
    assert isinstance(replayed, MultiAgentBatch) and replayed.count == 32
    rows = replayed.policy_batches[DEFAULT_POLICY_ID]
    assert len(rows) == 32 and {"weights", "batch_indexes"} <= set(rows)
    assert rows["obs"][:, 0].tolist() == rows["batch_indexes"].tolist()  # row i of the buffer holds obs i
    stats = buffer.stats()
    assert set(stats) == {"add_batch_time_ms", "replay_time_ms", "update_priorities_time_ms", "policy_default_policy"}
    assert stats["policy_default_policy"]["added_count"] == 60 and stats["policy_default_policy"]["num_entries"] == 60
    assert stats["policy_default_policy"]["sampled_count"] == 32
    assert isinstance(buffer.get_host(), str) and LocalReplayBuffer.get_instance_for_testing() is buffer


def test_prioritized_replay_follows_the_priorities_and_weights_as_rllib():
    buffer = LocalReplayBuffer(learning_starts=0, buffer_size=100, replay_batch_size=2000, seed=1)
    buffer.add_batch(_rows(4))
    buffer.update_priorities({DEFAULT_POLICY_ID: (np.array([0, 1, 2, 3]), np.array([1.0, 1.0, 1.0, 5.0]))})
    rows = buffer.replay().policy_batches[DEFAULT_POLICY_ID]
    share = np.bincount(rows["batch_indexes"], minlength=4) / len(rows)
    expected = np.array([1, 1, 1, 5]) ** 0.6 / (3 + 5 ** 0.6)            # p_i ** alpha / sum
    assert np.allclose(share, expected, atol=0.03)
    low, high = rows["weights"][rows["batch_indexes"] == 0][0], rows["weights"][rows["batch_indexes"] == 3][0]
    assert low == pytest.approx(1.0) and high == pytest.approx((1 / 5 ** 0.6) ** 0.4, rel=1e-4)
    assert buffer.update_priorities_timer.count == 1


def test_sum_tree_finds_prefix_sums_and_tracks_the_minimum():
    rng = np.random.default_rng(0)
    values = rng.random(1000) + 0.01
    tree = SumMinTree(1000)
    tree.set(np.arange(1000), values)
    tree.set([7, 7], [0.5, 2.0])                                         # last write wins
    values[7] = 2.0
    masses = rng.random(500) * values.sum()
    assert tree.total() == pytest.approx(values.sum()) and tree.min() == pytest.approx(values.min())
    assert tree.find_prefixsum_idx(masses).tolist() == np.searchsorted(np.cumsum(values), masses, side="right").tolist()


def test_multi_agent_independent_and_lockstep_modes():
    red, blue = _rows(6, eps_id=1), _rows(4, start=100, eps_id=1)
    blue["t"] = np.array([0, 2, 4, 5])
    batch = MultiAgentBatch({"red": red, "blue": blue}, env_steps=6)
    independent = LocalReplayBuffer(learning_starts=0, buffer_size=50, replay_batch_size=8, seed=0)
    independent.add_batch(batch)
    out = independent.replay()
    assert set(out.policy_batches) == {"red", "blue"} and all(len(b) == 8 for b in out.policy_batches.values())
    lockstep = LocalReplayBuffer(learning_starts=0, buffer_size=50, replay_batch_size=3, replay_mode="lockstep",
                                 seed=0)
    lockstep.add_batch(batch)
    assert len(lockstep.lockstep_items) == 6                              # one item per env step
    out = lockstep.replay()
    assert out.env_steps() == 3 and "weights" not in out.policy_batches["red"]
    assert "policy___all__" in lockstep.stats()


def test_sequences_with_burn_in_are_zero_padded_with_seq_lens():
    buffer = LocalReplayBuffer(learning_starts=0, buffer_size=20, replay_batch_size=8, replay_sequence_length=4,
                               replay_burn_in=1, seed=0)
    assert buffer.replay_batch_size == 2                                 # 8 rows // 4 per sequence
    buffer.add_batch(_rows(6, eps_id=3))                                 # cut every 3 rows, 1 row of burn-in
    assert len(buffer.replay_buffers[DEFAULT_POLICY_ID]) == 2
    rows = buffer.replay().policy_batches[DEFAULT_POLICY_ID]
    assert rows.zero_padded and rows.max_seq_len == 4 and len(rows["obs"]) == 8
    assert rows["seq_lens"].tolist() == [4, 4] and len(rows["weights"]) == 8
    firsts = {tuple(rows["obs"][i * 4:i * 4 + 4, 0].tolist()) for i in range(2)}
    assert firsts <= {(0.0, 0.0, 1.0, 2.0), (2.0, 3.0, 4.0, 5.0)}       # zero for the first burn-in row


@pytest.mark.parametrize("kwargs, error, match", [
    ({"buffer_sise": 10}, TypeError, "did you mean 'buffer_size'"),
    ({"replay_mode": "together"}, ValueError, "Unsupported replay mode"),
    ({"num_shards": 0}, ValueError, "num_shards"),
    ({"replay_sequence_length": 4, "replay_burn_in": 4}, ValueError, "replay_burn_in"),
])
def test_bad_keywords_fail_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        LocalReplayBuffer(**kwargs)


def test_update_priorities_takes_rllibs_prio_dict():
    buffer = LocalReplayBuffer(learning_starts=0, buffer_size=10, replay_batch_size=2)
    buffer.add_batch(_rows(3))
    with pytest.raises(TypeError, match="policy_id: \\(batch_indexes, td_errors\\)"):
        buffer.update_priorities((np.array([0]), np.array([1.0])))


def test_replay_actor_remote_as_rllib_1x_and_the_replay_op(ray_local):
    import ray

    actors = [ReplayActor.remote(2, 8, 100, 4) for _ in range(2)]      # RLlib 1.x passed them positionally
    store = StoreToReplayBuffer(actors=actors)
    for i in range(4):
        store(_rows(5, start=5 * i))
    assert ray.get(actors[0].replay.remote()).count == 4
    ray.get(actors[1].update_priorities.remote({DEFAULT_POLICY_ID: (np.array([0, 1]), np.array([0.5, 2.0]))}))
    stats = ray.get(actors[1].stats.remote())
    assert stats["policy_default_policy"]["added_count"] == 10 and stats["update_priorities_time_ms"] >= 0
    assert isinstance(ray.get(actors[0].get_host.remote()), str)
    replayed = Replay(actors=actors, num_async=1)
    batches = [next(replayed) for _ in range(4)]
    assert all(isinstance(b, MultiAgentBatch) and len(b.policy_batches[DEFAULT_POLICY_ID]) == 4 for b in batches)
    for actor in actors:
        ray.kill(actor)
