"""SampleBatch and MultiAgentBatch: construction, slicing, episodes, concat and summaries."""
import numpy as np
import pytest

from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch, concat_samples
from rlviz.trace import record, span


def _batch():
    return SampleBatch(obs=np.arange(10).reshape(5, 2), actions=[0, 1, 0, 1, 1], rewards=[1.0] * 5,
                       eps_id=[3, 3, 8, 8, 8], t=[5, 6, 0, 1, 2],
                       terminateds=[False, True, False, False, False], truncateds=[False] * 5)


def test_repr_is_rllib_1x_and_the_trace_summary_is_short():
    batch = _batch()
    assert repr(batch) == ("SampleBatch(5: ['obs', 'actions', 'rewards', 'eps_id', 't', 'terminateds', "
                           "'truncateds'])")
    assert str(batch) == repr(batch)
    assert batch.__rlviz_summary__() == "SampleBatch(5: obs, actions, rewards, ...)"


def test_trace_uses_the_summary():
    with record() as trace:
        with span("sample") as call:
            call.produced(_batch())
    assert trace.events[0].item == "SampleBatch(5: obs, actions, rewards, ...)"


def test_split_by_episode_slice_and_concat_round_trip():
    batch = _batch()
    parts = batch.split_by_episode()
    assert [p.count for p in parts] == [2, 3]
    assert parts[0].is_terminated_or_truncated() and not parts[1].is_terminated_or_truncated()
    again = SampleBatch.concat_samples(parts)
    assert all(np.array_equal(again[k], batch[k]) for k in batch)
    assert batch[1:3]["t"].tolist() == [6, 0]


def test_shuffle_returns_a_permutation_and_leaves_the_original():
    batch = _batch()
    shuffled = batch.shuffle(seed=1)
    assert sorted(shuffled["obs"][:, 0].tolist()) == batch["obs"][:, 0].tolist()
    assert batch["t"].tolist() == [5, 6, 0, 1, 2]
    assert all(np.array_equal(shuffled["obs"][i] // 2, [shuffled["obs"][i][0] // 2] * 2) for i in range(5))


def test_columns_rows_copy_pad():
    batch = _batch()
    actions, t = batch.columns(["actions", "t"])
    assert actions.tolist() == [0, 1, 0, 1, 1] and t[0] == 5
    assert [int(row["t"]) for row in batch.rows()] == [5, 6, 0, 1, 2]
    copy = batch.copy()
    copy["rewards"][0] = 9
    assert batch["rewards"][0] == 1.0
    padded = batch.right_zero_pad(7)
    assert padded.count == 7 and padded["rewards"][5:].tolist() == [0.0, 0.0]
    assert batch.env_steps() == batch.agent_steps() == 5


@pytest.mark.parametrize("make, error, match", [
    (lambda: SampleBatch(obs=[1, 2], actions=[1]), ValueError, "same number of rows"),
    (lambda: _batch().right_zero_pad(2), ValueError, "max_len=2 is less than"),
    (lambda: _batch().columns(["q_values"]), KeyError, "no column 'q_values'"),
    (lambda: SampleBatch(t=[1]).split_by_episode(), KeyError, "eps_id"),
    (lambda: concat_samples([SampleBatch(t=[1]), SampleBatch(x=[1])]), ValueError, "columns"),
    (lambda: MultiAgentBatch([SampleBatch(t=[1])], 1), TypeError, "policy_batches must be a dict"),
])
def test_bad_inputs(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_multi_agent_counts_and_concat():
    a = MultiAgentBatch({"red": SampleBatch(t=[0, 1]), "blue": SampleBatch(t=[0, 1])}, env_steps=2)
    b = MultiAgentBatch({"red": SampleBatch(t=[2])}, env_steps=1)
    both = concat_samples([a, b])
    assert both.env_steps() == 3 and both.agent_steps() == 5
    assert both.__rlviz_summary__() == "MultiAgentBatch(3 env steps: red 3, blue 2)"


# -- what an RLlib 1.x user touches first: each behaves as RLlib's SampleBatch did -------------------
def test_len_is_the_row_count_not_the_column_count():
    batch = _batch()
    assert len(batch) == batch.count == 5
    assert len(batch.keys()) == 7
    assert len(SampleBatch(t=[1, 2, 3])) == 3             # one column, three rows
    assert len(SampleBatch()) == 0 and not SampleBatch()
    assert not SampleBatch(t=[]) and SampleBatch(t=[]).count == 0
    assert [len(b) for b in [SampleBatch(t=range(200)), SampleBatch(t=range(200))]] == [200, 200]


def test_iteration_and_in_see_column_names_like_a_dict():
    batch = _batch()
    assert list(batch) == ["obs", "actions", "rewards", "eps_id", "t", "terminateds", "truncateds"]
    assert "obs" in batch and SampleBatch.REWARDS in batch and "q_values" not in batch
    assert 0 not in batch                                  # rows are not keys
    assert dict(batch).keys() == batch.keys() and isinstance(batch, dict)


def test_slicing_takes_rows_like_a_list():
    batch = _batch()
    assert batch[1:3]["t"].tolist() == [6, 0] and len(batch[1:3]) == 2
    assert batch[:2]["t"].tolist() == [5, 6]
    assert batch[3:]["t"].tolist() == [1, 2]
    assert batch[-2:]["t"].tolist() == [1, 2]
    assert len(batch[2:100]) == 3                          # past the end stops at the end
    assert len(batch[4:1]) == 0
    assert isinstance(batch[1:3], SampleBatch) and list(batch[1:3]) == list(batch)
    with pytest.raises(ValueError, match="consecutive rows; got step 2"):
        batch[::2]


def test_setting_columns_keeps_len_in_step():
    batch = SampleBatch()
    batch["t"] = [0, 1, 2]
    assert len(batch) == 3
    batch["rewards"] = [1.0, 1.0, 0.0]
    assert len(batch) == 3 and len(batch.keys()) == 2
    with pytest.raises(ValueError, match="column 'obs' has 2 rows but the batch has 3"):
        batch["obs"] = [1, 2]


def test_an_empty_batch_with_columns_survives_copying_and_pickling():
    import pickle

    empty = SampleBatch(t=np.zeros(0, int), obs=np.zeros((0, 4)))
    assert list(SampleBatch(empty)) == ["t", "obs"]
    again = pickle.loads(pickle.dumps(_batch()))
    assert len(again) == 5 and list(again) == list(_batch())


def test_concat_samples_adds_rows():
    parts = [SampleBatch(t=range(200)), SampleBatch(t=range(200))]
    merged = concat_samples(parts)
    assert len(merged) == merged.count == 400 and list(merged) == ["t"]
    assert len(SampleBatch.concat_samples([])) == 0


def test_multi_agent_batch_len_count_policy_batches_and_repr():
    batch = MultiAgentBatch({"red": SampleBatch(t=[0, 1]), "blue": SampleBatch(t=[0, 1, 2])}, env_steps=2)
    assert len(batch) == batch.count == batch.env_steps() == 2
    assert batch.agent_steps() == 5
    assert list(batch.policy_batches) == ["red", "blue"] and len(batch.policy_batches["blue"]) == 3
    assert repr(batch) == ("MultiAgentBatch({'red': SampleBatch(2: ['t']), 'blue': SampleBatch(3: ['t'])}, "
                           "env_steps=2)")
    single = SampleBatch(t=[0, 1]).as_multi_agent()
    assert len(single) == 2 and list(single.policy_batches) == ["default_policy"]
